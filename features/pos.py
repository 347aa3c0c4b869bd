"""Part-of-speech features from tags predicted for every token (the tagger itself is a
model and lives in ``deid_crf.pos``)."""

from __future__ import annotations

import numpy as np

from .encoding import Coded, factorize


def pos_columns(
    upos: np.ndarray, eagles2: np.ndarray, tokens: np.ndarray, sentence_ids: np.ndarray
) -> dict[str, Coded]:
    """UPOS (``pos``), reduced EAGLES (``pos2``), UPOS joined with the lower-cased
    token (``pos_w``) and the UPOS bigram with the previous token of the sentence
    (``pos_bi``, ``<s>`` at a sentence start)."""
    n = len(tokens)
    previous = np.empty(n, dtype=object)
    if n:
        previous[0] = "<s>"
        previous[1:] = upos[:-1]
        starts = np.ones(n, dtype=bool)
        starts[1:] = sentence_ids[1:] != sentence_ids[:-1]
        previous[starts] = "<s>"
    upos_list, eagles_list = upos.tolist(), eagles2.tolist()
    return {
        "pos": factorize(upos_list),
        "pos2": factorize(eagles_list),
        "pos_w": factorize([f"{p}|{t.lower()}" for p, t in zip(upos_list, tokens.tolist(), strict=True)]),
        "pos_bi": factorize([f"{a}|{b}" for a, b in zip(previous.tolist(), upos_list, strict=True)]),
    }
