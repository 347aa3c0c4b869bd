"""One way to save and load a model directory (CRF and SVM taggers, POS tagger).

A model is a directory of safe files: ``config.json`` (a versioned header, then
what the model needs besides its files) and the model's own files (CRFsuite's
model file, ``.npz`` arrays loaded with ``allow_pickle=False``, bundled resources).
Nothing is pickled, so loading a model executes no code from it.

Saving writes the whole model into a staging folder beside the target and renames
it into place once it is complete: an existing model is replaced only by a complete
one, and a directory that holds something other than a model is never replaced.
This module knows no model: each passes its :class:`ModelFormat` and a function that
writes its files.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CONFIG_FILE = "config.json"
HEADER_KEYS = ("format", "version", "kind")


class ModelNotFoundError(FileNotFoundError):
    """No trained model where one was expected."""


@dataclass(frozen=True)
class ModelFormat:
    """The header a kind of model writes at the top of its ``config.json``."""

    name: str  # e.g. "deid-crf-tagger"
    version: int  # what this code writes and reads; a change of layout gets a new one
    kind: str  # e.g. "crf": what a model of this format is, for readers of the file
    build_hint: str = ""  # how to build a missing model, added to ModelNotFoundError


def read_config(directory: str | os.PathLike, build_hint: str = "") -> dict[str, Any]:
    """The JSON object in ``directory/config.json``, whatever its format.

    Raises :class:`ModelNotFoundError` when there is no such file and ``ValueError``
    naming the file when it is not a readable JSON object."""
    path = Path(directory) / CONFIG_FILE
    if not path.is_file():
        hint = f"; {build_hint}" if build_hint else ""
        raise ModelNotFoundError(f"no trained model in {directory} (missing {CONFIG_FILE}){hint}")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{path}: unreadable model configuration (invalid JSON at line {exc.lineno} column {exc.colno})"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: unreadable model configuration ({type(exc).__name__})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: unreadable model configuration (not a JSON object)")
    return meta


def read_model_dir(directory: str | os.PathLike, model_format: ModelFormat) -> dict[str, Any]:
    """The configuration of a model saved by :func:`write_model_dir` in ``model_format``:
    ``ValueError`` naming the file for another format, kind or version."""
    meta = read_config(directory, model_format.build_hint)
    path = Path(directory) / CONFIG_FILE
    name, version, kind = model_format.name, model_format.version, model_format.kind
    if meta.get("format") != name:
        raise ValueError(f"{path}: not a {name} model (format {meta.get('format')!r:.60})")
    if meta.get("version") != version:
        raise ValueError(
            f"{path}: {name} model of version {meta.get('version')!r:.20}; this deid-crf reads version {version}"
        )
    if meta.get("kind", kind) != kind:  # models saved before the header had "kind" (POS v1) have none
        raise ValueError(f"{path}: a {meta.get('kind')!r:.40} model, not a {kind!r} model")
    return meta


@contextlib.contextmanager
def invalid_config(directory: str | os.PathLike) -> Iterator[None]:
    """Report a configuration whose content does not fit the model (a missing key, a
    value of the wrong type) as a ``ValueError`` naming the file."""
    try:
        yield
    except (KeyError, TypeError, ValueError) as exc:
        path = Path(directory) / CONFIG_FILE
        raise ValueError(f"{path}: invalid model configuration ({type(exc).__name__}: {exc})") from None


def is_model_dir(directory: str | os.PathLike) -> bool:
    """Whether ``directory`` holds a model written by :func:`write_model_dir`."""
    try:
        meta = read_config(directory)
    except (FileNotFoundError, ValueError):
        return False
    return "format" in meta and "version" in meta


def write_model_dir(
    directory: str | os.PathLike, model_format: ModelFormat, write: Callable[[Path], Mapping[str, Any]]
) -> Path:
    """Save a model to ``directory``: ``write(staging)`` writes the model's files into a
    staging folder and returns the rest of its configuration; ``config.json`` (the header
    of ``model_format``, then that configuration) is written last, then the folder is
    renamed to ``directory``. An existing model there is replaced only once the new one
    is complete; a non-empty ``directory`` that holds no model is refused
    (``FileExistsError``) and left as it is."""
    given = Path(directory)
    directory = Path(os.path.abspath(given))  # "." or "models/.." have a name and a parent too
    if directory.exists() and not directory.is_dir():
        raise FileExistsError(f"{directory} exists and is not a directory; refusing to replace it")
    if directory.is_dir() and any(directory.iterdir()) and not is_model_dir(directory):
        raise FileExistsError(f"{directory} exists and does not hold a model; refusing to replace it")
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", suffix=".saving", dir=directory.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp makes it owner-only; a model is not secret
    try:
        body = dict(write(staging))
        clash = sorted(set(body) & set(HEADER_KEYS))
        if clash:
            raise ValueError(f"model configuration must not set the header keys {clash}")
        header = {"format": model_format.name, "version": model_format.version, "kind": model_format.kind}
        text = json.dumps(header | body, indent=2, ensure_ascii=False) + "\n"
        (staging / CONFIG_FILE).write_text(text, encoding="utf-8")
        _move_into_place(staging, directory)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return given


def _move_into_place(staging: Path, directory: Path) -> None:
    """Rename the complete ``staging`` folder to ``directory``; an existing directory is
    moved aside first and put back if the rename fails."""
    if not directory.exists():
        staging.rename(directory)
        return
    backup = staging.with_name(staging.name + ".old")
    directory.rename(backup)
    try:
        staging.rename(directory)
    except BaseException:
        backup.rename(directory)
        raise
    shutil.rmtree(backup, ignore_errors=True)


def save_arrays(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write named numeric arrays to a compressed ``.npz`` file (no object arrays)."""
    np.savez_compressed(path, **arrays)


def load_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file written by :func:`save_arrays`, read with
    ``allow_pickle=False``; errors name the file."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: missing model file")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: unreadable arrays ({type(exc).__name__}: {exc})") from None
