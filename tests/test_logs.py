"""File names in messages: escaped (one record, one line) or, with ``--redact-paths``,
replaced by a keyed hash; outputs written owner-only unless ``--output-mode`` says
otherwise."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from deid_crf.io.names import escape, redact_paths, shown
from deid_crf.tag import main

NOTE = "Nombre: Zebulonio Quirtanilla.\nNHC: 368503.\n"
# Names a hostile or careless producer of files might use: a forged log line, a
# terminal escape, a Unicode line separator, a name that is no UTF-8, a patient's name.
NAMES = [
    "a\nerror: forged line.txt",
    "b\x1b[31mred.txt",
    "c\u2028d.txt",
    os.fsdecode(b"e\xff.txt"),
    "Zebulonio_Quirtanilla.txt",
]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def notes(tmp_path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in NAMES:
        (folder / name).write_text(NOTE, encoding="utf-8")
    (folder / "binaria\n.txt").write_bytes(b"\x00\x01")  # a failure, with a name to escape
    return folder


def run(notes: Path, out: Path, capsys, *extra: str) -> tuple[int, list[str], str]:
    log_file = out.parent / "run.log"
    status = main([str(notes), "-o", str(out), "-v", "--log-file", str(log_file), "-j", "1", *extra])
    err = capsys.readouterr().err
    return status, err.splitlines(), log_file.read_text(encoding="utf-8")


def test_escape():
    assert escape("plain name.txt") == "plain name.txt"
    assert escape("a\nb\\c\x1b\u2028\u202e\udcff") == "a\\nb\\\\c\\x1b\\u2028\\u202e\\udcff"
    assert escape("a\\b", backslash=False) == "a\\b"


def test_names_are_escaped_so_a_record_stays_one_line(notes, tmp_path, capsys, tiny_model_dir):
    status, err, logged = run(notes, tmp_path / "out", capsys, "--model", str(tiny_model_dir))
    assert status == 1
    # 6 debug lines (one per document), 1 error, 1 summary: one line each.
    assert len(err) == 8 and len(logged.splitlines()) == 8
    assert f"error: {notes}/binaria\\n.txt: looks like a binary file (contains NUL bytes)" in err
    for text in (*err, logged):
        assert "\x1b" not in text and "\u2028" not in text and "\udcff" not in text
    assert not any(line.startswith("error: forged") for line in err)
    assert "a\\nerror: forged line: " in "\n".join(err)  # the debug line of that document


def test_redacted_names_never_show(notes, tmp_path, capsys, tiny_model_dir):
    status, err, logged = run(notes, tmp_path / "out", capsys, "--model", str(tiny_model_dir), "--redact-paths")
    assert status == 1
    for text in (*err, logged):
        assert "Zebulonio" not in text and "forged" not in text and "binaria" not in text and str(notes) not in text
    (error,) = [line for line in err if line.startswith("error:")]
    assert re.fullmatch(r"error: file:[0-9a-f]{12}: looks like a binary file \(contains NUL bytes\)", error)
    tags = re.findall(r"file:[0-9a-f]{12}", "\n".join(err))
    assert len(set(tags)) == len(NAMES) + 2  # each document, the failed one, and -o
    assert shown("anything") == "anything"  # the run is over: names show again


def test_redaction_hashes_with_a_key():
    redact_paths(b"k1")
    first = shown("/notas/Zebulonio.txt")
    redact_paths(b"k2")
    second = shown("/notas/Zebulonio.txt")
    redact_paths(None)
    assert first != second and re.fullmatch(r"file:[0-9a-f]{12}", first)


def test_outputs_are_owner_only_unless_told(tmp_path, capsys, tiny_model_dir):
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "sub" / "nota.txt").write_text(NOTE, encoding="utf-8")
    model = ["--model", str(tiny_model_dir), "-j", "1"]
    for fmt, out in [("brat", tmp_path / "new" / "brat"), ("json", tmp_path / "json"), ("masked", tmp_path / "m")]:
        assert main([str(notes), "-o", str(out), "--format", fmt, *model]) == 0
        files = [p for p in out.rglob("*") if p.is_file()]
        assert files and all(mode(p) == 0o600 for p in files)
        assert mode(out) == mode(out / "sub") == 0o700
    assert mode(tmp_path / "new") == 0o700  # made for the outputs too
    assert main([str(notes), "-o", str(tmp_path / "shared"), "--output-mode", "644", *model]) == 0
    assert {mode(p) for p in (tmp_path / "shared").rglob("*") if p.is_file()} == {0o644}
    assert mode(tmp_path / "shared") == mode(tmp_path / "shared" / "sub") == 0o755
    existing = tmp_path / "existing"
    existing.mkdir(mode=0o755)
    existing.chmod(0o755)
    assert main([str(notes), "-o", str(existing), *model]) == 0
    assert mode(existing) == 0o755 and mode(existing / "sub") == 0o700  # a folder of the user's is left as it is
    for bad in ("400", "1777", "rw", "-600"):
        with pytest.raises(SystemExit):
            main([str(notes), "-o", str(tmp_path / "bad"), "--output-mode", bad, *model])
    capsys.readouterr()
