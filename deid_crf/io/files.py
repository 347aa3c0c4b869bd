"""Reading and writing text files safely: exact decoding with clear errors, and atomic
writes that never leave a half-written file. Errors name the file, never its content."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO, TextIO

from deid_crf.io.names import shown


class CorpusError(ValueError):
    """A corpus file is missing, unreadable or malformed. The message holds no PHI."""


class TooLarge(CorpusError):
    """An input holds more bytes than the limit it is read with."""


# Files larger than this are refused rather than read into memory whole; clinical notes
# are kilobytes, so anything this large is almost surely not a note.
MAX_TEXT_BYTES = 50 * 1024 * 1024


def read_text(path: str | os.PathLike, encoding: str = "utf-8", max_bytes: int = MAX_TEXT_BYTES) -> str:
    """Read a document's text exactly as BRAT offsets count it (BOM kept, no newline
    translation). Raises :class:`CorpusError` for unreadable, binary, oversized
    (over ``max_bytes``), wrongly encoded or non-regular files (:func:`read_bytes`)."""
    return decode_text(read_bytes(path, max_bytes), str(path), encoding)


def file_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be read as a document, or None when it is a regular file
    (through links): a dangling link, a link loop, a FIFO, device, socket or folder."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return _stat_problem(path, exc)
    return None if stat.S_ISREG(st.st_mode) else f"not a regular file ({_kind(st.st_mode)})"


def read_bytes(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of the regular file at ``path``, reading at most ``max_bytes + 1``
    whatever size the file reports. :class:`CorpusError` (naming the file) when it
    is not a regular file, is larger than ``max_bytes``, or cannot be read; a FIFO
    or device is refused before anything is read from it."""
    problem = file_problem(path)
    if problem is not None:
        raise CorpusError(f"{shown(path)}: {problem}")
    try:
        # O_NONBLOCK: should a FIFO take the file's place meanwhile, opening it does not hang.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise CorpusError(f"{shown(path)}: {_stat_problem(path, exc)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise CorpusError(f"{shown(path)}: not a regular file ({_kind(st.st_mode)})")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise CorpusError(f"{shown(path)}: cannot read file ({exc.strerror or type(exc).__name__})") from None
    finally:
        os.close(fd)
    if left <= 0:
        raise TooLarge(f"{shown(path)}: file is over the limit of {max_bytes} bytes")
    return b"".join(chunks)


def read_stream(stream: BinaryIO, name: str, max_bytes: int) -> bytes:
    """At most ``max_bytes`` from ``stream`` (standard input); :class:`TooLarge`
    when it holds more (only ``max_bytes + 1`` bytes are read)."""
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise TooLarge(f"{shown(name)}: input is over the limit of {max_bytes} bytes")
    return data


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def _stat_problem(path: str | os.PathLike, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if isinstance(exc, FileNotFoundError) and os.path.islink(path):
        return "dangling symbolic link (its target does not exist)"
    if exc.errno == errno.ENXIO:  # opening a socket
        return "not a regular file (a socket)"
    return f"cannot read file ({exc.strerror or type(exc).__name__})"


def decode_text(data: bytes, name: str, encoding: str = "utf-8") -> str:
    """Decode raw bytes of a document, refusing binary data and undecodable bytes."""
    if b"\x00" in data:
        raise CorpusError(f"{shown(name)}: looks like a binary file (contains NUL bytes)")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{shown(name)}: not valid {encoding} at byte {exc.start}") from None
    except LookupError:
        raise CorpusError(f"{shown(name)}: unknown encoding {encoding!r}") from None


def atomic_write_text(path: str | os.PathLike, content: str, mode: int | None = None) -> None:
    """Write ``content`` to ``path`` through a temporary file and a rename, so that a
    crash never leaves a half-written file behind. The file gets ``mode`` and the
    folders created for it :func:`folder_mode` of it; with None, what the umask allows."""
    path = Path(path)
    if mode is None:
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        make_dirs(path.parent, folder_mode(mode))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(content)
            f.flush()
            # On disk before the rename: after a power cut a file is old or new, never empty.
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)  # mkstemp creates files owner-only
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_texts(files: Sequence[tuple[str | os.PathLike, str]], mode: int | None = None) -> list[OSError | None]:
    """Write each ``(path, content)`` of ``files`` as :func:`atomic_write_text` does,
    together: every temporary file is written first, then each is flushed to disk
    (``fsync``), then each is renamed over its path. A file is as safe as with
    :func:`atomic_write_text`, on disk before its rename, so that after a crash or a
    power cut it is old or new, never empty or half-written; but the filesystem's
    journal commits about once for the lot instead of once per file. Returns, in
    order, None for each file written or the :class:`OSError` that kept it from being
    written (its temporary file removed); the other files are written all the same.
    Any other exception (an interrupt) removes every temporary file not yet renamed."""
    errors: list[OSError | None] = [None] * len(files)
    unrenamed: dict[int, tuple[Path, str, TextIO]] = {}
    try:
        for i, (path, content) in enumerate(files):
            path = Path(path)
            try:
                if mode is None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                else:
                    make_dirs(path.parent, folder_mode(mode))
                fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            except OSError as exc:
                errors[i] = exc
                continue
            f = unrenamed.setdefault(i, (path, tmp, os.fdopen(fd, "w", encoding="utf-8", newline="")))[2]
            try:
                f.write(content)
                f.flush()
            except OSError as exc:
                errors[i] = exc
        # All on disk before any rename: a rename between two fsyncs would make the
        # second commit the journal again.
        for i, (_, tmp, f) in unrenamed.items():
            try:
                if errors[i] is None:
                    os.fsync(f.fileno())
                f.close()
                if errors[i] is None:
                    os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)  # mkstemp creates files owner-only
            except OSError as exc:
                errors[i] = exc
        for i, (path, tmp, _) in list(unrenamed.items()):
            if errors[i] is None:
                try:
                    os.replace(tmp, path)
                    del unrenamed[i]
                except OSError as exc:
                    errors[i] = exc
    finally:
        for _, tmp, f in unrenamed.values():
            with suppress(OSError):  # what could not be written is not kept
                f.close()
            Path(tmp).unlink(missing_ok=True)
    return errors


def atomic_write_bytes(path: str | os.PathLike, content: bytes, mode: int) -> None:
    """:func:`~deid_crf.io.files.atomic_write_text` for bytes."""
    with atomic_path(path, mode) as tmp:
        with open(tmp, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())


@contextmanager
def atomic_path(path: str | os.PathLike, mode: int) -> Iterator[str]:
    """A temporary path beside ``path`` to write to; renamed to ``path`` (file ``mode``)
    when the block ends, removed if it fails, so ``path`` is never half-written."""
    path = Path(path)
    make_dirs(path.parent, folder_mode(mode))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def folder_mode(mode: int) -> int:
    """The mode of a folder holding files of ``mode``: searchable by whoever may read
    them (600 → 700, 640 → 750, 644 → 755)."""
    return mode | (mode & 0o444) >> 2


def make_dirs(folder: Path, mode: int) -> None:
    """Create ``folder`` and its missing parents, each with ``mode`` whatever the umask;
    folders that exist are left as they are."""
    missing = []
    while not os.path.lexists(folder) and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for new in reversed(missing):
        try:
            new.mkdir()
        except FileExistsError:
            if not new.is_dir():
                raise
            continue
        os.chmod(new, mode)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
