"""Spanish postal codes in an address.

A five-digit number is a postal code when ``stdnum.es.postal_code`` accepts it
(province prefix 01–52) and the text says it is one: a ``CP``/``Código postal`` label
before it (``CP: 28035``, ``C.P. E-28015``), or an address before it and a town after it
on the same line (``C/ Feria, 112, 2ºB, 41002 Sevilla``, ``Avda. Manuel Siurot S/N.
E-41013. Sevilla``, ``Hermanos Falcó, s/n - 02006 Albacete``). An address is a street
type (``Calle``, ``Avda.``, ``rúa``, ``carrer``…), a house number or ``s/n`` right before
the code, or a floor and door (``3r 1a``, ``2º izda.``). A code at the start of a line
after an address that ended the line before with a comma counts too.

The span is the code with its ``E-`` or ``E`` prefix (guideline P12.1 "incluida la letra",
example ``CP: E-28015``); the town is a separate TERRITORIO span (M12.1) left to the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stdnum.es import postal_code

from deid_crf.deid.recognizers.addresses import listed_town
from deid_crf.deid.recognizers.common import LINE_BREAKS, SP, TERRITORY, Match, is_lower_case_note, line_before
from deid_crf.gazetteers.spanish import STREET_TYPES, UPPER

_ADDRESS_WIDTH = 60  # how far back on the line the street may start

_POSTCODE = re.compile(r"(?<![\w.,/-])(?:E[- ])?(?P<code>\d{5})(?![\w]|[.,/-]\d)")
_LABEL = re.compile(r"(?:\bc\.?\s?p\.?|c[oó]digo postal|\bcod\.? postal)\s*:?\s*$")
# A town: a capitalised word, maybe after an article ("A Coruña", "L'Hospitalet", "Las Palmas").
_TOWN_AFTER = re.compile(
    rf"[.,]?{SP}*(?:[-–—·(]{SP}*)?(?:(?:A|O|As|Os|La|Las|Los|El|Sant|San|Santa){SP}|L['’])?[{UPPER}][^\W\d_]*[a-zà-ÿ]"
)
_STREET = re.compile(r"(?<![^\W_])(?:" + "|".join(re.escape(s) for s in STREET_TYPES) + r")(?=[\s.,]|$|(?<=/))")
_NUMBER_BEFORE = re.compile(rf"(?:\d+{SP}?[a-zºª°]?\.?|\bs{SP}?/{SP}?n\.?|\bsn\.?)[ ,.·–—-]{{1,4}}$")
_FLOOR = re.compile(rf"\b\d+{SP}?[ºª°]|\b\d[rnt]{SP}\d[aª]\b")
_ADDRESS_ENDS_LINE = re.compile(r"\d[^\n]*,\s*$")
# Digits that continue an identifier's value ("NºCol: 28 28 20943", "NASS: 28 12345") are no postal code.
_ID_VALUE_BEFORE = re.compile(r"(?:n[º°]\s*col|col\.|nass|nss|nhc|cipa?|episodio|dni|tel[eé]?f?|tfno)[.:]*[\d\s/.-]*$")


def _address_before(text: str, start: int) -> bool:
    before = line_before(text, start, _ADDRESS_WIDTH)
    if _NUMBER_BEFORE.search(before) or _STREET.search(before) or _FLOOR.search(before):
        return True
    if before.strip():
        return False
    line_start = start - len(before)
    previous = text[max(0, line_start - _ADDRESS_WIDTH) : line_start]
    previous = LINE_BREAKS.split(previous.rstrip("\r\n"))[-1]
    return bool(_ADDRESS_ENDS_LINE.search(previous) and _STREET.search(previous.lower()))


def find_postcodes(text: str) -> Iterator[Match]:
    """Valid Spanish postal codes after a CP label, or between an address and a town."""
    for m in _POSTCODE.finditer(text):
        if not postal_code.is_valid(m.group("code")):
            continue
        if _ID_VALUE_BEFORE.search(line_before(text, m.start(), _ADDRESS_WIDTH)):
            continue
        labelled = _LABEL.search(line_before(text, m.start(), 20)) is not None
        if labelled or (_TOWN_AFTER.match(text, m.end()) and _address_before(text, m.start())):
            yield m.start(), m.end(), TERRITORY
        elif (
            is_lower_case_note(text) and _address_before(text, m.start()) and (town := _lower_case_town(text, m.end()))
        ):
            # a note written in lower case: "c/ de sa murada, 9, 07300 inca · tel …", the
            # listed town in lower case a span too (the model misses both)
            yield m.start(), m.end(), TERRITORY
            yield *town, TERRITORY


# Up to four lower-case words after the code, the longest run of them that is a listed town.
_LOWER_WORDS_AFTER = re.compile(rf"{SP}+((?:[a-zñáéíóúàèòïüç'’-]+)(?:{SP}+[a-zñáéíóúàèòïüç'’-]+){{0,3}})")


def _lower_case_town(text: str, end: int) -> tuple[int, int] | None:
    """Where the listed town in lower case right after ``end`` is, if there is one."""
    m = _LOWER_WORDS_AFTER.match(text, end)
    if m is None:
        return None
    words = list(re.finditer(r"\S+", m.group(1)))
    for last in range(len(words), 0, -1):
        start, stop = m.start(1), m.start(1) + words[last - 1].end()
        if listed_town(text[start:stop]):
            return start, stop
    return None
