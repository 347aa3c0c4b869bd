"""Ages stated as ages (``N meses de edad``, ``a la edad de N años``) and durations
that are never ages (``hace más de 30 años``): deid_crf.deid.recognizers.ages."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.ages import ages_after_patient_names, durations_not_ages, stated_ages
from deid_crf.deid.rules import RuleLayer
from deid_crf.text.spans import PHISpan

AGE = "EDAD_SUJETO_ASISTENCIA"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"
DATE = "FECHAS"


def spans_of(text: str, *named: tuple[str, str]) -> list[PHISpan]:
    """Model spans for the first occurrence of each ``(surface, type)``."""
    return sorted(PHISpan(text.index(s), text.index(s) + len(s), t) for s, t in named)


def shown(text: str, spans: list[PHISpan]) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.type) for s in spans]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Cuando fue vista a la edad de 6 meses, presentaba una masa.", [("6 meses", AGE)]),
        ("Asintomático hasta los dos meses de edad, cuando comenzó.", [("dos meses", AGE)]),
        ("En el último control el niño con 15 meses de edad presenta", [("15 meses", AGE)]),
        ("A la edad de diez años fue intervenido.", [("diez años", AGE)]),
        # a relative's age: a kinship word earlier in the sentence
        ("Tío materno fallecido a los 60 años de edad por nefropatía.", [("60 años", RELATIVE)]),
        ("Hermana de 55 años de edad con nefropatía.", [("55 años", RELATIVE)]),
        # ... but not across a sentence
        ("Vive con su hija. A los 18 años de edad fue operado.", [("18 años", AGE)]),
        # no unit, or a unit that is no age, or no "de edad": nothing
        ("Varón de 45 de edad.", []),
        ("Fiebre de 3 días de evolución.", []),
        ("a la edad ósea de 17 años", []),
    ],
)
def test_stated_ages_added(text: str, want: list[tuple[str, str]]):
    assert shown(text, stated_ages(text, [])) == want


def test_stated_age_left_to_a_span_that_covers_it():
    text = "Hermana de 55 años de edad con nefropatía."
    model = spans_of(text, ("Hermana de 55 años", RELATIVE))
    assert stated_ages(text, model) == model
    text = "Niño de 15 meses de edad."
    model = spans_of(text, ("15 meses", AGE))
    assert shown(text, stated_ages(text, model)) == [("15 meses", AGE)]


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        ("Billroth II hace más de 30 años, que se convierte", "30 años"),
        ("infección por VIH conocida desde hace 22 años, en tratamiento", "22 años"),
        ("fumador de un paquete al día durante los últimos 40 años, sin alergias", "40 años"),
        ("recuperación en un periodo de 6 años, así como", "6 años"),
        ("tiene una evolución de más de cinco años. Las pruebas", "cinco años"),
        ("TBC renal hace unos 20 años", "20 años"),
    ],
)
def test_durations_are_not_ages(text: str, surface: str):
    model = spans_of(text, (surface, AGE))
    assert durations_not_ages(text, model) == []


@pytest.mark.parametrize(
    ("text", "surface", "type_"),
    [
        ("Mujer de 21 años que consultó", "21 años", AGE),  # an age
        ("Varón de 64 años con infección", "64 años", AGE),
        ("diagnosticada hace 20 años", "20 años", DATE),  # another type is left alone
        ("su madre, fallecida hace 20 años", "madre", RELATIVE),
    ],
)
def test_other_spans_kept(text: str, surface: str, type_: str):
    model = spans_of(text, (surface, type_))
    assert durations_not_ages(text, model) == model


def test_rule_layer_applies_both():
    text = "Lactante que a los seis meses de edad ingresó. Operado hace 4 años."
    model = spans_of(text, ("4 años", AGE))
    assert shown(text, RuleLayer().apply(text, model)) == [("seis meses", AGE)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("paciente: antía piñeiro figueiras, 39 anos, tis PIFGAN851117011", [("39 anos", AGE)]),
        ("Juan Pérez Gil, 67 años, acude por disnea.", [("67 años", AGE)]),
        ("Juan Pérez Gil, 3 hijos.", []),  # no age unit
        ("Juan Pérez Gil, calle Mayor 67 años", []),  # not right after the name
    ],
)
def test_age_right_after_the_patients_name(text: str, want: list[tuple[str, str]]):
    name = text.split(":")[-1].split(",")[0].strip()
    spans = spans_of(text, (name, "NOMBRE_SUJETO_ASISTENCIA"))
    out = ages_after_patient_names(text, spans)
    assert [x for x in shown(text, out) if x[1] == AGE] == want
