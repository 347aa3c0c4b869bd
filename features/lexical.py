"""Features of a token string alone, computed once per distinct token type.

Each function maps a list of distinct token strings to one or more columns (lists
of str values, one per type). Callers gather them to tokens by type index.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Columns = dict[str, list[str]]


def lower(types: Sequence[str]) -> Columns:
    return {"w": [t.lower() for t in types]}


def affixes(types: Sequence[str], lengths: Sequence[int] = (1, 2, 3, 4)) -> Columns:
    """Lower-cased prefixes ``p{n}`` and suffixes ``s{n}`` (the whole word when shorter)."""
    low = [t.lower() for t in types]
    columns: Columns = {}
    for n in lengths:
        columns[f"p{n}"] = [t[:n] for t in low]
        columns[f"s{n}"] = [t[-n:] for t in low]
    return columns


_SHAPE_TABLE = str.maketrans(
    {
        **{c: "X" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZÁÉÍÓÚÜÑÀÈÌÒÙÇ"},
        **{c: "x" for c in "abcdefghijklmnopqrstuvwxyzáéíóúüñàèìòùç"},
        **{c: "d" for c in "0123456789"},
    }
)
_REPEATS = re.compile(r"(.)\1+")


def word_shape(token: str) -> str:
    """``Cuéllar`` → ``Xxxxxxx``; other letters keep their case class, digits ``d``."""
    shape = token.translate(_SHAPE_TABLE)
    if shape.isascii():
        return shape
    return "".join(c if c in "Xxd" else ("X" if c.isupper() else "x" if c.isalpha() else c) for c in shape)


def shapes(types: Sequence[str]) -> Columns:
    """Long shape (capped at 12 characters) and short shape (repeats collapsed)."""
    long = [word_shape(t) for t in types]
    return {"shape": [s[:12] for s in long], "sshape": [_REPEATS.sub(r"\1", s) for s in long]}


def _flag_string(t: str) -> str:
    flags = []
    if t.isupper():
        flags.append("U")
    elif t.istitle():
        flags.append("T")
    elif t.islower():
        flags.append("L")
    if t.isdigit():
        flags.append("D")
    elif any(c.isdigit() for c in t):
        flags.append("d")
    if t.isalnum():
        flags.append("A")
    elif not any(c.isalnum() for c in t):
        flags.append("P")
    return "".join(flags) or "-"


def _length_bucket(n: int) -> str:
    return str(n) if n <= 4 else "5-7" if n <= 7 else "8-11" if n <= 11 else "12+"


def flags(types: Sequence[str]) -> Columns:
    """Case/digit/alphanumeric/punctuation flags as one code (``f``) and a length bucket."""
    return {"f": [_flag_string(t) for t in types], "len": [_length_bucket(len(t)) for t in types]}


# Checked in order; a token gets the first pattern that matches all of it.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    ("url", re.compile(r"(?:https?://|www\.)\S+")),
    ("date", re.compile(r"\d{1,2}[/.-]\d{1,2}[/.-](?:\d{2}|\d{4})")),
    ("year", re.compile(r"(?:19|20)\d\d")),
    ("phone", re.compile(r"(?:\+34|0034)?[6789]\d{8}")),
    ("postcode", re.compile(r"(?:0[1-9]|[1-4]\d|5[0-2])\d{3}")),
    ("id_long", re.compile(r"\d{7,}[A-Za-z]?|[A-Za-z]{1,3}\d{5,}")),
    ("digits_grouped", re.compile(r"\d+(?:[-/.]\d+){2,}")),
    ("time", re.compile(r"\d{1,2}:\d{2}")),
    ("decimal", re.compile(r"\d+[.,]\d+")),
    ("number", re.compile(r"\d+")),
    ("ordinal", re.compile(r"[ºª]")),
)


def patterns(types: Sequence[str]) -> Columns:
    """Name of the first regular pattern (e-mail, URL, date, phone, postal code,
    id-like digits…) that matches the whole token, or ``-``."""
    values = []
    for t in types:
        name = "-"
        if any(c.isdigit() or c in "@:/.ºª" for c in t):
            for pattern_name, pattern in PATTERNS:
                if pattern.fullmatch(t):
                    name = pattern_name
                    break
        values.append(name)
    return {"pat": values}
