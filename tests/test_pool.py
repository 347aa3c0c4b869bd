"""Forked workers (deid_crf.batch.pool): the batch and --jsonl runs they serve give the
outputs of one process, the workers tag with the model their parent loaded, and a
worker that dies fails the run instead of hanging it."""

from __future__ import annotations

import io
import json
import os
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from conftest import patient_document

from deid_crf.batch import engine as batch
from deid_crf.batch import jsonl
from deid_crf.batch.pool import can_fork

pytestmark = pytest.mark.skipif(not can_fork(), reason="workers are forked on Linux only")

PATIENTS = [
    ("Zebulonio", "Quirtanilla Britovar", "745120", "03/04/1951", "71"),
    ("Anselma", "Carrasquel Oyarzun", "100037", "12/11/1987", "36"),
    ("Teodulfo", "Gorostiza Mofrejo", "100074", "28/02/1940", "83"),
]


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pool") / "in"
    root.mkdir()
    for i in range(24):
        text = patient_document(f"n{i}", PATIENTS[i % 3]).text
        (root / f"n{i:02d}.txt").write_text(text, encoding="utf-8")
    return root


def run(notes: Path, model: Path, out: Path, fmt: str, jobs: int) -> batch.Summary:
    found, problems = batch.discover([str(notes)], output_dir=out)
    items, refused = batch.plan(found, fmt, out)
    assert not problems and not refused
    settings = batch.Settings(str(model), fmt, seed=5, model_sha256=batch.model_digest(model))
    return batch.run(items, settings, jobs=jobs, output_dir=out)


def tree(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _no_load(*args, **kwargs):
    raise AssertionError("a worker loaded the model again")


def _forked_name() -> str:
    return f"forked:{os.getpid()}"


@pytest.mark.parametrize("fmt", ["json", "surrogate"])
def test_forked_workers_share_the_loaded_model_and_write_what_one_process_writes(
    notes, tiny_model_dir, tmp_path, monkeypatch, fmt
):
    alone = run(notes, tiny_model_dir, tmp_path / "one", fmt, jobs=1)  # loads the model here
    # Workers forked from this process see these patches (fresh interpreters would not):
    # they name themselves "forked:PID", and fail every document if they load a model.
    monkeypatch.setattr(batch, "load_model", _no_load)
    monkeypatch.setattr(batch, "process_name", _forked_name)
    shared = run(notes, tiny_model_dir, tmp_path / "two", fmt, jobs=2)
    assert alone.counts == shared.counts == {"ok": 24, "skipped": 0}
    assert tree(tmp_path / "two") == tree(tmp_path / "one")
    workers = set(shared.model_loads)
    assert len(workers) == 2 and all(w.startswith("forked:") for w in workers)
    assert f"forked:{os.getpid()}" not in workers


def _exit_at_once(task):
    os._exit(1)


def test_a_worker_that_dies_fails_the_run_instead_of_hanging(notes, tiny_model_dir, tmp_path, monkeypatch):
    # Forked workers see this process's patched module: each exits at its first chunk.
    monkeypatch.setattr(batch, "_process_chunk_task", _exit_at_once)
    with pytest.raises(BrokenProcessPool):
        run(notes, tiny_model_dir, tmp_path / "out", "brat", jobs=2)


def _jsonl_input(n: int) -> bytes:
    lines = [json.dumps({"id": i, "text": patient_document(f"n{i}", PATIENTS[i % 3]).text}) for i in range(n)]
    lines.insert(7, "not json")
    return ("\n".join(lines) + "\n").encode()


_IN_WORKER = jsonl._deidentify_in_worker


def _recorded(task):
    with open(os.environ["DEID_CRF_TEST_PIDS"], "a") as f:
        f.write(f"{os.getpid()}\n")
    return _IN_WORKER(task)


@pytest.mark.parametrize("fmt", ["json", "masked"])
def test_jsonl_in_forked_workers_answers_as_one_process_in_input_order(tiny_model_dir, tmp_path, monkeypatch, fmt):
    source = tmp_path / "notes.jsonl"
    source.write_bytes(_jsonl_input(40))
    settings = batch.Settings(str(tiny_model_dir), fmt, seed=3)
    alone, shared = io.BytesIO(), io.BytesIO()
    assert jsonl.run_jsonl(str(source), settings, alone, jobs=1) == 1  # the bad line
    # Record which processes de-identify the shares: forked workers see the patched module.
    pids = tmp_path / "pids"
    monkeypatch.setenv("DEID_CRF_TEST_PIDS", str(pids))
    monkeypatch.setattr(jsonl, "_deidentify_in_worker", _recorded)
    assert jsonl.run_jsonl(str(source), settings, shared, jobs=2) == 1
    assert shared.getvalue() == alone.getvalue()
    records = [json.loads(line) for line in shared.getvalue().splitlines()]
    assert [r["id"] for r in records] == [*range(7), None, *range(7, 40)]
    workers = set(pids.read_text().split())
    assert len(workers) == 2 and str(os.getpid()) not in workers


def test_jsonl_key_records_from_forked_workers_equal_one_process(tiny_model_dir, tmp_path):
    source = tmp_path / "notes.jsonl"
    source.write_bytes(_jsonl_input(40))
    settings = batch.Settings(str(tiny_model_dir), "surrogate", seed=5)
    keys = {}
    for jobs in (1, 2):
        out, key_file = io.BytesIO(), tmp_path / f"key{jobs}.jsonl"
        assert jsonl.run_jsonl(str(source), settings, out, key_file=key_file, jobs=jobs) == 1
        keys[jobs] = (out.getvalue(), key_file.read_bytes())
    assert keys[1] == keys[2]
    records = [json.loads(line) for line in keys[2][1].splitlines()]
    assert len(records) == 40 and all(r["spans"] for r in records)


def test_jsonl_tags_a_few_notes_in_this_process(tiny_model_dir, tmp_path, monkeypatch):
    """A note sent alone is answered at once, without a round trip to a worker."""
    source = tmp_path / "notes.jsonl"
    source.write_bytes(_jsonl_input(3))
    monkeypatch.setattr(jsonl, "_deidentify_in_worker", _exit_at_once)  # a worker would break the run
    out = io.BytesIO()
    assert jsonl.run_jsonl(str(source), batch.Settings(str(tiny_model_dir), "json"), out, jobs=2) == 1
    assert len(out.getvalue().splitlines()) == 4
