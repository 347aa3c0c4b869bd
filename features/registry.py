"""The named feature groups that a configuration can switch on and off.

A *type* group maps distinct token strings to columns (computed once per type);
a *type_resource* group does the same from a trained resource's output per
distinct string (embedding vectors); a *context* group maps whole token arrays
(``tokens``, ``doc``, ``line``) to integer-coded per-token columns; a *resource*
group does the same from the output of a trained resource (POS tagger,
gazetteers). The application computes the resources' outputs and passes them in
(see ``deid_crf.resources``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from deid_crf.features import context, embedding, gazetteer, lexical, pos

KINDS = ("type", "type_resource", "context", "resource")
# Kinds whose columns depend on the token string alone (coded per distinct string).
PER_TYPE_KINDS = ("type", "type_resource")


@dataclass(frozen=True)
class FeatureGroup:
    name: str
    kind: str  # one of KINDS
    extract: Callable[..., dict]
    description: str
    # The value that means "no feature here" (no gazetteer match, no label): CRFsuite
    # items leave its attribute out, so that a token carries only what it has (the
    # weights of an always-present "none" attribute are the bias's job).
    absent: str | None = None
    # The trained resource whose output the group's extractor reads (kinds
    # "resource" and "type_resource"); the application computes that output.
    resource: str | None = None


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
        FeatureGroup(
            "document_label",
            "context",
            context.document_label,
            "field label of the same word elsewhere in the document",
            absent=context.NO_VALUE,
        ),
        FeatureGroup(
            "pos",
            "resource",
            pos.pos_columns,
            "UPOS, EAGLES-2, UPOS|word and UPOS bigram (POS tagger)",
            resource="pos_tagger",
        ),
        FeatureGroup(
            "embeddings",
            "type_resource",
            embedding.cluster_columns,
            "fastText k-means cluster ids (64/256/1024)",
            resource="embeddings",
        ),
        FeatureGroup(
            "gazetteers",
            "resource",
            gazetteer.extract,
            "longest-match gazetteer BIO tags and name bands",
            absent=gazetteer.NO_VALUE,
            resource="gazetteer",
        ),
    )
}


def get_group(name: str) -> FeatureGroup:
    try:
        return GROUPS[name]
    except KeyError:
        raise ValueError(f"unknown feature group {name!r}; known: {sorted(GROUPS)}") from None
