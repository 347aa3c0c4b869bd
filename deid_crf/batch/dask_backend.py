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

Connections are authenticated and encrypted: the local cluster speaks TLS with
certificates made for the run (:meth:`distributed.security.Security.temporary`, kept in
memory), so that another process of this machine can neither connect to its scheduler
nor run code on its workers, which read the notes; nor can it read the HTTP pages and
metrics that Dask's scheduler and workers serve without authentication: the local
cluster serves none (:mod:`deid_crf.batch.dask_http`). A ``tls://`` scheduler needs the
certificate files of a :class:`TLSFiles`; a plain ``tcp://`` one is accepted only on
this machine's loopback interface, unless the caller allows it
(:func:`check_scheduler`).
"""

from __future__ import annotations

import ipaddress
import logging
import math
import os
import ssl
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
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
    from distributed import Client, Security

log = logging.getLogger("deid_crf")


# Partitions are at least 4 per worker (load balance) and at most this many
# documents (a lost partition is redone; progress is counted per partition).
MAX_PARTITION_DOCS = 1000
INSTALL_HINT = "pip install 'deid-crf[dask]'"
# Address schemes of Dask's connections that are TLS, and those that are plain text.
TLS_SCHEMES = ("tls", "wss")
PLAIN_SCHEMES = ("tcp", "ws")


class ClusterUnavailable(Exception):
    """Dask is not installed, or its scheduler cannot be reached (message: address only)."""


class SchedulerUsageError(ValueError):
    """A scheduler address and certificate options that do not go together, or
    certificate files that cannot be used (a usage error; message: names only)."""


@dataclass(frozen=True)
class TLSFiles:
    """PEM files with which this client connects to a ``tls://`` scheduler: the CA
    that signed the scheduler's and workers' certificates, and this client's
    certificate and private key (``key`` None: the key is in the ``cert`` file)."""

    ca_file: str
    cert: str
    key: str | None = None

    def security(self) -> Security:
        from distributed.security import Security

        return Security(
            require_encryption=True, tls_ca_file=self.ca_file, tls_client_cert=self.cert, tls_client_key=self.key
        )


def _scheme_and_host(address: str) -> tuple[str, str]:
    """``("tls", "10.0.0.5")`` of ``tls://10.0.0.5:8786``; Dask's default scheme is tcp."""
    scheme, _, rest = address.rpartition("://")
    rest = rest.split("/", 1)[0]
    if rest.startswith("["):  # [::1]:8786
        host = rest[1:].split("]", 1)[0]
    else:
        host = rest.rsplit(":", 1)[0] if rest.count(":") == 1 else rest
    return (scheme or "tcp").lower(), host


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may be anywhere
        return False


def check_scheduler(address: str, tls: TLSFiles | None = None, allow_plaintext: bool = False) -> TLSFiles | None:
    """The certificates to connect to the scheduler at ``address`` with, or None for a
    plain connection; :class:`SchedulerUsageError` if they do not go together.

    ``tls://`` (or ``wss://``) needs ``tls``, whose files must hold a usable CA
    certificate, certificate and key. A plain ``tcp://`` (or ``ws://``) address must be
    on this machine's loopback interface (127.0.0.0/8, ::1, localhost) unless
    ``allow_plaintext``: over a network, anyone who can reach an unauthenticated
    scheduler can run code on the workers that read the notes, and the connection
    carries the run's settings (the surrogate seed among them) in the clear.
    ``tls`` with a plain address is refused too: it would not be used."""
    scheme, host = _scheme_and_host(address)
    if scheme in TLS_SCHEMES:
        if tls is None:
            raise SchedulerUsageError(
                f"a {scheme}:// scheduler needs --tls-ca-file and --tls-cert (and --tls-key unless the key is "
                "in the certificate file)"
            )
        _check_tls_files(tls)
        return tls
    if tls is not None:
        raise SchedulerUsageError(f"--tls-* options go with a tls:// scheduler address, not {scheme}://")
    if scheme == "inproc" or _is_loopback(host) or allow_plaintext:
        return None
    if scheme in PLAIN_SCHEMES:
        why = "its connections are neither encrypted nor authenticated"
    else:
        why = f"deid-crf cannot tell whether {scheme}:// connections are encrypted and authenticated"
    raise SchedulerUsageError(
        f"refusing the scheduler at {address}: {why}, and it is not on this machine; use tls:// with "
        "--tls-ca-file, --tls-cert and --tls-key (or --allow-plaintext-scheduler on a network you trust)"
    )


def _check_tls_files(tls: TLSFiles) -> None:
    """Load the files as Dask will, so that a wrong one is a usage error naming it,
    not a failed connection later."""
    for option, path in (("--tls-ca-file", tls.ca_file), ("--tls-cert", tls.cert), ("--tls-key", tls.key)):
        if path is not None and not os.path.isfile(path):
            raise SchedulerUsageError(f"{option} {shown(path)}: no such file")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        context.load_verify_locations(cafile=tls.ca_file)
    except (ssl.SSLError, OSError, ValueError):
        raise SchedulerUsageError(f"--tls-ca-file {shown(tls.ca_file)}: not a PEM CA certificate") from None
    try:
        context.load_cert_chain(tls.cert, tls.key)
    except (ssl.SSLError, OSError, ValueError):
        files = shown(tls.cert) if tls.key is None else f"{shown(tls.cert)} and {shown(tls.key)}"
        raise SchedulerUsageError(f"--tls-cert/--tls-key {files}: not a PEM certificate and its private key") from None


@contextmanager
def dask_client(scheduler: str | None = None, jobs: int | None = -1, tls: TLSFiles | None = None) -> Iterator[Client]:
    """A client of the Dask scheduler at ``scheduler`` (e.g. ``tls://10.0.0.5:8786``,
    connecting with the certificates ``tls``), or of a new local cluster of ``jobs``
    worker processes (one thread each, on the loopback interface, TLS with temporary
    certificates, no HTTP server: :mod:`deid_crf.batch.dask_http`) that is closed on exit."""
    try:
        from distributed import Client, LocalCluster
        from distributed.security import Security
    except ImportError:
        raise ClusterUnavailable(f"the Dask backend needs dask[distributed]: {INSTALL_HINT}") from None
    if scheduler is not None:
        try:
            client = Client(scheduler, security=tls.security() if tls is not None else None)
        except (OSError, ValueError) as exc:
            reason = type(exc).__name__
            raise ClusterUnavailable(f"cannot connect to the Dask scheduler at {scheduler} ({reason})") from None
        with client:
            yield client
        return
    try:
        # A self-signed certificate and key for every role, in memory only (passed to
        # the worker processes at start): whoever lacks them cannot connect.
        security = Security.temporary()
    except ImportError:
        raise ClusterUnavailable(f"the Dask backend's TLS needs the cryptography package: {INSTALL_HINT}") from None
    import dask

    from deid_crf.batch.dask_http import NO_HTTP_ROUTES, NoHTTPServer, stop_scheduler_http_server

    with ExitStack() as stack:
        # The workers' processes are started with the configuration of this moment.
        with dask.config.set(NO_HTTP_ROUTES):
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=effective_jobs(jobs),
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    protocol="tls://",
                    security=security,
                    dashboard_address=None,
                )
            )
        client = stack.enter_context(Client(cluster, security=security))
        client.run_on_scheduler(stop_scheduler_http_server)
        client.register_plugin(NoHTTPServer())
        log.debug(
            f"local Dask cluster at {cluster.scheduler_address} with {len(cluster.workers)} worker process(es); "
            "TLS with temporary certificates, no HTTP server"
        )
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
    tls: TLSFiles | None = None,
    allow_plaintext: bool = False,
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

    Uses ``client`` if given, else connects to ``scheduler`` (with the certificates
    ``tls``; a plain address off this machine needs ``allow_plaintext``: see
    :func:`check_scheduler`), else starts a local TLS cluster of ``jobs`` worker
    processes for this run. ``partitions`` sets how many partitions the documents to do are split into (default: see
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
    if client is None and scheduler is not None:
        tls = check_scheduler(scheduler, tls, allow_plaintext)
    with ExitStack() as stack:
        if client is None:
            client = stack.enter_context(dask_client(scheduler, jobs, tls))
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
