"""BRAT standoff corpus I/O: read and write ``.txt`` + ``.ann`` pairs.

MEDDOCAN offsets count a leading byte-order mark as one character, so text is read
with ``encoding="utf-8"`` (not ``utf-8-sig``) and ``newline=""`` (no newline
translation). Every error names the file and line but never quotes annotated text,
because that text is protected health information.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


class CorpusError(ValueError):
    """A corpus file is missing, unreadable or malformed. The message holds no PHI."""


@dataclass(frozen=True, order=True)
class Entity:
    """A typed character span ``[start, end)`` of a document's text."""

    start: int
    end: int
    type: str


@dataclass
class Document:
    """A text with its identifier and (gold or predicted) entities."""

    doc_id: str
    text: str
    entities: list[Entity] = field(default_factory=list)


# Files larger than this are refused rather than read into memory whole; clinical notes
# are kilobytes, so anything this large is almost surely not a note.
MAX_TEXT_BYTES = 50 * 1024 * 1024


def read_text(path: str | os.PathLike, encoding: str = "utf-8") -> str:
    """Read a document's text exactly as BRAT offsets count it (BOM kept, no newline
    translation). Raises :class:`CorpusError` for unreadable, binary, oversized or
    wrongly encoded files."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_TEXT_BYTES:
            raise CorpusError(f"{path}: file is {size} bytes, over the {MAX_TEXT_BYTES}-byte limit")
        data = path.read_bytes()
    except CorpusError:
        raise
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read file ({exc.strerror or type(exc).__name__})") from None
    return decode_text(data, str(path), encoding)


def decode_text(data: bytes, name: str, encoding: str = "utf-8") -> str:
    """Decode raw bytes of a document, refusing binary data and undecodable bytes."""
    if b"\x00" in data:
        raise CorpusError(f"{name}: looks like a binary file (contains NUL bytes)")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{name}: not valid {encoding} at byte {exc.start}") from None
    except LookupError:
        raise CorpusError(f"{name}: unknown encoding {encoding!r}") from None


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
            raise CorpusError(f"{name}:{lineno}: expected 3 tab-separated fields in a T line")
        info = parts[1].split(" ")
        if len(info) != 3:
            raise CorpusError(f"{name}:{lineno}: expected 'TYPE START END' (discontinuous spans are not supported)")
        label, start_s, end_s = info
        try:
            start, end = int(start_s), int(end_s)
        except ValueError:
            raise CorpusError(f"{name}:{lineno}: offsets are not integers") from None
        if not 0 <= start < end <= len(text):
            raise CorpusError(f"{name}:{lineno}: span {start}-{end} is outside the text (length {len(text)})")
        if text[start:end] != parts[2]:
            raise CorpusError(f"{name}:{lineno}: span text differs from the document text at {start}-{end}")
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
        raise CorpusError(f"{directory}: not a directory")
    txt_paths = sorted(directory.glob("*.txt"))
    if not txt_paths:
        raise CorpusError(f"{directory}: no .txt files")
    docs = []
    for txt_path in txt_paths:
        if require_ann and not txt_path.with_suffix(".ann").exists():
            raise CorpusError(f"{txt_path.with_suffix('.ann')}: missing annotation file")
        docs.append(read_document(txt_path))
    return docs


def format_ann(entities: Iterable[Entity], text: str) -> str:
    """Render entities as BRAT ``T`` lines (numbered in order of appearance)."""
    lines = [
        f"T{i}\t{e.type} {e.start} {e.end}\t{text[e.start : e.end]}\n" for i, e in enumerate(sorted(entities), start=1)
    ]
    return "".join(lines)


def atomic_write_text(path: str | os.PathLike, content: str) -> None:
    """Write ``content`` to ``path`` through a temporary file and a rename, so that a
    crash never leaves a half-written file behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(content)
            f.flush()
            # On disk before the rename: after a power cut a file is old or new, never empty.
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates files owner-only
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_document(doc: Document, directory: str | os.PathLike, write_text: bool = True) -> None:
    """Write ``doc`` as ``DIR/ID.ann`` (and ``DIR/ID.txt``), byte-exact."""
    directory = Path(directory)
    if write_text:
        atomic_write_text(directory / f"{doc.doc_id}.txt", doc.text)
    atomic_write_text(directory / f"{doc.doc_id}.ann", format_ann(doc.entities, doc.text))


def write_brat_dir(docs: Sequence[Document], directory: str | os.PathLike, write_text: bool = True) -> None:
    for doc in docs:
        write_document(doc, directory, write_text)
