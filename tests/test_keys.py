"""The key file is never written through a link nor over a file that is not a key
file of this project (``deid_crf.batch.keys``)."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import pytest

from deid_crf.batch.keys import KeyFile, KeyFileError, check_key_file
from deid_crf.tag import main

RECORD = {"date_shift_days": 3, "doc_id": "a", "mode": "surrogate", "spans": []}


def line(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"


@pytest.fixture
def surrogate_run(tmp_path, tiny_model_dir, unseen_document, monkeypatch, capsys, fake_phi):
    """Run the CLI on stdin with ``--key-file KEY``: (status, stderr)."""

    def run(key: Path) -> tuple[int, str]:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(unseen_document.text.encode())))
        args = ["-", "--model", str(tiny_model_dir), "--format", "surrogate", "--seed", "1", "--key-file", str(key)]
        status = main(args)
        _, err = capsys.readouterr()
        assert not any(phi in err for phi in fake_phi)
        return status, err

    return run


def test_an_existing_note_is_never_overwritten(tmp_path, surrogate_run):
    note = tmp_path / "nota.txt"
    note.write_text("Paciente Zebulonio Quirtanilla, 63 años.\n", encoding="utf-8")
    before = note.read_bytes()
    status, err = surrogate_run(note)
    assert status == 2 and note.read_bytes() == before
    assert err.startswith(f"error: {note}: exists and is not a deid-crf key file;") and err.count("\n") == 1


def test_links_are_never_followed(tmp_path, surrogate_run):
    target = tmp_path / "elsewhere.jsonl"
    target.write_text(line(RECORD), encoding="utf-8")
    before = target.read_bytes()
    link = tmp_path / "key.jsonl"
    link.symlink_to(target)
    status, err = surrogate_run(link)
    assert status == 2 and "symbolic link" in err and target.read_bytes() == before
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "not-yet.jsonl")
    status, err = surrogate_run(dangling)
    assert status == 2 and "symbolic link" in err and not (tmp_path / "not-yet.jsonl").exists()


def test_other_files_are_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(KeyFileError, match="not a regular file"):
        KeyFile(fifo)  # without hanging on the FIFO
    with pytest.raises(KeyFileError, match="not a regular file"):
        check_key_file(tmp_path)
    other = tmp_path / "other.jsonl"  # JSON lines of another program, even with a doc_id
    other.write_text(json.dumps({"doc_id": "a", "entities": []}) + "\n", encoding="utf-8")
    empty = tmp_path / "empty.jsonl"  # an empty file no run of this project made
    empty.touch(mode=0o644)
    empty.chmod(0o644)
    mixed = tmp_path / "mixed.jsonl"  # a key record, then something else
    mixed.write_text(line(RECORD) + "Zebulonio\n", encoding="utf-8")
    not_a_record = tmp_path / "not-a-record.jsonl"
    not_a_record.write_text(line({"date_shift_days": 3, "x": 1}), encoding="utf-8")
    for path in (other, empty, mixed, not_a_record):
        before = path.read_bytes()
        with pytest.raises(KeyFileError, match="not a deid-crf key file") as info:
            KeyFile(path)
        assert "Zebulonio" not in str(info.value) and path.read_bytes() == before


def test_key_files_of_killed_runs_are_resumed(tmp_path):
    new = tmp_path / "secret" / "key.jsonl"
    keys = KeyFile(new)
    keys.close()
    assert stat.S_IMODE(new.stat().st_mode) == 0o600 and new.read_bytes() == b""
    cut = line(RECORD)[:30]  # a record cut by a kill, then closed by the resumed run
    for content in ("", line(RECORD), line(RECORD) + cut, cut, line(RECORD) + cut + "\n" + line(RECORD), cut[:5]):
        path = tmp_path / "resumed.jsonl"
        path.unlink(missing_ok=True)
        path.write_text(content, encoding="utf-8")
        path.chmod(0o600)
        keys = KeyFile(path)
        keys.append({**RECORD, "doc_id": "b"})
        keys.compact()
        keys.close()
        assert {r["doc_id"] for r in map(json.loads, path.read_text().splitlines())} >= {"b"}


def test_shard_folder_links_are_refused(tmp_path):
    key = tmp_path / "key.jsonl"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    KeyFile.shard_dir(key).symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(KeyFileError, match="link or not a folder"):
        KeyFile.make_shard_dir(key)
    with pytest.raises(KeyFileError, match="link or not a folder"):
        KeyFile(key).absorb_shards()
