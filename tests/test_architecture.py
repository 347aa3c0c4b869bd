"""The layers of ``deid_crf`` and the direction of their imports.

A module may import from its own layer's package and from the layers below it, never
from a layer above. Imports inside functions count too: a lazy import hides a cycle
from Python, not from the design.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Lowest first. The top-level folders features/ and gazetteers/ are installed as
# deid_crf.features and deid_crf.gazetteers (pyproject.toml, package-dir).
LAYERS: list[tuple[str, ...]] = [
    ("deid_crf.gazetteers",),  # Spanish domain tables and the list builder: pure data
    ("deid_crf.features",),  # pure feature extractors over token arrays
    ("deid_crf.config", "deid_crf.parallel", "deid_crf.estimator"),
    ("deid_crf.text",),  # tokenizer, TokenTable, BIO, spans, documents
    ("deid_crf.io", "deid_crf.sources"),  # files, BRAT, markup; the data manifest and its download
    ("deid_crf.scoring",),  # MEDDOCAN measures
    ("deid_crf.featurization",),  # feature columns → model inputs
    ("deid_crf.resources",),  # POS tagger, embeddings, gazetteer loading
    ("deid_crf.models",),  # tagger base, CRF, SVM, persistence
    ("deid_crf.deid",),  # rules, surrogates, de-identifier
    ("deid_crf.augment",),  # rewritten and synthetic training documents
    ("deid_crf.batch",),  # inputs, key file, workers, Dask
    ("deid_crf.experiments",),  # grid, ablation, bench, figures, reports
    # command lines, and the components other libraries' pipelines load (spaCy)
    (
        "deid_crf.tag",
        "deid_crf.train",
        "deid_crf.evaluate",
        "deid_crf.cli",
        "deid_crf.__main__",
        "deid_crf.integrations",
    ),
]
SOURCE_ROOTS = {
    "deid_crf": REPO / "deid_crf",
    "deid_crf.features": REPO / "features",
    "deid_crf.gazetteers": REPO / "gazetteers",
}


def layer_of(module: str) -> int | None:
    best = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (index, len(prefix))
    return None if best is None else best[0]


def modules() -> dict[str, Path]:
    found = {}
    for package, root in SOURCE_ROOTS.items():
        for path in root.rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join([package, *parts])
            if package == "deid_crf" and len(parts) and parts[0] in ("features", "gazetteers"):
                continue
            found[name] = path
    return found


def imported(path: Path, module: str, known: set[str]) -> set[str]:
    """The deid_crf modules ``path`` imports: ``from pkg import name`` counts
    ``pkg.name`` where that is a module, else ``pkg``."""
    names = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                names.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in known else target)
    return {n for n in names if n == "deid_crf" or n.startswith("deid_crf.")}


def violations() -> list[str]:
    found = modules()
    problems = []
    for module, path in sorted(found.items()):
        own = layer_of(module)
        if module == "deid_crf":
            continue  # the package's own __init__ re-exports the public API lazily
        assert own is not None, f"{module} belongs to no layer; add it to LAYERS"
        for target in sorted(imported(path, module, set(found))):
            other = layer_of(target)
            if target == "deid_crf":
                continue  # "from deid_crf import x": the root package itself is light
            if other is None:
                problems.append(f"{module} imports {target}, which is no layer")
            elif other > own:
                problems.append(f"{module} (layer {own}) imports {target} (layer {other})")
    return problems


def test_every_module_belongs_to_a_layer_and_imports_point_down():
    assert violations() == []


def test_the_checker_sees_an_upward_import(tmp_path, monkeypatch):
    fake = tmp_path / "deid_crf"
    (fake / "text").mkdir(parents=True)
    (fake / "text" / "__init__.py").write_text("")
    (fake / "text" / "bad.py").write_text("def f():\n    from deid_crf.models import load_model\n")
    monkeypatch.setitem(SOURCE_ROOTS, "deid_crf", fake)
    monkeypatch.setitem(SOURCE_ROOTS, "deid_crf.features", tmp_path / "none")
    monkeypatch.setitem(SOURCE_ROOTS, "deid_crf.gazetteers", tmp_path / "none")
    assert violations() == ["deid_crf.text.bad (layer 3) imports deid_crf.models (layer 8)"]


@pytest.mark.parametrize("shadow", ["features", "gazetteers"])
def test_a_users_module_named_like_a_top_level_folder_does_not_break_the_cli(tmp_path, shadow):
    """features/ and gazetteers/ are importable only as deid_crf.features / deid_crf.gazetteers,
    so a user's own features.py (or gazetteers.py) in the working directory is not picked up."""
    (tmp_path / f"{shadow}.py").write_text("raise ImportError('the user module was imported')\n")
    (tmp_path / "note.txt").write_text("Paciente: Ana.\n", encoding="utf-8")
    code = "import deid_crf.tag, deid_crf.features.registry, deid_crf.resources.gazetteer; print('ok')"
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"
    help_run = subprocess.run(
        [sys.executable, "-m", "deid_crf.tag", "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert help_run.returncode == 0, help_run.stderr[-2000:]


HEAVY = ("sklearn", "sklearn_crfsuite", "scipy", "faker", "dask", "joblib", "tqdm", "fasttext")


def test_importing_the_tag_command_or_tagging_with_a_crf_stays_light(tiny_model_dir, tmp_path):
    """Start-up: scikit-learn (with SciPy) alone takes most of a second; tagging with a
    CRF imports none of these, whatever the format (surrogates too, given the saved
    vocabulary: tests/test_surrogates.py)."""
    note = tmp_path / "nota.txt"
    note.write_text("Nombre: Filiberta Gorostiza.\nNHC: 745120.\n", encoding="utf-8")
    code = (
        "import sys, deid_crf.tag\n"
        f"heavy = {HEAVY!r}\n"
        "print('imported', [m for m in heavy if m in sys.modules])\n"
        "for fmt in ('brat', 'json', 'conll', 'masked'):\n"
        f"    assert deid_crf.tag.main([{str(note)!r}, '--model', {str(tiny_model_dir)!r}, '--format', fmt]) == 0\n"
        "print('tagged', [m for m in heavy if m in sys.modules])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    lines = result.stdout.splitlines()
    assert "imported []" in lines and "tagged []" in lines


# What only some options use: --backend dask, the html format, --config, --group-by,
# --jsonl, worker processes.
OPTIONAL = (
    "deid_crf.batch.dask_backend",
    "deid_crf.batch.html_view",
    "deid_crf.deid.user_config",
    "deid_crf.batch.groups",
    "deid_crf.batch.jsonl",
    "concurrent.futures.process",
)


def test_tagging_one_note_imports_only_what_its_options_use(tiny_model_dir, tmp_path):
    note = tmp_path / "nota.txt"
    note.write_text("Nombre: Filiberta Gorostiza.\nNHC: 745120.\n", encoding="utf-8")
    code = (
        "import sys, deid_crf.tag\n"
        "for fmt in ('brat', 'json', 'masked'):\n"
        f"    assert deid_crf.tag.main([{str(note)!r}, '--model', {str(tiny_model_dir)!r}, '--format', fmt]) == 0\n"
        f"print('imported', [m for m in {OPTIONAL!r} if m in sys.modules])\n"
        f"deid_crf.tag.main([{str(note)!r}, '--model', {str(tiny_model_dir)!r}, '--format', 'html'])\n"
        "print('html', 'deid_crf.batch.html_view' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    lines = result.stdout.splitlines()
    assert "imported []" in lines and "html True" in lines  # the check sees an import when there is one


def test_importing_the_package_or_the_features_stays_light():
    code = (
        "import sys, deid_crf, deid_crf.features.registry\n"
        "heavy = ('sklearn', 'sklearn_crfsuite', 'pycrfsuite', 'faker', 'dask', 'scipy')\n"
        "print([m for m in heavy if m in sys.modules])"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_pyproject_lists_every_package():
    """setuptools installs only the packages pyproject.toml names: a package left out
    (or a module named as a package) breaks the install, so the list is checked here."""
    import tomllib

    declared = set(
        tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    )
    packages = {name for name, path in modules().items() if path.name == "__init__.py"}
    assert declared == packages
