"""Rules for what the guide splits dev–dev17 still missed at the stop after 32a024a: a listed
town after an address the model stopped short of, a district and its municipality after a
spaced dash, the Basque side ``eskuma``, a weekday heading a progress note's entry, and the
place of a letter's dateline."""

from __future__ import annotations

import pytest

from deid_crf.deid.rules import rule_layer
from deid_crf.text.spans import MODEL, PHISpan


def spans_of(text: str, model: list[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """The shipped rule layer's ``(surface, type)`` spans of ``text``, given the model's
    spans as ``(surface, type)`` pairs (each at its first occurrence)."""
    given = []
    for surface, type_ in model:
        start = text.index(surface)
        given.append(PHISpan(start, start + len(surface), type_, 0.9, MODEL))
    return [(text[s.start : s.end], s.type) for s in rule_layer("default").apply(text, sorted(given))]


# --------------------------------------------------------------- addresses


@pytest.mark.parametrize(
    ("text", "street", "town"),
    [
        (
            "Domicili: carrer de la Riera, 77, 3r 1a, Mataró        CAP: CAP La Riera",
            "carrer de la Riera, 77, 3r 1a",
            "Mataró",
        ),
        ("Domicilio: calle Mayor, 77, 3º B, Tudela\nTeléfono: 600 000 000", "calle Mayor, 77, 3º B", "Tudela"),
        ("Vive en c/ Real, 4, 28400 Collado Villalba.", "c/ Real, 4", "Collado Villalba"),
    ],
)
def test_a_listed_town_after_an_address_the_model_stopped_short_of(text, street, town):
    found = spans_of(text, [(street, "CALLE")])
    assert (street, "CALLE") in found
    assert (town, "TERRITORIO") in found


@pytest.mark.parametrize(
    "text",
    [
        "Domicilio: calle Mayor, 77, 3º B, Urbanización Los Pinos\n",  # a word of the address, not a listed town
        "Domicilio: calle Mayor, 77, Pérez y Cía.\n",
    ],
)
def test_an_unlisted_name_after_an_address_is_not_made_a_town(text):
    found = spans_of(text, [("calle Mayor, 77" + (", 3º B" if "3º" in text else ""), "CALLE")])
    assert [t for _, t in found] == ["CALLE"]


def test_a_listed_town_after_an_address_is_not_added_over_another_span():
    text = "Domicilio: calle Mayor, 77, Tudela (Navarra)"
    found = spans_of(text, [("calle Mayor, 77", "CALLE"), ("Tudela (Navarra)", "HOSPITAL")])
    assert ("Tudela", "TERRITORIO") not in found


def test_a_district_and_its_municipality_after_a_spaced_dash_are_two_places():
    text = "Domicilio: c/ Mayor, 36, 1º B, Roldán - Torre-Pacheco     Tlf.: 642 917 308"
    found = spans_of(text, [("c/ Mayor, 36, 1º B, Roldán - Torre-Pacheco", "CALLE")])
    assert ("c/ Mayor, 36, 1º B", "CALLE") in found
    assert ("Roldán", "TERRITORIO") in found
    assert ("Torre-Pacheco", "TERRITORIO") in found


def test_a_road_between_two_towns_stays_one_street():
    text = "Accidente en la Ctra. Torrevieja - San Miguel de Salinas, de madrugada."
    found = spans_of(text, [("Ctra. Torrevieja - San Miguel de Salinas", "CALLE")])
    assert found == [("Ctra. Torrevieja - San Miguel de Salinas", "CALLE")]


def test_the_basque_side_eskuma_belongs_to_the_street():
    text = "Helbidea: Kalebarria, 22, 2. eskuma, 48200 Durango"
    assert ("Kalebarria, 22, 2. eskuma", "CALLE") in spans_of(text, [("Kalebarria, 22, 2", "CALLE")])


# --------------------------------------------------------------- entry headings


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Dra. Irene Fonseca\n\nMiércoles\nMejor. Ya sabe que está en el hospital.", "Miércoles"),
        ("— Dr. A. Zabala\n\ndomingo — guardia\nLlamada por agitación nocturna.", "domingo"),
        ("Sin incidencias.\n\nsábado · M · Enf. Idaira\nALTA.", "sábado"),
        ("Sense incidències.\n\n  Dijous\nMillor.", "Dijous"),
    ],
)
def test_a_weekday_heading_an_entry_is_a_date(text, day):
    assert (day, "FECHAS") in spans_of(text)


@pytest.mark.parametrize(
    "text",
    [
        "Domingo García Pérez\nC/ Mayor, 3",  # a given name opening a line
        "Acude los martes y jueves.\nMartes y jueves: hemodiálisis.",
        "Revisión:\nlunes por la mañana, en ayunas.",
    ],
)
def test_a_weekday_in_a_line_that_goes_on_is_not_a_heading(text):
    assert not [s for s in spans_of(text) if s[1] == "FECHAS" and s[0].lower() in ("domingo", "martes", "lunes")]


# --------------------------------------------------------------- datelines


@pytest.mark.parametrize(
    ("text", "place", "date"),
    [
        (
            "Dudas: enfermera de enlace.\n\nPonferada, 21 de noviembre de 2026\n\nFdo.: Dra. C.",
            "Ponferada",
            "21 de noviembre de 2026",
        ),
        (
            "En Barbstro, a veintiséis de noviembre de dos mil veintiséis.",
            "Barbstro",
            "veintiséis de noviembre de dos mil veintiséis",
        ),
        ("A Girona, 3 de març de 2025", "Girona", "3 de març de 2025"),
        ("Firma:\nVillanueva de la Serena, 2 de enero de 2026", "Villanueva de la Serena", "2 de enero de 2026"),
    ],
)
def test_the_place_of_a_dateline_is_a_territory(text, place, date):
    found = spans_of(text)
    assert (date, "FECHAS") in found
    assert (place, "TERRITORIO") in found


@pytest.mark.parametrize(
    "text",
    [
        "Hoy, 21 de noviembre de 2026, acude a consulta.",  # a word clinical text writes in lower case
        "Intervenida el 3 de marzo de 2020. Ingreso, 21 de noviembre de 2026.",  # not at a line's start
        "Urgencias, 21 de noviembre de 2026",  # a service, not a place
    ],
)
def test_no_place_where_a_dateline_has_none(text):
    assert not [s for s in spans_of(text) if s[1] == "TERRITORIO"]
