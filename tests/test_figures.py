"""Each figure function renders tiny synthetic results to a PNG; the command line
skips, saying why, what it has no inputs for; the heat map's grid comes from results
rows as the grid search writes them."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure

from deid_crf.experiments import figures
from deid_crf.experiments.error_analysis import BOUNDARY, MISSED, WRONG_TYPE, confusion_matrix
from deid_crf.scoring.meddocan import Scores
from deid_crf.text.document import Document, Entity

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _grid_rows() -> list[dict[str, str]]:
    rows = []
    for c1, c2, f1 in [("0.03", "0.01", "0.95"), ("0.03", "0.05", "0.96"), ("0.1", "0.01", "0.94")]:
        rows.append({"point_id": f"p{c1}{c2}", "kind": "crf", "c1": c1, "c2": c2, "features.window": "2"})
        rows[-1] |= {"eval": "dev", "train": "train", "folds": "0", "limit": "30", "ner_f1": f1, "train_seconds": c1}
    rows.append({**rows[0], "point_id": "w1", "features.window": "1", "ner_f1": "0.97"})  # another setting
    rows.append({"point_id": "svm", "kind": "svm", "C": "0.1", "c1": "", "c2": "", "ner_f1": "0.99"})
    return rows


def _documents() -> tuple[list[Document], list[Document]]:
    text = "Juan Pérez vive en Madrid desde 2016."
    gold = [Document("a", text, [Entity(0, 10, "NOMBRE"), Entity(19, 25, "TERRITORIO"), Entity(32, 36, "FECHAS")])]
    system = [Document("a", text, [Entity(0, 4, "NOMBRE"), Entity(19, 25, "PAIS"), Entity(32, 36, "FECHAS")])]
    return gold, system


def _check_png(fig: Figure, path: Path) -> None:
    assert isinstance(fig, Figure)
    assert all(ax.get_xlabel() and ax.get_ylabel() for ax in fig.axes if ax.get_label() != "<colorbar>")
    fig.savefig(path)
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 1000


def test_error_analysis_figures(tmp_path: Path):
    gold, system = _documents()
    types = figures.types_by_support(gold, system)
    assert types == ["FECHAS", "NOMBRE", "TERRITORIO", "PAIS"]  # gold types first, predicted-only last
    _check_png(figures.confusion_matrix_figure(confusion_matrix(gold, system, types=types)), tmp_path / "cm.png")
    per_type = {"NOMBRE": Scores(3, 1, 0), "FECHAS": Scores(10, 0, 2), "PAIS": Scores(0, 1, 0)}
    _check_png(figures.per_type_scores_figure(per_type, "per type"), tmp_path / "per_type.png")
    causes = {"NOMBRE": {MISSED: 2, BOUNDARY: 1}, "TERRITORIO": {WRONG_TYPE: 1}}
    _check_png(figures.false_negatives_figure(causes), tmp_path / "fn.png")


def test_learning_curve_figure(tmp_path: Path):
    fig = figures.learning_curve_figure(
        [25, 50, 100],
        {"CRF": [0.8, 0.85, 0.9], "SVM": [0.7, 0.8, 0.85]},
        {"CRF": [0.3, 0.2, 0.1], "SVM": [0.4, 0.3, 0.2]},
    )
    _check_png(fig, tmp_path / "lc.png")


def test_c1_c2_grid_and_heatmap(tmp_path: Path):
    grid = figures.c1_c2_grid(_grid_rows())
    assert grid.c1s == [0.03, 0.1] and grid.c2s == [0.01, 0.05]
    assert grid.f1[0].tolist() == [0.95, 0.96] and grid.f1[1, 0] == 0.94 and np.isnan(grid.f1[1, 1])
    assert {r["point_id"] for r in grid.rows} == {"p0.030.01", "p0.030.05", "p0.10.01"}  # not the window-1 point
    assert figures.heatmap_title(grid) == "CRF NER F1, dev (3 points, first 30 documents of each split)"
    _check_png(figures.grid_heatmap_figure(grid), tmp_path / "heatmap.png")
    with pytest.raises(ValueError, match="no CRF point"):
        figures.c1_c2_grid(_grid_rows()[-1:])


def test_command_line_skips_what_it_has_no_inputs_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "figures"
    argv = ["--model", str(tmp_path / "no-model"), "--grid-csv", str(tmp_path / "none.csv"), "--out", str(out)]
    assert figures.main([*argv, "--only", "confusion_matrix", "crf_c1_c2_heatmap"]) == 0
    err = capsys.readouterr().err
    assert "no model in" in err and "make train-crf" in err
    assert "no grid results in" in err and "make grid-search" in err
    assert list(out.iterdir()) == []
    assert matplotlib.get_backend().lower() == "agg"


def test_command_line_renders_the_heat_map_from_a_results_table(tmp_path: Path):
    rows = _grid_rows()
    columns = list(dict.fromkeys(k for row in rows for k in row))
    csv_path = tmp_path / "grid.csv"
    lines = [",".join(columns)] + [",".join(row.get(c, "") for c in columns) for row in rows]
    csv_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "figures"
    assert figures.main(["--grid-csv", str(csv_path), "--out", str(out), "--only", "crf_c1_c2_heatmap"]) == 0
    assert (out / "crf_c1_c2_heatmap.png").read_bytes().startswith(PNG_MAGIC)
