"""National identifiers whose check digits say they are real.

python-stdnum checks DNI and NIE letters (``stdnum.es.dni``, ``stdnum.es.nie``), CIF
check characters (``stdnum.es.cif``), IBAN (``stdnum.iban``) and Spanish bank account
(``stdnum.es.ccc``) check digits. stdnum has no Spanish social-security number, so the
NASS check (the last two of twelve digits are the first ten modulo 97) is written here;
the surrogate generator uses the same checks to keep replacements valid.

Types, from the MEDDOCAN guidelines: DNI and NIE are ID_SUJETO_ASISTENCIA (P17.1 "DNI,
NIF, CIE"); NASS is ID_ASEGURAMIENTO (P19.1); an IBAN or a bank account is
OTROS_SUJETO_ASISTENCIA (P28.1 "números de cuentas corrientes"); a CIF, the tax number
of a company, is NUMERO_IDENTIF (P27.1, "cualquier otro tipo de identificación"), and
only after a ``CIF``/``NIF`` label, because one in ten letter-and-eight-digit codes
(samples, devices) passes its check by chance.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from stdnum import iban
from stdnum.es import ccc, cif, dni, nie

from deid_crf.deid.recognizers.common import INSURANCE_ID, OTHER_ID, OTHER_SUBJECT, PATIENT_ID, Match, line_before
from deid_crf.deid.recognizers.relatives import KIN_AT, RELATIVE
from deid_crf.text.spans import RULE, PHISpan

# Each number pattern opens with the character class of its first character and checks
# what stands before that character after it (``\d(?<![\w.-]\d)``, not ``(?<![\w.-])\d``):
# the same matches, but ``re`` then skips to the next digit (or capital) in C instead of
# trying the pattern at every position, a half to a fifth of the time on MEDDOCAN dev
# (tests/test_rule_prefilters.py checks them against the lookbehind-first forms).
_DNI = re.compile(r"(\d(?<![\w.-]\d)\d?\.?\d{3}\.?\d{3})[ -]?([A-Z])(?!\w)")
_NIE = re.compile(r"([XYZ])(?<![\w.-][XYZ])[ -]?(\d\.?\d{3}\.?\d{3})[ -]?([A-Z])(?!\w)")
_CIF = re.compile(
    r"([ABCDEFGHJNPQRSUVW])(?<![\w.-][ABCDEFGHJNPQRSUVW])[ -]?(\d{2}\.?\d{3}\.?\d{2})[ -]?([0-9A-J])(?!\w)"
)
_CIF_LABEL = re.compile(r"\b(?:c\.?i\.?f|n\.?i\.?f)\b")
# Two letters, two check digits, then groups of four (the last may be shorter).
_IBAN = re.compile(r"[A-Z](?<![\w][A-Z])[A-Z]\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,3})?(?![\w])")
_BANK_ACCOUNT = re.compile(r"\d(?<![\w.-]\d)\d{3}([ -]?)\d{4}\1\d{2}\1\d{10}(?![\w]|[ .-]\d)")
_ACCOUNT_LABEL = re.compile(r"\b(?:iban|cuenta|c\.?c\.?c)\b")
_NASS = re.compile(r"(\d(?<![\w/.-]\d)\d)([ /-]?)(\d{8})\2(\d{2})(?![\w]|[ /-]\d)")
_NASS_LABEL = re.compile(r"nass|n\.?\s?a\.?\s?s\.?\s?s|seguridad social|afiliaci[oó]n|n[ºo°]\s*ss\b|\bnaf\b|\bnss\b")
_LABEL_WIDTH = 30


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def dni_letter(number: int) -> str:
    """The check letter of a DNI number (NIE: X, Y, Z stand for 0, 1, 2)."""
    return dni.calc_check_digit(f"{number:08d}")


def nass_is_valid(digits: str) -> bool:
    """Social-security number check: the last two of 12 digits are the first ten mod 97."""
    return len(digits) == 12 and digits.isdigit() and int(digits[:10]) % 97 == int(digits[10:])


def find_dni(text: str) -> Iterator[Match]:
    """DNI (``12345678Z``, ``12.345.678-Z``) and NIE (``X1234567L``, ``X-1234567-L``)
    numbers whose check letter is right."""
    for m in _DNI.finditer(text):
        digits = _digits(m.group(1))
        if len(digits) == 8 and dni.is_valid(digits + m.group(2)):
            yield m.start(), m.end(), PATIENT_ID
    for m in _NIE.finditer(text):
        if nie.is_valid(m.group(1) + _digits(m.group(2)) + m.group(3)):
            yield m.start(), m.end(), PATIENT_ID


def find_cif(text: str) -> Iterator[Match]:
    """Company tax numbers (``B12345674``) with a valid check character after a
    ``CIF``/``NIF`` label on their line."""
    for m in _CIF.finditer(text):
        if cif.is_valid("".join(m.groups()).replace(".", "")) and _CIF_LABEL.search(
            line_before(text, m.start(), _LABEL_WIDTH)
        ):
            yield m.start(), m.end(), OTHER_ID


# A Spanish IBAN's shape (ES, two digits, twenty in groups of four): no other number is
# written so, so its check digits need not hold (a note's writer may mistype one).
_SPANISH_IBAN = re.compile(r"ES\d{2}(?:[ -]?\d{4}){5}")


def find_bank_accounts(text: str) -> Iterator[Match]:
    """IBAN and 20-digit Spanish account numbers: with valid check digits, after an
    ``IBAN``/``cuenta`` label, or (an IBAN) in a Spanish IBAN's shape."""
    for pattern, checker in ((_IBAN, iban), (_BANK_ACCOUNT, ccc)):
        for m in pattern.finditer(text):
            if (
                checker.is_valid(m.group())
                or (pattern is _IBAN and _SPANISH_IBAN.fullmatch(m.group()))
                or _ACCOUNT_LABEL.search(line_before(text, m.start(), _LABEL_WIDTH))
            ):
                yield m.start(), m.end(), OTHER_SUBJECT


def find_nass(text: str) -> Iterator[Match]:
    """Social-security numbers ``28 12345678 40``, ``28/12345678/40``: with a valid
    check or after a NASS label."""
    for m in _NASS.finditer(text):
        digits = m.group(1) + m.group(3) + m.group(4)
        if nass_is_valid(digits) or _NASS_LABEL.search(line_before(text, m.start(), _LABEL_WIDTH)):
            yield m.start(), m.end(), INSURANCE_ID


# A relative's or a representative's DNI/NIE (``a petición de su hija … (DNI 76128840R)``,
# ``Madre: Fatima Zahra El Khattabi, 27 años, NIE X7730418P``) identifies someone other
# than the patient: NUMERO_IDENTIF (P27.1; the notes' annotator 2, point 8), not
# ID_SUJETO_ASISTENCIA. Its owner is the nearest person's span before it on its line.
_PERSON_OWNERS = frozenset(("NOMBRE_SUJETO_ASISTENCIA", RELATIVE, "NOMBRE_PERSONAL_SANITARIO"))
_NATIONAL_ID = re.compile(rf"(?:{_DNI.pattern}|{_NIE.pattern})")


def relatives_national_ids(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted) with a DNI/NIE whose nearest person on its line is a relative
    retyped NUMERO_IDENTIF (see above)."""
    out = list(spans)
    for i, span in enumerate(out):
        if span.type != PATIENT_ID or not _NATIONAL_ID.fullmatch(text, span.start, span.end):
            continue
        line_start = text.rfind("\n", 0, span.start) + 1
        owner = next((s for s in reversed(out[:i]) if s.type in _PERSON_OWNERS or s.end <= line_start), None)
        if owner is None or owner.end <= line_start or owner.type != RELATIVE:
            continue
        # a kinship word on the line says so: the model also types the patient a relative
        if KIN_AT.search(text, line_start, span.start):
            out[i] = replace(span, type=OTHER_ID, source=RULE)
    return out
