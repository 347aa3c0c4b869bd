"""The embedding clusters of a saved model without fastText: what tagging needs of a
fastText model, in one ``.npz`` file that loads without fastText and executes no code.

The CRF uses the vectors only through their nearest k-means centroid (``emb64``,
``emb256``, ``emb1024``). So :func:`save_subwords` stores, for the words of the
fastText vocabulary, their cluster ids (computed by fastText itself, exactly), and, for
out-of-vocabulary tokens, the n-gram bucket rows that fastText averages into their
vectors. Only the rows some vocabulary n-gram reaches are stored (fastText trains no
other: they stay zero), each as 16-bit integers times a per-row float32 scale: on the
default model's 52,688 out-of-vocabulary token types of MEDDOCAN train, dev and the
unlabeled corpus, no cluster id differs from fastText's (with 14 bits, 6 did).
:func:`ngram_buckets` reproduces fastText's ``computeSubwords`` (FNV-1a over the UTF-8
bytes of ``<word>``'s character n-grams, bytes sign-extended as fastText's ``int8_t``
cast does, modulo the bucket count) and the vector is summed in float32 in fastText's
order, so with the same rows it equals ``get_word_vector`` bit for bit.

    subwords.npz
      words          uint8 (n,)        the vocabulary, UTF-8, one word per line
      word_clusters  int16 (words, k)  each word's cluster in every centroid set
      settings       int64 (3,)        minn, maxn, bucket
      present        uint8             packed bits: which bucket rows are stored
      rows           int16 (m, dim)    the stored rows, quantized
      scales         float32 (m,)      each stored row's scale
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from deid_crf.features.embedding import nearest_centroid
from deid_crf.io.names import shown
from deid_crf.io.persistence import InvalidModel, load_arrays, save_arrays
from deid_crf.parallel import one_blas_thread

SUBWORDS_FILE = "subwords.npz"
ROW_BITS = 16
_ROW_MAX = 2 ** (ROW_BITS - 1) - 1
_FNV_OFFSET = np.uint32(2166136261)
_FNV_PRIME = np.uint32(16777619)
# What a subwords.npz may hold (decompressed, in all) and the settings it may declare:
# the default model's holds 8 MB; fastText's own limits are those of fasttext_file.
MAX_SUBWORD_BYTES = 512 << 20
MAX_NGRAM = 64
MAX_BUCKET = 1 << 27
MAX_DIM = 10_000


def ngram_buckets(words: Sequence[str], minn: int, maxn: int, bucket: int) -> tuple[np.ndarray, np.ndarray]:
    """fastText's subword buckets of every word: ``(buckets, counts)``, the buckets
    of all words one after the other and how many each word has (0 for a word too
    short for any n-gram, whose vector is zero)."""
    grams: list[bytes] = []
    counts = np.zeros(len(words), dtype=np.int64)
    for w, word in enumerate(words):
        marked = f"<{word}>"
        before = len(grams)
        for i in range(len(marked)):
            for n in range(max(minn, 1), min(maxn, len(marked) - i) + 1):
                if n == 1 and (i == 0 or i + n == len(marked)):
                    continue  # fastText skips "<" and ">" alone
                grams.append(marked[i : i + n].encode("utf-8", "surrogatepass"))
        counts[w] = len(grams) - before
    if not grams:
        return np.zeros(0, dtype=np.int64), counts
    width = max(map(len, grams))
    lengths = np.fromiter(map(len, grams), dtype=np.int64, count=len(grams))
    data = np.frombuffer(b"".join(g.ljust(width, b"\0") for g in grams), dtype=np.uint8).reshape(-1, width)
    # fastText hashes ``uint32_t(int8_t(byte))``: bytes over 127 are sign-extended.
    signed = data.astype(np.int8).astype(np.int32).view(np.uint32)
    hashes = np.full(len(grams), _FNV_OFFSET, dtype=np.uint32)
    for j in range(width):
        inside = lengths > j
        hashes[inside] = (hashes[inside] ^ signed[inside, j]) * _FNV_PRIME  # uint32 wraps, as in C++
    return (hashes % np.uint32(bucket)).astype(np.int64), counts


def quantize_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(integers, scales)`` with ``integers * scales[:, None]`` close to ``rows``: each
    row scaled so that its largest magnitude is the largest 16-bit integer."""
    peak = np.abs(rows).max(axis=1) if rows.size else np.zeros(len(rows), np.float32)
    scales = (peak / np.float32(_ROW_MAX)).astype(np.float32)
    scales[scales == 0] = 1
    return np.round(rows / scales[:, None]).astype(np.int16), scales


def save_subwords(path: Path, model, centroids: Sequence[np.ndarray]) -> None:
    """Write what :class:`SubwordClusters` needs of fastText ``model`` (loaded by the
    fasttext package) and its centroid sets to ``path``."""
    words = list(model.words)
    if any("\n" in word for word in words):
        raise ValueError("a fastText vocabulary word holds a line break")
    args = model.f.getArgs()
    vectors = np.stack([model.get_word_vector(word) for word in words]) if words else np.zeros((0, 1), np.float32)
    word_clusters = np.stack([nearest_centroid(vectors, c) for c in centroids], axis=1).astype(np.int16)
    buckets = model.get_input_matrix()[len(words) :]
    present = buckets.any(axis=1)
    rows, scales = quantize_rows(buckets[present])
    save_arrays(
        path,
        {
            "words": np.frombuffer("\n".join(words).encode("utf-8"), dtype=np.uint8),
            "word_clusters": word_clusters,
            "settings": np.array([args.minn, args.maxn, args.bucket], dtype=np.int64),
            "present": np.packbits(present),
            "rows": rows,
            "scales": scales,
        },
    )


_DTYPES = {
    "words": "u1",
    "word_clusters": "i2",
    "settings": "i8",
    "present": "u1",
    "rows": "i2",
    "scales": "f4",
}


def _header_problem(name: str, shape: tuple[int, ...], dtype: np.dtype) -> str | None:
    if name not in _DTYPES:
        return "is not one of " + ", ".join(_DTYPES)
    if dtype.str.lstrip("<>|=") != _DTYPES[name]:
        return f"must be of type {_DTYPES[name]}"
    ndim = 2 if name in ("word_clusters", "rows") else 1
    if len(shape) != ndim or (name == "settings" and shape != (3,)):
        return f"has the wrong shape {shape}"
    return None


class SubwordClusters:
    """The cluster ids of any token string, from a ``subwords.npz`` (fastText not needed)."""

    def __init__(self, path: Path, centroids: list[np.ndarray]):
        arrays = load_arrays(path, MAX_SUBWORD_BYTES, _header_problem)
        missing = sorted(set(_DTYPES) - set(arrays))
        if missing:
            raise InvalidModel(f"{shown(path)}: no array {missing[0]!r}")
        minn, maxn, bucket = (int(x) for x in arrays["settings"])
        rows, scales, clusters = arrays["rows"], arrays["scales"], arrays["word_clusters"]
        present = np.unpackbits(arrays["present"])
        try:
            words = bytes(arrays["words"]).decode("utf-8", "strict")
        except UnicodeDecodeError:
            raise InvalidModel(f"{shown(path)}: the vocabulary is not UTF-8") from None
        vocabulary = words.split("\n") if words else []
        problem = None
        if not (0 <= minn <= maxn <= MAX_NGRAM and 1 <= bucket <= MAX_BUCKET):
            problem = "settings out of range (n-gram lengths 0-64, 1 to 2^27 buckets)"
        elif len(arrays["present"]) != -(-bucket // 8) or present[bucket:].any():
            problem = f"the stored-row bits do not match {bucket} buckets"
        elif int(present.sum()) != len(rows) or len(scales) != len(rows):
            problem = "the number of rows and scales does not match the stored-row bits"
        elif centroids and rows.shape[1] != centroids[0].shape[1]:
            problem = f"rows of dimension {rows.shape[1]}, the centroids have {centroids[0].shape[1]}"
        elif not np.isfinite(scales).all():
            problem = "a row scale is not finite"
        elif clusters.shape != (len(vocabulary), len(centroids)):
            problem = f"cluster ids of shape {clusters.shape}; {len(vocabulary)} words and {len(centroids)} sets"
        elif len(set(vocabulary)) != len(vocabulary):
            problem = "a vocabulary word is listed twice"
        elif clusters.size and ((clusters < 0) | (clusters >= np.array([len(c) for c in centroids]))).any():
            problem = "a cluster id out of its centroid set"
        if problem:
            raise InvalidModel(f"{shown(path)}: {problem}")
        self.centroids = centroids
        self.minn, self.maxn, self.bucket = minn, maxn, bucket
        self.index = {word: i for i, word in enumerate(vocabulary)}
        self.word_clusters = clusters
        # Bucket → stored row, or the zero row appended after them.
        self.row_of = np.full(bucket, len(rows), dtype=np.int64)
        self.row_of[np.flatnonzero(present[:bucket])] = np.arange(len(rows))
        self.rows = np.vstack([rows, np.zeros((1, rows.shape[1]), np.int16)])
        self.scales = np.append(scales, np.float32(1))

    def vectors(self, words: Sequence[str]) -> np.ndarray:
        """fastText's vectors of out-of-vocabulary ``words`` (already lower-cased): the
        mean of their n-gram rows, summed in fastText's order; zero with no n-gram."""
        buckets, counts = ngram_buckets(words, self.minn, self.maxn, self.bucket)
        out = np.zeros((len(words), self.rows.shape[1]), dtype=np.float32)
        has = counts > 0
        if buckets.size:
            stored = self.row_of[buckets]
            gathered = self.rows[stored].astype(np.float32) * self.scales[stored][:, None]
            starts = np.cumsum(counts) - counts
            # Added one n-gram at a time, in order, as fastText does (np.add.reduceat
            # adds in another order: the last bits differ, and a near tie may flip).
            for step in range(int(counts.max())):
                words = np.flatnonzero(counts > step)
                out[words] += gathered[starts[words] + step]
            out[has] *= (1.0 / counts[has]).astype(np.float32)[:, None]
        return out

    def clusters(self, types: Sequence[str]) -> list[np.ndarray]:
        """For every centroid set, the cluster id of every string (lower-cased first)."""
        lowered = [t.lower() for t in types]
        found = np.array([self.index.get(word, -1) for word in lowered], dtype=np.int64)
        unknown = np.flatnonzero(found < 0)
        vectors = self.vectors([lowered[i] for i in unknown.tolist()])
        out = []
        with one_blas_thread():  # products of a few hundred words: threads only cost
            for k, centroids in enumerate(self.centroids):
                codes = np.empty(len(types), dtype=np.int32)
                codes[found >= 0] = self.word_clusters[found[found >= 0], k]
                codes[unknown] = nearest_centroid(vectors, centroids)
                out.append(codes)
        return out
