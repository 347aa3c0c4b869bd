"""Rules for what the guide splits dev–dev14 still missed at the stop after 2baa309: a
surname alone in its own field (``Cognoms: LIN``), a weekday after ``al``, ``un`` or
``el mismo`` or on the next line, a header's health area or management with its places,
and a region's name with an en dash inside a body's name (``CASTILLA–LA MANCHA``)."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.dates import find_dates
from deid_crf.deid.recognizers.institutions import find_health_areas, find_institutions
from deid_crf.deid.recognizers.names import find_labelled_patients
from deid_crf.deid.rules import rule_layer


def found(finder, text: str) -> list[str]:
    return [text[a:b] for a, b, *_ in finder(text)]


@pytest.mark.parametrize(
    ("text", "surname"),
    [
        ("Núm. petició: 5518820\nCognoms: WU                        Nom: LIHUA\nCIP: WULI", "WU"),
        ("INFORME\n\nCognoms ................. GRIGORYAN\nNom ..................... ARMEN\n", "GRIGORYAN"),
        ("Apellidos: Okonkwo\nNombre: Chidi\n", "Okonkwo"),
        ("Apelidos: CASTRO\nNome: Uxía\n", "CASTRO"),
    ],
)
def test_a_surname_alone_in_its_field_is_the_patients(text, surname):
    assert surname in found(find_labelled_patients, text)
    spans = rule_layer("default").apply(text, [])
    assert any(text[s.start : s.end] == surname and s.type == "NOMBRE_SUJETO_ASISTENCIA" for s in spans)


def test_a_surnames_label_in_running_text_names_nobody():
    text = "Se le pidió los apellidos de la madre para el registro."
    assert found(find_labelled_patients, text) == []


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Prefiere que la cita sea un miércoles o un viernes, cuando libra su hija.", ["miércoles", "viernes"]),
        ("La primera dosis hoy y la segunda el mismo jueves por la noche.", ["jueves"]),
        ("Se le dan las recetas para no esperar al lunes.", ["lunes"]),
        ("La hija cuenta que el\nsábado no la reconocía.", ["sábado"]),
        ("Volverá el próximo martes a control.", ["martes"]),
        # a weekday that recurs, and a weekday as a surname, stay words
        ("Hemodiálisis los lunes, miércoles y viernes.", []),
        ("Atendido por la Dra. Martes Llorente.", []),
    ],
)
def test_a_weekday_after_al_un_or_el_mismo_is_a_date(text, days):
    assert found(find_dates, text) == days


@pytest.mark.parametrize(
    ("text", "area"),
    [
        (
            "SERVICIO ANDALUZ DE SALUD\nÁREA DE GESTIÓN SANITARIA NORTE DE HUELVA\nHOSPITAL",
            "ÁREA DE GESTIÓN SANITARIA NORTE DE HUELVA",
        ),
        (
            "sergas · área sanitaria de lugo, a mariña e monforte de lemos\nnota",
            "área sanitaria de lugo, a mariña e monforte de lemos",
        ),
        (
            "Servicio Canario de la Salud — Gerencia de Servicios Sanitarios de Fuerteventura\n",
            "Gerencia de Servicios Sanitarios de Fuerteventura",
        ),
        (
            "ib-salut · gerència d'atenció primària de menorca\ncentre de salut",
            "gerència d'atenció primària de menorca",
        ),
        ("Conselleria de Sanitat — Departament de Salut de la Ribera (Alzira)\n", "Departament de Salut de la Ribera"),
        (
            "SERVIZO GALEGO DE SAÚDE\nXerencia de Xestión Integrada de Ferrol\n",
            "Xerencia de Xestión Integrada de Ferrol",
        ),
    ],
)
def test_a_headers_health_area_is_one_span_with_its_places(text, area):
    assert found(find_health_areas, text) == [area]
    spans = rule_layer("default").apply(text, [])
    assert any(text[s.start : s.end] == area and s.type == "INSTITUCION" for s in spans)


@pytest.mark.parametrize(
    "text",
    [
        "El área sanitaria de Lugo cubre la comarca. Vive en Sarria.",  # a sentence, not a header
        "Gerencia: Dr. Manuel Pardo\n",  # a field's label
        "Área de Salud: Plasencia\n",
    ],
)
def test_a_health_area_in_a_sentence_or_a_label_is_left_to_the_model(text):
    assert found(find_health_areas, text) == []


def test_an_en_dash_joins_a_regions_name_but_spaced_it_separates_two_bodies():
    text = "SERVICIO DE SALUD DE CASTILLA–LA MANCHA (SESCAM)\nOsakidetza – Servicio Vasco de Salud\n"
    assert found(find_institutions, text) == ["SERVICIO DE SALUD DE CASTILLA–LA MANCHA", "SESCAM", "Osakidetza"]


def _hospital(text: str, name: str):
    from deid_crf.text.spans import MODEL, PHISpan

    start = text.index(name)
    return [PHISpan(start, start + len(name), "HOSPITAL", 0.9, MODEL)]


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        # named after a person or a place of its own, in running text: the town is its own span
        (
            "Operado en 2019 en el Hospital Marqués de Comillas de Santander, sin incidencias.",
            "Hospital Marqués de Comillas de Santander",
            [("Hospital Marqués de Comillas", "HOSPITAL"), ("Santander", "TERRITORIO")],
        ),
        (
            "Seguimiento en la Clínica Dental Arenal de Ponferrada desde 2020.",
            "Clínica Dental Arenal de Ponferrada",
            [("Clínica Dental Arenal", "HOSPITAL"), ("Ponferrada", "TERRITORIO")],
        ),
        (
            "Ingresó en el Hospital Universitario Infanta Sofía de Alcobendas por una neumonía.",
            "Hospital Universitario Infanta Sofía de Alcobendas",
            [("Hospital Universitario Infanta Sofía", "HOSPITAL"), ("Alcobendas", "TERRITORIO")],
        ),
        # a hospital named by its town, a saint's or a title's name with "de", a region: whole
        (
            "Ingresó en el Hospital Universitario de Getafe por una neumonía.",
            "Hospital Universitario de Getafe",
            [("Hospital Universitario de Getafe", "HOSPITAL")],
        ),
        (
            "Operado en el Hospital San Millán de Logroño en 2019.",
            "Hospital San Millán de Logroño",
            [("Hospital San Millán", "HOSPITAL"), ("Logroño", "TERRITORIO")],
        ),
        (
            "Ingresó en el Hospital Nuestra Señora de Candelaria por una neumonía.",
            "Hospital Nuestra Señora de Candelaria",
            [("Hospital Nuestra Señora de Candelaria", "HOSPITAL")],
        ),
        (
            "Derivado a la Red de Salud Mental de Bizkaia.",
            "Red de Salud Mental de Bizkaia",
            [("Red de Salud Mental de Bizkaia", "HOSPITAL")],
        ),
        # an affiliation line, as MEDDOCAN writes it: left whole
        (
            "Servicio de Urología. Hospital Carlos Haya de Málaga.",
            "Hospital Carlos Haya de Málaga",
            [("Hospital Carlos Haya de Málaga", "HOSPITAL")],
        ),
    ],
)
def test_a_named_hospital_in_running_text_leaves_its_town_out(text, name, expected):
    from deid_crf.deid.recognizers.institutions import hospitals_without_their_town

    spans = hospitals_without_their_town(text, _hospital(text, name))
    assert [(text[s.start : s.end], s.type) for s in spans] == expected


@pytest.mark.parametrize(
    ("text", "jobs"),
    [
        (
            "Natural de Tiflis (Georgia), soldador de estructuras en Talleres Orbe SL desde 2015.",
            ["soldador de estructuras"],
        ),
        ("La madre, Ioana (pasaporte 05577321), limpiadora en Hospital Comarcal, acompaña.", ["limpiadora"]),
        # not a job: a role in the ward, a clinician's word, lower-case places
        ("Vive solo, paciente en seguimiento en Cardiología.", []),
        ("Acompañado por su hija, enfermera en el Hospital de Cabueñes.", []),
    ],
)
def test_a_listed_job_before_where_it_is_done_is_a_profession(text, jobs):
    from deid_crf.deid.recognizers.work import find_professions

    assert found(find_professions, text) == jobs


@pytest.mark.parametrize(
    "text",
    [
        "Muestra sobrante cedida al Biobanc IDIVAL con consentimiento firmado.",
        "Teixit cedit al Biobanc de l'IRBLleida amb el codi de donant.",
    ],
)
def test_a_catalan_biobank_is_an_institution(text):
    from deid_crf.deid.recognizers.institutions import find_organisations

    names = found(find_organisations, text)
    assert len(names) == 1 and names[0].startswith("Biobanc ")


@pytest.mark.parametrize(
    ("text", "estates"),
    [
        (
            "Trabaja de carretillero en el polígono industrial Las Salinas desde 2010.",
            ["polígono industrial Las Salinas"],
        ),
        ("Conservas Ría SL (polígono de Espíritu Santo), turno de noche.", ["polígono de Espíritu Santo"]),
        ("Almacén en el polígono Campollano; vive en Albacete.", ["polígono Campollano"]),
        # the brain's arterial circle, and a town's estate (the town is the place)
        ("Angiorresonancia del polígono de Willis sin hallazgos.", []),
        ("Trabaja en el polígono de Ciutadella, en turnos de ocho horas.", []),
    ],
)
def test_an_industrial_estate_is_a_street(text, estates):
    from deid_crf.deid.recognizers.streets import find_streets

    assert found(find_streets, text) == estates


@pytest.mark.parametrize(
    ("text", "relatives"),
    [
        ("Teléfono: 622 18 40 77 / sobrina +33 6 12 44 80 19", ["sobrina"]),
        ("Contacto: hijo 611 20 30 40 / yerno 699 55 41 02", ["hijo", "yerno"]),
    ],
)
def test_a_kinship_word_before_a_phone_number_is_a_relative(text, relatives):
    spans = rule_layer("default").apply(text, [])
    assert [text[s.start : s.end] for s in spans if s.type == "FAMILIARES_SUJETO_ASISTENCIA"] == relatives


@pytest.mark.parametrize(
    ("text", "parts", "expected"),
    [
        # an employee's number after a staff name in brackets, its letter cut off by the model
        (
            "Enf. Olatz Etxeberria (K-40219)\n",
            [("Olatz Etxeberria", "NOMBRE_PERSONAL_SANITARIO"), ("40219", "TERRITORIO")],
            [("Olatz Etxeberria", "NOMBRE_PERSONAL_SANITARIO"), ("K-40219", "ID_EMPLEO_PERSONAL_SANITARIO")],
        ),
        # a code cut in two at its letters, and a plate after "matrícula"
        (
            "Lista de espera: 2025/HUV/00912\n",
            [("2025", "FECHAS"), ("00912", "TERRITORIO")],
            [("2025/HUV/00912", "NUMERO_IDENTIF")],
        ),
        (
            "su furgoneta (matrícula LE-20417-AB) en la finca",
            [("20417", "TERRITORIO")],
            [("LE-20417-AB", "IDENTIF_VEHICULOS_NRSERIE_PLACAS")],
        ),
        # a postcode with Spain's letter stays a postcode, whole
        ("Hospital de Jaén E-23009 Jaén", [("23009", "TERRITORIO")], [("E-23009", "TERRITORIO")]),
        # a date with a Roman month, an acronym and a record's prefix stay as they are
        ("el 26-XI-2026 ingresa", [("2026", "FECHAS")], [("2026", "FECHAS")]),
        ("serología COVID-19 negativa", [("19", "FECHAS")], [("19", "FECHAS")]),
        ("NHC: HC-0045123    CIP: X", [("0045123", "ID_SUJETO_ASISTENCIA")], [("0045123", "ID_SUJETO_ASISTENCIA")]),
    ],
)
def test_a_code_keeps_the_letters_the_model_cut_off(text, parts, expected):
    from deid_crf.deid.recognizers.labelled_ids import ids_with_their_letters
    from deid_crf.text.spans import MODEL, PHISpan

    spans = sorted(PHISpan(text.index(p), text.index(p) + len(p), kind, 0.9, MODEL) for p, kind in parts)
    assert [(text[s.start : s.end], s.type) for s in ids_with_their_letters(text, spans)] == expected


@pytest.mark.parametrize(
    ("text", "bodies"),
    [
        ("OSAKIDETZA · URIBE ESI / OSI URIBE\n", ["URIBE ESI", "OSI URIBE"]),
        ("Osakidetza · ESI Araba-Arabako\n", ["ESI Araba-Arabako"]),
        # without the Basque health service, "ESI" is a triage level
        ("Triaje: nivel ESI 3. Pruebas ESI Score.", []),
    ],
)
def test_a_basque_integrated_health_organisation_is_an_institution(text, bodies):
    assert found(find_health_areas, text) == bodies


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Revisión con resultados jue 26 o vie 27.", ["jue 26", "vie 27"]),
        ("Endoscopia urgente ese mismo domingo.", ["domingo"]),
        ("Le verán en consulta este jueves con analítica.", ["jueves"]),
        ("dom 22 c/ Mayor", []),  # a home's label, not Sunday
    ],
)
def test_a_weekday_abbreviated_with_its_day_or_after_este_is_a_date(text, days):
    assert found(find_dates, text) == days


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("== 2026/12/01, asteartea ==\n[T] ingresa", "2026/12/01, asteartea"),
        ("== ostirala, 27-XI-2026 ==\n[M] tranquilo", "ostirala, 27-XI-2026"),
        ("== abenduaren 3a, osteguna / jueves 3/12 ==\n", "abenduaren 3a, osteguna"),
    ],
)
def test_a_basque_weekday_goes_with_its_date(text, date):
    spans = rule_layer("default").apply(text, [])
    assert date in [text[s.start : s.end] for s in spans if s.type == "FECHAS"]


def test_a_code_part_with_letters_takes_the_rest_of_its_code():
    from deid_crf.deid.recognizers.labelled_ids import ids_with_their_letters
    from deid_crf.text.spans import MODEL, PHISpan

    text = "(n.º notificación EDO-AR-26-00417). Informada la esposa."
    start = text.index("AR-26-00417")
    spans = [PHISpan(start, start + len("AR-26-00417"), "NUMERO_IDENTIF", 0.9, MODEL)]
    assert [text[s.start : s.end] for s in ids_with_their_letters(text, spans)] == ["EDO-AR-26-00417"]


@pytest.mark.parametrize(
    ("text", "bodies"),
    [
        ("Teleasistencia de Cruz Roja Alcañiz (terminal n.º 77).", ["Cruz Roja Alcañiz"]),
        ("Ayuda de Cáritas Lucena para la compra.", ["Cáritas Lucena"]),
        ("Voluntaria de Cruz Roja Española desde 2010.", ["Cruz Roja Española"]),
    ],
)
def test_a_charitys_local_branch_takes_its_town(text, bodies):
    assert found(find_institutions, text) == bodies


def test_a_health_area_numbered_in_roman_after_a_spaced_hyphen():
    text = "Servicio Murciano de Salud - Área III Lorca\nHospital Rafael Méndez\n"
    assert found(find_health_areas, text) == ["Área III Lorca"]


@pytest.mark.parametrize(
    ("text", "jobs"),
    [
        ("Llegó a Irún en 1970 a trabajar de\n    fresador en Talleres Bidasoa.", ["fresador"]),
        ("en Laredo desde 2012,\nlimpiadora de oficinas en Limpiezas Lolín SA.", ["limpiadora de oficinas"]),
        ("Social: fue panadera en la Panadería Goñi hasta 2015.", ["panadera"]),
        ("Después repartidor en Transportes Ebro hasta la jubilación.", ["repartidor"]),
        # not jobs: an adjective, a comparative, a participle
        ("La PCR fue positiva en Microbiología.", []),
        ("La lesión fue mayor en la RM de control.", []),
        ("Fue valorada en Urgencias del Hospital.", []),
    ],
)
def test_a_job_on_a_wrapped_line_or_before_its_workplace(text, jobs):
    from deid_crf.deid.recognizers.work import find_professions

    assert found(find_professions, text) == jobs


def test_a_relatives_name_at_the_next_line_of_a_wrapped_note():
    text = "Viene los fines de semana. Su cuñada,\n  Radostina Ivanova, natural de Varna, ayuda en casa."
    spans = rule_layer("default").apply(text, [])
    assert ("Radostina Ivanova", "FAMILIARES_SUJETO_ASISTENCIA") in [(text[s.start : s.end], s.type) for s in spans]


@pytest.mark.parametrize(
    ("text", "place", "expected"),
    [
        ("c/ Nueva, 3 - 31600 Burlada/Burlata\nMadre:", "Burlada", ["Burlada", "Burlata"]),
        ("natural de Codazzi (Cesar), procedente de", "Codazzi", ["Codazzi", "Cesar"]),
        ("33930 Felguera (Llangréu / Langreo)\nTfno", "Felguera", ["Felguera", "Llangréu", "Langreo"]),
        # a country is the country rules', an acronym or a service in brackets no place
        ("vive en Mérida (España) desde", "Mérida", ["Mérida"]),
        ("Hospital Militar de Santiago (HMS) por", "Santiago", ["Santiago"]),
        ("Buenos Aires (Laboratorio de Referencia Nacional) donde", "Buenos Aires", ["Buenos Aires"]),
    ],
)
def test_a_places_other_name_after_a_slash_or_in_brackets(text, place, expected):
    from deid_crf.deid.recognizers.places import other_names_of_places
    from deid_crf.text.spans import MODEL, PHISpan

    start = text.index(place)
    spans = other_names_of_places(text, [PHISpan(start, start + len(place), "TERRITORIO", 0.9, MODEL)])
    assert [text[s.start : s.end] for s in spans if s.type == "TERRITORIO"] == expected


@pytest.mark.parametrize(
    ("text", "streets"),
    [
        (
            "Colisión en la rotonda de la avenida de Burgos con la calle Río Tajo. Casco.",
            ["avenida de Burgos", "calle Río Tajo"],
        ),
        ("Se cayó mientras paseaba por la calle Mayor, sin pérdida de conciencia.", ["calle Mayor"]),
        # with its number, the address pattern's span; a kilometre point, a bullring: no street here
        ("vive en la calle Juan de Lanuza, 14, 2.º izda.", ["calle Juan de Lanuza, 14, 2.º izda"]),
        ("accidente en la carretera de Santa Agnès, km 2 hacia las tres", []),
        ("fue a la plaza de toros", []),
        ("guarda de finca en la finca Los Alcornocales hasta 2001.", ["finca Los Alcornocales"]),
    ],
)
def test_a_street_named_in_running_text_without_its_number(text, streets):
    from deid_crf.deid.recognizers.streets import find_streets

    assert found(find_streets, text) == streets


@pytest.mark.parametrize(
    ("text", "street"),
    [
        (
            "Dom. en España: Urb. Los Pinares, c/ Las Gardenias 12, 29600 Marbella\n",
            "Urb. Los Pinares, c/ Las Gardenias 12",
        ),
        (
            "vive solo en una masía (Mas de Bielsa, camino de Valmuel s/n), a 8 km",
            "Mas de Bielsa, camino de Valmuel s/n",
        ),
        ("Domicilio: Edificio Miramar, apto. 12, Avda. del Mar 4\n", "Edificio Miramar, apto. 12, Avda. del Mar 4"),
    ],
)
def test_an_estate_or_building_before_a_street_is_part_of_the_address(text, street):
    spans = rule_layer("default").apply(text, [])
    assert street in [text[s.start : s.end] for s in spans if s.type == "CALLE"]


def test_a_catalan_function_word_that_ends_a_span_is_cut_off():
    from deid_crf.text.spans import MODEL, PHISpan

    text = "S'ha comentat el cas amb el Dr. Puigvert per telèfon el dilluns."
    start = text.index("Puigvert per")
    spans = [PHISpan(start, start + len("Puigvert per"), "NOMBRE_PERSONAL_SANITARIO", 0.9, MODEL)]
    out = rule_layer("default").apply(text, spans)
    assert "Puigvert" in [text[s.start : s.end] for s in out if s.type == "NOMBRE_PERSONAL_SANITARIO"]


def test_a_kinship_word_before_a_phone_is_not_a_second_span_over_a_relative():
    text = "Pinos2026/11/24  hija 609 33 71 84"  # (no date there: "24  hija" is a numeral and a relative)
    spans = rule_layer("default").apply(text, [])
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))


@pytest.mark.parametrize(
    ("text", "part", "kept"),
    [
        ("Jubilado. Vive en la isla desde 2019 con su esposa.", "la isla", False),
        ("Rehabilitación con terapia en espejo dos veces al día.", "espejo", False),
        ("Vive en Lanzarote desde 2019 con su esposa.", "Lanzarote", True),
        # a note written in lower case throughout keeps its lower-case places
        (
            "vive en arrecife desde 2019. viene con su mujer. refiere mareo. no fuma. bebe poco. "
            "tensión bien. sigue igual. control en un mes.",
            "arrecife",
            True,
        ),
    ],
)
def test_a_place_written_in_lower_case_in_a_capitalised_note_is_no_place(text, part, kept):
    from deid_crf.text.spans import MODEL, PHISpan

    start = text.index(part)
    out = rule_layer("default").apply(text, [PHISpan(start, start + len(part), "TERRITORIO", 0.9, MODEL)])
    assert (part in [text[s.start : s.end] for s in out]) == kept


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Trabaja en el campo de octubre a marzo; el resto del año en la conserva.", []),
        ("Vive con su hija de noviembre a abril.", []),
        # with its year, a dated range
        ("Tratamiento de enero a marzo de 2024 sin incidencias.", ["enero", "marzo de 2024"]),
    ],
)
def test_two_bare_months_bounding_a_yearly_season_are_no_dates(text, kept):
    from deid_crf.text.spans import MODEL, PHISpan

    spans = []
    for month in ("octubre", "marzo", "noviembre", "abril", "enero"):
        if month in text:
            start = text.index(month)
            end = start + len(month)
            if text.startswith("marzo de 2024", start):
                end = start + len("marzo de 2024")
            spans.append(PHISpan(start, end, "FECHAS", 0.9, MODEL))
    out = rule_layer("default").apply(text, sorted(spans))
    assert [text[s.start : s.end] for s in out if s.type == "FECHAS"] == kept


def test_the_duty_court_without_its_town_is_no_institution():
    from deid_crf.deid.recognizers.non_entities import is_generic_court
    from deid_crf.text.spans import MODEL, PHISpan

    text = "PARTE AL JUZGADO DE GUARDIA / INFORME\nRemitido al Juzgado de Guardia de Tudela."
    generic = PHISpan(9, 27, "INSTITUCION", 0.9, MODEL)
    start = text.index("Juzgado de Guardia de Tudela")
    named = PHISpan(start, start + len("Juzgado de Guardia de Tudela"), "INSTITUCION", 0.9, MODEL)
    assert text[generic.start : generic.end] == "JUZGADO DE GUARDIA"
    assert is_generic_court(text, generic) and not is_generic_court(text, named)
