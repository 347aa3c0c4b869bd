"""Regular-expression recognizers for highly structured PHI, and the rule layer.

Each :class:`Recognizer` finds spans of one kind of PHI in a text (e-mail, URL, IP
address, Spanish phone and fax numbers, postal codes in an address, DNI/NIE with a
valid check letter, social-security (NASS) numbers, collegiate numbers, the values
of ``NHC:``/``Episodio:`` header fields, numeric and written dates). The rule layer
(:class:`RuleLayer`) runs the recognizers and merges their spans with the model's
under a priority per entity type (:func:`deid_crf.text.spans.combine`).

The shipped priorities (:data:`DEFAULT_PRIORITY`) were chosen per type on MEDDOCAN
dev with::

    python -m deid_crf.experiments.rules_table        # or: make rules-table

which prints, for every type a recognizer can produce, the model's F1 alone and with
the rules under each priority (table in docs/results.md, "Rule layer").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from deid_crf.gazetteers.spanish import MONTH_ABBREVIATIONS, MONTHS, PARTICLES, SEPTEMBER_VARIANTS
from deid_crf.text.spans import OFF, PRIORITIES, PROPAGATED, RULE, RULES_FIRST, UNION, PHISpan, combine

if TYPE_CHECKING:
    pass

Match = tuple[int, int, str]  # start, end, entity type

# MEDDOCAN entity types produced by the recognizers. URL_WEB and DIREC_PROT_INTERNET
# belong to the MEDDOCAN guidelines although neither occurs in train or dev.
EMAIL = "CORREO_ELECTRONICO"
URL = "URL_WEB"
IP = "DIREC_PROT_INTERNET"
PHONE = "NUMERO_TELEFONO"
FAX = "NUMERO_FAX"
TERRITORY = "TERRITORIO"
PATIENT_ID = "ID_SUJETO_ASISTENCIA"
INSURANCE_ID = "ID_ASEGURAMIENTO"
CONTACT_ID = "ID_CONTACTO_ASISTENCIAL"
COLLEGIATE_ID = "ID_TITULACION_PERSONAL_SANITARIO"
DATE = "FECHAS"


# Spaces that do not break a line: a rule span never holds a line break, so that
# every output format (a BRAT ``T`` line above all) keeps one span on one line.
_SP = r"[^\S\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]"
LINE_BREAKS = re.compile(r"[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _line_before(text: str, start: int, width: int) -> str:
    """Up to ``width`` characters before ``start`` on the same line, lower-cased."""
    line_start = text.rfind("\n", 0, start) + 1
    return text[max(line_start, start - width) : start].lower()


# --------------------------------------------------------------------- recognizers

_EMAIL = re.compile(r"(?<![\w.+-])[\w][\w.+-]*@[\w-]+(?:\.[\w-]+)*\.[a-zA-Z]{2,}\b")
_URL = re.compile(r"(?<![\w@/])(?:https?://|www\.)[^\s<>\"'()\[\]]+", re.IGNORECASE)
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IP = re.compile(rf"(?<![\w.]){_OCTET}(?:\.{_OCTET}){{3}}(?![\w]|\.\d)")


def find_emails(text: str) -> Iterator[Match]:
    for m in _EMAIL.finditer(text):
        yield m.start(), m.end(), EMAIL


def find_urls(text: str) -> Iterator[Match]:
    for m in _URL.finditer(text):
        end = m.end()
        while end > m.start() and text[end - 1] in ".,;:!?":
            end -= 1
        yield m.start(), end, URL


def find_ips(text: str) -> Iterator[Match]:
    for m in _IP.finditer(text):
        yield m.start(), m.end(), IP


# Spanish numbers have nine digits, the first 6–9 (mobile 6/7, landline and fax 8/9),
# after an optional +34/0034 (MEDDOCAN spans leave the "+" out) and before an optional
# extension; groups are separated by spaces, dots or hyphens.
_PHONE = re.compile(
    rf"(?<![\w./-])\+?{_SP}?((?:00)?34[ .-]*)?([6789](?:[ .-]?\d){{8}})(?:{_SP}*ext\.?{_SP}*\d{{1,5}})?(?![\w]|[ .-]\d)"
)
# Any number of 7–12 digits right after a phone label ("Teléfono: 55304000").
_LABELLED_NUMBER = re.compile(rf"\+?{_SP}?(\d(?:[ .-]?\d){{6,11}})(?![\w]|[ .-]\d)")
# Whole words only: "hotel", "cartel" or "pastel" before a number are no phone label.
_LABEL_WORDS = r"\b(?:tel[eé]fonos?|tel[eé]fs?|tfnos?|tlfnos?|tlfs?|telfs?|tels?|m[oó]vil(?:es)?|fax)(?![^\W\d_])"
_PHONE_LABEL = re.compile(_LABEL_WORDS)
_LABEL_END = re.compile(rf"{_LABEL_WORDS}[.:]*\s*$")
# Groupings written only for phone numbers, so they are taken without a label.
_PHONE_GROUPS = {(3, 3, 3), (3, 2, 2, 2), (2, 3, 2, 2), (3, 6), (2, 7)}


def _phone_type(before: str) -> str | None:
    """NUMERO_FAX when the nearest label is "fax" (but not "Tel. y Fax"), NUMERO_TELEFONO
    for another phone label, None without a label."""
    labels = list(_PHONE_LABEL.finditer(before))
    if not labels:
        return None
    last = labels[-1]
    if last.group() != "fax":
        return PHONE
    joined = len(labels) > 1 and re.fullmatch(r"[.:]*\s*(?:y|/|e)\s*", before[labels[-2].end() : last.start()])
    return PHONE if joined else FAX


def find_phones(text: str) -> Iterator[Match]:
    """Phone and fax numbers: Spanish ones grouped as phone numbers are written
    (``967 597 100``, ``91 336 87 85``) or after a ``Tel.``/``Tfno``/``Fax`` label on
    the line, and any 7–12 digit number right after such a label."""
    found = []
    for m in _PHONE.finditer(text):
        start = m.start(1) if m.group(1) else m.start(2)
        type_ = _phone_type(_line_before(text, m.start(), 40))
        groups = tuple(len(g) for g in re.split(r"[ .-]", m.group(2)))
        if type_ is None and not m.group(1) and groups not in _PHONE_GROUPS:
            continue
        found.append((start, m.end(), type_ or PHONE))
    taken = [(a, b) for a, b, _ in found]
    for m in _LABELLED_NUMBER.finditer(text):
        before = _line_before(text, m.start(), 40)
        if _LABEL_END.search(before) and not any(a < m.end() and m.start() < b for a, b in taken):
            found.append((m.start(1), m.end(), _phone_type(before) or PHONE))
    yield from found


# A postal code is five digits with a province prefix 01–52, after a "CP" label or
# between an address and the town ("Castellana, 261, 28046 Madrid", "E-28046 Madrid").
_POSTCODE = re.compile(r"(?<![\w.,/-])(?:E-)?(?:0[1-9]|[1-4]\d|5[0-2])\d{3}(?![\w]|[.,/-]\d)")
_POSTCODE_LABEL = re.compile(r"(?:\bc\.?\s?p\.?|c[oó]digo postal|\bcod\.? postal)\s*:?\s*$")
_TOWN_AFTER = re.compile(r"[ ,]{1,3}[A-ZÁÉÍÓÚÑ][a-záéíóúüñ]+")
_NUMBER_BEFORE = re.compile(r"(?:\d[a-zA-Zº]?|s/n|S/N)[ ,.]{1,3}$")


def find_postcodes(text: str) -> Iterator[Match]:
    for m in _POSTCODE.finditer(text):
        before = _line_before(text, m.start(), 20)
        labelled = _POSTCODE_LABEL.search(before) is not None
        in_address = _TOWN_AFTER.match(text, m.end()) is not None and _NUMBER_BEFORE.search(before) is not None
        if labelled or in_address:
            yield m.start(), m.end(), TERRITORY


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_DNI = re.compile(r"(?<![\w.-])(\d{1,2}\.?\d{3}\.?\d{3})[ -]?([A-Z])(?![\w])")
_NIE = re.compile(r"(?<![\w.-])([XYZ])[ -]?(\d{7})[ -]?([A-Z])(?![\w])")


def dni_letter(number: int) -> str:
    """The check letter of a DNI number (NIE: X, Y, Z stand for 0, 1, 2)."""
    return _DNI_LETTERS[number % 23]


def find_dni(text: str) -> Iterator[Match]:
    """DNI (``12345678Z``, ``12.345.678-Z``) and NIE (``X1234567L``) numbers whose
    check letter is right."""
    for m in _DNI.finditer(text):
        digits = m.group(1).replace(".", "")
        if len(digits) == 8 and dni_letter(int(digits)) == m.group(2):
            yield m.start(), m.end(), PATIENT_ID
    for m in _NIE.finditer(text):
        if dni_letter(int("XYZ".index(m.group(1)) * 10**7 + int(m.group(2)))) == m.group(3):
            yield m.start(), m.end(), PATIENT_ID


def nass_is_valid(digits: str) -> bool:
    """Social-security number check: the last two of 12 digits are the first ten mod 97."""
    return len(digits) == 12 and digits.isdigit() and int(digits[:10]) % 97 == int(digits[10:])


_NASS = re.compile(r"(?<![\w/.-])(\d{2})([ /-]?)(\d{8})\2(\d{2})(?![\w]|[ /-]\d)")
_NASS_LABEL = re.compile(r"nass|n\.?\s?a\.?\s?s\.?\s?s|seguridad social|afiliaci[oó]n|n[ºo°]\s*ss\b")


def find_nass(text: str) -> Iterator[Match]:
    """Social-security numbers ``28 12345678 40``: with a valid check or after a NASS label."""
    for m in _NASS.finditer(text):
        digits = m.group(1) + m.group(3) + m.group(4)
        if nass_is_valid(digits) or _NASS_LABEL.search(_line_before(text, m.start(), 30)):
            yield m.start(), m.end(), INSURANCE_ID


# Collegiate numbers: province code twice and five digits, "28 28 20943", "08-08-25574".
_COLLEGIATE = re.compile(r"(?<![\w/.-])\d{2}([ -])\d{2}\1\d{5}(?![\w]|[ /-]\d)")
_COLLEGIATE_LABEL = re.compile(r"n[ºo°]\s?col|colegiad[oa]|col\.")


def find_collegiate(text: str) -> Iterator[Match]:
    for m in _COLLEGIATE.finditer(text):
        if m.group().split(m.group(1))[0] == m.group().split(m.group(1))[1] or _COLLEGIATE_LABEL.search(
            _line_before(text, m.start(), 30)
        ):
            yield m.start(), m.end(), COLLEGIATE_ID


# Header fields whose value is an identifier: "NHC: 2569870.", "Episodio: 7843034".
_HEADER_FIELDS = {"nhc": PATIENT_ID, "episodio": CONTACT_ID, "nass": INSURANCE_ID}
_HEADER = re.compile(
    r"^[ \t]*(NHC|Episodio|NASS)[ \t]*:[ \t]*(?:nhc-)?([A-Za-z]{0,3}\d[\d /-]*\d|\d)(?=[ \t]*\.?[ \t]*(?:\r?\n|$))",
    re.MULTILINE | re.IGNORECASE,
)


def find_header_ids(text: str) -> Iterator[Match]:
    """The value of an ``NHC:``, ``Episodio:`` or ``NASS:`` line."""
    for m in _HEADER.finditer(text):
        yield m.start(2), m.end(2), _HEADER_FIELDS[m.group(1).lower()]


_MONTH = "|".join([*MONTHS, *SEPTEMBER_VARIANTS, *MONTH_ABBREVIATIONS])
_NUMERIC_DATE = re.compile(r"(?<![\w/.-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![\w]|[/.-]\d)")
_WRITTEN_DATE = re.compile(
    rf"(?<![\w/-])(?:(\d{{1,2}})(?:{_SP}+de{_SP}+|[-/ ]))?({_MONTH})\.?"
    rf"(?:(?:{_SP}+de(?:l)?(?:{_SP}+año)?{_SP}+|[-/ ])(\d{{4}}|\d{{2}})(?![\w/]|[.,]\d))?(?!\w)",
    re.IGNORECASE,
)
# A month name alone is a date after these words ("en junio", "entre marzo y abril").
_BEFORE_MONTH = re.compile(r"(?:\b(?:en|desde|hasta|entre|durante|y|inicios de|finales de|mediados de))\s+$")
# A year is a date after these words; "año" joins the span as MEDDOCAN annotates it,
# "el" before it does not.
_YEAR = re.compile(
    rf"(?<![\w/.-])(?:el{_SP}+(?=año))?(?P<date>(?:año{_SP}+)?(?:19|20)\d\d)(?![\w/]|[.,-]\d)", re.IGNORECASE
)
_BEFORE_YEAR = re.compile(r"(?:\b(?:en|desde|hasta|entre|durante|y|de|del|el|año))\s+$")


def find_dates(text: str) -> Iterator[Match]:
    """Valid day/month/year dates (``03/03/1946``, ``5-4-17``), written ones with a
    day or a year (``15 de marzo de 2016``, ``diciembre-08``, ``6-abril-2004``), a
    month name or a year after a preposition (``en junio``, ``en el año 2000``)."""
    for m in _NUMERIC_DATE.finditer(text):
        day, month, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
        if len(m.group(4)) == 2:
            year += 2000
        try:
            date(year, month, day)
        except ValueError:
            continue
        yield m.start(), m.end(), DATE
    taken: list[tuple[int, int]] = []
    for m in _WRITTEN_DATE.finditer(text):
        before = _line_before(text, m.start(), 30)
        if "hospital" in before or (m.group(1) and not 1 <= int(m.group(1)) <= 31):
            continue  # "Hospital Universitario 12 de Octubre"
        abbreviated = m.group(2).lower() in MONTH_ABBREVIATIONS
        if m.group(1) is None and m.group(3) is None and (abbreviated or not _BEFORE_MONTH.search(before)):
            continue
        end = m.end()
        if m.group(3) is None and not abbreviated and text[end - 1] == ".":
            end -= 1  # a full stop after a month name ends the sentence
        taken.append((m.start(), end))
        yield m.start(), end, DATE
    for m in _YEAR.finditer(text):
        start = m.start("date")
        if m.group("date")[:1].isdigit() and not _BEFORE_YEAR.search(_line_before(text, start, 30)):
            continue
        if not any(a <= start and m.end() <= b for a, b in taken):
            yield start, m.end(), DATE


def _within_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``[start, end)`` cut at its line breaks into non-empty pieces without
    surrounding spaces (the recognizers' patterns never cross a line; this is the
    guarantee for any pattern that would)."""
    pieces, cursor = [], start
    for cut in [*(m.start() for m in LINE_BREAKS.finditer(text, start, end)), end]:
        a, b = cursor, cut
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            pieces.append((a, b))
        cursor = cut + 1
    return pieces


@dataclass(frozen=True)
class Recognizer:
    name: str
    types: tuple[str, ...]
    find: Callable[[str], Iterator[Match]]
    description: str


RECOGNIZERS: dict[str, Recognizer] = {
    r.name: r
    for r in (
        Recognizer("email", (EMAIL,), find_emails, "e-mail addresses"),
        Recognizer("url", (URL,), find_urls, "URLs (http://, https://, www.)"),
        Recognizer("ip", (IP,), find_ips, "IPv4 addresses"),
        Recognizer("phone", (PHONE, FAX), find_phones, "Spanish phone/fax numbers, grouped or after a label"),
        Recognizer("postcode", (TERRITORY,), find_postcodes, "postal codes after CP or between address and town"),
        Recognizer("dni", (PATIENT_ID,), find_dni, "DNI/NIE with a valid check letter"),
        Recognizer("nass", (INSURANCE_ID,), find_nass, "social-security numbers (check digits or NASS label)"),
        Recognizer("collegiate", (COLLEGIATE_ID,), find_collegiate, "collegiate numbers (NN NN NNNNN)"),
        Recognizer("header_ids", (PATIENT_ID, CONTACT_ID, INSURANCE_ID), find_header_ids, "NHC/Episodio/NASS values"),
        Recognizer("date", (DATE,), find_dates, "numeric and written dates"),
    )
}

# Chosen per type on MEDDOCAN dev by `python -m deid_crf.experiments.rules_table` (docs/results.md).
# Types not listed here take DEFAULT_OTHER.
DEFAULT_PRIORITY: dict[str, str] = {t: UNION for r in RECOGNIZERS.values() for t in r.types} | {PHONE: RULES_FIRST}
DEFAULT_OTHER = UNION


# Name spans whose strings are searched again in the rest of their document.
NAME_TYPES = ("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO")


def propagate_names(text: str, spans: Sequence[PHISpan], types: Sequence[str] = NAME_TYPES) -> list[PHISpan]:
    """``spans`` plus the other occurrences, in the same document, of the names they
    found: the whole name and each capitalised part of 3+ letters ("Ernesto Rivera
    Bueno" found once, then "Sr. Rivera" later). An occurrence is added with the
    type and confidence of its name unless it overlaps a span already there."""
    names: dict[str, PHISpan] = {}
    for span in spans:
        if span.type not in types:
            continue
        whole = text[span.start : span.end]
        names.setdefault(whole, span)
        for part in re.findall(r"[^\W\d_]+", whole):
            if len(part) >= 3 and part[0].isupper() and part.lower() not in PARTICLES:
                names.setdefault(part, span)
    if not names:
        return list(spans)
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")(?!\w)")
    out = list(spans)
    taken = sorted((s.start, s.end) for s in spans)
    for m in pattern.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        name = names[m.group()]
        out.append(PHISpan(m.start(), m.end(), name.type, name.confidence, PROPAGATED))
    return sorted(out)


@dataclass
class RuleLayer:
    """Runs the recognizers and merges their spans with the model's.

    ``priority`` is one of :data:`~deid_crf.text.spans.PRIORITIES` for every type, or a
    mapping type → priority (types it does not list get ``default``).
    """

    priority: Mapping[str, str] | str = field(default_factory=lambda: dict(DEFAULT_PRIORITY))
    default: str = DEFAULT_OTHER
    recognizers: Sequence[str] = tuple(RECOGNIZERS)
    propagate: bool = True

    def __post_init__(self) -> None:
        unknown = [name for name in self.recognizers if name not in RECOGNIZERS]
        if unknown:
            raise ValueError(f"unknown recognizers {unknown}; known: {sorted(RECOGNIZERS)}")
        values = [self.priority] if isinstance(self.priority, str) else list(self.priority.values())
        for value in [*values, self.default]:
            if value not in PRIORITIES:
                raise ValueError(f"unknown rule priority {value!r}; choose from {PRIORITIES}")

    @property
    def active(self) -> bool:
        if isinstance(self.priority, str):
            return self.priority != OFF
        return self.default != OFF or any(v != OFF for v in self.priority.values())

    def find(self, text: str) -> list[PHISpan]:
        """Every recognizer's spans (they may overlap one another), none across a
        line break."""
        if not self.active:
            return []
        spans = {
            (a, b, type_)
            for name in self.recognizers
            for start, end, type_ in RECOGNIZERS[name].find(text)
            for a, b in _within_lines(text, start, end)
        }
        return [PHISpan(start, end, type_, 1.0, RULE) for start, end, type_ in sorted(spans)]

    def apply(self, text: str, model_spans: Sequence[PHISpan]) -> list[PHISpan]:
        """The model's spans merged with the rules' (sorted, never overlapping)."""
        spans = combine(model_spans, self.find(text), text, self.priority, self.default) if self.active else model_spans
        return propagate_names(text, spans) if self.propagate else sorted(spans)


def rule_layer(mode: str, propagate: bool | None = None) -> RuleLayer:
    """``default`` (the shipped per-type priorities), or one priority for all types;
    name propagation follows ``propagate``, and when it is None is on for every mode
    but ``off`` (``rule_layer("off", propagate=True)``: the model and propagation)."""
    if mode != "default" and mode not in PRIORITIES:
        raise ValueError(f"unknown rule mode {mode!r}; choose from default, {', '.join(PRIORITIES)}")
    propagate = (mode != OFF) if propagate is None else propagate
    if mode == "default":
        return RuleLayer(propagate=propagate)
    return RuleLayer(priority=mode, default=mode, propagate=propagate)


RULE_MODES = ("default", *PRIORITIES)
