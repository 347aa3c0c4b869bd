"""Feature-group ablation on MEDDOCAN dev (train on train).

    python -m deid_crf.experiments.ablation [--data-dir DIR] [--rows core pos ...] [--json FILE]

Each row adds a group of features to the core set (or uses all of them), trains the
CRF with the default hyper-parameters and scores dev with the MEDDOCAN scorer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from deid_crf.config import FeatureConfig, data_dir
from deid_crf.io.brat import read_splits
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.scoring.meddocan import score_documents
from deid_crf.text.document import Document

CORE = FeatureConfig().groups
# Extra groups per row, and window columns they add.
ROWS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "core": ((), ()),
    "+pos": (("pos",), ("pos",)),
    "+gazetteers": (("gazetteers",), ()),
    "+embeddings": (("embeddings",), ("emb256",)),
    "+consistency": (("document_label",), ("doclabel",)),
    "all": (("pos", "gazetteers", "embeddings", "document_label"), ("pos", "emb256", "doclabel")),
}
WEAK_TYPES = (
    "INSTITUCION",
    "FAMILIARES_SUJETO_ASISTENCIA",
    "HOSPITAL",
    "CALLE",
    "PROFESION",
    "CENTRO_SALUD",
    "NOMBRE_PERSONAL_SANITARIO",
)
SHORT = {
    "INSTITUCION": "INST",
    "FAMILIARES_SUJETO_ASISTENCIA": "FAMIL",
    "HOSPITAL": "HOSP",
    "CALLE": "CALLE",
    "PROFESION": "PROF",
    "CENTRO_SALUD": "C_SAL",
    "NOMBRE_PERSONAL_SANITARIO": "N_SAN",
}


def row_config(name: str, base: FeatureConfig | None = None) -> FeatureConfig:
    base = base or FeatureConfig()
    groups, window = ROWS[name]
    core = tuple(g for g in base.groups if g not in ("pos", "gazetteers", "embeddings", "document_label"))
    core_window = tuple(c for c in base.window_columns if c not in ("pos", "emb256", "doclabel"))
    return replace(base, groups=core + groups, window_columns=core_window + window)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.experiments.ablation", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--json", type=Path, default=Path("bench-results/ablation.json"))
    args = parser.parse_args(argv)
    root = args.data_dir or data_dir()
    train_docs, dev_docs = read_splits(root, ["train"]), read_splits(root, ["dev"])
    results = {}
    for name in args.rows:
        started = time.perf_counter()
        tagger = DeidTagger(feature_config=row_config(name), n_jobs=-1).fit(train_docs)
        seconds = time.perf_counter() - started
        predicted = tagger.predict(dev_docs)
        system = [Document(d.doc_id, d.text, e) for d, e in zip(dev_docs, predicted, strict=True)]
        scores = score_documents(dev_docs, system)
        results[name] = {**scores.to_dict(), "train_seconds": seconds}
        print(f"{name}: NER F1 {scores.ner.f1:.4f} ({seconds:.0f} s)", file=sys.stderr)
    header = "| features | P | R | F1 | merged F1 | leak | " + " | ".join(SHORT[t] for t in WEAK_TYPES) + " | train s |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name, r in results.items():
        weak = " | ".join(f"{r['per_type'].get(t, {}).get('f1', 0.0):.3f}" for t in WEAK_TYPES)
        print(
            f"| {name} | {r['ner_p']:.4f} | {r['ner_r']:.4f} | {r['ner_f1']:.4f} | {r['merged_f1']:.4f} "
            f"| {r['leak']:.4f} | {weak} | {r['train_seconds']:.0f} |"
        )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
