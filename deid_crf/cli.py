"""The ``deid-crf`` console command: one sub-command per ``python -m`` entry point.

    deid-crf tag notes/ -o out/ --format masked     # = python -m deid_crf.tag …
    deid-crf train --features core                  # = python -m deid_crf.train …
    deid-crf --help                                 # every sub-command

Each sub-command imports its module only when it runs, so ``deid-crf tag`` loads
nothing that training or the experiments need.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

# sub-command → (module whose ``main(argv)`` runs it, one-line summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "tag": ("deid_crf.tag", "find PHI in documents and write annotations, masked or surrogate text"),
    "train": ("deid_crf.train", "train a CRF or window-SVM tagger and evaluate it on dev"),
    "evaluate": ("deid_crf.scoring.meddocan", "score system .ann files against gold ones (MEDDOCAN measures)"),
    "grid": ("deid_crf.experiments.grid", "grid search over a TOML grid (resumable)"),
    "ablation": ("deid_crf.experiments.ablation", "feature-group ablation on dev"),
    "bench": ("deid_crf.experiments.bench", "throughput, training time and memory"),
    "rules-table": ("deid_crf.experiments.rules_table", "rule layer vs model per priority, on dev"),
    "alignment": ("deid_crf.experiments.alignment", "gold entities the tokenizer cannot represent"),
    "figures": ("deid_crf.experiments.figures", "render the documentation figures as PNG"),
    "pos": ("deid_crf.resources.pos", "train or evaluate the built-in POS tagger"),
    "embeddings": ("deid_crf.resources.embeddings", "train fastText vectors and their clusters"),
    "gazetteers": ("deid_crf.gazetteers.build", "build the gazetteer word lists from their sources"),
    "data": ("deid_crf.sources.fetch", "download the corpora the default model needs, verifying their SHA-256"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()]
    return "usage: deid-crf COMMAND [ARGS…]   (deid-crf COMMAND --help for its options)\n\ncommands:\n" + "\n".join(
        lines
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0
    if args[0] not in COMMANDS:
        print(f"deid-crf: unknown command {args[0]!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[args[0]][0])
    return int(module.main(args[1:]) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
