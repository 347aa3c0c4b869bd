"""Train a tagger on MEDDOCAN splits, evaluate it and save it.

    python -m deid_crf.train                      # train on train, evaluate on dev
    python -m deid_crf.train --train train dev --eval none --model-dir models/crf-all
    python -m deid_crf.train --config configs/crf.toml --c1 0.1

Settings come from the defaults in :mod:`deid_crf.config`, then a config file
(``.toml`` or ``.json`` with ``tokenizer``/``features``/``crf`` tables), then flags.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
import tomllib
from dataclasses import replace
from pathlib import Path

from deid_crf import resources
from deid_crf.config import (
    DEFAULT_PRESET,
    FEATURE_PRESETS,
    TaggerConfig,
    data_dir,
    default_model_dir,
    svm_feature_config,
)
from deid_crf.io.brat import read_splits
from deid_crf.io.files import CorpusError
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.models.svm import WindowSVMTagger
from deid_crf.text.document import Document

log = logging.getLogger("deid_crf.train")


def load_config(path: Path | None) -> TaggerConfig:
    if path is None:
        return TaggerConfig()
    try:
        raw = path.read_bytes()
        data = tomllib.loads(raw.decode("utf-8")) if path.suffix == ".toml" else json.loads(raw)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SystemExit(f"error: {path}: cannot read config ({exc})") from None
    try:
        return TaggerConfig.from_dict(data)
    except (TypeError, ValueError) as exc:
        raise SystemExit(f"error: {path}: {exc}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m deid_crf.train", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="shared data root (default: $DEID_CRF_DATA_DIR or ../shared/data)"
    )
    parser.add_argument(
        "--train", nargs="+", default=["train"], metavar="SPLIT", help="MEDDOCAN splits to train on (default: train)"
    )
    parser.add_argument("--eval", default="dev", metavar="SPLIT", help="split to evaluate on, or 'none' (default: dev)")
    parser.add_argument(
        "--model-dir",
        type=Path,
        default=None,
        help="where to save the tagger (default: $DEID_CRF_MODEL_DIR or models/crf; models/svm for --kind svm)",
    )
    parser.add_argument("--config", type=Path, default=None, help="TOML/JSON config file")
    parser.add_argument(
        "--features",
        choices=sorted(FEATURE_PRESETS),
        default=None,
        help="CRF feature set: 'full' (POS, gazetteers, embeddings, document labels; the default without --config; "
        "needs `make pos-model embeddings gazetteers`, which `make train-crf` runs first) or 'core' (no trained "
        "resources: `make train-crf FEATURES=core`); overrides the config file's [features]",
    )
    parser.add_argument(
        "--kind", choices=("crf", "svm"), default="crf", help="linear-chain CRF (default) or window SVM"
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


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    config = load_config(args.config)
    overrides = {
        k: v
        for k, v in (
            ("c1", args.c1),
            ("c2", args.c2),
            ("max_iterations", args.max_iterations),
            ("min_freq", args.min_freq),
        )
        if v is not None
    }
    config.crf = replace(config.crf, **overrides)
    if args.features or (args.kind == "crf" and not args.config):
        config.features = FEATURE_PRESETS[args.features or DEFAULT_PRESET]()
    missing = resources.missing_resources(config.features)
    if missing:
        print(
            f"error: the feature groups {list(config.features.groups)} need trained resources that are not built: "
            f"{', '.join(missing)}; run `make pos-model embeddings gazetteers` (or train with --features core)",
            file=sys.stderr,
        )
        return 2
    root = args.data_dir or data_dir()
    model_dir = args.model_dir or (Path("models/svm") if args.kind == "svm" else default_model_dir())
    try:
        train_docs = read_splits(root, args.train)
        eval_docs = [] if args.eval == "none" else read_splits(root, [args.eval])
    except CorpusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    if args.kind == "svm":
        svm_params = {
            k: v
            for k, v in (
                ("C", args.C),
                ("classifier", args.classifier),
                ("decoder", args.decoder),
                ("class_weight", args.class_weight),
            )
            if v is not None
        }
        features = config.features if args.config else svm_feature_config()
        tagger = WindowSVMTagger(config.tokenizer, features, n_jobs=args.n_jobs, **svm_params)
    else:
        tagger = DeidTagger(
            tokenizer_config=config.tokenizer,
            feature_config=config.features,
            n_jobs=args.n_jobs,
            verbose=not args.quiet,
            **vars(config.crf),
        )
    log.info("training on %s: %d documents", "+".join(args.train), len(train_docs))
    started = time.perf_counter()
    tagger.fit(train_docs)
    log.info("trained in %.1f s", time.perf_counter() - started)
    if args.kind == "svm":
        state = "converged" if tagger.converged_ else "did NOT converge (raise max_iter, or lower C)"
        log.info("%s %s after %d iterations", tagger.classifier, state, tagger.n_iter_)
    tagger.save(model_dir)
    log.info("saved tagger to %s", model_dir)

    if eval_docs:
        from deid_crf.scoring.meddocan import format_report, score_documents

        started = time.perf_counter()
        predicted = tagger.predict(eval_docs)
        log.info("tagged %s (%d documents) in %.1f s", args.eval, len(eval_docs), time.perf_counter() - started)
        system = [Document(d.doc_id, d.text, ents) for d, ents in zip(eval_docs, predicted, strict=False)]
        scores = score_documents(eval_docs, system)
        print(f"== evaluation on {args.eval} ==")
        print(format_report(scores))
        if args.kind == "svm":
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
