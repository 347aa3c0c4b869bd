"""Render de-identification results: annotation formats (BRAT, JSON, CoNLL) of the
original text, or the masked / surrogate text itself."""

from __future__ import annotations

import json
from typing import Any

from deid_crf.deid.deidentifier import ANNOTATE, MASKED, SURROGATE, Result
from deid_crf.io.brat import format_ann
from deid_crf.text import bio
from deid_crf.text.document import Document
from deid_crf.text.spans import layers
from deid_crf.text.tokenizer import Tokenizer

ANNOTATION_FORMATS = ("brat", "json", "conll", "html")
TEXT_FORMATS = (MASKED, SURROGATE)
FORMATS = ANNOTATION_FORMATS + TEXT_FORMATS
SUFFIXES = {"brat": ".ann", "json": ".json", "conll": ".conll", "html": ".html", MASKED: ".txt", SURROGATE: ".txt"}
# Formats that never show a span's confidence: tagged without computing it (faster).
WITHOUT_CONFIDENCE = ("brat", "conll", MASKED, SURROGATE)


def mode_of(fmt: str) -> str:
    """The :class:`~deid_crf.deid.deidentifier.Deidentifier` mode a format needs."""
    return fmt if fmt in TEXT_FORMATS else ANNOTATE


def to_brat(doc: Document) -> str:
    return format_ann(doc.entities, doc.text)


def json_entities(result: Result) -> list[dict[str, Any]]:
    """The spans of an ``annotate`` result: ``[{type, start, end, text, confidence, source}]``."""
    return [
        {
            "type": s.type,
            "start": s.start,
            "end": s.end,
            "text": s.text,
            "confidence": s.confidence,
            "source": s.source,
        }
        for s in result.spans
    ]


# One entity of to_json's document, as ``json.dumps(..., indent=2)`` lays it out.
_ENTITY = (
    '    {{\n      "type": {},\n      "start": {},\n      "end": {},\n      "text": {},\n'
    '      "confidence": {},\n      "source": {}\n    }}'
)


def to_json(result: Result) -> str:
    """``{"doc_id", "entities": [{type, start, end, text, confidence, source}]}``, laid out
    as ``json.dumps(document, ensure_ascii=False, indent=2)`` lays it out, character for
    character, but with json's C functions for the values: ``indent`` makes ``json.dumps``
    encode in Python, a tenth of the json format's CPU on MEDDOCAN dev. The numbers of
    all spans are encoded by one ``json.dumps`` (a number's text never holds ``", "``)."""
    spans = result.spans
    if not spans:
        return json.dumps({"doc_id": result.doc_id, "entities": []}, ensure_ascii=False, indent=2) + "\n"
    string = json.encoder.encode_basestring  # what ensure_ascii=False encodes a str with
    numbers = json.dumps([x for s in spans for x in (s.start, s.end, s.confidence)])[1:-1].split(", ")
    entities = ",\n".join(
        _ENTITY.format(
            string(s.type), *numbers[3 * i : 3 * i + 2], string(s.text), numbers[3 * i + 2], string(s.source)
        )
        for i, s in enumerate(spans)
    )
    return f'{{\n  "doc_id": {string(result.doc_id)},\n  "entities": [\n{entities}\n  ]\n}}\n'


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


def render(result: Result, fmt: str, tokenizer: Tokenizer, review_below: float | None = None) -> str:
    """``result`` in format ``fmt``; annotation formats need an ``annotate`` result
    (whose text is the original), text formats a result of the same mode. The html
    page outlines the spans below ``review_below``."""
    if fmt in TEXT_FORMATS:
        if result.mode != fmt:
            raise ValueError(f"a {result.mode} result cannot be rendered as {fmt}")
        return result.text
    if fmt not in ANNOTATION_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {FORMATS}")
    if result.mode != ANNOTATE:
        raise ValueError(f"annotation format {fmt} needs the original text, not a {result.mode} result")
    if fmt == "json":
        return to_json(result)
    if fmt == "html":
        from deid_crf.batch.html_view import html_page  # only this format needs it

        return html_page(result, review_below)
    if fmt == "brat":  # BRAT lists every span, overlapping ones too
        return to_brat(Document(result.doc_id, result.text, [s.entity for s in result.spans]))
    # One label per token: the spans that overlap none before them (recall-first candidates may overlap).
    return to_conll(Document(result.doc_id, result.text, [s.entity for s in layers(result.spans)[0]]), tokenizer)
