"""The words Spanish clinical text writes in lower case: what a lower-case word that is *not*
one of them may be, in a note written all in lower case (a name: ``la enfermera montse``,
``su mujer, graciela,``; see :mod:`deid_crf.deid.recognizers.lower_case_names`).

Built from the unlabeled CANTEMIST case reports of the shared data (CC BY 4.0: Miranda-Escalada,
Farré, Krallinger, IberLEF 2020), which hold no names: every word written in lower case
there at least :data:`MIN_COUNT` times, one per line, sorted. The list is committed
(``gazetteers/clinical_words.txt``: beside this module, not among the gazetteer lists that
featurise a model, ``lists/``) so that the rules never need the shared data;
``tests/test_lower_case_names.py`` checks it against that text::

    python -m deid_crf.gazetteers.clinical_words --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections import Counter
from pathlib import Path

SOURCES = ("cantemist_background.txt.gz", "cantemist_annotated_sets.txt.gz")
MIN_COUNT = 3
LIST_FILE = Path(__file__).resolve().parent / "clinical_words.txt"
_WORD = re.compile(r"[^\W\d_]+")


def build(data_dir: Path) -> list[str]:
    """The lower-case words of the unlabeled CANTEMIST text under ``data_dir``, written so
    at least :data:`MIN_COUNT` times, sorted."""
    counts: Counter[str] = Counter()
    for name in SOURCES:
        path = data_dir / "unlabeled_es_clinical" / name
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                counts.update(word for word in _WORD.findall(line) if word.islower())
    return sorted(word for word, count in counts.items() if count >= MIN_COUNT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--out", type=Path, default=LIST_FILE, help=f"list file to write (default: {LIST_FILE})")
    args = parser.parse_args(argv)
    words = build(args.data_dir)
    args.out.write_text("".join(f"{word}\n" for word in words), encoding="utf-8")
    print(f"{len(words):,} words written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
