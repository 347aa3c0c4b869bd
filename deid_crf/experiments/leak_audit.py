"""The leak audit on a BRAT corpus: how many identifying tokens of the originals
survive a masked or surrogate rewrite::

    python -m deid_crf.experiments.leak_audit ../shared/data/meddocan/dev              # gold spans
    python -m deid_crf.experiments.leak_audit ../shared/data/meddocan/dev --model models/crf

With gold spans (the default) the count measures the rewrite alone: what the
replacement of a span keeps of it (a kinship word that was a town's name, a kind word
that was a hospital's name), and what of a value is left elsewhere in the document
outside every gold span. With ``--model`` the spans are the tagger's and the rule
layer's, as ``python -m deid_crf.tag`` finds them: a value the tagger found once and
missed elsewhere is a survivor too. Prints, per mode, the survivors by type and the
documents that have any; never a token's text.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from deid_crf.deid.audit import AUDIT
from deid_crf.deid.deidentifier import MASKED, SURROGATE, Deidentifier, Result
from deid_crf.io.brat import read_brat_dir
from deid_crf.text.spans import PHISpan


class _NoTagger:
    """Stands in for a tagger when the spans are given (gold)."""


def audit_corpus(
    directory: str | Path, model: str | None = None, seed: int = 1, modes: Sequence[str] = (SURROGATE, MASKED)
) -> dict[str, list[Result]]:
    """The audited results of every document of ``directory`` in each mode, with gold
    spans, or with the spans ``model`` and the default rule layer find."""
    docs = read_brat_dir(directory)
    if model is None:
        deid = Deidentifier(_NoTagger(), rules="off", seed=seed)  # type: ignore[arg-type]
        found = [[PHISpan(e.start, e.end, e.type) for e in d.entities] for d in docs]
    else:
        from deid_crf.deid.deidentifier import load

        deid = load(model, seed=seed)
        found = deid.find([d.text for d in docs], confidence=False)
    return {
        mode: [deid.apply(d.text, spans, mode, d.doc_id) for d, spans in zip(docs, found, strict=True)]
        for mode in modes
    }


def report(results: dict[str, list[Result]]) -> str:
    lines = []
    for mode, done in results.items():
        by_type = Counter(s.type for r in done for s in r.survivors)
        with_any = sum(1 for r in done if r.survivors)
        spans = sum(1 for r in done for s in r.spans if s.source != AUDIT)
        lines.append(
            f"{mode}: {sum(by_type.values())} survivor(s) in {with_any} of {len(done)} document(s) ({spans} spans)"
        )
        lines += [f"  {type_}: {n}" for type_, n in by_type.most_common()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deid_crf.experiments.leak_audit", description=__doc__)
    parser.add_argument("corpus", help="a BRAT folder (.txt and .ann)")
    parser.add_argument("--model", help="use this tagger's spans (and the rule layer's) instead of the gold ones")
    parser.add_argument("--seed", type=int, default=1, help="surrogate seed (default: 1)")
    args = parser.parse_args(argv)
    print(report(audit_corpus(args.corpus, args.model, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
