"""Names in lower case in a note written in lower case (the guide splits' hurried primary-care
notes and dictations): staff after a title, the patient after ``paciente``, a relative after
the kinship word; and the committed list of words clinical text writes in lower case."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.lower_case_names import find_lower_case_names
from deid_crf.deid.rules import rule_layer

# A note in lower case throughout: most of its sentences open in lower case.
HEAD = (
    "s: viene por mareo. refiere tos. no fiebre. toma enalapril.\n"
    "o: ta 128/70. fc 80. peso 71. sato2 97 %.\n"
    "a: mareo ortostatico. p: control.\n"
)


def found(text: str) -> list[tuple[str, str]]:
    return [(text[a:b], t) for a, b, t in find_lower_case_names(text)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("la enfermera montse le explica cómo ponerlas.", [("montse", "NOMBRE_PERSONAL_SANITARIO")]),
        ("- enf. leticia: control sato2 el martes.", [("leticia", "NOMBRE_PERSONAL_SANITARIO")]),
        (
            "dictado por la doctora covadonga martínez del olmo número de colegiado",
            [("covadonga martínez del olmo", "NOMBRE_PERSONAL_SANITARIO")],
        ),
        ("mf: dr. jesús mª ochoa sáenz", [("jesús mª ochoa sáenz", "NOMBRE_PERSONAL_SANITARIO")]),
        (
            "punto y aparte paciente ionel vasilescu coma número de historia",
            [("ionel vasilescu", "NOMBRE_SUJETO_ASISTENCIA")],
        ),
        ("llama su mujer, graciela, preocupada.", [("graciela", "FAMILIARES_SUJETO_ASISTENCIA")]),
        ("viene con hijo (raj, 34 a) por glucemias.", [("raj", "FAMILIARES_SUJETO_ASISTENCIA")]),
        ("vive con su marido xuan (quesero en cabrales).", [("marido xuan", "FAMILIARES_SUJETO_ASISTENCIA")]),
        # words clinical text writes in lower case, verbs and adjectives: no name
        ("la enfermera refiere que no ha dormido.", []),
        ("la doctora de guardia lo valora.", []),
        ("la enfermera cogió la mano de la paciente.", []),
        ("el paciente descontinúa el tratamiento.", []),
        ("paciente endomórfico con dolor.", []),
        ("cuidar a la madre, contenerla, consolarla.", []),
        ("su mujer, también, lo nota.", []),
        ("madre sustituta.", []),
        ("ingresa en el hospital universitario doctor josé molina orosa.", []),
    ],
)
def test_names_in_lower_case_in_a_note_in_lower_case(line, expected):
    assert found(HEAD + line + "\n") == expected


def test_no_lower_case_name_in_a_note_that_capitalises_its_sentences():
    text = "Viene por mareo. Refiere tos. La enfermera montse le explica la pauta. Control en una semana."
    assert found(text) == []


def test_the_rule_layer_adds_them_where_nothing_covers_them():
    text = HEAD + "llama su mujer, graciela, preocupada.\n"
    spans = rule_layer("default").apply(text, [])
    assert ("graciela", "FAMILIARES_SUJETO_ASISTENCIA") in [(text[s.start : s.end], s.type) for s in spans]


def test_the_clinical_words_list_is_the_unlabeled_texts(data_dir):
    """``gazetteers/clinical_words.txt`` is what its builder makes of the shared data."""
    from deid_crf.gazetteers.clinical_words import LIST_FILE, build

    assert LIST_FILE.read_text(encoding="utf-8").split() == build(data_dir)
