"""Hospitals abroad, named in their own language (HOSPITAL, guideline P8.1).

Foreign patients' histories name the hospital that treated them before (``tratado en el
Policlinico di Sant'Orsola``, ``cataratas intervenidas en el Helsingborgs lasarett``). The
model knows Spanish heads (``Hospital``, ``Clínica``, ``Complejo Hospitalario``) and misses
these (the notes' guide splits: 2 such names, both missed). A foreign head and a
capitalised name is unambiguous:

* the head first, as Romance, German and Polish names write it: ``Ospedale San Raffaele``,
  ``Policlinico di Sant'Orsola``, ``Azienda Ospedaliera …``, ``Hôpital de la
  Pitié-Salpêtrière``, ``Centre Hospitalier Universitaire de Nantes``, ``CHU Gabriel-Montpied``, ``Klinikum
  Großhadern``, ``Universitätsklinikum Heidelberg``, ``Szpital …``, ``Spitalul …``;
* the head last, as Scandinavian and Dutch names write it: ``Helsingborgs lasarett``,
  ``Karolinska universitetssjukhuset``, ``Odense Universitetshospital``, ``Erasmus
  ziekenhuis``.

English ``… Hospital`` is left to the model: a capitalised Spanish word before a Spanish
``Hospital`` (``Urgencias Hospital La Paz``) has the same shape. MEDDOCAN train and dev name
no hospital so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import SP, Match
from deid_crf.deid.recognizers.institutions import HOSPITAL
from deid_crf.gazetteers.spanish import UPPER

# A capitalised word of a name, maybe with an elided or hyphenated part ("Sant'Orsola",
# "Pitié-Salpêtrière").
_WORD = rf"[{UPPER}][^\W\d_]*(?:['’-][{UPPER}]?[^\W\d_]+)*"
# Particles right after the head ("Policlinico di Sant'Orsola", "Hôpital de la Pitié"), and
# those that may come later inside the name; a later "di"/"de" names the town, a span of its
# own (``Ospedale San Raffaele`` of ``… di Milano``), as the notes annotate it.
_FIRST_PARTICLE = r"(?:di|del|della|dei|degli|de|du|des|la|le|l['’]|der|am|an|im|St\.?|Saint|Sainte|San|Santa)"
_LATER_PARTICLE = r"(?:la|le|l['’]|der|am|an|im|St\.?|Saint|Sainte|San|Santa)"
_HEAD_FIRST = (
    r"(?:Ospedale|Policlinico|Azienda{SP}+Ospedaliera(?:{SP}+Universitaria)?|Istituto{SP}+Clinico|Klinikum"
    r"|Universitätsklinikum|Krankenhaus|Hôpital|Centre{SP}+Hospitalier(?:{SP}+(?:Universitaire|Régional))*"
    r"|Clinique|Szpital|Spitalul|Hospital{SP}+Universitário|Centro{SP}+Hospitalar|CHU|CHRU)"
).replace("{SP}", SP)
_HEAD_LAST = (
    r"(?:lasarett(?:et)?|\w*sjukhus(?:et)?|\w*sygehus|\w*sykehus(?:et)?|\w*sjukehus(?:et)?|\w*ziekenhuis"
    r"|Universitetshospital)"
)
_FOREIGN_HOSPITAL = re.compile(
    rf"(?<![\w-])(?:{_HEAD_FIRST}{SP}+(?:{_FIRST_PARTICLE}{SP}*)*{_WORD}(?:{SP}+(?:{_LATER_PARTICLE}{SP}*)*{_WORD}){{0,3}}"
    rf"|(?:{_WORD}{SP}+){{1,3}}{_HEAD_LAST})(?![\w-])"
)
# A cheap check before the search (substring tests, far faster than a pattern's
# alternation): few texts hold any of these.
_HEAD_WORDS = (
    *("Ospedal", "Policlinico", "Azienda", "Istituto", "linikum", "Krankenhaus", "Hôpital", "Hospitalier"),
    *("Clinique", "Szpital", "Spitalul", "Universitário", "Hospitalar", "lasarett", "sjukhus", "sygehus"),
    *("sykehus", "sjukehus", "ziekenhuis", "Universitetshospital", "CHU "),
)


def find_foreign_hospitals(text: str) -> Iterator[Match]:
    """Hospitals abroad named by a foreign head and a capitalised name (see the module)."""
    if not any(word in text for word in _HEAD_WORDS):
        return
    for m in _FOREIGN_HOSPITAL.finditer(text):
        yield m.start(), m.end(), HOSPITAL
