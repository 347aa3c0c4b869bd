"""Execute the project's notebooks with parameters, as papermill does, on nbclient.

A notebook declares its parameters, with defaults, in the code cell tagged
``parameters``; :func:`execute` inserts a cell tagged ``injected-parameters`` after
it that assigns the given values, runs every cell in a fresh kernel and writes the
executed notebook. ``make notebooks`` and ``tests/test_notebooks.py`` use it::

    python -m deid_crf.experiments.notebooks notebooks/learning_curve.ipynb --out-dir notebooks/out \\
        -p train_sizes '[40, 80]' -p n_dev 20
    python -m deid_crf.experiments.notebooks --clear notebooks/*.ipynb   # before committing an edited notebook

Needs the ``test``/``dev`` extras (nbclient, nbformat, ipykernel, matplotlib).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PARAMETERS_TAG = "parameters"
INJECTED_TAG = "injected-parameters"


def _tags(cell: Any) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def declared_parameters(nb: Any) -> list[str]:
    """Names assigned in the notebook's ``parameters`` cell (``ValueError`` if none)."""
    cells = [c for c in nb.cells if c.cell_type == "code" and PARAMETERS_TAG in _tags(c)]
    if len(cells) != 1:
        raise ValueError(f"expected one code cell tagged {PARAMETERS_TAG!r}, found {len(cells)}")
    names = []
    for node in ast.parse(cells[0].source).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        names.extend(t.id for t in targets if isinstance(t, ast.Name))
    return names


def inject_parameters(nb: Any, parameters: Mapping[str, Any]) -> Any:
    """Insert, after the ``parameters`` cell, a cell assigning ``parameters`` (values
    written with ``repr``, so Python literals only). Names the notebook does not
    declare raise ``ValueError``: a misspelt parameter would otherwise be ignored."""
    import nbformat

    declared = declared_parameters(nb)
    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise ValueError(f"not parameters of this notebook: {unknown} (declared: {declared})")
    nb.cells = [c for c in nb.cells if INJECTED_TAG not in _tags(c)]
    index = next(i for i, c in enumerate(nb.cells) if PARAMETERS_TAG in _tags(c))
    source = "# Injected parameters\n" + "".join(f"{name} = {value!r}\n" for name, value in parameters.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": [INJECTED_TAG]})
    nb.cells.insert(index + 1, cell)
    return nb


def execute(
    notebook: str | os.PathLike,
    output: str | os.PathLike | None = None,
    parameters: Mapping[str, Any] | None = None,
    cwd: str | os.PathLike | None = None,
    timeout: int | None = None,
    kernel_name: str = "python3",
) -> Any:
    """Run ``notebook`` top to bottom in a new kernel started in ``cwd`` (default: the
    notebook's folder) and return the executed notebook, also written to ``output``
    (even when a cell fails, so the failure can be read there). A failing cell raises
    ``nbclient.exceptions.CellExecutionError``; ``timeout`` is per cell, in seconds."""
    import nbformat
    from nbclient import NotebookClient

    notebook = Path(notebook)
    nb = nbformat.read(notebook, as_version=4)
    inject_parameters(nb, parameters or {})
    workdir = Path(cwd) if cwd is not None else notebook.parent
    client = NotebookClient(
        nb, timeout=timeout, kernel_name=kernel_name, resources={"metadata": {"path": str(workdir)}}
    )
    try:
        client.execute()
    finally:
        if output is not None:
            Path(output).parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, output)
    return nb


def clear_outputs(notebook: str | os.PathLike) -> None:
    """Remove outputs, execution counts and injected cells, as notebooks are stored."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    nb.cells = [c for c in nb.cells if INJECTED_TAG not in _tags(c)]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
    nbformat.write(nb, notebook)


def _parse_value(text: str) -> Any:
    """A ``-p`` value: a JSON literal (number, list, ``null``…) or else a string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.experiments.notebooks", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("notebooks", nargs="+", type=Path, help="notebooks to run")
    parser.add_argument("--out-dir", type=Path, help="executed notebooks are written here")
    parser.add_argument(
        "--clear", action="store_true", help="instead of running them, clear the notebooks' outputs in place"
    )
    parser.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="set a parameter (VALUE as JSON, else a string); repeatable, given to every notebook that declares it",
    )
    parser.add_argument("--timeout", type=int, default=None, help="seconds per cell (default: none)")
    args = parser.parse_args(argv)
    if args.clear:
        for path in args.notebooks:
            clear_outputs(path)
        return 0
    if args.out_dir is None:
        parser.error("--out-dir is required to run notebooks")
    import nbformat

    parameters = {name: _parse_value(value) for name, value in args.parameter}
    declared = {path: set(declared_parameters(nbformat.read(path, as_version=4))) for path in args.notebooks}
    unused = sorted(set(parameters) - set().union(*declared.values()))
    if unused:
        parser.error(f"no notebook declares the parameter(s) {unused}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for path in args.notebooks:
        own = {k: v for k, v in parameters.items() if k in declared[path]}
        output = args.out_dir / path.name
        print(f"running {path} -> {output}", flush=True)
        execute(path, output, own, cwd=args.out_dir, timeout=args.timeout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
