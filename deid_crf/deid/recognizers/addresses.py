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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from deid_crf.deid.recognizers.common import SP
from deid_crf.text.spans import RULE, PHISpan

STREET = "CALLE"

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


def street_tails(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) with each CALLE span widened over a floor
    word right after it and stripped of the dot of a final side word (see the module)."""
    ordered = sorted(spans)
    out = []
    for i, span in enumerate(ordered):
        if span.type == STREET:
            next_start = ordered[i + 1].start if i + 1 < len(ordered) else len(text)
            m = _TAIL.match(text, span.end)
            if m is None and text[span.end - 1 : span.end].isdigit():
                m = _NUMBERED_FLOOR.match(text, span.end)
            if m and m.end() <= next_start:
                span = replace(span, end=m.end("floor"), source=RULE)
            if _SIDE_WITH_DOT.search(text, span.start, span.end):
                span = replace(span, end=span.end - 1, source=RULE)
        out.append(span)
    return out
