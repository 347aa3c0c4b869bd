"""Cleaning of list entries, shared by the list builder and the annotation lists."""

from __future__ import annotations

import re

from deid_crf.gazetteers.spanish import normalize, split_entry

# Spanish function words (normalised). An entry made only of these (``EN`` and ``AL``
# are INE first names, ``SAN`` and ``LAS`` surnames) would mark ordinary prose.
STOPWORDS = frozenset(
    """
    a al algo con de del e el en entre es esta este ha han hay he la las le les lo los me mi mis
    muy nada ni no nos o para pero por que se si sin sobre su sus te tu tus u un una uno unos unas
    y ya yo san santa santo
    """.split()
)

_SPACES = re.compile(r"\s+")


def clean(entry: str) -> str:
    """Whitespace collapsed and trimmed."""
    return _SPACES.sub(" ", entry).strip()


def entry_key(entry: str) -> str:
    """What matching sees of an entry: its normalised tokens, space-separated
    (``Castilla-La Mancha`` and ``CASTILLA - LA MANCHA`` share one key)."""
    return " ".join(normalize(t) for t in split_entry(entry))


def informative(entry: str) -> bool:
    """True when the entry has a letter and some token that is not a stop word."""
    tokens = [normalize(t) for t in split_entry(entry)]
    return any(t[:1].isalpha() for t in tokens) and any(t not in STOPWORDS for t in tokens if t[:1].isalpha())


def reorder_inverted(name: str) -> str:
    """INE's inverted official names read naturally: ``Balears, Illes`` → ``Illes
    Balears``, ``Rozas de Madrid, Las`` → ``Las Rozas de Madrid``, ``Asturias,
    Principado de`` → ``Principado de Asturias``."""
    name = clean(name)
    head, sep, tail = name.rpartition(", ")
    if not sep or "," in head:
        return name
    return f"{tail} {head}"


def official_variants(name: str) -> list[str]:
    """The names of a bilingual official name, each reordered: ``Alicante/Alacant``
    → ``Alicante``, ``Alacant``; ``Coruña, A`` → ``A Coruña``."""
    return [reorder_inverted(part) for part in name.split("/") if part.strip()]
