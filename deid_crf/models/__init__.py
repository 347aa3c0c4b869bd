"""The taggers (CRF and window SVM) and :func:`load_model`, which loads either by the
format in its ``config.json``."""

from __future__ import annotations

import os

from deid_crf.io.persistence import CONFIG_FILE, ModelNotFoundError, read_config
from deid_crf.models.base import TaggerBase
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.models.svm import WindowSVMTagger

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
TAGGERS: dict[str, type[TaggerBase]] = {cls.model_format.name: cls for cls in (DeidTagger, WindowSVMTagger)}
# Model kind (``[model] kind`` of a run config) → estimator class.
ESTIMATORS: dict[str, type[TaggerBase]] = {"crf": DeidTagger, "svm": WindowSVMTagger}


def load_model(directory: str | os.PathLike, n_jobs: int | None = 1) -> TaggerBase:
    """A saved CRF (:class:`DeidTagger`) or SVM (:class:`WindowSVMTagger`) tagger."""
    found = read_config(directory).get("format")
    if found not in TAGGERS:
        raise ValueError(
            f"{os.path.join(directory, CONFIG_FILE)}: not a tagger model (format {found!r:.60}; "
            f"one of {sorted(TAGGERS)} expected)"
        )
    return TAGGERS[found].load(directory, n_jobs=n_jobs)
