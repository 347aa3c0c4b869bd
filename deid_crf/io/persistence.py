"""One way to save and load a model directory (CRF and SVM taggers, POS tagger).

A model is a directory of safe files: ``config.json`` (a versioned header, then
what the model needs besides its files) and the model's own files (CRFsuite's
model file, ``.npz`` arrays loaded with ``allow_pickle=False``, bundled resources).
Nothing is pickled, so loading a model executes no code from it.

Saving writes the whole model into a staging folder beside the target, then its
:data:`MANIFEST_FILE` (every file's size and SHA-256, checked first at load by
:func:`verify_manifest`), and renames it into place once it is complete: an
existing model is replaced only by a complete one, and a directory that holds
something other than a model is never replaced.
This module knows no model: each passes its :class:`ModelFormat` and a function that
writes its files.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import shutil
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from deid_crf.io.names import shown

CONFIG_FILE = "config.json"
HEADER_KEYS = ("format", "version", "kind")
# Every file of a saved model with its size and SHA-256, written last at save and
# checked first at load (:func:`verify_manifest`).
MANIFEST_FILE = "MANIFEST.json"
MANIFEST_FORMAT = ("deid-crf-manifest", 1)
log = logging.getLogger("deid_crf")


class ModelNotFoundError(FileNotFoundError):
    """No trained model where one was expected."""


class InvalidModel(ValueError):
    """A model file that is damaged, out of its declared ranges or not of this kind.
    The message names the file and the problem (a model holds no document text)."""


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
        raise InvalidModel(
            f"{shown(path)}: unreadable model configuration (invalid JSON at line {exc.lineno} column {exc.colno})"
        ) from None
    except (OSError, UnicodeDecodeError, RecursionError) as exc:
        raise InvalidModel(f"{shown(path)}: unreadable model configuration ({type(exc).__name__})") from None
    if not isinstance(meta, dict):
        raise InvalidModel(f"{shown(path)}: unreadable model configuration (not a JSON object)")
    return meta


def read_model_dir(directory: str | os.PathLike, model_format: ModelFormat) -> dict[str, Any]:
    """The configuration of a model saved by :func:`write_model_dir` in ``model_format``:
    ``ValueError`` naming the file for another format, kind or version, or for a file
    that differs from the model's manifest (:func:`verify_manifest`)."""
    if not (Path(directory) / CONFIG_FILE).is_file():
        read_config(directory, model_format.build_hint)  # ModelNotFoundError
    if not verify_manifest(directory) and model_format.kind in ("crf", "svm"):
        _warn_once(f"{shown(directory)}: no {MANIFEST_FILE} (saved before models had one): its files are not checked")
    meta = read_config(directory, model_format.build_hint)
    path = Path(directory) / CONFIG_FILE
    name, version, kind = model_format.name, model_format.version, model_format.kind
    if meta.get("format") != name:
        raise InvalidModel(f"{shown(path)}: not a {name} model (format {meta.get('format')!r:.60})")
    if meta.get("version") != version:
        raise InvalidModel(
            f"{shown(path)}: {name} model of version {meta.get('version')!r:.20}; this deid-crf reads version {version}"
        )
    if meta.get("kind", kind) != kind:  # models saved before the header had "kind" (POS v1) have none
        raise InvalidModel(f"{shown(path)}: a {meta.get('kind')!r:.40} model, not a {kind!r} model")
    return meta


@contextlib.contextmanager
def invalid_config(directory: str | os.PathLike) -> Iterator[None]:
    """Report a configuration whose content does not fit the model (a missing key, a
    value of the wrong type) as a ``ValueError`` naming the file."""
    try:
        yield
    except InvalidModel:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        path = Path(directory) / CONFIG_FILE
        raise InvalidModel(f"{shown(path)}: invalid model configuration ({type(exc).__name__}: {exc!s:.200})") from None


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
        write_manifest(staging)
        _move_into_place(staging, directory)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return given


def _files(directory: Path) -> Iterator[tuple[str, Path]]:
    """``(relative name, path)`` of every regular file under ``directory`` but the
    manifest (links are not followed, nor listed)."""
    for path in sorted(directory.rglob("*")):
        name = path.relative_to(directory).as_posix()
        if name != MANIFEST_FILE and path.is_file() and not path.is_symlink():
            yield name, path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    # O_NOFOLLOW: a file of the model replaced by a link is not followed (and is refused).
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC), "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(directory: str | os.PathLike) -> None:
    """Write ``directory``/:data:`MANIFEST_FILE`: the size and SHA-256 of every file."""
    directory = Path(directory)
    files = {name: {"size": path.stat().st_size, "sha256": _sha256(path)} for name, path in _files(directory)}
    manifest = {"format": MANIFEST_FORMAT[0], "version": MANIFEST_FORMAT[1], "files": files}
    (directory / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def verify_manifest(directory: str | os.PathLike) -> bool:
    """Check every file listed in ``directory``'s manifest: present, a regular file
    (not a link), of its size and SHA-256; :class:`InvalidModel` naming the first that
    is not. False when there is no manifest (a model saved before they existed).
    Files the manifest does not list are never read: a model reads only files that a
    listed one names (``config.json``, ``SOURCES.json``) or fixed names inside folders
    that ``config.json`` names."""
    directory = Path(directory)
    path = directory / MANIFEST_FILE
    if not path.is_file():
        return False
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        files = manifest["files"]
        if (manifest["format"], manifest["version"]) != MANIFEST_FORMAT or not isinstance(files, dict):
            raise ValueError
        listed = [(name, int(info["size"]), str(info["sha256"])) for name, info in files.items()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        raise InvalidModel(f"{shown(path)}: unreadable manifest") from None
    for name, size, sha256 in listed:
        file = directory / name
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise InvalidModel(f"{shown(path)}: lists a file outside the model folder ({shown(name)})")
        try:
            st = os.lstat(file)
            if not stat.S_ISREG(st.st_mode):
                raise InvalidModel(f"{shown(file)}: not a regular file; the model's manifest lists one")
            if st.st_size != size:
                raise InvalidModel(f"{shown(file)}: {st.st_size} bytes, the model's manifest says {size}")
            if _sha256(file) != sha256:
                raise InvalidModel(f"{shown(file)}: changed since the model was saved (SHA-256 differs)")
        except FileNotFoundError:
            raise InvalidModel(f"{shown(file)}: missing; the model's manifest lists it") from None
        except OSError as exc:
            raise InvalidModel(f"{shown(file)}: unreadable ({exc.strerror or type(exc).__name__})") from None
    return True


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning(message)


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
    """Write named numeric arrays to an ``.npz`` file (no object arrays), each member
    compressed unless compressing saves under :data:`STORE_BELOW_SAVING` of its size:
    such an array (the subword rows of the embeddings, 16-bit integers that deflate by
    less than 1 %) would cost its loader a decompression of every byte at each start
    for nothing. ``np.load`` and :func:`load_arrays` read either kind of member; the
    members carry no time stamp, so the same arrays give the same bytes."""
    with zipfile.ZipFile(path, "w", allowZip64=True) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(array), allow_pickle=False)
            data = buffer.getvalue()
            saving = 1 - len(zlib.compress(data)) / max(len(data), 1)
            info = zipfile.ZipInfo(f"{name}.npy")
            info.compress_type = zipfile.ZIP_STORED if saving < STORE_BELOW_SAVING else zipfile.ZIP_DEFLATED
            archive.writestr(info, data)


# An array whose compression saves less than this fraction of its bytes is stored as it is.
STORE_BELOW_SAVING = 0.05


# What the arrays of one ``.npz`` file may hold once decompressed, in all: the largest
# shipped (the POS tagger's weights) hold 58 MB, an SVM's sparse weights at most a few
# hundred; a crafted archive that would inflate further is refused before it does.
MAX_ARRAY_BYTES = 1 << 30


def load_arrays(
    path: Path,
    max_bytes: int = MAX_ARRAY_BYTES,
    expect: Callable[[str, tuple[int, ...], np.dtype], str | None] | None = None,
) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file written by :func:`save_arrays`, read with
    ``allow_pickle=False``. Each array's header is read first: a dtype holding objects,
    arrays over ``max_bytes`` in all (whatever the archive claims) or a shape that
    ``expect(name, shape, dtype)`` finds wrong (it returns the problem, or None) are
    refused (:class:`InvalidModel`, naming the file) before their data are read."""
    if not path.is_file():
        raise FileNotFoundError(f"{shown(path)}: missing model file")
    arrays: dict[str, np.ndarray] = {}
    left = max_bytes
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                name = info.filename.removesuffix(".npy")
                with archive.open(info) as member:
                    shape, dtype = _array_header(member)
                size = int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
                problem = _member_problem(info, shape, dtype, size, left, expect)
                if problem:
                    raise InvalidModel(f"{shown(path)}: array {name!r:.40} {problem}")
                with archive.open(info) as member:
                    arrays[name] = np.lib.format.read_array(member, allow_pickle=False)
                left -= size
    except InvalidModel:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as exc:
        raise InvalidModel(f"{shown(path)}: unreadable arrays ({type(exc).__name__})") from None
    return arrays


def _member_problem(
    info: zipfile.ZipInfo,
    shape: tuple[int, ...],
    dtype: np.dtype,
    size: int,
    left: int,
    expect: Callable[[str, tuple[int, ...], np.dtype], str | None] | None,
) -> str | None:
    if not info.filename.endswith(".npy"):
        return "is not a .npy member"
    if dtype.hasobject:
        return "holds Python objects"
    if max(size, info.file_size) > left:
        return "is over the size limit of the arrays of one file"
    return expect(info.filename.removesuffix(".npy"), shape, dtype) if expect is not None else None


def _array_header(member: Any) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype from the header of a ``.npy`` stream (versions 1 and 2)."""
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise ValueError(f"unsupported .npy version {version}")
    if any(not isinstance(n, int) or n < 0 for n in shape):
        raise ValueError("bad shape")
    return tuple(shape), dtype
