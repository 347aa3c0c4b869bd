"""No HTTP server on the local Dask cluster (imported once ``distributed`` is known to be there).

Dask's scheduler and every worker start an HTTP server whatever the dashboard setting
(``dashboard_address=None`` only leaves the Bokeh dashboard out): plain HTTP on the
cluster's interface, without authentication, the scheduler's on port 8787 with pages
and JSON of its workers, tasks and logs (``/info``, ``/json``), ``/metrics`` and
``/health``, each worker's on a random port. TLS protects the cluster's own
connections, not these: another user of the machine could read them. The local
cluster of :func:`deid_crf.batch.dask_backend.dask_client` is started with no HTTP route
(:data:`NO_HTTP_ROUTES`), and its servers then stop listening: the scheduler's at once,
each worker's, a restarted one's too, by :class:`NoHTTPServer`.
"""

from __future__ import annotations

from typing import Any

from distributed import WorkerPlugin

# Dask's configuration for the local cluster: every route of the HTTP servers left out,
# so that they answer nothing (404) in the moment between their start and their stop.
NO_HTTP_ROUTES = {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}


def stop_http_server(server: Any) -> None:
    """Stop the HTTP server of a Dask scheduler or worker (run in its event loop) and
    stop advertising it."""
    http_server = getattr(server, "http_server", None)
    if http_server is not None:
        http_server.stop()
    server.services.pop("dashboard", None)


def stop_scheduler_http_server(dask_scheduler: Any) -> None:
    """:func:`stop_http_server` for ``Client.run_on_scheduler``."""
    stop_http_server(dask_scheduler)


class NoHTTPServer(WorkerPlugin):
    """Stops the HTTP server of every worker of the cluster, present and to come."""

    name = "deid-crf-no-http-server"

    def setup(self, worker: Any) -> None:
        stop_http_server(worker)
