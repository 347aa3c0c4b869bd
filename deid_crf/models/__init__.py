"""Load any saved tagger (CRF or window SVM) by the ``kind`` in its ``config.json``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from deid_crf.models.svm import WindowSVMTagger
from deid_crf.models.crf_tagger import CONFIG_FILE, DeidTagger, ModelNotFoundError

Tagger = DeidTagger | WindowSVMTagger
# Model kind (``[model] kind`` of a run config) → estimator class.
ESTIMATORS: dict[str, type[DeidTagger] | type[WindowSVMTagger]] = {"crf": DeidTagger, "svm": WindowSVMTagger}


def load_model(directory: str | os.PathLike, n_jobs: int | None = 1) -> Tagger:
    """A saved CRF (:class:`DeidTagger`) or SVM (:class:`WindowSVMTagger`) tagger."""
    config = Path(directory) / CONFIG_FILE
    if not config.is_file():
        raise ModelNotFoundError(f"no trained model in {directory} (missing {CONFIG_FILE})")
    try:
        kind = json.loads(config.read_text(encoding="utf-8")).get("kind")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as exc:
        raise ValueError(f"{config}: unreadable model configuration ({type(exc).__name__})") from None
    if kind == "svm":
        return WindowSVMTagger.load(directory, n_jobs=n_jobs)
    return DeidTagger.load(directory, n_jobs=n_jobs)
