"""Check a fastText ``vectors.bin`` before fastText's C++ loader reads it.

fastText's loader trusts every count in the file: a truncated or damaged model makes
it loop for ever on a word without its NUL (``in.get()`` at the end of the file
never returns 0), allocate whatever a matrix header claims, divide by a zero bucket
count, or read vectors outside the input matrix (rows that the header's sizes do not
hold). :func:`check_vectors_file` walks the same layout in Python first, without
reading the matrices into memory, and raises
:class:`~deid_crf.io.persistence.InvalidModel` (naming the file) unless it is a dense
(not quantized) fastText model whose every part lies in the file and fits the rest:

* magic 793712314, version 11 or 12 (fastText 0.9 writes 12);
* the arguments: 12 int32 and a float64 (dim, ws, epoch, minCount, neg, wordNgrams,
  loss, model, bucket, minn, maxn, lrUpdateRate, t), with a known loss and model, a
  dimension of 1 to :data:`MAX_DIM`, character n-gram lengths of 0 to
  :data:`MAX_NGRAM`, and a bucket count that is not negative (and not 0 with
  n-grams);
* the dictionary: size, nwords, nlabels (int32), ntokens, pruneidx_size (int64);
  ``size`` entries of a NUL-terminated UTF-8 word, an int64 count and an int8 type (words
  first, then labels: ``nwords`` and ``nlabels`` of them, each by decreasing count,
  as fastText sorts them and its hierarchical softmax needs them, counts adding up to
  less than 10^15); no pruning index (a pruned model must be quantized);
* the input matrix: a quantization flag of 0, rows × columns (int64) of
  ``nwords + bucket`` × ``dim``, then that many float32, finite;
* the output flag (0 or 1) and the output matrix: ``nwords`` (``nlabels`` for a
  supervised model) × ``dim`` finite float32; and nothing after it.

The layout is fastText's (``src/fasttext.cc`` ``loadModel``, ``src/args.cc``,
``src/dictionary.cc``, ``src/densematrix.cc``).
"""

from __future__ import annotations

import mmap
import os
import struct
from pathlib import Path

import numpy as np

from deid_crf.io.names import shown
from deid_crf.io.persistence import InvalidModel

MAGIC = 793712314
VERSIONS = (11, 12)
ARGS = struct.Struct("<12id")
DICTIONARY = struct.Struct("<3i2q")
ENTRY = struct.Struct("<qb")  # after the word's NUL: count, type
MATRIX = struct.Struct("<2q")
LOSSES = {1: "hs", 2: "ns", 3: "softmax", 4: "ova"}
MODELS = {1: "cbow", 2: "skipgram", 3: "supervised"}
SUPERVISED = 3
WORD, LABEL = 0, 1
# Far above any published model (300), far below what would exhaust memory.
MAX_DIM = 10_000
MAX_NGRAM = 64
MAX_WORD_BYTES = 1 << 16
MAX_TOTAL_COUNT = 10**15


class _Damaged(Exception):
    """What is wrong, for the message of InvalidModel."""


def check_vectors_file(path: str | os.PathLike) -> None:
    """Raise :class:`InvalidModel` unless fastText can load the model at ``path``
    without looping, over-allocating or reading outside it (see the module's
    docstring)."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                raise _Damaged("empty file")
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                _check(data, size)
    except _Damaged as exc:
        raise InvalidModel(f"{shown(path)}: damaged fastText model file ({exc})") from None
    except OSError as exc:
        raise InvalidModel(f"{shown(path)}: unreadable fastText model file ({exc.strerror})") from None


def _unpack(data: mmap.mmap, layout: struct.Struct, offset: int, what: str) -> tuple:
    if offset + layout.size > len(data):
        raise _Damaged(f"the file ends inside {what}")
    return layout.unpack_from(data, offset)


def _check(data: mmap.mmap, size: int) -> None:
    magic, version = _unpack(data, struct.Struct("<2i"), 0, "the header")
    if magic != MAGIC or version not in VERSIONS:
        raise _Damaged(f"not a fastText model of version {' or '.join(map(str, VERSIONS))}")
    offset = 8
    dim, _ws, _epoch, _min_count, _neg, _word_ngrams, loss, model, bucket, minn, maxn, _rate, _t = _unpack(
        data, ARGS, offset, "the arguments"
    )
    offset += ARGS.size
    if loss not in LOSSES or model not in MODELS:
        raise _Damaged("unknown loss or model kind")
    if not 1 <= dim <= MAX_DIM:
        raise _Damaged(f"dimension {dim} is not between 1 and {MAX_DIM}")
    if not (0 <= minn <= MAX_NGRAM and 0 <= maxn <= MAX_NGRAM):
        raise _Damaged(f"character n-gram lengths are not between 0 and {MAX_NGRAM}")
    if bucket < 0 or (bucket == 0 and maxn > 0):
        raise _Damaged("character n-grams without hash buckets")
    if version == 11 and model == SUPERVISED:
        maxn = 0  # as fastText reads such a model
    n_entries, n_words, n_labels, _n_tokens, prune_size = _unpack(data, DICTIONARY, offset, "the dictionary")
    offset += DICTIONARY.size
    if min(n_entries, n_words, n_labels) < 0 or n_words + n_labels != n_entries:
        raise _Damaged("the dictionary's word and label counts do not add up")
    if prune_size != -1:
        raise _Damaged("a pruned dictionary (quantized models are not supported)")
    # Each entry takes at least 10 bytes (an empty word's NUL, count, type).
    if n_entries * (1 + ENTRY.size) > size - offset:
        raise _Damaged(f"the dictionary claims {n_entries} entries, more than the file can hold")
    previous = total = 0
    for i in range(n_entries):
        end = data.find(b"\0", offset, min(size, offset + MAX_WORD_BYTES + 1))
        if end < 0:
            raise _Damaged(f"dictionary entry {i} has no end")
        try:  # fastText's Python module decodes every word as UTF-8
            data[offset:end].decode("utf-8")
        except UnicodeDecodeError:
            raise _Damaged(f"dictionary entry {i} is not UTF-8") from None
        count, kind = _unpack(data, ENTRY, end + 1, "the dictionary")
        if kind != (WORD if i < n_words else LABEL):
            raise _Damaged(f"dictionary entry {i} is of the wrong type")
        # fastText sorts words, then labels, by decreasing count; its hierarchical
        # softmax builds its tree on that order and reads outside it otherwise, and
        # takes 10^15 for "more than any count" (beyond it, the tree has a cycle and
        # walking it fills the memory).
        if count < 0 or (i not in (0, n_words) and count > previous):
            raise _Damaged(f"dictionary entry {i} has a count out of order")
        total += count
        if total >= MAX_TOTAL_COUNT:
            raise _Damaged("the dictionary's counts add up to more than fastText can hold")
        previous = count
        offset = end + 1 + ENTRY.size
    offset = _check_flag(data, offset, (0,), "a quantized input matrix (not supported)")
    offset = _check_matrix(data, offset, n_words + bucket, dim, "input")
    offset = _check_flag(data, offset, (0, 1), "a bad output quantization flag")
    offset = _check_matrix(data, offset, n_labels if model == SUPERVISED else n_words, dim, "output")
    if offset != size:
        raise _Damaged(f"{size - offset} bytes after the output matrix")


def _check_flag(data: mmap.mmap, offset: int, allowed: tuple[int, ...], problem: str) -> int:
    if offset >= len(data):
        raise _Damaged("the file ends before the matrices")
    if data[offset] not in allowed:
        raise _Damaged(problem)
    return offset + 1


def _check_matrix(data: mmap.mmap, offset: int, rows: int, columns: int, name: str) -> int:
    m, n = _unpack(data, MATRIX, offset, f"the {name} matrix's header")
    offset += MATRIX.size
    if (m, n) != (rows, columns):
        raise _Damaged(f"the {name} matrix is {m} × {n}, the arguments and dictionary make it {rows} × {columns}")
    count = rows * columns
    if offset + 4 * count > len(data):
        raise _Damaged(f"the file ends inside the {name} matrix")
    values = np.frombuffer(data, dtype="<f4", count=count, offset=offset)
    finite = bool(np.isfinite(values).all())
    del values  # a view of the mapping: released before it closes
    if not finite:
        raise _Damaged(f"the {name} matrix holds a value that is not a finite number")
    return offset + 4 * count
