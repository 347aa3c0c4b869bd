"""Regex recognizers of the rule layer."""

from __future__ import annotations

import pytest

from deid_crf.deid import rules
from deid_crf.deid.rules import (
    RECOGNIZERS,
    Recognizer,
    RuleLayer,
    dni_letter,
    find_collegiate,
    find_dates,
    find_dni,
    find_emails,
    find_ips,
    find_labelled_ids,
    find_nass,
    find_phones,
    find_postcodes,
    find_urls,
    nass_is_valid,
    propagate_names,
    propagate_places,
    rule_layer,
)
from deid_crf.experiments.rules_table import evaluate
from deid_crf.io.brat import format_ann, parse_ann
from deid_crf.text.document import Document, Entity
from deid_crf.text.spans import MODEL, PHISpan

PHONE = "NUMERO_TELEFONO"


def found(finder, text):
    return [(text[a:b], t) for a, b, t in finder(text)]


def test_emails_urls_ips():
    text = "Correo: ana.perez+1@salud.madrid.org. Web www.hospital.es/citas, https://x.es/a?b=1. IP 192.168.0.12."
    assert found(find_emails, text) == [("ana.perez+1@salud.madrid.org", "CORREO_ELECTRONICO")]
    assert [t for t, _ in found(find_urls, text)] == ["www.hospital.es/citas", "https://x.es/a?b=1"]
    # Guideline P23.1 lists IP addresses under IDENTIF_DISPOSITIVOS_NRSERIE.
    assert found(find_ips, text) == [("192.168.0.12", "IDENTIF_DISPOSITIVOS_NRSERIE")]
    assert found(find_ips, "versión 1.2.3.4.5 y 300.1.1.1") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tfno. 967 597 100.", [("967 597 100", "NUMERO_TELEFONO")]),
        ("llame al 630 75 89 15", [("630 75 89 15", "NUMERO_TELEFONO")]),
        # The "+" of a written prefix is kept (MEDDOCAN train would start at "34").
        ("Tfno.+34 945007000 Fax: +34 945007359", [("+34 945007000", PHONE), ("+34 945007359", "NUMERO_FAX")]),
        ("Tel. y Fax: 961 622 403", [("961 622 403", "NUMERO_TELEFONO")]),
        ("Teléfono: 55304000", [("55304000", "NUMERO_TELEFONO")]),
        ("Tfno: 986413144 ext 1530", [("986413144 ext 1530", "NUMERO_TELEFONO")]),
        ("NHC: 786946231.", []),  # nine digits without a label or phone grouping: an id
        ("NASS: 89 56729805 56", []),
        # no span across lines (the extension on its own line is a phone of its own)
        ("Tfno: 986413144\next 1530", [("986413144", "NUMERO_TELEFONO"), ("1530", "NUMERO_TELEFONO")]),
        # Labels are whole words: "hotel", "cartel", "pastel", "telescopio" are none.
        ("hotel 1234567", []),
        ("cartel 912345678", []),
        ("pastel: 7654321", []),
        ("telescopio 1234567", []),
        ("Tel.1234567", [("1234567", "NUMERO_TELEFONO")]),
        ("Telfs.: 918823884 / 619128686", [("918823884", PHONE), ("619128686", PHONE)]),
    ],
)
def test_phones(text, expected):
    assert found(find_phones, text) == expected


def test_postcodes_need_a_label_or_an_address():
    assert found(find_postcodes, "CP: 28035.") == [("28035", "TERRITORIO")]
    assert found(find_postcodes, "C/ Irunlarrea, 3 E-31008 Pamplona") == [("E-31008", "TERRITORIO")]
    assert found(find_postcodes, "Castellana, 261, 28046 Madrid") == [("28046", "TERRITORIO")]
    assert found(find_postcodes, "NºCol: 28 28 20943. Informe") == []
    assert found(find_postcodes, "recuento de 15000 leucocitos") == []
    assert found(find_postcodes, "CP: 60000") == []  # no province 60


def test_dni_and_nie_need_a_valid_check_letter():
    good = f"12345678{dni_letter(12345678)}"
    bad = "12345678A" if good[-1] != "A" else "12345678B"
    nie = f"X1234567{dni_letter(1234567)}"
    text = f"DNI {good}, otro {bad}, NIE {nie} y 12.345.678-{good[-1]}"
    assert [t for t, _ in found(find_dni, text)] == [good, f"12.345.678-{good[-1]}", nie]


def test_nass_collegiate_and_labelled_ids():
    body = "2812345678"
    valid = f"{body[:2]} {body[2:]} {int(body) % 97:02d}"
    assert nass_is_valid(valid.replace(" ", ""))
    assert found(find_nass, f"afiliado {valid}") == [(valid, "ID_ASEGURAMIENTO")]
    assert found(find_nass, "NASS: 89 56729805 56") == [("89 56729805 56", "ID_ASEGURAMIENTO")]
    assert found(find_nass, "lote 89 56729805 56") == []
    assert found(find_collegiate, "NºCol: 28 28 20943.") == [("28 28 20943", "ID_TITULACION_PERSONAL_SANITARIO")]
    assert found(find_collegiate, "Col. 08-12-25574") == [("08-12-25574", "ID_TITULACION_PERSONAL_SANITARIO")]
    text = "NHC: 2569870.\nEpisodio: 7843034\nNASS:  28 43758925 33.\nNHC: ver informe\n"
    assert found(find_labelled_ids, text) == [
        ("2569870", "ID_SUJETO_ASISTENCIA"),
        ("7843034", "ID_CONTACTO_ASISTENCIAL"),
        ("28 43758925 33", "ID_ASEGURAMIENTO"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fecha de ingreso: 03/03/1946.", ["03/03/1946"]),
        ("el 5-4-17 y el 31/02/2000", ["5-4-17"]),
        ("ingresó el 15 de marzo de 2016", ["15 de marzo de 2016"]),
        ("en diciembre-08 y el 6-abril-2004", ["diciembre-08", "6-abril-2004"]),
        ("En el año 2000 y desde 1995", ["año 2000", "1995"]),
        ("Consulta en junio.", ["junio"]),
        ("Hospital Universitario 12 de Octubre", []),
        ("estadio TNM 2003, modelo SRV2007, mar de fondo", []),
        # "el" before "año" stays out of the span whatever the spaces.
        ("el  año 2000", ["año 2000"]),
        ("el\taño 2000", ["año 2000"]),
        ("El año 2000", ["año 2000"]),
        # A date written across a line break is not one span.
        ("el 15 de\nmarzo de 2016", ["marzo de 2016"]),
        ("el 15\nde marzo de 2016", ["marzo de 2016"]),
        ("en marzo de\n2016", ["marzo"]),
        ("en el año\n2000", []),
    ],
)
def test_dates(text, expected):
    assert [t for t, _ in found(find_dates, text)] == expected


def test_rule_spans_never_hold_a_line_break(monkeypatch):
    text = (
        "Ingresó el 15 de\nmarzo de 2016 y el año\r\n2000.\nTfno. 967\n597 100 ext\n12\n"
        "Visto en junio\nde 2016. Tel.\n\n630 75 89 15\nNHC: 2569870\n"
    )
    spans = RuleLayer(priority="union").find(text)
    assert spans and all("\n" not in text[s.start : s.end] and "\r" not in text[s.start : s.end] for s in spans)
    assert parse_ann(format_ann([s.entity for s in spans], text), text, "t.ann") == [s.entity for s in spans]
    # The safety net: a recognizer whose span crosses lines gets it cut into one span a line.
    crossing = Recognizer("crossing", ("FECHAS",), lambda t: iter([(3, 27, "FECHAS")]), "a span over two lines")
    monkeypatch.setitem(rules.RECOGNIZERS, "crossing", crossing)
    spans = RuleLayer(priority="union", recognizers=("crossing",)).find("el 15 de \r\n\n  marzo de 2016 y")
    assert [(s.start, s.end) for s in spans] == [(3, 8), (14, 27)]


def test_rule_layer_modes():
    text = "NHC: 2569870.\nTfno. 967 597 100\n"
    model = [PHISpan(5, 12, "ID_SUJETO_ASISTENCIA", 0.9, MODEL)]
    assert rule_layer("off").apply(text, model) == model
    spans = RuleLayer().apply(text, model)
    assert [(text[s.start : s.end], s.type, s.source) for s in spans] == [
        ("2569870", "ID_SUJETO_ASISTENCIA", "model+rule"),
        ("967 597 100", "NUMERO_TELEFONO", "rule"),
    ]
    with pytest.raises(ValueError, match="unknown rule mode"):
        rule_layer("sometimes")
    with pytest.raises(ValueError, match="unknown recognizers"):
        RuleLayer(recognizers=("email", "telepathy"))
    assert set(RECOGNIZERS) >= {"email", "url", "ip", "phone", "postcode", "dni", "nass", "collegiate"}


def test_evaluate_table_on_a_toy_corpus():
    text = "NHC: 2569870.\nTfno. 967 597 100\nFecha: 03/03/1946\n"
    gold = [
        Document(
            "d",
            text,
            [Entity(5, 12, "ID_SUJETO_ASISTENCIA"), Entity(20, 31, "NUMERO_TELEFONO"), Entity(39, 49, "FECHAS")],
        )
    ]
    model = [[PHISpan(5, 12, "ID_SUJETO_ASISTENCIA", 0.9, MODEL)]]
    table = evaluate(gold, model)
    assert "| NUMERO_TELEFONO | 1 | 0.0000 | 1.000 / 1.000 | 1.0000 | 1.0000 | 1.0000 | union |" in table
    assert "| model alone | 1.0000 | 0.3333 | 0.5000 |" in table
    assert "| model + shipped rules + propagation (default) | 1.0000 | 1.0000 | 1.0000 |" in table


def test_names_found_once_are_found_again_in_the_document():
    text = "Nombre: Ernesto Rivera Bueno.\nEl Sr. Rivera y su socio Ernesto. Calle Rivera, 3. Riveras.\n"
    model = [PHISpan(8, 28, "NOMBRE_SUJETO_ASISTENCIA", 0.9, MODEL), PHISpan(64, 79, "CALLE", 0.8, MODEL)]
    spans = propagate_names(text, model)
    assert [(text[s.start : s.end], s.type, s.source) for s in spans] == [
        ("Ernesto Rivera Bueno", "NOMBRE_SUJETO_ASISTENCIA", "model"),
        ("Rivera", "NOMBRE_SUJETO_ASISTENCIA", "propagated"),
        ("Ernesto", "NOMBRE_SUJETO_ASISTENCIA", "propagated"),
        ("Calle Rivera, 3", "CALLE", "model"),
    ]
    assert rule_layer("default", propagate=False).apply(text, model) == model
    assert rule_layer("off").apply(text, model) == model


def test_a_name_found_short_is_widened_to_the_whole_name_found_elsewhere():
    text = "Médico: José Crestanello Nese\nDr. José Crestanello Nese. Email: Calle Nese 4"
    first, second = text.index("José"), text.index("José", 10)
    model = [
        PHISpan(first, first + 21, "NOMBRE_PERSONAL_SANITARIO", 0.9, MODEL),
        PHISpan(second, second + 16, "NOMBRE_SUJETO_ASISTENCIA", 0.6, MODEL),  # "José Crestanello"
        PHISpan(text.index("Calle"), len(text), "CALLE", 0.8, MODEL),
    ]
    spans = propagate_names(text, model)
    assert [(text[s.start : s.end], s.type, s.source) for s in spans] == [
        ("José Crestanello Nese", "NOMBRE_PERSONAL_SANITARIO", "model"),
        # widened, keeping the type the model gave it there
        ("José Crestanello Nese", "NOMBRE_SUJETO_ASISTENCIA", "propagated"),
        # a span of another type that holds a part of the name is left as it is
        ("Calle Nese 4", "CALLE", "model"),
    ]


def test_a_name_in_capitals_is_found_again_written_in_lower_case():
    text = "PACIENTE: NDIAYE SARR, AWA\nAwa refiere dolor. Sarr. CARDIOLOGÍA. La SARR.\n"
    model = [PHISpan(10, 26, "NOMBRE_SUJETO_ASISTENCIA", 0.9, MODEL)]
    spans = propagate_names(text, model)
    assert [(text[s.start : s.end], s.source) for s in spans] == [
        ("NDIAYE SARR, AWA", "model"),
        ("Awa", "propagated"),
        ("Sarr", "propagated"),
        ("SARR", "propagated"),
    ]
    # a department the model took for a name in a header is not looked for in the text
    header = "MEDICINA INTERNA\nServicio de Medicina Interna."
    assert propagate_names(header, [PHISpan(0, 16, "NOMBRE_PERSONAL_SANITARIO", 0.5, MODEL)]) == [
        PHISpan(0, 16, "NOMBRE_PERSONAL_SANITARIO", 0.5, MODEL)
    ]


def test_the_other_mentions_of_a_place_or_maker_are_found_again():
    text = (
        "Campo visual (Humphrey 30-2) en la Unidad de Reumatología Colón. Remitido a "
        "Colón, 28. Material (Allergan Humphrey, San Leandro). Restaurante Gran Muralla, "
        "en Gran Canaria; Gran Canaria. HUMPHREY."
    )
    street = text.index("Colón, 28")
    maker = text.index("Allergan")
    island = text.index("Gran Canaria;")
    model = [
        PHISpan(street, street + 9, "CALLE", 0.9, MODEL),
        PHISpan(maker, maker + 17, "INSTITUCION", 0.8, MODEL),
        PHISpan(island + 14, island + 26, "TERRITORIO", 0.7, MODEL),
    ]
    spans = propagate_places(text, model)
    added = [(text[s.start : s.end], s.type, s.confidence) for s in spans if s.source == "propagated"]
    assert added == [
        ("Humphrey", "INSTITUCION", 0.8),
        ("Colón", "CALLE", 0.9),  # its phrase's other words name no one: a unit, a specialty
        ("Gran Canaria", "TERRITORIO", 0.7),  # one span for the words found together
    ]  # not "Gran" of "Gran Muralla" (another name), nor "HUMPHREY" in capitals


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fecha: martes 25/02/2025.", ["martes 25/02/2025"]),
        ("Fecha: vie. 07/03/25", ["vie. 07/03/25"]),
        ("xoves 06/03/2025", ["xoves 06/03/2025"]),
        ("Data: dilluns, 15 de juliol de 2024", ["dilluns, 15 de juliol de 2024"]),
        ("el lunes 04-IV-2024", ["lunes 04-IV-2024"]),
        ("agua de mar 12/03/2024", ["mar 12/03/2024"]),  # only before figures: the sea alone is not a day
        ("calamar 12/03/2024", ["12/03/2024"]),
        # a weekday's name and a day/month without a year, whatever follows
        ("VISITAS\nVenres 13/02 (Dra. Lamas); Mércores 18/02: EVA 3", ["Venres 13/02", "Mércores 18/02"]),
        ("el lunes 31/02, imposible", ["lunes"]),
    ],
)
def test_a_weekday_opens_a_date_in_figures(text, expected):
    assert [text[a:b] for a, b, _ in find_dates(text)] == expected


def test_two_relatives_the_model_joined_over_y_are_two_spans():
    from deid_crf.deid.recognizers.relatives import relatives
    from deid_crf.text.spans import MODEL, PHISpan

    for text, piece, want in (
        ("informada; el hijo y un sobrino, Hamza, viajarán", "hijo y un sobrino", ["hijo", "sobrino"]),
        ("sus padres Teresa y Juan Carlos", "padres Teresa y Juan Carlos", ["padres Teresa y Juan Carlos"]),
    ):
        start = text.index(piece)
        model = [PHISpan(start, start + len(piece), "FAMILIARES_SUJETO_ASISTENCIA", 0.9, MODEL)]
        assert [text[s.start : s.end] for s in relatives(text, model)] == want


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Vive con su hija de 19 años.", ["hija de 19 años"]),
        ("Tiene dos hijas de 16 y 12 años.", ["dos hijas de 16 y 12 años"]),
        # an age in words too (the dictated notes of the guide splits)
        ("su madre de setenta y seis años ha venido desde la unión", ["madre de setenta y seis años"]),
        ("y un hijo de veinticuatro años coma", ["hijo de veinticuatro años"]),
        # an age in brackets is a span of its own (the guide splits, 3 of 3)
        ("Su hijo mediano (21 años) trabaja.", ["hijo mediano", "21 años"]),
        # the name joins the phrase; the age after the comma is a relative's span of its own
        ("Su hijo Iñaki, de 12 años.", ["hijo Iñaki", "12 años"]),
        ("Vive amb la seva germana i dos fills.", ["germana", "dos fills"]),
        ("o seu fillo e a súa nai", ["fillo", "nai"]),
        ("non se comente nada coa sogra; os dous fillos e o cunhado", ["sogra", "dous fillos", "cunhado"]),
        ("Ho sap la sogra i les dues filles.", ["sogra", "dues filles"]),
        ("Una solución madre de 3 años de vida útil", []),
    ],
)
def test_relatives_in_other_languages_and_with_their_ages(text, expected):
    from deid_crf.deid.recognizers.relatives import relatives

    assert [text[s.start : s.end] for s in relatives(text, [])] == expected


def test_a_contact_fields_label_alone_is_never_a_span():
    text = "Avda. Mayor, s/n. Cádiz. Tfno: 956 00 00 00 / móvil 600 00 00 00"
    tfno, movil = text.index("Tfno"), text.index("móvil")
    model = [PHISpan(tfno, tfno + 4, "CALLE", 0.6, MODEL), PHISpan(movil, movil + 5, "CALLE", 0.6, MODEL)]
    out = rule_layer("default", propagate=False).apply(text, model)
    assert not [s for s in out if s.start in (tfno, movil)]
    # a table's labels taken for names
    text = "| DNI | 45107832-T |\n| Sexo | M |"
    model = [
        PHISpan(2, 5, "NOMBRE_SUJETO_ASISTENCIA", 0.5, MODEL),
        PHISpan(23, 27, "NOMBRE_SUJETO_ASISTENCIA", 0.5, MODEL),
    ]
    assert not [
        s for s in rule_layer("default", propagate=False).apply(text, model) if s.type == "NOMBRE_SUJETO_ASISTENCIA"
    ]
    # the same word inside a longer span is left alone
    text = "Trabaja en Correo Express desde 2019."
    company = PHISpan(text.index("Correo"), text.index(" desde"), "OTROS_SUJETO_ASISTENCIA", 0.9, MODEL)
    assert company in rule_layer("default", propagate=False).apply(text, [company])


@pytest.mark.parametrize(
    "text, value, want",
    [
        ("Apellidos: Schmidt          Nombre: Klaus", "Schmidt          Nombre", "Schmidt"),
        ("Edad: 68\tF", "68\tF", "68"),
        (
            "Domicilio: c/ Predicadores, 48, 3.º izda, Zaragoza",
            "c/ Predicadores, 48, 3.º izda,",
            "c/ Predicadores, 48, 3.º izda",
        ),
        # a single or double space and inner commas stay
        ("Nombre: Ana  María Pérez", "Ana  María Pérez", "Ana  María Pérez"),
    ],
)
def test_a_span_stops_at_a_field_gap_and_loses_ending_punctuation(text, value, want):
    start = text.index(value)
    model = [PHISpan(start, start + len(value), "NOMBRE_SUJETO_ASISTENCIA", 0.9, MODEL)]
    out = rules.RuleLayer(priority="model", propagate=False).apply(text, model)
    assert [text[s.start : s.end] for s in out if s.start == start] == [want]


def test_a_products_reference_taken_for_a_phone_is_dropped():
    """``Ref. 6405-1-550`` and ``Lote …`` name a product; a phone after other words stays."""
    text = "- Cotilo: Ref. 6405-1-550 · SN KX7720143\n- Lote: 0580-1-441\nLlamar al 600 123 456."
    refs = [text.index("6405"), text.index("0580")]
    model = [PHISpan(start, start + 10, "NUMERO_TELEFONO", 0.7, MODEL) for start in refs]
    phone = text.index("600")
    model.append(PHISpan(phone, phone + 11, "NUMERO_TELEFONO", 0.9, MODEL))
    out = rule_layer("default", propagate=False).apply(text, model)
    assert [(text[s.start : s.end], s.type) for s in out if s.type == "NUMERO_TELEFONO"] == [
        ("600 123 456", "NUMERO_TELEFONO")
    ]


@pytest.mark.parametrize(
    ("text", "pieces", "kept"),
    [
        # ribs counted by ordinals, however the model cut them, are no address
        ("Dolor a la palpación de 4º–6º arcos costales. Murmullo", ["4º", "6º arcos costales"], []),
        ("dolor a la palpación 8.º-9.º arcos, sin crepitación", ["º-9.º arcos"], []),
        # a floor after a street, and a street named Arcos, stay
        ("Vive en C/ Mayor 3, 4º izda, de Toledo", ["C/ Mayor 3, 4º izda"], ["C/ Mayor 3, 4º izda"]),
        ("Domicilio: Calle Arcos 3, 4º", ["Calle Arcos 3, 4º"], ["Calle Arcos 3, 4º"]),
    ],
)
def test_ribs_counted_by_ordinals_are_no_street(text, pieces, kept):
    model = []
    for piece in pieces:
        start = text.index(piece)
        model.append(PHISpan(start, start + len(piece), "CALLE", 0.8, MODEL))
    out = rule_layer("default", propagate=False).apply(text, model)
    assert [text[s.start : s.end] for s in out if s.type == "CALLE"] == kept


@pytest.mark.parametrize(
    ("text", "piece", "kept"),
    [
        # a role in someone's care is no job of the patient's
        ("se contacta con la trabajadora social para valorar", "trabajadora social", False),
        ("Judit Ferré i Pallarès, treballadora social sanitària — Col. 4812", "treballadora social sanitària", False),
        ("Vive con su hija, de 63 años, cuidadora principal, y con el yerno", "cuidadora principal", False),
        # after a cue it is the patient's job
        ("La paciente es trabajadora social en un ayuntamiento.", "trabajadora social", True),
        ("De profesión: mediador intercultural.", "mediador intercultural", True),
    ],
)
def test_care_roles_are_no_profession(text, piece, kept):
    start = text.index(piece)
    model = [PHISpan(start, start + len(piece), "PROFESION", 0.8, MODEL)]
    out = rule_layer("default", propagate=False).apply(text, model)
    assert any(text[s.start : s.end] == piece and s.type == "PROFESION" for s in out) == kept
