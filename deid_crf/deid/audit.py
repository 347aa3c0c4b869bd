"""Leak audit: does any original value of a masked or surrogate output survive in it?

A rewrite hides only what was found, and a surrogate keeps some words on purpose
(kinship words in ``su hija Marta``, the kind of a hospital, titles). After the
replacement, :func:`audit` takes every replaced span's identifying tokens and looks for
them anywhere in the output text:

* capitalised words of 2+ letters (a name, a town, a hospital's own name), compared
  with accents and letter case folded, against the output's capitalised words;
  words that carry no identity are left out: particles, titles, the kind words of an
  institution or a street, months and weekdays, and kinship words at the start of a
  relative's span (``Madre de 60 años``);
* runs of 4+ digits of identifiers, phone and fax numbers, against the output's digit
  runs; not an international prefix (``0034``), nor a year next to other digits
  (``2024/0045612``).

Each survivor is reported by the output offsets where it is and the type of the span
it came from, never its text. :func:`mask_survivors` (``--strict``) masks them: a
survivor inside a span's replacement masks that span, one outside every span becomes
a span of its own, masked, so the key record and the output offsets stay right.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from deid_crf.deid.surrogates import ID_TYPES, RELATIVE_TYPE
from deid_crf.gazetteers.spanish import (
    ADDRESS_WORDS,
    INSTITUTION_WORDS,
    KINSHIP,
    MONTHS,
    PARTICLES,
    SPECIALTY_WORDS,
    STREET_TYPES,
    TITLE_WORDS,
    WEEKDAYS,
    normalize,
)
from deid_crf.text.spans import PHISpan

AUDIT = "audit"  # source of a span --strict added over a survivor outside every span
_WORD = re.compile(r"[^\W\d_]+")
_DIGITS = re.compile(r"(?<!\d)\d{4,}(?!\d)")
_PHONE_PREFIX = re.compile(r"00[1-9]\d{1,2}")
_YEAR = re.compile(r"(?:19|20)\d\d")
_DIGIT_TYPES = frozenset((*ID_TYPES, "NUMERO_TELEFONO", "NUMERO_FAX"))
# Words a surrogate keeps by design and that identify nobody.
_NOT_IDENTIFYING = frozenset(
    normalize(w).rstrip(".")
    for w in (
        *PARTICLES,
        *TITLE_WORDS,
        *ADDRESS_WORDS,
        *INSTITUTION_WORDS,
        *SPECIALTY_WORDS,
        *(t for street in STREET_TYPES for t in street.split()),
        *MONTHS,
        *WEEKDAYS,
    )
)


@dataclass(frozen=True, order=True)
class Survivor:
    """An identifying token of an original value found in the output text at
    ``[start, end)`` (output offsets); ``type`` is the type of the span it came from."""

    start: int
    end: int
    type: str


def identifies(word: str) -> bool:
    """Whether a word could name someone or somewhere: capitalised, 2+ letters, and not
    a word a surrogate keeps by design (particles, titles, kind words, months)."""
    return len(word) >= 2 and word[0].isupper() and normalize(word) not in _NOT_IDENTIFYING


def identifying_tokens(
    span: PHISpan, ignore: frozenset[str] = frozenset(), leading: frozenset[str] = frozenset()
) -> tuple[set[str], set[str]]:
    """The normalised capitalised words and the digit runs of ``span.text`` that
    :func:`audit` looks for (see the module's documentation); words of ``ignore``
    (normalised: e.g. the street types the surrogates know) are left out too, and those
    of ``leading`` when they open the span (titles: "Doctora Marta")."""
    words = set()
    for i, m in enumerate(_WORD.finditer(span.text)):
        token = m.group()
        key = normalize(token)
        if not identifies(token) or key in ignore:
            continue
        if i == 0 and (key in leading or (span.type == RELATIVE_TYPE and key in KINSHIP)):
            continue
        words.add(key)
    digits = {m.group() for m in _DIGITS.finditer(span.text)} if span.type in _DIGIT_TYPES else set()
    # An international prefix (0034) and the year that opens an episode number
    # (2024/0045612) identify nobody, and a date or another phone has them as well.
    digits = {d for d in digits if not _PHONE_PREFIX.fullmatch(d)}
    if len(digits) > 1:
        digits = {d for d in digits if not _YEAR.fullmatch(d)}
    return words, digits


def identifying_words(
    spans: Iterable[PHISpan], ignore: frozenset[str] = frozenset(), leading: frozenset[str] = frozenset()
) -> set[str]:
    """The capitalised words of every span that :func:`audit` would look for: what no
    surrogate should bring back."""
    return {word for span in spans for word in identifying_tokens(span, ignore, leading)[0]}


def audit(
    output: str,
    spans: Sequence[PHISpan],
    placeholders: Iterable[int] = (),
    ignore: frozenset[str] = frozenset(),
    leading: frozenset[str] = frozenset(),
) -> list[Survivor]:
    """Survivors, in output order, of the replaced ``spans`` (with ``text`` and
    ``replacement`` filled, in text order, as a masked or surrogate
    :class:`~deid_crf.deid.deidentifier.Result` holds them) in ``output``. Spans left
    as they were on purpose (a kept type: ``replacement == text``) are not audited;
    ``placeholders`` are the indices of spans replaced by a mask placeholder, whose
    output is not searched; words of ``ignore``, and of ``leading`` opening a span,
    are not looked for (:func:`identifying_tokens`)."""
    wanted_words: dict[str, str] = {}
    wanted_digits: dict[str, str] = {}
    for span in spans:
        if span.replacement is None or span.replacement == span.text:
            continue
        words, digits = identifying_tokens(span, ignore, leading)
        for key in words:
            wanted_words.setdefault(key, span.type)
        for run in digits:
            wanted_digits.setdefault(run, span.type)
    if not wanted_words and not wanted_digits:
        return []
    skip = _output_regions(spans, set(placeholders))
    found = []
    for m in _WORD.finditer(output):
        token = m.group()
        if len(token) >= 2 and token[0].isupper():
            type_ = wanted_words.get(normalize(token))
            if type_ is not None and not _inside(m.start(), m.end(), skip):
                found.append(Survivor(m.start(), m.end(), type_))
    for m in _DIGITS.finditer(output):
        type_ = wanted_digits.get(m.group())
        if type_ is not None and not _inside(m.start(), m.end(), skip):
            found.append(Survivor(m.start(), m.end(), type_))
    return sorted(found)


def _output_regions(spans: Sequence[PHISpan], indices: set[int]) -> list[tuple[int, int]]:
    regions, delta = [], 0
    for i, span in enumerate(spans):
        new = len(span.replacement) if span.replacement is not None else span.end - span.start
        if i in indices:
            regions.append((span.start + delta, span.start + delta + new))
        delta += new - (span.end - span.start)
    return regions


def _inside(start: int, end: int, regions: Sequence[tuple[int, int]]) -> bool:
    return any(a <= start and end <= b for a, b in regions)


def mask_survivors(
    text: str, spans: Sequence[PHISpan], survivors: Sequence[Survivor], mask: Callable[[PHISpan], str]
) -> list[PHISpan]:
    """``spans`` (sorted, replaced, of the original ``text``) with every survivor
    masked: the span whose replacement holds it gets ``mask`` of itself, and a
    survivor outside every replacement becomes a new span of the original text (same
    characters there: outside the spans the output is the original), of the survivor's
    type, source :data:`AUDIT`, replaced by its mask."""
    out = list(spans)
    regions = []  # (output start, output end, shift of the text after the span)
    delta = 0
    for span in spans:
        new = len(span.replacement) if span.replacement is not None else span.end - span.start
        regions.append((span.start + delta, span.start + delta + new))
        delta += new - (span.end - span.start)
    shifts = _shifts(spans)
    added = []
    for survivor in survivors:
        holder = next((i for i, (a, b) in enumerate(regions) if a < survivor.end and survivor.start < b), None)
        if holder is not None:
            out[holder] = replace(spans[holder], replacement=mask(spans[holder]))
            continue
        before = [i for i, (_, b) in enumerate(regions) if b <= survivor.start]
        shift = shifts[before[-1]] if before else 0
        start, end = survivor.start - shift, survivor.end - shift
        new_span = PHISpan(start, end, survivor.type, 1.0, AUDIT, text=text[start:end])
        added.append(replace(new_span, replacement=mask(new_span)))
    return sorted(out + added)


def _shifts(spans: Sequence[PHISpan]) -> list[int]:
    """For each span, how far the output after it is from the original (output − original)."""
    out, delta = [], 0
    for span in spans:
        new = len(span.replacement) if span.replacement is not None else span.end - span.start
        delta += new - (span.end - span.start)
        out.append(delta)
    return out
