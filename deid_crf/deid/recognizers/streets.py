"""Street addresses written with their type and house number (CALLE).

The model learns MEDDOCAN's ``Domicilio:`` field; notes write the address elsewhere
(a letterhead, a social report's sentence, a Catalan ``carrer de …, 3r 1a``, a Basque
``… kalea, 27``) where it misses it. An address that names its street type, a
capitalised name and a house number (or ``s/n``) is unambiguous:

* a street type first, in Spanish, Catalan or Galician (``C/``, ``Calle``, ``Avda.``,
  ``Paseo``, ``Plaza``, ``Carrer``, ``Avinguda``, ``Passeig``, ``Rúa``, ``Travesía``,
  ``Ronda``, ``Camino``, ``Urbanización``…), then the name (capitalised words and the
  particles between them: ``Calle de la Virgen del Carmen``, ``Carrer d'Aragó``), then a
  house number or ``s/n``, then up to three floor items (``2º izda``, ``3r 1a``, ``bajo
  A``, ``4 - 6° E``);
* in Basque the type after the name (``Maiatzaren Bata kalea, 27``, ``Gurutzeta plaza,
  z/g``, ``Begiristain doktorearen pasealekua, 109``);
* a Galician rural address, ``Lugar de Vilalba de Abaixo, 4`` (capitalised ``Lugar``
  only: ``en lugar de`` is a phrase);
* a German street, the type glued to the name or after it (``Schleißheimer Str. 214``,
  ``Hauptstraße 3a``), as a foreign patient's home address writes it.

On MEDDOCAN train (862 CALLE spans) the recognizer proposes 640 spans: 584 exactly a
gold CALLE span, 56 overlapping one with other edges (a floor written some other way,
``Apartado Calle Oria 9``), none anywhere else. Spans are the rules' only where the model
found none (priority ``union``): the model's longer span keeps its edges.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import SP, STREET, Match, by_first_letter, is_lower_case_note
from deid_crf.deid.recognizers.places import _key, _towns_by_first_word
from deid_crf.gazetteers.spanish import UPPER

_TYPE_WORDS = (
    *("calle", "avenida", r"avda\.?", r"avd\.", r"av\.", "paseo", "passeig", r"pg\.", "pº", r"p\.º", "plaza", "plaça"),
    *(r"pza\.?", r"pl\.", "carrer", "avinguda", "rúa", "rua", "travesía", "travessera", "ronda", "camino", "camí"),
    *("glorieta", "urbanización", r"urb\.", "calleja", "callejón", "costanilla"),
)
# grouped by first letter: re tries one branch per letter at each position
# (and Galician "Lugar de …", a rural address, capitalised only: "en lugar de" is a phrase)
_TYPE = rf"(?:[Cc]/|Lugar(?={SP}+d)|(?i:{by_first_letter(_TYPE_WORDS)}))"
# A word of the name: capitalised (maybe an abbreviation, "Sto.", "Hnos."), an initial, or
# a day number in a date name ("Calle 1 de Mayo").
_NAME_WORD = rf"(?:[{UPPER}][^\W\d_]*\.?|\d{{1,2}}(?={SP}+de{SP}+[{UPPER}]))"
_PARTICLE = r"(?:de|del|de la|de las|de los|d'|d’|dels|de l'|da|do|das|dos|la|el|las|los|les|y|i|e|na|en|sa|ses|s')"
_NAME = rf"(?:{_PARTICLE}{SP}*)?{_NAME_WORD}(?:(?:{SP}+{_PARTICLE})*{SP}*(?<=[\s'’]){_NAME_WORD}){{0,6}}"
# A house number (not a postcode: at most 4 digits, no leading zero) or "s/n"; then floor
# items: "2º", "2.º A", "3r", "1a", "4 izda", "bajo", "B" (not the "E" of "E-28015").
_HOUSE = rf"(?:n[º°o]\.?{SP}*)?(?:[1-9]\d{{0,3}}(?:{SP}?[A-Za-z](?![\w-]))?|[sS]/[nN])(?![\w/])"
_FLOOR = (
    rf"(?:\d{{1,2}}{SP}?(?:\.?[ºª°]|r|n|t)?{SP}?[A-Za-z]?(?![\w-])"
    rf"|(?i:bajos?|baixos|entlo|entresuelo|ático|izq\w*|izda|dcha|der|drcha|esc\.?{SP}*\w|pta\.?{SP}*\d+"
    rf"|puerta{SP}+\d+)(?![\w-])|[A-Z](?![\w-])(?!\.\w))"
)
_SEPARATOR = rf"(?:,{SP}*|{SP}+|{SP}*-{SP}*)"
_STREET = re.compile(rf"(?<![\w/]){_TYPE}{SP}*{_NAME}(?:,{SP}*|{SP}+){_HOUSE}(?:{_SEPARATOR}{_FLOOR}){{0,3}}")
_BASQUE_TYPE = r"(?:kalea|kale|etorbidea|hiribidea|plaza|pasealekua|bidea|enparantza|errepidea)"
_BASQUE_TYPE_WORD = re.compile(rf"(?<=\w){SP}+{_BASQUE_TYPE}(?!\w)")
_BASQUE_STREET = re.compile(
    # a capitalised name, then capitalised words or lower-case genitives ("Begiristain
    # doktorearen pasealekua, 109")
    rf"(?<!\w)[{UPPER}][^\W\d_]+{SP}+(?:(?:[{UPPER}][^\W\d_]+|[a-zñ]+(?:aren|ren|en)){SP}+){{0,3}}{_BASQUE_TYPE}"
    rf"(?:,{SP}*|{SP}+)(?:[1-9]\d{{0,3}}|z/g)(?![\w/])"
    rf"(?:{_SEPARATOR}{_FLOOR}){{0,3}}"
)


# A German, Austrian or Swiss street of a foreign patient's home address, the type glued to
# the name or after it, then the house number ("Schleißheimer Str. 214", "Hauptstraße 3a").
_GERMAN_TYPE_WORD = re.compile(r"(?:straße|strasse|Straße|Strasse|Str\.)(?!\w)")
_GERMAN_STREET = re.compile(
    rf"(?<!\w)[{UPPER}][^\W\d_]*(?:straße|strasse|{SP}+(?:Straße|Strasse|Str\.)){SP}+[1-9]\d{{0,3}}[a-z]?(?![\w/])"
)


# An industrial estate named where a patient works or an accident happened, without a number
# (``desde el polígono industrial El Mayorazgo``, ``Talleres … SL (polígono de Tanos)``,
# ``polígono Urbayecla``): a CALLE span, as the guide splits write 4 of 4; in a note in
# lower case after ``industrial`` its name in lower case (``polígono industrial de arinaga``).
# MEDDOCAN train and dev have none; its one ``polígono de Willis`` is the brain's arterial circle.
# A name after ``de`` that opens like a listed town is the town's estate (``el polígono de
# Ciutadella``): the town alone.
_ESTATE_WORDS = ("olígono", "oligono", "OLÍGONO", "OLIGONO")  # (after its first letter, in either case)
_ESTATE = re.compile(
    rf"(?<!\w)(?i:pol[ií]gono)(?P<kind>{SP}+(?i:industrial|empresarial))?(?:{SP}+(?P<of>de|del|d['’]){SP}*|{SP}+)"
    rf"(?P<name>(?:(?:El|La|Los|Las){SP}+)?[{UPPER}][^\W\d_]+(?:{SP}+(?:de{SP}+)?[{UPPER}][^\W\d_]+){{0,2}}"
    rf"|(?P<lower>[a-zñáéíóú][^\W\d_]+(?:{SP}+[a-zñáéíóú][^\W\d_]+)?))(?![\w-])"
)


def find_estates(text: str) -> Iterator[Match]:
    """Industrial estates by name (see above); :func:`find_streets` gives them too."""
    if not any(word in text for word in _ESTATE_WORDS):
        return
    for m in _ESTATE.finditer(text):
        if m.group("name").startswith("Willis"):
            continue
        if m.group("of") and _key(m.group("name").split()[0]) in _towns_by_first_word():
            continue  # "en el polígono de Ciutadella": the town's estate, the town a TERRITORIO
        if m.group("lower") is not None and not (m.group("kind") and is_lower_case_note(text)):
            continue
        yield m.start(), m.end(), STREET


# A street named in running text without a number, after an article or a preposition, its type
# in lower case (``en la rotonda de la avenida de Fuenlabrada con la calle Río Duero``,
# ``paseaba por la calle Galiana``, a farm's or an estate's: ``guarda de finca en la finca La
# Rinconada``): a CALLE span from the type to the end of the name, as the guide splits write
# all 8; MEDDOCAN's 3 such streets have their number, which the address pattern above takes
# (a name followed by a number or a kilometre point is left to it).
_STREET_IN_TEXT = re.compile(
    rf"(?<!\w)(?:la|el|en|por|de|a){SP}+"
    rf"(?P<street>(?:calle|avenida|plaza|paseo|carretera|camino|ronda|travesía|rúa|carrer|avinguda|finca|cortijo"
    rf"|paraje|urbanización){SP}+"
    rf"(?:(?:de|del){SP}+(?:(?:la|los|las){SP}+)?)?"
    rf"(?>[{UPPER}][^\W\d_]+(?:{SP}+(?:de{SP}+)?[{UPPER}][^\W\d_]+){{0,3}}))"
    rf"(?![\w-])(?!,?{SP}*(?:\d|km|p\.?\s?k|s/n))"
)
# (its type words, looked for as plain substrings first: few notes hold one)
_STREET_TYPE_WORDS = tuple(
    word
    for word in (
        "calle avenida plaza paseo carretera camino ronda travesía rúa carrer avinguda "
        "finca cortijo paraje urbanización"
    ).split()
)


def find_streets(text: str) -> Iterator[Match]:
    """Addresses with a street type, a name and a house number (see the module)."""
    for m in _STREET.finditer(text):
        yield m.start(), m.end(), STREET
    if _BASQUE_TYPE_WORD.search(text):  # rare: most texts skip the slower search
        for m in _BASQUE_STREET.finditer(text):
            yield m.start(), m.end(), STREET
    if _GERMAN_TYPE_WORD.search(text):  # rarer still
        for m in _GERMAN_STREET.finditer(text):
            yield m.start(), m.end(), STREET
    yield from find_estates(text)
    if any(word in text for word in _STREET_TYPE_WORDS):
        for m in _STREET_IN_TEXT.finditer(text):
            yield m.start("street"), m.end("street"), STREET
