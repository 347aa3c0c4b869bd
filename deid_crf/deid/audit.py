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

import functools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate, pairwise

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
# A run of two letters or more whose first letter is not one of the common lower-case
# ones (ASCII and Latin-1): every capitalised run of ``_WORD`` and few others, found with
# the first letter looked for first and what precedes it checked after, so that re skips
# the lower-case words in C (the same runs, checked with ``isupper`` after;
# tests/test_rule_prefilters.py).
_CAPITALISED_CANDIDATE = re.compile(r"[^\W\d_a-zß-öø-ÿ](?<![^\W\d_].)[^\W\d_]+")
# A run of four digits or more: its first digit looked for first and what precedes it
# checked after (``\d(?<!\d\d)``, not ``(?<!\d)\d``), so that re skips to the next digit
# in C (the same runs; tests/test_rule_prefilters.py).
_DIGITS = re.compile(r"\d(?<!\d\d)\d{3,}(?!\d)")
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
) -> tuple[frozenset[str], frozenset[str]]:
    """The normalised capitalised words and the digit runs of ``span.text`` that
    :func:`audit` looks for (see the module's documentation); words of ``ignore``
    (normalised: e.g. the street types the surrogates know) are left out too, and those
    of ``leading`` when they open the span (titles: "Doctora Marta")."""
    return _identifying_tokens(span.text, span.type, ignore, leading)


# Kept for the values a worker meets again: a surrogate run asks for each span twice
# (the words no surrogate may bring back, then the audit), and names and places recur
# across a batch's documents. (The frozensets hash once: CPython keeps their hash.)
@functools.lru_cache(maxsize=16_384)
def _identifying_tokens(
    text: str, type_: str, ignore: frozenset[str], leading: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    words = set()
    for i, m in enumerate(_WORD.finditer(text)):
        token = m.group()
        key = normalize(token)
        if not identifies(token) or key in ignore:
            continue
        if i == 0 and (key in leading or (type_ == RELATIVE_TYPE and key in KINSHIP)):
            continue
        words.add(key)
    digits = {m.group() for m in _DIGITS.finditer(text)} if type_ in _DIGIT_TYPES else set()
    # An international prefix (0034) and the year that opens an episode number
    # (2024/0045612) identify nobody, and a date or another phone has them as well.
    digits = {d for d in digits if not _PHONE_PREFIX.fullmatch(d)}
    if len(digits) > 1:
        digits = {d for d in digits if not _YEAR.fullmatch(d)}
    return frozenset(words), frozenset(digits)


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
    skip = _Regions(_output_regions(spans, set(placeholders)))
    found = []
    for m in _CAPITALISED_CANDIDATE.finditer(output):
        token = m.group()
        if token[0].isupper():
            type_ = wanted_words.get(normalize(token))
            if type_ is not None and not skip.contain(m.start(), m.end()):
                found.append(Survivor(m.start(), m.end(), type_))
    for m in _DIGITS.finditer(output):
        type_ = wanted_digits.get(m.group())
        if type_ is not None and not skip.contain(m.start(), m.end()):
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


class _Regions:
    """Which ``[start, end)`` lies inside one of the given regions, in O(log n) per
    question (a document of 10 MiB has ~80,000 spans and as many words to check: a scan
    of every region per word was quadratic)."""

    def __init__(self, regions: Iterable[tuple[int, int]]):
        ordered = sorted(regions)
        self.starts = [a for a, _ in ordered]
        # reach[i]: the furthest end of the regions 0 … i (regions may nest or overlap).
        self.reach = list(accumulate((b for _, b in ordered), max))

    def contain(self, start: int, end: int) -> bool:
        """Whether some region ``[a, b)`` has ``a <= start`` and ``end <= b``."""
        last = bisect_right(self.starts, start) - 1
        return last >= 0 and self.reach[last] >= end


def mask_survivors(
    text: str, spans: Sequence[PHISpan], survivors: Sequence[Survivor], mask: Callable[[PHISpan], str]
) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping, replaced, of the original ``text``) with every
    survivor masked: the span whose replacement holds it gets ``mask`` of itself, and a
    survivor outside every replacement becomes a new span of the original text (same
    characters there: outside the spans the output is the original), of the survivor's
    type, source :data:`AUDIT`, replaced by its mask."""
    if any(b.start < a.end for a, b in pairwise(spans)):
        raise ValueError("mask_survivors needs sorted spans that do not overlap")
    out = list(spans)
    # The spans' output regions: sorted and disjoint like the spans, so both their starts
    # and their ends ascend and each survivor's place among them is found by bisection.
    starts, ends = [], []
    delta = 0
    for span in spans:
        new = len(span.replacement) if span.replacement is not None else span.end - span.start
        starts.append(span.start + delta)
        ends.append(span.start + delta + new)
        delta += new - (span.end - span.start)
    shifts = _shifts(spans)
    added = []
    for survivor in survivors:
        # The regions ending after the survivor's start: the first of them holds it if it
        # starts before the survivor's end; those before it end before the survivor.
        after = bisect_right(ends, survivor.start)
        if after < len(spans) and starts[after] < survivor.end:
            out[after] = replace(spans[after], replacement=mask(spans[after]))
            continue
        shift = shifts[after - 1] if after else 0
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
