"""Part-of-speech training data: readers for CoNLL-U (UD) and SPACCC_POS (EAGLES),
and the EAGLES → UPOS mapping.

Sentences come out as ``(forms, upos, eagles2)``: UPOS for every token and the
reduced two-character EAGLES tag (as Cotik et al. 2019 used) where the source has
an EAGLES tag (SPACCC; AnCora's XPOS, which leaves some words untagged), else
``None``.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# First one or two EAGLES characters → UPOS. Checked longest prefix first.
_EAGLES_TO_UPOS = {
    "NP": "PROPN",
    "N": "NOUN",
    "VA": "AUX",
    "VS": "AUX",
    "V": "VERB",
    "A": "ADJ",
    "R": "ADV",
    "S": "ADP",
    "CC": "CCONJ",
    "CS": "SCONJ",
    "C": "CCONJ",
    "D": "DET",
    "P": "PRON",
    "Z": "NUM",
    "I": "INTJ",
    "W": "NUM",  # dates
    "F": "PUNCT",
}


def eagles_to_upos(tag: str) -> str:
    tag = tag.upper()
    if tag[:2] in _EAGLES_TO_UPOS:
        return _EAGLES_TO_UPOS[tag[:2]]
    return _EAGLES_TO_UPOS.get(tag[:1], "X")


def eagles2(tag: str) -> str:
    """The reduced EAGLES tag: its first two characters, upper-cased (``NC``, ``VM``,
    ``Fp``'s class ``FP``…); one-character tags such as ``Z`` stay as they are."""
    return tag[:2].upper()


@dataclass
class TaggedSentence:
    forms: list[str]
    upos: list[str]
    eagles2: list[str | None]  # None where the source has no EAGLES tag
    doc_id: str


def read_conllu(path: str | os.PathLike) -> Iterator[TaggedSentence]:
    """Sentences of a (gzipped) CoNLL-U file, with surface tokens: a multiword token
    (``al`` = ``a`` + ``el``) keeps its surface form and its first word's tags,
    because our tokenizer sees the surface form."""
    path = Path(path)
    xpos_is_eagles = "ancora" in path.name.lower()  # GSD and PUD use other XPOS sets
    opener = gzip.open if path.suffix == ".gz" else open
    doc_id = path.name
    forms: list[str] = []
    upos: list[str] = []
    xpos: list[str | None] = []
    skip_until = 0
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# newdoc id = "):
                doc_id = line[len("# newdoc id = ") :]
            if not line:
                if forms:
                    yield _sentence(forms, upos, xpos if xpos_is_eagles else [None] * len(forms), doc_id)
                forms, upos, xpos, skip_until = [], [], [], 0
                continue
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if "." in cols[0]:
                continue
            if "-" in cols[0]:
                first, last = (int(x) for x in cols[0].split("-"))
                forms.append(cols[1])
                upos.append("")  # filled from the first word below
                xpos.append(None)
                skip_until = last
                pending_first = first
                continue
            index = int(cols[0])
            if index <= skip_until:
                if index == pending_first:
                    upos[-1] = cols[3]
                    xpos[-1] = cols[4] if cols[4] != "_" else None
                continue
            forms.append(cols[1])
            upos.append(cols[3])
            xpos.append(cols[4] if cols[4] not in ("_", "") else None)
    if forms:
        yield _sentence(forms, upos, xpos if xpos_is_eagles else [None] * len(forms), doc_id)


def _sentence(forms: list[str], upos: list[str], xpos: list[str | None], doc_id: str) -> TaggedSentence:
    return TaggedSentence(forms, upos, [eagles2(x) if x else None for x in xpos], doc_id)


def read_spaccc(path: str | os.PathLike) -> Iterator[TaggedSentence]:
    """Sentences of a SPACCC_POS file (``FORM<TAB>LEMMA<TAB>TAG``). FreeLing
    multiwords (``a_partir_de``) are split into their words, each with the tag."""
    doc_id = ""
    forms: list[str] = []
    tags: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# doc_id = "):
                if forms:
                    yield _spaccc_sentence(forms, tags, doc_id)
                    forms, tags = [], []
                doc_id = line[len("# doc_id = ") :]
            elif not line:
                if forms:
                    yield _spaccc_sentence(forms, tags, doc_id)
                    forms, tags = [], []
            else:
                cols = line.split("\t")
                for word in cols[0].split("_") if "_" in cols[0] and cols[0] != "_" else [cols[0]]:
                    if word.strip():
                        forms.append(word)
                        tags.append(cols[2])
    if forms:
        yield _spaccc_sentence(forms, tags, doc_id)


def _spaccc_sentence(forms: list[str], tags: list[str], doc_id: str) -> TaggedSentence:
    return TaggedSentence(forms, [eagles_to_upos(t) for t in tags], [eagles2(t) for t in tags], doc_id)


def spaccc_doc_id(doc_id: str) -> str:
    """SPACCC ids carry an ``es-`` prefix; MEDDOCAN ids do not."""
    return doc_id.removeprefix("es-")
