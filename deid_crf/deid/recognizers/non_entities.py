"""Spans the model (or a rule) proposes that are no PHI by what they are, whatever their
words: a hospital's unit taken for a hospital or a body, and the word ``familia`` used as
a heading or a label rather than for the relatives. The rule layer drops them
(:meth:`deid_crf.deid.rules.RuleLayer.apply`)."""

from __future__ import annotations

import re

from deid_crf.deid.recognizers.common import INSTITUTION
from deid_crf.deid.recognizers.institutions import HOSPITAL
from deid_crf.text.spans import PHISpan


def is_unit(text: str, span: PHISpan) -> bool:
    """A hospital's unit that the model took for a hospital or a body: a day hospital
    (``Hospital de Día de Diabetes``, ``Hospital de Dia Oncològic``, or its ``Día de …``
    after ``Hospital de``) or a ``Unidad``/``Unitat``/``Unidade`` (``Unitat de Treball
    Social Sanitari``); services and units are no PHI (MEDDOCAN train and dev: the two
    day hospitals in their text are not annotated, and no INSTITUCION span opens so)."""
    if span.type == HOSPITAL:
        return bool(
            _DAY_HOSPITAL.match(text, span.start)
            or (_DAY.match(text, span.start) and _HOSPITAL_OF.search(text, max(0, span.start - 15), span.start))
        )
    return span.type == INSTITUTION and bool(_UNIT.match(text, span.start))


def is_family_heading(text: str, span: PHISpan) -> bool:
    """``familia`` or ``familiares`` as a label or a heading (``Familiares: padre
    fallecido``, ``FAMILIA`` alone on its line), not a mention of the relatives: MEDDOCAN
    train annotates 36 of 51 ``familia`` in running text and none of 8 ``familiares:``."""
    if not _FAMILY_WORD.fullmatch(text, span.start, span.end) or not (after := _FIELD_END.match(text, span.end)):
        return False
    return after.group(1) == ":" or bool(_LINE_START.search(text, max(0, span.start - 40), span.start))


_FAMILY_WORD = re.compile(r"(?i:familia(?:res)?)")
_FIELD_END = re.compile(r"[ \t]*(:|\n|\Z)")
_LINE_START = re.compile(r"(?:^|\n)[ \t\d.)\-•]*$")


_DAY_HOSPITAL = re.compile(r"(?i:hospital)\s+(?i:de)\s+(?i:d[ií]a)(?![^\W_])")
_DAY = re.compile(r"(?i:d[ií]a)(?![^\W_])")
_HOSPITAL_OF = re.compile(r"(?i:hospital)\s+(?i:de)\s+$")
_UNIT = re.compile(r"(?i:unidad|unitat|unidade)(?![^\W_])")
