"""Gazetteer membership as per-token BIO features (pure: no file I/O).

A :class:`Gazetteer` is a token trie over the *normalised* tokens of word-list
entries (NFKD, combining marks removed, casefolded: ``Cuéllar`` and ``CUELLAR`` are
both ``cuellar``), one bit per output column in every node where an entry ends.
:func:`extract` walks that trie over a whole token batch at once: it normalises each
distinct token type once, maps it to a vocabulary id, then advances every live start
position one token per step with a binary search over the sorted edge keys
``parent << 32 | token id`` (numpy, exact, no hashing collisions). Per column it keeps
the longest entry starting at each position and picks matches greedily from the left
(leftmost-longest, no overlaps), so ``Hospital Universitario La Paz`` is one
``B I I I`` match, not ``Hospital`` alone. Matches never cross a line or document
(or, if given, a sentence) boundary.

Loading lists from files lives in :mod:`deid_crf.resources.gazetteer`; a configuration binds a
loaded gazetteer to :func:`extract`, which has the signature of a context feature
group plus the gazetteer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from deid_crf.features.encoding import Coded
from deid_crf.gazetteers.spanish import normalize, split_entry

NO_VALUE = "-"
BIO_VALUES = [NO_VALUE, "B", "I"]
# Band value of a token matched only by entries that carry no frequency band.
NO_BAND = "nofreq"
# One bit of an int64 mask per column.
MAX_COLUMNS = 63

# Plain entries, or entry → frequency band (None: an entry of a banded column without one).
Entries = Iterable[str] | Mapping[str, str | None]


# Memoised token → id pairs kept per gazetteer before the memo is emptied.
MEMO_LIMIT = 1_000_000


class _TokenIds(dict):
    """Raw token → vocabulary id of its normalised form (-1: in no entry), filled on
    first sight, so a batch costs one dict lookup per token."""

    def __init__(self, vocab: Mapping[str, int]):
        super().__init__()
        self.vocab = vocab

    def __missing__(self, token: str) -> int:
        value = self[token] = self.vocab.get(normalize(token), -1)
        return value


@dataclass(frozen=True, eq=False)
class Gazetteer:
    """A compiled set of word lists, one output column per list (or merged lists).

    ``edge_keys`` (sorted) and ``edge_child`` are the trie edges; node 0 is the root.
    ``node_mask`` has bit ``j`` set where an entry of ``columns[j]`` ends;
    ``node_band[c]`` is the 1-based index into ``bands[c]`` of the entry ending there
    (0: none). ``meta`` describes where the lists came from (filled by the loader).
    """

    columns: tuple[str, ...]
    bands: dict[str, tuple[str, ...]]
    vocab: dict[str, int]
    edge_keys: np.ndarray
    edge_child: np.ndarray
    node_mask: np.ndarray
    node_band: dict[str, np.ndarray]
    max_len: int
    meta: dict[str, Any] = field(default_factory=dict)
    _token_ids: _TokenIds = field(init=False, repr=False)
    _root_child: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_token_ids", _TokenIds(self.vocab))
        # The root's edges (first step of every walk) as a direct table by token id.
        n_root = int(np.searchsorted(self.edge_keys, 1 << 32))
        root_child = np.full(len(self.vocab) + 1, -1, dtype=np.int64)
        root_child[self.edge_keys[:n_root]] = self.edge_child[:n_root]
        object.__setattr__(self, "_root_child", root_child)

    def __getstate__(self) -> dict[str, Any]:
        # The memo holds document tokens (possibly PHI): it never leaves the process.
        return {k: v for k, v in self.__dict__.items() if k != "_token_ids"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_token_ids", _TokenIds(self.vocab))

    def token_ids(self, tokens: Iterable[str], count: int = -1) -> np.ndarray:
        """Vocabulary id of every token's normalised form (-1: in no entry)."""
        memo = self._token_ids
        if len(memo) > MEMO_LIMIT:
            memo.clear()
        return np.fromiter(map(memo.__getitem__, tokens), dtype=np.int64, count=count)

    @classmethod
    def build(
        cls,
        lists: Mapping[str, Entries],
        split: Callable[[str], Sequence[str]] = split_entry,
        meta: Mapping[str, Any] | None = None,
    ) -> Gazetteer:
        """Compile ``{column: entries}``; entries given as a mapping ``entry → band``
        also yield a band column. Entries that normalise alike are one entry (the
        first band seen wins; an entry mapped to ``None`` has no band)."""
        empty = cls((), {}, {}, np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(1, np.int64), {}, 0)
        return empty.extended(lists, split=split, meta=meta)

    def extended(
        self,
        lists: Mapping[str, Entries],
        split: Callable[[str], Sequence[str]] = split_entry,
        meta: Mapping[str, Any] | None = None,
    ) -> Gazetteer:
        """A new gazetteer with ``lists`` added: a known column gains entries, a new
        name becomes a new column. Used for cross-fitted lists (see
        :func:`deid_crf.gazetteers.annotations.annotation_lists`); ``self`` is unchanged."""
        columns = list(self.columns)
        vocab = dict(self.vocab)
        edges = dict(zip(self.edge_keys.tolist(), self.edge_child.tolist(), strict=True))
        node_mask = self.node_mask.tolist()
        bands = {c: list(b) for c, b in self.bands.items()}
        node_band = {c: b.tolist() for c, b in self.node_band.items()}
        max_len = self.max_len
        norm_cache: dict[str, int] = {}

        def token_id(token: str) -> int:
            tid = norm_cache.get(token)
            if tid is None:
                tid = norm_cache[token] = vocab.setdefault(normalize(token), len(vocab))
            return tid

        for column, entries in lists.items():
            if column not in columns:
                columns.append(column)
            if len(columns) > MAX_COLUMNS:
                raise ValueError(f"a gazetteer holds at most {MAX_COLUMNS} columns")
            bit = 1 << columns.index(column)
            banded = isinstance(entries, Mapping)
            if banded and column not in bands:
                bands[column] = []
                node_band[column] = [0] * len(node_mask)
            for entry in entries:
                tokens = split(entry)
                if not tokens:
                    continue
                node = 0
                for token in tokens:
                    key = (node << 32) | token_id(token)
                    child = edges.get(key)
                    if child is None:
                        child = edges[key] = len(node_mask)
                        node_mask.append(0)
                        for codes in node_band.values():
                            codes.append(0)
                    node = child
                node_mask[node] |= bit
                max_len = max(max_len, len(tokens))
                band = entries[entry] if banded else None
                if band is not None:
                    if band not in bands[column]:
                        bands[column].append(band)
                    if not node_band[column][node]:
                        node_band[column][node] = bands[column].index(band) + 1

        keys = np.fromiter(edges.keys(), dtype=np.int64, count=len(edges))
        children = np.fromiter(edges.values(), dtype=np.int32, count=len(edges))
        order = np.argsort(keys, kind="stable")
        return Gazetteer(
            columns=tuple(columns),
            bands={c: tuple(b) for c, b in bands.items()},
            vocab=vocab,
            edge_keys=keys[order],
            edge_child=children[order],
            node_mask=np.asarray(node_mask, dtype=np.int64),
            node_band={c: np.asarray(b, dtype=np.int16) for c, b in node_band.items()},
            max_len=max_len,
            meta=dict(meta if meta is not None else self.meta),
        )

    @property
    def n_entries(self) -> int:
        """Number of distinct normalised entries (over all columns)."""
        return int(np.count_nonzero(self.node_mask))

    def feature_names(self) -> list[str]:
        """The columns :func:`extract` returns, in order."""
        names = []
        for column in self.columns:
            names.append(f"gaz_{column}")
            if column in self.bands:
                names.append(f"gaz_{column}_band")
        return names


def segment_starts(doc: np.ndarray, line: np.ndarray) -> np.ndarray:
    """True where a token starts a new document or line."""
    starts = np.ones(len(doc), dtype=bool)
    starts[1:] = (doc[1:] != doc[:-1]) | (line[1:] != line[:-1])
    return starts


def _trie_hits(gazetteer: Gazetteer, ids: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, ...]:
    """Every (start position, length, node) where an entry ends, walking all start
    positions through the trie together, one token per step."""
    g = gazetteer
    n = len(ids)
    n_edges = len(g.edge_keys)
    nodes = g._root_child[ids]  # ids of -1 read the last slot, which is -1
    positions = np.flatnonzero(nodes >= 0)
    nodes = nodes[positions]
    hit_pos, hit_len, hit_node = [], [], []
    for k in range(g.max_len):
        if k:
            j = positions + k
            keep = j < n
            keep[keep] = ~starts[j[keep]] & (ids[j[keep]] >= 0)
            positions, nodes = positions[keep], nodes[keep]
            if not len(positions):
                break
            keys = (nodes << 32) | ids[positions + k]
            idx = np.searchsorted(g.edge_keys, keys)
            idx[idx == n_edges] = 0
            found = g.edge_keys[idx] == keys
            positions, nodes = positions[found], g.edge_child[idx[found]].astype(np.int64)
        ends = g.node_mask[nodes] != 0
        if ends.any():
            hit_pos.append(positions[ends])
            hit_len.append(np.full(int(ends.sum()), k + 1, dtype=np.int64))
            hit_node.append(nodes[ends])
    if not hit_pos:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(hit_pos), np.concatenate(hit_len), np.concatenate(hit_node)


def _leftmost_longest(pos: np.ndarray, length: np.ndarray, node: np.ndarray) -> tuple[np.ndarray, ...]:
    """Keep the longest hit per start, then drop hits that start inside an earlier
    kept one (scanning left to right)."""
    order = np.lexsort((length, pos))
    pos, length, node = pos[order], length[order], node[order]
    last = np.ones(len(pos), dtype=bool)
    last[:-1] = pos[1:] != pos[:-1]
    pos, length, node = pos[last], length[last], node[last]
    ends = pos + length
    if len(pos) > 1 and np.any(pos[1:] < ends[:-1]):
        keep = np.zeros(len(pos), dtype=bool)
        end = -1
        for i, (p, e) in enumerate(zip(pos.tolist(), ends.tolist(), strict=True)):
            if p >= end:
                keep[i] = True
                end = e
        pos, length, node = pos[keep], length[keep], node[keep]
    return pos, length, node


def extract(
    tokens: np.ndarray | Sequence[str],
    doc: np.ndarray,
    line: np.ndarray,
    gazetteer: Gazetteer,
    *,
    boundaries: np.ndarray | None = None,
) -> dict[str, Coded]:
    """Gazetteer features of every token, as a context feature group.

    For each column ``c`` of ``gazetteer``: ``gaz_c`` is ``B`` / ``I`` / ``-`` (first
    token of a match, later token, none) and, for banded lists, ``gaz_c_band`` the
    band of the matched entry (``-`` outside matches, ``nofreq`` for entries without
    one). Matches stay inside a line of a document; ``boundaries`` (True where a token
    starts a sentence, say) cuts them further. Bind the gazetteer with
    ``functools.partial`` (or :class:`deid_crf.resources.gazetteer.GazetteerFeatures`) to get
    ``extract(tokens, doc, line)``.
    """
    g = gazetteer
    n = len(tokens)
    starts = segment_starts(np.asarray(doc), np.asarray(line))
    if boundaries is not None:
        starts = starts | np.asarray(boundaries, dtype=bool)
    ids = g.token_ids(tokens.tolist() if isinstance(tokens, np.ndarray) else tokens, n)
    hit_pos, hit_len, hit_node = _trie_hits(g, ids, starts)
    hit_mask = g.node_mask[hit_node]

    out: dict[str, Coded] = {}
    for j, column in enumerate(g.columns):
        selected = ((hit_mask >> j) & 1).astype(bool)
        pos, length, node = _leftmost_longest(hit_pos[selected], hit_len[selected], hit_node[selected])
        covered = np.repeat(pos, length) + (
            np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length)
        )
        bio = np.zeros(n, dtype=np.int32)
        bio[covered] = 2
        bio[pos] = 1
        out[f"gaz_{column}"] = (bio, list(BIO_VALUES))
        if column in g.bands:
            names = g.bands[column]
            band = g.node_band[column][node].astype(np.int32)
            band[band == 0] = len(names) + 1
            codes = np.zeros(n, dtype=np.int32)
            codes[covered] = np.repeat(band, length)
            out[f"gaz_{column}_band"] = (codes, [NO_VALUE, *names, NO_BAND])
    return out
