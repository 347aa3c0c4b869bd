"""Read the built lists and compile them into a :class:`~deid_crf.features.gazetteer.Gazetteer`,
once per process and only when first asked for (never at import time).

Lists are read as ``SOURCES.json`` declares them; lists of the same ``column`` (for
example INE, MEDDOCAN-gazetteer and Faker first names, all ``first_name``) are merged
into one feature column. Compiling them takes a good part of a second, so a saved model
also holds its gazetteer compiled (:func:`save_compiled`: the trie's arrays and its
vocabulary in one compressed ``trie.npz``), used whenever the lists it was
compiled from are unchanged. Bind the features to a feature configuration with
:class:`GazetteerFeatures`, a small picklable callable that loads the gazetteer
lazily in whichever process calls it::

    extract = GazetteerFeatures()                  # default lists, default columns
    extract(table.tokens, table.doc, table.line)   # {"gaz_first_name": (codes, values), …}
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import deid_crf.gazetteers as _lists_package
from deid_crf.features.encoding import Coded
from deid_crf.features.gazetteer import Gazetteer, extract
from deid_crf.io.names import shown
from deid_crf.io.persistence import InvalidModel, load_arrays, save_arrays

# The lists ship inside the ``deid_crf.gazetteers`` package (the top-level gazetteers/ folder).
DEFAULT_DIR = Path(_lists_package.__file__).resolve().parent / "lists"
MANIFEST = "SOURCES.json"
# Folder of a list directory holding its default gazetteer compiled (save_compiled).
COMPILED = "compiled"
TRIE_FILE = "trie.npz"
# What a trie.npz may hold once decompressed: the default gazetteer's holds 2.4 MB.
MAX_TRIE_BYTES = 256 << 20
_COMPILED_ARRAYS = ("edge_keys", "edge_child", "node_mask")

Columns = Mapping[str, Sequence[str]]  # column → list names


def read_manifest(directory: str | Path | None = None) -> dict[str, Any]:
    path = Path(directory or DEFAULT_DIR) / MANIFEST
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no gazetteer manifest; run `make gazetteers`") from None


def read_list(path: str | Path) -> list[str] | dict[str, str]:
    """A list file: ``.txt`` → entries; ``.tsv`` → ``entry → band``."""
    path = Path(path)
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    if path.suffix == ".tsv":
        pairs = [line.split("\t", 1) for line in lines]
        return {entry: band for entry, band in pairs}
    return lines


def write_list(path: str | Path, entries: Iterable[str] | Mapping[str, str]) -> None:
    """Write entries as :func:`read_list` reads them (e.g. annotation lists saved with
    a model); plain entries are sorted so the file is reproducible."""
    path = Path(path)
    if isinstance(entries, Mapping):
        text = "".join(f"{e}\t{b}\n" for e, b in entries.items())
    else:
        text = "".join(f"{e}\n" for e in sorted(entries))
    path.write_text(text, encoding="utf-8", newline="\n")


def default_columns(manifest: Mapping[str, Any], lists: Iterable[str] | None = None) -> dict[str, tuple[str, ...]]:
    """``column → list names`` from the manifest, for ``lists`` (default: all)."""
    wanted = set(manifest["lists"]) if lists is None else set(lists)
    unknown = wanted - set(manifest["lists"])
    if unknown:
        raise ValueError(f"unknown gazetteer lists {sorted(unknown)}; known: {sorted(manifest['lists'])}")
    columns: dict[str, list[str]] = {}
    for name, info in manifest["lists"].items():
        if name in wanted:
            columns.setdefault(info["column"], []).append(name)
    return {c: tuple(names) for c, names in columns.items()}


def _fingerprint(directory: Path, manifest: Mapping[str, Any], columns: Columns) -> tuple[dict[str, Any], list]:
    """What compiling ``columns`` reads: ``meta`` (the lists used per column, those
    missing, a SHA-256 over column and list names and the files' bytes) and the paths
    of the lists present, per column."""
    used: dict[str, list[str]] = {}
    missing: list[str] = []
    paths: list[tuple[str, list[Path]]] = []
    digest = hashlib.sha256()
    for column, names in columns.items():
        present = []
        for name in names:
            path = directory / manifest["lists"][name]["file"]
            if not path.is_file():
                missing.append(name)
                continue
            digest.update(f"{column}\0{name}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
            present.append(path)
            used.setdefault(column, []).append(name)
        paths.append((column, present))
    meta = {"directory": str(directory), "columns": used, "missing": missing, "fingerprint": digest.hexdigest()}
    return meta, paths


def build_gazetteer(
    directory: str | Path | None = None,
    lists: Iterable[str] | None = None,
    columns: Columns | None = None,
) -> Gazetteer:
    """Read and compile lists (uncached). ``columns`` maps output columns to list
    names; by default every list (or every one of ``lists``) goes to the column the
    manifest gives it. Lists whose file is absent (not built yet) are skipped with a
    warning; ``meta`` records what was used and a fingerprint of it. The default
    gazetteer of a directory that holds it compiled from the same lists is read from
    there (:func:`save_compiled`)."""
    directory = Path(directory or DEFAULT_DIR)
    if is_compiled_only(directory):
        if lists is not None or columns is not None:
            raise ValueError(f"{shown(directory)}: holds its gazetteer compiled only; lists cannot be chosen")
        return _load_compiled(directory, None)
    manifest = read_manifest(directory)
    if columns is None:
        columns = default_columns(manifest, lists)
    else:
        default_columns(manifest, [name for names in columns.values() for name in names])
    meta, paths = _fingerprint(directory, manifest, columns)
    missing = meta["missing"]
    if missing:
        warnings.warn(
            f"{directory}: gazetteer lists not built, skipped: {', '.join(missing)}; run `make gazetteers`",
            stacklevel=2,
        )
    compiled = _load_compiled(directory, meta)
    if compiled is not None:
        return compiled
    merged: dict[str, list[str] | dict[str, str | None]] = {}
    for column, present in paths:
        loaded = [read_list(path) for path in present]
        if not loaded:
            continue
        if any(isinstance(entries, dict) for entries in loaded):
            # Banded lists first, so their bands are the ones kept.
            bands: dict[str, str | None] = {}
            for entries in sorted(loaded, key=lambda e: not isinstance(e, dict)):
                items = entries.items() if isinstance(entries, dict) else ((e, None) for e in entries)
                for entry, band in items:
                    bands.setdefault(entry, band)
            merged[column] = bands
        else:
            merged[column] = [entry for entries in loaded for entry in entries]
    return Gazetteer.build(merged, meta=meta)


def is_compiled_only(directory: Path) -> bool:
    """Whether ``directory`` holds its gazetteer compiled, without the lists (a saved
    model's: :func:`save_compiled` with ``keep_lists=False``)."""
    return not (directory / MANIFEST).is_file() and (directory / COMPILED / "gazetteer.json").is_file()


def save_compiled(directory: str | Path, keep_lists: bool = True) -> None:
    """Compile the default gazetteer of ``directory`` (every list, in its manifest
    column) and write it into ``directory/compiled``: ``trie.npz`` (the trie's arrays
    in their smallest integer types and its vocabulary, normalised tokens by id joined
    by line breaks, as UTF-8 bytes) and ``gazetteer.json`` (columns, bands, the fingerprint of the lists).
    Without ``keep_lists`` the lists and ``SOURCES.json`` are removed afterwards (a saved
    model tags with the compiled arrays only; ``SOURCES.md`` stays, for their origins
    and licenses)."""
    directory = Path(directory)
    if is_compiled_only(directory):
        return
    gazetteer = build_gazetteer(directory)
    target = directory / COMPILED
    if target.exists():
        shutil.rmtree(target)
    target.mkdir()
    arrays: dict[str, np.ndarray] = {}
    for name in _COMPILED_ARRAYS:
        values = getattr(gazetteer, name)
        if name == "node_mask":  # one bit per column: 12 columns fit 16 bits
            values = values.astype(np.min_scalar_type(int(values.max(initial=0))))
        arrays[name] = values
    for i, column in enumerate(gazetteer.columns):
        if column in gazetteer.node_band:
            arrays[f"node_band_{i}"] = gazetteer.node_band[column].astype(np.int8)  # band numbers 0 to 4
    vocab = sorted(gazetteer.vocab, key=gazetteer.vocab.__getitem__)
    if any("\n" in token for token in vocab):
        raise ValueError(f"{directory}: a gazetteer token holds a line break")
    arrays["vocab"] = np.frombuffer("\n".join(vocab).encode("utf-8"), dtype=np.uint8)
    # One compressed archive: 0.7 MB instead of 2.4 MB of .npy files, read in a few ms
    # (issue 13's model size); a model is loaded once per process anyway.
    save_arrays(target / TRIE_FILE, arrays)
    description = {
        "columns": list(gazetteer.columns),
        "bands": {column: list(bands) for column, bands in gazetteer.bands.items()},
        "max_len": gazetteer.max_len,
        "meta": {key: value for key, value in gazetteer.meta.items() if key != "directory"},
    }
    (target / "gazetteer.json").write_text(json.dumps(description, indent=1) + "\n", encoding="utf-8")
    if not keep_lists:
        for info in read_manifest(directory)["lists"].values():
            (directory / info["file"]).unlink(missing_ok=True)
        (directory / MANIFEST).unlink()


def _load_compiled(directory: Path, meta: Mapping[str, Any] | None) -> Gazetteer | None:
    """The gazetteer compiled in ``directory`` if it was compiled from the lists that
    ``meta`` describes (same lists, columns and bytes), else None; with ``meta`` None,
    whatever it was compiled from (a folder without its lists). The arrays are
    read with size limits and checked to fit together (``InvalidModel`` naming the folder)."""
    target = directory / COMPILED
    try:
        description = json.loads((target / "gazetteer.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        raise InvalidModel(f"{shown(target / 'gazetteer.json')}: unreadable ({type(exc).__name__})") from None
    try:
        if meta is None:
            meta = {"directory": str(directory), **description["meta"]}
        expected = {key: value for key, value in meta.items() if key != "directory"}
        if description["meta"] != expected:
            return None
        columns = tuple(str(c) for c in description["columns"])
        bands = {str(column): tuple(map(str, names)) for column, names in description["bands"].items()}
        max_len = int(description["max_len"])
        if (target / TRIE_FILE).is_file():
            stored = load_arrays(target / TRIE_FILE, MAX_TRIE_BYTES, _trie_member_problem)
            arrays = {name: stored[name] for name in _COMPILED_ARRAYS}
            node_band = {column: stored[f"node_band_{i}"] for i, column in enumerate(columns) if column in bands}
            tokens = stored["vocab"].tobytes().decode("utf-8")
        else:  # models saved before the archive: .npy files, memory-mapped, and vocab.txt
            arrays = {name: _load_array(target / f"{name}.npy") for name in _COMPILED_ARRAYS}
            node_band = {
                column: _load_array(target / f"node_band_{i}.npy")
                for i, column in enumerate(columns)
                if column in bands
            }
            tokens = (target / "vocab.txt").read_text(encoding="utf-8")
    except InvalidModel:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
        raise InvalidModel(f"{shown(target)}: unreadable compiled gazetteer ({type(exc).__name__})") from None
    vocab = {token: i for i, token in enumerate(tokens.split("\n"))} if tokens else {}
    problem = _compiled_problem(arrays, node_band, columns, bands, len(vocab), max_len)
    if problem:
        source = target / TRIE_FILE if (target / TRIE_FILE).is_file() else target
        raise InvalidModel(f"{shown(source)}: arrays that are not one trie: {problem}")
    return Gazetteer(
        columns=columns,
        bands=bands,
        vocab=vocab,
        node_band=node_band,
        max_len=max_len,
        meta={**meta},
        **arrays,
    )


def _trie_member_problem(name: str, shape: tuple[int, ...], dtype: np.dtype) -> str | None:
    if len(shape) != 1 or dtype.kind not in "iu":
        return "is not a one-dimensional integer array"
    if name not in (*_COMPILED_ARRAYS, "vocab") and not name.startswith("node_band_"):
        return "is not an array of a compiled gazetteer"
    return None


def _load_array(path: Path) -> np.ndarray:
    """A one-dimensional integer ``.npy`` array, memory-mapped (no objects)."""
    array = np.load(path, mmap_mode="r", allow_pickle=False)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise InvalidModel(f"{shown(path)}: not a one-dimensional integer array")
    return array


def _compiled_problem(
    arrays: Mapping[str, np.ndarray],
    node_band: Mapping[str, np.ndarray],
    columns: tuple[str, ...],
    bands: Mapping[str, tuple[str, ...]],
    n_tokens: int,
    max_len: int,
) -> str | None:
    """What keeps the compiled arrays from being one trie (None: nothing): every index
    they hold must point inside the arrays it indexes, as numpy would otherwise fail
    at the first document instead of at load."""
    keys, children, mask = arrays["edge_keys"], arrays["edge_child"], arrays["node_mask"]
    n_nodes = len(mask)
    if keys.dtype != np.int64 or len(keys) != len(children) or n_nodes == 0:
        return "edge and node arrays that do not fit (64-bit edge keys, one child per edge)"
    if not 0 <= len(columns) <= 63 or not 0 <= max_len <= 1000:
        return "with counts out of range"
    if len(keys) and ((np.diff(keys) <= 0).any() or keys[0] < 0 or (keys >> 32).max() >= n_nodes):
        return "edges not sorted or from a node that does not exist"
    if len(keys) and ((keys & 0xFFFFFFFF).max() > n_tokens or children.min() < 1 or children.max() >= n_nodes):
        return "an edge to a token or node that does not exist"
    if (mask < 0).any() or (np.asarray(mask, np.int64) >> len(columns)).any():
        return "a node marks a column that does not exist"
    if set(bands) - set(columns) or set(node_band) != set(bands):
        return "bands of columns that do not exist"
    for column, values in node_band.items():
        if len(values) != n_nodes or values.min(initial=0) < 0 or values.max(initial=0) > len(bands[column]):
            return f"bands of column {column!r:.40} out of range"
    return None


@functools.lru_cache(maxsize=4)
def _cached(directory: str, lists: tuple[str, ...] | None, columns: tuple | None) -> Gazetteer:
    return build_gazetteer(directory, lists, None if columns is None else dict(columns))


def get_gazetteer(
    directory: str | Path | None = None,
    lists: Iterable[str] | None = None,
    columns: Columns | None = None,
) -> Gazetteer:
    """:func:`build_gazetteer`, cached per process and per arguments."""
    key_columns = None if columns is None else tuple((c, tuple(n)) for c, n in columns.items())
    key_lists = None if lists is None else tuple(lists)
    return _cached(str(Path(directory or DEFAULT_DIR).resolve()), key_lists, key_columns)


def clear_cache() -> None:
    """Forget the gazetteers loaded in this process (after rebuilding the lists)."""
    _cached.cache_clear()


class GazetteerFeatures:
    """A context feature group ``extract(tokens, doc, line)`` whose gazetteer is loaded
    on first call in each process (so pickling it to workers sends only settings),
    optionally extended with in-memory lists such as cross-fitted annotation lists."""

    def __init__(
        self,
        directory: str | Path | None = None,
        lists: Sequence[str] | None = None,
        columns: Columns | None = None,
        extra: Mapping[str, Iterable[str]] | None = None,
    ):
        self.directory = None if directory is None else str(directory)
        self.lists = None if lists is None else tuple(lists)
        self.columns = None if columns is None else {c: tuple(n) for c, n in columns.items()}
        self.extra = None if extra is None else {name: sorted(entries) for name, entries in extra.items()}
        self._gazetteer: Gazetteer | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_gazetteer": None}

    @property
    def gazetteer(self) -> Gazetteer:
        if self._gazetteer is None:
            gazetteer = get_gazetteer(self.directory, self.lists, self.columns)
            self._gazetteer = gazetteer.extended(self.extra) if self.extra else gazetteer
        return self._gazetteer

    def __call__(self, tokens: np.ndarray, doc: np.ndarray, line: np.ndarray) -> dict[str, Coded]:
        return extract(tokens, doc, line, self.gazetteer)
