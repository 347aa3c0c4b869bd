"""Augmented training data: MEDDOCAN documents rewritten with surrogate values, other
header cues and letter cases (deid_crf.augment.rewrite), and the [data] switches."""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np
import pytest
from conftest import PATIENTS, make_document, patient_document

from deid_crf import train
from deid_crf.augment import training_documents
from deid_crf.augment.rewrite import (
    RewriteOptions,
    date_in_another_form,
    from_segments,
    rewrite_corpus,
    rewrite_document,
    to_segments,
)
from deid_crf.config import DataConfig, RunConfig
from deid_crf.io.brat import format_ann, parse_ann, read_brat_dir, write_brat_dir
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.text.document import Document
from deid_crf.text.tokenizer import Tokenizer

PATIENT = "NOMBRE_SUJETO_ASISTENCIA"


def header_document(doc_id: str = "doc-1") -> Document:
    """A MEDDOCAN-shaped header and narrative, with invented values."""
    return make_document(
        doc_id,
        [
            "Datos del paciente.\nNombre:  ",
            ("Zebulonio", PATIENT),
            ".\nApellidos: ",
            ("Quirtanilla Mofrejo", PATIENT),
            ".\nNHC: ",
            ("368503", "ID_SUJETO_ASISTENCIA"),
            ".\nDomicilio: ",
            ("Calle Mayor 12, 3º B", "CALLE"),
            ".\nCP: ",
            ("28016", "TERRITORIO"),
            ".\nEdad: ",
            ("70 años", "EDAD_SUJETO_ASISTENCIA"),
            " Sexo: ",
            ("H", "SEXO_SUJETO_ASISTENCIA"),
            ".\nFecha de Ingreso: ",
            ("12/12/2016", "FECHAS"),
            ".\nMédico:  ",
            ("Ignacio Navarro Cuéllar", "NOMBRE_PERSONAL_SANITARIO"),
            " NºCol: ",
            ("28 28 70973", "ID_TITULACION_PERSONAL_SANITARIO"),
            ".\nInforme clínico del paciente: varón de ",
            ("70 años", "EDAD_SUJETO_ASISTENCIA"),
            " con enfermedad de Parkinson, natural de ",
            ("Soria", "TERRITORIO"),
            ". Refiere dolor desde hace dos semanas.\n",
        ],
    )


def misaligned(doc: Document) -> set[str]:
    """Surfaces of entities that start or end inside a token (a few gold annotations do)."""
    table = Tokenizer().tokenize([doc.text])
    starts, ends = set(table.start.tolist()), set(table.end.tolist())
    return {doc.text[e.start : e.end] for e in doc.entities if e.start not in starts or e.end not in ends}


def assert_valid(doc: Document, allowed: set[str] = frozenset()) -> None:
    """Entities inside the text, sorted, not overlapping, without outer spaces or line
    breaks, and starting and ending on token boundaries (but ``allowed`` surfaces)."""
    table = Tokenizer().tokenize([doc.text])
    starts, ends = set(table.start.tolist()), set(table.end.tolist())
    previous_end = 0
    for entity in doc.entities:
        surface = doc.text[entity.start : entity.end]
        assert 0 <= entity.start < entity.end <= len(doc.text), entity
        assert entity.start >= previous_end, f"{doc.doc_id}: overlap at {entity.start}"
        assert surface == surface.strip() and "\n" not in surface, (doc.doc_id, entity)
        aligned = entity.start in starts and entity.end in ends
        assert aligned or surface in allowed, (doc.doc_id, entity.start, entity.end, entity.type)
        previous_end = entity.end


def test_segments_round_trip():
    doc = header_document()
    assert from_segments(doc.doc_id, to_segments(doc)) == Document(doc.doc_id, doc.text, sorted(doc.entities))


def test_rewrite_replaces_values_and_keeps_offsets_exact():
    doc = header_document()
    out = rewrite_document(doc, seed=3)
    assert out.doc_id == "doc-1~rw0"
    assert_valid(out)
    for value in ("Zebulonio", "Quirtanilla", "368503", "70973"):
        assert value.lower() not in out.text.lower()
    assert "Parkinson" in out.text and "Refiere dolor desde hace dos semanas" in out.text  # clinical text kept
    types = collections.Counter(e.type for e in out.entities)
    original = collections.Counter(e.type for e in doc.entities)
    # Only the patient's two header names may have become one.
    assert original[PATIENT] - types[PATIENT] in (0, 1)
    assert types - collections.Counter({PATIENT: 2}) == original - collections.Counter({PATIENT: 2})


def test_rewrite_is_deterministic_by_seed_and_copy():
    doc = header_document()
    assert rewrite_document(doc, seed=1) == rewrite_document(doc, seed=1)
    assert rewrite_document(doc, seed=1).text != rewrite_document(doc, seed=2).text
    assert rewrite_document(doc, seed=1, copy=0).text != rewrite_document(doc, seed=1, copy=1).text


def test_rewrites_vary_header_cues_and_case():
    """Over many seeds the patient line takes other cues, names come in capitals and in
    lower case, and labels take synonyms; every variant stays valid."""
    outs = [rewrite_document(header_document(), seed=s) for s in range(120)]
    for out in outs:
        assert_valid(out)
    texts = "\n".join(o.text for o in outs)
    for cue in ("Paciente: ", "PACIENTE: ", "Nombre y apellidos: ", "Sr. ", "D. "):
        assert cue in texts, cue
    assert any(not o.text.startswith("Datos del paciente.\nNombre:") for o in outs)
    patient_names = [o.text[e.start : e.end] for o in outs for e in o.entities if e.type == PATIENT]
    assert any(n.isupper() for n in patient_names) and any(n.islower() for n in patient_names)
    surname_first = [
        o
        for o in outs
        for a, b in zip(o.entities, o.entities[1:], strict=False)
        if a.type == b.type == PATIENT and o.text[a.end : b.start] == ", "
    ]
    assert surname_first, "surname-first form, two spans"
    assert "Código postal:" in texts or "C.P.:" in texts
    assert "DATOS DEL PACIENTE" in texts, "a header in capitals"


def test_no_variation_options_keep_the_layout():
    still = RewriteOptions(0, 0, 0, 0, 0, 0, 0, 0)
    doc = header_document()
    out = rewrite_document(doc, seed=5, options=still)
    assert [e.type for e in out.entities] == [e.type for e in sorted(doc.entities)]
    assert out.text.startswith("Datos del paciente.\nNombre:  ") and "\nNHC: " in out.text


@pytest.mark.parametrize(
    ("text", "valid"), [("03/03/1946", True), ("31/02/2016", False), ("marzo de 2016", False), ("3/3/46", False)]
)
def test_date_in_another_form(text: str, valid: bool):
    import random

    forms = {date_in_another_form(text, random.Random(seed)) for seed in range(40)}
    if valid:
        assert len(forms) >= 5 and "3 de marzo de 1946" in forms and "3-III-1946" in forms
    else:
        assert forms == {text}


def test_rewrite_corpus_counts():
    docs = [patient_document(f"d{i}", p) for i, p in enumerate(PATIENTS * 10)]
    assert len(rewrite_corpus(docs, 2, seed=0)) == 2 * len(docs)
    half = rewrite_corpus(docs, 0.5, seed=0)
    assert 0.25 * len(docs) < len(half) < 0.75 * len(docs)
    assert rewrite_corpus(docs, 0.5, seed=0) == half
    with pytest.raises(ValueError):
        rewrite_corpus(docs, -1, seed=0)


def test_training_documents_follow_the_data_config():
    docs = [patient_document(f"d{i}", p) for i, p in enumerate(PATIENTS)]
    assert training_documents(docs, DataConfig()) == docs
    out = training_documents(docs, DataConfig(rewrite=1.0, augment_seed=4))
    assert out[: len(docs)] == docs and len(out) == 2 * len(docs)
    assert all(d.doc_id.endswith("~rw0") for d in out[len(docs) :])
    with pytest.raises(ValueError, match="rewrite"):
        training_documents(docs, DataConfig(rewrite=-0.5))


def test_run_config_reads_and_writes_the_augmentation_keys():
    config = RunConfig.from_dict({"data": {"rewrite": 1, "synthetic": 200, "augment_seed": 7}})
    assert (config.data.rewrite, config.data.synthetic, config.data.augment_seed) == (1.0, 200, 7)
    assert RunConfig.from_dict(config.to_dict()).data == config.data
    with pytest.raises(ValueError, match="synthetic"):
        RunConfig.from_dict({"data": {"synthetic": "many"}})


def test_train_with_rewrite_adds_documents_and_records_the_setting(
    tmp_path: Path, tiny_corpus: list[Document], unseen_document: Document, caplog: pytest.LogCaptureFixture
):
    root = tmp_path / "data"
    write_brat_dir(tiny_corpus, root / "meddocan" / "train")
    write_brat_dir([unseen_document], root / "meddocan" / "dev")
    config = tmp_path / "aug.toml"
    config.write_text('[features]\npreset = "core"\n\n[data]\nrewrite = 2.0\naugment_seed = 1\n', encoding="utf-8")
    argv = ["--data-dir", str(root), "--model-dir", str(tmp_path / "m"), "--config", str(config), "--quiet"]
    with caplog.at_level("INFO"):
        assert train.main([*argv, "--max-iterations", "5", "--n-jobs", "1"]) == 0
    n = len(tiny_corpus)
    assert f"{3 * n} documents ({2 * n} added by augmentation" in caplog.text
    saved = train.load_config(tmp_path / "m" / "config.json")
    assert (saved.data.rewrite, saved.data.augment_seed) == (2.0, 1)
    assert DeidTagger.load(tmp_path / "m").tag_texts([unseen_document.text])[0], "the model tags"


@pytest.mark.slow
def test_rewriting_all_of_meddocan_train_gives_valid_brat(data_dir: Path):
    """Every rewritten train document: valid, token-aligned offsets, the BRAT writer's
    output reads back identical, and no original name survives in its copy."""
    docs = read_brat_dir(data_dir / "meddocan" / "train")
    out = rewrite_corpus(docs, 1.0, seed=0)
    assert len(out) == len(docs)
    survived = 0
    for original, copy in zip(docs, out, strict=True):
        assert_valid(copy, allowed=misaligned(original))
        entities = parse_ann(format_ann(copy.entities, copy.text), copy.text, copy.doc_id)
        assert sorted(entities) == sorted(copy.entities)
        assert len(copy.entities) >= len(original.entities) - 1
        names = {original.text[e.start : e.end].lower() for e in original.entities if e.type == PATIENT}
        survived += sum(1 for name in names if len(name) > 3 and name in copy.text.lower())
    # Surrogates may draw an original surname by chance; nearly all must be new.
    assert survived < 0.02 * len(docs)
    lengths = np.array([len(d.text) for d in out]) / np.array([len(d.text) for d in docs])
    assert 0.8 < lengths.mean() < 1.2
