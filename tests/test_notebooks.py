"""The notebooks of notebooks/: stored clean, and executed top to bottom by papermill
on small settings against the shared MEDDOCAN data (slow: ~20 s each), rendering their
plots and showing no gold entity text."""

from __future__ import annotations

from pathlib import Path

import nbformat
import papermill
import pytest

from deid_crf.experiments.notebooks import ADDED_TAGS, PARAMETERS_TAG, main
from deid_crf.io.brat import read_brat_dir

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# A c1 x c2 grid (plus one SVM point) on the first GRID_LIMIT documents of each split.
GRID_LIMIT = 30
TINY_GRID = f"""
[data]
train = ["train"]
eval = "dev"
limit = {GRID_LIMIT}

[[model]]
kind = "crf"
c1 = [0.03, 0.3]
c2 = [0.01, 0.1]
max_iterations = [10]
[model.features]
preset = "core"

[[model]]
kind = "svm"
C = [0.1]
"""

# notebook -> (small parameters, figures it saves, training / dev documents it reads)
N_TRAIN, N_DEV = 40, 20
CASES = {
    "error_analysis": (
        {"n_train": N_TRAIN, "n_dev": N_DEV, "max_iterations": 10, "n_jobs": 1},
        {"confusion_matrix.png", "per_type_scores.png", "false_negatives.png"},
        (N_TRAIN, N_DEV),
    ),
    "learning_curve": (
        {"train_sizes": [10, 20, N_TRAIN], "n_dev": N_DEV, "max_iterations": 10, "n_jobs": 1},
        {"learning_curve.png"},
        (N_TRAIN, N_DEV),
    ),
    "recall_first": (
        {"n_train": N_TRAIN, "n_dev": N_DEV, "max_iterations": 10, "n_jobs": 1, "thresholds": [None, 0.5, 0.05]},
        {"recall_first_curve.png"},
        (N_TRAIN, N_DEV),
    ),
    "grid_search": (
        {"n_jobs": 1, "use_cache": False},  # + grid_config, results_csv in the test
        {"crf_c1_c2_heatmap.png"},
        (GRID_LIMIT, GRID_LIMIT),
    ),
}


def test_every_notebook_is_tested():
    assert {p.stem for p in NOTEBOOKS.glob("*.ipynb")} == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_notebook_is_stored_clean_with_parameters(name: str):
    path = NOTEBOOKS / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code), "store notebooks with outputs cleared"
    assert not any(ADDED_TAGS & set(c.metadata.get("tags", [])) for c in nb.cells)
    assert "papermill" not in nb.metadata
    declared = set(papermill.inspect_notebook(str(path)))
    assert {"data_dir", "n_jobs", "output_dir"} <= declared
    assert set(CASES[name][0]) <= declared


def _notebook(parameters_source: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("import math"),
            nbformat.v4.new_code_cell(parameters_source, metadata={"tags": [PARAMETERS_TAG]}),
            nbformat.v4.new_code_cell("print(n * 2)"),
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def test_papermill_run_then_clear_gives_back_the_stored_notebook(tmp_path: Path):
    path, executed_path = tmp_path / "nb.ipynb", tmp_path / "out" / "nb.ipynb"
    executed_path.parent.mkdir()
    nbformat.write(_notebook("n = 1"), path)
    executed = papermill.execute_notebook(
        str(path), str(executed_path), parameters={"n": [3]}, cwd=str(tmp_path), progress_bar=False
    )
    assert executed.cells[-1].outputs[0].text == "[3, 3]\n"
    assert "injected-parameters" in executed.cells[2].metadata.tags

    assert main([str(executed_path)]) == 0
    cleared = nbformat.read(executed_path, as_version=4)
    assert all(c.get("outputs", []) == [] and c.get("execution_count") is None for c in cleared.cells)
    assert [c.source for c in cleared.cells] == [c.source for c in _notebook("n = 1").cells]
    assert "papermill" not in cleared.metadata and not any("papermill" in c.metadata for c in cleared.cells)


def _output_texts(nb: nbformat.NotebookNode) -> list[str]:
    """Every text a reader sees in the outputs (images excluded)."""
    texts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                texts.append(output.text)
            elif output.output_type == "error":
                texts.extend([output.ename, output.evalue, *output.traceback])
            else:
                texts.extend(str(v) for k, v in output.get("data", {}).items() if not k.startswith("image/"))
    return texts


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_notebook_runs_and_renders_plots_without_phi(name: str, data_dir: Path, tmp_path: Path):
    parameters, figures, (n_train, n_dev) = CASES[name]
    parameters = {**parameters, "data_dir": str(data_dir), "output_dir": str(tmp_path / "figures")}
    if name == "grid_search":
        grid = tmp_path / "tiny-grid.toml"
        grid.write_text(TINY_GRID, encoding="utf-8")
        parameters |= {"grid_config": str(grid), "results_csv": str(tmp_path / "results.csv")}

    executed = papermill.execute_notebook(
        str(NOTEBOOKS / f"{name}.ipynb"),
        str(tmp_path / f"{name}.ipynb"),
        parameters=parameters,
        cwd=str(tmp_path),
        progress_bar=False,
        execution_timeout=300,
    )

    outputs = [o for c in executed.cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == len(figures), "each figure is shown once"
    for figure in figures:
        assert (tmp_path / "figures" / figure).read_bytes().startswith(PNG_MAGIC), figure

    # No gold entity text of the documents the notebook read may show in its outputs.
    docs = (
        read_brat_dir(data_dir / "meddocan" / "train")[:n_train] + read_brat_dir(data_dir / "meddocan" / "dev")[:n_dev]
    )
    phi = {d.text[e.start : e.end] for d in docs for e in d.entities} - {""}
    phi = {s for s in phi if len(s) >= 4}
    assert len(phi) > 100  # the check below has something to find
    shown = "\n".join(_output_texts(executed))
    assert "F1" in shown
    leaked = [s for s in phi if s in shown]
    assert not leaked, f"{len(leaked)} gold entity strings appear in the outputs of {name}"
