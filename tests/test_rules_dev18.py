"""Rules for what the guide splits dev–dev20 still missed at the stop after 32a024a: towns after
addresses, datelines and dashes, weekday headings, patients before their age, surnames before a
given name, staff fields and numbers, nicknames, hospitals abroad and their towns, hospital
acronyms after a specialty, employers, plates, foreign addresses, sample codes, jobs, feasts,
bodies and relatives' ages."""

from __future__ import annotations

import pytest
from conftest import rule_layer_spans

spans_of = rule_layer_spans


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


# --------------------------------------------------------------- jobs


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("SITUACIÓN SOCIOFAMILIAR\nAgricultor y viticultor jubilado; fue socio de la cooperativa.", "Agricultor"),
        ("RESUMEN CLÍNICO\nEstibador de la Autoridad Portuaria de Ceuta. HTA.", "Estibador"),
        ("Trabajó en la mina hasta el cierre, luego conserje en el Ajuntament de Lloseta.", "conserje"),
    ],
)
def test_a_listed_job_opening_a_sentence_or_after_luego(text, job):
    assert (job, "PROFESION") in spans_of(text)


@pytest.mark.parametrize(
    "text",
    [
        "Cirujano: Dr. Íñigo Arce.\nAyudante: Dra. Covadonga Menéndez Riera (MIR-4)",  # a form's label
        "Química sanguínea: glucosa 80 mg/dl.",
        "Monitor: Fresenius 5008S.",
        "Agricultor y no fuma.",  # "y" and a word that is no job
    ],
)
def test_a_job_word_that_labels_a_field_or_goes_on_is_not_taken(text):
    assert not [s for s in spans_of(text) if s[1] == "PROFESION"]


# --------------------------------------------------------------- patients before their age


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Te paso por teledermatología a Taras Hnatiuk, varón de 46 años, natural de Ternópil.", "Taras Hnatiuk"),
        ("Valoramos hoy a Ngozi Okafor, mujer de 38 años, por fiebre.", "Ngozi Okafor"),
        ("Acude la Sra. Dobre Ionescu, de 71 años, por disnea.", "Dobre Ionescu"),
    ],
)
def test_a_patient_named_before_their_sex_and_age(text, name):
    assert (name, "NOMBRE_SUJETO_ASISTENCIA") in spans_of(text)


def test_the_name_before_the_age_is_found_again_elsewhere():
    text = "Asunto: Telederma — Taras Hnatiuk — lesión\n\nTe paso a Taras Hnatiuk, varón de 46 años."
    assert [s for s in spans_of(text) if s == ("Taras Hnatiuk", "NOMBRE_SUJETO_ASISTENCIA")] == [
        ("Taras Hnatiuk", "NOMBRE_SUJETO_ASISTENCIA")
    ] * 2


@pytest.mark.parametrize(
    "text",
    [
        "Llamamos a su hija a Rosa Gil, de 40 años, para informarla.",  # a relative's
        "Derivado a Medicina Interna, varón de 46 años con fiebre.",  # clinical words, no name
        "Ingresa en Planta Baja, de 40 años de antigüedad.",  # after "en"
    ],
)
def test_no_patient_before_an_age_where_none_is_named(text):
    assert not [s for s in spans_of(text) if s[1] == "NOMBRE_SUJETO_ASISTENCIA"]


# --------------------------------------------------------------- hospitals abroad and their town


@pytest.mark.parametrize(
    ("text", "hospital", "town"),
    [
        ("Álvaro, enfermero en el Hospital de Santa Maria de Lisboa, y Rocío.", "Hospital de Santa Maria", "Lisboa"),
        ("Histerectomía en la Clínica Comfamiliar de Pereira (Colombia) en 2010.", "Clínica Comfamiliar", "Pereira"),
        (
            "Natural de Bath (Reino Unido). Hernioplastia en el\nRoyal United Hospital de Bath en 1998.",
            "Royal United Hospital",
            "Bath",
        ),
    ],
)
def test_a_hospital_abroad_and_its_town_are_two_spans(text, hospital, town):
    whole = text[text.index(hospital) : text.index(town, text.index(hospital)) + len(town)]
    found = spans_of(text, [(whole, "HOSPITAL")])
    assert (hospital, "HOSPITAL") in found
    assert (town, "TERRITORIO") in found


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # a hospital named after its place
        ("Operado en el Hospital Universitario de Navarra en 2010.", "Hospital Universitario de Navarra"),
        ("Ingresó en el Hospital Marqués de Valdecilla en 2010.", "Hospital Marqués de Valdecilla"),  # no place known
        ("Hospital Clínico de Pereira\nServicio de Cardiología", "Hospital Clínico de Pereira"),  # a letterhead
    ],
)
def test_a_hospital_whose_de_is_its_own_stays_whole(text, name):
    assert (name, "HOSPITAL") in spans_of(text, [(name, "HOSPITAL")])


# --------------------------------------------------------------- employers, plates, names


@pytest.mark.parametrize(
    ("text", "company"),
    [
        ("casada con su hijo Pere, mecánico en\nTalleres Vilamala SL de Torelló.", "Talleres Vilamala SL"),
        (
            "Camionero de 44 años, empleado de TransCarpatia Logistic SRL. Traído por el 061.",
            "TransCarpatia Logistic SRL",
        ),
    ],
)
def test_an_employer_after_a_listed_job_or_with_a_romanian_form(text, company):
    assert (company, "OTROS_SUJETO_ASISTENCIA") in spans_of(text)


def test_a_maker_after_no_job_is_no_employer():
    text = "Se coloca sistema VAC (KCI Clinic Spain SL) en la herida."
    assert not [s for s in spans_of(text) if s[1] == "OTROS_SUJETO_ASISTENCIA"]


@pytest.mark.parametrize(
    ("text", "plates"),
    [
        ("airbag activado. Tractora SV 12 DRG y\nsemirremolque SV 44 DRM.\nLlegó", ["SV 12 DRG", "SV 44 DRM"]),
        ("turismo (Volvo XC40, matrícula noruega EL 48213) por la N-332", ["EL 48213"]),
    ],
)
def test_a_foreign_plate_right_after_the_word_for_a_plate(text, plates):
    found = spans_of(text)
    assert [s for s, t in found if t == "IDENTIF_VEHICULOS_NRSERIE_PLACAS"] == plates


@pytest.mark.parametrize("text", ["Cultivo en placa de Petri 24 h.", "Placa ateromatosa C3 en la carótida."])
def test_no_plate_after_a_plaque(text):
    assert not [s for s in spans_of(text) if s[1] == "IDENTIF_VEHICULOS_NRSERIE_PLACAS"]


@pytest.mark.parametrize(
    ("text", "given", "surnames"),
    [
        ("Gaixoa / Paciente ........... AIT OUAHMANE, MOHAMED\nAdina / Edad ........ 52", "MOHAMED", "AIT OUAHMANE"),
        ("Impreso 09/11/2026\nPACIENTE  PETROV, STOYAN GEORGIEV\nNHC 600413", "STOYAN GEORGIEV", "PETROV"),
    ],
)
def test_surnames_in_capitals_before_the_given_name_the_model_found(text, given, surnames):
    found = spans_of(text, [(given, "NOMBRE_SUJETO_ASISTENCIA")])
    assert (surnames, "NOMBRE_SUJETO_ASISTENCIA") in found
    assert not [s for s, t in found if s.startswith("PACIENTE")]


def test_no_surnames_from_a_label_in_capitals():
    text = "SERVICIO DE URGENCIAS, MOHAMED\n"
    found = spans_of(text, [("MOHAMED", "NOMBRE_SUJETO_ASISTENCIA")])
    assert found == [("MOHAMED", "NOMBRE_SUJETO_ASISTENCIA")]


@pytest.mark.parametrize(
    ("text", "nick"),
    [
        ("Paciente de 66 anos, prefire que lle chamen Manolita. Traballou de redeira.", "Manolita"),
        ("que es quien la cuida. La llaman Pili. Trabajó de joven", "Pili"),
        ("natural de Degaña; conocido en el\npueblo como Tinón. Portador de marcapasos", "Tinón"),
        ("PUIGDOLLERS I ROVIRA, MONTSERRAT  (li diuen Montse)\nCIP:", "Montse"),
    ],
)
def test_the_name_someone_is_called_by(text, nick):
    assert (nick, "NOMBRE_SUJETO_ASISTENCIA") in spans_of(text)


def test_what_the_literature_calls_something_is_no_name():
    text = "Cuadro conocido en la literatura como Síndrome de Tietze."
    assert not [s for s in spans_of(text) if s[1] == "NOMBRE_SUJETO_ASISTENCIA"]


def test_working_when_young_is_no_job():
    text = "Trabajó de joven como envasadora en Conservas Lasheras SA."
    found = spans_of(text)
    assert ("envasadora", "PROFESION") in found
    assert not [s for s, t in found if t == "PROFESION" and "joven" in s]


# --------------------------------------------------------------- addresses abroad, feasts


@pytest.mark.parametrize(
    ("text", "street", "places"),
    [
        (
            "DOMICILIO: STR. ȘTEFAN CEL MARE 41, BL. 3, AP. 12, 720004 SUCEAVA (RUMANÍA)\n",
            "STR. ȘTEFAN CEL MARE 41, BL. 3, AP. 12",
            ["720004", "SUCEAVA"],
        ),
        ("Domicilio: Lugar de Vallinas, 4, Tinéu / Tineo. Teléfono", "Lugar de Vallinas, 4", ["Tinéu", "Tineo"]),
        (
            "Alojamiento: Apartamentos Brisa del Sur, apto. 312, Los Cristianos\nContacto",
            "Apartamentos Brisa del Sur, apto. 312",
            ["Los Cristianos"],
        ),
    ],
)
def test_the_town_after_an_address_with_a_flat_a_long_postcode_or_two_names(text, street, places):
    whole = text[text.index(street) : text.index(places[-1]) + len(places[-1])]
    found = spans_of(text, [(whole, "CALLE")])
    assert (street, "CALLE") in found
    assert [s for s, t in found if t == "TERRITORIO"] == places


def test_a_neighbourhood_after_a_bare_house_number_stays_in_the_street():
    text = "Domicilio: Paseo de la Reforma 476, Juárez\n"
    assert spans_of(text, [("Paseo de la Reforma 476, Juárez", "CALLE")]) == [
        ("Paseo de la Reforma 476, Juárez", "CALLE")
    ]


@pytest.mark.parametrize(
    ("text", "feast"),
    [
        ("Acude el lunes 12 de octubre (Día de la Hispanidad) por dolor.", "Día de la Hispanidad"),
        ("empeoró claramente a partir de la Castanyada, tras varios días", "Castanyada"),
        ("si podrá estar en casa para la Fiesta del Medio Otoño; la familia", "Fiesta del Medio Otoño"),
        ("Quiere viajar a Holanda para Sinterklaas con los nietos.", "Sinterklaas"),
    ],
)
def test_national_regional_and_other_calendars_feasts(text, feast):
    assert (feast, "FECHAS") in spans_of(text)


@pytest.mark.parametrize(
    "text", ["con fallas en memoria y fallas ejecutivas", "vive en la calle de Sant Jordi, 3", "Hospital San Fermín"]
)
def test_a_word_or_a_saint_that_names_no_feast_alone(text):
    assert not [s for s in spans_of(text) if s[1] == "FECHAS"]


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("oxígeno domiciliario (concentrador de Oxigen Salud, n.º serie CX51).", "Oxigen Salud"),
        ("se avisa al servicio de prevención (Quirónprevención) con su consentimiento.", "Quirónprevención"),
        ("La Guardia Civil (SEPRONA) pide copia del informe.", "SEPRONA"),
        ("Acude a la Fundación Secretariado Gitano para el empleo.", "Fundación Secretariado Gitano"),
    ],
)
def test_more_bodies_a_patient_deals_with(text, body):
    assert (body, "INSTITUCION") in spans_of(text)


@pytest.mark.parametrize(
    ("text", "acronym"),
    [
        ("izquierdo, tratada por Oftalmología del HMO.\n\nAntecedentes", "HMO"),
        ("> Cardiología — HVP — ext. 2231", "HVP"),
        ("Marta Revuelta · Medicina Interna · HCL\n", "HCL"),
        ("al servicio de urgencias del HSJD por dolor", "HSJD"),
    ],
)
def test_a_hospital_acronym_after_a_specialty(text, acronym):
    assert (acronym, "HOSPITAL") in spans_of(text)


@pytest.mark.parametrize(
    "text",
    [
        "Cardiología - HTA controlada con enalapril.",
        "curación quirúrgica de HPT 1o, desde valor basal",
        "MEDICINA INTERNA - HOJA DE EVOLUCIÓN CLÍNICA",
        "Revisado por cardio hci en consulta.",  # lower case only in a note in lower case
    ],
)
def test_a_clinical_acronym_or_a_line_of_capitals_after_a_specialty_is_no_hospital(text):
    assert not [s for s in spans_of(text) if s[1] == "HOSPITAL"]


def test_a_staff_name_before_the_bracket_of_their_employee_number():
    text = "  Técnico             Iosu Larraona Echarri (n.º E-70119)\n  Solicitante         Dra. Ane Goñi"
    found = spans_of(
        text,
        [("Técnico             Iosu Larraona Echarri", "CENTRO_SALUD"), ("E-70119", "ID_EMPLEO_PERSONAL_SANITARIO")],
    )
    assert ("Iosu Larraona Echarri", "NOMBRE_PERSONAL_SANITARIO") in found


@pytest.mark.parametrize(
    "text",
    [
        "Dra. Encarnación López, FEA Hematología (nº col. 181810234). MIR: Álvaro Funes.",
        "Informe del Servicio de Radiología (n.º 40881).",
    ],
)
def test_a_post_or_a_service_before_a_number_is_no_staff_name(text):
    number = "181810234" if "181810234" in text else "40881"
    found = spans_of(text, [(number, "ID_TITULACION_PERSONAL_SANITARIO")])
    assert not [
        s for s, t in found if t == "NOMBRE_PERSONAL_SANITARIO" and ("FEA" in s or "Servicio" in s or "Hemato" in s)
    ]


_LOWER_CASE_NOTE = (
    "motivo: intoxicacion.\nen españa desde 2019, antes 2 años en italia (foggia).\n"
    "dom: c/ del castillo 9, 2º b - abarán   tlf 642 118 093\nhosp. de la vega lorenzo guirao - cieza // urgencias\n"
    "viene con su hijo.\nno alergias.\nsin tratamiento.\nsigue igual.\nse va a casa.\nfirma la alta.\n"
)


@pytest.mark.parametrize("town", ["foggia", "abarán", "cieza"])
def test_places_in_a_lower_case_note_after_a_country_or_a_dash(town):
    model = [("c/ del castillo 9, 2º b", "CALLE"), ("hosp. de la vega lorenzo guirao", "HOSPITAL"), ("italia", "PAIS")]
    assert (town, "TERRITORIO") in spans_of(_LOWER_CASE_NOTE, model)


def test_a_listed_town_after_a_hospital_and_a_dash():
    text = "Hospital Comarcal de Vinaròs - Vinaròs\nServicio de Urgencias"
    found = spans_of(text, [("Hospital Comarcal de Vinaròs", "HOSPITAL")])
    assert found[-1] == ("Vinaròs", "TERRITORIO")


@pytest.mark.parametrize(
    "text",
    [
        "Hospital Clínic La Fe\nHospital de Dia Oncològic — Torre A, planta 1",  # a building
        "Vive en España (Madrid).",
    ],
)
def test_no_dashed_town_where_the_field_goes_on(text):
    found = spans_of(text, [("Hospital de Dia Oncològic", "HOSPITAL")] if "Torre" in text else [])
    assert ("Torre", "TERRITORIO") not in found


# --------------------------------------------------------------- from dev19's misses


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Triatge\n  Nivell: 2 (taronja)\n  Infermera: C. Pons   núm. E31077\n", "C. Pons"),
        ("Metge responsable: Jordi Puig Vidal\n", "Jordi Puig Vidal"),
        ("Erizaina: Miren Etxeberria\n", "Miren Etxeberria"),
    ],
)
def test_staff_fields_in_the_co_official_languages_and_an_initial(text, name):
    assert (name, "NOMBRE_PERSONAL_SANITARIO") in spans_of(text)


def test_a_plate_on_the_line_after_the_word_for_it():
    text = "Es titular de un turismo (matrícula\n6612 DFR) que lleva aparcado"
    assert ("6612 DFR", "IDENTIF_VEHICULOS_NRSERIE_PLACAS") in spans_of(text)


def test_a_lower_case_town_after_an_address_in_a_lower_case_note():
    text = (
        "motivo: colico renal.\ndom: c/ juan muñoz 14, ático b, leganés   tlf 689 204 551\nviene con su hijo.\n"
        "no alergias.\nsin tratamiento.\nsigue igual.\nse va a casa.\nfirma la alta.\nbebe poco.\nrepartidor.\n"
    )
    found = spans_of(text, [("c/ juan muñoz 14, ático b", "CALLE")])
    assert ("leganés", "TERRITORIO") in found


@pytest.mark.parametrize(
    "name", ["Hospital Distrital de Bragança", "Hospital San Pedro de Alcántara", "Hospital San Juan de Dios"]
)
def test_a_hospital_named_after_its_district_or_a_saint_of_a_place_stays_whole(name):
    text = f"Revisado en el {name} en 2024."
    assert (name, "HOSPITAL") in spans_of(text, [(name, "HOSPITAL")])


@pytest.mark.parametrize(
    ("text", "street", "postcode", "town"),
    [
        ("Adreça a Bèlgica .... Kerkstraat 41, 9000 Gent\nTelèfons .... 665 08 31 74", "Kerkstraat 41", "9000", "Gent"),
        ("Domicilio en Alemania: Hauptstraße 12, 80331 München\n", "Hauptstraße 12", "80331", "München"),
    ],
)
def test_a_foreign_address_whose_country_the_label_names(text, street, postcode, town):
    found = spans_of(text)
    assert (street, "CALLE") in found
    assert (postcode, "TERRITORIO") in found
    assert (town, "TERRITORIO") in found


def test_an_address_in_spain_after_such_a_label_is_left_to_the_other_rules():
    from deid_crf.deid.recognizers.places import find_foreign_addresses

    assert list(find_foreign_addresses("Domicilio en España: Calle Mayor 12, 28001 Madrid\n")) == []


def test_two_staff_names_after_one_label_split_at_a_spaced_slash():
    text = "Recibe: Ginés Tomás Belmonte\nTCAE noche: Loli / Mari Ángeles\n"
    found = spans_of(text, [("Loli / Mari Ángeles", "NOMBRE_PERSONAL_SANITARIO")])
    assert ("Loli", "NOMBRE_PERSONAL_SANITARIO") in found
    assert ("Mari Ángeles", "NOMBRE_PERSONAL_SANITARIO") in found


def test_a_job_in_capitals_opening_a_line_before_where_it_is_done():
    text = "ANAMNESIS\nINSTRUCTOR DE BUCEO EN BUCEO PUNTA RESTINGA SL. A LAS 11:10 HA SALIDO"
    assert ("INSTRUCTOR DE BUCEO", "PROFESION") in spans_of(text)


def test_relatives_ages_in_brackets_each_with_its_unit():
    text = "La hija vive con su marido y dos niños pequeños (3 años y 18 meses); teléfono 654 902 117."
    found = spans_of(text, [("dos niños pequeños", "FAMILIARES_SUJETO_ASISTENCIA")])
    assert ("3 años", "FAMILIARES_SUJETO_ASISTENCIA") in found
    assert ("18 meses", "FAMILIARES_SUJETO_ASISTENCIA") in found


def test_a_bracket_after_a_relative_with_no_age_adds_none():
    text = "Vive con su hijo (mayor) y la nuera (enfermera)."
    assert [s for s, t in spans_of(text) if t == "FAMILIARES_SUJETO_ASISTENCIA"] == ["hijo", "nuera"]


# --------------------------------------------------------------- from dev20's misses


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("pCO2 54. Cultivo de esputo (MB26-119034): H. influenzae sensible.", "MB26-119034"),
        ("ESTUDIO N.º: Q26/11847                 TIPO: PIEZA", "Q26/11847"),
        ("hemocultivos (H26-00418) E. coli", "H26-00418"),
        ("de Microbiología (Majadahonda), muestra\nCNM26/118734: IgM fase II", "CNM26/118734"),
        ("Vídeo-EEG n.º VEEG26-0142\n", "VEEG26-0142"),
    ],
)
def test_a_samples_or_a_studys_code(text, code):
    assert (code, "ID_CONTACTO_ASISTENCIAL") in spans_of(text)


@pytest.mark.parametrize("text", ["estudio de 2019-2020 en la cohorte", "Cultivo en medio MH-2 a 37 ºC"])
def test_no_sample_code_where_none_is_written(text):
    assert not [s for s in spans_of(text) if s[1] == "ID_CONTACTO_ASISTENCIAL"]


def test_a_number_sign_left_in_a_span_is_cut():
    text = "Cultivo del líquido pleural (n.º 26M-08817): Streptococcus intermedius."
    assert ("26M-08817", "ID_CONTACTO_ASISTENCIAL") in spans_of(text, [("º 26M", "CALLE")])


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("su neta Aina es\ninfermera en el Hospital Universitari Son Espases.", "infermera"),
        ("Es camarero en un hotel de Calvià.", "camarero"),
    ],
)
def test_a_listed_job_after_es_before_where_it_is_done(text, job):
    assert (job, "PROFESION") in spans_of(text)


def test_es_before_an_adjective_is_no_job_cue():
    assert not [s for s in spans_of("El dolor es importante en la zona.") if s[1] == "PROFESION"]


@pytest.mark.parametrize(
    ("text", "job", "employer"),
    [
        ("a la vuelta entró como maquinista\nen Renfe y allí siguió hasta jubilarse.", "maquinista", "Renfe"),
        ("operario de matadero\nen Carns de l'Empordà SL (Vilafant).", "operario de matadero", "Carns de l'Empordà SL"),
        ("Fue práctico de puerto\nen Port of Antwerp toda su vida laboral.", "práctico de puerto", "Port of Antwerp"),
    ],
)
def test_an_employer_after_a_job_across_a_wrapped_line_and_with_catalan_or_english_particles(text, job, employer):
    assert (employer, "OTROS_SUJETO_ASISTENCIA") in spans_of(text, [(job, "PROFESION")])


def test_a_basque_weekday_in_brackets_after_a_date_is_a_date_of_its_own():
    text = "Data / Fecha: 2026/11/24 (asteartea)      Lehentasuna / Prioridad: ohikoa"
    found = spans_of(text, [("2026/11/24", "FECHAS")])
    assert ("2026/11/24", "FECHAS") in found
    assert ("asteartea", "FECHAS") in found


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("|---|---|---|\n| 9/11 | T | Chega da unidade |\n", "9/11"),
        ("Dr. Aitor Suárez\n\n24/XI\nHa dormido.", "24/XI"),
        ("Dra. Leyre (guardia)\n\n29-X. Trabajo Social.\nEntrevista", "29-X"),
    ],
)
def test_a_short_day_month_opening_a_row_and_a_roman_heading(text, date):
    assert (date, "FECHAS") in spans_of(text)


@pytest.mark.parametrize("text", ["|  1/2 | comprimido |\n", "| Kapandji | 8/10 |\n", "Grado 3-IV de la escala"])
def test_no_date_from_a_fraction_a_score_or_a_grade(text):
    assert not [s for s in spans_of(text) if s[1] == "FECHAS"]
