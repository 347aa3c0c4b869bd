"""Part-of-speech features from tags predicted for every token (the tagger itself is a
model and lives in ``deid_crf.resources.pos``)."""

from __future__ import annotations

import numpy as np
from deid_crf.features.encoding import Coded, factorize


def pos_columns(
    upos: Coded, eagles2: Coded, type_codes: np.ndarray, types: list[str], sentence_ids: np.ndarray
) -> dict[str, Coded]:
    """UPOS (``pos``), reduced EAGLES (``pos2``), UPOS joined with the lower-cased
    token (``pos_w``) and the UPOS bigram with the previous token of the sentence
    (``pos_bi``, ``<s>`` at a sentence start). Tags come coded per token; tokens as
    codes into their distinct strings ``types``."""
    upos_codes, upos_values = upos
    n = len(upos_codes)
    # Pairs are coded as integers first; their strings are built once per distinct pair.
    lower_codes, lowered = factorize([t.lower() for t in types])
    pos_word = _pairs(upos_codes, upos_values, lower_codes[type_codes] if n else type_codes, lowered)
    previous = np.full(n, len(upos_values), dtype=np.int32)  # the code of "<s>"
    if n:
        follows = np.zeros(n, dtype=bool)
        follows[1:] = sentence_ids[1:] == sentence_ids[:-1]
        previous[follows] = upos_codes[:-1][follows[1:]]
    return {
        "pos": upos,
        "pos2": eagles2,
        "pos_w": pos_word,
        "pos_bi": _pairs(previous, [*upos_values, "<s>"], upos_codes, upos_values),
    }


def _pairs(left: np.ndarray, left_values: list[str], right: np.ndarray, right_values: list[str]) -> Coded:
    """The column of ``"{left}|{right}"`` strings of two coded columns."""
    width = max(len(right_values), 1)
    distinct, codes = np.unique(left.astype(np.int64) * width + right, return_inverse=True)
    values = [f"{left_values[k // width]}|{right_values[k % width]}" for k in distinct.tolist()]
    return codes.astype(np.int32).reshape(-1), values
