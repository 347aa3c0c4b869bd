"""Model cards (``model_card.json``, ``MODEL_CARD.md``) and the versions in the run file."""

from __future__ import annotations

import json
import shutil
from importlib import metadata
from pathlib import Path

import pytest

from deid_crf import train
from deid_crf.batch import engine as batch
from deid_crf.config import FeatureConfig
from deid_crf.io.brat import write_brat_dir
from deid_crf.io.persistence import MANIFEST_FILE, InvalidModel, verify_manifest, write_manifest
from deid_crf.models.card import CARD_JSON, CARD_MARKDOWN, read_card, training_sources
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.tag import main as tag_main
from deid_crf.text.document import Document

TRAINING_DATA = {"train": ("train",), "rewrite": False, "synthetic": 12, "augment_seed": 5}
EVALUATION = {"split": "dev", "n_documents": 1, "ner_p": 0.5, "ner_r": 0.25, "ner_f1": 1 / 3}


@pytest.fixture
def saved(tiny_tagger: DeidTagger, tmp_path: Path) -> Path:
    return tiny_tagger.save(tmp_path / "crf", training_data=TRAINING_DATA, evaluation=EVALUATION)


def test_a_saved_model_carries_a_card(saved: Path):
    card = read_card(saved)
    assert card["kind"] == "crf"
    assert card["software"]["deid-crf"] == metadata.version("deid-crf")
    assert card["software"]["faker"] == metadata.version("faker")
    assert card["training_data"] == {**TRAINING_DATA, "train": ["train"]}
    assert [s["name"] for s in card["sources"]] == ["meddocan"]  # core features: no resource corpora
    assert card["sources"][0]["license"] == "CC-BY-4.0"
    assert card["features"]["groups"] == list(FeatureConfig().groups)
    assert card["hyperparameters"]["max_iterations"] == 20 and "n_jobs" not in card["hyperparameters"]
    assert card["evaluation"] == EVALUATION
    assert card["saved"].endswith("+00:00")
    text = (saved / CARD_MARKDOWN).read_text(encoding="utf-8")
    for expected in (
        f"deid-crf {metadata.version('deid-crf')}, Faker {metadata.version('faker')}",
        "12 synthetic notes generated with Faker",
        "[CC-BY-4.0](https://creativecommons.org/licenses/by/4.0/)",
        "| ner | 0.5000 | 0.2500 | 0.3333 |",
        '"max_iterations": 20',
    ):
        assert expected in text


def test_the_card_is_covered_by_the_manifest(saved: Path):
    listed = json.loads((saved / MANIFEST_FILE).read_text(encoding="utf-8"))["files"]
    assert {CARD_JSON, CARD_MARKDOWN} <= set(listed)
    card = (saved / CARD_MARKDOWN).read_bytes()
    (saved / CARD_MARKDOWN).write_bytes(card.replace(b"0.3333", b"0.9999"))  # same size, other scores
    with pytest.raises(InvalidModel, match="MODEL_CARD.md: .*changed since the model was saved"):
        verify_manifest(saved)


def test_a_model_without_evaluation_or_training_data_says_so(tiny_tagger: DeidTagger, tmp_path: Path):
    directory = tiny_tagger.save(tmp_path / "crf")
    card = read_card(directory)
    assert card["evaluation"] is None and card["training_data"] is None
    text = (directory / CARD_MARKDOWN).read_text(encoding="utf-8")
    assert "Not evaluated when it was saved." in text and "Not recorded" in text


def test_models_saved_before_cards_existed_still_load(saved: Path, unseen_document: Document):
    expected = DeidTagger.load(saved).predict([unseen_document])
    (saved / CARD_JSON).unlink()
    (saved / CARD_MARKDOWN).unlink()
    (saved / MANIFEST_FILE).unlink()
    write_manifest(saved)  # as a model saved with a manifest but before cards
    assert read_card(saved) is None
    assert DeidTagger.load(saved).predict([unseen_document]) == expected
    (saved / MANIFEST_FILE).unlink()  # and before manifests
    assert DeidTagger.load(saved).predict([unseen_document]) == expected


def test_a_damaged_card_is_named(saved: Path):
    (saved / CARD_JSON).write_text("{", encoding="utf-8")
    with pytest.raises(InvalidModel, match="model_card.json: unreadable model card"):
        read_card(saved)


def test_the_corpora_of_each_resource_come_from_the_data_manifest():
    full = FeatureConfig(groups=(*FeatureConfig().groups, "pos", "embeddings", "gazetteers"))
    names = {s["name"]: s for s in training_sources(full)}
    assert set(names) == {
        "meddocan",
        "spaccc_pos",
        "ud_spanish_ancora",
        "ud_spanish_gsd",
        "ud_spanish_pud",
        "unlabeled_es_clinical",
    }
    assert names["ud_spanish_pud"]["license"] == "CC-BY-SA-3.0"
    assert names["unlabeled_es_clinical"]["feeds"] == ["embeddings"]
    stanza = FeatureConfig(groups=(*FeatureConfig().groups, "pos"), pos_backend="stanza")
    assert [s["name"] for s in training_sources(stanza)] == ["meddocan"]


def test_train_saves_the_dev_scores_in_the_card(tmp_path: Path, tiny_corpus, unseen_document):
    root = tmp_path / "data"
    write_brat_dir(tiny_corpus, root / "meddocan" / "train")
    write_brat_dir([unseen_document], root / "meddocan" / "dev")
    argv = ["--data-dir", str(root), "--model-dir", str(tmp_path / "crf"), "--features", "core"]
    report = tmp_path / "report.json"
    assert train.main([*argv, "--max-iterations", "5", "--n-jobs", "1", "--quiet", "--report-json", str(report)]) == 0
    card = read_card(tmp_path / "crf")
    scores = json.loads(report.read_text(encoding="utf-8"))
    assert card["evaluation"]["split"] == "dev"
    assert card["evaluation"]["ner_f1"] == scores["ner_f1"] and card["evaluation"]["n_documents"] == 1
    assert "per_type" not in card["evaluation"]
    assert card["training_data"]["train"] == ["train"]
    assert card["hyperparameters"]["max_iterations"] == 5


def test_the_run_file_records_deid_crf_and_faker_versions(tmp_path, tiny_model_dir, tiny_corpus, capsys):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text(tiny_corpus[0].text, encoding="utf-8")
    out = tmp_path / "out"
    argv = [str(notes), "-o", str(out), "--model", str(tiny_model_dir), "-j", "1", "--format", "surrogate"]
    assert tag_main([*argv, "--seed", "3"]) == 0
    record = json.loads((out / batch.RUN_FILE).read_text(encoding="utf-8"))
    assert record["versions"] == {"deid-crf": metadata.version("deid-crf"), "faker": metadata.version("faker")}

    # Resuming over outputs an older Faker wrote: allowed, with a warning naming both versions.
    record["versions"]["faker"] = "1.0.0"
    (out / batch.RUN_FILE).write_text(json.dumps(record), encoding="utf-8")
    before = (out / "a.txt").read_bytes()
    capsys.readouterr()
    assert tag_main([*argv, "--seed", "3"]) == 0
    err = capsys.readouterr().err
    assert f"earlier outputs were written with deid-crf {metadata.version('deid-crf')}, faker 1.0.0" in err
    assert f"this run uses deid-crf {metadata.version('deid-crf')}, faker {metadata.version('faker')}" in err
    assert (out / "a.txt").read_bytes() == before  # nothing redone
    assert json.loads((out / batch.RUN_FILE).read_text(encoding="utf-8"))["versions"]["faker"] != "1.0.0"

    # A record written before versions were recorded gets them, without a warning.
    del record["versions"]
    (out / batch.RUN_FILE).write_text(json.dumps(record), encoding="utf-8")
    assert tag_main([*argv, "--seed", "3"]) == 0
    assert "earlier outputs" not in capsys.readouterr().err
    assert "versions" in json.loads((out / batch.RUN_FILE).read_text(encoding="utf-8"))
    shutil.rmtree(out)
