"""Batch processing: many inputs in, an output tree mirroring them out, resumable.

* Inputs are files, directories (searched recursively for ``pattern``, ``*.txt`` by
  default; hidden files and folders are skipped), glob patterns (``notes/**/*.txt``)
  or ``-`` for standard input.
* Documents are processed in chunks by joblib workers; each worker loads the model
  once and keeps it for every chunk it gets (:func:`cached_model`).
* Each output is written atomically (temporary file, on disk, then renamed) by the
  main process (by the workers in a distributed run), a chunk of documents at a time,
  after their key records, if any, have been appended to the key file
  (:func:`write_outcomes`). A document whose outputs all
  exist and are not older than its input is skipped
  (``overwrite`` forces it), so a run killed at any moment resumes where it stopped
  and, with a seed, ends with exactly the outputs of an uninterrupted run; temporary
  files a kill left behind are removed when the run resumes.
* The output directory records what its outputs depend on (format, model, rules,
  masks, kept types, seed) in :data:`RUN_FILE`; a run with other settings into it is
  refused (:class:`SettingsMismatch`) unless it overwrites every output. With a key
  file, a document also needs its key record to count as done.
  The key file is opened as :mod:`deid_crf.batch.keys` says: never through a link,
  never over a file that is not a key file.
* A bad input (unreadable, binary, not in the encoding, over ``max_bytes``) is
  reported with its path and reason and the batch goes on; an empty input gives
  empty outputs and a warning.

:class:`BatchRun` is what every backend shares in the process that starts a run
(settings check, resume, key file, counting and logging); a distributed backend
(:mod:`deid_crf.batch.dask`, or a PySpark ``mapPartitions``) runs
:func:`deidentify_partition` on its workers, which write the outputs and key records
themselves and return only :class:`DocStatus` records.

Nothing logged or raised here holds document text: only paths, document ids,
offsets, types and counts.
"""

from __future__ import annotations

import codecs
import ctypes
import glob
import hashlib
import json
import logging
import math
import os
import signal
import socket
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from deid_crf.batch.formats import SUFFIXES, WITHOUT_CONFIDENCE, mode_of, render
from deid_crf.batch.keys import KeyFile, group_memories
from deid_crf.batch.pool import can_fork, forked_workers
from deid_crf.batch.review import REVIEW_SUFFIX, to_review_json
from deid_crf.config import RECALL_FIRST_CANDIDATES
from deid_crf.deid.deidentifier import ANNOTATE, SURROGATE, Deidentifier, Result
from deid_crf.deid.groups import GroupMemory, GroupSecret
from deid_crf.deid.rules import prepare as prepare_rules
from deid_crf.deid.rules import rule_layer
from deid_crf.io.files import (
    CorpusError,
    TooLarge,
    atomic_write_text,
    atomic_write_texts,
    decode_text,
    file_problem,
    read_stream,
    read_text,
)
from deid_crf.io.names import escape, redact_paths, redacting, shown
from deid_crf.io.persistence import InvalidModel
from deid_crf.models import Tagger, load_model
from deid_crf.models.card import software_versions
from deid_crf.parallel import effective_jobs

log = logging.getLogger("deid_crf")

STDIN = "-"
STDOUT = "-"
DEFAULT_PATTERN = "*.txt"
# Clinical notes are kilobytes; a file over 10 MiB is almost surely not one, and
# tagging it would hold a worker for minutes.
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
# Seconds one document may take before it is failed (a 10 MiB one takes about a
# minute): generous, a guard against work that would never end. 0: no limit.
DEFAULT_DOC_TIMEOUT = 600.0
DEFAULT_OUTPUT_MODE = 0o600

OK, FAILED, EMPTY, SKIPPED = "ok", "failed", "empty", "skipped"
# The settings of the run that wrote an output directory (hidden: never an input).
RUN_FILE = ".deid-crf-run.json"


@dataclass(frozen=True)
class WorkItem:
    """One input document: where it is read, its id and where its outputs go
    (``("-",)`` for standard output)."""

    source: str
    doc_id: str
    outputs: tuple[str, ...]
    # The tag of the document's patient group (never the group key), or None.
    group: str | None = None


@dataclass(frozen=True)
class Settings:
    """Everything a worker needs to rebuild the de-identifier (picklable)."""

    model_dir: str
    fmt: str
    rules: str = "default"
    propagate: bool = True
    mask: str = "[{type}]"
    mask_char: str | None = None
    seed: int = 0
    keep: tuple[str, ...] = ("SEXO_SUJETO_ASISTENCIA",)
    encoding: str = "utf-8"
    max_bytes: int = DEFAULT_MAX_BYTES
    doc_timeout: float = DEFAULT_DOC_TIMEOUT
    # Outputs hold PHI (annotations quote it; masked text may keep what was missed):
    # files owner-only, in folders made owner-only (folder_mode).
    output_mode: int = DEFAULT_OUTPUT_MODE
    # With --redact-paths, the key file names are hashed with in messages (hex), or "".
    path_key: str = ""
    # The model_digest() of model_dir where the run started (filled in by BatchRun):
    # the key of the per-process model cache, and what every worker checks its copy against.
    model_sha256: str = ""
    # Mask what the leak audit finds (--strict).
    strict: bool = False
    # Patient groups: the --group-by value, and the secret (hex) their tags, date shifts
    # and surrogates are derived from; never shown.
    group_by: str = ""
    secret: str = field(default="", repr=False)
    # --recall-first: the threshold on a token's probability of being PHI that adds
    # candidates off the model's best path (None: off).
    recall_first: float | None = None
    # --review-below: spans whose lowest token confidence is below it go to a review file.
    review_below: float | None = None
    # --config: the user configuration's TOML text (deid_crf.deid.user_config), the
    # file's name for messages, and the hash action's secret (hex) read from where it says.
    user_config: str = ""
    user_config_name: str = ""
    hash_secret: str = ""


@dataclass
class Outcome:
    """What happened to one document; ``files`` maps output paths to contents."""

    doc_id: str
    source: str
    status: str
    reason: str = ""
    files: dict[str, str] = field(default_factory=dict, repr=False)
    key: dict[str, Any] | None = field(default=None, repr=False)
    counts: dict[str, int] = field(default_factory=dict)
    n_chars: int = 0
    process: str = ""  # host:pid of the process that de-identified the document
    model_loads: int = 0  # models that process had loaded so far
    survivors: list[tuple[int, int, str]] = field(default_factory=list)  # leak audit: output offsets, type


@dataclass
class DocStatus:
    """What became of one document, as a worker reports it: never any text, only its
    path and id, status and reason, span counts by type and length, and which process
    did it (``host:pid``) with how many models that process had loaded."""

    doc_id: str
    source: str
    status: str
    reason: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    n_chars: int = 0
    process: str = ""
    model_loads: int = 0
    survivors: list[tuple[int, int, str]] = field(default_factory=list)


@dataclass
class Summary:
    counts: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    # The most models each process that de-identified documents had loaded: 1 when
    # every worker kept its model from its first document to its last.
    model_loads: dict[str, int] = field(default_factory=dict)
    # Leak audit: identifying tokens of originals found in the outputs, and in how many documents.
    survivors: int = 0
    survivor_documents: int = 0

    @property
    def failed(self) -> int:
        return self.counts[FAILED]


# ----------------------------------------------------------------------------- inputs


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _inside(path: Path, directory: Path) -> bool:
    try:
        path.resolve().relative_to(directory.resolve())
    except ValueError:
        return False
    return True


def discover(
    inputs: Sequence[str], pattern: str = DEFAULT_PATTERN, output_dir: Path | None = None
) -> tuple[list[tuple[str, Path]], list[str]]:
    """``(source, relative path)`` of every input document, and problems found.

    A directory contributes its files matching ``pattern`` at any depth (relative to
    it), except hidden ones and, when the output directory lies inside it, the
    outputs; a glob contributes its matches relative to its fixed leading folder; a
    file is relative to its own folder. Whatever is not a regular file (through
    links) is a problem naming it, never read: a FIFO, device or socket, a dangling
    link, a link loop; folders matched by a pattern are passed over.
    """
    found: list[tuple[str, Path]] = []
    problems: list[str] = []

    def add(p: Path, relative: Path, matches: list[tuple[str, Path]]) -> None:
        problem = file_problem(p)
        if problem is None:
            matches.append((str(p), relative))
        elif p.is_symlink() or not p.is_dir():
            problems.append(f"{shown(p)}: {problem}; skipped")

    for item in inputs:
        if item == STDIN:
            found.append((STDIN, Path("stdin.txt")))
            continue
        path = Path(item)
        matches: list[tuple[str, Path]] = []
        reported = len(problems)
        if path.is_dir():
            skip_outputs = output_dir is not None and _inside(output_dir, path) and not _inside(path, output_dir)
            for p in sorted(path.rglob(pattern)):
                relative = p.relative_to(path)
                if not _hidden(relative) and not (skip_outputs and _inside(p, output_dir)):
                    add(p, relative, matches)
            if not matches:
                problems.append(f"{shown(path)}: directory has no {escape(pattern)} files")
        elif os.path.lexists(path):
            add(path, Path(path.name), matches)
        elif glob.has_magic(item):
            parts = Path(item).parts
            fixed = next((i for i, part in enumerate(parts) if glob.has_magic(part)), len(parts))
            root = Path(*parts[:fixed]) if fixed else Path(".")
            for p in map(Path, sorted(glob.glob(item, recursive=True))):
                # "a/../../T/x.txt" → "../T/x.txt": plan() refuses outputs outside -o.
                add(p, Path(os.path.normpath(p.relative_to(root))), matches)
            if not matches and len(problems) == reported:
                problems.append(f"{shown(item)}: no file matches")
        else:
            problems.append(f"{shown(path)}: no such file or directory")
        found.extend(matches)
    return found, problems


def plan(
    found: Sequence[tuple[str, Path]], fmt: str, output_dir: Path | None, review: bool = False
) -> tuple[list[WorkItem], list[str]]:
    """Work items with their output paths (mirroring the input tree under
    ``output_dir``; standard output without it), and the inputs refused. With
    ``review``, each document also gets its review file (``NAME.review.json``)."""
    items: list[WorkItem] = []
    problems: list[str] = []
    seen: set[str] = set()
    for source, relative in found:
        if output_dir is not None and (
            relative.is_absolute() or ".." in relative.parts or not _inside(output_dir / relative, output_dir)
        ):
            outside = f"its output would be outside the output directory {shown(output_dir)}"
            problems.append(f"{shown(source)}: {outside}; skipped")
            continue
        doc_id = relative.with_suffix("").as_posix()
        if doc_id in seen:
            problems.append(f"{shown(source)}: another input has the same name '{shown(doc_id)}'; skipped")
            continue
        seen.add(doc_id)
        if output_dir is None:
            items.append(WorkItem(source, doc_id, (STDOUT,)))
            continue
        target = output_dir / relative.with_suffix(SUFFIXES[fmt])
        outputs = [target]
        if fmt == "brat":
            # The text beside the .ann makes the output a BRAT collection.
            outputs.append(output_dir / relative.with_suffix(".txt"))
        if review:
            outputs.append(output_dir / relative.with_suffix(REVIEW_SUFFIX))
        if source != STDIN:
            clash = [o for o in outputs if o.exists() and o.samefile(source)]
            if target in clash:
                advice = "choose another output directory"
                problems.append(f"{shown(source)}: the output would overwrite the input; {advice}")
                continue
            # BRAT into the input's own folder: the input is already the .txt beside the .ann.
            outputs = [o for o in outputs if o not in clash]
        items.append(WorkItem(source, doc_id, tuple(str(o) for o in outputs)))
    return items, problems


def assign_groups(
    items: Sequence[WorkItem], settings: Settings, stdin_data: bytes | None = None
) -> tuple[list[WorkItem], int]:
    """``items`` with the tag of their patient group (``settings.group_by``: a regular
    expression over the text), and how many have one. An input that cannot be read
    stays without a group (it fails later, saying why)."""
    if not settings.group_by:
        return list(items), 0
    from deid_crf.batch.groups import Document, group_key_function

    key_of = group_key_function(settings.group_by)
    secret = GroupSecret(bytes.fromhex(settings.secret))
    out, grouped = [], 0
    for item in items:
        try:
            key = key_of(Document(read_item(item, settings, stdin_data)))
        except CorpusError:
            key = None
        grouped += key is not None
        out.append(replace(item, group=secret.tag(key) if key is not None else None))
    return out, grouped


def remove_stale_temporaries(items: Iterable[WorkItem]) -> None:
    """Delete temporary files that a run killed while writing the outputs of ``items``
    left: ``.NAME.*.tmp`` beside an output ``NAME`` (:func:`~deid_crf.io.files.atomic_write_text`).
    Each output folder is listed once (a glob per output listed it once per file)."""
    names_by_folder: dict[str, set[str]] = {}
    for item in items:
        for output in item.outputs:
            if output != STDOUT:
                folder, name = os.path.split(output)
                names_by_folder.setdefault(folder, set()).add(name)
    for folder, names in names_by_folder.items():
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue  # not made yet (or unreadable: writing there fails, saying so)
        for entry in entries:
            if entry.startswith(".") and entry.endswith(".tmp") and _temporary_of(entry) & names:
                Path(folder, entry).unlink(missing_ok=True)


def _temporary_of(entry: str) -> set[str]:
    """The names ``NAME`` whose temporary ``.NAME.*.tmp`` ``entry`` could be: every
    prefix of ``entry[1:-4]`` that a dot ends (``NAME`` may hold dots itself)."""
    middle = entry[1:-4]
    return {middle[:i] for i in range(len(middle)) if middle[i] == "."}


def is_done(item: WorkItem, since_ns: int = 0, key_ids: set[str] | None = None) -> bool:
    """Every output exists and is older neither than the input nor than ``since_ns``
    (see :func:`record_run`), and, with ``key_ids``, the document has a key record."""
    if item.source == STDIN or STDOUT in item.outputs:
        return False
    if key_ids is not None and item.doc_id not in key_ids:
        return False
    try:
        oldest_allowed = max(os.stat(item.source).st_mtime_ns, since_ns)
        return all(os.stat(o).st_mtime_ns >= oldest_allowed for o in item.outputs)
    except OSError:
        return False


# ----------------------------------------------------------------------------- run settings


class SettingsMismatch(Exception):
    """The output directory holds outputs of a run with other (or unknown) settings."""


# model_digest's results in this process: (directory, every file's name, size and
# modification time) → digest, so that the process that starts a run and then loads the
# model reads the model's files once, not twice.
_DIGESTS: dict[tuple, str] = {}


def model_digest(model_dir: str | os.PathLike) -> str:
    """SHA-256 of a saved model directory: every file's relative name, size and bytes."""
    root = Path(model_dir)
    files = sorted(p for p in root.rglob("*") if p.is_file() and not _hidden(p.relative_to(root)))
    stats = [(path, path.stat()) for path in files]
    key = (str(root.resolve()), *((str(p), s.st_size, s.st_mtime_ns) for p, s in stats))
    if key in _DIGESTS:
        return _DIGESTS[key]
    digest = hashlib.sha256()
    for path, stat in stats:
        digest.update(f"{path.relative_to(root).as_posix()}\0{stat.st_size}\0".encode())
        with open(path, "rb") as f:
            for block in iter(lambda f=f: f.read(1 << 20), b""):
                digest.update(block)
    _DIGESTS.clear()
    _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]


def run_fingerprint(settings: Settings, seeded: bool = True) -> dict[str, Any]:
    """What the outputs of a run depend on, as recorded in :data:`RUN_FILE`: the
    format, the model's digest, the rule layer, the input encoding and, where the
    format uses them, the masks, the kept types and the seed (as a hash, so that the
    file does not show it). ``seeded`` is False when the seed was drawn at random for
    this run: each document's surrogates come from one seed anyway, so a run without
    a seed may resume another without one."""
    mode = mode_of(settings.fmt)
    seed = hashlib.sha256(f"deid-crf seed\0{settings.seed}".encode()).hexdigest() if seeded else None
    return (
        {
            "format": settings.fmt,
            "model_sha256": settings.model_sha256 or model_digest(settings.model_dir),
            "rules": settings.rules,
            "propagate": settings.propagate,
            "encoding": codecs.lookup(settings.encoding).name,
            "mask": settings.mask if mode != ANNOTATE else None,
            "mask_char": settings.mask_char if mode != ANNOTATE else None,
            "keep": sorted(settings.keep) if mode == SURROGATE else None,
            "seed_sha256": seed if mode == SURROGATE else None,
        }
        | _group_fingerprint(settings, mode)
        | _optional_fingerprint(settings)
    )


def _group_fingerprint(settings: Settings, mode: str) -> dict[str, Any]:
    """The settings of patient groups and of the audit, recorded only when used (so that
    the record of a run without them is as before): --strict, --group-by and which
    secret (its check, never the secret)."""
    out: dict[str, Any] = {}
    if settings.strict and mode != ANNOTATE:
        out["strict"] = True
    if settings.group_by:
        out["group_by_sha256"] = hashlib.sha256(settings.group_by.encode()).hexdigest()
        out["group_secret_check"] = GroupSecret(bytes.fromhex(settings.secret)).check()
    return out


def _optional_fingerprint(settings: Settings) -> dict[str, Any]:
    """The settings that are recorded only when used, so that an output directory
    written without them still resumes."""
    optional: dict[str, Any] = {}
    if settings.recall_first is not None:
        optional["recall_first"] = settings.recall_first
        optional["recall_candidates"] = list(RECALL_FIRST_CANDIDATES)
    if settings.review_below is not None:
        optional["review_below"] = settings.review_below
    if settings.user_config:
        optional["user_config_sha256"] = hashlib.sha256(settings.user_config.encode()).hexdigest()
    if settings.hash_secret:
        optional["hash_secret_sha256"] = hashlib.sha256(f"deid-crf hash\0{settings.hash_secret}".encode()).hexdigest()
    return optional


def _recorded_run(output_dir: Path) -> dict[str, Any] | None:
    """What :data:`RUN_FILE` holds (``settings`` and ``since_ns``); None without
    one, {} when it cannot be read."""
    try:
        recorded = json.loads((output_dir / RUN_FILE).read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    if not isinstance(recorded, dict) or not isinstance(recorded.get("settings"), dict):
        return {}
    return recorded


def _existing_outputs(items: Sequence[WorkItem]) -> Iterator[os.stat_result]:
    for item in items:
        for output in item.outputs:
            if output != STDOUT:
                try:
                    yield os.stat(output)
                except OSError:
                    continue


def check_output_dir(
    output_dir: Path, fingerprint: dict[str, Any], items: Sequence[WorkItem], overwrite: bool = False
) -> None:
    """Raise :class:`SettingsMismatch` when ``output_dir`` holds outputs of a run
    with other settings than ``fingerprint``, or outputs of ``items`` with no record
    of their settings, unless this run overwrites them."""
    if overwrite:
        return
    recorded = _recorded_run(output_dir)
    advice = "pass --overwrite to redo every document with these settings, or choose another output directory"
    if recorded is None:
        if next(_existing_outputs(items), None) is not None:
            unknown = f"holds outputs whose settings are unknown (no {RUN_FILE})"
            raise SettingsMismatch(f"{shown(output_dir)} {unknown}; {advice}")
        return
    if not recorded:
        raise SettingsMismatch(f"{shown(output_dir / RUN_FILE)} cannot be read; {advice}")
    settings = recorded["settings"]
    if settings != fingerprint:
        differ = sorted(k for k in settings.keys() | fingerprint.keys() if settings.get(k) != fingerprint.get(k))
        raise SettingsMismatch(
            f"{shown(output_dir)} holds outputs of a run with other settings ({', '.join(differ)}); {advice}"
        )


# Versions recorded in RUN_FILE beside the settings: deid-crf's, and Faker's, whose
# providers decide the surrogates drawn from a seed.
RECORDED_VERSIONS = ("deid-crf", "faker")


def _versions_text(versions: Any) -> str:
    if not isinstance(versions, dict):
        return "unrecorded versions"
    return ", ".join(f"{name} {versions.get(name)}" for name in RECORDED_VERSIONS)


def record_run(
    output_dir: Path,
    fingerprint: dict[str, Any],
    items: Sequence[WorkItem],
    overwrite: bool = False,
    mode: int | None = DEFAULT_OUTPUT_MODE,
) -> int:
    """Record ``fingerprint`` in ``output_dir``/:data:`RUN_FILE` (atomically, file
    ``mode``, ``output_dir`` created with :func:`~deid_crf.io.files.folder_mode` of it), and
    return the time (``since_ns``) before which an output is not this run's: 0 for a
    new directory; with ``overwrite``, or when the settings change, just after the
    newest output of ``items`` already there, so that a killed run resumed without
    ``overwrite`` still redoes them. A directory whose record matches keeps it. The
    record also holds the versions of deid-crf and Faker (:data:`RECORDED_VERSIONS`);
    resuming with others is allowed, with a warning, and records them."""
    recorded = _recorded_run(output_dir)
    versions = software_versions(RECORDED_VERSIONS)
    if not overwrite and recorded and recorded["settings"] == fingerprint:
        since_ns = int(recorded.get("since_ns", 0))
        if recorded.get("versions") == versions:
            return since_ns
        # Same settings, other software: Faker's providers decide the surrogates of a
        # seed, so outputs written before and after this point may not match. (A record
        # written before versions were recorded just gets them.)
        if recorded.get("versions") is not None:
            log.warning(
                "%s: earlier outputs were written with %s; this run uses %s",
                shown(output_dir),
                _versions_text(recorded.get("versions")),
                _versions_text(versions),
            )
    else:
        since_ns = 1 + max((stat.st_mtime_ns for stat in _existing_outputs(items)), default=-1)
    try:
        record = json.dumps({"settings": fingerprint, "since_ns": since_ns, "versions": versions}, indent=2) + "\n"
        atomic_write_text(output_dir / RUN_FILE, record, mode)
    except OSError:
        pass  # every output of this run will fail to be written in the same folder, and say so
    return since_ns


# ----------------------------------------------------------------------------- workers


class ModelMismatch(Exception):
    """The model directory, as this process sees it, is not the one the run started with."""


_MODELS: dict[tuple[str, str], Tagger] = {}
_DEIDENTIFIERS: dict[Settings, Deidentifier] = {}
_model_loads = 0
_CACHE_LOCK = threading.Lock()
# One chunk at a time per process: the de-identifier (its Faker, reseeded per
# document) is shared by the threads of a multi-threaded worker.
_TAGGING_LOCK = threading.Lock()


def process_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def model_loads() -> int:
    """How many models this process has loaded (:func:`cached_model`)."""
    return _model_loads


def cached_model(model_dir: str, digest: str = "") -> Tagger:
    """The tagger saved in ``model_dir``, loaded once per process and kept for as long
    as runs ask for the same directory and ``digest``. With a ``digest`` (the
    :func:`model_digest` of the process that started the run), a process that sees
    other files in ``model_dir`` refuses them (:class:`ModelMismatch`): every worker
    of a cluster must tag with the model the run was started with."""
    global _model_loads
    key = (os.path.abspath(model_dir), digest)
    with _CACHE_LOCK:
        if key not in _MODELS:
            if digest and model_digest(model_dir) != digest:
                raise ModelMismatch(
                    f"{shown(model_dir)} on {socket.gethostname()} is missing or differs from the model "
                    "the run started with"
                )
            _MODELS.clear()
            tagger = load_model(model_dir, n_jobs=1)
            _check_can_tag(tagger, model_dir)
            _MODELS[key] = tagger
            _model_loads += 1
        return _MODELS[key]


def _check_can_tag(tagger: Tagger, model_dir: str) -> None:
    """Tag a tiny text once after loading: a model whose parts do not fit together (a
    window column no group produces, a resource of the wrong shape) fails here, as one
    error at load (exit status 2), not once per document."""
    try:
        tagger.tag_texts(["Nombre: Ana.\nNHC: 1234567."], n_jobs=1)
    except Exception as exc:
        problem = f"the model's files do not fit together ({type(exc).__name__})"
        raise InvalidModel(f"{shown(model_dir)}: {problem}") from None


def deidentifier(settings: Settings) -> Deidentifier:
    """The de-identifier of ``settings``, its model loaded once per process."""
    tagger = cached_model(settings.model_dir, settings.model_sha256)
    with _CACHE_LOCK:
        deid = _DEIDENTIFIERS.get(settings)
        if deid is None or deid.tagger is not tagger:
            _DEIDENTIFIERS.clear()
            rules = rule_layer(settings.rules, settings.propagate)
            actions, hash_value = {}, None
            if settings.user_config:  # checked where the run started; ConfigError names the file
                from deid_crf.deid.user_config import hasher, parse_user_config, with_user_config

                config = parse_user_config(settings.user_config, settings.user_config_name)
                rules, actions = with_user_config(rules, config), config.actions
                if settings.hash_secret:
                    hash_value = hasher(bytes.fromhex(settings.hash_secret), config.hash_length)
            deid = _DEIDENTIFIERS[settings] = Deidentifier(
                tagger,
                rules=rules,
                mask=settings.mask,
                mask_char=settings.mask_char,
                seed=settings.seed,
                keep=settings.keep,
                strict=settings.strict,
                secret=GroupSecret(bytes.fromhex(settings.secret)) if settings.secret else None,
                recall_threshold=settings.recall_first,
                actions=actions,
                hash_value=hash_value,
            )
        return deid


def read_item(item: WorkItem, settings: Settings, stdin_data: bytes | None = None) -> str:
    """The text of an input; :class:`CorpusError` (path and reason, no content) if
    it cannot be used."""
    try:
        if item.source != STDIN:
            return read_text(item.source, settings.encoding, settings.max_bytes)
        if stdin_data is None:
            stdin_data = read_stream(sys.stdin.buffer, "<stdin>", settings.max_bytes)
        elif len(stdin_data) > settings.max_bytes:
            raise TooLarge(f"<stdin>: input is over the limit of {settings.max_bytes} bytes")
        return decode_text(stdin_data, "<stdin>", settings.encoding)
    except TooLarge as exc:
        raise TooLarge(f"{exc} (--max-bytes)") from None


def _outcome(item: WorkItem, result, settings: Settings, deid: Deidentifier, text: str) -> Outcome:
    rendered = render(result, settings.fmt, deid.tagger.tokenizer(), settings.review_below)
    files = {}
    for path in item.outputs:
        if settings.review_below is not None and path != STDOUT and path == item.outputs[-1]:  # plan() puts it last
            files[path] = to_review_json(result, settings.review_below)
        else:  # a BRAT collection gets the original text beside its .ann
            files[path] = text if settings.fmt == "brat" and path.endswith(".txt") else rendered
    counts = Counter(s.type for s in result.spans)
    key = result.key_record() if mode_of(settings.fmt) != "annotate" else None
    survivors = [(s.start, s.end, s.type) for s in result.survivors]
    return Outcome(
        item.doc_id, item.source, OK if text else EMPTY, "", files, key, dict(counts), len(text), survivors=survivors
    )


def process_chunk(
    settings: Settings,
    items: Sequence[WorkItem],
    stdin_data: bytes | None = None,
    memories: dict[str, GroupMemory] | None = None,
) -> list[Outcome]:
    """Read, tag, de-identify and render a chunk of documents (in a worker); the
    documents of a patient group, all in the chunk, together, with what ``memories``
    holds of their group.

    Never raises for a document: problems become failed outcomes whose reason holds
    no document text (an unexpected error is named by its exception type only).
    """
    with _TAGGING_LOCK:
        redact_paths(bytes.fromhex(settings.path_key) if settings.path_key else None)
        outcomes = _process_chunk(settings, items, stdin_data, memories)
    process, loads = process_name(), model_loads()
    for outcome in outcomes:
        outcome.process, outcome.model_loads = process, loads
    return outcomes


def _process_chunk(
    settings: Settings,
    items: Sequence[WorkItem],
    stdin_data: bytes | None,
    memories: dict[str, GroupMemory] | None = None,
) -> list[Outcome]:
    outcomes: dict[int, Outcome] = {}
    texts: dict[int, str] = {}
    for i, item in enumerate(items):
        try:
            texts[i] = read_item(item, settings, stdin_data)
        except CorpusError as exc:
            outcomes[i] = Outcome(item.doc_id, item.source, FAILED, str(exc))
    try:
        deid = deidentifier(settings)
    except Exception as exc:  # reported per document, without its message
        detail = str(exc) if isinstance(exc, ModelMismatch) else type(exc).__name__
        for i, item in enumerate(items):
            reason = f"{shown(item.source)}: cannot load model ({detail})"
            outcomes.setdefault(i, Outcome(item.doc_id, item.source, FAILED, reason))
        return [outcomes[i] for i in range(len(items))]
    results = deidentify_texts(
        deid, settings, texts, [item.doc_id for item in items], [item.group for item in items], memories
    )
    for i, result in results.items():
        item = items[i]
        if isinstance(result, str):
            outcomes[i] = Outcome(item.doc_id, item.source, FAILED, f"{shown(item.source)}: {result}")
            continue
        try:
            outcomes[i] = _outcome(item, result, settings, deid, texts[i])
        except Exception as exc:
            reason = f"{shown(item.source)}: internal error ({type(exc).__name__}) while de-identifying"
            outcomes[i] = Outcome(item.doc_id, item.source, FAILED, reason)
    return [outcomes[i] for i in range(len(items))]


def survivor_message(where: str, survivors: Sequence[tuple[int, int, str]], strict: bool) -> str:
    """The leak audit's warning for one document (or table row): its survivors' output
    offsets and types, the first ten of them, never their text."""
    spots = ", ".join(f"{t} at {a}-{b}" for a, b, t in survivors[:10])
    more = f" and {len(survivors) - 10} more" if len(survivors) > 10 else ""
    action = "masked (--strict)" if strict else "left in the output (--strict masks them)"
    return f"{where}: leak audit: {len(survivors)} token(s) of original values {action}: {spots}{more}"


def deidentify_texts(
    deid: Deidentifier,
    settings: Settings,
    texts: dict[int, str],
    doc_ids: Sequence[str],
    groups: Sequence[str | None],
    memories: dict[str, GroupMemory] | None = None,
) -> dict[int, Result | str]:
    """The :class:`~deid_crf.deid.deidentifier.Result` of each text (by index), or the
    reason, holding no text, why it could not be de-identified: the texts without a
    group together, each patient group (``groups[i]``, a tag) together with what
    ``memories`` holds of it, within one document's time limit; if that fails, each
    text (or group) again with its own limit, to find the culprit(s). Never raises
    for a text. What the batch engine and the table mode (:mod:`deid_crf.batch.tables`)
    share."""
    mode = mode_of(settings.fmt)
    confidence = settings.fmt not in WITHOUT_CONFIDENCE or settings.review_below is not None
    units = _units(sorted(texts), groups)
    memories = memories or {}

    def deidentify(unit: list[int]) -> list[Result]:
        ids = [doc_ids[i] for i in unit]
        tag = groups[unit[0]]
        if tag is None:
            return deid.deidentify_many([texts[i] for i in unit], mode, ids, confidence)
        return deid.deidentify_group([texts[i] for i in unit], mode, ids, tag, memories.get(tag), confidence)

    done: dict[int, Result | str] = {}
    try:
        # All together (faster), within one document's time limit: chunks are small,
        # and if it runs out each document (or patient group) gets its own limit below.
        with time_limit(settings.doc_timeout):
            for unit in units:
                done.update(zip(unit, deidentify(unit), strict=True))
        return done
    except (Exception, DocumentTimeout):
        # Find the culprit(s): one document at a time, a patient group as a whole.
        parts = [part for unit in units for part in ([unit] if groups[unit[0]] else [[i] for i in unit])]
        for unit in parts:
            try:
                with time_limit(settings.doc_timeout * len(unit)):
                    done.update(zip(unit, deidentify(unit), strict=True))
            except DocumentTimeout:
                limit = f"{settings.doc_timeout:g} s (--doc-timeout)"
                done.update((i, f"not de-identified within {limit}") for i in unit)
            except Exception as exc:
                done.update((i, f"internal error ({type(exc).__name__}) while de-identifying") for i in unit)
        return done


def _units(indices: Sequence[int], groups: Sequence[str | None]) -> list[list[int]]:
    """``indices`` in what is de-identified together: the documents without a group
    (``groups[i]`` None) as one unit, then each patient group's, in the order of the
    groups' first documents."""
    alone = [i for i in indices if groups[i] is None]
    units: dict[str, list[int]] = {}
    for i in indices:
        tag = groups[i]
        if tag is not None:
            units.setdefault(tag, []).append(i)
    return ([alone] if alone else []) + list(units.values())


class DocumentTimeout(BaseException):
    """A document took longer than its time limit. A ``BaseException``, as
    ``KeyboardInterrupt`` is, so that no ``except Exception`` on the way swallows it."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`DocumentTimeout` in the block once ``seconds`` (wall clock) have
    passed (``seconds <= 0``: no limit). It interrupts Python code, and C code
    (CRFsuite, numpy, a regular expression, a sleep in another thread than the main
    one) once it returns. In the main thread a ``SIGALRM`` raises it; in another one
    (Dask runs tasks in a worker's thread pool), :func:`_thread_time_limit`."""
    if seconds <= 0:
        yield
        return
    if threading.current_thread() is not threading.main_thread():
        with _thread_time_limit(seconds):
            yield
        return

    def expire(signum: int, frame: object) -> None:
        raise DocumentTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    """Have thread ``thread_id`` raise ``exception`` at its next Python bytecode (None:
    forget one it has not raised yet). CPython's PyThreadState_SetAsyncExc."""
    exc = ctypes.py_object(exception) if exception is not None else ctypes.c_void_p(None)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), exc)


@contextmanager
def _thread_time_limit(seconds: float) -> Iterator[None]:
    """:func:`time_limit` outside the main thread, where no signal can be received: a
    timer thread makes this thread raise :class:`DocumentTimeout` asynchronously, as a
    signal handler would raise it in the main thread. The lock makes sure no timeout
    is raised once the block has left (it is then forgotten if still pending), so it
    never lands in the caller's code after the block."""
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"inside": True, "raised": False}

    def expire() -> None:
        with lock:
            if state["inside"]:
                _raise_in(target, DocumentTimeout)
                state["raised"] = True

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["inside"] = False
            if state["raised"]:
                _raise_in(target, None)


# ----------------------------------------------------------------------------- the run

# Documents a worker reads, tags and renders at a time: few enough to lose little
# when killed and to hold little text in memory, enough that the numpy steps of tagging
# run over arrays long enough to pay for their calls (MEDDOCAN dev with 2 workers:
# about 4 % less CPU than with 16).
MAX_CHUNK = 32
# With several workers the last chunks shrink down to this many documents, so that the
# workers run out of work at about the same time: a chunk of 16 MEDDOCAN documents is
# about a quarter of a second of one core, which one worker would otherwise spend
# alone at the end, the other idle.
MIN_TAIL_CHUNK = 4


def _chunks(items: Sequence[WorkItem], jobs: int) -> list[Sequence[WorkItem]]:
    """Chunks small enough to keep every worker busy and lose little when killed; with
    several workers, each at most a ``2 * jobs``-th of what is left (at least
    :data:`MIN_TAIL_CHUNK`), so the last ones are small. A patient group's documents stay
    in one chunk, in the order of their ids (a chunk as large as the group if it has
    more than the size), so that its key records are written in the order its
    surrogates were drawn."""
    size = max(1, min(MAX_CHUNK, math.ceil(len(items) / (jobs * 4))))
    if all(item.group is None for item in items):
        if jobs == 1:
            return [items[i : i + size] for i in range(0, len(items), size)]
        chunks, start = [], 0
        while start < len(items):
            tail = max(MIN_TAIL_CHUNK, math.ceil((len(items) - start) / (2 * jobs)))
            end = start + min(size, tail)
            chunks.append(items[start:end])
            start = end
        return chunks
    units: dict[object, list[WorkItem]] = {}
    for n, item in enumerate(items):
        units.setdefault(item.group if item.group is not None else n, []).append(item)
    chunks: list[list[WorkItem]] = []
    for unit in units.values():
        unit.sort(key=lambda item: item.doc_id)
        if not chunks or len(chunks[-1]) + len(unit) > size:
            chunks.append([])
        chunks[-1].extend(unit)
    return [chunk for chunk in chunks if chunk]


def _results(
    settings: Settings,
    items: Sequence[WorkItem],
    jobs: int,
    stdin_data: bytes | None,
    memories: dict[str, GroupMemory] | None = None,
) -> Iterator[list[Outcome]]:
    """The outcomes of ``items``, a chunk at a time, in order."""
    chunks = _chunks(items, jobs)
    memories = memories or {}

    def memories_of(chunk: Sequence[WorkItem]) -> dict[str, GroupMemory]:
        return {item.group: memories[item.group] for item in chunk if item.group in memories}

    if jobs == 1 or len(chunks) == 1:
        for chunk in chunks:
            yield process_chunk(settings, chunk, stdin_data, memories_of(chunk))
        return
    if can_fork():
        try:
            deid = deidentifier(settings)  # loaded here once: the forked workers share it
            if deid.rules.active:
                prepare_rules()  # built here once too, not in every worker
            deid.prepare(mode_of(settings.fmt))
        except Exception:
            pass  # each worker fails to load it too, and reports it per document
        tasks = [(settings, chunk, memories_of(chunk)) for chunk in chunks]
        with forked_workers(jobs) as pool:
            yield from pool.map(_process_chunk_task, tasks)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=jobs, return_as="generator")
    yield from parallel(delayed(process_chunk)(settings, chunk, None, memories_of(chunk)) for chunk in chunks)


def _process_chunk_task(task: tuple[Settings, Sequence[WorkItem], dict[str, GroupMemory]]) -> list[Outcome]:
    settings, chunk, memories = task
    return process_chunk(settings, chunk, None, memories)


def write_outcomes(
    outcomes: Sequence[Outcome], keys: KeyFile | None, mode: int | None = DEFAULT_OUTPUT_MODE
) -> list[DocStatus]:
    """Append the documents' key records to ``keys``, then write their outputs
    atomically (standard output for ``-``) with file ``mode``, where this runs: the
    main process of a local run, a worker of a distributed one. The files are written
    together (:func:`~deid_crf.io.files.atomic_write_texts`: each as safe as alone, on
    disk before its rename, but the disk's journal commits once for them all, not once
    per file). A document whose key record or an output cannot be written is failed."""
    problems: dict[int, OSError] = {}
    files: list[tuple[str, str]] = []
    owners: list[int] = []
    for k, outcome in enumerate(outcomes):
        if outcome.status == FAILED:
            continue
        try:
            if keys is not None and outcome.key is not None:
                keys.append(outcome.key)
            for path, content in outcome.files.items():
                if path == STDOUT:
                    sys.stdout.write(content)
                    sys.stdout.flush()
                else:
                    files.append((path, content))
                    owners.append(k)
        except OSError as exc:
            problems[k] = exc
    for k, error in zip(owners, atomic_write_texts(files, mode), strict=True):
        if error is not None:
            problems.setdefault(k, error)
    return [_written(outcome, problems.get(k)) for k, outcome in enumerate(outcomes)]


def _written(outcome: Outcome, exc: OSError | None) -> DocStatus:
    """The status of ``outcome`` once written (failed with ``exc``, an error writing it)."""
    status, reason = outcome.status, outcome.reason
    if exc is not None:
        status = FAILED
        reason = f"{shown(outcome.source)}: cannot write output ({exc.strerror or type(exc).__name__})"
        if exc.filename is not None:
            reason = (
                f"{shown(exc.filename)}: cannot write output for {shown(outcome.source)} "
                f"({exc.strerror or type(exc).__name__})"
            )
    return DocStatus(
        outcome.doc_id,
        outcome.source,
        status,
        reason,
        outcome.counts,
        outcome.n_chars,
        outcome.process,
        outcome.model_loads,
        outcome.survivors,
    )


def deidentify_partition(
    items: Iterable[WorkItem],
    settings: Settings,
    key_dir: str | None = None,
    shared_dirs: Sequence[str] = (),
) -> list[DocStatus]:
    """De-identify a partition of documents on a worker of a distributed run and write
    their outputs there, as the local backend would; return only their statuses.

    The per-partition function of the Dask backend, and what a PySpark
    ``rdd.mapPartitions(functools.partial(deidentify_partition, settings=...))``
    calls: ``settings`` names the model by its path (each worker process loads it
    once, :func:`cached_model`); with ``key_dir`` (:attr:`BatchRun.key_dir`), key
    records go to a new shard there before each document's outputs are written.
    ``shared_dirs`` are folders the starting process made, which the worker must see
    too (outputs and key folder on a shared filesystem). Never raises: a document
    that cannot be done is a failed status whose reason holds no text.
    """
    items = list(items)
    redact_paths(bytes.fromhex(settings.path_key) if settings.path_key else None)
    missing = [folder for folder in shared_dirs if not os.path.isdir(folder)]
    if missing:
        reason = (
            f"{shown(missing[0])} does not exist on worker {socket.gethostname()}: outputs and the key file "
            "must be on a filesystem that every worker shares"
        )
        return [_failed(item, reason) for item in items]
    statuses: list[DocStatus] = []
    keys: KeyFile | None = None
    try:
        for start in range(0, len(items), MAX_CHUNK):
            outcomes = process_chunk(settings, items[start : start + MAX_CHUNK])
            if keys is None and key_dir is not None and any(o.key is not None for o in outcomes):
                keys = KeyFile(Path(key_dir) / f"{uuid.uuid4().hex}.jsonl")
            statuses.extend(write_outcomes(outcomes, keys, settings.output_mode))
    except Exception as exc:  # e.g. the key shard cannot be created: the rest is not done
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        reason = f"internal error on worker {socket.gethostname()} ({detail})"
        statuses.extend(_failed(item, reason) for item in items[len(statuses) :])
    finally:
        if keys is not None:
            keys.close()
    return statuses


def _failed(item: WorkItem, reason: str) -> DocStatus:
    return DocStatus(item.doc_id, item.source, FAILED, f"{shown(item.source)}: not processed; {reason}")


class BatchRun:
    """What every backend does in the process that starts a run.

    ``with BatchRun(items, settings, output_dir=out, key_file=key) as batch_run:``
    checks the run's settings against those recorded in ``output_dir``
    (:class:`SettingsMismatch` before anything is done) and records them, moves key
    records left by a killed distributed run into the key file, removes temporary
    files left by a killed run and lists in :attr:`todo` the documents that are not
    done. The backend then de-identifies them, with :attr:`settings` (which carry the
    model's digest), and passes each :class:`DocStatus` to :meth:`record`, which
    counts and logs it. A local backend appends key records to :attr:`keys` here; the
    workers of a distributed one write theirs into :attr:`key_dir`. On exit the key
    file gets every record and is compacted, and :attr:`summary` is complete.
    """

    def __init__(
        self,
        items: Sequence[WorkItem],
        settings: Settings,
        *,
        overwrite: bool = False,
        key_file: str | os.PathLike | None = None,
        progress: bool = False,
        output_dir: Path | None = None,
        fingerprint: dict[str, Any] | None = None,
    ):
        if not settings.model_sha256 and any(STDOUT not in item.outputs for item in items):
            # What workers check their model against and the output directory records;
            # a run to standard output has neither (and reads the model once, not twice).
            settings = replace(settings, model_sha256=model_digest(settings.model_dir))
        self.items = items
        self.settings = settings
        self.overwrite = overwrite
        self.key_file = Path(key_file) if key_file is not None else None
        self.progress = progress
        self.output_dir = output_dir
        self.fingerprint = fingerprint
        self.summary = Summary()
        self.todo: list[WorkItem] = []
        self.keys: KeyFile | None = None
        # What the key file holds of each patient group, by tag (earlier batches).
        self.memories: dict[str, GroupMemory] = {}
        self._stack = ExitStack()
        self._bar: Any = None

    def __enter__(self) -> BatchRun:
        started = time.perf_counter()
        since_ns = 0
        self._stack.callback(redact_paths, redacting())
        redact_paths(bytes.fromhex(self.settings.path_key) if self.settings.path_key else None)
        if self.output_dir is not None:
            fingerprint = self.fingerprint if self.fingerprint is not None else run_fingerprint(self.settings)
            check_output_dir(self.output_dir, fingerprint, self.items, self.overwrite)
            since_ns = record_run(self.output_dir, fingerprint, self.items, self.overwrite, self.settings.output_mode)
        stack = self._stack
        stack.callback(self._stop_clock, started)
        try:
            if self.key_file is not None:
                self.keys = KeyFile(self.key_file)
                stack.callback(self._close_keys)
                self.keys.absorb_shards()
            key_ids = None
            if self.key_file is not None and mode_of(self.settings.fmt) != ANNOTATE:
                key_ids = KeyFile.doc_ids(self.key_file)
                if self.settings.group_by:
                    check = GroupSecret(bytes.fromhex(self.settings.secret)).check()
                    self.memories = group_memories(self.key_file, check)
            remove_stale_temporaries(self.items)
            self.todo = [item for item in self.items if self.overwrite or not is_done(item, since_ns, key_ids)]
            # A patient group is redone whole: its names are searched in all its documents.
            redo = {item.group for item in self.todo if item.group is not None}
            todo = {item.doc_id for item in self.todo}
            self.todo = [item for item in self.items if item.doc_id in todo or item.group in redo]
            skipped = self.summary.counts[SKIPPED] = len(self.items) - len(self.todo)
            if skipped:
                log.info(f"skipping {skipped} document(s) whose outputs are up to date (--overwrite to redo)")
            if self.progress:  # tqdm is imported only to draw a bar
                from tqdm.auto import tqdm
                from tqdm.contrib.logging import logging_redirect_tqdm

                self._bar = tqdm(total=len(self.todo), unit="doc", desc="de-identifying", file=sys.stderr)
                stack.callback(self._bar.close)
                stack.enter_context(logging_redirect_tqdm(loggers=[log]))
        except BaseException:
            stack.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()

    @property
    def key_dir(self) -> str | None:
        """The folder (mode 0700, beside the key file) where workers write key records."""
        if self.key_file is None:
            return None
        return str(KeyFile.make_shard_dir(self.key_file))

    def record(self, status: DocStatus) -> None:
        """Count and log what became of one document."""
        summary = self.summary
        if status.process:
            summary.model_loads[status.process] = max(status.model_loads, summary.model_loads.get(status.process, 0))
        if status.status == FAILED:
            summary.counts[FAILED] += 1
            summary.problems.append(status.reason)
            log.error(status.reason)
        else:
            summary.counts[status.status] += 1
            if status.status == EMPTY:
                log.warning(f"{shown(status.source)}: empty input; empty output written")
            found = ", ".join(f"{t} {n}" for t, n in sorted(status.counts.items())) or "none"
            spans = sum(status.counts.values())
            log.debug(f"{shown(status.doc_id)}: {status.n_chars} characters, {spans} span(s): {found}")
            if status.survivors:
                summary.survivors += len(status.survivors)
                summary.survivor_documents += 1
                log.warning(survivor_message(shown(status.doc_id), status.survivors, self.settings.strict))
        if self._bar is not None:
            self._bar.update(1)

    def _close_keys(self) -> None:
        assert self.keys is not None
        self.keys.absorb_shards()
        self.keys.close()
        self.keys.compact()

    def _stop_clock(self, started: float) -> None:
        self.summary.seconds = time.perf_counter() - started


def run(
    items: Sequence[WorkItem],
    settings: Settings,
    jobs: int | None = -1,
    overwrite: bool = False,
    key_file: str | os.PathLike | None = None,
    progress: bool = False,
    stdin_data: bytes | None = None,
    output_dir: Path | None = None,
    fingerprint: dict[str, Any] | None = None,
) -> Summary:
    """Process ``items`` with joblib workers on this machine; writes outputs and key
    records as documents are done and returns the counts (``ok``, ``failed``,
    ``empty``, ``skipped``).

    With ``output_dir`` (where the items' outputs go), the run's settings
    (``fingerprint``, by default :func:`run_fingerprint` of ``settings``) are checked
    against those recorded there (:class:`SettingsMismatch` before anything is done)
    and recorded."""
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
        jobs = min(effective_jobs(jobs), max(1, len(batch_run.todo)))
        for outcomes in _results(batch_run.settings, batch_run.todo, jobs, stdin_data, batch_run.memories):
            for status in write_outcomes(outcomes, batch_run.keys, batch_run.settings.output_mode):
                batch_run.record(status)
    return batch_run.summary
