"""The leak audit on a BRAT corpus: how many identifying tokens of the originals
survive a masked or surrogate rewrite::

    python -m deid_crf.experiments.leak_audit ../shared/data/meddocan/dev              # gold spans
    python -m deid_crf.experiments.leak_audit ../shared/data/meddocan/dev --model models/crf

With gold spans (the default) the count measures the rewrite alone: what the
replacement of a span keeps of it (a kinship word that was a town's name, a kind word
that was a hospital's name), and what of a value is left elsewhere in the document
outside every gold span. With ``--model`` the spans are the tagger's and the rule
layer's, as ``python -m deid_crf.tag`` finds them: a value the tagger found once and
missed elsewhere is a survivor too. Prints, per mode, the survivors (inside a
replacement: what the rewrite kept; elsewhere: a mention no span covers) by type and
the documents that have any; with ``--strict``, how many a second audit still finds
after they were masked. Never a token's text.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from deid_crf.deid.audit import AUDIT, audit
from deid_crf.deid.deidentifier import MASKED, SURROGATE, Deidentifier, Result
from deid_crf.deid.surrogates import Vocabulary
from deid_crf.io.brat import read_brat_dir
from deid_crf.text.spans import PHISpan


class _NoTagger:
    """Stands in for a tagger when the spans are given (gold)."""


def audit_corpus(
    directory: str | Path,
    model: str | None = None,
    seed: int = 1,
    modes: Sequence[str] = (SURROGATE, MASKED),
    strict: bool = False,
) -> dict[str, list[Result]]:
    """The audited results of every document of ``directory`` in each mode, with gold
    spans, or with the spans ``model`` and the default rule layer find; survivors
    masked with ``strict``."""
    docs = read_brat_dir(directory)
    if model is None:
        deid = Deidentifier(_NoTagger(), rules="off", seed=seed, strict=strict)  # type: ignore[arg-type]
        found = [[PHISpan(e.start, e.end, e.type) for e in d.entities] for d in docs]
    else:
        from deid_crf.deid.deidentifier import load

        deid = load(model, seed=seed, strict=strict)
        found = deid.find([d.text for d in docs], confidence=False)
    return {
        mode: [deid.apply(d.text, spans, mode, d.doc_id) for d, spans in zip(docs, found, strict=True)]
        for mode in modes
    }


def in_replacements(result: Result) -> int:
    """How many of ``result``'s survivors lie inside a replacement (kept by the rewrite)."""
    regions = result.output_spans()
    return sum(1 for s in result.survivors if any(a <= s.start and s.end <= b for a, b, _ in regions))


def left_after_strict(result: Result, vocabulary: Vocabulary, surrogate: bool) -> int:
    """Survivors a second audit finds in a ``--strict`` result (0 when masking worked);
    masks (the default ``[TYPE]``) are not searched; words surrogates keep by design
    are not looked for, as in :meth:`Deidentifier.apply`."""
    masks = [i for i, s in enumerate(result.spans) if result.mode == MASKED or s.replacement == f"[{s.type}]"]
    if not surrogate:
        return len(audit(result.text, result.spans, masks))
    return len(audit(result.text, result.spans, masks, vocabulary.street_types, vocabulary.title_keys))


def report(results: dict[str, list[Result]]) -> str:
    lines = []
    vocabulary = Vocabulary.default()
    for mode, done in results.items():
        by_type = Counter(s.type for r in done for s in r.survivors)
        total = sum(by_type.values())
        with_any = sum(1 for r in done if r.survivors)
        spans = sum(1 for r in done for s in r.spans if s.source != AUDIT)
        kept = sum(in_replacements(r) for r in done) if not any(r.strict for r in done) else None
        where = f": {kept} inside replacements, {total - kept} elsewhere" if kept is not None else ""
        lines.append(f"{mode}: {total} survivor(s) in {with_any} of {len(done)} document(s) ({spans} spans){where}")
        lines += [f"  {type_}: {n}" for type_, n in by_type.most_common()]
        if any(r.strict for r in done):
            left = sum(left_after_strict(r, vocabulary, mode == SURROGATE) for r in done)
            lines.append(f"  left after --strict masked them: {left}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deid_crf.experiments.leak_audit", description=__doc__)
    parser.add_argument("corpus", help="a BRAT folder (.txt and .ann)")
    parser.add_argument("--model", help="use this tagger's spans (and the rule layer's) instead of the gold ones")
    parser.add_argument("--seed", type=int, default=1, help="surrogate seed (default: 1)")
    parser.add_argument("--strict", action="store_true", help="mask the survivors, then audit again")
    args = parser.parse_args(argv)
    print(report(audit_corpus(args.corpus, args.model, args.seed, strict=args.strict)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
