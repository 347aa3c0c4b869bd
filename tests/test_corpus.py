"""BRAT corpus I/O: byte-exact round trips, validation errors without PHI, atomic writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deid_crf.io.brat import format_ann, read_brat_dir, read_document, write_document
from deid_crf.io.files import CorpusError, atomic_write_text, atomic_write_texts, read_text
from deid_crf.text.document import Document, Entity

NAME = "Zebulonio"  # fake PHI: must never appear in an error message
TEXT = (
    "\ufeffNombre: Zebulonio.\n"
    "Apellidos: Quirtanilla Núñez.\r\n"
    "Dirección: c/ Peñalara 5, 2º dcha.\n"
    "Paciente de 63 años.\n"
)
ENTITIES = [
    Entity(9, 18, "NOMBRE_SUJETO_ASISTENCIA"),
    Entity(31, 48, "NOMBRE_SUJETO_ASISTENCIA"),
    Entity(62, 84, "CALLE"),
    Entity(98, 100, "EDAD_SUJETO_ASISTENCIA"),
]
# Offsets count the BOM as one character and the CR of the CRLF as another.
EXPECTED_ANN = (
    "T1\tNOMBRE_SUJETO_ASISTENCIA 9 18\tZebulonio\n"
    "T2\tNOMBRE_SUJETO_ASISTENCIA 31 48\tQuirtanilla Núñez\n"
    "T3\tCALLE 62 84\tc/ Peñalara 5, 2º dcha\n"
    "T4\tEDAD_SUJETO_ASISTENCIA 98 100\t63\n"
)


def write_pair(directory: Path, name: str, text: str | bytes, ann: str | bytes | None) -> Path:
    txt = directory / f"{name}.txt"
    txt.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    if ann is not None:
        (directory / f"{name}.ann").write_bytes(ann if isinstance(ann, bytes) else ann.encode("utf-8"))
    return txt


# --------------------------------------------------------------------------- round trip


def test_round_trip_is_byte_exact(tmp_path: Path):
    doc = Document("caso", TEXT, list(reversed(ENTITIES)))
    write_document(doc, tmp_path)
    assert (tmp_path / "caso.txt").read_bytes() == TEXT.encode("utf-8")
    assert (tmp_path / "caso.txt").read_bytes().startswith(b"\xef\xbb\xbf")
    assert (tmp_path / "caso.ann").read_bytes() == EXPECTED_ANN.encode("utf-8")

    back = read_document(tmp_path / "caso.txt")
    assert back.doc_id == "caso"
    assert back.text == TEXT
    assert back.entities == ENTITIES
    assert sorted(os.listdir(tmp_path)) == ["caso.ann", "caso.txt"]


def test_format_ann_numbers_in_order_of_appearance():
    assert format_ann(reversed(ENTITIES), TEXT) == EXPECTED_ANN
    assert format_ann([], TEXT) == ""


def test_read_brat_dir_sorted_and_ignores_other_annotation_kinds(tmp_path: Path):
    write_pair(tmp_path, "b", "Nombre: Zebulonio.\n", "T1\tNOMBRE 8 17\tZebulonio\n#1\tAnnotatorNotes T1\tnota\n\n")
    write_pair(tmp_path, "a", "Sin datos.\n", "")
    docs = read_brat_dir(tmp_path)
    assert [d.doc_id for d in docs] == ["a", "b"]
    assert docs[1].entities == [Entity(8, 17, "NOMBRE")]
    assert docs[0].entities == []


def test_read_document_without_ann_has_no_entities(tmp_path: Path):
    txt = write_pair(tmp_path, "solo", "Texto.\n", None)
    assert read_document(txt).entities == []
    assert read_brat_dir(tmp_path, require_ann=False)[0].text == "Texto.\n"


# --------------------------------------------------------------------------- validation

GOOD_LINE = f"T1\tNOMBRE 8 17\t{NAME}\n"


@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [
        ("T2\tNOMBRE 8 17\tZebulonix\n", "differs"),
        ("T2\tNOMBRE 8 1x\tZebulonio\n", "not integers"),
        ("T2\tNOMBRE 8 999\tZebulonio\n", "outside"),
        ("T2\tNOMBRE 17 8\tZebulonio\n", "outside"),
        ("T2\tNOMBRE -1 17\tZebulonio\n", "outside"),
        ("T2\tNOMBRE 8 17 Zebulonio\n", "3 tab-separated"),
        ("T2\tNOMBRE 8 17\tZebulonio\textra\n", "3 tab-separated"),
        ("T2\tNOMBRE 8 12;13 17\tZebu onio\n", "discontinuous"),
    ],
    ids=["text-mismatch", "non-integer", "past-end", "reversed", "negative", "two-fields", "four-fields", "discont"],
)
def test_invalid_ann_lines_name_file_and_line_without_phi(tmp_path: Path, bad_line: str, reason: str):
    txt = write_pair(tmp_path, "caso", f"Nombre: {NAME}.\n", GOOD_LINE + bad_line)
    with pytest.raises(CorpusError) as info:
        read_document(txt)
    message = str(info.value)
    assert f"{tmp_path / 'caso.ann'}:2:" in message
    assert reason in message
    assert NAME not in message
    assert "Zebulonix" not in message
    assert "Zebu" not in message


def test_binary_file_is_refused(tmp_path: Path):
    txt = write_pair(tmp_path, "binario", b"Nombre: Zebulonio\x00\x01\x02", None)
    with pytest.raises(CorpusError, match="binary") as info:
        read_text(txt)
    assert str(txt) in str(info.value)
    assert NAME not in str(info.value)


def test_non_utf8_file_is_refused(tmp_path: Path):
    txt = write_pair(tmp_path, "latin1", "Nombre: Zebulonio Núñez.\n".encode("latin-1"), None)
    with pytest.raises(CorpusError, match="not valid utf-8 at byte 19") as info:
        read_document(txt)
    assert str(txt) in str(info.value)
    assert NAME not in str(info.value)
    # The same bytes read fine when the encoding is declared.
    assert read_text(txt, encoding="latin-1") == "Nombre: Zebulonio Núñez.\n"


def test_missing_ann_in_brat_dir(tmp_path: Path):
    write_pair(tmp_path, "a", "Uno.\n", "")
    write_pair(tmp_path, "b", "Dos.\n", None)
    with pytest.raises(CorpusError, match="missing annotation file") as info:
        read_brat_dir(tmp_path)
    assert str(tmp_path / "b.ann") in str(info.value)


def test_brat_dir_errors(tmp_path: Path):
    with pytest.raises(CorpusError, match="not a directory"):
        read_brat_dir(tmp_path / "nope")
    with pytest.raises(CorpusError, match="no .txt files"):
        read_brat_dir(tmp_path)
    with pytest.raises(CorpusError, match="cannot read file"):
        read_text(tmp_path / "nope.txt")


# --------------------------------------------------------------------------- atomic writes


def test_atomic_write_creates_parents_and_leaves_no_temp_files(tmp_path: Path):
    target = tmp_path / "sub" / "dir" / "nota.txt"
    atomic_write_text(target, "\ufeffuno\r\ndos\n")
    assert target.read_bytes() == "\ufeffuno\r\ndos\n".encode()
    atomic_write_text(target, "tres\n")
    assert target.read_text(encoding="utf-8") == "tres\n"
    assert os.listdir(target.parent) == ["nota.txt"]


def test_atomic_write_failing_rename_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    target = tmp_path / "nota.txt"
    target.write_text("antiguo\n", encoding="utf-8")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_text(target, "nuevo\n")
    assert target.read_text(encoding="utf-8") == "antiguo\n"
    assert os.listdir(tmp_path) == ["nota.txt"]


def test_atomic_writes_of_several_files_are_each_on_disk_before_any_rename(tmp_path: Path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append("fsync") or real_fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: calls.append("rename") or real_replace(a, b))
    (tmp_path / "b.txt").write_text("antiguo\n", encoding="utf-8")
    files = [(tmp_path / "a.txt", "uno\r\n"), (tmp_path / "b.txt", "\ufeffdos"), (tmp_path / "c" / "d.ann", "")]
    assert atomic_write_texts(files, 0o640) == [None, None, None]
    assert calls == ["fsync"] * 3 + ["rename"] * 3  # every file on disk, then the renames
    for path, content in files:
        assert path.read_bytes() == content.encode() and (path.stat().st_mode & 0o777) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt", "c"] and os.listdir(tmp_path / "c") == ["d.ann"]


def test_atomic_writes_of_several_files_fail_one_by_one_and_leave_no_temp_files(tmp_path: Path):
    (tmp_path / "old.txt").write_text("antiguo\n", encoding="utf-8")
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    (tmp_path / "folder.txt").mkdir()
    files = [
        (tmp_path / "a-file" / "x.txt", "no folder"),  # its folder is a file
        (tmp_path / "new.txt", "nuevo\n"),
        (tmp_path / "folder.txt", "over a folder"),  # the rename fails
        (tmp_path / "old.txt", "reescrito\n"),
    ]
    errors = atomic_write_texts(files)
    assert [type(e).__name__ if e else None for e in errors] == [
        "FileExistsError",
        None,
        "IsADirectoryError",
        None,
    ]
    assert (tmp_path / "new.txt").read_text(encoding="utf-8") == "nuevo\n"
    assert (tmp_path / "old.txt").read_text(encoding="utf-8") == "reescrito\n"
    assert sorted(os.listdir(tmp_path)) == ["a-file", "folder.txt", "new.txt", "old.txt"]


def test_atomic_writes_of_several_files_interrupted_keep_the_old_files(tmp_path: Path, monkeypatch):
    (tmp_path / "b.txt").write_text("antiguo\n", encoding="utf-8")
    synced = []

    def interrupted_fsync(fd):
        synced.append(fd)
        if len(synced) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted_fsync)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_texts([(tmp_path / "a.txt", "uno"), (tmp_path / "b.txt", "dos")])
    # Interrupted before any rename: nothing new in place, no temporary left.
    assert os.listdir(tmp_path) == ["b.txt"] and (tmp_path / "b.txt").read_text(encoding="utf-8") == "antiguo\n"


def test_atomic_write_failing_encode_keeps_old_file(tmp_path: Path):
    target = tmp_path / "nota.txt"
    target.write_text("antiguo\n", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(target, "nuevo \ud800\n")  # a lone surrogate cannot be UTF-8
    assert target.read_text(encoding="utf-8") == "antiguo\n"
    assert os.listdir(tmp_path) == ["nota.txt"]
