"""The named feature groups that a configuration can switch on and off.

A *type* group maps distinct token strings to columns (computed once per type);
a *context* group maps whole token arrays (``tokens``, ``doc``, ``line``) to
integer-coded per-token columns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import context, lexical


@dataclass(frozen=True)
class FeatureGroup:
    name: str
    kind: str  # "type" or "context"
    extract: Callable[..., dict]
    description: str


GROUPS: dict[str, FeatureGroup] = {
    g.name: g
    for g in (
        FeatureGroup("lower", "type", lexical.lower, "lower-cased token"),
        FeatureGroup("affixes", "type", lexical.affixes, "prefixes and suffixes"),
        FeatureGroup("shape", "type", lexical.shapes, "long and short word shape"),
        FeatureGroup("flags", "type", lexical.flags, "case/digit/punctuation flags, length bucket"),
        FeatureGroup("patterns", "type", lexical.patterns, "regex flags: e-mail, URL, date, phone, ids"),
        FeatureGroup("field_label", "context", context.field_label, "header label before ':' on the line"),
        FeatureGroup("line_position", "context", context.line_position, "token index in its line"),
    )
}


def get_group(name: str) -> FeatureGroup:
    try:
        return GROUPS[name]
    except KeyError:
        raise ValueError(f"unknown feature group {name!r}; known: {sorted(GROUPS)}") from None
