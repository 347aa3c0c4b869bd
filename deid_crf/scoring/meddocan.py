"""MEDDOCAN scorer: subtask 1 (NER, with leak) and subtask 2 (strict and merged spans).

The numbers are those of the official MEDDOCAN evaluation script
(``PlanTL-GOB-ES/MEDDOCAN-Evaluation-Script``): per document, sets of annotations are
compared and the counts are summed over documents (micro average).

* Subtask 1 (NER) compares ``(type, start, end)`` triples. A span found with the
  wrong type is one false positive and one false negative. The leak is the total of
  false negatives divided by the total number of sentences of the gold documents.
* Subtask 2 *strict* compares ``(start, end)`` pairs, types ignored.
* Subtask 2 *merged* first merges, separately in gold and system, consecutive spans
  separated only by non-alphanumeric characters (``"Rivera"`` + ``" "`` +
  ``"Bueno"``); a pair found in either the strict or the merged comparison is a true
  positive, and strict misses lying inside such a true positive are forgiven.

Two deliberate differences from the official script, which compares only the
documents present on both sides: a gold document without a system counterpart counts
all its entities as false negatives, and a system document without a gold
counterpart is ignored; both cases raise a warning naming the document ids.

Nothing this module prints, warns or raises contains document or span text (which is
protected health information): only ids, offsets, entity types and counts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deid_crf.io.brat import parse_ann, read_brat_dir, read_document
from deid_crf.io.files import CorpusError, read_text
from deid_crf.text.document import Document, Entity

__all__ = [
    "MeddocanScores",
    "Scores",
    "evaluate_dirs",
    "format_report",
    "main",
    "merge_spans",
    "read_system_dir",
    "score_documents",
]

Span = tuple[int, int]

# At most this many document ids are listed in a warning.
_MAX_IDS_SHOWN = 10


def _ratio(num: int, den: int) -> float:
    """``num / den``, with ``0/0`` (and any zero denominator) defined as 0.0."""
    return num / float(den) if den else 0.0


@dataclass(frozen=True)
class Scores:
    """True-positive, false-positive and false-negative counts, with P/R/F1."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def p(self) -> float:
        """Precision ``tp / (tp + fp)`` (0.0 when nothing was predicted)."""
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def r(self) -> float:
        """Recall ``tp / (tp + fn)`` (0.0 when there is nothing to find)."""
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall (0.0 when both are 0), computed as
        the official script does, from the floating-point P and R."""
        p, r = self.p, self.r
        return 2 * ((p * r) / (p + r)) if p + r else 0.0

    @property
    def support(self) -> int:
        """Number of gold annotations (``tp + fn``)."""
        return self.tp + self.fn

    def __add__(self, other: Scores) -> Scores:
        if not isinstance(other, Scores):
            return NotImplemented
        return Scores(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def as_dict(self) -> dict[str, float | int]:
        return {"p": self.p, "r": self.r, "f1": self.f1, "tp": self.tp, "fp": self.fp, "fn": self.fn}


@dataclass(frozen=True)
class MeddocanScores:
    """Micro-averaged MEDDOCAN results over a set of documents."""

    ner: Scores
    strict: Scores
    merged: Scores
    leak: float
    n_sentences: int
    n_documents: int
    per_type: dict[str, Scores] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A flat, JSON-ready dict: ``{ner,strict,merged}_{p,r,f1,tp,fp,fn}``,
        ``leak``, ``n_sentences``, ``n_documents`` and ``per_type`` (type →
        ``{p, r, f1, tp, fp, fn, support}``)."""
        out: dict[str, Any] = {}
        for name, s in (("ner", self.ner), ("strict", self.strict), ("merged", self.merged)):
            for key, value in s.as_dict().items():
                out[f"{name}_{key}"] = value
        out["leak"] = self.leak
        out["n_sentences"] = self.n_sentences
        out["n_documents"] = self.n_documents
        out["per_type"] = {label: {**s.as_dict(), "support": s.support} for label, s in sorted(self.per_type.items())}
        return out


def merge_spans(spans: Iterable[Span], text: str) -> list[Span]:
    """Merge sorted spans whose gap (``text[prev_end:start]``) holds no alphanumeric
    character; an empty gap merges too.

    Exactly as the official script, a merged span runs from the previous span's start
    to the *current* span's end, even when the current span lies inside the previous
    one (overlapping or nested spans, which gold MEDDOCAN annotations never have).
    """
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged:
            prev_start, prev_end = merged[-1]
            if not any(c.isalnum() for c in text[prev_end:start]):
                merged[-1] = (prev_start, end)
                continue
        merged.append((start, end))
    return merged


def _contained(span: Span, containers: Iterable[Span]) -> bool:
    return any(span[0] >= s and span[1] <= e for s, e in containers)


def _score_merged(gold: set[Span], system: set[Span], gold_merged: set[Span], sys_merged: set[Span]) -> Scores:
    inter = (gold & system) | (gold_merged & sys_merged)
    fp = {s for s in system - gold if not _contained(s, inter)}
    fn = {s for s in gold - system if not _contained(s, inter)}
    return Scores(len(inter), len(fp), len(fn))


def _id_list(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:_MAX_IDS_SHOWN])
    more = len(ids) - _MAX_IDS_SHOWN
    return f"{shown} (and {more} more)" if more > 0 else shown


def _index(docs: Sequence[Document], side: str) -> dict[str, Document]:
    out: dict[str, Document] = {}
    for doc in docs:
        if doc.doc_id in out:
            raise ValueError(f"duplicate {side} document id {doc.doc_id!r}")
        out[doc.doc_id] = doc
    return out


def _total_sentences(gold: Sequence[Document], n_sentences: Mapping[str, int] | int | None) -> int:
    if n_sentences is None:
        from deid_crf.text.tokenizer import count_sentences

        return sum(count_sentences(doc.text) for doc in gold)
    if isinstance(n_sentences, int):
        total = n_sentences
    else:
        missing = [doc.doc_id for doc in gold if doc.doc_id not in n_sentences]
        if missing:
            raise ValueError(f"no sentence count for gold document(s): {_id_list(missing)}")
        total = sum(int(n_sentences[doc.doc_id]) for doc in gold)
    if total < 0:
        raise ValueError("sentence counts must not be negative")
    return total


def score_documents(
    gold: Sequence[Document],
    system: Sequence[Document],
    n_sentences: Mapping[str, int] | int | None = None,
) -> MeddocanScores:
    """Score ``system`` annotations against ``gold`` ones, matched by ``doc_id``.

    ``n_sentences`` gives the number of sentences of the gold documents, for the leak
    score: a mapping ``doc_id → count`` (summed over the gold documents), a total, or
    ``None`` to count them with :func:`deid_crf.text.tokenizer.count_sentences`.
    Offsets of system documents refer to the gold text, which is the one used for the
    merged-span gap test; system texts are not read. A gold document missing from
    ``system`` counts all its entities as false negatives; a system document missing
    from ``gold`` is ignored. Both cases warn (``UserWarning``) with the ids.
    """
    gold_by_id = _index(gold, "gold")
    sys_by_id = _index(system, "system")
    missing = [doc_id for doc_id in gold_by_id if doc_id not in sys_by_id]
    extra = [doc_id for doc_id in sys_by_id if doc_id not in gold_by_id]
    if missing:
        warnings.warn(
            f"{len(missing)} gold document(s) have no system counterpart and count as all false "
            f"negatives: {_id_list(missing)}",
            stacklevel=2,
        )
    if extra:
        warnings.warn(
            f"{len(extra)} system document(s) have no gold counterpart and are ignored: {_id_list(extra)}",
            stacklevel=2,
        )

    ner = strict = merged = Scores()
    type_tp: Counter[str] = Counter()
    type_fp: Counter[str] = Counter()
    type_fn: Counter[str] = Counter()
    for doc_id, gdoc in gold_by_id.items():
        sdoc = sys_by_id.get(doc_id)
        sys_entities: list[Entity] = sdoc.entities if sdoc is not None else []

        g_ner = {(e.type, e.start, e.end) for e in gdoc.entities}
        s_ner = {(e.type, e.start, e.end) for e in sys_entities}
        tp, fp, fn = g_ner & s_ner, s_ner - g_ner, g_ner - s_ner
        ner += Scores(len(tp), len(fp), len(fn))
        type_tp.update(t for t, _, _ in tp)
        type_fp.update(t for t, _, _ in fp)
        type_fn.update(t for t, _, _ in fn)

        g_spans = {(e.start, e.end) for e in gdoc.entities}
        s_spans = {(e.start, e.end) for e in sys_entities}
        strict += Scores(len(g_spans & s_spans), len(s_spans - g_spans), len(g_spans - s_spans))
        merged += _score_merged(
            g_spans, s_spans, set(merge_spans(g_spans, gdoc.text)), set(merge_spans(s_spans, gdoc.text))
        )

    total_sentences = _total_sentences(list(gold_by_id.values()), n_sentences)
    types = set(type_tp) | set(type_fp) | set(type_fn)
    per_type = {t: Scores(type_tp[t], type_fp[t], type_fn[t]) for t in sorted(types)}
    return MeddocanScores(
        ner=ner,
        strict=strict,
        merged=merged,
        leak=_ratio(ner.fn, total_sentences),
        n_sentences=total_sentences,
        n_documents=len(gold_by_id),
        per_type=per_type,
    )


def format_report(scores: MeddocanScores) -> str:
    """A plain-text report of every measure and a per-type table sorted by support."""
    lines = [f"MEDDOCAN evaluation ({scores.n_documents} documents, {scores.n_sentences} sentences)", ""]
    header = f"{'Measure':<22}{'P':>8}{'R':>8}{'F1':>8}{'TP':>8}{'FP':>8}{'FN':>8}"
    lines += [header, "-" * len(header)]
    for name, s in (
        ("Subtask 1 [NER]", scores.ner),
        ("Subtask 2 [strict]", scores.strict),
        ("Subtask 2 [merged]", scores.merged),
    ):
        lines.append(f"{name:<22}{s.p:>8.4f}{s.r:>8.4f}{s.f1:>8.4f}{s.tp:>8}{s.fp:>8}{s.fn:>8}")
    lines += [f"{'Leak (NER FN/sentence)':<22}{scores.leak:>8.4f}", ""]

    width = max([len("Type")] + [len(t) for t in scores.per_type]) + 2
    header = f"{'Type':<{width}}{'Support':>8}{'P':>8}{'R':>8}{'F1':>8}{'TP':>8}{'FP':>8}{'FN':>8}"
    lines += ["Subtask 1 [NER] per type", header, "-" * len(header)]
    for label, s in sorted(scores.per_type.items(), key=lambda kv: (-kv[1].support, kv[0])):
        lines.append(f"{label:<{width}}{s.support:>8}{s.p:>8.4f}{s.r:>8.4f}{s.f1:>8.4f}{s.tp:>8}{s.fp:>8}{s.fn:>8}")
    return "\n".join(lines) + "\n"


def read_system_dir(directory: str | Path, gold: Sequence[Document]) -> list[Document]:
    """Read a system output directory: one ``ID.ann`` per document, with or without
    ``ID.txt`` next to it. Without a ``.txt``, offsets are checked against the text of
    the gold document ``ID``; with one, that text must equal the gold text. ``.ann``
    files with neither a ``.txt`` nor a gold document are returned without entities
    (:func:`score_documents` ignores them with a warning); a ``.txt`` without ``.ann``
    is not a system document (its gold counterpart counts as missing)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise CorpusError(f"{directory}: not a directory")
    ann_paths = sorted(directory.glob("*.ann"))
    if not ann_paths:
        raise CorpusError(f"{directory}: no .ann files")
    gold_by_id = {doc.doc_id: doc for doc in gold}
    docs = []
    for ann_path in ann_paths:
        doc_id = ann_path.stem
        txt_path = ann_path.with_suffix(".txt")
        gdoc = gold_by_id.get(doc_id)
        if txt_path.exists():
            doc = read_document(txt_path, ann_path)
            if gdoc is not None and doc.text != gdoc.text:
                raise CorpusError(f"{txt_path}: text differs from the gold text of document {doc_id!r}")
        elif gdoc is not None:
            doc = Document(doc_id, gdoc.text, parse_ann(read_text(ann_path), gdoc.text, str(ann_path)))
        else:
            doc = Document(doc_id, "", [])
        docs.append(doc)
    return docs


def evaluate_dirs(
    gold_dir: str | Path, system_dir: str | Path, n_sentences: Mapping[str, int] | int | None = None
) -> MeddocanScores:
    """Score a BRAT system directory against a BRAT gold directory (see
    :func:`read_system_dir`); sentences are counted with the project's splitter unless
    ``n_sentences`` is given."""
    gold = read_brat_dir(gold_dir, require_ann=True)
    system = read_system_dir(system_dir, gold)
    return score_documents(gold, system, n_sentences)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: print the report (or ``--json``) and return 0; on a missing
    directory or malformed BRAT print a one-line error to stderr and return 2."""
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.evaluate",
        description="Score BRAT system annotations against gold ones with the MEDDOCAN measures.",
    )
    parser.add_argument("gold_dir", help="gold directory (ID.txt + ID.ann)")
    parser.add_argument("system_dir", help="system directory (ID.ann, optionally with ID.txt)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scores = evaluate_dirs(args.gold_dir, args.system_dir)
    except (CorpusError, OSError, ValueError) as exc:
        # Corpus errors and our own ValueErrors hold no PHI by design; OSErrors name a path.
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"error: {message}", file=sys.stderr)
        return 2
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    try:
        if args.json:
            print(json.dumps(scores.to_dict(), indent=2))
        else:
            print(format_report(scores), end="")
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
