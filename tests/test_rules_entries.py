"""Nursing and progress-note entries: the date that opens an entry, the writer's
signature that closes it, and the names the model cuts at a hyphen or a quote."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.dates import find_dates
from deid_crf.deid.recognizers.names import completed_names, nicknames_after_names
from deid_crf.deid.recognizers.signatures import entry_initials, entry_signatures
from deid_crf.text.spans import MODEL, PHISpan

STAFF = "NOMBRE_PERSONAL_SANITARIO"
PATIENT = "NOMBRE_SUJETO_ASISTENCIA"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"


def found_dates(text: str) -> list[str]:
    return [text[a:b] for a, b, _ in find_dates(text)]


def span(text: str, value: str, type_: str, start: int = 0) -> PHISpan:
    at = text.index(value, start)
    return PHISpan(at, at + len(value), type_, 0.9, MODEL)


def shown(text: str, spans) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.type) for s in spans]


@pytest.mark.parametrize(
    "text, want",
    [
        ("Ingreso.\n11/02 N — Duerme bien.", ["11/02"]),
        ("Ingreso.\n11/02 — Cura de la herida.", ["11/02"]),
        ("Ingreso.\n09/05 (domingo) — guardia", ["09/05", "domingo"]),
        ("Ingreso.\njue 21 — Afebril.", ["jue 21"]),
        ("Ingreso.\nlun 7-ene — Afebril.", ["lun 7-ene"]),
        ("Ingreso.\nmiér 4 feb — MAE\njuev. 5 — Afebril.", ["miér 4 feb", "juev. 5"]),
        # a weekday and a day/month, maybe a time between it and the dash
        (
            "Ingreso.\nDom 02/11 – JHS\nMar 04/11 09:15 – ESH\nviernes 28/11 — Trabajo Social",
            ["Dom 02/11", "Mar 04/11", "viernes 28/11"],
        ),
        ("Ingreso.\nMar 31/02 – imposible", []),
        # not an entry's date: a dose, a pressure, a weekday word without a dash after it
        ("Ingreso.\n1/2 comprimido cada 8 h.\n12/08 mmHg", []),
        ("Ingreso.\ndom 3 casas en la calle", []),
        ("Ingreso.\njue 45 — texto", []),
    ],
)
def test_dates_that_open_an_entry(text, want):
    assert found_dates(text) == want


@pytest.mark.parametrize(
    "text, model, want",
    [
        # a role before or after the name: staff wherever the bracket closes a line
        ("Se cambia el apósito. (Rosaura, enf.)\n", [("Rosaura", PATIENT)], [("Rosaura", STAFF)]),
        ("Sin incidencias. (aux. Telmo)\n", [], [("Telmo", STAFF)]),
        (
            "Cena completa. (TCAE Begoña Ruiz / enf. Abel)\n",
            [("TCAE Begoña Ruiz", PATIENT)],
            [("Begoña Ruiz", STAFF), ("Abel", STAFF)],
        ),
        # an initial and a surname, initials: only at the end of an entry
        ("12/05 T — Tranquilo. (M. Arrieta)\n", [], [("M. Arrieta", STAFF)]),
        ("Leído en la revista (M. Arrieta)\n", [], []),
        ("12/05 — (JLM)\nbien.\n", [], [("JLM", STAFF)]),
        ("12/05 — Alta (JLM)\n13/05 — Control (JLM)\n", [], [("JLM", STAFF), ("JLM", STAFF)]),
        (
            "12/05 — Alta (JLM, R3; busca 4410)\n",
            [("4410", "NUMERO_TELEFONO")],
            [("JLM", STAFF), ("4410", "NUMERO_TELEFONO")],
        ),
        # a clinical acronym closing one entry's sentence is nobody
        ("12/05 — Se pauta inhalador (EPOC)\n13/05 — Mejor.\n", [], []),
        # a name alone: staff when it signs with a role elsewhere
        (
            "12/05 M — Bien. (Rosaura, enf.)\n13/05 T — Bien. (Rosaura)\n",
            [("Rosaura", RELATIVE, 40)],
            [("Rosaura", STAFF), ("Rosaura", STAFF)],
        ),
        ("12/05 M — Bien.\n13/05 T — Visita de la hija (Rosaura)\n", [("Rosaura", RELATIVE)], [("Rosaura", RELATIVE)]),
        # a model span running out of the bracket is left alone
        ("Vive con su hija (Rosaura, enf.)\n", [("hija (Rosaura", RELATIVE)], [("hija (Rosaura", RELATIVE)]),
    ],
)
def test_entry_signatures(text, model, want):
    spans = [span(text, value, type_, *rest) for value, type_, *rest in model]
    assert shown(text, entry_signatures(text, spans)) == want


def test_completed_names_are_joined_and_completed():
    text = "Nombre: Hans-Peter Vogel. dr. tomás gil ruiz-zorrilla — firma"
    spans = [
        span(text, "Hans", PATIENT),
        span(text, "Peter Vogel", PATIENT),
        span(text, "tomás gil ruiz", STAFF),
    ]
    assert shown(text, completed_names(text, spans)) == [
        ("Hans-Peter Vogel", PATIENT),
        ("tomás gil ruiz-zorrilla", STAFF),
    ]


def test_hyphen_joins_only_names_of_one_type_and_words():
    text = "Ana-Madrid; Luis Gil-3; póliza AB-77-XY"
    spans = [
        span(text, "Ana", PATIENT),
        span(text, "Madrid", "TERRITORIO"),
        span(text, "Luis Gil", PATIENT),
        span(text, "póliza AB-77", PATIENT),
    ]
    assert shown(text, completed_names(text, spans)) == [
        ("Ana", PATIENT),
        ("Madrid", "TERRITORIO"),
        ("Luis Gil", PATIENT),
        ("póliza AB-77", PATIENT),
    ]


def test_nickname_with_its_article_and_over_the_models_span():
    text = 'Paciente: Eusebio Prado ("el Chebi"); vecina Rosa Gil ("Rosi")'
    spans = [
        span(text, "Eusebio Prado", PATIENT),
        span(text, "Rosa Gil", RELATIVE),
        span(text, 'Rosi"', PATIENT),
    ]
    assert shown(text, nicknames_after_names(text, spans)) == [
        ("Eusebio Prado", PATIENT),
        ("Chebi", PATIENT),
        ("Rosa Gil", RELATIVE),
        ("Rosi", RELATIVE),
    ]


@pytest.mark.parametrize(
    "text, want",
    [
        ("Firmado: Bilbao, 2024ko urriaren 14a\n", ["2024ko urriaren 14a"]),
        ("Eguna: 2025eko apirilaren 8an, asteartea — martes", ["2025eko apirilaren 8an, asteartea"]),
        ("Gertatu zen 2023ko martxoaren 40an", []),  # no such day
    ],
)
def test_basque_dates(text, want):
    assert found_dates(text) == want


def test_basque_and_galician_addresses():
    from deid_crf.deid.recognizers.streets import find_streets

    text = "Sede: Zubiaurre doktorearen kalea, 18\nVive en Lugar de Outeiro de Arriba, 7, parroquia de X"
    assert sorted(text[a:b] for a, b, _ in find_streets(text)) == [
        "Lugar de Outeiro de Arriba, 7",
        "Zubiaurre doktorearen kalea, 18",
    ]
    # "en lugar de" is a phrase, not an address
    assert list(find_streets("en lugar de Ibuprofeno 600, tomar")) == []


@pytest.mark.parametrize(
    "text, want",
    [
        ("con el apoyo de los CEAS de Ponferrada.", ["CEAS de Ponferrada"]),
        ("comunicado al EAIA del Segrià.", ["EAIA del Segrià"]),
        # a head written as a word in capitals still needs a name in capitals
        ("CONSEJO DE Salud", []),
    ],
)
def test_bodies_with_an_acronym_head(text, want):
    from deid_crf.deid.recognizers.institutions import find_organisations

    assert [text[a:b] for a, b, _ in find_organisations(text)] == want


def test_initials_that_close_two_entry_lines_or_more_are_staff():
    text = (
        "Sáb 01/11 – Dr. Hernández\nIngreso.\n\nDom 02/11 – JHS\nMejor.\n\nMar 04/11 09:15 – ESH\nEstable.\n\n"
        "Miércoles 5 – ESH\nDelirium.\n\nJueves 6 de noviembre de 2025 – ESH\nAlta.\n\n12/03 – TAC\n"
    )
    assert shown(text, entry_initials(text, [])) == [("ESH", STAFF)] * 3  # JHS and TAC close one entry each
    abbreviated = "miér 4 feb — MAE\nDespierta.\n\nvie 06/02/2026 — MAE\nAlta a planta.\n"
    assert shown(abbreviated, entry_initials(abbreviated, [])) == [("MAE", STAFF)] * 2
    # a span already over them is left as it is
    model = [span(text, "ESH", PATIENT)]
    assert shown(text, entry_initials(text, model))[0] == ("ESH", PATIENT)
