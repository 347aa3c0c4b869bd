"""Recall-first operating points: MEDDOCAN scores of the de-identifier (model + rule
layer, as ``tag`` runs it) at several ``--recall-first`` thresholds.

    python -m deid_crf.experiments.recall_curve --model models/crf --thresholds none 0.5 0.2 0.1 0.05 0.01

prints one row per threshold (``none``: recall-first off): subtask-1 (NER) precision,
recall and F1, merged-span recall, the leak, and how many gold entities no predicted
span touches at all. The same spans as ``tag --format brat --recall-first P`` scored by
``python -m deid_crf.evaluate`` (docs/review.md). ``--candidates`` picks the kinds of
candidates (default: those of ``tag``, :data:`deid_crf.config.RECALL_FIRST_CANDIDATES`);
``--k-best K …`` adds a table of the model alone (no rule layer) comparing span
candidates with the union of each sentence's ``K`` best label sequences.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from deid_crf.config import RECALL_FIRST_CANDIDATES
from deid_crf.config import data_dir as default_data_dir
from deid_crf.deid.deidentifier import Deidentifier
from deid_crf.io.brat import read_brat_dir
from deid_crf.models.candidates import CANDIDATE_KINDS, SPAN_CANDIDATES
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.scoring.meddocan import MeddocanScores, score_documents
from deid_crf.text.document import Document, Entity


@dataclass(frozen=True)
class OperatingPoint:
    threshold: float | None  # None: recall-first off
    scores: MeddocanScores
    untouched: int  # gold entities that no predicted span overlaps


def untouched_entities(gold: Sequence[Document], system: Sequence[Document]) -> int:
    """Gold entities that no system entity of the same document overlaps (left in clear
    whatever their type or boundaries)."""
    found = {d.doc_id: sorted((e.start, e.end) for e in d.entities) for d in system}
    count = 0
    for doc in gold:
        spans = found.get(doc.doc_id, [])
        count += sum(not any(a < e.end and e.start < b for a, b in spans) for e in doc.entities)
    return count


def recall_curve(
    deidentifier: Deidentifier,
    docs: Sequence[Document],
    thresholds: Sequence[float | None],
    candidates: Sequence[str] = RECALL_FIRST_CANDIDATES,
) -> list[OperatingPoint]:
    """Score ``deidentifier``'s spans on ``docs`` (gold entities) at each threshold,
    proposing ``candidates``."""
    deidentifier.recall_candidates = tuple(candidates)
    points = []
    for threshold in thresholds:
        deidentifier.recall_threshold = threshold
        spans = deidentifier.find([d.text for d in docs], confidence=False)
        system = [Document(d.doc_id, d.text, [s.entity for s in found]) for d, found in zip(docs, spans, strict=True)]
        points.append(OperatingPoint(threshold, score_documents(docs, system), untouched_entities(docs, system)))
    return points


def model_candidates(
    tagger: DeidTagger, docs: Sequence[Document], thresholds: Sequence[float], ks: Sequence[int]
) -> list[tuple[str, MeddocanScores]]:
    """The model alone (no rule layer) on ``docs``: its best path, with the span
    candidates at each threshold, and with the spans of each sentence's ``k`` best
    label sequences for each ``k`` of ``ks``; ``(name, scores)`` rows."""
    texts = [d.text for d in docs]

    def score(name: str, found: Sequence[Sequence[Entity]]) -> tuple[str, MeddocanScores]:
        system = [Document(d.doc_id, d.text, list(e)) for d, e in zip(docs, found, strict=True)]
        return name, score_documents(docs, system)

    rows = [score("best path", tagger.tag_texts(texts))]
    for threshold in thresholds:
        scored = tagger.tag_texts_scored(texts, recall_threshold=threshold, candidates=(SPAN_CANDIDATES,))
        rows.append(score(f"+ spans >= {threshold:g}", [[s.entity for s in found] for found in scored]))
    for k in ks:
        rows.append(score(f"{k} best paths", tagger.tag_texts_k_best(texts, k)))
    return rows


def model_table(rows: Sequence[tuple[str, MeddocanScores]]) -> str:
    """:func:`model_candidates`' rows as a Markdown table."""
    lines = ["| model alone | NER P | NER R | NER F1 | spans |", "|---|---:|---:|---:|---:|"]
    for name, s in rows:
        lines.append(f"| {name} | {s.ner.p:.4f} | {s.ner.r:.4f} | {s.ner.f1:.4f} | {s.ner.tp + s.ner.fp} |")
    return "\n".join(lines)


def table(points: Sequence[OperatingPoint]) -> str:
    """The operating points as a Markdown table."""
    lines = [
        "| `--recall-first` | NER P | NER R | NER F1 | merged R | leak | gold entities untouched |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in points:
        s = p.scores
        name = "off" if p.threshold is None else f"{p.threshold:g}"
        lines.append(
            f"| {name} | {s.ner.p:.4f} | {s.ner.r:.4f} | {s.ner.f1:.4f} | {s.merged.r:.4f} | {s.leak:.4f} "
            f"| {p.untouched} |"
        )
    return "\n".join(lines)


def _threshold(text: str) -> float | None:
    if text == "none":
        return None
    value = float(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: a threshold is in (0, 1], or none")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deid_crf.experiments.recall_curve", description=__doc__)
    parser.add_argument("--model", type=Path, required=True, help="a saved CRF model directory")
    parser.add_argument("--data-dir", type=Path, default=None, help="MEDDOCAN root (default: $DEID_CRF_DATA_DIR)")
    parser.add_argument("--split", default="dev", help="the split scored (default: dev)")
    parser.add_argument(
        "--thresholds", nargs="+", type=_threshold, default=[None, 0.5, 0.2, 0.1, 0.05, 0.01], metavar="P"
    )
    parser.add_argument("--rules", default="default", help="rule layer mode, as tag --rules (default: default)")
    parser.add_argument(
        "--candidates",
        nargs="+",
        choices=CANDIDATE_KINDS,
        default=list(RECALL_FIRST_CANDIDATES),
        help=f"recall-first candidate kinds (default: {' '.join(RECALL_FIRST_CANDIDATES)}, as tag)",
    )
    parser.add_argument(
        "--k-best",
        nargs="+",
        type=int,
        default=[],
        metavar="K",
        help="also print the model alone with span candidates and with its K best paths (slow: K times Viterbi)",
    )
    parser.add_argument("-j", "--n-jobs", type=int, default=-1)
    args = parser.parse_args(argv)
    from deid_crf.models import load_model

    docs = read_brat_dir((args.data_dir or default_data_dir()) / "meddocan" / args.split)
    tagger = load_model(args.model, n_jobs=args.n_jobs)
    deid = Deidentifier(tagger, rules=args.rules)
    print(table(recall_curve(deid, docs, args.thresholds, args.candidates)))
    if args.k_best:
        if not isinstance(tagger, DeidTagger):
            parser.error("--k-best needs a CRF model")
        print()
        print(model_table(model_candidates(tagger, docs, [t for t in args.thresholds if t is not None], args.k_best)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
