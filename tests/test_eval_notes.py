"""The project's multi-format evaluation notes (evaluation/notes/markup): they convert to
BRAT that the project's reader accepts, are complete, and are kept apart from every source
of training text. The BRAT files are written here, from the markup, as `make notes-brat` does."""

from __future__ import annotations

import collections
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from deid_crf.io.brat import read_brat_dir
from deid_crf.io.markup import MEDDOCAN_TYPES, convert_dir, parse_markup
from deid_crf.text.tokenizer import Tokenizer

REPO = Path(__file__).resolve().parents[1]
NOTES = REPO / "evaluation" / "notes"
HALVES = ("dev", "test")
NGRAM = 8


def formats(half: str) -> collections.Counter[str]:
    return collections.Counter(p.stem.rsplit("-", 1)[0] for p in (NOTES / "markup" / half).glob("*.md"))


@pytest.fixture(scope="module")
def brat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both halves converted to BRAT, as `make notes-brat` writes them."""
    root = tmp_path_factory.mktemp("notes")
    for half in HALVES:
        convert_dir(NOTES / "markup" / half, root / half)
    return root


@pytest.mark.parametrize("half", HALVES)
def test_converted_brat_reads_back_as_the_markup(brat: Path, half: str):
    """The BRAT reader accepts every converted file (span text checked against the
    document) and finds exactly the markup's mentions."""
    sources = sorted((NOTES / "markup" / half).glob("*.md"))
    assert sources, f"no markup in {half}"
    docs = {doc.doc_id: doc for doc in read_brat_dir(brat / half)}
    assert set(docs) == {p.stem for p in sources}
    for source in sources:
        text, spans = parse_markup(source.read_text(encoding="utf-8"), source.name)
        assert docs[source.stem].text == text, source.name
        assert [(e.start, e.end, e.type) for e in docs[source.stem].entities] == sorted(spans), source.name


def test_size_formats_and_types_as_promised(brat: Path):
    docs = {half: read_brat_dir(brat / half) for half in HALVES}
    assert sum(len(d) for d in docs.values()) >= 40
    assert sum(len(doc.entities) for d in docs.values() for doc in d) >= 600
    assert len(formats("dev") + formats("test")) >= 10
    assert set(formats("dev")) == set(formats("test")), "every format in both halves"
    for half, half_docs in docs.items():
        types = {e.type for doc in half_docs for e in doc.entities}
        assert types == MEDDOCAN_TYPES, f"{half} lacks {sorted(MEDDOCAN_TYPES - types)}"


def ngrams(texts: list[str], n: int = NGRAM) -> set[tuple[str, ...]]:
    table = Tokenizer()(texts)
    words = [t.lower() for t in table.tokens.tolist()]
    grams: set[tuple[str, ...]] = set()
    for a, b in table.doc_bounds.tolist():
        grams.update(tuple(words[i : i + n]) for i in range(a, b - n + 1))
    return grams


def test_ngram_check_finds_a_shared_sequence():
    shared = "el paciente acude a urgencias por dolor torácico de dos horas"
    assert ngrams([f"Texto previo. {shared}."]) & ngrams([f"{shared} y fiebre."])
    assert not ngrams(["uno dos tres cuatro cinco seis siete ocho"]) & ngrams(
        ["ocho siete seis cinco cuatro tres dos uno"]
    )


def test_no_eight_token_sequence_of_the_notes_is_in_the_synthetic_notes():
    """The synthetic note generator (no MEDDOCAN data needed) shares no 8-token sequence
    with the notes, at the size the default training config generates."""
    from deid_crf.augment import training_documents

    data = default_data_config()
    notes = [parse_markup(p.read_text(encoding="utf-8"), p.name)[0] for p in sorted(NOTES.glob("markup/*/*.md"))]
    synthetic = training_documents([], replace(data, rewrite=0.0))
    assert len(synthetic) == data.synthetic > 0
    overlap = ngrams(notes) & ngrams([doc.text for doc in synthetic])
    assert not overlap, f"{len(overlap)} shared {NGRAM}-token sequences"  # counts only, never the text


def default_data_config():
    from deid_crf.config import RunConfig

    with open(REPO / "configs" / "crf.toml", "rb") as handle:
        return RunConfig.from_dict(tomllib.load(handle)).data


@pytest.mark.slow
def test_no_eight_token_sequence_of_the_notes_is_in_the_training_text(brat: Path, data_dir: Path):
    """The notes are test data: none of their 8-token sequences occurs in the text the
    default model trains on: MEDDOCAN train and dev, and the augmented documents the
    default training config adds (rewritten train documents and synthetic notes)."""
    from deid_crf.augment import training_documents

    notes = [doc.text for half in HALVES for doc in read_brat_dir(brat / half)]
    corpus = [doc for split in ("train", "dev") for doc in read_brat_dir(data_dir / "meddocan" / split)]
    training = training_documents(corpus, default_data_config())
    assert len(training) > len(corpus), "the default config augments"
    overlap = ngrams(notes) & ngrams([doc.text for doc in training])
    # Only generic clinical boilerplate may coincide; report counts, never the text.
    assert not overlap, f"{len(overlap)} shared {NGRAM}-token sequences"
