"""A model's config.json is checked against declared ranges and types, its paths must
stay inside the model folder, and its arrays are checked before they are read: a bad
model is one error at load (exit status 2, one line naming the file), never a huge
allocation, a per-document failure or a file read from elsewhere."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from deid_crf.config import LIMITS, CRFConfig, FeatureConfig, TaggerConfig, check_config
from deid_crf.io.persistence import InvalidModel, load_arrays, write_manifest
from deid_crf.resources.embeddings import _centroid_problem
from deid_crf.tag import main


@pytest.fixture
def model_copy(tiny_model_dir, tmp_path) -> Path:
    copy = tmp_path / "model"
    shutil.copytree(tiny_model_dir, copy)
    return copy


def edit_config(model: Path, section: str, **values) -> None:
    """Change config.json as a crafted model would, its manifest written again to match
    (a manifest finds damage, it is no signature)."""
    meta = json.loads((model / "config.json").read_text(encoding="utf-8"))
    meta["config"][section].update(values)
    (model / "config.json").write_text(json.dumps(meta), encoding="utf-8")
    write_manifest(model)


def tag_with(model: Path, tmp_path: Path, capsys) -> tuple[int, str]:
    note = tmp_path / "nota.txt"
    note.write_text("Nombre: Zebulonio.\n", encoding="utf-8")
    status = main([str(note), "--model", str(model), "-j", "1"])
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    "section, values, problem",
    [
        ("features", {"window": 1_000_000_000}, "window must be from 0 to 8"),
        ("features", {"affix_lengths": [1, 1_000_000]}, "affix_lengths items must be from 1 to 16"),
        ("features", {"window": "2"}, "window must be an integer, not str"),
        ("features", {"groups": ["lower", 3]}, "groups must hold str items"),
        ("features", {"pos_backend": "torch"}, "pos_backend must be one of"),
        ("tokenizer", {"abbreviations": ["dr"] * 20_000}, "abbreviations must have from 0 to 10000 items"),
        ("tokenizer", {"split_case_joins": "yes"}, "split_case_joins must be a boolean"),
        ("crf", {"c1": -1}, "c1 must be from 0 to"),
        ("crf", {"max_iterations": 1e300}, "max_iterations must be an integer"),
    ],
)
def test_out_of_range_configs_are_refused_at_load(section, values, problem, model_copy, tmp_path, capsys):
    edit_config(model_copy, section, **values)
    status, err = tag_with(model_copy, tmp_path, capsys)
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"error: cannot load model: {model_copy / 'config.json'}: invalid model configuration")
    assert problem in err


@pytest.mark.parametrize(
    "values",
    [{"groups": ["lower", "no_such_group"]}, {"window_columns": ["w", "no_such_column"]}],
)
def test_parts_that_do_not_fit_are_refused_at_load(values, model_copy, tmp_path, capsys):
    edit_config(model_copy, "features", **values)
    status, err = tag_with(model_copy, tmp_path, capsys)
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"error: cannot load model: {model_copy}: the model's files do not fit together")


@pytest.mark.parametrize("value", ["/etc", "../outside", "gazetteers/../../outside", "missing", "link", None])
def test_resource_paths_stay_inside_the_model_folder(value, model_copy, tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    (model_copy / "link").symlink_to(outside, target_is_directory=True)
    groups = [*FeatureConfig.groups, "gazetteers"]
    edit_config(model_copy, "features", groups=groups, gazetteer_dir=value)
    status, err = tag_with(model_copy, tmp_path, capsys)
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"error: cannot load model: {model_copy / 'config.json'}: features.gazetteer_dir")
    assert any(p in err for p in ("must be a path inside", "is missing from", "leads outside"))


def test_declared_ranges_hold_for_the_defaults():
    for config in (TaggerConfig().tokenizer, TaggerConfig().features, CRFConfig()):
        assert check_config(config) is config
    assert LIMITS["FeatureConfig.window"] == (0, 8)


def write_npz(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def npy_header(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape}, }}".encode()
    header += b" " * (63 - len(header) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header


def test_arrays_are_checked_before_they_are_read(tmp_path):
    # A header that claims 40 GB: refused without allocating it.
    write_npz(tmp_path / "claims.npz", {"k64.npy": npy_header((10_000_000_000,)) + b"\x00" * 64})
    with pytest.raises(InvalidModel, match=r"claims\.npz: array 'k64' is over the size limit"):
        load_arrays(tmp_path / "claims.npz")
    # Data that inflate past the limit (a zip bomb in small): refused on the sizes.
    np.savez_compressed(tmp_path / "bomb.npz", k64=np.zeros((1 << 20,), dtype=np.float32))
    assert (tmp_path / "bomb.npz").stat().st_size < 10_000
    with pytest.raises(InvalidModel, match="over the size limit"):
        load_arrays(tmp_path / "bomb.npz", max_bytes=1 << 20)
    assert load_arrays(tmp_path / "bomb.npz", max_bytes=8 << 20)["k64"].shape == (1 << 20,)
    # Centroids of the wrong count, name or dimension.
    np.savez(tmp_path / "clusters.npz", k64=np.zeros((64, 16), np.float32), k9999=np.zeros((9999, 16), np.float32))
    with pytest.raises(InvalidModel, match="array 'k9999' is not named k<number of clusters"):
        load_arrays(tmp_path / "clusters.npz", expect=lambda *header: _centroid_problem(16, *header))
    np.savez(tmp_path / "dims.npz", k64=np.zeros((64, 8), np.float32))
    with pytest.raises(InvalidModel, match="must hold 64 float centroids of dimension 16"):
        load_arrays(tmp_path / "dims.npz", expect=lambda *header: _centroid_problem(16, *header))
