"""Scored entities: each entity with its mean and lowest token confidence, and the
recall-first candidates that the CRF's marginals suggest beside its best path.

A token's confidence is the marginal probability of the label it ends up with.
Recall-first mode (``recall_threshold``): a token the best path labels ``O`` but whose
probability of being PHI at all, ``1 - P(O)``, reaches the threshold becomes a
candidate, typed by its most probable entity type (``P(B-X) + P(I-X)``), ``B-`` or ``I-``
by the larger of the two and BIO-repaired with the rest (:func:`deid_crf.text.bio.decode`).
A candidate token's confidence is the probability of its type, below 0.5 by
construction whenever the best path chose ``O``: candidates are the doubtful spans a
reviewer sees first (``--review-below``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from deid_crf.text import bio
from deid_crf.text.document import Entity
from deid_crf.text.table import TokenTable


class ScoredEntity(NamedTuple):
    entity: Entity
    confidence: float  # mean token confidence
    min_confidence: float  # lowest token confidence
    candidate: bool = False  # added by recall-first mode, not on the model's best path


def _entity_scores(
    table: TokenTable, entities: list[list[Entity]], confidences: np.ndarray, candidate: bool
) -> list[list[ScoredEntity]]:
    cumulative = np.concatenate(([0.0], np.cumsum(confidences)))
    scored = []
    for d, found in enumerate(entities):
        a, b = table.doc_bounds[d]
        first = a + np.searchsorted(table.start[a:b], [e.start for e in found]).astype(np.int64)
        last = a + np.searchsorted(table.end[a:b], [e.end for e in found]).astype(np.int64)
        mean = (cumulative[last + 1] - cumulative[first]) / np.maximum(last + 1 - first, 1)
        lowest = [float(confidences[i : j + 1].min()) for i, j in zip(first.tolist(), last.tolist(), strict=True)]
        scored.append(
            [ScoredEntity(e, m, low, candidate) for e, m, low in zip(found, mean.tolist(), lowest, strict=True)]
        )
    return scored


def candidate_labels(marginals: np.ndarray, label_names: Sequence[str], threshold: float) -> np.ndarray:
    """Per token, the candidate label (``O`` below ``threshold``) and its confidence:
    ``B-X``/``I-X`` of the most probable type ``X`` where ``1 - P(O) >= threshold``."""
    names = list(label_names)
    types = sorted({name[2:] for name in names if name != bio.OUTSIDE})
    outside = names.index(bio.OUTSIDE)
    begin = np.array([names.index("B-" + t) if "B-" + t in names else outside for t in types], dtype=np.int64)
    inside = np.array([names.index("I-" + t) if "I-" + t in names else outside for t in types], dtype=np.int64)
    p_begin = np.where(begin == outside, 0.0, marginals[:, begin])
    p_inside = np.where(inside == outside, 0.0, marginals[:, inside])
    p_type = p_begin + p_inside  # (tokens, types)
    best = p_type.argmax(axis=1) if len(types) else np.zeros(len(marginals), dtype=np.int64)
    rows = np.arange(len(marginals))
    chosen = np.flatnonzero(1.0 - marginals[:, outside] >= threshold) if len(types) else np.array([], dtype=np.int64)
    labels = np.full(len(marginals), bio.OUTSIDE, dtype=object)
    confidence = np.zeros(len(marginals), dtype=np.float64)
    for i in chosen.tolist():
        t = types[best[i]]
        labels[i] = ("B-" if p_begin[i, best[i]] >= p_inside[i, best[i]] else "I-") + t
    confidence[chosen] = p_type[rows[chosen], best[chosen]] if len(chosen) else 0.0
    return labels, confidence


def scored_entities(
    table: TokenTable,
    labels: np.ndarray,
    confidences: np.ndarray,
    marginals: np.ndarray | None = None,
    label_names: Sequence[str] = (),
    recall_threshold: float | None = None,
) -> list[list[ScoredEntity]]:
    """The entities of every document of ``table`` decoded from ``labels`` (the best
    path) with their token ``confidences``, then, with ``recall_threshold`` (which
    needs every token's ``marginals`` over ``label_names``), the candidates found in
    the tokens the best path left ``O``, each document's list in text order."""
    scored = _entity_scores(table, bio.decode(table, labels), np.asarray(confidences, dtype=np.float64), False)
    if recall_threshold is None:
        return scored
    if marginals is None:
        raise ValueError("recall-first candidates need the token marginals")
    cand, cand_confidence = candidate_labels(marginals, label_names, recall_threshold)
    cand[np.asarray(labels, dtype=object) != bio.OUTSIDE] = bio.OUTSIDE  # the best path's tokens stay its own
    extra = _entity_scores(table, bio.decode(table, cand), cand_confidence, True)
    return [sorted(a + b, key=lambda s: s.entity.start) for a, b in zip(scored, extra, strict=True)]
