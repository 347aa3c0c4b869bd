"""Numbers a dictation spells out in words after their label: a record number (``historia
número uno cuatro siete siete dos cero nueve``), a health card with its letters spelt one by
one (``tarjeta sanitaria m r c a siete cuatro …``), a social-security number with its slashes
said (``afiliación a la seguridad social treinta barra uno cero nueve …``), a phone
(``teléfono seis seis ocho cuarenta y uno veintidós noventa``), a collegiate number
(``colegiada número tres cero tres …``) or an insurance claim's number.

Speech recognition writes what was said, so the model, which learnt these values from
their digits, does not see them; the guide splits' three dictations hold 9 such values,
each after one of these labels. A run of at least four number words (units, teens, tens,
``cero``, and ``barra``/``guion`` between them) in a text where two single digits are said
in a row (every such value of the guide splits) counts, so that ``historia número uno`` (one
word) is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers import number_words
from deid_crf.deid.recognizers.common import (
    COLLEGIATE_ID,
    INSURANCE_ID,
    OTHER_SUBJECT,
    PATIENT_ID,
    PHONE,
    SP,
    Match,
    letter_first,
)

_NUMBER_WORD = rf"(?:cero|{number_words.BELOW_HUNDRED})"
_NUMBER = re.compile(rf"(?i:cero|{number_words.BELOW_HUNDRED})(?!\w)")
_SEPARATOR_WORD = r"(?:barra|guion|guión)"
# Up to four letters spelt one by one before the digits ("m r c a siete …").
_RUN = (
    rf"(?P<value>(?:[a-zñ]{SP}+){{0,4}}{_NUMBER_WORD}(?:{SP}+(?:{_SEPARATOR_WORD}{SP}+)?{_NUMBER_WORD}(?!\w))*)(?!\w)"
)
_NUMBER_SIGN = rf"(?:{SP}+(?:número|numero|n\.?º|nº)(?:{SP}+de)?)?"
_LABELS = (
    (rf"(?:número{SP}+de{SP}+)?historia(?:{SP}+clínica)?{_NUMBER_SIGN}", PATIENT_ID),
    (rf"tarjeta{SP}+sanitaria{_NUMBER_SIGN}", PATIENT_ID),
    (rf"(?:afiliación(?:{SP}+a{SP}+la{SP}+seguridad{SP}+social)?|seguridad{SP}+social){_NUMBER_SIGN}", INSURANCE_ID),
    (rf"(?:teléfono|telefono|móvil|movil){_NUMBER_SIGN}(?:{SP}+(?:de{SP}+)?contacto)?", PHONE),
    (rf"(?:colegiad[oa]|número{SP}+de{SP}+colegiad[oa]){_NUMBER_SIGN}", COLLEGIATE_ID),
    (rf"(?:siniestro|parte(?:{SP}+de{SP}+[^\W\d_]+)?){_NUMBER_SIGN}", OTHER_SUBJECT),
)
_DICTATED = re.compile(
    r"(?<!\w)(?i:" + "|".join(f"(?P<label{i}>{label})" for i, (label, _) in enumerate(_LABELS)) + rf"){SP}+{_RUN}",
    re.IGNORECASE,
)
_MIN_NUMBER_WORDS = 4
# Two digits said one after the other, which every dictated number of the guide splits
# holds: looked for first (most notes have none, and the labels' pattern is slow to try at
# every position).
_DIGIT_WORDS = ("cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve")
# Opening with a class of the words' first letters (common.letter_first), which re skips to in C.
_TWO_DIGIT_WORDS = re.compile(rf"{letter_first(_DIGIT_WORDS)}\s+{letter_first(_DIGIT_WORDS)}(?!\w)")


def find_dictated_numbers(text: str) -> Iterator[Match]:
    """Each run of number words after one of the labels above (see the module)."""
    if not _TWO_DIGIT_WORDS.search(text):
        return
    for m in _DICTATED.finditer(text):
        value = m.group("value")
        if len(_NUMBER.findall(value)) < _MIN_NUMBER_WORDS:
            continue
        kind = next(t for i, (_, t) in enumerate(_LABELS) if m.group(f"label{i}") is not None)
        yield m.start("value"), m.end("value"), kind
