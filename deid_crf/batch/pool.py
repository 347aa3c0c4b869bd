"""Worker processes forked from the process that loaded the model, so that they share it.

A worker started the usual way (joblib's loky, or multiprocessing's spawn) is a fresh
interpreter: it imports the package and loads the model again before its first
document, about a second per worker, as long as tagging all 250 documents of MEDDOCAN
dev takes on a core. On Linux a worker forked once the model is loaded has both at
no cost, the model's memory shared copy-on-write. Elsewhere (macOS and Windows have
no safe ``fork``) the callers keep joblib's workers.

Workers ignore Ctrl-C: the process that started them stops handing out work, waits
for the chunks under way (their outputs are complete) and exits; a worker that dies
makes the run fail (``BrokenProcessPool``) instead of hanging.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # multiprocessing is imported when workers are started, not with the package
    from concurrent.futures import ProcessPoolExecutor


def can_fork() -> bool:
    """Whether workers can be forked safely here (Linux)."""
    import multiprocessing

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _ignore_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def forked_workers(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """``jobs`` worker processes forked from this one (started at once, before any
    thread of the pool runs), shut down on exit: queued work is cancelled, work under
    way finishes."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_ignore_interrupt)
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
