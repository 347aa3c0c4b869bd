"""Render tagged documents in the annotation formats: BRAT, JSON and CoNLL."""

from __future__ import annotations

import json

from . import bio
from .corpus import Document, format_ann
from .tokenize import Tokenizer

FORMATS = ("brat", "json", "conll")
SUFFIXES = {"brat": ".ann", "json": ".json", "conll": ".conll"}


def to_brat(doc: Document) -> str:
    return format_ann(doc.entities, doc.text)


def to_json(doc: Document) -> str:
    entities = [
        {"type": e.type, "start": e.start, "end": e.end, "text": doc.text[e.start : e.end]}
        for e in sorted(doc.entities)
    ]
    return json.dumps({"doc_id": doc.doc_id, "entities": entities}, ensure_ascii=False, indent=2) + "\n"


def to_conll(doc: Document, tokenizer: Tokenizer) -> str:
    """One token per line: ``token<TAB>start<TAB>end<TAB>BIO label``; a blank line
    after each sentence."""
    table = tokenizer([doc.text])
    labels = bio.encode(table, [doc.entities])
    lines = []
    for a, b in table.sent_bounds.tolist():
        for i in range(a, b):
            lines.append(f"{table.tokens[i]}\t{table.start[i]}\t{table.end[i]}\t{labels[i]}\n")
        lines.append("\n")
    return "".join(lines)


def render(doc: Document, fmt: str, tokenizer: Tokenizer) -> str:
    if fmt == "brat":
        return to_brat(doc)
    if fmt == "json":
        return to_json(doc)
    if fmt == "conll":
        return to_conll(doc, tokenizer)
    raise ValueError(f"unknown format {fmt!r}; choose from {FORMATS}")
