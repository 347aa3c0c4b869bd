"""PHI spans found by the model or the rules, and how overlapping ones are resolved.

A :class:`PHISpan` is an :class:`~deid_crf.io.brat.Entity` with where it came from
(``model``, ``rule`` or both) and a confidence. Its text and its replacement are kept
out of ``repr`` so that printing or logging a span never shows protected text.

:func:`combine` merges the model's spans with the rule layer's under a priority per
entity type, and always returns sorted, non-overlapping spans. Recall-first span
candidates (source ``candidate``) may overlap the others: :func:`cover` joins overlapping
spans for the outputs that replace text, :func:`layers` splits off those that overlap for
the outputs that show spans in place.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate

from deid_crf.text.document import Entity

MODEL = "model"
RULE = "rule"
BOTH = "model+rule"
PROPAGATED = "propagated"  # another occurrence of a name found elsewhere in the document
CANDIDATE = "candidate"  # off the model's best path, added by recall-first mode

# How the rule layer's spans of one entity type meet the model's spans.
OFF = "off"  # rule spans of this type are dropped
MODEL_FIRST = "model"  # a rule span is added only where it overlaps no model span
RULES_FIRST = "rules"  # a rule span replaces the model spans it overlaps
UNION = "union"  # overlapping spans are joined into one span covering them all
PRIORITIES = (OFF, MODEL_FIRST, RULES_FIRST, UNION)


@dataclass(frozen=True, order=True)
class PHISpan:
    """A typed character span ``[start, end)`` of the original text.

    ``confidence`` is the CRF marginal probability of the predicted labels averaged
    over the span's tokens (1.0 for spans found by rules alone), ``min_confidence``
    the lowest of them (None: not computed, take ``confidence``); ``source`` says who
    found it. ``text`` (the original characters) and ``replacement`` never show in
    ``repr``.
    """

    start: int
    end: int
    type: str
    confidence: float = field(default=1.0, compare=False)
    source: str = field(default=MODEL, compare=False)
    text: str = field(default="", repr=False, compare=False)
    replacement: str | None = field(default=None, repr=False, compare=False)
    min_confidence: float | None = field(default=None, compare=False)

    @property
    def lowest_confidence(self) -> float:
        """The lowest token confidence, or the mean where that was not computed."""
        return self.confidence if self.min_confidence is None else self.min_confidence

    @property
    def entity(self) -> Entity:
        return Entity(self.start, self.end, self.type)

    def overlaps(self, other: PHISpan) -> bool:
        return self.start < other.end and other.start < self.end


def non_overlapping(spans: Iterable[PHISpan]) -> list[PHISpan]:
    """Greedy choice of non-overlapping spans: longest first, then earliest, then by
    type name (then input order); returned in text order. Deterministic for any input
    order; O(n log n) (:func:`first_fit`)."""
    ordered = sorted(spans, key=lambda s: (s.start - s.end, s.start, s.type))
    return sorted(ordered[i] for i in first_fit([(s.start, s.end) for s in ordered]))


def first_fit(intervals: Sequence[tuple[int, int]]) -> list[int]:
    """Indices, in order, of the intervals (``start <= end``) kept when each in turn is
    kept unless it overlaps one kept before. ``[a, b)`` and ``[c, d)`` overlap when ``a < d`` and
    ``c < b`` (:meth:`PHISpan.overlaps`), so an empty interval overlaps only those
    strictly around it.

    O(n log n): the line is cut at every interval end into points and the segments
    between them; Fenwick trees count the segments and inner points that kept
    intervals cover, and the points of kept empty intervals, so each test is a few
    range counts and each segment or point is covered at most once."""
    points = sorted({p for interval in intervals for p in interval})
    index = {p: i for i, p in enumerate(points)}
    segments = _Counts(len(points))  # segment i: from point i to point i + 1
    inner = _Counts(len(points))  # points strictly inside a kept interval
    empty = _Counts(len(points))  # points of kept empty intervals
    kept = []
    for i, (start, end) in enumerate(intervals):
        first, last = index[start], index[end]
        if first > last:
            raise ValueError(f"interval {i} ends before it starts ({start}-{end})")
        if first == last:
            if inner.total(first, first + 1) == 0:
                empty.add_each(first, first + 1)
                kept.append(i)
        elif segments.total(first, last) == 0 and empty.total(first + 1, last) == 0:
            segments.add_each(first, last)
            inner.add_each(first + 1, last)
            kept.append(i)
    return kept


class _Counts:
    """A Fenwick tree of counts on ``n`` positions: add one to each of a range, sum a range."""

    def __init__(self, n: int):
        self._tree = [0] * (n + 1)

    def _prefix(self, i: int) -> int:  # the counts of positions < i
        tree, total = self._tree, 0
        while i > 0:
            total += tree[i]
            i &= i - 1
        return total

    def total(self, first: int, last: int) -> int:
        """The counts of positions ``first`` … ``last - 1``."""
        return self._prefix(last) - self._prefix(first) if first < last else 0

    def add_each(self, first: int, last: int) -> None:
        """Add one to each position ``first`` … ``last - 1``."""
        tree, n = self._tree, len(self._tree)
        for i in range(first + 1, last + 1):
            while i < n:
                tree[i] += 1
                i += i & -i


class Coverage:
    """Whether an interval overlaps any of a fixed set of intervals (as
    :func:`first_fit` counts overlap), in O(log n): sorted by start, with the furthest
    end reached so far."""

    def __init__(self, intervals: Iterable[tuple[int, int]]):
        ordered = sorted(intervals)
        self._starts = [a for a, _ in ordered]
        self._reach = list(accumulate((b for _, b in ordered), max))

    def overlaps(self, start: int, end: int) -> bool:
        k = bisect_left(self._starts, end)  # the intervals that start before ``end``
        return k > 0 and self._reach[k - 1] > start


def _join(cluster: Sequence[PHISpan]) -> PHISpan:
    """One span covering an overlapping cluster, typed by its longest member (a rule
    span wins a tie, then the earlier, then the type name)."""
    head = min(cluster, key=lambda s: (s.start - s.end, s.source != RULE, s.start, s.type))
    sources = {s.source for s in cluster}
    source = head.source if len(sources) == 1 else BOTH
    start, end = min(s.start for s in cluster), max(s.end for s in cluster)
    return replace(head, start=start, end=end, source=source, text="", replacement=None)


def _union(spans: Iterable[PHISpan]) -> list[PHISpan]:
    return [_join(cluster) if len(cluster) > 1 else cluster[0] for cluster in _clusters(spans)]


def _clusters(spans: Iterable[PHISpan]) -> list[list[PHISpan]]:
    """The spans grouped, in text order, into clusters that overlap (directly or
    through other members)."""
    clusters: list[list[PHISpan]] = []
    cluster_end = -1
    for span in sorted(spans, key=lambda s: (s.start, s.end, s.type)):
        if clusters and span.start < cluster_end:
            clusters[-1].append(span)
            cluster_end = max(cluster_end, span.end)
        else:
            clusters.append([span])
            cluster_end = span.end
    return clusters


def _leading(span: PHISpan) -> tuple:
    """Sort key of the span that leads an overlapping group: found (model, rules)
    before a recall-first candidate, then the more confident, then the longer, the
    earlier, the type name."""
    confidence = 0.0 if math.isnan(span.confidence) else span.confidence
    return (span.source == CANDIDATE, -confidence, span.start - span.end, span.start, span.type)


def cover(spans: Iterable[PHISpan]) -> list[PHISpan]:
    """Sorted, non-overlapping spans covering every character of ``spans``: each group
    of overlapping spans becomes one span over their union, with the type, confidence
    and source of its leader (:func:`_leading`) and the lowest confidence of the group.
    What the masked and surrogate outputs replace when recall-first candidates overlap
    other spans: no character any of them covers stays in clear."""
    out = []
    for cluster in _clusters(spans):
        if len(cluster) == 1:
            out.append(cluster[0])
            continue
        head = min(cluster, key=_leading)
        lowest = min(s.lowest_confidence for s in cluster)
        start, end = cluster[0].start, max(s.end for s in cluster)
        out.append(replace(head, start=start, end=end, min_confidence=lowest, text="", replacement=None))
    return out


def layers(spans: Iterable[PHISpan]) -> tuple[list[PHISpan], list[PHISpan]]:
    """``spans`` split into a non-overlapping layer and the rest, each sorted: every
    span in turn, leaders first (:func:`_leading`), joins the layer unless it overlaps
    a span already there. Without overlaps, the layer is every span. For the outputs
    that cannot show overlapping spans in place (the HTML page's text, CoNLL)."""
    ordered = sorted(spans, key=_leading)
    kept = set(first_fit([(s.start, s.end) for s in ordered]))
    layer = sorted(s for i, s in enumerate(ordered) if i in kept)
    rest = sorted(s for i, s in enumerate(ordered) if i not in kept)
    return layer, rest


class _Blockers:
    """Spans that do not overlap one another, sorted: their starts and their ends then
    both rise, so the ones a span overlaps are a run found by two binary searches."""

    def __init__(self, spans: Iterable[PHISpan]):
        self.spans = sorted(spans)
        self.starts = [s.start for s in self.spans]
        self.ends = [s.end for s in self.spans]

    def overlapping(self, span: PHISpan) -> list[PHISpan]:
        """The blockers ``span`` overlaps, in text order."""
        return self.spans[bisect_right(self.ends, span.start) : bisect_left(self.starts, span.end)]


def _pieces_outside(span: PHISpan, blockers: _Blockers, text: str) -> list[PHISpan]:
    """The parts of ``span`` that no blocker covers, each trimmed to start and end on
    an alphanumeric character; parts with fewer than two alphanumeric characters (a
    stray ``E`` of ``E-28046``, a digit) are dropped."""
    overlapping = blockers.overlapping(span)
    if not overlapping:
        return [span]
    pieces, cursor = [], span.start
    for b in overlapping:
        pieces.append((cursor, max(cursor, b.start)))
        cursor = max(cursor, b.end)
    pieces.append((cursor, span.end))
    out = []
    for start, end in pieces:
        while start < end and not text[start].isalnum():
            start += 1
        while end > start and not text[end - 1].isalnum():
            end -= 1
        if sum(c.isalnum() for c in text[start:end]) >= 2:
            out.append(replace(span, start=start, end=end))
    return out


def combine(
    model_spans: Iterable[PHISpan],
    rule_spans: Iterable[PHISpan],
    text: str,
    priority: Mapping[str, str] | str,
    default: str = OFF,
) -> list[PHISpan]:
    """Merge the model's and the rules' spans of one document ``text``.

    ``priority`` maps an entity type to one of :data:`PRIORITIES` (types missing from
    it get ``default``), or is one priority for every type; a rule span follows the
    priority of its own type:

    * ``off``: the rule span is dropped;
    * ``model``: model spans keep their extent; the rule span keeps only its parts
      outside them;
    * ``rules``: the rule span keeps its extent; the model spans it overlaps keep
      only their parts outside it;
    * ``union``: overlapping spans become one span covering them all.

    A left-over part is trimmed to alphanumeric ends and dropped if it has fewer than
    two alphanumeric characters. A rule span equal to a model span
    of the same type marks it as found by both. Model spans never overlap one
    another; overlapping rule spans are first reduced with :func:`non_overlapping`.
    The result is sorted and free of overlaps whatever the inputs.
    """

    def policy(type_: str) -> str:
        value = priority if isinstance(priority, str) else priority.get(type_, default)
        if value not in PRIORITIES:
            raise ValueError(f"unknown rule priority {value!r} for {type_}; choose from {PRIORITIES}")
        return value

    spans = non_overlapping(model_spans)
    rules = non_overlapping(r for r in rule_spans if policy(r.type) != OFF)
    confirmed = {(s.start, s.end, s.type) for s in spans} & {(r.start, r.end, r.type) for r in rules}
    spans = [replace(s, source=BOTH) if (s.start, s.end, s.type) in confirmed else s for s in spans]
    rules = [r for r in rules if (r.start, r.end, r.type) not in confirmed]

    winners = [r for r in rules if policy(r.type) == RULES_FIRST]
    if winners:
        blockers = _Blockers(winners)
        spans = [piece for s in spans for piece in _pieces_outside(s, blockers, text)] + winners
    fillers = [r for r in rules if policy(r.type) == MODEL_FIRST]
    if fillers:
        blockers = _Blockers(spans)
        spans = spans + [piece for r in fillers for piece in _pieces_outside(r, blockers, text)]
    united = [r for r in rules if policy(r.type) == UNION]
    return _union([*spans, *united]) if united else sorted(spans)
