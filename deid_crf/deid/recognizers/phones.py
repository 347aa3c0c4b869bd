"""Phone, fax and pager numbers.

Candidates come from ``phonenumbers.PhoneNumberMatcher`` (region ES), one line at a
time, so national numbers in any grouping (``967 597 100``, ``93.384.21.67``,
``678-21-90-43``), numbers with a country code (``+34``, ``0034``, ``(+33)``,
``+212``) and extensions (``ext. 2417``) are read as the library reads them. A
candidate is kept when

* a phone or fax label (``Tel.``, ``Tfno``, ``Móvil``, ``Fax``…) comes before it on
  its line with no other field label in between; or
* it is written with a country code (the ``+`` or ``00`` says it is a phone); or
* it is a valid Spanish number grouped as only phone numbers are written
  (``967 597 100``, ``91 336 87 85``). A bare nine-digit number is left out: in clinical
  headers it is far more often a record number (``NHC: 786946231``).

Any 7–15 digit number right after a phone label (``Teléfono: 55304000``,
``Fax: (5982) 487-3837``) and a pager number after ``busca`` (guideline P14.2) are
phones too.

Span boundaries: a written international prefix is kept whole in the span, ``+``
included (``+34 612 345 678``, ``+40 …``): the ``+`` is part of the number a reader
would dial, and the project's multi-format notes annotate it so. MEDDOCAN train
annotates its few ``+34`` numbers from ``34`` (glued ``+34679802102`` or spaced
``+ 34 93 …``); a ``+`` set apart by a space stays out here too, so MEDDOCAN's spaced
form scores as before and only the glued one differs by its first character. Other
leading punctuation stays out (``(5982) 487-3837`` from ``5982``, guideline G3), and an
extension is inside the span (``986413144 ext 1530``). The type is NUMERO_FAX after a
``Fax`` label (guideline C2), NUMERO_TELEFONO after ``Tel. y Fax`` and otherwise.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache

import phonenumbers
from phonenumbers import Leniency, PhoneMetadata, PhoneNumberMatcher

from deid_crf.deid.recognizers.common import FAX, PHONE, SP, Match, line_before, lines
from deid_crf.text.spans import Coverage

_REGION = "ES"
_LABEL_WIDTH = 40  # how far before a number its label may be, on the same line

# Whole words only: "hotel", "cartel" or "pastel" before a number are no phone label.
_LABEL_WORDS = (
    r"\b(?:tel[eé]fonos?|tel[eé]fs?|tfnos?|tlfnos?|tlfs?|telfs?|tels?|m[oó]vil(?:es)?|fax|contacto)(?![^\W\d_])"
)
_PHONE_LABEL = re.compile(_LABEL_WORDS)
_LABEL_END = re.compile(rf"{_LABEL_WORDS}[.:]*\s*$")
# An identifier's label ("NHC:", "DNI") between a phone label and a number: the number
# belongs to that field, not to the phone.
_OTHER_FIELD = re.compile(
    r"\b(?:n\.?h\.?c|hc|dni|nie|nif|nass|nss|naf|cipa?|tsi|tis|sip|nuhsa|cic|col|colegiad[oa]|episodio|historia"
    r"|pasaporte)\b"
)
# Groupings written only for phone numbers, so they are taken without a label.
_PHONE_GROUPS = {(3, 3, 3), (3, 2, 2, 2), (2, 3, 2, 2), (3, 6), (2, 7)}
_INTERNATIONAL = re.compile(r"\(?\+|\(?00")
_EXTENSION = re.compile(r"(?i)\s*\(?\s*(?:ext|extensi[oó]n|x)\b")
# A number glued to a word or to another number ("XMOU451208015", "12.345.678") is part
# of something else.
_GLUED_BEFORE = re.compile(r"(?:\w|\d[/.,-])\Z")  # (\Z: "$" matches before a line break too)
_GLUED_AFTER = re.compile(r"\w|[/.,-]\d")
# Every candidate phonenumbers' matcher reads holds a digit (its pattern asks for a
# ``\d`` block: letters count only beside one, as a vanity number's or an extension's),
# and most lines of a note have none: the matcher is not built for those.
_DIGIT = re.compile(r"\d")
_PLUS_SIGNS = ("+", "\uff0b")  # what phonenumbers reads as a "+" (its _PLUS_CHARS)
_KEYPAD_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")  # a vanity number's letters, upper-cased


@cache
def _shortest_national_number() -> int:
    """The fewest digits of a possible number read in region ES without an
    international prefix; 0 (no shortcut) if ES's metadata no longer has the shape
    :func:`_cannot_be_possible` relies on (an international prefix "00", no national
    prefix to strip or rewrite)."""
    metadata = PhoneMetadata.metadata_for_region(_REGION)
    general = metadata.general_desc
    lengths = {*(general.possible_length or ()), *(general.possible_length_local_only or ())}
    if metadata.international_prefix != "00" or metadata.national_prefix_for_parsing or not lengths:
        return 0
    return min(lengths)


def _cannot_be_possible(candidate: str) -> bool:
    """Whether phonenumbers' ``parse(candidate, "ES")`` cannot give a possible number.

    Without a ``+`` or two zeros (no "00" to dial out of Spain), the number is read as
    a Spanish one, whose national number needs :func:`_shortest_national_number` (9)
    digits; each comes from a character with a digit value (``unicodedata.digit``,
    as phonenumbers normalizes them) or from a letter of a vanity number. Fewer such
    characters: no possible number."""
    if any(plus in candidate for plus in _PLUS_SIGNS):
        return False
    digits = zeros = 0
    for char in candidate:
        value = unicodedata.digit(char, -1)
        if value >= 0:
            digits += 1
            zeros += value == 0
        elif char.upper() in _KEYPAD_LETTERS:
            digits += 1
    return zeros < 2 and digits < _shortest_national_number()


class _SparingMatcher(PhoneNumberMatcher):
    """``PhoneNumberMatcher`` that does not parse the candidates that cannot be a
    possible number (:func:`_cannot_be_possible`: "45", "2019", "3,5"), which are
    most of a clinical note's numbers; it finds the same numbers, and counts the
    same failed tries. It overrides the matcher's private ``_parse_and_verify``,
    which every candidate and inner candidate goes through; were that name to go in
    another phonenumbers version, the override would simply not be called."""

    def _parse_and_verify(self, candidate, offset):
        if self.leniency == Leniency.POSSIBLE and _cannot_be_possible(candidate):
            return None
        return super()._parse_and_verify(candidate, offset)


# Any number of 7–15 digits right after a phone label; a bracket may close a code. The
# lookahead says what a match opens with ("(", "+", a digit, or a space and a digit), so
# that the rest is not tried at every letter (the same matches, in half the time on
# MEDDOCAN dev; tests/test_rule_prefilters.py).
_LABELLED_NUMBER = re.compile(rf"(?=[(+\d]|\s\d)\(?\+?{SP}?(\d(?:\)?[ .-]?\d){{6,14}})(?![\w]|[ .-]\d)")
# Pager numbers: "busca 6613", "buscapersonas: 6527- 3368" (P14.2).
_PAGER = re.compile(rf"\bbusca(?:personas)?[.:]?{SP}*(?:n[º°o]\.?{SP}*)?(\d{{4,5}}(?:-?{SP}?\d{{4}})?)(?![\w]|[.,-]\d)")
# An extension alone ("Control enfermería 4B: ext. 69421", "(Begoña …, ext. 54321)"): the
# notes annotate it as a phone (P14.1); after a number it is inside the phone's span already.
# (also whose it is before a colon, "Extensión de la unidad: 5531", and across a wrapped
# line's break, "ext.⏎4520")
_EXTENSION_ALONE = re.compile(
    rf"\b(?i:ext|extensi[oó]n)\.?(?:{SP}+(?i:de{SP}+(?:la|el){SP}+)[^\W\d_]+{SP}*(?=:))?{SP}*:?{SP}*\n?{SP}*"
    rf"(\d{{3,6}})(?![\w]|[.,-]\d)"
)


def _label(before: str) -> re.Match[str] | None:
    """The phone label that rules a number preceded on its line by ``before``: the
    nearest one, unless another field's label comes after it."""
    labels = list(_PHONE_LABEL.finditer(before))
    if not labels:
        return None
    last = labels[-1]
    return None if _OTHER_FIELD.search(before, last.end()) else last


def _phone_type(before: str) -> str | None:
    """NUMERO_FAX when the ruling label is "fax" (but not "Tel. y Fax"), NUMERO_TELEFONO
    for another phone label, None without a label."""
    label = _label(before)
    if label is None:
        return None
    if label.group() != "fax":
        return PHONE
    labels = list(_PHONE_LABEL.finditer(before, 0, label.start()))
    joined = labels and re.fullmatch(r"[.:]*\s*(?:y|/|e)\s*", before[labels[-1].end() : label.start()])
    return PHONE if joined else FAX


def _grouping(raw: str) -> tuple[int, ...]:
    """Lengths of the digit groups of a number as written, extension left out."""
    main = raw[: m.start()] if (m := _EXTENSION.search(raw)) else raw
    return tuple(len(g) for g in re.findall(r"\d+", main))


def _is_glued(text: str, start: int, end: int) -> bool:
    return _GLUED_BEFORE.search(text, max(0, start - 2), start) is not None or _GLUED_AFTER.match(text, end) is not None


def _matched_numbers(text: str) -> Iterator[Match]:
    """The numbers phonenumbers finds that a label, a country code or a phone
    grouping confirms, each from its first digit on."""
    for offset, line in lines(text):
        if _DIGIT.search(line) is None:
            continue
        for m in _SparingMatcher(line, _REGION, leniency=Leniency.POSSIBLE):
            start, end = offset + m.start, offset + m.end
            if _is_glued(text, start, end):
                continue
            type_ = _phone_type(line_before(text, start, _LABEL_WIDTH))
            international = _INTERNATIONAL.match(m.raw_string) is not None
            grouped = phonenumbers.is_valid_number(m.number) and _grouping(m.raw_string) in _PHONE_GROUPS
            if type_ is None and not international and not grouped:
                continue
            first = start + re.search(r"\+\d|\d", m.raw_string).start()  # "+34 …" keeps its "+", "+ 34" not
            if first > start and text[first - 1] == "(" and ")" in text[first:end]:
                first -= 1  # "(+34) 603 …": the bracket that the code's closing one pairs with
            yield first, end, type_ or PHONE


def _labelled_numbers(text: str, taken: Coverage) -> Iterator[Match]:
    """Digit strings right after a phone label that phonenumbers did not read."""
    for m in _LABELLED_NUMBER.finditer(text):
        before = line_before(text, m.start(), _LABEL_WIDTH)
        if _LABEL_END.search(before) and not taken.overlaps(m.start(), m.end()):
            yield m.start(1), m.end(), _phone_type(before) or PHONE


def find_phones(text: str) -> Iterator[Match]:
    """Phone, fax and pager numbers (see the module docstring for what is kept)."""
    found = list(_matched_numbers(text))
    found += _labelled_numbers(text, Coverage((a, b) for a, b, _ in found))
    taken = Coverage((a, b) for a, b, _ in found)
    found += [(m.start(1), m.end(), PHONE) for m in _PAGER.finditer(text) if not taken.overlaps(m.start(1), m.end())]
    if "xt" in text:  # few texts hold an extension
        found += [
            (m.start(1), m.end(), PHONE)
            for m in _EXTENSION_ALONE.finditer(text)
            if not taken.overlaps(m.start(), m.end())
        ]
    yield from sorted(found)
