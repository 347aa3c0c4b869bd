"""Recognizers a user declares in a configuration file (:mod:`deid_crf.deid.user_config`):
a regular expression of one entity type with an optional check-digit validator and
context words (the shape of presidio's ``PatternRecognizer``), and word lists.

Both give ``text -> Iterator[Match]`` like the built-in recognizers, so the rule layer
runs them and merges their spans the same way (:class:`deid_crf.deid.rules.RuleLayer`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import phonenumbers

from deid_crf.deid.recognizers.common import Match

# Context words are looked for among the word tokens before a match, in a window of
# at most this many characters (a token window never needs more).
_CONTEXT_CHARS = 300
_WORD = re.compile(r"\w+")
# ``stdnum`` module names: ``iban``, ``es.dni``, ``es.nie``…
_STDNUM_NAME = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?")
PHONENUMBERS = "phonenumbers"


def _valid_phone(value: str) -> bool:
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(value, "ES"))
    except phonenumbers.NumberParseException:
        return False


def validator(name: str) -> Callable[[str], bool]:
    """The check of validator ``name``: ``phonenumbers`` (a valid number, Spain by
    default), or a ``python-stdnum`` module (``es.dni``, ``es.nie``, ``es.nif``,
    ``iban``, ``es.ccc``…) whose ``is_valid`` is used. ``ValueError`` for another name."""
    if name == PHONENUMBERS:
        return _valid_phone
    if not _STDNUM_NAME.fullmatch(name):
        raise ValueError(f"unknown validator {name!r}: use 'phonenumbers' or a python-stdnum module such as 'es.dni'")
    try:
        module = importlib.import_module(f"stdnum.{name}")
    except ImportError:
        raise ValueError(f"unknown validator {name!r}: python-stdnum has no module stdnum.{name}") from None
    check = getattr(module, "is_valid", None)
    if not callable(check):
        raise ValueError(f"unknown validator {name!r}: stdnum.{name} has no is_valid()")
    return check


@dataclass(frozen=True)
class PatternRecognizer:
    """Matches of ``pattern`` typed ``type``; with ``validator``, only matches it
    accepts; with ``context``, only matches with one of those words (lower-cased)
    among the ``context_window`` word tokens before them."""

    type: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool] | None = None
    context: frozenset[str] = frozenset()
    context_window: int = 5

    def find(self, text: str) -> Iterator[Match]:
        for m in self.pattern.finditer(text):
            start, end = m.span()
            if start == end:
                continue
            if self.check is not None and not self.check(m.group()):
                continue
            if self.context and not self._has_context(text, start):
                continue
            yield start, end, self.type

    def _has_context(self, text: str, start: int) -> bool:
        before = _WORD.findall(text, max(0, start - _CONTEXT_CHARS), start)
        return any(word.lower() in self.context for word in before[-self.context_window :])


def word_pattern(words: Iterable[str], ignore_case: bool = False) -> re.Pattern[str]:
    """One expression for every occurrence of ``words`` that neither begins nor ends
    inside a word (the longest first where they share a start)."""
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    alternatives = "|".join(re.escape(w) for w in ordered)
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE if ignore_case else 0)
