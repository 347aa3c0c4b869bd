"""The tagging command line, ``python -m deid_crf.tag``, in process and as a subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from deid_crf.batch.engine import RUN_FILE
from deid_crf.io.brat import format_ann
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.tag import main
from deid_crf.text.document import Document

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def note_text(unseen_document: Document) -> str:
    return unseen_document.text


@pytest.fixture(scope="module")
def other_text(tiny_corpus: list[Document]) -> str:
    return tiny_corpus[0].text


@pytest.fixture(scope="module")
def absent_values_model_dir(tiny_tagger_with_absent_values, tmp_path_factory) -> Path:
    return tiny_tagger_with_absent_values.save(tmp_path_factory.mktemp("model") / "crf")


@pytest.fixture
def run_main(capsys: pytest.CaptureFixture[str], fake_phi: list[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``main`` with a model and one job; returns (status, stdout, stderr) and
    checks that stderr holds none of the fake PHI."""

    def run(model: Path, *args: str) -> tuple[int, str, str]:
        status = main([*args, "--model", str(model), "--n-jobs", "1"])
        out, err = capsys.readouterr()
        assert not any(phi in err for phi in fake_phi)
        return status, out, err

    return run


@pytest.fixture
def run_cli(fake_phi: list[str]) -> Callable[..., subprocess.CompletedProcess[bytes]]:
    """Run ``python -m deid_crf.tag``; checks that stderr has no traceback and no PHI."""

    def run(*args: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        result = subprocess.run(
            [sys.executable, "-m", "deid_crf.tag", *args],
            input=stdin,
            capture_output=True,
            cwd=REPO,
            env={**os.environ, **(env or {})},
            timeout=120,
        )
        stderr = result.stderr.decode("utf-8", "replace")
        assert "Traceback" not in stderr
        assert not any(phi in stderr for phi in fake_phi)
        return result

    return run


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def expected_brat(tagger: DeidTagger, text: str) -> str:
    return format_ann(tagger.tag_texts([text])[0], text)


# --------------------------------------------------------------------------- formats


def test_single_file_brat_on_stdout(tmp_path, tiny_model_dir, tiny_tagger, note_text, run_main):
    note = write(tmp_path / "nota.txt", note_text)
    status, out, err = run_main(tiny_model_dir, str(note))
    assert (status, err) == (0, "")
    assert out == expected_brat(tiny_tagger, note_text)
    nhc = note_text.index("745120")
    assert f"\tID_SUJETO_ASISTENCIA {nhc} {nhc + 6}\t745120\n" in out


def test_json_format(tmp_path, tiny_model_dir, tiny_tagger, note_text, run_main):
    note = write(tmp_path / "nota.txt", note_text)
    status, out, _ = run_main(tiny_model_dir, str(note), "--format", "json")
    assert status == 0
    data = json.loads(out)
    assert data["doc_id"] == "nota"
    assert isinstance(data["entities"], list) and data["entities"]
    for e in data["entities"]:
        assert set(e) == {"type", "start", "end", "text", "confidence", "source"}
        assert note_text[e["start"] : e["end"]] == e["text"]
        assert 0.0 < e["confidence"] <= 1.0 and e["source"] in ("model", "rule", "model+rule")
    assert {"type": "ID_SUJETO_ASISTENCIA", "text": "745120"}.items() <= data["entities"][2].items()


def test_conll_format(tmp_path, tiny_model_dir, run_main):
    note = write(tmp_path / "nota.txt", "NHC: 745120.\nSexo: H.\n")
    status, out, _ = run_main(tiny_model_dir, str(note), "--format", "conll")
    assert status == 0
    blocks = out.split("\n\n")
    assert blocks[-1] == ""  # every sentence ends with a blank line
    rows = [line.split("\t") for line in blocks[0].split("\n")]
    assert [r[:3] for r in rows] == [["NHC", "0", "3"], [":", "3", "4"], ["745120", "5", "11"], [".", "11", "12"]]
    assert rows[2][3] == "B-ID_SUJETO_ASISTENCIA"
    assert all(r[3] == "O" for i, r in enumerate(rows) if i != 2)
    assert blocks[1].split("\n")[0].split("\t")[0] == "Sexo"


def test_empty_file_gives_empty_output(tmp_path, tiny_model_dir, run_main):
    empty = write(tmp_path / "vacia.txt", "")
    assert run_main(tiny_model_dir, str(empty)) == (0, "", f"warning: {empty}: empty input; empty output written\n")
    status, out, _ = run_main(tiny_model_dir, str(empty), "--format", "json")
    assert status == 0 and json.loads(out)["entities"] == []


@pytest.mark.parametrize("text", ["", " ", "\n\n", " \t\r\n"])
@pytest.mark.parametrize("fmt", ["brat", "json", "conll", "masked", "surrogate"])
def test_empty_and_whitespace_stdin_give_empty_outputs(fmt, text, absent_values_model_dir, monkeypatch, run_main):
    """``printf ' ' | python -m deid_crf.tag - --format masked`` was an internal error."""
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    status, out, err = run_main(absent_values_model_dir, "-", "--format", fmt)
    assert "error" not in err and status == 0
    expected = {"brat": "", "conll": "", "masked": text, "surrogate": text}
    if fmt == "json":
        assert json.loads(out) == {"doc_id": "stdin", "entities": []}
    else:
        assert out == expected[fmt]


# --------------------------------------------------------------------------- directories


def test_directory_to_output_dir_is_byte_exact(tmp_path, tiny_model_dir, tiny_tagger, note_text, other_text, run_main):
    texts = {"nota": "\ufeff" + note_text.replace("\n", "\r\n", 1), "otra": other_text}
    for name, text in texts.items():
        write(tmp_path / "in" / f"{name}.txt", text)
    write(tmp_path / "in" / "ignored.ann", "not an input")
    status, out, err = run_main(tiny_model_dir, str(tmp_path / "in"), "-o", str(tmp_path / "out"))
    assert (status, out) == (0, "")
    assert "tagged 2 document(s)" in err
    assert sorted(os.listdir(tmp_path / "out")) == [RUN_FILE, "nota.ann", "nota.txt", "otra.ann", "otra.txt"]
    for name, text in texts.items():
        assert (tmp_path / "out" / f"{name}.txt").read_bytes() == (tmp_path / "in" / f"{name}.txt").read_bytes()
        assert (tmp_path / "out" / f"{name}.ann").read_text(encoding="utf-8") == expected_brat(tiny_tagger, text)


def test_output_dir_in_place_and_json(tmp_path, tiny_model_dir, note_text, run_main):
    note = write(tmp_path / "nota.txt", note_text)
    assert run_main(tiny_model_dir, str(note), "-o", str(tmp_path))[0] == 0
    assert note.read_text(encoding="utf-8") == note_text
    assert sorted(os.listdir(tmp_path)) == [RUN_FILE, "nota.ann", "nota.txt"]
    assert run_main(tiny_model_dir, str(note), "--format", "json", "-o", str(tmp_path / "j"))[0] == 0
    assert sorted(os.listdir(tmp_path / "j")) == [RUN_FILE, "nota.json"]


def test_several_inputs_without_output_dir_is_a_usage_error(
    tmp_path, capsys, tiny_model_dir, note_text, other_text, run_main
):
    a, b = write(tmp_path / "a.txt", note_text), write(tmp_path / "b.txt", other_text)
    with pytest.raises(SystemExit) as info:
        run_main(tiny_model_dir, str(a), str(b))
    assert info.value.code == 2
    assert "several inputs need -o" in capsys.readouterr().err


# --------------------------------------------------------------------------- errors


def test_missing_model(tmp_path, note_text, run_main):
    note = write(tmp_path / "nota.txt", note_text)
    status, out, err = run_main(tmp_path / "no-model", str(note))
    assert (status, out) == (2, "")
    assert "make train-crf" in err and str(tmp_path / "no-model") in err


def test_unreadable_inputs_are_reported_and_others_tagged(tmp_path, tiny_model_dir, tiny_tagger, note_text, run_main):
    good = write(tmp_path / "in" / "buena.txt", note_text)
    binary = write(tmp_path / "in" / "binaria.txt", b"Nombre: Zebulonio\x00\x00")
    latin = write(tmp_path / "in" / "latina.txt", "Nombre: Zebulonio Núñez.\n".encode("latin-1"))
    status, _, err = run_main(
        tiny_model_dir, str(tmp_path / "in"), str(tmp_path / "nope.txt"), "-o", str(tmp_path / "out")
    )
    assert status == 1
    assert f"{binary}: looks like a binary file" in err
    assert f"{latin}: not valid utf-8" in err
    assert f"{tmp_path / 'nope.txt'}: no such file" in err
    assert "tagged 1 document(s)" in err
    assert sorted(os.listdir(tmp_path / "out")) == [RUN_FILE, "buena.ann", "buena.txt"]
    assert (tmp_path / "out" / "buena.ann").read_text(encoding="utf-8") == expected_brat(tiny_tagger, note_text)
    assert good.read_text(encoding="utf-8") == note_text


def test_duplicate_names_are_skipped(tmp_path, tiny_model_dir, note_text, other_text, run_main):
    a = write(tmp_path / "x" / "nota.txt", note_text)
    b = write(tmp_path / "y" / "nota.txt", other_text)
    status, _, err = run_main(tiny_model_dir, str(a), str(b), "-o", str(tmp_path / "out"))
    assert status == 1
    assert f"{b}: another input has the same name 'nota'" in err
    assert (tmp_path / "out" / "nota.txt").read_text(encoding="utf-8") == note_text


def test_model_dir_from_environment(tmp_path, capsys, monkeypatch, tiny_model_dir, tiny_tagger, note_text):
    note = write(tmp_path / "nota.txt", note_text)
    monkeypatch.setenv("DEID_CRF_MODEL_DIR", str(tiny_model_dir))
    assert main([str(note), "--n-jobs", "1"]) == 0
    assert capsys.readouterr().out == expected_brat(tiny_tagger, note_text)


def test_output_dir_that_is_a_file_is_a_usage_error(tmp_path, tiny_model_dir, note_text, run_main, capsys):
    note = write(tmp_path / "nota.txt", note_text)
    not_a_dir = write(tmp_path / "salida", "a file, not a directory")
    with pytest.raises(SystemExit) as exc_info:
        run_main(tiny_model_dir, str(note), "-o", str(not_a_dir))
    assert exc_info.value.code == 2
    assert f"{not_a_dir} exists and is not a directory" in capsys.readouterr().err


def test_unwritable_output_is_reported(tmp_path, tiny_model_dir, note_text, run_main):
    note = write(tmp_path / "nota.txt", note_text)
    blocker = write(tmp_path / "bloque", "a file where a directory is needed")
    status, _, err = run_main(tiny_model_dir, str(note), "-o", str(blocker / "salida"))
    assert status == 1
    assert f"error: {blocker / 'salida'}: cannot write output for {note}" in err
    assert "Traceback" not in err


# --------------------------------------------------------------------------- subprocess


def test_subprocess_stdin(tiny_model_dir, tiny_tagger, note_text, run_cli):
    result = run_cli("-", "--model", str(tiny_model_dir), "--format", "json", stdin=("\ufeff" + note_text).encode())
    assert result.returncode == 0
    data = json.loads(result.stdout.decode("utf-8"))
    assert data["doc_id"] == "stdin"
    expected = tiny_tagger.tag_texts(["\ufeff" + note_text])[0]
    assert [(e["start"], e["end"], e["type"]) for e in data["entities"]] == [(e.start, e.end, e.type) for e in expected]


def test_subprocess_missing_model(tmp_path, note_text, run_cli):
    note = write(tmp_path / "nota.txt", note_text)
    result = run_cli(str(note), env={"DEID_CRF_MODEL_DIR": str(tmp_path / "none")})
    assert result.returncode == 2
    assert result.stdout == b""
    assert "make train-crf" in result.stderr.decode()


def test_subprocess_bad_files_default_jobs(tmp_path, tiny_model_dir, tiny_tagger, note_text, other_text, run_cli):
    for name, text in (("a", note_text), ("b", other_text), ("c", note_text)):
        write(tmp_path / "in" / f"{name}.txt", text)
    write(tmp_path / "in" / "binaria.txt", b"\x00\x01Zebulonio")
    write(tmp_path / "in" / "latina.txt", "Zebulonio Núñez".encode("latin-1"))
    result = run_cli(str(tmp_path / "in"), "--model", str(tiny_model_dir), "-o", str(tmp_path / "out"))
    stderr = result.stderr.decode()
    assert result.returncode == 1
    assert "binaria.txt: looks like a binary file" in stderr and "latina.txt: not valid utf-8" in stderr
    assert sorted(os.listdir(tmp_path / "out")) == [RUN_FILE, "a.ann", "a.txt", "b.ann", "b.txt", "c.ann", "c.txt"]
    assert (tmp_path / "out" / "b.ann").read_text(encoding="utf-8") == expected_brat(tiny_tagger, other_text)
    assert (tmp_path / "out" / "a.ann").read_bytes() == (tmp_path / "out" / "c.ann").read_bytes()


def test_unknown_encoding_is_a_usage_error(tmp_path, tiny_model_dir, note_text, run_main, capsys):
    note = write(tmp_path / "nota.txt", note_text)
    with pytest.raises(SystemExit) as exc_info:
        run_main(tiny_model_dir, str(note), "--encoding", "bogus")
    assert exc_info.value.code == 2
    assert "unknown encoding 'bogus'" in capsys.readouterr().err
    assert run_main(tiny_model_dir, str(note), "--encoding", "latin-1")[0] == 0


def test_name_propagation_without_rules(tmp_path, tiny_model_dir, note_text, run_main):
    """``--rules off --propagate`` is the model with name propagation only."""
    note = write(tmp_path / "nota.txt", note_text + "Filiberta refiere dolor desde 19/08/1949.\n")
    sources = {}
    for extra in ([], ["--propagate"], ["--no-propagate"]):
        status, out, _ = run_main(tiny_model_dir, str(note), "--format", "json", "--rules", "off", *extra)
        assert status == 0
        sources[tuple(extra)] = [(e["text"], e["source"]) for e in json.loads(out)["entities"]]
    assert ("Filiberta", "propagated") in sources[("--propagate",)]
    assert all(source == "model" for _, source in sources[()] + sources[("--no-propagate",)])
    assert "rule" not in {source for _, source in sources[("--propagate",)]}  # the rules stay off


def test_brat_output_of_a_date_across_lines_reads_back(tmp_path, tiny_model_dir, note_text, run_main):
    from deid_crf.io.brat import read_document

    text = note_text + "Ingresó el 15 de\nmarzo de 2016 y el año\n2000; Tfno. 967 597\n100.\n"
    note = write(tmp_path / "in" / "nota.txt", text)
    assert run_main(tiny_model_dir, str(note), "-o", str(tmp_path / "out"))[0] == 0
    doc = read_document(tmp_path / "out" / "nota.txt")  # parse_ann refuses a T line cut by a line break
    assert doc.text == text and doc.entities
    assert all("\n" not in text[e.start : e.end] for e in doc.entities)
    assert "marzo de 2016" in [text[e.start : e.end] for e in doc.entities]


# --------------------------------------------------------------------------- --jsonl


def jsonl(*records: dict | str) -> str:
    """JSON lines: a dict is dumped, a str written as it is (a bad line)."""
    return "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records)


def read_jsonl(out: str) -> list[dict]:
    assert out.endswith("\n") or out == ""
    return [json.loads(line) for line in out.splitlines()]


def test_jsonl_annotations_match_the_json_format(tmp_path, tiny_model_dir, note_text, other_text, run_main):
    source = write(tmp_path / "notas.jsonl", jsonl({"id": "a", "text": note_text}, {"id": 7, "text": other_text}))
    status, out, err = run_main(tiny_model_dir, "--jsonl", str(source))
    assert (status, err) == (0, "")
    lines = read_jsonl(out)
    assert [line["id"] for line in lines] == ["a", 7] and [set(line) for line in lines] == [{"id", "entities"}] * 2
    for line, text in zip(lines, (note_text, other_text), strict=True):
        note = write(tmp_path / "nota.txt", text)
        assert run_main(tiny_model_dir, str(note), "--format", "json")[0] == 0
        assert line["entities"] == json.loads(run_main(tiny_model_dir, str(note), "--format", "json")[1])["entities"]
        assert line["entities"] and all(text[e["start"] : e["end"]] == e["text"] for e in line["entities"])


def test_jsonl_masked_gives_the_text_and_both_offsets(tmp_path, tiny_model_dir, note_text, run_main, fake_phi):
    source = write(tmp_path / "notas.jsonl", jsonl({"id": "a", "text": note_text}))
    status, out, _ = run_main(tiny_model_dir, "--jsonl", str(source), "--format", "masked")
    assert status == 0
    [line] = read_jsonl(out)
    assert set(line) == {"id", "text", "entities"}
    note = write(tmp_path / "nota.txt", note_text)
    assert line["text"] == run_main(tiny_model_dir, str(note), "--format", "masked")[1]
    assert line["entities"]
    for e in line["entities"]:
        assert set(e) == {"type", "start", "end", "output_start", "output_end", "confidence", "source"}
        assert line["text"][e["output_start"] : e["output_end"]] == f"[{e['type']}]"
        assert note_text[e["start"] : e["end"]] not in out  # the original strings are not repeated
    assert not any(phi in out for phi in fake_phi)


def test_jsonl_bad_lines_give_errors_naming_line_and_id_never_the_text(tmp_path, tiny_model_dir, note_text, run_main):
    phi = "Quirtanilla Zebulonio"
    lines = [
        {"id": "ok1", "text": note_text},
        "",  # blank: skipped
        '{"id": "x1", "text": "Nombre: Quirtanilla Zebulonio}',  # unterminated string
        {"text": f"Nombre: {phi}."},  # no id
        {"id": ["Quirtanilla"], "text": phi},  # id of the wrong type
        {"id": "x4"},
        {"id": "x5", "text": [phi]},
        f'["{phi}"]',
        {"id": "vacio", "text": ""},
        {"id": "ok2", "text": note_text},
    ]
    data = jsonl(*lines).encode("utf-8") + b'{"id": "x6", "text": "Zebulonio \xff"}\n'
    source = write(tmp_path / "notas.jsonl", data)
    status, out, err = run_main(tiny_model_dir, "--jsonl", str(source))
    assert status == 1
    assert "Quirtanilla" not in out and "Zebulonio" not in out
    results = read_jsonl(out)
    errors = [r for r in results if "error" in r]
    assert [(r["line"], r["id"]) for r in errors] == [
        (3, None),
        (4, None),
        (5, None),
        (6, "x4"),
        (7, "x5"),
        (8, None),
        (11, None),
    ]
    assert [r["error"] for r in errors] == [
        "not valid JSON (Unterminated string starting at: column 22)",
        'no "id"',
        '"id" is an array, not a string or an integer',
        'no "text"',
        '"text" is an array, not a string',
        "not a JSON object (an array)",
        "not valid UTF-8 at byte 32",
    ]
    tagged = [r for r in results if "error" not in r]
    assert [r["id"] for r in tagged] == ["ok1", "vacio", "ok2"]
    assert tagged[0]["entities"] and tagged[0]["entities"] == tagged[2]["entities"] and tagged[1]["entities"] == []
    assert [r["id"] for r in results] == ["ok1", None, None, None, "x4", "x5", None, "vacio", "ok2", None]
    assert err.count("warning: line ") == 7 and "Zebulonio" not in err


def test_jsonl_long_line_is_refused_and_the_next_tagged(tmp_path, tiny_model_dir, note_text, run_main):
    long_text = "Paciente sin antecedentes. " * 200
    source = write(tmp_path / "n.jsonl", jsonl({"id": "long", "text": long_text}, {"id": "short", "text": note_text}))
    status, out, _ = run_main(tiny_model_dir, "--jsonl", str(source), "--max-bytes", "2000")
    assert status == 1
    first, second = read_jsonl(out)
    assert first == {"id": None, "line": 1, "error": "line over --max-bytes"}
    assert second["id"] == "short" and second["entities"]


@pytest.mark.parametrize("size", [1, 7, 64])
def test_read_lines_reassembles_lines_across_reads(size):
    from deid_crf.batch.jsonl import read_lines

    class Trickle(io.BytesIO):
        def read1(self, n: int = -1) -> bytes:
            return super().read1(min(n, size))

    data = b'{"a": 1}\n\n' + b"x" * 30 + b'\n{"b": 2}\n{"c": 3}'
    batches = list(read_lines(Trickle(data), max_bytes=20))
    lines = [line for batch in batches for line in batch]
    assert lines == [(1, b'{"a": 1}'), (2, b""), (3, None), (4, b'{"b": 2}'), (5, b'{"c": 3}')]
    if size == 64:  # everything arrived in one read: one batch, then the unterminated last line
        assert [len(b) for b in batches] == [4, 1]


def test_jsonl_usage_errors(tmp_path, tiny_model_dir, note_text, run_main, capsys):
    source = write(tmp_path / "n.jsonl", jsonl({"id": "a", "text": note_text}))
    for extra, message in (
        ([str(source)], "--jsonl reads one input"),
        (["-o", str(tmp_path / "out")], "it does not go with -o"),
        (["--format", "conll"], "it does not go with --format conll"),
    ):
        with pytest.raises(SystemExit) as info:
            run_main(tiny_model_dir, "--jsonl", str(source), *extra)
        assert info.value.code == 2 and message in capsys.readouterr().err
    status, out, err = run_main(tiny_model_dir, "--jsonl", str(tmp_path / "none.jsonl"))
    assert (status, out) == (1, "") and "none.jsonl: cannot read file" in err
    assert run_main(tmp_path / "no-model", "--jsonl", str(source))[0] == 2


def test_jsonl_writes_key_records_to_the_key_file(tmp_path, tiny_model_dir, note_text, other_text, run_main):
    source = write(tmp_path / "n.jsonl", jsonl({"id": "a", "text": note_text}, "oops", {"id": 7, "text": other_text}))
    key = tmp_path / "secret" / "key.jsonl"
    args = ("--jsonl", str(source), "--format", "surrogate", "--seed", "3", "--key-file", str(key))
    status, out, _ = run_main(tiny_model_dir, *args)
    assert status == 1  # the line that is not JSON
    answers = [line for line in read_jsonl(out) if "error" not in line]
    records = [json.loads(line) for line in key.read_text(encoding="utf-8").splitlines()]
    assert [r["doc_id"] for r in records] == ["7", "a"] and oct(key.stat().st_mode & 0o777) == "0o600"
    for answer, record in zip(answers, sorted(records, key=lambda r: r["doc_id"] != "a"), strict=True):
        assert record["spans"] and [(s["start"], s["end"]) for s in record["spans"]] == [
            (e["start"], e["end"]) for e in answer["entities"]
        ]
        text = note_text if answer["id"] == "a" else other_text
        assert all(text[s["start"] : s["end"]] == s["original"] for s in record["spans"])
        assert all(answer["text"][s["output_start"] : s["output_end"]] == s["replacement"] for s in record["spans"])
    # Not a key file: refused before any line is read, and left as it was.
    (tmp_path / "notes.txt").write_text(note_text)
    status, out, err = run_main(tiny_model_dir, *args[:-1], str(tmp_path / "notes.txt"))
    assert (status, out) == (2, "") and "is not a deid-crf key file" in err
    assert (tmp_path / "notes.txt").read_text() == note_text


def test_jsonl_key_file_continues_patient_groups(tmp_path, tiny_model_dir, note_text, run_main, monkeypatch):
    monkeypatch.setenv("DEID_CRF_SECRET", "s" * 40)
    group = ("--format", "surrogate", "--group-by", "field:patient")
    first = write(tmp_path / "1.jsonl", jsonl({"id": "a", "patient": "P1", "text": note_text}))
    later = write(tmp_path / "2.jsonl", jsonl({"id": "b", "patient": "P1", "text": "Control de Gorostiza, bien."}))
    key = tmp_path / "k" / "key.jsonl"
    assert run_main(tiny_model_dir, "--jsonl", str(first), *group, "--key-file", str(key))[0] == 0
    status, out, _ = run_main(tiny_model_dir, "--jsonl", str(later), *group, "--key-file", str(key))
    [answer] = read_jsonl(out)
    assert status == 0 and "Gorostiza" not in answer["text"]  # the name recorded for the group is searched
    status, out, _ = run_main(tiny_model_dir, "--jsonl", str(later), *group, "--key-file", str(tmp_path / "new.jsonl"))
    assert "Gorostiza" in read_jsonl(out)[0]["text"]  # a new key file knows nothing of the group
    assert [json.loads(line)["doc_id"] for line in key.read_text().splitlines()] == ["a", "b"]


def test_subprocess_jsonl_answers_each_line_before_the_next_arrives(tiny_model_dir, note_text, fake_phi):
    """A pipeline sends one note and waits: its result comes back, flushed, while stdin is still open."""
    process = subprocess.Popen(
        [sys.executable, "-m", "deid_crf.tag", "--jsonl", "-", "--model", str(tiny_model_dir), "--format", "surrogate"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    try:
        answers = []
        for doc_id in ("uno", "dos"):
            process.stdin.write(jsonl({"id": doc_id, "text": note_text}).encode("utf-8"))
            process.stdin.flush()
            answers.append(json.loads(process.stdout.readline()))
        process.stdin.write(b"{bad\n")
        process.stdin.close()
        error = json.loads(process.stdout.readline())
        assert process.wait(timeout=60) == 1
    finally:
        process.kill()
    assert [a["id"] for a in answers] == ["uno", "dos"]
    assert answers[0]["text"] and answers[0]["text"] != note_text and answers[0]["entities"]
    assert error == {"id": None, "line": 3, "error": error["error"]} and error["error"].startswith("not valid JSON")
    stderr = process.stderr.read().decode()
    assert "Traceback" not in stderr and not any(phi in stderr for phi in fake_phi)
