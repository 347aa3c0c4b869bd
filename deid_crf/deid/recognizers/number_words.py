"""Spanish numbers written in words, as regular-expression patterns (dictated notes and
formal letters write ages and dates this way: ``varón de setenta y dos años``, ``a
veinte de febrero de dos mil veinticinco``)."""

from __future__ import annotations

from deid_crf.deid.recognizers.common import SP
from deid_crf.gazetteers.spanish import DAY_WORDS, TEEN_WORDS, TENS_WORDS, TWENTIES_WORDS, UNIT_WORDS


def _longest_first(words: list[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_UNITS = _longest_first(UNIT_WORDS)
# 1-99: "siete", "quince", "veintitrés", "setenta y dos".
BELOW_HUNDRED = (
    rf"(?:(?:{_longest_first(TENS_WORDS)})(?:{SP}+y{SP}+(?:{_UNITS}|una|un))?"  # "sesenta y un años"
    rf"|{_longest_first([*TWENTIES_WORDS, *TEEN_WORDS])}|{_UNITS}|un|una)"
)
# A day of the month, 1-31 ("primero", "treinta y uno").
DAY_OF_MONTH = rf"(?:treinta{SP}+y{SP}+uno|{_longest_first(DAY_WORDS)})"
# A year from 1900 to 2099: "mil novecientos ochenta y tres", "dos mil diecisiete".
YEAR = rf"(?:mil{SP}+novecientos|dos{SP}+mil)(?:{SP}+{BELOW_HUNDRED})?"
# An age in years, 1-119: "setenta y dos", "noventa y nueve", "ciento uno".
AGE = rf"(?:cien|ciento{SP}+{BELOW_HUNDRED}|{BELOW_HUNDRED})"

_VALUES = {
    **{w: i for i, w in enumerate(UNIT_WORDS, start=1)},
    **{w: i for i, w in enumerate(TEEN_WORDS, start=10)},
    **{w: i for i, w in enumerate((w for w in TWENTIES_WORDS if w != "veintiún"), start=20)},
    **{w: 10 * i for i, w in enumerate(TENS_WORDS, start=3)},
    "un": 1,
    "una": 1,
    "primero": 1,
    "veintiún": 21,
    "cien": 100,
    "ciento": 100,
    "novecientos": 900,
}
# A year or a day of the month in words, longest first: what value() reads.
NUMBER = rf"(?:{YEAR}|{DAY_OF_MONTH})"


def value(words: str) -> int:
    """The number that Spanish number ``words`` (one of :data:`NUMBER`'s matches, any
    case) write: ``mil novecientos ochenta y tres`` → 1983, ``veintiuno`` → 21."""
    total = current = 0
    for word in words.lower().split():
        if word == "mil":
            total, current = total + (current or 1) * 1000, 0
        elif word != "y":
            current += _VALUES[word]
    return total + current
