"""The patient's sex in a form field (SEXO_SUJETO_ASISTENCIA, guideline P3.1: ``Sexo:
Varón``), in Spanish, Catalan, Galician and Basque forms (``Sexe: Home``, ``Sexo:
muller``, ``Sexua: Emakumea``) and as one letter (``Sexe: D``); and a sex word or
letter alone as one field of a header line of fields (``NHC 5512098 · DNI 46123987W · H
· 12.07.1958``, ``edad 58   hombre   TSI …``). MEDDOCAN train has the Spanish field only,
so the model misses the others."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from deid_crf.deid.recognizers.ages import AGE
from deid_crf.deid.recognizers.common import AGE_LABELS, SP, Match, is_lower_case_note, letter_first, lines
from deid_crf.text.spans import RULE, PHISpan

SEX = "SEXO_SUJETO_ASISTENCIA"

_LABELS = ("sexo", "sexe", "sexua", "xénero", "xenero", "género", "genero", "generoa", "sex")
_LABEL = f"(?:{'|'.join(_LABELS)})"
_VALUE = (
    r"(?:varón|varon|hombre|mujer|masculino|femenino|home|dona|masculí|femení|muller|gizona|gizon|emakumea"
    r"|emakume|emakumezkoa|gizonezkoa|male|female|[HMVDF])"
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


# A capital letter right after the label and a space, closing the field (``Sexo F`` at the
# end of a line, ``Sexe H · Edat …``): a form that leaves the colon out.
_SEX_LETTER_FIELD = re.compile(
    rf"{letter_first(_LABELS)}(?i:{SP}+)(?P<sex>[HMVDF])(?={SP}*(?:$|[·•|,;]|{SP}{{2}}))", re.MULTILINE
)


def find_labelled_sex(text: str) -> Iterator[Match]:
    """The value of a sex field."""
    for m in (*_SEX_FIELD.finditer(text), *_AGE_AND_SEX_FIELD.finditer(text), *_SEX_LETTER_FIELD.finditer(text)):
        value = m.group("sex")
        if len(value) > 1 or value.isupper():  # one letter only as a capital
            yield m.start("sex"), m.end("sex"), SEX


# A sex value alone between a header line's field separators: a middle dot, a bullet or a
# bar around a word or a capital letter, or (a word only) gaps of two spaces or more. Only on
# a line that holds a figure (an identifier, an age or a date): a line of fields. MEDDOCAN
# train and dev have none; the notes' guide splits have 4, all SEXO.
_SEX_WORD = r"(?:varón|varon|hombre|mujer|masculino|femenino|home|dona|muller|gizona|emakumea)"
_DIGIT = re.compile(r"\d")
_SEX_ALONE = re.compile(
    rf"(?P<before>[·•|]{SP}*|{SP}{{2,}})(?P<sex>(?i:{_SEX_WORD})|[HMVF])(?P<after>{SP}*[·•|]|{SP}{{2,}}|{SP}*$)",
    re.MULTILINE,
)


def find_sex_in_field_rows(text: str) -> Iterator[Match]:
    """A sex value alone as one field of a header line (see above). Only lines with a
    separator and a figure are searched (``in`` tests, in C: few lines have both)."""
    if "·" not in text and "•" not in text and "|" not in text and "  " not in text:
        return
    for offset, line in lines(text):
        if not ("·" in line or "•" in line or "|" in line or "  " in line) or not _DIGIT.search(line):
            continue
        for m in _SEX_ALONE.finditer(line):
            if len(m.group("sex")) > 1 or (_has_bar(m.group("before")) and _has_bar(m.group("after"))):
                yield offset + m.start("sex"), offset + m.end("sex"), SEX


def _has_bar(separator: str) -> bool:
    return any(c in "·•|" for c in separator)


# A sex letter or word right after the patient's age in a header or a table, alone or
# after a slash, before a field's end (``pac: … 38a M  CIP …``, ``| Edad / sexo | 41 / H |``):
# the notes' guide splits 2, both SEXO; MEDDOCAN train and dev have no age so followed.
# A field's dot or bar may stand between (``61a · v ·``), and in a note written in lower case
# the letter may be too.
_SEX_AFTER_AGE = re.compile(
    rf"{SP}*(?:[/·•|]{SP}*)?(?P<sex>(?i:{_SEX_WORD})|[HMVF]|(?P<lower>[hmvf]))(?={SP}*(?:[·•|,;]|$)|{SP}{{2,}})",
    re.MULTILINE,
)


def sexes_after_ages(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping one another) plus a SEXO span for each sex right
    after an age's span (see above) that no span covers."""
    added = []
    for i, span in enumerate(spans):
        if span.type != AGE or not (m := _SEX_AFTER_AGE.match(text, span.end)):
            continue
        if m.group("lower") and not is_lower_case_note(text):
            continue
        if i + 1 < len(spans) and spans[i + 1].start < m.end("sex"):
            continue
        added.append(PHISpan(m.start("sex"), m.end("sex"), SEX, 1.0, RULE))
    return sorted([*spans, *added]) if added else list(spans)
