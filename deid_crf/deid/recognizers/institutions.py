"""Public bodies named the same way in every note: health services, police, mutuas.

The model learns institution names from their context, and misses the bodies that
head a letter on a line of their own (``SERVIZO GALEGO DE SAÚDE``, ``Osakidetza``) or
that it has never seen (``Servicio Canario de la Salud``). These names are fixed, so
a list finds them: the health service and government of every autonomous community
(:data:`deid_crf.gazetteers.spanish.HEALTH_SERVICES`) and national police, insurers
and NGOs, private health insurers and banks
(:data:`~deid_crf.gazetteers.spanish.NATIONAL_BODIES`), in any letter case
as long as the text has a capital in it. Acronyms that are also ordinary words or
other things' acronyms (``SAS``, ``SES``, ``ICS``…) and governments named like their
territory (``Comunidad de Madrid``) are left to the model. A town council
(``Ayuntamiento de Terrassa``, ``Ajuntament de Reus``, ``Concello de Vigo``) is one
INSTITUCION span with its town (guideline M10.1).

Other bodies are named by a head noun and a proper name after it (``Servicios Sociales
Comunitarios de La Iruela``, ``Agencia Navarra de …``, ``Juzgado de Primera Instancia
nº 3 de …``, ``Cofradía de Pescadores de Cambados``, ``Colegio Oficial de Médicos de
…``, ``CEIP Miguel Hernández``) or, in Basque, by the name and a head after it
(``… Ikastetxea``): one INSTITUCION span when at least one capitalised word follows
the head (``los servicios sociales`` and ``el juzgado`` name no one), added after the
merge by :func:`organisations` where no span of the model's reaches outside it (one that
only adds the article before it, ``el Club …``, is replaced). Care homes and clubs count
(``Residència La Bonanova``, ``Club Patín Xixón``), not an old ``Residencia Sanitaria``,
a hospital. Heads that also
open a hospital's or a health centre's name (``Centro``, ``Fundación``, ``Instituto``)
are left to the model.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cache

from deid_crf.deid.recognizers.common import (
    INSTITUTION,
    SP,
    TERRITORY,
    Match,
    by_first_letter,
    finditer_at,
    has_rare_line_breaks,
    is_lower_case_note,
    listed_names,
    longest_first,
    with_short_spaces,
)
from deid_crf.deid.recognizers.places import _key, _towns_by_first_word, is_listed_place, is_town_before_its_country
from deid_crf.gazetteers.spanish import (
    AMBIGUOUS_HEALTH_ACRONYMS,
    HEALTH_SERVICES,
    NATIONAL_BODIES,
    STREET_TYPES,
    UPPER,
    normalize,
)
from deid_crf.text.spans import RULE, PHISpan

# Governments whose name is their territory's: TERRITORIO in running text.
_NAMED_LIKE_TERRITORY = frozenset({"Comunidad de Madrid", "Región de Murcia"})

_NAMES = longest_first(
    [
        *(
            name
            for names in HEALTH_SERVICES.values()
            for name in names
            if name not in AMBIGUOUS_HEALTH_ACRONYMS and name not in _NAMED_LIKE_TERRITORY
        ),
        *NATIONAL_BODIES,
    ]
)


def _flexible(name: str) -> str:
    """``name`` as a pattern: its words joined by any run of spaces or a hyphen (or an en
    dash between two words, which headers print for one: ``SERVICIO DE SALUD DE
    CASTILLA–LA MANCHA``; with spaces around it, it separates two names: ``Osakidetza –
    Servicio Vasco de Salud``), either apostrophe."""
    words = [re.escape(w).replace("'", "['’]") for w in re.split(r"[\s-]+", name)]
    return rf"(?:{SP}*-{SP}*|–|{SP}+)".join(words)


_TOWN = (
    rf"(?:(?:[Ll]['’]|(?:de|del|la|las|los|el|i|y|A|O|Sant|San|Santa){SP}+)?[{UPPER}][^\W\d_]+(?:-[{UPPER}][^\W\d_]+)?)"
)
# "Cáritas Diocesana de Terrassa", "Cruz Roja de Jaén": the body's local branch is one span;
# an insurer's company for a line of business too ("Mapfre Asistencia", "Allianz Partners",
# "Allianz Reiseversicherung": the notes, 3 of 3).
_BRANCH = (
    rf"(?:{SP}+(?:Asistencia|Assistance|Partners|Seguros|Travel|Insurance|Reiseversicherung|Versicherung))?"
    rf"(?:{SP}+(?:Diocesana|Interparroquial|Provincial|Insular|Local|Municipal|Comarcal))?(?:{SP}+de{SP}+{_TOWN})?"
)


# This long pattern, and those of _organisation and _health_centre, are compiled on
# first use, not at import (about 60 ms together, most of it the list of bodies): a
# process that never runs these recognizers (rules off, training) does not pay for
# them. The two long ones are compiled with SP as written only for a text that holds
# U+2028 or U+2029 (``rare_line_breaks``), otherwise with SP_SHORT, which finds the
# same matches there and compiles in a fraction of the time (see common.SP_SHORT).
@cache
def _body(rare_line_breaks: bool = False) -> re.Pattern[str]:
    pattern = r"(?<![\w-])(?i:" + by_first_letter([_flexible(n) for n in _NAMES]) + r")(?![\w-])" + _BRANCH
    return re.compile(pattern if rare_line_breaks else with_short_spaces(pattern))


def _first_words(names: Sequence[str]) -> re.Pattern[str]:
    """Where the first word of one of ``names`` begins, as :func:`_flexible` writes it,
    ignoring case, after what :func:`_body` and :func:`_organisation` want before a
    name (an empty match at each such place, so none is passed over): the only places
    where those patterns can match. A note without one (most short ones) never
    compiles them."""
    words = longest_first(_flexible(re.split(r"[\s-]+", name)[0]) for name in names)
    return re.compile(r"(?<![\w-])(?=(?i:" + by_first_letter(words) + "))")


_BODY_STARTS = _first_words(_NAMES)


_COUNCIL_WORDS = ("Ayuntamiento", "Ajuntament", "Concello")
_COUNCIL = re.compile(
    rf"(?<!\w)(?:Excmo\.?{SP}+)?(?:{'|'.join(_COUNCIL_WORDS)})"
    rf"(?:{SP}+de{SP}+|{SP}+d['’]){_TOWN}(?:{SP}+{_TOWN})*"
)


_HEADS = (
    "Servicios Sociales",
    "Serveis Socials",
    "Servizos Sociais",
    "Agencia",
    "Agència",
    "Consejo",
    "Consell",
    "Consejería",
    "Conselleria",
    "Consellería",
    "Colegio Oficial",
    "Col·legi Oficial",
    "Colexio Oficial",
    "Cofradía",
    "Confraria",
    "Asociación",
    "Associació",
    "Federación",
    "Juzgado",
    "Jutjat",
    "Tribunal",
    "Audiencia Provincial",
    "Inspección de Trabajo",
    "Inspecció de Treball",
    "Mutua",
    "Mútua",
    # health-service areas (the notes' convention 9: INSTITUCION, not a health centre)
    "Área Sanitaria",
    "Àrea Sanitària",
    "Área de Salud",
    "Àrea de Salut",
    "Distrito Sanitario",
    "Servicio Territorial",
    "Xulgado",
    "Fiscalía",
    "Registro Civil",
    "Xerencia",
    "Gerencia",
    "Consorci",
    "Consorcio",
    "Mancomunidad",
    # an island's government (``Cabildo de La Palma``, ``Consell Insular de Menorca``)
    "Cabildo",
    "Consell Insular",
    "Diputación",
    "Tesorería General",
    "Subdelegación",
    "Delegación",
    # a foreign state's mission, named with its country and its seat (dev8 decision 10)
    "Consulado General",
    "Consulado",
    "Consolat General",
    "Consolat",
    "Embajada",
    "Ambaixada",
    "Instituto de Medicina Legal",
    "Autoridad Portuaria",
    "Sector",
    "Dirección General",
    "Dirección Provincial",
    "Instituto Nacional",
    "Instituto de Educación Secundaria",
    "Institut",
    "IES",
    "CEIP",
    "Colegio",
    "Escuela",
    "Escola",
    "Universidad",
    "Universitat",
    "Universidade",
    "Facultad",
    "Policía",
    # care homes and clubs (the notes: ``Residència La Bonanova``, ``Club Patín Xixón``);
    # an old ``Residencia Sanitaria`` is a hospital (see find_organisations)
    "Residencia",
    "Residència",
    "Club",
    # banks named by their region ("Caja Rural de Canarias")
    "Caja Rural",
    "Caixa Rural",
    # social services, nurseries and biobanks ("Servei Social Bàsic de Reus", "Llar
    # d'Infants Municipal El Niu", "CEAS de León", "Biobanco Vasco")
    "Servicio Social",
    "Servei Social",
    "Servizo Social",
    "Àrea de Benestar Social",
    "CEAS",
    # a Catalan child-protection team ("EAIA del Baix Camp")
    "EAIA",
    "Llar d'Infants",
    "Escola Bressol",
    "Escuela Infantil",
    "Guardería",
    "Biobanco",
    "Biobanc",
)
# Words between the head and the name's capitals: "of"-like ones, after which another
# body's head is still part of this name ("… de l'Ajuntament de Terrassa"), and "and"
# ones, after which it opens another body ("Juzgado y Ayuntamiento de …").
_OF = (
    r"(?i:de|del|de{SP}+la|de{SP}+lo|de{SP}+los|de{SP}+las|da|do|das|dos|para|contra|sobre|la|las|los|el|nº|n\.º|núm\.)"
)
_AND = r"(?i:i|y|e)"
_ELIDED = r"(?i:d['’]|de{SP}+l['’]|l['’])"  # "de l'Ajuntament", "d'Osona"
# A capital that opens the next item of a letterhead, not a word of the name
# ("Universidad de Alcalá E-mail: …", "Universidad de Navarra Avda. Pío XII").
_NEXT_ITEM = (
    r"(?!(?i:e-?mail|correo|tel|tfno|teléfono|fax|hospital|servicio|servei|departamento|código|cp|edificio"
    r"|apartado|centro|clínica|unidad|complejo|ciudad de la justicia|"
    + "|".join(re.escape(t.rstrip("./")) for t in STREET_TYPES)
    + r")\b)"
)
_OTHER_BODY = r"(?!(?i:ayuntamiento|ajuntament|concello|" + "|".join(_flexible(h) for h in _HEADS) + r")\b)"
_NAME_WORD = rf"(?:[{UPPER}][^\W_]*(?:['’·.-][^\W_]+)*|\d{{1,3}})"


@cache
def _organisation(rare_line_breaks: bool = False) -> re.Pattern[str]:
    heads = by_first_letter([_flexible(h) for h in longest_first(_HEADS)])
    pattern = (
        rf"(?<![\w-])(?P<head>(?i:{heads}))"
        rf"(?P<name>(?:(?:{SP}+{_OF})*(?:{SP}+{_ELIDED}|{SP}+)"
        rf"{_NEXT_ITEM}{_NAME_WORD}|(?:{SP}+{_AND})+{SP}+{_NEXT_ITEM}{_OTHER_BODY}{_NAME_WORD})+)".replace("{SP}", SP)
    )
    return re.compile(pattern if rare_line_breaks else with_short_spaces(pattern))


_HEAD_STARTS = _first_words(_HEADS)


HEALTH_CENTRE = "CENTRO_SALUD"
HOSPITAL = "HOSPITAL"
# A primary-care centre's name runs on past what the model learnt from MEDDOCAN's
# "Centro de Salud X": "CAP Badalona-7 La Salut", "Centro de Salud La Orotava-Dehesa".
# Mental-health centres (CSM, USM), out-of-hours points (PAC: Punto de Atención
# Continuada) and Catalonia's sexual and reproductive health centres (ASSIR: Atenció a la
# Salut Sexual i Reproductiva, the midwives' primary care) are primary-care centres too.
_CENTRE_HEADS = (
    "Centro de Salud",
    "Centre de Salut",
    "Centro de Saúde",
    "Punto de Atención Continuada",
    # a primary-care team named as its centre ("Equip d'Atenció Primària Sant Andreu")
    "Equip d'Atenció Primària",
    "Equipo de Atención Primaria",
    "Unidad de Salud Mental",
    "Consultorio Local",
    "Consultorio Médico",
    "Consultorio Auxiliar",
    "Consultorio",
    "Ambulatorio",
)


@cache
def _health_centre() -> re.Pattern[str]:
    return re.compile(
        rf"(?<![\w-])(?P<head>(?i:{by_first_letter([_flexible(h) for h in _CENTRE_HEADS])})"
        rf"|CAP|CS|C\.{{SP}}?S\.|ABS|EAP|CSM|USM|PAC|ASSIR)"
        rf"(?P<name>(?:(?:{SP}+{_OF})*(?:{SP}+{_ELIDED}|{SP}+){_NEXT_ITEM}{_NAME_WORD})+)".replace("{SP}", SP)
    )


_BASQUE_CENTRE_WORD = "Zentroa"
_BASQUE_HEALTH_CENTRE = re.compile(
    rf"(?<![\w-])(?:[{UPPER}][^\W\d_]+{SP}+){{1,3}}Osasun{SP}+{_BASQUE_CENTRE_WORD}(?![\w-])"
)
# A Basque hospital's name ends with its head, in capitals on letterheads too
# (``DONOSTIA UNIBERTSITATE OSPITALEA``, ``Gurutzetako Unibertsitate Ospitalea``).
_BASQUE_HOSPITAL_WORD = re.compile("(?i:Ospitalea)")
_BASQUE_HOSPITAL = re.compile(rf"(?<![\w-])(?:[{UPPER}][^\W\d_]+{SP}+){{1,3}}{_BASQUE_HOSPITAL_WORD.pattern}(?![\w-])")
_BASQUE_HEADS = ("Ikastetxea", "Ikastola", "Eskola", "Institutua", "Udala")
_BASQUE_ORGANISATION = re.compile(
    rf"(?<![\w-])(?:[{UPPER}][^\W\d_]+{SP}+){{1,3}}(?:{'|'.join(_BASQUE_HEADS)})(?![\w-])"
)
# The Basque patterns and _COUNCIL are tried at every capital of a text, and match only
# where their head word is: looking for that word first (``in``, or a literal search)
# spares a text that has none, which is nearly every text, all of that work.


_CAPITAL_WORD = re.compile(rf"(?<![^\W\d_])[{UPPER}]")  # a capital that opens a word
# A name that makes its head a hospital's: "Residencia Sanitaria Virgen del Rocío".
_HOSPITAL_NAME = re.compile(rf"{SP}+(?i:sanitaria|sanitària|hospital)\b")


def _names_someone(m: re.Match[str]) -> bool:
    """A capital opens the head and a word of the name (``los servicios sociales``
    names no one)."""
    return m.group("head")[0].isupper() and _CAPITAL_WORD.search(m.group("name")) is not None


# A health area named by the towns it serves, listed ("Área Sanitaria de Lugo, A Mariña e
# Monforte de Lemos", "Área Sanitaria de Ourense, Verín e O Barco de Valdeorras"): the
# list is the area's name, one INSTITUCION span (the notes, 3 of 3; MEDDOCAN has none).
_AREA_HEAD = re.compile(rf"(?i:área|àrea){SP}+(?i:sanitaria|sanitària|de{SP}+salud|de{SP}+salut)")
_PLACE_NAME = (
    rf"(?:(?:A|O|As|Os|La|El|Los|Las|Les|L['’]){SP}*)?[{UPPER}][^\W\d_]+"
    rf"(?:{SP}+(?:de|del|da|do|de{SP}+la){SP}+(?:(?:A|O|La|El|Los|Las){SP}+)?[{UPPER}][^\W\d_]+)*"
)
# Listed with commas, or joined by Galician "e" or Catalan "i": after Spanish "y" alone a
# capital may open something else ("Área de Salud de Cáceres y Juan …").
_AREA_LIST = re.compile(rf"(?:(?:,{SP}+{_PLACE_NAME})+{SP}+(?:e|y|i)|{SP}+(?:e|i)){SP}+{_PLACE_NAME}(?![\w-])")


# Where a delegation or a foreign mission sits is part of its name ("Subdelegación del
# Gobierno en Huesca", "Consulado General de Marruecos en Madrid": the notes, 3 of 3).
_SEATED_HEAD = re.compile(r"(?i:subdelegación|delegación|consulado|consolat|embajada|ambaixada)\b")
_SEAT = re.compile(rf"{SP}+(?:en|a){SP}+(?![iy]{SP}){_TOWN}(?:{SP}+de{SP}+{_TOWN})?(?![\w-])")


def find_organisations(text: str) -> Iterator[Match]:
    """Bodies named by a head noun and a proper name (see the module)."""
    starts = [m.start() for m in _HEAD_STARTS.finditer(text)]
    for m in finditer_at(_organisation(has_rare_line_breaks(text)), text, starts) if starts else ():
        # A name in capitals goes with a head in capitals (an acronym's, "CEAS de León",
        # with any).
        if (
            _names_someone(m)
            and not (m.group("head").isupper() and m.group("head") not in _HEADS and not m.group("name").isupper())
            and not _HOSPITAL_NAME.match(m.group("name"))
        ):
            towns = _AREA_LIST.match(text, m.end()) if _AREA_HEAD.fullmatch(m.group("head")) else None
            if towns is None and _SEATED_HEAD.match(m.group("head")):
                towns = _SEAT.match(text, m.end())
            yield m.start(), towns.end() if towns else m.end(), INSTITUTION
    if any(head in text for head in _BASQUE_HEADS):
        for m in _BASQUE_ORGANISATION.finditer(text):
            yield m.start(), m.end(), INSTITUTION


# A note written in lower case throughout names its health centre so too (``cs valterra —
# consulta 9``, ``centro de saúde de ribadavia — consulta``): the head and at most three
# lower-case words, which must end the field (a dash, a dot, a bracket, the line's end).
_LOWER_CASE_HEALTH_CENTRE = re.compile(
    rf"(?<![\w-])(?:cs|c\.s\.|cap|centro{SP}+de{SP}+salud|centre{SP}+de{SP}+salut|centro{SP}+de{SP}+saúde)"
    rf"(?P<name>(?:{SP}+(?:de|del|d')?{SP}*)?[a-zñáéíóúàèòïüç][\w'-]+(?:{SP}[a-zñáéíóúàèòïüç][\w'-]+){{0,2}})"
    rf"(?={SP}*(?:[—–·,;.:(|]|$))",
    re.MULTILINE,
)
_LOWER_CASE_STOP = re.compile(r"(?<![\w-])(?:en|con|por|para|y|e|que|el|la|los|las|se|no|le|lo|su|sus)(?![\w-])")


def find_health_centres(text: str) -> Iterator[Match]:
    """Primary-care centres named by a head and a proper name (``CAP …``, ``Centro de
    Salud …``, ``Consultorio Local de …``, Basque ``… Osasun Zentroa``), and Basque
    hospitals (``… Ospitalea``)."""
    for m in _health_centre().finditer(text):
        if _names_someone(m):
            yield m.start(), m.end(), HEALTH_CENTRE
    if is_lower_case_note(text):
        for m in _LOWER_CASE_HEALTH_CENTRE.finditer(text):
            if not _LOWER_CASE_STOP.search(m.group("name")):
                yield m.start(), m.end("name"), HEALTH_CENTRE
    if _BASQUE_CENTRE_WORD in text:
        for m in _BASQUE_HEALTH_CENTRE.finditer(text):
            yield m.start(), m.end(), HEALTH_CENTRE
    if _BASQUE_HOSPITAL_WORD.search(text):
        for m in _BASQUE_HOSPITAL.finditer(text):
            yield m.start(), m.end(), HOSPITAL


# Honorifics a letterhead puts before a body's name (``Excmo. Ayuntamiento de …``): not part
# of the name, as titles are not part of a person's (guideline M1.1). ``Ilustre`` is: a
# professional body's name holds it (``Ilustre Colegio Oficial de Médicos de Cáceres``, the
# guide splits 4 of 5; the rule layer widens a span over it, ``rules._HONORIFIC_BEFORE``).
_HONORIFIC = re.compile(rf"(?:Ilustrísim[oa]|Ilm[oa]\.|Excelentísim[oa]|Excm[oa]\.|Il·lm\.|Excm\.){SP}+(?=[{UPPER}])")


def _without_honorific(text: str, span: PHISpan) -> PHISpan:
    m = _HONORIFIC.match(text, span.start) if span.type == INSTITUTION else None
    return PHISpan(m.end(), span.end, span.type, span.confidence, RULE) if m and m.end() < span.end else span


# A model's span that opens on a lower-case article or preposition before a body's head
# (``el Club Patín Xixón`` typed TERRITORIO, Galician ``pola Fundación …``).
_LEADING_FUNCTION_WORD = re.compile(rf"(?-i:el|la|los|las|del|al|en|pola|polo|da|do|de){SP}+")


def organisations(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) with each body :func:`find_organisations`
    names made one INSTITUCION span, and each centre :func:`find_health_centres` names
    one CENTRO_SALUD span (a Basque ``… Ospitalea``, one HOSPITAL span), where no span reaches outside it: the model's
    pieces of it (``La Iruela`` typed TERRITORIO) are replaced; a longer span of the
    model's (``Asociación … en México``) is kept as it is. It runs after the merge
    because it needs the model's spans. An honorific (``Excmo.``) opening an INSTITUCION
    span is cut off first."""
    out = sorted(_without_honorific(text, s) for s in spans)
    starts = [s.start for s in out]
    for start, end, type_ in sorted([*find_organisations(text), *find_health_centres(text)]):
        first = bisect_left(starts, start)
        if first and out[first - 1].end > start:
            before = out[first - 1]
            if before.end > end or not _LEADING_FUNCTION_WORD.fullmatch(text, before.start, start):
                continue  # a span before reaches into it
            first -= 1  # the model's span opened on the article before the name: replaced
        last = bisect_left(starts, end)
        if last > first and out[last - 1].end > end:
            continue  # a span inside runs past its end
        out[first:last] = [PHISpan(start, end, type_, 1.0, RULE)]
        starts[first:last] = [start]
    return out


_LISTED = frozenset(_NAMES)


@cache
def listed_body_keys() -> frozenset[str]:
    """The listed bodies' names and acronyms, normalised (``sergas``, ``osakidetza``)."""
    return frozenset(normalize(name) for names in HEALTH_SERVICES.values() for name in names) | frozenset(
        normalize(name) for name in NATIONAL_BODIES
    )


_SHORT = 5  # an acronym this long in lower case is a word ("sem." a week)
# A body's name after a hospital's head is the hospital's ("Hospital Cruz Roja").
_HOSPITAL_HEAD_BEFORE = re.compile(rf"(?i:hospital|clínica|policlínica|residencia){SP}+$")


# A body's branch named by its region right after it ("Cáritas Bizkaia", "CEAR Euskadi").
_REGION_AFTER = re.compile(
    rf"{SP}(?P<region>[{UPPER}][^\W\d_]+(?:(?:-|{SP}|{SP}-{SP})[{UPPER}][^\W\d_]+){{0,2}})(?![\w-])"
)
_REGION_PART_END = re.compile(rf"(?=(?:-|{SP}|{SP}-{SP})[{UPPER}])")


@cache
def _regions() -> frozenset[str]:
    """Spanish provinces, communities and islands (normalised), from the committed lists."""
    return listed_names(("provinces.txt", "autonomous_communities.txt", "islands.txt"), _region_key)


def _region_key(name: str) -> str:
    """``Castilla - La Mancha`` and ``Castilla-La Mancha`` alike."""
    return re.sub(r"\s*-\s*", "-", normalize(name))


# A charity's local branch named by its town right after it, without "de" (``Teleasistencia de
# Cruz Roja Aranda``, ``Cruz Roja Lorca``): one span, as the guide splits write 2 of 2 (with
# "de" the branch is _BRANCH's).
_CHARITIES = frozenset(("Cruz Roja", "Creu Roja", "Cruz Vermella", "Cáritas", "Càritas"))
_TOWN_AFTER = re.compile(rf"{SP}+(?P<town>[{UPPER}][^\W\d_]+)(?![\w-])")


def _with_local_branch(text: str, name: str, end: int) -> int:
    """``end`` moved past a listed town (or the first word of one) right after a charity's name."""
    if name not in _CHARITIES or not (m := _TOWN_AFTER.match(text, end)):
        return end
    return m.end() if _key(m.group("town")) in _towns_by_first_word() else end


def _with_region(text: str, end: int) -> int:
    """``end`` moved past the longest region's name (up to three capitalised words)
    right after it, if there is one."""
    m = _REGION_AFTER.match(text, end)
    if m is None:
        return end
    region = m.group("region")
    for stop in [len(region), *reversed([p.start() for p in _REGION_PART_END.finditer(region)])]:
        if _region_key(region[:stop]) in _regions():
            return m.start("region") + stop
    return end


# A health area, management or department that a header names as one of its segments, its
# place or places with it (``ÁREA DE GESTIÓN SANITARIA SUR DE GRANADA``, ``sergas · área
# sanitaria de ourense, verín e o barco de valdeorras``, ``Xerencia de Xestión Integrada de
# Lugo, Cervo e Monforte``, ``Conselleria de Sanitat — Departament de Salut de la Marina
# Baixa``, ``Servicio Murciano de Salud - Área IV Noroeste``): one INSTITUCION span from its
# head to the segment's end, the line's or a separator's (`` — ``, `` · ``, ``|``, a bracket,
# a wide gap; one before it may be `` - `` too), as the guide splits write
# them (9 of 9, which the model cut at a place name or after it); MEDDOCAN has none. Only
# a short segment without a stop, a colon or a semicolon: a header's, not a sentence.
_HEALTH_AREA_HEAD = (
    rf"(?:área|àrea|area){SP}+(?:(?-i:[IVX]+)(?!\w)|de{SP}+gesti[óo]n{SP}+sanit[àa]ri[ao]|sanitari[ao]|sanitària|de{SP}+salu[dt]"
    rf"|integrada|de{SP}+atenci[óo]n{SP}+(?:primaria|integrada))"
    rf"|(?:gerencia|gerència|xerencia){SP}+(?:de|d['’])"
    rf"|(?:departament|departamento){SP}+de{SP}+salu[dt]|distrito{SP}+sanitario|sector{SP}+sanitario"
)
_HEADER_SEPARATOR = rf"(?:{SP}+[—·|]|{SP}*[()]|[ ]{{3}}|\t)"
_HEALTH_AREA = re.compile(
    rf"(?:^|(?<=[—·|]){SP}*|(?<=^{SP})|(?<={SP}-{SP}))(?P<area>(?i:{_HEALTH_AREA_HEAD})[^\n.:;·|—()]{{0,80}}?)(?={_HEADER_SEPARATOR}|{SP}*$)",
    re.MULTILINE,
)
# (looked for as plain substrings in their three cases: a scan of the pattern ignoring case
# costs three times as much on a short note)
_HEALTH_AREA_WORDS = tuple(
    form
    for word in ("área", "àrea", "area", "gerenc", "gerènc", "xerenc", "departament", "distrito", "sector")
    for form in (word, word.capitalize(), word.upper())
)


# A Basque integrated health organisation, ``OSI`` before its name or ``ESI`` after it
# (``OSI Donostialdea``, ``Debabarrena ESI``, ``OSI BILBAO-BASURTO``, ``ESI Barrualde-Galdakao``):
# INSTITUCION, as the guide splits write all 6, in a note of the Basque health service's
# (``Osakidetza`` in it); MEDDOCAN has none.
_OSAKIDETZA = re.compile(r"(?i:osakidetza)")
_BASQUE_AREA_NAME = rf"[{UPPER}][^\W\d_]+(?:-[{UPPER}][^\W\d_]+)*"
_BASQUE_HEALTH_ORGANISATION = re.compile(
    rf"(?<![\w-])(?:(?:OSI|ESI){SP}+{_BASQUE_AREA_NAME}|{_BASQUE_AREA_NAME}{SP}+(?:ESI|OSI))(?![\w-])"
)


def find_health_areas(text: str) -> Iterator[Match]:
    """Health areas, managements and departments named as a header's segment, and Basque
    integrated health organisations (see above)."""
    if "SI" in text and _OSAKIDETZA.search(text):  # ("ESI 3" alone is a triage level)
        for m in _BASQUE_HEALTH_ORGANISATION.finditer(text):
            yield m.start(), m.end(), INSTITUTION
    if not any(word in text for word in _HEALTH_AREA_WORDS):
        return
    for m in _HEALTH_AREA.finditer(text):
        if "  " not in m.group("area") and m.group("area")[-1:].isalpha():
            yield m.start("area"), m.end("area"), INSTITUTION


def find_institutions(text: str) -> Iterator[Match]:
    """Health services, national bodies and town councils named in ``text``; a body
    of the list takes a region named right after it (``Cáritas Bizkaia``)."""
    starts = [m.start() for m in _BODY_STARTS.finditer(text)]
    for m in finditer_at(_body(has_rare_line_breaks(text)), text, starts) if starts else ():
        name = m.group()
        # all in lower case: a word, unless the whole note is written so ("servicio canario
        # de la salud", "rioja salud"; the short ones stay words: "salud", "cear")
        if not any(ch.isupper() for ch in name) and (len(name) <= _SHORT or not is_lower_case_note(text)):
            continue
        if len(name) <= _SHORT and not name.isupper() and name not in _LISTED:
            continue
        if _HOSPITAL_HEAD_BEFORE.search(text, max(0, m.start() - 20), m.start()):
            continue
        yield m.start(), _with_local_branch(text, m.group(), _with_region(text, m.end())), INSTITUTION
    if any(word in text for word in _COUNCIL_WORDS):
        for m in _COUNCIL.finditer(text):
            yield m.start(), m.end(), INSTITUTION


# A Catalan body's or hospital's name goes on over an elided article or preposition
# (``Departament de Salut d'Elx``, ``Hospital General Universitari d'Elx``, ``Gerència
# Territorial de Terres de l'Ebre``): the model stops before it, or cuts the place after it
# into a span of its own. The span takes the elided word and the capitalised word after it.
_ELISION_AFTER = re.compile(
    rf"(?:{SP}+(?:d['’]|de{SP}+l['’])|(?<=[dl]['’]))[{UPPER}][^\W\d_]*(?:[-·][^\W\d_]+)*(?![\w'’])"
)
_ELIDING_TYPES = frozenset((INSTITUTION, HOSPITAL, "CENTRO_SALUD"))


def names_over_elisions(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping one another) with each body's, hospital's or
    health centre's span run on over an elided ``d'``/``l'`` and the name after it (see
    :data:`_ELISION_AFTER`), on one line; the spans inside the new end (the place, the
    name's second half) are dropped, and none may cross it."""
    out = list(spans)
    i = 0
    while i < len(out):
        span = out[i]
        m = _ELISION_AFTER.match(text, span.end) if span.type in _ELIDING_TYPES else None
        if m and "\n" not in text[span.end : m.end()]:
            _run_on(out, i, m.end())
        i += 1
    return out


def _run_on(spans: list[PHISpan], i: int, end: int) -> None:
    """``spans[i]`` run on to ``end`` in place, the spans inside dropped, unless a span
    crosses ``end`` (``spans`` sorted, not overlapping one another)."""
    inside = i + 1
    while inside < len(spans) and spans[inside].end <= end:
        inside += 1
    if inside == len(spans) or spans[inside].start >= end:
        spans[i:inside] = [replace(spans[i], end=end, source=RULE, text="", replacement=None)]


# A health area or department named with its place after a dash or in brackets, or after
# "de" where the model cut it off (``Área de Salud II – Cartagena``, ``ÁREA DE SALUD III
# (LORCA)``, ``DEPARTAMENT DE SALUT`` + ``DE GANDIA``): one INSTITUCION span, as the guide
# splits write it (4 of 4; MEDDOCAN has none).
_AREA_SPAN = re.compile(
    rf"(?i:área|àrea|departament|departamento|gerencia|gerència|distrito|sector){SP}+(?i:sanitari[oa]|sanitària|de{SP}+salu[dt])"
    rf"(?:{SP}+[IVX]+)?"
)
_AREA_PLACE_AFTER = re.compile(
    rf"(?:{SP}*[–-]{SP}*(?P<dashed>{_PLACE_NAME})|{SP}*\((?P<bracketed>{_PLACE_NAME})\)|{SP}+(?i:de|d['’]){SP}*(?P<of>{_PLACE_NAME}))"
    rf"(?![\w-])"
)


# A hospital named after a person, a saint or a place of its own and then its town after "de"
# (``Hospital Álvaro Cunqueiro de Vigo``, ``Hospital Tres Mares de Reinosa``, ``Ospedale
# Niguarda de Milán``): two spans, the hospital and the TERRITORIO, as the guide splits write
# them (14 of 14). A hospital whose name is its town (``Hospital Universitario de Getafe``,
# ``Complejo Hospitalario de Navarra``) stays whole, and so does a name whose "de" belongs to
# it (``Hospital Nuestra Señora de Candelaria``, ``Príncipe de Asturias``); a saint's does
# not (``en el Hospital San Jorge de Huesca``, the guide splits' dev15).
_HOSPITAL_THEN_TOWN = re.compile(
    rf"(?P<name>.+[^\W\d_]){SP}+(?:de|del){SP}+(?P<town>[{UPPER}][^\W\d_]+(?:{SP}+(?:de{SP}+)?[{UPPER}][^\W\d_]+)?)"
)
_GENERIC_HOSPITAL_WORDS = frozenset(
    normalize(w)
    for w in """hospital hospitalario hospitalaria hospitalari hospitalari universitario universitaria
    universitari universitària general clínico clínica clínic comarcal complejo complexo complex
    asistencial sanitario sanitaria provincial regional central materno infantil maternoinfantil
    centro médico medico consorcio insular militar alta resolución y i e de del la las los el
    policlínica ciudad área area nacional fundación fundació universidad universitat consorci consorcio h
    distrital district cantonal municipal departamental county""".split()
)
# Saints whose name holds "de" and a place (``Hospital San Pedro de Alcántara``, ``San Juan de
# Dios``): the hospital's name, whole, though the place is a town.
_SAINTS_OF = frozenset(
    normalize(w) for w in "Alcántara Dios Ávila Asís Borja Padua Loyola Calasanz Aquino Paúl Sales Jesús Lima".split()
)
_SAINT_BEFORE = re.compile(rf"(?:San|Santa|Sant|Santo|Sao|São){SP}+[^\W\d_]+\Z")
# (a title's name goes on with "de": "Príncipe de Asturias", "Virgen de la Victoria")
_TITLES_BEFORE_OF = frozenset(normalize(w) for w in "virgen señora príncipe princesa infanta infante reina rey".split())
# Running text, where the notes name where a patient was treated (``en el Hospital Tres Mares
# de Reinosa``); a letterhead's or an author's affiliation line writes the hospital's name
# with its town (MEDDOCAN: ``Hospital Carlos Haya de Málaga``), left whole.
# (also where a wrapped line breaks before the name: "en el⏎Royal United Hospital de Bath")
_PREPOSITION_BEFORE = re.compile(rf"(?<!\w)(?i:en|del|al|desde|por|hasta)(?:{SP}+(?i:el|la))?(?:{SP}+|{SP}*\n{SP}*)\Z")


@cache
def municipalities() -> frozenset[str]:
    """Normalised Spanish municipalities (the committed list; not provinces or regions,
    which name a body's scope: ``Red de Salud Mental de Bizkaia``)."""
    return listed_names(("municipalities.txt",), normalize)


def hospitals_without_their_town(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with each HOSPITAL span that ends in ``de`` and a town after a hospital's
    own name (see above) cut before ``de``, the town a TERRITORIO span. The town is a
    listed municipality, or a city abroad (``Hospital de Santa Maria de Lisboa``), or a
    place before its country in brackets (``Clínica Comfamiliar de Pereira (Colombia)``) or
    one the text names elsewhere as a place (``natural de Bath (Reino Unido)`` … ``en el
    Royal United Hospital de Bath``: the guide splits' dev18 3 of 3). (Care homes are
    left whole: the guide splits write 3 with their town apart and 2 with it in.)"""
    out: list[PHISpan] = []
    places = None
    for span in spans:
        m = _HOSPITAL_THEN_TOWN.fullmatch(text, span.start, span.end) if span.type == HOSPITAL else None
        if m is not None and _PREPOSITION_BEFORE.search(text, max(0, span.start - 12), span.start):
            words = [normalize(w) for w in re.findall(r"[^\W\d_]+", m.group("name"))]
            saint = normalize(m.group("town")) in _SAINTS_OF and _SAINT_BEFORE.search(m.group("name"))
            own = any(w not in _GENERIC_HOSPITAL_WORDS for w in words) and words[-1] not in _TITLES_BEFORE_OF
            if own and not saint:
                town = m.group("town")
                if normalize(town) in municipalities() or is_listed_place(text, *m.span("town")):
                    town_is_known = True
                else:
                    if places is None:
                        places = {normalize(text[s.start : s.end]) for s in spans if s.type == TERRITORY}
                    town_is_known = normalize(town) in places or any(  # here or where the text names it again
                        is_town_before_its_country(text, again.end())
                        for again in re.finditer(rf"(?<!\w){re.escape(town)}(?!\w)", text)
                    )
                if town_is_known:
                    out.append(replace(span, end=m.end("name"), source=RULE, text="", replacement=None))
                    out.append(PHISpan(m.start("town"), m.end("town"), TERRITORY, span.confidence, RULE))
                    continue
        out.append(span)
    return out


def areas_with_their_place(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping one another) with each health area's or
    department's INSTITUCION span (see above) run on over its place after a dash, in
    brackets, or after ``de`` where a span of the model's holds ``de`` and the place;
    the spans inside are dropped, and none may cross the new end."""
    out = list(spans)
    i = 0
    while i < len(out):
        span = out[i]
        if span.type == INSTITUTION and _AREA_SPAN.fullmatch(text, span.start, span.end):
            m = _AREA_PLACE_AFTER.match(text, span.end)
            following = out[i + 1] if i + 1 < len(out) else None
            # after "de", only where the model's span is "de" and the place ("DE GANDIA")
            of_ok = (
                following is not None and following.start == span.end + 1 and m is not None and following.end == m.end()
            )
            if m and "\n" not in text[span.end : m.end()] and (m.group("of") is None or of_ok):
                _run_on(out, i, m.end())
        i += 1
    return out
