"""Dates, as the MEDDOCAN guidelines (2.3.6) annotate them.

Found, most complete form first (a later form never overlaps an earlier one):

* written dates with a day or a year, in Spanish, Catalan or Galician, with the
  weekday before them (P6.3): ``15 de marzo de 2016``, ``lunes 8 de abril de 2024``,
  ``martes, 13 de febrero de 2024``, ``13 de juny de 2023``, ``2 d'abril de 2024``,
  ``6-abril-2004``, ``diciembre-08``, ``oct-2023``; two months sharing a year as one
  span, as MEDDOCAN train does (``febrero y abril de 2002``); the first day of an
  interval on its own (M6.1: ``24`` of ``del 24 al 28 de septiembre``);
* a month name alone after a preposition (``en junio``);
* day, Roman-numeral month and year (``3-III-2020``, ``29-II-2024``);
* ISO dates (``2024-03-05``) and day/month/year ones (``03/03/1946``, ``05.03.24``),
  checked by :class:`datetime.date`;
* a weekday with a day number (``jueves 8``) or after ``el``/``del`` (``el lunes``), and
  a two-digit day/month after ``el`` (``colocada el 19/02``);
* feasts (P6.5: ``Navidad``, ``Semana Santa``, ``día de la madre``, with a year after them),
  seasons (P6.2) with their year or after a preposition (``en verano``, ``a l'estiu``), and
  decades (P6.4: ``años 60``, ``90s``);
* a year after a preposition or in brackets (``en 1995``, ``(2002)``, ``el año 2000``
  with ``año`` in the span).

Times are never part of a date (N6.1: ``13 de febrero de 2024`` of ``… 2024 16:42``).
A date that names a hospital or a street (``Hospital 12 de Octubre``, ``Avda. 1 de
Mayo``) or the date of a law (``RD 1299/2006, de 10 de noviembre``) is none.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import date

from deid_crf.deid.recognizers import number_words
from deid_crf.deid.recognizers.common import (
    DATE,
    LINE_BREAKS,
    SP,
    Match,
    by_first_letter,
    finditer_at,
    line_before,
    longest_first,
    merged,
    starts_before,
)
from deid_crf.gazetteers.spanish import (
    CATALAN_MONTHS,
    CATALAN_WEEKDAYS,
    GALICIAN_MONTHS,
    GALICIAN_WEEKDAYS,
    HOLIDAYS,
    MONTH_ABBREVIATIONS,
    MONTHS,
    ROMAN_MONTHS,
    SEASONS,
    SEPTEMBER_VARIANTS,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAYS,
)
from deid_crf.text.spans import RULE, PHISpan, first_fit

Span = tuple[int, int]

_MONTH_NAMES = longest_first([*MONTHS, *SEPTEMBER_VARIANTS, *CATALAN_MONTHS, *GALICIAN_MONTHS])
_MONTH = "|".join([*_MONTH_NAMES, *MONTH_ABBREVIATIONS])
_WEEKDAY_NAMES = longest_first([*WEEKDAYS, "miercoles", "sabado", *CATALAN_WEEKDAYS, *GALICIAN_WEEKDAYS])
_WEEKDAY = "|".join(_WEEKDAY_NAMES)
# The weekday opening a date in figures (P6.3): "martes 25/02/2025", "vie. 07/03/25",
# "dilluns, 15-VII-2024"; abbreviated only there, where "mar" cannot be the sea.
_WEEKDAY_ABBREVIATIONS = "|".join(WEEKDAY_ABBREVIATIONS)
_WEEKDAY_BEFORE = rf"(?:(?i:{_WEEKDAY}|(?:{_WEEKDAY_ABBREVIATIONS})\.?),?{SP}+)?"
_OF = rf"(?:{SP}+de{SP}+|{SP}+d['’]{SP}*)"  # "de", Catalan "d'"
_YEAR_OF = rf"(?:{SP}+de(?:l)?(?:{SP}+año)?{SP}+|[-/ ])"
_END = r"(?![\w/]|[.,]\d)"
_CONTEXT_WIDTH = 30

_WRITTEN = re.compile(
    # a weekday, or its abbreviation before the day ("jue, 11 dic 2025": an e-mail header's)
    rf"(?<![\w/-])(?:(?P<weekday>{_WEEKDAY}|(?:{_WEEKDAY_ABBREVIATIONS})\.?(?=,?{SP}+\d)),?{SP}+)?"
    rf"(?:(?P<day>\d{{1,2}})(?:{_OF}|[-/ ]))?(?P<month>{_MONTH})\.?"
    rf"(?:{_YEAR_OF}(?P<year>\d{{4}}|\d{{2}}){_END})?(?!\w)",
    re.IGNORECASE,
)
_TWO_MONTHS = re.compile(
    rf"(?<![\w/-])(?:{'|'.join(_MONTH_NAMES)}){SP}+[ye]{SP}+(?:{'|'.join(_MONTH_NAMES)}){_YEAR_OF}(?:\d{{4}}){_END}",
    re.IGNORECASE,
)
# The first day of an interval is a date of its own (M6.1): "del 24 al 28 de septiembre",
# Galician "do 2 ao 19 de xaneiro", two days of one month with a word or two between
# ("con salida el 2 y regreso el 16 de abril").
_INTERVAL_START = re.compile(
    rf"\b(?:del|do|el|desde{SP}+el|entre{SP}+el|entre{SP}+o){SP}+(?P<date>\d{{1,2}}){SP}+"
    rf"(?:al|ao|hasta{SP}+el|ata{SP}+o|(?:y|e)(?:{SP}+[a-záéíóúñ]+){{0,2}}{SP}+(?:el|o)){SP}+\d{{1,2}}"
    rf"{_OF}(?:{_MONTH})(?!\w)",
    re.IGNORECASE,
)
# A day alone, without its month, where only a day of the month can be meant: a part of
# the day before it ("la madrugada del 18") or an interval of two days ("del 21 al 22",
# Galician "do 4 ao 5"); MEDDOCAN train and dev have neither (its bare "el día 12" counts
# the days of a treatment, so that is left alone), the notes' guide halves 3, all dates.
# (Found from each "del"/"do" and a digit, which few texts hold: the patterns are tried
# only there, see _days_alone.)
_DEL_AND_DIGIT = re.compile(rf"d(?:el|o){SP}+\d")
_PART_OF_DAY_BEFORE = re.compile(rf"(?<!\w)(?i:madrugada|noche|mañana|tarde|mediodía){SP}+\Z")
_NOT_A_DAY_AFTER = rf"(?![\d/%º]|[.,]\d|{SP}*%|{SP}*(?:de|del|d['’]|al|mg|años|anys|anos|días|meses|semanas|horas|h)\b)"
_DAY_OF_PART = re.compile(rf"del{SP}+(?P<date>\d{{1,2}}){_NOT_A_DAY_AFTER}")
_DAYS_INTERVAL = re.compile(
    rf"(?:del|do){SP}+(?P<date>\d{{1,2}}){SP}+(?:al|ao){SP}+(?P<date2>\d{{1,2}}){_NOT_A_DAY_AFTER}"
)
_ROMAN = re.compile(
    rf"(?<![\w/.-]){_WEEKDAY_BEFORE}(\d{{1,2}})([-/. ])({'|'.join(sorted(ROMAN_MONTHS, key=len, reverse=True))})\2"
    rf"(\d{{4}}|\d{{2}})(?![\w]|[/.-]\d)"
)
_ISO = re.compile(rf"(?<![\w/.-]){_WEEKDAY_BEFORE}((?:19|20)\d\d)([-/.])(\d{{1,2}})\2(\d{{1,2}})(?![\w]|[/.-]\d)")
_NUMERIC = re.compile(rf"(?<![\w/.-]){_WEEKDAY_BEFORE}(\d{{1,2}})([/.-])(\d{{1,2}})\2(\d{{4}}|\d{{2}})(?![\w]|[/.-]\d)")
# (a weekday's abbreviation too, but "mar", the sea, and "dom", a home's label: "revisión jue
# 26 o vie 27", the guide splits 2 of 2)
_DAY_ABBREVIATIONS = "|".join(a for a in WEEKDAY_ABBREVIATIONS if len(a) > 2 and a not in ("mar", "dom"))
_WEEKDAY_DAY = re.compile(
    rf"(?<![\w])(?:{_WEEKDAY}|(?:{_DAY_ABBREVIATIONS})\.?),?{SP}+(\d{{1,2}})(?![\w]|[/.:,]\d)", re.IGNORECASE
)
# A weekday's name or its abbreviation and a day/month without a year, anywhere (``Venres
# 13/02 (Dra. …)``, ``Mércores 18/02: EVA 3``, a nursing table's ``| jue 12/02 |``): a date,
# whatever follows.
_WEEKDAY_DAY_MONTH = re.compile(
    rf"(?<![\w])(?:{_WEEKDAY}|(?:{_WEEKDAY_ABBREVIATIONS})\.?),?{SP}+(\d{{1,2}})/(\d{{1,2}})(?![\w]|[/.,-]\d|{SP}*%)",
    re.IGNORECASE,
)
# (also after "al", "un", "ese"/"este", "el mismo"/"el próximo", and over a wrapped line: "que la cita sea un
# martes o un jueves", "el mismo lunes", "no esperar al lunes", "refiere que el⏎viernes": the
# notes annotate all 5 such days; MEDDOCAN train and dev hold no weekday so; "los lunes", a
# weekday that recurs, stays a word)
_WEEKDAY_ALONE = re.compile(
    rf"(?:\b(?:el|del|al|un|ese|este)(?:{SP}+(?:mismo|próximo|proximo|pasado))?(?:{SP}+|{SP}*\n{SP}*)|\()"
    rf"(?P<date>{_WEEKDAY})(?!\w)",
    re.IGNORECASE,
)
# A weekday alone opening its line, an entry's heading in progress notes and nursing logs:
# alone on the line or before a dash or a middle dot (``Miércoles⏎Mejor. Ya sabe…``,
# ``domingo — guardia``, ``sábado · M · Enf. …``). The guide splits: 3 of 3 (dev11, dev16,
# dev17); MEDDOCAN train and dev: none.
_HEADING_WEEKDAY = re.compile(
    rf"^[ \t]*(?P<date>{_WEEKDAY})(?=[ \t]*$|[ \t]+[—–·-][ \t])", re.IGNORECASE | re.MULTILINE
)
# A day/month without a year after "el" (``colocada el 19/02``, ``EL 17/02``, ``el 10/3``),
# but not a fraction (``el 2/3 de los pacientes``).
_DAY_MONTH = re.compile(rf"\b(?i:el|del|día){SP}+(?P<date>(\d\d?)/(\d\d?))(?![\w]|[/.,-]\d|{SP}*(?:%|de\b|del\b))")
# and the end of an interval of two (``fototerapia del 30/10 al 2/11``; not a concentration's
# ``bicarbonato al 2/3 Molar``, which no ``del`` and day/month opens)
# (tried at each day/month's first digit: the anchors' day_slashes)
_INTERVAL_END_DAY_MONTH = re.compile(
    rf"(?<=\b[Dd][Ee][Ll] )\d\d?/\d\d?{SP}+(?i:al){SP}+(?P<date>(\d\d?)/(\d\d?))(?![\w]|[/.,-]\d|{SP}*(?:%|de\b|del\b))"
)
# A two-digit day/month alone in a table cell (``| 03/03 |``) or opening a line before a
# time, a dash or a bracket, maybe after the shift's letter (``13/01 9:40 — Primer día
# en planta``, ``04/03 M — Tranquila``, ``06/04 (sábado) —``): a ward list's, a
# progress note's or a nursing record's date.
_CELL_DAY_MONTH = re.compile(
    r"(?:^|(?<=\|))[ \t]*(?P<date>(\d\d)/(\d\d))"
    r"(?=[ \t]*(?:\||$)|[ \t]+\d{1,2}[:h.]\d\d|[ \t]+(?:[MTN][ \t]+)?[—–-][ \t]|[ \t]+\()",
    re.MULTILINE,
)
# (and a day or a month of one digit, alone in a table row's first cell: "| 9/11 | T |"; not a
# fraction of two digits, "| 1/2 |", nor a score in a later cell, "| Kapandji | 8/10 |")
_CELL_SHORT_DAY_MONTH = re.compile(r"^[ \t]*\|[ \t]*(?P<date>(\d\d?)/(\d\d?))(?=[ \t]*\|)", re.MULTILINE)
# A day and a Roman month alone opening a line, an entry's heading ("24/XI⏎Ha dormido", "29-X.
# Trabajo Social."): the guide splits 2 of 2; MEDDOCAN none.
_HEADING_DAY_ROMAN = re.compile(
    r"^[ \t]*(?P<date>(\d{1,2})[-/](?:XII|XI|IX|X|VIII|VII|VI|IV|V|III|II|I))(?=[ \t]*(?:$|[.—–·:]|-[ \t]))",
    re.MULTILINE,
)
# A two-digit day/month alone anywhere (``(IQ 20/02)``, ``Ecocardiograma TT (16/10)``,
# ``última cura 09/10``): on the notes' guide halves all 43 such strings are a date (or in
# one). On MEDDOCAN train and dev the 7 are a visual acuity, a pain score or a pressure
# (``AV de 10/10``, ``EVA 10/10``, ``13/11 mmHg``): left out by a measure's word before or
# a unit after.
_PADDED_DAY_MONTH = re.compile(
    rf"(?<![\w/.,:-])(?P<date>(\d\d)/(\d\d))(?![\w/]|[.,:-]\d|{SP}*(?:%|mm|cm|mg|ml|kg|(?:h|de|del)\b))"
)
_MEASURE_BEFORE = re.compile(
    r"\b(?:eva|ena|av|agudeza|visual|intensidad|dolor|pio|po|ta|tas|tad|presi[oó]n|escala|fuerza|balance|glasgow"
    r"|sat|fc|fr|puntuaci[oó]n|score|grado|ratio|cociente)\b"
)
_MEASURE_WIDTH = 40


# A weekday (or its abbreviation) and the day, maybe with the month, opening a progress
# note's entry, before its dash and maybe the time or alone on its line (``vie 18 — …``, ``mar 15-oct — …``,
# ``miér 4 feb — …``, ``Dom 02/11 – …``, ``Mar 04/11 09:15 – …``, ``viernes 28/11 — …``, a
# Roman month: ``Miér 4-III — …``).
_ENTRY_WEEKDAY_DAY = re.compile(
    rf"^[ \t]*(?P<date>(?i:{_WEEKDAY_ABBREVIATIONS}|{_WEEKDAY})\.?,?{SP}+(?P<day>\d{{1,2}})"
    rf"(?:(?:-|{SP}+)(?i:{'|'.join(MONTH_ABBREVIATIONS)})\.?|-(?:XII|XI|IX|X|VIII|VII|VI|IV|V|III|II|I)"
    rf"|/(?P<month>\d{{1,2}})(?!/\d))?)"
    # (or alone on its line, an entry's heading: "Miércoles 4-XI⏎Encefalopatía grado I")
    rf"(?={SP}+(?:\d{{1,2}}[:h.]\d\d{SP}+)?[—–-]{SP}|{SP}*$)",
    re.MULTILINE,
)
# A Basque date, the year first: ``2025eko otsailaren 26a``, ``2024ko martxoaren 3an``
# (P6.1).
_BASQUE_MONTHS = (
    "urtarrilaren otsailaren martxoaren apirilaren maiatzaren ekainaren uztailaren abuztuaren irailaren urriaren"
    " azaroaren abenduaren"
).split()
_BASQUE_WEEKDAY = r"(?i:astelehena|asteartea|asteazkena|osteguna|ostirala|larunbata|igandea)"
_BASQUE = re.compile(
    rf"(?<![\w/.-])(?:19|20)\d\d(?:e?ko)?{SP}+(?i:{'|'.join(_BASQUE_MONTHS)}){SP}+(?P<day>\d{{1,2}})"
    rf"(?:ean|etik|era|an|ko|a|e)?(?!\w)"
    # and its weekday after it ("2025eko apirilaren 8an, asteartea")
    rf"(?:,{SP}*{_BASQUE_WEEKDAY}(?!\w))?"
)
# A Basque day and month without a year, maybe with its weekday (a nursing log's ``azaroaren
# 25a, asteazkena``): the guide splits' dev15 1 of 1; MEDDOCAN has no Basque date.
_BASQUE_DAY_MONTH = re.compile(
    rf"(?<![\w/.-])(?i:{'|'.join(_BASQUE_MONTHS)}){SP}+(?P<day>\d{{1,2}})"
    rf"(?:ean|etik|era|an|ko|a|e)?(?!\w|[/.:,]\d)(?:,{SP}*{_BASQUE_WEEKDAY}(?!\w))?"
)
# A Basque weekday written after a date or before it (``2026/11/24, asteartea``, ``osteguna,
# 26-XI-2026``): part of the date, as the guide splits' dev15 writes both.
_BASQUE_WEEKDAY_AFTER = re.compile(rf",{SP}*{_BASQUE_WEEKDAY}(?!\w)")
_BASQUE_WEEKDAY_BEFORE = re.compile(rf"(?<!\w){_BASQUE_WEEKDAY},{SP}*\Z")
# (their stems in the three cases, looked for as plain substrings first: few texts hold one)
_BASQUE_WEEKDAY_STEMS = tuple(
    form
    for stem in ("aste", "ostegun", "ostiral", "larunbat", "igande")
    for form in (stem, stem.capitalize(), stem.upper())
)
# Dates in words, as dictated notes and formal letters write them (P6.1): ``veintiocho de
# enero de dos mil veinticinco``, ``a veinte de febrero``, ``jueves dieciséis``, and a
# year in words after a preposition (``diagnosticada en dos mil diecisiete``).
# What may follow a number in words that is a date: punctuation, the end of the line or
# a word that does not make it a quantity (``dos mil pacientes`` is none; dictation
# writes out "punto" and "coma").
_NOT_A_QUANTITY = (
    rf"(?!\w)(?!{SP}+(?!(?:y|e|de|del|a|al|en|con|por|tras|que|cuando|se|fue|le|la|lo|el|punto|coma)\b)\w)"
)
_DATE_IN_WORDS = re.compile(
    rf"(?<!\w)(?:(?:{_WEEKDAY}),?{SP}+)?(?:{number_words.DAY_OF_MONTH}){_OF}(?:{'|'.join(_MONTH_NAMES)})"
    # after a day and a month the number is the year, whatever follows it ("… de dos mil
    # veinticinco paciente …", dictated without punctuation), after "del" also its last two
    # digits ("once de junio del ochenta y tres")
    rf"(?:{SP}+de(?:l)?{SP}+(?:(?:19|20)\d\d|{number_words.YEAR})|{SP}+del{SP}+{number_words.BELOW_HUNDRED})?(?!\w)",
    re.IGNORECASE,
)
_YEAR_IN_WORDS = re.compile(rf"(?<!\w)(?P<date>(?:año{SP}+)?{number_words.YEAR}){_NOT_A_QUANTITY}", re.IGNORECASE)
_WEEKDAY_DAY_WORD = re.compile(
    rf"(?<!\w)(?:{_WEEKDAY}),?{SP}+(?:{number_words.DAY_OF_MONTH}){_NOT_A_QUANTITY}", re.IGNORECASE
)
# A season with its year (P6.2: ``Otoño del 2017``, ``verano de 2023``), or a season
# after a preposition or a determiner (``en verano``, ``desde el verano``, ``durante el
# invierno``, Catalan ``a l'estiu``), not a capitalised ``Verano`` in a name.
_SEASON_BEFORE = (
    *("en", "el", "la", "este", "esta", "durante", "pasado", "pasada", "próximo", "próxima", "cada", "al", "del"),
    *("na", "no", "o", "aquest", "aquell", "per"),
)
_AFTER_SEASON_WORD = "|".join(
    [rf"(?<=\W{w}{SP})" for w in _SEASON_BEFORE] + [r"(?<=\Wl')", r"(?<=\Wl’)", rf"(?<=^en{SP})"]
)
_SEASON = re.compile(
    rf"(?<!\w)(?P<date>(?:{'|'.join(SEASONS)})(?:{SP}+de(?:l)?{SP}+(?:año{SP}+)?(?:(?:19|20)\d\d(?!\w)|{number_words.YEAR}))"
    rf"|(?:{_AFTER_SEASON_WORD})(?:{'|'.join(SEASONS)}))(?!\w)(?!{SP}+de\b)",
    re.IGNORECASE | re.MULTILINE,
)
# A feast, with its year when one follows (``Diada de 2023``, ``Navidad del 2019``).
_LONGEST_FIRST = sorted(HOLIDAYS, key=len, reverse=True)  # "Año Nuevo chino" before "Año Nuevo"
_HOLIDAY = re.compile(
    rf"(?<!\w)(?:{'|'.join(h.replace(' ', SP + '+') for h in _LONGEST_FIRST)})(?:{SP}+del?{SP}+(?:19|20)\d\d)?(?!\w)",
    re.IGNORECASE,
)
_DECADE = re.compile(rf"\blos{SP}+(?P<date>años{SP}+[2-9]0s?|[2-9]0s)(?!\w|{SP}*(?:años|%))", re.IGNORECASE)
# A year is a date after these words; "año" joins the span as MEDDOCAN annotates it,
# "el" before it does not.
_YEAR = re.compile(
    rf"(?<![\w/.-])(?:el{SP}+(?=año))?(?P<date>(?:año{SP}+)?(?:19|20)\d\d)(?![\w/]|[.,-]\d)", re.IGNORECASE
)
_BEFORE_YEAR = re.compile(r"(?:\b(?:en|desde|hasta|entre|durante|y|de|del|el|año|nacimiento:?)\s+|\()$")
# A month name alone is a date after these words ("en junio", "entre marzo y abril").
_BEFORE_MONTH = re.compile(r"(?:\b(?:en|desde|hasta|entre|durante|y|inicios de|finales de|mediados de))\s+$")
# A month in lower case alone is a date after "de" too ("el ingreso de agosto") and in a
# list ("tres ingresos (febrero, julio y el actual)"); a capitalised one there may name a
# street or a feast ("Plaza de Mayo").
# (Not after "mes de", which MEDDOCAN train takes into the span once: "mes de abril".)
_BEFORE_LOWER_CASE_MONTH = re.compile(r"(?:(?<!\bmes )\bde\s+|[(,]\s*)$")


def _month_alone_is_a_date(text: str, m: re.Match[str]) -> bool:
    before = _words_before(text, m.start("month"))
    if _BEFORE_MONTH.search(before):
        return True
    return m.group("month").islower() and _BEFORE_LOWER_CASE_MONTH.search(before) is not None


# Names that hold a date: "Hospital Universitario 12 de Octubre", "Avda. 1 de Mayo", "Col, 1 de Mayo".
_NAME_BEFORE = re.compile(
    r"(?:\bhospital(?:\s+(?:universitario|general|materno[- ]infantil|cl[ií]nico))*|\bh\.(?:\s?u\.)?|\bhu"
    r"|\bcalle|\bc/|\bavda\.?|\bavenida|\bplaza|\bpza\.?|\bpaseo|\bcol\.?|\bcolonia|\bbarrio|\bcolegio|\bcentro(?:\s+de\s+salud)?)[\s,]*$"
)
# The date of a law or decree: "Ley 14/2007, de 3 de julio".
_LAW_BEFORE = re.compile(r"\d+/\d{2,4},?\s+de\s+$")


def _valid(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def _full_year(text: str) -> int:
    return int(text) + 2000 if len(text) == 2 else int(text)


def _words_before(text: str, start: int) -> str:
    """The words before ``start``, across a line break: text wrapped after "en" still
    says "en junio" (the span itself stays on its line)."""
    return LINE_BREAKS.sub(" ", text[max(0, start - _CONTEXT_WIDTH) : start]).lower()


# Where dates can begin. Trying each pattern at every position of a text costs more
# than all its matches: a month or weekday name, a number in words, "año", a season,
# a feast's first word or a digit opens or ends the first word of every date, and these
# are found in two scans of the text; each pattern is then tried only where its matches
# can begin (tests/test_rule_prefilters.py checks each against the search everywhere).
_WEEKDAY_WORDS = [*_WEEKDAY_NAMES, *_WEEKDAY_ABBREVIATIONS.split("|")]
_HOLIDAY_FIRST_WORDS = longest_first(h.split()[0] for h in HOLIDAYS)
_ANCHOR_WORDS = longest_first(
    [*_MONTH_NAMES, *MONTH_ABBREVIATIONS, *_WEEKDAY_WORDS, *SEASONS, *_HOLIDAY_FIRST_WORDS, "mil", "año"]
)
# A whole word (what every anchor is in a date: spaces, marks or "d'" around it).
_ANCHOR = re.compile(rf"(?<!\w){by_first_letter(_ANCHOR_WORDS)}(?!\w)", re.IGNORECASE)
# A digit that can open a date in figures (the lookbehind of _ROMAN, _ISO, _NUMERIC and
# _YEAR; a digit first, so that ``re`` skips to the next digit without trying the rest).
_DIGIT = re.compile(r"\d(?<![\w/.-]\d)")
# The day of a day/month (_DAY_MONTH, _CELL_DAY_MONTH) and the tens of a decade (_DECADE).
_DAY_SLASH = re.compile(r"\d(?<![\w/.-]\d)\d?/\d")
_DECADE_TENS = re.compile(r"[2-9](?<![\w/.-][2-9])0")
_MONTH_WORD = re.compile(f"(?:{_MONTH})", re.IGNORECASE)
_WEEKDAY_WORD = re.compile(f"(?:{'|'.join(_WEEKDAY_WORDS)})", re.IGNORECASE)
_SEASON_WORD = re.compile(f"(?:{'|'.join(SEASONS)})", re.IGNORECASE)
_HOLIDAY_WORD = re.compile(f"(?:{'|'.join(_HOLIDAY_FIRST_WORDS)})", re.IGNORECASE)
_MIL = re.compile("mil", re.IGNORECASE)
_YEAR_WORD = re.compile("año", re.IGNORECASE)


@dataclass(frozen=True)
class Anchors:
    """The starts of the words (and digits) of one text that dates are built around."""

    digits: list[int]
    figures: list[int]  # digits and weekdays: a date in figures opens with either
    day_slashes: list[int]
    decade_tens: list[int]
    months: list[int]
    weekdays: list[int]
    seasons: list[int]
    holidays: list[int]
    thousands: list[int]  # "mil" (a year in words)
    years: list[int]  # "año"


def anchors(text: str) -> Anchors:
    """:class:`Anchors` of ``text``."""
    # (lists by position, not a dict keyed by the patterns: a re.Pattern hashes its whole
    # compiled code at every look-up)
    kinds = (_MONTH_WORD, _WEEKDAY_WORD, _SEASON_WORD, _HOLIDAY_WORD, _MIL, _YEAR_WORD)
    found: list[list[int]] = [[] for _ in kinds]
    for m in _ANCHOR.finditer(text):
        word = m.group()
        for kind, starts in zip(kinds, found, strict=True):  # a word may be two kinds: "mar", "domingo"
            if kind.fullmatch(word):
                starts.append(m.start())
    months, weekdays, seasons, holidays, thousands, years = found
    digits = [m.start() for m in _DIGIT.finditer(text)]
    return Anchors(
        digits=digits,
        figures=merged(digits, weekdays) if weekdays else digits,
        # (both open with a digit where _DIGIT matches)
        day_slashes=[m.start() for m in _DAY_SLASH.finditer(text)] if digits else [],
        decade_tens=[m.start() for m in _DECADE_TENS.finditer(text)] if digits else [],
        months=months,
        weekdays=weekdays,
        seasons=seasons,
        holidays=holidays,
        thousands=thousands,
        years=years,
    )


# Where each pattern can begin. The number of words walked back is how many words a
# match can hold before its anchor word: "lunes, 15 de | marzo" (3), "desde el 24 hasta
# el 28 de | septiembre" (7), "jueves treinta y uno de | enero" (5), "dos | mil",
# "el | año 2000", "los años | 60", "el | 19/02" and "| 03/03 |" (the spaces and the bar
# before a digit).
STARTS: dict[re.Pattern[str], Callable[[str, Anchors], list[int]]] = {
    _WRITTEN: lambda text, a: starts_before(text, a.months, 3),
    _TWO_MONTHS: lambda text, a: a.months,
    _INTERVAL_START: lambda text, a: starts_before(text, a.months, 9),
    _ROMAN: lambda text, a: a.figures,
    _ISO: lambda text, a: a.figures,
    _NUMERIC: lambda text, a: a.figures,
    _WEEKDAY_DAY: lambda text, a: a.weekdays,
    _WEEKDAY_DAY_MONTH: lambda text, a: a.weekdays,
    _WEEKDAY_ALONE: lambda text, a: starts_before(text, a.weekdays, 2),
    _HEADING_WEEKDAY: lambda text, a: starts_before(text, a.weekdays, 1),
    _ENTRY_WEEKDAY_DAY: lambda text, a: starts_before(text, a.weekdays, 1),
    _BASQUE: lambda text, a: a.digits,
    _DAY_MONTH: lambda text, a: starts_before(text, a.day_slashes, 1),
    _CELL_DAY_MONTH: lambda text, a: starts_before(text, a.day_slashes, 1),
    _CELL_SHORT_DAY_MONTH: lambda text, a: starts_before(text, a.day_slashes, 1),
    _HEADING_DAY_ROMAN: lambda text, a: starts_before(text, a.digits, 1),
    _PADDED_DAY_MONTH: lambda text, a: a.day_slashes,
    _DATE_IN_WORDS: lambda text, a: starts_before(text, a.months, 5),
    _WEEKDAY_DAY_WORD: lambda text, a: a.weekdays,
    _YEAR_IN_WORDS: lambda text, a: merged(a.years, starts_before(text, a.thousands, 1)),
    _SEASON: lambda text, a: a.seasons,
    _HOLIDAY: lambda text, a: a.holidays,
    _DECADE: lambda text, a: starts_before(text, a.decade_tens, 2),
    _YEAR: lambda text, a: merged(a.digits, starts_before(text, a.years, 1)),
}


# (keyed by the patterns' ids: a re.Pattern hashes its whole compiled code at every look-up)
_STARTS_BY_ID = {id(pattern): starts for pattern, starts in STARTS.items()}


def _matches(pattern: re.Pattern[str], text: str, found: Anchors) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``, trying ``pattern`` only where its matches can begin."""
    starts = _STARTS_BY_ID[id(pattern)](text, found)
    return finditer_at(pattern, text, starts) if starts else iter(())


def _written(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_WRITTEN, text, found):
        before = line_before(text, m.start(), _CONTEXT_WIDTH)
        if _NAME_BEFORE.search(before) or _LAW_BEFORE.search(before):
            continue
        if m.group("day") and not 1 <= int(m.group("day")) <= 31:
            continue
        abbreviated = m.group("month").lower() in MONTH_ABBREVIATIONS
        alone = m.group("day") is None and m.group("year") is None
        if alone and (abbreviated or not _month_alone_is_a_date(text, m)):
            continue
        end = m.end()
        if m.group("year") is None and not abbreviated and text[end - 1] == ".":
            end -= 1  # a full stop after a month name ends the sentence
        yield m.start(), end


def _two_months(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_TWO_MONTHS, text, found):
        yield m.start(), m.end()


def _interval_starts(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_INTERVAL_START, text, found):
        if 1 <= int(m.group("date")) <= 31:
            yield m.start("date"), m.end("date")


def _roman(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_ROMAN, text, found):
        if _valid(_full_year(m.group(4)), ROMAN_MONTHS.index(m.group(3)) + 1, int(m.group(1))):
            yield m.start(), m.end()


def _iso(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_ISO, text, found):
        if _valid(int(m.group(1)), int(m.group(3)), int(m.group(4))):
            yield m.start(), m.end()


def _numeric(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_NUMERIC, text, found):
        if _valid(_full_year(m.group(4)), int(m.group(3)), int(m.group(1))):
            yield m.start(), m.end()


def _weekdays(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_WEEKDAY_DAY, text, found):
        if 1 <= int(m.group(1)) <= 31:
            yield m.start(), m.end()
    for m in _matches(_WEEKDAY_DAY_MONTH, text, found):
        if _valid(2000, int(m.group(2)), int(m.group(1))):
            yield m.start(), m.end()
    for m in _matches(_WEEKDAY_ALONE, text, found):
        yield m.start("date"), m.end("date")
    for m in _matches(_HEADING_WEEKDAY, text, found):
        yield m.start("date"), m.end("date")


def _basque(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_BASQUE, text, found):
        if 1 <= int(m.group("day")) <= 31:
            yield m.start(), m.end()
    if "aren" in text:  # every Basque month's genitive ends so (few texts hold one)
        for m in _BASQUE_DAY_MONTH.finditer(text):
            if 1 <= int(m.group("day")) <= 31:
                yield m.start(), m.end()


def _entry_weekdays(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_ENTRY_WEEKDAY_DAY, text, found):
        month = m.group("month")
        if _valid(2000, int(month), int(m.group("day"))) if month else 1 <= int(m.group("day")) <= 31:
            yield m.start("date"), m.end("date")


# A day of the month alone after "el"/"del", in a note that writes dates (``se realiza CPRE el
# 5``, ``TC del 9 sin necrosis``, ``Hemocultivos del 16``, ``regreso previsto el 28``): the
# notes' guide splits annotate all 10 such days as dates. MEDDOCAN writes a treatment's days
# with ``día`` (``el día 12``, left unannotated there), which this leaves alone, as it does a
# number with a unit or a percentage, one after a word that counts things (``regla del 15``,
# ``ciclo``, ``cama``), an ordinal (``el 7.o día``, ``el 5° año``), a count of days (``el 20 día
# postoperatorio``), a day before its month (the written date's) and a year after a month
# (``noviembre del 23``).
_EL_AND_DIGIT = re.compile(rf"(?<!\w)[Dd]?[Ee]l{SP}+\d")
_BARE_DAY = re.compile(
    rf"[Dd]?[Ee]l{SP}+(?P<date>\d{{1,2}})(?![\w/:°-]|[.,]\w|{SP}*[%°]|{SP}*,{SP}*\d)"
    rf"(?!\s*(?:de|del|d['’]|al|a|y|e|o|u|años|anys|anos|día|dia|días|dias|meses|mes|semanas|horas|h|min|mg|g|kg|ml"
    rf"|cm|mm|puntos|lpm|rpm|x|por|veces|{_MONTH})\b)",
    re.IGNORECASE,
)
_COUNTING_WORD_BEFORE = re.compile(
    rf"(?<!\w)(?i:regla|grado|tipo|nivel|ciclo|cama|habitación|hab\.?|box|fase|estadio|escala|puntuación|puesto"
    rf"|número|n[º°]|línea|planta|puerta|portal|piso|autobús|bus|carretera|km|paso|apartado|artículo|página"
    rf"|versión|sala|quirófano|mes|año|pieza|piezas|diente|dientes|molar|exodoncia|segmento|segmentectomía|caso"
    rf"|casos|grupo|vértebra|costilla|arco|par|{_MONTH})(?:{SP}+(?:en|de))?{SP}+\Z"
    # or a list of numbers: "el 15 y el 25", "el 12 del 13", "ni en el 2"
    rf"|(?:\d|(?<!\w)(?:y|o|ni|e|u)(?:{SP}+en)?){SP}+\Z"
)


def _bare_days(text: str, found: Anchors) -> Iterator[Span]:
    if not (found.day_slashes or found.months):
        return  # a note without any other date: a bare number is something else
    for m in _EL_AND_DIGIT.finditer(text):
        day = _BARE_DAY.match(text, m.start())
        if day is None or not 1 <= int(day.group("date")) <= 31:
            continue
        if _COUNTING_WORD_BEFORE.search(text, max(0, m.start() - 24), m.start()):
            continue
        yield day.span("date")


# The day's number after "el día" (``El día 9 presenta un cuadro confusional``, ``el mismo día
# 15``, Catalan ``el mateix dia 7``) in a note that writes a date with its day and month in
# words (``3 de noviembre``): the guide splits annotate the number, 16 of 16 in such notes.
# MEDDOCAN counts a stay's or a treatment's days so (``en el día 12 se apreció``, ``el día 2
# con líquido``: 10 in train and dev, all unannotated), and none of its documents that do
# writes such a date. Not before ``de``, ``del`` (``el día 19 de ingreso``, a written date's
# ``el día 20 de noviembre``), ``post…`` (``postoperatorio``, ``postrasplante``) or a unit.
_DIA_AND_DAY = re.compile(
    rf"(?<!\w)(?:el|del|mismo|mateix){SP}+d[ií]a{SP}+(?P<date>\d{{1,2}})(?![\w/:°º%.,-]\d|[\w/°º%-])"
    rf"(?!{SP}*(?:de|del|d['’]|post\w*|\+|años|h)(?!\w))",
    re.IGNORECASE,
)
_DAY_AND_MONTH_IN_WORDS = re.compile(
    rf"(?<![\w/])\d{{1,2}}{SP}+(?:de{SP}+|d['’])?(?:{'|'.join(_MONTH_NAMES)})(?!\w)", re.IGNORECASE
)


_DIA_WORDS = ("día", "dia", "Día", "Dia", "DÍA", "DIA")


def _days_after_dia(text: str, found: Anchors) -> Iterator[Span]:
    """A day's number after ``el día`` in a note that writes a day and a month (see above)."""
    if not found.months or not any(word in text for word in _DIA_WORDS) or not _DAY_AND_MONTH_IN_WORDS.search(text):
        return  # (plain substrings first: few texts hold "el día N")
    for m in _DIA_AND_DAY.finditer(text):
        if 1 <= int(m.group("date")) <= 31:
            yield m.span("date")


def _days_alone(text: str, found: Anchors) -> Iterator[Span]:
    """A day alone after a part of the day or in an interval of two days (see above)."""
    for m in _DEL_AND_DIGIT.finditer(text):
        start = m.start()
        if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            continue
        if interval := _DAYS_INTERVAL.match(text, start):
            first, second = int(interval.group("date")), int(interval.group("date2"))
            if 1 <= first < second <= 31:
                yield interval.span("date")
                yield interval.span("date2")
        elif (day := _DAY_OF_PART.match(text, start)) and _PART_OF_DAY_BEFORE.search(text, max(0, start - 12), start):
            if 1 <= int(day.group("date")) <= 31:
                yield day.span("date")


def _day_month(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_DAY_MONTH, text, found):
        if _valid(2000, int(m.group(3)), int(m.group(2))):
            yield m.start("date"), m.end("date")
    for start in found.day_slashes:
        if (m := _INTERVAL_END_DAY_MONTH.match(text, start)) and _valid(2000, int(m.group(3)), int(m.group(2))):
            yield m.start("date"), m.end("date")


def _cell_day_month(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_CELL_DAY_MONTH, text, found):
        if _valid(2000, int(m.group(3)), int(m.group(2))):
            yield m.start("date"), m.end("date")
    if "|" in text:
        for m in _matches(_CELL_SHORT_DAY_MONTH, text, found):
            if len(m.group("date")) > 3 and _valid(2000, int(m.group(3)), int(m.group(2))):
                yield m.start("date"), m.end("date")
    for m in _matches(_HEADING_DAY_ROMAN, text, found):
        if 1 <= int(m.group(2)) <= 31:
            yield m.start("date"), m.end("date")


def _padded_day_month(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_PADDED_DAY_MONTH, text, found):
        if _valid(2000, int(m.group(3)), int(m.group(2))) and not _MEASURE_BEFORE.search(
            line_before(text, m.start(), _MEASURE_WIDTH)
        ):
            yield m.start("date"), m.end("date")


def _in_words(text: str, found: Anchors) -> Iterator[Span]:
    for pattern in (_DATE_IN_WORDS, _WEEKDAY_DAY_WORD):
        for m in _matches(pattern, text, found):
            before = line_before(text, m.start(), _CONTEXT_WIDTH)
            if not (_NAME_BEFORE.search(before) or _LAW_BEFORE.search(before)):
                yield m.start(), m.end()
    for m in _matches(_YEAR_IN_WORDS, text, found):
        if _BEFORE_YEAR.search(line_before(text, m.start(), _CONTEXT_WIDTH)):
            yield m.start("date"), m.end("date")


def _seasons(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_SEASON, text, found):
        yield m.start("date"), m.end("date")


def _named_days(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_HOLIDAY, text, found):
        yield m.start(), m.end()
    for m in _matches(_DECADE, text, found):
        yield m.start("date"), m.end("date")


def _years(text: str, found: Anchors) -> Iterator[Span]:
    for m in _matches(_YEAR, text, found):
        start = m.start("date")
        if m.group("date")[:1].isdigit() and not _BEFORE_YEAR.search(line_before(text, start, _CONTEXT_WIDTH)):
            continue
        yield start, m.end()


# Most complete form first: a span overlapping one found earlier is dropped.
_FINDERS: tuple[Callable[[str, Anchors], Iterator[Span]], ...] = (
    _entry_weekdays,
    _basque,
    _in_words,
    _two_months,
    _written,
    _interval_starts,
    _roman,
    _iso,
    _numeric,
    # a feast named after a weekday ("Viernes Santo", "Miércoles de Ceniza") before the weekday
    _named_days,
    _weekdays,
    _day_month,
    _cell_day_month,
    _padded_day_month,
    _days_alone,
    _days_after_dia,
    _bare_days,
    _seasons,
    _years,
)


def find_dates(text: str) -> Iterator[Match]:
    """Dates (see the module docstring for the forms found)."""
    where = anchors(text)
    found = [span for finder in _FINDERS for span in finder(text, where)]
    for start, end in sorted(found[i] for i in first_fit(found)):
        yield start, end, DATE


# A feast, a season or a month and its year found as two spans (``Sant Joan`` + ``2019`` of
# ``desde Sant Joan de 2019``, ``navidad`` + ``dos mil veinticuatro``, ``DIA DE SANTIAGO DE`` +
# ``2025``): one date, as the guide splits write it (4 such pairs) and MEDDOCAN train writes
# a month with its year (``marzo de 2010``).
_OF_BETWEEN = re.compile(rf"{SP}+(?i:de|del){SP}+")
_SPACE_BETWEEN = re.compile(rf"{SP}+")
_ENDS_IN_OF = re.compile(rf"{SP}(?i:de|del)$")
_YEAR_ALONE = re.compile(
    rf"(?:1[89]|20)\d\d|(?i:dos{SP}+mil(?:{SP}+[a-zéíú]+)*|mil{SP}+novecientos(?:{SP}+[a-zéíú]+)*)"
)
# The first span must name a date by itself: a capitalised name (a feast) or a month, a
# season or a feast in lower case (not the model's "estudio" or "cierre" before "de 2024").
_NAMED_DATE_WORDS = frozenset(w.lower() for w in (*MONTHS, *SEASONS, *HOLIDAYS))


# (or in brackets after it, a span of its own as the Spanish, Catalan and Galician weekdays there:
# "2026/11/24 (asteartea)", the guide splits' dev20)
_BASQUE_WEEKDAY_IN_BRACKETS = re.compile(rf"{SP}*\({SP}*(?P<day>{_BASQUE_WEEKDAY}){SP}*\)")


def dates_with_their_basque_weekday(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with each date span widened over a Basque weekday written right after it
    or right before it (see :data:`_BASQUE_WEEKDAY_AFTER`), and a Basque weekday in
    brackets right after it a date span of its own."""
    if not any(word in text for word in _BASQUE_WEEKDAY_STEMS):
        return list(spans)
    out = list(spans)
    added = []
    for i, span in enumerate(out):
        if span.type != DATE:
            continue
        start, end = span.start, span.end
        following = out[i + 1].start if i + 1 < len(out) else len(text)
        if (bracketed := _BASQUE_WEEKDAY_IN_BRACKETS.match(text, end)) and bracketed.end("day") <= following:
            added.append(PHISpan(*bracketed.span("day"), DATE, span.confidence, RULE))
        elif (after := _BASQUE_WEEKDAY_AFTER.match(text, end)) and after.end() <= following:
            end = after.end()
        previous = out[i - 1].end if i else 0
        if (before := _BASQUE_WEEKDAY_BEFORE.search(text, max(previous, start - 16), start)) is not None:
            start = before.start()
        if (start, end) != (span.start, span.end):
            out[i] = replace(span, start=start, end=end, source=RULE, text="", replacement=None)
    return sorted([*out, *added]) if added else out


def dates_with_their_year(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another), sorted, with a date named by words and the
    year span right after it (over ``de``) joined into one FECHAS span."""
    out: list[PHISpan] = []
    for span in sorted(spans):
        before = out[-1] if out else None
        if (
            before is not None
            and span.type == DATE
            and before.type == DATE
            and _YEAR_ALONE.fullmatch(text, span.start, span.end)
            and not any(c.isdigit() for c in text[before.start : before.end])
            and (text[before.start].isupper() or text[before.start : before.end].lower() in _NAMED_DATE_WORDS)
            and (
                _OF_BETWEEN.fullmatch(text, before.end, span.start)
                or (
                    _ENDS_IN_OF.search(text, before.start, before.end)
                    and _SPACE_BETWEEN.fullmatch(text, before.end, span.start)
                )
            )
        ):
            out[-1] = replace(before, end=span.end, source=RULE, text="", replacement=None)
            continue
        out.append(span)
    return out
