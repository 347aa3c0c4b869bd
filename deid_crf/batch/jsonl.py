"""Streaming de-identification: JSON lines in, JSON lines out, the model loaded once.

    python -m deid_crf.tag --jsonl -                          # stdin → stdout
    python -m deid_crf.tag --jsonl notes.jsonl --format masked

Each input line is a JSON object ``{"id": "n1", "text": "…"}``: ``id`` a string or an
integer, ``text`` a string; other keys are ignored and blank lines skipped. Input is
UTF-8 (``--encoding`` does not apply); a line over ``--max-bytes`` is refused.

Each other line gives one output line, in input order, written and flushed as soon as
its note is tagged (with the notes tagged together with it), so a pipeline can send a
note and wait for its answer:

* annotation (``--format json``, or the default ``brat``): ``{"id", "entities": [{type,
  start, end, text, confidence, source}]}``, the entities of ``--format json``;
* ``--format masked`` or ``surrogate``: ``{"id", "text", "entities": [{type, start, end,
  output_start, output_end, confidence, source}]}``: the output text, and each span's
  offsets in the input text and in the output text; the original strings are not
  repeated;
* a line that cannot be used: ``{"id", "line", "error"}``: the id when it could be read
  (else null), the line number (from 1) and the reason, which never quotes the text.

The notes already received are tagged together (as many as one read returns), so a
stream sent in bulk is tagged in batches while a note sent alone is answered at once.
With ``--group-by`` (``field:NAME`` of the line, or a regular expression over the
text) the whole input is read first: a patient's notes are de-identified together
(:mod:`deid_crf.deid.groups`), and the answers still come in input order.
With ``--key-file`` (masked or surrogate), each note's key record (its id as the
document id) is appended to the key file, and flushed to disk, before its output line is
written (those of the notes tagged together with one ``fsync``); the key file is
compacted (one record per id: ids must differ) when the input ends. With ``--group-by``
too, the patient groups recorded there by earlier batches are continued, as in batch mode.
The exit status is 0 when every line was processed, 1 when some line gave an error.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import IO, Any

from deid_crf.batch.engine import STDIN, Settings, deidentifier
from deid_crf.batch.formats import json_entities, mode_of
from deid_crf.batch.groups import Document, group_key_function
from deid_crf.batch.keys import KeyFile, group_memories
from deid_crf.batch.pool import can_fork, forked_workers
from deid_crf.deid.deidentifier import ANNOTATE, Deidentifier, Result
from deid_crf.deid.groups import GroupMemory, GroupSecret
from deid_crf.deid.rules import prepare as prepare_rules
from deid_crf.io.names import shown
from deid_crf.parallel import effective_jobs

log = logging.getLogger("deid_crf")

READ_SIZE = 1 << 18
# Fewer notes than this per worker are tagged here: a worker's share must outweigh
# sending it (a note sent alone is answered by this process at once).
MIN_SHARED = 8


@dataclass(frozen=True)
class Request:
    """A usable input line."""

    line: int
    id: str | int
    text: str = field(repr=False)
    fields: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class LineError:
    """An input line that cannot be used, and why (never quoting it)."""

    line: int
    reason: str
    id: str | int | None = None

    def record(self) -> dict[str, Any]:
        return {"id": self.id, "line": self.line, "error": self.reason}


@dataclass(frozen=True)
class Answer:
    """What a de-identified note gives: its output line, and its key record when a key
    file is kept (plain JSON either way, so a worker sends little back)."""

    record: dict[str, Any] = field(repr=False)
    key_record: dict[str, Any] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, request: Request, result: Result, with_keys: bool) -> Answer:
        return cls(output_record(request, result), result.key_record() if with_keys else None)


def read_lines(stream: IO[bytes], max_bytes: int) -> Iterator[list[tuple[int, bytes | None]]]:
    """Batches of ``(line number, bytes)`` of the complete lines received so far, one
    batch per read (``read1``: it returns what has arrived without waiting for more);
    ``None`` for a line over ``max_bytes``, which is not kept in memory."""
    number, pending, oversized = 0, b"", False
    while True:
        chunk = stream.read1(READ_SIZE)
        if not chunk:
            break
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        batch: list[tuple[int, bytes | None]] = []
        for line in lines:
            number += 1
            batch.append((number, None if oversized or len(line) > max_bytes else line))
            oversized = False
        if len(pending) > max_bytes:  # drop it now; its end is still to come
            pending, oversized = b"", True
        if batch:
            yield batch
    if pending or oversized:
        yield [(number + 1, None if oversized else pending)]


def parse_line(number: int, data: bytes | None) -> Request | LineError | None:
    """The request of an input line, the reason it cannot be used, or None (blank)."""
    if data is None:
        return LineError(number, "line over --max-bytes")
    try:
        line = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return LineError(number, f"not valid UTF-8 at byte {exc.start}")
    if number == 1:
        line = line.removeprefix("\ufeff")
    if not line.strip():
        return None
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:  # its message names a position, not the text
        return LineError(number, f"not valid JSON ({exc.msg}: column {exc.colno})")
    except RecursionError:
        return LineError(number, "not valid JSON (nested too deeply)")
    if not isinstance(request, dict):
        return LineError(number, f"not a JSON object ({_kind(request)})")
    doc_id = request.get("id")
    if isinstance(doc_id, bool) or not isinstance(doc_id, str | int):
        reason = 'no "id"' if "id" not in request else f'"id" is {_kind(doc_id)}, not a string or an integer'
        return LineError(number, reason)
    text = request.get("text")
    if not isinstance(text, str):
        reason = 'no "text"' if "text" not in request else f'"text" is {_kind(text)}, not a string'
        return LineError(number, reason, doc_id)
    return Request(number, doc_id, text, request)


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def output_record(request: Request, result: Result) -> dict[str, Any]:
    """The output line of a de-identified note (see the module documentation)."""
    if result.mode == ANNOTATE:
        return {"id": request.id, "entities": json_entities(result)}
    entities = [
        {
            "type": s.type,
            "start": s.start,
            "end": s.end,
            "output_start": a,
            "output_end": b,
            "confidence": s.confidence,
            "source": s.source,
        }
        for s, (a, b, _) in zip(result.spans, result.output_spans(), strict=True)
    ]
    return {"id": request.id, "text": result.text, "entities": entities}


def run_jsonl(
    source: str,
    settings: Settings,
    output: IO[bytes] | None = None,
    key_file: str | os.PathLike | None = None,
    jobs: int | None = 1,
) -> int:
    """De-identify the JSON lines of ``source`` (a path, or ``-`` for standard input)
    into ``output`` (default: standard output), appending key records to ``key_file``
    (masked and surrogate formats); 0 if every line was processed, 1 if some line gave
    an error or ``source`` cannot be read. With ``jobs`` > 1 (all cores for -1) and
    where workers can be forked (:mod:`deid_crf.batch.pool`), the notes of a read are
    split between that many workers that share this process's model."""
    output = output if output is not None else sys.stdout.buffer
    deid = deidentifier(settings)  # loaded once, for every line
    mode = mode_of(settings.fmt)
    counts = {"ok": 0, "failed": 0}
    jobs = effective_jobs(jobs)
    with ExitStack() as stack:
        keys, memories = None, {}
        if key_file is not None and mode != ANNOTATE:
            keys = KeyFile(key_file)  # KeyFileError (exit status 2) before any line is read
            stack.callback(_close_keys, keys)
            if settings.group_by:
                memories = group_memories(key_file, GroupSecret(bytes.fromhex(settings.secret)).check())
        with_keys = keys is not None
        pool = None
        if jobs > 1 and not settings.group_by and can_fork():
            if deid.rules.active:
                prepare_rules()  # built once here, not in every worker
            pool = stack.enter_context(forked_workers(jobs))
        if source == STDIN:
            stream = sys.stdin.buffer
        else:
            try:
                stream = stack.enter_context(open(source, "rb"))
            except OSError as exc:
                log.error(f"{shown(source)}: cannot read file ({exc.strerror or type(exc).__name__})")
                return 1
        batches = read_lines(stream, settings.max_bytes)
        if settings.group_by:  # a group's notes may come anywhere in the input: read it all
            batches = iter([[line for batch in batches for line in batch]])
        for batch in batches:
            parsed = [parse_line(number, data) for number, data in batch]
            requests = [p for p in parsed if isinstance(p, Request)]
            if settings.group_by:
                results = _deidentify_groups(deid, requests, mode, settings, memories, with_keys)
            elif pool is not None and len(requests) >= MIN_SHARED * jobs:
                size = -(-len(requests) // jobs)  # one contiguous share per worker; other keys stay here
                shares = [
                    [Request(r.line, r.id, r.text) for r in requests[i : i + size]]
                    for i in range(0, len(requests), size)
                ]
                parts = [(settings, share, mode, with_keys) for share in shares]
                results = {}
                for done in pool.map(_deidentify_in_worker, parts):
                    results |= done
            else:
                results = _deidentify(deid, requests, mode, with_keys)
            lines, key_records = [], []
            for item in parsed:
                if item is None:
                    continue
                answer = results[item.line] if isinstance(item, Request) else item
                if isinstance(answer, LineError):
                    counts["failed"] += 1
                    log.warning(f"line {answer.line}: {answer.reason}")
                    record = answer.record()
                else:
                    counts["ok"] += 1
                    record = answer.record
                    if answer.key_record is not None:
                        key_records.append(answer.key_record)
                lines.append(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
            # The answers of the notes tagged together go out together (one write, one
            # flush), their key records on disk first (one fsync).
            if keys is not None and key_records:
                keys.extend(key_records)
            output.write(b"".join(lines))
            output.flush()
    log.debug(f"jsonl: {counts['ok']} note(s) de-identified, {counts['failed']} line(s) failed")
    return 1 if counts["failed"] else 0


def _close_keys(keys: KeyFile) -> None:
    keys.close()
    keys.compact()


def _deidentify_groups(
    deid: Deidentifier,
    requests: list[Request],
    mode: str,
    settings: Settings,
    memories: dict[str, GroupMemory] | None = None,
    with_keys: bool = False,
) -> dict[int, Answer | LineError]:
    """:func:`_deidentify` with patient groups: the notes of a group together, the others as usual."""
    key_of = group_key_function(settings.group_by)
    secret = GroupSecret(bytes.fromhex(settings.secret))
    groups: dict[str, list[Request]] = {}
    alone = []
    for r in requests:
        key = key_of(Document(r.text, r.fields))
        if key is None:
            alone.append(r)
        else:
            groups.setdefault(secret.tag(key), []).append(r)
    out = _deidentify(deid, alone, mode, with_keys)
    for tag, members in groups.items():
        try:
            ids = [str(r.id) for r in members]
            results = deid.deidentify_group([r.text for r in members], mode, ids, tag, (memories or {}).get(tag))
            out |= {r.line: Answer.of(r, result, with_keys) for r, result in zip(members, results, strict=True)}
        except Exception as exc:
            reason = f"internal error ({type(exc).__name__}) while de-identifying its patient group"
            out |= {r.line: LineError(r.line, reason, r.id) for r in members}
    return out


def _deidentify_in_worker(task: tuple[Settings, list[Request], str, bool]) -> dict[int, Answer | LineError]:
    """:func:`_deidentify` in a forked worker, with the de-identifier it inherited."""
    settings, requests, mode, with_keys = task
    return _deidentify(deidentifier(settings), requests, mode, with_keys)


def _deidentify(
    deid: Deidentifier, requests: list[Request], mode: str, with_keys: bool = False
) -> dict[int, Answer | LineError]:
    """Line number → answer (or error) of each request, tagged together."""
    if not requests:
        return {}
    try:
        results = deid.deidentify_many([r.text for r in requests], mode, [str(r.id) for r in requests])
        return {r.line: Answer.of(r, result, with_keys) for r, result in zip(requests, results, strict=True)}
    except Exception:
        out: dict[int, Answer | LineError] = {}
        for r in requests:  # find the culprit(s): one note at a time
            try:
                out[r.line] = Answer.of(r, deid.deidentify(r.text, mode, str(r.id)), with_keys)
            except Exception as exc:
                out[r.line] = LineError(r.line, f"internal error ({type(exc).__name__}) while de-identifying", r.id)
        return out
