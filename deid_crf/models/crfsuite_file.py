"""Check a CRFsuite model file before CRFsuite reads it.

CRFsuite's C reader trusts every offset and count in the file: a truncated or
damaged ``model.crfsuite`` makes it read outside its buffer (a segmentation fault),
divide by zero or loop for ever. :func:`check_model_file` walks the same structure
in Python and numpy first and raises :class:`~deid_crf.io.persistence.InvalidModel`
(naming the file) unless every part CRFsuite reads lies inside the file and points
where it may:

* the 48-byte header: magic ``lCRF``, type ``FOMC``, version 100, the file's size;
* the features (``FEAT``, their count in its header): one 20-byte record per feature, of a known type, whose
  source and destination are label or attribute ids in range, with a finite weight;
* the label and attribute references (``LFRF``, ``AFRF``): an offset for each label or
  attribute, each to a count and that many feature ids in range, no more in all
  than there are features;
* the label and attribute dictionaries (CQDB chunks): header, byte order, the 256
  hash tables (each inside the chunk, each with an empty bucket so that a look-up
  ends), every bucket's and every id's record inside the chunk with its
  NUL-terminated string, and the id a look-up returns in range.

The layout is CRFsuite's (``lib/crf/src/crf1d_model.c``, ``lib/cqdb/src/cqdb.c``).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from deid_crf.io.names import shown
from deid_crf.io.persistence import InvalidModel

HEADER = np.dtype(
    [("magic", "S4"), ("size", "<u4"), ("type", "S4"), ("version", "<u4")]
    + [(name, "<u4") for name in ("num_features", "num_labels", "num_attrs")]
    + [(name, "<u4") for name in ("off_features", "off_labels", "off_attrs", "off_labelrefs", "off_attrrefs")]
)
FEATURE = np.dtype([("type", "<u4"), ("src", "<u4"), ("dst", "<u4"), ("weight", "<f8")])
CHUNK = np.dtype([("id", "S4"), ("size", "<u4"), ("num", "<u4")])
CQDB = np.dtype(
    [("id", "S4"), ("size", "<u4"), ("flag", "<u4"), ("byteorder", "<u4"), ("bwd_size", "<u4"), ("bwd_offset", "<u4")]
)
CQDB_TABLES = 256
CQDB_DATA = CQDB.itemsize + 8 * CQDB_TABLES  # where a CQDB chunk's records begin
STATE, TRANSITION = 0, 1  # CRFsuite's feature types
MAX_FILE_BYTES = 1 << 31  # CRFsuite keeps the size in 32 bits


class _Damaged(Exception):
    """What is wrong, for the message of InvalidModel."""


def check_model_file(path: str | os.PathLike) -> None:
    """Raise :class:`InvalidModel` unless CRFsuite can read the model file at ``path``
    without reading outside it (see the module's docstring)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise _Damaged(f"{size} bytes, over the {MAX_FILE_BYTES}-byte limit")
        data = np.fromfile(path, dtype=np.uint8)
        _check(data)
    except _Damaged as exc:
        raise InvalidModel(f"{shown(path)}: damaged CRFsuite model file ({exc})") from None
    except OSError as exc:
        raise InvalidModel(f"{shown(path)}: unreadable CRFsuite model file ({exc.strerror})") from None


def _record(data: np.ndarray, dtype: np.dtype, offset: int, count: int = 1, what: str = "") -> np.ndarray:
    if offset < 0 or count < 0 or offset + count * dtype.itemsize > len(data):
        raise _Damaged(f"{what or 'a part'} lies outside the file")
    return np.frombuffer(data, dtype=dtype, count=count, offset=offset)


def _u32(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The little-endian uint32 at each of ``offsets`` (checked to lie in ``data``)."""
    offsets = offsets.astype(np.int64)
    if len(offsets) and (offsets.min() < 0 or offsets.max() + 4 > len(data)):
        raise _Damaged("an offset points outside the file")
    b = [data[offsets + i].astype(np.uint32) for i in range(4)]
    return b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24


def _check(data: np.ndarray) -> None:
    header = _record(data, HEADER, 0, what="the header")[0]
    if header["magic"] != b"lCRF" or header["type"] != b"FOMC" or header["version"] != 100:
        raise _Damaged("not a CRFsuite CRF1d model of version 100")
    if header["size"] != len(data):
        raise _Damaged(f"the header says {header['size']} bytes, the file has {len(data)}")
    n_labels, n_attrs = int(header["num_labels"]), int(header["num_attrs"])
    # CRFsuite leaves the header's feature count at 0: the feature chunk has the count.
    n_features = _check_features(data, int(header["off_features"]), n_labels, n_attrs)
    for offset, chunk_id, count in (
        (int(header["off_labelrefs"]), b"LFRF", n_labels),
        (int(header["off_attrrefs"]), b"AFRF", n_attrs),
    ):
        _check_references(data, offset, chunk_id, count, n_features)
    _check_dictionary(data, int(header["off_labels"]), n_labels, "labels")
    _check_dictionary(data, int(header["off_attrs"]), n_attrs, "attributes")


def _check_features(data: np.ndarray, offset: int, n_labels: int, n_attrs: int) -> int:
    chunk = _record(data, CHUNK, offset, what="the feature chunk")[0]
    if chunk["id"] != b"FEAT":
        raise _Damaged("bad feature chunk header")
    count = int(chunk["num"])
    features = _record(data, FEATURE, offset + CHUNK.itemsize, count, "the features")
    kinds, src, dst = features["type"], features["src"], features["dst"]
    state, transition = kinds == STATE, kinds == TRANSITION
    if not (state | transition).all():
        raise _Damaged("a feature of unknown type")
    if (src[state] >= n_attrs).any() or (src[transition] >= n_labels).any() or (dst >= n_labels).any():
        raise _Damaged("a feature refers to a label or attribute that does not exist")
    if not np.isfinite(features["weight"]).all():
        raise _Damaged("a feature weight is not a finite number")
    return count


def _check_references(data: np.ndarray, offset: int, chunk_id: bytes, count: int, n_features: int) -> None:
    chunk = _record(data, CHUNK, offset, what="a feature reference chunk")[0]
    # Label references have room for two more (unused) entries: CRFsuite reads the first ``count``.
    if chunk["id"] != chunk_id or chunk["num"] < count:
        raise _Damaged(f"bad {chunk_id.decode()} chunk header")
    starts = _record(data, np.dtype("<u4"), offset + CHUNK.itemsize, count, "the reference offsets").astype(np.int64)
    if not count:
        return
    lengths = _u32(data, starts).astype(np.int64)
    if lengths.sum() > n_features:
        raise _Damaged("more feature references than features")
    if (starts + 4 + 4 * lengths).max() > len(data):
        raise _Damaged("a feature reference lies outside the file")
    first = np.repeat(starts + 4 - 4 * np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    ids = _u32(data, first + 4 * np.arange(lengths.sum(), dtype=np.int64))
    if len(ids) and ids.max() >= n_features:
        raise _Damaged("a feature reference points to no feature")


def _check_dictionary(data: np.ndarray, offset: int, count: int, what: str) -> None:
    if not 0 <= offset <= len(data) - CQDB_DATA:
        raise _Damaged(f"the {what} dictionary lies outside the file")
    chunk = data[offset:]  # CRFsuite hands the reader the rest of the file
    header = _record(chunk, CQDB, 0)[0]
    if header["id"] != b"CQDB" or header["byteorder"] != 0x62445371 or header["size"] > len(chunk):
        raise _Damaged(f"bad {what} dictionary header")
    end = int(header["size"])
    tables = _record(chunk, np.dtype([("offset", "<u4"), ("num", "<u4")]), CQDB.itemsize, CQDB_TABLES)
    # CRFsuite counts the entries as half the tables' sizes, empty tables included.
    if int(tables["num"].astype(np.int64).sum()) != 2 * count or ((tables["offset"] == 0) & (tables["num"] != 0)).any():
        raise _Damaged(f"the {what} dictionary's tables do not hold one entry per {what[:-1]}")
    records = []
    for table_offset, n in zip(tables["offset"].tolist(), tables["num"].tolist(), strict=True):
        if not table_offset:
            continue
        if n == 0 or table_offset + 8 * n > end:
            raise _Damaged(f"a {what} hash table lies outside its chunk")
        buckets = _record(chunk, np.dtype([("hash", "<u4"), ("offset", "<u4")]), table_offset, n)
        used = buckets["offset"][buckets["offset"] != 0]
        if 2 * len(used) != n:  # half of each table is empty, so that a look-up ends
            raise _Damaged(f"a {what} hash table is not half empty")
        if len(used) and (used.astype(np.int64).min() < CQDB_DATA or (_u32(chunk, used) >= count).any()):
            raise _Damaged(f"a {what} look-up gives an id out of range")  # CRFsuite indexes with it
        records.append(used)
    if count:
        if not header["bwd_offset"] or header["bwd_size"] < count or header["bwd_offset"] + 4 * count > end:
            raise _Damaged(f"the {what} dictionary has no id for every {what[:-1]}")
        backward = _record(chunk, np.dtype("<u4"), int(header["bwd_offset"]), count)
        if (backward == 0).any():
            raise _Damaged(f"the {what} dictionary has no id for every {what[:-1]}")
        records.append(backward)
    starts = np.concatenate(records).astype(np.int64) if records else np.zeros(0, np.int64)
    if len(starts):
        if starts.min() < CQDB_DATA or (starts + 8).max() > end:
            raise _Damaged(f"a {what} record lies outside its chunk")
        key_sizes = _u32(chunk, starts + 4).astype(np.int64)
        last = starts + 8 + key_sizes - 1
        if key_sizes.min() < 1 or last.max() >= end or chunk[last].any():
            raise _Damaged(f"a {what} string is not inside its chunk")
