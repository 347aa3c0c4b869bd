"""BIO labels: entity spans → per-token labels, and labels → spans.

Decoding applies the BIO repair of Cotik et al. (2019): an ``I-X`` that follows
``O`` or another type starts a new entity (becomes ``B-X``). Entities never cross
a sentence boundary nor a tab or line break between tokens
(:data:`~deid_crf.text.document.SPAN_BREAKS`: an entity is cut there), never hold a
layout separator token (:data:`LAYOUT_SEPARATORS`: ``—``, ``·``, ``|``…), and offsets
always come from token offsets, so they lie in the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from deid_crf.text.document import SPAN_BREAKS, Entity
from deid_crf.text.table import TokenTable

OUTSIDE = "O"


@dataclass
class Alignment:
    """Where gold entities fall relative to tokens and sentences."""

    total: int
    inside_token: int  # a boundary falls inside a token
    crossing_sentence: int  # the entity spans two or more sentences
    no_token: int  # the entity covers no token at all
    # (document index, entity, problem) of every entity counted above
    offenders: list[tuple[int, Entity, str]] = field(default_factory=list)


def _entity_token_ranges(table: TokenTable, entities: Sequence[Sequence[Entity]]) -> list[tuple[int, Entity, int, int]]:
    """For every entity, its document and the index of its first and last
    overlapping token."""
    ranges = []
    for d, ents in enumerate(entities):
        a, b = table.doc_bounds[d]
        starts, ends = table.start[a:b], table.end[a:b]
        for e in ents:
            first = a + int(np.searchsorted(ends, e.start, side="right"))
            last = a + int(np.searchsorted(starts, e.end, side="left")) - 1
            ranges.append((d, e, first, last))
    return ranges


def encode(table: TokenTable, entities: Sequence[Sequence[Entity]]) -> np.ndarray:
    """BIO label (``str``) of every token; ``entities[d]`` belongs to document ``d``.

    A token overlapping an entity gets its label; an entity cut by a sentence
    boundary restarts with ``B-`` in the next sentence so each sentence is valid BIO.
    """
    labels = np.full(len(table), OUTSIDE, dtype=object)
    for _, e, first, last in _entity_token_ranges(table, entities):
        if first > last:
            continue
        labels[first] = "B-" + e.type
        labels[first + 1 : last + 1] = "I-" + e.type
    return repair(labels, table)


def alignment(table: TokenTable, entities: Sequence[Sequence[Entity]]) -> Alignment:
    """Count entities that tokens or sentences cannot represent exactly."""
    sent_ids = table.sentence_ids()
    ranges = _entity_token_ranges(table, entities)
    offenders = []
    for d, e, first, last in ranges:
        if first > last:
            offenders.append((d, e, "no_token"))
            continue
        if table.start[first] != e.start or table.end[last] != e.end:
            offenders.append((d, e, "inside_token"))
        if sent_ids[first] != sent_ids[last]:
            offenders.append((d, e, "crossing_sentence"))
    count = {kind: sum(o[2] == kind for o in offenders) for kind in ("inside_token", "crossing_sentence", "no_token")}
    return Alignment(len(ranges), count["inside_token"], count["crossing_sentence"], count["no_token"], offenders)


def _split_labels(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Type index (-1 for O), a begin flag per token, and the type names."""
    names = sorted({lab[2:] for lab in set(labels.tolist()) if lab != OUTSIDE})
    index = {OUTSIDE: (-1, False)}
    for i, name in enumerate(names):
        index["B-" + name] = (i, True)
        index["I-" + name] = (i, False)
    pairs = [index[lab] for lab in labels.tolist()]
    type_ids = np.fromiter((p[0] for p in pairs), dtype=np.int32, count=len(pairs))
    is_b = np.fromiter((p[1] for p in pairs), dtype=bool, count=len(pairs))
    return type_ids, is_b, names


def _begins(type_ids: np.ndarray, is_b: np.ndarray, sentence_starts: np.ndarray) -> np.ndarray:
    prev = np.concatenate(([-1], type_ids[:-1]))
    return (type_ids >= 0) & (is_b | (prev != type_ids) | sentence_starts)


def repair(labels: np.ndarray, table: TokenTable) -> np.ndarray:
    """Labels with every ``I-X`` that cannot continue an entity turned into ``B-X``."""
    labels = np.asarray(labels, dtype=object)
    if len(labels) == 0:
        return labels.copy()
    type_ids, is_b, _ = _split_labels(labels)
    begins = _begins(type_ids, is_b, table.sentence_starts())
    fixed = labels.copy()
    to_fix = np.flatnonzero(begins & ~is_b)
    fixed[to_fix] = ["B-" + lab[2:] for lab in labels[to_fix]]
    return fixed


# Tokens that separate the fields of a header or a table and never belong to an entity
# (no MEDDOCAN train or dev entity holds one).
LAYOUT_SEPARATORS = np.array(["—", "–", "·", "|", "•", "¦"], dtype=object)
_SPAN_BREAK = re.compile(f"[{re.escape(SPAN_BREAKS)}]")
_SPAN_BREAK_CODES = np.array([ord(c) for c in SPAN_BREAKS], dtype=np.uint32)


def _after_span_break(table: TokenTable) -> np.ndarray:
    """True for every token with a tab or line break between it and the token before."""
    after = np.zeros(len(table), dtype=bool)
    for d, text in enumerate(table.texts):
        a, b = table.doc_bounds[d]
        if b - a < 2 or not _SPAN_BREAK.search(text):
            continue
        is_break = np.isin(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32), _SPAN_BREAK_CODES)
        seen = np.concatenate(([0], np.cumsum(is_break)))  # breaks before each offset
        after[a + 1 : b] = seen[table.start[a + 1 : b]] > seen[table.end[a : b - 1]]
    return after


def decode(table: TokenTable, labels: np.ndarray) -> list[list[Entity]]:
    """Entities of every document from per-token BIO labels (repaired on the way)."""
    result: list[list[Entity]] = [[] for _ in range(len(table.texts))]
    labels = np.asarray(labels, dtype=object)
    if len(labels) != len(table):
        raise ValueError(f"{len(labels)} labels for {len(table)} tokens")
    if len(labels) == 0:
        return result
    type_ids, is_b, names = _split_labels(labels)
    # A layout separator ("HOSPITAL X — SEVILLA", "CAP X · C/ Y", "| Juan | hijo |") is
    # outside every entity: what stands on either side of it is two entities at most.
    type_ids = np.where(np.isin(table.tokens, LAYOUT_SEPARATORS), -1, type_ids)
    begins = _begins(type_ids, is_b, table.sentence_starts() | _after_span_break(table))
    inside = type_ids >= 0
    # A token ends an entity when the next token does not continue it.
    next_continues = np.concatenate((inside[1:] & ~begins[1:], [False]))
    ends = inside & ~next_continues
    begin_idx, end_idx = np.flatnonzero(begins), np.flatnonzero(ends)
    for b, e in zip(begin_idx.tolist(), end_idx.tolist(), strict=False):
        result[table.doc[b]].append(Entity(int(table.start[b]), int(table.end[e]), names[type_ids[b]]))
    return result


def best_valid_labels(scores: np.ndarray, classes: Sequence[str], table: TokenTable) -> np.ndarray:
    """The label sequence with the highest total score under BIO constraints.

    ``scores[i, k]`` is the score of label ``classes[k]`` for token ``i`` (e.g. a
    linear classifier's decision values). Per sentence, an ``I-X`` may only follow
    ``B-X`` or ``I-X`` and a sentence may not open with ``I-X``; among the sequences
    that obey this, the one with the largest sum of scores wins (Viterbi with hard
    transition constraints and no learned transition weights). Unlike :func:`repair`,
    which starts a new entity at every orphan ``I-X``, this lets a strong ``I-X``
    pull its weak neighbour into the same entity, so tokens tagged independently are
    not split into pieces. All sentences advance together, one token position per
    step, so the cost is O(tokens × labels) numpy work.
    """
    classes = list(classes)
    n, k = scores.shape
    if k != len(classes):
        raise ValueError(f"{k} score columns for {len(classes)} classes")
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        return np.array(classes, dtype=object)[out]
    index = {c: i for i, c in enumerate(classes)}
    inside = np.array([i for i, c in enumerate(classes) if c.startswith("I-")], dtype=np.int64)
    # The B- of each I- label (-1 when training never produced that B-).
    begin_of = np.array([index.get("B-" + classes[i][2:], -1) for i in inside], dtype=np.int64)
    bounds = table.sent_bounds[table.sent_bounds[:, 1] > table.sent_bounds[:, 0]]
    starts, lengths = bounds[:, 0], bounds[:, 1] - bounds[:, 0]
    scores = scores.astype(np.float64, copy=False)
    best = scores[starts].copy()  # best score of a valid path ending in each label
    best[:, inside] = -np.inf
    back = np.zeros((n, k), dtype=np.int32)  # best previous label, per token and label
    active = np.arange(len(starts))
    for t in range(1, int(lengths.max())):
        active = active[lengths[active] > t]
        if len(active) == 0:
            break
        prev = best[active]
        any_prev = prev.argmax(axis=1)
        # B- and O may follow any label; I-X only B-X or I-X.
        step_back = np.repeat(any_prev[:, None], k, axis=1)
        step_best = prev[np.arange(len(active)), any_prev][:, None].repeat(k, axis=1)
        from_begin = np.where(begin_of >= 0, prev[:, np.maximum(begin_of, 0)], -np.inf)
        from_inside = prev[:, inside]
        use_begin = from_begin > from_inside
        step_back[:, inside] = np.where(use_begin, begin_of, inside)
        step_best[:, inside] = np.where(use_begin, from_begin, from_inside)
        tokens = starts[active] + t
        back[tokens] = step_back
        best[active] = step_best + scores[tokens]
    # Walk back from each sentence's last token.
    label = best.argmax(axis=1)
    for t in range(int(lengths.max()) - 1, -1, -1):
        rows = np.flatnonzero(lengths > t)
        tokens = starts[rows] + t
        current = label[rows]
        out[tokens] = current
        label[rows] = back[tokens, current]
    return np.array(classes, dtype=object)[out]
