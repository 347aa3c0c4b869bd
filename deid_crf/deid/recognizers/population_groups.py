"""A patient's religion and sexual orientation (ID_SUJETO_ASISTENCIA): the guidelines
annotate population groups as patient identifiers (C1 and P17.2, whose example is
``Paciente musulmán varón``) and sexual orientations too (P17.3: ``homosexual``,
``heterosexual``, ``transexual``). MEDDOCAN train and dev annotate all 3 orientation
words in their text and hold no religion word, so a model trained on them misses
``testigo de Jehová``, which a real hospital's notes write whenever blood is refused.
Ethnic groups (``raza caucásica``, ``de origen magrebí``) are left to the model, which
MEDDOCAN teaches them. Words that are also names or places (``Católica`` in ``Isabel
la Católica``, ``Evangelista``) are not taken.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import PATIENT_ID, SP, Match, letter_first

_WORDS = (
    rf"testig[oa]s?{SP}+de{SP}+jehov[aá]",
    r"musulm[aá]n",
    r"musulman[ae]s?",
    r"jud[ií][oa]s?",
    r"adventistas?",
    r"morm[oó]n",
    r"mormon[ae]s?",
    r"budistas?",
    r"hind[uú]",
    r"homosexual(?:es)?",
    r"heterosexual(?:es)?",
    r"bisexual(?:es)?",
    r"transexual(?:es)?",
    r"lesbianas?",
)
# Opening with the class of the words' first letters (common.letter_first): re skips in C
# to the next candidate instead of trying the alternation at every position.
_GROUP = re.compile(rf"{letter_first(_WORDS)}(?![^\W\d_])")
# A text whose lower-case form holds none of these holds none of the words and is not
# searched (most notes: the class above still stops at every word opening with t, m, j…).
_CUES = (
    "jehov",
    "musulm",
    "judí",
    "judio",
    "judia",
    "adventist",
    "mormó",
    "mormo",
    "budist",
    "hind",
    "sexual",
    "lesbian",
)


def find_population_groups(text: str) -> Iterator[Match]:
    """Religion and sexual orientation words (see the module)."""
    lower = text.lower()
    if not any(cue in lower for cue in _CUES):
        return
    for m in _GROUP.finditer(text):
        yield m.start(), m.end(), PATIENT_ID


# The patient's civil status (``Mujer de 29 años, soltera``, ``El paciente es viudo desde
# hace …``, ``Estado civil: soltera``): ID_SUJETO_ASISTENCIA, as MEDDOCAN train and dev
# annotate 6 of their 7 (one OTROS) and the notes' guide splits 2 of 3. A capitalised word
# only where a sentence opens (``Casado y sin hijos``; ``Herrero Casado`` is a surname);
# not before ``con`` (the guidelines' P4.2 ``casado con dos hijos`` annotates the
# relatives); ``separado`` only after ``Estado civil:`` (``separada de ella`` is surgery).
_CIVIL_STATUS = re.compile(
    r"(?:(?<=[.;:]\s)|(?<=^)|(?<=\n)|(?<=\.\s\s))(?:Viud[oa]|Casad[oa]|Solter[oa]|Divorciad[oa])(?=\s+[a-zñáéíóú,])"
    r"|(?<![^\W\d_])(?:viud[oa]|casad[oa]|solter[oa]|divorciad[oa])(?![^\W\d_])(?!\s+con\b)"
)
_CIVIL_STATUS_FIELD = re.compile(
    r"(?i:estado\s+civil)\s*:?\s*(?P<value>(?i:viud[oa]|casad[oa]|solter[oa]|divorciad[oa]|separad[oa]))(?![^\W\d_])"
)


def find_civil_status(text: str) -> Iterator[Match]:
    """The patient's civil status (see above)."""
    if not any(w in text for w in ("iud", "asad", "olter", "ivorciad", "eparad")):
        return
    for m in _CIVIL_STATUS.finditer(text):
        yield m.start(), m.end(), PATIENT_ID
    for m in _CIVIL_STATUS_FIELD.finditer(text):
        yield m.start("value"), m.end("value"), PATIENT_ID
