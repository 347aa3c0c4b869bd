"""The columnar token table that every later stage works on."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from deid_crf.features.encoding import factorize


@dataclass
class TokenTable:
    """All tokens of a batch of documents, as parallel columns.

    ``tokens[i]`` is ``texts[doc[i]][start[i]:end[i]]``. Sentences and documents are
    contiguous runs of tokens; ``sent_bounds`` and ``doc_bounds`` hold their
    ``[begin, end)`` token indices (shape ``(n, 2)``). ``line`` numbers the lines of
    each document (0-based), so tokens on one line share it.
    """

    texts: list[str]
    tokens: np.ndarray  # object array of str
    start: np.ndarray  # int64 character offsets
    end: np.ndarray
    doc: np.ndarray  # int32 document index into ``texts``
    line: np.ndarray  # int32 line number inside the document
    sent_bounds: np.ndarray  # int64 (n_sentences, 2)
    doc_bounds: np.ndarray  # int64 (n_documents, 2)

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def n_sentences(self) -> int:
        return len(self.sent_bounds)

    def sentence_starts(self) -> np.ndarray:
        """True for every token that begins a sentence."""
        starts = np.zeros(len(self), dtype=bool)
        starts[self.sent_bounds[:, 0][self.sent_bounds[:, 0] < len(self)]] = True
        return starts

    def sentence_ids(self) -> np.ndarray:
        """Sentence index of every token."""
        ids = np.zeros(len(self), dtype=np.int64)
        if self.n_sentences > 1:
            ids[self.sent_bounds[1:, 0]] = 1
        return np.cumsum(ids)

    @cached_property
    def type_index(self) -> tuple[np.ndarray, list[str]]:
        """Each token's index into the distinct token strings, and those strings (in
        order of first appearance). Computed once per table: every feature group that
        works per type (lexical features, embeddings, the POS tagger) shares it."""
        return factorize(self.tokens.tolist())

    @cached_property
    def type_features(self) -> dict:
        """Per-type feature columns already computed for this table, filled by
        :meth:`deid_crf.featurization.featurizer.Featurizer.type_columns` (so the POS tagger and the
        NER features compute the lexical columns they share once)."""
        return {}

    @staticmethod
    def concat(tables: list[TokenTable]) -> TokenTable:
        """Join tables of disjoint document batches, in order."""
        if not tables:
            raise ValueError("no token tables to concatenate")
        if len(tables) == 1:
            return tables[0]
        texts: list[str] = []
        tok_offset = 0
        parts: dict[str, list[np.ndarray]] = {k: [] for k in ("tokens", "start", "end", "doc", "line", "sent", "docb")}
        for t in tables:
            parts["tokens"].append(t.tokens)
            parts["start"].append(t.start)
            parts["end"].append(t.end)
            parts["doc"].append(t.doc + len(texts))
            parts["line"].append(t.line)
            parts["sent"].append(t.sent_bounds + tok_offset)
            parts["docb"].append(t.doc_bounds + tok_offset)
            texts.extend(t.texts)
            tok_offset += len(t)
        return TokenTable(
            texts=texts,
            tokens=np.concatenate(parts["tokens"]),
            start=np.concatenate(parts["start"]),
            end=np.concatenate(parts["end"]),
            doc=np.concatenate(parts["doc"]).astype(np.int32),
            line=np.concatenate(parts["line"]).astype(np.int32),
            sent_bounds=np.concatenate(parts["sent"]).reshape(-1, 2),
            doc_bounds=np.concatenate(parts["docb"]).reshape(-1, 2),
        )
