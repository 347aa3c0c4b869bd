"""Scored entities: each entity with its mean and lowest token confidence, and the
recall-first candidates that the CRF's marginals suggest beside its best path.

A token's confidence is the marginal probability of the label it ends up with.
Recall-first mode (``recall_threshold`` P) proposes two kinds of candidates
(:data:`~deid_crf.config.RECALL_FIRST_CANDIDATES`):

* ``tokens``: a token the best path labels ``O`` but whose probability of being PHI at
  all, ``1 - P(O)``, reaches P, typed by its most probable entity type (``P(B-X) +
  P(I-X)``), ``B-`` or ``I-`` by the larger of the two and BIO-repaired with the rest
  (:func:`deid_crf.text.bio.decode`). Its confidence is the probability of its type,
  below 0.5 by construction. These never overlap the best path's entities, and cover
  every token that P says could be PHI.
* ``spans``: every span whose probability of being exactly one entity of a type (``B-X``
  on its first token, ``I-X`` through its last, no ``I-X`` after) reaches P
  (:func:`deid_crf.models.crf_decode.span_marginals`), other than the entities already
  found; its confidence is that probability. These are *alternatives*: they may overlap
  the best path's entities and each other (another boundary or type of the same words),
  so they can correct what the best path got wrong, not only what it missed.

Candidates are the doubtful spans a reviewer sees first (``--review-below``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from deid_crf.models.crf_decode import SpanMarginals
from deid_crf.text import bio
from deid_crf.text.document import Entity
from deid_crf.text.table import TokenTable

TOKEN_CANDIDATES = "tokens"
SPAN_CANDIDATES = "spans"
CANDIDATE_KINDS = (TOKEN_CANDIDATES, SPAN_CANDIDATES)


class ScoredEntity(NamedTuple):
    entity: Entity
    confidence: float  # mean token confidence (a span candidate: its probability)
    min_confidence: float  # lowest token confidence (a span candidate: its probability)
    candidate: bool = False  # added by recall-first mode, not on the model's best path
    alternative: bool = False  # a span candidate: it may overlap any other entity


def entity_token_scores(
    table: TokenTable, entities: list[list[Entity]], confidences: np.ndarray
) -> tuple[list[float], list[float]]:
    """The mean and the lowest of ``confidences`` over each entity's tokens (the entities
    of each document of ``table`` in text order, as :func:`~deid_crf.text.bio.decode`
    gives them: they do not overlap), read from those tokens only (the others' may be NaN)."""
    first, last = [], []
    for d, found in enumerate(entities):
        a, b = table.doc_bounds[d]
        first.append(a + np.searchsorted(table.start[a:b], [e.start for e in found]).astype(np.int64))
        last.append(a + np.searchsorted(table.end[a:b], [e.end for e in found]).astype(np.int64))
    if not any(len(f) for f in first):
        return [], []
    firsts, lasts = np.concatenate(first), np.concatenate(last)
    # Each entity's tokens are the even segments of these edges (its first token to the
    # one after its last); a zero after the last token keeps every edge an index.
    edges = np.stack([firsts, lasts + 1], axis=1).ravel()
    padded = np.append(np.asarray(confidences, dtype=np.float64), 0.0)
    sizes = lasts + 1 - firsts
    mean = np.add.reduceat(padded, edges)[::2] / sizes
    lowest = np.minimum.reduceat(padded, edges)[::2]
    return mean.tolist(), lowest.tolist()


def _entity_scores(
    table: TokenTable, entities: list[list[Entity]], confidences: np.ndarray, candidate: bool
) -> list[list[ScoredEntity]]:
    mean, lowest = entity_token_scores(table, entities, confidences)
    scores = iter(zip(mean, lowest, strict=True))
    return [[ScoredEntity(e, *next(scores), candidate) for e in found] for found in entities]


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


def span_candidates(table: TokenTable, spans: SpanMarginals, type_names: Sequence[str]) -> list[list[ScoredEntity]]:
    """The span candidates of every document of ``table``: one alternative per span of
    ``spans`` (types indexing ``type_names``), its probability as its confidence."""
    document = np.searchsorted(table.doc_bounds[:, 1], spans.first, side="right")
    out: list[list[ScoredEntity]] = [[] for _ in range(len(table.doc_bounds))]
    for d, first, last, kind, p in zip(
        document.tolist(),
        spans.first.tolist(),
        spans.last.tolist(),
        spans.types.tolist(),
        spans.probability.tolist(),
        strict=True,
    ):
        entity = Entity(int(table.start[first]), int(table.end[last]), type_names[kind])
        out[d].append(ScoredEntity(entity, p, p, candidate=True, alternative=True))
    return out


def k_best_entities(
    table: TokenTable, paths: np.ndarray, totals: np.ndarray, label_names: Sequence[str]
) -> list[list[Entity]]:
    """The entities of every document of ``table`` on any of the label sequences
    ``paths`` (:func:`~deid_crf.models.crf_decode.k_best`; those of score ``-inf`` do not
    exist), each once, in text order."""
    names = np.array(list(label_names), dtype=object)
    found: list[set[Entity]] = [set() for _ in range(len(table.doc_bounds))]
    for path, total in zip(paths, totals, strict=True):
        labels = names[path]
        labels[np.isneginf(total)] = bio.OUTSIDE
        for entities, more in zip(found, bio.decode(table, labels), strict=True):
            entities.update(more)
    return [sorted(entities) for entities in found]


def scored_entities(
    table: TokenTable,
    labels: np.ndarray,
    confidences: np.ndarray,
    marginals: np.ndarray | None = None,
    label_names: Sequence[str] = (),
    recall_threshold: float | None = None,
    spans: list[list[ScoredEntity]] | None = None,
    candidates: Sequence[str] = CANDIDATE_KINDS,
) -> list[list[ScoredEntity]]:
    """The entities of every document of ``table`` decoded from ``labels`` (the best
    path) with their token ``confidences``, then, with ``recall_threshold``, the
    ``candidates``: ``tokens`` (needs every token's ``marginals`` over ``label_names``)
    and ``spans`` (the span candidates of :func:`span_candidates`, without those
    already found), each document's list in text order."""
    scored = _entity_scores(table, bio.decode(table, labels), np.asarray(confidences, dtype=np.float64), False)
    if recall_threshold is None:
        return scored
    unknown = sorted(set(candidates) - set(CANDIDATE_KINDS))
    if unknown:
        raise ValueError(f"unknown candidate kinds {unknown}; choose from {CANDIDATE_KINDS}")
    if TOKEN_CANDIDATES in candidates:
        if marginals is None:
            raise ValueError("token candidates need the token marginals")
        cand, cand_confidence = candidate_labels(marginals, label_names, recall_threshold)
        cand[np.asarray(labels, dtype=object) != bio.OUTSIDE] = bio.OUTSIDE  # the best path's tokens stay its own
        extra = _entity_scores(table, bio.decode(table, cand), cand_confidence, True)
        scored = [a + b for a, b in zip(scored, extra, strict=True)]
    if SPAN_CANDIDATES in candidates:
        if spans is None:
            raise ValueError("span candidates need the span marginals")
        for found, alternatives in zip(scored, spans, strict=True):
            known = {s.entity for s in found}
            found.extend(s for s in alternatives if s.entity not in known)
    return [sorted(found, key=lambda s: (s.entity.start, s.entity.end, s.entity.type)) for found in scored]
