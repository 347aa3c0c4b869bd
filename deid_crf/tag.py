r"""Find, mask or replace PHI in clinical texts with a trained deid-crf model.

    python -m deid_crf.tag note.txt                          # BRAT annotations on stdout
    python -m deid_crf.tag note.txt --format json            # spans with confidences
    python -m deid_crf.tag note.txt --format masked          # [NOMBRE_SUJETO_ASISTENCIA]…
    python -m deid_crf.tag note.txt --format surrogate --seed 7
    cat note.txt | python -m deid_crf.tag - --format masked
    python -m deid_crf.tag --jsonl - --format masked         # {"id", "text"} lines in, results out
    python -m deid_crf.tag notes.csv -o deid.csv --format surrogate --text-column nota --id-column episodio
    python -m deid_crf.tag notes/ -o deid/ --format surrogate --seed 7 --key-file secret/key.jsonl
    python -m deid_crf.tag notes/ -o deid/ --backend dask --scheduler tls://10.0.0.5:8786 \
        --tls-ca-file ca.pem --tls-cert client.pem --tls-key client-key.pem
    python -m deid_crf.tag notes/ -o deid/ --format surrogate --group-by 'NHC:\s*(\d+)' \
        --secret-file secret/groups.key --key-file secret/key.jsonl
    python -m deid_crf.tag notes/ -o deid/ --format masked --config site.toml   # docs/user-config.md
    python -m deid_crf.tag notes/ -o review/ --format html --recall-first 0.05 --review-below 0.9

Directories are searched recursively (--pattern, default *.txt) and mirrored under
-o; a re-run skips documents whose outputs are up to date (--overwrite to redo them),
and a re-run with other settings into the same -o is refused unless --overwrite.
--backend dask runs the same batch on a Dask cluster (pip install 'deid-crf[dask]'):
a local one of --jobs worker processes (TLS with certificates made for the run), or
the one at --scheduler (tls:// with --tls-* certificates; plain tcp:// only on this
machine unless --allow-plaintext-scheduler); inputs, -o, the model and the key file's
folder must be on a filesystem every worker shares.
--jsonl reads one JSON object {"id": …, "text": …} per line from the one INPUT (a file or
- for stdin) and writes one JSON result per line to stdout, flushed at once, the model
loaded once; the notes of one read are shared between the --jobs workers
(docs/deidentification.md).
A table (one INPUT ending in .csv, .tsv, .jsonl, .ndjson or .parquet, or --table-format)
is de-identified into the table -o OUTPUT of the same format: --text-column replaced by
the output text (masked, surrogate), or, for the annotation formats (brat, json), a
--spans-column of JSON spans added; the other columns as they were, every row in its
place; resumable like a batch (docs/deidentification.md#tables).
--group-by makes one patient's documents one record: one surrogate per original value,
one date shift, names searched in all of them; derived from a secret (--secret-file or
$DEID_CRF_SECRET), and reused by a later batch with the same secret and --key-file.
Masked and surrogate outputs are audited for tokens of the original values left in
them (reported by document, offsets and type); --strict masks them.
--format html writes one self-contained page per document with the spans highlighted (and
index.html with -o); --review-below P also writes NAME.review.json, the offsets, types
and confidences of the spans whose lowest token confidence is below P (docs/review.md).

Exit status: 0 when every input was processed, 1 when some input (or table row) could
not be read or written (each is reported with its path and reason, the others are still
processed), 2 for a usage error, a missing model, a key file that is not safe to
write, a --config file that cannot be used (its name and key are given), a table that
cannot be used (its name and line, row or column are given) or an
unreachable Dask scheduler, 3 for an internal error, 130 when
interrupted. Messages name files, offsets, types and counts, never the text of a
document.
"""

from __future__ import annotations

import argparse
import codecs
import gc
import logging
import secrets
import sys
from pathlib import Path

from deid_crf.batch.engine import (
    DEFAULT_DOC_TIMEOUT,
    DEFAULT_MAX_BYTES,
    DEFAULT_OUTPUT_MODE,
    DEFAULT_PATTERN,
    STDIN,
    Settings,
    SettingsMismatch,
    assign_groups,
    check_output_dir,
    deidentifier,
    discover,
    model_digest,
    plan,
    run,
    run_fingerprint,
)
from deid_crf.batch.formats import ANNOTATION_FORMATS, FORMATS
from deid_crf.batch.keys import KeyFileError, check_key_file
from deid_crf.batch.scheduler_options import add_scheduler_arguments, scheduler_tls
from deid_crf.config import default_model_dir
from deid_crf.deid.deidentifier import DEFAULT_MASK, UnsupportedOption, mask_function
from deid_crf.deid.groups import MIN_SECRET_BYTES, SECRET_ENV, SecretError
from deid_crf.deid.rules import RULE_MODES
from deid_crf.deid.surrogates import DEFAULT_KEEP
from deid_crf.io.files import CorpusError
from deid_crf.io.names import OneLine, redact_paths, shown
from deid_crf.io.persistence import InvalidModel
from deid_crf.io.tables import DEFAULT_SPANS_COLUMN, DEFAULT_TEXT_COLUMN, TABLE_FORMATS, format_of, is_table_input
from deid_crf.models import ModelNotFoundError

# What only some options use (Dask and its TLS checks, patient groups, --config, the
# html index, --jsonl) is imported where the option is handled: tagging one note
# starts faster without it.
log = logging.getLogger("deid_crf")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.tag",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    parser.add_argument(
        "inputs", nargs="+", metavar="INPUT", help="text files, directories, glob patterns, or - for stdin"
    )
    parser.add_argument(
        "--model", type=Path, default=None, help="model directory (default: $DEID_CRF_MODEL_DIR or models/crf)"
    )
    parser.add_argument("--format", choices=FORMATS, default="brat", help="output format (default: brat)")
    parser.add_argument(
        "--jsonl",
        action="store_true",
        help='INPUT (a file, or - for stdin) holds {"id", "text"} JSON lines; write one JSON result per line to stdout',
    )
    parser.add_argument(
        "-o",
        "--output-dir",
        type=Path,
        help="write outputs here, mirroring the input tree (.ann/.json/.conll/.html/.txt); for a table, "
        "the output table (a file)",
    )
    parser.add_argument("--pattern", default=DEFAULT_PATTERN, help="file pattern inside directories (default: *.txt)")
    parser.add_argument("--encoding", default="utf-8", help="encoding of the inputs (default: utf-8)")
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_MAX_BYTES,
        help=f"refuse inputs larger than this (default: {DEFAULT_MAX_BYTES}, 10 MiB)",
    )
    parser.add_argument(
        "--doc-timeout",
        type=float,
        default=DEFAULT_DOC_TIMEOUT,
        metavar="SECONDS",
        help=f"fail a document not de-identified within this time (default: {DEFAULT_DOC_TIMEOUT:g}; 0: no limit)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        "--n-jobs",
        dest="jobs",
        type=int,
        default=-1,
        help="worker processes for a batch or --jsonl, forked once the model is loaded (default: all cores)",
    )
    parser.add_argument(
        "--backend",
        choices=("local", "dask"),
        default="local",
        help="local: joblib workers on this machine (default); dask: a Dask cluster (needs -o)",
    )
    add_scheduler_arguments(
        parser, "dask: address of a running Dask scheduler (default: start a local cluster of --jobs workers)"
    )
    parser.add_argument(
        "--partitions", type=int, help="dask: split the documents into this many partitions (default: 4 per worker)"
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="redo every document, even those whose outputs are up to date or were made with other settings",
    )
    parser.add_argument(
        "--rules",
        choices=RULE_MODES,
        default="default",
        help="rule layer: per-type priorities chosen on dev (default), off, or one priority for every type",
    )
    parser.add_argument(
        "--propagate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="search the rest of a document for the names found in it (default: on, off with --rules off)",
    )
    parser.add_argument(
        "--recall-first",
        type=_probability,
        metavar="P",
        help="CRF models: also propose, off the model's best path, the tokens whose probability of being PHI "
        "is at least P (0 < P <= 1) and the spans whose probability of being one entity of a type is at least P; "
        "candidate spans may overlap others: brat, json, html and the review file list them all, masked and "
        "surrogate replace their union (docs/review.md)",
    )
    parser.add_argument(
        "--review-below",
        type=_probability,
        metavar="P",
        help="with -o: write NAME.review.json beside each output, listing the spans whose lowest token "
        "confidence is below P (offsets, type, confidences; no text)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="user configuration (TOML): allow/deny lists, extra recognizers, per-type actions and "
        "confidence thresholds (docs/user-config.md)",
    )
    parser.add_argument("--mask", default=DEFAULT_MASK, help="masked format: placeholder template (default: [{type}])")
    parser.add_argument("--mask-char", help="masked format: repeat this character over each span instead")
    parser.add_argument("--seed", type=int, help="surrogate format: seed for reproducible surrogates")
    parser.add_argument(
        "--keep",
        default=",".join(sorted(DEFAULT_KEEP)),
        help="surrogate format: comma-separated types left unchanged (default: SEXO_SUJETO_ASISTENCIA; '' for none)",
    )
    parser.add_argument(
        "--key-file", type=Path, help="masked/surrogate: write the original→replacement mapping here (mode 0600)"
    )
    tables = parser.add_argument_group("tables (CSV, TSV, JSON lines, Parquet; docs/deidentification.md#tables)")
    tables.add_argument(
        "--table-format",
        choices=TABLE_FORMATS,
        help="read INPUT as a table of this format (default: by its extension: .csv, .tsv, .jsonl/.ndjson, "
        ".parquet); -o names the output table, of the same format. parquet needs pip install 'deid-crf[parquet]'",
    )
    tables.add_argument(
        "--text-column",
        metavar="NAME",
        help=f"tables: the column of notes to de-identify (default: {DEFAULT_TEXT_COLUMN})",
    )
    tables.add_argument(
        "--id-column",
        metavar="NAME",
        help="tables: the column of unique row ids (strings or integers) naming rows in the key file and "
        "messages (default: the row number, from 1)",
    )
    tables.add_argument(
        "--group-column",
        metavar="NAME",
        help="tables: the column of patient ids: a patient's rows de-identified together (as --group-by field:NAME)",
    )
    tables.add_argument(
        "--spans-column",
        metavar="NAME",
        help=f"tables, --format brat or json: the column added with each row's spans as JSON "
        f"(default: {DEFAULT_SPANS_COLUMN})",
    )
    groups = parser.add_argument_group("patient groups and leak audit")
    groups.add_argument(
        "--group-by",
        metavar="KEY",
        help="de-identify each patient's documents together: a regular expression with one capture group over "
        "the text (e.g. 'NHC:\\s*(\\d+)', or regex:PATTERN), or field:NAME of the JSON line (--jsonl) or table row",
    )
    groups.add_argument(
        "--secret-file",
        type=Path,
        metavar="PATH",
        help=f"--group-by: file holding the secret (mode 600, at least {MIN_SECRET_BYTES} bytes; "
        f"default: ${SECRET_ENV})",
    )
    groups.add_argument(
        "--strict",
        action="store_true",
        help="masked/surrogate: mask the tokens of original values the leak audit finds in the output",
    )
    parser.add_argument(
        "--output-mode",
        type=_octal_mode,
        default=DEFAULT_OUTPUT_MODE,
        metavar="MODE",
        help="permissions of the output files, octal (default: 600; folders made for them get 700, or 755 for 644)",
    )
    parser.add_argument(
        "--redact-paths",
        action="store_true",
        help="in messages and logs, name files by a short keyed hash (file:1a2b3c4d5e6f) instead of their names",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log every document (ids, counts and types)")
    parser.add_argument("-q", "--quiet", action="store_true", help="log errors only")
    parser.add_argument("--log-file", type=Path, help="also append the log to this file")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar with documents/s (default: when writing to -o on a terminal)",
    )
    return parser


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        return f"{record.levelname.lower()}: {message}" if record.levelno >= logging.WARNING else message


def configure_logging(verbose: bool, quiet: bool, log_file: Path | None) -> list[logging.Handler]:
    """Console (stderr) and optional file handlers on the ``deid_crf`` logger."""
    for handler in list(log.handlers):
        if getattr(handler, "_deid_crf_cli", False):
            log.removeHandler(handler)
            handler.close()
    level = logging.ERROR if quiet else logging.DEBUG if verbose else logging.INFO
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(_Formatter())
    console.addFilter(lambda record: record.levelno >= level)  # a filter survives tqdm's redirection
    handlers: list[logging.Handler] = [console]
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        to_file = logging.FileHandler(log_file, encoding="utf-8")
        to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        to_file.addFilter(lambda record: record.levelno >= (logging.DEBUG if verbose else logging.INFO))
        handlers.append(to_file)
    for handler in handlers:
        handler._deid_crf_cli = True  # type: ignore[attr-defined]
        handler.addFilter(OneLine())
        log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    return handlers


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = configure_logging(args.verbose, args.quiet, args.log_file)
    try:
        return _main(parser, args)
    except KeyboardInterrupt:
        log.error("interrupted; outputs written so far are complete, run again to resume")
        return 130
    except (KeyFileError, CorpusError) as exc:  # names the path (and line, column) only
        log.error(str(exc))
        return 2
    except Exception as exc:  # never print the message or traceback: they may quote text
        log.error(f"internal error ({type(exc).__name__}); outputs written so far are complete")
        return 3
    finally:
        redact_paths(None)
        for handler in handlers:
            log.removeHandler(handler)
            handler.close()


def _main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    path_key = secrets.token_hex(16) if args.redact_paths else ""
    redact_paths(bytes.fromhex(path_key) if path_key else None)
    out = args.output_dir
    args.table = _table_mode(parser, args)
    if out is not None and out.exists() and not out.is_dir() and not args.table:
        parser.error(f"{shown(out)} exists and is not a directory")
    if args.key_file is not None:
        if args.format in ANNOTATION_FORMATS:
            parser.error("--key-file goes with --format masked or surrogate")
        if out is not None and out.resolve() in args.key_file.resolve().parents:
            parser.error("--key-file must not be inside the output directory: keep the key apart from the outputs")
        check_key_file(args.key_file)  # before any work: KeyFileError, exit status 2
    try:
        mask_function(args.mask, args.mask_char)
    except ValueError as exc:
        parser.error(str(exc))
    if args.max_bytes <= 0:
        parser.error("--max-bytes must be positive")
    if not args.doc_timeout >= 0:
        parser.error("--doc-timeout must be 0 (no limit) or a positive number of seconds")
    if args.backend != "dask" and (args.scheduler is not None or args.partitions is not None):
        parser.error("--scheduler and --partitions go with --backend dask")
    tls = scheduler_tls(parser, args)
    if args.partitions is not None and args.partitions <= 0:
        parser.error("--partitions must be positive")
    if args.backend == "dask" and (out is None or STDIN in args.inputs):
        parser.error("--backend dask reads files and writes them under -o OUTPUT_DIR (no stdin, no stdout)")
    try:
        codecs.lookup(args.encoding)
    except LookupError:
        parser.error(f"unknown encoding {args.encoding!r} (--encoding)")
    secret = _group_secret(parser, args)
    if secret is None and args.group_by is not None:
        return 2
    if args.review_below is not None and out is None:
        parser.error("--review-below writes review files beside the outputs: it needs -o OUTPUT_DIR")
    args.user_config = _user_config(args.config)
    if args.user_config is None:
        return 2
    if args.jsonl:
        return _jsonl(parser, args, secret or b"")
    if args.table:
        return _table(parser, args, secret or b"")

    found, problems = discover(args.inputs, args.pattern, out)
    if len(found) > 1 and out is None:
        parser.error("several inputs need -o OUTPUT_DIR")
    if any(source == STDIN for source, _ in found) and len(found) > 1:
        parser.error("'-' (stdin) cannot be mixed with other inputs")
    items, refused = plan(found, args.format, out, review=args.review_below is not None)
    problems += refused

    model_dir = str(args.model or default_model_dir())
    # The digest (every byte of the model read) records which model wrote an output
    # directory; output to stdout needs none.
    digest = model_digest(model_dir) if out is not None else ""
    settings = _settings(args, model_dir, digest, path_key, secret or b"")
    if not _load_model(settings):
        return 2
    fingerprint = None
    if out is not None:
        fingerprint = run_fingerprint(settings, seeded=args.seed is not None)
        try:
            check_output_dir(out, fingerprint, items, args.overwrite)
        except SettingsMismatch as exc:
            parser.error(str(exc))
    for problem in problems:
        log.error(problem)

    reads_stdin = any(item.source == STDIN for item in items)
    stdin_data = sys.stdin.buffer.read(args.max_bytes + 1) if reads_stdin else None  # over the limit: refused
    if settings.group_by:
        items, grouped = assign_groups(items, settings, stdin_data)
        n_groups = len({item.group for item in items if item.group is not None})
        log.info(f"--group-by: {grouped} of {len(items)} document(s) in {n_groups} patient group(s)")
    progress = args.progress if args.progress is not None else (out is not None and sys.stderr.isatty())
    if args.backend == "dask":
        from deid_crf.batch.dask_backend import ClusterUnavailable, run_dask

        try:
            summary = run_dask(
                items,
                settings,
                scheduler=args.scheduler,
                tls=tls,
                allow_plaintext=args.allow_plaintext_scheduler,
                jobs=args.jobs,
                partitions=args.partitions,
                overwrite=args.overwrite,
                key_file=args.key_file,
                progress=progress,
                output_dir=out,
                fingerprint=fingerprint,
            )
        except ClusterUnavailable as exc:
            log.error(str(exc))
            return 2
    else:
        summary = run(
            items,
            settings,
            jobs=1 if stdin_data is not None else args.jobs,
            overwrite=args.overwrite,
            key_file=args.key_file,
            progress=progress,
            stdin_data=stdin_data,
            output_dir=out,
            fingerprint=fingerprint,
        )
    if summary.model_loads:
        log.debug(
            f"{len(summary.model_loads)} worker process(es) tagged documents, "
            f"each loading the model at most {max(summary.model_loads.values())} time(s)"
        )
    counts = summary.counts
    failed = counts["failed"] + len(problems)
    if out is not None and args.format == "html":
        from deid_crf.batch.html_view import write_index

        failed += write_index(out, items, args.output_mode)
    if out is not None:
        verb = "tagged" if args.format in ANNOTATION_FORMATS else "de-identified"
        done = counts["ok"] + counts["empty"]
        rate = done / summary.seconds if summary.seconds > 0 else 0.0
        log.info(
            f"{verb} {done} document(s) into {shown(out)}: {counts['ok']} ok, {failed} failed, "
            f"{counts['skipped']} skipped (up to date), {counts['empty']} empty; {rate:.1f} documents/s"
        )
    if out is not None and args.format not in ANNOTATION_FORMATS:
        action = "masked (--strict)" if args.strict else "left in the outputs (--strict masks them)"
        log.info(
            f"leak audit: {summary.survivors} token(s) of original values {action}, "
            f"in {summary.survivor_documents} document(s)"
        )
    return 1 if failed else 0


def _group_secret(parser: argparse.ArgumentParser, args: argparse.Namespace) -> bytes | None:
    """Check --group-by and --strict and read the secret (None, with the reason
    logged, when it cannot be used; None without --group-by)."""
    if args.strict and args.format in ANNOTATION_FORMATS:
        parser.error("--strict goes with --format masked or surrogate")
    if args.group_by is None:
        if args.secret_file is not None:
            parser.error("--secret-file goes with --group-by")
        return None
    from deid_crf.batch.groups import FIELD, GroupingError, load_secret, parse_group_by

    try:
        kind, _ = parse_group_by(args.group_by)
    except GroupingError as exc:
        parser.error(str(exc))
    if kind == FIELD and not (args.jsonl or args.table):
        parser.error(
            "--group-by field:NAME reads a field of a JSON line (--jsonl) or table row; over files use a regex"
        )
    if args.backend == "dask":
        parser.error(
            "--group-by needs --backend local: a patient's documents are de-identified together, in one process"
        )
    try:
        return load_secret(args.secret_file)
    except SecretError as exc:
        log.error(str(exc))
        return None


def _settings(
    args: argparse.Namespace, model_dir: str, model_sha256: str, path_key: str = "", secret: bytes = b""
) -> Settings:
    return Settings(
        model_dir=model_dir,
        fmt=args.format,
        rules=args.rules,
        propagate=args.propagate if args.propagate is not None else args.rules != "off",
        mask=args.mask,
        mask_char=args.mask_char,
        seed=args.seed if args.seed is not None else _random_seed(),
        keep=tuple(t.strip() for t in args.keep.split(",") if t.strip()),
        encoding=args.encoding,
        max_bytes=args.max_bytes,
        doc_timeout=args.doc_timeout,
        output_mode=args.output_mode,
        path_key=path_key,
        model_sha256=model_sha256,
        strict=args.strict,
        group_by=args.group_by or "",
        secret=secret.hex() if args.group_by else "",
        recall_first=args.recall_first,
        review_below=args.review_below,
        user_config=args.user_config[0],
        user_config_name=args.user_config[1],
        hash_secret=args.user_config[2],
    )


def _user_config(path: Path | None) -> tuple[str, str, str] | None:
    """The ``--config`` file's text, shown name and hash secret (hex), checked now; None,
    with the reason (file and key) logged, when it cannot be used (exit status 2)."""
    if path is None:
        return "", "", ""
    from deid_crf.deid.user_config import ConfigError, load_secret, read_user_config

    try:
        config, text = read_user_config(path)
        return text, shown(path), load_secret(config, shown(path)).hex()
    except ConfigError as exc:  # names the path and key only
        log.error(str(exc))
        return None


def _load_model(settings: Settings) -> bool:
    """Load the model here once (a missing one is a usage error); False if it cannot be.

    What is loaded lives as long as the process: it is moved out of the garbage
    collector's reach (``gc.freeze``), so that no collection walks it again, forked
    workers do not copy its pages to update collector counts, and exiting does not
    collect it (about 30 ms of every run)."""
    try:
        deidentifier(settings)
        gc.freeze()
    except ModelNotFoundError:
        log.error(f"no trained model in {shown(settings.model_dir)}; run `make train-crf` first or pass --model DIR")
        return False
    except InvalidModel as exc:  # names the file and the problem
        log.error(f"cannot load model: {exc}")
        return False
    except UnsupportedOption as exc:  # names the option and the model class
        log.error(f"{shown(settings.model_dir)}: {exc}")
        return False
    except (OSError, ValueError) as exc:
        log.error(f"cannot load model from {shown(settings.model_dir)} ({type(exc).__name__})")
        return False
    return True


def _jsonl(parser: argparse.ArgumentParser, args: argparse.Namespace, secret: bytes = b"") -> int:
    """``--jsonl``: one input of JSON lines, results on stdout (:mod:`deid_crf.batch.jsonl`)."""
    if len(args.inputs) != 1:
        parser.error("--jsonl reads one input: a file of JSON lines, or - for stdin")
    refused = [
        name
        for name, given in (
            ("-o", args.output_dir is not None),
            ("--backend dask", args.backend == "dask"),
            ("--format conll", args.format == "conll"),
            ("--format html", args.format == "html"),
        )
        if given
    ]
    if refused:
        parser.error(f"--jsonl writes JSON lines to stdout: it does not go with {', '.join(refused)}")
    # One process, results on stdout: no output directory to fingerprint, no worker to check the model.
    settings = _settings(args, str(args.model or default_model_dir()), model_sha256="", secret=secret)
    if not _load_model(settings):
        return 2
    from deid_crf.batch.jsonl import run_jsonl

    return run_jsonl(args.inputs[0], settings, key_file=args.key_file, jobs=args.jobs)


def _table_mode(parser: argparse.ArgumentParser, args: argparse.Namespace) -> bool:
    """Whether the run reads a table (and check the table options go with it): one
    INPUT with a table extension, or --table-format, without --jsonl."""
    options = [
        name
        for name, value in (
            ("--table-format", args.table_format),
            ("--text-column", args.text_column),
            ("--id-column", args.id_column),
            ("--group-column", args.group_column),
            ("--spans-column", args.spans_column),
        )
        if value is not None
    ]
    table = not args.jsonl and len(args.inputs) == 1 and is_table_input(args.inputs[0], args.table_format)
    if options and not table:
        if args.jsonl:
            parser.error(f"{options[0]} goes with a table, not with --jsonl")
        parser.error(
            f"{options[0]} goes with a table: one INPUT file ending in .csv, .tsv, .jsonl, .ndjson or .parquet, "
            "or --table-format"
        )
    if args.group_column is not None:
        if args.group_by is not None:
            parser.error("--group-column and --group-by name the patient groups two ways: give one")
        args.group_by = f"field:{args.group_column}"
    return table


def _table(parser: argparse.ArgumentParser, args: argparse.Namespace, secret: bytes = b"") -> int:
    """A table de-identified into the table -o (:mod:`deid_crf.batch.tables`)."""
    from deid_crf.batch.tables import TableOptions, TableRun, run_record, work_dir

    source, out = args.inputs[0], args.output_dir
    fmt = args.table_format or format_of(source)
    refused = [
        name
        for name, given in (
            ("- (stdin): a table is read from a file", source == STDIN),
            ("--backend dask", args.backend == "dask"),
            ("--format conll", args.format == "conll"),
            ("--format html", args.format == "html"),
            ("--review-below", args.review_below is not None),
        )
        if given
    ]
    if refused:
        parser.error(f"a table does not go with {', '.join(refused)}")
    if out is None:
        parser.error("a table is de-identified into another table: give its path with -o OUTPUT")
    if out.is_dir():
        parser.error(f"{shown(out)} is a directory: -o names the output table (a file) of a table input")
    if format_of(out) not in (None, fmt):
        parser.error(f"{shown(out)}: the output table has the input's format, {fmt}; give it a .{fmt} name")
    if out.exists() and Path(source).exists() and out.samefile(source):
        parser.error(f"{shown(out)}: the output would overwrite the input; choose another -o")
    if args.key_file is not None:
        key = args.key_file.resolve()
        if key in (out.resolve(), run_record(out).resolve()) or work_dir(out).resolve() in key.parents:
            parser.error("--key-file must be apart from the output table and its work files")
    options = TableOptions(
        fmt,
        args.text_column or DEFAULT_TEXT_COLUMN,
        args.id_column,
        args.spans_column or DEFAULT_SPANS_COLUMN,
    )
    model_dir = str(args.model or default_model_dir())
    settings = _settings(args, model_dir, model_digest(model_dir), "", secret)
    if not _load_model(settings):
        return 2
    progress = args.progress if args.progress is not None else sys.stderr.isatty()
    table_run = TableRun(
        source,
        out,
        settings,
        options,
        seeded=args.seed is not None,
        overwrite=args.overwrite,
        key_file=args.key_file,
        progress=progress,
    )
    try:
        summary = table_run.run(jobs=args.jobs)
    except SettingsMismatch as exc:
        log.error(str(exc))
        return 2
    counts = summary.counts
    done = counts["ok"] + counts["empty"]
    rate = done / summary.seconds if summary.seconds > 0 else 0.0
    verb = "tagged" if args.format in ANNOTATION_FORMATS else "de-identified"
    log.info(
        f"{verb} {shown(source)} into {shown(out)}: {counts['ok']} row(s) ok, {counts['failed']} failed, "
        f"{counts['skipped']} skipped (done before), {counts['empty']} empty; {rate:.1f} rows/s"
    )
    if args.format not in ANNOTATION_FORMATS:
        action = "masked (--strict)" if args.strict else "left in the outputs (--strict masks them)"
        log.info(
            f"leak audit: {summary.survivors} token(s) of original values {action}, "
            f"in {summary.survivor_documents} row(s)"
        )
    return 1 if counts["failed"] else 0


def _random_seed() -> int:
    return secrets.randbits(63)


def _probability(text: str) -> float:
    """A threshold P with 0 < P <= 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a probability P with 0 < P <= 1")
    return value


def _octal_mode(text: str) -> int:
    """``--output-mode``: octal permissions that let the owner read and write."""
    try:
        mode = int(text, 8)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an octal mode such as 600 or 644") from None
    if not 0 <= mode <= 0o777 or (mode & 0o600) != 0o600:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give an octal mode from 600 to 777 that lets the owner read and write"
        )
    return mode


if __name__ == "__main__":
    raise SystemExit(main())
