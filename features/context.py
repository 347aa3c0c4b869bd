"""Features that depend on a token's place in its line, not on its string alone.

All functions are vectorized over a whole batch, in token order: ``tokens`` is an
object array of token strings, ``doc`` the document index of each token and
``line`` its line number inside the document. Each returns integer-coded columns
(codes per token, distinct values), which is what these features naturally are.
"""

from __future__ import annotations

import numpy as np
from deid_crf.features.encoding import Coded, factorize

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


def document_label(tokens: np.ndarray, doc: np.ndarray, line: np.ndarray) -> dict[str, Coded]:
    """The field label under which the same word first appears in the document.

    A name written in the header (``Apellidos: Rivera Bueno.``) and again in running
    text (``el Sr. Rivera``) is the same person: the running-text token gets
    ``apellidos``, which tells a patient from a doctor or a relative. Words are
    compared lower-cased; only words with a letter and two or more characters take
    part, and a word under no label in its document gets ``-``.
    """
    n = len(tokens)
    if n == 0:
        return {"doclabel": (np.zeros(0, dtype=np.int32), [NO_VALUE])}
    label_codes, label_values = field_label(tokens, doc, line)["label"]
    # Lower-cased word of every token, coded through the distinct token strings.
    token_codes, token_types = factorize(tokens.tolist())
    lowered_codes, types = factorize([t.lower() for t in token_types])
    type_codes = lowered_codes[token_codes] if n else token_codes
    is_word = np.array([len(t) > 1 and any(c.isalpha() for c in t) for t in types], dtype=bool)[type_codes]
    key = (doc.astype(np.int64) << 32) | type_codes.astype(np.int64)
    none = label_values.index(NO_VALUE) if NO_VALUE in label_values else -1
    labelled = np.flatnonzero(is_word & (label_codes != none))
    # First labelled occurrence of each (document, word): np.unique keeps the first index.
    keys, first = np.unique(key[labelled], return_index=True)
    # "-" for words under no label: the label column's own "-" when it has one.
    values = label_values if none >= 0 else [*label_values, NO_VALUE]
    codes = np.full(n, values.index(NO_VALUE), dtype=np.int32)
    if len(keys):
        position = np.minimum(np.searchsorted(keys, key), len(keys) - 1)
        found = is_word & (keys[position] == key)
        codes[found] = label_codes[labelled[first[position[found]]]]
    return {"doclabel": (codes, values)}
