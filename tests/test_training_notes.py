"""The hand-annotated training notes (training/notes, deid_crf.augment.notes): read from
inline markup, added as written and as rewritten copies, switched on by ``[data] notes``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deid_crf.augment import training_documents
from deid_crf.augment.notes import TRAINING_NOTES_DIR, note_documents, read_training_notes
from deid_crf.config import DataConfig
from deid_crf.io.markup import MEDDOCAN_TYPES, MarkupError
from deid_crf.text.tokenizer import Tokenizer

NOTE_A = (
    "INFORME DE ALTA\nPaciente: {{NOMBRE_SUJETO_ASISTENCIA|Zebulonio Quirtanilla Mofrejo}}, "
    "{{EDAD_SUJETO_ASISTENCIA|71 años}}.\nIngresa el {{FECHAS|3 de marzo de 2024}} en el "
    "{{HOSPITAL|Hospital de Tarnoval}}. Vive con su {{FAMILIARES_SUJETO_ASISTENCIA|hija Eulalia}} en "
    "{{TERRITORIO|Villaquemada}}.\nDr. {{NOMBRE_PERSONAL_SANITARIO|Anselmo Pradera Ruiz}}\n"
)
NOTE_B = (
    "Nota de urgencias. pac. {{NOMBRE_SUJETO_ASISTENCIA|rosendo castañar}}, "
    "{{SEXO_SUJETO_ASISTENCIA|varón}}, NHC {{ID_SUJETO_ASISTENCIA|4471902}}, tfno "
    "{{NUMERO_TELEFONO|+34 611 20 30 40}}. Trabaja de {{PROFESION|albañil}}.\n"
)


def write_notes(folder: Path, **notes: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, markup in notes.items():
        (folder / f"{name}.md").write_text(markup, encoding="utf-8")
    return folder


def test_notes_are_read_with_their_spans(tmp_path: Path):
    docs = read_training_notes(write_notes(tmp_path, b=NOTE_B, a=NOTE_A))
    assert [d.doc_id for d in docs] == ["a", "b"]
    a = docs[0]
    assert "{{" not in a.text and a.text.startswith("INFORME DE ALTA\nPaciente: Zebulonio")
    surfaces = [(a.text[e.start : e.end], e.type) for e in a.entities]
    assert surfaces[0] == ("Zebulonio Quirtanilla Mofrejo", "NOMBRE_SUJETO_ASISTENCIA")
    assert ("hija Eulalia", "FAMILIARES_SUJETO_ASISTENCIA") in surfaces and len(surfaces) == 7


def test_note_documents_add_rewritten_copies_deterministically(tmp_path: Path):
    folder = write_notes(tmp_path, a=NOTE_A, b=NOTE_B)
    docs = note_documents(3, seed=5, folder=folder)
    originals, copies = docs[:2], docs[2:]
    assert len(copies) == 4 and all(re.search(r"~rw[01]$", d.doc_id) for d in copies)
    assert note_documents(3, seed=5, folder=folder) == docs
    assert note_documents(3, seed=6, folder=folder) != docs
    assert note_documents(1, seed=5, folder=folder) == originals
    for copy in copies:
        source = next(d for d in originals if copy.doc_id.startswith(d.doc_id))
        assert [e.type for e in copy.entities] == [e.type for e in source.entities]
        assert all(copy.text[e.start : e.end].strip() == copy.text[e.start : e.end] != "" for e in copy.entities)
    names = {
        d.text[e.start : e.end].lower() for d in copies for e in d.entities if e.type == "NOMBRE_SUJETO_ASISTENCIA"
    }
    assert not names & {"zebulonio quirtanilla mofrejo", "rosendo castañar"}, "the patients' names were replaced"


def test_training_documents_add_the_configured_notes(tmp_path: Path):
    folder = write_notes(tmp_path, a=NOTE_A)
    assert training_documents([], DataConfig(notes=2, notes_dir=str(folder), augment_seed=1)) == note_documents(
        2, seed=1, folder=folder
    )
    assert training_documents([], DataConfig(notes=0, notes_dir=str(folder))) == []
    with pytest.raises(ValueError, match="notes"):
        training_documents([], DataConfig(notes=-1))


def test_missing_or_malformed_notes_name_the_folder_or_file(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path))):
        note_documents(1, seed=0, folder=tmp_path)
    write_notes(tmp_path, broken="Paciente: {{NOMBRE_SUJETO_ASISTENCIA|Zebulonio}\n")
    with pytest.raises(MarkupError, match="broken.md"):
        note_documents(1, seed=0, folder=tmp_path)


def test_the_project_s_training_notes_are_valid_and_token_aligned():
    """Every training note parses, uses MEDDOCAN types, and each span (as written and in a
    rewritten copy) starts and ends on token boundaries, so the CRF can learn it."""
    docs = note_documents(2, seed=0)
    tokenizer = Tokenizer()
    for doc in docs:
        assert doc.entities and {e.type for e in doc.entities} <= MEDDOCAN_TYPES, doc.doc_id
        table = tokenizer([doc.text])
        starts, ends = set(table.start.tolist()), set(table.end.tolist())
        misaligned = [(e.start, e.end, e.type) for e in doc.entities if e.start not in starts or e.end not in ends]
        assert not misaligned, f"{doc.doc_id}: spans off token boundaries at {misaligned}"  # offsets only, no text


def test_the_readme_lists_every_training_note_with_its_entity_count():
    readme = (TRAINING_NOTES_DIR.parent / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| ([a-z]+-\d\d-[a-z0-9-]+) \|.*\| (\d+) \|$", readme, flags=re.M))
    docs = read_training_notes()
    assert rows == {d.doc_id: str(len(d.entities)) for d in docs}
    assert f"| documents | {len(docs)} |" in readme
    assert f"| entities | {sum(len(d.entities) for d in docs)} |" in readme


EXTRA_NOTES_DIR = TRAINING_NOTES_DIR.parent / "extra" / "markup"


def test_the_extra_training_notes_are_valid_aligned_and_listed():
    """The notes kept outside the default training set (training/notes/extra) are training data
    of the same standard: they parse, their spans sit on token boundaries, and their README
    lists each with its entity count."""
    docs = note_documents(2, seed=0, folder=EXTRA_NOTES_DIR)
    tokenizer = Tokenizer()
    for doc in docs:
        assert doc.entities and {e.type for e in doc.entities} <= MEDDOCAN_TYPES, doc.doc_id
        table = tokenizer([doc.text])
        starts, ends = set(table.start.tolist()), set(table.end.tolist())
        assert all(e.start in starts and e.end in ends for e in doc.entities), doc.doc_id
    readme = (EXTRA_NOTES_DIR.parent / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| ([a-z]+-\d\d-[a-z0-9-]+) \|.*\| (\d+) \|$", readme, flags=re.M))
    written = read_training_notes(EXTRA_NOTES_DIR)
    assert rows == {d.doc_id: str(len(d.entities)) for d in written}
    assert f"| entities | {sum(len(d.entities) for d in written)} |" in readme
