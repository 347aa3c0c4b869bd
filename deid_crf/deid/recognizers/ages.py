"""Ages under a year and ages written with a unit the model rarely sees
(EDAD_SUJETO_ASISTENCIA).

The guidelines (P2.2, P2.3) annotate ages in hours, days, weeks and months with their
unit: ``Recién nacido de [tres días] de vida``. MEDDOCAN train has few of them (22
``N meses``, 6 in days, 1 in weeks), so the model misses most in neonatal and paediatric
notes. Two forms are unambiguous enough for a rule:

* a duration followed by ``de vida`` (``a las 60 h de vida``, ``Varón de 26 días de vida``);
* a duration after a word for a baby or child and ``de`` (``Niña de 3 días``,
  ``lactante de 8 semanas``, ``RN de 36 horas``).

The span is the number and its unit, ``de vida`` left out (as in MEDDOCAN train's
``un mes``, ``26 días``). A bare ``3 días`` is usually a duration (``fiebre de 3 días``),
so without one of these cues nothing is proposed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import SP, Match

AGE = "EDAD_SUJETO_ASISTENCIA"

_NUMBER = (
    r"(?:\d{1,3}(?:[.,]5)?|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|"
    r"trece|catorce|quince|dieciséis|diecisiete|dieciocho|diecinueve|veinte|veintiún|veintiuno|"
    r"treinta|cuarenta)"
)
_UNIT = r"(?:horas?|h|días?|dias?|semanas?|meses|mes)"
_DURATION = rf"{_NUMBER}{SP}*{_UNIT}(?:{SP}+y{SP}+(?:medio|media|{_NUMBER}{SP}*{_UNIT}))?"
_BABY = rf"(?:reci[ée]n{SP}+nacid[oa]|RN|neonato|neonata|lactante|beb[ée]|niñ[oa]|var[óo]n|hij[oa]|gemel[oa])"

_OF_LIFE = re.compile(rf"(?<![\w.,])(?P<age>{_DURATION})(?!\w){SP}+de{SP}+vida\b", re.IGNORECASE)
# ``niño de 3 días de evolución``: a duration of something else.
_NOT_AN_AGE = rf"(?!{SP}+de{SP}+(?:evoluci|duraci|fiebre|ingreso|tratamiento|estancia|seguimiento|gestaci))"
_AFTER_BABY = re.compile(rf"\b{_BABY}{SP}+de{SP}+(?P<age>{_DURATION})(?!\w){_NOT_AN_AGE}", re.IGNORECASE)


def find_young_ages(text: str) -> Iterator[Match]:
    """Durations that are a baby's or child's age (see the module)."""
    found = {(m.start("age"), m.end("age")) for pattern in (_OF_LIFE, _AFTER_BABY) for m in pattern.finditer(text)}
    for start, end in sorted(found):
        yield start, end, AGE
