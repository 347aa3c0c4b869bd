"""Train a tagger on MEDDOCAN splits, evaluate it and save it.

    python -m deid_crf.train                                  # the default model: full CRF, train → dev
    python -m deid_crf.train --config configs/crf-core.toml --c1 0.1
    python -m deid_crf.train --config models/crf/config.json  # train a saved model's config again
    python -m deid_crf.train --train train dev --eval none --model-dir models/crf-all

Settings come from one schema (:class:`deid_crf.config.RunConfig`): the defaults, then a
config file (TOML with ``[tokenizer]``, ``[features]``, ``[model]``, ``[data]`` tables, or
the ``config.json`` of a saved model), then flags.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
import tomllib
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from sklearn.base import BaseEstimator

from deid_crf import resources
from deid_crf.augment import training_documents
from deid_crf.config import (
    DEFAULT_PRESETS,
    FEATURE_PRESETS,
    MODEL_KINDS,
    ModelConfig,
    RunConfig,
    data_dir,
    default_model_dir,
)
from deid_crf.io.brat import read_splits
from deid_crf.io.files import CorpusError
from deid_crf.models import ESTIMATORS
from deid_crf.text.document import Document

log = logging.getLogger("deid_crf.train")


def load_config(path: Path | None) -> RunConfig:
    """The run configuration in ``path`` (TOML, or JSON such as a saved model's
    ``config.json``, whose trained resources are then used from the model's folder);
    the defaults when ``path`` is None. Errors exit with a message naming the file."""
    if path is None:
        return RunConfig()
    try:
        raw = path.read_bytes()
        data = tomllib.loads(raw.decode("utf-8")) if path.suffix == ".toml" else json.loads(raw)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SystemExit(f"error: {path}: cannot read config ({type(exc).__name__}: {exc})") from None
    saved_model = isinstance(data, dict) and "format" in data
    try:
        config = RunConfig.from_dict(saved_config(data) if saved_model else data, source=str(path))
    except (TypeError, ValueError) as exc:
        raise SystemExit(f"error: {exc}") from None
    if saved_model:
        config.features = resources.resolve(config.features, path.parent, inside=False)
    return config


def saved_config(meta: dict[str, Any]) -> dict[str, Any]:
    """The run configuration inside a saved model's ``config.json``; models saved before
    the one schema kept CRF hyper-parameters under ``crf`` and SVM ones under ``params``."""
    config = dict(meta.get("config", {}))
    if "training_data" in meta:
        config["data"] = meta["training_data"]
    if "model" not in config:
        legacy = config.pop("crf", None) if meta.get("kind", "crf") == "crf" else meta.get("params", {})
        config["model"] = {"kind": meta.get("kind", "crf"), **(legacy or {})}
    return config


def build_tagger(config: RunConfig, n_jobs: int | None, verbose: bool, source: str = "config") -> BaseEstimator:
    """An unfitted estimator of ``config.model.kind`` with the config's settings; an
    unknown hyper-parameter is an error naming ``source``."""
    estimator = ESTIMATORS[config.model.kind]
    known = set(estimator().get_params(deep=False)) - {"tokenizer_config", "feature_config", "n_jobs", "verbose"}
    unknown = sorted(set(config.model.params) - known)
    if unknown:
        raise ValueError(f"{source}: unknown {config.model.kind} parameter(s) {unknown}; known: {sorted(known)}")
    extra = {"verbose": verbose} if "verbose" in estimator().get_params(deep=False) else {}
    return estimator(
        tokenizer_config=config.tokenizer,
        feature_config=config.features,
        n_jobs=n_jobs,
        **extra,
        **config.model.params,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m deid_crf.train", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="shared data root (default: $DEID_CRF_DATA_DIR or ../shared/data)"
    )
    parser.add_argument(
        "--train", nargs="+", default=None, metavar="SPLIT", help="MEDDOCAN splits to train on (default: train)"
    )
    parser.add_argument("--eval", default=None, metavar="SPLIT", help="split to evaluate on, or 'none' (default: dev)")
    parser.add_argument(
        "--model-dir",
        type=Path,
        default=None,
        help="where to save the tagger (default: $DEID_CRF_MODEL_DIR or models/crf; models/svm for --kind svm)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="run config: TOML ([tokenizer] [features] [model] [data]; configs/*.toml) or a saved model's config.json",
    )
    parser.add_argument(
        "--features",
        choices=sorted(FEATURE_PRESETS),
        default=None,
        help="feature set: 'full' (POS, gazetteers, embeddings, document labels; the CRF's default; needs "
        "`make pos-model embeddings gazetteers`, which `make train-crf` runs first), 'core' (no trained "
        "resources: `make train-crf FEATURES=core`) or 'svm' (the SVM's default); overrides the config's [features]",
    )
    parser.add_argument(
        "--kind",
        choices=MODEL_KINDS,
        default=None,
        help="CRF (default) or window SVM; overrides [model] kind",
    )
    parser.add_argument("--C", type=float, default=None, help="SVM regularisation (--kind svm; default 0.1)")
    parser.add_argument(
        "--classifier",
        choices=("linear_svc", "sgd", "logistic_regression"),
        default=None,
        help="--kind svm: the linear classifier (default linear_svc)",
    )
    parser.add_argument(
        "--decoder",
        choices=("viterbi", "repair"),
        default=None,
        help="--kind svm: best valid BIO sequence (default) or per-token labels + BIO repair",
    )
    parser.add_argument("--class-weight", choices=("balanced",), default=None, help="--kind svm: class weighting")
    parser.add_argument("--c1", type=float, help="L1 regularisation")
    parser.add_argument("--c2", type=float, help="L2 regularisation")
    parser.add_argument("--max-iterations", type=int, help="L-BFGS iterations")
    parser.add_argument("--min-freq", type=int, help="drop features seen fewer times")
    parser.add_argument(
        "--n-jobs", type=int, default=-1, help="processes for featurizing and tagging (default: all cores)"
    )
    parser.add_argument("--report-json", type=Path, help="also write the evaluation as JSON here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def apply_flags(config: RunConfig, args: argparse.Namespace) -> RunConfig:
    """``config`` with the command line's settings on top."""
    if args.kind and args.kind != config.model.kind:
        config.model = ModelConfig(args.kind)
        if not args.features and not args.config:
            config.features = FEATURE_PRESETS[DEFAULT_PRESETS[args.kind]]()
    if args.features:
        config.features = FEATURE_PRESETS[args.features]()
    flags = {"c1": args.c1, "c2": args.c2, "max_iterations": args.max_iterations, "min_freq": args.min_freq}
    if config.model.kind == "svm":
        flags = {"C": args.C, "classifier": args.classifier, "decoder": args.decoder, "class_weight": args.class_weight}
    config.model.params.update({k: v for k, v in flags.items() if v is not None})
    data = {"train": tuple(args.train) if args.train else None, "eval": args.eval}
    config.data = replace(config.data, **{k: v for k, v in data.items() if v is not None})
    return config


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    config = apply_flags(load_config(args.config), args)
    missing = resources.missing_resources(config.features)
    if missing:
        print(
            f"error: the feature groups {list(config.features.groups)} need trained resources that are not built: "
            f"{', '.join(missing)}; run `make pos-model embeddings gazetteers` (or train with --features core)",
            file=sys.stderr,
        )
        return 2
    try:
        tagger = build_tagger(config, args.n_jobs, not args.quiet, source=str(args.config or "command line"))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    root = args.data_dir or data_dir()
    kind = config.model.kind
    model_dir = args.model_dir or (Path("models/svm") if kind == "svm" else default_model_dir())
    train_splits, eval_split = list(config.data.train), config.data.eval
    try:
        train_docs = read_splits(root, train_splits)
        eval_docs = [] if eval_split == "none" else read_splits(root, [eval_split])
    except CorpusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    corpus_docs = len(train_docs)
    try:
        train_docs = training_documents(train_docs, config.data)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    log.info(
        "training on %s: %d documents (%d added by augmentation: rewrite=%s, synthetic=%d, seed %d)",
        "+".join(train_splits),
        len(train_docs),
        len(train_docs) - corpus_docs,
        config.data.rewrite,
        config.data.synthetic,
        config.data.augment_seed,
    )
    started = time.perf_counter()
    tagger.fit(train_docs)
    log.info("trained in %.1f s", time.perf_counter() - started)
    if kind == "svm":
        state = "converged" if tagger.converged_ else "did NOT converge (raise max_iter, or lower C)"
        log.info("%s %s after %d iterations", tagger.classifier, state, tagger.n_iter_)
    evaluation = None
    if eval_docs:
        from deid_crf.scoring.meddocan import format_report, score_documents

        started = time.perf_counter()
        predicted = tagger.predict(eval_docs)
        log.info("tagged %s (%d documents) in %.1f s", eval_split, len(eval_docs), time.perf_counter() - started)
        system = [Document(d.doc_id, d.text, ents) for d, ents in zip(eval_docs, predicted, strict=False)]
        scores = score_documents(eval_docs, system)
        print(f"== evaluation on {eval_split} ==")
        print(format_report(scores))
        if kind == "svm":
            from deid_crf.models.svm import decoding_report

            r = decoding_report(tagger, eval_docs)
            print(
                f"decoding: {r['orphan_tokens']} orphan I- tokens in the per-token labels; gold entities found "
                f"exactly (NER F1): orphans dropped {r['dropped_exact']} ({r['dropped_f1']:.4f}), BIO repair "
                f"{r['repair_exact']} ({r['repair_f1']:.4f}), best valid sequence {r['viterbi_exact']} "
                f"({r['viterbi_f1']:.4f})"
            )
        if args.report_json:
            args.report_json.parent.mkdir(parents=True, exist_ok=True)
            args.report_json.write_text(json.dumps(scores.to_dict(), indent=2) + "\n", encoding="utf-8")
        evaluation = {"split": eval_split} | {k: v for k, v in scores.to_dict().items() if k != "per_type"}
    # Saved after the evaluation, so that its model card holds the dev scores.
    tagger.save(model_dir, training_data=asdict(config.data), evaluation=evaluation)
    log.info("saved tagger to %s", model_dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
