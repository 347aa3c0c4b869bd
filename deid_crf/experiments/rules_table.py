"""How much the rule layer adds to a model, per entity type, on MEDDOCAN gold data::

    python -m deid_crf.experiments.rules_table [--split dev] [--model models/crf]   # or: make rules-table

prints, for every type a recognizer can produce, the model's F1 alone and with the rules
under each priority, and with the shipped ones; the shipped priorities
(:data:`deid_crf.deid.rules.DEFAULT_PRIORITY`) were chosen from this table. ``--gold DIR``
scores another BRAT folder (``make notes-brat`` writes the evaluation notes as one).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from deid_crf.deid.rules import DEFAULT_OTHER, DEFAULT_PRIORITY, RECOGNIZERS, RuleLayer, propagate_names
from deid_crf.models import Tagger
from deid_crf.scoring.meddocan import MeddocanScores, Scores, score_documents
from deid_crf.text.document import Document
from deid_crf.text.spans import MODEL_FIRST, OFF, RULES_FIRST, UNION, PHISpan, combine


def _score(gold: Sequence[Document], spans: Sequence[Sequence[PHISpan]]) -> MeddocanScores:
    system = [Document(d.doc_id, d.text, [s.entity for s in ss]) for d, ss in zip(gold, spans, strict=True)]
    return score_documents(gold, system)


# Preference among priorities that tie on a type: the one that hides the most text.
_TIE_ORDER = (UNION, RULES_FIRST, MODEL_FIRST, OFF)


def evaluate(gold: Sequence[Document], model_spans: Sequence[Sequence[PHISpan]]) -> str:
    """A Markdown report of the rule layer on ``gold``: for each type a recognizer
    produces, NER F1 of the model alone, precision/recall of the rules alone, F1 of
    model + rules under each priority, the best priority (ties go to the one that
    hides the most: union, rules, model, off) and the one :data:`DEFAULT_PRIORITY`
    ships; then the totals of the model alone and of the shipped layer."""
    all_rules = RuleLayer(priority=UNION)
    rule_spans = [all_rules.find(d.text) for d in gold]
    runs = {OFF: _score(gold, model_spans), "alone": _score(gold, rule_spans)}
    for mode in (MODEL_FIRST, RULES_FIRST, UNION):
        runs[mode] = _score(
            gold, [combine(m, r, d.text, mode) for d, m, r in zip(gold, model_spans, rule_spans, strict=True)]
        )
    shipped = RuleLayer()
    runs["shipped"] = _score(gold, [shipped.apply(d.text, m) for d, m in zip(gold, model_spans, strict=True)])
    unpropagated = RuleLayer(propagate=False)
    runs["no propagation"] = _score(
        gold, [unpropagated.apply(d.text, m) for d, m in zip(gold, model_spans, strict=True)]
    )
    runs["propagation only"] = _score(
        gold, [propagate_names(d.text, m) for d, m in zip(gold, model_spans, strict=True)]
    )

    def f1(run: str, type_: str) -> float:
        scores = runs[run].per_type.get(type_)
        return scores.f1 if scores is not None else 0.0

    lines = [
        "| type | support | model alone | rules alone P / R | model first | rules first | union | best | shipped "
        "| shipped F1 |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for type_ in sorted({t for r in RECOGNIZERS.values() for t in r.types}):
        support = runs[OFF].per_type.get(type_, Scores()).support
        alone = runs["alone"].per_type.get(type_, Scores())
        alone_text = f"{alone.p:.3f} / {alone.r:.3f}" if alone.tp + alone.fp else "–"
        best = max(_TIE_ORDER, key=lambda mode: (round(f1(mode, type_), 6), -_TIE_ORDER.index(mode)))
        cells = " | ".join(f"{f1(mode, type_):.4f}" for mode in (MODEL_FIRST, RULES_FIRST, UNION))
        shipped_mode = DEFAULT_PRIORITY.get(type_, DEFAULT_OTHER)
        lines.append(
            f"| {type_} | {support} | {f1(OFF, type_):.4f} | {alone_text} | {cells} | {best} | {shipped_mode} "
            f"| {f1('shipped', type_):.4f} |"
        )
    lines.append("")
    lines.append("| all types | NER P | NER R | NER F1 | strict F1 | merged F1 | leak |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    rows = (
        ("model alone", OFF),
        ("model + name propagation", "propagation only"),
        ("model + shipped rules, no propagation", "no propagation"),
        ("model + shipped rules + propagation (default)", "shipped"),
    )
    for name, run in rows:
        s = runs[run]
        lines.append(
            f"| {name} | {s.ner.p:.4f} | {s.ner.r:.4f} | {s.ner.f1:.4f} | {s.strict.f1:.4f} "
            f"| {s.merged.f1:.4f} | {s.leak:.4f} |"
        )
    return "\n".join(lines) + "\n"


def _model_spans(tagger: Tagger, docs: Sequence[Document]) -> list[list[PHISpan]]:
    scored = tagger.tag_texts_with_confidence([d.text for d in docs])
    return [[PHISpan(e.start, e.end, e.type, c) for e, c in doc] for doc in scored]


def main(argv: Sequence[str] | None = None) -> int:
    from deid_crf.config import data_dir, default_model_dir
    from deid_crf.io.brat import read_brat_dir
    from deid_crf.io.files import CorpusError

    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.experiments.rules_table", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--list", action="store_true", help="list the recognizers and stop")
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="folder holding meddocan/ (default: $DEID_CRF_DATA_DIR)"
    )
    parser.add_argument("--split", default="dev", choices=("train", "dev"), help="MEDDOCAN split (default: dev)")
    parser.add_argument(
        "--gold", type=Path, default=None, help="score this BRAT folder instead of a MEDDOCAN split (ID.txt + ID.ann)"
    )
    parser.add_argument("--model", type=Path, default=None, help="model directory (default: models/crf)")
    parser.add_argument("--n-jobs", type=int, default=1, help="processes for tagging (default: 1)")
    args = parser.parse_args(argv)
    if args.list:
        for r in RECOGNIZERS.values():
            print(f"{r.name:12} {', '.join(r.types):55} {r.description}")
        return 0
    try:
        docs = read_brat_dir(args.gold or (args.data_dir or data_dir()) / "meddocan" / args.split)
        from deid_crf.models import load_model

        tagger = load_model(args.model or default_model_dir(), n_jobs=args.n_jobs)
    except (CorpusError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(evaluate(docs, _model_spans(tagger, docs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
