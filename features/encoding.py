"""Integer coding of string arrays, the currency of the feature path."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

# An integer-coded column: codes (int32, one per element) into a list of values.
Coded = tuple[np.ndarray, list[str]]


def factorize(values: Iterable[str]) -> Coded:
    """Codes (int32, first-seen order) and the distinct values of ``values``.

    A dict lookup per element is faster than sorting object arrays (``np.unique``)
    and keeps codes stable in order of appearance.
    """
    index: dict[str, int] = {}
    codes = [index.setdefault(v, len(index)) for v in values]
    return np.asarray(codes, dtype=np.int32), list(index)
