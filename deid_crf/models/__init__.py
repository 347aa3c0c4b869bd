"""The taggers (CRF and window SVM) and :func:`load_model`, which loads either by the
format in its ``config.json``.

The SVM's module (scikit-learn's solvers, SciPy's sparse matrices) is imported only
when an SVM is asked for, so that loading a CRF to tag stays light.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from deid_crf.io.persistence import CONFIG_FILE, ModelNotFoundError, read_config
from deid_crf.models.base import TaggerBase
from deid_crf.models.crf_tagger import DeidTagger

__all__ = [
    "CONFIG_FILE",
    "ESTIMATORS",
    "DeidTagger",
    "ModelNotFoundError",
    "Tagger",
    "TaggerBase",
    "WindowSVMTagger",
    "load_model",
]

Tagger = TaggerBase
# Model format (``config.json``) and model kind (``[model] kind`` of a run config) →
# the module and class of its estimator.
_CLASSES = {
    "deid-crf-tagger": ("deid_crf.models.crf_tagger", "DeidTagger"),
    "deid-crf-svm": ("deid_crf.models.svm", "WindowSVMTagger"),
}
KINDS = {"crf": "deid-crf-tagger", "svm": "deid-crf-svm"}


def tagger_class(model_format: str) -> type[TaggerBase]:
    """The estimator class of a model format (importing its module)."""
    module, name = _CLASSES[model_format]
    return getattr(importlib.import_module(module), name)


def __getattr__(name: str) -> Any:
    if name == "WindowSVMTagger":
        return tagger_class("deid-crf-svm")
    if name == "ESTIMATORS":  # model kind → estimator class
        return {kind: tagger_class(model_format) for kind, model_format in KINDS.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_model(directory: str | os.PathLike, n_jobs: int | None = 1) -> TaggerBase:
    """A saved CRF (:class:`DeidTagger`) or SVM (:class:`WindowSVMTagger`) tagger."""
    found = read_config(directory).get("format")
    if found not in _CLASSES:
        raise ValueError(
            f"{os.path.join(directory, CONFIG_FILE)}: not a tagger model (format {found!r:.60}; "
            f"one of {sorted(_CLASSES)} expected)"
        )
    return tagger_class(found).load(directory, n_jobs=n_jobs)
