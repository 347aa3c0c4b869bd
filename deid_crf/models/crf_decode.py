"""Viterbi decoding of a trained CRFsuite model in numpy, straight from feature codes.

CRFsuite tags a sentence from its attribute strings: every token's strings are
converted to C++ strings and looked up in the model's attribute dictionary, which
for the full feature set (71 attributes per token) costs far more than computing
the features. A linear-chain CRF's label score is a sum of weights, so the same
decision is reached by summing the model's state weights over the attribute codes
(:meth:`deid_crf.featurization.featurizer.Featurizer.linear_scores`, per token type where the
features depend on the type alone) and running Viterbi over all sentences at once.
CRFsuite's model has no start or end weights: a path scores
``Σ state[x_t, y_t] + Σ transition[y_{t-1}, y_t]``, which is what :func:`viterbi`
maximises, breaking ties towards the lower label index as CRFsuite does.
:func:`marginals` runs forward–backward over the same scores, giving each token's
label probabilities (CRFsuite's ``Tagger.marginal``), the confidences of the outputs.
"""

from __future__ import annotations

import functools
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import ThreadpoolController

from deid_crf.featurization.featurizer import Featurizer
from deid_crf.text.table import TokenTable

# CRFsuite's model file (``crf1d_model.c``, little-endian): a 48-byte header, then
# chunks at the offsets it gives; features are (type, source, destination, weight)
# records, type 0 a state feature (attribute → label), 1 a transition (label → label).
_HEADER = struct.Struct("<4sI4sIIIIIIIII")
_CHUNK = struct.Struct("<4sII")
_FEATURE = np.dtype([("type", "<u4"), ("src", "<u4"), ("dst", "<u4"), ("weight", "<f8")])
# The string dictionaries (CQDB chunks): a 24-byte header, whose last field is the
# offset of the id → record array; a record is (id, size, NUL-terminated string).
_CQDB = struct.Struct("<4sIIIII")
_CQDB_BYTE_ORDER = 0x62445371


@dataclass
class CRFWeights:
    """The weights of a CRFsuite model as arrays."""

    labels: list[str]
    attributes: dict[str, int]  # attribute string → row of ``state``
    state: np.ndarray  # (n_attributes + 1, n_labels); the last row (zeros) for unknown attributes
    transitions: np.ndarray  # (n_labels, n_labels), [previous, next]

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> CRFWeights:
        """Read the weights of a CRFsuite model file (``ValueError`` naming ``path`` if it
        is not one). The weights are the file's doubles, bit for bit: CRFsuite's own dump
        (``Tagger.info()``) prints them rounded to 6 decimals."""
        data = Path(path).read_bytes()
        try:
            magic, _, kind, _, _, n_labels, n_attributes, at_features, at_labels, at_attributes, _, _ = (
                _HEADER.unpack_from(data)
            )
            chunk, _, n_features = _CHUNK.unpack_from(data, at_features)
            if (magic, kind, chunk) != (b"lCRF", b"FOMC", b"FEAT"):
                raise ValueError("bad chunk identifiers")
            features = np.frombuffer(data, dtype=_FEATURE, count=n_features, offset=at_features + _CHUNK.size)
            labels = _strings(data, at_labels, n_labels)
            attributes = _strings(data, at_attributes, n_attributes)
        except (struct.error, ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not a CRFsuite model file ({exc})") from None
        state = np.zeros((n_attributes + 1, n_labels), dtype=np.float64)
        transitions = np.zeros((n_labels, n_labels), dtype=np.float64)
        for kind_code, target in ((0, state), (1, transitions)):
            selected = features[features["type"] == kind_code]
            target[selected["src"], selected["dst"]] = selected["weight"]
        return cls(labels, {a: i for i, a in enumerate(attributes)}, state, transitions)

    def rows(self, attributes: list[str]) -> np.ndarray:
        """The ``state`` row of each attribute string (the zero row when unknown)."""
        unknown = len(self.attributes)
        get = self.attributes.get
        return np.array([get(a, unknown) for a in attributes], dtype=np.int64)

    def scores(self, featurizer: Featurizer, table: TokenTable) -> np.ndarray:
        """The state score of every label for every token of ``table``, featurized by
        ``featurizer`` (the configuration the model was trained with)."""
        return featurizer.linear_scores(table, self.state, self.rows)

    def tag(self, featurizer: Featurizer, table: TokenTable) -> np.ndarray:
        """The best label (object array of str) of every token of ``table``."""
        best = viterbi(self.scores(featurizer, table), self.transitions, table.sent_bounds)
        return np.array(self.labels, dtype=object)[best]

    def tag_with_confidence(self, featurizer: Featurizer, table: TokenTable) -> tuple[np.ndarray, np.ndarray]:
        """The best label of every token of ``table`` (as :meth:`tag`) and its
        marginal probability (as CRFsuite's ``Tagger.marginal``)."""
        scores = self.scores(featurizer, table)
        best = viterbi(scores, self.transitions, table.sent_bounds)
        confidence = marginals(scores, self.transitions, table.sent_bounds)[np.arange(len(best)), best]
        return np.array(self.labels, dtype=object)[best], confidence

    def tag_with_marginals(self, featurizer: Featurizer, table: TokenTable) -> tuple[np.ndarray, np.ndarray]:
        """The best label of every token of ``table`` (as :meth:`tag`) and its
        probability of every label (columns in the order of :attr:`labels`)."""
        scores = self.scores(featurizer, table)
        best = viterbi(scores, self.transitions, table.sent_bounds)
        return np.array(self.labels, dtype=object)[best], marginals(scores, self.transitions, table.sent_bounds)


def _strings(data: bytes, offset: int, count: int) -> list[str]:
    """The strings of ids ``0 … count-1`` of the CQDB chunk at ``offset`` of ``data``."""
    chunk, _, _, byte_order, _, at_ids = _CQDB.unpack_from(data, offset)
    if chunk != b"CQDB" or byte_order != _CQDB_BYTE_ORDER:
        raise ValueError("bad string dictionary")
    records = np.frombuffer(data, dtype="<u4", count=count, offset=offset + at_ids).astype(np.int64) + offset
    if count and (records == offset).any():
        raise ValueError("string dictionary with missing ids")
    sizes = np.frombuffer(data, dtype=np.uint8)[(records + 4)[:, None] + np.arange(4)].astype(np.int64)
    sizes = sizes @ (1 << (8 * np.arange(4)))  # little-endian uint32, NUL included
    return [data[a : a + n].decode("utf-8") for a, n in zip((records + 8).tolist(), (sizes - 1).tolist(), strict=True)]


# Sentences decoded together: bounds the (sentences, labels, labels) work array to
# about 30 MB with MEDDOCAN's 42 labels.
SENTENCE_BLOCK = 2048


def viterbi(scores: np.ndarray, transitions: np.ndarray, sent_bounds: np.ndarray) -> np.ndarray:
    """Per sentence, the label indices maximising ``Σ scores[t, y_t] + Σ
    transitions[y_{t-1}, y_t]``. Sentences advance together, longest first, so that
    the sentences still running at step ``t`` are a prefix of a block and each step is
    a handful of numpy operations over ``(sentences, labels, labels)``."""
    n, k = scores.shape
    out = np.zeros(n, dtype=np.int64)
    bounds = sent_bounds[sent_bounds[:, 1] > sent_bounds[:, 0]]
    if n == 0 or len(bounds) == 0:
        return out
    lengths = bounds[:, 1] - bounds[:, 0]
    order = np.argsort(-lengths, kind="stable")
    starts, lengths = bounds[order, 0], lengths[order]
    # (next, previous) order: the maximum runs along contiguous memory.
    incoming = np.ascontiguousarray(np.asarray(transitions, dtype=np.float64).T)
    back = np.zeros((n, k), dtype=np.int16 if k < 2**15 else np.int32)
    work = np.empty((min(len(starts), SENTENCE_BLOCK), k, k), dtype=np.float64)
    for first in range(0, len(starts), SENTENCE_BLOCK):
        block = slice(first, first + SENTENCE_BLOCK)
        _viterbi_block(scores, incoming, starts[block], lengths[block], back, out, work)
    return out


def _viterbi_block(
    scores: np.ndarray,
    incoming: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    back: np.ndarray,
    out: np.ndarray,
    work: np.ndarray,
) -> None:
    """Viterbi over sentences sorted longest first; writes their labels into ``out``."""
    steps = int(lengths[0])
    # running[t]: how many sentences (a prefix) have a token at step t.
    running = np.searchsorted(-lengths, -np.arange(steps), side="left")
    best = scores[starts].astype(np.float64)  # best path score ending in each label
    for t in range(1, steps):
        m = int(running[t])
        step = np.add(best[:m, None, :], incoming[None], out=work[:m])  # (m, next, previous)
        previous = step.argmax(axis=2)
        tokens = starts[:m] + t
        back[tokens] = previous
        best[:m] = np.take_along_axis(step, previous[:, :, None], axis=2)[:, :, 0] + scores[tokens]
    label = best.argmax(axis=1)
    for t in range(steps - 1, -1, -1):
        m = int(running[t])
        tokens = starts[:m] + t
        out[tokens] = label[:m]
        label[:m] = back[tokens, label[:m]]


def marginals(scores: np.ndarray, transitions: np.ndarray, sent_bounds: np.ndarray) -> np.ndarray:
    """Per token, the probability of each label given its sentence, under the same path
    scores as :func:`viterbi` (forward–backward; a token outside every sentence gets
    zeros). Messages stay in log space; sentences advance together, longest first, as
    in :func:`viterbi`, and each step sums over the previous (next) label with one
    matrix product (:func:`_log_product`)."""
    n, k = scores.shape
    out = np.zeros((n, k), dtype=np.float64)
    bounds = sent_bounds[sent_bounds[:, 1] > sent_bounds[:, 0]]
    if n == 0 or len(bounds) == 0:
        return out
    scores = np.asarray(scores, dtype=np.float64)
    transitions = np.asarray(transitions, dtype=np.float64)
    lengths = bounds[:, 1] - bounds[:, 0]
    order = np.argsort(-lengths, kind="stable")
    starts, lengths = bounds[order, 0], lengths[order]
    steps = int(lengths[0])
    running = np.searchsorted(-lengths, -np.arange(steps), side="left")
    # The products are small, (sentences, labels) by (labels, labels): a multi-threaded
    # BLAS spends more time waking and joining its threads than multiplying, and its
    # spinning threads slow the rest of the process (several times, on 2 cores).
    with _thread_pools().limit(limits=1, user_api="blas"):
        # Forward: ``out`` holds every token's log alpha.
        alpha = scores[starts].copy()
        out[starts] = alpha
        forward = _LogProduct(transitions)
        for t in range(1, steps):
            m = int(running[t])
            tokens = starts[:m] + t
            alpha[:m] = forward(alpha[:m]) + scores[tokens]
            out[tokens] = alpha[:m]
        # Backward: log beta is 0 at a sentence's last token; ``out`` becomes the marginals.
        beta = np.zeros_like(alpha)
        backward = _LogProduct(transitions.T)
        for t in range(steps - 1, -1, -1):
            m = int(running[t])
            tokens = starts[:m] + t
            joint = out[tokens] + beta[:m]
            joint = np.exp(joint - joint.max(axis=1, keepdims=True))
            out[tokens] = joint / joint.sum(axis=1, keepdims=True)
            if t:
                beta[:m] = backward(scores[tokens] + beta[:m])
    return out


@functools.cache
def _thread_pools() -> ThreadpoolController:
    """The thread pools of the native libraries loaded (found once per process)."""
    return ThreadpoolController()


# A sum of exponentials below this may have lost terms to underflow: recomputed exactly.
_TINY = 1e-280


class _LogProduct:
    """``v ↦ log(exp(v) @ exp(M))`` row by row, i.e. ``logsumexp_i(v[:, i] + M[i, j])``,
    as one matrix product: rows of ``v`` are shifted by their maximum and columns of
    ``M`` by theirs, so every exponential is at most 1. A result whose sum fell below
    :data:`_TINY` (weights hundreds of nats apart) is recomputed term by term."""

    def __init__(self, matrix: np.ndarray):
        self.matrix = matrix
        self.shift = matrix.max(axis=0)
        self.exp = np.exp(matrix - self.shift)

    def __call__(self, v: np.ndarray) -> np.ndarray:
        top = v.max(axis=1, keepdims=True)
        total = np.exp(v - top) @ self.exp
        low = np.flatnonzero((total < _TINY).any(axis=1))
        with np.errstate(divide="ignore"):
            out = np.log(total) + top + self.shift
        if len(low):
            terms = v[low, :, None] + self.matrix[None]
            peak = terms.max(axis=1)
            out[low] = peak + np.log(np.exp(terms - peak[:, None, :]).sum(axis=1))
        return out
