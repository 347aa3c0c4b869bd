"""``make data``: the data manifest and the download that verifies it, offline.

Each test writes a small manifest and a local mirror of its files (a folder, a
``file://`` URL or an HTTP server on 127.0.0.1) and fetches from it.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import io
import os
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from deid_crf.sources import fetch
from deid_crf.sources.manifest import MANIFEST_PATH, ManifestError, load_manifest

NOTE = b"Nota de prueba: texto inventado.\n"
ANN = b"T1\tFECHAS 0 4\tNota\n"
CONLLU = b"# sent_id = 1\n1\tHola\thola\tINTJ\t_\t_\t0\troot\t_\t_\n\n"
WORDS = b"calle\ncl\navenida\n"
DERIVED = b"texto derivado\n"
ARCHIVE_URL = "https://example.org/corpus/archive/abc123.tar.gz"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tar_bytes(members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            t.addfile(info)
    return buffer.getvalue()


GOOD_ARCHIVE = {
    "corpus-abc123/corpus/train/brat/doc1.txt": NOTE,
    "corpus-abc123/corpus/train/brat/doc1.ann": ANN,
    "corpus-abc123/corpus/test/brat/held_out.txt": b"never extracted\n",
    "corpus-abc123/README.md": b"readme\n",
}


def write_manifest(folder: Path) -> Path:
    """A manifest of four sources (plain file, gzip-stored file, derived file, archive)."""
    (folder / "checksums").mkdir(parents=True, exist_ok=True)
    (folder / "checksums" / "corpus.sha256").write_text(
        f"{sha(ANN)}  corpus/train/doc1.ann\n{sha(NOTE)}  corpus/train/doc1.txt\n", encoding="utf-8"
    )
    path = folder / "manifest.toml"
    path.write_text(
        f'''version = 1

[[source]]
name = "words"
title = "street words"
license = "MIT"
license_url = "https://opensource.org/licenses/MIT"
homepage = "https://example.org/words"
used_for = "gazetteer"
feeds = ["gazetteer"]
  [[source.file]]
  path = "lists/words.txt"
  url = "https://example.org/words/raw/words.txt"
  sha256 = "{sha(WORDS)}"

[[source]]
name = "treebank"
title = "a treebank"
license = "CC-BY-SA-4.0"
license_url = "https://creativecommons.org/licenses/by-sa/4.0/"
homepage = "https://example.org/tb"
used_for = "POS"
feeds = ["pos_tagger"]
  [[source.file]]
  path = "tb/dev.conllu.gz"
  url = "https://example.org/tb/raw/dev.conllu"
  sha256 = "{sha(CONLLU)}"
  gzip = true

[[source]]
name = "derived"
title = "a derived file"
license = "CC-BY-4.0"
license_url = "https://creativecommons.org/licenses/by/4.0/"
homepage = "https://example.org/derived"
used_for = "embeddings"
feeds = ["embeddings"]
  [[source.file]]
  path = "derived/text.txt.gz"
  url = ""
  sha256 = "{sha(DERIVED)}"
  derived = "filtered by the project"

[[source]]
name = "corpus"
title = "a BRAT corpus"
license = "CC-BY-4.0"
license_url = "https://creativecommons.org/licenses/by/4.0/"
homepage = "https://example.org/corpus"
used_for = "training"
feeds = ["tagger"]
  [[source.archive]]
  url = "{ARCHIVE_URL}"
  unverified = "generated on request"
  strip = 1
  checksums = "checksums/corpus.sha256"
  members = {{ "corpus/train/brat/" = "corpus/train/" }}
''',
        encoding="utf-8",
    )
    return path


def write_mirror(folder: Path, archive: bytes | None = None, words: bytes = WORDS) -> Path:
    """The downloads of :func:`write_manifest` in the layout ``--mirror`` reads."""
    files = {
        "example.org/words/raw/words.txt": words,
        "example.org/tb/raw/dev.conllu": CONLLU,
        "derived/text.txt.gz": DERIVED,
        "example.org/corpus/archive/abc123.tar.gz": archive if archive is not None else tar_bytes(GOOD_ARCHIVE),
    }
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


@pytest.fixture
def manifest_path(tmp_path: Path) -> Path:
    return write_manifest(tmp_path / "manifest")


def run(manifest_path: Path, data: Path, mirror: str | None, *extra: str) -> int:
    argv = ["--manifest", str(manifest_path), "--data-dir", str(data), *extra]
    return fetch.main(argv + (["--mirror", mirror] if mirror else []))


def leftovers(data: Path) -> list[str]:
    """Temporary files or folders a fetch left behind."""
    return sorted(p.name for p in data.rglob("*") if p.name.endswith(".part") or p.name.startswith(".staging-"))


def snapshot(data: Path) -> dict[str, tuple[int, bytes]]:
    return {str(p.relative_to(data)): (p.stat().st_mtime_ns, p.read_bytes()) for p in data.rglob("*") if p.is_file()}


def test_fetch_from_a_folder_mirror_verifies_and_places_every_file(manifest_path, tmp_path):
    mirror = write_mirror(tmp_path / "mirror")
    data = tmp_path / "data"
    assert run(manifest_path, data, str(mirror)) == 0
    assert (data / "lists/words.txt").read_bytes() == WORDS
    assert gzip.decompress((data / "tb/dev.conllu.gz").read_bytes()) == CONLLU
    assert (data / "derived/text.txt.gz").read_bytes() == DERIVED
    assert (data / "corpus/train/doc1.txt").read_bytes() == NOTE
    assert (data / "corpus/train/doc1.ann").read_bytes() == ANN
    # Only the mapped folder is extracted: the held-out split and the rest stay in the archive,
    # and the archive itself is not kept.
    assert sorted(str(p.relative_to(data)) for p in data.rglob("*") if p.is_file()) == [
        "corpus/train/doc1.ann",
        "corpus/train/doc1.txt",
        "derived/text.txt.gz",
        "lists/words.txt",
        "tb/dev.conllu.gz",
    ]
    assert leftovers(data) == []
    # The gzip-stored file is the same bytes on every run (no time stamp in its header).
    assert (data / "tb/dev.conllu.gz").read_bytes()[4:8] == b"\0\0\0\0"  # MTIME field


def test_a_second_run_downloads_nothing(manifest_path, tmp_path, capsys):
    mirror = write_mirror(tmp_path / "mirror")
    data = tmp_path / "data"
    assert run(manifest_path, data, str(mirror)) == 0
    before = snapshot(data)
    for path in sorted(mirror.rglob("*"), reverse=True):  # nothing left to download from
        path.unlink() if path.is_file() else path.rmdir()
    capsys.readouterr()
    assert run(manifest_path, data, str(mirror)) == 0
    assert snapshot(data) == before
    assert "(0 fetched), 0 problem(s)" in capsys.readouterr().err
    assert run(manifest_path, data, None, "--check") == 0


def test_a_corrupted_download_is_refused_by_name_and_not_written(manifest_path, tmp_path, capsys):
    mirror = write_mirror(tmp_path / "mirror", words=WORDS.replace(b"calle", b"callE"))
    data = tmp_path / "data"
    assert run(manifest_path, data, str(mirror)) == 1
    err = capsys.readouterr().err
    assert "error: lists/words.txt: SHA-256 of the download from" in err
    assert "example.org/words/raw/words.txt" in err and "not written" in err
    assert not (data / "lists/words.txt").exists()
    assert leftovers(data) == []
    # the other sources are fetched all the same
    assert (data / "corpus/train/doc1.txt").read_bytes() == NOTE
    # once the mirror is repaired, the next run fetches only what is missing
    write_mirror(mirror)
    capsys.readouterr()
    assert run(manifest_path, data, str(mirror)) == 0
    assert "(1 fetched)" in capsys.readouterr().err


def test_a_damaged_local_file_is_found_and_fetched_again(manifest_path, tmp_path, capsys):
    mirror = write_mirror(tmp_path / "mirror")
    data = tmp_path / "data"
    assert run(manifest_path, data, str(mirror)) == 0
    (data / "corpus/train/doc1.ann").write_bytes(b"T1\tFECHAS 0 3\tNot\n")
    (data / "tb/dev.conllu.gz").write_bytes(b"not gzip")
    capsys.readouterr()
    assert run(manifest_path, data, None, "--check") == 1
    err = capsys.readouterr().err
    assert "corpus/train/doc1.ann: SHA-256 differs from the manifest" in err
    assert "tb/dev.conllu.gz: SHA-256 differs from the manifest" in err
    assert run(manifest_path, data, str(mirror)) == 0
    assert (data / "corpus/train/doc1.ann").read_bytes() == ANN
    assert gzip.decompress((data / "tb/dev.conllu.gz").read_bytes()) == CONLLU


def test_an_interrupted_download_leaves_nothing_behind(manifest_path, tmp_path, monkeypatch):
    mirror = write_mirror(tmp_path / "mirror")
    data = tmp_path / "data"
    real_copy = fetch._copy

    def copy_then_die(source, target, where, limit):
        target.write(source.read(5))  # part of the file is on disk when the process dies
        raise KeyboardInterrupt

    monkeypatch.setattr(fetch, "_copy", copy_then_die)
    with pytest.raises(KeyboardInterrupt):
        run(manifest_path, data, str(mirror), "--only", "words")
    assert not (data / "lists/words.txt").exists()
    assert leftovers(data) == []
    monkeypatch.setattr(fetch, "_copy", real_copy)
    assert run(manifest_path, data, str(mirror), "--only", "words") == 0
    assert (data / "lists/words.txt").read_bytes() == WORDS


@pytest.mark.parametrize(
    ("members", "links", "message"),
    [
        ({"c-1/corpus/train/brat/../../../../escaped.txt": b"x"}, None, "would land outside its folder"),
        ({"c-1/corpus/train/brat/sub/../../../../../escaped.txt": b"x"}, None, "would land outside its folder"),
        ({}, {"c-1/corpus/train/brat/doc1.txt": "/etc/passwd"}, "is a link, not a regular file"),
        ({"c-1/corpus/train/brat/extra.txt": b"x"}, None, "is not listed in checksums/corpus.sha256"),
        ({"c-1/corpus/train/brat/doc1.ann": b"T1\tFECHAS 0 3\tNot\n"}, None, "SHA-256 of"),
    ],
)
def test_an_unsafe_or_corrupt_archive_extracts_nothing(manifest_path, tmp_path, capsys, members, links, message):
    good = {"c-1/corpus/train/brat/doc1.txt": NOTE, "c-1/corpus/train/brat/doc1.ann": ANN}
    archive = tar_bytes({**good, **members}, links)
    mirror = write_mirror(tmp_path / "mirror", archive=archive)
    data = tmp_path / "data"
    assert run(manifest_path, data, str(mirror), "--only", "corpus") == 1
    err = capsys.readouterr().err
    assert message in err and "example.org/corpus/archive/abc123.tar.gz" in err
    # nothing of the archive is written, not even its good files, and nothing outside
    assert not (data / "corpus").exists()
    assert not list(tmp_path.rglob("escaped.txt"))
    assert leftovers(data) == []


def test_an_archive_missing_a_listed_file_extracts_nothing(manifest_path, tmp_path, capsys):
    archive = tar_bytes({"c-1/corpus/train/brat/doc1.txt": NOTE})
    mirror = write_mirror(tmp_path / "mirror", archive=archive)
    data = tmp_path / "data"
    assert run(manifest_path, data, str(mirror), "--only", "corpus") == 1
    assert "listed in checksums/corpus.sha256 are not in the archive" in capsys.readouterr().err
    assert not (data / "corpus").exists()


def test_a_truncated_archive_is_refused(manifest_path, tmp_path, capsys):
    mirror = write_mirror(tmp_path / "mirror", archive=tar_bytes(GOOD_ARCHIVE)[:100])
    data = tmp_path / "data"
    assert run(manifest_path, data, str(mirror), "--only", "corpus") == 1
    assert "unreadable archive" in capsys.readouterr().err
    assert not (data / "corpus").exists() and leftovers(data) == []


def test_a_derived_file_needs_a_mirror(manifest_path, tmp_path, capsys):
    assert run(manifest_path, tmp_path / "data", None, "--only", "derived") == 1
    err = capsys.readouterr().err
    assert "derived/text.txt.gz: no public download (derived: filtered by the project)" in err
    assert "--mirror" in err


@pytest.fixture
def http_mirror(tmp_path: Path) -> Iterator[str]:
    root = write_mirror(tmp_path / "served")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_fetch_from_an_http_mirror(manifest_path, tmp_path, http_mirror):
    data = tmp_path / "data"
    assert run(manifest_path, data, http_mirror) == 0
    assert (data / "corpus/train/doc1.txt").read_bytes() == NOTE
    assert gzip.decompress((data / "tb/dev.conllu.gz").read_bytes()) == CONLLU


def test_fetch_from_a_file_url_mirror(manifest_path, tmp_path):
    mirror = write_mirror(tmp_path / "mirror")
    data = tmp_path / "data"
    assert run(manifest_path, data, mirror.as_uri()) == 0
    assert (data / "lists/words.txt").read_bytes() == WORDS


def test_a_missing_mirror_file_is_named(manifest_path, tmp_path, capsys):
    mirror = write_mirror(tmp_path / "mirror")
    os.remove(mirror / "example.org/words/raw/words.txt")
    assert run(manifest_path, tmp_path / "data", str(mirror), "--only", "words") == 1
    assert "example.org/words/raw/words.txt: cannot read" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('sha256 = "', 'sha256 = "zz'), "sha256 must be 64 lower-case hex digits"),
        (('path = "lists/words.txt"', 'path = "../outside.txt"'), "is not a relative path inside the data folder"),
        (('used_for = "gazetteer"', 'used_for = "gazetteer"\nmirror = "x"'), "unknown keys ['mirror']"),
        (('license = "MIT"\n', ""), "missing keys ['license']"),
        (('unverified = "generated on request"\n', ""), "no sha256, and no 'unverified' note"),
        (('derived = "filtered by the project"\n', ""), "no url, and no 'derived' note"),
        (("version = 1", "version = 7"), "data manifest version 7"),
        (('feeds = ["tagger"]', 'feeds = ["model"]'), "'feeds' must be a non-empty list of"),
    ],
)
def test_a_malformed_manifest_is_refused_by_name(manifest_path, tmp_path, capsys, change, message):
    text = manifest_path.read_text(encoding="utf-8")
    manifest_path.write_text(text.replace(*change, 1), encoding="utf-8")
    with pytest.raises(ManifestError, match="manifest.toml") as caught:
        load_manifest(manifest_path)
    assert message in str(caught.value)
    assert run(manifest_path, tmp_path / "data", None) == 2
    assert message in capsys.readouterr().err


def test_a_checksums_file_with_a_path_outside_the_data_folder_is_refused(manifest_path):
    (manifest_path.parent / "checksums" / "corpus.sha256").write_text(f"{sha(ANN)}  ../../etc/x\n", encoding="utf-8")
    with pytest.raises(ManifestError, match="corpus.sha256 line 1: ../../etc/x is not a relative path"):
        load_manifest(manifest_path)


def test_the_shipped_manifest_names_a_license_and_a_source_for_every_file():
    manifest = load_manifest(MANIFEST_PATH)
    names = {s.name for s in manifest.sources}
    assert {"meddocan", "spaccc_pos", "unlabeled_es_clinical", "ud_spanish_gsd", "ine_names"} <= names
    for source in manifest.sources:
        assert source.license and source.homepage.startswith("https://")
        for entry in source.files:
            assert entry.url.startswith("https://") or entry.derived
    meddocan = manifest.source("meddocan").archives[0]
    assert len(meddocan.checksums) == 1500  # 500 train + 250 dev documents, .txt and .ann
    assert not any("/test/" in p for p in meddocan.checksums)
    assert set(meddocan.members) == {"corpus/train/brat", "corpus/dev/brat"}


def test_the_shared_data_matches_every_hash_of_the_shipped_manifest(data_dir, capsys):
    """The hashes were computed from the shared copy: it still matches all of them."""
    assert fetch.main(["--check", "--data-dir", str(data_dir)]) == 0
    assert "1561 file(s) checked and verified" in capsys.readouterr().err
