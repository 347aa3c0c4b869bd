"""Store the notebooks of ``notebooks/`` as the repository keeps them: no outputs,
no execution counts, no cell papermill injected, no run metadata.

    python -m deid_crf.experiments.notebooks notebooks/*.ipynb   # after editing one, before committing

Running them is papermill's job (``make notebooks``; ``papermill NB.ipynb OUT.ipynb -p
NAME VALUE``): each notebook declares its parameters, with defaults, in the code cell
tagged ``parameters``, and papermill adds a cell tagged ``injected-parameters`` after it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

PARAMETERS_TAG = "parameters"
# Cells papermill adds: the parameter values it was given, and error markers.
ADDED_TAGS = frozenset({"injected-parameters", "papermill-error-cell-tag"})
RUN_METADATA = ("execution", "papermill")


def clear_outputs(notebook: str | os.PathLike) -> None:
    """Rewrite ``notebook`` without outputs, execution counts, the cells papermill
    added and the metadata of a run."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    nb.cells = [c for c in nb.cells if not ADDED_TAGS & set(c.metadata.get("tags", []))]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in RUN_METADATA:
            cell.metadata.pop(key, None)
    for key in RUN_METADATA:
        nb.metadata.pop(key, None)
    nbformat.write(nb, notebook)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.experiments.notebooks", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("notebooks", nargs="+", type=Path, help="notebooks to clear, in place")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        clear_outputs(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
