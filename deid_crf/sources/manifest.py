"""The data manifest: every corpus the default model needs, with its public URL,
license and the SHA-256 of each file, read from one TOML file (``manifest.toml``).

A source is downloaded as single files (``[[source.file]]``: one URL, one path under
the data folder) or as an archive (``[[source.archive]]``) from which the folders
named in ``members`` are extracted; the SHA-256 of every extracted file is listed in a
``sha256sum``-format file under ``checksums/``. A file without a URL is *derived*:
the project made it from public data by a procedure its ``derived`` note describes,
and it can only come from a mirror (``make data MIRROR=…``).

The manifest is checked as it is read: an unknown key, a missing field, a hash that is
not 64 hex digits or a path that leaves the data folder is a :class:`ManifestError`
naming the file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from deid_crf.io.names import shown

MANIFEST_PATH = Path(__file__).with_name("manifest.toml")
MANIFEST_VERSION = 1
_SHA256 = re.compile(r"[0-9a-f]{64}")


class ManifestError(ValueError):
    """The data manifest or one of its checksum files is malformed (message names the file)."""


@dataclass(frozen=True)
class FileEntry:
    """One file of a source: fetched from ``url`` (or, when ``url`` is empty, only from
    a mirror) to ``path`` under the data folder. ``sha256`` is of the downloaded bytes;
    with ``gzip`` the file is stored gzip-compressed and the hash is of its content."""

    path: str
    url: str
    sha256: str
    gzip: bool = False
    derived: str = ""  # how a file without a public URL was made


@dataclass(frozen=True)
class ArchiveEntry:
    """A ``.tar.gz``/``.tgz``/``.zip`` archive from which the folders ``members`` maps
    (archive folder → data folder, after ``strip`` leading path components) are
    extracted; every extracted file must be listed in ``checksums`` with its SHA-256.
    ``sha256`` is of the archive itself, or empty when it could not be recorded (the
    reason in ``unverified``): the extracted files are verified either way."""

    url: str
    members: Mapping[str, str]
    checksums: Mapping[str, str]  # data-folder path → SHA-256, from the checksums file
    checksums_file: str
    sha256: str = ""
    unverified: str = ""
    strip: int = 0


@dataclass(frozen=True)
class Source:
    """One corpus: what it is, its license, what of deid-crf uses it, and its files."""

    name: str
    title: str
    license: str
    license_url: str
    homepage: str
    used_for: str
    feeds: tuple[str, ...] = ()
    files: tuple[FileEntry, ...] = ()
    archives: tuple[ArchiveEntry, ...] = ()
    note: str = ""

    def paths(self) -> list[str]:
        """Every data-folder path this source provides."""
        return [f.path for f in self.files] + [p for a in self.archives for p in a.checksums]


@dataclass(frozen=True)
class Manifest:
    sources: tuple[Source, ...]
    path: Path

    def source(self, name: str) -> Source:
        for source in self.sources:
            if source.name == name:
                return source
        raise KeyError(name)


_SOURCE_KEYS = {"name", "title", "license", "license_url", "homepage", "used_for", "feeds", "note", "file", "archive"}
# What a corpus is used to train: the tagger itself, or one of its resources
# (the names of ``deid_crf.resources.RESOURCES``).
FEEDS = ("tagger", "pos_tagger", "embeddings", "gazetteer")
_FILE_KEYS = {"path", "url", "sha256", "gzip", "derived"}
_ARCHIVE_KEYS = {"url", "sha256", "unverified", "strip", "members", "checksums"}


def load_manifest(path: Path = MANIFEST_PATH) -> Manifest:
    """The manifest at ``path`` (default: the one shipped with deid-crf), checked."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{shown(path)}: cannot read the data manifest ({type(exc).__name__}: {exc})") from None
    where = shown(path)
    if data.get("version") != MANIFEST_VERSION:
        raise ManifestError(f"{where}: data manifest version {data.get('version')!r}, expected {MANIFEST_VERSION}")
    sources = tuple(_source(raw, path) for raw in _tables(data.get("source"), f"{where}: [[source]]"))
    names = [s.name for s in sources]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ManifestError(f"{where}: sources listed twice: {duplicates}")
    paths = [p for s in sources for p in s.paths()]
    twice = sorted({p for p in paths if paths.count(p) > 1})
    if twice:
        raise ManifestError(f"{where}: data paths provided twice: {twice[:5]}")
    return Manifest(sources, path)


def _tables(value: Any, where: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ManifestError(f"{where} must be an array of tables")
    return value


def _source(raw: dict[str, Any], path: Path) -> Source:
    where = f"{shown(path)}: source {str(raw.get('name', '?'))!r:.60}"
    required = {"name", "title", "license", "license_url", "homepage", "used_for", "feeds"}
    _check_keys(raw, _SOURCE_KEYS, required, where)
    feeds = raw["feeds"]
    if not isinstance(feeds, list) or not feeds or not set(feeds) <= set(FEEDS):
        raise ManifestError(f"{where}: 'feeds' must be a non-empty list of {list(FEEDS)}")
    files = tuple(_file(f, f"{where}, file") for f in _tables(raw.get("file"), f"{where} [[source.file]]"))
    archives = tuple(
        _archive(a, path, f"{where}, archive") for a in _tables(raw.get("archive"), f"{where} [[source.archive]]")
    )
    if not files and not archives:
        raise ManifestError(f"{where}: lists no file and no archive")
    return Source(
        name=_text(raw, "name", where),
        title=_text(raw, "title", where),
        license=_text(raw, "license", where),
        license_url=_text(raw, "license_url", where, empty=True),
        homepage=_text(raw, "homepage", where),
        used_for=_text(raw, "used_for", where),
        feeds=tuple(feeds),
        files=files,
        archives=archives,
        note=_text(raw, "note", where, empty=True) if "note" in raw else "",
    )


def _file(raw: dict[str, Any], where: str) -> FileEntry:
    _check_keys(raw, _FILE_KEYS, {"path", "url", "sha256"}, where)
    url = _text(raw, "url", where, empty=True)
    derived = _text(raw, "derived", where, empty=True) if "derived" in raw else ""
    entry = FileEntry(
        path=data_path(_text(raw, "path", where), where),
        url=url,
        sha256=_sha(raw.get("sha256"), where),
        gzip=_bool(raw, "gzip", where),
        derived=derived,
    )
    if not url and not derived:
        raise ManifestError(f"{where} {entry.path}: no url, and no 'derived' note saying how the file was made")
    if url:
        check_url(url, f"{where} {entry.path}")
    return entry


def _archive(raw: dict[str, Any], path: Path, where: str) -> ArchiveEntry:
    _check_keys(raw, _ARCHIVE_KEYS, {"url", "members", "checksums"}, where)
    url = _text(raw, "url", where)
    check_url(url, where)
    if not url.endswith((".tar.gz", ".tgz", ".zip")):
        raise ManifestError(f"{where}: {url} is not a .tar.gz, .tgz or .zip archive")
    sha256 = raw.get("sha256", "")
    sha256 = _sha(sha256, where) if sha256 else ""
    unverified = _text(raw, "unverified", where, empty=True) if "unverified" in raw else ""
    if not sha256 and not unverified:
        raise ManifestError(f"{where}: no sha256, and no 'unverified' note saying why")
    members = raw["members"]
    if not isinstance(members, dict) or not members:
        raise ManifestError(f"{where}: 'members' must map archive folders to data folders")
    mapped = {}
    for inside, target in members.items():
        if not isinstance(target, str) or not inside.endswith("/") or not target.endswith("/"):
            raise ManifestError(f"{where}: members {inside!r:.80}: folders end with '/'")
        mapped[str(PurePosixPath(inside))] = data_path(target, where)
    strip = raw.get("strip", 0)
    if not isinstance(strip, int) or isinstance(strip, bool) or strip < 0:
        raise ManifestError(f"{where}: 'strip' must be a non-negative integer")
    checksums_file = _text(raw, "checksums", where)
    checksums = read_checksums(path.parent / data_path(checksums_file, where))
    outside = sorted(p for p in checksums if not any(p.startswith(t + "/") for t in mapped.values()))
    if outside:
        raise ManifestError(f"{where}: {checksums_file} lists paths no member folder provides: {outside[:3]}")
    return ArchiveEntry(url, mapped, checksums, checksums_file, sha256, unverified, strip)


def read_checksums(path: Path) -> dict[str, str]:
    """``path -> SHA-256`` from a file in ``sha256sum`` format (``HASH  PATH`` lines)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{shown(path)}: cannot read checksums ({type(exc).__name__})") from None
    checksums: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        digest, sep, name = line.partition("  ")
        where = f"{shown(path)} line {number}"
        if not sep or not _SHA256.fullmatch(digest):
            raise ManifestError(f"{where}: expected 'SHA256  PATH'")
        name = data_path(name, where)
        if name in checksums:
            raise ManifestError(f"{where}: {shown(name)} listed twice")
        checksums[name] = digest
    return checksums


def data_path(value: str, where: str) -> str:
    """``value`` as a relative POSIX path that stays inside the data folder."""
    path = PurePosixPath(value)
    if not value or path.is_absolute() or ".." in path.parts or "\\" in value or "\0" in value:
        raise ManifestError(f"{where}: {shown(value)} is not a relative path inside the data folder")
    return str(path)


def check_url(url: str, where: str) -> None:
    if not url.startswith(("https://", "http://")):
        raise ManifestError(f"{where}: url {url!r:.100} is not http(s)")


def _check_keys(raw: dict[str, Any], known: set[str], required: set[str], where: str) -> None:
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ManifestError(f"{where}: unknown keys {unknown}")
    missing = sorted(required - set(raw))
    if missing:
        raise ManifestError(f"{where}: missing keys {missing}")


def _text(raw: dict[str, Any], key: str, where: str, empty: bool = False) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or (not value and not empty):
        raise ManifestError(f"{where}: {key!r} must be a non-empty string")
    return value


def _bool(raw: dict[str, Any], key: str, where: str) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise ManifestError(f"{where}: {key!r} must be true or false")
    return value


def _sha(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        raise ManifestError(f"{where}: sha256 must be 64 lower-case hex digits")
    return value
