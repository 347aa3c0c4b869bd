"""Hand-annotated training notes: documents written by people in the formats hospitals
use, annotated by the MEDDOCAN guidelines (``training/notes/README.md``).

Synthetic notes know their gold spans by construction but come from the generator's
templates; these notes come from authors, one voice each, and teach the layouts,
phrasings and mixes of languages that no template has. They are *training* data,
written apart from the evaluation corpus (``evaluation/``): their authors never saw
it, and ``tests/test_eval_notes.py`` checks that they share no 8-token sequence with it.

``[data] notes = N`` adds them ``N`` times: once as written and ``N - 1`` surrogate
rewritten copies (:func:`deid_crf.augment.rewrite.rewrite_corpus`: other names, dates,
ids and places, names in other letter case), so that the model learns the format around
a value and not the value.
"""

from __future__ import annotations

from pathlib import Path

from deid_crf.io.markup import read_markup_dir
from deid_crf.text.document import Document

#: The project's hand-annotated training notes (inline markup, ``deid_crf.io.markup``).
TRAINING_NOTES_DIR = Path(__file__).resolve().parents[2] / "training" / "notes" / "markup"


def read_training_notes(folder: Path | None = None) -> list[Document]:
    """The training notes of ``folder`` (default :data:`TRAINING_NOTES_DIR`), sorted by name."""
    return read_markup_dir(folder or TRAINING_NOTES_DIR, "training notes")


def note_documents(copies: int, seed: int, folder: Path | None = None) -> list[Document]:
    """The training notes once as written and ``copies - 1`` rewritten copies of each."""
    if copies < 1:
        raise ValueError(f"copies must be >= 1, not {copies}")
    from deid_crf.augment.rewrite import rewrite_corpus

    notes = read_training_notes(folder)
    return notes + rewrite_corpus(notes, copies=copies - 1, seed=seed)
