"""BRAT standoff corpus I/O: read and write ``.txt`` + ``.ann`` pairs.

MEDDOCAN offsets count a leading byte-order mark as one character, so text is read
with ``encoding="utf-8"`` (not ``utf-8-sig``) and ``newline=""`` (no newline
translation). Every error names the file and line but never quotes annotated text,
because that text is protected health information.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from deid_crf.io.files import CorpusError, atomic_write_text, read_text
from deid_crf.io.names import shown
from deid_crf.text.document import SPAN_BREAKS, Document, Entity

_SPAN_BREAK = re.compile(f"[{re.escape(SPAN_BREAKS)}]")


def parse_ann(ann: str, text: str, name: str) -> list[Entity]:
    """Parse the text-bound (``T``) lines of a BRAT ``.ann`` file and check each span's
    text against ``text``. Other annotation kinds (relations, notes…) are ignored;
    discontinuous spans are refused because MEDDOCAN has none."""
    entities = []
    for lineno, line in enumerate(ann.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip() or not line.startswith("T"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise CorpusError(f"{shown(name)}:{lineno}: expected 3 tab-separated fields in a T line")
        info = parts[1].split(" ")
        if len(info) != 3:
            expected = "expected 'TYPE START END' (discontinuous spans are not supported)"
            raise CorpusError(f"{shown(name)}:{lineno}: {expected}")
        label, start_s, end_s = info
        try:
            start, end = int(start_s), int(end_s)
        except ValueError:
            raise CorpusError(f"{shown(name)}:{lineno}: offsets are not integers") from None
        if not 0 <= start < end <= len(text):
            raise CorpusError(f"{shown(name)}:{lineno}: span {start}-{end} is outside the text (length {len(text)})")
        if text[start:end] != parts[2]:
            raise CorpusError(f"{shown(name)}:{lineno}: span text differs from the document text at {start}-{end}")
        entities.append(Entity(start, end, label))
    return sorted(entities)


def read_document(txt_path: str | os.PathLike, ann_path: str | os.PathLike | None = None) -> Document:
    """Read ``NAME.txt`` and, if present, ``NAME.ann`` (or ``ann_path``)."""
    txt_path = Path(txt_path)
    text = read_text(txt_path)
    ann_path = txt_path.with_suffix(".ann") if ann_path is None else Path(ann_path)
    entities = parse_ann(read_text(ann_path), text, str(ann_path)) if ann_path.exists() else []
    return Document(txt_path.stem, text, entities)


def read_brat_dir(directory: str | os.PathLike, require_ann: bool = True) -> list[Document]:
    """Read every ``*.txt`` of a BRAT directory, sorted by name."""
    directory = Path(directory)
    if not directory.is_dir():
        raise CorpusError(f"{shown(directory)}: not a directory")
    txt_paths = sorted(directory.glob("*.txt"))
    if not txt_paths:
        raise CorpusError(f"{shown(directory)}: no .txt files")
    docs = []
    for txt_path in txt_paths:
        if require_ann and not txt_path.with_suffix(".ann").exists():
            raise CorpusError(f"{shown(txt_path.with_suffix('.ann'))}: missing annotation file")
        docs.append(read_document(txt_path))
    return docs


def read_splits(root: str | os.PathLike, splits: Sequence[str]) -> list[Document]:
    """The documents of MEDDOCAN splits (``root/meddocan/SPLIT``), in order."""
    docs: list[Document] = []
    for split in splits:
        docs.extend(read_brat_dir(Path(root) / "meddocan" / split))
    return docs


def format_ann(entities: Iterable[Entity], text: str) -> str:
    """Render entities as BRAT ``T`` lines (numbered in order of appearance).
    ``ValueError`` (offsets and type only) for an entity holding a tab or line break
    (:data:`~deid_crf.text.document.SPAN_BREAKS`), which no BRAT reader could read
    back: the taggers and rules never produce one."""
    lines = []
    for i, e in enumerate(sorted(entities), start=1):
        span = text[e.start : e.end]
        if _SPAN_BREAK.search(span):
            raise ValueError(f"entity {e.start}-{e.end} ({e.type}) holds a tab or line break: not writable as BRAT")
        lines.append(f"T{i}\t{e.type} {e.start} {e.end}\t{span}\n")
    return "".join(lines)


def write_document(doc: Document, directory: str | os.PathLike, write_text: bool = True) -> None:
    """Write ``doc`` as ``DIR/ID.ann`` (and ``DIR/ID.txt``), byte-exact."""
    directory = Path(directory)
    if write_text:
        atomic_write_text(directory / f"{doc.doc_id}.txt", doc.text)
    atomic_write_text(directory / f"{doc.doc_id}.ann", format_ann(doc.entities, doc.text))


def write_brat_dir(docs: Sequence[Document], directory: str | os.PathLike, write_text: bool = True) -> None:
    for doc in docs:
        write_document(doc, directory, write_text)
