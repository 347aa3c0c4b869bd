"""Span merging and name propagation run in O(n log n) and give the results of the
former quadratic implementations, kept here as references, on random spans."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from deid_crf.gazetteers.spanish import PARTICLES, normalize
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deid_crf.deid.recognizers import dates, phones
from deid_crf.deid.recognizers.common import PHONE, line_before
from deid_crf.deid.rules import NAME_TYPES, NOT_NAME_WORDS, propagate_names
from deid_crf.text import spans as spans_module
from deid_crf.text.spans import (
    MODEL,
    OFF,
    PRIORITIES,
    PROPAGATED,
    RULE,
    RULES_FIRST,
    UNION,
    Coverage,
    PHISpan,
    combine,
    first_fit,
)

# ----------------------------------------------------------------- the former implementations


def reference_non_overlapping(spans):
    chosen = []
    for span in sorted(spans, key=lambda s: (s.start - s.end, s.start, s.type)):
        if not any(span.overlaps(c) for c in chosen):
            chosen.append(span)
    return sorted(chosen)


def reference_pieces_outside(span, blockers, text):
    overlapping = sorted(b for b in blockers if b.overlaps(span))
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


def reference_combine(model_spans, rule_spans, text, priority: Mapping[str, str] | str, default=OFF):
    def policy(type_):
        return priority if isinstance(priority, str) else priority.get(type_, default)

    spans = reference_non_overlapping(model_spans)
    rules = reference_non_overlapping(r for r in rule_spans if policy(r.type) != OFF)
    confirmed = {(s.start, s.end, s.type) for s in spans} & {(r.start, r.end, r.type) for r in rules}
    spans = [replace(s, source="model+rule") if (s.start, s.end, s.type) in confirmed else s for s in spans]
    rules = [r for r in rules if (r.start, r.end, r.type) not in confirmed]
    winners = [r for r in rules if policy(r.type) == RULES_FIRST]
    if winners:
        spans = [piece for s in spans for piece in reference_pieces_outside(s, winners, text)] + winners
    fillers = [r for r in rules if policy(r.type) == "model"]
    if fillers:
        spans = spans + [piece for r in fillers for piece in reference_pieces_outside(r, spans, text)]
    united = [r for r in rules if policy(r.type) == UNION]
    return spans_module._union([*spans, *united]) if united else sorted(spans)


def reference_propagate_names(text: str, spans: Sequence[PHISpan], types=NAME_TYPES):
    names = {}
    for span in spans:
        if span.type not in types:
            continue
        whole = text[span.start : span.end]
        names.setdefault(whole, span)
        for part in re.findall(r"[^\W\d_]+", whole):
            if len(part) >= 3 and part[0].isupper() and part.lower() not in PARTICLES:
                names.setdefault(part, span)
                if part.isupper() and normalize(part) not in NOT_NAME_WORDS:  # "AWA" is "Awa" in the text
                    names.setdefault(part[0] + part[1:].lower(), span)
                elif len(part) >= 4 and normalize(part) not in NOT_NAME_WORDS:  # "Dobre" is "DOBRE" there
                    names.setdefault(part.upper(), span)
    if not names:
        return list(spans)
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")(?!\w)")
    out = list(spans)
    for m in pattern.finditer(text):
        inside = [s for s in spans if s.start < m.end() and m.start() < s.end]
        if not inside:
            name = names[m.group()]
            out.append(PHISpan(m.start(), m.end(), name.type, name.confidence, PROPAGATED))
        elif (min(s.start for s in inside), max(s.end for s in inside)) == m.span():
            continue
        elif all(s.type in types and m.start() <= s.start and s.end <= m.end() for s in inside):
            # spans of names inside a longer occurrence of a name are widened to it
            kept = min(inside)
            out = [s for s in out if s not in inside or s.source == PROPAGATED]
            out.append(PHISpan(m.start(), m.end(), kept.type, kept.confidence, PROPAGATED))
    return sorted(out)


def reference_first_fit(intervals):
    taken, kept = [], []
    for i, (start, end) in enumerate(intervals):
        if not any(a < end and start < b for a, b in taken):
            taken.append((start, end))
            kept.append(i)
    return kept


def reference_find_dates(text):
    taken = []
    where = dates.anchors(text)
    for finder in dates._FINDERS:
        for start, end in finder(text, where):
            if not any(a < end and start < b for a, b in taken):
                taken.append((start, end))
    return [(start, end, "FECHAS") for start, end in sorted(taken)]


def reference_find_phones(text):
    found = list(phones._matched_numbers(text))
    taken = [(a, b) for a, b, _ in found]
    for m in phones._LABELLED_NUMBER.finditer(text):
        before = line_before(text, m.start(), phones._LABEL_WIDTH)
        if phones._LABEL_END.search(before) and not any(a < m.end() and m.start() < b for a, b in taken):
            found.append((m.start(1), m.end(), phones._phone_type(before) or PHONE))
    taken = [(a, b) for a, b, _ in found]
    found += [
        (m.start(1), m.end(), PHONE)
        for m in phones._PAGER.finditer(text)
        if not any(a < m.end() and m.start(1) < b for a, b in taken)
    ]
    return sorted(found)


# ----------------------------------------------------------------- random inputs

WORDS = ["Rivera", "Ernesto", "Bueno", "de", "la", "Sr.", "María", "Riveras", "Ana", "ANA", "_x", "1", "Río-Ana"]
TEXTS = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from([" ", "\n", ", ", "-", "\t"]), st.text(max_size=3)))
TYPES = ("A", "B", "NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO")


@st.composite
def text_and_spans(draw, max_spans: int = 40, empty: bool = True):
    """A text, and spans in it that may nest, overlap, repeat or (with ``empty``) be empty."""
    text = "".join(draw(TEXTS))
    n = len(text)
    # Word and name boundaries, so that spans often cover whole names, as taggers' do.
    bounds = sorted({0, n, *(i for m in re.finditer(r"\w+|Sr\.", text) for i in m.span())})
    drawn = draw(
        st.lists(
            st.tuples(
                st.one_of(st.integers(0, n), st.sampled_from(bounds)),
                st.one_of(st.integers(0, n), st.sampled_from(bounds)),
                st.sampled_from(TYPES),
                st.sampled_from([0.5, 1.0]),
                st.sampled_from([MODEL, RULE]),
            ),
            max_size=max_spans,
        )
    )
    spans = [PHISpan(min(a, b), max(a, b), *rest) for a, b, *rest in drawn]
    return text, [s for s in spans if empty or s.start < s.end]


def full(spans):
    return [(s.start, s.end, s.type, s.confidence, s.source) for s in spans]


@settings(max_examples=200, deadline=None)
@given(text_and_spans(max_spans=60))
def test_non_overlapping_is_the_former_greedy_choice(case):
    _, spans = case
    assert full(spans_module.non_overlapping(spans)) == full(reference_non_overlapping(spans))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)).map(sorted).map(tuple), max_size=40))
def test_first_fit_keeps_what_the_former_loop_kept(pairs):
    """Any order, empty intervals (which overlap only intervals strictly around them) included."""
    assert first_fit(pairs) == reference_first_fit(pairs)
    coverage = Coverage(pairs)
    for start, end in [(0, 0), (3, 9), (12, 13), (29, 30), (5, 5)]:
        assert coverage.overlaps(start, end) == any(a < end and start < b for a, b in pairs)


DATE_AND_PHONE_PIECES = [
    "3 de marzo de 2016",
    "03/03/2016",
    "2016-03-03",
    "marzo de 2016",
    "lunes 8 de abril",
    "en 2016",
    "3-III-2016",
    "Tel. 630 75 89 15",
    "Fax: 91 123 45 67",
    "Tfno 630758915",
    "busca 6613",
    "+34 630 75 89 15",
    " ",
    " y ",
    "\n",
    ", ",
]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(DATE_AND_PHONE_PIECES), st.text(max_size=3)), max_size=30).map("".join))
def test_dates_and_phones_are_the_former_ones(text):
    assert list(dates.find_dates(text)) == reference_find_dates(text)
    assert list(phones.find_phones(text)) == reference_find_phones(text)


def test_dates_and_phones_of_meddocan_dev_are_the_former_ones(data_dir):
    for path in sorted((data_dir / "meddocan" / "dev").glob("*.txt"))[:80]:
        text = path.read_text(encoding="utf-8")
        assert list(dates.find_dates(text)) == reference_find_dates(text), path.name
        assert list(phones.find_phones(text)) == reference_find_phones(text), path.name


@settings(max_examples=150, deadline=None)
@given(text_and_spans(empty=False), text_and_spans(empty=False), st.sampled_from(PRIORITIES), st.data())
def test_combine_gives_the_former_results(model_case, rule_case, priority, data):
    text, model = model_case
    rules = [replace(s, end=min(s.end, len(text))) for s in rule_case[1] if s.start < min(s.end, len(text))]
    mixed = data.draw(st.sampled_from([priority, {"A": RULES_FIRST, "B": "model", "NOMBRE_SUJETO_ASISTENCIA": UNION}]))
    expected = reference_combine(model, rules, text, mixed)
    assert full(combine(model, rules, text, mixed)) == full(expected)


@st.composite
def text_with_names(draw):
    """A text where names recur, and a few spans of one to three words, most of them names."""
    separators = st.sampled_from([" ", " ", "\n", ", ", "."])
    pieces = st.sampled_from([*WORDS, "Ernesto Rivera", "Ana María Bueno", "Sr.Rivera", "RIVERA BUENO, ANA"])
    text = "".join(draw(st.lists(st.one_of(pieces, separators), min_size=12, max_size=60)))
    words = [m.span() for m in re.finditer(r"\w+|Sr\.", text)]
    spans = []
    if words:
        for i, length, type_ in draw(
            st.lists(
                st.tuples(st.integers(0, len(words) - 1), st.integers(0, 2), st.sampled_from(TYPES[1:])), max_size=4
            )
        ):
            last = words[min(i + length, len(words) - 1)]
            spans.append(PHISpan(words[i][0], last[1], type_, draw(st.sampled_from([0.5, 0.9])), MODEL))
    return text, spans


NAME = "NOMBRE_SUJETO_ASISTENCIA"


@settings(max_examples=150, deadline=None)
@given(st.one_of(text_and_spans(empty=False), text_with_names()))
@example(("Ernesto Rivera y Ernesto Rivera", [PHISpan(0, 14, NAME, 0.9, MODEL)]))  # no part inside a whole name
@example(("Sr.Rivera y Rivera", [PHISpan(0, 3, "B"), PHISpan(12, 18, NAME, 0.9, MODEL)]))  # next to a span
def test_propagate_names_gives_the_former_results(case):
    text, spans = case
    assert full(propagate_names(text, spans)) == full(reference_propagate_names(text, spans))


def test_many_spans_in_one_document_take_seconds():
    """30,000 names and 60,000 rule spans in one line: seconds, not the minutes of the
    quadratic merge (whose inner loops ran 10⁹ times here)."""
    import time

    words = [f"Nom{i:05d}" for i in range(30000)]
    text = " ".join(words)
    model, rules, cursor = [], [], 0
    for w in words:
        model.append(PHISpan(cursor, cursor + len(w), "NOMBRE_SUJETO_ASISTENCIA", 0.9, MODEL))
        rules.append(PHISpan(cursor, cursor + 3, "B", 1.0, RULE))
        rules.append(PHISpan(cursor + 2, cursor + len(w), "A", 1.0, RULE))
        cursor += len(w) + 1
    started = time.perf_counter()
    merged = combine(model, rules, text, {"A": RULES_FIRST, "B": "model"})
    found = propagate_names(text + " " + text, merged)
    assert time.perf_counter() - started < 10
    assert len(found) == 60000
