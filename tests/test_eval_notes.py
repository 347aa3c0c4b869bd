"""The project's multi-format evaluation notes (evaluation/notes/markup): they convert to
BRAT that the project's reader accepts, are complete, match the counts their README claims,
and are kept apart from every source of training text. The BRAT files are written here,
from the markup, as `make notes-brat` does."""

from __future__ import annotations

import collections
import re
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from deid_crf.io.brat import read_brat_dir
from deid_crf.io.markup import MEDDOCAN_TYPES, convert_dir, parse_markup
from deid_crf.text.tokenizer import Tokenizer

REPO = Path(__file__).resolve().parents[1]
NOTES = REPO / "evaluation" / "notes"
HALVES = ("dev", "test")  # the first corpus, split by document and balanced by format
SPLITS = (
    "dev",
    "dev2",
    "dev3",
    "dev4",
    "dev5",
    "dev6",
    "dev7",
    "dev8",
    "dev9",
    "dev10",
    "dev11",
    "dev12",
    "dev13",
    "dev14",
    "dev15",
    "dev16",
    "dev17",
    "dev18",
    "dev19",
    "dev20",
    "test",
)  # guide data: dev2 in formats the halves lack; dev3 and dev10 to dev15 in theirs; dev4 to dev9 and
# dev16 to dev20 in real notes' formats
NGRAM = 8


def formats(half: str) -> collections.Counter[str]:
    return collections.Counter(p.stem.rsplit("-", 1)[0] for p in (NOTES / "markup" / half).glob("*.md"))


@pytest.fixture(scope="module")
def brat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every split converted to BRAT, as `make notes-brat` writes them."""
    root = tmp_path_factory.mktemp("notes")
    for half in SPLITS:
        convert_dir(NOTES / "markup" / half, root / half)
    return root


@pytest.mark.parametrize("half", SPLITS)
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


def test_dev2_size_types_and_new_formats(brat: Path):
    """dev2 is at least 14 documents and 450 entities, has every type, and brings formats
    that the dev and test halves do not have."""
    docs = read_brat_dir(brat / "dev2")
    assert len(docs) >= 14
    assert sum(len(doc.entities) for doc in docs) >= 450
    types = {e.type for doc in docs for e in doc.entities}
    assert types == MEDDOCAN_TYPES, f"dev2 lacks {sorted(MEDDOCAN_TYPES - types)}"
    assert not set(formats("dev2")) & set(formats("dev") + formats("test"))


def test_dev3_size_types_and_the_first_corpus_formats(brat: Path):
    """dev3 is at least 14 documents and 500 entities, has every type, and has at least one
    document in each of the 14 formats of the dev and test halves and no other format."""
    docs = read_brat_dir(brat / "dev3")
    assert len(docs) >= 14
    assert sum(len(doc.entities) for doc in docs) >= 500
    types = {e.type for doc in docs for e in doc.entities}
    assert types == MEDDOCAN_TYPES, f"dev3 lacks {sorted(MEDDOCAN_TYPES - types)}"
    assert len(formats("test")) == 14
    assert set(formats("dev3")) == set(formats("test"))


def test_dev3_file_names_are_new():
    """A dev3 document never shares its name with a document of another split, so a name
    in a report or an error list says which split it is from."""
    others = {name for split in SPLITS if split != "dev3" for name in markup_names(split)}
    assert markup_names("dev3")
    assert not set(markup_names("dev3")) & others


def test_the_scorer_reads_every_split_on_disk():
    """`python -m deid_crf.experiments.eval_notes` offers exactly the splits that exist."""
    from deid_crf.experiments.eval_notes import NOTES_DIR, read_notes
    from deid_crf.experiments.eval_notes import SPLITS as SCORED

    assert SCORED == SPLITS
    assert {p.name for p in NOTES_DIR.iterdir() if p.is_dir()} == set(SCORED)
    for split in SCORED:
        assert [d.doc_id for d in read_notes(NOTES_DIR / split)] == sorted(markup_names(split))


def markup_names(split: str) -> list[str]:
    return [p.stem for p in (NOTES / "markup" / split).glob("*.md")]


def markup_counts() -> dict[str, dict[str, collections.Counter[str]]]:
    """Entity counts by type of every markup file, by split and file name."""
    counts: dict[str, dict[str, collections.Counter[str]]] = {}
    for split in SPLITS:
        counts[split] = {}
        for path in sorted((NOTES / "markup" / split).glob("*.md")):
            spans = parse_markup(path.read_text(encoding="utf-8"), path.name)[1]
            counts[split][path.stem] = collections.Counter(kind for _, _, kind in spans)
    return counts


# The README's tables: documents and entities per split, entities per file, entities per type and split.
SPLIT_ROW = r"^\| (\w+) \(`markup/\w+/`\) \| (\d+) \| (\d+) \|"
FILE_ROW = r"^\| ([a-z]+-\d+) \| (\w+) \| [^|]+ \| (\d+) \|"
# one count per split, in SPLITS order
TYPE_ROW = r"^\| ([A-Z_]+)" + r" \| (\d+)" * len(SPLITS) + r" \|$"
TOTAL_ROW = r"^\| (all types)" + r" \| (\d+)" * len(SPLITS) + r" \|$"


def readme_rows(pattern: str) -> list[tuple[str, ...]]:
    return re.findall(pattern, (NOTES / "README.md").read_text(encoding="utf-8"), flags=re.MULTILINE)


def test_readme_counts_match_the_markup():
    """Every number the notes README claims: documents and entities per split, entities per
    file (each file listed once, in its split), and entities per type and split."""
    counts = markup_counts()
    splits = {split: (int(docs), int(ents)) for split, docs, ents in readme_rows(SPLIT_ROW)}
    assert splits == {s: (len(files), sum(sum(c.values()) for c in files.values())) for s, files in counts.items()}

    files = readme_rows(FILE_ROW)
    claimed = collections.Counter((split, name) for name, split, _ in files)
    assert all(n == 1 for n in claimed.values()), "a file listed twice"
    assert set(claimed) == {(s, name) for s, names in counts.items() for name in names}
    wrong = [(s, name) for name, s, n in files if int(n) != sum(counts[s][name].values())]
    assert not wrong, f"entity counts in the README differ from the markup: {wrong}"

    per_type = {row[0]: tuple(map(int, row[1:])) for row in readme_rows(TYPE_ROW)}
    totals = {s: sum(files.values(), collections.Counter()) for s, files in counts.items()}
    assert per_type == {kind: tuple(totals[s][kind] for s in SPLITS) for kind in MEDDOCAN_TYPES}
    (all_types,) = readme_rows(TOTAL_ROW)
    assert tuple(map(int, all_types[1:])) == tuple(sum(totals[s].values()) for s in SPLITS)


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


@pytest.mark.parametrize("formats", ["base", "extended", "running"])
def test_no_eight_token_sequence_of_the_notes_is_in_the_synthetic_notes(formats):
    """The synthetic note generator (no MEDDOCAN data needed) shares no 8-token sequence
    with the notes, at the size the default training config generates, with either
    format set."""
    from deid_crf.augment import training_documents

    data = default_data_config()
    paths = sorted(NOTES.glob("markup/*/*.md"))
    assert {p.parent.name for p in paths} == set(SPLITS)
    notes = [parse_markup(p.read_text(encoding="utf-8"), p.name)[0] for p in paths]
    synthetic = training_documents([], replace(data, rewrite=0.0, notes=0, synthetic_formats=formats))
    assert len(synthetic) == data.synthetic > 0
    shared = len(ngrams(notes) & ngrams([doc.text for doc in synthetic]))
    assert shared == 0, f"{shared} shared {NGRAM}-token sequences"  # a count: pytest never prints the text


def test_no_eight_token_sequence_of_the_notes_is_in_a_fresh_clone_s_synthetic_notes(tmp_path):
    """The same check as a fresh clone runs it: without the built gazetteer lists, the
    generator draws names and towns from Faker's lists, so other sentences come out."""
    from deid_crf.augment.synthetic import generate_notes
    from deid_crf.augment.values import Lexicon

    data = default_data_config()
    lexicon = Lexicon.from_directory(tmp_path)
    assert lexicon.source == "faker"
    notes = [parse_markup(p.read_text(encoding="utf-8"), p.name)[0] for p in sorted(NOTES.glob("markup/*/*.md"))]
    synthetic = generate_notes(data.synthetic, data.augment_seed, lexicon, formats=data.synthetic_formats)
    shared = len(ngrams(notes) & ngrams([doc.text for doc in synthetic]))
    assert shared == 0, f"{shared} shared {NGRAM}-token sequences"


def test_no_eight_token_sequence_of_the_notes_is_in_the_hand_annotated_training_notes():
    """The project's training notes (training/notes) were written apart from this corpus:
    neither they nor the rewritten copies the default config trains on share an 8-token
    sequence with it."""
    from deid_crf.augment.notes import note_documents

    data = default_data_config()
    notes = [parse_markup(p.read_text(encoding="utf-8"), p.name)[0] for p in sorted(NOTES.glob("markup/*/*.md"))]
    training = note_documents(max(data.notes, 2), seed=data.augment_seed)
    # and the notes kept outside the default training set (training/notes/extra)
    extra = note_documents(2, seed=data.augment_seed, folder=REPO / "training" / "notes" / "extra" / "markup")
    shared = len(ngrams(notes) & ngrams([doc.text for doc in [*training, *extra]]))
    assert shared == 0, f"{shared} shared {NGRAM}-token sequences"


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

    notes = [doc.text for half in SPLITS for doc in read_brat_dir(brat / half)]
    corpus = [doc for split in ("train", "dev") for doc in read_brat_dir(data_dir / "meddocan" / split)]
    training = training_documents(corpus, default_data_config())
    assert len(training) > len(corpus), "the default config augments"
    # Report a count, never the text: asserting on the set itself makes pytest print it.
    shared = len(ngrams(notes) & ngrams([doc.text for doc in training]))
    assert shared == 0, f"{shared} shared {NGRAM}-token sequences"
