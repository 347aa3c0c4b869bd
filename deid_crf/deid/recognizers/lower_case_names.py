"""Names written in lower case, in a note written in lower case throughout (a hurried
primary-care note, a dictation: :func:`~deid_crf.deid.recognizers.common.is_lower_case_note`),
where neither the model nor a capital tells a name from a word:

* a staff member's name after a title or a role (``la enfermera montse le explica``, ``enf.
  leticia: control``, ``copia a la doctora ferré``, ``cirujano el doctor ramón sandoval egea``);
* the patient's name after ``paciente`` and before a comma, ``coma``, an age or a record
  number (``paciente ionel vasilescu coma número de historia``, ``paciente maricel dela cruz
  bautista de cuarenta y cuatro años``);
* a relative's name right after the kinship word, after a comma or in brackets, up to a
  comma, a bracket or a stop (``llama su mujer, graciela, preocupada``, ``vive con su marido
  xuan (quesero…)``, ``viene con hijo (raj, 34 a)``, ``o seu home, xurxo, tamén``).

A name is one to three words (four for the patient, particles between) of at least three
letters that the clinical text never writes in lower case: not in
``gazetteers/clinical_words.txt`` (:mod:`deid_crf.gazetteers.clinical_words`: every word
the unlabeled CANTEMIST case reports, which hold no names, write in lower case three times or
more), nor a function word of Spanish, Catalan or Galician, a month, a weekday or a kinship
word. So ``la enfermera refiere``, ``la doctora de guardia`` and ``su mujer, también`` stay
words, and so do names that are also words (``pilar``, ``rosa``, ``dolores``): the rule
misses them rather than mask a sentence. The guide splits hold 13 such names the model and
the other rules missed (dev7, dev9, dev11, dev13–dev16); MEDDOCAN has no note in lower case.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from deid_crf.deid.recognizers.common import SP, Match, is_lower_case_note
from deid_crf.gazetteers.clinical_words import LIST_FILE
from deid_crf.gazetteers.spanish import CATALAN_MONTHS, GALICIAN_MONTHS, MONTHS, WEEKDAYS

PATIENT = "NOMBRE_SUJETO_ASISTENCIA"
STAFF = "NOMBRE_PERSONAL_SANITARIO"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"

# Function words of Spanish, Catalan and Galician that CANTEMIST's Spanish may write too
# seldom for its list (``tamén``, ``moito``, ``cando``), and the dictation's punctuation words.
_FUNCTION_WORDS = frozenset(
    """
    que con sin por para pero como cuando donde desde hasta entre sobre tras ante bajo según durante
    este esta estos estas ese esa esos esas aquel aquella sus mis tus nuestro nuestra
    amb per perquè però quan també molt molta mica seva seu seus meva meu aquest aquesta
    tamén moito moita cando onde coa cos coas polo pola unha súa miña
    deste desta destes destas dese desa neste nesta nese nesa aquí alí
    coma punto aparte dos puntos paréntesis abre cierra guion barra
    facultativa facultativo adjunta adjunto residente especialista firma dicta
    """.split()
)
_NOT_NAMES = _FUNCTION_WORDS | frozenset((*MONTHS, *CATALAN_MONTHS, *GALICIAN_MONTHS, *WEEKDAYS))
_PARTICLES = r"(?:de|del|dela|de{SP}+la|de{SP}+los|y|i)"
_NAME_WORD = r"[a-zñáéíóúàèòçüï][a-zñáéíóúàèòçüï'’-]{2,}"
# (a given name's abbreviation inside a name: "jesús mª ochoa")
_NAME_PIECE = rf"(?:{_NAME_WORD}|m\.?ª)"


@cache
def clinical_words() -> frozenset[str]:
    """The words clinical text writes in lower case (see the module)."""
    return frozenset(LIST_FILE.read_text(encoding="utf-8").split())


# A title or a role in lower case before a staff member's name.
_STAFF_CUE = re.compile(
    rf"(?<![\w.])(?:doctor|doctora|dr\.|dra\.|enfermer[oa]|enf\.|infermer[a]?|inf\.|matrona|fisioterapeuta|fisio"
    rf"|tcae|auxiliar|trabajadora{SP}+social|trabajador{SP}+social){SP}+"
    rf"(?P<name>{_NAME_WORD}(?:{SP}+(?:{_PARTICLES}{SP}+)?{_NAME_PIECE}){{0,3}})"
)
# A place named after a doctor (``hospital universitario doctor josé molina orosa``, ``hospital
# de niños dr. pedro de elizalde``): a place's head earlier on the line, in the same clause.
_PLACE_BEFORE = re.compile(
    r"(?<!\w)(?:hospital|universitario|universitari|clínica|clínico|centro|complejo|asistencial|calle|c/|avenida"
    r"|avda\.?|plaza|colegio|ceip|ies|instituto|fundación|residencia|laboratorio)(?!\w)[^.;:\n]*\Z"
)
_PLACE_REACH = 40
# The patient after "paciente" as a dictation or a header writes it, not as a sentence's
# subject after an article or a preposition (``el paciente refere``, ``una paciente anártrica``).
_PATIENT_CUE = re.compile(
    rf"(?<!\w)(?<!\bel )(?<!\bla )(?<!\bun )(?<!\buna )(?<!\bdel )(?<!\bal )(?<!\bde )(?<!\ben )(?<!\ba )"
    rf"(?<!\bsu )(?<!\bcon )(?<!\bpor )(?<!\bpara )(?<!\bcada )(?<!\bo )(?<!\bnuestro )(?<!\bnuestra )"
    rf"(?P<cue>paciente{SP}*:?){SP}+(?P<name>{_NAME_WORD}(?:{SP}+(?:{_PARTICLES}{SP}+)?{_NAME_WORD}){{0,4}})",
    re.MULTILINE,
)
# A kinship word, then the relative's name after a space, a comma or a bracket, then a
# comma, a bracket, a stop or the line's end.
_KIN = (
    r"(?:mujer|marido|esposa|esposo|pareja|novia|novio|hij[oa]|madre|padre|herman[oa]|nieto|nieta|sobrin[oa]"
    r"|nuera|yerno|cuñad[oa]|suegr[oa]|home|muller|dona|marit|filla|fill|fillo|nai|pai|irmá|irmán|parella|neto|neta)"
)
# (right after the kinship word, the two are one span, "marido xuan", as the notes write it;
# then a comma or a bracket must follow, as after an adjective it need not: "madre sustituta.")
_RELATIVE_NAME = re.compile(
    rf"(?<!\w)(?P<kin>{_KIN})(?:(?P<apart>{SP}*,{SP}*|{SP}*\({SP}*[«\"“]?)(?P<name>{_NAME_WORD})"
    rf"(?=[»\"”]?{SP}*(?:[,;.)(]|$))|{SP}+(?P<next>{_NAME_WORD})(?={SP}*[,(]))",
    re.MULTILINE,
)


_PARTICLE_WORDS = frozenset(("de", "del", "dela", "la", "los", "y", "i", "mª", "m.ª"))
# Verb forms no name has (``la enfermera cogió``, ``la madre, contenerla,``): a past tense's,
# an imperfect's, an infinitive with a pronoun.
_NOT_A_NAME_ENDING = re.compile(r"(?:ó|aron|ieron|aba|aban|r(?:la|le|lo|las|los|se|me))$")
_PIECE = re.compile(r"\S+")


def _name_end(text: str, start: int, end: int) -> int:
    """Where the name at ``text[start:end]`` ends: after its last name word before the first
    word that is no name's (see the module), particles between name words kept; ``start``
    when its first word is no name's."""
    known = clinical_words()
    last = start
    for m in _PIECE.finditer(text, start, end):
        word = m.group()
        if word in _PARTICLE_WORDS:
            continue
        if word in known or word in _NOT_NAMES or _NOT_A_NAME_ENDING.search(word):
            break
        last = m.end()
    return last


def find_lower_case_names(text: str) -> Iterator[Match]:
    """Staff, patients' and relatives' names in lower case in a note written in lower case
    (see the module)."""
    if not is_lower_case_note(text):
        return
    for m in _STAFF_CUE.finditer(text):
        end = _name_end(text, *m.span("name"))
        if end > m.start("name") and not _PLACE_BEFORE.search(text, max(0, m.start() - _PLACE_REACH), m.start()):
            yield m.start("name"), end, STAFF
    for m in _PATIENT_CUE.finditer(text):
        end = _name_end(text, *m.span("name"))
        # (two words at least, or after a colon: one word after "paciente" is an adjective
        # more often, "paciente endomórfico", "paciente indio")
        if end > m.start("name") and (":" in m.group("cue") or len(text[m.start("name") : end].split()) > 1):
            yield m.start("name"), end, PATIENT
    for m in _RELATIVE_NAME.finditer(text):
        name = "name" if m.group("apart") is not None else "next"
        if _name_end(text, *m.span(name)) == m.end(name):
            yield m.start("kin") if name == "next" else m.start(name), m.end(name), RELATIVE
