"""The patient's sex in a form field (SEXO_SUJETO_ASISTENCIA, guideline P3.1: ``Sexo:
Varón``), in Spanish, Catalan, Galician and Basque forms (``Sexe: Home``, ``Sexo:
muller``, ``Sexua: Emakumea``) and as one letter (``Sexe: D``). MEDDOCAN train has the
Spanish field only, so the model misses the others."""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import SP, Match

SEX = "SEXO_SUJETO_ASISTENCIA"

_LABEL = r"(?:sexo|sexe|sexua|xénero|xenero|género|genero|generoa)"
_VALUE = (
    r"(?:varón|varon|hombre|mujer|masculino|femenino|home|dona|masculí|femení|muller|gizona|gizon|emakumea"
    r"|emakume|[HMVDF])"
)
# The field's ":" or dot leaders (``Sexe ........ H``).
_SEPARATOR = rf"{SP}*(?::|\.{{2,}}){SP}*"
_SEX_FIELD = re.compile(
    rf"(?<!\w){_LABEL}{SP}*(?:/{SP}*{_LABEL}{SP}*)?{_SEPARATOR}(?P<sex>{_VALUE})(?![\w/])", re.IGNORECASE
)
# An age and sex field, its two values after one label (``IDADE/SEXO .... 76 anos / Muller``).
_AGE_AND_SEX_FIELD = re.compile(
    rf"(?<!\w)(?:edad|edat|idade|adina){SP}*/{SP}*{_LABEL}{_SEPARATOR}\d{{1,3}}(?:{SP}*[^\W\d_]+)?{SP}*/{SP}*"
    rf"(?P<sex>{_VALUE})(?![\w/])",
    re.IGNORECASE,
)


def find_labelled_sex(text: str) -> Iterator[Match]:
    """The value of a sex field."""
    for m in (*_SEX_FIELD.finditer(text), *_AGE_AND_SEX_FIELD.finditer(text)):
        value = m.group("sex")
        if len(value) > 1 or value.isupper():  # one letter only as a capital
            yield m.start("sex"), m.end("sex"), SEX
