"""Merging model and rule spans: priorities, determinism, no overlaps."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from deid_crf.text.spans import (
    BOTH,
    CANDIDATE,
    MODEL,
    OFF,
    PRIORITIES,
    RULE,
    PHISpan,
    combine,
    cover,
    layers,
    non_overlapping,
)

TEXT = "Nombre: Ernesto Rivera. Tfno. 916 49 43 00, CP E-28046 Madrid; NHC 1234567 y 7654321.\n" * 2
TYPES = ("A", "B", "C")


def spans_strategy(max_size: int = 8):
    def build(pairs):
        return [PHISpan(min(a, b), max(a, b), t) for a, b, t in pairs if a != b]

    bound = st.integers(min_value=0, max_value=len(TEXT))
    return st.lists(st.tuples(bound, bound, st.sampled_from(TYPES)), max_size=max_size).map(build)


def covered(spans):
    return {i for s in spans for i in range(s.start, s.end)}


def assert_clean(out):
    assert out == sorted(out)
    assert all(a.end <= b.start for a, b in zip(out, out[1:], strict=False))
    assert all(0 <= s.start < s.end <= len(TEXT) for s in out)


@settings(max_examples=150, deadline=None)
@given(spans_strategy(), spans_strategy(), st.sampled_from(PRIORITIES), st.randoms(use_true_random=False))
def test_combine_never_overlaps_and_ignores_input_order(model, rules, priority, rnd):
    model = non_overlapping(model)
    model = [PHISpan(s.start, s.end, s.type, 0.5, MODEL) for s in model]
    rules = [PHISpan(s.start, s.end, s.type, 1.0, RULE) for s in rules]
    out = combine(model, rules, TEXT, priority)
    assert_clean(out)
    shuffled_model, shuffled_rules = model[:], rules[:]
    rnd.shuffle(shuffled_model)
    rnd.shuffle(shuffled_rules)
    again = combine(shuffled_model, shuffled_rules, TEXT, priority)
    assert [(s.start, s.end, s.type, s.source) for s in again] == [(s.start, s.end, s.type, s.source) for s in out]
    if priority == "union":
        assert covered(out) == covered(model) | covered(non_overlapping(rules))
    if priority == OFF:
        assert [s.entity for s in out] == [s.entity for s in model]
    if priority == "model":
        assert {s.entity for s in model} <= {s.entity for s in out}
    if priority == "rules":
        assert {s.entity for s in non_overlapping(rules)} <= {s.entity for s in out}


def test_priorities_on_a_clash():
    text = "Tfno. 916 49 43 00."
    model = [PHISpan(6, 12, "NUMERO_TELEFONO", 0.6, MODEL)]  # "916 49"
    rule = [PHISpan(6, 18, "NUMERO_FAX", 1.0, RULE)]  # the whole number
    assert combine(model, rule, text, "off") == model
    # Model first: the rule keeps only its part outside the model span ("43 00").
    assert [(s.start, s.end, s.type) for s in combine(model, rule, text, "model")] == [
        (6, 12, "NUMERO_TELEFONO"),
        (13, 18, "NUMERO_FAX"),
    ]
    assert [(s.start, s.end, s.type) for s in combine(model, rule, text, "rules")] == [(6, 18, "NUMERO_FAX")]
    (joined,) = combine(model, rule, text, "union")
    assert (joined.start, joined.end, joined.type, joined.source) == (6, 18, "NUMERO_FAX", BOTH)


def test_per_type_priority_and_confirmation():
    text = "NHC 1234567 y CP 28046"
    model = [PHISpan(4, 11, "ID_SUJETO_ASISTENCIA", 0.9, MODEL)]
    rules = [PHISpan(4, 11, "ID_SUJETO_ASISTENCIA", 1.0, RULE), PHISpan(17, 22, "TERRITORIO", 1.0, RULE)]
    out = combine(model, rules, text, {"TERRITORIO": OFF}, default="union")
    assert [(s.start, s.end, s.source, s.confidence) for s in out] == [(4, 11, BOTH, 0.9)]
    out = combine(model, rules, text, {"TERRITORIO": "model"}, default="union")
    assert [(s.start, s.end) for s in out] == [(4, 11), (17, 22)]


def test_left_over_pieces_need_two_alphanumerics():
    text = "CP E-28046 Madrid"
    model = [PHISpan(3, 10, "TERRITORIO", 0.9, MODEL)]  # "E-28046"
    rule = [PHISpan(5, 10, "TERRITORIO", 1.0, RULE)]  # "28046"
    assert [(s.start, s.end) for s in combine(model, rule, text, "rules")] == [(5, 10)]


def test_non_overlapping_prefers_longest_then_earliest():
    spans = [PHISpan(0, 4, "A"), PHISpan(2, 8, "B"), PHISpan(6, 9, "C"), PHISpan(9, 12, "A")]
    for _ in range(5):
        random.shuffle(spans)
        assert [(s.start, s.end) for s in non_overlapping(spans)] == [(2, 8), (9, 12)]


def test_span_repr_hides_text():
    span = PHISpan(0, 7, "NOMBRE_SUJETO_ASISTENCIA", text="Zebulonio", replacement="Tomás")
    assert "Zebulonio" not in repr(span) and "Tomás" not in repr(span)


@settings(max_examples=100, deadline=None)
@given(
    spans=st.lists(
        st.tuples(st.integers(0, 30), st.integers(1, 8), st.sampled_from([MODEL, RULE, CANDIDATE]), st.floats(0, 1)),
        max_size=12,
    )
)
def test_cover_joins_overlapping_spans_over_every_character(spans):
    given_spans = [PHISpan(a, a + n, f"T{a % 3}", p, source) for a, n, source, p in spans]
    covered = cover(given_spans)
    assert all(a.end <= b.start for a, b in itertools.pairwise(covered))  # sorted, no overlap
    characters = {i for s in given_spans for i in range(s.start, s.end)}
    assert {i for s in covered for i in range(s.start, s.end)} == characters
    for span in covered:
        members = [s for s in given_spans if span.start <= s.start and s.end <= span.end]
        assert span.type in {s.type for s in members}
        assert span.lowest_confidence == min(s.lowest_confidence for s in members)
        if any(s.source != CANDIDATE for s in members):  # a found span leads, not a candidate
            assert span.source != CANDIDATE
    layer, rest = layers(given_spans)
    assert sorted(layer + rest) == sorted(given_spans)
    assert all(a.end <= b.start for a, b in itertools.pairwise(layer))
    assert all(any(s.overlaps(kept) for kept in layer) for s in rest)


def test_cover_and_layers_prefer_the_found_span_to_a_candidate():
    found = PHISpan(10, 14, "NOMBRE_SUJETO_ASISTENCIA", 0.9, MODEL)
    longer = PHISpan(10, 20, "NOMBRE_SUJETO_ASISTENCIA", 0.3, CANDIDATE)
    other_type = PHISpan(10, 14, "NOMBRE_PERSONAL_SANITARIO", 0.95, CANDIDATE)
    (joined,) = cover([longer, other_type, found])
    assert (joined.start, joined.end, joined.type, joined.source) == (10, 20, found.type, MODEL)
    assert joined.confidence == 0.9 and joined.min_confidence == 0.3
    assert layers([longer, other_type, found]) == ([found], [other_type, longer])
