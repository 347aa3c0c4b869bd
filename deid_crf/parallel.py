"""Split document batches into chunks for joblib workers and keep the order."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController

T = TypeVar("T")
R = TypeVar("R")


def effective_jobs(n_jobs: int | None) -> int:
    """``None``/``1`` → 1, ``-1`` → all cores, ``-2`` → all but one, as in joblib."""
    cores = os.cpu_count() or 1
    if n_jobs is None or n_jobs == 0:
        return 1
    if n_jobs < 0:
        return max(1, cores + 1 + n_jobs)
    return n_jobs


def chunk_by_size(items: Sequence[T], sizes: Sequence[int], n_chunks: int) -> list[Sequence[T]]:
    """Contiguous chunks of roughly equal total size (e.g. characters)."""
    if n_chunks <= 1 or len(items) <= 1:
        return [items]
    total = sum(sizes) or 1
    target = total / n_chunks
    chunks, begin, acc = [], 0, 0
    for i, size in enumerate(sizes):
        acc += size
        if acc >= target * (len(chunks) + 1) and i + 1 < len(items) and len(chunks) + 1 < n_chunks:
            chunks.append(items[begin : i + 1])
            begin = i + 1
    chunks.append(items[begin:])
    return [c for c in chunks if len(c)]


def map_chunks(function: Callable[[Sequence[T]], R], texts: Sequence[T], n_jobs: int | None) -> list[R]:
    """Apply ``function`` to chunks of ``texts`` (in worker processes when
    ``n_jobs`` > 1) and return the results in chunk order."""
    jobs = effective_jobs(n_jobs)
    if jobs == 1 or len(texts) < 2:
        return [function(texts)]
    from joblib import Parallel, delayed  # imported only when there are workers to start

    chunks = chunk_by_size(texts, [len(t) for t in texts], jobs * 2)
    return Parallel(n_jobs=jobs)(delayed(function)(chunk) for chunk in chunks)


@functools.cache
def _thread_pools() -> ThreadpoolController:
    """The thread pools of the native libraries loaded (found once per process)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread() -> AbstractContextManager:
    """A block in which BLAS runs on one thread. Tagging's matrix products are small
    (sentences by labels, out-of-vocabulary words by cluster centroids): a multi-threaded
    BLAS spends more time waking, spinning and joining its threads than multiplying, and
    its spinning threads slow the rest of the process and the other workers (the
    embedding clusters of MEDDOCAN dev's distinct strings: 0.69 s of CPU with 2 threads,
    0.13 s with one, the same clusters)."""
    return _thread_pools().limit(limits=1, user_api="blas")
