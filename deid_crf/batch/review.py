"""The review file: the doubtful spans of one document, for a person to check.

``--review-below P`` writes, next to each document's output, ``NAME.review.json``
with every span whose lowest token confidence is below ``P``: its offsets in the
original text (and in the output text, for the masked and surrogate formats), type,
mean and lowest confidence and source. It holds no text of the document: a reviewer
opens the original (or the ``--format html`` page) at those offsets, and the list can
be passed around without the PHI it points at. Like every output it is written
atomically with the outputs' mode (0600 by default).
"""

from __future__ import annotations

import json
import math
from typing import Any

from deid_crf.deid.deidentifier import ANNOTATE, Result

REVIEW_SUFFIX = ".review.json"


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def review_record(result: Result, below: float) -> dict[str, Any]:
    """``{"doc_id", "review_below", "spans": [...]}`` for the spans of ``result``
    whose lowest token confidence is below ``below``, in text order."""
    spans = []
    for s, (a, b, _) in zip(result.spans, result.output_spans(), strict=True):
        if not s.lowest_confidence < below:
            continue
        entry: dict[str, Any] = {
            "start": s.start,
            "end": s.end,
            "type": s.type,
            "confidence": _number(s.confidence),
            "min_confidence": _number(s.lowest_confidence),
            "source": s.source,
        }
        if result.mode != ANNOTATE:
            entry["output_start"], entry["output_end"] = a, b
        spans.append(entry)
    return {"doc_id": result.doc_id, "review_below": below, "spans": spans}


def to_review_json(result: Result, below: float) -> str:
    return json.dumps(review_record(result, below), ensure_ascii=False, indent=2) + "\n"
