"""BIO labels: entity spans → per-token labels, and labels → spans.

Decoding applies the BIO repair of Cotik et al. (2019): an ``I-X`` that follows
``O`` or another type starts a new entity (becomes ``B-X``). Entities never cross
a sentence boundary and offsets always come from token offsets, so they lie in
the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .corpus import Entity
from .tokens import TokenTable

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


def decode(table: TokenTable, labels: np.ndarray) -> list[list[Entity]]:
    """Entities of every document from per-token BIO labels (repaired on the way)."""
    result: list[list[Entity]] = [[] for _ in range(len(table.texts))]
    labels = np.asarray(labels, dtype=object)
    if len(labels) != len(table):
        raise ValueError(f"{len(labels)} labels for {len(table)} tokens")
    if len(labels) == 0:
        return result
    type_ids, is_b, names = _split_labels(labels)
    sentence_starts = table.sentence_starts()
    begins = _begins(type_ids, is_b, sentence_starts)
    inside = type_ids >= 0
    # A token ends an entity when the next token does not continue it.
    next_continues = np.concatenate((inside[1:] & ~begins[1:], [False]))
    ends = inside & ~next_continues
    begin_idx, end_idx = np.flatnonzero(begins), np.flatnonzero(ends)
    for b, e in zip(begin_idx.tolist(), end_idx.tolist(), strict=False):
        result[table.doc[b]].append(Entity(int(table.start[b]), int(table.end[e]), names[type_ids[b]]))
    return result
