"""Stable feature hashing of attribute strings into a fixed number of columns.

The hash is MurmurHash3 (x86, 32 bits, seed 0) of the UTF-8 bytes, the function
scikit-learn's ``murmurhash3_32`` computes, so models trained with it keep their
columns; it is computed here in numpy, many strings at a time, so that tagging does not
import scikit-learn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Hashes already computed in this process, per number of columns. Attribute strings
# repeat across batches (common words, shapes, affixes), so most are looked up here
# instead of hashed again; the cache is emptied when it grows past the limit.
_CACHE: dict[int, dict[str, int]] = {}
_CACHE_LIMIT = 2_000_000

_C1, _C2 = np.uint32(0xCC9E2D51), np.uint32(0x1B873593)
_M, _N = np.uint32(5), np.uint32(0xE6546B64)
_F1, _F2 = np.uint32(0x85EBCA6B), np.uint32(0xC2B2AE35)


def hash_strings(strings: Sequence[str], n_features: int) -> np.ndarray:
    """Column index in ``[0, n_features)`` of every string (MurmurHash3, the same in
    every process and on every machine, unlike Python's ``hash``)."""
    cache = _CACHE.setdefault(n_features, {})
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    values = [cache.get(s) for s in strings]
    missing = [i for i, h in enumerate(values) if h is None]
    if missing:
        columns = (murmurhash3_32([strings[i] for i in missing]) % np.uint32(n_features)).tolist()
        for i, column in zip(missing, columns, strict=True):
            values[i] = cache[strings[i]] = column
    return np.array(values, dtype=np.int32)


# Strings of up to this many UTF-8 bytes are hashed together, zero-padded to the longest
# (attribute strings: ``-2:w=…``); longer ones by groups of one byte length, so that one
# long token does not pad every string to its length.
PADDED_BYTES = 64


def murmurhash3_32(strings: Sequence[str]) -> np.ndarray:
    """MurmurHash3 (x86, 32 bits, seed 0) of the UTF-8 bytes of every string, as
    unsigned integers."""
    encoded = [s.encode("utf-8") for s in strings]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    out = np.empty(len(encoded), dtype=np.uint32)
    short = np.flatnonzero(lengths <= PADDED_BYTES)
    if len(short):
        width = -(-int(lengths[short].max()) // 4) * 4 or 4
        data = b"".join([encoded[i].ljust(width, b"\0") for i in short.tolist()])
        out[short] = _murmur_padded(np.frombuffer(data, dtype="<u4").reshape(len(short), -1), lengths[short])
    long = lengths > PADDED_BYTES
    for length in np.unique(lengths[long]).tolist():
        rows = np.flatnonzero(lengths == length)
        data = np.frombuffer(b"".join([encoded[i] for i in rows]), dtype=np.uint8).reshape(len(rows), length)
        out[rows] = _murmur_rows(data)
    return out


def _murmur_padded(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The hash of every row of a ``(strings, words)`` array of little-endian 4-byte
    words, each string's bytes zero-padded past its length ``lengths``: the same steps
    as :func:`_murmur_rows`, each string taking as many block steps as it has whole blocks."""
    n_blocks = lengths // 4
    h = np.zeros(len(words), dtype=np.uint32)
    for j in range(int(n_blocks.max()) if len(words) else 0):
        rows = np.flatnonzero(n_blocks > j)
        k = _rotate(words[rows, j].astype(np.uint32) * _C1, 15) * _C2
        h[rows] = _rotate(h[rows] ^ k, 13) * _M + _N
    # The tail bytes and the zero padding after them form the tail word.
    rows = np.flatnonzero(lengths % 4)
    h[rows] ^= _rotate(words[rows, n_blocks[rows]].astype(np.uint32) * _C1, 15) * _C2
    return _finish(h, lengths.astype(np.uint32))


def _rotate(x: np.ndarray, bits: int) -> np.ndarray:
    return (x << np.uint32(bits)) | (x >> np.uint32(32 - bits))


def _murmur_rows(data: np.ndarray) -> np.ndarray:
    """The hash of every row of a ``(strings, length)`` byte array."""
    n, length = data.shape
    h = np.zeros(n, dtype=np.uint32)
    n_blocks = length // 4
    blocks = np.ascontiguousarray(data[:, : 4 * n_blocks]).view("<u4").astype(np.uint32)
    for j in range(n_blocks):
        k = _rotate(blocks[:, j] * _C1, 15) * _C2
        h = _rotate(h ^ k, 13) * _M + _N
    tail = data[:, 4 * n_blocks :].astype(np.uint32)
    if tail.shape[1]:
        k = np.zeros(n, dtype=np.uint32)
        for t in range(tail.shape[1]):
            k |= tail[:, t] << np.uint32(8 * t)
        h ^= _rotate(k * _C1, 15) * _C2
    return _finish(h, np.uint32(length))


def _finish(h: np.ndarray, lengths: np.ndarray | np.uint32) -> np.ndarray:
    """MurmurHash3's final mix of the running hashes ``h`` of strings of ``lengths`` bytes."""
    h ^= lengths
    h ^= h >> np.uint32(16)
    h *= _F1
    h ^= h >> np.uint32(13)
    h *= _F2
    h ^= h >> np.uint32(16)
    return h
