"""Hospitals named by their acronym alone (HOSPITAL): ``urgencias del HUT``, ``Medicina
Interna HUG``, ``traslado a hemodinámica del CHUA``, ``Consulta Neuromuscular H12O``; and
by their kind alone (:func:`find_hospital_kinds`): ``informes del Regional y del Clínico``.

Spanish university hospitals and complexes are called by acronyms that open with ``HU``
(Hospital Universitario: HUCA, HULA, HUVH) or ``CHU`` (Complejo Hospitalario
Universitario: CHUAC, CHUVI, CHUS), and notes name them so without the full name anywhere
(the full name with the acronym in brackets is :func:`~deid_crf.deid.recognizers.repeats`'
job). No clinical acronym of that shape is common but ``HUS`` (síndrome hemolítico-urémico);
words and names of that shape (``HUGO``, ``HUERTA``) are left out by a list, and in a line of
capitals (a header, a surname-first name) nothing is proposed, since there any word is
capitalised. MEDDOCAN train and dev: 3 such tokens, 2 of them gold HOSPITAL spans and the
third (``acude al HUCA``) left unannotated. Hospitals
named by other acronyms (``HMO``) are left to the model: those clash with clinical ones.

A hospital's kind capitalised right after an article (``del Clínico``, ``al Provincial``, ``el
Comarcal``, ``del Regional``) is the hospital of that kind the note's reader knows: a
HOSPITAL span, as the notes annotate it. A capitalised word after it (``Ronda del General
Mitre``, ``el General de Alicante``) makes it part of another name, left to the model.
MEDDOCAN train and dev have no such phrase; the notes' guide halves have 2, both hospitals.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import SP, Match, is_lower_case_note, longest_first
from deid_crf.deid.recognizers.institutions import HOSPITAL
from deid_crf.gazetteers.spanish import HOSPITAL_SHORT_NAMES, SPECIALTY_WORDS, normalize

_ACRONYM = re.compile(r"(?<![\w\-/.])(?:C?HU[A-Z]{1,4}|H12O)(?![\w\-/])")
# Words, names and clinical acronyms of the same shape.
_NOT_HOSPITALS = frozenset(
    "HUS HUGO HUMO HUSO HUMOR HUECO HUEVO HUEVOS HUESO HUESOS HUIDA HUELLA HUERTA HUERTAS HUELGA HUBO HUCHA "
    "HUMANO HUNDIDO CHUPA CHULO HULE HUNOS HUMEDO".split()
)
# Another word of two or more capitals right before or after: a line of capitals.
_CAPITALS_BEFORE = re.compile(r"[A-ZÁÉÍÓÚÑÜ]{2,}[\s,.:;]*$")
_CAPITALS_AFTER = re.compile(r"[\s,.:;]*[A-ZÁÉÍÓÚÑÜ]{2,}")


def find_hospital_acronyms(text: str) -> Iterator[Match]:
    """Hospital acronyms (see the module)."""
    if "HU" not in text and "H12O" not in text:
        return
    for m in _ACRONYM.finditer(text):
        if m.group() in _NOT_HOSPITALS:
            continue
        start, end = m.span()
        if _CAPITALS_BEFORE.search(text, max(0, start - 30), start) or _CAPITALS_AFTER.match(text, end):
            continue
        yield start, end, HOSPITAL


# Another hospital acronym (``HMO``, ``HCL``, ``HVP``, lower case ``hci``) right after a
# specialty or a service and ``del``/``de`` or a separator (``Oftalmología del HMO``,
# ``Medicina Interna · HCL``, ``Cardiología — HVP —``, ``derivar a cardio hci``): a HOSPITAL
# span. Clinical acronyms of that shape (``Cardiología - HTA``) are left out. The guide
# splits: 5 (dev3, dev11, dev14, dev15); MEDDOCAN train and dev: none.
_H_ACRONYM = re.compile(r"(?<![\w\-/.])H[A-Z]{2,5}(?![\w\-/])")
_LOWER_H_ACRONYM = re.compile(r"(?<![\w\-/.])h[a-z]{2,3}(?![\w\-/])")  # (only in a note in lower case)
_SERVICE_BEFORE = re.compile(r"(?P<word>[^\W\d_]+)\.?(?:\s+(?:del|de)|\s*[—–·|-]|\s+)\s*\Z")
_SERVICE_WORDS = frozenset(
    {normalize(w) for w in SPECIALTY_WORDS}
    | {"cardio", "neumo", "endocrino", "gine", "trauma", "uro", "onco", "derma", "nefro", "neuro", "hemato"}
    | {"digestivo", "interna", "consulta", "servicio", "planta", "urgencias", "uci"}
)
_CLINICAL_H_ACRONYMS = frozenset(
    "HTA HBP HDA HDB HBA HCV HBV HIV HSV HPV HLA HDL HCG HTP HVI HSA HIC HGB HCT HTLV HHV HNF HER HAD HAV HBS HEV "
    "HELLP HMG HPF HMB HSM HTIC HTAP HFNC HAS HAI HIE HPB HAT HHS HBPM HPT HOJA".split()
)


def find_hospitals_after_services(text: str) -> Iterator[Match]:
    """A hospital's acronym right after a specialty or a service (see above)."""
    acronyms = _H_ACRONYM.finditer(text)
    if is_lower_case_note(text):
        acronyms = [*acronyms, *_LOWER_H_ACRONYM.finditer(text)]
    for m in acronyms:
        acronym = m.group()
        if acronym.upper() in _CLINICAL_H_ACRONYMS:
            continue
        start = m.start()
        line_start = text.rfind("\n", 0, start) + 1
        if acronym.isupper() and _CAPITALS_AFTER.match(text, m.end()):
            continue  # a line of capitals ("MEDICINA INTERNA - HOJA DE EVOLUCIÓN")
        before = _SERVICE_BEFORE.search(text, max(line_start, start - 40), start)
        if before and normalize(before.group("word")) in _SERVICE_WORDS:
            yield start, m.end(), HOSPITAL


# The kind is looked for first (few texts hold one), then the article before it.
_KIND = re.compile(r"(?:Clínico|Clínic|Regional|Provincial|Comarcal|General|Universitario)(?![\w-])")
_ARTICLE_BEFORE = re.compile(r"(?<!\w)(?:del|al|el|Del|Al|El)\s+\Z")
_CAPITALISED_AFTER = re.compile(r"\s+(?:de\s+|del\s+|d[’'])?[A-ZÁÉÍÓÚÑ]")


def find_hospital_kinds(text: str) -> Iterator[Match]:
    """Hospitals named by their kind alone (see the module)."""
    for m in _KIND.finditer(text):
        start, end = m.span()
        if start and text[start - 1].isalnum():
            continue
        if _ARTICLE_BEFORE.search(text, max(0, start - 6), start) and not _CAPITALISED_AFTER.match(text, end):
            yield start, end, HOSPITAL


# A Spanish hospital by its short name alone (:data:`~deid_crf.gazetteers.spanish.HOSPITAL_SHORT_NAMES`),
# in any case, after a preposition or an article (``de Valdecilla``, ``en son espases``, ``del
# molina orosa``, ``al Gregorio Marañón``), not followed by a capitalised word (a longer name's)
# or a number (an address: ``en Gregorio Marañón, 5``). The guide splits hold 6 the model missed;
# MEDDOCAN writes these hospitals with their full names.
_SHORT_NAMES = "|".join(re.escape(name) for name in longest_first(HOSPITAL_SHORT_NAMES))
_SHORT_NAME = re.compile(
    rf"(?<!\w)(?i:en|de|del|al|a|el|la|por|desde){SP}+(?P<name>(?i:{_SHORT_NAMES}))"
    rf"(?![\w'’-])(?!{SP}+[A-ZÁÉÍÓÚÑ]|{SP}*,?{SP}*\d)"
)
# (the preposition inside a longer name: "Hospital Universitario Marqués de Valdecilla", not
# a service's, "consulta de Hemostasia de Valdecilla")
_CAPITALISED_BEFORE = re.compile(
    rf"(?i:hospital|universitari[oa]?|complejo|complexo|hospitalario|marqués|clínic[oa]?)"
    rf"(?:{SP}+[A-ZÁÉÍÓÚÑ][^\W\d_]*)*{SP}+\Z"
)
_SHORT_NAME_KEYS = tuple(sorted({n.lower() for n in HOSPITAL_SHORT_NAMES}))


def find_hospital_short_names(text: str) -> Iterator[Match]:
    """Hospitals named by their short name alone (see above)."""
    lower = text.lower()
    if not any(name in lower for name in _SHORT_NAME_KEYS):  # (few texts hold one: plain substrings first)
        return
    for m in _SHORT_NAME.finditer(text):
        if not _CAPITALISED_BEFORE.search(text, max(0, m.start() - 30), m.start()):
            yield m.start("name"), m.end("name"), HOSPITAL
