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
label probabilities (CRFsuite's ``Tagger.marginal``), the confidences of the outputs;
:func:`span_marginals` uses the same messages for the probability that a span is exactly
one entity of a type, and :func:`k_best` finds each sentence's ``k`` best label sequences.
"""

from __future__ import annotations

import math
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from deid_crf.config import MAX_CANDIDATE_SPAN_TOKENS
from deid_crf.featurization.featurizer import Featurizer
from deid_crf.featurization.type_scores import TypeScores
from deid_crf.parallel import one_blas_thread
from deid_crf.text import bio
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
    # The summed state weights of each token string's type-level features, kept from one
    # table to the next (see deid_crf.featurization.type_scores).
    type_scores: TypeScores = field(default_factory=TypeScores, repr=False, compare=False)

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
        return featurizer.linear_scores(table, self.state, self.rows, self.type_scores)

    def tag(self, featurizer: Featurizer, table: TokenTable) -> np.ndarray:
        """The best label (object array of str) of every token of ``table``."""
        best = viterbi(self.scores(featurizer, table), self.transitions, table.sent_bounds)
        return np.array(self.labels, dtype=object)[best]

    def tag_with_confidence(self, featurizer: Featurizer, table: TokenTable) -> tuple[np.ndarray, np.ndarray]:
        """The best label of every token of ``table`` (as :meth:`tag`) and, where that
        label puts the token in an entity (any label but ``O``), its marginal
        probability (as CRFsuite's ``Tagger.marginal``; :func:`label_confidences`);
        NaN for the ``O`` tokens, whose confidence no output shows."""
        scores = self.scores(featurizer, table)
        best = viterbi(scores, self.transitions, table.sent_bounds)
        outside = self.labels.index(bio.OUTSIDE) if bio.OUTSIDE in self.labels else -1
        confidence = label_confidences(scores, self.transitions, table.sent_bounds, best, best != outside)
        return np.array(self.labels, dtype=object)[best], confidence

    def tag_with_marginals(
        self,
        featurizer: Featurizer,
        table: TokenTable,
        span_threshold: float | None = None,
        max_span_tokens: int = MAX_CANDIDATE_SPAN_TOKENS,
    ) -> tuple[np.ndarray, np.ndarray, SpanMarginals | None]:
        """The best label of every token of ``table`` (as :meth:`tag`), its
        probability of every label (columns in the order of :attr:`labels`) and, with
        ``span_threshold``, the spans of at most ``max_span_tokens`` tokens whose
        probability of being one entity reaches it (:func:`span_marginals`; types
        indexing :meth:`entity_labels`' types)."""
        scores = self.scores(featurizer, table)
        best = viterbi(scores, self.transitions, table.sent_bounds)
        messages = forward_backward(scores, self.transitions, table.sent_bounds)
        spans = None
        if span_threshold is not None:
            _, begin, inside = self.entity_labels()
            spans = span_marginals(
                scores, self.transitions, table.sent_bounds, begin, inside, span_threshold, max_span_tokens, messages
            )
        return np.array(self.labels, dtype=object)[best], _normalised(*messages), spans

    def k_best(self, featurizer: Featurizer, table: TokenTable, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Each sentence's ``k`` best label sequences (:func:`k_best`: label indices
        into :attr:`labels`, and their scores)."""
        return k_best(self.scores(featurizer, table), self.transitions, table.sent_bounds, k)

    def entity_labels(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The entity types that have a ``B-`` label (sorted), and the index of each
        one's ``B-`` and ``I-`` label (-1: no ``I-`` label)."""
        index = {name: i for i, name in enumerate(self.labels)}
        types = sorted(name[2:] for name in self.labels if name.startswith("B-"))
        begin = np.array([index["B-" + t] for t in types], dtype=np.int64)
        inside = np.array([index.get("I-" + t, -1) for t in types], dtype=np.int64)
        return types, begin, inside


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


# Sentences decoded together (forward-backward's messages; Viterbi's back-pointers).
SENTENCE_BLOCK = 2048
# Sentences that take one Viterbi step together, inside a block. Most steps need no
# (sentences, labels, labels) array at all (see :func:`_viterbi_block`), so more
# sentences per step pay: Viterbi over MEDDOCAN dev's 250 documents took 0.37 s with 32
# (the best size before those steps were skipped), and now 0.25 s with 32, 0.21 s with
# 64 and 0.19 s with 128, 256 or 512.
VITERBI_STEP_SENTENCES = 128
# How far below the best label's path score a label's bound must fall before it is left
# out of a Viterbi step: well above float rounding of path scores (about 1e-13 for
# MEDDOCAN's), so that a label left out is below the best by more than rounding could
# change, and the labels are those of the full maximum, ties and all.
PRUNE_MARGIN = 1e-6
# Tokens decoded together: consecutive sentences, up to this many tokens, so that a
# block's messages and back-pointers, and the rows of the table it reads and writes, stay
# in the CPU's cache (a 10 MiB document is 1.9 M tokens: working on them all at once
# costs several times more, much of it page faults).
DECODE_BLOCK_TOKENS = 16384


def _sentences(sent_bounds: np.ndarray) -> np.ndarray:
    """The non-empty sentences of ``sent_bounds``, in text order."""
    bounds = sent_bounds[sent_bounds[:, 1] > sent_bounds[:, 0]]
    return bounds[np.argsort(bounds[:, 0], kind="stable")]


def sentence_blocks(bounds: np.ndarray) -> list[slice]:
    """Runs of consecutive rows of ``bounds`` (non-empty sentences in text order, as
    :func:`_sentences` gives them) holding together at most :data:`DECODE_BLOCK_TOKENS`
    tokens (or one longer sentence) and :data:`SENTENCE_BLOCK` sentences."""
    totals = np.cumsum(bounds[:, 1] - bounds[:, 0])
    blocks, first, done = [], 0, 0
    while first < len(bounds):
        last = int(np.searchsorted(totals, done + DECODE_BLOCK_TOKENS, side="right"))
        last = min(max(last, first + 1), first + SENTENCE_BLOCK)
        blocks.append(slice(first, last))
        first, done = last, int(totals[last - 1])
    return blocks


def _block_range(bounds: np.ndarray) -> tuple[int, int]:
    """The first and past-the-last token of the sentences ``bounds``."""
    return int(bounds[:, 0].min()), int(bounds[:, 1].max())


def viterbi(scores: np.ndarray, transitions: np.ndarray, sent_bounds: np.ndarray) -> np.ndarray:
    """Per sentence, the label indices maximising ``Σ scores[t, y_t] + Σ
    transitions[y_{t-1}, y_t]``. Sentences are decoded block by block
    (:func:`sentence_blocks`); inside a block they advance together, longest first, so
    that the sentences still running at step ``t`` are a prefix and each step is a
    handful of numpy operations over ``(sentences, labels)``, and over ``(sentences,
    labels, labels)`` only for the sentences where several labels can be best
    (:func:`_viterbi_block`)."""
    n, k = scores.shape
    out = np.zeros(n, dtype=np.int64)
    bounds = _sentences(sent_bounds)
    if n == 0 or len(bounds) == 0:
        return out
    transitions = np.asarray(transitions, dtype=np.float64)
    # (next, previous) order: the maximum runs along contiguous memory.
    incoming = np.ascontiguousarray(transitions.T)
    # gain[q, p]: the most any next label's transition from p scores above the one from q.
    gain = (transitions[None, :, :] - transitions[:, None, :]).max(axis=2)
    work = np.empty((min(len(bounds), VITERBI_STEP_SENTENCES), k, k), dtype=np.float64)
    for block in sentence_blocks(bounds):
        lo, hi = _block_range(bounds[block])
        lengths = bounds[block, 1] - bounds[block, 0]
        order = np.argsort(-lengths, kind="stable")
        back = np.zeros((hi - lo, k), dtype=np.int16 if k < 2**15 else np.int32)
        starts, lengths = bounds[block, 0][order] - lo, lengths[order]
        for first in range(0, len(starts), VITERBI_STEP_SENTENCES):
            part = slice(first, first + VITERBI_STEP_SENTENCES)
            _viterbi_block(scores[lo:hi], incoming, gain, starts[part], lengths[part], back, out[lo:hi], work)
    return out


def _viterbi_block(
    scores: np.ndarray,
    incoming: np.ndarray,
    gain: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    back: np.ndarray,
    out: np.ndarray,
    work: np.ndarray,
) -> None:
    """Viterbi over sentences sorted longest first; writes their labels into ``out``.

    At each step, a previous label ``p`` can be the best one before some next label only
    if its path score plus ``gain[top, p]`` reaches the best label ``top``'s score (else
    ``top``'s path beats it before every next label). Where only ``top`` itself
    can (two thirds of MEDDOCAN dev's steps of a sentence), every next label's best
    previous is ``top``, with no maximum to take; the other sentences take it over the
    labels that can be best in any of them. The numbers are those of the maximum over
    every label (the same sums, the same first index among ties: a label left out is
    below the best by :data:`PRUNE_MARGIN` at least)."""
    k = incoming.shape[0]
    outgoing = incoming.T  # outgoing[p, j]: the transition from p to j
    steps = int(lengths[0])
    # running[t]: how many sentences (a prefix) have a token at step t.
    running = np.searchsorted(-lengths, -np.arange(steps), side="left")
    best = scores[starts].astype(np.float64)  # best path score ending in each label
    rows = np.arange(len(starts))
    for t in range(1, steps):
        m = int(running[t])
        path = best[:m]
        top = path.argmax(axis=1)
        peak = path[rows[:m], top]
        possible = path + gain[top] >= (peak - PRUNE_MARGIN)[:, None]  # (m, previous)
        value = peak[:, None] + outgoing[top]  # (m, next): each next label reached from top
        previous = np.repeat(top[:, None], k, axis=1)
        several = np.flatnonzero(possible.sum(axis=1) > 1)
        if len(several):
            labels = np.flatnonzero(possible[several].any(axis=0))  # in label order
            shape = (len(several), k, len(labels))
            step = np.add(
                path[several][:, None, labels],
                incoming[:, labels],
                out=work.reshape(-1)[: math.prod(shape)].reshape(shape),
            )  # (sentences, next, previous)
            chosen = step.argmax(axis=2)
            previous[several] = labels[chosen]
            value[several] = np.take_along_axis(step, chosen[:, :, None], axis=2)[:, :, 0]
        tokens = starts[:m] + t
        back[tokens] = previous
        best[:m] = value + scores[tokens]
    label = best.argmax(axis=1)
    for t in range(steps - 1, -1, -1):
        m = int(running[t])
        tokens = starts[:m] + t
        out[tokens] = label[:m]
        label[:m] = back[tokens, label[:m]]


def marginals(scores: np.ndarray, transitions: np.ndarray, sent_bounds: np.ndarray) -> np.ndarray:
    """Per token, the probability of each label given its sentence, under the same path
    scores as :func:`viterbi` (forward–backward, :func:`forward_backward`; a token
    outside every sentence gets zeros). Computed block by block of sentences
    (:func:`sentence_blocks`)."""
    out = np.zeros(np.shape(scores), dtype=np.float64)
    for tokens, probabilities in _block_marginals(scores, transitions, sent_bounds):
        out[tokens] = probabilities
    return out


def _block_marginals(
    scores: np.ndarray, transitions: np.ndarray, sent_bounds: np.ndarray
) -> Iterator[tuple[slice, np.ndarray]]:
    """:func:`marginals` of the tokens of each block of sentences (:func:`sentence_blocks`):
    the block's token range and its rows (zeros for tokens outside every sentence)."""
    bounds = _sentences(sent_bounds)
    if len(scores) == 0 or len(bounds) == 0:
        return
    for block in sentence_blocks(bounds):
        lo, hi = _block_range(bounds[block])
        messages = forward_backward(scores[lo:hi], transitions, bounds[block] - lo)
        yield slice(lo, hi), _normalised(*messages)


def label_confidences(
    scores: np.ndarray, transitions: np.ndarray, sent_bounds: np.ndarray, labels: np.ndarray, wanted: np.ndarray
) -> np.ndarray:
    """Per token where ``wanted`` is true, its :func:`marginals` of its label in ``labels``
    (the same numbers; 0 outside every sentence); NaN where it is false. Forward–backward
    runs only over the sentences holding a wanted token, gathered a block at a time
    (:func:`sentence_blocks`) into consecutive rows: for the tokens of entities, a third
    of MEDDOCAN's tokens, in half of its sentences, and the shortest ones."""
    confidence = np.where(wanted, 0.0, np.nan)
    bounds = _sentences(sent_bounds)
    if len(bounds) == 0 or not wanted.any():
        return confidence
    seen = np.concatenate(([0], np.cumsum(wanted)))
    bounds = bounds[seen[bounds[:, 1]] > seen[bounds[:, 0]]]
    for block in sentence_blocks(bounds):
        lengths = bounds[block, 1] - bounds[block, 0]
        ends = np.cumsum(lengths)
        starts = ends - lengths
        rows = np.repeat(bounds[block, 0] - starts, lengths) + np.arange(int(ends[-1]))
        log_alpha, log_beta = forward_backward(scores[rows], transitions, np.stack([starts, ends], axis=1))
        chosen = np.flatnonzero(wanted[rows])
        tokens = rows[chosen]
        confidence[tokens] = _normalised(log_alpha[chosen], log_beta[chosen], labels[tokens])
    return confidence


def _normalised(log_alpha: np.ndarray, log_beta: np.ndarray, labels: np.ndarray | None = None) -> np.ndarray:
    """The marginals of :func:`forward_backward`'s messages (zeros outside sentences);
    with ``labels`` (one per token), only each token's marginal of its label: the same
    numbers, without dividing the others."""
    joint = log_alpha + log_beta
    inside = np.isfinite(joint).any(axis=1)
    joint = joint[inside]
    joint = np.exp(joint - joint.max(axis=1, keepdims=True))
    total = joint.sum(axis=1, keepdims=True)
    if labels is None:
        out = np.zeros_like(log_alpha)
        out[inside] = joint / total
        return out
    out = np.zeros(len(log_alpha), dtype=joint.dtype)
    out[inside] = joint[np.arange(len(joint)), labels[inside]] / total[:, 0]
    return out


def forward_backward(
    scores: np.ndarray, transitions: np.ndarray, sent_bounds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per token, the log forward and log backward messages (tokens × labels): ``log
    alpha[t, y]`` sums the scores of the sentence's prefixes ending in ``y`` at ``t``,
    ``log beta[t, y]`` those of its suffixes after ``t`` given ``y`` there (0 at the
    last token), so ``alpha + beta`` is a label's unnormalised log marginal and any
    label's ``logsumexp`` of it the sentence's log partition function. Tokens outside
    every sentence get ``-inf``. Sentences advance together, longest first, as in
    :func:`viterbi`, and each step sums over the previous (next) label with one matrix
    product (:class:`_LogProduct`)."""
    n, k = scores.shape
    log_alpha = np.full((n, k), -np.inf, dtype=np.float64)
    log_beta = np.full((n, k), -np.inf, dtype=np.float64)
    bounds = sent_bounds[sent_bounds[:, 1] > sent_bounds[:, 0]]
    if n == 0 or len(bounds) == 0:
        return log_alpha, log_beta
    scores = np.asarray(scores, dtype=np.float64)
    transitions = np.asarray(transitions, dtype=np.float64)
    lengths = bounds[:, 1] - bounds[:, 0]
    order = np.argsort(-lengths, kind="stable")
    starts, lengths = bounds[order, 0], lengths[order]
    steps = int(lengths[0])
    running = np.searchsorted(-lengths, -np.arange(steps), side="left")
    # The products are small, (sentences, labels) by (labels, labels): one BLAS thread.
    # log(0) is -inf (a label no path reaches), not a warning; set here once, not in
    # each of the thousands of steps (a tenth of forward–backward's time on MEDDOCAN dev).
    with one_blas_thread(), np.errstate(divide="ignore"):
        alpha = scores[starts].copy()
        log_alpha[starts] = alpha
        forward = _LogProduct(transitions)
        for t in range(1, steps):
            m = int(running[t])
            tokens = starts[:m] + t
            alpha[:m] = forward(alpha[:m]) + scores[tokens]
            log_alpha[tokens] = alpha[:m]
        beta = np.zeros_like(alpha)
        backward = _LogProduct(transitions.T)
        for t in range(steps - 1, -1, -1):
            m = int(running[t])
            tokens = starts[:m] + t
            log_beta[tokens] = beta[:m]
            if t:
                beta[:m] = backward(scores[tokens] + beta[:m])
    return log_alpha, log_beta


# A sum of exponentials below this may have lost terms to underflow: recomputed exactly.
_TINY = 1e-280


class _LogProduct:
    """``v ↦ log(exp(v) @ exp(M))`` row by row, i.e. ``logsumexp_i(v[:, i] + M[i, j])``,
    as one matrix product: rows of ``v`` are shifted by their maximum and columns of
    ``M`` by theirs, so every exponential is at most 1. A result whose sum fell below
    :data:`_TINY` (weights hundreds of nats apart) is recomputed term by term. Called
    under ``np.errstate(divide="ignore")``: a zero sum's log is -inf."""

    def __init__(self, matrix: np.ndarray):
        self.matrix = matrix
        self.shift = matrix.max(axis=0)
        self.exp = np.exp(matrix - self.shift)

    def __call__(self, v: np.ndarray) -> np.ndarray:
        top = v.max(axis=1, keepdims=True)
        total = np.exp(v - top) @ self.exp
        tiny = total < _TINY
        out = np.log(total) + top + self.shift
        if tiny.any():  # rare: the rows to recompute are looked for only then
            low = np.flatnonzero(tiny.any(axis=1))
            terms = v[low, :, None] + self.matrix[None]
            peak = terms.max(axis=1)
            out[low] = peak + np.log(np.exp(terms - peak[:, None, :]).sum(axis=1))
        return out


@dataclass(frozen=True)
class SpanMarginals:
    """Candidate spans of one type each and their probability: tokens ``first[s]`` …
    ``last[s]`` form exactly one entity of type ``types[s]`` (an index into the type
    list given to :func:`span_marginals`) with ``probability[s]``."""

    first: np.ndarray  # int64, first token
    last: np.ndarray  # int64, last token (inclusive)
    types: np.ndarray  # int64, index of the entity type
    probability: np.ndarray  # float64


def sentence_ends(sent_bounds: np.ndarray, n: int) -> np.ndarray:
    """Per token, the end (exclusive) of its sentence; 0 outside every sentence."""
    ends = np.zeros(n, dtype=np.int64)
    for a, b in np.asarray(sent_bounds).tolist():
        ends[a:b] = b
    return ends


def span_marginals(
    scores: np.ndarray,
    transitions: np.ndarray,
    sent_bounds: np.ndarray,
    begin: np.ndarray,
    inside: np.ndarray,
    threshold: float,
    max_tokens: int,
    messages: tuple[np.ndarray, np.ndarray] | None = None,
) -> SpanMarginals:
    """Every span of at most ``max_tokens`` tokens whose probability of being exactly
    one entity of type ``T`` is at least ``threshold``: label ``begin[T]`` (``B-T``) at
    its first token, ``inside[T]`` (``I-T``) at the others, and not ``I-T`` after its
    last token (or the sentence ends there); ``inside[T] = -1`` where the model has no
    ``I-T`` label (its entities of type ``T`` are one token long).

    Its probability is ``exp(alpha[i, B] + Σ (transition + score of I-T) + gamma -
    log Z)``, where ``gamma`` sums the suffixes after the span that do not continue it
    (every next label but ``I-T``). The probability that the tokens ``i … j`` all carry
    the span's labels (the prefix, ``… + beta[j, I-T]``) only falls as ``j`` grows and
    bounds every longer span's, so a start is extended only while it reaches
    ``threshold``: the search visits few spans beyond those returned. ``messages``:
    :func:`forward_backward`'s output when already computed."""
    scores = np.asarray(scores, dtype=np.float64)
    transitions = np.asarray(transitions, dtype=np.float64)
    begin, inside = np.asarray(begin, dtype=np.int64), np.asarray(inside, dtype=np.int64)
    n, _ = scores.shape
    log_alpha, log_beta = forward_backward(scores, transitions, sent_bounds) if messages is None else messages
    empty = SpanMarginals(*(np.zeros(0, dtype=np.int64),) * 3, np.zeros(0, dtype=np.float64))
    if n == 0 or len(begin) == 0 or max_tokens < 1:
        return empty
    ends = sentence_ends(sent_bounds, n)
    joint = log_alpha + log_beta
    top = joint.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        log_z = (top + np.log(np.exp(joint - top).sum(axis=1, keepdims=True)))[:, 0]
    # Pruning a prefix a hair below the threshold: rounding cannot drop a span that reaches it.
    floor = np.log(threshold) - 1e-9 if threshold > 0 else -np.inf
    # Starts: P(B-T at i) = exp(alpha + beta - log Z) reaching the threshold.
    start_log = log_alpha[:, begin] + log_beta[:, begin] - log_z[:, None]  # (tokens, types)
    first, kind = np.nonzero(np.isfinite(start_log) & (start_log >= floor))
    running = log_alpha[first, begin[kind]]  # score of the prefix up to its last token
    label = begin[kind]
    last = first.copy()
    found: list[tuple[np.ndarray, ...]] = []
    while len(first):
        span_log = running + _log_stop(scores, transitions, log_beta, ends, last, label, inside[kind]) - log_z[first]
        keep = span_log >= (np.log(threshold) if threshold > 0 else -np.inf)
        found.append((first[keep], last[keep], kind[keep], np.minimum(np.exp(span_log[keep]), 1.0)))
        # Extend by one I-T token while the sentence goes on, the length allows and the prefix reaches the floor.
        grow = (last + 1 < ends[last]) & (last + 1 - first < max_tokens) & (inside[kind] >= 0)
        first, kind, running, label, last = first[grow], kind[grow], running[grow], label[grow], last[grow] + 1
        running = running + transitions[label, inside[kind]] + scores[last, inside[kind]]
        label = inside[kind]
        alive = running + log_beta[last, label] - log_z[first] >= floor
        first, kind, running, label, last = first[alive], kind[alive], running[alive], label[alive], last[alive]
    if not found:
        return empty
    parts = [np.concatenate(column) for column in zip(*found, strict=True)]
    order = np.lexsort((parts[2], parts[1], parts[0]))
    return SpanMarginals(*(part[order] for part in parts))


def _log_stop(
    scores: np.ndarray,
    transitions: np.ndarray,
    log_beta: np.ndarray,
    ends: np.ndarray,
    last: np.ndarray,
    label: np.ndarray,
    inside: np.ndarray,
) -> np.ndarray:
    """For spans ending at token ``last`` with ``label`` there: the log sum of the
    sentence's suffixes after ``last`` whose next label is not ``inside`` (0 where the
    sentence ends at ``last``: the empty suffix)."""
    out = np.zeros(len(last), dtype=np.float64)
    more = np.flatnonzero(last + 1 < ends[last])
    if len(more):
        nxt = last[more] + 1
        terms = transitions[label[more]] + scores[nxt] + log_beta[nxt]  # (spans, next label)
        stops = np.flatnonzero(inside[more] >= 0)
        terms[stops, inside[more][stops]] = -np.inf
        peak = terms.max(axis=1, keepdims=True)
        out[more] = (peak + np.log(np.exp(terms - peak).sum(axis=1, keepdims=True)))[:, 0]
    return out


# Sentences decoded together by :func:`k_best`, whose work array is K times Viterbi's.
K_BEST_BLOCK = 256


def k_best(
    scores: np.ndarray, transitions: np.ndarray, sent_bounds: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per sentence, its ``k`` best label sequences under :func:`viterbi`'s scores (list
    Viterbi: the ``k`` best partial paths into every label at every step). Returns
    ``paths`` (``k`` × tokens: label indices of the ``r``-th best path of each
    token's sentence) and ``totals`` (``k`` × tokens: that path's score; ``-inf`` and
    label 0 where the sentence has fewer than ``r + 1`` sequences). The first path is
    :func:`viterbi`'s up to ties."""
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    n, labels = scores.shape
    paths = np.zeros((k, n), dtype=np.int64)
    totals = np.full((k, n), -np.inf, dtype=np.float64)
    bounds = sent_bounds[sent_bounds[:, 1] > sent_bounds[:, 0]]
    if n == 0 or len(bounds) == 0:
        return paths, totals
    scores = np.asarray(scores, dtype=np.float64)
    lengths = bounds[:, 1] - bounds[:, 0]
    order = np.argsort(-lengths, kind="stable")
    starts, lengths = bounds[order, 0], lengths[order]
    incoming = np.asarray(transitions, dtype=np.float64).T  # (next, previous)
    # back[t, y, r]: the (previous label, its rank) of the r-th best path into y at t, flattened.
    back = np.zeros((n, labels, k), dtype=np.int16 if labels * k < 2**15 else np.int64)
    for first in range(0, len(starts), K_BEST_BLOCK):
        block = slice(first, first + K_BEST_BLOCK)
        _k_best_block(scores, incoming, starts[block], lengths[block], k, back, paths, totals)
    paths[np.isneginf(totals)] = 0
    return paths, totals


def _top_k(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest of each row of ``values`` (..., m), best first;
    equal values in index order."""
    if values.shape[-1] > k:
        candidates = np.sort(np.argpartition(-values, k - 1, axis=-1)[..., :k], axis=-1)
    else:
        candidates = np.broadcast_to(np.arange(values.shape[-1]), values.shape).copy()
    chosen = np.take_along_axis(values, candidates, axis=-1)
    rank = np.argsort(-chosen, axis=-1, kind="stable")
    return np.take_along_axis(candidates, rank, axis=-1)


def _k_best_block(
    scores: np.ndarray,
    incoming: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    k: int,
    back: np.ndarray,
    paths: np.ndarray,
    totals: np.ndarray,
) -> None:
    """List Viterbi over sentences sorted longest first; writes into ``paths`` and ``totals``."""
    labels = scores.shape[1]
    steps = int(lengths[0])
    running = np.searchsorted(-lengths, -np.arange(steps), side="left")
    best = np.full((len(starts), labels, k), -np.inf)
    best[:, :, 0] = scores[starts]
    for t in range(1, steps):
        m = int(running[t])
        tokens = starts[:m] + t
        # (m, next, previous, rank) → (m, next, previous·rank)
        step = (best[:m, None, :, :] + incoming[None, :, :, None]).reshape(m, labels, labels * k)
        chosen = _top_k(step, k)
        back[tokens] = chosen
        best[:m] = np.take_along_axis(step, chosen, axis=2) + scores[tokens][:, :, None]
    final = _top_k(best.reshape(len(starts), labels * k), k)  # (sentences, k)
    final_scores = np.take_along_axis(best.reshape(len(starts), -1), final, axis=1)
    for r in range(k):
        state = final[:, r].copy()  # label * k + rank
        for t in range(steps - 1, -1, -1):
            m = int(running[t])
            tokens = starts[:m] + t
            label = state[:m] // k
            paths[r, tokens] = label
            totals[r, tokens] = final_scores[:m, r]
            state[:m] = back[tokens, label, state[:m] % k]
