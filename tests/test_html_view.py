"""The HTML view (``--format html``): escaping, marks, the index page, and the pages
rendered in headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from deid_crf.batch.html_view import html_page, index_page, type_colour
from deid_crf.deid.deidentifier import ANNOTATE, Result
from deid_crf.tag import main
from deid_crf.text.spans import PHISpan

TRICKY = 'Nota <script>alert("x")</script> & más: Filiberta Gorostiza, 19/08/1949.\r\n<b>fin</b>\n'


def tricky_result() -> Result:
    name = TRICKY.index("Filiberta Gorostiza")
    date = TRICKY.index("19/08/1949")
    spans = [
        PHISpan(name, name + 19, "NOMBRE_SUJETO_ASISTENCIA", 0.97, min_confidence=0.41),
        PHISpan(date, date + 10, "FECHAS", 1.0, "rule"),
    ]
    return Result('doc "<1>"', TRICKY, spans, ANNOTATE)


class Marks(HTMLParser):
    """The ``<mark>`` elements of the document text (``div.doc``), with their attributes and text."""

    def __init__(self) -> None:
        super().__init__()
        self.in_doc = False
        self.marks: list[dict[str, str]] = []
        self.doc_text = ""
        self._current: dict[str, str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "div" and attrs.get("class") == "doc":
            self.in_doc = True
        elif tag == "mark" and self.in_doc:
            self._current = {**attrs, "text": ""}
        elif self.in_doc:
            raise AssertionError(f"unexpected <{tag}> inside the document text")

    def handle_endtag(self, tag):
        if tag == "mark" and self._current is not None:
            self.marks.append(self._current)
            self._current = None
        elif tag == "div":
            self.in_doc = False

    def handle_data(self, data):
        if self.in_doc:
            self.doc_text += data
            if self._current is not None:
                self._current["text"] += data


def parse_marks(page: str) -> Marks:
    parser = Marks()
    parser.feed(page)
    return parser


def test_page_escapes_everything_and_marks_each_span():
    page = html_page(tricky_result(), doubtful_below=0.5)
    assert "<script>" not in page and "&lt;script&gt;" in page and "&lt;b&gt;fin" in page
    assert "<title>doc &quot;&lt;1&gt;&quot;</title>" in page
    assert "http" not in page and "src=" not in page  # nothing external
    parsed = parse_marks(page)
    assert parsed.doc_text == TRICKY  # the text, unescaped, is the document's
    assert [(m["data-type"], m["text"]) for m in parsed.marks] == [
        ("NOMBRE_SUJETO_ASISTENCIA", "Filiberta Gorostiza"),
        ("FECHAS", "19/08/1949"),
    ]
    name, date = parsed.marks
    assert "doubtful" in name["class"] and "doubtful" not in date["class"]
    assert name["data-confidence"] == "0.9700" and name["data-min-confidence"] == "0.4100"
    assert name["title"] == "NOMBRE_SUJETO_ASISTENCIA · confidence 0.9700 · model"
    assert TRICKY[int(date["data-start"]) : int(date["data-end"])] == date["text"]


def test_index_escapes_ids_and_links():
    page = index_page([("a<b", "a%3Cb.html")])
    assert '<a href="a%3Cb.html">a&lt;b</a>' in page


# ----------------------------------------------------------------------------- headless Chromium

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("chromium is not installed; .ci/run installs Debian's chromium")
        pytest.skip("chromium is not installed (apt-get install chromium); CI installs it")
    return found


def run_chromium(chromium: str, profile: Path, *args: str) -> str:
    """Chromium's standard output, decoded as is (no newline translation: a CR stays)."""
    done = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, timeout=120, check=True
    )
    return done.stdout.decode("utf-8")


def test_pages_render_in_headless_chromium(chromium, tiny_model_dir, unseen_document, tiny_corpus, tmp_path):
    notes = tmp_path / "in"
    notes.mkdir()
    # A leading line feed (which a <pre> would drop) and a CR LF (which a parser folds) stay.
    texts = {"nuevo": unseen_document.text, "caso0": "\n" + tiny_corpus[0].text + TRICKY}
    for doc_id, text in texts.items():
        (notes / f"{doc_id}.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    args = [str(notes), "-o", str(out), "--model", str(tiny_model_dir), "-j", "1"]
    assert main([*args, "--format", "html", "--review-below", "0.99"]) == 0
    assert main([*args, "-o", str(tmp_path / "json"), "--format", "json"]) == 0
    profile = tmp_path / "profile"

    for doc_id, text in texts.items():
        page = out / f"{doc_id}.html"
        dom = run_chromium(chromium, profile, "--dump-dom", page.as_uri())
        parsed = parse_marks(dom)
        entities = json.loads((tmp_path / "json" / f"{doc_id}.json").read_text(encoding="utf-8"))["entities"]
        # The rendered page holds one highlighted span per entity, of its type, whose
        # text is the input's text at the entity's offsets; the text itself is intact.
        assert len(parsed.marks) == len(entities) > 0
        for mark, entity in zip(parsed.marks, entities, strict=True):
            assert mark["data-type"] == entity["type"]
            assert (int(mark["data-start"]), int(mark["data-end"])) == (entity["start"], entity["end"])
            assert mark["text"] == text[entity["start"] : entity["end"]]
        assert parsed.doc_text == text
        assert "<script>alert" not in dom

    index = run_chromium(chromium, profile, "--dump-dom", (out / "index.html").as_uri())
    assert 'href="caso0.html"' in index and 'href="nuevo.html"' in index

    from PIL import Image

    shot = tmp_path / "page.png"
    run_chromium(chromium, profile, f"--screenshot={shot}", "--window-size=1000,700", (out / "nuevo.html").as_uri())
    image = Image.open(shot).convert("RGB")
    assert image.size == (1000, 700)
    colours = {colour for _, colour in image.getcolors(maxcolors=1 << 20)}
    # Every highlighted type's background colour is painted somewhere on the page.
    entities = json.loads((tmp_path / "json" / "nuevo.json").read_text(encoding="utf-8"))["entities"]
    for type_ in {e["type"] for e in entities}:
        hex_colour = type_colour(type_)
        rgb = tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
        assert rgb in colours, type_
