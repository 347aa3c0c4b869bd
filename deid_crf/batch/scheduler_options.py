"""The command-line options of a connection to a Dask scheduler, for every command that
takes ``--scheduler`` (``python -m deid_crf.tag``, ``python -m deid_crf.experiments.grid``):
the address, the TLS certificate files of a ``tls://`` one, and the consent to a plain
``tcp://`` one off this machine; checked together by
:func:`deid_crf.batch.dask_backend.check_scheduler` (imported only when they are used:
Dask is an optional extra)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deid_crf.batch.dask_backend import TLSFiles

TLS_OPTIONS = ("--tls-ca-file", "--tls-cert", "--tls-key")


def add_scheduler_arguments(parser: argparse.ArgumentParser, scheduler_help: str) -> None:
    """Add ``--scheduler ADDRESS`` (described by ``scheduler_help``), the ``--tls-*``
    certificate files and ``--allow-plaintext-scheduler`` to ``parser``."""
    parser.add_argument("--scheduler", metavar="ADDRESS", help=scheduler_help)
    tls = parser.add_argument_group("dask: TLS to a tls:// --scheduler (PEM files; docs/batch-and-dask.md)")
    tls.add_argument("--tls-ca-file", metavar="FILE", help="the CA certificate that signed the cluster's certificates")
    tls.add_argument("--tls-cert", metavar="FILE", help="this client's certificate")
    tls.add_argument("--tls-key", metavar="FILE", help="this client's private key (default: in the --tls-cert file)")
    tls.add_argument(
        "--allow-plaintext-scheduler",
        action="store_true",
        help="accept a tcp:// scheduler off this machine (unencrypted, unauthenticated: a network you trust only)",
    )


def scheduler_tls(parser: argparse.ArgumentParser, args: argparse.Namespace) -> TLSFiles | None:
    """The certificates to connect to ``args.scheduler`` with (None: a plain connection,
    or no scheduler: the local cluster has its own); ``parser.error`` (exit status 2,
    before any connection) if the address and the options do not go together or a file
    cannot be used."""
    given = args.tls_ca_file or args.tls_cert or args.tls_key
    if args.scheduler is None:
        if given or args.allow_plaintext_scheduler:
            parser.error("--tls-* and --allow-plaintext-scheduler go with --backend dask --scheduler ADDRESS")
        return None
    from deid_crf.batch.dask_backend import SchedulerUsageError, TLSFiles, check_scheduler

    tls = None
    if given:
        if not (args.tls_ca_file and args.tls_cert):
            parser.error("--tls-ca-file and --tls-cert go together (and --tls-key unless the key is in the cert file)")
        tls = TLSFiles(args.tls_ca_file, args.tls_cert, args.tls_key)
    try:
        return check_scheduler(args.scheduler, tls, args.allow_plaintext_scheduler)
    except SchedulerUsageError as exc:
        parser.error(str(exc))
