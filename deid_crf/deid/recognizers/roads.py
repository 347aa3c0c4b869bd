"""A point on a road (CALLE): ``Ctra. A-319, km 4``, ``A-62, p.k. 148``, ``N-II km 12,5``.

MEDDOCAN annotates a road with its kilometre point as a street (train: ``A7, km. 187``,
``Ctra. de Colmenar, km. 9,100``, ``Carretera Nacional 330 km 539``), and emergency notes
place accidents that way. A road code alone (``la A-62``) is not PHI, so only a code or a
``Ctra.``/``carretera`` name followed by a kilometre point is proposed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import SP, STREET, Match
from deid_crf.gazetteers.spanish import UPPER

# Road codes: A-62, AP-7, CV-35, M-30, N-II, A7, "Nacional 330".
_CODE = rf"(?:[A-Z]{{1,3}}-?\d{{1,4}}|N-[IVX]+|Nacional{SP}+\d{{1,4}})"
# A road named by a keyword: "Ctra. de Colmenar", "carretera de Toledo", "Autovía del Sur".
_NAMED = (
    rf"(?:[Cc]tra|[Cc]rta|[Cc]arretera|[Aa]utov[íi]a|[Aa]utopista)\.?{SP}+"
    rf"(?:(?:de|del|de{SP}+la){SP}+)?(?:{_CODE}|[{UPPER}][^\W\d_]+(?:{SP}+[{UPPER}][^\W\d_]+){{0,2}})"
)
_POINT = rf",?{SP}*(?:km\.?|kil[óo]metro|p\.{SP}?k\.?|pk|punto{SP}+kilom[ée]trico){SP}*\d{{1,4}}(?:[.,]\d{{1,3}})?"
_ROAD_POINT = re.compile(rf"(?<![\w-])(?:{_NAMED}|{_CODE}){_POINT}(?!\w)")
# What every kilometre point holds (the pattern minds case): a text without any of them,
# 230 of MEDDOCAN dev's 250 notes, is not searched.
_POINT_WORDS = ("km", "kil", "p.", "pk", "punto")


def find_road_points(text: str) -> Iterator[Match]:
    """A road code or ``Ctra.`` name with its kilometre point (see the module)."""
    if not any(word in text for word in _POINT_WORDS):
        return
    for m in _ROAD_POINT.finditer(text):
        yield m.start(), m.end(), STREET
