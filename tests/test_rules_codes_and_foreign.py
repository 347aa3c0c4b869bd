"""Rules for forms the sixth guide split (dev6) showed: abbreviated weekdays before a day
and month, codes whose letters the model cut off, shortened surnames, bilingual labels,
biometric codes, foreign home addresses and national numbers."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.dates import find_dates
from deid_crf.deid.recognizers.foreign_hospitals import find_foreign_hospitals
from deid_crf.deid.recognizers.institutions import find_health_centres
from deid_crf.deid.recognizers.labelled_ids import find_biometric_codes, find_labelled_ids, labels_cut_from_ids
from deid_crf.deid.recognizers.names import completed_names, find_labelled_patients, titled_staff
from deid_crf.deid.recognizers.places import find_foreign_addresses, find_home_places, towns_before_countries
from deid_crf.deid.recognizers.relatives import relatives
from deid_crf.deid.recognizers.sex import find_labelled_sex
from deid_crf.deid.recognizers.signatures import entry_initials
from deid_crf.deid.rules import RuleLayer, propagate_names
from deid_crf.text.spans import MODEL, PHISpan

STAFF = "NOMBRE_PERSONAL_SANITARIO"
STREET = "CALLE"
TERRITORY = "TERRITORIO"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"


def span(text: str, value: str, type_: str) -> PHISpan:
    at = text.index(value)
    return PHISpan(at, at + len(value), type_, 0.9, MODEL)


def shown(text: str, spans) -> list[tuple[str, str]]:
    return [(text[s[0] : s[1]], s[2]) if isinstance(s, tuple) else (text[s.start : s.end], s.type) for s in spans]


@pytest.mark.parametrize(
    "text, want",
    [
        ("| fecha | turno |\n| jue 12/02 | M |\n", ["jue 12/02"]),
        ("Control: sáb. 14/02, sin cambios.", ["sáb. 14/02"]),
        ("data: dl. 16/03/2026\n", ["dl. 16/03/2026"]),
        ("Fecha: dt., 10 de febr. 2026 9:41\n", ["dt., 10 de febr. 2026"]),
        # a Catalan "since" and "seven", and a weekday's abbreviation without a date after it
        ("Viu sol des de 2020 i set de cada deu dies surt.", ["2020"]),
        ("Ve el dc 12 de la lista.", []),
        # not a day/month: 31/02
        ("jue 31/02 control", []),
    ],
)
def test_abbreviated_weekdays_open_a_date(text, want):
    assert [text[a:b] for a, b, _ in find_dates(text)] == want


@pytest.mark.parametrize(
    "text, value, type_, want",
    [
        ("Cultivo de esputo (M25118340) positivo.", "25118340", "ID_CONTACTO_ASISTENCIAL", "M25118340"),
        ("electrodos n.º BBL4471029V.", "4471029V", "IDENTIF_DISPOSITIVOS_NRSERIE", "BBL4471029V"),
        # a prefix over a hyphen is left alone, and so is a label glued to the number
        ("NHC: HC-0045123", "0045123", "ID_SUJETO_ASISTENCIA", "0045123"),
        ("ref. TD-2023-08817", "2023-08817", "ID_CONTACTO_ASISTENCIAL", "2023-08817"),
        ("historia NHC0045123 abierta", "0045123", "ID_SUJETO_ASISTENCIA", "0045123"),
        # MEDDOCAN's lower-case label prefix
        ("CIPA: nhc-150679.", "150679", "ID_SUJETO_ASISTENCIA", "150679"),
        # not an identifier: a place glued to capitals is not touched
        ("en UCIMadrid ingresó", "Madrid", TERRITORY, "Madrid"),
    ],
)
def test_joined_capitals_belong_to_the_code(text, value, type_, want):
    (out,) = labels_cut_from_ids(text, [span(text, value, type_)])
    assert text[out.start : out.end] == want


def test_a_street_that_holds_a_label_is_cut_to_its_value():
    text = "Dña. Rosa Ruiz-Poveda Lara · Col. n.º 13-0456 · ext. 3321"
    (out,) = labels_cut_from_ids(text, [span(text, "Col. n.º 13-0456", STREET)])
    assert (text[out.start : out.end], out.type) == ("13-0456", "ID_TITULACION_PERSONAL_SANITARIO")
    text = "Vive en Calle Mayor nº 5, 2º izda."
    (out,) = labels_cut_from_ids(text, [span(text, "Calle Mayor nº 5, 2º izda", STREET)])
    assert text[out.start : out.end] == "Calle Mayor nº 5, 2º izda"


def test_a_name_runs_on_over_a_shortened_surname_and_the_next_one():
    text = "Circulante: Jesús Fdez. Ortín · Técnico: Laura Fdez. Prieto\n| Ayoze Rguez. |\n"
    spans = [
        span(text, "Jesús Fdez", STAFF),
        span(text, "Ortín", TERRITORY),
        span(text, "Laura Fdez", STAFF),
        span(text, "Ayoze Rguez", STAFF),
    ]
    assert shown(text, completed_names(text, spans)) == [
        ("Jesús Fdez. Ortín", STAFF),
        ("Laura Fdez. Prieto", STAFF),
        ("Ayoze Rguez", STAFF),  # the dot that closes a cell stays out
    ]


def test_a_bilingual_patient_label_with_dot_leaders():
    text = "Pacient / Paciente ........ BIANCHI, Giulia Francesca\nSIP ....... 40918237\n"
    assert shown(text, find_labelled_patients(text)) == [("BIANCHI", "NOMBRE_SUJETO_ASISTENCIA")]


@pytest.mark.parametrize(
    "text, want",
    [
        (
            "Núm. estudi ......... RX26/0088412      Núm. petició: 4471902\n",
            [
                ("RX26/0088412", "ID_CONTACTO_ASISTENCIAL"),
                ("4471902", "ID_CONTACTO_ASISTENCIAL"),
            ],
        ),
        ("Enf. triaje: Rocío Navarrete (n.º emp. 71904)", [("71904", "ID_EMPLEO_PERSONAL_SANITARIO")]),
        ("la mutua (Asepeyo), n.º de parte 26-118204, y", [("26-118204", "OTROS_SUJETO_ASISTENCIA")]),
        ("IT por contingencia común (parte n.º 0726031601884)", [("0726031601884", "OTROS_SUJETO_ASISTENCIA")]),
        ("con código de participante BLV0217. El", [("BLV0217", "NUMERO_IDENTIF")]),
        (
            "Pasaporte: 91448207 | Personnummer: 440919-3386 |",
            [
                ("91448207", "ID_SUJETO_ASISTENCIA"),
                ("440919-3386", "ID_SUJETO_ASISTENCIA"),
            ],
        ),
        # words, not labels
        ("Se da el parte de lesiones al juzgado.", []),
        ("El paciente forma parte del estudio.", []),
    ],
)
def test_more_labels(text, want):
    assert shown(text, find_labelled_ids(text)) == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("lo identifica mediante reseña dactilar (n.º 28-0217734) como", ["28-0217734"]),
        ("registro de huella plantar (HP2510250641) junto a", ["HP2510250641"]),
        ("Firma electrónica biométrica del facultativo (ID de trazo): FS90371A55E2\n", ["FS90371A55E2"]),
        ("perfil genético de STR (código 26GX0193), concordante", ["26GX0193"]),
        ("IDENTIFICADO POR HUELLA DACTILAR (HD-0047-2291)", ["HD-0047-2291"]),
        # a date, a year, a code in the next sentence: none
        ("huella digital el 12-03-2024.", []),
        ("firma biométrica en 2024. Muestra B25-004471.", []),
        ("Se toma la huella.\nNHC 4471223", []),
    ],
)
def test_biometric_codes(text, want):
    assert [text[a:b] for a, b, _ in find_biometric_codes(text)] == want


@pytest.mark.parametrize(
    "text, want",
    [
        (
            "Dom. habitual: Storgatan 14 B, 252 25 Helsingborg (Suecia)\n",
            [("Storgatan 14 B", STREET), ("252 25", TERRITORY), ("Helsingborg", TERRITORY)],
        ),
        (
            "Domicilio habitual: Kerkstraat 118, 3581 RK Utrecht (Países Bajos)\n",
            [("Kerkstraat 118", STREET), ("3581 RK", TERRITORY), ("Utrecht", TERRITORY)],
        ),
        (
            "Address: 14 Elm Road, SW1A 1AA London, Reino Unido",
            [("14 Elm Road", STREET), ("SW1A 1AA", TERRITORY), ("London", TERRITORY)],
        ),
        # Spain, or no country at all: the Spanish street rules' and the model's
        ("Domicilio: Calle Mayor 3, 28001 Madrid (España)", []),
        ("Domicilio: Kerkstraat 118, 3581 RK Utrecht\n", []),
    ],
)
def test_foreign_home_addresses(text, want):
    assert shown(text, find_foreign_addresses(text)) == want


def test_a_foreign_postcode_read_as_a_phone_becomes_the_address_pieces():
    text = "Dom. habitual: Storgatan 14 B, 252 25 Helsingborg (Suecia)\n"
    spans = RuleLayer().apply(text, [span(text, "252 25 Helsingborg", "NUMERO_TELEFONO")])
    assert ("252 25", TERRITORY) in shown(text, spans)
    assert ("Helsingborg", TERRITORY) in shown(text, spans)
    assert all(s.type != "NUMERO_TELEFONO" for s in spans)


def test_initials_that_sign_bold_entries():
    text = "**02/03 — IZG**\nIngresa.\n**mar 03-mar — IZG**\nNoche.\n**vie 06/03 — AMO** (busca 4762)\nBien.\n"
    assert shown(text, entry_initials(text, [])) == [("IZG", STAFF), ("IZG", STAFF)]


def test_an_organisation_does_not_run_on_over_the_first_day_of_a_stay():
    text = "Estancia en la Residencia Santa Clara del 16 al 27 de febrero.\n"
    spans = RuleLayer().apply(text, [span(text, "Residencia Santa Clara del 16", "INSTITUCION")])
    assert ("Residencia Santa Clara", "INSTITUCION") in shown(text, spans)


@pytest.mark.parametrize(
    "text, want",
    [
        ("Tfno.: 988 46 21 53 · móbil da filla: 639 88 14 02\n", ["filla"]),
        ("el coche. tel hija 659 30 12 85.", ["hija"]),
        ("| vie 13/02 | T | Educación sanitaria a la hija: manejo del equipo |", ["hija"]),
        ("Le cuida la güela; el peque va a la guardería.", ["güela", "peque"]),
        # field labels stay labels
        ("Madre: María\nHija: 600 11 22 33\n", []),
        ("Nombre elegido por los padres: Aminata\n", []),
    ],
)
def test_relatives_before_a_colon_and_in_phone_labels(text, want):
    assert [text[s.start : s.end] for s in relatives(text, [])] == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("y tratada en el Policlinico di Sant'Orsola (mastectomía).", ["Policlinico di Sant'Orsola"]),
        ("Cataratas intervenidas en el Helsingborgs lasarett (2018).", ["Helsingborgs lasarett"]),
        ("el Ospedale San Raffaele di Milano", ["Ospedale San Raffaele"]),
        ("operado en el Klinikum Großhadern en 2019", ["Klinikum Großhadern"]),
        # Spanish and English heads are the model's
        ("Urgencias Hospital La Paz; St Thomas' Hospital", []),
    ],
)
def test_foreign_hospitals(text, want):
    assert [text[a:b] for a, b, _ in find_foreign_hospitals(text)] == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("Nació en Riberalta (Bolivia) y vive en España", ["Riberalta"]),
        ("trabajó para Rolls-Royce en Derby\n(Reino Unido). Vive", ["Derby"]),
        ("FAMILIA ORIGINARIA DE WENZHOU (CHINA).", ["WENZHOU"]),
        ("natural de\nCochabamba (Bolivia), que", ["Cochabamba"]),
        # not a country in the brackets; the end of a longer name; a field
        ("vino desde Valencia (estado Carabobo, Venezuela)", []),
        ("Hospital Ramón y Cajal (España)", []),
        ("Sexo (M)", []),
    ],
)
def test_a_place_right_before_its_country_in_brackets(text, want):
    assert [text[s.start : s.end] for s in towns_before_countries(text, [])] == want


def test_a_place_before_a_country_where_a_span_is_stays_that_span():
    text = "tratado en el Hospital Ramón y Cajal (España)"
    model = [span(text, "Hospital Ramón y Cajal", "HOSPITAL")]
    assert shown(text, towns_before_countries(text, model)) == [("Hospital Ramón y Cajal", "HOSPITAL")]


@pytest.mark.parametrize(
    "text, want",
    [
        ("TC de macizo facial (Dr. Bensimón, radiólogo de guardia): fractura", ["Bensimón"]),
        ("con la Doctora Ruiz de la Serna en Urología", ["Ruiz de la Serna"]),
        ("Remitido por: Dra. Aida Rico Arrastia Sección de Cirugía", ["Aida Rico Arrastia"]),
        # a place named after a doctor
        ("Hospital Dr. Negrín de Gran Canaria; Avda. Doctor Fleming 3", []),
    ],
)
def test_names_after_a_doctors_title(text, want):
    assert [text[s.start : s.end] for s in titled_staff(text, [])] == want


def test_a_titled_name_the_model_found_keeps_its_edges():
    text = "Remitido por: Dr. Luis Moyano Calvo C/ Eduardo Rivas, 3"
    model = [span(text, "Luis Moyano Calvo", STAFF), span(text, "C/ Eduardo Rivas, 3", STREET)]
    assert shown(text, titled_staff(text, model)) == shown(text, model)


@pytest.mark.parametrize(
    "text, want",
    [
        ("Vive sola en Sóller | GHIC 4ZK31820799: admisión", [("4ZK31820799", "ID_ASEGURAMIENTO")]),
        ("Madrid–Santa Cruz, localizador K7XQ2M. Itinerario", [("K7XQ2M", "OTROS_SUJETO_ASISTENCIA")]),
        ("(localizador de la reserva 7KQ2M9)\n", [("7KQ2M9", "OTROS_SUJETO_ASISTENCIA")]),
        ("el localizador GPS del paciente", []),
    ],
)
def test_travel_cards_and_booking_locators(text, want):
    assert shown(text, find_labelled_ids(text)) == want


def test_a_sex_letter_after_its_label_without_a_colon():
    text = "Fecha de nacimiento 27/08/1974 (51 años) · Sexo F\nSesión: martes"
    assert shown(text, find_labelled_sex(text)) == [("F", "SEXO_SUJETO_ASISTENCIA")]
    assert list(find_labelled_sex("el sexo M de la muestra")) == []


def test_assir_is_a_health_centre_and_catalan_qualifiers_join_the_kinship_word():
    text = "control a l'ASSIR Salt en 7-10 dies"
    assert shown(text, find_health_centres(text)) == [("ASSIR Salt", "CENTRO_SALUD")]
    text = "el 2018; el fill gran, Ibrahima, de 7 anys, va a l'escola"
    spans = relatives(text, [span(text, "Ibrahima", "NOMBRE_SUJETO_ASISTENCIA")])
    assert shown(text, spans)[:2] == [("fill gran", RELATIVE), ("Ibrahima", RELATIVE)]


def test_a_found_name_is_found_again_in_capitals():
    text = "Estimada Sra. Dobre: le citamos.\n-----\nRESGUARDO\nDOBRE, FLORENTINA · 09/03/2026\n"
    spans = propagate_names(text, [span(text, "Dobre", "NOMBRE_SUJETO_ASISTENCIA")])
    assert ("DOBRE", "NOMBRE_SUJETO_ASISTENCIA") in shown(text, spans)


@pytest.mark.parametrize(
    "text, want",
    [
        ("porque la hija, Emma, vino desde Newcastle y", [("Newcastle", TERRITORY)]),
        ("llega mañana desde Malmö con su mujer", [("Malmö", TERRITORY)]),
        ("emigró a Venezuela en 1960", [("Venezuela", "PAIS")]),
        # a ward or a service is no place
        ("se trasladó a UCI y vino desde Reanimación", []),
    ],
)
def test_places_after_a_journey(text, want):
    assert shown(text, find_home_places(text)) == want


@pytest.mark.parametrize(
    "text, want",
    [
        (
            "Ingreso 02/02. Bilirrubina alta el día 4, por lo que se realiza CPRE el 5. TC del 9 sin necrosis.",
            ["02/02", "5", "9"],
        ),
        (
            "Ingreso el 3 de marzo. Hemocultivos del 16 sin crecimiento; regreso previsto el 28.",
            ["3 de marzo", "16", "28"],
        ),
        # MEDDOCAN's treatment days, ordinals, counts, units and a year after a month are none
        ("Alta 12/03/2024. En el día 12 se apreció mejoría; en el 7.o día y el 3.er ciclo.", ["12/03/2024"]),
        # (a month and a two-digit year are one written date)
        (
            "Alta 12/03/2024. regla del 15, cama del 15, el 30 % y el 2 mg; en noviembre del 23.",
            ["12/03/2024", "noviembre del 23"],
        ),
        # lists of numbers and things counted: teeth, segments, cases, a day count, an ordinal in degrees
        ("Alta 12/03/2024. Erupcionados el 15 y el 25; el 12 del 13; exodoncia del 24.", ["12/03/2024"]),
        ("Alta 12/03/2024. Ni en el caso 1 ni en el 2; el 20 día postoperatorio; entre el 5° año.", ["12/03/2024"]),
        # a note without any other date: a bare number is something else
        ("Se administra el 5 y luego el 9.", []),
    ],
)
def test_a_day_of_the_month_alone_after_el_or_del(text, want):
    assert [text[a:b] for a, b, _ in find_dates(text)] == want


def test_a_sex_field_s_value_wins_over_the_model_s_street():
    text = "Nacimiento: 1986-07-02      Sexo: Emakumea / Mujer\n"
    spans = RuleLayer().apply(text, [span(text, "Emakumea /", STREET)])
    assert ("Emakumea", "SEXO_SUJETO_ASISTENCIA") in shown(text, spans)
    assert all(s.type != STREET for s in spans)


def test_from_dev8_a_french_address_passport_and_hospital():
    text = "Domicilio en Francia: 12 rue des Tisserands, 63000 Clermont-Ferrand (Francia)\n"
    assert shown(text, find_foreign_addresses(text)) == [
        ("12 rue des Tisserands", STREET),
        ("63000", TERRITORY),
        ("Clermont-Ferrand", TERRITORY),
    ]
    text = "Pasaporte francés: 21AX47810          NIE: X4471028Q"
    assert ("21AX47810", "ID_SUJETO_ASISTENCIA") in shown(text, find_labelled_ids(text))
    text = "marcapasos implantado en 2022 en el CHU Gabriel-Montpied de Clermont"
    assert [text[a:b] for a, b, _ in find_foreign_hospitals(text)] == ["CHU Gabriel-Montpied"]
    assert list(find_foreign_hospitals("el CHUAC y el CHU de guardia")) == []


def test_joined_capitals_that_are_a_span_of_their_own_join_the_code_without_overlap():
    """(Hypothesis found it: "NHC: A0:" with "A" and "0" two spans gave two overlapping ones.)"""
    text = "NHC: A0:"
    spans = [PHISpan(5, 6, "ID_SUJETO_ASISTENCIA", 0.9, MODEL), PHISpan(6, 7, "ID_SUJETO_ASISTENCIA", 0.9, MODEL)]
    assert [(s.start, s.end) for s in labels_cut_from_ids(text, spans)] == [(5, 7)]
    text = "(nº de federado\nFMAS-23-04412)"
    spans = [span(text, "FMAS", "INSTITUCION"), span(text, "-23-04412", "NUMERO_IDENTIF")]
    assert shown(text, labels_cut_from_ids(text, spans)) == [("FMAS-23-04412", "NUMERO_IDENTIF")]
    # a span that reaches before the letters keeps them, and the code stays as it is
    text = "el Hospital XY0815 ingresa"
    spans = [span(text, "Hospital XY", "HOSPITAL"), span(text, "0815", "ID_SUJETO_ASISTENCIA")]
    kept = [("Hospital XY", "HOSPITAL"), ("0815", "ID_SUJETO_ASISTENCIA")]
    assert shown(text, labels_cut_from_ids(text, spans)) == kept
