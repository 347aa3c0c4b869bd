"""Document chunking for joblib workers."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from deid_crf.parallel import chunk_by_size, effective_jobs, map_chunks


def test_effective_jobs():
    cores = os.cpu_count() or 1
    assert effective_jobs(None) == effective_jobs(0) == effective_jobs(1) == 1
    assert effective_jobs(3) == 3
    assert effective_jobs(-1) == cores
    assert effective_jobs(-2) == max(1, cores - 1)
    assert effective_jobs(-1000) == 1


@given(st.lists(st.integers(min_value=0, max_value=1000), max_size=40), st.integers(min_value=0, max_value=8))
def test_chunks_keep_every_item_in_order(sizes: list[int], n_chunks: int):
    items = list(range(len(sizes)))
    chunks = chunk_by_size(items, sizes, n_chunks)
    assert [i for chunk in chunks for i in chunk] == items
    assert all(len(chunk) for chunk in chunks) or items == []
    if n_chunks <= 1:
        assert len(chunks) == 1


def test_chunks_balance_sizes():
    chunks = chunk_by_size(list("abcdefgh"), [10] * 8, 4)
    assert chunks == [list("ab"), list("cd"), list("ef"), list("gh")]


def test_map_chunks_in_one_process_calls_once():
    calls = []

    def function(texts):
        calls.append(list(texts))
        return len(texts)

    assert map_chunks(function, ["a", "b", "c"], n_jobs=1) == [3]
    assert map_chunks(function, ["a"], n_jobs=4) == [1]
    assert calls == [["a", "b", "c"], ["a"]]
