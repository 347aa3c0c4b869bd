"""Rules for what the guide splits dev–dev8 still missed together: a body named with its
town (``Instituto de Medicina Legal de Murcia``), an employer named right after work
(``repartidor para Glovo``), kinship words after Catalan and Galician articles (``els
néts``, ``l'esposa``, ``a muller``) and a staff member's initials where a signature stands."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.institutions import find_organisations
from deid_crf.deid.recognizers.relatives import relatives
from deid_crf.deid.recognizers.signatures import staff_initials
from deid_crf.deid.recognizers.work import employers_named_after_work
from deid_crf.deid.rules import rule_layer
from deid_crf.text.spans import MODEL, PHISpan

STAFF = "NOMBRE_PERSONAL_SANITARIO"
EMPLOYER = "OTROS_SUJETO_ASISTENCIA"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"


def span(text: str, value: str, type_: str) -> PHISpan:
    at = text.index(value)
    return PHISpan(at, at + len(value), type_, 0.9, MODEL)


def shown(text: str, spans) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.type) for s in spans]


@pytest.mark.parametrize(
    "text, want",
    [
        (
            "le hacemos el informe que pide el Tribunal Médico Militar de Zaragoza esta semana.",
            ["Tribunal Médico Militar de Zaragoza"],
        ),
        ("Con copia al Instituto de Medicina Legal de Murcia\n", ["Instituto de Medicina Legal de Murcia"]),
        ("Servicio Aragonés de Salud — Sector Zaragoza II\n", ["Sector Zaragoza II"]),
        ("Estibador de la Autoridad Portuaria de Ceuta. HTA.", ["Autoridad Portuaria de Ceuta"]),
        # another body right after the head is not a name for it (MEDDOCAN train writes two
        # spans; the model's stay)
        ("Instituto de Medicina Legal Ciudad de la Justicia. Avenida", []),
        # a head in lower case names no one
        ("lo valorará el tribunal médico", []),
    ],
)
def test_bodies_named_with_their_town_are_one_span(text, want):
    assert [text[a:b] for a, b, _ in find_organisations(text)] == want


@pytest.mark.parametrize(
    "text, spans, want",
    [
        ("Trabaja como repartidor para Glovo desde el verano de 2023.", [], [("Glovo", EMPLOYER)]),
        ("Maquinista jubilado de RENFE.\n", [], [("RENFE", EMPLOYER)]),
        ("trabajó treinta años para Rolls-Royce en Derby", [], [("Rolls-Royce", EMPLOYER)]),
        (
            "El padre, informático en Porcelanosa, ya lo ha solucionado.",
            [("informático", "PROFESION")],
            [("informático", "PROFESION"), ("Porcelanosa", EMPLOYER)],
        ),
        # a place, a hospital's service and a health centre are not employers
        ("Trabaja en Francia desde 2019.", [], []),
        ("trabaja en Urgencias del hospital", [], []),
        ("trabaja en Centro de Salud Delicias", [], []),
        # a span already there is left to employers_after_jobs
        ("trabaja para Glovo", [("Glovo", "TERRITORIO")], [("Glovo", "TERRITORIO")]),
        # no cue: a capital after "en" is not an employer
        ("Vive en Alcañiz con su hija.", [], []),
    ],
)
def test_an_employer_named_right_after_work(text, spans, want):
    given = sorted(span(text, value, type_) for value, type_ in spans)
    assert shown(text, employers_named_after_work(text, given)) == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("És Sant Josep i han vingut els néts; el pacient està tranquil.", ["néts"]),
        ("revisió de l'esposa al CAP abans de Setmana Santa", ["esposa"]),
        ("inquietude nocturna; a muller di que fala cos mortos", ["muller"]),
        # "muller" with no article before it, and a name Muller, are not a wife
        ("Paciente: Hans Muller, 60 años", []),
    ],
)
def test_kinship_words_after_catalan_and_galician_articles(text, want):
    assert [text[s.start : s.end] for s in relatives(text, []) if s.type == RELATIVE] == want


HUGO = "Dr. Hugo Leganés Prieto"


@pytest.mark.parametrize(
    "text, want",
    [
        # alone on the line that closes an entry, and in the legend of signatures
        (f"{HUGO}, geriatra.\nPido valoración.\nHLP\n\nLeyenda: HLP = Hugo Leganés Prieto\n", ["HLP", "HLP"]),
        # after "por", two people checking
        (f"Cirujano: {HUGO}; instrumentista Carla Gil.\nRecuento correcto (comprobado por HL y CG).\n", ["HL", "CG"]),
        # the same capitals as a clinical acronym in running text are not the person
        ("Dr. Pedro Castro Ruiz. PCR de 12 mg/dl, PCR elevada.\nPCR: 40\n", []),
        # initials of nobody named in the note
        (f"{HUGO}\nABC\n", []),
    ],
)
def test_staff_initials_where_a_signature_stands(text, want):
    names = [span(text, n, STAFF) for n in ("Hugo Leganés Prieto", "Carla Gil", "Pedro Castro Ruiz") if n in text]
    out = staff_initials(text, sorted(names))
    assert [text[s.start : s.end] for s in out if s not in names] == want


def test_the_rule_layer_runs_the_new_steps():
    text = "Trabaja como repartidor para Glovo desde 2023. Vive con els néts.\n"
    found = {(text[s.start : s.end], s.type) for s in rule_layer("default").apply(text, [])}
    assert ("Glovo", EMPLOYER) in found and ("néts", RELATIVE) in found


def test_a_legend_of_signatures_makes_its_names_and_initials_staff():
    from deid_crf.deid.recognizers.signatures import signature_legends

    text = "Enfermeras: AZ = Amaia Zubizarreta; NL = Nerea Lasa\nHija: Ana Ruiz = 600 000 000\n"
    model = [span(text, "Amaia Zubizarreta", "FAMILIARES_SUJETO_ASISTENCIA")]
    out = shown(text, signature_legends(text, model))
    assert out == [("AZ", STAFF), ("Amaia Zubizarreta", STAFF), ("NL", STAFF), ("Nerea Lasa", STAFF)]


def test_a_person_before_an_employee_number_is_staff():
    from deid_crf.deid.recognizers.labelled_ids import staff_before_their_numbers

    text = "Enf. triaje: Rocío Navarrete Gil (n.º emp. 71904)\nVive con su hija Ana (DNI 12345678Z)."
    model = [
        span(text, "Rocío Navarrete Gil", "FAMILIARES_SUJETO_ASISTENCIA"),
        span(text, "71904", "ID_EMPLEO_PERSONAL_SANITARIO"),
        span(text, "hija Ana", "FAMILIARES_SUJETO_ASISTENCIA"),
        span(text, "12345678Z", "ID_SUJETO_ASISTENCIA"),
    ]
    types = [s.type for s in staff_before_their_numbers(text, sorted(model))]
    assert types == [STAFF, "ID_EMPLEO_PERSONAL_SANITARIO", "FAMILIARES_SUJETO_ASISTENCIA", "ID_SUJETO_ASISTENCIA"]
