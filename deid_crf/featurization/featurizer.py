"""Assemble feature columns for a :class:`TokenTable` and render them for a model.

Type features are computed once per distinct token string and gathered to tokens;
context features are computed over whole arrays; window features are shifts of the
code arrays inside sentence boundaries. Only the last step is model specific:
:meth:`Featurizer.crf_items` renders CRFsuite attribute strings through lookup
tables, so no per-token dict is ever built.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from deid_crf.config import FeatureConfig
from deid_crf.features.encoding import Coded, factorize
from deid_crf.features.registry import PER_TYPE_KINDS, FeatureGroup, get_group
from deid_crf.features.window import AFTER_SENTENCE, shifted_index
from deid_crf.featurization.hashing import hash_strings
from deid_crf.featurization.type_scores import TypeScores
from deid_crf.text.table import TokenTable

if TYPE_CHECKING:
    from scipy import sparse

CRFItems = list[list[list[str]]]  # sentences → tokens → attribute strings

# Per type group and parameters, the last strings featurized and their columns. The
# NER model and its POS tagger use the same lexical groups (lower, affixes, shape,
# flags) and each featurizes the strings its own TypeScores has not seen: in a tagging
# process both see the same tables, so the tagger's strings are the model's, just done.
# The columns are never modified after they are made.
_LAST_TYPE_COLUMNS: dict[tuple, tuple[list[str], dict[str, Coded]]] = {}

# Tokens whose linear scores are summed together (:meth:`Featurizer.linear_scores`): a
# (tokens, labels) block of 344 kB with MEDDOCAN's 42 labels, which stays in a core's
# L2 cache with the rows gathered into it (MEDDOCAN dev in chunks of 16 documents: the
# summing took 0.32 s with 8192 tokens, 0.26 s with 1024, 0.27 s with 512 or 2048).
SCORE_BLOCK_TOKENS = 1024


@dataclass
class FeatureColumns:
    """Integer-coded feature columns of every token: ``codes[:, j]`` indexes
    ``vocab[j]``, the distinct values of column ``names[j]``."""

    names: list[str]
    codes: np.ndarray  # (n_tokens, n_columns) int32
    vocab: list[list[str]]
    absent: list[int]  # per column, the code of its group's ``absent`` value, or -1


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
    # Per attribute column, the code left out of the items (an absent value), or -1.
    omit: np.ndarray | None = None

    def crf_items(self) -> CRFItems:
        """Attribute strings per token, per sentence (absent values left out)."""
        # One gather from all lookups laid end to end: a single pass over the
        # (n_tokens, n_attributes) strings before ``tolist`` (per-column gathers and a
        # stack copy them twice more).
        sizes = [len(lookup) for lookup in self.lookups]
        starts = np.cumsum([0, *sizes[:-1]], dtype=np.int64).astype(self.codes.dtype)
        strings = np.concatenate(self.lookups) if self.lookups else np.zeros(0, dtype=object)
        with _gc_paused():
            if self.omit is None or not (self.omit >= 0).any():
                rows = strings[self.codes + starts].tolist()
            else:
                keep = self.codes != self.omit
                ends = np.cumsum(keep.sum(axis=1)).tolist()
                kept = strings[(self.codes + starts)[keep]].tolist()
                rows = [kept[a:b] for a, b in zip([0, *ends][: len(ends)], ends, strict=True)]
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


class ResourceOutputs(Protocol):
    """What the caller hands a :class:`Featurizer` for the feature groups fed by a
    trained resource (POS tags, embedding vectors, gazetteer matches): the featurizer
    never loads a resource itself (``deid_crf.resources.ConfiguredResources`` is the
    implementation the application uses)."""

    def key(self, group: str) -> str:
        """What identifies the resource behind ``group`` (for caching per table)."""
        ...

    def inputs(self, group: str, table: TokenTable) -> dict[str, Any]:
        """The keyword arguments of ``group``'s extractor for ``table`` (a "resource" group)."""
        ...

    def type_inputs(self, group: str, types: Sequence[str]) -> dict[str, Any]:
        """The keyword arguments of ``group``'s extractor for the distinct token strings
        ``types`` (a "type_resource" group)."""
        ...


class Featurizer:
    """Turns token tables into model inputs according to a :class:`FeatureConfig`.

    ``resources`` provides the outputs of trained resources for the groups that need
    them; a configuration without such groups needs none."""

    def __init__(self, config: FeatureConfig | None = None, resources: ResourceOutputs | None = None):
        self.config = config or FeatureConfig()
        self.resources = resources
        self._groups = [get_group(name) for name in self.config.groups]

    def _resources(self, group: str) -> ResourceOutputs:
        if self.resources is None:
            raise ValueError(
                f"feature group {group!r} needs a trained resource's output: build the featurizer "
                "with resources= (deid_crf.resources.featurizer(config) does)"
            )
        return self.resources

    def type_columns(self, table: TokenTable) -> dict[str, dict[str, Coded]]:
        """Per type group, its columns coded per distinct token string (one code per
        element of ``table.type_index[1]``), remembered in ``table.type_features``."""
        types = table.type_index[1]
        out: dict[str, dict[str, Coded]] = {}
        for group in self._groups:
            if group.kind in PER_TYPE_KINDS:
                key = self._type_group_key(group)
                if key not in table.type_features:
                    table.type_features[key] = self._type_group_columns(group, types)
                out[group.name] = table.type_features[key]
        return out

    def _type_group_key(self, group: FeatureGroup) -> tuple:
        """What a type group's columns depend on besides the strings: its parameters or
        its resource."""
        if group.kind == "type_resource":
            return (group.name, self._resources(group.name).key(group.name))
        return (group.name, *self._type_group_kwargs(group).items())

    def _type_group_kwargs(self, group: FeatureGroup) -> dict[str, Any]:
        return {"lengths": tuple(self.config.affix_lengths)} if group.name == "affixes" else {}

    def _type_group_columns(self, group: FeatureGroup, types: Sequence[str]) -> dict[str, Coded]:
        """The columns of type group ``group`` for the distinct strings ``types``."""
        if group.kind == "type_resource":
            return group.extract(**self._resources(group.name).type_inputs(group.name, types))
        key = self._type_group_key(group)
        last = _LAST_TYPE_COLUMNS.get(key)
        if last is not None and isinstance(types, list) and last[0] == types:
            return last[1]
        columns = {name: factorize(values) for name, values in group.extract(types, **dict(key[1:])).items()}
        _LAST_TYPE_COLUMNS[key] = (list(types), columns)
        return columns

    def type_key(self) -> tuple:
        """What :meth:`type_sums` depends on besides its arguments (see :class:`TypeScores`)."""
        groups = [self._type_group_key(g) for g in self._groups if g.kind in PER_TYPE_KINDS]
        return (self.config.window, tuple(self.config.window_columns), *groups)

    def type_sums(
        self, types: Sequence[str], weights: np.ndarray, rows_of: Callable[[list[str]], np.ndarray]
    ) -> tuple[dict[str, list[str]], list[int], np.ndarray]:
        """For the distinct strings ``types``: per type group its column names, the window
        offsets at which type columns are used (in the order of :meth:`_window_plan`), and
        per offset the sum of ``weights[rows_of(attributes)]`` over the type columns'
        attributes of each string, then of the ``<s>`` and ``</s>`` markers of positions
        outside the sentence: shape ``(n_offsets, len(types) + 2, n_outputs)``."""
        names: dict[str, list[str]] = {}
        columns: dict[str, Coded] = {}
        for group in self._groups:
            if group.kind in PER_TYPE_KINDS:
                group_columns = self._type_group_columns(group, types)
                names[group.name] = list(group_columns)
                columns.update(group_columns)
        # The type columns' entries of the window plan, in its order.
        plan = [(0, name) for name in columns]
        for offset in range(1, self.config.window + 1):
            for sign in (-1, 1):
                plan.extend((sign * offset, c) for c in self.config.window_columns if c in columns)
        offsets = list(dict.fromkeys(offset for offset, _ in plan))
        sums = np.zeros((len(offsets), len(types) + 2, weights.shape[1]), dtype=weights.dtype)
        at = {offset: k for k, offset in enumerate(offsets)}
        # One ``rows_of`` call for every attribute string of the plan: a hashed model
        # hashes them together (a few numpy steps per string length, not per column).
        lookups = [self._lookup(offset, name, columns[name][1]) for offset, name in plan]
        all_rows = rows_of([a for lookup in lookups for a in lookup])
        ends = np.cumsum([len(lookup) for lookup in lookups]).tolist()
        for (offset, name), begin, end in zip(plan, [0, *ends][: len(ends)], ends, strict=True):
            codes, values = columns[name]
            rows = weights[all_rows[begin:end]]
            summed = sums[at[offset]]
            summed[: len(types)] += rows[codes]
            summed[len(types) :] += rows[len(values) :]
        return names, offsets, sums

    def columns(self, table: TokenTable) -> FeatureColumns:
        """Every column of every token, in group order."""
        type_codes = table.type_index[0]
        per_type = self.type_columns(table)
        context = self._context_columns(table)
        names: list[str] = []
        code_columns: list[np.ndarray] = []
        vocab: list[list[str]] = []
        absent: list[int] = []
        for group in self._groups:
            if group.kind in PER_TYPE_KINDS:
                columns = {name: (codes[type_codes], values) for name, (codes, values) in per_type[group.name].items()}
            else:
                columns = context[group.name]
            for name, (codes, values) in columns.items():
                names.append(name)
                code_columns.append(codes)
                vocab.append(values)
                absent.append(_absent_code(group, values))
        codes = np.stack(code_columns, axis=1) if code_columns else np.zeros((len(table), 0), np.int32)
        return FeatureColumns(names, codes.reshape(len(table), len(names)), vocab, absent)

    def _context_columns(self, table: TokenTable) -> dict[str, dict[str, Coded]]:
        """Per group that is not a type group, its columns coded per token."""
        out: dict[str, dict[str, Coded]] = {}
        for group in self._groups:
            if group.kind == "context":
                out[group.name] = group.extract(table.tokens, table.doc, table.line)
            elif group.kind == "resource":
                out[group.name] = group.extract(**self._resources(group.name).inputs(group.name, table))
        return out

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

    @staticmethod
    def _lookup(offset: int, name: str, values: list[str]) -> list[str]:
        """Attribute strings of a column at a window offset (``"-1:w=nombre"``), one per
        value, then the ``<s>``/``</s>`` markers of positions outside the sentence."""
        prefix = f"{offset:+d}:" if offset else ""
        return [f"{prefix}{name}={v}" for v in values] + [f"{prefix}{name}=<s>", f"{prefix}{name}=</s>"]

    def _attribute_columns(self, table: TokenTable) -> Iterator[tuple[np.ndarray, np.ndarray, int]]:
        """Per (offset, column) of the window plan: a lookup array of attribute
        strings (:meth:`_lookup`), every token's index into it, and the index of the
        column's absent value (-1: none)."""
        cols = self.columns(table)
        shifts = _Shifts(table)
        yield np.array(["bias"], dtype=object), np.zeros(len(table), dtype=np.int32), -1
        for offset, j in self._window_plan(cols.names):
            lookup = np.array(self._lookup(offset, cols.names[j], cols.vocab[j]), dtype=object)
            yield lookup, shifts.shift(cols.codes[:, j], len(cols.vocab[j]), offset), cols.absent[j]

    def attribute_codes(self, table: TokenTable) -> AttributeCodes:
        """The attributes of :meth:`crf_items` as integer codes (see :class:`AttributeCodes`)."""
        lookups, columns, omit = [], [], []
        for lookup, codes, absent in self._attribute_columns(table):
            lookups.append(lookup)
            columns.append(codes.astype(np.int32, copy=False))
            omit.append(absent)
        codes = np.stack(columns, axis=1) if len(table) else np.zeros((0, len(lookups)), dtype=np.int32)
        return AttributeCodes(lookups, codes, table.sent_bounds, np.array(omit, dtype=np.int32))

    def crf_items(self, table: TokenTable) -> CRFItems:
        """CRFsuite attribute strings (``"-1:w=nombre"``) per token, per sentence."""
        return self.attribute_codes(table).crf_items()

    def hashed_matrix(self, table: TokenTable, n_features: int) -> sparse.csr_matrix:
        """The same attributes as :meth:`crf_items`, one-hot encoded into
        ``n_features`` hashed columns: a CSR matrix built straight from integer
        arrays (for training; tagging sums weight rows instead, :meth:`linear_scores`)."""
        from scipy import sparse

        ids, keep = [], []
        for lookup, codes, absent in self._attribute_columns(table):
            ids.append(hash_strings(lookup.tolist(), n_features)[codes])
            keep.append(codes != absent)
        n = len(table)
        present = np.stack(keep, axis=1) if n else np.zeros((0, len(keep)), dtype=bool)
        indices = np.stack(ids, axis=1)[present] if n else np.zeros(0, dtype=np.int32)
        indptr = np.concatenate(([0], np.cumsum(present.sum(axis=1)))).astype(np.int64)
        data = np.ones(len(indices), dtype=np.float32)
        # Hash collisions inside a row leave duplicate entries, which sparse products
        # add up, as one-hot features of the same column should.
        return sparse.csr_matrix((data, indices, indptr), shape=(n, n_features))

    def hashed_scores(self, table: TokenTable, weights: np.ndarray) -> np.ndarray:
        """``hashed_matrix(table, n_features) @ weights`` for a ``(n_features, n_outputs)``
        weight matrix, without building the matrix (see :meth:`linear_scores`)."""
        n_features = weights.shape[0]
        return self.linear_scores(table, weights, lambda strings: hash_strings(strings, n_features))

    def linear_scores(
        self,
        table: TokenTable,
        weights: np.ndarray,
        rows_of: Callable[[list[str]], np.ndarray],
        type_scores: TypeScores | None = None,
    ) -> np.ndarray:
        """Every token's sum of ``weights[rows_of(attributes)]`` over the attributes of
        :meth:`crf_items`: the scores of a linear model over those attributes (CRF
        state scores, a hashed linear classifier's decision values), computed without
        rendering a single per-token string. The weight rows of a column's attributes
        are gathered once per distinct value, and those of the type groups are first
        summed per token type and window offset (:meth:`type_sums`), so that they reach
        the tokens in one gather per offset; ``type_scores`` keeps those sums from one
        table to the next (a model's own :class:`TypeScores`: the same weights and
        ``rows_of`` every time). Equal to the sum over rendered attributes up to float
        rounding."""
        n_outputs = weights.shape[1]
        type_codes, types = table.type_index
        type_scores = TypeScores() if type_scores is None else type_scores
        type_names, type_offsets, type_sums, type_rows = type_scores.sums(self, types, weights, rows_of)
        context = self._context_columns(table)
        # Every column in group order: (name, codes and values, absent code); a type
        # column by its name only, its weights being in ``type_sums``.
        columns: list[tuple[str, Coded | None, int]] = []
        for group in self._groups:
            if group.kind in PER_TYPE_KINDS:
                columns += [(name, None, -1) for name in type_names[group.name]]
            else:
                columns += [(name, coded, _absent_code(group, coded[1])) for name, coded in context[group.name].items()]
        shifts = _Shifts(table)
        common = weights[rows_of(["bias"])[0]].copy()  # weights every token gets
        # Per context column at an offset: every token's code, and the rows to add (only
        # those that differ from ``common``'s, the rest being zero).
        deltas: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for offset, j in self._window_plan([name for name, _, _ in columns]):
            name, coded, absent = columns[j]
            if coded is None:
                continue  # a type column
            values = coded[1]
            rows = weights[rows_of(self._lookup(offset, name, values))]
            if absent >= 0:
                rows[absent] = 0  # left out of the attributes, as in crf_items
            codes = shifts.shift(coded[0], len(values), offset)
            # Most tokens of a context column share one value ("-": no gazetteer match,
            # no field label): its row goes to ``common``, and only the tokens whose row
            # differs from it are touched.
            mode = int(np.bincount(codes, minlength=len(rows)).argmax()) if len(codes) else 0
            common += rows[mode]
            delta = rows - rows[mode]
            deltas.append((codes, delta, delta.any(axis=1)))
        # Per offset, the kept sums and every token's row of them (the markers' outside
        # the sentence): the rows reach the tokens in one gather, with no copy per table.
        per_type = [
            (type_sums[k], type_rows[shifts.shift(type_codes, len(types), offset)])
            for k, offset in enumerate(type_offsets)
        ]
        scores = np.empty((len(table), n_outputs), dtype=weights.dtype)
        # Summed block by block of tokens, in the same order for every token: the block
        # stays in the CPU's cache, and no temporary is as large as the table (a 10 MiB
        # document has 1.9 M tokens: each was a 600 MB array, faulted in page by page).
        for begin in range(0, len(table), SCORE_BLOCK_TOKENS):
            block = slice(begin, begin + SCORE_BLOCK_TOKENS)
            part = scores[block]
            part[:] = 0
            for codes, delta, nonzero in deltas:
                present = codes[block]
                differs = np.flatnonzero(nonzero[present])
                if 4 * len(differs) > len(present):
                    # Most rows differ (POS tags; field labels on a long line): adding
                    # every row is faster, and a zero row adds nothing (+0.0 changes no
                    # sum, and none is -0.0: it starts at +0.0).
                    part += delta[present]
                else:
                    part[differs] += delta[present[differs]]
            for summed, shifted in per_type:
                part += summed[shifted[block]]
            part += common
        return scores


def _absent_code(group: FeatureGroup, values: list[str]) -> int:
    """The code of ``group``'s absent value among a column's ``values``, or -1."""
    return values.index(group.absent) if group.absent in values else -1


class _Shifts:
    """Window shifts of a table's columns: for each offset, computed on first use, the
    index of the token at that offset from every token (itself where outside the
    sentence) and the few positions where it is outside."""

    def __init__(self, table: TokenTable):
        self._sentence_ids = table.sentence_ids()
        self._plans: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def shift(self, codes: np.ndarray, n_values: int, offset: int) -> np.ndarray:
        """The codes of the token at ``offset`` from each token; ``n_values`` (``<s>``)
        or ``n_values + 1`` (``</s>``, the markers of :meth:`Featurizer._lookup`) where
        that position is outside the sentence."""
        if not offset:
            return codes
        if offset not in self._plans:
            index = shifted_index(self._sentence_ids, offset)
            outside = np.flatnonzero(index < 0)
            source = index.copy()
            source[outside] = outside  # any valid index; overwritten below
            self._plans[offset] = source, outside, (index[outside] == AFTER_SENTENCE).astype(codes.dtype)
        source, outside, after = self._plans[offset]
        shifted = codes[source]
        shifted[outside] = n_values + after
        return shifted
