"""The synthetic formats of :mod:`deid_crf.augment.more_formats` and their value
generators: spans typed as intended in each format, determinism by seed, spoken numbers
that the rule layer's reader parses back, Basque case endings, whole-note rewrites
(accents, typos) that keep spans exact. Token alignment of every format, including these,
is checked by ``tests/test_synthetic.py::test_every_format_writes_well_formed_notes``,
and the 8-token leakage check against the evaluation notes by ``tests/test_eval_notes.py``."""

from __future__ import annotations

import random
import re
from datetime import date

import pytest

from deid_crf.augment import more_formats as M
from deid_crf.augment import organisations as O
from deid_crf.augment import regional as R
from deid_crf.augment import spoken as SP
from deid_crf.augment.builder import NoteBuilder, Span
from deid_crf.augment.case import draw_case
from deid_crf.augment.formats import FORMATS
from deid_crf.augment.synthetic import FORMAT_SETS, generate_note, strip_accents, typo_writer
from deid_crf.augment.values import Lexicon
from deid_crf.deid.recognizers.number_words import value
from deid_crf.text.document import Document


def write(format_writer, seed: int) -> Document:
    """One note of ``format_writer`` as the format writes it (no whole-note case change)."""
    rng = random.Random(seed)
    builder = NoteBuilder()
    format_writer(draw_case(rng, Lexicon.default()), builder)
    return builder.document(f"t-{seed}")


def spans(doc: Document, type_: str | None = None) -> list[str]:
    return [doc.text[e.start : e.end] for e in doc.entities if type_ is None or e.type == type_]


def many(format_writer, n: int = 25) -> list[Document]:
    return [write(format_writer, seed) for seed in range(n)]


# ----------------------------------------------------------------------------- registry and determinism


def test_new_formats_are_registered_and_deterministic():
    assert set(M.MORE_FORMATS) <= set(FORMAT_SETS["extended"][0])
    assert not set(M.MORE_FORMATS) & set(FORMATS)  # not in the default model's set
    for name in M.MORE_FORMATS:
        first = [generate_note(7, i, format_name=name) for i in range(5)]
        assert first == [generate_note(7, i, format_name=name) for i in range(5)], name
        assert [d.text for d in first] != [generate_note(8, i, format_name=name).text for i in range(5)], name


# ----------------------------------------------------------------------------- spoken numbers


def test_number_words_are_read_back_by_the_rule_layer():
    for n in [*range(1, 120), *range(1900, 2100)]:
        assert value(SP.number_words(n)) == n, n
    assert SP.number_words(2025) == "dos mil veinticinco"
    assert SP.number_words(72) == "setenta y dos"
    with pytest.raises(ValueError):
        SP.number_words(10000)


def test_spoken_digits_keep_every_digit():
    rng = random.Random(0)
    words = "cero uno dos tres cuatro cinco seis siete ocho nueve".split()
    for _ in range(200):
        number = str(rng.randint(10**5, 10**9))
        text = SP.spoken_digits(rng, number)
        spaced = " ".join(number)
        one_by_one = " ".join(words[int(d)] for d in number)
        pairs = " ".join(SP.number_words(int(number[i : i + 2])) for i in range(0, len(number), 2))
        assert text in (spaced, one_by_one, pairs) or "cero" in text, text
    date_text = SP.spoken_date(random.Random(1), date(2025, 1, 28))
    assert date_text.startswith("veintiocho de enero"), date_text


# ----------------------------------------------------------------------------- regional forms


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        (date(2025, 4, 8), "2025eko apirilaren 8an"),
        (date(2024, 5, 15), "2024ko maiatzaren 15ean"),
        (date(2020, 1, 11), "2020ko urtarrilaren 11n"),
        (date(2010, 12, 1), "2010eko abenduaren 1ean"),
        (date(2023, 3, 30), "2023ko martxoaren 30ean"),
    ],
)
def test_basque_dates_take_their_case_endings(day, expected):
    for seed in range(10):
        assert R.date_text(random.Random(seed), "eu", day).startswith(expected)


def test_regional_notes_use_the_language_kinship_words():
    docs = many(M.regional_note, 40)
    relatives = {s.lower().split()[0] for d in docs for s in spans(d, "FAMILIARES_SUJETO_ASISTENCIA")}
    assert relatives & {"filla", "fill", "fillo", "marit", "home", "dona", "sogra", "ama", "aita", "germana", "irmá"}
    sexes = {s for d in docs for s in spans(d, "SEXO_SUJETO_ASISTENCIA")}
    assert sexes & {"Home", "Dona", "Muller", "H", "D", "M"}


# ----------------------------------------------------------------------------- formats


def test_handover_list_rows():
    docs = many(M.ward_handover)
    for doc in docs:
        for age in spans(doc, "EDAD_SUJETO_ASISTENCIA"):
            assert re.fullmatch(r"\d+( ?a)?", age), age
        assert set(spans(doc, "SEXO_SUJETO_ASISTENCIA")) <= {"H", "M", "V", "F"}
        staff = spans(doc, "NOMBRE_PERSONAL_SANITARIO")
        assert any(re.fullmatch(r"[A-ZÁÉÍÓÚÑ]{2,4}", s) for s in staff), "no initials column"
    names = [s for d in docs for s in spans(d, "NOMBRE_SUJETO_ASISTENCIA")]
    assert sum(s.isupper() for s in names) > len(names) / 2, "handover names are mostly ALL CAPS"


def test_dictation_is_lower_case_without_punctuation_and_numbers_in_words():
    for doc in many(M.dictation):
        assert doc.text == doc.text.lower()
        assert not re.search(r"[,;:()]", doc.text), doc.doc_id
        for kind in ("FECHAS", "EDAD_SUJETO_ASISTENCIA"):
            assert all(not re.search(r"\d", s) for s in spans(doc, kind)), kind
        (record,) = spans(doc, "ID_SUJETO_ASISTENCIA")
        assert re.fullmatch(r"[a-zñéúíáó]+( [a-zñéúíáó]+)*|\d( \d)+", record), record
        assert "punto" in doc.text or "coma" in doc.text
        assert not any(s in {"coma", "punto"} for s in spans(doc))


def test_pedigree_gives_every_relative_age_its_own_span():
    docs = many(M.genetics_report)
    for doc in docs:
        assert len(spans(doc, "FAMILIARES_SUJETO_ASISTENCIA")) >= 5
        assert not re.search(r"\[I+\.\d\][^\n]*\bI+-\d", doc.text)
    # "a los 47 y 59 años": the two ages are two FAMILIARES spans.
    bare = [
        (doc, e)
        for doc in docs
        for e in doc.entities
        if e.type == "FAMILIARES_SUJETO_ASISTENCIA" and doc.text[e.start : e.end].isdigit()
    ]
    assert bare
    for doc, entity in bare:
        following = [e for e in doc.entities if e.start > entity.end][0]
        assert doc.text[entity.end : following.start] == " y ", doc.text[entity.end : following.start]
        assert following.type == "FAMILIARES_SUJETO_ASISTENCIA"


def test_medico_legal_courts_are_one_span_and_case_numbers_are_otros():
    docs = many(M.court_report)
    courts = [s for d in docs for s in spans(d, "INSTITUCION")]
    assert any(re.fullmatch(r"Juzgado de .+ (nº|n\.º|número|Nº|núm\.) \d+ de .+", s) for s in courts)
    for doc in docs:
        files = spans(doc, "OTROS_SUJETO_ASISTENCIA")
        assert files and all(not s.startswith(("autos", "procedimiento", "diligencias")) for s in files)
        assert spans(doc, "ID_SUJETO_ASISTENCIA")


def test_surgical_protocol_tags_serials_not_catalogue_references():
    for doc in many(M.surgical_protocol):
        serials = spans(doc, "IDENTIF_DISPOSITIVOS_NRSERIE")
        assert len(serials) >= 2
        for match in re.finditer(r"Ref\. (\S+)", doc.text, flags=re.IGNORECASE):
            assert not any(e.start < match.end(1) and match.start(1) < e.end for e in doc.entities)
        assert not any(s.startswith(("Dr", "MIR")) for s in spans(doc, "NOMBRE_PERSONAL_SANITARIO"))


def test_running_text_facts_are_typed():
    docs = many(M.evolution_sheet, 60)
    kinds = {e.type for d in docs for e in d.entities}
    assert {"OTROS_SUJETO_ASISTENCIA", "INSTITUCION", "FAMILIARES_SUJETO_ASISTENCIA", "FECHAS"} <= kinds
    assert "PROFESION" in kinds and "TERRITORIO" in kinds


def test_value_generators():
    rng = random.Random(3)
    lexicon = Lexicon.default()
    place = draw_case(rng, lexicon).home
    for _ in range(50):
        assert O.company_text(rng, lexicon, place).strip()
        label, number = O.foreign_id_text(rng)
        assert label and re.fullmatch(r"[A-Z0-9.]+", number), number
        assert re.fullmatch(r"[A-Z]{2,4}", O.staff_initials("Marta Isabel", ("Ruiz", "de la Peña"), rng))
    assert O.staff_initials("Marta", ("Ruiz",), rng) == "MR"


# ----------------------------------------------------------------------------- whole-note rewrites


def test_accents_and_typos_keep_spans_exact():
    builder = NoteBuilder().add("Paciente: ", Span("José Martínez Ibáñez", "NOMBRE_SUJETO_ASISTENCIA"), " acude hoy.\n")
    builder.rewrite_all(strip_accents)
    doc = builder.document("x")
    assert spans(doc) == ["Jose Martinez Ibáñez".replace("á", "a")]
    text = "Paciente diagnosticado previamente de insuficiencia cardiaca congestiva"
    typed = typo_writer(random.Random(0), rate=1.0)(text)
    assert typed != text and len(typed.split()) == len(text.split())
    note = generate_note(0, 0)
    builder = NoteBuilder()
    builder.add(*[Span(note.text[e.start : e.end], e.type) for e in note.entities[:5]])
    builder.rewrite_all(typo_writer(random.Random(1), rate=1.0))
    assert all(e.end > e.start for e in builder.document("y").entities)


def test_the_base_set_is_the_default_and_draws_no_extended_format():
    from deid_crf.augment.synthetic import format_of, generate_notes

    base = [format_of(0, i) for i in range(400)]
    extended = [format_of(0, i, "extended") for i in range(400)]
    assert not set(base) & set(M.MORE_FORMATS)
    assert set(extended) & set(M.MORE_FORMATS)
    assert generate_notes(3, 0) == generate_notes(3, 0, formats="base")
    with pytest.raises(ValueError, match="unknown synthetic format set 'all'"):
        generate_notes(1, 0, formats="all")
