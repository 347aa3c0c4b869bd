"""Token windows as shifted index arrays that stop at sentence boundaries."""

from __future__ import annotations

import numpy as np

BEFORE_SENTENCE = -1
AFTER_SENTENCE = -2


def shifted_index(sentence_ids: np.ndarray, offset: int) -> np.ndarray:
    """For every token ``i``, the index ``i + offset`` when that token is in the same
    sentence, else :data:`BEFORE_SENTENCE` / :data:`AFTER_SENTENCE`."""
    n = len(sentence_ids)
    index = np.arange(n) + offset
    inside = (index >= 0) & (index < n)
    same = np.zeros(n, dtype=bool)
    same[inside] = sentence_ids[index[inside]] == sentence_ids[inside]
    return np.where(same, index, BEFORE_SENTENCE if offset < 0 else AFTER_SENTENCE)
