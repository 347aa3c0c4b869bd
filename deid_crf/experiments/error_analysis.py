"""Error analysis of predicted entities against gold ones, without showing PHI.

* :func:`confusion_matrix`: entity types confused with each other, as in Cotik et al.
  (2019), Fig. 2. Gold and predicted entities of a document are paired one to one by
  character overlap (the pairing with the most overlapping characters, computed with
  :func:`scipy.optimize.linear_sum_assignment`); a pair counts in cell (gold type,
  predicted type) even when its boundaries differ, a gold entity left unpaired counts
  as ``missed`` and a predicted entity left unpaired (no overlap, or a second fragment
  of an entity already paired) as ``spurious``. Row sums are gold counts, column sums
  predicted counts.
* :func:`false_negatives`: subtask-1 false negatives (gold ``(type, start, end)`` not
  predicted exactly), the same ones :func:`deid_crf.scoring.meddocan.score_documents` counts.
* :func:`false_negative_causes`: why each was missed: no prediction overlaps it
  (``missed``), the overlapping prediction has another type (``wrong type``), or the
  type is right and the boundaries are not (``boundary``).
* :func:`span_shape` and :func:`false_negative_shapes`: what missed entities look like
  (``Xxxxx Xxxxx``, ``dd/dd/dddd``) — their word shape, never their text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from deid_crf.features.lexical import word_shape
from deid_crf.text.document import Document, Entity

MISSED = "missed"
SPURIOUS = "spurious"
WRONG_TYPE = "wrong type"
BOUNDARY = "boundary"

__all__ = [
    "MISSED",
    "SPURIOUS",
    "WRONG_TYPE",
    "BOUNDARY",
    "ConfusionMatrix",
    "confusion_matrix",
    "false_negative_causes",
    "false_negative_shapes",
    "false_negatives",
    "match_by_overlap",
    "span_shape",
]


@dataclass(frozen=True)
class ConfusionMatrix:
    """Counts of paired entities: ``counts[i, j]`` is the number of gold entities of
    type ``rows[i]`` paired with a predicted entity of type ``columns[j]``.

    ``rows`` are the entity types then ``spurious``; ``columns`` the entity types then
    ``missed``; the (``spurious``, ``missed``) cell is always 0.
    """

    types: tuple[str, ...]
    counts: np.ndarray

    @property
    def rows(self) -> list[str]:
        return [*self.types, SPURIOUS]

    @property
    def columns(self) -> list[str]:
        return [*self.types, MISSED]

    def count(self, gold: str, predicted: str) -> int:
        """The count of cell (``gold`` row, ``predicted`` column)."""
        return int(self.counts[self.rows.index(gold), self.columns.index(predicted)])


def _overlap(a: Entity, b: Entity) -> int:
    return max(0, min(a.end, b.end) - max(a.start, b.start))


def match_by_overlap(gold: Sequence[Entity], predicted: Sequence[Entity]) -> list[tuple[Entity | None, Entity | None]]:
    """Pair the entities of one document one to one, maximising the total number of
    overlapping characters; entities overlapping nothing they could be paired with
    come back paired with ``None``. Pairs are in gold order, then unpaired predictions
    in text order."""
    gold, predicted = sorted(gold), sorted(predicted)
    overlap = np.array([[_overlap(g, p) for p in predicted] for g in gold], dtype=np.int64).reshape(
        len(gold), len(predicted)
    )
    rows, cols = linear_sum_assignment(overlap, maximize=True)
    partner = {int(r): int(c) for r, c in zip(rows, cols, strict=True) if overlap[r, c] > 0}
    pairs: list[tuple[Entity | None, Entity | None]] = [
        (g, predicted[partner[i]] if i in partner else None) for i, g in enumerate(gold)
    ]
    paired = set(partner.values())
    pairs.extend((None, p) for j, p in enumerate(predicted) if j not in paired)
    return pairs


def _pair_documents(gold: Sequence[Document], predicted: Sequence[Document]) -> list[tuple[Document, list[Entity]]]:
    """Each gold document with the entities of the predicted document of the same id
    (none when it is missing, so all its entities count as missed)."""
    by_id = {d.doc_id: d.entities for d in predicted}
    return [(doc, by_id.get(doc.doc_id, [])) for doc in gold]


def confusion_matrix(
    gold: Sequence[Document], predicted: Sequence[Document], types: Sequence[str] | None = None
) -> ConfusionMatrix:
    """The type confusion matrix of ``predicted`` against ``gold`` documents (matched
    by ``doc_id``; a predicted document without a gold one is ignored, as in
    :func:`deid_crf.scoring.meddocan.score_documents`). ``types`` orders the rows and columns
    (default: every type seen, sorted); a type outside it raises ``ValueError``."""
    pairs = [
        (g.type if g else SPURIOUS, p.type if p else MISSED)
        for doc, entities in _pair_documents(gold, predicted)
        for g, p in match_by_overlap(doc.entities, entities)
    ]
    seen = {t for pair in pairs for t in pair} - {SPURIOUS, MISSED}
    if types is None:
        types = sorted(seen)
    elif unknown := seen - set(types):
        raise ValueError(f"entity types not in `types`: {sorted(unknown)}")
    matrix = ConfusionMatrix(tuple(types), np.zeros((len(types) + 1, len(types) + 1), dtype=np.int64))
    row, column = {t: i for i, t in enumerate(matrix.rows)}, {t: j for j, t in enumerate(matrix.columns)}
    for g, p in pairs:
        matrix.counts[row[g], column[p]] += 1
    return matrix


def false_negatives(gold: Sequence[Document], predicted: Sequence[Document]) -> list[tuple[Document, Entity]]:
    """Gold entities whose exact ``(type, start, end)`` was not predicted, each with
    its gold document, in document then text order."""
    out = []
    for doc, entities in _pair_documents(gold, predicted):
        found = set(entities)
        out.extend((doc, e) for e in sorted(doc.entities) if e not in found)
    return out


def span_shape(text: str, max_run: int | None = None) -> str:
    """The word shape of a span: upper-case letters ``X``, lower-case ``x``, digits
    ``d``, other characters kept, every run of whitespace one space
    (``"Ana  María"`` → ``"Xxx Xxxxx"``). ``max_run`` caps runs of one shape
    character, so that names of different lengths share a shape (``max_run=2``:
    ``"Xxx Xxx"``)."""
    if max_run is not None and max_run < 1:
        raise ValueError("max_run must be at least 1")
    shape = word_shape(" ".join(text.split()))
    if max_run is None:
        return shape
    return re.sub(rf"([Xxd])\1{{{max_run},}}", lambda m: m.group(1) * max_run, shape)


def false_negative_shapes(
    gold: Sequence[Document], predicted: Sequence[Document], max_run: int | None = None
) -> dict[str, Counter[str]]:
    """For each entity type, how often each :func:`span_shape` occurs among its false
    negatives (see :func:`false_negatives`); types sorted by number of misses."""
    shapes: dict[str, Counter[str]] = {}
    for doc, entity in false_negatives(gold, predicted):
        shapes.setdefault(entity.type, Counter())[span_shape(doc.text[entity.start : entity.end], max_run)] += 1
    return dict(sorted(shapes.items(), key=lambda kv: (-kv[1].total(), kv[0])))


def false_negative_causes(gold: Sequence[Document], predicted: Sequence[Document]) -> dict[str, Counter[str]]:
    """For each entity type, its false negatives (see :func:`false_negatives`) counted
    by cause, from the pairing of :func:`match_by_overlap`: ``missed`` (unpaired),
    ``wrong type`` (paired with another type) or ``boundary`` (same type, other
    offsets); types sorted by number of false negatives."""
    causes: dict[str, Counter[str]] = {}
    for doc, entities in _pair_documents(gold, predicted):
        exact = set(entities)
        for g, p in match_by_overlap(doc.entities, entities):
            if g is None or g in exact:
                continue
            cause = MISSED if p is None else WRONG_TYPE if p.type != g.type else BOUNDARY
            causes.setdefault(g.type, Counter())[cause] += 1
    return dict(sorted(causes.items(), key=lambda kv: (-kv[1].total(), kv[0])))
