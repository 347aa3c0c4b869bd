"""What each training-data source adds, on MEDDOCAN dev and on the multi-format notes::

    python -m deid_crf.experiments.augment_ablation [--config configs/crf.toml]
        [--rows meddocan rewrite synthetic notes all] [--json FILE]      # or: make ablation-augment

Each row trains the config's model on MEDDOCAN train plus one choice of augmented
documents (``meddocan``: none; ``rewrite``: the config's rewritten copies only;
``synthetic``: its synthetic notes only; ``notes``: its hand-annotated training notes
only; ``all``: what the config trains on), then
scores MEDDOCAN dev (model alone and shipped pipeline) and every split of the notes
(shipped pipeline). Training seconds are those of ``fit`` alone, in the same run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import tomllib
from dataclasses import replace
from pathlib import Path

from deid_crf.augment import training_documents
from deid_crf.config import RunConfig, data_dir
from deid_crf.io.brat import read_splits
from deid_crf.text.document import Document

#: Each augmentation source's ``[data]`` key and the value that switches it off.
SOURCES_OFF = {"rewrite": 0.0, "synthetic": 0, "notes": 0}
ROWS = ("meddocan", *SOURCES_OFF, "all")


def row_data(config: RunConfig, row: str):
    """The config's ``[data]`` with only the sources of ``row`` switched on."""
    if row == "all":
        return config.data
    return replace(config.data, **{key: off for key, off in SOURCES_OFF.items() if key != row})


def run_row(config: RunConfig, row: str, root: Path, notes: dict[str, list[Document]]) -> dict:
    from deid_crf.deid.deidentifier import Deidentifier
    from deid_crf.experiments.eval_notes import score_half
    from deid_crf.models import ESTIMATORS

    data = row_data(config, row)
    corpus = read_splits(root, list(data.train))
    dev = read_splits(root, [data.eval])
    docs = training_documents(corpus, data)
    tagger = ESTIMATORS[config.model.kind](
        tokenizer_config=config.tokenizer, feature_config=config.features, **config.model.params
    )
    started = time.perf_counter()
    tagger.fit(docs)
    seconds = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as folder:  # tag through a saved model, as users do
        tagger.save(folder)
        tagger = type(tagger).load(folder)
        deidentifier = Deidentifier(tagger, rules="default")
        dev_scores = score_half(dev, deidentifier)
        note_scores = {half: score_half(half_docs, deidentifier)["shipped"] for half, half_docs in notes.items()}
    return {
        "row": row,
        "documents": len(docs),
        "added": len(docs) - len(corpus),
        "train_seconds": round(seconds, 1),
        "dev_model_f1": dev_scores["model"].ner.f1,
        "dev_shipped_f1": dev_scores["shipped"].ner.f1,
        "dev_shipped_leak": dev_scores["shipped"].leak,
        **{f"notes_{h}_f1": s.ner.f1 for h, s in note_scores.items()},
        **{f"notes_{h}_span_recall": s.strict.r for h, s in note_scores.items()},
    }


def format_rows(rows: list[dict]) -> str:
    halves = sorted({k.split("_")[1] for r in rows for k in r if k.startswith("notes_")})
    note_cols = [f"notes {h} F1 | notes {h} span R" for h in halves]
    lines = [
        "| training data | docs | fit s | dev model F1 | dev shipped F1 | dev leak | " + " | ".join(note_cols) + " |",
        "|---|---:|---:|---:|---:|---:|" + "---:|---:|" * len(halves),
    ]
    for r in rows:
        notes = " | ".join(f"{r[f'notes_{h}_f1']:.4f} | {r[f'notes_{h}_span_recall']:.4f}" for h in halves)
        lines.append(
            f"| {r['row']} (+{r['added']}) | {r['documents']} | {r['train_seconds']:.0f} | {r['dev_model_f1']:.4f} | "
            f"{r['dev_shipped_f1']:.4f} | {r['dev_shipped_leak']:.4f} | {notes} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from deid_crf.experiments.eval_notes import NOTES_DIR, SPLITS, read_notes

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=Path("configs/crf.toml"))
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS))
    parser.add_argument("--json", type=Path, default=None, help="also write the rows as JSON")
    args = parser.parse_args(argv)
    config = RunConfig.from_dict(tomllib.loads(args.config.read_text(encoding="utf-8")), source=str(args.config))
    root = args.data_dir or data_dir()
    notes = {half: read_notes(NOTES_DIR / half) for half in SPLITS}
    rows = []
    for row in args.rows:
        rows.append(run_row(config, row, root, notes))
        print(format_rows(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(format_rows(rows))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
