"""Features that depend on a token's place in its line, not on its string alone.

All functions are vectorized over a whole batch, in token order: ``tokens`` is an
object array of token strings, ``doc`` the document index of each token and
``line`` its line number inside the document. Each returns integer-coded columns
(codes per token, distinct values), which is what these features naturally are.
"""

from __future__ import annotations

import numpy as np

from .encoding import Coded, factorize

NO_VALUE = "-"


def _line_key(doc: np.ndarray, line: np.ndarray) -> np.ndarray:
    """One integer per (document, line) pair."""
    return (doc.astype(np.int64) << 32) | line.astype(np.int64)


def _line_starts(line_key: np.ndarray) -> np.ndarray:
    starts = np.ones(len(line_key), dtype=bool)
    starts[1:] = line_key[1:] != line_key[:-1]
    return starts


def field_label(tokens: np.ndarray, doc: np.ndarray, line: np.ndarray) -> dict[str, Coded]:
    """The lower-cased word before the nearest preceding ``:`` on the same line.

    MEDDOCAN headers read ``Nombre: Ernesto.`` or ``Médico: … NºCol: 28 28 70973.``;
    the label says what the value is. Tokens with no colon before them on their line
    get ``-``; a later label word on the line (``NºCol``) carries the earlier label.
    """
    n = len(tokens)
    codes = np.zeros(n, dtype=np.int32)
    if n == 0:
        return {"label": (codes, [NO_VALUE])}
    line_key = _line_key(doc, line)
    index = np.arange(n)
    is_colon = tokens == ":"
    last_colon = np.maximum.accumulate(np.where(is_colon, index, -1))
    # The label applies to tokens after the colon: shift by one.
    colon_before = np.concatenate(([-1], last_colon[:-1]))
    word_idx = colon_before - 1
    valid = (word_idx >= 0) & (colon_before >= 0)
    valid[valid] &= (line_key[colon_before[valid]] == line_key[valid]) & (line_key[word_idx[valid]] == line_key[valid])
    labels = [w.lower() if w[:1].isalpha() else NO_VALUE for w in tokens[word_idx[valid]].tolist()]
    label_codes, values = factorize([NO_VALUE, *labels])
    codes[valid] = label_codes[1:]
    return {"label": (codes, values)}


def line_position(tokens: np.ndarray, doc: np.ndarray, line: np.ndarray, cap: int = 4) -> dict[str, Coded]:
    """Index of the token in its line, capped (``0`` … ``4+``)."""
    n = len(tokens)
    names = [str(i) for i in range(cap)] + [f"{cap}+"]
    if n == 0:
        return {"linepos": (np.zeros(0, dtype=np.int32), names)}
    starts = _line_starts(_line_key(doc, line))
    first = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    position = np.minimum(np.arange(n) - first, cap).astype(np.int32)
    return {"linepos": (position, names)}
