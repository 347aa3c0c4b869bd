"""Word lists from the annotations of training documents, for cross-fitting.

MEDDOCAN's own annotated strings (hospitals, institutions…) make strong gazetteers,
but a training token must never be featurised with a list that contains its own
annotation, or the CRF learns to trust the list far more than it deserves on new
text. The caller therefore builds the lists:

- for a **training** document, from the *other* folds only: :func:`cross_fitted_lists`
  splits the training documents into folds and returns, per fold, the documents and
  the lists built from all other folds; featurise each fold with
  ``gazetteer.extended(lists)`` (or ``GazetteerFeatures(extra=lists)``);
- for **dev, test or new text**, from all training documents:
  ``annotation_lists(train_docs, types)``; these lists belong to the trained model
  and are saved with it (:func:`deid_crf.resources.gazetteer.write_list`).

Lists are never built from dev or test annotations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np
from deid_crf.gazetteers.entries import clean, informative


class _Span(Protocol):
    start: int
    end: int
    type: str


class _Annotated(Protocol):
    text: str
    entities: Sequence[_Span]


def list_names(types: Iterable[str] | Mapping[str, str]) -> dict[str, str]:
    """``entity type → list name``: a mapping is used as given (several types may
    share a list); plain types become ``ann_<type lower-cased>``."""
    if isinstance(types, Mapping):
        return dict(types)
    return {t: f"ann_{t.lower()}" for t in types}


def annotation_lists(docs: Iterable[_Annotated], types: Iterable[str] | Mapping[str, str]) -> dict[str, set[str]]:
    """The annotated strings of ``types`` in ``docs``, one set per list name
    (whitespace collapsed; strings without a content word dropped). Every list name
    is present, possibly empty, so all folds yield the same feature columns."""
    names = list_names(types)
    lists: dict[str, set[str]] = {name: set() for name in names.values()}
    for doc in docs:
        for entity in doc.entities:
            name = names.get(entity.type)
            if name is not None:
                entry = clean(doc.text[entity.start : entity.end])
                if entry and informative(entry):
                    lists[name].add(entry)
    return lists


def cross_fitted_lists(
    docs: Sequence[_Annotated], types: Iterable[str] | Mapping[str, str], n_folds: int = 5
) -> list[tuple[np.ndarray, dict[str, set[str]]]]:
    """Per fold, ``(indices of its documents, lists built from the other folds)``.
    Document ``i`` is in fold ``i % n_folds``, so folds do not depend on randomness."""
    if n_folds < 2:
        raise ValueError(f"cross-fitting needs at least 2 folds, got {n_folds}")
    names = list_names(types)
    fold = np.arange(len(docs)) % n_folds
    return [
        (np.flatnonzero(fold == k), annotation_lists([d for d, f in zip(docs, fold, strict=True) if f != k], names))
        for k in range(n_folds)
    ]
