"""Places that running text names by their grammar, not by an address around them.

* ``reside en el barrio de Delicias``: the neighbourhood, without ``barrio de``, is a
  TERRITORIO span (guideline P12.4). Only a lower-case ``barrio`` counts, so a centre
  named ``Centro de Salud Barrio del Pilar`` is left to the model.
* ``natural de Senegal (Thiès)``, ``China (Qingtian, provincia de Zhejiang)``, ``Japón (Tokio y Kioto)``: a
  capitalised name in brackets right after a country the model found is a town or
  region of that country (:func:`towns_after_countries`; it needs the model's PAIS
  spans, so it runs after the merge, not as a recognizer).
* ``natural de Iași``, ``reside en Terrassa desde 2015``, ``nacida en Marruecos``: a
  capitalised name right after a cue of birth or residence is a place
  (:func:`find_home_places`): PAIS when it is a country's Spanish name (Faker's list),
  TERRITORIO otherwise. A name that starts with an institution word (``reside en
  Residencia …``) is left to the institution rules and the model.
* ``Romania``, ``CHINA``, ``Frantzia``, ``Marroc``: a country's name, in Spanish,
  Catalan, Galician, Basque or English, capitalised or in capitals, is a PAIS span
  wherever no other span covers it (:func:`places_by_name`, after the merge); a
  TERRITORIO span that is exactly a country's name becomes PAIS. MEDDOCAN annotates
  country names nearly everywhere (train and dev: 1,038 of 1,149 occurrences of the
  Spanish list are PAIS spans, 5 are in no span). Names that are also a Spanish
  town or province (``Granada``), a given name (``Israel``) or a Spanish word
  (``Reunión``), and stains named after a country (``rojo Congo``), are left alone.
* ``El Hierro``, ``COMUNIDAD DE MADRID``: a Spanish province, autonomous community or
  island, capitalised or in capitals, is a TERRITORIO span wherever no other span covers
  it (:func:`places_by_name`). MEDDOCAN train annotates them nearly everywhere: of 856
  capitalised occurrences of those lists, 702 are TERRITORIO spans, 152 are inside
  another span (a hospital's or a street's name) and one is in no span. Municipalities
  are not taken this way: the model finds them, and many are words (``Plan``, ``Ojos``);
  only right after a preposition (``vive en Cambrils``, ``el puerto de Mahón``) is a
  municipality of the list, as spelt there or in capitals, a TERRITORIO span
  (:func:`find_towns_after_prepositions`), unless it is a word a heading capitalises
  (``Fecha de Nacimiento``).
* ``Pamplona/Iruña``, ``Cruces/Barakaldo``: two names joined by a slash are two places,
  as MEDDOCAN annotates them (train: ``Cruces`` and ``Barakaldo``, two TERRITORIO
  spans); :func:`split_at_slashes` cuts the model's one span in two, and
  :func:`joined_places` joins the pieces of one place the model cut (``Puerto`` +
  ``Sagunto``, ``Nuevo`` + ``León``) and takes in an elided ``L’``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache

from deid_crf.deid.recognizers.common import (
    DATE,
    SP,
    TERRITORY,
    Match,
    finditer_at,
    is_lower_case_note,
    is_word_char,
    letter_first,
    listed_names,
)
from deid_crf.deid.recognizers.lower_case_names import clinical_words
from deid_crf.gazetteers.spanish import (
    INSTITUTION_WORDS,
    SPECIALTY_WORDS,
    STREET_TYPES,
    UPPER,
    WORLD_CITIES,
    normalize,
)
from deid_crf.text.spans import RULE, Coverage, PHISpan

COUNTRY = "PAIS"

# A place name: capitalised words, maybe joined by particles or hyphens ("Valle del Jiu",
# "Cluj-Napoca", "Santa Cruz de la Sierra").
_WORD = rf"[{UPPER}][^\W\d_]*(?:['’-][{UPPER}]?[^\W\d_]+)*"
_NAME = rf"{_WORD}(?:{SP}+(?:(?:de|del|la|las|los|el|do|da|dos|das){SP}+)*{_WORD})*"

# A neighbourhood's name stops at a particle: "barrio del Raval de Barcelona" is two places.
_NEIGHBOURHOOD = re.compile(
    rf"(?<!\w)(?:barrio|barriada|barri){SP}+(?:de{SP}+la{SP}+|de{SP}+|del{SP}+)?(?P<name>{_WORD}(?:{SP}+{_WORD})*)"
)
_BRACKETED = re.compile(
    rf"{SP}*\({SP}*(?P<town>{_NAME})"
    # more towns: "Japón (Tokio y Kioto)", "Marruecos (Tánger, Tetuán)"
    rf"(?P<more>(?:{SP}*(?:,|y|e|i){SP}*{_NAME})*)"
    rf"(?:{SP}*,{SP}*(?:provincia|región|regió|estado|departamento|distrito){SP}+de{SP}+(?P<region>{_NAME}))?"
    rf"{SP}*\)"
)
_MORE_TOWNS = re.compile(rf"(?:{SP}*(?:,|y|e|i){SP}*)(?P<town>{_NAME})")
# (in a note written in lower case, one place in lower case: "antes 2 años en italia (foggia)";
# not a word of clinical text: "(nativa)", "(materna)")
_LOWER_WORD = r"[a-zñáéíóúüçàèò]{3,}"
_LOWER_BRACKETED = re.compile(rf"{SP}*\({SP}*(?P<town>{_LOWER_WORD}(?:[ -]{_LOWER_WORD})?)(?P<more>){SP}*\)")


def find_neighbourhoods(text: str) -> Iterator[Match]:
    """The name after a lower-case ``barrio (de|del|de la)``."""
    for m in _NEIGHBOURHOOD.finditer(text):
        yield m.start("name"), m.end("name"), TERRITORY


def towns_after_countries(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) plus a TERRITORIO span for each place in
    brackets right after a PAIS span; a span of another type on exactly that place is
    replaced, any other span overlapping it keeps the place from being added."""
    coverage = Coverage((s.start, s.end) for s in spans)
    by_range = {(s.start, s.end): s for s in spans}
    replaced: set[tuple[int, int]] = set()
    added: list[PHISpan] = []
    lower_case = None
    for country in spans:
        if country.type != COUNTRY:
            continue
        m = _BRACKETED.match(text, country.end)
        if m is None and text[country.start : country.end].islower():
            if lower_case is None:
                lower_case = is_lower_case_note(text)
            m = _LOWER_BRACKETED.match(text, country.end) if lower_case else None
            if m is not None and any(w in clinical_words() for w in m.group("town").split()):
                m = None
        if m is None:
            continue
        places = [m.span("town"), *(t.span("town") for t in _MORE_TOWNS.finditer(text, *m.span("more")))]
        if m.groupdict().get("region") is not None:
            places.append(m.span("region"))
        for place in places:
            same = by_range.get(place)
            if same is not None and same.type != TERRITORY:
                replaced.add(place)
            elif same is not None or coverage.overlaps(*place):
                continue
            added.append(PHISpan(*place, TERRITORY, 1.0, RULE))
    return sorted([s for s in spans if (s.start, s.end) not in replaced] + added)


# A listed town after a dash that follows a street, a hospital or a health centre (``c/ del
# castillo 9, 2º b - abarán``, ``hosp. de la vega lorenzo guirao - cieza``, ``Hospital Comarcal
# – Vinaròs``), ending the field: a TERRITORIO span of its own where no span is. In a note in lower case, in
# lower case too, unless a word of clinical text. The guide splits: 2 (dev18).
_DASH_BEFORE_TOWN = re.compile(rf"{SP}+[-–—]{SP}+(?=[^\W\d_])")
_BEFORE_A_DASHED_TOWN = frozenset(("CALLE", "HOSPITAL", "CENTRO_SALUD"))
# (the town ends the field: "Hospital de Dia — Torre A, planta 1" names a building)
_TOWN_ENDS = re.compile(rf"{SP}*(?:$|[\n,.;:·|/()])|{SP}{{2,}}", re.MULTILINE)


def towns_after_dashes(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping) plus the listed town after a dash that follows a
    street's, a hospital's or a health centre's span (see above)."""
    added = []
    lower_case = None
    for i, span in enumerate(spans):
        if span.type not in _BEFORE_A_DASHED_TOWN or not (dash := _DASH_BEFORE_TOWN.match(text, span.end)):
            continue
        start = dash.end()
        end = max(_listed_place_ends(text, start), default=None)
        if end is None or (i + 1 < len(spans) and spans[i + 1].start < end) or not _TOWN_ENDS.match(text, end):
            continue
        name = text[start:end]
        if name.islower():
            if lower_case is None:
                lower_case = is_lower_case_note(text)
            if not lower_case or name in clinical_words() or name.title() in LOWER_CASE_TOWNS_THAT_ARE_WORDS:
                continue
        elif not name[0].isupper():
            continue
        added.append(PHISpan(start, end, TERRITORY, span.confidence, RULE))
    return sorted([*spans, *added]) if added else list(spans)


# A letter's dateline: the place, a comma and the date opening a line ("Ponferrada, 21 de
# noviembre de 2026", "En Barbastro, a veintiséis de noviembre…", Catalan "A Girona, 3 de
# març…"). The place is a TERRITORIO span even where no list holds it (a village, a typo:
# "Ponferada", "Barbstro"), but not a word that clinical text writes in lower case ("Hoy, 3 de
# marzo") unless it is a listed place. MEDDOCAN train and dev: no dateline.
_DATELINE_PLACE = re.compile(
    rf"^[ \t]*(?:(?:En|A|Em|In){SP}+)?"
    rf"(?P<place>{_WORD}(?:{SP}+(?:(?:de|del|la|las|los|el){SP}+|d'{SP}*)*{_WORD}){{0,3}})"
    rf"{SP}*,{SP}*(?:a{SP}+)?\Z",
    re.MULTILINE,
)


def places_in_datelines(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping) plus a TERRITORIO span for the place of each
    dateline (see above) whose date is a FECHAS span, where no span is."""
    added = []
    previous_end = 0
    for span in spans:
        if span.type == DATE and (m := _DATELINE_PLACE.search(text, previous_end, span.start)):
            start, end = m.span("place")
            first = _FIRST_WORD.match(text, start).group()
            if normalize(first) not in _NOT_PLACE and (
                first.lower() not in clinical_words() or is_place_name_at(text, start)
            ):
                added.append(PHISpan(start, end, TERRITORY, span.confidence, RULE))
        previous_end = span.end
    return sorted([*spans, *added]) if added else list(spans)


# A place right before its country in brackets (``Nació en Riberalta (Bolivia)``,
# ``trabajó para Rolls-Royce en Derby (Reino Unido)``, ``NATURAL DE SUCEAVA (RUMANIA)``):
# a town or region of that country. The words that open a cue (``Natural de``, ``Familia
# originaria de``) are no part of it. Proposed on the text alone (no other span), on MEDDOCAN
# train and dev 27 places, 26 of them exactly a TERRITORIO span (the other: ``La Coruña``
# after an address); on the notes' guide splits dev to dev8, 59 and 58 (``3581 RK Utrecht``).
_COUNTRY_IN_BRACKETS = re.compile(r"\((?P<country>[^()\n]{2,30})\)")
_PLACE_BEFORE = re.compile(
    rf"(?P<place>{_WORD}(?:{SP}+(?:(?:de|del|la|las|los|el){SP}+)?{_WORD}){{0,2}}){SP}*\n?{SP}*\Z"
)
# The region before the country inside the brackets (``Fuqing (Fujian, China)``, ``Valencia
# (estado Carabobo, Venezuela)``): a TERRITORIO span of its own, as the notes' guide splits
# annotate it (3 of 3); MEDDOCAN train and dev have none. A generic word that names the
# region's kind stays out of the span. Only after a cue of birth or residence before the
# place (``nacido en Gujrat (Punyab, Pakistán)``, ``vivió 38 años en Valencia (…)``): in the
# unlabeled clinical text the brackets hold a maker and its country far more often
# (``(Given Imaging, Israel)``, ``(Karl Storz, Alemania)``).
_REGION_THEN_COUNTRY = re.compile(
    rf"(?:(?i:estado|provincia|regi[oó]n|departamento|distrito|condado|prefectura|wilaya|oblast){SP}+(?:de{SP}+)?)?"
    rf"(?P<region>{_WORD}(?:{SP}+{_WORD}){{0,2}}){SP}*,{SP}*(?P<country>[^,]+)"
)
_HOME_CUE_BEFORE = re.compile(
    rf"(?i:natural|nacid[oa]|naci[oó]|originari[oa]|oriund[oa]|procedente|vivi[oó]|vive|viven|viv[ií]a|viv[ií]an"
    rf"|reside|residen|resid[ií]a|residente)(?:{SP}+\d+{SP}+años)?{SP}+(?:en|de){SP}+\Z"
)
_NAME_GOES_ON_BEFORE = re.compile(rf"[{UPPER}][^\W\d_]+{SP}+(?:y|i|e){SP}+\Z")
_NOT_IN_PLACE = frozenset(
    ("natural", "nacido", "nacida", "nacio", "originario", "originaria", "oriundo", "oriunda", "procedente")
    + ("familia", "provincia", "vive", "reside", "residente", "de", "del", "en", "desde", "la", "el")
)


# In a note in lower case, a place in lower case after a preposition and before its
# country in brackets (``natural de mbour (senegal)``, ``hermano en bradford (reino unido)``).
_LOWER_PLACE_BEFORE_COUNTRY = re.compile(
    rf"(?<!\w)(?:de|en|desde|a){SP}+(?P<place>[a-zñáéíóúüç]{{3,}}(?:[ -][a-zñáéíóúüç]{{3,}})?){SP}*"
    rf"\((?P<country>[^()\n]{{2,30}})\)"
)
_NOT_A_PLACE = frozenset(("casa", "domicilio", "tratamiento", "seguimiento", "consulta", "urgencias", "planta"))


def _lower_case_towns_before_countries(text: str) -> Iterator[tuple[int, int]]:
    for m in _LOWER_PLACE_BEFORE_COUNTRY.finditer(text):
        if normalize(m.group("country").strip()) in _countries() and m.group("place").split()[0] not in _NOT_A_PLACE:
            yield m.span("place")


def towns_before_countries(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` plus a TERRITORIO span for each place right before its country in brackets,
    and for a region before the country in them (see above), where no span overlaps it."""
    coverage = Coverage((s.start, s.end) for s in spans)
    added = []
    for m in _COUNTRY_IN_BRACKETS.finditer(text):
        region = None
        if normalize(m.group("country").strip()) not in _countries():
            inside = _REGION_THEN_COUNTRY.fullmatch(text, *m.span("country"))
            if inside is None or normalize(inside.group("country").strip()) not in _countries():
                continue
            region = inside.span("region")
        line_start = text.rfind("\n", 0, max(0, text.rfind("\n", 0, m.start()))) + 1  # the line before too
        place = _PLACE_BEFORE.search(text, line_start, m.start())
        if place is None:
            continue
        start, end = place.span("place")
        for word in _FIRST_WORD.finditer(text, start, end):  # the cue's words are left out
            if normalize(word.group()) not in _NOT_IN_PLACE:
                break
            start = word.end()
        while start < end and not text[start].isalpha():
            start += 1
        if region is not None:
            if not _HOME_CUE_BEFORE.search(text, line_start, start):
                continue  # a maker and its country ("(Karl Storz, Alemania)"), not a region
            if not coverage.overlaps(*region):
                added.append(PHISpan(*region, TERRITORY, 1.0, RULE))
        if start < end and text[start].isupper() and not coverage.overlaps(start, end):
            if _NAME_GOES_ON_BEFORE.search(text, line_start, start):
                continue  # the end of a longer name ("Hospital Ramón y Cajal (España)")
            added.append(PHISpan(start, end, TERRITORY, 1.0, RULE))
    if "(" in text and is_lower_case_note(text):
        added += [
            PHISpan(start, end, TERRITORY, 1.0, RULE)
            for start, end in _lower_case_towns_before_countries(text)
            if not coverage.overlaps(start, end)
        ]
    return sorted([*spans, *added]) if added else list(spans)


_ARRIVING = (
    *("vino", "viene", "vienen", "venido", "vendrá", "vendrán", "llega", "llegan", "llegó", "llegará"),
    *("regresa", "regresó", "vuelve", "volvió"),
)
_MOVING = ("emigró", "emigraron", "emigrar", "se trasladó", "se mudó", "se fue", "se marchó", "viajó", "viajará")
# Opening with the cue's first letter (common.letter_first): re skips to the next
# letter that can open one in C instead of trying the cues at every position.
_HOME_CUES = (
    *(f"natural{SP}+de", f"originari[oa]{SP}+de", f"oriund[oa]{SP}+de", f"procedente{SP}+de", f"nacid[oa]{SP}+en"),
    *(f"residente{SP}+en", f"reside{SP}+en", f"residía{SP}+en", f"vive{SP}+en", f"vivía{SP}+en"),
    *(f"afincad[oa]{SP}+en", f"empadronad[oa]{SP}+en", f"domiciliad[oa]{SP}+en", f"naci[óo]{SP}+en"),
    # where a relative lives ("los padres viven en Chengdu", "la madre sigue en Leópolis")
    *(f"viven{SP}+en", f"vivían{SP}+en", f"residen{SP}+en", f"sigue{SP}+en", f"siguen{SP}+en"),
    # where a relative comes from or the patient went ("la hija vino desde Newcastle", "llega
    # mañana desde Malmö", "emigró a Venezuela"): in the notes' guide splits 2 places missed
    # before are found so; MEDDOCAN dev's output does not change
    *(f"{verb}(?:{SP}+(?:mañana|hoy|ayer|pronto))?{SP}+desde" for verb in _ARRIVING),
    *(f"{verb}{SP}+a" for verb in _MOVING),
    # Catalan ("el germà viu a Doha", "resident a Montpeller")
    *(f"viu{SP}+a", f"viuen{SP}+a", f"resident{SP}+a"),
)
# (the place may open the next line of a wrapped note: "Natural de⏎Bignona")
_HOME_CUE = re.compile(rf"{letter_first(_HOME_CUES)}(?:{SP}+|{SP}*\n{SP}*)(?P<place>{_NAME})")
# Words that open a name which is not a place after those cues.
# (an address is the street rules' and the model's: "domiciliado en C/ Esquíroz").
_NOT_PLACE = (
    INSTITUTION_WORDS - {"de", "del", "la", "las", "los", "el", "y"}
    | {normalize(t.rstrip("./")) for t in STREET_TYPES}
    | {"casa", "urgencias", "planta"}
    # a ward or a service the patient moves to ("se trasladó a UCI", "vino desde Reanimación")
    | {normalize(w) for w in SPECIALTY_WORDS}
    | {"uci", "uvi", "ucip", "ucin", "reanimacion", "quirofano", "hospitalizacion", "observacion", "consultas"}
)


# The gazetteer lists of country names (gazetteers/lists/, committed).
COUNTRY_LISTS = ("countries.txt", "countries_other_languages.txt")
# Lists of Spanish places: a country's name that is also one of them is not taken alone.
SPANISH_PLACE_LISTS = ("municipalities.txt", "provinces.txt", "islands.txt", "autonomous_communities.txt")
# Spanish places named alone wherever they are capitalised (MEDDOCAN train: 702 of 856
# capitalised occurrences are TERRITORIO spans, 152 are inside another span, 1 in none).
REGION_LISTS = ("provinces.txt", "islands.txt", "autonomous_communities.txt")
# Country names that are also a given name or a Spanish word (as :func:`_key` writes them).
_NOT_ONLY_COUNTRY = frozenset({"israel", "mauricio", "dominica", "georgia", "reunion", "catar", "san martin", "india"})


def _key(name: str) -> str:
    """A country name's matching key: :func:`normalize` (one character per character)
    but keeping ``ñ``, so Galician ``Alemaña`` is not the Spanish adjective ``alemana``.
    The pieces between ``ñ``s are normalised whole: :func:`normalize` works character
    by character, and one call per piece, not per character, is what loading the
    country lists costs."""
    if "ñ" not in name and "Ñ" not in name:
        return normalize(name)
    return "ñ".join(map(normalize, _ENE.split(name)))


_ENE = re.compile("[ñÑ]")


# Words before a country's name in a stain or a disease: "rojo Congo", "fiebre de Malta".
_EPONYM_BEFORE = re.compile(rf"(?i:rojo|negro|fiebre{SP}+de){SP}+$")


@cache
def _countries() -> frozenset[str]:
    """Normalised country names (see :data:`COUNTRY_LISTS`)."""
    return listed_names(COUNTRY_LISTS, normalize)


def _by_first_word(names: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """``names`` (as :func:`_key` writes them) by their first word, longest first."""
    by_first: dict[str, list[str]] = {}
    for name in names:
        if first := _FIRST_WORD.match(name):
            by_first.setdefault(first.group(), []).append(name)
    return {word: tuple(sorted(group, key=len, reverse=True)) for word, group in by_first.items()}


@cache
def _countries_by_first_word() -> dict[str, tuple[str, ...]]:
    """Country names that are only countries, by their first word, longest first."""
    countries, spanish_places = listed_names(COUNTRY_LISTS, _key), listed_names(SPANISH_PLACE_LISTS, _key)
    return _by_first_word(countries - spanish_places - _NOT_ONLY_COUNTRY)


@cache
def _regions_by_first_word() -> dict[str, tuple[str, ...]]:
    """Spanish provinces, communities and islands, by their first word, longest first."""
    return _by_first_word(listed_names(REGION_LISTS, _key))


_FIRST_WORD = re.compile(r"[^\W\d_]+")
# A capitalised word: its capital is looked for first and what precedes it checked
# after (``[A-Z](?<!\w[A-Z])``, not ``(?<!\w)[A-Z]``), the same words, but ``re`` skips
# to the next capital in C instead of trying every position (half the time).
_CAPITALISED = re.compile(rf"[{UPPER}](?<!\w[{UPPER}])[^\W\d_]*")


# In a note written in lower case throughout (:func:`~deid_crf.deid.recognizers.common.
# is_lower_case_note`: "s: varón 39a, natural de mbour (senegal). llegó en …") a country's or
# a Spanish region's name is looked up in lower case too, unless it is also a word or a
# name's piece in lower case ("chile", "china", "franca", "granada", "la palma", "usa": the
# unlabeled clinical text writes them so).
_PLACES_THAT_ARE_WORDS = frozenset(
    ("chile", "china", "franca", "usa", "congo", "guinea", "granada", "valencia", "la palma", "palma", "cuba")
    + ("india", "georgia", "leon", "cuenca", "el hierro", "mali", "chad", "niger", "togo", "samoa", "dominica")
)
_ANY_WORD = re.compile(r"(?<!\w)[^\W\d_]+")


def _lower_case_words(text: str) -> list[tuple[int, str]]:
    """Where each lower-case word of ``text`` starts, and its :func:`_key`."""
    return [(m.start(), _key(m.group())) for m in _ANY_WORD.finditer(text) if m.group()[0].islower()]


def _capitalised_words(text: str) -> list[tuple[int, str]]:
    """Where each capitalised word of ``text`` starts, and its :func:`_key`: what both
    lists are looked up with (found once for both)."""
    return [(m.start(), _key(m.group())) for m in _CAPITALISED.finditer(text)]


def _find_listed(
    text: str, by_first: dict[str, tuple[str, ...]], entity_type: str, words: list[tuple[int, str]] | None = None
) -> Iterator[Match]:
    """Every capitalised name of ``by_first`` (see :func:`_by_first_word`), longest
    first, that is not part of a longer word or after a stain's colour (``rojo Congo``);
    ``words``: the :func:`_capitalised_words` of ``text``, when already found."""
    position = 0
    for start, key in _capitalised_words(text) if words is None else words:
        if start < position or (names := by_first.get(key)) is None:
            continue
        for name in names:
            end = start + len(name)  # _key keeps one character per character
            if _key(text[start:end]) == name and not (end < len(text) and is_word_char(text[end])):
                if not _EPONYM_BEFORE.search(text, max(0, start - 20), start):
                    yield start, end, entity_type
                position = end
                break


@cache
def _country_acronyms() -> frozenset[str]:
    """The keys of the country names the lists write in capitals (``USA``, ``EEUU``)."""
    return listed_names(COUNTRY_LISTS, lambda name: _key(name) if name.isupper() else "")


def _is_region_name(name: str, regions: dict[str, tuple[str, ...]]) -> bool:
    """``name`` is exactly a Spanish province's, community's or island's name."""
    key = _key(name)
    first = _FIRST_WORD.match(key)
    return first is not None and key in regions.get(first.group(), ())


def find_country_names(text: str, words: list[tuple[int, str]] | None = None) -> Iterator[Match]:
    """Every capitalised country name of the lists (see the module), longest first
    (``words``: see :func:`_find_listed`); one the lists write in capitals only in
    capitals (``Usa andador`` is a verb)."""
    acronyms = _country_acronyms()
    for start, end, entity_type in _find_listed(text, _countries_by_first_word(), COUNTRY, words):
        if text[start:end].isupper() or _key(text[start:end]) not in acronyms:
            yield start, end, entity_type


def find_region_names(text: str, words: list[tuple[int, str]] | None = None) -> Iterator[Match]:
    """Every capitalised name of a Spanish province, community or island, longest first
    (``words``: see :func:`_find_listed`)."""
    return _find_listed(text, _regions_by_first_word(), TERRITORY, words)


# The types the model gives a town's name after a preposition that it took for a street, a
# relative or an employer ("el puerto de Fornells", "Dos Hermanas", "una bodega de Laguardia").
_NOT_A_TOWNS_TYPES = frozenset(("CALLE", "FAMILIARES_SUJETO_ASISTENCIA", "OTROS_SUJETO_ASISTENCIA"))


def places_by_name(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) with a PAIS span on each country name
    and a TERRITORIO span on each Spanish province, community or island, and on each
    municipality after a preposition, that no span overlaps, and each TERRITORIO span
    that is exactly a country's name retyped PAIS."""
    coverage = Coverage((s.start, s.end) for s in spans)
    words = _capitalised_words(text)
    countries = {(start, end) for start, end, _ in find_country_names(text, words)}
    regions = _regions_by_first_word()
    lower_case_places: list[Match] = []
    if is_lower_case_note(text):
        lower = _lower_case_words(text)
        lower_case_places = [
            (start, end, kind)
            for start, end, kind in (
                *_find_listed(text, _countries_by_first_word(), COUNTRY, lower),
                *_find_listed(text, regions, TERRITORY, lower),
            )
            if _key(text[start:end]) not in _PLACES_THAT_ARE_WORDS
        ]
        lower_case_places += _lower_case_towns(text, lower)
    out = [
        PHISpan(s.start, s.end, COUNTRY, s.confidence, RULE)
        if s.type == TERRITORY and (s.start, s.end) in countries
        # a Spanish province named like a country (Granada): MEDDOCAN makes it TERRITORIO 15 times in 15
        else PHISpan(s.start, s.end, TERRITORY, s.confidence, RULE)
        if s.type == COUNTRY and _is_region_name(text[s.start : s.end], regions)
        else s
        for s in spans
    ]
    towns = list(find_towns_after_prepositions(text, words))
    exact_towns = {(a, b) for a, b, _ in towns}
    out = [
        PHISpan(s.start, s.end, TERRITORY, s.confidence, RULE)
        if s.type in _NOT_A_TOWNS_TYPES and (s.start, s.end) in exact_towns
        else s
        for s in out
    ]
    added_end = 0  # countries, regions and towns are separate lists: keep the first of two that overlap
    found = [*((a, b, COUNTRY) for a, b in countries), *find_region_names(text, words), *towns, *lower_case_places]
    for start, end, entity_type in sorted(found):
        if start >= added_end and not coverage.overlaps(start, end):
            out.append(PHISpan(start, end, entity_type, 1.0, RULE))
            added_end = end
    return sorted(out)


# Municipalities of the INE list named right after a preposition ("trabaja en Cambrils",
# "el puerto de Mahón", "desde Ribadavia"), spelt as listed or in capitals: TERRITORIO where
# no span covers them; in capitals only after a preposition in capitals ("DE CAMBRILS", not
# the tumour marker of "niveles de CEA"). On the notes' guide halves, all 127 such names are
# a TERRITORIO span (63) or inside another span (a hospital's, a street's); on MEDDOCAN train
# and dev, 2 of 188 are in no span ("criterios revisados de El Escorial"). A dual name is
# taken in either language too ("Maó-Mahón": "Maó", "Mahón").
TOWN_LISTS = ("municipalities.txt",)
# (the town may open the next line of a wrapped note: "operado de lo mismo en⏎Argel")
_TOWN_PREPOSITION = re.compile(
    rf"(?<!\w)(?:[Ee]n|[Dd]e|[Dd]esde|[Hh]asta|a|[Pp]or|[Pp]ara|EN|DE|DESDE|HASTA|POR|PARA)(?:{SP}+|{SP}*\n{SP}*)\Z"
)
# One-word municipalities that are also Spanish words, which a heading capitalises ("Fecha de
# Nacimiento", "Sala de Espera", "Plan de Cuidados"): those whose lower-case form is in the
# unlabeled clinical text (CANTEMIST, ../shared/data/unlabeled_es_clinical) three times or
# more (tests/test_recognizers.py checks the list against it).
TOWNS_THAT_ARE_WORDS = frozenset(
    """
    Agudo Alba Almendra Altura Antigua Arcos Avión Barro Blanca Blancas Blanco Bullas Bóveda Cabra Camas
    Campo Campos Canales Cariño Caso Cava Cebolla Codo Codos Corporales Cortes Cosa Cuadros Dolores Escucha
    Espejo Espera Fines Frontera Frías Fuente Fuentes Grado Granada Haría Herencia Huerta Larva Libros Luna
    Malla Manzanilla Muro Nacimiento Ojos Oliva Onda Orbita Palomas Paredes Pareja Parrillas Paterna Peligros
    Plan Planes Plenas Porto Puertas Pulgar Quemada Quintana Quinto Real Recuerda Rojas Rota Roturas Rueda
    Salas Segura Semillas Seno Serrato Silla Sin Tales Trazo Tías Valencia Vecinos
    """.split()
)


# A sign, syndrome or scale named after someone ("signo de Bell", "criterios de El Escorial"),
# and a hyphen that joins the name to another ("síndrome de Tolosa-Hunt").
# A city names classifications and agreements too ("sistema de Sídney", "definición de Berlín",
# "Declaración de Helsinki", "criterios de Ámsterdam").
_EPONYM_OF = re.compile(
    rf"(?i:signos?|s[ií]ndromes?|criterios?|enfermedad|escalas?|test|maniobras?|reflejos?|fen[oó]menos?|"
    rf"clasificaci[oó]n|m[eé]todo|t[eé]cnica|par[aá]lisis|ley|[ií]ndice|sistema|definici[oó]n|consenso|"
    rf"declaraci[oó]n|protocolo|score|puntuaci[oó]n|regla|reglas){SP}+(?i:de|del){SP}+\Z"
)
# A capitalised word after a city abroad makes it part of another name ("de Boston Scientific").
_CAPITALISED_NEXT = re.compile(rf"{SP}+[{UPPER}]")
_NAME_GOES_ON = re.compile(rf"-[{UPPER}]")


def town_names(entries: Iterable[str]) -> set[str]:
    """The names a municipality list's ``entries`` are written by: each capitalised
    entry, and both halves of a dual one ("Maó-Mahón")."""
    names = set()
    for entry in entries:
        if entry[:1].isupper():
            names.add(entry)
            if entry.count("-") == 1:
                names.update(half for half in entry.split("-") if len(half) >= 3 and half[0].isupper())
    return names


_WORLD_CITIES = frozenset(WORLD_CITIES)


@cache
def _towns_by_first_word() -> dict[str, tuple[str, ...]]:
    """Municipality names (as spelt) and the cities abroad of
    :data:`~deid_crf.gazetteers.spanish.WORLD_CITIES`, by the :func:`_key` of their first
    word, longest first; without :data:`TOWNS_THAT_ARE_WORDS`."""
    from deid_crf.resources.gazetteer import DEFAULT_DIR, read_list

    names = town_names(entry for file in TOWN_LISTS for entry in read_list(DEFAULT_DIR / file))
    names.update(WORLD_CITIES)
    by_first: dict[str, list[str]] = {}
    for name in names - TOWNS_THAT_ARE_WORDS:
        if first := _FIRST_WORD.match(name):
            by_first.setdefault(_key(first.group()), []).append(name)
    return {word: tuple(sorted(group, key=len, reverse=True)) for word, group in by_first.items()}


# In a note written in lower case throughout, a municipality or a city abroad is looked up in
# lower case too, right after a lower-case preposition (``natural de alburquerque``, ``vive en
# mérida``, ``quesero en cabrales``), spelt exactly as listed but in lower case, at least four
# letters long, and not one of these: the names whose lower-case form the unlabeled clinical
# text writes as a word or a phrase at least once (``la unión`` gastroesofágica, ``en aras
# de``, ``en torre``; tests/test_recognizers.py checks the list against that text), beside
# :data:`TOWNS_THAT_ARE_WORDS`, nor a town that is a given name or a drug's name (``de maría``,
# ``de coca``), nor one after an eponym's head (``parálisis de bell``).
LOWER_CASE_TOWNS_THAT_ARE_WORDS = frozenset(
    """
    Abertura Algarrobo Antigüedad Aras Armilla Balneario Balones Bello Calles Casas Corral Cuenca Deba
    Emperador Entrena Estada Feria Garcia Gata Ginebra Lana Limpias Mejorada Milagro Mos Palmera Palo
    Paradas Pardos Pizarra Ponga Portas Remolinos Rena Ronda Rubio Sella Selva Sierra Sora Tejado Toro
    Torre Ventosa Vera
    """.split()
) | frozenset(
    (
        "Dos Hermanas",
        "El Arco",
        "El Franco",
        "El Grado",
        "El Molar",
        "El Oso",
        "El Paso",
        "El Tanque",
        "La Antigua",
        "La Carrera",
        "La Frontera",
        "La Garganta",
        "La Granja",
        "La Guardia",
        "La Parrilla",
        "La Unión",
        "Las Labores",
        "Los Altos",
        "Los Arcos",
        "Los Molares",
    )
)
_TOWNS_THAT_ARE_OTHER_WORDS = frozenset(("María", "Pedro", "Javier", "Coca"))  # and the drug: "consumo de coca"
_LOWER_CASE_PREPOSITION = re.compile(rf"(?<!\w)(?:en|de|desde|hasta|a|por|para){SP}+\Z")


def _lower_case_towns(text: str, words: list[tuple[int, str]]) -> Iterator[Match]:
    """The municipalities and cities abroad of a note in lower case (see above); ``words``:
    its :func:`_lower_case_words`."""
    by_first = _towns_by_first_word()
    position = 0
    for start, key in words:
        if start < position or (names := by_first.get(key)) is None:
            continue
        if not _LOWER_CASE_PREPOSITION.search(text, max(0, start - 8), start):
            continue
        if _EPONYM_OF.search(text, max(0, start - 30), start):
            continue
        for name in names:
            end = start + len(name)
            if text.startswith(name.lower(), start) and not (end < len(text) and is_word_char(text[end])):
                if len(name) >= 4 and name not in LOWER_CASE_TOWNS_THAT_ARE_WORDS | _TOWNS_THAT_ARE_OTHER_WORDS:
                    yield start, end, TERRITORY
                position = end
                break


def is_place_name_at(text: str, start: int) -> bool:
    """A listed municipality, city abroad, country or Spanish region (as the lists write
    it, in any case) begins at ``start`` and ends a word there."""
    return next(_listed_place_ends(text, start), None) is not None


def is_listed_place(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is a listed place name (see :func:`is_place_name_at`), whole."""
    return end in _listed_place_ends(text, start)


def is_town_before_its_country(text: str, end: int) -> bool:
    """A listed country's name in brackets follows ``end`` (``Pereira (Colombia)``)."""
    m = _COUNTRY_IN_BRACKETS.match(text, end + 1 if text[end : end + 1] == " " else end)
    return m is not None and normalize(m.group("country").strip()) in _countries()


def _listed_place_ends(text: str, start: int) -> Iterator[int]:
    """Where each listed place name (see :func:`is_place_name_at`) that begins at ``start``
    and ends a word there ends."""
    first = _FIRST_WORD.match(text, start)
    if first is None:
        return
    key = _key(first.group())
    for by_first in (_towns_by_first_word(), _countries_by_first_word(), _regions_by_first_word()):
        for name in by_first.get(key, ()):
            end = start + len(name)
            if _key(text[start:end]) == _key(name) and not (end < len(text) and is_word_char(text[end])):
                yield end


def find_towns_after_prepositions(text: str, words: list[tuple[int, str]] | None = None) -> Iterator[Match]:
    """Every municipality name (see :data:`TOWN_LISTS`) or city abroad, as listed or in
    capitals, right after a preposition; ``words``: see :func:`_find_listed`."""
    by_first = _towns_by_first_word()
    position = 0
    for start, key in _capitalised_words(text) if words is None else words:
        if start < position or (names := by_first.get(key)) is None:
            continue
        if not (preposition := _TOWN_PREPOSITION.search(text, max(0, start - 12), start)):
            continue
        if _EPONYM_OF.search(text, max(0, start - 30), start):
            continue
        # In capitals only after a preposition in capitals: "de CEA" is a tumour marker.
        capitals = preposition.group().isupper()
        for name in names:
            end = start + len(name)
            if text.startswith(name.upper() if capitals else name, start) and not (
                end < len(text) and (is_word_char(text[end]) or _NAME_GOES_ON.match(text, end))
            ):
                if name in _WORLD_CITIES and not capitals and _CAPITALISED_NEXT.match(text, end):
                    break
                yield start, end, TERRITORY
                position = end
                break


def find_home_places(text: str) -> Iterator[Match]:
    """The place after a cue of birth or residence (see the module)."""
    for m in _HOME_CUE.finditer(text):
        place = m.group("place")
        first = place.split()[0]
        if len(first) < 3 or normalize(first) in _NOT_PLACE:
            continue
        yield m.start("place"), m.end("place"), COUNTRY if normalize(place) in _countries() else TERRITORY


# (and two after a spaced dash, "Roldán - Torre-Pacheco": MEDDOCAN train and dev hold no
# TERRITORIO span with one)
_SLASHED = re.compile(rf"(?<=[^\W\d_])(?:{SP}?/{SP}?|{SP}+[-–]{SP}+)(?=[{UPPER}])")


# Two places the model joined over a conjunction ("los caladeros de Gran Sol y Terranova"):
# two spans, unless the whole is one listed name ("Castilla y León", "Trinidad y Tobago").
# MEDDOCAN train and dev hold one TERRITORIO span so, the notes none.
_JOINED_BY_AND = re.compile(rf"(?<=[^\W\d_]){SP}+(?:y|i|e){SP}+(?=[{UPPER}])")


def split_at_slashes(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with each TERRITORIO span of two names joined by a slash, or by a
    conjunction where the whole is no listed name, cut in two; and a person's span of two
    names joined by a spaced slash."""
    out = []
    for span in spans:
        start = span.start
        if span.type == TERRITORY:
            cuts = list(_SLASHED.finditer(text, span.start, span.end))
            if (
                not cuts
                and " " in text[span.start : span.end]
                and span.end not in _listed_place_ends(text, span.start)  # "Castilla y León" is one
            ):
                cuts = list(_JOINED_BY_AND.finditer(text, span.start, span.end))
            for m in cuts:
                out.append(PHISpan(start, m.start(), span.type, span.confidence, RULE))
                start = m.end()
        elif span.type in _PERSON_TYPES and "/" in text[span.start : span.end]:
            # two people after one label ("TCAE noche: Loli / Mari Ángeles"): two spans (MEDDOCAN
            # train and dev hold no name span with a slash)
            for m in _SPACED_SLASH.finditer(text, span.start, span.end):
                out.append(PHISpan(start, m.start(), span.type, span.confidence, RULE))
                start = m.end()
        out.append(span if start == span.start else PHISpan(start, span.end, span.type, span.confidence, RULE))
    return out


_PERSON_TYPES = frozenset(("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO", "FAMILIARES_SUJETO_ASISTENCIA"))
_SPACED_SLASH = re.compile(rf"(?<=[^\W\d_]){SP}+/{SP}+(?=[{UPPER}])")


# Two TERRITORIO spans the model cut one place into: joined by a particle ("Puerto" +
# "de" + "Sagunto"; MEDDOCAN train and dev never annotate two places so), or after a
# head that is no place alone ("Nuevo" + "León", "Cdad." + "Real"; two places next to
# each other otherwise are two spans there: "Laredo Cantabria", "Oviedo Asturias").
_PARTICLE_GAP = re.compile(rf"{SP}+(?:de|del|de{SP}+la|de{SP}+los|de{SP}+las){SP}+")
_PLACE_HEAD = re.compile(
    r"(?:Nuevo|Nueva|Nvo|Nva|Puerto|Port|Ciudad|Cdad|Villa|San|Santa|Sant|Santo|Alto|Alta|Gran|Vila|Castillo)",
)
_HEAD_GAP = re.compile(rf"\.?{SP}+")
# A Catalan article elided before a town: "L'Hospitalet de Llobregat", "L’Escala".
_ELIDED_ARTICLE = re.compile(r"(?<!\w)[Ll]['’]$")


# A place's first word and particle that the model left out after a preposition ("en Sama
# de Langreo", "hotel en Port de Pollença"): MEDDOCAN train and dev have no TERRITORIO span
# after a preposition, a capitalised word and a particle; the notes' guide halves have 2,
# both inside a hospital's name, which a span covers then.
_HEAD_BEFORE = re.compile(
    rf"(?<!\w)(?:en|a|desde|hasta|por){SP}+(?P<head>[{UPPER}][^\W\d_]+){SP}+"
    rf"(?:de|del|de{SP}+la|de{SP}+los|de{SP}+las|d['’]){SP}*\Z"
)


def joined_places(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping) with the TERRITORIO pieces of one place
    joined (see above), a Catalan article elided before a place taken into it, and a
    place's first word and particle that the model left out after a preposition."""
    out: list[PHISpan] = []
    for span in spans:
        if span.type == TERRITORY and _ELIDED_ARTICLE.search(text, max(0, span.start - 2), span.start):
            span = PHISpan(span.start - 2, span.end, span.type, span.confidence, RULE)
        elif (
            span.type == TERRITORY
            and (head := _HEAD_BEFORE.search(text, max(0, span.start - 40), span.start))
            and normalize(head.group("head")) not in _NOT_PLACE
            and (not out or out[-1].end <= head.start("head"))
        ):
            span = PHISpan(head.start("head"), span.end, span.type, span.confidence, RULE)
        previous = out[-1] if out else None
        if previous is not None and previous.type == TERRITORY and span.type == TERRITORY:
            if _PARTICLE_GAP.fullmatch(text, previous.end, span.start) or (
                _PLACE_HEAD.fullmatch(text, previous.start, previous.end)
                and _HEAD_GAP.fullmatch(text, previous.end, span.start)
            ):
                out[-1] = PHISpan(previous.start, span.end, TERRITORY, previous.confidence, RULE)
                continue
        out.append(span)
    return out


# A place's other name right after it, after a slash or in brackets, one name or two around a
# slash (``Villava/Atarrabia``, ``Sama (Llangréu / Langreo)``, ``San Vitero (Aliste)``: the
# town's name in the other language, or its district): TERRITORIO, as the guide splits write
# 3 of 3; MEDDOCAN writes a province so (``Mérida (Badajoz)``), which its model finds. A
# country there is the country rules' (PAIS); a span there already is left as it is.
_OTHER_NAME = rf"[{UPPER}][^\W\d_]+(?:-[{UPPER}]?[^\W\d_]+)?(?:{SP}+(?:(?:de|del){SP}+)?[{UPPER}][^\W\d_]+){{0,2}}"
_NAMES_AFTER_PLACE = re.compile(
    rf"(?:{SP}?/{SP}?(?P<slashed>{_OTHER_NAME})"
    rf"|{SP}*\({SP}*(?P<first>{_OTHER_NAME})(?:{SP}*/{SP}*(?P<second>{_OTHER_NAME}))?{SP}*\))(?![\w-])"
)


_NOT_OTHER_NAME = _NOT_PLACE


def other_names_of_places(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping) with a TERRITORIO span added for each other name
    of a place right after its TERRITORIO span (see above)."""
    coverage = Coverage((s.start, s.end) for s in spans)
    added = []
    for span in spans:
        if span.type != TERRITORY or not (m := _NAMES_AFTER_PLACE.match(text, span.end)):
            continue
        for group in ("slashed", "first", "second"):
            if m.group(group) is None:
                continue
            start, end = m.span(group)
            name = m.group(group)
            if name.isupper() and not text[span.start : span.end].isupper():
                continue  # an acronym in brackets: "Hospital Militar de Santiago (HMS)"
            words = {normalize(w) for w in name.split()}
            if words & _NOT_OTHER_NAME or normalize(name) in _countries() or coverage.overlaps(start, end):
                continue  # (a body's or a service's word: "Buenos Aires (Laboratorio de Referencia …)")
            added.append(PHISpan(start, end, TERRITORY, 1.0, RULE))
    return sorted([*spans, *added]) if added else list(spans)


# A foreign home address after its label, on one line: the street (its name and house
# number in either order), the postcode in its country's format and the town, then the
# country in brackets or after a comma (``Dom. habitual: Storgatan 14 B, 252 25 Helsingborg
# (Suecia)``, ``Domicilio habitual: Kerkstraat 118, 3581 RK Utrecht (Países Bajos)``,
# ``Address: 14 Elm Road, SW1A 1AA London, Reino Unido``). The street recognizer knows
# Spanish street types only, and the model reads a foreign postcode as a phone number
# (the notes' guide splits: 2 such lines, 6 spans). The country, which must not be Spain,
# is what makes the line an address; the country's own span comes from the country rules.
STREET = "CALLE"
_HOME_LABEL = (
    rf"(?i:domicilio|dom\.|direcci[oó]n|adre[çc]a|enderezo|helbidea|address|residencia)"
    rf"(?:{SP}+(?i:habitual|permanente|familiar|en{SP}+(?:el{SP}+)?(?:extranjero|origen)|de{SP}+origen|en{SP}+[{UPPER}]\w+))?"
    rf"{SP}*(?::|\.{{2,}}){SP}*"
)
_FOREIGN_STREET = (
    rf"(?:[{UPPER}][^\W\d_]+(?:[ -][\w'’.]+){{0,4}}?{SP}+[1-9]\d{{0,3}}(?:{SP}?[A-Za-z])?"
    # the number first, maybe a lower-case type and article before the name ("12 rue des Tisserands")
    rf"|[1-9]\d{{0,3}}[a-z]?{SP}+(?:[a-zé]+{SP}+){{0,2}}[{UPPER}][^\W\d_]+(?:{SP}+[{UPPER}][^\W\d_]+){{0,3}})(?![\w/])"
)
_FOREIGN_ADDRESS = re.compile(
    rf"{_HOME_LABEL}(?P<street>{_FOREIGN_STREET}),{SP}*"
    rf"(?P<postcode>(?=[A-Z0-9 -]*\d)[A-Z0-9][A-Z0-9 -]{{2,8}}[A-Z0-9])?{SP}+"
    rf"(?P<town>{_WORD}(?:{SP}+{_WORD}){{0,2}}){SP}*(?:\(|,{SP}*)(?P<country>{_WORD}(?:{SP}+{_WORD}){{0,2}})"
)
_SPAIN = frozenset({"espana", "spain", "espanya", "espainia"})
# (or the country named in the label, the town ending the line: "Adreça a Bèlgica ....
# Kerkstraat 41, 9000 Gent", "Domicilio en Alemania: Hauptstraße 12, 80331 München")
_FOREIGN_ADDRESS_AFTER_COUNTRY = re.compile(
    rf"(?i:domicilio|direcci[oó]n|adre[çc]a|enderezo|helbidea|address|residencia){SP}+(?i:en|a|in){SP}+"
    rf"(?P<country>{_WORD}(?:{SP}+{_WORD})?){SP}*(?::|\.{{2,}}){SP}*"
    rf"(?P<street>{_FOREIGN_STREET}),{SP}*"
    rf"(?P<postcode>(?=[A-Z0-9 -]*\d)[A-Z0-9][A-Z0-9 -]{{2,8}}[A-Z0-9])?{SP}+"
    rf"(?P<town>{_WORD}(?:{SP}+{_WORD}){{0,2}})(?={SP}*(?:$|[,.;(]))",
    re.MULTILINE,
)


# Where a label can begin: its first letters, in the three cases a note writes it. Found by
# str.find (every MEDDOCAN note has a "Domicilio:"; a search of the pattern everywhere costs
# ten times as much).
_LABEL_OPENINGS = tuple(
    form
    for word in ("domicilio", "dom.", "direcci", "adre", "enderezo", "helbidea", "address", "residencia")
    for form in (word, word.capitalize(), word.upper())
)


def _label_starts(text: str) -> list[int]:
    starts = []
    for opening in _LABEL_OPENINGS:
        at = text.find(opening)
        while at >= 0:
            starts.append(at)
            at = text.find(opening, at + 1)
    return sorted(starts)


def find_foreign_addresses(text: str) -> Iterator[Match]:
    """The street, postcode and town of a foreign home address line (see above)."""
    starts = _label_starts(text)
    found = list(finditer_at(_FOREIGN_ADDRESS, text, starts))
    streets = {m.start("street") for m in found}
    found += [m for m in finditer_at(_FOREIGN_ADDRESS_AFTER_COUNTRY, text, starts) if m.start("street") not in streets]
    for m in found:
        country = normalize(m.group("country"))
        if country in _SPAIN or country not in _countries():
            continue
        yield m.start("street"), m.end("street"), STREET
        if m.group("postcode"):
            yield m.start("postcode"), m.end("postcode"), TERRITORY
        yield m.start("town"), m.end("town"), TERRITORY
