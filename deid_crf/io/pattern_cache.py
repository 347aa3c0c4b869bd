"""Compiled regular expressions kept between runs, as Python keeps compiled modules.

The rule layer builds about 500 patterns when it is imported or prepared, some of them
from word lists (up to 15,000 characters). ``re`` parses and compiles each in Python:
about 0.2 s of every run's start, a third of tagging one short note, and the part of a
batch run that no worker can share (it comes before they are started). ``re`` keeps
what it compiled only for the life of a process; within :func:`kept_compiles` the
compiled code of every pattern is looked up in a cache file first (keyed by the
pattern, its flags, the interpreter and ``re``'s code version) and handed to ``_sre``,
which checks it, as ``re`` does itself; what is missed is compiled as usual, and the
file is rewritten with it when the block ends.

The file (``patterns-<interpreter tag>-<sre magic>.npz`` in :func:`pattern_cache_dir`)
holds plain arrays (``allow_pickle=False``) and their SHA-256, so a damaged or foreign
file is ignored, never trusted: every pattern is then compiled as without a cache.
Patterns are the program's, never a document's: no text is written there. Outside
CPython, or with ``DEID_CRF_PATTERN_CACHE=off``, nothing is looked up or written.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from deid_crf.config import pattern_cache_dir
from deid_crf.io.files import atomic_write_bytes

log = logging.getLogger("deid_crf")

try:  # the internals ``re.compile`` goes through (CPython 3.11 to 3.13 alike)
    import _sre
    from re import _compiler, _parser

    _AVAILABLE = sys.implementation.name == "cpython" and all(
        hasattr(module, name) for module, name in ((_compiler, "_code"), (_parser, "parse"), (_sre, "compile"))
    )
except ImportError:  # pragma: no cover - another interpreter
    _AVAILABLE = False

# A file that grew past this many patterns (the program's patterns changed many times) is
# rewritten with only those of the run that writes it.
MAX_PATTERNS = 5_000

_DEBUG = 128  # re.DEBUG: compiled as usual, so that its listing is printed
_LOCK = threading.RLock()
_depth = 0
_original_compile: Any = None
_stored: dict[str, tuple[int, int, dict[str, int], np.ndarray]] | None = None
_new: dict[str, tuple[int, int, dict[str, int], np.ndarray]] = {}


def cache_file() -> Path | None:
    """The cache file of this interpreter, or None when caching is off."""
    directory = pattern_cache_dir()
    if directory is None or not _AVAILABLE:
        return None
    return directory / f"patterns-{sys.implementation.cache_tag}-{_sre.MAGIC}.npz"


def _key(pattern: str, flags: int) -> str:
    return hashlib.sha256(f"{flags}\0{pattern}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()


def _read(path: Path) -> dict[str, tuple[int, int, dict[str, int], np.ndarray]]:
    """The entries of ``path`` (empty when it is missing, damaged or not this version's)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in ("keys", "flags", "groups", "offsets", "code", "names")}
            checksum = str(data["checksum"])
        if checksum != _checksum(arrays):
            raise ValueError("checksum mismatch")
        names = json.loads(str(arrays["names"]))
        keys, offsets = arrays["keys"].tolist(), arrays["offsets"]
        if len(names) != len(keys) or len(offsets) != len(keys) + 1:
            raise ValueError("arrays of different lengths")
        code = arrays["code"]
        return {
            key: (int(flag), int(groups), dict(names[i]), code[offsets[i] : offsets[i + 1]])
            for i, (key, flag, groups) in enumerate(
                zip(keys, arrays["flags"].tolist(), arrays["groups"].tolist(), strict=True)
            )
        }
    except FileNotFoundError:
        return {}
    except Exception as exc:  # a damaged file is ignored (and replaced at the next write)
        log.debug(f"{path}: compiled-pattern cache not used ({type(exc).__name__})")
        return {}


def _write(path: Path, entries: dict[str, tuple[int, int, dict[str, int], np.ndarray]]) -> None:
    keys = list(entries)
    codes = [entries[k][3] for k in keys]
    arrays = {
        "keys": np.array(keys, dtype="U32"),
        "flags": np.array([entries[k][0] for k in keys], dtype=np.int64),
        "groups": np.array([entries[k][1] for k in keys], dtype=np.int64),
        "offsets": np.concatenate(([0], np.cumsum([len(c) for c in codes]))).astype(np.int64),
        "code": np.concatenate(codes).astype(np.uint32) if codes else np.zeros(0, np.uint32),
        "names": np.array(json.dumps([entries[k][2] for k in keys])),
    }
    buffer = io.BytesIO()
    np.savez(buffer, checksum=np.array(_checksum(arrays)), **arrays)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, buffer.getvalue(), 0o644)
    except OSError as exc:  # a read-only home: runs compile as without a cache
        log.debug(f"{path}: compiled-pattern cache not written ({exc.strerror or type(exc).__name__})")


def _build(pattern: str, flags: int, code: list[int], groups: int, names: dict[str, int]) -> Any:
    """The compiled pattern, as ``re._compiler.compile`` builds it from its code."""
    indexgroup: list[str | None] = [None] * (groups + 1)
    for name, index in names.items():
        indexgroup[index] = name
    return _sre.compile(pattern, flags, code, groups, names, tuple(indexgroup))


def _compile(pattern: Any, flags: int = 0) -> Any:
    """``re._compiler.compile`` with the cache: what ``re.compile`` calls on a miss of
    its own in-process cache."""
    if not isinstance(pattern, str) or flags & _DEBUG:
        return _original_compile(pattern, flags)
    key = _key(pattern, flags)
    entry = (_stored or {}).get(key) or _new.get(key)
    if entry is not None:
        final_flags, groups, names, code = entry
        try:
            return _build(pattern, final_flags, code.tolist(), groups, dict(names))
        except (RuntimeError, TypeError, ValueError, OverflowError, IndexError):
            pass  # code that _sre refuses: compiled again below
    tree = _parser.parse(pattern, flags)
    code = _compiler._code(tree, flags)
    final_flags, groups, names = flags | tree.state.flags, tree.state.groups - 1, dict(tree.state.groupdict)
    _new[key] = (final_flags, groups, names, np.array(code, dtype=np.uint32))
    return _build(pattern, final_flags, code, groups, names)


@contextmanager
def kept_compiles() -> Iterator[None]:
    """Within this block, patterns compiled anywhere in the process come from the cache
    file when they are in it; the file is rewritten at the end if some were not. Blocks
    may nest (the outermost one writes)."""
    global _depth, _original_compile, _stored
    path = cache_file()
    if path is None:
        yield
        return
    with _LOCK:
        if _depth == 0:
            if _stored is None:
                _stored = _read(path)
            _original_compile = _compiler.compile
            _compiler.compile = _compile
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0:
                _compiler.compile = _original_compile
                if _new:
                    entries = {**_stored, **_new} if len(_stored) + len(_new) <= MAX_PATTERNS else dict(_new)
                    _write(path, entries)
                    _stored = entries
                    _new.clear()
