"""Download every corpus the default model needs, verifying each file's SHA-256
against the data manifest (``make data``).

    python -m deid_crf.sources.fetch                          # into $DEID_CRF_DATA_DIR or ../shared/data
    python -m deid_crf.sources.fetch --mirror /srv/mirror     # a local copy of the downloads
    python -m deid_crf.sources.fetch --mirror http://host/mirror/ --only meddocan
    python -m deid_crf.sources.fetch --check                  # verify what is there, download nothing

* A file already present with its manifest hash is left alone, so a second run
  downloads nothing.
* A download is streamed into a temporary file beside its target while it is hashed,
  and renamed into place only when the hash matches: a corrupt or interrupted
  download leaves nothing behind but an error naming the file and its URL.
* An archive is extracted into a staging folder; only the folders the manifest maps
  are read from it (MEDDOCAN's test split, in the same archive, is never written), only
  regular files listed in the checksums are accepted (a member that would land outside
  its folder, a link or an unlisted file stops the extraction), and the files are moved
  into place only once every one of them has matched its hash.
* ``--mirror`` replaces the public hosts: the download of ``https://HOST/PATH`` is read
  from ``MIRROR/HOST/PATH`` (the layout ``wget --mirror`` writes), a derived file
  (no public URL) from ``MIRROR/PATH``, its path under the data folder. A mirror is a
  folder, or an ``http://``, ``https://`` or ``file://`` URL.

Exit status 0 when every selected source is present and verified, 1 when some file
could not be fetched or verified (each named on standard error), 2 for a bad manifest
or command line.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import logging
import os
import shutil
import stat
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from deid_crf.config import data_dir
from deid_crf.io.names import shown
from deid_crf.sources.manifest import (
    MANIFEST_PATH,
    ArchiveEntry,
    FileEntry,
    Manifest,
    ManifestError,
    Source,
    load_manifest,
)

log = logging.getLogger("deid_crf.sources")

# No file the default model needs is near these sizes (the largest, an archive of
# MEDDOCAN, is a few tens of MB): a mirror or host sending more is refused.
MAX_DOWNLOAD_BYTES = 2 << 30
MAX_MEMBER_BYTES = 256 << 20
TIMEOUT_SECONDS = 60
_BLOCK = 1 << 20


class FetchError(RuntimeError):
    """A file could not be downloaded, verified or extracted; the message names it."""


@dataclass(frozen=True)
class Report:
    """What a run did to each file: ``present`` (already verified), ``fetched``, or
    the problems (one line each, naming the file)."""

    present: int = 0
    fetched: int = 0
    problems: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- hashing


def content_sha256(path: Path, gzipped: bool = False) -> str | None:
    """SHA-256 of the regular file at ``path`` (of its decompressed content when
    ``gzipped``); None when it is missing, not a regular file or not valid gzip."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        digest = hashlib.sha256()
        opener = gzip.open if gzipped else open
        with opener(path, "rb") as f:
            for block in iter(lambda: f.read(_BLOCK), b""):
                digest.update(block)
        return digest.hexdigest()
    except (OSError, EOFError, zlib.error):
        return None


def verified(data: Path, relative: str, sha256: str, gzipped: bool = False) -> bool:
    return content_sha256(data / relative, gzipped) == sha256


# ---------------------------------------------------------------------------- locations


def location(url: str, path: str, mirror: str | None) -> str:
    """Where to read a download from: its ``url``, or its place in ``mirror``."""
    if mirror is None:
        return url
    if url:
        parts = urllib.parse.urlsplit(url)
        relative = f"{parts.netloc}{urllib.parse.unquote(parts.path)}"
    else:
        relative = path
    if "://" in mirror:
        return mirror.rstrip("/") + "/" + urllib.parse.quote(relative)
    return str(Path(mirror) / relative)


@contextlib.contextmanager
def open_location(where: str) -> Iterator[IO[bytes]]:
    """A binary stream of ``where``: a URL (http, https, file) or a local path."""
    if "://" in where:
        if not where.startswith(("http://", "https://", "file://")):
            raise FetchError(f"{shown(where)}: unsupported URL scheme")
        try:
            response = urllib.request.urlopen(where, timeout=TIMEOUT_SECONDS)  # noqa: S310 (scheme checked above)
        except (OSError, ValueError) as exc:
            raise FetchError(f"{shown(where)}: cannot download ({_reason(exc)})") from None
        with response:
            yield response
        return
    try:
        f = open(where, "rb")  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise FetchError(f"{shown(where)}: cannot read ({_reason(exc)})") from None
    with f:
        yield f


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or type(exc).__name__
    return str(reason)


def _copy(source: IO[bytes], target: IO[bytes], where: str, limit: int) -> str:
    """Copy ``source`` into ``target`` (at most ``limit`` bytes) and return its SHA-256."""
    digest, total = hashlib.sha256(), 0
    while True:
        try:
            block = source.read(_BLOCK)
        except (OSError, EOFError, zlib.error, tarfile.TarError, zipfile.BadZipFile) as exc:
            raise FetchError(f"{shown(where)}: download interrupted ({_reason(exc)})") from None
        if not block:
            return digest.hexdigest()
        total += len(block)
        if total > limit:
            raise FetchError(f"{shown(where)}: more than {limit} bytes; refused")
        digest.update(block)
        target.write(block)


@contextlib.contextmanager
def _temporary(folder: Path, name: str) -> Iterator[Path]:
    """A temporary file in ``folder`` (so that renaming it into place is atomic),
    removed unless it was renamed."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=folder)
    os.close(fd)
    try:
        yield Path(tmp)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _durable_replace(tmp: Path, target: Path) -> None:
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.chmod(tmp, 0o644)
    os.replace(tmp, target)


# ---------------------------------------------------------------------------- files


def fetch_file(entry: FileEntry, data: Path, mirror: str | None) -> None:
    """Download ``entry`` into ``data``, verify it and rename it into place."""
    if not entry.url and mirror is None:
        raise FetchError(
            f"{shown(entry.path)}: no public download (derived: {entry.derived}); fetch it from a mirror (--mirror)"
        )
    where = location(entry.url, entry.path, mirror)
    target = data / entry.path
    with _temporary(target.parent, target.name) as tmp:
        with open_location(where) as source, open(tmp, "wb") as raw:
            if entry.gzip:  # stored compressed, as the readers expect; mtime 0: same bytes every run
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
                    digest = _copy(source, out, where, MAX_DOWNLOAD_BYTES)
            else:
                digest = _copy(source, raw, where, MAX_DOWNLOAD_BYTES)
        if digest != entry.sha256:
            raise FetchError(
                f"{shown(entry.path)}: SHA-256 of the download from {shown(where)} is {digest}, "
                f"the manifest says {entry.sha256}; not written"
            )
        _durable_replace(tmp, target)


# ---------------------------------------------------------------------------- archives


def fetch_archive(archive: ArchiveEntry, data: Path, mirror: str | None) -> int:
    """Download ``archive``, extract the files its members map into a staging folder,
    verify every one, then move them into place; return how many were written."""
    where = location(archive.url, "", mirror)
    data.mkdir(parents=True, exist_ok=True)
    suffix = ".zip" if archive.url.endswith(".zip") else ".tar.gz"
    with _temporary(data, "download" + suffix) as tmp:
        with open_location(where) as source, open(tmp, "wb") as out:
            digest = _copy(source, out, where, MAX_DOWNLOAD_BYTES)
        if archive.sha256 and digest != archive.sha256:
            raise FetchError(
                f"{shown(where)}: SHA-256 of the archive is {digest}, the manifest says {archive.sha256}; not extracted"
            )
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=data))
        try:
            extracted = _extract(tmp, archive, staging, where)
            missing = sorted(set(archive.checksums) - extracted)
            if missing:
                raise FetchError(
                    f"{shown(where)}: {len(missing)} file(s) listed in {archive.checksums_file} are not in the "
                    f"archive, e.g. {shown(missing[0])}; nothing extracted"
                )
            for relative in sorted(extracted):
                target = data / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                _durable_replace(staging / relative, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return len(extracted)


def _extract(path: Path, archive: ArchiveEntry, staging: Path, where: str) -> set[str]:
    """Write the mapped members of the archive at ``path`` into ``staging`` (each
    verified against its checksum) and return their data-folder paths."""
    written: set[str] = set()
    try:
        for name, kind, size, open_member in _members(path):
            relative = _mapped(name, archive)
            if relative is None:
                continue  # outside the folders the manifest maps: never written
            shown_member = f"{shown(where)}: member {shown(name)}"
            if relative == "":
                raise FetchError(f"{shown_member} would land outside its folder; nothing extracted")
            if kind == "dir":
                continue
            if kind != "file":
                raise FetchError(f"{shown_member} is a {kind}, not a regular file; nothing extracted")
            expected = archive.checksums.get(relative)
            if expected is None:
                raise FetchError(f"{shown_member} ({shown(relative)}) is not listed in {archive.checksums_file}")
            if relative in written:
                raise FetchError(f"{shown_member} appears twice; nothing extracted")
            if size > MAX_MEMBER_BYTES:
                raise FetchError(f"{shown_member} is over {MAX_MEMBER_BYTES} bytes; refused")
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with open_member() as source, open(target, "xb") as out:
                digest = _copy(source, out, f"{where} {name}", MAX_MEMBER_BYTES)
            if digest != expected:
                raise FetchError(
                    f"{shown(relative)}: SHA-256 of {shown_member} is {digest}, "
                    f"{archive.checksums_file} says {expected}; nothing extracted"
                )
            written.add(relative)
    except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, zlib.error) as exc:
        raise FetchError(f"{shown(where)}: unreadable archive ({_reason(exc)}); nothing extracted") from None
    return written


def _members(path: Path) -> Iterator[tuple[str, str, int, object]]:
    """``(name, kind, size, open)`` of every member of a zip or tar archive; ``kind``
    is "file", "dir", "link" or "special", ``open()`` a context manager reading it."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                mode = info.external_attr >> 16
                kind = "dir" if info.is_dir() else "link" if stat.S_ISLNK(mode) else "file"
                yield info.filename, kind, info.file_size, lambda info=info: z.open(info)
        return
    with tarfile.open(path, "r:*") as t:
        for info in t:
            link = info.issym() or info.islnk()
            kind = "file" if info.isreg() else "dir" if info.isdir() else "link" if link else "special"
            yield info.name, kind, info.size, lambda info=info: contextlib.closing(t.extractfile(info))


def _mapped(name: str, archive: ArchiveEntry) -> str | None:
    """The data-folder path of archive member ``name``: None when it is outside every
    mapped folder, "" when it is inside one but would leave it (``..``, absolute)."""
    parts = PurePosixPath(name).parts[archive.strip :]
    if not parts:
        return None
    inner = "/".join(parts)
    for folder, target in archive.members.items():
        if inner == folder or not inner.startswith(folder + "/"):
            continue
        rest = PurePosixPath(inner[len(folder) + 1 :])
        if name.startswith("/") or ".." in rest.parts or "\\" in name:
            return ""
        return f"{target}/{rest}"
    return None


# ---------------------------------------------------------------------------- sources


def fetch_source(source: Source, data: Path, mirror: str | None, check_only: bool = False) -> Report:
    """Bring ``source`` into ``data``: files already verified are left alone."""
    present = fetched = 0
    problems: list[str] = []
    for entry in source.files:
        if verified(data, entry.path, entry.sha256, entry.gzip):
            present += 1
            continue
        if check_only:
            problems.append(f"{shown(entry.path)}: {_state(data / entry.path)}")
            continue
        if (data / entry.path).exists():
            log.warning("%s: SHA-256 differs from the manifest; downloading it again", shown(entry.path))
        try:
            fetch_file(entry, data, mirror)
            fetched += 1
        except FetchError as exc:
            problems.append(str(exc))
    for archive in source.archives:
        bad = [p for p, sha in archive.checksums.items() if not verified(data, p, sha)]
        present += len(archive.checksums) - len(bad)
        if not bad:
            continue
        if check_only:
            problems += [f"{shown(p)}: {_state(data / p)}" for p in bad[:5]]
            if len(bad) > 5:
                problems.append(f"… and {len(bad) - 5} more files of {source.name}")
            continue
        try:
            written = fetch_archive(archive, data, mirror)
            present -= len(archive.checksums) - len(bad)
            fetched += written
        except FetchError as exc:
            problems.append(str(exc))
    return Report(present, fetched, tuple(problems))


def _state(path: Path) -> str:
    return "SHA-256 differs from the manifest" if path.exists() else "missing"


def fetch_all(
    manifest: Manifest, data: Path, mirror: str | None = None, only: list[str] | None = None, check_only: bool = False
) -> Report:
    """:func:`fetch_source` for every source of ``manifest`` (or those named in ``only``)."""
    unknown = sorted(set(only or ()) - {s.name for s in manifest.sources})
    if unknown:
        raise ManifestError(f"unknown source(s) {unknown}; the manifest lists {[s.name for s in manifest.sources]}")
    total = Report()
    for source in manifest.sources:
        if only and source.name not in only:
            continue
        report = fetch_source(source, data, mirror, check_only)
        state = "verified" if not report.problems else f"{len(report.problems)} problem(s)"
        log.info(
            "%s (%s): %d file(s) present, %d fetched, %s",
            source.name,
            source.license,
            report.present,
            report.fetched,
            state,
        )
        total = Report(total.present + report.present, total.fetched + report.fetched, total.problems + report.problems)
    return total


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.sources.fetch",
        description="Download the corpora the default model needs, verifying every file's SHA-256 "
        "against the data manifest (deid_crf/sources/manifest.toml). Files already verified are not fetched "
        "again. Exit status 0: all present and verified; 1: some file could not be fetched or verified; "
        "2: bad manifest or command line.",
    )
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="where to put them (default: $DEID_CRF_DATA_DIR or ../shared/data)"
    )
    parser.add_argument(
        "--mirror",
        default=None,
        metavar="DIR_OR_URL",
        help="read downloads from this mirror instead of the public hosts: https://HOST/PATH from "
        "MIRROR/HOST/PATH, derived files (no public URL) from MIRROR/DATA_PATH",
    )
    parser.add_argument("--only", nargs="+", metavar="SOURCE", help="fetch only these sources (names in the manifest)")
    parser.add_argument("--check", action="store_true", help="verify the files present; download nothing")
    parser.add_argument("--manifest", type=Path, default=MANIFEST_PATH, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    data = args.data_dir or data_dir()
    try:
        manifest = load_manifest(args.manifest)
        report = fetch_all(manifest, data, args.mirror, args.only, args.check)
    except ManifestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for problem in report.problems:
        print(f"error: {problem}", file=sys.stderr)
    verb = "checked" if args.check else "present or fetched"
    print(
        f"{shown(data)}: {report.present + report.fetched} file(s) {verb} and verified "
        f"({report.fetched} fetched), {len(report.problems)} problem(s)",
        file=sys.stderr,
    )
    return 1 if report.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
