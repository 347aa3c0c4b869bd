"""The end of a street address (CALLE) where the model stops short or runs one
character long.

* Floor words after the number belong to the street (guideline P11.1; MEDDOCAN train:
  ``Calle Finisterre 18, Bajo A``, ``C/ Lope de Vega 3, bajo der``). The model has seen
  Spanish ``bajo`` but not Catalan ``baixos`` or ``entresòl``, and stops at the number:
  :func:`street_tails` widens a CALLE span over such a word (and the letter or side
  that follows it) when only a comma or spaces stand between them, and over a
  numbered floor after the house number (``c/ Cortes 38, 4º izda``, ``3r 1a``).
* The tokenizer keeps ``izda.``, ``dcha.``, ``izq.`` as one token with their dot, so the
  model's span takes the dot; MEDDOCAN leaves it out (22 of the 31 CALLE spans in train
  and dev that end in a side word stop before a following dot): the dot is dropped.
* A town after the address, a comma between (``c/ Monte Igueldo, 47, 1º C, Puente de
  Vallecas``, ``Ctra. A-319, km 4, Burunchel``), is a TERRITORIO span of its own
  (guideline P12.2: ``Calle Ginzo de limia 56, 1D Albacete``); the model runs the street
  over it where notes write the address on one line. Only a capitalised name after a
  house number, a floor or a kilometre, and not a word of the address's grammar
  (``, Bajo``, ``, Portal``, ``, Urbanización``), is cut off. MEDDOCAN train and dev keep
  such a name inside 7 of 1,296 CALLE spans, all Latin American neighbourhoods
  (``Calle Guerrero 12, Buenavista``). The town may follow ``de`` or ``en``, or be a
  parish (``carrer de ses Moreres, 27, 1r, de Maó``, ``Lugar de Vilamoure, 4, parroquia
  de Santa María de Bóveda``: the notes; no CALLE span of MEDDOCAN train and dev holds
  ``, de`` after its number). A postcode between the comma and the town is a TERRITORIO
  span too (``Kirkeveien 118, 0361 Oslo``: no CALLE span of MEDDOCAN train and dev holds
  one).
* A Basque side after the floor's number and its dot (``Nagusia kalea 14, 2. eskuina``,
  "right") belongs to the street too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

from deid_crf.deid.recognizers.common import SP, STREET, TERRITORY, is_lower_case_note, listed_names
from deid_crf.deid.recognizers.lower_case_names import clinical_words
from deid_crf.deid.recognizers.places import LOWER_CASE_TOWNS_THAT_ARE_WORDS, SPANISH_PLACE_LISTS
from deid_crf.gazetteers.spanish import ADDRESS_WORDS, STREET_TYPES, UPPER, normalize
from deid_crf.text.spans import RULE, PHISpan

_SIDE = r"(?:izq|izqda|izda|dcha|dch|drcha|der|dr|ezk|esk|esq)"
_FLOOR_WORD = rf"(?:bajos?|baixos?|entlo|entresuelo|entresòl|entl|ático|àtic|principal|pral|bajo{SP}+comercial)"
_TAIL = re.compile(
    rf"{SP}*,?{SP}*(?P<floor>{_FLOOR_WORD}\.?(?:{SP}*,?{SP}*(?:(?-i:[A-Z])|\d{{1,2}}[ªº]?|{_SIDE})\b)?)(?![\w-])"
    # and then the end of the address: punctuation, a line end, a postcode or a wide gap
    # ("bajo supervisión" is not a floor)
    rf"(?={SP}*(?:[,.;:·—–()\[\]|/-]|\d{{5}}(?!\d)|$)|{SP}{{2,}}|{SP}*[\n\r])",
    re.IGNORECASE | re.MULTILINE,
)
# A numbered floor after a house number ("c/ Cortes 38, 4º izda", Catalan "Pg. de Gràcia
# 12, 3r 1a"): the model stops at the house number where the note writes no "piso".
_NUMBERED_FLOOR = re.compile(
    rf"{SP}*,?{SP}*(?P<floor>\d{{1,2}}{SP}?(?:[ºª°]|r|n|t|è)(?:{SP}*,?{SP}*(?:(?-i:[A-Z])|\d{{1,2}}[ªºa]?|{_SIDE})\b)?)"
    rf"(?![\w-])(?={SP}*(?:[,.;:·—–()\[\]|/-]|\d{{5}}(?!\d)|$)|{SP}{{2,}}|{SP}*[\n\r])",
    re.IGNORECASE | re.MULTILINE,
)
_SIDE_WITH_DOT = re.compile(rf"(?<![\w.]){_SIDE}\.$", re.IGNORECASE)
_BASQUE_SIDE_AFTER_NUMBER = re.compile(rf"\.{SP}*(?P<floor>(?i:eskuina|eskuma|ezkerra|erdikoa))(?![\w-])")
# An address ending in ", Town": a digit (house number, floor, kilometre) or "s/n" before
# the last comma, then capitalised words maybe joined by particles ("Puente de Vallecas").
_TOWN_WORD = rf"[{UPPER}][^\W\d_]{{2,}}(?:-[{UPPER}][^\W\d_]+)*"
# (The model's span may end on the comma after the town: "c/ Coso Alto, 47, 2.º, Huesca,".)
_TOWN_AFTER_ADDRESS = re.compile(
    rf"(?:\d|(?i:s/n))[^,]*(?P<comma>,{SP}*)(?P<postcode>\d{{4,6}}{SP}+)?(?P<lead>(?:de|en|(?P<parish>parroquia|parròquia){SP}+de){SP}+)?(?P<town>(?:(?:La|El|Los|Las|Es|Sa|A|O){SP}+)?{_TOWN_WORD}(?:{SP}+(?:(?:de|del|la|las|los|el|d'){SP}*)?{_TOWN_WORD})*"
    # (a district and its municipality after a spaced dash, "Roldán - Torre-Pacheco": two
    # places, which split_at_slashes cuts apart)
    # (or its name in the other language after a slash, "Tinéu / Tineo": split_at_slashes cuts it too)
    rf"(?:(?:{SP}+[-–]{SP}+|{SP}*/{SP}*){_TOWN_WORD}(?:{SP}+(?:(?:de|del|la|las|los|el|d'){SP}*)?{_TOWN_WORD})*)?)[,;]?$"
)
# A listed town after the comma that ends an address, where the model left it out ("carrer
# de la Riera, 77, 3r 1a, Mataró" before a form's wide gap): the town ends at a gap, a line
# end, punctuation or the text's end.
_LISTED_TOWN_AFTER = re.compile(
    rf",{SP}*(?:\d{{5}}{SP}+)?(?P<town>(?:(?:La|El|Los|Las|Es|Sa|A|O|L'){SP}*)?{_TOWN_WORD}"
    rf"(?:{SP}+(?:(?:de|del|la|las|los|el|d'){SP}*)?{_TOWN_WORD}){{0,3}})(?=[ ]{{2,}}|\t|{SP}*(?:[\n\r,.;(·|]|$))"
)
_LOWER_LISTED_TOWN_AFTER = re.compile(
    rf",{SP}*(?:\d{{5}}{SP}+)?(?P<town>[a-zñáéíóúàèòïüç][^\W\d_]{{2,}}(?:-[^\W\d_]+)*"
    rf"(?:{SP}+(?:(?:de|del|la|las|los|el){SP}+)?[a-zñáéíóúàèòïüç][^\W\d_]{{2,}}){{0,3}})"
    rf"(?=[ ]{{2,}}|\t|{SP}*(?:[\n\r,.;(·|]|$))"
)
# In a note written in lower case, a listed town in lower case ("c/ carrera, 22, 2º izda, arnedo").
_LOWER_TOWN_WORD = r"[a-zñáéíóúàèòïüç][^\W\d_]{2,}(?:-[^\W\d_]+)*"
_LOWER_TOWN_AFTER_ADDRESS = re.compile(
    rf"(?:\d|s/n)[^,]*(?P<comma>,{SP}*)(?P<postcode>\d{{4,5}}{SP}+)?(?P<lead>)(?P<parish>)"
    rf"(?P<town>(?:(?:la|el|los|las|es|sa|a|o){SP}+)?{_LOWER_TOWN_WORD}"
    rf"(?:{SP}+(?:(?:de|del|la|las|los|el|d'){SP}*)?{_LOWER_TOWN_WORD})*)[,;]?$"
)
# What closes a Spanish address before its town: a floor (``1º C``, ``3r 1a``, ``4 izda``,
# ``bajo``) or a kilometre (``km 4``). After a bare house number the name may be a
# neighbourhood that MEDDOCAN keeps in the street (``Paseo de la Reforma 476, Juárez``),
# so it is cut off only when it is a listed Spanish town or region.
_FLOOR_OR_KM_BEFORE = re.compile(
    rf"(?:\d{{1,2}}{SP}?(?:\.?[ºª°]|r|n|t|è)(?:{SP}*\w{{1,2}})?|\d{{1,3}}{SP}*(?-i:[A-Z])|{_SIDE}\.?|{_FLOOR_WORD}(?:{SP}+\w)?"
    rf"|km\.?{SP}*\d+(?:[.,]\d+)?"
    # or a flat's, a block's or a door's number ("apto. 312", "BL. 3, AP. 12")
    rf"|(?:apto|apartamento|ap|bl|bloque|portal|pta|puerta|esc|escalera)\.?{SP}*\w{{1,4}}"
    # or "s/n" (sin número), which ends 121 of MEDDOCAN's 122 CALLE spans that hold it
    rf"|s/n){SP}*$",
    re.IGNORECASE,
)
_NOT_TOWN = ADDRESS_WORDS | {normalize(t.rstrip("./")) for t in STREET_TYPES}


# An estate, a building or a farmhouse that an address names before its street (``Urb. Elviria
# Hills, c/ Las Gaviotas 7``, ``Edificio Belair, apto. 304, Avda. de Colón 12``, ``Mas de
# Bielsa, camino de Valmuel s/n``): part of the CALLE span, as MEDDOCAN writes its multi-part
# addresses (``Ofiplaza El Retiro, Edificio No.7, Suite 737``) and the guide splits 4 of 4.
_ESTATE_BEFORE_STREET = re.compile(
    rf"(?<![\w.])(?:Urb\.|Urbanización|Urbanització|Edificio|Edif\.|Residencial|Conjunto{SP}+Residencial|Mas|Masía"
    rf"|Cortijo|Finca){SP}+(?:(?:de|del|la|el|las|los|d['’]){SP}+)?[{UPPER}][^\W\d_]+"
    rf"(?:{SP}+(?:(?:de|del|la|el|las|los){SP}+)?[{UPPER}][^\W\d_]+){{0,3}}"
    rf"(?:,{SP}*(?:apto|apartamento|bloque|portal|esc|escalera|piso)\.?{SP}*[\w-]+)*,{SP}*\Z"
)
_ESTATE_REACH = 80


def streets_with_their_estates(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping) with each CALLE span widened back over the estate,
    building or farmhouse named right before it on its line (see above), where no span is."""
    out: list[PHISpan] = []
    for span in spans:
        if span.type == STREET:
            # (a town's name inside the estate's is swallowed: "Mas de Bielsa, camino de …")
            kept = len(out)
            while kept and out[kept - 1].type == TERRITORY and out[kept - 1].start > span.start - _ESTATE_REACH:
                kept -= 1
            window_start = max(out[kept - 1].end if kept else 0, span.start - _ESTATE_REACH)
            line_start = text.rfind("\n", window_start, span.start) + 1 or window_start
            if m := _ESTATE_BEFORE_STREET.search(text, max(window_start, line_start), span.start):
                out = [s for s in out if s.end <= m.start() or s.start >= span.start]
                span = replace(span, start=m.start(), source=RULE, text="", replacement=None)
        out.append(span)
    return out


def street_tails(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) with each CALLE span widened over a floor
    word right after it, stripped of the dot of a final side word, and cut before a town
    after its last comma (see the module), and with a listed town after that comma where
    the model left it out."""
    ordered = sorted(spans)
    out = []
    for i, span in enumerate(ordered):
        if span.type == STREET:
            next_start = ordered[i + 1].start if i + 1 < len(ordered) else len(text)
            m = _TAIL.match(text, span.end)
            if m is None and text[span.end - 1 : span.end].isdigit():
                m = _NUMBERED_FLOOR.match(text, span.end) or _BASQUE_SIDE_AFTER_NUMBER.match(text, span.end)
            if m and m.end() <= next_start:
                span = replace(span, end=m.end("floor"), source=RULE)
            if _SIDE_WITH_DOT.search(text, span.start, span.end):
                span = replace(span, end=span.end - 1, source=RULE)
            if town := _town_after_address(text, span):
                out.append(replace(span, end=town[0], source=RULE))
                if town[2] is not None:  # "Kirkeveien 118, 0361 Oslo": the postcode is a place too
                    out.append(PHISpan(*town[2], TERRITORY, span.confidence, RULE))
                span = PHISpan(town[1], town[3], TERRITORY, span.confidence, RULE)
            elif (
                (m := _LISTED_TOWN_AFTER.match(text, span.end) or _lower_case_town_after(text, span.end))
                and not any(s.start < m.end("town") and m.start("town") < s.end for s in ordered[i + 1 : i + 3])
                and listed_town(m["town"])
            ):
                out.append(span)
                span = PHISpan(m.start("town"), m.end("town"), TERRITORY, span.confidence, RULE)
        out.append(span)
    return out


def _town_after_address(text: str, span: PHISpan) -> tuple[int, int, tuple[int, int] | None, int] | None:
    """Where the street of a CALLE span ending in ``, Town`` (or ``, postcode Town``) ends,
    where the town starts, where the postcode is, if there is one, and where the town ends."""
    m = _TOWN_AFTER_ADDRESS.search(text, span.start, span.end)
    if m is None and is_lower_case_note(text):
        m = _LOWER_TOWN_AFTER_ADDRESS.search(text, span.start, span.end)
        if m is not None and normalize(m.group("town")) not in _towns():
            return None  # a lower-case word after an address is a town only if listed
    if m is None or normalize(m.group("town").split()[0]) in _NOT_TOWN:
        return None
    # A floor or a kilometre closes the street, and so does a parish named as one, or a
    # postcode after the comma (MEDDOCAN train and dev: no CALLE span holds ", 28012 Madrid").
    closed = (
        _FLOOR_OR_KM_BEFORE.search(text, span.start, m.start("comma")) is not None
        or m.group("parish")
        or m.group("postcode")
    )
    if not closed and not any(normalize(name.strip()) in _towns() for name in m.group("town").split("/")):
        return None
    postcode = (
        (m.start("postcode"), m.start("postcode") + len(m.group("postcode").rstrip())) if m.group("postcode") else None
    )
    return m.start("comma"), m.start("town"), postcode, m.end("town")


def _lower_case_town_after(text: str, end: int) -> re.Match[str] | None:
    """In a note written in lower case, a town in lower case after the comma that ends an
    address (``c/ juan muñoz 14, ático b, leganés``), not a word of clinical text."""
    m = _LOWER_LISTED_TOWN_AFTER.match(text, end)
    if m is None or not is_lower_case_note(text) or m["town"] in clinical_words():
        return None
    return None if m["town"].title() in LOWER_CASE_TOWNS_THAT_ARE_WORDS else m


def listed_town(name: str) -> bool:
    """Whether ``name`` is a listed Spanish municipality, province, community or island."""
    return normalize(name) in _towns()


@cache
def _towns() -> frozenset[str]:
    """Normalised Spanish municipalities, provinces, communities and islands."""
    return listed_names(SPANISH_PLACE_LISTS, normalize)
