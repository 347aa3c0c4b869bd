"""Batch de-identification on a Dask cluster (``python -m deid_crf.tag --backend dask``).

The process that starts the run (the Dask client) plans it exactly as the local
backend does (:class:`~deid_crf.batch.engine.BatchRun`: settings check, resume, key file,
summary). The documents still to do go into a :mod:`dask.bag` of partitions, and each
partition runs :func:`~deid_crf.batch.engine.deidentify_partition` on a worker: the worker
reads the inputs, tags them with the model it loaded once per process (tasks carry
the model's path and digest, never the model), writes the outputs and key records
itself, and sends back only statuses (paths, reasons, counts; never text).

Inputs, outputs, the model and the key file's folder must therefore be at the same
path on every worker (a shared filesystem); paths are made absolute before they are
sent. Without a scheduler address, a :class:`distributed.LocalCluster` of worker
processes on the loopback interface is started for the run and closed after it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid_crf.batch.engine import (
    FAILED,
    STDIN,
    STDOUT,
    BatchRun,
    DocStatus,
    Settings,
    Summary,
    WorkItem,
    deidentify_partition,
)
from deid_crf.io.names import shown
from deid_crf.parallel import effective_jobs

if TYPE_CHECKING:
    from distributed import Client


# Partitions are at least 4 per worker (load balance) and at most this many
# documents (a lost partition is redone; progress is counted per partition).
MAX_PARTITION_DOCS = 1000
INSTALL_HINT = "pip install 'deid-crf[dask]'"


class ClusterUnavailable(Exception):
    """Dask is not installed, or its scheduler cannot be reached (message: address only)."""


@contextmanager
def dask_client(scheduler: str | None = None, jobs: int | None = -1) -> Iterator[Client]:
    """A client of the Dask scheduler at ``scheduler`` (e.g. ``tcp://10.0.0.5:8786``),
    or of a new local cluster of ``jobs`` worker processes (one thread each, on the
    loopback interface, no dashboard) that is closed on exit."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterUnavailable(f"the Dask backend needs dask[distributed]: {INSTALL_HINT}") from None
    if scheduler is not None:
        try:
            client = Client(scheduler)
        except (OSError, ValueError) as exc:
            reason = type(exc).__name__
            raise ClusterUnavailable(f"cannot connect to the Dask scheduler at {scheduler} ({reason})") from None
        with client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=effective_jobs(jobs),
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def _absolute(item: WorkItem) -> WorkItem:
    outputs = tuple(os.path.abspath(o) for o in item.outputs)
    return WorkItem(os.path.abspath(item.source), item.doc_id, outputs)


def partition_size(n_docs: int, n_workers: int, partitions: int | None = None) -> int:
    """Documents per partition: ``partitions`` of them, by default 4 per worker or
    more, so that none has over :data:`MAX_PARTITION_DOCS` documents."""
    if partitions is None:
        partitions = max(4 * n_workers, math.ceil(n_docs / MAX_PARTITION_DOCS))
    return max(1, math.ceil(n_docs / max(1, partitions)))


def run_dask(
    items: Sequence[WorkItem],
    settings: Settings,
    *,
    client: Client | None = None,
    scheduler: str | None = None,
    jobs: int | None = -1,
    partitions: int | None = None,
    overwrite: bool = False,
    key_file: str | os.PathLike | None = None,
    progress: bool = False,
    output_dir: Path | None = None,
    fingerprint: dict[str, Any] | None = None,
) -> Summary:
    """:func:`deid_crf.batch.engine.run` on a Dask cluster: the same outputs, key file,
    resume rules, run record and summary.

    Uses ``client`` if given, else connects to ``scheduler``, else starts a local
    cluster of ``jobs`` worker processes for this run. ``partitions`` sets how many
    partitions the documents to do are split into (default: see
    :func:`partition_size`). Every item must have file outputs (``output_dir``);
    standard input and output are the local backend's.
    """
    if any(item.source == STDIN or STDOUT in item.outputs for item in items):
        raise ValueError("the Dask backend reads and writes files: standard input and output need the local backend")
    if any(item.group is not None for item in items) or settings.group_by:
        raise ValueError("patient groups (--group-by) need the local backend: a group is de-identified in one process")
    items = [_absolute(item) for item in items]
    settings = replace(settings, model_dir=os.path.abspath(settings.model_dir))
    if key_file is not None:
        key_file = os.path.abspath(key_file)
    with ExitStack() as stack:
        if client is None:
            client = stack.enter_context(dask_client(scheduler, jobs))
        batch_run = BatchRun(
            items,
            settings,
            overwrite=overwrite,
            key_file=key_file,
            progress=progress,
            output_dir=output_dir,
            fingerprint=fingerprint,
        )
        with batch_run:
            if batch_run.todo:
                shared = [str(Path(output_dir).resolve())] if output_dir is not None else []
                key_dir = batch_run.key_dir
                if key_dir is not None:
                    shared.append(key_dir)
                for status in _statuses(client, batch_run.todo, batch_run.settings, key_dir, shared, partitions):
                    batch_run.record(status)
    return batch_run.summary


def _statuses(
    client: Client,
    todo: Sequence[WorkItem],
    settings: Settings,
    key_dir: str | None,
    shared_dirs: Sequence[str],
    partitions: int | None,
) -> Iterator[DocStatus]:
    """The statuses of ``todo``'s documents, partition by partition as they finish; a
    partition lost with its worker (more than Dask's allowed failures) or cancelled
    gives a failed status for each of its documents."""
    import dask.bag as db
    from distributed import as_completed

    size = partition_size(len(todo), max(1, len(client.scheduler_info()["workers"])), partitions)
    bag = db.from_sequence(todo, partition_size=size).map_partitions(
        deidentify_partition, settings, key_dir, tuple(shared_dirs)
    )
    # from_sequence cuts the sequence into consecutive runs of ``size`` items.
    parts = {i: todo[start : start + size] for i, start in enumerate(range(0, len(todo), size))}
    pending = {future.key: (i, future) for i, future in enumerate(client.compute(bag.to_delayed()))}
    try:
        for future in as_completed([future for _, future in pending.values()]):
            i, _ = pending.pop(future.key)
            if future.status == "finished":
                statuses = future.result()
            else:
                why = type(future.exception()).__name__ if future.status == "error" else future.status
                reason = f"not processed; its Dask partition was lost ({why}); run again to resume"
                statuses = [
                    DocStatus(item.doc_id, item.source, FAILED, f"{shown(item.source)}: {reason}") for item in parts[i]
                ]
            # Released once read: a worker lost later must not make the cluster redo it.
            future.release()
            yield from statuses
    finally:
        client.cancel([future for _, future in pending.values()])
