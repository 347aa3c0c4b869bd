"""The synthetic-note generator: determinism, exact and token-aligned spans, BRAT round
trip, coverage of the MEDDOCAN types and the note formats, name variety, untagged
look-alikes, and generation with and without the built gazetteer lists."""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import date

import phonenumbers
import pytest
from stdnum.es import dni as stdnum_dni
from stdnum.es import nie as stdnum_nie

from deid_crf.augment import tables, values
from deid_crf.augment.builder import NoteBuilder, Span, recase
from deid_crf.augment.formats import FORMATS
from deid_crf.augment.synthetic import format_of, generate_note, generate_notes, main
from deid_crf.augment.values import Lexicon
from deid_crf.deid.rules import nass_is_valid
from deid_crf.io.brat import format_ann, parse_ann, read_brat_dir
from deid_crf.io.markup import MEDDOCAN_TYPES
from deid_crf.text.document import Document
from deid_crf.text.tokenizer import Tokenizer

N_NOTES = 300
SEED = 11
# Types a few hundred notes may lack: biometric identifiers are rare by design, as in
# real notes (a fingerprint code in some consent forms and admission sheets).
RARE_TYPES = frozenset({"IDENTIF_BIOMETRICOS"})
PATIENT = "NOMBRE_SUJETO_ASISTENCIA"


@pytest.fixture(scope="module")
def notes() -> list[Document]:
    return generate_notes(N_NOTES, SEED)


@pytest.fixture(scope="module")
def faker_lexicon(tmp_path_factory) -> Lexicon:
    """A lexicon read from a directory without built lists: Faker's lists only."""
    return Lexicon.from_directory(tmp_path_factory.mktemp("no-lists"))


def spans_of(doc: Document, type_: str | None = None) -> list[str]:
    return [doc.text[e.start : e.end] for e in doc.entities if type_ is None or e.type == type_]


def assert_well_formed(docs: list[Document]) -> None:
    """Offsets inside the text, spans sorted and disjoint, no outer whitespace, no line
    break inside, known types, and boundaries on the project tokenizer's tokens."""
    table = Tokenizer()([d.text for d in docs])
    for i, doc in enumerate(docs):
        first, last = table.doc_bounds[i]
        starts, ends = set(table.start[first:last].tolist()), set(table.end[first:last].tolist())
        previous_end = 0
        for entity in doc.entities:
            surface = doc.text[entity.start : entity.end]
            assert 0 <= entity.start < entity.end <= len(doc.text), doc.doc_id
            assert entity.start >= previous_end, f"{doc.doc_id}: overlapping or unsorted spans"
            previous_end = entity.end
            assert surface == surface.strip(), f"{doc.doc_id}: whitespace at a span edge"
            assert "\n" not in surface and "\r" not in surface, f"{doc.doc_id}: line break in a span"
            assert entity.type in MEDDOCAN_TYPES, entity.type
            assert entity.start in starts and entity.end in ends, f"{doc.doc_id}: {entity.type} off token boundaries"


# ----------------------------------------------------------------------------- determinism


def test_same_seed_same_notes_other_seed_other_notes():
    first, again = generate_notes(25, 3), generate_notes(25, 3)
    assert first == again
    other = generate_notes(25, 4)
    assert [d.text for d in other] != [d.text for d in first]


def test_a_note_does_not_depend_on_how_many_are_asked_for():
    assert generate_notes(8, 5) == generate_notes(20, 5)[:8]


def test_document_ids_name_seed_and_index(notes):
    assert [d.doc_id for d in notes[:3]] == [f"synthetic-{SEED}-0000{i}" for i in range(3)]
    assert len({d.doc_id for d in notes}) == len(notes)


def test_negative_n_is_refused():
    with pytest.raises(ValueError):
        generate_notes(-1, 0)


# ----------------------------------------------------------------------------- spans


def test_spans_are_exact_disjoint_and_token_aligned(notes):
    assert_well_formed(notes)


@pytest.mark.parametrize("format_name", sorted(FORMATS))
def test_every_format_writes_well_formed_notes(format_name):
    docs = [generate_note(99, i, format_name=format_name) for i in range(15)]
    assert_well_formed(docs)
    assert all(doc.entities for doc in docs), f"{format_name} wrote a note without PHI"


def test_brat_round_trip(notes, tmp_path):
    for doc in notes[:60]:
        assert parse_ann(format_ann(doc.entities, doc.text), doc.text, doc.doc_id) == sorted(doc.entities)
    main(["--n", "12", "--seed", str(SEED), str(tmp_path)])
    read = read_brat_dir(tmp_path)
    assert [(d.doc_id, d.text, d.entities) for d in read] == [
        (d.doc_id, d.text, sorted(d.entities)) for d in notes[:12]
    ]


def test_no_note_is_without_phi_and_lengths_vary(notes):
    assert all(doc.entities for doc in notes)
    lengths = Tokenizer()([d.text for d in notes]).doc_bounds
    tokens = sorted(int(b - a) for a, b in lengths)
    assert tokens[len(tokens) // 10] >= 60 and tokens[-1] >= 300, "notes should range from short to long"


def test_builder_keeps_offsets_through_case_changes():
    builder = NoteBuilder().add("Paciente: ", Span("Anna Weiß", PATIENT), "\n")
    builder.recase_all("upper")
    doc = builder.document("x")
    (entity,) = doc.entities
    # "ß" would become "SS": a surface whose length would change keeps its case.
    assert doc.text[entity.start : entity.end] == "Anna Weiß"
    assert doc.text.startswith("PACIENTE: ")
    with pytest.raises(ValueError):
        NoteBuilder().add(Span(" Ana", PATIENT))
    assert recase(("a", Span("b", PATIENT)), "upper") == ("A", Span("B", PATIENT))


# ----------------------------------------------------------------------------- coverage


def test_every_meddocan_type_appears(notes):
    seen = {e.type for doc in notes for e in doc.entities}
    assert MEDDOCAN_TYPES - seen <= RARE_TYPES, sorted(MEDDOCAN_TYPES - seen - RARE_TYPES)


def test_every_format_appears():
    drawn = Counter(format_of(SEED, i) for i in range(N_NOTES))
    assert set(drawn) == set(FORMATS)


def test_names_come_in_many_written_forms(notes):
    names = [s for doc in notes for s in spans_of(doc, PATIENT)]
    letters = [n for n in names if sum(c.isalpha() for c in n) > 3]
    assert any(n.isupper() for n in letters), "no ALL-CAPS name"
    assert any(n.islower() for n in letters), "no lower-case name"
    assert any(re.search(r"\b(de|del|de la|de los|y|i)\b", n) for n in names), "no name with a particle"
    assert any(re.fullmatch(r"(?:[A-ZÁÉÍÓÚÑ]\. ?)+\S.*", n) for n in names), "no initials"
    surname_first = 0
    for doc in notes:
        patients = [e for e in doc.entities if e.type == PATIENT]
        for left, right in zip(patients, patients[1:], strict=False):
            if doc.text[left.end : right.start].strip() == ",":
                surname_first += 1
    assert surname_first > 10, "no 'SURNAMES, Given' names"


def test_titles_stay_outside_name_spans(notes):
    title = re.compile(r"^(dr|dra|sr|sra|d|dña|dª|don|doña)\b\.?", re.IGNORECASE)
    for doc in notes:
        for type_ in (PATIENT, "NOMBRE_PERSONAL_SANITARIO"):
            for name in spans_of(doc, type_):
                assert not title.match(name) or name.split()[0].rstrip(".") not in ("Dr", "Dra", "Sr", "Sra", "Dña"), (
                    name
                )


def test_dates_hold_no_time_and_ages_no_filler(notes):
    for doc in notes:
        assert not any(re.search(r"\d:\d\d", s) for s in spans_of(doc, "FECHAS"))
        assert not any("edad" in s.lower() for s in spans_of(doc, "EDAD_SUJETO_ASISTENCIA"))


def test_relatives_take_kinship_words_with_their_names(notes):
    relatives = [s for doc in notes for s in spans_of(doc, "FAMILIARES_SUJETO_ASISTENCIA")]
    kin = {"madre", "padre", "hija", "hijo", "hermana", "hermano", "esposa", "marido", "tía", "tío", "nieta", "nieto"}
    assert any(s.split()[0].lower() in kin and len(s.split()) > 1 and s.split()[1][:1].isupper() for s in relatives)
    assert any(re.fullmatch(r"\d+ años", s) for s in relatives), "no relative's age on its own"


def test_look_alikes_appear_untagged(notes):
    phrases = [*tables.EPONYMS, *tables.SCALES, *tables.SIGNS, "Gleason"]
    eponyms = re.compile("|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True)))
    found = 0
    for doc in notes:
        for match in eponyms.finditer(doc.text):
            found += 1
            assert not any(e.start < match.end() and match.start() < e.end for e in doc.entities), match.group()
    assert found > 20
    text = "\n".join(doc.text for doc in notes)
    assert re.search(r"\d+ años de evolución", text)
    assert re.search(r"Servicio de [A-Z]", text)
    assert re.search(r"\b\d\d:\d\d\b", text)


# ----------------------------------------------------------------------------- lexicon


def test_generation_without_built_lists(faker_lexicon, monkeypatch, tmp_path):
    assert faker_lexicon.source == "faker"
    docs = generate_notes(60, 2, lexicon=faker_lexicon)
    assert_well_formed(docs)
    assert all(doc.entities for doc in docs)
    import deid_crf.resources.gazetteer as gazetteer

    monkeypatch.setattr(gazetteer, "DEFAULT_DIR", tmp_path)
    assert Lexicon.from_directory().source == "faker"


def test_generation_with_built_lists():
    lexicon = Lexicon.from_directory()
    if lexicon.source != "gazetteers":
        pytest.skip("gazetteer lists not built (make gazetteers)")
    assert set(lexicon.first_names) >= {"top100", "top1k"}
    docs = generate_notes(40, 9, lexicon=lexicon)
    assert_well_formed(docs)


def test_listed_names_get_their_accents_and_case():
    lexicon = Lexicon.from_directory()
    assert lexicon.spelled("MARIA DEL CARMEN") == "María del Carmen"
    assert lexicon.spelled("DE LA FUENTE") == "de la Fuente"
    assert lexicon.spelled("BENITEZ") == "Benítez"
    assert lexicon.spelled("VELAZQUEZ") == "Velázquez"
    assert lexicon.spelled("GARCIA-LOPEZ") == "García-López"
    assert lexicon.is_female("María José") and not lexicon.is_female("José María")


# ----------------------------------------------------------------------------- values


def test_identifiers_carry_valid_check_characters():
    rng = random.Random(1)
    for _ in range(200):
        assert stdnum_dni.is_valid(values.dni_text(rng).replace(".", ""))
        assert stdnum_nie.is_valid(values.nie_text(rng))
        code = rng.choice(tables.PROVINCES)[0]
        assert nass_is_valid(re.sub(r"\D", "", values.nass_text(rng, code)))


def test_phone_numbers_are_valid():
    rng = random.Random(2)
    for _ in range(100):
        text = values.phone_text(rng, mobile=rng.random() < 0.5).split(" ext")[0].split(" Ext")[0]
        digits = re.sub(r"\D", "", text).removeprefix("0034")
        number = phonenumbers.parse(digits[-9:], "ES")
        assert phonenumbers.is_valid_number(number), text
        foreign = values.foreign_phone_text(rng)
        foreign = "+" + foreign[2:] if foreign.startswith("00") else foreign
        assert phonenumbers.is_valid_number(phonenumbers.parse(foreign)), foreign


def test_postal_codes_start_with_the_province_code():
    rng, lexicon = random.Random(3), Lexicon.default()
    for _ in range(100):
        place = values.place(rng, lexicon)
        assert re.fullmatch(r"\d{5}", place.postal_code) and place.postal_code[:2] == place.code


def test_dates_in_every_written_form():
    rng, day = random.Random(4), date(2020, 3, 3)
    forms = {style: values.date_text(rng, day, style) for style, _ in values.DATE_STYLES}
    assert forms["dd/mm/yyyy"] == "03/03/2020"
    assert forms["long"] == "3 de marzo de 2020"
    assert forms["roman"] == "3-III-2020"
    assert forms["iso"] == "2020-03-03"
    assert forms["weekday_long"] == "martes 3 de marzo"
    assert forms["catalan"] == "3 de març de 2020"


def test_ages_below_two_years_count_months_or_days():
    rng = random.Random(5)
    assert values.age_text(rng, 0, 0, 10).endswith(("días", "día"))
    assert values.age_text(rng, 1, 3).endswith("meses")
    assert values.age_between(date(2000, 5, 10), date(2020, 5, 9))[0] == 19
