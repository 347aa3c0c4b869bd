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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pycrfsuite

from deid_crf.featurization.featurizer import Featurizer
from deid_crf.text.table import TokenTable


@dataclass
class CRFWeights:
    """The weights of a CRFsuite model as arrays."""

    labels: list[str]
    attributes: dict[str, int]  # attribute string → row of ``state``
    state: np.ndarray  # (n_attributes + 1, n_labels); the last row (zeros) for unknown attributes
    transitions: np.ndarray  # (n_labels, n_labels), [previous, next]

    @classmethod
    def from_tagger(cls, tagger: pycrfsuite.Tagger) -> CRFWeights:
        """Read an opened CRFsuite tagger's weights (its model dump; a fraction of a second)."""
        info = tagger.info()
        labels = list(tagger.labels())
        label_index = {label: k for k, label in enumerate(labels)}
        attributes: dict[str, int] = {}
        for attribute, _ in info.state_features:
            attributes.setdefault(attribute, len(attributes))
        state = np.zeros((len(attributes) + 1, len(labels)), dtype=np.float64)
        for (attribute, label), weight in info.state_features.items():
            state[attributes[attribute], label_index[label]] = weight
        transitions = np.zeros((len(labels), len(labels)), dtype=np.float64)
        for (previous, label), weight in info.transitions.items():
            transitions[label_index[previous], label_index[label]] = weight
        return cls(labels, attributes, state, transitions)

    def rows(self, attributes: list[str]) -> np.ndarray:
        """The ``state`` row of each attribute string (the zero row when unknown)."""
        unknown = len(self.attributes)
        get = self.attributes.get
        return np.array([get(a, unknown) for a in attributes], dtype=np.int64)

    def tag(self, featurizer: Featurizer, table: TokenTable) -> np.ndarray:
        """The best label (object array of str) of every token of ``table``,
        featurized by ``featurizer`` (the configuration the model was trained with)."""
        scores = featurizer.linear_scores(table, self.state, self.rows)
        return np.array(self.labels, dtype=object)[viterbi(scores, self.transitions, table.sent_bounds)]


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
