"""Rules for ward lists and contact tables, relatives named in other ways, jobs in
apposition, employers without a legal form and bodies named in full (notes corpus
dev2's misses): each with the cases it must leave alone."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.ages import ages_before_their_unit
from deid_crf.deid.recognizers.institutions import organisations
from deid_crf.deid.recognizers.relatives import relatives
from deid_crf.deid.recognizers.table_columns import find_table_values
from deid_crf.deid.recognizers.work import find_employers, find_professions, professions_in_apposition
from deid_crf.deid.rules import RuleLayer
from deid_crf.text.spans import MODEL, PHISpan

PATIENT = "NOMBRE_SUJETO_ASISTENCIA"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"
STAFF = "NOMBRE_PERSONAL_SANITARIO"
AGE = "EDAD_SUJETO_ASISTENCIA"
SEX = "SEXO_SUJETO_ASISTENCIA"
RECORD = "ID_SUJETO_ASISTENCIA"


def model(text: str, *named: tuple[str, str]) -> list[PHISpan]:
    return sorted(PHISpan(text.index(s), text.index(s) + len(s), t, 0.8, MODEL) for s, t in named)


def shown(text: str, spans) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.type) for s in spans]


# ------------------------------------------------------------------------------ tables

WARD = (
    "Planta 5ª — pase de guardia\n"
    "HAB | PACIENTE | EDAD/S | NHC | ING. | PENDIENTE | ENF\n"
    '512 | GOÑI ARRIETA, MIREN ("Mirentxu") | 77a M | HC-0044817 | 02/05 | Eco abdominal | TL\n'
    "513 | Santos Lima, Joao | 45 años H | 3318890 | 01/05 | Alta mañana | Pilar Gómez\n"
    "Comentarios libres | sin tabla | aquí\n"
)


def test_a_ward_list_gives_names_ages_sex_records_and_staff():
    got = [(WARD[a:b], t) for a, b, t in find_table_values(WARD)]
    assert got == [
        ("GOÑI ARRIETA", PATIENT),
        ("MIREN", PATIENT),
        ("Mirentxu", PATIENT),
        ("77a", AGE),
        ("M", SEX),
        ("HC-0044817", RECORD),
        ("TL", STAFF),
        ("Santos Lima", PATIENT),
        ("Joao", PATIENT),
        ("45 años", AGE),
        ("H", SEX),
        ("3318890", RECORD),
        ("Pilar Gómez", STAFF),
    ]


def test_a_contact_table_with_kinship_gives_relatives():
    text = "| Persona | Parentesco | Teléfono |\n| Rosa Vidal («Rosi») | hija | 600 111 222 |\n"
    assert [(text[a:b], t) for a, b, t in find_table_values(text)] == [("Rosa Vidal", RELATIVE), ("Rosi", RELATIVE)]


@pytest.mark.parametrize(
    "text",
    [
        # no header: a row alone says nothing
        "512 | GOÑI ARRIETA, MIREN | 77a M | TL\n",
        # a header with digits is a data row
        "Hb 12 | PACIENTE | EDAD\n| X | 4 |\n",
        # a row with another number of cells ends the table
        "PACIENTE | EDAD | ENF\nGOÑI, MIREN | 77a\n",
        # values that are not what the column holds
        "PACIENTE | EDAD | NHC | ENF\npendiente de TAC | 3 días de ingreso | no consta | ver evolutivo\n",
        # a lab table's header names nothing known
        "Parámetro | Resultado | Unidades\nGlucosa | 98 | mg/dL\n",
    ],
)
def test_tables_without_a_known_header_or_values_give_nothing(text):
    assert list(find_table_values(text)) == []


def test_the_rule_layer_keeps_a_ward_lists_rare_surname_and_initials():
    text = WARD
    out = RuleLayer().apply(text, model(text, ("GOÑI ARRIETA", PATIENT)))
    got = shown(text, out)
    assert ("TL", STAFF) in got and ("77a", AGE) in got and ("MIREN", PATIENT) in got


# --------------------------------------------------------------------------- relatives


@pytest.mark.parametrize(
    "text, named, want",
    [
        ("Restricción hídrica. Sobrina refiere que no come.", [], [("Sobrina", RELATIVE)]),
        ("Marido avisado por teléfono.", [], [("Marido", RELATIVE)]),
        ("- Madre con DM2.", [], [("Madre", RELATIVE)]),
        # a partner after a possessive, and the name after it
        (
            "Vive con su mujer, Ionela, en Soria.",
            [("Ionela", PATIENT)],
            [("mujer", RELATIVE), ("Ionela", RELATIVE)],
        ),
        (
            "amb la seva dona; o seu home, Xurxo",
            [("Xurxo", PATIENT)],
            [("dona", RELATIVE), ("home", RELATIVE), ("Xurxo", RELATIVE)],
        ),
        # a kinship phrase in capitals after an article in capitals
        ("LA MADRE, LIN MEI, TRABAJA.", [("LIN MEI", PATIENT)], [("LIN MEI", RELATIVE)]),
        # the kinship word and the name right after it: one span
        ("avisar a la filla Aina (971)", [("filla", RELATIVE), ("Aina", PATIENT)], [("filla Aina", RELATIVE)]),
        # a span that ran on is cut back to the phrase and the name
        (
            "La hija Inmaculada trabaja de día.",
            [("hija Inmaculada trabaja", RELATIVE)],
            [("hija Inmaculada", RELATIVE)],
        ),
        ("| Traduce el hijo Wei |", [("Traduce el hijo Wei", RELATIVE)], [("hijo Wei", RELATIVE)]),
        (
            "su hermana María José Miguel Reiz",
            [("hermana María José Miguel Reiz", RELATIVE)],
            [("hermana María José Miguel Reiz", RELATIVE)],
        ),
    ],
)
def test_relatives_named_in_other_ways(text, named, want):
    assert shown(text, relatives(text, model(text, *named))) == want


@pytest.mark.parametrize(
    "text, named, want",
    [
        # a name the model missed after the kinship phrase: a comma, a bracket, a space
        ("y el yerno pequeño, Aitor, viene.", [], [("yerno pequeño", RELATIVE), ("Aitor", RELATIVE)]),
        ("se avisa a la nieta (Sheila, cajera)", [], [("nieta", RELATIVE), ("Sheila", RELATIVE)]),
        ("llamar a su filla Montse, al móvil", [], [("filla Montse", RELATIVE)]),
        ("si no, a la seua dona, Empar.", [], [("dona", RELATIVE), ("Empar", RELATIVE)]),
        # in a contact list, after a kinship label, on a line with a phone number
        ("Avisos:\n1. Nieta: Yaiza — 622 10 44 87", [], [("Yaiza", RELATIVE)]),
        # and a name the model typed as the patient after such a label, phone or not
        ("Avisos:\n2. Cuñada: Olvido, por las tardes", [("Olvido", PATIENT)], [("Olvido", RELATIVE)]),
        # not a name: a clause, a service, a family history's line without a phone
        ("la hija, Hospital de día los martes", [], [("hija", RELATIVE)]),
        ("su madre Diabetes tipo 2", [], [("madre", RELATIVE)]),
        ("Antecedentes:\nPadre: Fallecido de IAM a los 70.", [], []),
        ("se avisa a la nieta (Sheila es su nombre)", [], [("nieta", RELATIVE)]),
        # the numeral the model left out; not "ambos", outside the span in MEDDOCAN train
        ("y tiene tres nietos.", [("nietos", RELATIVE)], [("tres nietos", RELATIVE)]),
        ("a ambos hijos.", [("hijos", RELATIVE)], [("hijos", RELATIVE)]),
        # a relative's ages in brackets; not a bracket that is no age
        (
            "con la cuñada, Amparo (79), y sus dos nietas (8 y 11 años).",
            [("Amparo", PATIENT)],
            [
                ("cuñada", RELATIVE),
                ("Amparo", RELATIVE),
                ("79", RELATIVE),
                ("dos nietas", RELATIVE),
                ("8", RELATIVE),
                ("11 años", RELATIVE),
            ],
        ),
        ("su madre (tratamiento 2) y su hijo (250)", [], [("madre", RELATIVE), ("hijo", RELATIVE)]),
    ],
)
def test_relatives_names_the_model_missed(text, named, want):
    assert shown(text, relatives(text, model(text, *named))) == want


def test_a_relatives_name_is_propagated_as_a_relatives():
    text = "Avisada su pareja, Maite (tel. 600). Vive con Maite y su madre."
    spans = RuleLayer().apply(text, model(text, ("pareja", RELATIVE), ("Maite", PATIENT)))
    assert [(v, t) for v, t in shown(text, spans) if v == "Maite"] == [("Maite", RELATIVE), ("Maite", RELATIVE)]


@pytest.mark.parametrize(
    "text",
    [
        "Avenida Hermanos Machado, 3.",
        "Dña. Rosa Nieto Gil.",
        "Dos Hermanas, Sevilla.",
        "Madre: sana.",
        "Hermanos Falcó 3.",
        "La mujer, de 40 años, acude sola.",  # "mujer" without a possessive is the patient
        "Es un home de 70 anos.",
        "MADRE, LIN MEI",  # capitals without an article: a header's label
    ],
)
def test_words_that_are_not_relatives_here(text):
    assert relatives(text, []) == []


def test_a_capitalised_name_after_a_kinship_phrase_in_capitals_without_article_keeps_its_type():
    text = "Dirección: DOS HERMANAS, LUISA ROMERO"
    assert shown(text, relatives(text, model(text, ("LUISA ROMERO", PATIENT)))) == [("LUISA ROMERO", PATIENT)]


# ------------------------------------------------------------------------------ work


@pytest.mark.parametrize(
    "text, named, want",
    [
        ("con su marit Vicent, llaurador, a Catarroja", [("Vicent", RELATIVE)], ["llaurador"]),
        ("su filla, Laura, farmacéutica.", [("Laura", RELATIVE)], ["farmacéutica"]),
        ("EL PADRE, CHEN HAO, COCINERO EN UN BAR", [("CHEN HAO", RELATIVE)], ["COCINERO"]),
        (
            "Paciente: Luis Gil, camionero de largo recorrido.",
            [("Luis Gil", PATIENT)],
            ["camionero de largo recorrido"],
        ),
        (
            "paciente de 46 años, empleada de hogar (interna)",
            [("46 años", "EDAD_SUJETO_ASISTENCIA")],
            ["empleada de hogar"],
        ),
        # a clinician's role after a name the model typed as the patient's is a signature
        ("Dña. Amaia Goñi, médica de familia", [("Amaia Goñi", PATIENT)], []),
        # not a job, or not after a person
        ("su hija, Laura, simpática.", [("Laura", RELATIVE)], []),
        ("Hospital Clínico, cocinero", [("Hospital Clínico", "HOSPITAL")], []),
    ],
)
def test_jobs_in_apposition(text, named, want):
    spans = model(text, *named)
    out = professions_in_apposition(text, spans)
    assert [text[s.start : s.end] for s in out if s.type == "PROFESION"] == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("Restricción hídrica. Es payés.", ["payés"]),
        ("su hija q es cocinera", ["cocinera"]),
        ("Es portador de marcapasos. Es alérgico.", []),
    ],
)
def test_jobs_after_a_sentence_opening_es(text, want):
    assert [text[a:b] for a, b, _ in find_professions(text)] == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("Jubilada de la antigua fábrica de Confecciones Nalón.", ["Confecciones Nalón"]),
        ("trabaja de dependiente en el locutorio Bilbao Connect desde 2020", ["Bilbao Connect"]),
        ("traballa de enóloga na adega Viña do Avia", ["Viña do Avia"]),
        # no word about work on the line: a place, not an employer
        ("Vive cerca de la fábrica de Harinas Monreal.", []),
        ("Trabaja en la empresa de su padre.", []),
    ],
)
def test_employers_named_after_a_workplace(text, want):
    assert [text[a:b] for a, b, _ in find_employers(text)] == want


# ---------------------------------------------------------------------- institutions


@pytest.mark.parametrize(
    "text, want",
    [
        ("juicio en el Juzgado de lo Social nº 3 de Bilbao (autos)", "Juzgado de lo Social nº 3 de Bilbao"),
        (
            "Destinatario: Juzgado de Violencia sobre la Mujer nº 2 de Madrid",
            "Juzgado de Violencia sobre la Mujer nº 2 de Madrid",
        ),
        ("a la Inspecció de Treball i Seguretat Social", "Inspecció de Treball i Seguretat Social"),
        ("Entidad responsable: Mutua Asturiana de Accidentes de Trabajo", "Mutua Asturiana de Accidentes de Trabajo"),
        ("SESPA — Área Sanitaria V", "Área Sanitaria V"),
    ],
)
def test_bodies_named_in_full(text, want):
    out = organisations(text, [])
    assert shown(text, out) == [(want, "INSTITUCION")]


def test_a_generic_body_names_no_one():
    text = "la mutua y el área sanitaria; el juzgado de guardia"
    assert organisations(text, []) == []


@pytest.mark.parametrize(
    "text, want",
    [
        ("ANTECEDENTES\n- Agricultor jubilado, natural de Reus.\n- HTA.", ["Agricultor"]),
        ("Vive en Medina.\nTransportista de mercancías por carretera.", ["Transportista de mercancías"]),
        ("Exfumador. Pescador.", ["Pescador"]),
        # a body, a clinician's label or role, a heading with dots, a word that is no job
        ("Alergias: no. Policía Nacional avisada.", []),
        ("- Médico de guardia avisado.\n- Técnica quirúrgica.", []),
        ("Técnico ......... TSID Laura Prieto", []),
        ("- Madre.\n- Celador avisado por la noche.", []),
    ],
)
def test_a_job_alone_opening_a_sentence_or_list_item(text, want):
    assert [text[a:b] for a, b, _ in find_professions(text)] == want


@pytest.mark.parametrize(
    "text, name, want",
    [
        ("D. Íñigo Sáez Lasa, Doctor en Medicina, colegiado en Madrid", "Íñigo Sáez Lasa", STAFF),
        ("Dña. Amaia Goñi Etxarri, médica de familia, colegiada nº 31/05678, CERTIFICA", "Amaia Goñi Etxarri", STAFF),
        # a patient who is a doctor: no collegiate number, no signature
        ("Paciente Juan Gil Sanz, médico jubilado, acude por disnea.", "Juan Gil Sanz", PATIENT),
        ("Ana Ruiz, enfermera en paro, vive sola.", "Ana Ruiz", PATIENT),
    ],
)
def test_a_name_with_a_clinicians_degree_and_collegiate_number_is_the_signers(text, name, want):
    from deid_crf.deid.recognizers.names import roles_from_labels

    [span] = roles_from_labels(text, model(text, (name, PATIENT)))
    assert span.type == want


@pytest.mark.parametrize(
    "text, want",
    [
        # a legacy form's surnames, comma, given name: two spans
        ("Paciente ........ POPESCU, ION\nNHC ..... 5512098", ["POPESCU", "ION"]),
        ("DATOS DO USUARIO\nNome: Xoán   Apelidos: Castiñeira Lamas", ["Xoán"]),
        ("Pacient: Sra. Montserrat Puig i Ferrer.", ["Montserrat Puig i Ferrer"]),
        # not a name: lower case, a department, a label inside running text
        ("Paciente: varón de 45 años.", []),
        ("Nombre: Servicio de Urgencias", []),
        ("El paciente: Juan refiere", []),
    ],
)
def test_the_name_in_a_patient_field(text, want):
    from deid_crf.deid.recognizers.names import find_labelled_patients

    assert [text[a:b] for a, b, _ in find_labelled_patients(text)] == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("avisó al SEM; trasladada por SUMMA 112 y el SAMUR", ["SEM", "SUMMA 112", "SAMUR"]),
        ("Aviso a GUETS.", ["GUETS"]),
        # an acronym in lower case is a word; a body's name after a hospital's head is the hospital's
        ("Control en 2 Sem. y luego Samu avisa", []),
        ("ingresó en el Hospital Cruz Roja de Gijón", []),
        ("acude con voluntarios de Cruz Roja", ["Cruz Roja"]),
    ],
)
def test_emergency_services_and_bodies(text, want):
    from deid_crf.deid.recognizers.institutions import find_institutions

    assert [text[a:b] for a, b, _ in find_institutions(text)] == want


@pytest.mark.parametrize(
    "text, name, given, want",
    [
        ("medico PAC: Fco Javier Moya (col. 0204511)", "Fco Javier Moya", PATIENT, STAFF),
        ("con la trabajadora social del centro, Nerea Ibarluzea, y", "Nerea Ibarluzea", RELATIVE, STAFF),
        ("a la enfermera del CAP Sant Roc,\nSra. Laia Pons Serrat, que", "Laia Pons Serrat", PATIENT, STAFF),
        ("Admisión — Jon Ander Beitia (nº empleado U0384412)", "Jon Ander Beitia", RELATIVE, STAFF),
        ("Responsable de la unidad: Olga Rey Pazos", "Olga Rey Pazos", RELATIVE, STAFF),
        ("Supervisora: Olga Rey Pazos", "Olga Rey Pazos", PATIENT, STAFF),
        # a patient label is still the patient's; a relative's job after the name is no signature
        ("Paciente: Ana Gil (colaboradora)", "Ana Gil", STAFF, PATIENT),
        ("su hija, enfermera, Marta Gil", "Marta Gil", RELATIVE, RELATIVE),
        ("su hija Marta Gil (enfermera)", "Marta Gil", RELATIVE, RELATIVE),
    ],
)
def test_staff_named_by_a_role_around_them(text, name, given, want):
    from deid_crf.deid.recognizers.names import roles_from_labels

    [span] = roles_from_labels(text, model(text, (name, given)))
    assert span.type == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("Madre fallecida de neoplasia a los 48 años.", RELATIVE),
        ("- III-2: hermana, Covadonga, 47 años, cáncer de mama.", RELATIVE),
        # the patient comes back into the sentence, or another sentence: the patient's age
        ("Vive con su madre; la paciente, de 48 años, trabaja.", AGE),
        ("Acude con su madre. Mujer de 48 años con dolor.", AGE),
    ],
)
def test_an_age_later_in_a_relatives_sentence(text, want):
    import re as _re

    age = _re.search(r"\d+ años", text).group()
    spans = model(text, (age, AGE))
    out = relatives(text, spans)
    assert [s.type for s in out if text[s.start : s.end] == age] == [want]


@pytest.mark.parametrize(
    "text, want",
    [
        # the unit once, after the last age, or none at all: each number is the relative's
        (
            "Madre con cáncer de mama bilateral a los 47 y 59 años, fallecida a los 62.",
            ["Madre", "47", "59 años", "62"],
        ),
        # (the age after the relative and a comma is the relative's too)
        ("Padre, 75 años, melanoma a los 68. Rama paterna sin datos.", ["Padre", "75 años", "68"]),
        ("su tío paterno, diagnosticado a los 64 de cáncer de próstata", ["tío paterno", "64"]),
        # not an age: a count of something; and the patient's own sentence
        ("Su madre recibió quimioterapia y se reevaluó a los 6 ciclos.", ["madre"]),
        ("Acude con su madre. Operado a los 12.", ["madre"]),
    ],
)
def test_ages_at_a_relatives_diagnosis_or_death(text, want):
    out = relatives(text, [])
    assert [text[s.start : s.end] for s in out] == want


@pytest.mark.parametrize(
    "text, last, want",
    [
        ("cesáreas a los 22 y 24 años. Ahora", "24 años", ["22", "24 años"]),
        ("orquidopexia a los 3, 5 y 8 años respectivamente", "8 años", ["3", "5", "8 años"]),
        # a list that "a los" does not open, and a number already in a span
        ("Gesta 3 y 24 años de edad", "24 años", ["24 años"]),
    ],
)
def test_ages_before_their_unit(text, last, want):
    out = ages_before_their_unit(text, model(text, (last, AGE)))
    assert [(text[s.start : s.end], s.type) for s in out] == [(w, AGE) for w in want]


@pytest.mark.parametrize(
    ("text", "job", "expected"),
    [
        ("Trabaja como auxiliar de ayuda a domicilio.", "auxiliar de ayuda", "auxiliar de ayuda a domicilio"),
        ("su hija, estudiante de Enfermería, vive", "estudiante", "estudiante de Enfermería"),
        ("monitora de deporte escolar", "monitora", "monitora de deporte"),  # a preposition each time
        # the cue after the job, a capitalised word after a job that is not of study, "a" elsewhere
        ("Mecánico de profesión, jubilado", "Mecánico", "Mecánico"),
        ("camarero de Casa Paco", "camarero", "camarero"),
        ("conductor a tiempo parcial", "conductor", "conductor"),
    ],
)
def test_a_job_runs_on_over_its_complement(text, job, expected):
    from deid_crf.deid.recognizers.work import professions_with_their_complement

    start = text.index(job)
    spans = [PHISpan(start, start + len(job), "PROFESION", 0.8, MODEL)]
    (out,) = professions_with_their_complement(text, spans)
    assert text[out.start : out.end] == expected


def test_a_job_stops_at_the_next_span():
    from deid_crf.deid.recognizers.work import professions_with_their_complement

    text = "auxiliar de enfermería del Hospital Clínico"
    spans = [PHISpan(0, 8, "PROFESION", 0.8, MODEL), PHISpan(12, 22, "TERRITORIO", 0.5, MODEL)]
    assert professions_with_their_complement(text, spans) == spans


@pytest.mark.parametrize(
    "text, model_span, want",
    [
        ("con enfermedad de Graves; hermana gemela sana.", "hermana gemela sana", "hermana gemela"),
        ("Antecedentes: padre fallecido de ictus.", "padre fallecido", "padre"),
        # a qualifier of the relative stays
        ("Su hermano mayor trabaja.", "hermano mayor", "hermano mayor"),
    ],
)
def test_a_relatives_health_is_cut_off_the_span(text, model_span, want):
    [span] = relatives(text, model(text, (model_span, RELATIVE)))
    assert text[span.start : span.end] == want
