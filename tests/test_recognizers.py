"""The rule layer's recognizers on formats MEDDOCAN does not show, and their traps."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.addresses import street_tails
from deid_crf.deid.recognizers.ages import find_young_ages
from deid_crf.deid.recognizers.common import EMPLOYEE_ID, PATIENT_ID
from deid_crf.deid.recognizers.dates import find_dates
from deid_crf.deid.recognizers.institutions import (
    find_health_centres,
    find_institutions,
    find_organisations,
    organisations,
)
from deid_crf.deid.recognizers.internet import find_ips, find_urls
from deid_crf.deid.recognizers.labelled_ids import find_labelled_ids, labels_cut_from_ids, staff_numbers_after_names
from deid_crf.deid.recognizers.names import (
    find_labelled_staff,
    given_names_after_comma,
    initials_before_names,
    nicknames_after_names,
    roles_from_labels,
)
from deid_crf.deid.recognizers.national_ids import (
    dni_letter,
    find_bank_accounts,
    find_cif,
    find_dni,
    find_nass,
    nass_is_valid,
)
from deid_crf.deid.recognizers.phones import find_phones
from deid_crf.deid.recognizers.places import (
    find_country_names,
    find_home_places,
    find_neighbourhoods,
    find_region_names,
    find_towns_after_prepositions,
    joined_places,
    places_by_name,
    split_at_slashes,
    towns_after_countries,
)
from deid_crf.deid.recognizers.postcodes import find_postcodes
from deid_crf.deid.recognizers.relatives import relatives
from deid_crf.deid.recognizers.roads import find_road_points
from deid_crf.deid.recognizers.streets import find_streets
from deid_crf.deid.recognizers.vehicles import find_vehicle_ids
from deid_crf.deid.recognizers.work import employers_after_jobs, find_companies, find_professions
from deid_crf.deid.rules import RuleLayer
from deid_crf.text.spans import MODEL, RULE, PHISpan

PHONE, FAX = "NUMERO_TELEFONO", "NUMERO_FAX"
PATIENT, STAFF = "NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO"


def found(finder, text):
    return [(text[a:b], t) for a, b, t in finder(text)]


def texts(finder, text):
    return [t for t, _ in found(finder, text)]


# ------------------------------------------------------------------------------ phones


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A written country code stays in the span with its "+"; a "+" set apart by a
        # space does not (MEDDOCAN train annotates "+ 34 93 …" from "34").
        ("y teléfono +34 612 345 678, remitido", [("+34 612 345 678", PHONE)]),
        # a bracketed code keeps its opening bracket with the closing one
        ("Teléfono: (+34) 603 88 21 47", [("(+34) 603 88 21 47", PHONE)]),
        ("Tel (91) 555 12 34", [("(91) 555 12 34", PHONE)]),
        ("Tel.: + 34 93 693 29 05. Fax: + 34 93 567 22 28", [("34 93 693 29 05", PHONE), ("34 93 567 22 28", FAX)]),
        ("tel. 0034 93 123 45 67.", [("0034 93 123 45 67", PHONE)]),
        ("su hija en Lyon (+33) 6 12 34 56 78", [("(+33) 6 12 34 56 78", PHONE)]),
        ("contacto +212 6 61 23 45 67 y", [("+212 6 61 23 45 67", PHONE)]),
        ("móvil +44 7700 900417", [("+44 7700 900417", PHONE)]),
        ("Tel. 91 683 93 60 ext. 2417 · Fax 91 683 97 48", [("91 683 93 60 ext. 2417", PHONE), ("91 683 97 48", FAX)]),
        ("Teléfonos: 93.384.21.67 / 654 21 08 93 (hija)", [("93.384.21.67", PHONE), ("654 21 08 93", PHONE)]),
        ("Tfno.: 954.22.31.87 / 678-21-90-43", [("954.22.31.87", PHONE), ("678-21-90-43", PHONE)]),
        # an extension alone is a phone; after a number it stays inside the number's span
        ("Control enfermería 4B: ext. 69421", [("69421", PHONE)]),
        ("Tel. 91 683 93 60 ext. 2417 · Fax", [("91 683 93 60 ext. 2417", PHONE)]),
        ("Fax: (5982) 487-3837 E-mail", [("5982) 487-3837", FAX)]),
        ("Tel. y fax: 961 622 403", [("961 622 403", PHONE)]),
        # A pager number is a phone (P14.2), the number only.
        ("Nº empleado 45812 — busca 6613", [("6613", PHONE)]),
        ("buscapersonas: 6527- 3368", [("6527- 3368", PHONE)]),
        # Precision traps: ids, doses, lab values, dates, an id label after the phone label.
        ("NHC: 786946231.", []),
        ("Tel: 967 596 685 NHC: 786946231", [("967 596 685", PHONE)]),
        ("TIS: XMOU451208015", []),
        ("paracetamol 1 g/8 h, 5 mg/12 h; Hb 12.5 g/dl; plaquetas 150.000", []),
        ("Gleason 3+4, PSA 12.5 ng/ml el 05.03.24", []),
        ("el 2024-03-05 y 12.345.678-Z", []),
        ("NASS: 28 43758925 33", []),
        ("se busca 12 veces", []),
    ],
)
def test_phones(text, expected):
    assert found(find_phones, text) == expected


# ------------------------------------------------------------------- national ids


def test_dni_and_nie_in_compact_and_separated_forms():
    letter = dni_letter(12345678)
    nie_letter = dni_letter(10000000 + 2384716)  # Y stands for 1
    text = (
        f"DNI 12345678{letter}, 12.345.678-{letter}, 12345678 {letter}; "
        f"NIE Y2384716{nie_letter}, Y-2384716-{nie_letter}"
    )
    assert texts(find_dni, text) == [
        f"12345678{letter}",
        f"12.345.678-{letter}",
        f"12345678 {letter}",
        f"Y2384716{nie_letter}",
        f"Y-2384716-{nie_letter}",
    ]
    wrong = "A" if letter != "A" else "B"
    assert texts(find_dni, f"DNI 12345678{wrong} y lote 1234567{wrong}") == []


def test_cif_needs_its_check_character_and_a_label():
    assert found(find_cif, "Empresa SL, CIF: B65410011.") == [("B65410011", "NUMERO_IDENTIF")]
    assert found(find_cif, "CIF: B65410012") == []  # wrong check digit
    assert found(find_cif, "muestra B65410011") == []  # a code that passes by chance


def test_bank_accounts_are_otros():
    assert found(find_bank_accounts, "IBAN: ES91 2100 0418 4502 0005 1332.") == [
        ("ES91 2100 0418 4502 0005 1332", "OTROS_SUJETO_ASISTENCIA")
    ]
    # A wrong check digit is still an account after a label, or in a Spanish IBAN's
    # shape (nothing else is written so); another shape needs the label.
    assert texts(find_bank_accounts, "en la cuenta ES21 2100 0418 4502 0005 1332") == ["ES21 2100 0418 4502 0005 1332"]
    assert texts(find_bank_accounts, "código ES21 2100 0418 4502 0005 1332") == ["ES21 2100 0418 4502 0005 1332"]
    assert texts(find_bank_accounts, "código DE21 2100 0418 4502 0005 13") == []
    assert texts(find_bank_accounts, "cuenta nº 2100-0418-45-0200051332") == ["2100-0418-45-0200051332"]


def test_nass_with_slashes_and_its_check():
    body = "2812345678"
    valid = f"{body[:2]}/{body[2:]}/{int(body) % 97:02d}"
    assert nass_is_valid(valid.replace("/", ""))
    assert texts(find_nass, f"afiliado {valid}") == [valid]
    assert texts(find_nass, "lote 28/12345678/00") == []


# --------------------------------------------------------------- labelled identifiers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The prefix that repeats the label is left out (N17.1), the code's letters kept.
        (
            "NHC: HC-0045123    NASS: 41/10293847/62",
            [("0045123", "ID_SUJETO_ASISTENCIA"), ("41/10293847/62", "ID_ASEGURAMIENTO")],
        ),
        ("CIPA: nhc-150679.", [("150679", "ID_SUJETO_ASISTENCIA")]),
        (
            "Nº HC: 0456231\nCIP: ROSE0410215004      F. nac.",
            [("0456231", "ID_SUJETO_ASISTENCIA"), ("ROSE0410215004", "ID_SUJETO_ASISTENCIA")],
        ),
        ("Sexo: M   TIS: OURX560312915019 Edad: 6", [("OURX560312915019", "ID_SUJETO_ASISTENCIA")]),
        (
            "NUHSA: AN0654321098     NSS: 41/10283746/03",
            [("AN0654321098", "ID_SUJETO_ASISTENCIA"), ("41/10283746/03", "ID_ASEGURAMIENTO")],
        ),
        ("(NHC 4456790) - biopsia", [("4456790", "ID_SUJETO_ASISTENCIA")]),
        ("NHC ............. 5512098", [("5512098", "ID_SUJETO_ASISTENCIA")]),
        (
            "Pasaporte: FT482913     NIE: X8294715R",
            [("FT482913", "ID_SUJETO_ASISTENCIA"), ("X8294715R", "ID_SUJETO_ASISTENCIA")],
        ),
        ("con pasaporte nº 533914872, profesión", [("533914872", "ID_SUJETO_ASISTENCIA")]),
        ("Nº de afiliación: 28 1234567 12", [("28 1234567 12", "ID_ASEGURAMIENTO")]),
        ("Nº episodio: EP20-0341177     Ingreso", [("EP20-0341177", "ID_CONTACTO_ASISTENCIAL")]),
        ("Nº de ingreso: 2024/0031876", [("2024/0031876", "ID_CONTACTO_ASISTENCIAL")]),
        (
            "Nº acceso ....... RX23-0048711   Episodio .... 23/1129087",
            [("RX23-0048711", "ID_CONTACTO_ASISTENCIAL"), ("23/1129087", "ID_CONTACTO_ASISTENCIAL")],
        ),
        ("Dra. Pujol   Nº col. 08/41327", [("08/41327", "ID_TITULACION_PERSONAL_SANITARIO")]),
        (
            "colegiada nº 31/05678, CIAS 1201010205A,",
            [("31/05678", "ID_TITULACION_PERSONAL_SANITARIO"), ("1201010205A", "ID_EMPLEO_PERSONAL_SANITARIO")],
        ),
        (
            "NColeg 46-9876 · Col. 3838-1927",
            [("46-9876", "ID_TITULACION_PERSONAL_SANITARIO"), ("3838-1927", "ID_TITULACION_PERSONAL_SANITARIO")],
        ),
        ("(Nº empl. E-30418)", [("E-30418", "ID_EMPLEO_PERSONAL_SANITARIO")]),
        ("TCAE — nº mecanográfico 741223", [("741223", "ID_EMPLEO_PERSONAL_SANITARIO")]),
        ("NºSocio: 5547889955", [("5547889955", "NUMERO_IDENTIF")]),
        ("Nº de expediente social: TS-2023-0847", [("TS-2023-0847", "OTROS_SUJETO_ASISTENCIA")]),
        ("glucómetro, nº de serie MGMY123-45678.", [("MGMY123-45678", "IDENTIF_DISPOSITIVOS_NRSERIE")]),
        # a region's card named so, a health card's code, Aragón's card without ":", an
        # imaging accession and a biopsy shaped as codes
        (
            "DNI: 78694421L     CIP autonómico: 1009876543",
            [("78694421L", "ID_SUJETO_ASISTENCIA"), ("1009876543", "ID_SUJETO_ASISTENCIA")],
        ),
        ("Plasencia, y tarjeta sanitaria EX0944172260, se", [("EX0944172260", "ID_SUJETO_ASISTENCIA")]),
        ("nhc 702284 · CIA ARA0144910356 · cama 7", [("ARA0144910356", "ID_SUJETO_ASISTENCIA")]),
        (
            "(biopsia previa B25/03154); (acceso AR25110388)",
            [("B25/03154", "ID_CONTACTO_ASISTENCIAL"), ("AR25110388", "ID_CONTACTO_ASISTENCIAL")],
        ),
        ("acceso venoso 2019; biopsia 20190312; tarjeta sanitaria 2020", []),
        # a member's number with the word before the sign; a newborn's bracelet; not without the sign
        ("(Asociación Miastenia de España), socia nº 2471.", [("2471", "NUMERO_IDENTIF")]),
        ("pulsera madre-RN nº 4471203 comprobada; es socio desde 2019", [("4471203", "NUMERO_IDENTIF")]),
        # a work accident's notice and file
        ("golpe de calor; nº de comunicación 30/OS/2025/018823.", [("30/OS/2025/018823", "OTROS_SUJETO_ASISTENCIA")]),
        ("expediente de accidente laboral AT-2024-33-07719", [("AT-2024-33-07719", "OTROS_SUJETO_ASISTENCIA")]),
        ("Dra. Outeiriño — cupo 1203", [("1203", "ID_EMPLEO_PERSONAL_SANITARIO")]),
        ("Nº de profesional: 20418", [("20418", "ID_EMPLEO_PERSONAL_SANITARIO")]),
        (
            "acceso por la palma (plantilla biométrica PV-00418-HUCA-7731)",
            [("PV-00418-HUCA-7731", "IDENTIF_BIOMETRICOS")],
        ),
        # Traps: labels without a value, words of running text, a value glued to its label.
        ("NHC: ver informe", []),
        ("episodio 2019 de dolor torácico; un episodio de fiebre", []),
        ("revisó la historia clínica 2014 del paciente", []),
        ("Col. San Lucas Coyoacán", []),
        ("NHC5512098", []),
        ("Hb 13, HC 120 g", []),
        ("sin cupo 2025 en la residencia", []),
    ],
)
def test_labelled_ids(text, expected):
    assert found(find_labelled_ids, text) == expected


# ------------------------------------------------------------------------ postcodes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("C/ Feria, 112, 2ºB, 41002 Sevilla", ["41002"]),
        ("Avda. Manuel Siurot S/N. E-41013. Sevilla.", ["E-41013"]),
        ("Hermanos Falcó, s/n - 02006 Albacete", ["02006"]),
        ("rúa do Hórreo 14, 2º — 15702 Santiago", ["15702"]),
        ("C/ Joaquim Folguera, 3 - 5º 2ª 08022 Barcelona", ["08022"]),
        ("carrer de Mallorca, 245, 3r 1a,\n08008 Barcelona", ["08008"]),
        ("C/ Strachan, 4- 2º piso 29015- Badajoz", ["29015"]),
        ("CP: E-28015", ["E-28015"]),
        ("C/. Puerto de Pajares, 3-2. ºB E 28053 Madrid", ["E 28053"]),
        # Traps: no province 60, lab counts, a number without an address, an id's digits.
        ("Calle Mayor, 3, 60000 Madrid", []),
        ("recuento de 15000 leucocitos; Leucocitos 12000 Neutrófilos", []),
        ("Ingresó con 28046 Unidades", []),
        ("NºCol: 28 28 20943. Informe", []),
    ],
)
def test_postcodes(text, expected):
    assert texts(find_postcodes, text) == expected


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("el 3 de marzo de 2020", ["3 de marzo de 2020"]),
        ("Fecha: lunes 8 de abril de 2024, 12:30 h", ["lunes 8 de abril de 2024"]),
        # a weekday's abbreviation before a day and a month (an e-mail header's)
        ("Enviado: jue, 11 dic 2025 13:02; Fecha: vie. 12 de mayo", ["jue, 11 dic 2025", "vie. 12 de mayo"]),
        # a month alone in lower case after "de" or in a list; not capitalised there, nor after "mes de"
        ("tres ingresos (febrero, julio y el actual) y el de agosto", ["febrero", "julio", "agosto"]),
        ("vive en la Plaza de Mayo; una salida al campo (mes de abril)", []),
        # a day alone where only a day of the month is meant: after a part of the day, in an interval
        ("hipoglucemia la madrugada del 18. Estancia en UCI del 21 al 22: bien", ["18", "21", "22"]),
        # a range of numbers, or a full date
        ("dosis del 10 al 20 %; del 1 al 10 de la escala; la noche del 3 de mayo", ["3 de mayo"]),
        ("Enviado el: martes, 13 de febrero de 2024 16:42", ["martes, 13 de febrero de 2024"]),
        ("TC del 3-III-2020 y del 8-XI-2023; 29-II-2023 no existe", ["3-III-2020", "8-XI-2023"]),
        ("Extracción: 05.03.24 08:12   Validación: 2024-03-05 13:40", ["05.03.24", "2024-03-05"]),
        ("oct-2023, 18-01-2024", ["oct-2023", "18-01-2024"]),
        (
            "Barcelona, 13 de juny de 2023; 2 d'abril de 2024; 15 de xullo de 2022",
            ["13 de juny de 2023", "2 d'abril de 2024", "15 de xullo de 2022"],
        ),
        ("En febrero y abril de 2002 acude", ["febrero y abril de 2002"]),
        ("del 24 al 28 de septiembre de 2023", ["24", "28 de septiembre de 2023"]),
        ("Ingreso no CHUS do 2 ao 19 de xaneiro de 2025", ["2", "19 de xaneiro de 2025"]),
        ("viaje con salida el 2 y regreso el 16 de abril de 2025", ["2", "16 de abril de 2025"]),
        ("el 2 y 3 pacientes en abril; tomó 2 y luego el 16 de abril", ["abril", "16 de abril"]),
        ("la revisión del jueves 8 la hicimos; vuelve el lunes", ["jueves 8", "lunes"]),
        ("colocada el 19/02 y ajustada al 1/3 distal", ["19/02"]),
        # a two-digit day/month alone; not a measure's (acuity, pain, pressure) nor a dose's
        ("fractura de fémur (IQ 20/02); Ecocardiograma TT (16/10): AI dilatada", ["20/02", "16/10"]),
        ("AV de 10/10 y EVA 10/10; PIO 13/11 mmHg; sacubitrilo/valsartán 24/26 mg", []),
        ("Fecha de Ingreso: 20/11//2014.", []),  # a typo MEDDOCAN annotates whole: left to the model
        ("desde la Navidad pasada y en Semana Santa", ["Navidad", "Semana Santa"]),
        ("costurera hasta los años 60", ["años 60"]),
        ("Año de nacimiento: 1987; nefrectomía (2002)", ["1987", "2002"]),
        ("derivada en\ndiciembre desde el CAP", ["diciembre"]),
        # Traps: names that hold a date, laws, doses, scores, fractions, times, lab years.
        ("Hospital Universitario 12 de Octubre; Avda. 1 de Mayo", []),
        ("según el RD 1299/2006, de 10 de noviembre", []),
        ("5 mg/12 h, Gleason 3+4, EVA 7/10, TA 120/80 a las 16:42", []),
        ("Sistema Bethesda 2014, modelo SRV2007", []),
        ("los lunes y los viernes", []),
    ],
)
def test_dates(text, expected):
    assert texts(find_dates, text) == expected


def test_hospital_before_a_date_elsewhere_on_the_line_does_not_hide_it():
    assert texts(find_dates, "ingresó en nuestro hospital el 12 de junio de 2002") == ["12 de junio de 2002"]
    assert texts(find_dates, "Hospitalización en octubre-07") == ["octubre-07"]


# ----------------------------------------------------------------- internet addresses


def test_web_and_device_addresses_follow_the_guideline_rule_texts():
    text = "Ver https://pacs.sespa.es/visor?acc=1 y www.cmrussafa.es. IP 10.46.12.87, mac 00:0a:95:9d:68:16, fe80::1."
    assert found(find_urls, text) == [
        ("https://pacs.sespa.es/visor?acc=1", "DIREC_PROT_INTERNET"),
        ("www.cmrussafa.es", "URL_WEB"),
    ]
    assert texts(find_ips, text) == ["10.46.12.87", "fe80::1", "00:0a:95:9d:68:16"]
    assert texts(find_ips, "versión 1.2.3.4.5, 300.1.1.1, a las 12:30:45, Nota::") == []


def test_the_rule_layer_keeps_one_span_where_recognizers_agree():
    letter = dni_letter(46123987)
    text = f"NHC 5512098 · DNI 46123987{letter} · Tel. 948 19 82 00\n"
    spans = RuleLayer(priority="union").find(text)
    assert [(text[s.start : s.end], s.type) for s in spans] == [
        ("5512098", "ID_SUJETO_ASISTENCIA"),
        (f"46123987{letter}", "ID_SUJETO_ASISTENCIA"),
        ("948 19 82 00", PHONE),
    ]


# ------------------------------------------------------------------------ institutions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A letterhead line in capitals, a hyphen written with spaces, an acronym.
        ("SERVIZO GALEGO DE SAÚDE\nHospital Clínico", ["SERVIZO GALEGO DE SAÚDE"]),
        ("Servicio Navarro de Salud - Osasunbidea\n", ["Servicio Navarro de Salud - Osasunbidea"]),
        ("Derivado por el SESCAM y el IB Salut.", ["SESCAM", "IB Salut"]),
        # A body's local branch is one span (M10.1); its town is not a TERRITORIO of its own.
        ("Recibe ayuda de Càritas Diocesana de Terrassa.", ["Càritas Diocesana de Terrassa"]),
        ("Avisan a la Guardia Civil y a los Mossos d’Esquadra.", ["Guardia Civil", "Mossos d’Esquadra"]),
        # ... and so is a branch named by its province or community right after it (one or
        # two words), or a charity by its town; another word is left out
        ("Apoyo de CEAR Euskadi y de Cáritas Bizkaia.", ["CEAR Euskadi", "Cáritas Bizkaia"]),
        (
            # (a town after a charity is its local branch: the guide splits write "Cruz Roja
            # Lorca", "Cruz Roja Aranda", "Creu Roja Tarragona" whole)
            "Cáritas Getafe; Cáritas Parroquial; Cáritas Castilla-La Mancha",
            ["Cáritas Getafe", "Cáritas", "Cáritas Castilla-La Mancha"],
        ),
        ("Área de Movilidad del Ayuntamiento de Pamplona", ["Ayuntamiento de Pamplona"]),
        ("Serveis Socials de l'Ajuntament de Sant Cugat del Vallès.", ["Ajuntament de Sant Cugat del Vallès"]),
        # Acronyms that are words or other acronyms, governments named like their territory,
        # a text without any capital and "once" (eleven) are left to the model.
        ("Se pautó SAS y SES; el ICS fue normal.", []),
        ("Vive en la Comunidad de Madrid desde 2010.", []),
        ("avisada la cruz roja a las once", []),
        ("Servicio Canario de la Salud de guardia", ["Servicio Canario de la Salud"]),
        # private insurers and banks; a town that names a bank is left to the model
        ("Asegurada en Sanitas; antes en SegurCaixa Adeslas y DKV.", ["Sanitas", "SegurCaixa Adeslas", "DKV"]),
        ("Trabajó en Santander y cobra de Ibercaja.", ["Ibercaja"]),
        # an insurer's company for a line of business is one span with it
        ("aseguradora Mapfre Asistencia (póliza); Allianz Partners, póliza", ["Mapfre Asistencia", "Allianz Partners"]),
        ("Seguro de viaje: Allianz Reiseversicherung.", ["Allianz Reiseversicherung"]),
        # mutuas and emergency services named without a head word, with their number
        (
            "traído por el SUC; ambulancia del SAMU 061; (Emergentziak); la mutua (Mutualia); la Unió de Mutues",
            ["SUC", "SAMU 061", "Emergentziak", "Mutualia", "Unió de Mutues"],
        ),
    ],
)
def test_institutions(text, expected):
    assert texts(find_institutions, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A health area named by the towns it serves: the list is its name.
        (
            "SERGAS · Área Sanitaria de Lugo, A Mariña e Monforte de Lemos\n",
            ["Área Sanitaria de Lugo, A Mariña e Monforte de Lemos"],
        ),
        (
            "Área Sanitaria de Ourense, Verín e O Barco de Valdeorras.",
            ["Área Sanitaria de Ourense, Verín e O Barco de Valdeorras"],
        ),
        ("Àrea Sanitària de Lleida i Pirineu.", ["Àrea Sanitària de Lleida i Pirineu"]),
        # not after Spanish "y" alone, nor across a lower-case word
        (
            "Área Sanitaria de Vigo y el hospital; Área Sanitaria de Ferrol, Narón",
            ["Área Sanitaria de Vigo", "Área Sanitaria de Ferrol"],
        ),
    ],
)
def test_health_areas_named_by_their_towns(text, expected):
    assert texts(find_organisations, text) == expected


def test_an_institution_replaces_the_model_spans_inside_it():
    text = "Juzgado y Ayuntamiento de Terrassa.\n"
    start = text.index("Terrassa")
    model = [PHISpan(start, start + len("Terrassa"), "TERRITORIO", 0.9, MODEL)]
    spans = RuleLayer().apply(text, model)
    assert [(text[s.start : s.end], s.type) for s in spans] == [("Ayuntamiento de Terrassa", "INSTITUCION")]


# ------------------------------------------------------------------------------ places


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Reside en el barrio de Delicias.", ["Delicias"]),
        ("vive en el barrio del Raval de Barcelona", ["Raval"]),
        ("en el barrio de la Chana, con su hija", ["Chana"]),
        ("barrio de San Blas", ["San Blas"]),
        # A centre named after a neighbourhood is the model's (CENTRO_SALUD), not a place.
        ("Centro de Salud Barrio del Pilar", []),
        ("un barrio obrero", []),
    ],
)
def test_neighbourhoods(text, expected):
    assert texts(find_neighbourhoods, text) == expected


def test_a_place_in_brackets_after_a_country_is_a_town():
    text = "natural de China (Qingtian, provincia de Zhejiang), y de Perú (Cusco); en Lugo (Galicia)."
    china, peru, lugo = (text.index(w) for w in ("China", "Perú", "Lugo"))
    cusco = text.index("Cusco")
    spans = [
        PHISpan(china, china + 5, "PAIS", 0.9, MODEL),
        PHISpan(peru, peru + 4, "PAIS", 0.9, MODEL),
        PHISpan(cusco, cusco + 5, "FAMILIARES_SUJETO_ASISTENCIA", 0.4, MODEL),  # mistyped: replaced
        PHISpan(lugo, lugo + 4, "TERRITORIO", 0.9, MODEL),  # not a country: its bracket is left alone
    ]
    out = [(text[s.start : s.end], s.type) for s in towns_after_countries(text, spans)]
    assert out == [
        ("China", "PAIS"),
        ("Qingtian", "TERRITORIO"),
        ("Zhejiang", "TERRITORIO"),
        ("Perú", "PAIS"),
        ("Cusco", "TERRITORIO"),
        ("Lugo", "TERRITORIO"),
    ]


def test_several_towns_in_brackets_after_a_country():
    text = "viaje a Japón (Tokio y Kioto) y a Marruecos (Tánger, Tetuán e Ifrane)."
    spans = [span_of(text, "Japón", "PAIS"), span_of(text, "Marruecos", "PAIS")]
    out = [text[s.start : s.end] for s in towns_after_countries(text, spans) if s.type == "TERRITORIO"]
    assert out == ["Tokio", "Kioto", "Tánger", "Tetuán", "Ifrane"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pacient de Romania (Bacău), temporer", ["Romania"]),  # Catalan, no accent
        ("FAMILIA ORIGINARIA DE WENZHOU (CHINA). LLEGO DE CHINA", ["CHINA", "CHINA"]),
        ("Telf. +33 6 42 (Baiona, Frantzia)", ["Frantzia"]),  # Basque
        ("viviu en Alemaña e Marrocos", ["Alemaña", "Marrocos"]),  # Galician
        ("Nacida en la República Dominicana y vive en España.", ["República Dominicana", "España"]),
        ("de Guinea-Bisáu, luego Guinea Ecuatorial", ["Guinea-Bisáu", "Guinea Ecuatorial"]),
        # lower case is a word ("una china en el zapato"), not a name
        ("una china en el zapato; cuba de agua", []),
        # a Spanish town or a given name: left to the model
        ("Provincia: Granada. Nombre: Montserrat. Israel acude", []),
        # the Spanish adjective, which Galician "Alemaña" normalises to
        ("de nacionalidad Alemana", []),
        # a stain and a disease named after a country
        ("tinción de rojo Congo; fiebre de Malta", []),
        # part of a longer word
        ("Perúes, Chinatown", []),
        # a name the lists write in capitals only in capitals: "Usa andador" is a verb
        ("Usa andador; su hijo vive en USA y su hija en EEUU", ["USA", "EEUU"]),
    ],
)
def test_country_names_in_any_of_the_notes_languages(text, expected):
    assert texts(find_country_names, text) == expected


def test_country_names_fill_gaps_and_retype_territories():
    text = "Natural de Marruecos, vive en Calle Portugal 3; viaja a FRANCIA y a Rumanía."
    calle, marruecos, francia = text.index("Calle"), text.index("Marruecos"), text.index("FRANCIA")
    spans = [
        PHISpan(marruecos, marruecos + 9, "TERRITORIO", 0.6, MODEL),  # exactly a country: retyped
        PHISpan(calle, calle + len("Calle Portugal 3"), "CALLE", 0.9, MODEL),  # covers a country: kept
        PHISpan(francia, francia + 7, "PAIS", 0.9, MODEL),  # already found: unchanged
    ]
    out = [(text[s.start : s.end], s.type, s.source) for s in places_by_name(text, spans)]
    assert out == [
        ("Marruecos", "PAIS", RULE),
        ("Calle Portugal 3", "CALLE", MODEL),
        ("FRANCIA", "PAIS", MODEL),
        ("Rumanía", "PAIS", RULE),
    ]
    # a Spanish province the model took for the country of the same name is TERRITORIO
    text = "La hermana vive en Granada."
    granada = PHISpan(text.index("Granada"), text.index("Granada") + 7, "PAIS", 0.9, MODEL)
    assert [(text[s.start : s.end], s.type) for s in places_by_name(text, [granada])] == [("Granada", "TERRITORIO")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("llegó en cayuco a El Hierro en 2019", ["El Hierro"]),
        ("VACUNACION SEGUN CALENDARIO DE LA COMUNIDAD DE MADRID", ["COMUNIDAD DE MADRID"]),
        ("trabajó en Castilla y León y en Illes Balears", ["Castilla y León", "Illes Balears"]),
        # lower case, or part of a longer word
        ("una granada de mano; Valencianos", []),
    ],
)
def test_spanish_regions_by_name(text, expected):
    assert texts(find_region_names, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("trabaja en una casa particular de Cambrils y en el puerto de Mahón", ["Cambrils", "Mahón"]),
        ("vive desde 2019 en Maó; la hija, en Vitoria", ["Maó", "Vitoria"]),  # halves of "Maó-Mahón"
        ("TRASLADO DESDE VILLARROBLEDO A ALBACETE", ["VILLARROBLEDO"]),  # "A" is no preposition in capitals
        ("Ingresa en A Coruña", ["A Coruña"]),
        # cities abroad, by their Spanish names
        ("tiene otro hijo en Lisboa y una hija en Nueva York", ["Lisboa", "Nueva York"]),
        ("NATURAL DE TÁNGER, RESIDE DESDE 2010 EN ALCOBENDAS", ["TÁNGER", "ALCOBENDAS"]),
        # a classification or an agreement named after a city; a city's name in a company's
        ("categoría V del sistema de Sídney; Declaración de Helsinki; stent de Boston Scientific", []),
        # no preposition before it; a capitalised word a heading has; a marker in capitals after "de"
        ("Cambrils, 2024. Fecha de Nacimiento: 01/01/1970. Niveles de CEA normales", []),
        # an eponym: a sign or a syndrome named after someone, a name joined to another
        ("signo de Bell bilateral; síndrome de Tolosa-Hunt", []),
        # lower case, or only the start of a longer name
        ("vive en cambrils; en Cambrilsmar", []),
    ],
)
def test_municipalities_after_a_preposition(text, expected):
    assert texts(find_towns_after_prepositions, text) == expected


def test_municipalities_that_are_words_are_the_clinical_texts_words(data_dir):
    """:data:`TOWNS_THAT_ARE_WORDS` is what its comment says: the one-word municipality
    names whose lower-case form is in the unlabeled clinical text three times or more."""
    import gzip
    import re
    from collections import Counter

    from deid_crf.gazetteers.spanish import WORLD_CITIES

    from deid_crf.deid.recognizers.places import TOWNS_THAT_ARE_WORDS, town_names
    from deid_crf.resources.gazetteer import DEFAULT_DIR, read_list

    lower: Counter[str] = Counter()
    for name in ("cantemist_background.txt.gz", "cantemist_annotated_sets.txt.gz"):
        with gzip.open(data_dir / "unlabeled_es_clinical" / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                lower.update(w for w in re.findall(r"[^\W\d_]+", line) if w.islower())
    names = town_names(read_list(DEFAULT_DIR / "municipalities.txt"))
    words = {n for n in names if re.fullmatch(r"[^\W\d_]+", n) and lower[n.lower()] >= 3}
    assert words == TOWNS_THAT_ARE_WORDS
    # The one-word cities abroad, which the same rule finds, are no such word.
    assert [c for c in WORLD_CITIES if re.fullmatch(r"[^\W\d_]+", c) and lower[c.lower()] >= 3] == []


def test_a_town_after_a_preposition_the_model_took_for_a_street_relative_or_employer_is_territorio():
    text = "enólogo en una bodega de Laguardia; pescador en el puerto de Mahón; Calle Mahón"
    spans = [
        PHISpan(text.index("Laguardia"), text.index("Laguardia") + 9, "OTROS_SUJETO_ASISTENCIA", 0.9, MODEL),
        PHISpan(text.index("Mahón"), text.index("Mahón") + 5, "CALLE", 0.9, MODEL),
        PHISpan(text.index("Calle Mahón"), len(text), "CALLE", 0.9, MODEL),  # not the town's span exactly
    ]
    out = [(text[s.start : s.end], s.type) for s in places_by_name(text, spans)]
    assert out == [("Laguardia", "TERRITORIO"), ("Mahón", "TERRITORIO"), ("Calle Mahón", "CALLE")]


def test_regions_fill_gaps_only():
    text = "Hospital de Navarra; vive en Navarra; Galicia"
    hospital = PHISpan(0, len("Hospital de Navarra"), "HOSPITAL", 0.9, MODEL)
    out = [(text[s.start : s.end], s.type, s.source) for s in places_by_name(text, [hospital])]
    assert out == [
        ("Hospital de Navarra", "HOSPITAL", MODEL),
        ("Navarra", "TERRITORIO", RULE),
        ("Galicia", "TERRITORIO", RULE),
    ]


# ------------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("text", "surnames", "expected"),
    [
        ("Paciente: WANG, XIUYING\nNHC: 1", "WANG", ["WANG", "XIUYING"]),
        ("PACIENTE: PUIG VILARÓ, NÚRIA          NHC: 4471203", "PUIG VILARÓ", ["PUIG VILARÓ", "NÚRIA"]),
        ("Paciente ........ POPESCU, ANDREI\n", "POPESCU", ["POPESCU", "ANDREI"]),
        ("THOMPSON, Sarah Elizabeth (NIE Y1234567X)", "THOMPSON", ["THOMPSON", "Sarah Elizabeth"]),
        ("Paciente: Ruiz Gómez, María del Carmen\n", "Ruiz Gómez", ["Ruiz Gómez", "María del Carmen"]),
        # Not a surname-first name: the name does not open its line, what follows the
        # comma goes on, is a department, or is in capitals after mixed-case surnames.
        ("Acude con Juan Ruiz, Pedro y Ana\n", "Juan Ruiz", ["Juan Ruiz"]),
        ("Remitido por: Dr. Juan Ruiz, Servicio de Cirugía\n", "Juan Ruiz", ["Juan Ruiz"]),
        ("Remitido por: Dr. Juan Ruiz, Hospital Clínico\n", "Juan Ruiz", ["Juan Ruiz"]),
        ("Paciente: Ruiz Gómez, NHC\n", "Ruiz Gómez", ["Ruiz Gómez"]),
        ("Nota 12: Ruiz Gómez, María\n", "Ruiz Gómez", ["Ruiz Gómez"]),
    ],
)
def test_given_names_after_comma(text, surnames, expected):
    start = text.index(surnames)
    spans = [PHISpan(start, start + len(surnames), "NOMBRE_SUJETO_ASISTENCIA", 0.9, MODEL)]
    out = given_names_after_comma(text, spans)
    assert [text[s.start : s.end] for s in out] == expected
    assert {s.type for s in out} == {"NOMBRE_SUJETO_ASISTENCIA"}


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ('Dña. Encarnación Ruiz Gallardo ("Encarni"), de 81 años', "Encarnación Ruiz Gallardo", ["Encarni"]),
        ("| Manuel Jiménez («Manolo») | hijo |", "Manuel Jiménez", ["Manolo"]),
        ("Juan Pérez «Nene» acude", "Juan Pérez", ["Nene"]),
        # Quotes that do not pair, or a quoted phrase that is not a name.
        ('Juan Pérez ("Nene») acude', "Juan Pérez", []),
        ('Juan Pérez "dice que bien" acude', "Juan Pérez", []),
        # a nickname with its article (P4.1: apodos, motes), the article left out
        ('Juan Pérez "el Rubio" acude', "Juan Pérez", ["Rubio"]),
    ],
)
def test_nicknames_after_names(text, name, expected):
    start = text.index(name)
    spans = [PHISpan(start, start + len(name), "FAMILIARES_SUJETO_ASISTENCIA", 0.8, MODEL)]
    out = nicknames_after_names(text, spans)
    assert [text[s.start : s.end] for s in out if s.start != start] == expected
    assert {s.type for s in out} == {"FAMILIARES_SUJETO_ASISTENCIA"}


# ------------------------------------------------------------------------------ relatives

RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"
STAFF = "NOMBRE_PERSONAL_SANITARIO"
OTHER = "OTROS_SUJETO_ASISTENCIA"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Vino sola; su marido y su hija pequeña esperan fuera.", ["marido", "hija pequeña"]),
        ("Tiene tres hijos sanos y una tía paterna con ELA.", ["tres hijos", "tía paterna"]),
        ("Antecedentes: 2 hermanos con HTA.", ["2 hermanos"]),
        # not a relative: a noun before it, a field label, a compound, a capitalised name
        ("Se prepara la solución madre al 1 %.", []),
        ("Madre: sana.", []),
        ("pulsera madre-RN colocada", []),
        ("Avenida Hermanos Machado, 3", []),
        ("Dña. Rosa Nieto Gil", []),
        # children called by a word for children, after an article, a possessive or a numeral
        ("Durante el ingreso, los niños están con una prima.", ["niños", "prima"]),
        ("Mujer sola, con tres menores a cargo.", ["tres menores"]),
        ("Las niñas quedan en casa; no ve a sus chicos.", ["niñas", "chicos"]),
        # a general statement, an age limit, a field label, no determiner
        ("La dosis en los niños es menor; vacuna para los menores de 2 años. Niños: 2", []),
        ("Campamento de niños", []),
        # Catalan and Galician "dona" after an article; Spanish "dona" is a verb
        ("A dona faleceu en 2019. Diu que la dona no té telèfon.", ["dona", "dona"]),
        ("El paciente dona sangre; Dona: no consta", []),
    ],
)
def test_relatives_adds_uncovered_kinship_phrases(text, expected):
    out = relatives(text, [])
    assert [text[s.start : s.end] for s in out] == expected
    assert all(s.type == RELATIVE and s.source == RULE for s in out)


def test_relatives_leaves_covered_words_to_their_span():
    text = "Es la menor de cuatro hermanos."
    start = text.index("la menor")
    model = [PHISpan(start, len(text) - 1, "ID_SUJETO_ASISTENCIA", 0.9, MODEL)]
    assert relatives(text, model) == model


def test_relatives_drops_the_article_of_a_relative_span():
    text = "Refiere que un primo tuvo lo mismo."
    start = text.index("un primo")
    out = relatives(text, [PHISpan(start, start + len("un primo"), RELATIVE, 0.7, MODEL)])
    assert [(text[s.start : s.end], s.confidence) for s in out] == [("primo", 0.7)]


@pytest.mark.parametrize(
    ("text", "name", "expected_type"),
    [
        ("Le acompaña su esposo,\nD. Iker Zubiri Goñi, que firma.", "Iker Zubiri Goñi", RELATIVE),
        ("Avisada su hija mayor, Nerea, por teléfono.", "Nerea", RELATIVE),
        # whose relative it is, between the kinship word and the comma
        ("Los niños están con una prima de la paciente, Roxana, en casa.", "Roxana", RELATIVE),
        ("Llama la hija de Lucena, Mª Dolores, al control.", "Mª Dolores", RELATIVE),
        # a comma after another word: the name keeps the model's type
        ("Visto en consulta, Iker Zubiri Goñi refiere dolor.", "Iker Zubiri Goñi", "NOMBRE_SUJETO_ASISTENCIA"),
    ],
)
def test_relatives_retypes_a_name_after_a_kinship_word(text, name, expected_type):
    start = text.index(name)
    out = relatives(text, [PHISpan(start, start + len(name), "NOMBRE_SUJETO_ASISTENCIA", 0.8, MODEL)])
    [span] = [s for s in out if s.start == start]
    assert span.type == expected_type


# ------------------------------------------------------------------------------ work


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Su padre trabajó de estibador en el puerto.", ["estibador"]),
        ("Ahora trabaja como conductora de autobús para la EMT.", ["conductora de autobús"]),
        ("Casado, de profesión ebanista.", ["ebanista"]),
        ("Profesión: Peón agrícola\nNHC: 1", ["Peón agrícola"]),
        ("Podrá volver a su puesto como cajera la semana próxima.", ["cajera"]),
        # cues without a job after them
        ("Trabaja de noche y duerme mal.", []),
        ("trabajaba de lunes a viernes", []),
        ("Se recomienda el empleo de heparina.", []),
        # a participle after the job is no part of it (no MEDDOCAN job ends in one)
        ("el yerno, que es guardia civil destinado en Villanueva", ["guardia civil"]),
        # a listed job after a comma and before "jubilado"; not a clinician's, nor another word
        ("Varón de 67 años, exfumador (40 paq-año), pescador jubilado; trabajó", ["pescador"]),
        ("sana, maestra jubilada. Padre, casado, jubilado", ["maestra"]),
        # a job alone on a list's line stops before a Catalan or Galician "retired"
        ("- IRC estadio 3a.\n- Pagès jubilat; fue socio", ["Pagès"]),
    ],
)
def test_professions(text, expected):
    assert texts(find_professions, text) == expected


@pytest.mark.parametrize(
    ("text", "job", "place", "model_type", "expected"),
    [
        (
            "Varón de 52 años, soldador en CAF Beasain (turno de noche)",
            "soldador",
            "CAF Beasain",
            "CENTRO_SALUD",
            OTHER,
        ),
        ("La hija trabaja de profesora en el IES Santa Clara.", "profesora", "IES Santa Clara", "INSTITUCION", OTHER),
        (
            "dio clase durante treinta años en el Colegio Público Veneranda Manzano.",
            None,
            "Colegio Público Veneranda Manzano",
            "INSTITUCION",
            OTHER,
        ),
        (
            "Trabaja de repartidor para Panadería Hermanos Ahmed.",
            "repartidor",
            "Panadería Hermanos Ahmed",
            RELATIVE,
            OTHER,
        ),
        # a hospital or a health centre where someone works, a town, a body named elsewhere
        ("Trabaja como enfermera en el Hospital de Jaén.", "enfermera", "Hospital de Jaén", "HOSPITAL", "HOSPITAL"),
        ("trabajó de costurera en Triana hasta 1960", "costurera", "Triana", "TERRITORIO", "TERRITORIO"),
        ("Acude desde el IES Santa Clara, donde trabaja.", None, "IES Santa Clara", "INSTITUCION", "INSTITUCION"),
    ],
)
def test_employers_after_jobs(text, job, place, model_type, expected):
    spans = [PHISpan(text.index(place), text.index(place) + len(place), model_type, 0.9, MODEL)]
    if job:
        spans.append(PHISpan(text.index(job), text.index(job) + len(job), "PROFESION", 0.9, MODEL))
    out = employers_after_jobs(text, sorted(spans))
    assert [s.type for s in out if text[s.start : s.end] == place] == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Trabaja en la empresa Cárnicas del Jiloca S.L. desde 2010.", ["Cárnicas del Jiloca S.L."]),
        ("Repartidor para Envíos Rápidos Ebro SLU, con turnos.", ["Envíos Rápidos Ebro SLU"]),
        # a bare SA, a Catalan cooperative, a Catalan cue
        ("camarera de pisos para Hoteles Costa Daurada SA desde 2021", ["Hoteles Costa Daurada SA"]),
        ("treballa per a Fruites del Segrià SCCL", ["Fruites del Segrià SCCL"]),
        # a manufacturer, not an employer (MEDDOCAN: INSTITUCION, left to the model)
        ("Terapia de vacío (Sistemas Médicos Norte S.A.) cada 72 h.", []),
        ("Ritmo sinusal; nodo SA sin alteraciones.", []),
    ],
)
def test_companies(text, expected):
    assert texts(find_companies, text) == expected
    assert {t for _, t in found(find_companies, text)} <= {"OTROS_SUJETO_ASISTENCIA"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Conducía un turismo con matrícula 4409 FZL por la N-II.", ["4409 FZL"]),
        ("Camión 1234-BCD con remolque R-5678-DFG", ["1234-BCD", "R-5678-DFG"]),
        ("Motocicleta matrícula antigua Z-4521-AB", ["Z-4521-AB"]),
        ("Número de bastidor: WVWZZZ1JZ3W386752", ["WVWZZZ1JZ3W386752"]),
        # the same shapes without a vehicle on the line
        ("Lote 4409 FZL, caducidad 2026", []),
        ("Código WVWZZZ1JZ3W386752 del kit", []),
    ],
)
def test_vehicle_ids(text, expected):
    assert texts(find_vehicle_ids, text) == expected


# ------------------------------------------------------------------------------ home places


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Paciente natural de Cluj-Napoca, en España desde 2011.", [("Cluj-Napoca", "TERRITORIO")]),
        (
            "Nacida en Marruecos; reside en Sant Adrià de Besòs.",
            [("Marruecos", "PAIS"), ("Sant Adrià de Besòs", "TERRITORIO")],
        ),
        # institutions and addresses are not the place itself
        ("Vive en Residencia Los Olmos desde marzo.", []),
        ("domiciliada en C/ Mayor, 3", []),
        ("vive en casa de su hija", []),
    ],
)
def test_home_places(text, expected):
    assert found(find_home_places, text) == expected


def test_registered_recognizers_include_the_place_and_work_rules():
    layer = RuleLayer()
    text = "Reside en el barrio de San Blas y trabaja como albañil."
    assert {(text[s.start : s.end], s.type) for s in layer.find(text)} >= {
        ("San Blas", "TERRITORIO"),
        ("albañil", "PROFESION"),
    }


@pytest.mark.parametrize(
    ("text", "age", "age_type", "expected"),
    [
        # two ages, the unit written once: the first number alone, the second with its unit
        ("sus otros dos hijos, de 4 y 11 años, en casa", "11 años", RELATIVE, ["4", "11 años"]),
        ("Los tres hijos (los Rabanal, de 40 a 48 años) viven fuera", "40 a 48 años", RELATIVE, ["40", "48 años"]),
        ("dos cesáreas a los 22 y 24 años.", "24 años", "EDAD_SUJETO_ASISTENCIA", ["22", "24 años"]),
        # joined to its kinship phrase (MEDDOCAN train), or a decimal before it: left as it is
        ("por tener 2 hijos de 12 y 9 años, de", "2 hijos de 12 y 9 años", RELATIVE, ["2 hijos de 12 y 9 años"]),
        ("entre 2,5 y 3 años", "3 años", "EDAD_SUJETO_ASISTENCIA", ["3 años"]),
    ],
)
def test_two_ages_with_one_unit_are_two_spans(text, age, age_type, expected):
    start = text.index(age)
    out = relatives(text, [PHISpan(start, start + len(age), age_type, 0.9, MODEL)])
    assert [text[s.start : s.end] for s in out if s.type == age_type and text[s.start].isdigit()] == expected
    assert {s.type for s in out if text[s.start].isdigit()} == {age_type}


def test_a_relatives_name_and_age_in_brackets_and_a_qualifier_left_out():
    text = "Viu amb la dona (Roser, 74 anys), amb demència lleu."
    assert [(text[s.start : s.end], s.type) for s in relatives(text, [])] == [
        ("dona", RELATIVE),
        ("Roser", RELATIVE),
        ("74 anys", RELATIVE),
    ]
    # an age after a relative's name and a comma is the relative's; after the patient's, the patient's
    text = "- II-4: padre, Ramón Sainz, 75 años, melanoma. Paciente: Luis Sainz, 40 años."
    model = [
        PHISpan(text.index(w), text.index(w) + len(w), t, 0.9, MODEL)
        for w, t in [
            ("75 años", "EDAD_SUJETO_ASISTENCIA"),
            ("Luis Sainz", "NOMBRE_SUJETO_ASISTENCIA"),
            ("40 años", "EDAD_SUJETO_ASISTENCIA"),
        ]
    ]
    out = {text[s.start : s.end]: s.type for s in relatives(text, model)}
    assert out["75 años"] == RELATIVE and out["40 años"] == "EDAD_SUJETO_ASISTENCIA"
    # a qualifier the model left out, but not "gemela" (MEDDOCAN writes "hermana" alone there)
    text = "La hermana pequeña vive en Granada; una hermana gemela de su madre."
    model = [PHISpan(m, m + len("hermana"), RELATIVE, 0.9, MODEL) for m in (3, text.index("hermana gemela"))]
    assert [text[s.start : s.end] for s in relatives(text, model)] == ["hermana pequeña", "hermana", "madre"]


def test_relatives_take_the_age_after_them():
    text = "Vive con su nieto Aitor, de 19 años, y con la paciente, de 80 años."
    name, age, own_age = text.index("Aitor"), text.index("19 años"), text.index("80 años")
    model = [
        PHISpan(name, name + 5, RELATIVE, 0.9, MODEL),
        PHISpan(age, age + 7, "EDAD_SUJETO_ASISTENCIA", 0.9, MODEL),
        PHISpan(own_age, own_age + 7, "EDAD_SUJETO_ASISTENCIA", 0.9, MODEL),
    ]
    out = {text[s.start : s.end]: s.type for s in relatives(text, model)}
    # the kinship word and the name right after it are one span (MEDDOCAN train's
    # "madre Teresa Rodriguez", the notes' convention); the age after the comma its own
    assert out == {"nieto Aitor": RELATIVE, "19 años": RELATIVE, "80 años": "EDAD_SUJETO_ASISTENCIA"}


def test_an_age_after_a_relative_without_a_kinship_word_keeps_its_type():
    # The model's FAMILIARES on the patient's own name must not take the patient's age.
    text = "Certifico que D. Pau Vidal Roig, de 39 años, está apto."
    name, age = text.index("Pau"), text.index("39 años")
    model = [
        PHISpan(name, name + 14, RELATIVE, 0.6, MODEL),
        PHISpan(age, age + 7, "EDAD_SUJETO_ASISTENCIA", 0.9, MODEL),
    ]
    assert [s.type for s in relatives(text, model)] == [RELATIVE, "EDAD_SUJETO_ASISTENCIA"]


@pytest.mark.parametrize("unit", ["años", "anos"])
def test_an_age_after_a_partner_s_name_and_de_is_the_partner_s(unit):
    text = f"Vive con su muller Carmiña, de 80 {unit}, e co fillo."
    name, age = text.index("muller"), text.index("80")
    model = [PHISpan(name, name + len("muller Carmiña"), RELATIVE, 0.6, MODEL)]
    out = [(text[s.start : s.end], s.type) for s in relatives(text, model)]
    assert (f"80 {unit}", RELATIVE) in out
    # a model's age there is retyped
    model.append(PHISpan(age, age + 3 + len(unit), "EDAD_SUJETO_ASISTENCIA", 0.9, MODEL))
    assert [s.type for s in relatives(text, model) if text[s.start : s.end] == f"80 {unit}"] == [RELATIVE]


@pytest.mark.parametrize(
    ("text", "name", "model_type", "expected"),
    [
        ("Paciente: Dña. Remedios Lara Vela\nEdad: 81", "Remedios Lara Vela", RELATIVE, "NOMBRE_SUJETO_ASISTENCIA"),
        ("22:40 pac. tomas ruiz, inquieto", "tomas ruiz", "NOMBRE_PERSONAL_SANITARIO", "NOMBRE_SUJETO_ASISTENCIA"),
        (
            "Servicio de Paritorio — Matrona: Noelia Gil Pardo",
            "Noelia Gil Pardo",
            "NOMBRE_SUJETO_ASISTENCIA",
            "NOMBRE_PERSONAL_SANITARIO",
        ),
        ("Fdo.: Dr. Óscar Peña Roldán", "Óscar Peña Roldán", "NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO"),
        ("Informe realizado por Ana Soler", "Ana Soler", "NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO"),
        # a certificate is about the patient; Catalan "Pacient:"
        ("CERTIFICO: Que D. John Clarke, de 48", "John Clarke", RELATIVE, "NOMBRE_SUJETO_ASISTENCIA"),
        ("Pacient: Núria Puig\n", "Núria Puig", "NOMBRE_PERSONAL_SANITARIO", "NOMBRE_SUJETO_ASISTENCIA"),
        # no label right before: the model's type stays
        ("La enfermera vio a Ana Soler ayer", "Ana Soler", "NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_SUJETO_ASISTENCIA"),
        ("Paciente acompañado por Ana Soler", "Ana Soler", RELATIVE, RELATIVE),
        # a name in brackets after a staff role or a service, maybe with a complement
        ("Valorada por Rehabilitación y Logopedia (Lucía Argüelles), con mejoría", "Lucía Argüelles", RELATIVE, STAFF),
        ("con la trabajadora social del Centro de Salud de Haro (Rebeca Galilea)", "Rebeca Galilea", RELATIVE, STAFF),
        ("26/11 — Enfermería (Inmaculada Jurado)\nNoche tranquila", "Inmaculada Jurado", RELATIVE, STAFF),
        ("comunicada a la supervisora de quirófano (Amparo Sanz).", "Amparo Sanz", RELATIVE, STAFF),
        # a relative's job, a residence, a sentence between: the model's type stays
        ("su hija, enfermera (Marta López), vendrá", "Marta López", RELATIVE, RELATIVE),
        ("residente en Mérida (Extremadura Gómez)", "Extremadura Gómez", RELATIVE, RELATIVE),
        ("Enfermería. Vino su hija (Marta López)", "Marta López", RELATIVE, RELATIVE),
        # a name with an age after it is no staff member's, unless a staff label says so
        (
            "Os escribo por Nerea Sanchis Gil, diecisiete años, con DM1",
            "Nerea Sanchis Gil",
            STAFF,
            "NOMBRE_SUJETO_ASISTENCIA",
        ),
        ("Acude Pedro Ruiz, de 45 años, por disnea", "Pedro Ruiz", STAFF, "NOMBRE_SUJETO_ASISTENCIA"),
        ("Enfermera: Ana Gil, 45 años en el servicio", "Ana Gil", STAFF, STAFF),
    ],
)
def test_roles_from_labels(text, name, model_type, expected):
    start = text.index(name)
    [span] = roles_from_labels(text, [PHISpan(start, start + len(name), model_type, 0.8, MODEL)])
    assert span.type == expected


# ------------------------------------------------------------------------------ organisations


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Se deriva a los Servicios Sociales Municipales de Alcañiz.", ["Servicios Sociales Municipales de Alcañiz"]),
        ("Oficio del Juzgado de Primera Instancia nº 2 de Lalín.", ["Juzgado de Primera Instancia nº 2 de Lalín"]),
        ("COLEGIO OFICIAL DE ENFERMERÍA DE HUESCA\nSello", ["COLEGIO OFICIAL DE ENFERMERÍA DE HUESCA"]),
        ("Trámite ante la Agència Catalana de Protecció Social, Barcelona", ["Agència Catalana de Protecció Social"]),
        ("Informe para Servicios Socials d'Osona", []),  # no head: Servicios Socials is neither language
        ("Informe per als Serveis Socials d'Osona", ["Serveis Socials d'Osona"]),
        ("Su hija estudia en Amaia Zubiri Ikastola.", ["Amaia Zubiri Ikastola"]),
        # a head without a name, and a letterhead's next item
        ("Se avisa a los servicios sociales y al juzgado.", []),
        ("Universidad de Soria Avda. Mayor 3", ["Universidad de Soria"]),
        ("Universidad de Soria E-mail: x", ["Universidad de Soria"]),
        # care homes and clubs; an old "Residencia Sanitaria" is a hospital
        ("Vuelve a Residència La Bonanova tras el alta.", ["Residència La Bonanova"]),
        ("juega al hockey en el Club Patín Xixón desde niño", ["Club Patín Xixón"]),
        ("ingresó en la Residencia Sanitaria Virgen del Rocío", []),
        ("préstamo con Caja Rural de Canarias y", ["Caja Rural de Canarias"]),
        ("Coordinación con el Servei Social Bàsic de Reus.", ["Servei Social Bàsic de Reus"]),
        ("el pequeño va a la Llar d'Infants Municipal El Niu", ["Llar d'Infants Municipal El Niu"]),
        ("Se conserva tejido en el Biobanco Vasco.", ["Biobanco Vasco"]),
    ],
)
def test_find_organisations(text, expected):
    assert texts(find_organisations, text) == expected


def test_organisations_replace_the_model_pieces_inside_them_only():
    text = "Contacto con los Servicios Sociales de Ribadeo y la Asociación Vecinal de Ribadeo en Lugo."
    town = text.index("Ribadeo")
    association = text.index("Asociación")
    model = [
        PHISpan(town, town + 7, "TERRITORIO", 0.9, MODEL),  # a piece: replaced by the whole body
        PHISpan(association, text.index(" en Lugo") + 8, "INSTITUCION", 0.8, MODEL),  # longer: kept
    ]
    out = organisations(text, model)
    assert [(text[s.start : s.end], s.type, s.source) for s in out] == [
        ("Servicios Sociales de Ribadeo", "INSTITUCION", RULE),
        ("Asociación Vecinal de Ribadeo en Lugo", "INSTITUCION", MODEL),
    ]


def test_organisations_replace_a_model_span_opened_on_the_article():
    text = "juega en el Club Patín Xixón; vive en la Residencia Sol y Mar"
    model = [span_of(text, "el Club Patín Xixón", "TERRITORIO"), span_of(text, "vive en la Residencia", "CALLE")]
    out = organisations(text, model)
    # the article's span is replaced; a span from further back (a verb) keeps the body out
    assert [(text[s.start : s.end], s.type) for s in out] == [
        ("Club Patín Xixón", "INSTITUCION"),
        ("vive en la Residencia", "CALLE"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Remitida por el CAP Sant Feliu-2 Can Serra con informe", ["CAP Sant Feliu-2 Can Serra"]),
        ("Centro de Salud Los Molinos-Sur\nMédico: X", ["Centro de Salud Los Molinos-Sur"]),
        ("Consultorio Local de Valdeavellano, martes", ["Consultorio Local de Valdeavellano"]),
        ("control en Ondarroako Osasun Zentroa", ["Ondarroako Osasun Zentroa"]),
        # mental-health centres and out-of-hours points
        ("Osakidetza\nCSM Bombero Etxaniz · plaza", ["CSM Bombero Etxaniz"]),
        ("SESCAM - PAC MUNERA", ["PAC MUNERA"]),
        ("atendido en el Punto de Atención Continuada de Tomelloso", ["Punto de Atención Continuada de Tomelloso"]),
        ("medico PAC: Dr. Ruiz", []),
        ("seguimiento en su centro de salud", []),
    ],
)
def test_find_health_centres(text, expected):
    assert texts(find_health_centres, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Firma digitalizada (ID de firma SG-88A1-0392).", [("SG-88A1-0392", "IDENTIF_BIOMETRICOS")]),
        ("ID biométrico NB-24-118833 en la pulsera", [("NB-24-118833", "IDENTIF_BIOMETRICOS")]),
        ("Huella: 0033-7812-AF", [("0033-7812-AF", "IDENTIF_BIOMETRICOS")]),
        ("Licencia de la federación (nº de federado CAT-22-01877)", [("CAT-22-01877", "NUMERO_IDENTIF")]),
        ("muestra cedida (código de donante BT-2023-5561)", [("BT-2023-5561", "NUMERO_IDENTIF")]),
        ("huella dactilar tomada sin incidencias", []),
        # a passport (a nationality may come between), Aragón's CIA card, an implant's SN,
        # a court case's number and year
        ("Documento: pasaporte colombiano AW718233.", [("AW718233", "ID_SUJETO_ASISTENCIA")]),
        (
            "NHC: 2018734   CIA: AR0458837102",
            [("2018734", "ID_SUJETO_ASISTENCIA"), ("AR0458837102", "ID_SUJETO_ASISTENCIA")],
        ),
        ("Cotilo: Ref. 6405-1-550 · SN KX7720143", [("KX7720143", "IDENTIF_DISPOSITIVOS_NRSERIE")]),
        ("Juzgado de lo Social nº 3 (autos 812/2024)", [("812/2024", "OTROS_SUJETO_ASISTENCIA")]),
        # ... but not a heart defect, a year after "pasaporte", a month/year, an address's s/n
        ("CIA ostium secundum de 12 mm; sin pasaporte vigente 2023; autos 3/2024", []),
        ("Avda. Manuel Siurot S/N. E-41013 Sevilla; SN 2345 mm", []),
        # "S/N" before a code of letters and digits, "nº de serie" with the device named between
        (
            "transmisor S/N 3MH0146QK7T; nº de serie del implante TFN-7731-0489-B)",
            [("3MH0146QK7T", "IDENTIF_DISPOSITIVOS_NRSERIE"), ("TFN-7731-0489-B", "IDENTIF_DISPOSITIVOS_NRSERIE")],
        ),
    ],
)
def test_labelled_biometric_and_member_ids(text, expected):
    assert found(find_labelled_ids, text) == expected


# ------------------------------------------------------------------------------ young ages, roads


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("VALORACIÓN\nNiña de 3 días, afebril.", ["3 días"]),
        ("BST 16,8 mg/dl a las 60 h de vida.", ["60 h"]),
        ("Recién nacido de tres días de vida", ["tres días"]),
        ("Lactante varón de un mes de vida", ["un mes"]),
        ("lactante de 8 semanas y medio", ["8 semanas y medio"]),
        # a duration of something else, or with no cue that it is an age
        ("niño de 3 días de evolución", []),
        ("fiebre de 3 días", []),
        ("mejora su calidad de vida", []),
        ("Varón de 40 años", []),
    ],
)
def test_young_ages(text, expected):
    assert texts(find_young_ages, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("salida de vía en la A-62, p.k. 148 (Valladolid)", ["A-62, p.k. 148"]),
        ("Domicilio: Cortijo Los Olivares, Ctra. A-319, km 4, Burunchel", ["Ctra. A-319, km 4"]),
        ("Ctra. de Colmenar, km. 9,100. 28034", ["Ctra. de Colmenar, km. 9,100"]),
        ("Carretera Nacional 330 km 539", ["Carretera Nacional 330 km 539"]),
        ("venía por la A-62 hacia Burgos", []),
        ("caminó 12 km ayer", []),
    ],
)
def test_road_points(text, expected):
    assert texts(find_road_points, text) == expected


# ------------------------------------------------------------------------------ post-steps on the merged spans


def span_of(text, piece, type_, source=MODEL):
    start = text.index(piece)
    return PHISpan(start, start + len(piece), type_, 0.9, source)


@pytest.mark.parametrize(
    ("text", "piece", "type_", "expected"),
    [
        ("Derivación preferente - A. Benali", "Benali", PATIENT, ("A. Benali", PATIENT)),
        ("(Enf. J. M. Rodríguez Suárez)", "Rodríguez Suárez", STAFF, ("J. M. Rodríguez Suárez", STAFF)),
        # a surname the model took for a town: only staff are cited by an initial in MEDDOCAN
        ("educación por enfermería (E. Iglesias).", "Iglesias", "TERRITORIO", ("E. Iglesias", STAFF)),
        # D. is Don, C.P. a postcode label, and a town after a full word stays a town
        ("Que D. Íñigo Sáez Lasa, paciente", "Íñigo Sáez Lasa", PATIENT, ("Íñigo Sáez Lasa", PATIENT)),
        ("C/ Mayor 1, C.P. 45006", "45006", "TERRITORIO", ("45006", "TERRITORIO")),
        ("vive en Iglesias desde", "Iglesias", "TERRITORIO", ("Iglesias", "TERRITORIO")),
    ],
)
def test_initials_before_names(text, piece, type_, expected):
    [span] = initials_before_names(text, [span_of(text, piece, type_)])
    assert (text[span.start : span.end], span.type) == expected


@pytest.mark.parametrize(
    ("text", "piece", "expected"),
    [
        ("Dirección: c/ Sant Pere, 12, baixos — 08030 Barcelona", "c/ Sant Pere, 12", "c/ Sant Pere, 12, baixos"),
        ("Domicilio: Calle Finisterre 18, Bajo A\n", "Calle Finisterre 18", "Calle Finisterre 18, Bajo A"),
        ("domiciliado en C/ Esquíroz, 21, 2º izda., 31007", "C/ Esquíroz, 21, 2º izda.", "C/ Esquíroz, 21, 2º izda"),
        # a Basque side after the floor's number and its dot
        ("Helbidea: Nagusia kalea 14, 2. eskuina, 20500", "Nagusia kalea 14, 2", "Nagusia kalea 14, 2. eskuina"),
        ("Nagusia kalea 14, 2. eskuinaldean", "Nagusia kalea 14, 2", "Nagusia kalea 14, 2"),
        # "bajo" that is not a floor, and a floor word already inside
        ("vive en C/ Mayor 3 bajo supervisión", "C/ Mayor 3", "C/ Mayor 3"),
        (
            "Calle Alonso de Freylas, 6, Bajo A.",
            "Calle Alonso de Freylas, 6, Bajo A",
            "Calle Alonso de Freylas, 6, Bajo A",
        ),
    ],
)
def test_street_tails(text, piece, expected):
    [span] = street_tails(text, [span_of(text, piece, "CALLE")])
    assert text[span.start : span.end] == expected


def test_street_tail_stops_at_the_next_span():
    text = "C/ Mayor 3, bajo A, 28001"
    street, after = span_of(text, "C/ Mayor 3", "CALLE"), span_of(text, "bajo A", "TERRITORIO")
    assert street_tails(text, [street, after]) == [street, after]


@pytest.mark.parametrize(
    ("text", "piece", "expected"),
    [
        # a floor or a kilometre closes the address: any capitalised name after it is the town
        (
            "Domicilio: c/ Monte Igueldo, 47, 1º C, Puente de Vallecas\n",
            "c/ Monte Igueldo, 47, 1º C, Puente de Vallecas",
            [("c/ Monte Igueldo, 47, 1º C", "CALLE"), ("Puente de Vallecas", "TERRITORIO")],
        ),
        (
            "Cortijo Los Olivares, Ctra. A-319, km 4, Burunchel.",
            "Cortijo Los Olivares, Ctra. A-319, km 4, Burunchel",
            [("Cortijo Los Olivares, Ctra. A-319, km 4", "CALLE"), ("Burunchel", "TERRITORIO")],
        ),
        # "s/n" closes it too (121 of MEDDOCAN's 122 CALLE spans with "s/n" end there), and the
        # town may open with an article
        (
            "Ctra. Ofra s/n, La Cuesta – 38320",
            "Ctra. Ofra s/n, La Cuesta",
            [("Ctra. Ofra s/n", "CALLE"), ("La Cuesta", "TERRITORIO")],
        ),
        # after a bare house number, only a listed Spanish town
        (
            "C/ Mayor 5, Alcalá de Henares",
            "C/ Mayor 5, Alcalá de Henares",
            [("C/ Mayor 5", "CALLE"), ("Alcalá de Henares", "TERRITORIO")],
        ),
        (
            "Paseo de la Reforma 476, Juárez",
            "Paseo de la Reforma 476, Juárez",
            [("Paseo de la Reforma 476, Juárez", "CALLE")],
        ),
        # the town after "de" or "en", or a parish, whatever closed the street
        (
            "Domicilio en carrer de ses Moreres, 27, 1r, de Maó. Teléfonos",
            "carrer de ses Moreres, 27, 1r, de Maó",
            [("carrer de ses Moreres, 27, 1r", "CALLE"), ("Maó", "TERRITORIO")],
        ),
        (
            "Lugar de Vilamoure, 4, parroquia de Santa María de Bóveda, 27568 Friol",
            "Lugar de Vilamoure, 4, parroquia de Santa María de Bóveda",
            [("Lugar de Vilamoure, 4", "CALLE"), ("Santa María de Bóveda", "TERRITORIO")],
        ),
        (
            "Paseo de la Reforma 476, de Juárez",
            "Paseo de la Reforma 476, de Juárez",
            [("Paseo de la Reforma 476, de Juárez", "CALLE")],
        ),
        # the address's own words stay in it
        (
            "Calle Patricio Jimenez, 6, 3, Bajo",
            "Calle Patricio Jimenez, 6, 3, Bajo",
            [("Calle Patricio Jimenez, 6, 3, Bajo", "CALLE")],
        ),
        (
            "C/ Pino 4, 2º A, Urbanización El Bosque",
            "C/ Pino 4, 2º A, Urbanización El Bosque",
            [("C/ Pino 4, 2º A, Urbanización El Bosque", "CALLE")],
        ),
    ],
)
def test_a_town_after_the_address_is_its_own_span(text, piece, expected):
    out = street_tails(text, [span_of(text, piece, "CALLE")])
    assert [(text[s.start : s.end], s.type) for s in out] == expected


def test_split_at_slashes_makes_two_places():
    text = "C/ Iturrama, 39 · 31008 Pamplona/Iruña · Tel."
    out = split_at_slashes(text, [span_of(text, "Pamplona/Iruña", "TERRITORIO")])
    assert [(text[s.start : s.end], s.type) for s in out] == [("Pamplona", "TERRITORIO"), ("Iruña", "TERRITORIO")]
    other = span_of(text, "C/ Iturrama, 39", "CALLE")
    assert split_at_slashes(text, [other]) == [other]


def test_honorific_is_cut_from_an_institution_and_basque_hospitals_are_found():
    text = "Excmo. Ayuntamiento de Madrid\nOSAKIDETZA\nDONOSTIA UNIBERTSITATE OSPITALEA\n"
    out = organisations(text, [span_of(text, "Excmo. Ayuntamiento de Madrid", "INSTITUCION")])
    assert [(text[s.start : s.end], s.type) for s in out] == [
        ("Ayuntamiento de Madrid", "INSTITUCION"),
        ("DONOSTIA UNIBERTSITATE OSPITALEA", "HOSPITAL"),
    ]
    # a professional body's "Ilustre" is part of its name (the guide splits 4 of 5)
    text = "Ilustre Colegio Oficial de Médicos de Madrid\n"
    out = organisations(text, [span_of(text, "Ilustre Colegio Oficial de Médicos de Madrid", "INSTITUCION")])
    assert [text[s.start : s.end] for s in out] == ["Ilustre Colegio Oficial de Médicos de Madrid"]


def test_a_place_after_a_kinship_word_is_the_relatives_name_but_not_after_a_town():
    text = "Karim, y su hija mayor, Salma, viven en Dos Hermanas, Sevilla."
    out = relatives(text, [span_of(text, "Salma", "TERRITORIO"), span_of(text, "Sevilla", "TERRITORIO")])
    assert [(text[s.start : s.end], s.type) for s in out if s.source == MODEL or s.type != RELATIVE] == [
        ("Salma", RELATIVE),
        ("Sevilla", "TERRITORIO"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fecha de Ingreso: 13/05/2018.\nMédico: Naveenjayakumar.\nHistoria", ["Naveenjayakumar"]),
        ("Responsable clínico: Dra. Celia Quicios Dorado\n", ["Celia Quicios Dorado"]),
        ("Remitido por: Dr. Pablo Justo-Ávila. Servicio", ["Pablo Justo-Ávila"]),
        ("Médico:  Anna Bujons Tur       NºCol: 28 28 12345", ["Anna Bujons Tur"]),
        # the name stops where the street or department on its line starts
        ("Responsable clínico: Dr. Ramiro Cabello Benavente Av. Galaxia 6", ["Ramiro Cabello Benavente"]),
        # a specialty, a title alone, a name that runs on into other words: nothing
        ("Médico: Medicina Interna.\n", []),
        ("Remitido por: Dr.\n", []),
        ("Remitido por: Dr. Alberto Palacios Hernández Residente de cuarto año", []),
        ("El médico: no refiere", []),
    ],
)
def test_find_labelled_staff(text, expected):
    assert [(t, type_) for t, type_ in found(find_labelled_staff, text)] == [(e, STAFF) for e in expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Domicilio: Calle Alonso de Freylas, 6, Bajo A. CP 18001", ["Calle Alonso de Freylas, 6, Bajo A"]),
        ("vive en C/ José Mª Haro, 51-13. Tel.", ["C/ José Mª Haro, 51-13"]),
        ("Avda. Escosura, 4 - 6° E, 28012", ["Avda. Escosura, 4 - 6° E"]),
        ("Carrer d'Aragó 214, 3r 1a, 08011 Barcelona", ["Carrer d'Aragó 214, 3r 1a"]),
        ("Centro de acogida, Camino de Ronda, 110, Granada", ["Camino de Ronda, 110"]),
        ("Hospital de Cruces, Gurutzeta plaza, z/g · Barakaldo", ["Gurutzeta plaza, z/g"]),
        ("Maiatzaren Bata kalea, 27 (Barakaldo)", ["Maiatzaren Bata kalea, 27"]),
        ("CALLE MAYOR 5, 2º IZDA\n", ["CALLE MAYOR 5, 2º IZDA"]),
        # a postcode is not a house number or a floor, and a dot ends the address
        ("C/ Irunlarrea, 4 E-31008 Pamplona", ["C/ Irunlarrea, 4"]),
        ("C/ del Planetario, 28, 2, 3. Madrid", ["C/ del Planetario, 28, 2, 3"]),
        # a German street, the type glued to the name or after it
        (
            "Residencia habitual: Schleißheimer Str. 214, 80809 München; Hauptstraße 3a",
            ["Schleißheimer Str. 214", "Hauptstraße 3a"],
        ),
        # no house number, a lower-case name, or no street type: left to the model
        ("paseaba por la Plaza Mayor de Salamanca", []),
        ("sale a dar un paseo largo 30 minutos", []),
        ("Residencia El Limonar 24", []),
    ],
)
def test_find_streets(text, expected):
    assert texts(find_streets, text) == expected


@pytest.mark.parametrize(
    ("text", "pieces", "expected"),
    [
        ("s/n. 46520 Puerto de Sagunto (Valencia)", ["Puerto", "Sagunto"], ["Puerto de Sagunto"]),
        ("Localidad/ Provincia: Cdad. Real", ["Cdad", "Real"], ["Cdad. Real"]),
        ("CP 66260 Monterrey, Nuevo León", ["Monterrey", "Nuevo", "León"], ["Monterrey", "Nuevo León"]),
        ("08907 L’Hospitalet de Llobregat", ["Hospitalet de Llobregat"], ["L’Hospitalet de Llobregat"]),
        # two places side by side stay two, as MEDDOCAN annotates them
        ("39770 Laredo Cantabria", ["Laredo", "Cantabria"], ["Laredo", "Cantabria"]),
        ("Oviedo, Asturias", ["Oviedo", "Asturias"], ["Oviedo", "Asturias"]),
        # a place's first word and particle after a preposition, left out by the model
        (
            "la fábrica en Sama de Langreo; hotel en Port de Pollença",
            ["Langreo", "Pollença"],
            ["Sama de Langreo", "Port de Pollença"],
        ),
        # an institution's or a street's head is no place's first word
        ("ingresa en Hospital de Jaén; vive en Calle de Toledo", ["Jaén", "Toledo"], ["Jaén", "Toledo"]),
    ],
)
def test_joined_places(text, pieces, expected):
    spans = sorted(span_of(text, piece, "TERRITORIO") for piece in pieces)
    assert [text[s.start : s.end] for s in joined_places(text, spans)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Empeora en verano; el otoño del 2017 ingresó", ["verano", "otoño del 2017"]),
        ("volvió de Rumanía por Navidad y en Semana Santa", ["Navidad", "Semana Santa"]),
        ("acudió a urgencias el día de la madre", ["día de la madre"]),
        ("no ha tornat el kit enviat a l'estiu", ["estiu"]),
        ("viene por Entroido; usuaria desde la Diada de 2023", ["Entroido", "Diada de 2023"]),
        ("En invierno\nen verano", ["invierno", "verano"]),
        # not after a preposition or determiner, or a name or a place
        ("Verano Pérez, Ana", []),
        ("vive en Reyes Católicos 3; Dr. Nadal; en San Juan de Alicante", []),
    ],
)
def test_seasons_and_feasts(text, expected):
    assert texts(find_dates, text) == expected


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("NHC: HC 0914472\n", "0914472"),
        ("(NHC CC-781204; CIP-SNS BBBB)", "781204"),
        ("NHC ........... HL-00518826\n", "00518826"),
        ("historia clínica: AB 1234567\n", "1234567"),
        # letters and digits mixed, or fewer than five digits after the letters: the whole value
        ("NHC: EP20-0341177\n", "EP20-0341177"),
        ("NHC: AB-1234\n", "AB-1234"),
        # a card keeps its letters
        ("CIP: BNOU 0730112\n", "BNOU 0730112"),
        ("TSI: CM10-44187\n", "CM10-44187"),
    ],
)
def test_record_number_without_its_letter_code(text: str, want: str):
    values = {text[a:b] for a, b, _ in find_labelled_ids(text)}
    assert want in values
    assert all(want.endswith(v) or v.endswith(want) for v in values)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("[firma digitalizada; identificador biométrico de firma SIGN-7F3A-90C2-118D]", ["SIGN-7F3A-90C2-118D"]),
        ("Identificado por huella dactilar (plantilla HD-0047-2291) en Admisión", ["HD-0047-2291"]),
        # an insole or a staff roster: no code after the word
        ("plantilla ortopédica 2024", []),
        ("la plantilla 2023/2024 del servicio", []),
    ],
)
def test_biometric_labels(text: str, want: list[str]):
    assert [text[a:b] for a, b, t in find_labelled_ids(text) if t == "IDENTIF_BIOMETRICOS"] == want


DEVICE_ID = "IDENTIF_DISPOSITIVOS_NRSERIE"


@pytest.mark.parametrize(
    ("text", "span", "want"),
    [
        # the model opened a record number's span on a CIAS label: the value, as staff's
        ("colegiada nº 31/05678, CIAS 1201010205A,\n", ("CIAS 1201010205A", PATIENT_ID), ("1201010205A", EMPLOYEE_ID)),
        ("Paciente X · NHC 5512098 · DNI", ("NHC 5512098", PATIENT_ID), ("5512098", PATIENT_ID)),
        # a "street" the model opened on the tail of "n.º" before a label: the labelled number
        ("(n.º serie 7C41A20934), 2 lpm", ("º serie 7C41A20934", "CALLE"), ("7C41A20934", DEVICE_ID)),
        ("Calle Mayor nº 5, 2º", ("Calle Mayor nº 5, 2º", "CALLE"), ("Calle Mayor nº 5, 2º", "CALLE")),
        # no label at the start, or not an identifier's span: left as it is
        ("Ref. 1201010205A", ("1201010205A", PATIENT_ID), ("1201010205A", PATIENT_ID)),
        ("Dr. Tis Pérez", ("Tis Pérez", "NOMBRE_PERSONAL_SANITARIO"), ("Tis Pérez", "NOMBRE_PERSONAL_SANITARIO")),
    ],
)
def test_labels_cut_from_ids(text: str, span: tuple[str, str], want: tuple[str, str]):
    start = text.index(span[0])
    (out,) = labels_cut_from_ids(text, [PHISpan(start, start + len(span[0]), span[1])])
    assert (text[out.start : out.end], out.type) == want


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Antecedentes familiares: su ama fue intervenida de un melanoma.", ["ama"]),  # Basque: mother
        ("Profesión: su ama de casa habitual", []),  # housewife
        ("Es ama de casa.", []),
        ("La ama de llaves la acompaña.", []),
    ],
)
def test_basque_mother_after_a_possessive(text, expected):
    assert [text[s.start : s.end] for s in relatives(text, [])] == expected


@pytest.mark.parametrize(
    ("text", "name", "want"),
    [
        ("Enf.: Pilar Gimeno Lacasa (ID 0021784)\n", "Pilar Gimeno Lacasa", ["0021784"]),
        ("Enf. triaje: R. Benhamú — nº 3391\nConstantes", "R. Benhamú", ["3391"]),
        ("Técnico: X. Castro (TSID, nº T-0918)\n", "X. Castro", ["T-0918"]),
        ("Técnico: Marta Ubierna (TER, n.º T0412)\n", "Marta Ubierna", ["T0412"]),
        # a collegiate label is its own field; a number far from the name is not the name's
        ("Dr. Juan Pérez NºCol: 28 28 49712", "Juan Pérez", []),
        ("Dr. Juan Pérez (nº col. 2828)", "Juan Pérez", []),
        ("Dr. Juan Pérez revisa la placa nº 3391", "Juan Pérez", []),
    ],
)
def test_staff_numbers_after_names(text: str, name: str, want: list[str]):
    start = text.index(name)
    spans = [PHISpan(start, start + len(name), "NOMBRE_PERSONAL_SANITARIO", 0.9, MODEL)]
    out = staff_numbers_after_names(text, spans)
    assert [text[s.start : s.end] for s in out if s.type == EMPLOYEE_ID] == want


def test_a_gp_list_number_of_seven_digits():
    text = "dr. carlos mora — cupo 4503017 — col. 45/4503672"
    assert ("4503017", EMPLOYEE_ID) in [(text[a:b], t) for a, b, t in find_labelled_ids(text)]


def test_lower_case_towns_that_are_words_are_the_clinical_texts_words(data_dir):
    """:data:`LOWER_CASE_TOWNS_THAT_ARE_WORDS` is what its comment says: the municipality
    names and cities abroad (but :data:`TOWNS_THAT_ARE_WORDS`) whose lower-case form the
    unlabeled clinical text writes at least once, as a word or as a phrase."""
    import gzip
    import re
    from collections import Counter

    from deid_crf.gazetteers.spanish import WORLD_CITIES

    from deid_crf.deid.recognizers.places import LOWER_CASE_TOWNS_THAT_ARE_WORDS, TOWNS_THAT_ARE_WORDS, town_names
    from deid_crf.resources.gazetteer import DEFAULT_DIR, read_list

    texts = []
    for name in ("cantemist_background.txt.gz", "cantemist_annotated_sets.txt.gz"):
        with gzip.open(data_dir / "unlabeled_es_clinical" / name, "rt", encoding="utf-8") as lines:
            texts.append(lines.read())
    text = "\n".join(texts)
    lower = Counter(w for w in re.findall(r"[^\W\d_]+", text) if w.islower())
    names = (town_names(read_list(DEFAULT_DIR / "municipalities.txt")) | set(WORLD_CITIES)) - TOWNS_THAT_ARE_WORDS
    one_word = {n for n in names if re.fullmatch(r"[^\W\d_]+", n)}
    by_first: dict[str, list[str]] = {}
    for phrase in names - one_word:
        by_first.setdefault(phrase.lower().split()[0], []).append(phrase)
    found = set()
    for m in re.finditer(r"(?<!\w)[^\W\d_A-ZÁÉÍÓÚÑ][^\W\d_]*", text):
        for phrase in by_first.get(m.group(), ()):
            end = m.start() + len(phrase)
            if text.startswith(phrase.lower(), m.start()) and not (
                end < len(text) and (text[end].isalnum() or text[end] == "_")
            ):
                found.add(phrase)
    words = {n for n in one_word if lower[n.lower()]} | found
    assert words == LOWER_CASE_TOWNS_THAT_ARE_WORDS
