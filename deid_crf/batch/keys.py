"""The key file: the original → replacement records of a masked or surrogate run.

One JSON line per document, in a file only its owner can read or write (mode 0600).
Because it holds every original value, the key file is opened with care:

* a new key file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (mode 0600), so a
  link planted at its path is never followed and nothing else is ever replaced;
* an existing path is used only when it is a regular file owned by this user, not a
  symbolic link, and holds key records of this project (a run being resumed):
  every line starts as :func:`~json.dumps` with sorted keys starts a record
  (``{"date_shift_days": ``), a line cut by a kill included; an empty file counts
  only with mode 0600, as a run killed before its first record leaves it;
* anything else (a note, another program's JSON lines, a FIFO, a link) is refused
  with :class:`KeyFileError`, whose message names the path and never its content.

The shard folder of a distributed run (:meth:`KeyFile.shard_dir`) must be a real
folder, never a link.
"""

from __future__ import annotations

import errno
import glob
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from deid_crf.deid.groups import GroupMemory
from deid_crf.deid.rules import NAME_TYPES
from deid_crf.io.names import shown

# How every key record's line starts: ``json.dumps(record, sort_keys=True)`` of a
# record whose first key (in sorted order) is ``date_shift_days``.
RECORD_START = b'{"date_shift_days": '
KEY_MODES = ("masked", "surrogate")


class KeyFileError(Exception):
    """A key-file path that cannot be used safely; the message names the path only."""


def _is_record(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("doc_id"), str)
        and record.get("mode") in KEY_MODES
        and isinstance(record.get("spans"), list)
    )


def _holds_key_records(f: Any, st: os.stat_result) -> bool:
    """True when the open binary file ``f`` is a key file of this project (see the
    module's docstring)."""
    if st.st_size == 0:
        return stat.S_IMODE(st.st_mode) == 0o600
    for line in f:
        complete = line.endswith(b"\n")
        if not complete:  # the last line, cut by a kill: a beginning of a record
            return line.startswith(RECORD_START) or RECORD_START.startswith(line)
        if not line.startswith(RECORD_START):
            return False
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut by a kill, closed by the run resumed after it
        if not _is_record(record):
            return False
    return True


def check_key_file(path: str | os.PathLike) -> None:
    """Refuse (:class:`KeyFileError`) a key-file path that exists and is not a key
    file of this project: a symbolic link (dangling or not), anything but a regular
    file, a file of another user, or a file whose lines are not key records. A path
    that does not exist yet is fine."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise KeyFileError(f"{shown(path)}: the key file is a symbolic link (never followed)") from None
        raise KeyFileError(f"{shown(path)}: cannot open the key file ({exc.strerror or type(exc).__name__})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise KeyFileError(f"{shown(path)}: the key file exists and is not a regular file")
    with os.fdopen(fd, "rb") as f:
        if st.st_uid != os.geteuid():
            raise KeyFileError(f"{shown(path)}: the key file exists and belongs to another user")
        if not _holds_key_records(f, st):
            raise KeyFileError(
                f"{shown(path)}: exists and is not a deid-crf key file; it is left as it is: "
                "choose a new --key-file path"
            )


def _open_for_append(path: Path) -> int:
    """A descriptor appending to the key file at ``path``: a new file (0600), or an
    existing key file that :func:`check_key_file` accepts; never through a link."""
    flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    check_key_file(path)
    before = os.lstat(path)
    try:
        fd = os.open(path, flags | os.O_NONBLOCK)
    except OSError as exc:
        raise KeyFileError(f"{shown(path)}: cannot open the key file ({exc.strerror or type(exc).__name__})") from None
    after = os.fstat(fd)
    if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(after.st_mode):
        os.close(fd)
        raise KeyFileError(f"{shown(path)}: the key file changed while it was being opened")
    os.set_blocking(fd, True)
    return fd


class KeyFile:
    """The original → replacement records, one JSON line per document, in a file only
    its owner can read or write (mode 0600). Records are appended as documents are
    done; :meth:`compact` keeps the last record of each document (a run resumed
    after a kill may have appended one twice) and drops a line cut by the kill.
    Opening refuses a path that is not safe to write (:class:`KeyFileError`, see the
    module's docstring).

    The workers of a distributed run append to shards of their own in
    :meth:`shard_dir` (one file per partition, mode 0600, in a folder mode 0700),
    which :meth:`absorb_shards` moves into the key file."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = _open_for_append(self.path)
        for stale in self.path.parent.glob(f".{glob.escape(self.path.name)}.*.tmp"):
            stale.unlink(missing_ok=True)  # left by a compaction that was killed
        os.fchmod(fd, 0o600)
        self._file = os.fdopen(fd, "a", encoding="utf-8", newline="\n")
        # A line left unfinished by a killed run must not swallow the next record.
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            self._file.write("\n")

    def append(self, record: dict[str, Any]) -> None:
        self.extend([record])

    def extend(self, records: list[dict[str, Any]]) -> None:
        """Append ``records`` and flush them to disk once (a chunk of table rows: one
        ``fsync``, not one per row)."""
        self._file.writelines(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    @staticmethod
    def doc_ids(path: str | os.PathLike) -> set[str]:
        """The documents that have a record in the key file at ``path`` (none if it
        does not exist yet)."""
        try:
            return {record["doc_id"] for record in _key_records(path)}
        except FileNotFoundError:
            return set()

    def compact(self) -> int:
        """Rewrite the file atomically with one record per document, sorted by id;
        returns the number of documents."""
        records = {r["doc_id"]: json.dumps(r, ensure_ascii=False, sort_keys=True) for r in _key_records(self.path)}
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.writelines(records[k] + "\n" for k in sorted(records))
            os.replace(tmp, self.path)  # replaces a link planted meanwhile, never its target
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return len(records)

    @staticmethod
    def shard_dir(path: str | os.PathLike) -> Path:
        """The folder beside the key file at ``path`` where workers write their shards."""
        path = Path(path)
        return path.parent / f".{path.name}.parts"

    @classmethod
    def make_shard_dir(cls, path: str | os.PathLike) -> Path:
        """:meth:`shard_dir`, created with mode 0700 if needed; :class:`KeyFileError`
        if it is a link or not a folder."""
        folder = cls.shard_dir(path)
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            _check_shard_dir(folder)
        return folder

    def absorb_shards(self) -> int:
        """Append every shard's records to this file (a line cut by a kill is dropped),
        then delete the shards and their folder; returns the number of records."""
        folder = self.shard_dir(self.path)
        if not os.path.lexists(folder):
            return 0
        _check_shard_dir(folder)
        moved = 0
        for shard in sorted(folder.glob("*.jsonl")):
            if not shard.is_file() or shard.is_symlink():
                continue
            lines = [json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in _key_records(shard)]
            self._file.writelines(lines)
            self._file.flush()
            os.fsync(self._file.fileno())  # in the key file before the shard goes
            shard.unlink()
            moved += len(lines)
        if not any(folder.iterdir()):
            folder.rmdir()
        return moved


def _check_shard_dir(folder: Path) -> None:
    st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise KeyFileError(f"{shown(folder)}: the key shard folder is a link or not a folder; remove it and run again")
    if st.st_uid != os.geteuid():
        raise KeyFileError(f"{shown(folder)}: the key shard folder belongs to another user")


def _key_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The records of a key file or shard, skipping lines that are not a record with a
    document id (a line cut short when a run was killed)."""
    records = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and isinstance(record.get("doc_id"), str):
                records.append(record)
    return records


def group_memories(path: str | os.PathLike, secret_check: str) -> dict[str, GroupMemory]:
    """What the key file at ``path`` records of each patient group (by tag), for a
    later batch to reuse (:class:`~deid_crf.deid.groups.GroupMemory`): its name parts'
    and values' surrogates and the names found in its documents. Empty when the file
    does not exist. :class:`KeyFileError` when its groups were made with another
    secret than the one whose :meth:`~deid_crf.deid.groups.GroupSecret.check` is
    ``secret_check`` (they would get other surrogates and another date shift)."""
    try:
        records = _key_records(path)
    except FileNotFoundError:
        return {}
    memories: dict[str, GroupMemory] = {}
    for record in records:
        tag = record.get("group")
        if not isinstance(tag, str):
            continue
        if record.get("group_secret_check") != secret_check:
            raise KeyFileError(
                f"{shown(path)}: the key file holds patient groups made with another secret; "
                "use the same secret, or another --key-file"
            )
        memory = memories.setdefault(tag, GroupMemory())
        used = record.get("group_surrogates") or {}
        memory.parts.update({k: v for k, v in (used.get("parts") or {}).items() if isinstance(v, str)})
        for entry in used.get("values") or []:
            if isinstance(entry, list) and len(entry) == 3 and all(isinstance(x, str) for x in entry):
                memory.values[entry[0], entry[1]] = entry[2]
        for span in record.get("spans") or []:
            if isinstance(span, dict) and span.get("type") in NAME_TYPES and isinstance(span.get("original"), str):
                memory.names.setdefault(span["original"], span["type"])
    return memories
