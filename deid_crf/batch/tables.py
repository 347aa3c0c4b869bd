"""Table mode: de-identify the text column of a table (CSV, TSV, JSON lines, Parquet)
into a table of the same format, every other column passed through.

    python -m deid_crf.tag notes.csv -o deid.csv --format surrogate --text-column nota \\
        --id-column episodio --group-column nhc --key-file secret/key.jsonl

* Rows are read by :mod:`deid_crf.io.tables`; each row is a document whose id is its
  ``--id-column`` cell (a string or an integer, unique) or, without one, its row
  number (from 1). With ``--group-column`` (``--group-by field:NAME``) the rows of a
  patient are de-identified together, as the batch engine does a patient's files.
* ``--format masked`` or ``surrogate`` replaces the text column's cells by the
  output text; the annotation formats (``json``, or the default ``brat``) keep it
  and add a column (``--spans-column``, default ``entities``) holding each row's
  spans as JSON, those of ``--format json``.
* Rows are de-identified in chunks (:data:`CHUNK_ROWS`, a patient group whole); each
  chunk's results are written atomically to a part file in ``.NAME.parts/`` beside
  the output (mode 0700), after its key records, if any, are appended to the key
  file. The run's settings and the input's digest are recorded in
  ``.NAME.deid-crf-run.json``. A run killed at any moment resumes from the parts
  (rows already done are not redone, none is done twice); when every row is done
  the table is written atomically, and the parts are removed if no row failed
  (else a re-run retries the failed ones). A run with other settings is refused
  (:class:`~deid_crf.batch.engine.SettingsMismatch`) unless ``--overwrite``; a changed
  input is redone whole.
* Every row of the input is a row of the output, in the same order. A row whose text
  is null or missing passes through as it is (``empty``); an empty string gives an
  empty string; a text that is not a string, or is over ``--max-bytes``, or that
  cannot be de-identified is ``failed``: its text cell (annotation formats: its spans
  cell) is emptied (null; "" in CSV) and the row logged with its number and id.

Nothing logged or raised here holds a cell's content: only the file, row numbers, ids,
column names, offsets, types and counts.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from deid_crf.batch.engine import (
    EMPTY,
    FAILED,
    OK,
    SKIPPED,
    Settings,
    SettingsMismatch,
    Summary,
    deidentifier,
    deidentify_texts,
    model_digest,
    run_fingerprint,
    survivor_message,
)
from deid_crf.batch.formats import json_entities, mode_of
from deid_crf.batch.groups import Document, group_key_function
from deid_crf.batch.keys import KeyFile, group_memories
from deid_crf.deid.deidentifier import ANNOTATE
from deid_crf.deid.groups import GroupMemory, GroupSecret
from deid_crf.io.files import atomic_write_text, make_dirs
from deid_crf.io.names import escape, shown
from deid_crf.io.tables import (
    DEFAULT_SPANS_COLUMN,
    DEFAULT_TEXT_COLUMN,
    ParquetTable,
    Table,
    TableError,
    column_problem,
    read_table,
)
from deid_crf.parallel import effective_jobs

log = logging.getLogger("deid_crf")

# Rows a worker de-identifies at a time, and what a kill loses at most: small enough to
# lose little, large enough that the part files stay few (157 for 10,000 rows).
CHUNK_ROWS = 64


@dataclass(frozen=True)
class TableOptions:
    """Where the text, ids and (annotation formats) spans are in the table."""

    fmt: str
    text_column: str = DEFAULT_TEXT_COLUMN
    id_column: str | None = None
    spans_column: str = DEFAULT_SPANS_COLUMN


@dataclass(frozen=True)
class Row:
    """A row to de-identify: its index (from 0), document id, text and group tag."""

    index: int
    doc_id: str
    text: str = field(repr=False)
    group: str | None = None


@dataclass
class RowOutcome:
    """What became of one row: the new text cell (text formats) and spans cell
    (annotation formats), and for the log and key file, never stored in the parts,
    its key record, span counts and leak-audit survivors."""

    index: int
    status: str
    text: str | None = field(default=None, repr=False)
    entities: str | None = field(default=None, repr=False)
    reason: str = ""
    key: dict[str, Any] | None = field(default=None, repr=False)
    counts: dict[str, int] = field(default_factory=dict)
    survivors: list[tuple[int, int, str]] = field(default_factory=list)

    def part(self) -> dict[str, Any]:
        return {"row": self.index, "status": self.status, "text": self.text, "entities": self.entities}


def work_dir(output: Path) -> Path:
    """The folder of part files of the run writing ``output``."""
    return output.parent / f".{output.name}.parts"


def run_record(output: Path) -> Path:
    """The file that records the settings of the run writing ``output``."""
    return output.parent / f".{output.name}.deid-crf-run.json"


# ----------------------------------------------------------------------------- planning


class TablePlan:
    """The table and what each of its rows needs: :attr:`todo` the rows to
    de-identify, :attr:`settled` the outcomes decided without a model (null text,
    a cell that is not a string or is too long)."""

    def __init__(self, source: str, settings: Settings, options: TableOptions):
        self.source = source
        self.table: Table = read_table(source, options.fmt, settings.encoding, settings.max_bytes)
        self.options = options
        self._check_columns(settings)
        self.ids = self._ids()
        self.todo: list[Row] = []
        self.settled: dict[int, RowOutcome] = {}
        key_of = group_key_function(settings.group_by) if settings.group_by else None
        secret = GroupSecret(bytes.fromhex(settings.secret)) if settings.group_by else None
        for i in range(len(self.table)):
            text = self.table.cell(i, options.text_column)
            if text is None:
                self.settled[i] = RowOutcome(i, EMPTY, reason="null text")
            elif not isinstance(text, str):
                self.settled[i] = RowOutcome(i, FAILED, reason=f"the text cell is {_kind(text)}, not a string")
            elif len(text.encode("utf-8", "surrogatepass")) > settings.max_bytes:
                self.settled[i] = RowOutcome(
                    i, FAILED, reason=f"text over the limit of {settings.max_bytes} bytes (--max-bytes)"
                )
            else:
                tag = None
                if key_of is not None and secret is not None:
                    key = key_of(Document(text, self.table.fields(i)))
                    tag = secret.tag(key) if key is not None else None
                self.todo.append(Row(i, self.ids[i], text, tag))

    def where(self, index: int) -> str:
        """How messages name a row: the file, its number from 1 and, with --id-column, its id."""
        given = f" (id {escape(self.ids[index])})" if self.options.id_column is not None else ""
        return f"{shown(self.source)}: row {index + 1}{given}"

    def _check_columns(self, settings: Settings) -> None:
        options, table = self.options, self.table
        wanted = [(options.text_column, "--text-column")]
        if options.id_column is not None:
            wanted.append((options.id_column, "--id-column"))
        if settings.group_by.startswith("field:"):
            wanted.append((settings.group_by.removeprefix("field:"), "--group-column"))
        for column, option in wanted:
            problem = column_problem(table, column, option)
            if problem is not None:
                raise TableError(problem)
        if mode_of(settings.fmt) == ANNOTATE and options.spans_column in table.columns:
            raise TableError(
                f"{shown(self.source)}: already has a column '{escape(options.spans_column)}'; "
                "choose another --spans-column for the spans"
            )
        if isinstance(table, ParquetTable):
            kind = str(table.column_type(options.text_column))
            if kind not in ("string", "large_string", "string_view"):
                raise TableError(
                    f"{shown(self.source)}: the text column '{escape(options.text_column)}' holds {kind}, not strings"
                )

    def _ids(self) -> list[str]:
        column = self.options.id_column
        if column is None:
            return [str(i + 1) for i in range(len(self.table))]
        ids, first = [], {}
        for i in range(len(self.table)):
            value = self.table.cell(i, column)
            if isinstance(value, bool) or not isinstance(value, str | int) or str(value) == "":
                raise TableError(
                    f"{shown(self.source)}: row {i + 1}: the id (--id-column '{escape(column)}') is "
                    f"{_kind(value)}, not a non-empty string or an integer"
                )
            doc_id = str(value)
            if doc_id in first:
                raise TableError(
                    f"{shown(self.source)}: rows {first[doc_id] + 1} and {i + 1} have the same id "
                    f"(--id-column '{escape(column)}'); ids name rows in the key file and must differ"
                )
            first[doc_id] = i
            ids.append(doc_id)
        return ids


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return "an empty string" if value == "" else "a string"
    names = {dict: "an object", list: "an array", bool: "a boolean"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else type(value).__name__)


def chunks(rows: Sequence[Row], size: int = CHUNK_ROWS) -> list[list[Row]]:
    """``rows`` in chunks of at most ``size`` (a patient group whole, in the order of
    its ids, even if larger), in the order of their first rows."""
    units: dict[object, list[Row]] = {}
    for row in rows:
        units.setdefault(row.group if row.group is not None else ("row", row.index), []).append(row)
    out: list[list[Row]] = []
    for unit in units.values():
        unit.sort(key=lambda row: row.doc_id if row.group is not None else "")
        if not out or len(out[-1]) + len(unit) > size:
            out.append([])
        out[-1].extend(unit)
    return [chunk for chunk in out if chunk]


# ----------------------------------------------------------------------------- workers


def process_rows(
    settings: Settings, rows: Sequence[Row], memories: dict[str, GroupMemory] | None = None
) -> list[RowOutcome]:
    """De-identify a chunk of rows (in a worker); never raises for a row."""
    try:
        deid = deidentifier(settings)
    except Exception as exc:  # reported per row, without its message
        return [RowOutcome(r.index, FAILED, reason=f"cannot load model ({type(exc).__name__})") for r in rows]
    texts = {n: row.text for n, row in enumerate(rows)}
    results = deidentify_texts(deid, settings, texts, [r.doc_id for r in rows], [r.group for r in rows], memories)
    annotate = mode_of(settings.fmt) == ANNOTATE
    outcomes = []
    for n, row in enumerate(rows):
        result = results[n]
        if isinstance(result, str):
            outcomes.append(RowOutcome(row.index, FAILED, reason=result))
            continue
        status = OK if row.text else EMPTY
        counts = dict(Counter(s.type for s in result.spans))
        survivors = [(s.start, s.end, s.type) for s in result.survivors]
        if annotate:
            entities = json.dumps(json_entities(result), ensure_ascii=False)
            outcomes.append(RowOutcome(row.index, status, None, entities, counts=counts))
        else:
            outcomes.append(
                RowOutcome(row.index, status, result.text, None, "", result.key_record(), counts, survivors)
            )
    return outcomes


# ----------------------------------------------------------------------------- the run


class TableRun:
    """One table de-identified into ``output`` (see the module's documentation)."""

    def __init__(
        self,
        source: str,
        output: Path,
        settings: Settings,
        options: TableOptions,
        *,
        seeded: bool = True,
        overwrite: bool = False,
        key_file: str | os.PathLike | None = None,
        progress: bool = False,
    ):
        if not settings.model_sha256:
            settings = replace(settings, model_sha256=model_digest(settings.model_dir))
        self.source, self.output, self.settings, self.options = source, output, settings, options
        self.seeded, self.overwrite, self.progress = seeded, overwrite, progress
        self.key_file = Path(key_file) if key_file is not None else None
        self.parts = work_dir(output)
        self.summary = Summary()

    def fingerprint(self) -> dict[str, Any]:
        options = self.options
        table = {
            "format": options.fmt,
            "text_column": options.text_column,
            "id_column": options.id_column,
            "spans_column": options.spans_column if mode_of(self.settings.fmt) == ANNOTATE else None,
        }
        return run_fingerprint(self.settings, seeded=self.seeded) | {"table": table}

    def run(self, jobs: int | None = 1) -> Summary:
        started = time.perf_counter()
        if self.parts.is_symlink() or (self.parts.exists() and not self.parts.is_dir()):
            raise TableError(f"{shown(self.parts)}: the work folder is a link or not a folder; remove it and run again")
        plan = TablePlan(self.source, self.settings, self.options)  # TableError: nothing is done
        digest = _file_digest(self.source)
        fresh = self._check_record(digest)
        done = {} if fresh else self._read_parts()
        with ExitStack() as stack:
            keys = None
            memories: dict[str, GroupMemory] = {}
            if self.key_file is not None and mode_of(self.settings.fmt) != ANNOTATE:
                keys = KeyFile(self.key_file)
                stack.callback(_close_keys, keys)
                key_ids = KeyFile.doc_ids(self.key_file)
                done = {i: o for i, o in done.items() if o["status"] == FAILED or plan.ids[i] in key_ids}
                if self.settings.group_by:
                    check = GroupSecret(bytes.fromhex(self.settings.secret)).check()
                    memories = group_memories(self.key_file, check)
            if not fresh and not self.parts.exists() and self.output.exists() and self._complete(plan, keys):
                self.summary.counts[SKIPPED] = len(plan.todo)
                log.info(f"{shown(self.output)} is up to date (--overwrite to redo it)")
                for outcome in plan.settled.values():  # failed again: the exit status says so again
                    self._record(plan, outcome)
                return self._finish(started)
            todo = [row for row in plan.todo if done.get(row.index, {}).get("status") in (None, FAILED)]
            # A patient group is redone whole: its names are searched in all its rows.
            redo = {row.group for row in todo if row.group is not None}
            chosen = {row.index for row in todo}
            todo = [row for row in plan.todo if row.index in chosen or row.group in redo]
            skipped = len(plan.todo) - len(todo)
            self.summary.counts[SKIPPED] = skipped
            if skipped:
                log.info(f"{shown(self.source)}: resuming: {skipped} row(s) already done")
            bar = self._bar(stack, len(todo))
            sequence = max((int(p.stem) for p in self._part_files()), default=0)
            make_dirs(self.parts, 0o700)
            for outcomes in self._outcomes(todo, jobs, memories):
                if keys is not None:  # on disk before the part that says the rows are done
                    keys.extend([o.key for o in outcomes if o.key is not None])
                sequence += 1
                atomic_write_text(
                    self.parts / f"{sequence:08d}.json",
                    json.dumps({"rows": [o.part() for o in outcomes]}, ensure_ascii=False) + "\n",
                    0o600,
                )
                for outcome in outcomes:
                    done[outcome.index] = outcome.part()
                    self._record(plan, outcome)
                if bar is not None:
                    bar.update(len(outcomes))
        for outcome in plan.settled.values():
            self._record(plan, outcome)
        self._write(plan, done)
        if not any(o["status"] == FAILED for o in done.values()):
            shutil.rmtree(self.parts, ignore_errors=True)
        return self._finish(started)

    def _check_record(self, digest: str) -> bool:
        """Check the recorded settings (:class:`SettingsMismatch`) and record this run's;
        True when the run starts afresh (no part of an earlier run can be used)."""
        record_path, fingerprint = run_record(self.output), self.fingerprint()
        advice = "pass --overwrite to redo it with these settings, or choose another output"
        try:
            recorded = json.loads(record_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            recorded = None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            recorded = {}
        if not self.overwrite:
            if recorded is None:
                if self.output.exists() or self.parts.exists():
                    raise SettingsMismatch(f"{shown(self.output)} exists and its settings are unknown; {advice}")
            elif not isinstance(recorded, dict) or not isinstance(recorded.get("settings"), dict):
                raise SettingsMismatch(f"{shown(record_path)} cannot be read; {advice}")
            elif recorded["settings"] != fingerprint:
                theirs = recorded["settings"]
                differ = sorted(k for k in theirs.keys() | fingerprint.keys() if theirs.get(k) != fingerprint.get(k))
                raise SettingsMismatch(
                    f"{shown(self.output)} was written by a run with other settings ({', '.join(differ)}); {advice}"
                )
        fresh = self.overwrite or not isinstance(recorded, dict) or recorded.get("input_sha256") != digest
        if fresh and recorded is not None and not self.overwrite:
            log.info(f"{shown(self.source)} changed since {shown(self.output)} was written: redoing every row")
        if fresh:
            shutil.rmtree(self.parts, ignore_errors=True)
        atomic_write_text(
            record_path, json.dumps({"settings": fingerprint, "input_sha256": digest}, indent=2) + "\n", 0o600
        )
        return fresh

    def _part_files(self) -> list[Path]:
        if not self.parts.is_dir():
            return []
        return sorted(p for p in self.parts.glob("*.json") if p.stem.isdigit())

    def _read_parts(self) -> dict[int, dict[str, Any]]:
        """Each row's latest result in the part files (a later part redid it); temporary
        files a kill left are removed, a part that cannot be read is ignored (redone)."""
        for stale in self.parts.glob(".*.tmp") if self.parts.is_dir() else []:
            stale.unlink(missing_ok=True)
        done: dict[int, dict[str, Any]] = {}
        for part in self._part_files():
            try:
                rows = json.loads(part.read_text(encoding="utf-8"))["rows"]
                done.update({int(r["row"]): r for r in rows})
            except (OSError, ValueError, KeyError, TypeError):
                log.warning(f"{shown(part)}: unreadable part file; its rows are redone")
        return done

    def _complete(self, plan: TablePlan, keys: KeyFile | None) -> bool:
        """An output written by this run's settings from this input is complete unless
        the key file lacks a row's record."""
        if keys is None:
            return True
        key_ids = KeyFile.doc_ids(keys.path)
        return all(row.doc_id in key_ids for row in plan.todo)

    def _outcomes(
        self, todo: list[Row], jobs: int | None, memories: dict[str, GroupMemory]
    ) -> Iterator[list[RowOutcome]]:
        work = chunks(todo)
        jobs = min(effective_jobs(jobs), max(1, len(work)))

        def memories_of(chunk: list[Row]) -> dict[str, GroupMemory]:
            return {row.group: memories[row.group] for row in chunk if row.group in memories}

        if jobs == 1:
            for chunk in work:
                yield process_rows(self.settings, chunk, memories_of(chunk))
            return
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=jobs, return_as="generator")
        yield from parallel(delayed(process_rows)(self.settings, chunk, memories_of(chunk)) for chunk in work)

    def _bar(self, stack: ExitStack, total: int) -> Any:
        if not self.progress:
            return None
        from tqdm.auto import tqdm
        from tqdm.contrib.logging import logging_redirect_tqdm

        bar = tqdm(total=total, unit="row", desc="de-identifying", file=sys.stderr)
        stack.callback(bar.close)
        stack.enter_context(logging_redirect_tqdm(loggers=[log]))
        return bar

    def _record(self, plan: TablePlan, outcome: RowOutcome) -> None:
        """Count and log what became of one row."""
        summary = self.summary
        summary.counts[outcome.status] += 1
        where = plan.where(outcome.index)
        if outcome.status == FAILED:
            cell = "spans cell" if mode_of(self.settings.fmt) == ANNOTATE else "text cell"
            reason = f"{where}: {outcome.reason}; its {cell} is left empty"
            summary.problems.append(reason)
            log.error(reason)
            return
        found = ", ".join(f"{t} {n}" for t, n in sorted(outcome.counts.items())) or "none"
        log.debug(f"{where}: {sum(outcome.counts.values())} span(s): {found}")
        if outcome.survivors:
            summary.survivors += len(outcome.survivors)
            summary.survivor_documents += 1
            log.warning(survivor_message(where, outcome.survivors, self.settings.strict))

    def _write(self, plan: TablePlan, done: dict[int, dict[str, Any]]) -> None:
        """The output table: every row, in order, from the parts and the settled rows."""
        table, column = plan.table, self.options.text_column
        annotate = mode_of(self.settings.fmt) == ANNOTATE
        texts: list[Any] = []
        spans: list[str | None] = []
        for i in range(len(table)):
            result = done.get(i)
            ok = result is not None and result["status"] != FAILED
            if annotate:  # the text stays: annotations go with the original
                texts.append(table.cell(i, column))
                spans.append(result["entities"] if ok else None)
            else:
                texts.append(result["text"] if ok else None)
        added = (self.options.spans_column, spans) if annotate else None
        table.write(self.output, column, texts, added, self.settings.output_mode)

    def _finish(self, started: float) -> Summary:
        self.summary.seconds = time.perf_counter() - started
        return self.summary


def _close_keys(keys: KeyFile) -> None:
    keys.close()
    keys.compact()


def _file_digest(path: str) -> str:
    """SHA-256 of the input's bytes (a changed input is redone whole)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise TableError(f"{shown(path)}: cannot read file ({exc.strerror or type(exc).__name__})") from None
    return digest.hexdigest()
