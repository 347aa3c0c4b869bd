"""Learning curve: an estimator trained on the first *n* training documents, for
several *n*, each scored on the same evaluation documents with the MEDDOCAN measures.

Used by ``notebooks/learning_curve.ipynb`` and ``python -m deid_crf.experiments.figures``;
:func:`deid_crf.experiments.figures.learning_curve_figure` draws the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from deid_crf.scoring.meddocan import MeddocanScores, score_documents
from deid_crf.text.document import Document


@dataclass(frozen=True)
class CurvePoint:
    """The scores of an estimator trained on ``n_train`` documents, and its training time."""

    n_train: int
    scores: MeddocanScores
    train_seconds: float


def capped_sizes(sizes: Sequence[int], available: int) -> list[int]:
    """``sizes`` capped at the ``available`` documents, sorted, without repeats."""
    if not sizes or min(sizes) < 1:
        raise ValueError(f"training sizes must be positive integers, got {list(sizes)}")
    return sorted({min(int(n), available) for n in sizes})


def learning_curve(
    make_estimator: Callable[[], Any],
    train: Sequence[Document],
    evaluation: Sequence[Document],
    sizes: Sequence[int],
) -> Iterator[CurvePoint]:
    """For each ``n`` of :func:`capped_sizes`, fit ``make_estimator()`` (anything with
    ``fit(documents)`` and ``predict(documents)``, such as ``DeidTagger`` or
    ``WindowSVMTagger``) on ``train[:n]`` and score it on ``evaluation``. Points are
    yielded as they are computed, smallest ``n`` first."""
    for n in capped_sizes(sizes, len(train)):
        started = time.perf_counter()
        estimator = make_estimator().fit(list(train[:n]))
        seconds = time.perf_counter() - started
        predicted = estimator.predict(evaluation)
        system = [Document(d.doc_id, d.text, e) for d, e in zip(evaluation, predicted, strict=True)]
        yield CurvePoint(n, score_documents(evaluation, system), seconds)
