"""The writer's signature in brackets that closes a nursing or progress-note entry.

Nursing records and progress notes write an entry per line or paragraph, opened by its
date (``04/03 M — …``, ``mar 15-oct — …``, ``19/10/24 — Alta …``) and closed by whoever
wrote it, in brackets: ``(Lorena, enf.)``, ``(TCAE Jesús)``, ``(enf. Reme)``,
``(Ó. Revuelta)``, ``— (ALG)``. The writer is staff (NOMBRE_PERSONAL_SANITARIO; the
role word is no part of the name, guideline N3.1); MEDDOCAN has no such entries, and
the model misses the writer or takes them for the patient or a relative.

:func:`entry_signatures` puts a staff span on the name in such a bracket at the end of
a line, in place of the spans inside the bracket:

- a role word before or after the name says it is staff wherever the line is
  (``TCAE``, ``enf.``, ``aux.``, ``MIR``, a resident's year ``R2``);
- an initial and a surname (``Ó. Revuelta``) at the end of an entry's line;
- capital initials alone (``ALG``) only where nothing else can be meant: right after
  the entry's date and its dash, before a resident's year, or closing two entries or
  more (a clinical acronym, ``(EPOC)``, closes one sentence, not every entry);
- a name alone (``(Lorena)``) when the same name signs with a role elsewhere in the
  text.

:func:`entry_initials` puts one on capital initials alone after an entry's date and dash
that close the line (``Mar 04/11 09:15 – ESH``), when they sign two entries or more.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence

from deid_crf.deid.recognizers.common import SP
from deid_crf.gazetteers.spanish import MONTH_ABBREVIATIONS, UPPER, WEEKDAY_ABBREVIATIONS, WEEKDAYS
from deid_crf.text.spans import RULE, PHISpan

STAFF = "NOMBRE_PERSONAL_SANITARIO"

_WEEKDAY_ABBREVIATION = f"(?:{'|'.join(WEEKDAY_ABBREVIATIONS)})"
# The date that opens an entry: a day and month in figures (a year maybe), or a
# weekday's abbreviation and the day (``vie 18``, ``mar 15-oct``, ``miér 4 feb``).
_ENTRY_DATE = (
    rf"(?:\d{{1,2}}[/.]\d{{1,2}}(?:[/.]\d{{2,4}})?"
    rf"|(?i:{_WEEKDAY_ABBREVIATION}|{'|'.join(WEEKDAYS)})\.?,?{SP}+\d{{1,2}}"
    rf"(?:-[^\W\d_]{{3}}|{SP}+(?i:{'|'.join(MONTH_ABBREVIATIONS)})\.?(?!\w)|[/.]\d{{1,2}}(?:[/.]\d{{2,4}})?|{SP}+de{SP}+[^\W\d_]+(?:{SP}+de{SP}+\d{{4}})?)?)"
)
_ENTRY_LINE = re.compile(rf"^{SP}*{_ENTRY_DATE}(?={SP}|[(—–-]|$)", re.MULTILINE)
_AFTER_ENTRY_DATE = re.compile(rf"{SP}*(?:[{UPPER}]{SP}+)?[—–-]{SP}*$")

_ROLE = r"(?i:enf|enferm|enfermer[oa]|tcae|aux|auxiliar|mir|fisio|fisioterapeuta|matrona|celador[a]?|due)\.?"
_RESIDENT_YEAR = r"R[1-5]"
_NAME_WORD = rf"[{UPPER}][^\W\d_]+(?:-[{UPPER}][^\W\d_]+)?"
_NAME = rf"{_NAME_WORD}(?:{SP}+(?:(?:de|del|de{SP}+la|y|i){SP}+)?{_NAME_WORD}){{0,3}}"
_INITIAL_AND_SURNAME = rf"[{UPPER}]\.{SP}?{_NAME_WORD}(?:{SP}+{_NAME_WORD})?"
_INITIALS = rf"[{UPPER}]{{2,4}}"
# A bracket that closes its line (a full stop after it at most), and what it holds.
_CLOSING_BRACKET = re.compile(rf"\((?P<inner>[^()\n]{{1,60}})\){SP}*\.?{SP}*$", re.MULTILINE)
_ROLE_THEN_NAME = re.compile(rf"(?:{_ROLE}|{_RESIDENT_YEAR}){SP}+(?P<name>{_INITIAL_AND_SURNAME}|{_NAME})$")
_NAME_THEN_ROLE = re.compile(
    rf"(?P<name>{_INITIAL_AND_SURNAME}|{_NAME}|{_INITIALS}){SP}*,{SP}*(?:{_ROLE}|{_RESIDENT_YEAR})(?:[,;].*)?$"
)
_INITIAL_NAME_ALONE = re.compile(rf"(?P<name>{_INITIAL_AND_SURNAME})$")
_INITIALS_ALONE = re.compile(rf"(?P<name>{_INITIALS})(?:{SP}*[,;].*)?$")
_NAME_ALONE = re.compile(rf"(?P<name>{_NAME})$")


def _entry_lines(text: str) -> dict[int, int]:
    """The entries' lines: their start → where their date ends."""
    return {m.start(): m.end() for m in _ENTRY_LINE.finditer(text)}


def _signers(text: str) -> Iterator[tuple[re.Match[str], str, int]]:
    """Each closing bracket, and each signer in it (two may sign one entry: ``(TCAE
    Jesús / enf. Covadonga Sainz)``) with where the signer's text starts."""
    for bracket in _CLOSING_BRACKET.finditer(text):
        position = bracket.start("inner")
        for part in bracket.group("inner").split("/"):
            stripped = part.strip()
            if stripped:
                yield bracket, stripped, position + len(part) - len(part.lstrip())
            position += len(part) + 1


def _line_start(text: str, position: int) -> int:
    return text.rfind("\n", 0, position) + 1


def entry_signatures(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with the writer's name of each signature bracket (see the module) made a
    staff span, in place of the spans over the name."""
    signers = list(_signers(text)) if "(" in text else []
    if not signers:
        return list(spans)
    entries = _entry_lines(text)  # only for texts with a closing bracket (few)
    signed_with_role: set[str] = set()
    candidates: list[tuple[int, int, str, str]] = []  # start, end, kind, name
    for bracket, inner, offset in signers:
        line_start = _line_start(text, bracket.start())
        on_entry = line_start in entries
        m = _ROLE_THEN_NAME.match(inner) or _NAME_THEN_ROLE.match(inner)
        if m:
            kind = "role"
            signed_with_role.add(m.group("name"))
        elif on_entry and (m := _INITIAL_NAME_ALONE.match(inner)):
            kind = "initial"
        elif on_entry and (m := _INITIALS_ALONE.match(inner)):
            after_date = _AFTER_ENTRY_DATE.match(text[entries[line_start] : bracket.start()]) is not None
            kind = "role" if after_date else "initials"
        elif on_entry and (m := _NAME_ALONE.match(inner)):
            kind = "name"
        else:
            continue
        candidates.append((offset + m.start("name"), offset + m.end("name"), kind, m.group("name")))
    initials_signing = Counter(name for _, _, kind, name in candidates if kind == "initials")
    signatures = [
        (start, end)
        for start, end, kind, name in candidates
        if kind in ("role", "initial")
        or (kind == "initials" and initials_signing[name] >= 2)
        or (kind == "name" and name in signed_with_role)
    ]
    if not signatures:
        return list(spans)
    out = list(spans)
    for start, end in signatures:
        bracket_start, bracket_end = text.rfind("(", 0, start), text.find(")", end) + 1
        over = [s for s in out if s.start < end and s.end > start]
        if any(s.start < bracket_start or s.end > bracket_end for s in over):
            continue  # a span reaching out of the bracket: the model read something else there
        out = [s for s in out if s not in over]
        out.append(PHISpan(start, end, STAFF, 1.0, RULE))
    return sorted(out)


# Capital initials alone after an entry's date and dash, closing the line (``Mar 04/11
# 09:15 – ESH``), the line maybe in bold as notes written in Markdown put it (``**02/03 —
# IZG**``), a bracket after them (``— AMO** (busca 4762)``): the entry's writer, when the
# same initials sign two entries or more.
_BOLD = r"(?:\*\*|__)?"
_INITIALS_AFTER_ENTRY_DATE = re.compile(
    rf"^{SP}*{_BOLD}{_ENTRY_DATE}(?:{SP}+\d{{1,2}}[:h.]\d\d)?{SP}*[—–-]{SP}*(?P<name>{_INITIALS}){_BOLD}"
    rf"(?:{SP}*\([^()\n]{{1,40}}\))?{SP}*$",
    re.MULTILINE,
)


def entry_initials(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with a staff span on the initials that close two entry lines or more
    after their date and dash (see above), where no span reaches over them."""
    found = [m.span("name") for m in _INITIALS_AFTER_ENTRY_DATE.finditer(text)]
    signing = Counter(text[a:b] for a, b in found)
    out = list(spans)
    for start, end in found:
        if signing[text[start:end]] >= 2 and not any(s.start < end and s.end > start for s in out):
            out.append(PHISpan(start, end, STAFF, 1.0, RULE))
    return sorted(out)


# Capital initials that are a staff member's named in the same note (``Dra. Marta Álvarez
# Gil`` … ``MAG``; ``Leyenda de firmas: HLP = Hugo Leganés Prieto``), where a signature
# stands: alone on their line (an entry's close), before ``=`` (a legend of signatures) or
# after ``por`` (``comprobado por BS y CG``). The initials are a staff span's capitalised
# words' (particles left out): all of them, or the first two or three. Elsewhere in a note
# the same capitals are far more often a clinical acronym (``PCR`` of a Pedro Castro Ruiz).
_PARTICLE_WORDS = frozenset(("de", "del", "la", "las", "los", "y", "i", "e", "da", "do", "dos", "das"))
_STAFF_NAME_WORD = re.compile(rf"[{UPPER}][^\W\d_]*")
# Capitals first (a class, which re skips to in C), the signature's place checked after.
_CAPITALS_WORD = re.compile(rf"(?<![\w.])[{UPPER}]{{2,4}}(?![\w.])")
_LINE_AROUND = re.compile(rf"{SP}*{_BOLD}{SP}*\.?{SP}*$", re.MULTILINE)
_LEGEND_AFTER = re.compile(rf"{SP}*={SP}*[{UPPER}]")
_BY_BEFORE = re.compile(rf"(?<!\w)(?i:por){SP}+(?:[{UPPER}]{{2,4}}{SP}+[ye]{SP}+)?\Z")
_REACH_BEFORE = 24  # characters looked at before the initials


def _initials_of(name: str) -> set[str]:
    letters = "".join(m.group()[0] for m in _STAFF_NAME_WORD.finditer(name) if m.group().lower() not in _PARTICLE_WORDS)
    return {letters, letters[:2], letters[:3]} if len(letters) >= 2 else set()


def staff_initials(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with a staff span on capital initials where a signature stands that are
    those of a staff member named in the note (see above), where no span reaches over them."""
    initials = set().union(*(_initials_of(text[s.start : s.end]) for s in spans if s.type == STAFF))
    if not initials:
        return list(spans)
    out = list(spans)
    for m in _CAPITALS_WORD.finditer(text):
        start, end = m.span()
        if m.group() not in initials:
            continue
        before = text[max(0, start - _REACH_BEFORE) : start]
        line_start = text.rfind("\n", 0, start) + 1
        alone = not text[line_start:start].strip(" \t*_") and _LINE_AROUND.match(text, end) is not None
        if not (alone or _LEGEND_AFTER.match(text, end) or _BY_BEFORE.search(before)):
            continue
        if not any(s.start < end and s.end > start for s in out):
            out.append(PHISpan(start, end, STAFF, 1.0, RULE))
    return sorted(out)


# A legend of signatures (``Enfermeras: AZ = Amaia Zubizarreta; NL = Nerea Lasa``): the
# name whose words' initials are the capitals before ``=`` is staff, whatever person the
# model took it for, and so are the capitals (and, by staff_initials, wherever else they
# sign).
_PERSON_TYPES = frozenset(("NOMBRE_SUJETO_ASISTENCIA", "FAMILIARES_SUJETO_ASISTENCIA", STAFF))
# (or a space for "=", as a Catalan nursing sheet's ``Llegenda: AMP Anna Mir Parera · JCV Joan
# Casals Vidal``: the initials must be the name's all the same)
_LEGEND = re.compile(
    rf"(?<![\w.])(?P<initials>[{UPPER}]{{2,4}})(?:{SP}*={SP}*|{SP}+(?=[{UPPER}][a-zñáéíóúàèòïüç]))"
    rf"(?P<name>{_STAFF_NAME_WORD.pattern}(?:{SP}+(?:(?:de|del|la|y|i){SP}+)?{_STAFF_NAME_WORD.pattern}){{1,4}})"
)


_LEGEND_LABEL = re.compile(r"(?i:leyenda|llegenda|lenda|legenda)")


def signature_legends(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with each legend's name and initials made staff spans (see above)."""
    if "=" not in text and not _LEGEND_LABEL.search(text):
        return list(spans)
    out = list(spans)
    for m in _LEGEND.finditer(text):
        if m.group("initials") not in _initials_of(m.group("name")):
            continue
        for group in ("initials", "name"):
            start, end = m.span(group)
            inside = [s for s in out if s.start < end and start < s.end]
            if any(s.start < start or s.end > end or s.type not in _PERSON_TYPES for s in inside):
                continue  # a span of another kind or reaching out of it: left as it is
            out = [s for s in out if s not in inside] + [PHISpan(start, end, STAFF, 1.0, RULE)]
    return sorted(out)
