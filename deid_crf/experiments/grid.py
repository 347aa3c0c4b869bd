"""Grid search: train and score every point of a declared grid, in parallel, resumably.

    python -m deid_crf.experiments.grid configs/grid-example.toml [--out results/grid-example.csv]
        [--n-jobs N] [--backend loky] [--folds K] [--limit N] [--cache-dir DIR | --no-cache]
        [--backend dask [--scheduler tls://HOST:PORT --tls-ca-file CA --tls-cert CERT --tls-key KEY]]

The grid file (format in :mod:`deid_crf.experiments.grid_config`) declares model kinds,
hyper-parameters, feature settings and data. Every point trains on the training
split(s) and is scored with the MEDDOCAN measures on the evaluation split, or by
K-fold cross-validation over both. Training data are featurized once per feature
configuration and kept in a ``joblib.Memory`` cache, so a c1 × c2 grid featurizes
once. Points run in joblib workers (CRFsuite and liblinear train on one core each).
The results table, one CSV row per point, is rewritten atomically after each point;
a rerun into the same table skips the points already in it.

For scikit-learn's own tools, :data:`meddocan_f1_scorer` (and :func:`meddocan_scorer`
for other measures) is a ``scoring=`` callable for ``GridSearchCV``/``cross_validate``
over lists of :class:`~deid_crf.io.brat.Document`.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import hashlib
import io
import json
import logging
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from joblib import Parallel, delayed, parallel_config
from sklearn.base import BaseEstimator
from sklearn.model_selection import KFold
from tqdm.auto import tqdm

from deid_crf.augment import training_documents
from deid_crf.batch.scheduler_options import add_scheduler_arguments, scheduler_tls
from deid_crf.config import DEFAULT_PRESETS, data_dir, default_cache_dir
from deid_crf.experiments.grid_cache import (
    TrainingInput,
    code_hash,
    documents_hash,
    featurization_key,
    featurize_documents,
    open_cache,
    resources_hash,
)
from deid_crf.experiments.grid_config import RUNNER_PARAMS, DataSpec, GridConfig, GridPoint, load_grid
from deid_crf.io.brat import read_brat_dir
from deid_crf.io.files import atomic_write_text
from deid_crf.scoring.meddocan import score_documents
from deid_crf.text.document import Document

log = logging.getLogger("deid_crf.experiments.grid")
R = TypeVar("R")

# Columns of the results table, after the parameter columns.
SCORE_COLUMNS = tuple(
    f"{measure}_{stat}" for measure in ("ner", "strict", "merged") for stat in ("p", "r", "f1", "tp", "fp", "fn")
) + ("leak", "n_documents", "n_sentences", "ner_f1_fold_std")
FIT_COLUMNS = ("n_iter", "converged", "featurize_seconds", "train_seconds", "tag_seconds")
DATA_COLUMNS = ("train", "eval", "folds", "limit", "rewrite", "synthetic")


class GridRunError(RuntimeError):
    """A featurization or a point failed; the message names which, never the text."""


# -- scikit-learn scorer ------------------------------------------------------------------
class MeddocanScorer:
    """A scikit-learn scorer (``scoring=`` of ``GridSearchCV``, ``cross_validate``):
    tags the documents ``X`` with the estimator and scores the result against their
    gold entities. ``measure`` is a key of ``MeddocanScores.to_dict()`` (``ner_f1``,
    ``strict_f1``, ``merged_f1``, ``ner_r``…); ``leak`` is negated, since scikit-learn
    maximizes scores."""

    def __init__(self, measure: str = "ner_f1"):
        if measure not in SCORE_COLUMNS or measure.endswith(("_tp", "_fp", "_fn", "_std")) or measure.startswith("n_"):
            raise ValueError(f"unknown MEDDOCAN measure {measure!r}")
        self.measure = measure

    def __call__(self, estimator: BaseEstimator, X: Sequence[Document], y: Any = None) -> float:
        docs = list(X)
        system = [Document(d.doc_id, d.text, e) for d, e in zip(docs, estimator.predict(docs), strict=True)]
        value = float(score_documents(docs, system).to_dict()[self.measure])
        return -value if self.measure == "leak" else value

    def __repr__(self) -> str:
        return f"MeddocanScorer({self.measure!r})"


def meddocan_scorer(measure: str = "ner_f1") -> MeddocanScorer:
    """A ``scoring=`` callable for one MEDDOCAN measure (see :class:`MeddocanScorer`)."""
    return MeddocanScorer(measure)


meddocan_f1_scorer = MeddocanScorer("ner_f1")


# -- parallel execution -------------------------------------------------------------------
def run_tasks(tasks: Iterable[Callable[[], R]], n_jobs: int | None, backend: str) -> Iterator[R]:
    """Run argument-less callables in joblib workers, yielding results as they finish
    (in any order). ``backend`` is any joblib backend name ("loky" processes,
    "threading", "sequential"; "dask" once a ``dask.distributed.Client`` exists)."""
    with parallel_config(backend=backend, n_jobs=n_jobs):
        yield from Parallel(return_as="generator_unordered")(delayed(task)() for task in tasks)


# -- data ---------------------------------------------------------------------------------
@dataclass
class Fold:
    """Training and test documents of one evaluation of a point."""

    train: list[Document]
    test: list[Document]


def load_folds(spec: DataSpec, root: Path) -> list[Fold]:
    """The train → eval split, or the K folds over train + eval documents."""

    def split(name: str) -> list[Document]:
        docs = read_brat_dir(root / "meddocan" / name)
        return docs[: spec.limit] if spec.limit else docs

    train = [doc for name in spec.train for doc in split(name)]
    test = split(spec.eval)
    if not spec.folds:
        return [Fold(training_documents(train, spec), test)]
    pool = train + test
    if len(pool) < spec.folds:
        raise ValueError(f"{len(pool)} documents cannot make {spec.folds} folds")
    kfold = KFold(n_splits=spec.folds, shuffle=True, random_state=spec.seed)
    return [
        Fold(training_documents([pool[i] for i in train_index], spec), [pool[i] for i in test_index])
        for train_index, test_index in kfold.split(np.arange(len(pool)))
    ]


# -- one point ----------------------------------------------------------------------------
def run_point(
    point_id: str, point: GridPoint, folds: list[tuple[TrainingInput, list[Document]]]
) -> tuple[str, dict[str, Any]]:
    """Train and score one point on every fold (in a worker): its id, and its score,
    fit and time columns. With several folds the scores are those of all held-out
    predictions together (micro average), and ``ner_f1_fold_std`` is the spread."""
    seconds = {"featurize_seconds": 0.0, "train_seconds": 0.0, "tag_seconds": 0.0}
    gold: list[Document] = []
    system: list[Document] = []
    fold_f1: list[float] = []
    estimator = None
    try:
        for training, test in folds:
            estimator = point.estimator()
            started = time.perf_counter()
            features = training.features(estimator)
            seconds["featurize_seconds"] += time.perf_counter() - started
            started = time.perf_counter()
            estimator.fit_featurized(*features)
            seconds["train_seconds"] += time.perf_counter() - started
            del features
            started = time.perf_counter()
            predicted = estimator.predict(test)
            seconds["tag_seconds"] += time.perf_counter() - started
            fold_system = [Document(d.doc_id, d.text, e) for d, e in zip(test, predicted, strict=True)]
            fold_f1.append(score_documents(test, fold_system).ner.f1)
            gold.extend(test)
            system.extend(fold_system)
    except Exception as exc:
        # Messages of this package's errors hold ids, offsets and types, never text.
        raise GridRunError(f"point {point_id} ({describe(point)}) failed: {type(exc).__name__}: {exc}") from None
    scores = score_documents(gold, system).to_dict()
    row = {name: scores[name] for name in SCORE_COLUMNS if name in scores}
    row["ner_f1_fold_std"] = float(np.std(fold_f1)) if len(folds) > 1 else None
    row["n_iter"] = getattr(estimator, "n_iter_", None)
    row["converged"] = getattr(estimator, "converged_", None)
    return point_id, {**row, **seconds}


def describe(point: GridPoint) -> str:
    """The point's kind and the settings its grid gives it (no data)."""
    base = point.base_features()
    changed = {k: v for k, v in asdict(point.features).items() if v != getattr(base, k)}
    preset = [f"features.preset={point.preset}"] if point.preset and point.preset != DEFAULT_PRESETS[point.kind] else []
    settings = (
        [f"{k}={v}" for k, v in point.params.items()] + preset + [f"features.{k}={v}" for k, v in changed.items()]
    )
    return f"{point.kind} {' '.join(settings)}".strip()


def point_id(point: GridPoint, data: DataSpec, data_digest: str) -> str:
    """A stable id: a digest of everything that defines the point's result (all
    estimator parameters with defaults, feature and tokenizer settings, data)."""
    key = {"kind": point.kind, "params": point.full_params(), "data": asdict(data), "documents": data_digest}
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


# -- results table ------------------------------------------------------------------------
def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, tuple | list):
        return " ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return str(value)


def param_columns(point: GridPoint) -> dict[str, Any]:
    """The point's estimator parameters (defaults included) and feature settings as
    columns (``c1``, ``C``…, ``features.window``…)."""
    params = {k: v for k, v in point.estimator().get_params(deep=False).items() if k not in RUNNER_PARAMS}
    features = {f"features.{f.name}": getattr(point.features, f.name) for f in fields(point.features)}
    return {**params, **features}


def _column_group(name: str) -> int:
    """Order of the groups of columns: identity, estimator parameters, features, data."""
    if name in ("point_id", "kind"):
        return 0
    if name.startswith("features."):
        return 2
    return 3 if name in DATA_COLUMNS else 1


def data_columns(spec: DataSpec) -> dict[str, Any]:
    return {
        "train": "+".join(spec.train),
        "eval": spec.eval,
        "folds": spec.folds,
        "limit": spec.limit,
        "rewrite": spec.rewrite,
        "synthetic": spec.synthetic,
    }


class ResultsTable:
    """The CSV results of a grid: read on start, rewritten whole (temporary file +
    rename) after each point, so it is always complete and never half-written."""

    def __init__(self, path: Path):
        self.path = path
        self.columns: list[str] = []
        self.rows: dict[str, dict[str, str]] = {}
        self.order: list[str] = []
        if path.exists():
            with path.open(encoding="utf-8", newline="") as f:
                reader = csv.DictReader(f)
                self.columns = list(reader.fieldnames or [])
                if self.columns and "point_id" not in self.columns:
                    raise ValueError(f"{path}: not a grid results table (no point_id column)")
                for row in reader:
                    self.rows[row["point_id"]] = row
        self.order = list(self.rows)

    def add_columns(self, names: Iterable[str]) -> None:
        """Append the columns not in the table yet."""
        self.columns.extend([name for name in dict.fromkeys(names) if name not in self.columns])

    def reserve(self, point_ids: Iterable[str]) -> None:
        """Give rows still to come their place (grid order, whatever order they finish in)."""
        self.order.extend([pid for pid in point_ids if pid not in self.order])

    def add(self, row: dict[str, Any]) -> None:
        self.add_columns(row)
        self.rows[row["point_id"]] = {k: _cell(v) for k, v in row.items()}
        self.reserve([row["point_id"]])

    def write(self) -> None:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns, restval="", lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows[pid] for pid in self.order if pid in self.rows)
        atomic_write_text(self.path, buffer.getvalue())


# -- the run ------------------------------------------------------------------------------
@dataclass
class GridRun:
    """What a run did: point ids in grid order, how many were run and skipped."""

    point_ids: list[str]
    ran: int
    skipped: int
    table: ResultsTable


def run_grid(
    grid: GridConfig,
    out: Path,
    *,
    root: Path | None = None,
    n_jobs: int | None = -1,
    backend: str = "loky",
    cache_dir: Path | None = None,
    use_cache: bool = True,
    progress: bool = True,
) -> GridRun:
    """Run the points of ``grid`` missing from the table ``out`` and add their rows."""
    folds = load_folds(grid.data, root or data_dir())
    digest = documents_hash([doc for fold in folds for doc in fold.train + fold.test])
    ids = [point_id(point, grid.data, digest) for point in grid.points]
    table = ResultsTable(out)
    todo = [(pid, point) for pid, point in zip(ids, grid.points, strict=True) if pid not in table.rows]
    log.info("%s: %d points, %d already in %s, %d to run", grid.path, len(ids), len(ids) - len(todo), out, len(todo))
    if not todo:
        return GridRun(ids, 0, len(ids), table)

    inputs = _training_inputs([p for _, p in todo], folds, n_jobs, backend, cache_dir, use_cache, progress)
    tasks = []
    for pid, point in todo:
        key = featurization_key(point)[0]
        tasks.append(partial(run_point, pid, point, [(inputs[key, i], fold.test) for i, fold in enumerate(folds)]))
    columns = {pid: {"point_id": pid, "kind": p.kind, **param_columns(p), **data_columns(grid.data)} for pid, p in todo}
    # Header: identity, the parameters of every kind, features, data, then the results.
    names = [name for row in columns.values() for name in row]
    table.add_columns(sorted(dict.fromkeys(names), key=_column_group))
    table.add_columns(SCORE_COLUMNS + FIT_COLUMNS)
    table.reserve(columns)
    best = -1.0
    with tqdm(total=len(tasks), desc="grid", unit="point", disable=not progress, file=sys.stderr) as bar:
        for pid, result in run_tasks(tasks, n_jobs, backend):
            table.add({**columns[pid], **result})
            table.write()
            best = max(best, result["ner_f1"])
            bar.set_postfix(best_ner_f1=f"{best:.4f}", refresh=False)
            bar.update(1)
    return GridRun(ids, len(todo), len(ids) - len(todo), table)


def _shelve(
    slot: R, cached: Any, kind: str, params: dict[str, Any], fingerprint: dict[str, str], docs: list[Document]
) -> tuple[R, Any]:
    """Compute a featurization into the cache unless it is there; a reference to it."""
    try:
        return slot, cached.call_and_shelve(kind, params, fingerprint, docs)
    except Exception as exc:
        # Messages of this package's errors hold ids, offsets and types, never text.
        raise GridRunError(f"featurizing for {kind} failed: {type(exc).__name__}: {exc}") from None


def _training_inputs(
    points: list[GridPoint],
    folds: list[Fold],
    n_jobs: int | None,
    backend: str,
    cache_dir: Path | None,
    use_cache: bool,
    progress: bool,
) -> dict[tuple[str, int], TrainingInput]:
    """Per (featurization, fold): where a worker finds the training features. With
    the cache, every featurization missing from it is computed first (in parallel),
    so that points sharing one never compute it twice."""
    keys: dict[str, tuple[str, dict[str, Any]]] = {}
    for point in points:
        key, kind, params = featurization_key(point)
        keys.setdefault(key, (kind, params))
    if not use_cache:
        return {(key, i): TrainingInput(docs=fold.train) for key in keys for i, fold in enumerate(folds)}
    cached = open_cache(cache_dir or default_cache_dir()).cache(featurize_documents, ignore=["docs"])
    code = code_hash()
    fold_digests = [documents_hash(fold.train) for fold in folds]
    jobs = []
    for key, (kind, params) in keys.items():
        feature_config = params["feature_config"]
        fingerprint_base = {"code": code, "resources": resources_hash(feature_config)}
        for i, fold in enumerate(folds):
            fingerprint = {**fingerprint_base, "documents": fold_digests[i]}
            jobs.append(partial(_shelve, (key, i), cached, kind, params, fingerprint, fold.train))
    log.info("featurizing %d training set(s) (cache: %s)", len(jobs), cached.store_backend.location)
    inputs: dict[tuple[str, int], TrainingInput] = {}
    with tqdm(total=len(jobs), desc="featurize", unit="set", disable=not progress, file=sys.stderr) as bar:
        for slot, reference in run_tasks(jobs, n_jobs, backend):
            inputs[slot] = TrainingInput(cached=reference)
            bar.update(1)
    return inputs


def best_rows(table: ResultsTable, ids: list[str]) -> list[dict[str, str]]:
    """The best row (NER F1) of each model kind among ``ids``."""
    best: dict[str, dict[str, str]] = {}
    for pid in ids:
        row = table.rows.get(pid)
        if row and (row["kind"] not in best or float(row["ner_f1"]) > float(best[row["kind"]]["ner_f1"])):
            best[row["kind"]] = row
    return list(best.values())


# -- command line -------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m deid_crf.experiments.grid", description=__doc__.split("\n\n")[0])
    parser.add_argument("config", type=Path, help="grid file (TOML), e.g. configs/grid-example.toml")
    parser.add_argument("--out", type=Path, help="results CSV (default: results/CONFIG-NAME.csv); reruns resume it")
    parser.add_argument("--n-jobs", type=int, default=-1, help="points run at once (default: all cores)")
    parser.add_argument(
        "--backend",
        default="loky",
        help="joblib backend for the points (default: loky); 'dask' runs them on a Dask cluster",
    )
    add_scheduler_arguments(
        parser,
        "--backend dask: the scheduler of an existing cluster (tls://host:8786 with the --tls-* files; plain "
        "tcp:// only on this machine unless --allow-plaintext-scheduler); without it a local cluster of --n-jobs "
        "worker processes is started (TLS with certificates made for the run). The cache directory must be one "
        "the workers share.",
    )
    parser.add_argument("--folds", type=int, help="K-fold cross-validation on train + eval (overrides the file)")
    parser.add_argument("--limit", type=int, help="at most N documents per split (overrides the file; 0: all)")
    parser.add_argument(
        "--data-dir", type=Path, help="shared data root (default: $DEID_CRF_DATA_DIR or ../shared/data)"
    )
    parser.add_argument(
        "--cache-dir", type=Path, help="featurization cache (default: $DEID_CRF_CACHE_DIR or .cache/deid-crf)"
    )
    parser.add_argument("--no-cache", action="store_true", help="featurize in every point, cache nothing")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    # loky replaces a worker whose memory grew by a few hundred MB (a CRF training
    # does) once its task is done, and says so; nothing is lost.
    warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given", category=UserWarning)
    out = args.out or Path("results") / f"{args.config.stem}.csv"
    if args.scheduler and args.backend != "dask":
        print("error: --scheduler needs --backend dask", file=sys.stderr)
        return 2
    tls = scheduler_tls(parser, args)  # a usage error (status 2) before any work
    try:
        grid = load_grid(args.config, folds=args.folds, limit=args.limit)
        with contextlib.ExitStack() as stack:
            if args.backend == "dask":
                from deid_crf.batch.dask_backend import ClusterUnavailable, dask_client

                try:
                    # joblib's dask backend runs the points on this client's cluster.
                    stack.enter_context(dask_client(args.scheduler, args.n_jobs, tls))
                except ClusterUnavailable as exc:
                    print(f"error: {exc}", file=sys.stderr)
                    return 2
            run = run_grid(
                grid,
                out,
                root=args.data_dir,
                n_jobs=args.n_jobs,
                backend=args.backend,
                cache_dir=args.cache_dir,
                use_cache=not args.no_cache,
                progress=not args.quiet,
            )
    except ValueError as exc:  # grid file, data, output table or backend (no document text)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except GridRunError as exc:
        print(f"error: {args.config}: {exc}; finished points are in {out}, a rerun resumes", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"interrupted: finished points are in {out}, a rerun resumes", file=sys.stderr)
        return 130
    print(f"{run.ran} point(s) run, {run.skipped} already in {out}")
    for row in best_rows(run.table, run.point_ids):
        print(
            f"best {row['kind']}: point {row['point_id']} NER F1 {float(row['ner_f1']):.4f} "
            f"(P {float(row['ner_p']):.4f} R {float(row['ner_r']):.4f}), strict F1 {float(row['strict_f1']):.4f}, "
            f"merged F1 {float(row['merged_f1']):.4f}, leak {float(row['leak']):.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
