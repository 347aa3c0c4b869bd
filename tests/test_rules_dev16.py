"""Rules for what the guide splits dev–dev17 still missed at the stop after 8421b78: the
word ``día`` and the day after ``el día``, a relative's age in words, patients' names in table
rows and surnames-first fields, forms' label/value tables, feasts, ages' unit letters, jobs,
phones and extensions, signature legends, interval ends and entry headings."""

from __future__ import annotations

import pytest
from conftest import rule_layer_spans

spans_of = rule_layer_spans


@pytest.mark.parametrize(
    ("text", "model", "day"),
    [
        ("Se inició apixabán el día 20. Valorada por Logopedia.", "día 20", "20"),
        ("Descamación periungueal desde el Día 3.", "Día 3", "3"),
    ],
)
def test_the_word_dia_before_a_days_number_is_left_out(text, model, day):
    assert (day, "FECHAS") in spans_of(text, [(model, "FECHAS")])
    assert (model, "FECHAS") not in spans_of(text, [(model, "FECHAS")])


def test_a_feast_named_dia_de_keeps_its_word():
    text = "Vendrá el Día de Todos los Santos."
    assert ("Día de Todos los Santos", "FECHAS") in spans_of(text, [("Día de Todos los Santos", "FECHAS")])


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("| Paciente                | PICHLER, WALBURGA                 |\n| Edad | 68 a |", ["PICHLER", "WALBURGA"]),
        ("| Paciente       | PARK, JI-WON                |\n", ["PARK", "JI-WON"]),
        ("| Paciente | Juan Gil Soto |\n", ["Juan Gil Soto"]),
        (
            "Cognoms i nom ....... BOUKHALFA MERABET, NADIA\nData de naixement ... 03/07/1985",
            ["BOUKHALFA MERABET", "NADIA"],
        ),
        ("Apelidos e nome: OUTÓN VILAS, MARÍA\n", ["OUTÓN VILAS", "MARÍA"]),
        # a table's header row names nobody
        ("| Paciente | Edad | Sexo |\n|---|---|---|\n", []),
    ],
)
def test_the_patients_name_in_a_table_row_or_with_the_surnames_first(text, names):
    from deid_crf.deid.recognizers.names import find_labelled_patients

    assert [text[a:b] for a, b, _ in find_labelled_patients(text)] == names


@pytest.mark.parametrize(
    ("text", "feast"),
    [
        ("quiere estar en casa para celebrar Diwali el domingo 8.", "Diwali"),
        ("Fue a ver a su madre a Busan por Chuseok y volvió agotada.", "Chuseok"),
        ("Oncología le llamará antes de Gabonak para valorar quimioterapia.", "Gabonak"),
        ("vendrán todos para el puente de la constitución.", "puente de la constitución"),
    ],
)
def test_feasts_of_other_calendars_and_long_weekends_are_dates(text, feast):
    from deid_crf.deid.recognizers.dates import find_dates

    assert feast in [text[a:b] for a, b, _ in find_dates(text)]


LOWER_CASE_NOTE = (
    "s: varón de 72 años natural de alburquerque. vive en mérida desde hace años.\n"
    "trabaja de quesero en cabrales. el hijo vive en montevideo.\n"
    "ap: parálisis de bell. consumo de coca ocasional. hernia en la unión gastroesofágica.\n"
    "o: ta 120/80. refiere dolor en torre de control.\n"
)


def test_towns_in_a_note_written_in_lower_case():
    found = [surface for surface, type_ in spans_of(LOWER_CASE_NOTE) if type_ == "TERRITORIO"]
    assert found == ["alburquerque", "mérida", "cabrales", "montevideo"]


def test_towns_in_lower_case_only_in_a_note_written_in_lower_case():
    text = "Varón natural de Cuenca. Vive en Mérida. Fue a alburquerque a ver a su hermano. Dolor en cabrales."
    found = [surface for surface, type_ in spans_of(text) if type_ == "TERRITORIO"]
    assert "alburquerque" not in found and "cabrales" not in found


def test_a_phone_opening_a_line_after_a_word_is_no_glued_number():
    from deid_crf.deid.recognizers.phones import find_phones

    text = "Para dudas, planta 3.ª, teléfono\n926 42 11 00 ext. 2315; la guía del paciente."
    assert [text[a:b] for a, b, _ in find_phones(text)] == ["926 42 11 00 ext. 2315"]
    glued = "Código XMOU451208015 y 12.345.678"
    assert [glued[a:b] for a, b, _ in find_phones(glued)] == []


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("| F. nac. / edad / sexo   | 02.06.1958 / 68 a / M   |\n", "68 a"),
        ("Edad: 68 a. Sexo: M", "68 a"),
        ("Edad 68A, varón", "68A"),
        # a preposition before a word or a number is no unit
        ("de los 68 a los 70 años", "68"),
        ("entre 68 a 70 kg", "68"),
    ],
)
def test_an_ages_unit_letter_after_the_models_number_joins_it(text, age):
    assert (age, "EDAD_SUJETO_ASISTENCIA") in spans_of(text, [("68", "EDAD_SUJETO_ASISTENCIA")])


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("héctor ferreira olivera · 61a · v · cia FROH650219312 · dni 32047718R\n", ["FROH650219312", "32047718R"]),
        ("CIA: GAMA560312008\n", ["GAMA560312008"]),
        # a company's abbreviation before a number is no card
        ("Seguros Pérez y Cia 12345678", []),
    ],
)
def test_aragons_card_code_after_its_label(text, codes):
    assert [s for s, t in spans_of(text) if t == "ID_SUJETO_ASISTENCIA"] == codes


def test_a_label_and_value_table_is_no_table_of_patients():
    from deid_crf.deid.recognizers.table_columns import find_table_values

    form = (
        "| Paciente       | PARK, JI-WON                |\n"
        "| Nacimiento     | 08/04/1977 · 49 a · F       |\n"
        "| Aseguramiento  | MUFACE                      |\n"
    )
    assert [form[a:b] for a, b, _ in find_table_values(form)] == []
    ward = "| Hab. | Paciente | Edad/S | NHC |\n| 312 | OKONKWO, ADA | 38a M | 4471230 |\n"
    assert [ward[a:b] for a, b, _ in find_table_values(ward)] == ["OKONKWO", "ADA", "38a", "M", "4471230"]
    two_columns = "| Paciente | Diagnóstico |\n| Lucía Gil | gripe |\n"
    assert [two_columns[a:b] for a, b, _ in find_table_values(two_columns)] == ["Lucía Gil"]


def test_a_bodys_honorific_title_is_part_of_its_name():
    text = "N.º 0219 884 517\nIlustre Colegio Oficial de Médicos de Soria\n"
    spans = spans_of(text, [("Colegio Oficial de Médicos de Soria", "INSTITUCION")])
    assert ("Ilustre Colegio Oficial de Médicos de Soria", "INSTITUCION") in spans


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("- Trabajó treinta años de operaria de conservas en Conservas Ría SA; se jubiló", "operaria de conservas"),
        ("Trabaja a turnos como\noperador de planta en el complejo industrial.", "operador de planta"),
        ("Vive en la isla desde 2019. Trabaja\ncomo patrón de embarcación para una empresa.", "patrón de embarcación"),
    ],
)
def test_a_job_after_years_in_words_shifts_or_a_line_break(text, job):
    from deid_crf.deid.recognizers.work import find_professions

    assert [text[a:b] for a, b, _ in find_professions(text)] == [job]


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("Ingresó el 3 de noviembre. El día 9 presenta un cuadro confusional.", ["3 de noviembre", "9"]),
        ("el 3 de novembre. IOT el mateix dia 7. PaO2/FiO2 84.", ["3 de novembre", "7"]),
        # a stay's or a treatment's day count, and a note without a written date (MEDDOCAN's)
        ("Ingresó el 3 de noviembre. El día 19 de ingreso se inició NP; el día 31 postrasplante.", ["3 de noviembre"]),
        ("En el día 12 se apreció resolución de la insuficiencia respiratoria.", []),
    ],
)
def test_the_day_after_el_dia_in_a_note_that_writes_a_day_and_month(text, dates):
    from deid_crf.deid.recognizers.dates import find_dates

    assert [text[a:b] for a, b, _ in find_dates(text)] == dates


def test_the_word_dia_left_of_a_day_is_no_date():
    text = "Ingresó el 3 de noviembre. Se inició apixabán el día 20. Valorada por Logopedia."
    spans = spans_of(text, [("día 20", "FECHAS")])
    assert ("20", "FECHAS") in spans and ("día", "FECHAS") not in spans


def test_a_signature_legend_without_equals_and_a_catalan_nurses_column():
    text = (
        "| Data          | Torn | Registre                         | Inf. |\n"
        "| 23/11         | M    | Torna de quiròfan. EVA 3.        | AMP  |\n"
        "| 24/11         | N    | Dorm 5 h.                        | JCV  |\n"
        "\nLlegenda: AMP Anna Mir Parera (n.º 40881) · JCV Joan Casals Vidal\n"
    )
    staff = [s for s, t in spans_of(text) if t == "NOMBRE_PERSONAL_SANITARIO"]
    assert staff.count("AMP") == 2 and staff.count("JCV") == 2
    assert "Anna Mir Parera" in staff and "Joan Casals Vidal" in staff
    # capitals before a name that are not its initials are no legend
    other = "Leyenda: HTA Juan Pérez"
    assert "HTA" not in [s for s, t in spans_of(other) if t == "NOMBRE_PERSONAL_SANITARIO"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Vive con su mujer. Dos hijas: Marisa, profesora, y Ana.", ("Dos hijas", "FAMILIARES_SUJETO_ASISTENCIA")),
        ("Cognoms, nom: MEBARKI, ABDELKADER\nSIP: 3391048", ("MEBARKI", "NOMBRE_SUJETO_ASISTENCIA")),
        ("trabajadora social (Itziar Olabarria, ext.\n4520) contacta", ("4520", "NUMERO_TELEFONO")),
        ("hasta el alta. Extensión de la unidad: 5531.\n", ("5531", "NUMERO_TELEFONO")),
    ],
)
def test_numbered_kin_before_names_surnames_first_in_catalan_and_extensions(text, expected):
    assert expected in spans_of(text)


def test_a_field_label_of_kin_without_a_numeral_stays_a_label():
    assert spans_of("Hijos: Marisa y Ana.") == []


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("- Ictericia: fototerapia del 30/10 al 2/11.\n- Alimentación por sonda.", ["30/10", "2/11"]),
        ("bicarbonato al 2/3 Molar en 2 h", []),
        ("— LBU\n\nMiércoles 4-XI\nEncefalopatía grado I. Come solo.", ["Miércoles 4-XI"]),
    ],
)
def test_an_intervals_end_day_month_and_an_entrys_heading_alone_on_its_line(text, dates):
    from deid_crf.deid.recognizers.dates import find_dates

    assert [text[a:b] for a, b, _ in find_dates(text)] == dates


@pytest.mark.parametrize(
    ("text", "jobs"),
    [
        ("Su esposa, María Dolores Chimbo (envasadora en un almacén de lechugas), y dos hijos.", ["envasadora"]),
        ("Truca el nebot: és bomber a Badalona, vindrà dijous.", ["bomber"]),
        ("Su hijo Koldo, ertzaina en Donostia, se queda esta noche.", ["ertzaina"]),
        ("Pregunta por su nieto, Unai, arrantzale en Bermeo.", ["arrantzale"]),
        # a clinician's word in apposition is a role more often than a relative's job
        ("Lo valora su médico, enfermero en Urgencias, que lo deriva.", []),
    ],
)
def test_a_listed_job_in_apposition_before_where_it_is_done(text, jobs):
    from deid_crf.deid.recognizers.work import find_professions

    assert [text[a:b] for a, b, _ in find_professions(text)] == jobs


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("estudio en la consulta de Hemostasia de Valdecilla y de la variante", ["Valdecilla"]),
        ("cataratas operadas en son espases (primavera 2025).", ["son espases"]),
        ("Consulta de COT en Can Misses el martes 19 de agosto.", ["Can Misses"]),
        # inside the hospital's full name, and an address of a street named alike
        ("Hospital Universitario Marqués de Valdecilla", []),
        ("vive en Gregorio Marañón, 5, 2.º", []),
    ],
)
def test_a_hospital_by_its_short_name(text, names):
    from deid_crf.deid.recognizers.hospital_acronyms import find_hospital_short_names

    assert [text[a:b] for a, b, _ in find_hospital_short_names(text)] == names


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Hematuria microscópica persistente. Natural de\nBignona, región de Ziguinchor (Senegal).", "Bignona"),
        ("El germà Ram viu a Doha (Qatar) i truca cada dia.", "Doha"),
        ("la seva filla (Amélie, 30 anys, resident a Montpeller) vol saber", "Montpeller"),
        ("Un hermano operado de lo mismo en\nArgel en los años 90.", "Argel"),
    ],
)
def test_a_place_after_its_cue_on_the_next_line_or_in_catalan(text, place):
    assert place in [s for s, t in spans_of(text) if t in ("TERRITORIO", "PAIS")]


def test_a_fiance_and_a_numbered_contacts_kinship_word_are_relatives():
    text = "cuando se fijó la boda con su prometido, Rohan, ingeniero de software en Bombay (India)."
    assert ("prometido", "FAMILIARES_SUJETO_ASISTENCIA") in spans_of(text)
    assert ("Rohan", "FAMILIARES_SUJETO_ASISTENCIA") in spans_of(text)
    contacts = "Contactes:  1) filla Núria — 654 30 18 92\n            2) nebot, Jordi Rovira — 937 90 44 15\n"
    assert ("nebot", "FAMILIARES_SUJETO_ASISTENCIA") in spans_of(contacts)


@pytest.mark.parametrize(
    ("text", "ages"),
    [
        ("Fecha de alta: 20/11/2026      Edad al alta: 22 días (EG corregida 37+3)", ["22 días"]),
        ("Sexo: Varón     Edad a la extracción: 2 meses y 2 días\nDomicilio: c/ Mayor, 45", ["2 meses y 2 días"]),
        ("Edad gestacional: 38 semanas", []),
    ],
)
def test_a_babys_age_in_an_age_field(text, ages):
    from deid_crf.deid.recognizers.ages import find_young_ages

    assert [text[a:b] for a, b, _ in find_young_ages(text)] == ages
