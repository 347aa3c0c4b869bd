"""Stable feature hashing of attribute strings into a fixed number of columns."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.utils import murmurhash3_32

# Hashes already computed in this process, per number of columns. Attribute strings
# repeat across batches (common words, shapes, affixes), so most are looked up here
# instead of hashed again; the cache is emptied when it grows past the limit.
_CACHE: dict[int, dict[str, int]] = {}
_CACHE_LIMIT = 2_000_000


def hash_strings(strings: Sequence[str], n_features: int) -> np.ndarray:
    """Column index in ``[0, n_features)`` of every string (MurmurHash3, the same in
    every process and on every machine, unlike Python's ``hash``)."""
    cache = _CACHE.setdefault(n_features, {})
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    values = [cache.get(s) for s in strings]
    for i in [i for i, h in enumerate(values) if h is None]:
        values[i] = cache[strings[i]] = murmurhash3_32(strings[i], positive=True) % n_features
    return np.array(values, dtype=np.int32)
