"""Fuzzed documents through the real pipeline (tiny model, rule layer, name
propagation) in every output format: BRAT output always reads back, offsets always
hold, and no exception message quotes the input."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from deid_crf.batch.engine import Settings, deidentifier
from deid_crf.batch.formats import FORMATS, json_entities, mode_of, render, to_json
from deid_crf.deid.deidentifier import ANNOTATE, Result
from deid_crf.io.brat import parse_ann, read_document, write_document
from deid_crf.text.document import SPAN_BREAKS, Document
from deid_crf.text.spans import PHISpan

# Pieces the tiny model and the rules find PHI in, glued by every kind of separator.
PHI_PIECES = [
    "Nombre: ",
    "Apellidos: ",
    "NHC: ",
    "Fecha de ingreso: ",
    "Zebulonio",
    "Quirtanilla Mofrejo",
    "368503",
    "03/03/1946",
    "Tel. 630 75 89 15",
    "NASS: 28 12345678 40",
    "Sr. Quirtanilla",
    ".",
]
SEPARATORS = [*SPAN_BREAKS, " ", "\r\n", "\u00a0", "\t\t"]
# Any text but NUL, which marks a binary file the BRAT reader refuses (CorpusError) by design.
TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=6)
DOCUMENTS = st.lists(st.one_of(st.sampled_from(PHI_PIECES), st.sampled_from(SEPARATORS), TEXT), max_size=24).map(
    "".join
)


class _Page(HTMLParser):
    """The text of an HTML page's ``div.doc`` and its marks ``(start, end, type, text)``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside, self.text, self.marks, self._mark = False, "", [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "div" and attrs.get("class") == "doc":
            self.inside = True
        elif tag == "mark" and self.inside:
            self._mark = [int(attrs["data-start"]), int(attrs["data-end"]), attrs["data-type"], ""]

    def handle_endtag(self, tag):
        if tag == "mark" and self._mark is not None:
            self.marks.append(tuple(self._mark))
            self._mark = None
        elif tag == "div":
            self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text += data
            if self._mark is not None:
                self._mark[3] += data


@pytest.fixture(scope="module")
def deid(tiny_model_dir):
    return deidentifier(Settings(model_dir=str(tiny_model_dir), fmt="brat"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("brat")


def check_all_formats(deid, text: str, folder: Path) -> None:
    tokenizer = deid.tagger.tokenizer()
    for fmt in FORMATS:
        try:
            result = deid.deidentify(text, mode_of(fmt), "fuzz")
            output = render(result, fmt, tokenizer)
        except Exception as exc:  # the message must not quote the document
            assert not any(word in str(exc) for word in text.split() if len(word) > 3)
            raise
        spans = [(s.start, s.end, s.type) for s in result.spans]
        assert spans == sorted(spans) and all(0 <= a < b <= len(text) for a, b, _ in spans)
        if fmt == "brat":
            assert [(e.start, e.end, e.type) for e in parse_ann(output, text, "fuzz.ann")] == spans
            lines = output.splitlines()  # readers that split at every Unicode line break
            assert len(lines) == len(spans) and all(len(line.split("\t")) == 3 for line in lines)
            assert not any(c in text[a:b] for a, b, _ in spans for c in SPAN_BREAKS)
            if "\x00" not in text:  # the reader refuses binary files (NUL bytes)
                write_document(Document("fuzz", text, [s.entity for s in result.spans]), folder)
                assert read_document(folder / "fuzz.txt") == Document("fuzz", text, [s.entity for s in result.spans])
        elif fmt == "json":
            for e in json.loads(output)["entities"]:
                assert text[e["start"] : e["end"]] == e["text"]
        elif fmt == "conll":
            for line in output.split("\n"):
                if line:
                    token, start, end, _ = line.split("\t")
                    assert text[int(start) : int(end)] == token
        elif fmt == "html":  # the page's text is the document's, each span one mark at its offsets
            page = _Page()
            page.feed(output)
            page.close()
            assert page.text == text
            assert page.marks == [(a, b, t, text[a:b]) for a, b, t in spans]
        else:  # masked, surrogate: every character outside the spans is kept
            cursor_in = cursor_out = 0
            for span, (a, b, _) in zip(result.spans, result.output_spans(), strict=True):
                assert text[cursor_in : span.start] == output[cursor_out:a] and output[a:b] == span.replacement
                cursor_in, cursor_out = span.end, b
            assert text[cursor_in:] == output[cursor_out:]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(DOCUMENTS)
@example("Apellidos: Quirtanilla\tMofrejo.\n")
@example("Nombre: Juan\tPérez García.\n")
@example("Apellidos: Quirtanilla\x85Mofrejo.\rNHC: 368503\u2028.")
@example("Apellidos: Quirtanilla\x0bMofrejo\x0c\x1c\x1d\x1e\u2029.")
@example("")
@example(" \t ")
def test_fuzzed_documents_in_every_format(deid, folder, text):
    check_all_formats(deid, text, folder)


ANY_TEXT = st.text(st.characters(codec="utf-8"), max_size=8)
SPANS = st.lists(
    st.builds(
        PHISpan,
        start=st.integers(0, 10**12),
        end=st.integers(0, 10**12),
        type=ANY_TEXT,
        confidence=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1.0, 0.9999, 1e-07])),
        source=ANY_TEXT,
        text=ANY_TEXT,
    ),
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(doc_id=ANY_TEXT, spans=SPANS)
@example(doc_id="", spans=[])
def test_json_format_writes_what_json_dumps_writes(doc_id, spans):
    """The json format lays its document out with json's C functions, character for
    character as ``json.dumps(..., ensure_ascii=False, indent=2)`` (quotes, escapes,
    line separators, NaN and infinities, no entities)."""
    result = Result(doc_id, "", spans, ANNOTATE)
    document = {"doc_id": doc_id, "entities": json_entities(result)}
    assert to_json(result) == json.dumps(document, ensure_ascii=False, indent=2) + "\n"
