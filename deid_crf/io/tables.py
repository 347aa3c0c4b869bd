"""Tables of notes: CSV, TSV, JSON lines and Parquet files read and written again with
one column's cells replaced (and maybe one column added), every other cell as it was.

* **CSV / TSV** (``csv`` module, ``,`` or a tab, ``"`` quotes, ``strict``): every cell
  is read as a string, never converted. Each record is written back in the quoting
  style it was read in (minimal, or every field quoted) with its own line ending, so
  a record left unchanged is the same bytes, and a changed one differs only in its
  replaced cell; a record quoted in another style keeps its values, with minimal
  quoting. A byte-order mark, blank lines and a missing final line break are kept.
* **JSON lines**: one object per line; a line left unchanged is the same bytes, a
  changed one is written with the separators and ``ensure_ascii`` it was read with
  when they reproduce it (values and key order are always kept; a float whose text
  Python would write otherwise, ``1.50``, is written as Python does, ``1.5``).
* **Parquet** (pyarrow, the ``[parquet]`` extra): the other columns are the same Arrow
  arrays, types and schema metadata included; row groups and compression are
  pyarrow's defaults.

Errors (:class:`TableError`) name the file, the line or row and the column, never a
cell's content.
"""

from __future__ import annotations

import csv
import io
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deid_crf.io.files import CorpusError, atomic_path, atomic_write_bytes, decode_text, file_problem, read_bytes
from deid_crf.io.names import escape, shown

CSV, TSV, JSONL, PARQUET = "csv", "tsv", "jsonl", "parquet"
TABLE_FORMATS = (CSV, TSV, JSONL, PARQUET)
# The columns a table run reads its notes from and, for brat/json, writes its spans to.
DEFAULT_TEXT_COLUMN = "text"
DEFAULT_SPANS_COLUMN = "entities"
EXTENSIONS = {".csv": CSV, ".tsv": TSV, ".jsonl": JSONL, ".ndjson": JSONL, ".parquet": PARQUET}
DELIMITERS = {CSV: ",", TSV: "\t"}
# A table is held in memory whole; a file over this is refused before it is read.
MAX_TABLE_BYTES = 4 * 1024**3


class TableError(CorpusError):
    """A table that cannot be used; the message names the file and where, never a cell."""


def format_of(path: str | os.PathLike) -> str | None:
    """The table format of ``path``'s extension (``.csv``, ``.tsv``, ``.jsonl``,
    ``.ndjson``, ``.parquet``), or None."""
    return EXTENSIONS.get(Path(path).suffix.lower())


class Table(ABC):
    """A table read from ``path``: column names and, for each row, its cells by
    column (:meth:`cell`). Subclasses know their format's rows and how to write them."""

    def __init__(self, path: str, columns: list[str]):
        self.path, self.columns = path, columns

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def cell(self, row: int, column: str) -> Any:
        """The value of ``column`` in ``row`` (from 0); None where it has none."""

    def fields(self, row: int) -> dict[str, Any]:
        """Every cell of ``row`` by column name."""
        return {column: self.cell(row, column) for column in self.columns}

    @abstractmethod
    def write(
        self,
        path: str | os.PathLike,
        column: str,
        values: Sequence[Any],
        added: tuple[str, Sequence[Any]] | None,
        mode: int,
    ) -> None:
        """Write the table to ``path`` atomically (file ``mode``) with ``column``'s cells
        replaced by ``values`` and, with ``added`` (name, values), one more column last."""


def read_table(path: str | os.PathLike, fmt: str, encoding: str = "utf-8", max_cell_bytes: int = 1 << 20) -> Table:
    """The table in ``path``, format ``fmt`` (:data:`TABLE_FORMATS`); a CSV or TSV cell
    may hold up to ``max_cell_bytes`` characters. :class:`TableError` if it cannot be used."""
    if fmt == PARQUET:
        return ParquetTable.read(path)
    text = decode_text(read_bytes(path, MAX_TABLE_BYTES), str(path), encoding)
    if fmt == JSONL:
        return JsonLinesTable.read(str(path), text)
    if fmt in DELIMITERS:
        return DelimitedTable.read(str(path), text, DELIMITERS[fmt], max_cell_bytes)
    raise ValueError(f"unknown table format {fmt!r}; choose from {TABLE_FORMATS}")


# ----------------------------------------------------------------------------- CSV, TSV


@dataclass
class _Record:
    raw: str = field(repr=False)
    cells: list[str] | None = field(repr=False)  # None: a blank line
    line: int = 0


class _LineRecorder:
    """The physical lines a ``csv.reader`` pulls, so that each record's raw text is known."""

    def __init__(self, lines: Iterator[str]):
        self._lines = lines
        self.pulled: list[str] = []

    def __iter__(self) -> _LineRecorder:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.pulled.append(line)
        return line

    def take(self) -> str:
        raw, self.pulled = "".join(self.pulled), []
        return raw


@contextmanager
def _field_size_limit(limit: int) -> Iterator[None]:
    previous = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


class DelimitedTable(Table):
    """A CSV or TSV table (see the module's documentation)."""

    def __init__(
        self, path: str, columns: list[str], bom: str, header: _Record, records: list[_Record], delimiter: str
    ):
        super().__init__(path, columns)
        self.bom, self.header, self.records, self.delimiter = bom, header, records, delimiter
        self.rows = [r for r in records if r.cells is not None]
        self._index = {name: i for i, name in enumerate(columns)}

    @classmethod
    def read(cls, path: str, text: str, delimiter: str, max_cell_bytes: int) -> DelimitedTable:
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        recorder = _LineRecorder(iter(io.StringIO(text[len(bom) :], newline="")))
        reader = csv.reader(recorder, delimiter=delimiter, strict=True)
        records: list[_Record] = []
        with _field_size_limit(max(max_cell_bytes, csv.field_size_limit())):
            while True:
                line = reader.line_num + 1
                try:
                    cells = next(reader)
                except StopIteration:
                    break
                except csv.Error as exc:  # its messages name a character class, never the text
                    raise TableError(f"{shown(path)}: line {line}: not valid {_csv_name(delimiter)} ({exc})") from None
                records.append(_Record(recorder.take(), cells or None, line))
        if not records or records[0].cells is None:
            raise TableError(f"{shown(path)}: no header line (the first line names the columns)")
        header, rows = records[0], records[1:]
        width = len(header.cells)
        for record in rows:
            if record.cells is not None and len(record.cells) != width:
                raise TableError(
                    f"{shown(path)}: line {record.line}: {len(record.cells)} field(s) where the header has {width}"
                )
            if record.cells is None and width == 1:  # a blank line is the empty cell of a one-column table
                record.cells = [""]
        return cls(path, list(header.cells), bom, header, rows, delimiter)

    def __len__(self) -> int:
        return len(self.rows)

    def cell(self, row: int, column: str) -> Any:
        return self.rows[row].cells[self._index[column]]

    def write(
        self,
        path: str | os.PathLike,
        column: str,
        values: Sequence[Any],
        added: tuple[str, Sequence[Any]] | None,
        mode: int,
    ) -> None:
        at = self._index[column]
        out = [self.bom]
        out.append(self._rewrite(self.header, None if added is None else [*self.header.cells, added[0]]))
        n = 0
        for record in self.records:
            if record.cells is None:
                out.append(record.raw)
                continue
            cells = list(record.cells)
            cells[at] = "" if values[n] is None else values[n]
            if added is not None:
                cells.append("" if added[1][n] is None else added[1][n])
            out.append(self._rewrite(record, None if cells == record.cells else cells))
            n += 1
        atomic_write_bytes(path, "".join(out).encode("utf-8"), mode)

    def _rewrite(self, record: _Record, cells: list[str] | None) -> str:
        """``record`` with ``cells`` (None: unchanged), in the quoting it was read in."""
        if cells is None:
            return record.raw
        ending = next((e for e in ("\r\n", "\n", "\r") if record.raw.endswith(e)), "")
        quoting = csv.QUOTE_MINIMAL
        for style in (csv.QUOTE_MINIMAL, csv.QUOTE_ALL):
            if _csv_line(record.cells, self.delimiter, style, ending) == record.raw:
                quoting = style
                break
        return _csv_line(cells, self.delimiter, quoting, ending)


def _csv_line(cells: Sequence[str], delimiter: str, quoting: int, ending: str) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, quoting=quoting, lineterminator=ending).writerow(cells)
    return buffer.getvalue()


def _csv_name(delimiter: str) -> str:
    return "TSV" if delimiter == "\t" else "CSV"


# ----------------------------------------------------------------------------- JSON lines

# (ensure_ascii, separators) of the ways json.dumps writes a line, most usual first.
_JSON_STYLES = ((False, (", ", ": ")), (False, (",", ":")), (True, (", ", ": ")), (True, (",", ":")))


class JsonLinesTable(Table):
    """A table of JSON lines, one object per row (see the module's documentation);
    its columns are the keys of every row, in the order they first appear."""

    def __init__(self, path: str, columns: list[str], lines: list[str], objects: list[dict[str, Any] | None]):
        super().__init__(path, columns)
        self.lines, self.objects = lines, objects
        self.rows = [o for o in objects if o is not None]

    @classmethod
    def read(cls, path: str, text: str) -> JsonLinesTable:
        # Split at "\n" only (a JSON string may hold U+2028 unescaped), endings kept.
        pieces = text.split("\n")
        lines = [piece + "\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
        objects: list[dict[str, Any] | None] = []
        columns: dict[str, None] = {}
        for number, line in enumerate(lines, 1):
            body = line.removeprefix("\ufeff") if number == 1 else line
            if not body.strip():
                objects.append(None)
                continue
            try:
                value = json.loads(body)
            except json.JSONDecodeError as exc:  # its message names a position, not the text
                raise TableError(
                    f"{shown(path)}: line {number}: not valid JSON ({exc.msg}: column {exc.colno})"
                ) from None
            except RecursionError:
                raise TableError(f"{shown(path)}: line {number}: not valid JSON (nested too deeply)") from None
            if not isinstance(value, dict):
                raise TableError(f"{shown(path)}: line {number}: not a JSON object")
            columns.update(dict.fromkeys(value))
            objects.append(value)
        if not any(o is not None for o in objects):
            raise TableError(f"{shown(path)}: no JSON object (a table of JSON lines has one per line)")
        return cls(path, list(columns), lines, objects)

    def __len__(self) -> int:
        return len(self.rows)

    def cell(self, row: int, column: str) -> Any:
        return self.rows[row].get(column)

    def fields(self, row: int) -> dict[str, Any]:
        return self.rows[row]

    def write(
        self,
        path: str | os.PathLike,
        column: str,
        values: Sequence[Any],
        added: tuple[str, Sequence[Any]] | None,
        mode: int,
    ) -> None:
        out, n = [], 0
        for line, obj in zip(self.lines, self.objects, strict=True):
            if obj is None:
                out.append(line)
                continue
            new = dict(obj)
            if column in new or values[n] is not None:
                new[column] = values[n]
            if added is not None:
                new[added[0]] = added[1][n]
            out.append(line if new == obj and _same_types(new, obj) else _json_line(line, obj, new))
            n += 1
        atomic_write_bytes(path, "".join(out).encode("utf-8"), mode)


def _same_types(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(type(a[k]) is type(b[k]) for k in a)


def _json_line(line: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    """``new`` as one line, in the style ``line`` (holding ``old``) was written in."""
    bom = "\ufeff" if line.startswith("\ufeff") else ""
    body = line.removeprefix(bom)
    stripped = body.rstrip("\r\n")
    ending = body[len(stripped) :]
    style = next(
        (s for s in _JSON_STYLES if json.dumps(old, ensure_ascii=s[0], separators=s[1]) == stripped), _JSON_STYLES[0]
    )
    return bom + json.dumps(new, ensure_ascii=style[0], separators=style[1]) + ending


# ----------------------------------------------------------------------------- Parquet

PARQUET_EXTRA = "pip install 'deid-crf[parquet]' (pyarrow)"


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise TableError(f"Parquet tables need pyarrow: {PARQUET_EXTRA}") from None
    return pa, pq


class ParquetTable(Table):
    """A Parquet table read whole with pyarrow (see the module's documentation)."""

    def __init__(self, path: str, table: Any):
        super().__init__(path, list(table.column_names))
        self.table = table
        self._cache: dict[str, list[Any]] = {}

    @classmethod
    def read(cls, path: str | os.PathLike) -> ParquetTable:
        pa, pq = _pyarrow()
        problem = file_problem(path)
        if problem is not None:
            raise TableError(f"{shown(path)}: {problem}")
        try:
            table = pq.read_table(path)
        except (pa.ArrowException, OSError) as exc:  # pyarrow's messages name the file's structure, not its cells
            raise TableError(f"{shown(path)}: not a readable Parquet file ({type(exc).__name__})") from None
        if len(set(table.column_names)) != len(table.column_names):
            raise TableError(f"{shown(path)}: two columns have the same name")
        return cls(str(path), table)

    def __len__(self) -> int:
        return self.table.num_rows

    def column_type(self, column: str) -> Any:
        return self.table.schema.field(column).type

    def cell(self, row: int, column: str) -> Any:
        if column not in self._cache:
            self._cache[column] = self.table.column(column).to_pylist()
        return self._cache[column][row]

    def write(
        self,
        path: str | os.PathLike,
        column: str,
        values: Sequence[Any],
        added: tuple[str, Sequence[Any]] | None,
        mode: int,
    ) -> None:
        pa, pq = _pyarrow()
        at = self.table.schema.get_field_index(column)
        target = self.table.schema.field(at)
        table = self.table.set_column(at, target, pa.array(list(values), type=target.type))
        if added is not None:
            table = table.append_column(pa.field(added[0], pa.string()), pa.array(list(added[1]), type=pa.string()))
        table = table.replace_schema_metadata(self.table.schema.metadata)
        with atomic_path(path, mode) as tmp:
            pq.write_table(table, tmp)
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())


def column_problem(table: Table, column: str, option: str) -> str | None:
    """Why ``column`` (given by ``option``) cannot be used in ``table``, or None."""
    if column not in table.columns:
        return f"{shown(table.path)}: no column '{escape(column)}' ({option})"
    if isinstance(table, DelimitedTable) and table.columns.count(column) > 1:
        return f"{shown(table.path)}: two columns are named '{escape(column)}' ({option})"
    return None


def is_table_input(path: str, fmt: str | None) -> bool:
    """Whether ``path`` is read as a table (its extension, :data:`EXTENSIONS`, or a
    ``--table-format``)."""
    return fmt is not None or format_of(path) is not None
