"""The patient's sex in a form field (SEXO_SUJETO_ASISTENCIA, guideline P3.1: ``Sexo:
Varón``), in Spanish, Catalan, Galician and Basque forms (``Sexe: Home``, ``Sexo:
muller``, ``Sexua: Emakumea``) and as one letter (``Sexe: D``). MEDDOCAN train has the
Spanish field only, so the model misses the others."""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import AGE_LABELS, SP, Match, letter_first

SEX = "SEXO_SUJETO_ASISTENCIA"

_LABELS = ("sexo", "sexe", "sexua", "xénero", "xenero", "género", "genero", "generoa")
_LABEL = f"(?:{'|'.join(_LABELS)})"
_VALUE = (
    r"(?:varón|varon|hombre|mujer|masculino|femenino|home|dona|masculí|femení|muller|gizona|gizon|emakumea"
    r"|emakume|[HMVDF])"
)
# The field's ":" or dot leaders (``Sexe ........ H``).
_SEPARATOR = rf"{SP}*(?::|\.{{2,}}){SP}*"
# Both open with their label's first letter (common.letter_first): re skips to the next
# s, x or g (e, i or a) in C instead of trying the labels at every position.
_SEX_FIELD = re.compile(
    rf"{letter_first(_LABELS)}(?i:{SP}*(?:/{SP}*{_LABEL}{SP}*)?{_SEPARATOR}(?P<sex>{_VALUE})(?![\w/]))"
)
# An age and sex field, its two values after one label (``IDADE/SEXO .... 76 anos / Muller``).
_AGE_AND_SEX_FIELD = re.compile(
    rf"{letter_first(AGE_LABELS)}(?i:{SP}*/{SP}*{_LABEL}{_SEPARATOR}\d{{1,3}}(?:{SP}*[^\W\d_]+)?{SP}*/{SP}*"
    rf"(?P<sex>{_VALUE})(?![\w/]))"
)


def find_labelled_sex(text: str) -> Iterator[Match]:
    """The value of a sex field."""
    for m in (*_SEX_FIELD.finditer(text), *_AGE_AND_SEX_FIELD.finditer(text)):
        value = m.group("sex")
        if len(value) > 1 or value.isupper():  # one letter only as a capital
            yield m.start("sex"), m.end("sex"), SEX
