"""Masking and surrogate replacement: the text outside PHI never changes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import deid_crf
from deid_crf.deid.deidentifier import Deidentifier, mask_function, replace_spans
from deid_crf.text.spans import MODEL, RULE, PHISpan, combine

TYPES = (
    "NOMBRE_SUJETO_ASISTENCIA",
    "FECHAS",
    "CALLE",
    "ID_SUJETO_ASISTENCIA",
    "EDAD_SUJETO_ASISTENCIA",
    "FAMILIARES_SUJETO_ASISTENCIA",
    "OTROS_SUJETO_ASISTENCIA",
    "NUMERO_TELEFONO",
    "TERRITORIO",
)
ALPHABET = st.sampled_from(list("aábcdeéñoRZ019 .,:/-\r\n\t\ufeff🙂"))


@st.composite
def documents(draw):
    """A random text with candidate spans from a "model" (non-overlapping, often
    adjacent) and from "rules" (free to overlap and nest), merged as the tagger does."""
    text = draw(st.text(alphabet=ALPHABET, min_size=0, max_size=80))
    n = len(text)
    cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=12))))
    model = [
        PHISpan(a, b, draw(st.sampled_from(TYPES)), 0.5, MODEL)
        for a, b in zip(cuts, cuts[1:], strict=False)
        if draw(st.booleans())
    ]
    rules = []
    for _ in range(draw(st.integers(0, 4))):
        a, b = sorted((draw(st.integers(0, n)), draw(st.integers(0, n))))
        if a < b:
            rules.append(PHISpan(a, b, draw(st.sampled_from(TYPES)), 1.0, RULE))
    priority = draw(st.sampled_from(("off", "model", "rules", "union")))
    return text, combine(model, rules, text, priority)


def assert_outside_unchanged(original: str, result) -> None:
    out, cursor_in, cursor_out = result.text, 0, 0
    for span, (a, b, _) in zip(result.spans, result.output_spans(), strict=True):
        assert original[cursor_in : span.start] == out[cursor_out:a]
        assert out[a:b] == span.replacement
        assert original[span.start : span.end] == span.text
        cursor_in, cursor_out = span.end, b
    assert original[cursor_in:] == out[cursor_out:]


@pytest.fixture(scope="module")
def deid(tiny_tagger) -> Deidentifier:
    return Deidentifier(tiny_tagger, seed=11)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents(), st.sampled_from(("masked", "surrogate")))
def test_outside_phi_every_character_is_kept(deid, document, mode):
    text, spans = document
    result = deid.apply(text, spans, mode, doc_id="x")
    assert_outside_unchanged(text, result)
    assert deid.apply(text, spans, mode, doc_id="x").text == result.text  # same seed, same output


def test_mask_templates_and_mask_char():
    text = "Nombre: Ernesto Rivera. NHC: 123."
    spans = [PHISpan(8, 22, "NOMBRE_SUJETO_ASISTENCIA"), PHISpan(29, 32, "ID_SUJETO_ASISTENCIA")]
    new, _ = replace_spans(text, spans, mask_function())
    assert new == "Nombre: [NOMBRE_SUJETO_ASISTENCIA]. NHC: [ID_SUJETO_ASISTENCIA]."
    new, _ = replace_spans(text, spans, mask_function("<{type}>"))
    assert new == "Nombre: <NOMBRE_SUJETO_ASISTENCIA>. NHC: <ID_SUJETO_ASISTENCIA>."
    new, _ = replace_spans(text, spans, mask_function(mask_char="*"))
    assert new == "Nombre: ******* ******. NHC: ***." and len(new) == len(text)
    with pytest.raises(ValueError, match="invalid mask template"):
        mask_function("[{kind}]")
    with pytest.raises(ValueError, match="overlaps"):
        replace_spans(text, [PHISpan(0, 10, "A"), PHISpan(5, 12, "B")], mask_function())


def test_deidentify_with_a_model(tiny_model_dir, unseen_document, fake_phi):
    deid = deid_crf.load(tiny_model_dir, seed=3)
    text = unseen_document.text
    masked = deid.deidentify(text, mode="masked", doc_id="nuevo")
    assert "Filiberta" not in masked.text and "[NOMBRE_SUJETO_ASISTENCIA]" in masked.text
    surrogate = deid.deidentify(text, mode="surrogate", doc_id="nuevo")
    assert "Filiberta" not in surrogate.text and "Gorostiza" not in surrogate.text
    assert_outside_unchanged(text, surrogate)
    assert deid_crf.load(tiny_model_dir, seed=3).deidentify(text, doc_id="nuevo").text == surrogate.text
    assert deid_crf.load(tiny_model_dir, seed=4).deidentify(text, doc_id="nuevo").text != surrogate.text
    annotated = deid.deidentify(text, mode="annotate")
    assert annotated.text == text and all(0 < s.confidence <= 1 for s in annotated.spans)
    # Nothing printable about a result shows the PHI.
    for thing in (masked, surrogate, annotated, surrogate.spans):
        assert not any(phi in repr(thing) for phi in fake_phi)
    record = surrogate.key_record()
    assert {s["original"] for s in record["spans"]} >= {"Filiberta", "Gorostiza Ventanal"}
    assert record["date_shift_days"] == surrogate.date_shift_days != 0


BLANK_TEXTS = ["", " ", "\n", " \t\r\n\u2028\u00a0 "]


@pytest.mark.parametrize("kind", ["crf", "crf_absent_values", "svm"])
def test_empty_and_whitespace_texts_give_empty_results(
    kind, tiny_tagger, tiny_tagger_with_absent_values, tiny_corpus, unseen_document
):
    """Every API call on empty or whitespace-only texts: no spans, the text unchanged,
    alone or among other texts."""
    from deid_crf.models import WindowSVMTagger

    taggers = {"crf": tiny_tagger, "crf_absent_values": tiny_tagger_with_absent_values}
    tagger = taggers[kind] if kind in taggers else WindowSVMTagger(n_features=2**12).fit(tiny_corpus)
    texts = [*BLANK_TEXTS, unseen_document.text]
    for call in (tagger.tag_texts, tagger.tag_texts_with_confidence):
        assert call(BLANK_TEXTS) == [[]] * len(BLANK_TEXTS)
        assert call(texts)[:-1] == [[]] * len(BLANK_TEXTS)
    assert tagger.predict([deid_crf.Document("d", t, []) for t in BLANK_TEXTS]) == [[]] * len(BLANK_TEXTS)
    deid = Deidentifier(tagger, seed=1)
    for mode in ("masked", "surrogate", "annotate"):
        for text in BLANK_TEXTS:
            result = deid.deidentify(text, mode=mode, doc_id="vacio")
            assert (result.text, result.spans) == (text, [])
            assert result.key_record()["spans"] == []
        results = deid.deidentify_many(texts, mode=mode)
        assert [(r.text, r.spans) for r in results[:-1]] == [(t, []) for t in BLANK_TEXTS]
    assert deid.deidentify_many([], mode="masked") == []


def test_surrogates_of_a_nass_with_a_digit_like_character(deid):
    text = "NASS: 28 12345678 40❶\n"
    result = deid.apply(text, [PHISpan(6, len(text) - 1, "ID_ASEGURAMIENTO")], "surrogate", "d")
    assert_outside_unchanged(text, result)
    assert "12345678" not in result.text


def test_spans_without_confidences_are_the_same_spans(deid, unseen_document):
    import math

    text = unseen_document.text
    with_confidence = deid.deidentify(text, mode="annotate")
    without = deid.deidentify(text, mode="annotate", confidence=False)
    assert [(s.start, s.end, s.type, s.source) for s in without.spans] == [
        (s.start, s.end, s.type, s.source) for s in with_confidence.spans
    ]
    assert all(math.isnan(s.confidence) for s in without.spans if s.source == "model")


def test_prepare_loads_what_surrogates_need_and_only_for_them(tiny_tagger):
    """What a batch loads once before forking its workers: the vocabulary for
    surrogates (or a surrogate action), nothing for masks and annotations; never Faker."""
    for mode in ("masked", "annotate"):
        deid = Deidentifier(tiny_tagger, seed=3)
        deid.prepare(mode)
        assert deid._vocabulary is None
    for deid, mode in (
        (Deidentifier(tiny_tagger), "surrogate"),
        (Deidentifier(tiny_tagger, actions={"FECHAS": "surrogate"}), "masked"),
    ):
        deid.prepare(mode)
        assert deid._vocabulary is not None
