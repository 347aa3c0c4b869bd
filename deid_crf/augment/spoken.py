"""Numbers, dates, identifiers and phones as a dictated note writes them.

Speech recognition and transcribed dictation write what was said: ``veintiocho de
enero de dos mil veinticinco``, a record number read digit by digit (``dos tres cuatro
cinco`` or ``2 3 4 5``), a phone in pairs or one digit at a time. The surfaces here are
whole PHI spans (guideline G4: annotated as written); the dictation commands around
them (``coma``, ``punto``, ``punto y aparte``) stay plain text.

The words come from ``num2words``; they are what the rule layer's reader
(:mod:`deid_crf.deid.recognizers.number_words`) parses back, and a test checks that.
"""

from __future__ import annotations

import random
from datetime import date

from num2words import num2words

from deid_crf.augment.values import chance, weighted
from deid_crf.gazetteers.spanish import MONTHS, WEEKDAYS


def number_words(n: int) -> str:
    """``n`` (0-9999) in Spanish words, as ``num2words`` writes them: 21 →
    ``veintiuno``, 1983 → ``mil novecientos ochenta y tres``, 2025 → ``dos mil
    veinticinco``."""
    if not 0 <= n <= 9999:
        raise ValueError(f"number_words covers 0-9999, not {n}")
    return num2words(n, lang="es")


def spoken_date(rng: random.Random, d: date, weekday: bool = False) -> str:
    """``veintiocho de enero de dos mil veinticinco``, ``el uno``→``primero de mayo``,
    sometimes without the year, with the weekday in front when ``weekday``."""
    day = "primero" if d.day == 1 and chance(rng, 0.5) else number_words(d.day)
    text = f"{day} de {MONTHS[d.month - 1]}"
    if chance(rng, 0.8):
        text += f" de {number_words(d.year)}"
    return f"{WEEKDAYS[d.weekday()]} {text}" if weekday else text


def spoken_age(rng: random.Random, years: int) -> str:
    """``setenta y dos años`` (the unit inside the span, P2.3)."""
    return f"{number_words(years)} años" if years != 1 else "un año"


def spoken_digits(rng: random.Random, number: str) -> str:
    """The digits of ``number`` as dictation writes them: one word per digit (``dos tres
    cuatro``), spaced digits (``2 3 4``), or pairs in words (``veintitrés cuarenta``)."""
    digits_only = "".join(ch for ch in number if ch.isdigit())
    style = weighted(rng, [("words", 4), ("spaced", 3), ("pairs", 2)])
    if style == "spaced":
        return " ".join(digits_only)
    if style == "pairs" and len(digits_only) % 2 == 0 and not digits_only.startswith("0"):
        pairs = [digits_only[i : i + 2] for i in range(0, len(digits_only), 2)]
        # A pair with a leading zero is read "cero siete".
        return " ".join(
            number_words(int(p)) if not p.startswith("0") else f"cero {number_words(int(p[1]))}" for p in pairs
        )
    return " ".join(number_words(int(ch)) for ch in digits_only)


def spoken_phone(rng: random.Random, national: str) -> str:
    """A phone number read out: digit by digit, or the first three digits then pairs
    (``seis seis nueve veintitrés cuarenta y cinco…``)."""
    digits_only = "".join(ch for ch in national if ch.isdigit())
    if chance(rng, 0.5):
        return spoken_digits(rng, digits_only)
    head = " ".join(number_words(int(ch)) for ch in digits_only[:3])
    return f"{head} {spoken_digits(rng, digits_only[3:])}"
