"""Throughput, training time and peak memory on MEDDOCAN, with ratios to the
tokenizer measured in the same run.

    python -m deid_crf.experiments.bench [--data-dir DIR] [--model DIR] [--skip-train] [--repeat 3]
    python -m deid_crf.experiments.bench --cli-only      # only the command-line rows

Speeds are tokens per second on the dev split (best of ``--repeat`` runs for the
fast stages); training and memory are measured in child processes on the train
split, for the core feature set and (``full_`` measures) for the full feature set of
the default model (``make train-crf``), when its resources are built. The ``cli_``
rows run ``python -m deid_crf.tag`` as a user does, start-up and model load included,
with the trained model of ``--model``: the dev split in each output format (and in brat
with ``-j 1``, beside the default of all cores), one short
note (wall time and peak memory, beside a child process that only tokenizes it) and
``--jsonl`` over 10,000 short notes (notes/s after load: the run's wall time less that
of a run over one note). The targets of the project are printed beside each number;
nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from deid_crf import resources
from deid_crf.config import data_dir, default_model_dir, full_feature_config
from deid_crf.featurization.featurizer import Featurizer
from deid_crf.io.brat import read_brat_dir
from deid_crf.models import load_model
from deid_crf.models.base import Pipeline
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.models.svm import WindowSVMTagger
from deid_crf.parallel import effective_jobs, map_chunks
from deid_crf.text.tokenizer import Tokenizer

TARGETS = {
    "feature_codes_1proc_tok_s": (">=", 150_000),
    "tag_all_cores_tok_s": (">=", 40_000),
    "train_seconds": ("<=", 240),
    "tokenize_tok_s": (">=", 300_000),
    "svm_train_seconds": ("<=", 120),
    "svm_tag_all_cores_tok_s": (">=", 100_000),
    "full_feature_codes_1proc_tok_s": (">=", 150_000),
    "full_train_seconds": ("<=", 300),
    "full_tag_all_cores_tok_s": (">=", 40_000),
    **{f"cli_dev_{fmt}_tok_s": (">=", 65_000) for fmt in ("brat", "json", "masked", "surrogate")},
    "cli_one_note_seconds": ("<=", 0.5),
    "cli_one_note_peak_mib": ("<=", 200),
    "cli_jsonl_notes_s": (">=", 2_000),
}
# Rows that are not tokens/s: the row they are divided by in the ratio column, and its name.
REFERENCES = {
    "train_seconds": ("tokenize_train_seconds", "tokenize(train)"),
    "svm_train_seconds": ("tokenize_train_seconds", "tokenize(train)"),
    "full_train_seconds": ("tokenize_train_seconds", "tokenize(train)"),
    "train_peak_mib": ("tokenize_train_peak_mib", "tokenize peak"),
    "svm_train_peak_mib": ("tokenize_train_peak_mib", "tokenize peak"),
    "full_train_peak_mib": ("tokenize_train_peak_mib", "tokenize peak"),
    "cli_one_note_seconds": ("one_note_tokenize_seconds", "tokenize-only process"),
    "cli_one_note_peak_mib": ("one_note_tokenize_peak_mib", "tokenize-only process"),
    "cli_jsonl_notes_s": ("tokenize_notes_s", "tokenizer"),
}
SHORT_NOTES = 10_000


class _CountTokens:
    """Featurize a chunk in a worker and return only its token count."""

    def __init__(self, pipeline: Pipeline):
        self.pipeline = pipeline

    def __call__(self, texts: list[str]) -> int:
        table, items = self.pipeline.prepare(texts)
        return len(table)


def best_time(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


_REPORT_PEAK = "\nimport resource; print('PEAK_KIB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"


def child_peak(code: str, env: dict[str, str]) -> tuple[float, float]:
    """Run ``code`` in a fresh interpreter; return its wall seconds and the peak
    resident memory (MiB) of its main process (joblib workers not included)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code + _REPORT_PEAK], check=True, env=env, stdout=subprocess.PIPE, text=True
    )
    wall = time.perf_counter() - started
    peak_kib = int(done.stdout.rsplit("PEAK_KIB", 1)[1])
    return wall, peak_kib / 1024


def cli_seconds(args: list[str], env: dict[str, str], stdout: int | None = subprocess.DEVNULL) -> float:
    """Wall seconds of ``python -m deid_crf.tag ARGS`` (which must succeed)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "deid_crf.tag", *args], check=True, env=env, stdout=stdout)
    return time.perf_counter() - started


def short_notes(texts: list[str], count: int) -> list[str]:
    """``count`` short notes: the non-blank lines of ``texts`` in turn (a field, a
    sentence or a paragraph of a case report each; 142 characters on average on dev)."""
    lines = [line for text in texts for line in text.split("\n") if line.strip()]
    return [lines[i % len(lines)] for i in range(count)]


def cli_rows(
    root: Path, model: Path, texts: list[str], tokenizer: Tokenizer, repeat: int, tmp: Path, env: dict[str, str]
) -> dict[str, float]:
    """The command line as a user runs it, start-up and model load included."""
    results: dict[str, float] = {}
    dev_dir = root / "meddocan" / "dev"
    n_tokens = len(tokenizer(texts))
    for fmt in ("brat", "json", "masked", "surrogate"):
        options = ["--model", str(model), "--format", fmt, "--seed", "1", "-q"]
        walls = [cli_seconds([str(dev_dir), "-o", str(tmp / f"cli-{fmt}-{i}"), *options], env) for i in range(repeat)]
        results[f"cli_dev_{fmt}_tok_s"] = n_tokens / min(walls)
    # The default -j (all cores) against one process: what the default is chosen from.
    options = ["--model", str(model), "--format", "brat", "-q", "-j", "1"]
    walls = [cli_seconds([str(dev_dir), "-o", str(tmp / f"cli-j1-{i}"), *options], env) for i in range(repeat)]
    results["cli_dev_brat_1_job_tok_s"] = n_tokens / min(walls)
    note = tmp / "short-note.txt"
    note.write_text(texts[0][: texts[0].rfind("\n", 0, 400) + 1], encoding="utf-8")
    reference = (
        f"from deid_crf.text.tokenizer import Tokenizer; Tokenizer()([open({str(note)!r}, encoding='utf-8').read()])"
    )
    tag = f"from deid_crf.tag import main; main([{str(note)!r}, '--model', {str(model)!r}])"
    reference_runs = [child_peak(reference, env) for _ in range(repeat)]
    tag_runs = [child_peak(tag, env) for _ in range(repeat)]
    results["one_note_tokenize_seconds"] = min(wall for wall, _ in reference_runs)
    results["one_note_tokenize_peak_mib"] = min(peak for _, peak in reference_runs)
    results["cli_one_note_seconds"] = min(wall for wall, _ in tag_runs)
    results["cli_one_note_peak_mib"] = min(peak for _, peak in tag_runs)
    notes = short_notes(texts, SHORT_NOTES)
    results["tokenize_notes_s"] = len(notes) / best_time(lambda: [tokenizer([n]) for n in notes], repeat)
    many, one = tmp / "notes.jsonl", tmp / "note.jsonl"
    many.write_text("".join(json.dumps({"id": i, "text": n}) + "\n" for i, n in enumerate(notes)), encoding="utf-8")
    one.write_text(json.dumps({"id": 0, "text": notes[0]}) + "\n", encoding="utf-8")
    jsonl = ["--jsonl", "--model", str(model), "--format", "json"]
    load = min(cli_seconds([str(one), *jsonl], env) for _ in range(repeat))
    whole = min(cli_seconds([str(many), *jsonl], env) for _ in range(repeat))
    results["cli_jsonl_whole_process_notes_s"] = len(notes) / whole
    results["cli_jsonl_notes_s"] = (len(notes) - 1) / max(whole - load, 1e-9)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deid_crf.experiments.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--skip-train", action="store_true", help="skip the training time and memory measurement")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--model", type=Path, default=None, help="model of the cli_ rows (default: $DEID_CRF_MODEL_DIR or models/crf)"
    )
    parser.add_argument("--cli-only", action="store_true", help="only the tokenizer and the command-line (cli_) rows")
    parser.add_argument("--output", type=Path, default=Path("bench-results/bench.json"))
    args = parser.parse_args(argv)
    root = (args.data_dir or data_dir()).resolve()
    dev = read_brat_dir(root / "meddocan" / "dev")
    texts = [d.text for d in dev]
    cores = effective_jobs(-1)
    results: dict[str, float] = {}

    tokenizer, featurizer = Tokenizer(), Featurizer()
    n_tokens = len(tokenizer(texts))
    results["tokenize_tok_s"] = n_tokens / best_time(lambda: tokenizer(texts), args.repeat)
    model = (args.model or default_model_dir()).resolve()
    env = {**os.environ, "DEID_CRF_DATA_DIR": str(root)}
    if (model / "config.json").is_file():
        with tempfile.TemporaryDirectory() as tmp:
            results.update(cli_rows(root, model, texts, tokenizer, args.repeat, Path(tmp), env))
    else:
        print(f"command-line rows skipped: no trained model in {model} (make train-crf, or --model DIR)")
    if args.cli_only:
        return report(results, args.output, len(dev), n_tokens, cores, None)
    table = tokenizer(texts)
    # A fresh copy per run: a table remembers its per-type features (``type_index``,
    # ``type_features``), which a second run on the same object would reuse.
    # Feature codes: every attribute of every token as integers (what the grid search
    # caches; tagging sums model weights over the same codes without building them all).
    results["feature_codes_1proc_tok_s"] = n_tokens / best_time(
        lambda: featurizer.attribute_codes(replace(table)), args.repeat
    )
    # The same attributes rendered as CRFsuite strings (the input of CRF training).
    results["featurize_1proc_tok_s"] = n_tokens / best_time(lambda: featurizer.crf_items(replace(table)), args.repeat)
    results["tokenize_featurize_1proc_tok_s"] = n_tokens / best_time(
        lambda: featurizer.crf_items(tokenizer(texts)), args.repeat
    )
    pipeline = Pipeline(tokenizer.config, featurizer.config)
    # As tagging uses it: each worker tokenizes and featurizes its chunk and keeps the
    # result. One extra (first) call warms the worker pool up.
    results["tokenize_featurize_all_cores_tok_s"] = n_tokens / best_time(
        lambda: map_chunks(_CountTokens(pipeline), texts, -1), args.repeat + 1
    )
    # As training would use it: the attribute lists travel back to this process.
    results["tokenize_featurize_all_cores_with_transfer_tok_s"] = n_tokens / best_time(
        lambda: map_chunks(pipeline.prepare, texts, -1), args.repeat
    )

    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "model"
        if not args.skip_train:
            reference_code = (
                "from deid_crf.io.brat import read_brat_dir; from deid_crf.text.tokenizer import Tokenizer; "
                f"Tokenizer()([d.text for d in read_brat_dir({str(root / 'meddocan' / 'train')!r})])"
            )
            _, results["tokenize_train_peak_mib"] = child_peak(reference_code, env)
            train_code = (
                "from deid_crf.train import main; "
                f"main(['--features', 'core', '--data-dir', {str(root)!r}, '--eval', 'none', "
                f"'--model-dir', {str(model_dir)!r}, '--quiet'])"
            )
            results["train_seconds"], results["train_peak_mib"] = child_peak(train_code, env)
            tagger = DeidTagger.load(model_dir)
        else:
            tagger = DeidTagger(max_iterations=30).fit(dev[:50])
        results["tag_1proc_tok_s"] = n_tokens / best_time(lambda: tagger.tag_texts(texts, n_jobs=1), args.repeat)
        results["tag_all_cores_tok_s"] = n_tokens / best_time(lambda: tagger.tag_texts(texts, n_jobs=-1), args.repeat)

        svm_dir = Path(tmp) / "svm"
        if not args.skip_train:
            svm_code = (
                "from deid_crf.train import main; "
                f"main(['--kind', 'svm', '--data-dir', {str(root)!r}, '--eval', 'none', "
                f"'--model-dir', {str(svm_dir)!r}, '--quiet'])"
            )
            results["svm_train_seconds"], results["svm_train_peak_mib"] = child_peak(svm_code, env)
            svm = load_model(svm_dir)
        else:
            svm = WindowSVMTagger(n_features=2**18).fit(dev[:50])
        results["svm_tag_1proc_tok_s"] = n_tokens / best_time(lambda: svm.tag_texts(texts, n_jobs=1), args.repeat)
        results["svm_tag_all_cores_tok_s"] = n_tokens / best_time(
            lambda: svm.tag_texts(texts, n_jobs=-1), args.repeat + 1
        )

        # The default model's full feature set (POS, gazetteers, embeddings, document
        # labels), when its resources are built (`make pos-model embeddings gazetteers`).
        full = full_feature_config()
        needed = (Path(full.pos_model) / "config.json", Path(full.embeddings_model) / "vectors.bin")
        missing = [str(path.parent) for path in needed if not path.is_file()]
        if missing:
            print(f"full feature set skipped: no {', '.join(missing)} (run `make pos-model embeddings`)")
        else:
            full_featurizer = resources.featurizer(full)
            full_featurizer.crf_items(replace(table))  # loads the resources once, as a tagging process does
            results["full_feature_codes_1proc_tok_s"] = n_tokens / best_time(
                lambda: full_featurizer.attribute_codes(replace(table)), args.repeat
            )
            results["full_featurize_1proc_tok_s"] = n_tokens / best_time(
                lambda: full_featurizer.crf_items(replace(table)), args.repeat
            )
            full_dir = Path(tmp) / "full"
            if not args.skip_train:
                full_code = (
                    "from deid_crf.train import main; "
                    f"main(['--features', 'full', '--data-dir', {str(root)!r}, '--eval', 'none', "
                    f"'--model-dir', {str(full_dir)!r}, '--quiet'])"
                )
                results["full_train_seconds"], results["full_train_peak_mib"] = child_peak(full_code, env)
                full_tagger = DeidTagger.load(full_dir)
            else:
                full_tagger = DeidTagger(feature_config=full, max_iterations=30).fit(dev[:50])
            results["full_tag_1proc_tok_s"] = n_tokens / best_time(
                lambda: full_tagger.tag_texts(texts, n_jobs=1), args.repeat
            )
            full_tagger.tag_texts(texts[:20], n_jobs=-1)  # warm the worker pool up
            results["full_tag_all_cores_tok_s"] = n_tokens / best_time(
                lambda: full_tagger.tag_texts(texts, n_jobs=-1), args.repeat
            )

    train_tokens = None
    if not args.skip_train:
        train_texts = [d.text for d in read_brat_dir(root / "meddocan" / "train")]
        train_tokens = len(tokenizer(train_texts))
        results["tokenize_train_seconds"] = best_time(lambda: tokenizer(train_texts), 1)

    return report(results, args.output, len(dev), n_tokens, cores, train_tokens)


def report(
    results: dict[str, float], output: Path, n_docs: int, n_tokens: int, cores: int, train_tokens: int | None
) -> int:
    """Print the table (each row with its ratio and target) and write the JSON file."""
    reference = results["tokenize_tok_s"]
    print(f"deid-crf benchmark — dev split: {n_docs} documents, {n_tokens} tokens; {cores} core(s)")
    if train_tokens:
        print(f"training: train split, {train_tokens} tokens; core features unless named full_ (the default model)")
    print(f"{'measure':<48}{'value':>14}  {'ratio':>32}  target")
    for key, value in results.items():
        if key.endswith("_tok_s"):
            ratio = f"{value / reference:.3f}x tokenizer"
            shown = f"{value:,.0f} tok/s"
        elif key in REFERENCES and REFERENCES[key][0] in results:
            reference_key, name = REFERENCES[key]
            ratio = f"{value / results[reference_key]:.2f}x {name}"
            shown = (
                f"{value:.2f} s"
                if key.endswith("seconds")
                else f"{value:,.0f} MiB"
                if key.endswith("mib")
                else f"{value:,.0f} notes/s"
            )
        elif key.endswith("_notes_s"):
            ratio, shown = "", f"{value:,.0f} notes/s"
        elif key.endswith("seconds") and key.startswith(("tokenize", "one_note")):
            ratio, shown = "(reference)", f"{value:.2f} s"
        elif key.endswith("_mib"):
            ratio, shown = "(reference)", f"{value:,.0f} MiB"
        else:
            continue
        target = ""
        if key in TARGETS:
            op, bound = TARGETS[key]
            met = value >= bound if op == ">=" else value <= bound
            target = f"{op} {bound:,}  {'met' if met else 'NOT MET'}"
        print(f"{key:<48}{shown:>14}  {ratio:>32}  {target}")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps({"n_tokens": n_tokens, "cores": cores, **results}, indent=2) + "\n")
    print(f"(written to {output})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
