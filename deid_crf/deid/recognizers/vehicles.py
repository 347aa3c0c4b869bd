"""Vehicle registration plates and chassis numbers (IDENTIF_VEHICULOS_NRSERIE_PLACAS).

Spanish plates are four digits and three consonants since 2000 (``7731 LKB``), a
province code, four digits and one or two letters before (``M-1234-AB``), a
trailer's carry an ``R`` in front (``R-4512-BCD``) and a moped's a ``C`` (``C-7719-BKS``). A chassis number (VIN) is 17
letters and digits without I, O or Q. Four digits and three capitals, or 17 of them,
are common enough in clinical text (lot numbers, codes) that a plate or VIN counts
only after a word that announces a vehicle on the same line: ``matrícula``, ``placa``,
``bastidor``, ``VIN``, ``vehículo``, ``coche``…
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import Match, letter_first, line_before

VEHICLE_ID = "IDENTIF_VEHICULOS_NRSERIE_PLACAS"

_CONSONANTS = "BCDFGHJKLMNPRSTVWXYZ"
_PLATE = re.compile(
    rf"(?<![\w-])(?:R-?)?\d{{4}}[ -]?[{_CONSONANTS}]{{3}}(?![\w-])"
    rf"|(?<![\w-])[A-Z]{{1,2}}-?\d{{4}}-?[A-Z]{{1,2}}(?![\w-])"
    # a moped's: "C", four digits and three consonants ("C-7719-BKS")
    rf"|(?<![\w-])C-?\d{{4}}-?[{_CONSONANTS}]{{3}}(?![\w-])"
)
_VIN = re.compile(r"(?<![\w-])(?=[A-HJ-NPR-Z0-9]*\d)(?=[A-HJ-NPR-Z0-9]*[A-Z])[A-HJ-NPR-Z0-9]{17}(?![\w-])")
_CONTEXT = re.compile(
    r"matr[íi]cula|placa|bastidor|\bvin\b|veh[íi]culo|coche|turismo|moto|furgoneta|cami[óo]n|tractora|remolque"
)
_CONTEXT_WIDTH = 60


# What every match of each pattern holds, found by a scan that skips to a digit or a
# capital: four digits and a capital (a plate), 17 characters of a VIN (none in
# MEDDOCAN dev). A text without it is not searched for the pattern.
_IN_PLATE = re.compile(r"\d{4}[ -]?[A-Z]")
_IN_VIN = re.compile(r"[A-HJ-NPR-Z0-9]{17}")


# A plate of another country's shape (Romanian ``SV 12 DRG``, Norwegian ``EL 48213``, German
# ``M-AB 1234``) only right after the word for a plate or a lorry's parts, maybe with an
# adjective between (``matrícula noruega EL 48213``, ``Tractora SV 12 DRG``): letters, digits
# and maybe letters again. The guide splits: 3 (dev10, dev18); MEDDOCAN: none.
# (opening with the class of its words' first letters: re skips to the next one in C)
_FOREIGN_PLATE = re.compile(
    letter_first(("matr[íi]cula", "placa", "tractora", "semirremolque", "remolque"))
    + r"(?:[ \t]+[a-záéíóúñ]+)?[ \t]*:?[ \t]*"
    r"(?P<plate>[A-Z]{1,3}(?:[ -][A-Z]{1,2})?[ -]?\d{1,5}(?:[ -]?[A-Z]{1,3})?)(?![\w-])"
)
_FOREIGN_PLATE_WORDS = ("matr", "placa", "remolque", "ractora")


def find_vehicle_ids(text: str) -> Iterator[Match]:
    """Plates and VINs after a vehicle word on their line (see the module), and plates of
    other countries right after the word for a plate."""
    found = []
    for pattern, held in ((_PLATE, _IN_PLATE), (_VIN, _IN_VIN)):
        if held.search(text) is None:
            continue
        for m in pattern.finditer(text):
            before = line_before(text, m.start(), _CONTEXT_WIDTH)
            if not before.strip():  # opening its line: the word may end the line before ("(matrícula⏎6612 DFR)")
                before = text[max(0, m.start() - len(before) - 30) : m.start()]
            if _CONTEXT.search(before):
                found.append((m.start(), m.end(), VEHICLE_ID))
    if any(word in text for word in _FOREIGN_PLATE_WORDS):  # (few texts hold one: plain substrings first)
        for m in _FOREIGN_PLATE.finditer(text):
            if not any(a < m.end("plate") and m.start("plate") < b for a, b, _ in found):
                found.append((m.start("plate"), m.end("plate"), VEHICLE_ID))
    yield from sorted(found)
