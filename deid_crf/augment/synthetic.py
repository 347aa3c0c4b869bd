"""Synthetic Spanish clinical notes with gold PHI spans known by construction.

Models trained on MEDDOCAN's template-like case reports miss much PHI in notes
written in other formats. This generator writes training documents in those other
formats, as the product of three independent parts:

* **formats** (:mod:`deid_crf.augment.formats`): discharge reports, referral letters,
  emergency and triage notes, SOAP progress notes, nursing records, radiology,
  pathology and laboratory reports, prescriptions, consent forms, primary-care
  notes, social-work reports, medical certificates, e-mails between professionals,
  and generic layouts (``|`` tables, ``CAMPO.....: valor`` sheets, free narrative);
  and (:mod:`deid_crf.augment.more_formats`) handover lists, dictations, pedigrees,
  Catalan/Galician/Basque notes, medico-legal reports, surgical protocols and
  free-text evolution sheets; and (:mod:`deid_crf.augment.entry_formats`) signed shift
  logs, lower-case primary-care notes, family assessments and Catalan/Galician notes that
  name PHI in running text (:mod:`deid_crf.augment.running_text`).
  Each has variants of its own, and the shared sections
  (:mod:`deid_crf.augment.sections`) vary their labels (``Paciente:``,
  ``PACIENTE.......:``, ``Nombre y apellidos:``), order, punctuation and case;
* **a case** (:mod:`deid_crf.augment.case`): one patient per note with relatives,
  staff, places, dates and identifiers, so that the same person recurs under
  several written forms and the age agrees with the birth date;
* **value generators** (:mod:`deid_crf.augment.values`): names from the INE lists
  with regional and foreign variety, addresses in Spanish, Catalan, Galician and
  Basque conventions, dates and ages in every written form, phone numbers
  validated with ``phonenumbers``, DNI/NIE and NASS numbers with valid check
  characters (``python-stdnum``), and the other identifiers of the 28 MEDDOCAN types.

Text and spans are built together (:class:`deid_crf.augment.builder.NoteBuilder`),
so offsets are exact; span boundaries follow the MEDDOCAN annotation guidelines
(titles outside names, postal code and town as separate TERRITORIO spans, the
time of day outside dates, ``N años`` without ``de edad``, kinship word and the
relative's name that follows it as one FAMILIARES span, the relative's age another)
and fall on the
project tokenizer's token boundaries. The clinical text around the PHI carries
non-PHI look-alikes (eponyms, drug brands, scales, services, times, durations).

Every document draws from its own ``random.Random`` seeded by ``(seed, index)``:
the same ``seed`` gives the same documents, and the first *k* documents do not
depend on ``n``. Nothing here reads ``evaluation/``. To look at the output::

    python -m deid_crf.augment.synthetic --n 20 --seed 0 OUT_DIR   # BRAT .txt + .ann
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from deid_crf.augment.builder import NoteBuilder
from deid_crf.augment.case import draw_case
from deid_crf.augment.entry_formats import ENTRY_FORMATS
from deid_crf.augment.formats import FORMATS
from deid_crf.augment.more_formats import MORE_FORMATS
from deid_crf.augment.values import Lexicon, chance, weighted
from deid_crf.text.document import Document

# Some notes are typed all in lower case or printed all in capitals by old systems.
WHOLE_NOTE_CASE = (("as_is", 92), ("lower", 4), ("upper", 4))
# The extended set adds notes without accents (legacy systems print capitals without
# them) and notes typed in a hurry with typos.
EXTENDED_NOTE_CASE = (
    ("as_is", 84),
    ("lower", 4),
    ("upper", 3),
    ("upper_no_accents", 3),
    ("no_accents", 3),
    ("typos", 3),
)
# ``[data] synthetic_formats``: "base", the formats of the first default model; "extended",
# with the seven of :mod:`deid_crf.augment.more_formats` and the accent and typo modes
# (trained with it, the shipped pipeline gained on the notes' dev2 half and lost on the
# dev half); "running", the base formats and the four of
# :mod:`deid_crf.augment.entry_formats` (PHI in running text) (docs/training-data.md).
FORMAT_SETS: dict[str, tuple[dict, tuple]] = {
    "base": (FORMATS, WHOLE_NOTE_CASE),
    "extended": ({**FORMATS, **MORE_FORMATS}, EXTENDED_NOTE_CASE),
    "running": ({**FORMATS, **ENTRY_FORMATS}, WHOLE_NOTE_CASE),
}
ALL_FORMATS = {**FORMATS, **MORE_FORMATS, **ENTRY_FORMATS}
_ACCENTS = str.maketrans("áéíóúàèòÁÉÍÓÚÀÈÒ", "aeiouaeoAEIOUAEO")
_WORD = re.compile(r"[^\W\d_]{5,}")


def strip_accents(text: str) -> str:
    """``text`` without acute and grave accents (``ñ`` and ``ü`` kept, as people type them)."""
    return text.translate(_ACCENTS)


def typo_writer(rng: random.Random, rate: float = 0.06) -> Callable[[str], str]:
    """A rewriter that puts a typo in about ``rate`` of the words of five letters or more:
    two letters swapped, one dropped or one doubled. Inside a word only, so words keep
    their boundaries and a span its tokens (G4: a mention is annotated as written)."""

    def one(match: re.Match[str]) -> str:
        word = match.group()
        if rng.random() >= rate:
            return word
        i = rng.randint(1, len(word) - 3)
        kind = rng.choice(["swap", "drop", "double"])
        if kind == "swap":
            return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        if kind == "drop":
            return word[:i] + word[i + 1 :]
        return word[: i + 1] + word[i] + word[i + 1 :]

    return lambda text: _WORD.sub(one, text)


def note_rng(seed: int, index: int) -> random.Random:
    """The random generator of document ``index`` of run ``seed``."""
    digest = hashlib.sha256(f"synthetic\0{seed}\0{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _format_set(formats: str) -> tuple[dict, tuple]:
    if formats not in FORMAT_SETS:
        raise ValueError(f"unknown synthetic format set {formats!r}; choose from {', '.join(FORMAT_SETS)}")
    return FORMAT_SETS[formats]


def _draw_format(rng: random.Random, formats: str = "base") -> str:
    return weighted(rng, [(name, weight) for name, (_, weight) in _format_set(formats)[0].items()])


def format_of(seed: int, index: int, formats: str = "base") -> str:
    """The format of document ``index`` of run ``seed`` (the first draw of its generator)."""
    return _draw_format(note_rng(seed, index), formats)


def generate_note(
    seed: int,
    index: int,
    lexicon: Lexicon | None = None,
    format_name: str | None = None,
    formats: str = "base",
) -> Document:
    """Document ``index`` of run ``seed`` (its format drawn from the set ``formats``
    unless ``format_name`` is given)."""
    rng = note_rng(seed, index)
    lexicon = lexicon or Lexicon.default()
    note_case = _format_set(formats)[1]
    drawn = _draw_format(rng, formats)
    write = ALL_FORMATS[format_name or drawn][0]
    case = draw_case(rng, lexicon)
    builder = NoteBuilder()
    write(case, builder)
    mode = weighted(rng, note_case)
    if mode in ("upper_no_accents", "no_accents"):
        builder.rewrite_all(strip_accents)
    if mode == "typos":
        builder.rewrite_all(strip_accents if chance(rng, 0.5) else str)
        builder.rewrite_all(typo_writer(rng))
    if mode in ("lower", "upper", "upper_no_accents"):
        builder.recase_all("upper" if mode == "upper_no_accents" else mode)
    return builder.document(f"synthetic-{seed}-{index:05d}")


def generate_notes(n: int, seed: int, lexicon: Lexicon | None = None, formats: str = "base") -> list[Document]:
    """``n`` synthetic notes of the format set ``formats`` (:data:`FORMAT_SETS`),
    deterministic given ``n``, ``seed`` and the set; ids ``synthetic-{seed}-{i:05d}``.
    ``lexicon`` defaults to the built gazetteer lists (Faker lists where they are not
    built)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    _format_set(formats)
    lexicon = lexicon or Lexicon.default()
    return [generate_note(seed, i, lexicon, formats=formats) for i in range(n)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.augment.synthetic",
        description="Write synthetic clinical notes as BRAT .txt/.ann pairs for inspection.",
    )
    parser.add_argument("out_dir", type=Path, help="directory to write NAME.txt and NAME.ann into")
    parser.add_argument("--n", type=int, default=20, help="number of notes (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--formats", choices=sorted(FORMAT_SETS), default="base", help="format set (default base: the default model's)"
    )
    args = parser.parse_args(argv)
    from deid_crf.io.brat import write_brat_dir

    docs = generate_notes(args.n, args.seed, formats=args.formats)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_brat_dir(docs, args.out_dir)
    entities = sum(len(d.entities) for d in docs)
    print(f"{len(docs)} notes, {entities} entities written to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
