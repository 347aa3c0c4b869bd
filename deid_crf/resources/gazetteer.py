"""Read the built lists and compile them into a :class:`~deid_crf.features.gazetteer.Gazetteer`,
once per process and only when first asked for (never at import time).

Lists are read as ``SOURCES.json`` declares them; lists of the same ``column`` (for
example INE, MEDDOCAN-gazetteer and Faker first names, all ``first_name``) are merged
into one feature column. Bind the features to a feature configuration with
:class:`GazetteerFeatures`, a small picklable callable that loads the gazetteer
lazily in whichever process calls it::

    extract = GazetteerFeatures()                  # default lists, default columns
    extract(table.tokens, table.doc, table.line)   # {"gaz_first_name": (codes, values), …}
"""

from __future__ import annotations

import functools
import hashlib
import json
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import deid_crf.gazetteers as _lists_package
from deid_crf.features.encoding import Coded
from deid_crf.features.gazetteer import Gazetteer, extract

# The lists ship inside the ``deid_crf.gazetteers`` package (the top-level gazetteers/ folder).
DEFAULT_DIR = Path(_lists_package.__file__).resolve().parent / "lists"
MANIFEST = "SOURCES.json"

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


def build_gazetteer(
    directory: str | Path | None = None,
    lists: Iterable[str] | None = None,
    columns: Columns | None = None,
) -> Gazetteer:
    """Read and compile lists (uncached). ``columns`` maps output columns to list
    names; by default every list (or every one of ``lists``) goes to the column the
    manifest gives it. Lists whose file is absent (not built yet) are skipped with a
    warning; ``meta`` records what was used and a fingerprint of it."""
    directory = Path(directory or DEFAULT_DIR)
    manifest = read_manifest(directory)
    if columns is None:
        columns = default_columns(manifest, lists)
    else:
        default_columns(manifest, [name for names in columns.values() for name in names])
    merged: dict[str, list[str] | dict[str, str | None]] = {}
    used: dict[str, list[str]] = {}
    missing: list[str] = []
    digest = hashlib.sha256()
    for column, names in columns.items():
        loaded = []
        for name in names:
            info = manifest["lists"][name]
            path = directory / info["file"]
            if not path.is_file():
                missing.append(name)
                continue
            data = path.read_bytes()
            digest.update(f"{column}\0{name}\0".encode())
            digest.update(hashlib.sha256(data).digest())
            loaded.append(read_list(path))
            used.setdefault(column, []).append(name)
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
    if missing:
        warnings.warn(
            f"{directory}: gazetteer lists not built, skipped: {', '.join(missing)}; run `make gazetteers`",
            stacklevel=2,
        )
    meta = {"directory": str(directory), "columns": used, "missing": missing, "fingerprint": digest.hexdigest()}
    return Gazetteer.build(merged, meta=meta)


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
