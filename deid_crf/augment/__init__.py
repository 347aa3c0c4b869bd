"""Training data beyond MEDDOCAN's templates.

Three sources, all deterministic given a seed and switched on in the ``[data]``
table of a run config (``rewrite``, ``synthetic``, ``notes``, ``augment_seed``):

* :mod:`deid_crf.augment.rewrite`: MEDDOCAN training documents rewritten with
  surrogate values, case variants and other header cues, offsets rebuilt exactly;
* :mod:`deid_crf.augment.synthetic`: notes in formats MEDDOCAN does not have
  (discharge reports, referrals, emergency notes…), gold spans known by construction;
* :mod:`deid_crf.augment.notes`: the project's hand-annotated training notes
  (``training/notes/``), as written and rewritten with surrogate values.

None ever reads ``evaluation/``: that corpus is test data (``tests/test_eval_notes.py``
checks that no 8-token sequence of it appears in generated training data).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from deid_crf.config import DataConfig
from deid_crf.text.document import Document


def training_documents(documents: Sequence[Document], data: DataConfig) -> list[Document]:
    """``documents`` followed by the augmented documents ``data`` asks for."""
    out = list(documents)
    if data.rewrite < 0 or data.synthetic < 0 or data.notes < 0:
        raise ValueError(
            f"data.rewrite, data.synthetic and data.notes must be >= 0, not {data.rewrite}, {data.synthetic} "
            f"and {data.notes}"
        )
    if data.rewrite:
        from deid_crf.augment.rewrite import rewrite_corpus

        out += rewrite_corpus(documents, copies=data.rewrite, seed=data.augment_seed)
    if data.synthetic:
        from deid_crf.augment.synthetic import generate_notes

        out += generate_notes(data.synthetic, seed=data.augment_seed, formats=data.synthetic_formats)
    if data.notes:
        from deid_crf.augment.notes import note_documents

        out += note_documents(
            data.notes, seed=data.augment_seed, folder=Path(data.notes_dir) if data.notes_dir else None
        )
    return out
