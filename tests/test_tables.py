"""Table mode of ``python -m deid_crf.tag``: CSV, TSV, JSON lines and Parquet tables in,
tables of the same format out (deid_crf/batch/tables.py, deid_crf/io/tables.py).

The model is the stand-in ``ApellidosTagger`` (conftest.py), so that a 10,000-row table
stays fast; the rule layer and the de-identifier are the real ones."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ApellidosTagger

from deid_crf.batch import engine
from deid_crf.batch import tables as table_run
from deid_crf.tag import main

SECRET = "k" * 40
# Invented surnames, each planted in one patient's rows; none may survive a masked table.
SURNAMES = [f"Quirtan{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}ez" for i in range(200)]
NASTY = ['con "comillas", y comas', "línea uno\nlínea dos", "", "ñandú ü € 漢字 🙂", "  espacios  ", "x\r\ny", ","]


@pytest.fixture(autouse=True)
def stand_in_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every de-identifier of these tests tags with the stand-in tagger."""
    tagger = ApellidosTagger()
    monkeypatch.setattr(engine, "cached_model", lambda model_dir, digest="": tagger)


@pytest.fixture
def tag(tiny_model_dir: Path, capsys: pytest.CaptureFixture[str]):
    """Run the CLI in this process with one job; (status, stderr), stderr checked to hold no surname."""

    def run(*args: str) -> tuple[int, str]:
        status = main([*args, "--model", str(tiny_model_dir), "-j", "1"])
        err = capsys.readouterr().err
        assert not any(name in err for name in SURNAMES[:20])
        return status, err

    return run


def note(surname: str, n: int) -> str:
    return f"Nombre: Ana.\nApellidos: {surname} Ruiz.\nNHC: {n}.\nControl de {surname}, sin cambios."


def make_rows(n: int, seed: int = 0) -> list[list[str]]:
    """``n`` rows of (id, patient, text, three pass-through columns); every 50th text empty."""
    rng = random.Random(seed)
    rows = [["episodio", "paciente", "nota", "comentario", "importe", "vacío"]]
    for i in range(n):
        patient = rng.randrange(len(SURNAMES))
        text = "" if i % 50 == 49 else note(SURNAMES[patient], 100000 + i)
        rows.append([f"E{i:05d}", f"P{patient:03d}", text, NASTY[i % len(NASTY)], f"{i * 1.25:.2f}", ""])
    return rows


def write_csv(path: Path, rows: list[list[str]], **options) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, **options).writerows(rows)
    return path


def read_csv(path: Path, delimiter: str = ",") -> list[list[str]]:
    limit = csv.field_size_limit(1 << 24)
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return list(csv.reader(f, delimiter=delimiter))
    finally:
        csv.field_size_limit(limit)


def test_a_10000_row_csv_round_trips_with_nothing_lost(tmp_path, tag):
    rows = make_rows(10_000)
    source = write_csv(tmp_path / "notas.csv", rows)
    out = tmp_path / "out" / "notas.csv"
    status, err = tag(
        str(source), "-o", str(out), "--format", "masked", "--text-column", "nota", "--id-column", "episodio"
    )
    assert status == 0, err
    assert "9800 row(s) ok, 0 failed, 0 skipped (done before), 200 empty" in err
    result = read_csv(out)
    assert len(result) == len(rows)
    for before, after in zip(rows, result, strict=True):
        assert before[:2] + before[3:] == after[:2] + after[3:]  # ids, order and pass-through columns
    texts = [r[2] for r in result[1:]]
    assert sum(t == "" for t in texts) == 200
    assert not any(name in text for text in texts for name in SURNAMES)
    assert all(t.startswith("Nombre: ") and "[NOMBRE_SUJETO_ASISTENCIA]" in t for t in texts if t)
    # Byte for byte: the output is the input with the text cells replaced.
    expected = io.StringIO(newline="")
    csv.writer(expected).writerows([rows[0]] + [r[:2] + [t] + r[3:] for r, t in zip(rows[1:], texts, strict=True)])
    assert out.read_bytes() == expected.getvalue().encode("utf-8")
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    assert not table_run.work_dir(out).exists()  # parts removed: every row done
    # A second run finds it up to date and redoes nothing.
    status, err = tag(
        str(source), "-o", str(out), "--format", "masked", "--text-column", "nota", "--id-column", "episodio"
    )
    assert status == 0 and "up to date" in err and "10000 skipped" in err


def surrogate_args(source: Path, out: Path, key: Path, secret: Path) -> list[str]:
    return [
        str(source), "-o", str(out), "--format", "surrogate", "--seed", "7", "--text-column", "nota",
        "--id-column", "episodio", "--group-column", "paciente", "--secret-file", str(secret), "--key-file", str(key),
    ]  # fmt: skip


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret.key"
    path.write_text(SECRET)
    path.chmod(0o600)
    return path


def test_a_killed_run_resumes_to_the_bytes_of_an_uninterrupted_one(tmp_path, tag, secret_file, monkeypatch):
    rows = make_rows(700, seed=1)
    source = write_csv(tmp_path / "notas.csv", rows)
    whole, whole_key = tmp_path / "a" / "o.csv", tmp_path / "ka" / "key.jsonl"
    assert tag(*surrogate_args(source, whole, whole_key, secret_file))[0] == 0

    out, key = tmp_path / "b" / "o.csv", tmp_path / "kb" / "key.jsonl"
    done_rows: list[int] = []
    real_process, real_write = table_run.process_rows, table_run.atomic_write_text

    def process(settings, rows, memories=None):
        done_rows.extend(r.index for r in rows)
        return real_process(settings, rows, memories)

    writes = {"parts": 0}

    def killed_while_writing(path, content, mode=None):
        if Path(path).parent.name.endswith(".parts"):
            writes["parts"] += 1
            if writes["parts"] == 4:  # killed after the chunk's key records, before its part
                (Path(path).parent / f".{Path(path).name}.x.tmp").write_text(content[:10])
                raise KeyboardInterrupt
        return real_write(path, content, mode)

    monkeypatch.setattr(table_run, "process_rows", process)
    monkeypatch.setattr(table_run, "atomic_write_text", killed_while_writing)
    status, err = tag(*surrogate_args(source, out, key, secret_file))
    assert status == 130 and not out.exists()
    parts = table_run.work_dir(out)
    first_run = len(done_rows)
    assert len(list(parts.glob("*.json"))) == 3 and len(list(parts.glob(".*.tmp"))) == 1
    in_parts = {r["row"] for p in parts.glob("*.json") for r in json.loads(p.read_text())["rows"]}

    monkeypatch.setattr(table_run, "atomic_write_text", real_write)
    done_rows.clear()
    status, err = tag(*surrogate_args(source, out, key, secret_file))
    assert status == 0, err
    assert not set(done_rows) & in_parts  # nothing done twice
    assert len(done_rows) + len(in_parts) == 700 and len(in_parts) < first_run
    assert out.read_bytes() == whole.read_bytes()
    assert key.read_bytes() == whole_key.read_bytes()
    assert not parts.exists()
    records = [json.loads(line) for line in key.read_text().splitlines()]
    assert len(records) == 700 and {r["doc_id"] for r in records} == {r[0] for r in rows[1:]}


def test_a_patient_gets_one_surrogate_across_the_table(tmp_path, tag, secret_file):
    rows = [["episodio", "paciente", "nota"]]
    for i in range(30):
        rows.append([f"E{i}", f"P{i % 3}", f"Apellidos: {SURNAMES[i % 3]}.\nVisto por {SURNAMES[i % 3]} hoy."])
    source = write_csv(tmp_path / "notas.csv", rows)
    out = tmp_path / "o.csv"
    args = [str(source), "-o", str(out), "--format", "surrogate", "--text-column", "nota"]
    assert (
        tag(*args, "--id-column", "episodio", "--group-column", "paciente", "--secret-file", str(secret_file))[0] == 0
    )
    result = read_csv(out)[1:]
    surrogate = {}
    for row in result:
        first, second = row[2].split("\n")
        name = first.removeprefix("Apellidos: ").rstrip(".")
        assert second == f"Visto por {name} hoy." and name not in SURNAMES
        assert surrogate.setdefault(row[1], name) == name  # one surrogate per patient
    assert len(set(surrogate.values())) == 3
    status, err = tag(*args, "--group-column", "paciente", "--overwrite")  # no secret
    assert status == 2 and "needs a secret" in err


def test_quoting_line_endings_and_a_bom_are_kept(tmp_path, tag):
    rows = [["id", "text", "otro"], ["1", "Apellidos: Quirtanaaez.", "a,b"], ["2", "", "c"], ["3", "sin datos", ""]]
    buffer = io.StringIO(newline="")
    csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\r\n").writerows(rows)
    data = "\ufeff" + buffer.getvalue() + "\r\n"  # and a blank line at the end
    source = tmp_path / "n.csv"
    source.write_bytes(data.encode("utf-8"))
    out = tmp_path / "o.csv"
    assert tag(str(source), "-o", str(out), "--format", "masked")[0] == 0
    expected = data.replace("Quirtanaaez", "[NOMBRE_SUJETO_ASISTENCIA]")
    assert out.read_bytes() == expected.encode("utf-8")


def test_tsv_and_annotation_formats_add_a_spans_column(tmp_path, tag):
    source = write_csv(tmp_path / "n.tsv", [["text", "x"], ["Apellidos: Quirtanaaez.", "1"], ["", "2"]], delimiter="\t")
    out = tmp_path / "o.tsv"
    assert tag(str(source), "-o", str(out), "--format", "json", "--spans-column", "phi")[0] == 0
    header, first, second = read_csv(out, "\t")
    assert header == ["text", "x", "phi"] and first[:2] == ["Apellidos: Quirtanaaez.", "1"] and second[:2] == ["", "2"]
    [span] = json.loads(first[2])
    assert (span["type"], span["start"], span["end"], span["text"]) == (
        "NOMBRE_SUJETO_ASISTENCIA",
        11,
        22,
        "Quirtanaaez",
    )
    assert json.loads(second[2]) == []


def test_json_lines_table(tmp_path, tag):
    lines = [
        json.dumps({"id": 1, "text": "Apellidos: Quirtanaaez.", "n": 1.5, "tags": ["a"]}, ensure_ascii=False),
        json.dumps({"id": 2, "n": None, "nota": "ñ"}, ensure_ascii=False),  # no text: passes through
        json.dumps({"text": "Apellidos: Quirtanabez.", "id": 3}, separators=(",", ":")),
        "",
        json.dumps({"id": 4, "text": 12}),  # not a string: failed, emptied
    ]
    source = tmp_path / "n.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "o.jsonl"
    status, err = tag(str(source), "-o", str(out), "--format", "masked", "--id-column", "id")
    assert status == 1 and "n.jsonl: row 4 (id 4): the text cell is a number, not a string" in err
    got = out.read_text(encoding="utf-8").split("\n")
    assert got[0] == lines[0].replace("Quirtanaaez", "[NOMBRE_SUJETO_ASISTENCIA]")
    assert got[1] == lines[1] and got[3] == ""
    assert got[2] == '{"text":"Apellidos: [NOMBRE_SUJETO_ASISTENCIA].","id":3}'  # its compact style kept
    assert json.loads(got[4]) == {"id": 4, "text": None}
    status, err = tag(str(source), "-o", str(out), "--format", "masked", "--id-column", "id")
    assert status == 1 and "up to date" in err  # the failed row is reported again


PYARROW_MISSING = importlib.util.find_spec("pyarrow") is None


@pytest.mark.skipif(PYARROW_MISSING and not os.environ.get("CI"), reason="pyarrow is not installed (deid-crf[parquet])")
def test_parquet_round_trip_keeps_types(tmp_path, tag):
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 500
    table = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "text": pa.array([note(SURNAMES[i % 20], i) if i % 7 else None for i in range(n)], pa.large_string()),
            "when": pa.array([None if i % 3 == 0 else i / 4 for i in range(n)], pa.float64()),
            "tags": pa.array([[str(i), "ñ"] for i in range(n)], pa.list_(pa.string())),
            "day": pa.array([i for i in range(n)], pa.date32()),
        }
    ).replace_schema_metadata({"origin": "test"})
    source = tmp_path / "n.parquet"
    pq.write_table(table, source, row_group_size=100)
    out = tmp_path / "o.parquet"
    assert tag(str(source), "-o", str(out), "--format", "masked", "--id-column", "id")[0] == 0
    result = pq.read_table(out)
    assert result.schema == table.schema and result.schema.metadata == table.schema.metadata
    for column in ("id", "when", "tags", "day"):
        assert result.column(column).equals(table.column(column))
    texts = result.column("text").to_pylist()
    assert [t is None for t in texts] == [i % 7 == 0 for i in range(n)]
    assert not any(name in t for t in texts if t for name in SURNAMES)

    numbers = tmp_path / "numbers.parquet"
    pq.write_table(pa.table({"text": pa.array([1, 2])}), numbers)
    status, err = tag(str(numbers), "-o", str(tmp_path / "x.parquet"), "--format", "masked")
    assert status == 2 and "numbers.parquet: the text column 'text' holds int64, not strings" in err


def test_bad_tables_are_refused_naming_the_file(tmp_path, tag):
    good = write_csv(tmp_path / "good.csv", [["id", "text"], ["1", "Apellidos: Quirtanaaez."], ["1", "x"]])
    cases = [
        ((good, "--text-column", "nota"), "good.csv: no column 'nota' (--text-column)"),
        ((good, "--id-column", "id"), "good.csv: rows 1 and 2 have the same id (--id-column 'id')"),
        ((good, "--group-column", "patient", "--secret-file", "/nonexistent"), "cannot read the secret file"),
        ((good, "--format", "json", "--spans-column", "text"), "good.csv: already has a column 'text'"),
    ]
    bad = {
        "quote.csv": ('id,text\n1,"Apellidos: Quirtanaaez.\n', "quote.csv: line 2: not valid CSV"),
        "width.csv": ("id,text\n1,Apellidos: Quirtanaaez.,3\n", "width.csv: line 2: 3 field(s) where the header has 2"),
        "binary.csv": (b"id,text\n1,\x00\x01\x02Quirtanaaez\n", "binary.csv: looks like a binary file"),
        "latin.csv": ("id,text\n1,Apellidos: Quirtañaez\n".encode("latin-1"), "latin.csv: not valid utf-8 at byte"),
        "empty.csv": ("", "empty.csv: no header line"),
        "lines.jsonl": ('{"text": "Apellidos: Quirtanaaez."}\n[1]\n', "lines.jsonl: line 2: not a JSON object"),
        "broken.jsonl": ('{"text": "Quirtanaaez\n', "broken.jsonl: line 1: not valid JSON"),
        "fake.parquet": (b"PAR1 Quirtanaaez", "fake.parquet: not a readable Parquet file"),
    }
    for name, (content, message) in bad.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        cases.append(((path,), message))
    for n, (args, message) in enumerate(cases):
        out = tmp_path / "out" / f"{n}{Path(args[0]).suffix}"
        status, err = tag(str(args[0]), "-o", str(out), "--format", "masked", *args[1:])
        assert status == 2 and message in err, (message, err)
        assert "Quirtan" not in err and not out.exists()


def test_table_usage_errors(tmp_path, tag, capsys):
    source = write_csv(tmp_path / "n.csv", [["text"], ["Apellidos: Quirtanaaez."]])
    out = tmp_path / "o.csv"
    for args, message in (
        ([str(source)], "give its path with -o OUTPUT"),
        ([str(source), "-o", str(tmp_path)], "is a directory"),
        ([str(source), "-o", str(tmp_path / "o.jsonl")], "the output table has the input's format, csv"),
        ([str(source), "-o", str(source)], "would overwrite the input"),
        ([str(source), "-o", str(out), "--format", "conll"], "does not go with --format conll"),
        ([str(tmp_path), "-o", str(out), "--text-column", "t"], "--text-column goes with a table"),
        ([str(source), "-o", str(out), "--group-column", "a", "--group-by", "field:b"], "two ways"),
    ):
        with pytest.raises(SystemExit) as info:
            tag(*args)
        assert info.value.code == 2 and message in capsys.readouterr().err
    assert tag(str(source), "-o", str(out), "--format", "masked")[0] == 0
    status, err = tag(str(source), "-o", str(out), "--format", "surrogate")
    assert status == 2 and "was written by a run with other settings (format" in err
    assert tag(str(source), "-o", str(out), "--format", "surrogate", "--overwrite")[0] == 0
    source.write_text("text\nApellidos: Quirtanabez.\n")  # a changed input is redone whole
    status, err = tag(str(source), "-o", str(out), "--format", "surrogate")
    assert status == 0 and "changed since" in err and "Quirtanabez" not in out.read_text()
    unrelated = tmp_path / "mine.csv"
    unrelated.write_text("keep me\n")
    status, err = tag(str(source), "-o", str(unrelated), "--format", "masked")
    assert status == 2 and "exists and its settings are unknown" in err and unrelated.read_text() == "keep me\n"


def test_csv_cells_may_be_as_large_as_max_bytes(tmp_path, tag):
    big = "Apellidos: Quirtanaaez. " + "texto " * 40_000  # 240 kB, over csv's default cell limit
    source = write_csv(tmp_path / "n.csv", [["text"], [big], ["corto"]])
    out = tmp_path / "o.csv"
    assert tag(str(source), "-o", str(out), "--format", "masked")[0] == 0
    assert read_csv(out)[1][0] == big.replace("Quirtanaaez", "[NOMBRE_SUJETO_ASISTENCIA]")
    status, err = tag(str(source), "-o", str(tmp_path / "p.csv"), "--format", "masked", "--max-bytes", "100000")
    assert status == 2 and "n.csv: line 2: not valid CSV (field larger than field limit" in err
    wide = write_csv(tmp_path / "w.csv", [["text"], ["ñ" * 100_000], ["corto"]])  # 100,000 characters, 200,000 bytes
    status, err = tag(str(wide), "-o", str(tmp_path / "w-out.csv"), "--format", "masked", "--max-bytes", "150000")
    assert status == 1 and "w.csv: row 1: text over the limit of 150000 bytes (--max-bytes)" in err
    assert read_csv(tmp_path / "w-out.csv") == [["text"], [""], ["corto"]]


KILLABLE = """
import sys, time
sys.path.insert(0, {tests!r})
from conftest import ApellidosTagger
from deid_crf.batch import engine


class Slow(ApellidosTagger):
    def tag_texts_with_confidence(self, texts):
        time.sleep(0.01)  # per patient group: the run lasts long enough to be killed mid-way
        return super().tag_texts_with_confidence(texts)


engine.cached_model = lambda model_dir, digest="": Slow()
from deid_crf.tag import main

sys.exit(main(sys.argv[1:]))
"""


def test_a_run_killed_with_sigkill_resumes_to_the_same_bytes(tmp_path, tag, secret_file, tiny_model_dir):
    rows = make_rows(640, seed=2)
    source = write_csv(tmp_path / "notas.csv", rows)
    whole, whole_key = tmp_path / "a" / "o.csv", tmp_path / "ka" / "key.jsonl"
    assert tag(*surrogate_args(source, whole, whole_key, secret_file))[0] == 0

    driver = tmp_path / "driver.py"
    driver.write_text(KILLABLE.format(tests=str(Path(__file__).parent)))
    out, key = tmp_path / "b" / "o.csv", tmp_path / "kb" / "key.jsonl"
    args = [*surrogate_args(source, out, key, secret_file), "--model", str(tiny_model_dir), "-j", "1"]
    process = subprocess.Popen([sys.executable, str(driver), *args], stderr=subprocess.DEVNULL)
    parts = table_run.work_dir(out)
    deadline = time.monotonic() + 60
    while len(list(parts.glob("*.json"))) < 3 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL and not out.exists()
    assert 3 <= len(list(parts.glob("*.json"))) < 640 / table_run.CHUNK_ROWS

    assert tag(*surrogate_args(source, out, key, secret_file))[0] == 0
    assert out.read_bytes() == whole.read_bytes()
    assert key.read_bytes() == whole_key.read_bytes()


def test_a_work_folder_that_is_a_link_is_refused(tmp_path, tag):
    source = write_csv(tmp_path / "n.csv", [["text"], ["Apellidos: Quirtanaaez."]])
    out, elsewhere = tmp_path / "o.csv", tmp_path / "elsewhere"
    elsewhere.mkdir()
    table_run.work_dir(out).symlink_to(elsewhere)
    status, err = tag(str(source), "-o", str(out), "--format", "masked")
    assert status == 2 and ".o.csv.parts: the work folder is a link" in err
    assert not out.exists() and not any(elsewhere.iterdir())


class Exploding(ApellidosTagger):
    """The stand-in, failing on any text that holds "BOOM"."""

    def tag_texts_with_confidence(self, texts):
        if any("BOOM" in t for t in texts):
            raise RuntimeError("Quirtanaaez")  # an exception's message is never shown
        return super().tag_texts_with_confidence(texts)


def test_a_row_that_fails_is_emptied_and_retried_by_the_next_run(tmp_path, tag, monkeypatch):
    rows = [["id", "text", "x"]] + [[f"r{i}", f"Apellidos: {SURNAMES[i]}.", str(i)] for i in range(100)]
    rows[51][1] = "Apellidos: Quirtanaaez. BOOM"
    source = write_csv(tmp_path / "n.csv", rows)
    out = tmp_path / "o.csv"
    args = (str(source), "-o", str(out), "--format", "masked", "--id-column", "id")
    monkeypatch.setattr(engine, "cached_model", lambda model_dir, digest="": Exploding())
    status, err = tag(*args)
    assert status == 1
    assert (
        "n.csv: row 51 (id r50): internal error (RuntimeError) while de-identifying; its text cell is left empty" in err
    )
    result = read_csv(out)
    assert len(result) == 101 and result[51] == ["r50", "", "50"]
    assert all(r[1] == "Apellidos: [NOMBRE_SUJETO_ASISTENCIA]." for n, r in enumerate(result[1:]) if n != 50)
    assert table_run.work_dir(out).is_dir()  # kept, so that the next run retries the failed row

    monkeypatch.setattr(engine, "cached_model", lambda model_dir, digest="": ApellidosTagger())
    status, err = tag(*args, "-v")
    assert status == 0 and "99 row(s) already done" in err and "1 row(s) ok" in err
    assert read_csv(out)[51] == ["r50", "Apellidos: [NOMBRE_SUJETO_ASISTENCIA]. BOOM", "50"]
    assert not table_run.work_dir(out).exists()

    # Annotation formats: the text stays and the failed row's spans cell is empty.
    monkeypatch.setattr(engine, "cached_model", lambda model_dir, digest="": Exploding())
    annotated = tmp_path / "a.csv"
    status, err = tag(str(source), "-o", str(annotated), "--format", "json")
    assert status == 1 and "n.csv: row 51: internal error (RuntimeError) while de-identifying; its spans cell" in err
    result = read_csv(annotated)
    assert [r[:3] for r in result] == rows and result[0][3] == "entities" and result[51][3] == ""
    assert all(json.loads(r[3])[0]["text"] == SURNAMES[n] for n, r in enumerate(result[1:]) if n != 50)


def test_parquet_without_pyarrow_says_how_to_install_it(tmp_path, tag, monkeypatch):
    source = tmp_path / "n.parquet"
    source.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow raises ImportError
    status, err = tag(str(source), "-o", str(tmp_path / "o.parquet"), "--format", "masked")
    assert status == 2 and "Parquet tables need pyarrow: pip install 'deid-crf[parquet]'" in err
