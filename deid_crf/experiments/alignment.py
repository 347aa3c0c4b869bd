"""Report gold entities that the tokenizer or sentence splitter cannot represent.

    python -m deid_crf.experiments.alignment [--data-dir DIR] [--splits train dev]

Prints counts only (never entity text): entities with a boundary inside a token,
entities crossing a sentence boundary, and the first few offenders by document id,
offsets and type.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from deid_crf.config import data_dir
from deid_crf.io.brat import read_brat_dir
from deid_crf.io.files import CorpusError
from deid_crf.text.bio import alignment
from deid_crf.text.tokenizer import Tokenizer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.experiments.alignment", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--splits", nargs="+", default=["train", "dev"])
    parser.add_argument("--show", type=int, default=20, help="list this many offenders (id, offsets, type)")
    args = parser.parse_args(argv)
    root = args.data_dir or data_dir()
    try:
        docs = [d for split in args.splits for d in read_brat_dir(root / "meddocan" / split)]
    except CorpusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    table = Tokenizer()([d.text for d in docs])
    result = alignment(table, [d.entities for d in docs])
    print(
        f"splits: {'+'.join(args.splits)}  documents: {len(docs)}  tokens: {len(table)}  sentences: {table.n_sentences}"
    )
    print(f"gold entities:               {result.total}")
    print(f"boundary inside a token:     {result.inside_token}")
    print(f"crossing a sentence boundary: {result.crossing_sentence}")
    print(f"covering no token:           {result.no_token}")
    for d, entity, problem in result.offenders[: args.show]:
        print(f"  {docs[d].doc_id} {entity.start}-{entity.end} {entity.type}: {problem}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
