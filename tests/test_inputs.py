"""Bounded inputs: at most ``--max-bytes + 1`` bytes read from any input, FIFOs,
devices, sockets, dangling links and link loops refused with a line naming them, and
no output outside ``-o`` whatever the glob."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from deid_crf.io import files
from deid_crf.io.files import CorpusError, TooLarge, read_bytes, read_stream
from deid_crf.tag import main

REPO = Path(__file__).resolve().parents[1]
NOTE = "Nombre: Zebulonio Quirtanilla.\nNHC: 368503.\n"


@pytest.fixture
def tag(tiny_model_dir, capsys, fake_phi):
    """``main`` with the tiny model and one job: (status, stderr lines)."""

    def run(*args: str) -> tuple[int, list[str]]:
        status = main([*args, "--model", str(tiny_model_dir), "-j", "1"])
        _, err = capsys.readouterr()
        assert not any(phi in err for phi in fake_phi)
        return status, err.splitlines()

    return run


def test_at_most_max_bytes_plus_one_are_read(tmp_path, monkeypatch):
    big = tmp_path / "big.txt"
    big.write_bytes(b"a" * 5000)
    read = []
    real_read = os.read
    monkeypatch.setattr(files.os, "read", lambda fd, n: read.append(n) or real_read(fd, n))
    with pytest.raises(TooLarge, match=f"{big}: file is over the limit of 100 bytes"):
        read_bytes(big, 100)
    assert sum(read) == 101
    assert read_bytes(big, 5000) == b"a" * 5000

    class Endless(io.RawIOBase):  # stdin that never ends (`cat /dev/zero | tag -`)
        given = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:
            buffer[:] = b"a" * len(buffer)
            self.given += len(buffer)
            return len(buffer)

    endless = Endless()
    with pytest.raises(TooLarge, match="<stdin>: input is over the limit of 1000 bytes"):
        read_stream(io.BufferedReader(endless, 64), "<stdin>", 1000)
    assert endless.given <= 1000 + 64


def test_files_that_report_a_wrong_size(tmp_path):
    """/proc files say they hold 0 bytes: the limit holds on what is read."""
    proc = Path("/proc/self/maps")
    if not proc.exists() or proc.stat().st_size != 0:
        pytest.skip("needs a /proc file that reports size 0")
    with pytest.raises(TooLarge):
        read_bytes(proc, 10)


def test_special_files_and_broken_links_are_refused(tmp_path, tag):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ok.txt").write_text(NOTE, encoding="utf-8")
    os.mkfifo(notes / "fifo.txt")
    (notes / "dangling.txt").symlink_to(notes / "missing.txt")
    (notes / "loop1.txt").symlink_to(notes / "loop2.txt")
    (notes / "loop2.txt").symlink_to(notes / "loop1.txt")
    (notes / "zero.txt").symlink_to("/dev/zero")
    (notes / "folder.txt").mkdir()  # a folder the pattern matches is passed over
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(notes / "sock.txt"))
    try:
        status, err = tag(str(notes), "-o", str(tmp_path / "out"))
    finally:
        server.close()
    assert status == 1
    assert sorted(err[:-1]) == [
        f"error: {notes / 'dangling.txt'}: dangling symbolic link (its target does not exist); skipped",
        f"error: {notes / 'fifo.txt'}: not a regular file (a FIFO); skipped",
        f"error: {notes / 'loop1.txt'}: symbolic link loop; skipped",
        f"error: {notes / 'loop2.txt'}: symbolic link loop; skipped",
        f"error: {notes / 'sock.txt'}: not a regular file (a socket); skipped",
        f"error: {notes / 'zero.txt'}: not a regular file (a device); skipped",
    ]
    assert "1 ok, 6 failed" in err[-1] and (tmp_path / "out" / "ok.ann").exists()
    for name, reason in [("fifo.txt", "a FIFO"), ("dangling.txt", "dangling"), ("loop1.txt", "loop")]:
        status, err = tag(str(notes / name))
        assert status == 1 and err == [f"error: {notes / name}: " + err[0].split(": ", 2)[2]] and reason in err[0]
    status, err = tag("/dev/zero", "--max-bytes", "10")
    assert (status, err) == (1, ["error: /dev/zero: not a regular file (a device); skipped"])
    with pytest.raises(CorpusError, match="not a regular file"):
        read_bytes(notes / "fifo.txt", 10)


def test_a_fifo_on_the_command_line_does_not_hang(tmp_path, tiny_model_dir):
    fifo = tmp_path / "nota.txt"
    os.mkfifo(fifo)
    result = subprocess.run(
        [sys.executable, "-m", "deid_crf.tag", str(fifo), "--model", str(tiny_model_dir)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr == f"error: {fifo}: not a regular file (a FIFO); skipped\n"


def test_stdin_over_the_limit(tiny_model_dir, monkeypatch, tag):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"a" * 3000)))
    status, err = tag("-", "--max-bytes", "2000")
    assert (status, err) == (1, ["error: <stdin>: input is over the limit of 2000 bytes (--max-bytes)"])


def test_globs_never_write_outside_the_output_dir(tmp_path, tag, monkeypatch):
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "T").mkdir()
    (tmp_path / "T" / "fuera.txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "in" / "sub" / "dentro.txt").write_text(NOTE, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "in")
    status, err = tag("*/../../T/*.txt", "-o", "out")
    assert status == 1
    assert err[0] == "error: sub/../../T/fuera.txt: its output would be outside the output directory out; skipped"
    assert not (tmp_path / "T" / "fuera.ann").exists() and not list(tmp_path.rglob("*.ann"))
    # A folder of -o that links elsewhere is outside too.
    (tmp_path / "in" / "out").mkdir(exist_ok=True)
    (tmp_path / "in" / "out" / "sub").symlink_to(tmp_path / "T", target_is_directory=True)
    status, err = tag(".", "-o", "out")
    assert status == 1 and "sub/dentro.txt: its output would be outside the output directory out" in err[0]
    assert not list(tmp_path.rglob("*.ann"))


def test_a_document_over_its_time_limit_fails_alone(tmp_path, tag, monkeypatch):
    """``--doc-timeout``: the slow document fails, the batch goes on."""
    import time

    from deid_crf.deid.deidentifier import Deidentifier

    find = Deidentifier.find

    def slow_find(self, texts, confidence=True):
        if any("Lento" in text for text in texts):
            time.sleep(30)  # interrupted by the time limit
        return find(self, texts, confidence)

    monkeypatch.setattr(Deidentifier, "find", slow_find)
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in [("a", NOTE), ("b", "Paciente Lento.\n"), ("c", NOTE)]:
        (notes / f"{name}.txt").write_text(text, encoding="utf-8")
    started = time.perf_counter()
    status, err = tag(str(notes), "-o", str(tmp_path / "out"), "--doc-timeout", "0.5")
    assert time.perf_counter() - started < 20
    assert status == 1
    assert err[0] == f"error: {notes / 'b.txt'}: not de-identified within 0.5 s (--doc-timeout)"
    assert "2 ok, 1 failed" in err[-1]
    assert sorted(p.name for p in (tmp_path / "out").glob("*.ann")) == ["a.ann", "c.ann"]
    with pytest.raises(SystemExit):
        main([str(notes), "--doc-timeout", "-1"])


def test_the_time_limit_works_outside_the_main_thread():
    """Dask runs tasks in worker threads, where no SIGALRM arrives: the limit still
    stops Python code there, and never fires after its block has ended."""
    import threading
    import time

    from deid_crf.batch.engine import DocumentTimeout, time_limit

    results: dict[str, object] = {}

    def spin(seconds: float) -> None:
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            time.sleep(0.005)

    def in_a_thread() -> None:
        started = time.monotonic()
        try:
            with time_limit(0.2):
                spin(30)
        except DocumentTimeout:
            results["stopped after"] = time.monotonic() - started
        for _ in range(20):  # blocks that end just before their limit: no late timeout afterwards
            with time_limit(0.05):
                spin(0.045)
            spin(0.02)
        results["done"] = True

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join(60)
    assert results.get("done") is True, results
    assert 0.2 <= results["stopped after"] < 5
