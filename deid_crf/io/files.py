"""Reading and writing text files safely: exact decoding with clear errors, and atomic
writes that never leave a half-written file. Errors name the file, never its content."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class CorpusError(ValueError):
    """A corpus file is missing, unreadable or malformed. The message holds no PHI."""


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
