"""Rules for forms the tenth guide split (dev9) showed: numbers dictated in words after
their label, a two-digit year in words, English age and sex fields, a delegation or a
foreign mission with its seat, a health centre written ``C.S.``, a partner called ``novia``,
a street's span that runs on into its neighbourhood, ombudsmen and national bodies."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.ages import find_labelled_ages
from deid_crf.deid.recognizers.dates import find_dates
from deid_crf.deid.recognizers.dictation import find_dictated_numbers
from deid_crf.deid.recognizers.institutions import find_health_centres, find_institutions, find_organisations
from deid_crf.deid.recognizers.relatives import relatives
from deid_crf.deid.recognizers.sex import find_labelled_sex
from deid_crf.deid.rules import rule_layer
from deid_crf.text.spans import MODEL, PHISpan

DICTATION = (
    "paciente dos puntos ginés meroño historia número uno cuatro siete siete dos cero nueve tarjeta sanitaria "
    "m r c a siete cuatro cero seis uno uno tres tres afiliación a la seguridad social treinta barra uno cero "
    "nueve ocho siete barra dos uno coma vive en alcantarilla teléfono seis seis ocho cuarenta y uno veintidós "
    "noventa punto y aparte la aseguradora pide informe para el siniestro cero siete tres cuatro cuatro uno "
    "nueve punto dicta la doctora sandoval colegiada número tres cero tres cero uno ocho cuatro siete dos"
)


def test_numbers_dictated_in_words_after_their_label():
    found = [(DICTATION[a:b], kind) for a, b, kind in find_dictated_numbers(DICTATION)]
    assert found == [
        ("uno cuatro siete siete dos cero nueve", "ID_SUJETO_ASISTENCIA"),
        ("m r c a siete cuatro cero seis uno uno tres tres", "ID_SUJETO_ASISTENCIA"),
        ("treinta barra uno cero nueve ocho siete barra dos uno", "ID_ASEGURAMIENTO"),
        ("seis seis ocho cuarenta y uno veintidós noventa", "NUMERO_TELEFONO"),
        ("cero siete tres cuatro cuatro uno nueve", "OTROS_SUJETO_ASISTENCIA"),
        ("tres cero tres cero uno ocho cuatro siete dos", "ID_TITULACION_PERSONAL_SANITARIO"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "revisar la historia número uno del archivo",  # one number word
        "el teléfono dos veces al día",  # two
        "cuatro cinco seis siete ocho sin etiqueta delante",  # no label
    ],
)
def test_few_number_words_or_no_label_are_no_dictated_number(text):
    assert list(find_dictated_numbers(text)) == []


@pytest.mark.parametrize(
    "text, want",
    [
        ("nacido en cartagena el once de junio del ochenta y tres vive en", ["once de junio del ochenta y tres"]),
        # "de" + two digits in words is not a year: only "del" says so
        ("ingresado el once de junio de tres pacientes", ["once de junio"]),
    ],
)
def test_a_year_dictated_by_its_last_two_digits(text, want):
    assert [text[a:b] for a, b, _ in find_dates(text)] == want


def test_english_age_and_sex_fields():
    text = "Patient: Mr. Oliver Whitcombe\nAge: 67 years · Sex: male\n"
    assert [text[a:b] for a, b, _ in find_labelled_ages(text)] == ["67 years"]
    assert [text[a:b] for a, b, _ in find_labelled_sex(text)] == ["male"]


@pytest.mark.parametrize(
    "text, want",
    [
        (
            "inscrito en el Consulado General de Marruecos en Madrid; se entrega",
            "Consulado General de Marruecos en Madrid",
        ),
        ("denegada por la Subdelegación del Gobierno en Huesca el 27", "Subdelegación del Gobierno en Huesca"),
        ("el Consulado de Colombia en Santa Cruz de Tenerife.", "Consulado de Colombia en Santa Cruz de Tenerife"),
        # a list of towns after "en" is not the seat
        ("Delegación de Hacienda en Sevilla y Madrid", "Delegación de Hacienda en Sevilla"),
        # a body of another head keeps its name without "en …"
        ("Juzgado de Guardia de Lorca en Murcia", "Juzgado de Guardia de Lorca"),
    ],
)
def test_a_delegation_or_a_mission_with_its_seat(text, want):
    assert [text[a:b] for a, b, _ in find_organisations(text)] == [want]


def test_a_health_centre_written_with_dotted_initials():
    text = "COPIA A : DRA. L. PEREDA - C.S. GAMONAL ANTIGUA\nseguimiento en el C. S. Delicias."
    assert [text[a:b] for a, b, _ in find_health_centres(text)] == ["C.S. GAMONAL ANTIGUA", "C. S. Delicias"]


def test_ombudsmen_and_national_bodies():
    text = "puede dirigirse al Procurador del Común; consulta en Sanidad Exterior; registro ONT n.º EX24-0193."
    assert [text[a:b] for a, b, _ in find_institutions(text)] == ["Procurador del Común", "Sanidad Exterior", "ONT"]


def test_a_partner_called_novia_after_a_possessive():
    text = "Vive con su novia, Sheila, que ha estado con él. La novia de su hermano no."
    # the name after it and a comma is hers; "La novia" (an article) is no one's partner here
    assert [text[s.start : s.end] for s in relatives(text, [])] == ["novia", "Sheila", "hermano"]


def test_a_street_span_that_runs_on_into_its_neighbourhood_is_cut():
    text = "Domicilio: c/ General Villalba, 31, 2.º, barrio del Real, Melilla"
    model = [PHISpan(11, text.index(" del Real"), "CALLE", 0.9, MODEL)]
    out = rule_layer("default").apply(text, model)
    assert ("c/ General Villalba, 31, 2.º", "CALLE") in [(text[s.start : s.end], s.type) for s in out]


def test_a_relative_span_over_an_age_in_brackets_is_split():
    text = "Padre fallecido a los 70 años; hermana menor (61 años) gastrectomizada en 2019."
    model = [PHISpan(text.index("hermana"), text.index(" gastrectomizada"), "FAMILIARES_SUJETO_ASISTENCIA", 0.9, MODEL)]
    out = [(text[s.start : s.end], s.type) for s in rule_layer("default").apply(text, model)]
    assert ("hermana menor", "FAMILIARES_SUJETO_ASISTENCIA") in out
    assert ("61 años", "FAMILIARES_SUJETO_ASISTENCIA") in out


@pytest.mark.parametrize(
    "text, want",
    [
        ('En casa la llaman "Bego". Trabajó 30 años.', ["Bego"]),
        ("Zhou Xiaoyan (prefiere que la llamen Yan)", ["Yan"]),
        ("conocido como «el Rubio» en el barrio", ["Rubio"]),
        # "conocido como" without quotes names a sign, and "lo llaman" a call
        ("el fenómeno conocido como Cuádriga de Verdán", []),
        ("lo llaman por teléfono cada día", []),
    ],
)
def test_the_name_someone_is_called_by(text, want):
    from deid_crf.deid.recognizers.names import find_called_names

    assert [text[a:b] for a, b, _ in find_called_names(text)] == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("La madre sigue en Leópolis (+380 67 415 2290).", ["Leópolis"]),
        ("La madre vendrá desde Filiași en abril.", ["Filiași"]),
        ("Los padres viven en Chengdu.", ["Chengdu"]),
    ],
)
def test_where_a_relative_lives_or_comes_from(text, want):
    from deid_crf.deid.recognizers.places import find_home_places

    assert [text[a:b] for a, b, _ in find_home_places(text)] == want


def test_a_relative_span_over_a_catalan_verb_and_a_place_is_cut_after_the_name():
    text = "La filla Montse viu a Andorra i és qui controla la medicació."
    model = [PHISpan(3, text.index(" i és"), "FAMILIARES_SUJETO_ASISTENCIA", 0.9, MODEL)]
    out = [text[s.start : s.end] for s in relatives(text, model)]
    assert "filla Montse" in out and "filla Montse viu a Andorra" not in out


@pytest.mark.parametrize(
    "text, age, want",
    [
        # no relative in the sentence before the age: the patient's
        ("Te escribo a petición del Sr. Giancarlo Ferraris, de 71 años, que desea verte.", "71 años", "EDAD"),
        ("Apendicectomía a los 12 años.", "12 años", "EDAD"),
        # a kinship word before it in the sentence, across a semicolon or an abbreviation's dot
        ("- II-1: madre, cáncer de colon; vive en Bilbao, 73 años.", "73 años", "FAMILIARES"),
        ("HERMANO CON CA. DE PROSTATA A LOS 62 AÑOS.", "62 AÑOS", "FAMILIARES"),
        # a line that goes on in lower case is the same sentence
        ("Una tía diagnosticada de\n   cáncer colorrectal a los 58 años.", "58 años", "FAMILIARES"),
    ],
)
def test_an_age_the_model_gave_a_relative_with_no_relative_before_it_is_the_patients(text, age, want):
    model = [PHISpan(text.index(age), text.index(age) + len(age), "FAMILIARES_SUJETO_ASISTENCIA", 0.9, MODEL)]
    found = {text[s.start : s.end]: s.type for s in relatives(text, model)}
    assert found[age].startswith(want)


def test_a_workers_name_field_names_the_patient():
    from deid_crf.deid.recognizers.names import find_labelled_patients

    text = "Trabajador: Karim Mohand Abdelkader\nTrabajadora social: Ana Gil\n"
    assert [text[a:b] for a, b, _ in find_labelled_patients(text)] == ["Karim Mohand Abdelkader"]


def test_the_patient_of_the_header_field_is_the_patient_everywhere():
    from deid_crf.deid.recognizers.names import patient_named_everywhere

    text = (
        "Paciente: Lucía Barrasa Sáenz\n"
        "El padre vive en Vitoria; Lucía pasa con él los fines de semana. Su hija Lucía no.\n"
    )
    second = text.index("Lucía pasa")
    model = [
        PHISpan(second, second + 5, "FAMILIARES_SUJETO_ASISTENCIA", 0.9, MODEL),
        PHISpan(text.index("hija Lucía"), text.index("hija Lucía") + 10, "FAMILIARES_SUJETO_ASISTENCIA", 0.9, MODEL),
    ]
    out = [(text[s.start : s.end], s.type) for s in patient_named_everywhere(text, model)]
    assert out == [("Lucía", "NOMBRE_SUJETO_ASISTENCIA"), ("hija Lucía", "FAMILIARES_SUJETO_ASISTENCIA")]


def test_a_relatives_national_id_is_another_persons_number():
    from deid_crf.deid.recognizers.national_ids import relatives_national_ids

    text = (
        "Madre: Fatima Zahra El Khattabi, 27 años, NIE X7730418P\n"
        "Paciente: Derlis Benítez, NIE Y4829173K\n"
        "a petición de su hija Dña. Inmaculada Hurtado (DNI 76128840R)\n"
    )
    model = [
        span_of(text, "Fatima Zahra El Khattabi", "FAMILIARES_SUJETO_ASISTENCIA"),
        span_of(text, "X7730418P", "ID_SUJETO_ASISTENCIA"),
        # the patient the model took for a relative: no kinship word on the line
        span_of(text, "Derlis Benítez", "FAMILIARES_SUJETO_ASISTENCIA"),
        span_of(text, "Y4829173K", "ID_SUJETO_ASISTENCIA"),
        span_of(text, "hija Dña. Inmaculada Hurtado", "FAMILIARES_SUJETO_ASISTENCIA"),
        span_of(text, "76128840R", "ID_SUJETO_ASISTENCIA"),
    ]
    out = {text[s.start : s.end]: s.type for s in relatives_national_ids(text, sorted(model))}
    assert (out["X7730418P"], out["Y4829173K"], out["76128840R"]) == (
        "NUMERO_IDENTIF",
        "ID_SUJETO_ASISTENCIA",
        "NUMERO_IDENTIF",
    )


def span_of(text: str, value: str, type_: str) -> PHISpan:
    at = text.index(value)
    return PHISpan(at, at + len(value), type_, 0.9, MODEL)


def test_legacy_fields_surnames_comma_given_name_and_specialists():
    from deid_crf.deid.recognizers.names import find_labelled_patients, find_labelled_staff

    text = (
        "PACIENTE........: CASTIÑEIRA OUTEDA, XOSE BENITO\n"
        "MEDICO RESP.: ARRIBAS DE PABLO, M. TERESA\n"
        "Psiquiatra: Vicent Llorens Ferrandis · Psicóloga clínica: Clara Peris\n"
        "Paciente: RN DE NDIAYE SARR, AWA\n"
    )
    patients = [(text[a:b], kind) for a, b, kind in find_labelled_patients(text)]
    staff = [text[a:b] for a, b, _ in find_labelled_staff(text)]
    assert patients == [
        ("CASTIÑEIRA OUTEDA", "NOMBRE_SUJETO_ASISTENCIA"),
        ("XOSE BENITO", "NOMBRE_SUJETO_ASISTENCIA"),
        # a newborn's field names the mother
        ("NDIAYE SARR", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("AWA", "FAMILIARES_SUJETO_ASISTENCIA"),
    ]
    assert staff == ["ARRIBAS DE PABLO", "M. TERESA", "Vicent Llorens Ferrandis"]


def test_lone_lower_case_body_words_and_a_collegiate_label_are_no_entities():
    text = "al barrio de San Cristóbal; sergas · área sanitaria; Col. 4614982"
    model = [
        span_of(text, "barrio", "INSTITUCION"),
        span_of(text, "sergas", "INSTITUCION"),
        span_of(text, "Col", "INSTITUCION"),
    ]
    out = [text[s.start : s.end] for s in rule_layer("default").apply(text, model) if s.type == "INSTITUCION"]
    assert "barrio" not in out and "Col" not in out and "sergas" in out


@pytest.mark.parametrize(
    "text, want",
    [
        ("soldador en una plataforma de North Sea Welding Ltd con base en Aberdeen", ["North Sea Welding Ltd"]),
        ("marino mercante jubilado (navegó para Nordhav Rederi AS), que pasa", ["Nordhav Rederi AS"]),
        ("operaria de secadero en Tabacos del Tiétar SCL: cuelga la hoja", ["Tabacos del Tiétar SCL"]),
    ],
)
def test_foreign_and_cooperative_legal_forms_name_an_employer(text, want):
    from deid_crf.deid.recognizers.work import find_companies

    assert [text[a:b] for a, b, _ in find_companies(text)] == want


def test_dev10_bodies_hospitals_sex_and_feasts():
    from deid_crf.deid.recognizers.foreign_hospitals import find_foreign_hospitals
    from deid_crf.deid.recognizers.labelled_ids import find_labelled_ids

    text = "vivienda del Cabildo de La Palma (n.º 2021/VT/03318)"
    assert [text[a:b] for a, b, _ in find_organisations(text)] == ["Cabildo de La Palma"]
    text = "Prostatectomía en 2019 en el Haukeland universitetssjukehus (Bergen)."
    assert [text[a:b] for a, b, _ in find_foreign_hospitals(text)] == ["Haukeland universitetssjukehus"]
    text = "Sexua / Sexo ............. Gizonezkoa / Hombre\n"
    assert "Gizonezkoa" in [text[a:b] for a, b, _ in find_labelled_sex(text)]
    text = "Núm. biòpsia: B26/03117          Núm. petició: P260218840\n"
    assert "B26/03117" in [text[a:b] for a, b, _ in find_labelled_ids(text)]
    text = "18.02.26 (Miércoles de Ceniza) — EGP\n"
    assert "Miércoles de Ceniza" in [text[a:b] for a, b, _ in find_dates(text)]


def test_an_organisation_span_stops_before_a_bare_weekday():
    text = "Curas en el consultorio local de San Vitero lunes, miércoles y viernes."
    model = [PHISpan(text.index("consultorio"), text.index(", miércoles"), "CENTRO_SALUD", 0.9, MODEL)]
    out = [text[s.start : s.end] for s in rule_layer("default").apply(text, model) if s.type == "CENTRO_SALUD"]
    assert out == ["consultorio local de San Vitero"]


@pytest.mark.parametrize(
    "text, want",
    [
        ("Mujer de 29 años, soltera, vive con sus padres.", ["soltera"]),
        ("El paciente es viudo desde hace diez años.", ["viudo"]),
        ("Dos hermanos sanos. Casado y sin hijos.", ["Casado"]),
        ("Edad: 34 años   Estado civil: separada\n", ["separada"]),
        # a surname, the guidelines' relatives after "casado con", surgery's "separada de"
        ("Paciente: Herrero Casado, Juan", []),
        ("casado con dos hijos y una hija", []),
        ("el tumor quedó separado de la cápsula", []),
    ],
)
def test_the_patients_civil_status(text, want):
    from deid_crf.deid.recognizers.population_groups import find_civil_status

    assert sorted({text[a:b] for a, b, _ in find_civil_status(text)}) == want


def test_a_newborns_field_names_the_mother_and_a_places_lower_case_article_is_cut():
    text = "Paciente: RN DE NDIAYE SARR, AWA           NHC: 3320957\nTrabajó en el Valle del Jiu hasta 2015.\n"
    model = [
        span_of(text, "RN DE NDIAYE SARR", "NOMBRE_SUJETO_ASISTENCIA"),
        span_of(text, "el Valle del Jiu", "TERRITORIO"),
    ]
    out = {(text[s.start : s.end], s.type) for s in rule_layer("default").apply(text, model)}
    assert ("NDIAYE SARR", "FAMILIARES_SUJETO_ASISTENCIA") in out
    assert ("AWA", "FAMILIARES_SUJETO_ASISTENCIA") in out
    assert ("Valle del Jiu", "TERRITORIO") in out


@pytest.mark.parametrize(
    "text, want",
    [
        ("Helbidea: Kale Nagusia 12, 3. ezk., 20240 Ordizia", "Kale Nagusia 12, 3. ezk."),
        ("Bizi da: Zapatari kalea 14, 2. esk.)", "Zapatari kalea 14, 2. esk."),
        # before a dash the dot ends the sentence
        ("Domicilio: Kale Nagusia 5, 3. ezk. — 20800 Zarautz", "Kale Nagusia 5, 3. ezk"),
    ],
)
def test_a_basque_floor_sides_abbreviation_keeps_its_dot(text, want):
    start = text.index("Kale") if "Kale" in text else text.index("Zapatari")
    model = [PHISpan(start, start + len(want.rstrip(".")), "CALLE", 0.9, MODEL)]
    out = [text[s.start : s.end] for s in rule_layer("default").apply(text, model) if s.type == "CALLE"]
    assert out == [want]
