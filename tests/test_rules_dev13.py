"""Rules for forms the guide splits' misses showed at the stop dev13 was written: dates that
belong to a law, a classification or a tumour code, a relative's age at an event in Galician
and Catalan or on the next line of a wrapped sentence, a DNI's letter after a hyphen, a
Catalan body's name over an elided ``d'``/``l'``, listed bodies in a note written in
lower case, a town in lower case after an address, a foreign title taken for a name, a
nursing shift's letter taken for the patient's sex, and a terse note's health centre and
patient line (age and sex fields) in lower case."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.addresses import street_tails
from deid_crf.deid.recognizers.ages import find_labelled_ages
from deid_crf.deid.recognizers.dates import dates_with_their_year, find_dates
from deid_crf.deid.recognizers.institutions import (
    areas_with_their_place,
    find_health_centres,
    find_institutions,
    names_over_elisions,
)
from deid_crf.deid.recognizers.labelled_ids import labels_cut_from_ids
from deid_crf.deid.recognizers.names import without_titles
from deid_crf.deid.recognizers.non_entities import is_reference_date, is_shift_letter
from deid_crf.deid.recognizers.postcodes import find_postcodes
from deid_crf.deid.recognizers.relatives import relatives
from deid_crf.deid.recognizers.sex import sexes_after_ages
from deid_crf.deid.recognizers.work import find_professions
from deid_crf.deid.rules import rule_layer
from deid_crf.text.spans import MODEL, PHISpan


def span(text: str, part: str, kind: str, nth: int = 0) -> PHISpan:
    start = -1
    for _ in range(nth + 1):
        start = text.index(part, start + 1)
    return PHISpan(start, start + len(part), kind, 0.9, MODEL)


def shown(text: str, spans: list[PHISpan]) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.type) for s in spans]


@pytest.mark.parametrize(
    "text, date",
    [
        ("según la Ley 41/2002, de 14 de noviembre, de autonomía del paciente", "14 de noviembre"),
        ("Puedo revocarla (Ley 14/2007, de 3 de julio).", "3 de julio"),
        ("artritis reumatoide (criterios ACR/EULAR 2010: 9/10)", "2010"),
        ("Colangitis aguda grado II (criterios de Tokio 2018) por coledocolitiasis", "Tokio 2018"),
        ("CUMPLE CRITERIOS DE TOKIO 2018", "2018"),
        ("clasificación ILAE 2022", "2022"),
        ("SIGUE LAS RECOMENDACIONES ISUP 2019.", "2019"),
        ("PAAF Bethesda V (sistema Bethesda 2023)", "2023"),
        ("Codificació: CIE-O 8380/3 · SNOMED T83000", "8380/3"),
    ],
)
def test_dates_of_a_reference_are_no_phi(text, date):
    assert is_reference_date(text, span(text, date, "FECHAS"))
    assert date not in [text[s.start : s.end] for s in rule_layer("default").apply(text, [span(text, date, "FECHAS")])]


@pytest.mark.parametrize(
    "text, date",
    [
        ("Ingresó el 14 de noviembre de 2002 por disnea.", "14 de noviembre de 2002"),
        ("Fractura de cadera en 2018; criterios de ingreso cumplidos.", "2018"),
        ("IAM en 2015, revascularizado.", "2015"),
        ("Cirugía el 3 de julio (Hospital de Mérida).", "3 de julio"),
        # the cue must stand right before the year, with at most two names between
        ("Sistema de citas del centro de salud y de la consulta de enfermería: revisión en 2026", "2026"),
    ],
)
def test_dates_of_the_patient_stay(text, date):
    assert not is_reference_date(text, span(text, date, "FECHAS"))
    assert not is_reference_date(text, span(text, date, "EDAD_SUJETO_ASISTENCIA"))


@pytest.mark.parametrize(
    "text, kin, age",
    [
        ("A nai tivo bocio, operada aos 50. Non fuma.", "nai", "50"),
        ("Pare mort per càncer de còlon als 64 anys. Estudi d'extensió.", "Pare", "64 anys"),
        ("madre fallecida a los 62 años; hermano\nintervenido de cáncer de colon a los 49. Sospecha", "hermano", "49"),
    ],
)
def test_a_relative_s_age_at_an_event(text, kin, age):
    out = shown(text, relatives(text, [span(text, kin, "FAMILIARES_SUJETO_ASISTENCIA")]))
    assert (age, "FAMILIARES_SUJETO_ASISTENCIA") in out


def test_a_new_line_in_capitals_ends_the_relative_s_sentence():
    text = "Antecedentes: hermano con asma\nIntervenido a los 49. Sin alergias."
    out = shown(text, relatives(text, [span(text, "hermano", "FAMILIARES_SUJETO_ASISTENCIA")]))
    assert ("49", "FAMILIARES_SUJETO_ASISTENCIA") not in out


@pytest.mark.parametrize(
    "text, model, want",
    [
        ("| DNI / NASS | 45318872-H / 52 10072231 48 |", "45318872", "45318872-H"),
        ("DNI 4.531.887-X del acompañante", "4.531.887", "4.531.887-X"),
        # a code goes on: no DNI letter, but the whole code (ids_with_their_letters)
        ("lote 45318872-HB", "45318872", "45318872-HB"),
        ("episodio 45318872-2", "45318872", "45318872"),
    ],
)
def test_a_dni_s_letter_after_a_hyphen_joins_the_span(text, model, want):
    out = rule_layer("default").apply(text, [span(text, model, "ID_SUJETO_ASISTENCIA")])
    assert want in [text[s.start : s.end] for s in out if s.type == "ID_SUJETO_ASISTENCIA"]


@pytest.mark.parametrize(
    "text, model, want",
    [
        (
            "Reumatología – Hospital General Universitari d'Elx – ext. 4471",
            [("Hospital General Universitari d'", "HOSPITAL"), ("Elx", "CENTRO_SALUD")],
            [("Hospital General Universitari d'Elx", "HOSPITAL")],
        ),
        (
            "Conselleria de Sanitat · Departament de Salut d'Alcoi\nCentre de Salut",
            [("Departament de Salut", "INSTITUCION"), ("d'Alcoi", "INSTITUCION")],
            [("Departament de Salut d'Alcoi", "INSTITUCION")],
        ),
        (
            "Gerència Territorial de Terres de l'Ebre · Institut Català de la Salut",
            [("Gerència Territorial de Terres", "INSTITUCION"), ("Institut Català de la Salut", "INSTITUCION")],
            [
                ("Gerència Territorial de Terres de l'Ebre", "INSTITUCION"),
                ("Institut Català de la Salut", "INSTITUCION"),
            ],
        ),
        (  # a line end stops it; a person's or a place's span does not take it
            "Departament de Salut\nd'Alcoi; la filla d'Amparo viu a Alcoi d'Amunt",
            [("Departament de Salut", "INSTITUCION"), ("Amparo", "FAMILIARES_SUJETO_ASISTENCIA")],
            [("Departament de Salut", "INSTITUCION"), ("Amparo", "FAMILIARES_SUJETO_ASISTENCIA")],
        ),
    ],
)
def test_a_catalan_name_goes_on_over_an_elision(text, model, want):
    spans = sorted(span(text, part, kind) for part, kind in model)
    assert shown(text, names_over_elisions(text, spans)) == want


def test_a_span_that_crosses_the_new_end_stops_the_run_on():
    text = "Departament de Salut d'Elx-Hospital General"
    spans = [span(text, "Departament de Salut", "INSTITUCION"), span(text, "Elx-Hospital General", "HOSPITAL")]
    assert names_over_elisions(text, spans) == spans


@pytest.mark.parametrize(
    "text, street, want",
    [
        (
            "vive con su hija en c/ Coso Alto, 47, 2.º, Huesca, en invierno",
            "c/ Coso Alto, 47, 2.º, Huesca,",
            [("c/ Coso Alto, 47, 2.º", "CALLE"), ("Huesca", "TERRITORIO")],
        ),
        (
            "dom: c/ carrera, 22, 2º izda, arnedo · tlf 642 118 470",
            "c/ carrera, 22, 2º izda, arnedo",
            [("c/ carrera, 22, 2º izda, arnedo", "CALLE")],  # a note in ordinary case: left alone
        ),
    ],
)
def test_a_town_after_an_address_is_cut_off(text, street, want):
    assert shown(text, street_tails(text, [span(text, street, "CALLE")])) == want


def test_a_listed_town_in_lower_case_after_an_address_in_a_note_written_so():
    text = LOWER_CASE_NOTE + "dom: c/ carrera, 22, 2º izda, arnedo · tlf 642 118 470\n"
    out = shown(text, street_tails(text, [span(text, "c/ carrera, 22, 2º izda, arnedo", "CALLE")]))
    assert out == [("c/ carrera, 22, 2º izda", "CALLE"), ("arnedo", "TERRITORIO")]
    text = LOWER_CASE_NOTE + "dom: c/ carrera, 22, 2º izda, portal b · tlf 642 118 470\n"  # not a listed town
    assert shown(text, street_tails(text, [span(text, "c/ carrera, 22, 2º izda, portal b", "CALLE")])) == [
        ("c/ carrera, 22, 2º izda, portal b", "CALLE")
    ]


@pytest.mark.parametrize(
    "text, model, want",
    [
        (  # the name left out: the span moves to it
            "Paciente: Mr. Graham Pettigrew     74 a · H",
            [("Mr", "NOMBRE_SUJETO_ASISTENCIA")],
            [("Graham Pettigrew", "NOMBRE_SUJETO_ASISTENCIA")],
        ),
        (  # the name found too: the title's span is dropped
            "Pacient ........... Sig. Giancarlo Bertolazzi\nData naixement",
            [("Sig", "NOMBRE_SUJETO_ASISTENCIA"), ("Giancarlo Bertolazzi", "NOMBRE_SUJETO_ASISTENCIA")],
            [("Giancarlo Bertolazzi", "NOMBRE_SUJETO_ASISTENCIA")],
        ),
        (  # no capitalised name after it: left as it is
            "firmado por Sr. ilegible",
            [("Sr", "NOMBRE_PERSONAL_SANITARIO")],
            [("Sr", "NOMBRE_PERSONAL_SANITARIO")],
        ),
    ],
)
def test_a_title_taken_for_the_name(text, model, want):
    spans = sorted(span(text, part, kind) for part, kind in model)
    assert shown(text, without_titles(text, spans)) == want


@pytest.mark.parametrize(
    "text, letter, dropped",
    [
        ("| jue 12/02 | M | Consciente y orientada. |", "M", True),
        ("JUE 02/04/26 · T · Enf. Nayra C.", "T", True),
        ("Vie 03/04 (Viernes Santo) · N · Enf. Nayra C.", "N", True),
        ("| mércores 11/11 | M | Afebril. |", "M", True),  # a whole weekday, Galician too
        ("| martes 10/11 | T | Hixiene en cama. |", "T", True),
        # a sex field after a birth date or an age stays
        ("NHC 5512098 · 12.07.1958 · M · DNI", "M", False),
        ("| Edad / sexo | 41 | M |", "M", False),
    ],
)
def test_a_nursing_shift_is_no_sex(text, letter, dropped):
    sex = span(text, f" {letter} ", "SEXO_SUJETO_ASISTENCIA")
    sex = PHISpan(sex.start + 1, sex.end - 1, sex.type, 0.9, MODEL)
    assert is_shift_letter(text, sex) is dropped


LOWER_CASE_NOTE = (
    "servicio canario de la salud — gerencia de servicios sanitarios de lanzarote\n"
    "s: viene con su hijo. refiere mareo. toma la medicación. duerme mal. come poco.\n"
    "o: ta 150/90. fc 80. peso 90 kg. glucemia 280. pie sin lesiones.\n"
    "p: ajusto insulina. control en 2 semanas. consejos de dieta. salud laboral avisada.\n"
)


def test_listed_bodies_in_lower_case_in_a_note_written_so():
    found = [LOWER_CASE_NOTE[a:b] for a, b, _ in find_institutions(LOWER_CASE_NOTE)]
    assert found == ["servicio canario de la salud"]  # "salud" alone stays a word
    # in a note in ordinary case, the lower-case words are no body
    text = "El servicio canario de la salud no cubre el traslado. Refiere mareo."
    assert list(find_institutions(text)) == []


def test_a_health_centre_in_lower_case_in_a_note_written_so():
    text = (
        "cs valterra — consulta 9 — cupo 35021174\n" + LOWER_CASE_NOTE + "visto en el centro de saúde de ribadavia.\n"
    )
    found = [(text[a:b], kind) for a, b, kind in find_health_centres(text)]
    assert found == [("cs valterra", "CENTRO_SALUD"), ("centro de saúde de ribadavia", "CENTRO_SALUD")]
    # running on into the sentence, or in a note in ordinary case: no centre
    assert list(find_health_centres(LOWER_CASE_NOTE + "el cs valterra no abre hoy.\n")) == []
    assert list(find_health_centres("Visto en el cs valterra — consulta 9. Refiere mareo.")) == []


@pytest.mark.parametrize(
    "line, age, sex",
    [
        ("pac: abdoulaye faye diop   39a  V   cip: FYDP860714007", "39a", "V"),
        ("pac: maricel dela cruz bautista  38a M  CIP DLCR860514018", "38a", "M"),
        ("pac: tariq mahmood butt · 44a · v · cip TRBT81040211", "44a", "v"),
    ],
)
def test_the_age_and_sex_fields_of_a_terse_patient_line(line, age, sex):
    text = LOWER_CASE_NOTE + line + "\n"
    assert [text[a:b] for a, b, _ in find_labelled_ages(text)] == [age]
    out = shown(text, rule_layer("default").apply(text, []))
    assert (age, "EDAD_SUJETO_ASISTENCIA") in out and (sex, "SEXO_SUJETO_ASISTENCIA") in out


def test_a_lower_case_sex_letter_needs_a_note_written_in_lower_case():
    text = "Paciente: Juan Pérez · 44a · v · NHC 123456"
    age = span(text, "44a", "EDAD_SUJETO_ASISTENCIA")
    assert [s.type for s in sexes_after_ages(text, [age])] == ["EDAD_SUJETO_ASISTENCIA"]
    text = text.replace(" v ", " V ")
    assert [s.type for s in sexes_after_ages(text, [span(text, "44a", "EDAD_SUJETO_ASISTENCIA")])] == [
        "EDAD_SUJETO_ASISTENCIA",
        "SEXO_SUJETO_ASISTENCIA",
    ]


@pytest.mark.parametrize(
    "text, model, want",
    [
        (
            "mozo de almacén en Distribuciones Hamed Mimun SL; cruza la frontera a diario",
            "Distribuciones Hamed Mimun SL; cruza la frontera",
            "Distribuciones Hamed Mimun SL",
        ),
        (
            "para la armadora Pesqueras del Morrazo S.A. Vive con su mujer",
            "Pesqueras del Morrazo S.A. Vive",
            "Pesqueras del Morrazo S.A.",
        ),
        (  # a name in the tail would be left bare: the span stays whole
            "soldador en Calderería Naval Cantábrica SA, en el puerto de El Musel",
            "Calderería Naval Cantábrica SA, en el puerto de El Musel",
            "Calderería Naval Cantábrica SA, en el puerto de El Musel",
        ),
    ],
)
def test_a_company_ends_at_its_legal_form(text, model, want):
    out = rule_layer("default").apply(text, [span(text, model, "OTROS_SUJETO_ASISTENCIA")])
    assert want in [text[s.start : s.end] for s in out if s.type == "OTROS_SUJETO_ASISTENCIA"]


@pytest.mark.parametrize(
    "text, model, want",
    [
        ("Sant Joan de 2019", ["Sant Joan", "2019"], ["Sant Joan de 2019"]),
        (
            "CONSENTIMIENTO FIRMADO EL DIA DE SANTIAGO DE 2025",
            ["DIA DE SANTIAGO DE", "2025"],
            ["DIA DE SANTIAGO DE 2025"],
        ),
        (
            "hasta la navidad de dos mil veinticuatro punto",
            ["navidad", "dos mil veinticuatro"],
            ["navidad de dos mil veinticuatro"],
        ),
        # a word that names no date by itself stays apart from the year
        ("sin cambios respecto al estudio de 2024", ["estudio", "2024"], ["estudio", "2024"]),
        ("ingresó en marzo y en 2019", ["marzo", "2019"], ["marzo", "2019"]),  # not over "de"
    ],
)
def test_a_named_date_and_its_year_are_one_date(text, model, want):
    spans = [span(text, part, "FECHAS") for part in model]
    assert [text[s.start : s.end] for s in dates_with_their_year(text, spans)] == want


@pytest.mark.parametrize(
    "text, model, want",
    [
        (
            "atestado de la Policía Local de Melilla n.º 318/2026. Al ser",
            "n.º 318/2026",
            [("318/2026", "OTROS_SUJETO_ASISTENCIA")],
        ),
        (
            "atestado de la Guardia Civil de Tráfico n.º 2025-004417.",
            "n.º 2025-004417",
            [("2025-004417", "OTROS_SUJETO_ASISTENCIA")],
        ),
        ("Vive en la calle Mayor n.º 12, en el centro.", "n.º 12", [("n.º 12", "CALLE")]),  # no report: left
    ],
)
def test_a_report_s_number_taken_for_a_street(text, model, want):
    assert shown(text, labels_cut_from_ids(text, [span(text, model, "CALLE")])) == want


@pytest.mark.parametrize(
    "text, job",
    [
        ("CONTEXT SOCIOFAMILIAR\nHa estat pagès tota la vida (fruita dolça).", "pagès"),
        ("En Sabadell desde 2006; limpiadora en Neteges Vallès Occidental SL. Nódulo palpable.", "limpiadora"),
        ("Dolor que relaciona con el trabajo: es operaria en una conservera.", "operaria"),
        ("El seu pare va ser pagès fins als 70.", "pagès"),
    ],
)
def test_more_cues_of_a_listed_job(text, job):
    assert job in [text[a:b] for a, b, _ in find_professions(text)]


def test_a_lower_case_word_after_a_semicolon_is_a_job_only_if_listed():
    text = "Vive en Sabadell desde 2006; paseante en el parque por las tardes."
    assert list(find_professions(text)) == []


@pytest.mark.parametrize(
    "text, model, want",
    [
        (
            "Servicio Murciano de Salud · Área de Salud II – Cartagena\nHOSPITAL",
            [("Área de Salud II", "INSTITUCION"), ("Cartagena", "TERRITORIO")],
            [("Área de Salud II – Cartagena", "INSTITUCION")],
        ),
        (
            "SERVICIO MURCIANO DE SALUD — ÁREA DE SALUD III (LORCA)\nHOSPITAL",
            [("ÁREA DE SALUD III", "INSTITUCION"), ("LORCA", "TERRITORIO")],
            [("ÁREA DE SALUD III (LORCA)", "INSTITUCION")],
        ),
        (
            "Conselleria de Sanitat\nDEPARTAMENT DE SALUT DE GANDIA\nServei",
            [("DEPARTAMENT DE SALUT", "INSTITUCION"), ("DE GANDIA", "INSTITUCION")],
            [("DEPARTAMENT DE SALUT DE GANDIA", "INSTITUCION")],
        ),
        (  # after "de", only where a span of the model's holds "de" and the place
            "el Área de Salud de Cáceres y el hospital",
            [("Área de Salud", "INSTITUCION"), ("Cáceres", "TERRITORIO")],
            [("Área de Salud", "INSTITUCION"), ("Cáceres", "TERRITORIO")],
        ),
    ],
)
def test_a_health_area_with_its_place(text, model, want):
    spans = sorted(span(text, part, kind) for part, kind in model)
    assert shown(text, areas_with_their_place(text, spans)) == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("cólico biliar (el último, el Día de Todos los Santos) y una colecistitis", ["Día de Todos los Santos"]),
        ("El lunes 12 de octubre (día del Pilar) tuvo una impactación", ["lunes 12 de octubre", "día del Pilar"]),
        ("desde Aste Nagusia hace turno de noche", ["Aste Nagusia"]),
        ("la acompaña su hermana Pilar a la consulta", []),  # the name alone is no feast
    ],
)
def test_more_feasts(text, want):
    assert [text[a:b] for a, b, _ in find_dates(text)] == want


@pytest.mark.parametrize(
    "text, model, want",
    [
        ("Paciente: Frau Ursula Kemper-Haas\nF. nacimiento", "Frau Ursula Kemper-Haas", "Ursula Kemper-Haas"),
        ("Paciente: Mr. Nigel Ashworth-Price\nNIE", "Mr. Nigel Ashworth-Price", "Nigel Ashworth-Price"),
    ],
)
def test_a_foreign_title_opening_a_name_span_is_cut_off(text, model, want):
    out = without_titles(text, [span(text, model, "NOMBRE_SUJETO_ASISTENCIA")])
    assert [text[s.start : s.end] for s in out] == [want]


def test_a_basque_form_s_label_is_no_entity():
    text = "| Adina / Edad | 29 |"
    out = rule_layer("default").apply(text, [span(text, "Adina", "FAMILIARES_SUJETO_ASISTENCIA")])
    assert "Adina" not in [text[s.start : s.end] for s in out]


def test_a_listed_town_in_lower_case_after_a_postcode_in_a_note_written_so():
    text = LOWER_CASE_NOTE + "dom: c/ de sa murada, 9, 07300 inca · tel 971 50 22 84\n"
    assert [text[a:b] for a, b, _ in find_postcodes(text)] == ["07300", "inca"]
    text = LOWER_CASE_NOTE + "dom: c/ de sa murada, 9, 07300 portal b · tel 971 50 22 84\n"  # no listed town
    assert list(find_postcodes(text)) == []
    text = "Dom.: c/ de sa murada, 9, 07300 inca · tel 971 50 22 84. Refiere mareo."  # ordinary case
    assert list(find_postcodes(text)) == []


@pytest.mark.parametrize(
    "text, want",
    [
        ("O neto, enxeñeiro informático en Vigo, chama pola noite.", ["neto"]),
        ("vive coa súa neta en Lugo", ["neta"]),
        ("nódulo de bordes bien definidos y netas", []),  # Spanish "net"
        ("lesión de límites netos", []),
    ],
)
def test_a_galician_grandchild_after_an_article(text, want):
    out = rule_layer("default").apply(text, [])
    assert [text[s.start : s.end] for s in out if s.type == "FAMILIARES_SUJETO_ASISTENCIA"] == want


def test_two_patterns_finding_one_kinship_word_give_one_span():
    text = "móbil da filla 619 44 27 01"
    out = relatives(text, [])
    assert [(s.start, s.end) for s in out] == [(9, 14)]


def test_a_neighbourhood_after_barriada_and_the_word_left_alone():
    text = "taxista, vive en la barriada Príncipe Alfonso. Otra hermana en Tetuán."
    out = rule_layer("default").apply(text, [span(text, "barriada Príncipe Alfonso", "CALLE")])
    assert ("Príncipe Alfonso", "TERRITORIO") in shown(text, out)
    assert "barriada" not in [text[s.start : s.end] for s in out]
