"""The training command line on a tiny synthetic BRAT corpus (the run on the shared
MEDDOCAN data is in ``test_end_to_end.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deid_crf import train
from deid_crf.config import RunConfig
from deid_crf.io.brat import write_brat_dir
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.text.document import Document


@pytest.fixture
def data_root(tmp_path: Path, tiny_corpus: list[Document], unseen_document: Document) -> Path:
    root = tmp_path / "data"
    write_brat_dir(tiny_corpus, root / "meddocan" / "train")
    write_brat_dir([unseen_document], root / "meddocan" / "dev")
    return root


def test_train_saves_model_and_prints_report(data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    config = tmp_path / "crf.toml"
    config.write_text('[features]\npreset = "core"\nwindow = 1\n\n[model]\nkind = "crf"\nc1 = 0.1\n', encoding="utf-8")
    argv = ["--data-dir", str(data_root), "--model-dir", str(tmp_path / "crf"), "--config", str(config)]
    assert train.main([*argv, "--max-iterations", "10", "--n-jobs", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "== evaluation on dev ==" in out and "Subtask 1 [NER]" in out and "Leak" in out
    loaded = DeidTagger.load(tmp_path / "crf")
    # File settings, then flags: window and c1 from the file, max_iterations from the flag.
    assert (loaded.feature_config.window, loaded.c1, loaded.max_iterations) == (1, 0.1, 10)


def test_train_without_evaluation(data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    argv = ["--data-dir", str(data_root), "--train", "train", "dev", "--eval", "none", "--features", "core"]
    assert train.main([*argv, "--model-dir", str(tmp_path / "crf"), "--max-iterations", "3", "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    assert DeidTagger.load(tmp_path / "crf").max_iterations == 3


def test_train_missing_data_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    argv = ["--data-dir", str(tmp_path), "--model-dir", str(tmp_path / "crf"), "--features", "core", "--quiet"]
    assert train.main(argv) == 2
    assert "not a directory" in capsys.readouterr().err
    assert not (tmp_path / "crf").exists()


def test_default_features_need_built_resources(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    """The default (full) feature set reads the POS model and embeddings from models/:
    where they are not built, training stops before it starts, saying what to build."""
    monkeypatch.chdir(tmp_path)  # no models/ here
    assert train.main(["--data-dir", str(data_root), "--model-dir", str(tmp_path / "crf"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "models/pos/config.json" in err and "models/embeddings/vectors.bin" in err
    assert "make pos-model embeddings gazetteers" in err and "--features core" in err
    assert not (tmp_path / "crf").exists()


def test_load_config(tmp_path: Path):
    assert train.load_config(None) == RunConfig()
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"features": {"groups": ["lower", "shape"]}}), encoding="utf-8")
    assert train.load_config(path).features.groups == ("lower", "shape")
    path.write_text(json.dumps({"crf": {"c1": 1.0}}), encoding="utf-8")
    with pytest.raises(SystemExit, match=r"c\.json: unknown table\(s\) \['crf'\]"):
        train.load_config(path)
    path.write_text(json.dumps({"features": {"window": "wide"}}), encoding="utf-8")
    with pytest.raises(SystemExit, match=r"c\.json: features\.window: expected int, got str"):
        train.load_config(path)
    path.write_text(json.dumps({"model": {"kind": "crf", "c3": 1.0}}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"c\.json: unknown crf parameter\(s\) \['c3'\]"):
        train.build_tagger(train.load_config(path), n_jobs=1, verbose=False, source=str(path))
    with pytest.raises(SystemExit, match="cannot read config"):
        train.load_config(tmp_path / "missing.toml")


def test_feature_presets_name_registered_groups_and_override_the_config(data_root: Path, tmp_path: Path, capsys):
    from deid_crf.features.registry import GROUPS

    from deid_crf.config import FEATURE_PRESETS, FeatureConfig, full_feature_config

    full = full_feature_config()
    assert set(full.groups) <= set(GROUPS) and set(FeatureConfig().groups) < set(full.groups)
    assert FEATURE_PRESETS["core"]() == FeatureConfig()
    # --features core wins over a config file's [features].
    config = tmp_path / "crf.toml"
    config.write_text('[features]\ngroups = ["lower"]\nwindow_columns = []\n', encoding="utf-8")
    argv = ["--data-dir", str(data_root), "--model-dir", str(tmp_path / "crf"), "--config", str(config)]
    assert train.main([*argv, "--features", "core", "--max-iterations", "3", "--eval", "none", "--quiet"]) == 0
    assert DeidTagger.load(tmp_path / "crf").feature_config.groups == FeatureConfig().groups
    with pytest.raises(SystemExit):
        train.main([*argv, "--features", "everything"])


def test_a_saved_models_config_trains_the_same_model_again(data_root: Path, tmp_path: Path):
    """A saved model's config.json is a run config: training from it reproduces the model."""
    config = tmp_path / "crf.toml"
    config.write_text('[features]\npreset = "core"\nwindow = 1\n\n[model]\nc1 = 0.1\nmax_iterations = 5\n')
    first, second = tmp_path / "first", tmp_path / "second"
    common = ["--data-dir", str(data_root), "--eval", "none", "--n-jobs", "1", "--quiet"]
    assert train.main([*common, "--config", str(config), "--model-dir", str(first)]) == 0
    assert train.main([*common, "--config", str(first / "config.json"), "--model-dir", str(second)]) == 0
    saved = [json.loads((d / "config.json").read_text(encoding="utf-8")) for d in (first, second)]
    assert saved[0] == saved[1]
    assert (first / "model.crfsuite").read_bytes() == (second / "model.crfsuite").read_bytes()
    reloaded = train.load_config(first / "config.json")
    assert (reloaded.features.window, reloaded.model.params["c1"], reloaded.model.params["max_iterations"]) == (
        1,
        0.1,
        5,
    )


@pytest.mark.parametrize("name", ["crf.toml", "crf-core.toml", "svm.toml"])
def test_shipped_configs_parse_and_build_their_estimator(name: str):
    repo = Path(__file__).resolve().parents[1]
    config = train.load_config(repo / "configs" / name)
    tagger = train.build_tagger(config, n_jobs=1, verbose=False, source=name)
    assert type(tagger).__name__ == {"crf": "DeidTagger", "svm": "WindowSVMTagger"}[config.model.kind]
    assert tagger.feature_config == config.features
    if name == "crf.toml":  # the file states the defaults: the same as no config at all
        default = train.build_tagger(train.load_config(None), n_jobs=1, verbose=False)
        assert tagger.get_params() == default.get_params()
