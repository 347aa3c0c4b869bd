"""Grid search: config parsing, the featurization cache, resumable results, parallel
points, and the estimators inside scikit-learn's GridSearchCV."""

from __future__ import annotations

import csv
import pickle
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import FAKE_PHI, PATIENTS, UNSEEN, patient_document
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold

from deid_crf.config import FeatureConfig
from deid_crf.experiments import grid as grid_module
from deid_crf.experiments.grid import SCORE_COLUMNS, ResultsTable, meddocan_f1_scorer, meddocan_scorer, run_grid
from deid_crf.experiments.grid import main as grid_main
from deid_crf.experiments.grid_config import GridConfigError, load_grid
from deid_crf.io.brat import write_brat_dir
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.models.svm import WindowSVMTagger
from deid_crf.scoring.meddocan import score_documents
from deid_crf.text.document import Document

REPO = Path(__file__).resolve().parents[1]
# More invented patients, so that train and dev differ.
EXTRA = [
    ("Casimira", "Ortuzarre Belmonte", "620193", "02/05/1957", "66"),
    ("Florencio", "Amezketa Robledal", "731845", "18/10/1944", "79"),
    ("Leocadia", "Zubimendi Pradales", "480276", "09/12/1968", "55"),
    ("Hermenegildo", "Txurruka Olmedal", "356912", "27/02/1951", "72"),
    ("Petronila", "Garaikoetxe Salinar", "915034", "11/07/1973", "50"),
]
TIME_COLUMNS = {"featurize_seconds", "train_seconds", "tag_seconds"}
# Tiny, fast training: a few L-BFGS iterations, a small hashed space for the SVM.
CRF_GRID = """
[[model]]
kind = "crf"
c1 = [0.01, 0.5]
c2 = [0.01, 0.1]
max_iterations = 5
"""
SVM_GRID = """
[[model]]
kind = "svm"
C = [0.1]
n_features = 65536
"""


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MEDDOCAN-shaped data directory: 9 training and 3 dev documents."""
    root = tmp_path_factory.mktemp("data")
    patients = PATIENTS + EXTRA + [UNSEEN]
    docs = [patient_document(f"doc{i:02d}", p) for i, p in enumerate(patients)]
    write_brat_dir(docs[:9], root / "meddocan" / "train")
    write_brat_dir(docs[9:], root / "meddocan" / "dev")
    return root


def write_grid(directory: Path, text: str, name: str = "grid.toml") -> Path:
    """A grid file; points start from the core feature set (no trained resources)
    unless the text names a preset."""
    path = directory / name
    core = "" if "preset" in text or "[features]" in text else '[features]\npreset = "core"\n'
    path.write_text(textwrap.dedent(text) + core, encoding="utf-8")
    return path


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def without_times(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{k: v for k, v in row.items() if k not in TIME_COLUMNS} for row in rows]


def cache_entries(cache_dir: Path) -> int:
    """Featurizations stored by joblib.Memory (one output file per computed call)."""
    return len(list(cache_dir.rglob("output.pkl")))


@pytest.fixture
def featurize_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts the estimators' real featurizations in this process (sequential runs)."""
    calls = {"crf": 0, "svm": 0}
    for kind, cls in (("crf", DeidTagger), ("svm", WindowSVMTagger)):
        original = cls.featurize

        def counting(self, X, _original=original, _kind=kind):
            calls[_kind] += 1
            return _original(self, X)

        monkeypatch.setattr(cls, "featurize", counting)
    return calls


# -- configuration ------------------------------------------------------------------------
def test_shipped_example_grid_parses():
    grid = load_grid(REPO / "configs" / "grid-example.toml")
    kinds = [p.kind for p in grid.points]
    assert kinds.count("crf") == 5 and kinds.count("svm") == 2
    assert {(p.params.get("c1"), p.params.get("c2")) for p in grid.points if p.features.window == 2} >= {
        (0.03, 0.01),
        (0.1, 0.05),
    }
    assert grid.data.train == ("train",) and grid.data.eval == "dev" and grid.data.folds == 0
    for point in grid.points:
        estimator = point.estimator()
        assert clone(estimator).get_params() == estimator.get_params()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[[model]]\nkind = "crf"\nc3 = [1.0]\n', "unknown DeidTagger parameter 'c3'"),
        ('[[model]]\nkind = "svm"\ngamma = [1.0]\n', "unknown WindowSVMTagger parameter 'gamma'"),
        ('[[model]]\nkind = "crf"\nc1 = ["0.1"]\n', "model[0].c1: expected float, got str"),
        ('[[model]]\nkind = "crf"\nmax_iterations = [1.5]\n', "model[0].max_iterations: expected int"),
        ('[[model]]\nkind = "crf"\nall_possible_transitions = [1]\n', "expected bool"),
        ('[[model]]\nkind = "crf"\nc1 = []\n', "model[0].c1: no values to try"),
        ('[[model]]\nkind = "crf"\nn_jobs = [2]\n', "model[0].n_jobs: not a grid parameter"),
        ('[[model]]\nkind = "crf"\nfeature_config = [1]\n', "features"),
        ("[model.features]\nwindoww = [1]\n", "unknown FeatureConfig field 'windoww'"),
        ('[model.features]\ngroups = [["lower", "nope"]]\n', "unknown feature group 'nope'"),
        ('[model.features]\nwindow_columns = ["nope"]\n', "window columns ['nope']"),
        ("[model.features]\nwindow = [[1]]\n", "model.features.window: expected int"),
        ('[[model]]\nkind = "crf"\nc1 = [0.1]\n[[model]]\nkind = "crf"\nc2 = [true]\n', "model[1].c2: expected float"),
        ("[rnn]\nx = [1]\n", "unknown table(s) ['rnn']"),
        ('[data]\nsplit = "dev"\n[[model]]\nkind = "crf"\n', "data: unknown key(s) ['split']"),
        ('[data]\nfolds = 1\n[[model]]\nkind = "crf"\n', "data.folds: must be 0"),
        ('[data]\nlimit = -1\n[[model]]\nkind = "crf"\n', "data.limit"),
        ('[data]\neval = "train"\n[[model]]\nkind = "crf"\n', "also a training split"),
        ('[data]\ntrain = "train"\n', "no [model] table"),
        ('[[model]]\nkind = "crf"\nc1 = [0.1\n', "not valid TOML"),
        ("model = 3\n", "model: expected a table of parameter values"),
    ],
)
def test_config_errors_name_the_file_and_key(tmp_path: Path, text: str, expected: str):
    path = write_grid(tmp_path, text, "bad-grid.toml")
    with pytest.raises(GridConfigError) as info:
        load_grid(path)
    message = str(info.value)
    assert message.startswith(f"{path}:")
    assert expected in message


def test_config_value_forms(tmp_path: Path):
    path = write_grid(
        tmp_path,
        """
        [[model]]
kind = "crf"
        c1 = 1              # one value; an int is taken as a float
        [model.features]
        groups = ["lower", "shape", "field_label"]   # a flat list is one value
        window_columns = [["w"], ["w", "label"]]     # a list of lists, several
        [[model]]
kind = "svm"
        class_weight = ["none", "balanced"]          # "none" is None where the default is None
        """,
    )
    grid = load_grid(path)
    crf = [p for p in grid.points if p.kind == "crf"]
    assert [p.params for p in crf] == [{"c1": 1.0}, {"c1": 1.0}]
    assert isinstance(crf[0].params["c1"], float)
    assert {p.features.groups for p in crf} == {("lower", "shape", "field_label")}
    assert [p.features.window_columns for p in crf] == [("w",), ("w", "label")]
    assert [p.params["class_weight"] for p in grid.points if p.kind == "svm"] == [None, "balanced"]
    # Overlapping sub-grids give each configuration once.
    twice = write_grid(
        tmp_path, '[[model]]\nkind = "crf"\nc1 = [0.1, 0.2]\n[[model]]\nkind = "crf"\nc1 = [0.2, 0.3]\n', "twice.toml"
    )
    assert [p.params["c1"] for p in load_grid(twice).points] == [0.1, 0.2, 0.3]
    # Command-line overrides of [data] are checked like the file.
    assert load_grid(path, folds=3, limit=5).data.folds == 3
    with pytest.raises(GridConfigError, match="data.folds"):
        load_grid(path, folds=1)


def test_cli_reports_config_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = write_grid(tmp_path, '[[model]]\nkind = "crf"\nc3 = [1.0]\n', "typo.toml")
    assert grid_module.main([str(path), "--quiet", "--out", str(tmp_path / "r.csv")]) == 2
    err = capsys.readouterr().err
    assert f"error: {path}:" in err and "'c3'" in err
    assert not (tmp_path / "r.csv").exists()


# -- running, cache, resume ---------------------------------------------------------------
@pytest.fixture(scope="module")
def sequential_rows(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, str]]:
    """The CRF 2 x 2 grid + one SVM point, run one point at a time with the cache."""
    tmp = tmp_path_factory.mktemp("sequential")
    grid = load_grid(write_grid(tmp, CRF_GRID + SVM_GRID))
    run_grid(grid, tmp / "r.csv", root=data_root, n_jobs=1, cache_dir=tmp / "cache", progress=False)
    return read_rows(tmp / "r.csv")


def test_results_table_has_one_row_per_point_with_params_and_scores(sequential_rows: list[dict[str, str]]):
    rows = sequential_rows
    assert [r["kind"] for r in rows] == ["crf"] * 4 + ["svm"]
    assert [(r["c1"], r["c2"]) for r in rows[:4]] == [
        ("0.01", "0.01"),
        ("0.01", "0.1"),
        ("0.5", "0.01"),
        ("0.5", "0.1"),
    ]
    assert rows[4]["C"] == "0.1" and rows[4]["c1"] == "" and rows[0]["C"] == ""
    assert len({r["point_id"] for r in rows}) == 5
    for row in rows:
        assert row["train"] == "train" and row["eval"] == "dev" and row["n_documents"] == "3"
        assert row["features.window"] == "2"
        for name in ("ner_p", "ner_r", "ner_f1", "strict_f1", "merged_f1", "leak"):
            assert 0.0 <= float(row[name]) <= 1.0
        assert int(row["ner_tp"]) + int(row["ner_fn"]) == 15  # 5 entities in each dev document
        assert all(float(row[name]) >= 0 for name in TIME_COLUMNS)
    assert rows[4]["converged"] in ("True", "False") and rows[0]["converged"] == ""
    # The table holds parameters and scores, never document text.
    text = "\n".join(",".join(r.values()) for r in rows)
    assert not any(phi in text for phi in FAKE_PHI)


def test_grid_scores_equal_a_direct_fit(sequential_rows: list[dict[str, str]], data_root: Path):
    from deid_crf.io.brat import read_brat_dir

    train = read_brat_dir(data_root / "meddocan" / "train")
    dev = read_brat_dir(data_root / "meddocan" / "dev")
    for row, estimator in (
        (sequential_rows[1], DeidTagger(c1=0.01, c2=0.1, max_iterations=5)),
        (sequential_rows[4], WindowSVMTagger(C=0.1, n_features=65536)),
    ):
        predicted = estimator.fit(train).predict(dev)
        scores = score_documents(dev, [Document(d.doc_id, d.text, e) for d, e in zip(dev, predicted, strict=True)])
        assert float(row["ner_f1"]) == scores.ner.f1
        assert float(row["merged_f1"]) == scores.merged.f1
        assert float(row["leak"]) == scores.leak


def test_cache_featurizes_once_per_feature_config_and_equals_no_cache(
    data_root: Path, tmp_path: Path, featurize_calls: dict[str, int], sequential_rows: list[dict[str, str]]
):
    cache = tmp_path / "cache"
    grid = load_grid(write_grid(tmp_path, CRF_GRID + SVM_GRID))
    run_grid(grid, tmp_path / "a.csv", root=data_root, n_jobs=1, cache_dir=cache, progress=False)
    # Four CRF points share one featurization; the SVM has its own.
    assert featurize_calls == {"crf": 1, "svm": 1}
    assert cache_entries(cache) == 2
    assert without_times(read_rows(tmp_path / "a.csv")) == without_times(sequential_rows)

    # Another table, same cache: nothing is featurized again.
    run_grid(grid, tmp_path / "b.csv", root=data_root, n_jobs=1, cache_dir=cache, progress=False)
    assert featurize_calls == {"crf": 1, "svm": 1}

    # Without the cache every point featurizes, with the same results.
    run_grid(grid, tmp_path / "c.csv", root=data_root, n_jobs=1, use_cache=False, progress=False)
    assert featurize_calls == {"crf": 5, "svm": 2}
    assert without_times(read_rows(tmp_path / "c.csv")) == without_times(sequential_rows)

    # A new window size is one new featurization, kept apart from the first.
    wider = write_grid(tmp_path, CRF_GRID + "[model.features]\nwindow = [1, 2]\n", "windows.toml")
    rows = read_rows(tmp_path / "a.csv")
    run_grid(load_grid(wider), tmp_path / "a.csv", root=data_root, n_jobs=1, cache_dir=cache, progress=False)
    assert featurize_calls == {"crf": 6, "svm": 2}
    assert cache_entries(cache) == 3
    after = read_rows(tmp_path / "a.csv")
    assert after[:5] == rows  # the window-2 points were skipped, not rerun
    assert [r["features.window"] for r in after[5:]] == ["1"] * 4

    # Both window sizes in one run, from an empty cache: two featurizations, and each
    # point trained on its own (the same rows as above).
    run_grid(load_grid(wider), tmp_path / "d.csv", root=data_root, n_jobs=1, cache_dir=tmp_path / "c2", progress=False)
    assert featurize_calls == {"crf": 8, "svm": 2}
    both = {r["point_id"]: r for r in without_times(read_rows(tmp_path / "d.csv"))}
    assert len(both) == 8
    for row in without_times(after):
        if row["kind"] == "crf":
            assert {k: both[row["point_id"]][k] for k in SCORE_COLUMNS} == {k: row[k] for k in SCORE_COLUMNS}


def test_parallel_points_equal_sequential(
    data_root: Path, tmp_path: Path, sequential_rows: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
):
    grid = load_grid(write_grid(tmp_path, CRF_GRID + SVM_GRID))
    first = sequential_rows[0]["point_id"]
    original = grid_module.run_point

    def first_point_finishes_last(point_id, point, folds):
        # Pickled by value into the loky workers: results come back out of order.
        if point_id == first:
            time.sleep(2.0)
        return original(point_id, point, folds)

    monkeypatch.setattr(grid_module, "run_point", first_point_finishes_last)
    finished: list[str] = []
    add = ResultsTable.add
    monkeypatch.setattr(ResultsTable, "add", lambda table, row: finished.append(row["point_id"]) or add(table, row))
    run_grid(
        grid, tmp_path / "r.csv", root=data_root, n_jobs=2, backend="loky", cache_dir=tmp_path / "c", progress=False
    )
    assert finished[-1] == first  # the points really finished out of order
    # Same rows, in grid order.
    assert without_times(read_rows(tmp_path / "r.csv")) == without_times(sequential_rows)


def test_estimators_pickle_for_workers(tiny_corpus: list[Document], unseen_document: Document):
    for estimator in (
        DeidTagger(c1=0.2, max_iterations=10, feature_config=FeatureConfig(window=1)),
        WindowSVMTagger(C=0.5, n_features=65536),
    ):
        params = estimator.get_params()
        assert clone(estimator).get_params() == params
        assert pickle.loads(pickle.dumps(estimator)).get_params() == params
        fitted = estimator.fit(tiny_corpus)
        copy = pickle.loads(pickle.dumps(fitted))
        assert copy.predict([unseen_document]) == fitted.predict([unseen_document])
        assert copy.predict([unseen_document])  # it finds something


def test_interrupted_run_resumes_without_rerunning(data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    grid = load_grid(write_grid(tmp_path, CRF_GRID))
    out = tmp_path / "r.csv"
    original = grid_module.run_point
    ran: list[str] = []

    def crashing_after_two(point_id, point, folds):
        if len(ran) == 2:
            raise RuntimeError("machine went down")
        ran.append(point_id)
        return original(point_id, point, folds)

    monkeypatch.setattr(grid_module, "run_point", crashing_after_two)
    with pytest.raises(RuntimeError, match="went down"):
        run_grid(grid, out, root=data_root, n_jobs=1, cache_dir=tmp_path / "c", progress=False)
    first = read_rows(out)
    assert [r["point_id"] for r in first] == ran

    monkeypatch.setattr(grid_module, "run_point", lambda *a: ran.append(a[0]) or original(*a))
    result = run_grid(grid, out, root=data_root, n_jobs=1, cache_dir=tmp_path / "c", progress=False)
    assert (result.ran, result.skipped) == (2, 2)
    rows = read_rows(out)
    assert len(ran) == 4 and len(set(ran)) == 4  # no point ran twice
    assert [r["point_id"] for r in rows] == result.point_ids  # each once, in grid order
    assert rows[:2] == first  # finished rows are kept as they were

    # Nothing left to do: a third run changes nothing.
    before = out.read_bytes()
    assert run_grid(grid, out, root=data_root, n_jobs=1, cache_dir=tmp_path / "c", progress=False).ran == 0
    assert out.read_bytes() == before


def test_subset_then_whole_grid_runs_only_new_points(data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    out = tmp_path / "r.csv"
    small = load_grid(
        write_grid(
            tmp_path, '[[model]]\nkind = "crf"\nc1 = [0.01]\nc2 = [0.01, 0.1]\nmax_iterations = 5\n', "small.toml"
        )
    )
    run_grid(small, out, root=data_root, n_jobs=1, cache_dir=tmp_path / "c", progress=False)
    ran: list[str] = []
    original = grid_module.run_point
    monkeypatch.setattr(grid_module, "run_point", lambda *a: ran.append(a[0]) or original(*a))
    whole = load_grid(write_grid(tmp_path, CRF_GRID))
    result = run_grid(whole, out, root=data_root, n_jobs=1, cache_dir=tmp_path / "c", progress=False)
    assert (result.ran, result.skipped) == (2, 2)
    rows = read_rows(out)
    assert sorted(r["point_id"] for r in rows) == sorted(result.point_ids)
    assert {r["c1"] for r in rows if r["point_id"] in ran} == {"0.5"}

    # A different data setting is a different point, not a skipped one.
    limited = load_grid(write_grid(tmp_path, CRF_GRID), limit=5)
    assert run_grid(limited, out, root=data_root, n_jobs=1, cache_dir=tmp_path / "c", progress=False).ran == 4
    assert len(read_rows(out)) == 8


def test_k_fold_featurizes_each_fold_once(data_root: Path, tmp_path: Path, featurize_calls: dict[str, int]):
    grid = load_grid(write_grid(tmp_path, "[data]\nfolds = 3\n" + CRF_GRID))
    run_grid(grid, tmp_path / "r.csv", root=data_root, n_jobs=1, cache_dir=tmp_path / "c", progress=False)
    assert featurize_calls["crf"] == 3
    rows = read_rows(tmp_path / "r.csv")
    assert len(rows) == 4
    for row in rows:
        assert row["folds"] == "3" and row["n_documents"] == "12"  # every document scored once
        assert int(row["ner_tp"]) + int(row["ner_fn"]) == 60
        assert float(row["ner_f1_fold_std"]) >= 0.0


def test_cli_runs_resumes_and_reports_failures_without_text(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = write_grid(tmp_path, '[[model]]\nkind = "crf"\nc1 = [0.1]\nmax_iterations = 5\n', "one.toml")
    argv = [str(path), "--data-dir", str(data_root), "--cache-dir", str(tmp_path / "c"), "--quiet", "--n-jobs", "1"]
    argv += ["--out", str(tmp_path / "r.csv")]
    assert grid_module.main(argv) == 0
    out = capsys.readouterr().out
    assert "1 point(s) run, 0 already" in out and "best crf: point" in out
    assert grid_module.main(argv) == 0
    assert "0 point(s) run, 1 already" in capsys.readouterr().out

    # A value of the right type that the estimator refuses fails its point, named.
    bad = write_grid(tmp_path, "[[model]]\nkind = \"svm\"\nclassifier = ['nope']\nn_features = 65536\n", "bad.toml")
    argv[0] = str(bad)
    assert grid_module.main(argv) == 1
    captured = capsys.readouterr()
    assert f"error: {bad}: point " in captured.err and "classifier" in captured.err
    assert not any(phi in captured.out + captured.err for phi in FAKE_PHI)


# -- scikit-learn's GridSearchCV ----------------------------------------------------------
def test_gridsearchcv_with_the_estimators_score(tiny_corpus: list[Document]):
    search = GridSearchCV(DeidTagger(max_iterations=10), {"c1": [0.01, 1.0]}, cv=2)
    search.fit(tiny_corpus)
    # The same numbers by hand: KFold(2) without shuffling, score() = MEDDOCAN NER F1.
    for i, c1 in enumerate([0.01, 1.0]):
        folds = []
        for train, test in KFold(2).split(tiny_corpus):
            tagger = DeidTagger(max_iterations=10, c1=c1).fit([tiny_corpus[j] for j in train])
            folds.append(tagger.score([tiny_corpus[j] for j in test]))
        assert search.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(folds))
    assert search.best_params_["c1"] in (0.01, 1.0)
    assert isinstance(search.best_estimator_, DeidTagger) and search.best_estimator_.model_ is not None


def test_gridsearchcv_with_meddocan_scorers_in_parallel(tiny_corpus: list[Document]):
    plain = GridSearchCV(DeidTagger(max_iterations=10), {"c1": [0.01, 1.0]}, cv=2).fit(tiny_corpus)
    scored = GridSearchCV(
        DeidTagger(max_iterations=10), {"c1": [0.01, 1.0]}, cv=2, scoring=meddocan_f1_scorer, n_jobs=2
    ).fit(tiny_corpus)
    # In loky workers (estimators pickled there and back), with the scorer: same numbers.
    assert scored.cv_results_["mean_test_score"].tolist() == plain.cv_results_["mean_test_score"].tolist()

    svm = GridSearchCV(
        WindowSVMTagger(n_features=65536),
        {"C": [0.1, 1.0]},
        cv=2,
        scoring={
            "ner_f1": meddocan_f1_scorer,
            "merged_f1": meddocan_scorer("merged_f1"),
            "leak": meddocan_scorer("leak"),
        },
        refit="ner_f1",
    ).fit(tiny_corpus)
    assert all(0.0 <= s <= 1.0 for s in svm.cv_results_["mean_test_merged_f1"])
    assert all(s <= 0.0 for s in svm.cv_results_["mean_test_leak"])  # negated: greater is better
    assert svm.best_params_["C"] in (0.1, 1.0)


def test_meddocan_scorer_rejects_unknown_measures():
    with pytest.raises(ValueError, match="unknown MEDDOCAN measure"):
        meddocan_scorer("ner_tp")
    assert meddocan_scorer("strict_f1").measure == "strict_f1"


def test_results_table_refuses_other_csv(tmp_path: Path):
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a grid results table"):
        ResultsTable(other)


def test_grid_on_a_dask_cluster_matches_the_sequential_run(
    data_root: Path, sequential_rows: list[dict[str, str]], tmp_path: Path, capsys
):
    """`python -m deid_crf.experiments.grid --backend dask --scheduler …` on a real 2-worker
    LocalCluster gives the same rows as the one-point-at-a-time run."""
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install 'deid-crf[dask]')")
    from distributed import Client, LocalCluster, get_task_stream

    grid_file = write_grid(tmp_path, CRF_GRID + SVM_GRID)
    out = tmp_path / "dask.csv"
    with (
        LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as c,
        Client(c) as client,
    ):
        args = [str(grid_file), "--out", str(out), "--data-dir", str(data_root), "--quiet"]
        args += ["--cache-dir", str(tmp_path / "cache"), "--backend", "dask", "--scheduler", c.scheduler_address]
        with get_task_stream(client) as tasks:
            assert grid_main(args) == 0
    # The 5 points and 2 featurizations (one per model kind) ran as tasks on the cluster.
    assert len(tasks.data) >= 5 + 2 and all(t["worker"] for t in tasks.data)
    assert without_times(read_rows(out)) == without_times(sequential_rows)
    assert "5 point(s) run" in capsys.readouterr().out
    assert grid_main([str(grid_file), "--scheduler", "tcp://127.0.0.1:1"]) == 2  # needs --backend dask


def test_the_grid_takes_the_scheduler_options_of_tag(tmp_path: Path, capsys, monkeypatch):
    """`--scheduler` of the grid search: a plain scheduler off this machine refused, a
    tls:// one needs certificate files (checked before any work, exit status 2), and the
    files given reach the Dask client."""
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install 'deid-crf[dask]')")
    from contextlib import contextmanager

    from test_dask_backend import throwaway_pki

    from deid_crf.batch import dask_backend

    grid_file = write_grid(tmp_path, CRF_GRID)
    pki = throwaway_pki(tmp_path)
    tls = ["--tls-ca-file", pki["ca"], "--tls-cert", pki["client-cert"], "--tls-key", pki["client-key"]]
    base = [str(grid_file), "--out", str(tmp_path / "out.csv"), "--backend", "dask"]
    for extra, message in (
        (["--scheduler", "tcp://10.0.0.5:8786"], "neither encrypted nor authenticated"),
        (["--scheduler", "tls://10.0.0.5:8786"], "needs --tls-ca-file and --tls-cert"),
        (["--scheduler", "tcp://127.0.0.1:8786", *tls], "go with a tls:// scheduler address"),
        (tls, "go with --backend dask --scheduler ADDRESS"),
        (["--scheduler", "tls://10.0.0.5:8786", "--tls-ca-file", pki["client-key"], *tls[2:]], "not a PEM CA"),
    ):
        with pytest.raises(SystemExit) as info:
            grid_main([*base, *extra])
        assert info.value.code == 2, extra
        assert message in capsys.readouterr().err, extra
    asked = []

    @contextmanager
    def no_cluster(scheduler, jobs, tls_files=None):
        asked.append((scheduler, tls_files))
        raise dask_backend.ClusterUnavailable(f"cannot connect to the Dask scheduler at {scheduler} (test)")
        yield

    monkeypatch.setattr(dask_backend, "dask_client", no_cluster)
    assert grid_main([*base, "--scheduler", "tls://10.0.0.5:8786", *tls]) == 2
    assert asked == [("tls://10.0.0.5:8786", dask_backend.TLSFiles(pki["ca"], pki["client-cert"], pki["client-key"]))]
    assert "cannot connect to the Dask scheduler at tls://10.0.0.5:8786" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()
