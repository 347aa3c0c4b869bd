"""The whole tagger as a scikit-learn estimator: fit, predict, score, save and load."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from sklearn.base import clone

from deid_crf.config import CRFConfig
from deid_crf.models import CONFIG_FILE, DeidTagger, ModelNotFoundError
from deid_crf.models.crf import CRFModel
from deid_crf.text.document import Document, Entity


def test_tags_an_unseen_document(tiny_tagger: DeidTagger, unseen_document: Document):
    (predicted,) = tiny_tagger.predict([unseen_document])
    nhc = unseen_document.text.index("745120")
    assert Entity(nhc, nhc + 6, "ID_SUJETO_ASISTENCIA") in predicted
    assert len(set(predicted) & set(unseen_document.entities)) >= 3
    for e in predicted:
        assert 0 <= e.start < e.end <= len(unseen_document.text)
    assert tiny_tagger.entity_types_ == [
        "EDAD_SUJETO_ASISTENCIA",
        "FECHAS",
        "ID_SUJETO_ASISTENCIA",
        "NOMBRE_SUJETO_ASISTENCIA",
    ]


def test_score_is_a_fraction(tiny_tagger: DeidTagger, unseen_document: Document, tiny_corpus: list[Document]):
    score = tiny_tagger.score([unseen_document])
    assert isinstance(score, float) and 0.5 <= score <= 1.0
    empty_gold = [Document("nada", "Sin hallazgos.", [])]
    assert tiny_tagger.score(empty_gold) == 0.0
    assert 0.0 <= tiny_tagger.score(tiny_corpus) <= 1.0


def test_empty_inputs(tiny_tagger: DeidTagger):
    assert tiny_tagger.tag_texts([]) == []
    assert tiny_tagger.tag_texts(["", " \n\ufeff"]) == [[], []]
    with pytest.raises(ValueError, match="empty"):
        DeidTagger().fit([])


def test_save_writes_only_safe_files_and_load_predicts_the_same(
    tiny_tagger: DeidTagger, tiny_corpus: list[Document], unseen_document: Document, tmp_path: Path
):
    directory = tiny_tagger.save(tmp_path / "crf")
    assert sorted(os.listdir(directory)) == [
        "MANIFEST.json",
        "MODEL_CARD.md",
        "config.json",
        "model.crfsuite",
        "model_card.json",
    ]
    assert os.listdir(tmp_path) == ["crf"]  # no staging or backup directory left behind
    meta = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
    assert meta["format"] == "deid-crf-tagger" and meta["config"]["crf"]["max_iterations"] == 20
    assert not (directory / "model.crfsuite").read_bytes().startswith(b"\x80")  # not a pickle

    loaded = DeidTagger.load(directory)
    docs = [*tiny_corpus, unseen_document]
    assert loaded.predict(docs) == tiny_tagger.predict(docs)
    assert loaded.tagger_config() == tiny_tagger.tagger_config()
    assert loaded.entity_types_ == tiny_tagger.entity_types_


def test_save_over_an_existing_model_replaces_it(tiny_corpus: list[Document], tiny_model_dir: Path, tmp_path: Path):
    directory = DeidTagger.load(tiny_model_dir).save(tmp_path / "crf")
    other = DeidTagger(max_iterations=3, c1=0.5).fit(tiny_corpus[:2])
    other.save(directory)
    assert sorted(os.listdir(directory)) == [
        "MANIFEST.json",
        "MODEL_CARD.md",
        "config.json",
        "model.crfsuite",
        "model_card.json",
    ]
    assert os.listdir(tmp_path) == ["crf"]
    loaded = DeidTagger.load(directory)
    assert (loaded.max_iterations, loaded.c1) == (3, 0.5)
    # A loaded tagger can save itself again (its CRFsuite file is copied, not moved).
    loaded.save(directory)
    assert DeidTagger.load(directory).predict(tiny_corpus) == other.predict(tiny_corpus)


def test_save_does_not_delete_a_directory_that_is_not_a_model(tiny_tagger: DeidTagger, tmp_path: Path):
    (tmp_path / "notas.txt").write_text("precious\n", encoding="utf-8")
    with pytest.raises((FileExistsError, ValueError)):
        tiny_tagger.save(tmp_path)
    assert (tmp_path / "notas.txt").read_text(encoding="utf-8") == "precious\n"


def test_load_errors(tmp_path: Path, tiny_model_dir: Path):
    with pytest.raises(ModelNotFoundError, match="no trained model"):
        DeidTagger.load(tmp_path / "missing")
    assert issubclass(ModelNotFoundError, FileNotFoundError)

    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / CONFIG_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="unreadable model configuration"):
        DeidTagger.load(broken)
    (broken / CONFIG_FILE).write_text(json.dumps({"format": "something-else", "version": 1}), encoding="utf-8")
    with pytest.raises(ValueError, match="not a deid-crf-tagger"):
        DeidTagger.load(broken)

    config_only = tmp_path / "config-only"
    config_only.mkdir()
    (config_only / CONFIG_FILE).write_bytes((tiny_model_dir / CONFIG_FILE).read_bytes())
    with pytest.raises(FileNotFoundError, match="no CRF model file"):
        DeidTagger.load(config_only)


def test_sklearn_parameter_api(tiny_tagger: DeidTagger):
    params = tiny_tagger.get_params()
    assert params["max_iterations"] == 20 and params["n_jobs"] == 1
    copy = clone(tiny_tagger)
    assert copy.get_params() == params
    assert not hasattr(copy, "model_")
    assert copy.set_params(c1=0.3, max_iterations=7) is copy
    assert (copy.c1, copy.max_iterations) == (0.3, 7)
    assert copy.tagger_config().crf.c1 == 0.3
    assert tiny_tagger.c1 == CRFConfig.c1  # the original is untouched
    assert CRFModel(c2=0.5).get_params()["c2"] == 0.5


def test_parallel_tagging_matches_serial(tiny_tagger: DeidTagger, tiny_corpus: list[Document]):
    texts = [d.text for d in tiny_corpus] + ["", "NHC: 123456."]
    assert tiny_tagger.tag_texts(texts, n_jobs=2) == tiny_tagger.tag_texts(texts, n_jobs=1)
    parallel_fit = DeidTagger(max_iterations=20, n_jobs=2).fit(tiny_corpus)
    assert parallel_fit.tag_texts(texts, n_jobs=1) == tiny_tagger.tag_texts(texts, n_jobs=1)
