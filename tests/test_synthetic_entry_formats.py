"""The synthetic formats of :mod:`deid_crf.augment.entry_formats` and the running-text
generators of :mod:`deid_crf.augment.running_text`: registration and determinism by
seed, token-aligned spans, and each phenomenon typed and bounded as the MEDDOCAN
guidelines and the evaluation notes' README say (role words, labels, articles and
record prefixes outside the spans). The 8-token leakage check against the evaluation
notes, with and without the built gazetteer lists, is in ``tests/test_eval_notes.py``."""

from __future__ import annotations

import random
import re
from datetime import date

import pytest
from stdnum import iban

from deid_crf.augment import entry_formats as E
from deid_crf.augment import running_text as RT
from deid_crf.augment import tables as T
from deid_crf.augment.builder import NoteBuilder
from deid_crf.augment.case import draw_case
from deid_crf.augment.formats import FORMATS
from deid_crf.augment.synthetic import FORMAT_SETS, format_of, generate_note
from deid_crf.augment.values import Lexicon
from deid_crf.text.document import Document
from tests.test_synthetic import assert_well_formed

STAFF = "NOMBRE_PERSONAL_SANITARIO"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"
SHORT_DATE = re.compile(
    r"(?:(?:lun|mar|mié|jue|vie|sáb|dom)\.? )?(?:\d{1,2}(?:[/.]\d{1,2})?|\d{1,2}-[a-zé]{3})", re.IGNORECASE
)
ROLE_WORDS = {w.lower().rstrip(".") for w in (*RT.NURSE_ROLES, *RT.DOCTOR_ROLES)}


def write(format_writer, seed: int) -> Document:
    rng = random.Random(seed)
    builder = NoteBuilder()
    format_writer(draw_case(rng, Lexicon.default()), builder)
    return builder.document(f"t-{seed}")


def many(format_writer, n: int = 30) -> list[Document]:
    return [write(format_writer, seed) for seed in range(n)]


def spans(doc: Document, type_: str | None = None) -> list[str]:
    return [doc.text[e.start : e.end] for e in doc.entities if type_ is None or e.type == type_]


def before(doc: Document, type_: str, n: int = 12) -> list[str]:
    """The ``n`` characters before each span of ``type_``."""
    return [doc.text[max(0, e.start - n) : e.start] for e in doc.entities if e.type == type_]


# ----------------------------------------------------------------------------- registry


def test_entry_formats_are_in_the_running_set_only_and_deterministic():
    running = FORMAT_SETS["running"][0]
    assert set(E.ENTRY_FORMATS) <= set(running) and set(FORMATS) <= set(running)
    assert not set(E.ENTRY_FORMATS) & set(FORMAT_SETS["base"][0])
    assert not set(E.ENTRY_FORMATS) & set(FORMAT_SETS["extended"][0])
    drawn = [format_of(0, i, "running") for i in range(600)]
    share = sum(name in E.ENTRY_FORMATS for name in drawn) / len(drawn)
    assert 0.1 < share < 0.3, share  # extra variety, not a replacement for the base formats
    for name in E.ENTRY_FORMATS:
        first = [generate_note(7, i, format_name=name) for i in range(5)]
        assert first == [generate_note(7, i, format_name=name) for i in range(5)], name
        assert [d.text for d in first] != [generate_note(8, i, format_name=name).text for i in range(5)], name


@pytest.mark.parametrize("format_name", sorted(E.ENTRY_FORMATS))
def test_entry_formats_write_well_formed_notes(format_name):
    docs = [generate_note(99, i, format_name=format_name) for i in range(20)]
    assert_well_formed(docs)
    assert all(doc.entities for doc in docs)


def test_well_formed_with_faker_lists_only(tmp_path):
    lexicon = Lexicon.from_directory(tmp_path)
    assert lexicon.source == "faker"
    docs = [generate_note(5, i, lexicon, format_name=name) for name in E.ENTRY_FORMATS for i in range(10)]
    assert_well_formed(docs)


# ----------------------------------------------------------------------------- formats


def test_signed_entries_open_with_a_short_date_and_end_with_the_writer():
    entries = 0
    for doc in many(E.signed_entries):
        for entity in doc.entities:
            line_start = doc.text.rfind("\n", 0, entity.start) + 1
            if entity.type == "FECHAS" and entity.start == line_start:
                entries += 1
                assert SHORT_DATE.fullmatch(doc.text[entity.start : entity.end]), doc.text[entity.start : entity.end]
                line_end = doc.text.index("\n", entity.start)
                last = [e for e in doc.entities if e.start < line_end][-1]
                assert last.type == STAFF, last.type  # the entry is signed
                assert doc.text[last.end : line_end] in ("", ")") or doc.text[last.end : line_end].startswith(", ")
        for name in spans(doc, STAFF):  # a role word is written before the name, never inside
            assert name.split()[0].lower().rstrip(".") not in ROLE_WORDS, name
    assert entries >= 30 * 4


def test_lower_case_note_is_lower_case_names_included():
    for doc in many(E.lower_case_gp_note):
        assert doc.text == doc.text.lower()
        assert spans(doc, "NOMBRE_SUJETO_ASISTENCIA") and spans(doc, STAFF)
        assert spans(doc, "EDAD_SUJETO_ASISTENCIA")


def test_family_assessment_types_relatives_labels_and_numbers():
    docs = many(E.family_assessment, 40)
    for doc in docs:
        # a contact list's kinship label is a field label, outside every span
        for match in re.finditer(r"^(?:\d\. )?([A-ZÁÉÍÓÚ][a-zñáéíóú]+): ", doc.text, flags=re.MULTILINE):
            assert not any(e.start < match.end(1) and match.start(1) < e.end for e in doc.entities)
        # the record's hyphenated letter prefix stays outside the span
        for prefix in before(doc, "ID_SUJETO_ASISTENCIA", 4):
            assert not re.fullmatch(r"[A-Z]{2}-\d?", prefix[-3:]) or prefix.endswith("-")
        for text in spans(doc, "OTROS_SUJETO_ASISTENCIA"):
            if text.startswith("ES") and text[2:4].isdigit():
                assert iban.is_valid(text, check_country=False), "an IBAN with wrong check digits"
        assert spans(doc, "EDAD_SUJETO_ASISTENCIA")
    relatives = [s for d in docs for s in spans(d, RELATIVE)]
    assert any(re.fullmatch(r"(dos|tres) \w+", s) for s in relatives), "no group word"
    assert any(s.isdigit() for s in relatives), "no relative's age in brackets"
    two_spans = [
        (a, b)
        for d in docs
        for a, b in zip(d.entities, d.entities[1:], strict=False)
        if a.type == b.type == RELATIVE and d.text[a.end : b.start] == ", "
    ]
    assert two_spans, "no kinship word and name across a comma"
    kinds = {e.type for d in docs for e in d.entities}
    assert {"INSTITUCION", "OTROS_SUJETO_ASISTENCIA", "TERRITORIO", "NUMERO_TELEFONO", STAFF} <= kinds


def test_co_official_note_uses_the_language():
    docs = many(E.co_official_note)
    ages = [s for d in docs for s in spans(d, "EDAD_SUJETO_ASISTENCIA")]
    assert any(s.endswith(("anys", "anos")) for s in ages)
    assert all(spans(d, "INSTITUCION") for d in docs), "no administrative header"
    months = ("gener", "febrer", "març", "xaneiro", "febreiro", "maio", "xuño", "setembro", "juliol", "octubre")
    assert any(any(m in s for m in months) for d in docs for s in spans(d, "FECHAS"))


# ----------------------------------------------------------------------------- value generators


def test_short_forms():
    rng = random.Random(0)
    assert RT.words_age(61) == "sesenta y un años"
    assert RT.words_age(45) == "cuarenta y cinco años"
    day = date(2024, 11, 13)
    forms = {RT.short_entry_date(rng, day) for _ in range(300)}
    assert {"13/11", "mié 13", "mié 13-nov"} <= {f.lower() for f in forms}
    assert all(SHORT_DATE.fullmatch(f) for f in forms), forms
    for _ in range(100):
        episode = RT.episode_with_letters(rng, 2025)
        assert re.search(r"[A-Z]", episode) and re.search(r"[/-]", episode), episode
        prefix, number = RT.prefixed_record(rng)
        assert re.fullmatch(r"[A-Z]{2}-", prefix) and number.isdigit()


def test_running_text_spans_leave_articles_and_roles_outside():
    rng = random.Random(4)
    lexicon = Lexicon.default()
    # a place whose own name opens with an article ("Las Palmas de Gran Canaria", drawn
    # from the lists) keeps it
    place_names = {*lexicon.towns, *(name for row in T.PROVINCES for name in (row[1], row[2], *row[5]))}
    for _ in range(200):
        case = draw_case(rng, lexicon)
        for phrase in (RT.short_hospital_sentence(case), RT.place_sentence(case), RT.school_sentence(case)):
            builder = NoteBuilder()
            builder.add(phrase)
            doc = builder.document("x")
            for text in spans(doc):
                if text in place_names:
                    continue
                assert not re.match(r"(el|la|los|las|del|un|una|su) ", text, flags=re.IGNORECASE), text
        builder = NoteBuilder().add(RT.staff_in_running_text(case, case.staff[0]))
        doc = builder.document("y")
        assert spans(doc) and all(not s.startswith(("Dr", "Dra")) for s in spans(doc, STAFF))
        assert [e.type for e in doc.entities] == [STAFF]


def test_employer_school_and_university_types():
    rng = random.Random(6)
    lexicon = Lexicon.default()
    seen: dict[str, set[str]] = {}
    for _ in range(300):
        case = draw_case(rng, lexicon)
        doc = NoteBuilder().add(RT.school_sentence(case)).document("s")
        for entity in doc.entities:
            seen.setdefault(entity.type, set()).add(doc.text[: entity.start].split()[0])
        if case.works:
            work = NoteBuilder().add(RT.work_sentence(case)).document("w")
            assert {e.type for e in work.entities} <= {"PROFESION", "OTROS_SUJETO_ASISTENCIA"}
    # the school where the patient works is the employer; where a child studies, an institution
    assert seen.keys() == {"OTROS_SUJETO_ASISTENCIA", "INSTITUCION"}
