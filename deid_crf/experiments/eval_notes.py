"""Score a model on the project's multi-format evaluation notes (``evaluation/notes``)::

    python -m deid_crf.experiments.eval_notes [--model models/crf] [--half dev2 --half test]
                                               [--json OUT.json]          # or: make eval-notes

The notes come in twenty-one splits (``evaluation/notes/README.md``): ``dev``, the first guide
half, used for many rounds of rule fixes; ``dev2``, guide data in other formats written
later; ``dev3``, fresh guide data in the first corpus's formats, written after dev2 had
been used up; ``dev4``, fresh guide data in the formats real hospital notes come in
(discharge, referral, emergency, progress, pathology, admission); ``dev5``, fresh guide
data again, in thirteen formats; ``dev6``, written blind to judge the hand-annotated
training notes; ``dev7``, written blind to judge the rules drawn from dev6; ``dev8``, written blind to judge those
drawn from dev7; ``dev9``, written blind to judge the rules drawn from all the guide splits' common misses;
``dev10``, written blind in the test half's formats to judge those drawn from dev9;
``dev11``, ``dev12``, ``dev13``, ``dev14`` and ``dev15``, written blind in those formats again by
five more authors; ``dev16`` to ``dev20``, written blind in the formats real hospitals send and an
outside reviewer would test; and ``test``. For each split asked for (default: all of
them) it scores the
model alone and the shipped pipeline (the model, the rule layer and name propagation: what
``python -m deid_crf.tag`` writes) with the MEDDOCAN measures, and prints a per-type
table of the shipped pipeline. "Span recall" is the recall of subtask 2 [strict]: spans
found with exact offsets, whatever their type.

The notes are evaluation data: this script reads them to score, and nothing in the project
trains on them (``tests/test_eval_notes.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from deid_crf.config import default_model_dir
from deid_crf.io.markup import MarkupError, read_markup_dir
from deid_crf.scoring.meddocan import MeddocanScores, score_documents
from deid_crf.text.document import Document

NOTES_DIR = Path(__file__).resolve().parents[2] / "evaluation" / "notes" / "markup"
#: The splits of the notes, one folder each under ``NOTES_DIR``.
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
)


def read_notes(folder: Path) -> list[Document]:
    """The documents of one split (``*.md`` inline markup), sorted by name."""
    return read_markup_dir(folder, "evaluation notes")


def score_half(docs: Sequence[Document], deidentifier) -> dict[str, MeddocanScores]:
    """Scores of the model alone and of the shipped pipeline on ``docs``."""
    texts = [d.text for d in docs]
    model = deidentifier.tagger.predict(docs)
    shipped = deidentifier.find(texts)
    return {
        "model": score_documents(docs, [Document(d.doc_id, d.text, list(e)) for d, e in zip(docs, model, strict=True)]),
        "shipped": score_documents(
            docs, [Document(d.doc_id, d.text, [s.entity for s in ss]) for d, ss in zip(docs, shipped, strict=True)]
        ),
    }


def summary_lines(half: str, scores: dict[str, MeddocanScores]) -> list[str]:
    lines = []
    for name, s in scores.items():
        lines.append(
            f"| {half} | {name} | {s.ner.p:.4f} | {s.ner.r:.4f} | {s.ner.f1:.4f} | {s.strict.r:.4f} | "
            f"{s.merged.r:.4f} | {s.leak:.4f} |"
        )
    return lines


def per_type_table(by_half: dict[str, dict[str, MeddocanScores]]) -> list[str]:
    """Per type: support, P/R/F1 of the shipped pipeline in each half."""
    halves = list(by_half)
    types = sorted({t for scores in by_half.values() for t in scores["shipped"].per_type})
    header = "| type | " + " | ".join(f"{h} support | {h} P | {h} R | {h} F1" for h in halves) + " |"
    lines = [header, "|---|" + "---:|" * (4 * len(halves))]
    for type_ in types:
        cells = []
        for half in halves:
            s = by_half[half]["shipped"].per_type.get(type_)
            cells.append("0 | – | – | –" if s is None else f"{s.support} | {s.p:.3f} | {s.r:.3f} | {s.f1:.3f}")
        lines.append(f"| {type_} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=None, help="model directory (default: models/crf)")
    parser.add_argument(
        "--notes",
        type=Path,
        default=NOTES_DIR,
        help="folder with dev/, dev2/ … dev14/ and test/ markup",
    )
    parser.add_argument(
        "--half", action="append", choices=SPLITS, help="split to score; repeat for several (default: all of them)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the scores as JSON")
    args = parser.parse_args(argv)

    from deid_crf.deid.deidentifier import load

    try:
        halves = {half: read_notes(args.notes / half) for half in args.half or SPLITS}
        deidentifier = load(args.model or default_model_dir(), rules="default")
    except (FileNotFoundError, MarkupError, ValueError) as exc:  # ModelNotFoundError is a FileNotFoundError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    by_half = {half: score_half(docs, deidentifier) for half, docs in halves.items()}
    print("| half | system | NER P | NER R | NER F1 | span recall (strict) | span recall (merged) | leak |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for half, scores in by_half.items():
        print("\n".join(summary_lines(half, scores)))
    print()
    print("Shipped pipeline, NER per type:")
    print("\n".join(per_type_table(by_half)))
    if args.json:
        data = {h: {name: s.to_dict() for name, s in scores.items()} for h, scores in by_half.items()}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
