"""What every recognizer shares: the match tuple, the entity types, and line context.

A recognizer is a function ``text -> Iterator[Match]``. Its spans never hold a line
break, so every output format (a BRAT ``T`` line above all) keeps one span on one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache

from deid_crf.text import document as text_document

Match = tuple[int, int, str]  # start, end, entity type

# MEDDOCAN entity types the recognizers produce. URL_WEB, DIREC_PROT_INTERNET and
# IDENTIF_DISPOSITIVOS_NRSERIE are guideline types that occur in neither train nor dev.
EMAIL = "CORREO_ELECTRONICO"
URL = "URL_WEB"  # P25.1: "www.sample.com"
PROTOCOL_ADDRESS = "DIREC_PROT_INTERNET"  # P24.1: "https://www.sample.com", "ftp://…"
DEVICE_ID = "IDENTIF_DISPOSITIVOS_NRSERIE"  # P23.1: "Anotar las direcciones IP, MAC ADDRESS"
PHONE = "NUMERO_TELEFONO"
FAX = "NUMERO_FAX"
TERRITORY = "TERRITORIO"
PATIENT_ID = "ID_SUJETO_ASISTENCIA"
INSURANCE_ID = "ID_ASEGURAMIENTO"
CONTACT_ID = "ID_CONTACTO_ASISTENCIAL"
COLLEGIATE_ID = "ID_TITULACION_PERSONAL_SANITARIO"
EMPLOYEE_ID = "ID_EMPLEO_PERSONAL_SANITARIO"
OTHER_ID = "NUMERO_IDENTIF"
OTHER_SUBJECT = "OTROS_SUJETO_ASISTENCIA"
INSTITUTION = "INSTITUCION"
DATE = "FECHAS"
STREET = "CALLE"

# An age field's label in Spanish, Catalan, Galician and Basque (ages and sex fields).
# English too: a foreign patient's record may keep its fields (``Age: 67 years · Sex: male``).
AGE_LABELS = ("edad", "edat", "idade", "adina", "age")

# Spaces that do not break a line. U+2028 and U+2029 are left out by a lookahead, not in
# the class: a class holding a character above U+00FF and more than two runs of
# characters compiles to a table of all 65,536 BMP characters, about 0.1 ms per
# occurrence of SP, and the rule patterns hold hundreds of them, compiled in the serial
# start of every run (see SP_SHORT).
SP = (
    rf"(?:(?![{re.escape(''.join(c for c in text_document.LINE_BREAKS if ord(c) > 0xFF))}])"
    rf"[^\S{re.escape(''.join(c for c in text_document.LINE_BREAKS if ord(c) <= 0xFF))}])"
)
LINE_BREAKS = re.compile(f"[{re.escape(text_document.LINE_BREAKS)}]")
# Where a span is cut: a line break or a tab (BRAT's field separator).
SPAN_BREAKS = re.compile(f"[{re.escape(text_document.SPAN_BREAKS)}]")
# The two line breaks above U+00FF. A character class holding one of them and more than
# two runs of characters compiles to a table of all 65,536 BMP characters, about 0.1 ms
# per occurrence of SP, and the longest patterns hold hundreds of them. SP_SHORT leaves
# them out and compiles as fast as any class (the bodies' list 53 -> 25 ms, the heads'
# 21 -> 7 ms, where every worker forked for a batch is waiting for them); it
# reads every other character as SP does, ignoring case too (no character changes case
# to or from them), so a pattern written with it finds the same matches as with SP in
# a text that holds neither (tests/test_rule_prefilters.py).
RARE_LINE_BREAKS = "\u2028\u2029"
SP_SHORT = rf"[^\S{re.escape(''.join(c for c in text_document.LINE_BREAKS if c not in RARE_LINE_BREAKS))}]"


def has_rare_line_breaks(text: str) -> bool:
    """Whether ``text`` holds U+2028 or U+2029, the characters where SP and SP_SHORT differ."""
    return RARE_LINE_BREAKS[0] in text or RARE_LINE_BREAKS[1] in text


def with_short_spaces(pattern: str) -> str:
    """``pattern`` with SP_SHORT for each SP: the same matches in a text without
    :data:`RARE_LINE_BREAKS` (see :data:`SP_SHORT`)."""
    return pattern.replace(SP, SP_SHORT)


def line_before(text: str, start: int, width: int) -> str:
    """Up to ``width`` characters before ``start`` on the same line, lower-cased."""
    window = text[max(0, start - width) : start]
    breaks = [m.end() for m in LINE_BREAKS.finditer(window)]
    return window[breaks[-1] if breaks else 0 :].lower()


def lines(text: str) -> Iterator[tuple[int, str]]:
    """Each line of ``text`` with the offset where it starts (line breaks left out)."""
    start = 0
    for m in LINE_BREAKS.finditer(text):
        yield start, text[start : m.start()]
        start = m.end()
    yield start, text[start:]


def _letter_groups(alternatives: Sequence[str]) -> dict[str, list[str]]:
    """``alternatives`` (patterns that each open with a letter) grouped by that letter in
    lower case, each group's in their order and without the letter; letters that match
    the same character ignoring case are refused."""
    groups: dict[str, list[str]] = {}
    for alternative in alternatives:
        letter = alternative[:1]
        if not letter.isalpha():
            raise ValueError(f"an alternative must open with a letter: {alternative!r}")
        groups.setdefault(letter.lower(), []).append(alternative[1:])
    letters = list(groups)
    for i, a in enumerate(letters):  # "ı" and "i" would both match "I" under IGNORECASE
        for b in letters[i + 1 :]:
            if re.fullmatch(re.escape(a), b, re.IGNORECASE) or re.fullmatch(re.escape(b), a, re.IGNORECASE):
                raise ValueError(f"letters {a!r} and {b!r} match the same character")
    return groups


def by_first_letter(alternatives: Sequence[str]) -> str:
    """``(?:a|b|…)`` over ``alternatives`` (patterns that each open with a letter),
    grouped by that letter: ``(?:m(?:adre|arido)|p(?:adre)|…)``. The same strings match
    in the same order of preference (a letter group holds its alternatives in their
    order, and the groups' letters exclude one another even ignoring case), but ``re``
    tries one branch per letter at each position instead of every alternative, as it
    does not factor a long alternation itself."""
    groups = _letter_groups(alternatives)
    return "(?:" + "|".join(f"{letter}(?:{'|'.join(rest)})" for letter, rest in groups.items()) + ")"


# The characters besides a letter's own two cases that ``re`` takes for one ignoring
# case: U+0130 and U+0131 for i, U+017F for s, U+212A for k, U+212B for å, U+1E9E for ß
# (tests/test_rule_prefilters.py checks every character against these).
CASE_EXTRAS = "\u0130\u0131\u017f\u212a\u212b\u1e9e"


def letter_first(alternatives: Sequence[str]) -> str:
    """``(?<!\\w)(?i:a|b|…)`` over ``alternatives`` (patterns that each open with a
    letter) written to open with a class of the characters that open one, in either
    case: ``[mMpP](?<!\\w.)(?i:(?<=m)(?:adre|arido)|(?<=p)(?:adre))``. The same matches,
    in the same order of preference (as :func:`by_first_letter`), but ``re`` skips in C
    to the next character of the class instead of trying the alternation at every
    position. The class is case-sensitive: the pattern holding it must not be compiled
    with ``re.IGNORECASE`` (its ``(?i:…)`` parts say where case is ignored)."""
    groups = _letter_groups(alternatives)
    opening = sorted(
        {c for letter in groups for c in {letter, letter.upper(), *CASE_EXTRAS} if re.fullmatch(letter, c, re.I)}
    )
    branches = "|".join(f"(?<={letter})(?:{'|'.join(rest)})" for letter, rest in groups.items())
    return f"[{''.join(opening)}](?<!\\w.)(?i:{branches})"


def listed_names(files: Iterable[str], key: Callable[[str], str]) -> frozenset[str]:
    """The ``key`` of every entry of the committed gazetteer lists ``files``
    (``gazetteers/lists/``), for recognizers that look names up."""
    from deid_crf.resources.gazetteer import DEFAULT_DIR, read_list

    return frozenset(key(name) for file in files for name in read_list(DEFAULT_DIR / file))


def longest_first(words: Iterable[str]) -> list[str]:
    """``words`` once each, the longest first (an alternation then prefers the longest of
    two that open alike), and alphabetically among equally long ones: the same order in
    every process, whatever the hash seed of a set they came from, so that a pattern
    built from them is the same string at every run (:mod:`deid_crf.io.pattern_cache`)."""
    return sorted(set(words), key=lambda word: (-len(word), word))


def is_word_char(char: str) -> bool:
    """What ``\\w`` matches (``re`` on a str: alphanumerics and the underscore)."""
    return char.isalnum() or char == "_"


def starts_before(text: str, anchors: Iterable[int], words: int) -> list[int]:
    """Every position, ascending and once, from ``words`` words before each of
    ``anchors`` up to the anchor itself: from an anchor, walking back ``words`` times
    over a run of other characters and then a run of word characters (``\\w``). A
    pattern whose matches hold such an anchor word, with at most ``words`` words
    (separated by anything but word characters) before it, can begin only there: give
    these to :func:`finditer_at`."""
    out: list[int] = []
    for anchor in anchors:
        i = anchor
        for _ in range(words):
            while i and not is_word_char(text[i - 1]):
                i -= 1
            while i and is_word_char(text[i - 1]):
                i -= 1
        out.extend(range(max(i, out[-1] + 1 if out else 0), anchor + 1))
    return out


def merged(*starts: Iterable[int]) -> list[int]:
    """The positions of all ``starts``, ascending and once."""
    return sorted({i for positions in starts for i in positions})


def finditer_at(pattern: re.Pattern[str], text: str, starts: Iterable[int]) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` finds, trying ``pattern`` only at ``starts``
    (ascending): exactly the same matches when ``starts`` holds every position where a
    match of ``pattern`` can begin, found by something far cheaper than trying
    ``pattern`` everywhere. ``pattern`` must not match the empty string. Its
    lookbehinds, ``\\b`` and ``^`` still see the text before each start, as in
    ``finditer``."""
    resume = 0  # as finditer, the next match begins at or after the last one's end
    for start in starts:
        if start < resume:
            continue
        m = pattern.match(text, start)
        if m is not None:
            if m.end() == start:
                raise ValueError(f"{pattern.pattern[:40]!r}… matched the empty string at offset {start}")
            yield m
            resume = m.end()


# A note written in lower case throughout ("s: varón 39a, natural de mbour (senegal). llegó
# en …"): most of its sentences open with a lower-case letter (the notes' guide splits: 10
# notes, 54–100 %; MEDDOCAN train and dev at most 14 %, the unlabeled case reports at most
# 43 %). Names and places are written in lower case there too.
_SENTENCE_OPENING = re.compile(r"(?:^|[.!?][ \t]+)[^\w\n]*([^\W\d_])", re.MULTILINE)
_LOWER_CASE_SHARE = 0.5
_FEWEST_OPENINGS = 8


@lru_cache(maxsize=4)  # asked twice per text by the rule layer
def is_lower_case_note(text: str) -> bool:
    """Most of ``text``'s sentences, at least :data:`_FEWEST_OPENINGS`, open in lower case."""
    openings = [m.group(1) for m in _SENTENCE_OPENING.finditer(text)]
    return len(openings) >= _FEWEST_OPENINGS and sum(c.islower() for c in openings) >= _LOWER_CASE_SHARE * len(openings)
