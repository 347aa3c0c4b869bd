"""Hospitals named by their acronym alone: deid_crf.deid.recognizers.hospital_acronyms."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.hospital_acronyms import find_hospital_acronyms, find_hospital_kinds
from deid_crf.deid.rules import RuleLayer


def found(text: str) -> list[str]:
    return [text[a:b] for a, b, _ in find_hospital_acronyms(text)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("se deriva a urgencias del HUT en ambulancia", ["HUT"]),
        ("Para: Medicina Interna HUG\nAsunto: derivación", ["HUG"]),
        ("traslado a hemodinámica del CHUA (Complejo Hospitalario)", ["CHUA"]),
        ("tratada en el HULA en xaneiro", ["HULA"]),
        ("CC: Consulta Neuromuscular H12O <neuro@example.org>", ["H12O"]),
        # water, a syndrome, words and names of that shape: no hospital
        ("PEEP de 6 cm H2O y 30 cm H2O", []),
        ("síndrome HUS atípico", []),
        ("Vive con su hijo HUGO.", []),
        # a line of capitals: any word there is capitalised
        ("PACIENTE: HUERTAS LÓPEZ, ANA", []),
        ("HU SON ESPASES — MEDICINA INTERNA", []),
        # part of a longer code or word
        ("muestra HUCA-2024/33 y ref. X/HUCA", []),
        ("HUCAS", ["HUCAS"]),  # four letters after HU: still an acronym's shape
    ],
)
def test_hospital_acronyms(text: str, want: list[str]):
    assert found(text) == want


def test_rule_layer_types_the_acronym_as_a_hospital():
    text = "Se deriva a urgencias del HUT en ambulancia."
    assert [(text[s.start : s.end], s.type) for s in RuleLayer().apply(text, [])] == [("HUT", "HOSPITAL")]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Adjunto informes del Regional y del Clínico (Virgen de la Victoria).", ["Regional", "Clínico"]),
        ("Se traslada al Provincial; luego, en el Comarcal.", ["Provincial", "Comarcal"]),
        # part of a longer name, lower case, or the word Hospital before it
        ("vive en la Ronda del General Mitre; del General de Alicante", []),
        ("estado general conservado; ensayo clínico; Hospital Clínico", []),
    ],
)
def test_hospitals_named_by_their_kind(text: str, want: list[str]):
    assert [text[a:b] for a, b, _ in find_hospital_kinds(text)] == want
