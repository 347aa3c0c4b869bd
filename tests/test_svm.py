"""The window SVM tagger: hashed sparse features, fit/predict, pickle-free save/load,
and use through the generic loader and the tag CLI."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from deid_crf.featurization.featurizer import Featurizer
from deid_crf.models import DeidTagger, ModelNotFoundError, load_model
from deid_crf.models.svm import WindowSVMTagger
from deid_crf.tag import main as tag_main
from deid_crf.text import bio
from deid_crf.text.document import Document, Entity
from deid_crf.text.tokenizer import tokenize


@pytest.fixture(scope="module")
def svm(tiny_corpus: list[Document]) -> WindowSVMTagger:
    return WindowSVMTagger(n_features=2**16).fit(tiny_corpus)


def test_hashed_matrix_has_one_entry_per_attribute():
    table = tokenize(["Nombre: Ana.\nNHC: 123456."])
    featurizer = Featurizer()
    matrix = featurizer.hashed_matrix(table, 2**12)
    items = featurizer.crf_items(table)
    per_token = [len(attributes) for sentence in items for attributes in sentence]
    assert matrix.shape == (len(table), 2**12)
    assert np.diff(matrix.indptr).tolist() == per_token
    assert matrix.indices.min() >= 0 and matrix.indices.max() < 2**12
    # The same strings hash to the same columns in another call (and process).
    again = featurizer.hashed_matrix(table, 2**12)
    assert (matrix != again).nnz == 0


def test_fit_predict(svm: WindowSVMTagger, unseen_document: Document):
    assert svm.converged_
    (predicted,) = svm.predict([unseen_document])
    nhc = unseen_document.text.index("745120")
    assert Entity(nhc, nhc + 6, "ID_SUJETO_ASISTENCIA") in predicted
    for e in predicted:
        assert 0 <= e.start < e.end <= len(unseen_document.text)
    [scored] = svm.tag_texts_with_confidence([unseen_document.text])
    assert [e for e, _ in scored] == predicted
    assert all(0.0 < c <= 1.0 for _, c in scored)
    assert 0.0 <= svm.score([unseen_document]) <= 1.0
    assert svm.tag_texts([]) == [] and svm.tag_texts([""]) == [[]]


@pytest.mark.parametrize("n_features", [2**8, 2**16])
def test_scores_gather_weight_rows_as_the_sparse_product_would(
    n_features: int, tiny_corpus: list[Document], unseen_document: Document
):
    """Tagging sums weight rows instead of multiplying the hashed matrix: the same
    scores, hence the same labels and entities (2**8 columns: many collisions)."""
    model = WindowSVMTagger(n_features=n_features).fit(tiny_corpus)
    texts = [d.text for d in tiny_corpus] + [unseen_document.text, "Nombre: Ana Zubiri.\nNHC: 99.", ""]
    pipeline = model._pipeline()
    table = pipeline.tokenizer(texts)
    matrix = model._matrix(pipeline, table).astype(np.float64)
    expected = (matrix @ model.coef_.T.astype(np.float64)).toarray() + model.intercept_
    scores = model._scores(pipeline, replace(table))
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-5)
    assert (scores.argmax(axis=1) == expected.argmax(axis=1)).all()
    labels = bio.best_valid_labels(expected, model.classes_, table)
    assert bio.best_valid_labels(scores, model.classes_, table).tolist() == labels.tolist()
    assert model.tag_texts(texts) == bio.decode(table, labels)
    assert any(model.tag_texts(texts))


def test_save_load_is_pickle_free_and_identical(svm: WindowSVMTagger, unseen_document: Document, tmp_path: Path):
    directory = svm.save(tmp_path / "svm")
    assert sorted(p.name for p in directory.iterdir()) == [
        "MANIFEST.json",
        "MODEL_CARD.md",
        "config.json",
        "model_card.json",
        "weights.npz",
    ]
    loaded = load_model(directory)
    assert isinstance(loaded, WindowSVMTagger)
    assert loaded.predict([unseen_document]) == svm.predict([unseen_document])
    assert loaded.tag_texts([unseen_document.text], n_jobs=2) == svm.tag_texts([unseen_document.text])


def test_load_model_dispatches_on_kind(tiny_model_dir: Path, tmp_path: Path):
    assert isinstance(load_model(tiny_model_dir), DeidTagger)
    with pytest.raises(ModelNotFoundError):
        load_model(tmp_path / "missing")


def test_tag_cli_accepts_an_svm_model(svm: WindowSVMTagger, unseen_document: Document, tmp_path: Path, capsys):
    directory = svm.save(tmp_path / "svm")
    note = tmp_path / "nota.txt"
    note.write_text(unseen_document.text, encoding="utf-8")
    assert tag_main([str(note), "--model", str(directory), "-j", "1", "--rules", "off"]) == 0
    out = capsys.readouterr().out
    expected = svm.predict([unseen_document])[0]
    assert len(out.strip().splitlines()) == len(expected)


@pytest.mark.parametrize("classifier", ["sgd", "logistic_regression"])
def test_other_linear_classifiers(classifier: str, tiny_corpus: list[Document], unseen_document: Document, tmp_path):
    model = WindowSVMTagger(n_features=2**16, classifier=classifier, C=1.0, max_iter=200).fit(tiny_corpus)
    (predicted,) = model.predict([unseen_document])
    nhc = unseen_document.text.index("745120")
    assert Entity(nhc, nhc + 6, "ID_SUJETO_ASISTENCIA") in predicted
    loaded = load_model(model.save(tmp_path / classifier))
    assert loaded.get_params()["classifier"] == classifier
    assert loaded.predict([unseen_document]) == [predicted]


def test_decoders_give_valid_spans_and_are_saved(svm: WindowSVMTagger, unseen_document: Document, tmp_path):
    repaired = WindowSVMTagger(**{**svm.get_params(), "decoder": "repair"})
    for name in ("coef_", "intercept_", "classes_", "entity_types_"):
        setattr(repaired, name, getattr(svm, name))
    for model in (svm, repaired):
        (entities,) = model.predict([unseen_document])
        ends = [(e.start, e.end) for e in entities]
        assert ends == sorted(ends) and all(a[1] <= b[0] for a, b in zip(ends, ends[1:], strict=False))
    assert load_model(repaired.save(tmp_path / "repair")).decoder == "repair"
    assert load_model(svm.save(tmp_path / "viterbi")).decoder == "viterbi"


def test_bad_classifier_or_decoder_is_refused_before_featurizing(tiny_corpus: list[Document]):
    with pytest.raises(ValueError, match="classifier must be one of"):
        WindowSVMTagger(classifier="rbf").fit(tiny_corpus)
    with pytest.raises(ValueError, match="decoder must be one of"):
        WindowSVMTagger(decoder="greedy").fit(tiny_corpus)


def test_decoding_report_counts(svm: WindowSVMTagger, tiny_corpus: list[Document]):
    from deid_crf.models.svm import decoding_report

    report = decoding_report(svm, tiny_corpus)
    gold = sum(len(d.entities) for d in tiny_corpus)
    assert report["orphan_tokens"] >= 0
    for name in ("dropped", "repair", "viterbi"):
        assert 0 <= report[f"{name}_exact"] <= gold and 0.0 <= report[f"{name}_f1"] <= 1.0
    # Repair only turns orphans into entities, so it finds at least what dropping them finds.
    assert report["repair_exact"] >= report["dropped_exact"]
    assert report["viterbi_f1"] == pytest.approx(svm.score(tiny_corpus), abs=1e-4)
