"""The other mentions of a place or an organisation a document names once in full.

A case report gives the address of the clinic that wrote it, ``Colón, 28, 1º``, and
names that clinic ``Unidad de Reumatología Colón-28-Clínica`` a few words earlier; a
maker found as ``(Allergan Humphrey, San Leandro, …)`` is mentioned again as a device,
``campo visual (Humphrey 30-2 …)``. The model finds the full mention and misses the
short one, and the short one then identifies what was replaced: the leak audit
(:mod:`deid_crf.deid.audit`) reports it as a survivor.

:func:`propagate_places` takes, before anything is replaced, each capitalised word the
audit would look for in a span of :data:`PLACE_TYPES` (the same definition:
:func:`~deid_crf.deid.audit.identifying_tokens`, which leaves out street and
institution kind words, particles, titles, months) and looks for it elsewhere in the
document, outside every span, written the same way (``Humphrey``, not ``HUMPHREY``: a
word in capitals is a header's as often as a name's). An occurrence counts only when
every other capitalised word around it (the words joined to it by spaces and
particles) is one of those words too or identifies nothing ("Unidad de Reumatología
Colón" counts, "restaurante Gran Muralla" for a found "Gran Canaria" does not); the
words found together become one span, of the type and confidence of the first span
that had them. Person names have their own propagation
(:func:`~deid_crf.deid.rules.propagate_names`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from deid_crf.deid.audit import identifies, identifying_tokens
from deid_crf.gazetteers.spanish import PARTICLES, UPPER, normalize
from deid_crf.text.spans import PROPAGATED, Coverage, PHISpan

PLACE_TYPES = ("CALLE", "TERRITORIO", "PAIS", "INSTITUCION", "HOSPITAL", "CENTRO_SALUD")
# Capitalised words and particles joined by spaces: the phrase around an occurrence.
_PHRASE_WORD = rf"(?:[{UPPER}][^\W\d_]*|(?:{'|'.join(sorted(PARTICLES))})(?!\w))"
_PHRASE = re.compile(rf"(?<!\w){_PHRASE_WORD}(?:[^\S\n]+{_PHRASE_WORD})*")
_WORD = re.compile(r"[^\W\d_]+")


def _title_case(word: str) -> bool:
    return len(word) >= 3 and word[0].isupper() and not word.isupper()


def propagate_places(text: str, spans: Sequence[PHISpan], types: Sequence[str] = PLACE_TYPES) -> list[PHISpan]:
    """``spans`` (not overlapping one another) plus the other occurrences, outside every
    span, of the identifying words of the spans of ``types`` (see the module)."""
    wanted: dict[str, PHISpan] = {}
    for span in spans:
        if span.type in types:
            value = text[span.start : span.end]
            words, _ = identifying_tokens(replace(span, text=value))
            for m in _WORD.finditer(value):
                if _title_case(m.group()) and normalize(m.group()) in words:
                    wanted.setdefault(m.group(), span)
    if not wanted:
        return list(spans)
    coverage = Coverage((s.start, s.end) for s in spans)
    # The words of a phrase are whole runs of letters of the text (a phrase starts and
    # ends at a run's edge), so a phrase holds a wanted word only if one of these
    # occurrences lies in it: the others are passed over without looking at their words.
    occurrences = iter(_letter_runs(text, wanted))
    next_occurrence = next(occurrences, None)
    added = []
    for phrase in _PHRASE.finditer(text):
        while next_occurrence is not None and next_occurrence[0] < phrase.start():
            next_occurrence = next(occurrences, None)
        if next_occurrence is None:
            break
        if next_occurrence[1] > phrase.end():
            continue
        words = list(_WORD.finditer(phrase.group()))
        found = [w for w in words if w.group() in wanted]
        if not found or any(w.group() not in wanted and identifies(w.group()) for w in words):
            continue
        start, end = phrase.start() + found[0].start(), phrase.start() + found[-1].end()
        if not coverage.overlaps(start, end):
            origin = wanted[found[0].group()]
            added.append(PHISpan(start, end, origin.type, origin.confidence, PROPAGATED))
    return sorted([*spans, *added]) if added else list(spans)


def _letter_runs(text: str, words: Iterable[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of each whole run of letters of ``text`` (what :data:`_WORD`
    finds) that is one of ``words`` (themselves runs of letters), in order. Found with
    ``str.find``: a pattern of the words would be compiled anew for every document."""
    found = []
    for word in words:
        start = text.find(word)
        while start >= 0:
            end = start + len(word)
            if not (start and _LETTER.match(text, start - 1)) and not _LETTER.match(text, end):
                found.append((start, end))
            start = text.find(word, start + 1)
    return sorted(found)


_LETTER = re.compile(r"[^\W\d_]")


# An acronym in brackets right after a hospital's or health centre's name defines it:
# "Hospital Universitario Miguel Servet (HUMS)", "Complejo Hospitalario Universitario de
# Santiago (CHUS)". The note then uses the acronym alone ("ingreso no CHUS"), which the
# model does not know. Not after an INSTITUCION: the model gives that type to generic
# services too ("Servicio de Salud Mental Infanto-Juvenil (CSMIJ)", no PHI in MEDDOCAN).
_ORGANISATION_TYPES = ("HOSPITAL", "CENTRO_SALUD")
_DEFINED_ACRONYM = re.compile(rf"[^\S\n]*\([^\S\n]*(?P<acronym>[{UPPER}][{UPPER}0-9]{{1,9}})[^\S\n]*\)")


def defined_acronyms(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) plus, for each hospital or centre span followed
    by an acronym in brackets, that acronym and its other whole-word occurrences, with
    the organisation's type, wherever no span is."""
    acronyms: dict[str, PHISpan] = {}
    for span in spans:
        if span.type in _ORGANISATION_TYPES and (m := _DEFINED_ACRONYM.match(text, span.end)):
            acronyms.setdefault(m.group("acronym"), span)
    if not acronyms:
        return list(spans)
    coverage = Coverage((s.start, s.end) for s in spans)
    pattern = re.compile(rf"(?<![\w-])(?:{'|'.join(map(re.escape, sorted(acronyms, key=len, reverse=True)))})(?![\w-])")
    added = []
    for m in pattern.finditer(text):
        if not coverage.overlaps(m.start(), m.end()):
            origin = acronyms[m.group()]
            added.append(replace(origin, start=m.start(), end=m.end(), source=PROPAGATED, text="", replacement=None))
    return sorted([*spans, *added])
