"""The figures of the documentation and the notebooks, one function per figure.

Each ``*_figure`` function takes computed results (no file, no model) and returns a
:class:`matplotlib.figure.Figure`, built without pyplot, so it works under any
backend: the notebooks display it, :func:`main` saves it as PNG. Figures show entity
types, counts and scores, never document text.

    python -m deid_crf.experiments.figures [--model models/crf] [--grid-csv results/grid-example.csv]
        [--out docs/figures] [--sizes 25 50 100 200] [--only NAME …]

``make figures`` runs it. It renders, into ``--out``:

* ``confusion_matrix.png``, ``per_type_scores.png``, ``false_negatives.png``: the saved
  model in ``--model`` (``make train-crf``) on the dev split; skipped, saying so, when
  there is no model;
* ``learning_curve.png``: CRFs with the core features trained on the first 25, 50, 100
  and 200 train documents (``--sizes``) and scored on dev: four trainings of at most
  200 documents, about a minute in all on one core;
* ``crf_c1_c2_heatmap.png``: dev NER F1 of the CRF points of a grid-search results table
  (``make grid-search`` writes ``results/grid-example.csv``); skipped, saying so, when
  the table is missing, rather than running the grid (about 13 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from deid_crf.experiments.error_analysis import (
    BOUNDARY,
    MISSED,
    WRONG_TYPE,
    ConfusionMatrix,
    confusion_matrix,
    false_negative_causes,
)
from deid_crf.experiments.grid import FIT_COLUMNS, SCORE_COLUMNS
from deid_crf.scoring.meddocan import Scores
from deid_crf.text.document import Document

FIGURE_NAMES = ("confusion_matrix", "per_type_scores", "false_negatives", "learning_curve", "crf_c1_c2_heatmap")
DEFAULT_SIZES = (25, 50, 100, 200)


# -- error analysis -----------------------------------------------------------------------
def types_by_support(gold: Sequence[Document], system: Sequence[Document]) -> list[str]:
    """Entity types by number of gold entities (most first), then types only predicted:
    the row and column order of :func:`confusion_matrix_figure`."""
    support = Counter(e.type for d in gold for e in d.entities)
    predicted_only = {e.type for d in system for e in d.entities} - set(support)
    return sorted(support, key=lambda t: (-support[t], t)) + sorted(predicted_only)


def confusion_matrix_figure(matrix: ConfusionMatrix, title: str = "Entity types, paired by overlap") -> Figure:
    """The confusion matrix of entity types (Cotik et al. 2019, Fig. 2): gold types (+
    *spurious*) by row, predicted types (+ *missed*) by column, counts written in the
    cells over a logarithmic colour scale; empty cells are left blank."""
    rows, columns = matrix.rows, matrix.columns
    fig = Figure(figsize=(0.42 * len(columns) + 4.5, 0.36 * len(rows) + 3.2), layout="constrained")
    ax = fig.add_subplot()
    peak = max(int(matrix.counts.max()), 2)
    image = ax.imshow(np.ma.masked_equal(matrix.counts, 0), cmap="viridis", norm=LogNorm(vmin=1, vmax=peak))
    for i, j in zip(*np.nonzero(matrix.counts), strict=True):
        count = int(matrix.counts[i, j])
        # Light text on the dark low end of viridis, dark text on the bright high end.
        color = "white" if math.log(count) < 0.6 * math.log(peak) else "black"
        ax.text(j, i, str(count), ha="center", va="center", fontsize=7, color=color)
    ax.set_xticks(range(len(columns)), columns, rotation=90, fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_xlabel("predicted type")
    ax.set_ylabel("gold type")
    ax.set_title(title)
    fig.colorbar(image, ax=ax, shrink=0.6, label="entities")
    return fig


def per_type_scores_figure(per_type: Mapping[str, Scores], title: str = "Per-type NER scores") -> Figure:
    """Precision, recall and F1 (subtask 1) of each type as grouped horizontal bars,
    types by gold frequency (support in brackets)."""
    ordered = sorted(per_type, key=lambda t: (-per_type[t].support, t))
    y = np.arange(len(ordered))
    height = 0.27
    fig = Figure(figsize=(9, 0.4 * len(ordered) + 1.6), layout="constrained")
    ax = fig.add_subplot()
    for k, (label, value) in enumerate((("precision", "p"), ("recall", "r"), ("F1", "f1"))):
        ax.barh(y + (k - 1) * height, [getattr(per_type[t], value) for t in ordered], height, label=label)
    ax.set_yticks(y, [f"{t} ({per_type[t].support})" for t in ordered], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("subtask-1 score (type and exact offsets)")
    ax.set_ylabel("entity type (gold entities)")
    ax.set_title(title)
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return fig


def false_negatives_figure(
    causes: Mapping[str, Mapping[str, int]], title: str = "False negatives by type and cause"
) -> Figure:
    """Stacked bars of the false negatives of each type by cause: *missed*, *wrong
    type*, *boundary* (:func:`deid_crf.experiments.error_analysis.false_negative_causes`)."""
    names = list(causes)
    fig = Figure(figsize=(9, 0.38 * len(names) + 1.6), layout="constrained")
    ax = fig.add_subplot()
    left = np.zeros(len(names))
    for cause in (MISSED, WRONG_TYPE, BOUNDARY):
        values = np.array([causes[t].get(cause, 0) for t in names], dtype=float)
        ax.barh(names, values, left=left, label=cause)
        left += values
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlabel("false negatives (subtask 1)")
    ax.set_ylabel("entity type")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return fig


# -- learning curve -----------------------------------------------------------------------
def learning_curve_figure(
    sizes: Sequence[int],
    f1: Mapping[str, Sequence[float]],
    leak: Mapping[str, Sequence[float]],
    title: str = "Learning curve on dev",
) -> Figure:
    """NER F1 (left) and leak (right) against the number of training documents, one
    line per model (the keys of ``f1`` and ``leak``), on a logarithmic x axis."""
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    ax_f1, ax_leak = fig.subplots(1, 2)
    for ax, values, label in (
        (ax_f1, f1, "dev NER F1 (subtask 1)"),
        (ax_leak, leak, "dev leak (false negatives / sentence)"),
    ):
        for name, series in values.items():
            ax.plot(sizes, series, marker="o", label=name)
        ax.set_xscale("log")
        ax.set_xticks(list(sizes), [str(n) for n in sizes])
        ax.minorticks_off()
        ax.set_xlabel("training documents")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    return fig


def recall_curve_figure(
    thresholds: Sequence[float | None],
    precision: Sequence[float],
    recall: Sequence[float],
    merged_recall: Sequence[float],
    title: str = "Recall-first operating points on dev",
) -> Figure:
    """Precision against recall (NER, and merged-span recall) at each recall-first
    threshold, each point labelled with its threshold ("off": the model's best path)."""
    fig = Figure(figsize=(7, 5), layout="constrained")
    ax = fig.subplots()
    ax.plot(recall, precision, marker="o", label="NER (subtask 1)")
    ax.plot(merged_recall, precision, marker="s", linestyle="--", label="recall of merged spans (subtask 2)")
    for t, p, r in zip(thresholds, precision, recall, strict=True):
        ax.annotate("off" if t is None else f"{t:g}", (r, p), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xlabel("recall")
    ax.set_ylabel("NER precision")
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title)
    return fig


# -- grid search --------------------------------------------------------------------------
@dataclass(frozen=True)
class C1C2Grid:
    """The CRF points of a grid that differ only in c1 and c2: ``f1[i, j]`` is the NER
    F1 at ``c1s[i]``, ``c2s[j]`` (NaN where the grid has no point), ``rows`` their
    results rows."""

    c1s: list[float]
    c2s: list[float]
    f1: np.ndarray
    rows: list[Mapping[str, str]]


def _settings(row: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """Everything that defines a point but c1 and c2."""
    ignored = {"point_id", "c1", "c2", *SCORE_COLUMNS, *FIT_COLUMNS}
    return tuple(sorted((k, str(v)) for k, v in row.items() if k not in ignored))


def c1_c2_grid(rows: Sequence[Mapping[str, str]]) -> C1C2Grid:
    """From rows of a grid results table (``python -m deid_crf.experiments.grid``), the
    largest set of CRF points that share every setting but c1 and c2 (ties: the one
    with the best NER F1). ``ValueError`` if there is no CRF point."""
    groups: dict[tuple[tuple[str, str], ...], list[Mapping[str, str]]] = {}
    for row in rows:
        if row.get("kind") == "crf" and row.get("ner_f1") not in (None, ""):
            groups.setdefault(_settings(row), []).append(row)
    if not groups:
        raise ValueError("the grid results have no CRF point")
    group = max(groups.values(), key=lambda g: (len(g), max(float(r["ner_f1"]) for r in g)))
    c1s = sorted({float(r["c1"]) for r in group})
    c2s = sorted({float(r["c2"]) for r in group})
    f1 = np.full((len(c1s), len(c2s)), np.nan)
    for r in group:
        f1[c1s.index(float(r["c1"])), c2s.index(float(r["c2"]))] = float(r["ner_f1"])
    return C1C2Grid(c1s, c2s, f1, group)


def heatmap_title(grid: C1C2Grid) -> str:
    """What the heat map's cells were scored on, from the data columns of its rows."""
    row = grid.rows[0]
    folds, limit = int(row.get("folds") or 0), int(row.get("limit") or 0)
    where = f"{folds}-fold CV on {row.get('train')}+{row.get('eval')}" if folds else row.get("eval", "dev")
    documents = f", first {limit} documents of each split" if limit else ""
    return f"CRF NER F1, {where} ({len(grid.rows)} points{documents})"


def grid_heatmap_figure(grid: C1C2Grid, title: str | None = None) -> Figure:
    """NER F1 over c1 × c2 as a heat map with the values in the cells; the best cell
    is framed in red."""
    f1 = grid.f1
    fig = Figure(figsize=(1.6 * len(grid.c2s) + 3.2, 1.0 * len(grid.c1s) + 2.2), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(f1, cmap="viridis", origin="lower")
    middle = np.nanmean(f1)
    for i, j in zip(*np.nonzero(~np.isnan(f1)), strict=True):
        color = "white" if f1[i, j] < middle else "black"
        ax.text(j, i, f"{f1[i, j]:.4f}", ha="center", va="center", color=color)
    best_i, best_j = np.unravel_index(np.nanargmax(f1), f1.shape)
    ax.add_patch(Rectangle((best_j - 0.5, best_i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2))
    ax.set_xticks(range(len(grid.c2s)), [f"{v:g}" for v in grid.c2s])
    ax.set_yticks(range(len(grid.c1s)), [f"{v:g}" for v in grid.c1s])
    ax.set_xlabel("c2 (L2 penalty)")
    ax.set_ylabel("c1 (L1 penalty)")
    ax.set_title(title or heatmap_title(grid), fontsize=10)
    fig.colorbar(image, ax=ax, label="NER F1")
    return fig


def read_results(path: Path) -> list[dict[str, str]]:
    """The rows of a grid results CSV."""
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


# -- command line -------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.experiments.figures",
        description="Render the documentation figures as PNG files.",
    )
    parser.add_argument(
        "--data-dir", type=Path, help="shared data root (default: $DEID_CRF_DATA_DIR or ../shared/data)"
    )
    parser.add_argument("--model", type=Path, default=Path("models/crf"), help="saved tagger (default: models/crf)")
    parser.add_argument(
        "--grid-csv",
        type=Path,
        default=Path("results/grid-example.csv"),
        help="grid-search results for the heat map (default: results/grid-example.csv)",
    )
    parser.add_argument("--out", type=Path, default=Path("docs/figures"), help="output folder (default: docs/figures)")
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=list(DEFAULT_SIZES),
        help="training documents of the learning curve's CRFs (default: 25 50 100 200)",
    )
    parser.add_argument(
        "--max-iterations", type=int, help="L-BFGS iterations of the learning curve's CRFs (default: the CRF default)"
    )
    parser.add_argument("--n-jobs", type=int, default=1, help="processes for tagging (default: 1)")
    parser.add_argument("--dpi", type=int, default=100, help="resolution of the PNG files (default: 100)")
    parser.add_argument(
        "--only", nargs="+", choices=FIGURE_NAMES, metavar="NAME", help=f"render only these: {', '.join(FIGURE_NAMES)}"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    from deid_crf.config import CRFConfig, data_dir
    from deid_crf.io.brat import read_brat_dir

    wanted = set(args.only or FIGURE_NAMES)
    root = args.data_dir or data_dir()
    args.out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Figure] = {}
    skipped: list[str] = []

    def dev() -> list[Document]:
        return read_brat_dir(root / "meddocan" / "dev")

    if wanted & {"confusion_matrix", "per_type_scores", "false_negatives"}:
        if not (args.model / "config.json").is_file():
            skipped.append(f"error-analysis figures: no model in {args.model} (make train-crf builds one)")
        else:
            from deid_crf.models import load_model
            from deid_crf.scoring.meddocan import score_documents

            gold = dev()
            tagger = load_model(args.model, n_jobs=args.n_jobs)
            system = [Document(d.doc_id, d.text, e) for d, e in zip(gold, tagger.predict(gold), strict=True)]
            scores = score_documents(gold, system)
            print(f"{args.model} on dev ({len(gold)} documents): NER F1 {scores.ner.f1:.4f}, leak {scores.leak:.4f}")
            where = f"{args.model} on dev: {len(gold)} documents, NER F1 {scores.ner.f1:.4f}"
            figures["confusion_matrix"] = confusion_matrix_figure(
                confusion_matrix(gold, system, types=types_by_support(gold, system)),
                f"Entity types paired by overlap\n{where}",
            )
            figures["per_type_scores"] = per_type_scores_figure(scores.per_type, f"Per-type NER scores\n{where}")
            figures["false_negatives"] = false_negatives_figure(
                false_negative_causes(gold, system), f"False negatives by type and cause\n{where}"
            )

    if "learning_curve" in wanted:
        from deid_crf.experiments.learning_curve import learning_curve
        from deid_crf.models.crf_tagger import DeidTagger

        iterations = args.max_iterations or CRFConfig.max_iterations
        train, evaluation = read_brat_dir(root / "meddocan" / "train"), dev()
        points = []
        for point in learning_curve(
            lambda: DeidTagger(max_iterations=iterations, n_jobs=args.n_jobs), train, evaluation, args.sizes
        ):
            print(
                f"learning curve: CRF (core features) on {point.n_train} documents: NER F1 "
                f"{point.scores.ner.f1:.4f}, leak {point.scores.leak:.4f}, trained in {point.train_seconds:.0f} s",
                flush=True,
            )
            points.append(point)
        figures["learning_curve"] = learning_curve_figure(
            [p.n_train for p in points],
            {"CRF, core features": [p.scores.ner.f1 for p in points]},
            {"CRF, core features": [p.scores.leak for p in points]},
            f"Learning curve on dev ({len(evaluation)} documents): "
            f"CRF with the core features, {iterations} L-BFGS iterations",
        )

    if "crf_c1_c2_heatmap" in wanted:
        if not args.grid_csv.is_file():
            skipped.append(
                f"heat map: no grid results in {args.grid_csv} (make grid-search writes them, about 13 minutes)"
            )
        else:
            try:
                figures["crf_c1_c2_heatmap"] = grid_heatmap_figure(c1_c2_grid(read_results(args.grid_csv)))
            except (KeyError, ValueError) as exc:
                skipped.append(f"heat map: {args.grid_csv}: {exc}")

    for name, fig in figures.items():
        if name not in wanted:
            continue
        path = args.out / f"{name}.png"
        fig.savefig(path, dpi=args.dpi, bbox_inches="tight")
        print(f"wrote {path}")
    for reason in skipped:
        print(f"skipped {reason}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
