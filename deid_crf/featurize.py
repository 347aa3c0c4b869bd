"""Assemble feature columns for a :class:`TokenTable` and render them for a model.

Type features are computed once per distinct token string and gathered to tokens;
context features are computed over whole arrays; window features are shifts of the
code arrays inside sentence boundaries. Only the last step is model specific:
:meth:`Featurizer.crf_items` renders CRFsuite attribute strings through lookup
tables, so no per-token dict is ever built.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from features.encoding import factorize
from features.hashing import hash_strings
from features.registry import get_group
from features.window import AFTER_SENTENCE, shifted_index

from .config import FeatureConfig
from .resources import resource_inputs
from .tokens import TokenTable

CRFItems = list[list[list[str]]]  # sentences → tokens → attribute strings


@dataclass
class FeatureColumns:
    """Integer-coded feature columns of every token: ``codes[:, j]`` indexes
    ``vocab[j]``, the distinct values of column ``names[j]``."""

    names: list[str]
    codes: np.ndarray  # (n_tokens, n_columns) int32
    vocab: list[list[str]]


@dataclass
class AttributeCodes:
    """Every token's CRFsuite attributes as integer codes: ``lookups[j][codes[:, j]]``
    is the ``j``-th attribute string of every token. The same content as
    :meth:`Featurizer.crf_items` in a few numpy arrays (about 40 MB for MEDDOCAN train
    instead of ten million list entries), which is what the grid search caches: the
    arrays store and load in a fraction of a second, nested lists take seconds."""

    lookups: list[np.ndarray]  # object arrays of attribute strings
    codes: np.ndarray  # (n_tokens, n_attributes) int32
    sent_bounds: np.ndarray  # (n_sentences, 2) token ranges, as in TokenTable

    def crf_items(self) -> CRFItems:
        """Attribute strings per token, per sentence."""
        rendered = [lookup[self.codes[:, j]] for j, lookup in enumerate(self.lookups)]
        n = len(self.codes)
        matrix = np.stack(rendered, axis=1) if n else np.zeros((0, len(rendered)), dtype=object)
        with _gc_paused():
            rows = matrix.tolist()
            return [rows[a:b] for a, b in self.sent_bounds.tolist()]


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of small lists are built:
    they hold no cycles, and collections triggered by their allocation would scan
    them again and again (about a third of the featurization time otherwise)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class Featurizer:
    """Turns token tables into model inputs according to a :class:`FeatureConfig`."""

    def __init__(self, config: FeatureConfig | None = None):
        self.config = config or FeatureConfig()
        self._groups = [get_group(name) for name in self.config.groups]

    def columns(self, table: TokenTable) -> FeatureColumns:
        type_codes, types = factorize(table.tokens.tolist())
        names: list[str] = []
        code_columns: list[np.ndarray] = []
        vocab: list[list[str]] = []
        for group in self._groups:
            if group.kind == "type":
                kwargs = {"lengths": self.config.affix_lengths} if group.name == "affixes" else {}
                for name, per_type in group.extract(types, **kwargs).items():
                    codes, values = factorize(per_type)
                    names.append(name)
                    code_columns.append(codes[type_codes] if len(codes) else codes)
                    vocab.append(values)
            else:
                if group.kind == "context":
                    columns = group.extract(table.tokens, table.doc, table.line)
                else:
                    columns = group.extract(**resource_inputs(group.name, self.config, table))
                for name, (codes, values) in columns.items():
                    names.append(name)
                    code_columns.append(codes)
                    vocab.append(values)
        codes = np.stack(code_columns, axis=1) if code_columns else np.zeros((len(table), 0), np.int32)
        return FeatureColumns(names, codes.reshape(len(table), len(names)), vocab)

    def _window_plan(self, names: list[str]) -> list[tuple[int, int]]:
        """(offset, column index) pairs: every column at offset 0, the window
        columns at the other offsets."""
        missing = [c for c in self.config.window_columns if c not in names]
        if missing:
            raise ValueError(f"window columns {missing} are not produced by groups {list(self.config.groups)}")
        window = [names.index(c) for c in self.config.window_columns]
        plan = [(0, j) for j in range(len(names))]
        for offset in range(1, self.config.window + 1):
            for sign in (-1, 1):
                plan.extend((sign * offset, j) for j in window)
        return plan

    def _attribute_columns(self, table: TokenTable) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Per (offset, column) of the window plan: a lookup array of attribute
        strings (``"-1:w=nombre"``, plus ``<s>``/``</s>`` for window positions outside
        the sentence) and every token's index into it."""
        cols = self.columns(table)
        n = len(table)
        sentence_ids = table.sentence_ids()
        shifted: dict[int, np.ndarray] = {}
        yield np.array(["bias"], dtype=object), np.zeros(n, dtype=np.int32)
        for offset, j in self._window_plan(cols.names):
            prefix = f"{offset:+d}:" if offset else ""
            name = cols.names[j]
            lookup = np.array(
                [f"{prefix}{name}={v}" for v in cols.vocab[j]] + [f"{prefix}{name}=<s>", f"{prefix}{name}=</s>"],
                dtype=object,
            )
            codes = cols.codes[:, j]
            if offset:
                if offset not in shifted:
                    shifted[offset] = shifted_index(sentence_ids, offset)
                index = shifted[offset]
                outside = index < 0
                codes = codes[np.where(outside, 0, index)]
                codes = np.where(outside, len(cols.vocab[j]) + (index == AFTER_SENTENCE), codes)
            yield lookup, codes

    def attribute_codes(self, table: TokenTable) -> AttributeCodes:
        """The attributes of :meth:`crf_items` as integer codes (see :class:`AttributeCodes`)."""
        lookups, columns = [], []
        for lookup, codes in self._attribute_columns(table):
            lookups.append(lookup)
            columns.append(codes.astype(np.int32, copy=False))
        codes = np.stack(columns, axis=1) if len(table) else np.zeros((0, len(lookups)), dtype=np.int32)
        return AttributeCodes(lookups, codes, table.sent_bounds)

    def crf_items(self, table: TokenTable) -> CRFItems:
        """CRFsuite attribute strings (``"-1:w=nombre"``) per token, per sentence."""
        return self.attribute_codes(table).crf_items()

    def hashed_matrix(self, table: TokenTable, n_features: int) -> sparse.csr_matrix:
        """The same attributes as :meth:`crf_items`, one-hot encoded into
        ``n_features`` hashed columns: a CSR matrix built straight from integer
        arrays (every token has the same number of attributes)."""
        ids = [hash_strings(lookup.tolist(), n_features)[codes] for lookup, codes in self._attribute_columns(table)]
        n, k = len(table), len(ids)
        indices = np.stack(ids, axis=1).ravel() if n else np.zeros(0, dtype=np.int32)
        indptr = np.arange(0, n * k + 1, k, dtype=np.int64)
        data = np.ones(n * k, dtype=np.float32)
        # Hash collisions inside a row leave duplicate entries, which sparse products
        # add up, as one-hot features of the same column should.
        return sparse.csr_matrix((data, indices, indptr), shape=(n, n_features))
