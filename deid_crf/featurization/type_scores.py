"""A tagging process's memory of what each distinct token string adds to a token's scores.

Most features depend on the token string alone (lower-cased form, affixes, shapes,
flags, patterns, embedding clusters): a linear model's scores get, per window offset,
the same summed weight rows from a string wherever it occurs. A :class:`TypeScores`
keeps those sums per string for as long as its model lives, so that a batch computes
the features of ``paciente`` once, not once per chunk of documents (MEDDOCAN dev: 15,680
distinct strings, 37,786 of them counted chunk by chunk). The sums are computed by
:meth:`~deid_crf.featurization.featurizer.Featurizer.type_sums` exactly as without the
cache (same rows, same order), so scores do not depend on what was seen before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from deid_crf.config import TYPE_SCORES_MAX_TYPES

RowsOf = Callable[[list[str]], np.ndarray]

# Strings a cache has room for before it first grows (at most its ``max_types``): room
# for a whole batch (MEDDOCAN dev: 15,680 strings) is allocated once, as growing by
# copies from 1,024 rows took a third as long as the sums themselves (fresh memory for
# every copy). The rows of a string are contiguous and filled in order, so a one-note
# run touches, and holds in memory, only the first pages.
INITIAL_TYPES = 16384


class SumsPerType(Protocol):
    """What a :class:`TypeScores` asks of a featurizer (``Featurizer`` implements it)."""

    def type_key(self) -> Any:
        """What the sums depend on besides the weights (configuration, resources)."""
        ...

    def type_sums(
        self, types: Sequence[str], weights: np.ndarray, rows_of: RowsOf
    ) -> tuple[dict[str, list[str]], list[int], np.ndarray]:
        """Per type group its column names, the window offsets, and per offset the
        summed weight rows of every string of ``types`` then of the two markers of
        positions outside the sentence: ``(n_offsets, len(types) + 2, n_outputs)``."""
        ...


class TypeScores:
    """Summed type-level weight rows per distinct token string and window offset, kept
    across token tables for one weight matrix and one featurizer configuration (a change
    of either empties it). At most ``max_types`` strings are kept; once full, it starts
    again empty. Safe to share between threads."""

    def __init__(self, max_types: int = TYPE_SCORES_MAX_TYPES):
        if max_types < 1:
            raise ValueError(f"max_types must be at least 1, not {max_types}")
        self.max_types = max_types
        self._lock = threading.Lock()
        self._forget(None, None)

    def _forget(self, key: Any, weights: np.ndarray | None) -> None:
        self._key, self._weights = key, weights
        self._slots: dict[str, int] = {}
        # (capacity, n_offsets, n_outputs): rows 0 and 1 the markers of positions outside
        # the sentence (``<s>``, ``</s>``), then one row per string, in order of arrival.
        self._sums: np.ndarray | None = None
        self._names: dict[str, list[str]] = {}
        self._offsets: list[int] = []

    def __len__(self) -> int:
        return len(self._slots)

    def __getstate__(self) -> dict[str, Any]:
        # A model sent to a worker process travels without what this process has seen.
        return {"max_types": self.max_types}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["max_types"])  # type: ignore[misc]

    def sums(
        self, featurizer: SumsPerType, types: Sequence[str], weights: np.ndarray, rows_of: RowsOf
    ) -> tuple[dict[str, list[str]], list[int], np.ndarray, np.ndarray]:
        """Per type group its column names; the window offsets (in the order the
        featurizer adds them); the summed rows kept, ``(n_offsets, rows, n_outputs)``;
        and where each string of ``types`` has its row, then the two markers: row
        ``rows[:, index]`` is what :meth:`Featurizer.type_sums` gives for ``types``,
        computed only for the strings not seen before. The caller indexes the kept rows
        itself, so that they are copied once, straight to its tokens (a copy per table
        costs as much as the sums of its new strings); rows once handed out never change."""
        key = featurizer.type_key()
        with self._lock:
            if self._sums is None or weights is not self._weights or key != self._key:
                self._forget(key, weights)
            slots = np.fromiter(map(self._slots.get, types, [-1] * len(types)), dtype=np.int64, count=len(types))
            missing = np.flatnonzero(slots < 0)
            if self._sums is None or len(missing):
                if len(self._slots) + len(missing) > self.max_types:
                    self._forget(key, weights)
                    missing = np.arange(len(types))
                slots[missing] = self._add(featurizer, [types[i] for i in missing.tolist()], weights, rows_of)
            assert self._sums is not None
            return self._names, self._offsets, self._sums.transpose(1, 0, 2), np.concatenate([slots, [0, 1]])

    def _add(self, featurizer: SumsPerType, new: list[str], weights: np.ndarray, rows_of: RowsOf) -> np.ndarray:
        """Compute and keep the sums of the ``new`` strings; their slots. Rows already
        kept are never written again: a full array is replaced by a larger copy."""
        names, offsets, sums = featurizer.type_sums(new, weights, rows_of)
        first = len(self._slots) + 2
        by_string = sums.transpose(1, 0, 2)  # (strings + 2 markers, n_offsets, n_outputs)
        if self._sums is None:
            self._names, self._offsets = names, offsets
            capacity = max(len(new), min(INITIAL_TYPES, self.max_types)) + 2
            self._sums = np.empty((capacity, *by_string.shape[1:]), dtype=sums.dtype)
            self._sums[:2] = by_string[len(new) :]
        elif first + len(new) > len(self._sums):
            capacity = min(max(2 * len(self._sums), first + len(new)), self.max_types + 2)
            grown = np.empty((capacity, *self._sums.shape[1:]), dtype=self._sums.dtype)
            grown[:first] = self._sums[:first]
            self._sums = grown
        self._sums[first : first + len(new)] = by_string[: len(new)]
        self._slots.update(zip(new, range(first, first + len(new)), strict=True))
        return np.arange(first, first + len(new), dtype=np.int64)
