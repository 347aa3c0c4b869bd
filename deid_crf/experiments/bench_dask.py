"""Throughput of the Dask backend with 1 and 2 workers, and the scaling ratio.

    python -m deid_crf.experiments.bench_dask [--data-dir DIR] [--model models/crf] [--replicate 10]

The dev split's texts are copied ``--replicate`` times into a temporary folder (so
that start-up costs are amortised), then de-identified by
:func:`deid_crf.batch.dask.run_dask` on a fresh local cluster of each size in
``--workers`` (one thread per worker process), into a temporary output folder that
is deleted afterwards. The time of each run is that of ``run_dask`` on a started
cluster: it includes each worker's model load, partitioning, tagging, rendering and
writing. Documents/s and tokens/s (tokens of this project's tokenizer) are printed
with the ratio of the largest cluster to one worker; the issue's target is ≥ 1.7
from 1 to 2 workers. A run is only a measurement when nothing else uses the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from deid_crf.batch.dask_backend import dask_client, run_dask
from deid_crf.batch.engine import Settings, discover, model_digest, plan
from deid_crf.config import data_dir, default_model_dir
from deid_crf.text.tokenizer import Tokenizer

SCALING_TARGET = 1.7


def replicate_dev(dev: Path, copies: int, root: Path) -> tuple[int, int]:
    """Write ``copies`` copies of the dev split's ``.txt`` files under ``root``;
    returns (documents, tokens) of the whole replicated corpus."""
    sources = sorted(dev.glob("*.txt"))
    texts = [p.read_text(encoding="utf-8") for p in sources]
    for k in range(copies):
        folder = root / f"copy{k:02d}"
        folder.mkdir(parents=True)
        for source in sources:
            shutil.copyfile(source, folder / source.name)
    return copies * len(texts), copies * len(Tokenizer()(texts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.experiments.bench_dask", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--data-dir", type=Path, default=None, help="default: $DEID_CRF_DATA_DIR or ../shared/data")
    parser.add_argument("--model", type=Path, default=None, help="default: $DEID_CRF_MODEL_DIR or models/crf")
    parser.add_argument("--replicate", type=int, default=10, help="copies of the dev split (default: 10)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="cluster sizes (default: 1 2)")
    parser.add_argument("--format", default="surrogate", help="output format (default: surrogate)")
    parser.add_argument(
        "--repeat", type=int, default=2, help="rounds over the cluster sizes; best time kept (default: 2)"
    )
    parser.add_argument(
        "--partitions",
        type=int,
        default=32,
        help="Dask partitions, the same for every cluster size so that each does the same work units (default: 32)",
    )
    parser.add_argument("--output", type=Path, default=Path("bench-results/bench-dask.json"))
    args = parser.parse_args(argv)
    model = args.model or default_model_dir()
    if not (model / "config.json").is_file():
        print(f"no trained model in {model}: run `make train-crf` first, or pass --model DIR", file=sys.stderr)
        return 2
    dev = (args.data_dir or data_dir()) / "meddocan" / "dev"
    if not dev.is_dir():
        print(f"no dev split in {dev}: set DEID_CRF_DATA_DIR or pass --data-dir", file=sys.stderr)
        return 2
    settings = Settings(str(model.resolve()), args.format, seed=0, model_sha256=model_digest(model))
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="deid-crf-bench-dask-") as tmp:
        corpus = Path(tmp) / "in"
        n_docs, n_tokens = replicate_dev(dev, args.replicate, corpus)
        print(
            f"deid-crf Dask benchmark: dev split x{args.replicate} = {n_docs} documents, {n_tokens} tokens; "
            f"--format {args.format}; {args.partitions} partitions; {os.cpu_count()} core(s)"
        )
        # Cluster sizes alternate over the rounds and each keeps its best time: this
        # shared machine's speed drifts by 20 % or more within minutes, and a drift
        # during one size's only run would decide the ratio.
        best: dict[int, float] = {}
        for round_ in range(1, args.repeat + 1):
            for n_workers in args.workers:
                out = Path(tmp) / f"out{n_workers}"
                found, _ = discover([str(corpus)], output_dir=out)
                items, _ = plan(found, args.format, out)
                with dask_client(jobs=n_workers) as client:
                    started = time.perf_counter()
                    summary = run_dask(items, settings, client=client, output_dir=out, partitions=args.partitions)
                    seconds = time.perf_counter() - started
                if summary.failed or summary.counts["ok"] + summary.counts["empty"] != n_docs:
                    print(f"{n_workers} worker(s): {dict(summary.counts)}; not a valid run", file=sys.stderr)
                    return 1
                best[n_workers] = min(seconds, best.get(n_workers, seconds))
                print(
                    f"round {round_}, {n_workers} worker(s): {seconds:8.1f} s  {n_docs / seconds:10,.1f} documents/s  "
                    f"{n_tokens / seconds:12,.0f} tokens/s  (model loads per worker: "
                    f"{max(summary.model_loads.values())})"
                )
                shutil.rmtree(out)
        for n_workers, seconds in best.items():
            results[f"dask_{n_workers}w_seconds"] = seconds
            results[f"dask_{n_workers}w_docs_s"] = n_docs / seconds
            results[f"dask_{n_workers}w_tok_s"] = n_tokens / seconds
            print(f"best of {args.repeat}, {n_workers} worker(s): {seconds:.1f} s, {n_tokens / seconds:,.0f} tokens/s")
    low, high = min(args.workers), max(args.workers)
    if high > low:
        ratio = results[f"dask_{high}w_tok_s"] / results[f"dask_{low}w_tok_s"]
        results[f"scaling_{high}w_over_{low}w"] = ratio
        target = ""
        if (low, high) == (1, 2):
            target = f"target >= {SCALING_TARGET}: {'met' if ratio >= SCALING_TARGET else 'NOT MET'}"
        print(f"scaling {high}/{low} workers: {ratio:.2f}x  {target}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "documents": n_docs,
        "tokens": n_tokens,
        "replicate": args.replicate,
        "format": args.format,
        "partitions": args.partitions,
        "repeat": args.repeat,
        **results,
    }
    args.output.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"(written to {args.output})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
