"""One persistence scheme for every model: a staging folder renamed into place, a
versioned header, clear errors; used by the CRF, SVM and POS taggers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from deid_crf.config import svm_feature_config
from deid_crf.io.persistence import (
    CONFIG_FILE,
    MANIFEST_FILE,
    ModelFormat,
    ModelNotFoundError,
    load_arrays,
    read_model_dir,
    write_model_dir,
)
from deid_crf.models import DeidTagger, WindowSVMTagger, load_model
from deid_crf.models.crf import CRFModel
from deid_crf.resources.pos import PosTagger
from deid_crf.text.document import Document

TOY = ModelFormat("deid-crf-toy", 2, "toy", build_hint="run `make toy`")


def write_toy(directory: Path, value: int) -> Path:
    def write(staging: Path) -> dict:
        (staging / "value.txt").write_text(str(value), encoding="utf-8")
        return {"value": value}

    return write_model_dir(directory, TOY, write)


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file below ``directory`` and its bytes."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_header_and_round_trip(tmp_path: Path):
    directory = write_toy(tmp_path / "toy", 1)
    meta = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
    assert list(meta) == ["format", "version", "kind", "value"]
    assert (meta["format"], meta["version"], meta["kind"]) == ("deid-crf-toy", 2, "toy")
    assert read_model_dir(directory, TOY)["value"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy"]  # no staging folder left


def test_replacing_a_model_is_all_or_nothing(tmp_path: Path):
    directory = write_toy(tmp_path / "toy", 1)
    before = snapshot(directory)

    def fail_midway(staging: Path) -> dict:
        (staging / "value.txt").write_text("partial", encoding="utf-8")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_model_dir(directory, TOY, fail_midway)
    assert snapshot(directory) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy"]
    write_toy(directory, 2)
    assert read_model_dir(directory, TOY)["value"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy"]


def test_a_failed_final_rename_puts_the_old_model_back(tmp_path: Path, monkeypatch):
    directory = write_toy(tmp_path / "toy", 1)
    before = snapshot(directory)
    rename = Path.rename

    def failing_rename(self: Path, target):
        if self.name.endswith(".saving") and Path(target) == directory:
            raise OSError("rename failed")
        return rename(self, target)

    monkeypatch.setattr(Path, "rename", failing_rename)
    with pytest.raises(OSError, match="rename failed"):
        write_toy(directory, 2)
    assert snapshot(directory) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy"]


def test_a_directory_that_is_not_a_model_is_never_replaced(tmp_path: Path):
    (tmp_path / "notas.txt").write_text("precious\n", encoding="utf-8")
    (tmp_path / CONFIG_FILE).write_text('{"not": "a model"}', encoding="utf-8")
    with pytest.raises(FileExistsError, match="does not hold a model"):
        write_toy(tmp_path, 1)
    assert (tmp_path / "notas.txt").read_text(encoding="utf-8") == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [CONFIG_FILE, "notas.txt"]
    with pytest.raises(FileExistsError, match="not a directory"):
        write_toy(tmp_path / "notas.txt", 1)
    (tmp_path / "empty").mkdir()
    assert read_model_dir(write_toy(tmp_path / "empty", 3), TOY)["value"] == 3


def test_load_errors_name_the_file(tmp_path: Path):
    missing = r"no trained model in .*missing \(missing config.json\); run `make toy`"
    with pytest.raises(ModelNotFoundError, match=missing):
        read_model_dir(tmp_path / "missing", TOY)
    directory = write_toy(tmp_path / "toy", 1)
    (directory / MANIFEST_FILE).unlink()  # as saved before manifests: config.json itself is checked
    config = directory / CONFIG_FILE
    meta = json.loads(config.read_text(encoding="utf-8"))
    for content, message in (
        ("{not json", "unreadable model configuration .invalid JSON at line 1 column 2"),
        ("[1, 2]", "unreadable model configuration .not a JSON object"),
        (b"\xff\xfe\x00", "unreadable model configuration .UnicodeDecodeError"),
        (json.dumps({**meta, "format": "deid-crf-tagger"}), "not a deid-crf-toy model .format 'deid-crf-tagger'"),
        (json.dumps({**meta, "version": 3}), "deid-crf-toy model of version 3; this deid-crf reads version 2"),
        (json.dumps({**meta, "kind": "crf"}), "a 'crf' model, not a 'toy' model"),
    ):
        if isinstance(content, bytes):
            config.write_bytes(content)
        else:
            config.write_text(content, encoding="utf-8")
        with pytest.raises(ValueError, match=message) as error:
            read_model_dir(directory, TOY)
        assert str(error.value).startswith(str(config))


def test_arrays_are_read_without_pickle(tmp_path: Path):
    np.savez(tmp_path / "objects.npz", names=np.array(["Ana", None], dtype=object))
    with pytest.raises(ValueError, match=r"objects\.npz: array 'names' holds Python objects"):
        load_arrays(tmp_path / "objects.npz")
    (tmp_path / "broken.npz").write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(ValueError, match=r"broken\.npz: unreadable arrays"):
        load_arrays(tmp_path / "broken.npz")
    with pytest.raises(FileNotFoundError, match=r"missing\.npz: missing model file"):
        load_arrays(tmp_path / "missing.npz")


# -- the models ---------------------------------------------------------------------


def test_crf_save_failing_midway_keeps_the_old_model(
    tiny_tagger: DeidTagger, tiny_corpus: list[Document], tmp_path: Path, monkeypatch
):
    directory = tiny_tagger.save(tmp_path / "crf")
    before = snapshot(directory)

    def failing_save(self: CRFModel, target: Path) -> None:
        (Path(target) / "model.crfsuite").write_bytes(b"half a model")
        raise OSError("disk full")

    monkeypatch.setattr(CRFModel, "save", failing_save)
    other = DeidTagger(max_iterations=3).fit(tiny_corpus[:2])
    with pytest.raises(OSError, match="disk full"):
        other.save(directory)
    assert snapshot(directory) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crf"]
    assert DeidTagger.load(directory).predict(tiny_corpus) == tiny_tagger.predict(tiny_corpus)


@pytest.fixture(scope="module")
def svm_with_pos(tiny_corpus: list[Document], pos_sentences, tmp_path_factory) -> WindowSVMTagger:
    """A window SVM whose features use a POS model, bundled into its saved directory."""
    pos_dir = PosTagger(n_features=2**12).fit(pos_sentences).save(tmp_path_factory.mktemp("pos") / "pos")
    base = svm_feature_config()
    features = replace(base, groups=(*base.groups, "pos"), pos_model=str(pos_dir))
    return WindowSVMTagger(feature_config=features, n_features=2**14).fit(tiny_corpus)


def test_svm_save_deletes_nothing_before_the_new_model_is_complete(
    svm_with_pos: WindowSVMTagger, tiny_corpus: list[Document], tmp_path: Path, monkeypatch
):
    directory = svm_with_pos.save(tmp_path / "svm")
    assert (directory / "pos_model" / "weights.npz").is_file()
    before = snapshot(directory)

    def failing_save_arrays(path: Path, arrays) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("deid_crf.models.svm.save_arrays", failing_save_arrays)
    with pytest.raises(OSError, match="disk full"):
        svm_with_pos.save(directory)
    assert snapshot(directory) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["svm"]
    monkeypatch.undo()
    loaded = load_model(directory)
    assert loaded.predict(tiny_corpus) == svm_with_pos.predict(tiny_corpus)
    svm_with_pos.save(directory)  # and replacing it works
    assert snapshot(directory).keys() == before.keys()


def test_svm_v1_models_saved_before_max_iter_and_the_decoders_still_load(
    svm_with_pos: WindowSVMTagger, tiny_corpus: list[Document], tmp_path: Path
):
    directory = svm_with_pos.save(tmp_path / "svm")
    meta = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
    assert (meta["format"], meta["version"], meta["kind"]) == ("deid-crf-svm", 1, "svm")
    for key in ("max_iter", "classifier", "decoder"):
        del meta["params"][key]
    (directory / CONFIG_FILE).write_text(json.dumps(meta), encoding="utf-8")
    (directory / MANIFEST_FILE).unlink()  # v1 models were saved before manifests
    loaded = load_model(directory)
    assert (loaded.decoder, loaded.classifier, loaded.max_iter) == ("repair", "linear_svc", 2000)
    assert loaded.classes_ == svm_with_pos.classes_ and loaded.entity_types_ == svm_with_pos.entity_types_


def test_pos_v1_models_without_kind_still_load(pos_sentences, tmp_path: Path):
    tagger = PosTagger(n_features=2**12).fit(pos_sentences)
    directory = tagger.save(tmp_path / "pos")
    meta = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
    assert (meta["format"], meta["version"], meta["kind"]) == ("deid-crf-pos", 2, "pos")
    # Version 1 held every hashed feature's float32 weights, per head, and no "kind".
    dense = tagger.weights_[tagger.feature_rows_].T
    n_upos = len(tagger.classes_["upos"])
    heads = {"upos": dense[:n_upos], "eagles2": dense[n_upos:]}
    np.savez_compressed(
        directory / "weights.npz",
        **{f"coef_{h}": w for h, w in heads.items()},
        **{f"intercept_{h}": tagger.intercept_[h] for h in heads},
    )
    meta["version"] = 1
    del meta["kind"]
    (directory / CONFIG_FILE).write_text(json.dumps(meta), encoding="utf-8")
    (directory / MANIFEST_FILE).unlink()  # v1 models were saved before manifests
    loaded = PosTagger.load(directory)
    assert loaded.scale_ is None  # its float32 weights kept as they are
    assert np.array_equal(loaded.weights_[loaded.feature_rows_], tagger.weights_[tagger.feature_rows_])
    assert loaded.predict([["El", "dolor", "."]]) == tagger.predict([["El", "dolor", "."]])
    with pytest.raises(ValueError, match="not a tagger model"):
        load_model(directory)
    with pytest.raises(ValueError, match=r"not a deid-crf-tagger model .format 'deid-crf-pos'"):
        DeidTagger.load(directory)


@pytest.mark.parametrize("cls", [DeidTagger, WindowSVMTagger, PosTagger])
def test_a_damaged_or_foreign_config_names_the_file(cls, tmp_path: Path):
    config = tmp_path / CONFIG_FILE
    name = cls.model_format.name
    for content, message in (
        ("{not json", "unreadable model configuration"),
        (json.dumps({"format": "something-else", "version": 1}), f"not a {name} model"),
        (json.dumps({"format": name, "version": 99}), f"reads version {cls.model_format.version}"),
        (json.dumps({"format": name, "version": 1}), r"invalid model configuration \(KeyError"),
        (
            json.dumps({"format": name, "version": 1, "config": {"crf": {"c3": 1}}, "params": {}, "features": {}}),
            "invalid model configuration",
        ),
    ):
        config.write_text(content, encoding="utf-8")
        with pytest.raises(ValueError, match=message) as error:
            cls.load(tmp_path)
        assert str(error.value).startswith(str(config))


def test_arrays_that_barely_compress_are_stored_and_load_as_before(tmp_path):
    import zipfile

    from deid_crf.io.persistence import load_arrays, save_arrays

    rng = np.random.default_rng(0)
    arrays = {
        "noise": rng.integers(-32768, 32767, size=(300, 64), dtype=np.int16),  # like the subword rows
        "zeros": np.zeros(5000, dtype=np.int64),
        "empty": np.zeros((0, 3), dtype=np.float32),
    }
    path = tmp_path / "a.npz"
    save_arrays(path, arrays)
    kinds = {i.filename: i.compress_type for i in zipfile.ZipFile(path).infolist()}
    assert kinds["noise.npy"] == zipfile.ZIP_STORED and kinds["zeros.npy"] == zipfile.ZIP_DEFLATED
    for loaded in (load_arrays(path), dict(np.load(path, allow_pickle=False))):
        assert set(loaded) == set(arrays)
        for name, array in arrays.items():
            assert loaded[name].dtype == array.dtype and np.array_equal(loaded[name], array)
    again = tmp_path / "b.npz"
    save_arrays(again, arrays)
    assert again.read_bytes() == path.read_bytes()  # no time stamps: the same arrays, the same file
    # files written before (every member compressed) load as they did
    older = tmp_path / "older.npz"
    np.savez_compressed(older, **arrays)
    assert all(np.array_equal(load_arrays(older)[name], array) for name, array in arrays.items())
