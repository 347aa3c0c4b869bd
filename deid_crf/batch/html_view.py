"""The review page: one self-contained HTML file per document, and an index of them.

Each span is a ``<mark>`` with a class per entity type (its colour), ``data-type``,
``data-start``, ``data-end``, ``data-confidence`` and ``data-source``, and a ``title``
tooltip with the type and confidence; a span whose lowest token confidence is below
the review threshold gets the ``doubtful`` class (dashed outline). Recall-first span
candidates that overlap a marked span (:func:`~deid_crf.text.spans.layers`) cannot be
marked in place: they are listed under the text, each with its offsets, type,
confidence and text. The style sheet is
inline, there is no script and no external resource, so the page reads the same
offline; everything taken from the document (text, ids) is HTML-escaped.
"""

from __future__ import annotations

import colorsys
import hashlib
import logging
import math
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from deid_crf.deid.deidentifier import Result
from deid_crf.io.files import atomic_write_text
from deid_crf.io.markup import MEDDOCAN_TYPES
from deid_crf.io.names import shown
from deid_crf.text.spans import PHISpan, layers

if TYPE_CHECKING:
    from deid_crf.batch.engine import WorkItem

log = logging.getLogger("deid_crf")

INDEX_PAGE = "index.html"
FALLBACK_INDEX_PAGE = "deid-crf-index.html"
# Spans below this lowest confidence are outlined as doubtful when no --review-below is given.
DEFAULT_DOUBTFUL = 0.5


def type_class(type_: str) -> str:
    """The CSS class of an entity type (``t-nombre-sujeto-asistencia``)."""
    return "t-" + "".join(c if c.isalnum() else "-" for c in type_.lower())


_KNOWN_TYPES = sorted(MEDDOCAN_TYPES)
_GOLDEN = 0.6180339887  # successive multiples spread the hues of the known types far apart


def type_colour(type_: str) -> str:
    """A light background colour for ``type_``, the same in every page: the MEDDOCAN
    types get hues spread by the golden ratio, any other type one from its hash."""
    if type_ in MEDDOCAN_TYPES:
        hue = (_KNOWN_TYPES.index(type_) * _GOLDEN) % 1.0
    else:
        hue = int.from_bytes(hashlib.sha256(type_.encode()).digest()[:2], "big") / 65536
    r, g, b = colorsys.hls_to_rgb(hue, 0.78, 0.85)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


_STYLE = """
body { font-family: sans-serif; margin: 2em; background: #ffffff; color: #1a1a1a; }
div.doc { white-space: pre-wrap; font-family: monospace; line-height: 1.6; }
mark { padding: 0 2px; border-radius: 3px; color: #000000; }
mark.doubtful { outline: 2px dashed #c00000; }
table.legend td { padding: 2px 8px; }
"""


def _style(types: Sequence[str]) -> str:
    rules = "".join(f"mark.{type_class(t)} {{ background: {type_colour(t)}; }}\n" for t in sorted(set(types)))
    return _STYLE + rules


def _text(value: str) -> str:
    """``value`` HTML-escaped, carriage returns as references (a parser turns a literal
    one into a line feed), so that the page's text is the document's, character for character."""
    return escape(value).replace("\r", "&#13;")


def _confidence(value: float) -> str:
    return "" if math.isnan(value) else f"{value:.4f}"


def html_page(result: Result, doubtful_below: float | None = None) -> str:
    """The page of an ``annotate`` result: its original text with every span marked."""
    threshold = DEFAULT_DOUBTFUL if doubtful_below is None else doubtful_below
    text, pieces, cursor = result.text, [], 0
    marked, overlapping = layers(result.spans)
    for s in marked:
        pieces.append(_text(text[cursor : s.start]))
        pieces.append(_mark(s, text, threshold))
        cursor = s.end
    pieces.append(_text(text[cursor:]))
    alternatives = "".join(
        f"<tr><td>{s.start}–{s.end}</td><td>{_mark(s, text, threshold)}</td></tr>\n" for s in overlapping
    )
    if alternatives:
        alternatives = (
            f"<h2>{len(overlapping)} overlapping candidate(s)</h2>\n"
            f'<table class="alternatives">\n{alternatives}</table>\n'
        )
    types = [s.type for s in result.spans]
    legend = "".join(
        f'<tr><td><mark class="{type_class(t)}">{escape(t)}</mark></td><td>{types.count(t)}</td></tr>'
        for t in sorted(set(types))
    )
    title = escape(result.doc_id)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="es"><head><meta charset="utf-8"><title>{title}</title>\n'
        f"<style>{_style(types)}</style></head>\n"
        f"<body><h1>{title}</h1>\n"
        f"<p>{len(result.spans)} span(s); dashed: lowest token confidence below {threshold:g}.</p>\n"
        f'<table class="legend">{legend}</table>\n'
        f'<div class="doc">{"".join(pieces)}</div>\n'
        f"{alternatives}"
        "</body></html>\n"
    )


def _mark(s: PHISpan, text: str, threshold: float) -> str:
    """The ``<mark>`` of span ``s`` of ``text``."""
    low = s.lowest_confidence
    classes = type_class(s.type) + (" doubtful" if low < threshold else "")
    tip = f"{s.type} · confidence {_confidence(s.confidence) or 'n/a'} · {s.source}"
    return (
        f'<mark class="{classes}" data-type="{escape(s.type)}" data-start="{s.start}" data-end="{s.end}" '
        f'data-confidence="{_confidence(s.confidence)}" data-min-confidence="{_confidence(low)}" '
        f'data-source="{escape(s.source)}" title="{escape(tip)}">{_text(text[s.start : s.end])}</mark>'
    )


def index_page(entries: Sequence[tuple[str, str]]) -> str:
    """A page linking every document's page: ``(doc_id, relative link)`` pairs."""
    rows = "".join(f'<li><a href="{escape(link)}">{escape(doc_id)}</a></li>\n' for doc_id, link in sorted(entries))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="es"><head><meta charset="utf-8"><title>deid-crf review</title>\n'
        f"<style>{_STYLE}</style></head>\n"
        f"<body><h1>Documents ({len(entries)})</h1>\n<ul>\n{rows}</ul>\n</body></html>\n"
    )


def write_index(output_dir: Path, items: Sequence[WorkItem], mode: int) -> int:
    """Write the index page of the documents whose page is in ``output_dir``
    (``index.html``, or ``deid-crf-index.html`` if a document's page has that name);
    0 when written, 1 (reported) when it cannot be."""
    pages = {Path(o) for item in items for o in item.outputs if o.endswith(".html")}
    name = INDEX_PAGE if output_dir / INDEX_PAGE not in pages else FALLBACK_INDEX_PAGE
    entries = [
        (item.doc_id, quote(Path(o).relative_to(output_dir).as_posix()))
        for item in items
        for o in item.outputs
        if o.endswith(".html") and Path(o).is_file()
    ]
    try:
        atomic_write_text(output_dir / name, index_page(entries), mode)
    except OSError as exc:
        log.error(f"{shown(output_dir / name)}: cannot write the index page ({exc.strerror or type(exc).__name__})")
        return 1
    log.info(f"index of {len(entries)} page(s): {shown(output_dir / name)}")
    return 0
