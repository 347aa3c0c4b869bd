"""Public bodies named the same way in every note: health services, police, mutuas.

The model learns institution names from their context, and misses the bodies that
head a letter on a line of their own (``SERVIZO GALEGO DE SAÚDE``, ``Osakidetza``) or
that it has never seen (``Servicio Canario de la Salud``). These names are fixed, so
a list finds them: the health service and government of every autonomous community
(:data:`deid_crf.gazetteers.spanish.HEALTH_SERVICES`) and national police, insurers
and NGOs (:data:`~deid_crf.gazetteers.spanish.NATIONAL_BODIES`), in any letter case
as long as the text has a capital in it. Acronyms that are also ordinary words or
other things' acronyms (``SAS``, ``SES``, ``ICS``…) and governments named like their
territory (``Comunidad de Madrid``) are left to the model. A town council
(``Ayuntamiento de Terrassa``, ``Ajuntament de Reus``, ``Concello de Vigo``) is one
INSTITUCION span with its town (guideline M10.1).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import INSTITUTION, SP, Match
from deid_crf.gazetteers.spanish import (
    AMBIGUOUS_HEALTH_ACRONYMS,
    HEALTH_SERVICES,
    NATIONAL_BODIES,
    UPPER,
)

# Governments whose name is their territory's: TERRITORIO in running text.
_NAMED_LIKE_TERRITORY = frozenset({"Comunidad de Madrid", "Región de Murcia"})

_NAMES = sorted(
    {
        name
        for names in HEALTH_SERVICES.values()
        for name in names
        if name not in AMBIGUOUS_HEALTH_ACRONYMS and name not in _NAMED_LIKE_TERRITORY
    }
    | set(NATIONAL_BODIES),
    key=len,
    reverse=True,
)


def _flexible(name: str) -> str:
    """``name`` as a pattern: its words joined by any run of spaces or a hyphen, either apostrophe."""
    words = [re.escape(w).replace("'", "['’]") for w in re.split(r"[\s-]+", name)]
    return rf"(?:{SP}*-{SP}*|{SP}+)".join(words)


_TOWN = (
    rf"(?:(?:[Ll]['’]|(?:de|del|la|las|los|el|i|y|A|O|Sant|San|Santa){SP}+)?[{UPPER}][^\W\d_]+(?:-[{UPPER}][^\W\d_]+)?)"
)
# "Cáritas Diocesana de Terrassa", "Cruz Roja de Jaén": the body's local branch is one span.
_BRANCH = (
    rf"(?:{SP}+(?:Diocesana|Interparroquial|Provincial|Insular|Local|Municipal|Comarcal))?(?:{SP}+de{SP}+{_TOWN})?"
)
_BODY = re.compile(r"(?<![\w-])(?i:" + "|".join(_flexible(n) for n in _NAMES) + r")(?![\w-])" + _BRANCH)
_COUNCIL = re.compile(
    rf"(?<!\w)(?:Excmo\.?{SP}+)?(?:Ayuntamiento|Ajuntament|Concello)"
    rf"(?:{SP}+de{SP}+|{SP}+d['’]){_TOWN}(?:{SP}+{_TOWN})*"
)


def find_institutions(text: str) -> Iterator[Match]:
    """Health services, national bodies and town councils named in ``text``."""
    for m in _BODY.finditer(text):
        if any(ch.isupper() for ch in m.group()):
            yield m.start(), m.end(), INSTITUTION
    for m in _COUNCIL.finditer(text):
        yield m.start(), m.end(), INSTITUTION
