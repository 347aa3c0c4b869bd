"""Batch de-identification: ≥200 documents with corrupt ones, kill and resume, and no
PHI in any log."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import patient_document

from deid_crf.batch import engine as batch
from deid_crf.tag import main

REPO = Path(__file__).resolve().parents[1]

FIRST = ["Zebulonio", "Anselma", "Teodulfo", "Rigoberta", "Eustaquio", "Wenceslada", "Filiberta", "Hermógenes"]
SURNAMES = ["Quirtanilla", "Britovar", "Carrasquel", "Palomequ", "Valdorria", "Oyarzun", "Gorostiza", "Mofrejo"]
PHI = FIRST + SURNAMES
N_GOOD = 200
MAX_BYTES = "2000"

# The program a killed run executes: the CLI, with SIGKILL sent to itself right after
# the N-th output file is renamed into place, or right after the N-th key record is
# appended (before that document's outputs are written).
KILLER = """
import os, signal, sys
import deid_crf.batch.engine as batch
limit, where, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
count = 0
def kill_after(function):
    def wrapped(*args):
        global count
        function(*args)
        count += 1
        if count == limit:
            os.kill(os.getpid(), signal.SIGKILL)
    return wrapped
if where == "output":  # the limit-th output renamed into place, amid its chunk's others
    real_replace = os.replace
    count_output = kill_after(lambda: None)
    def replace(source, target, *args, **kwargs):
        real_replace(source, target, *args, **kwargs)
        if str(target).endswith(".txt"):
            count_output()
    os.replace = replace
else:
    batch.KeyFile.append = kill_after(batch.KeyFile.append)
from deid_crf.tag import main
raise SystemExit(main(argv))
"""


def patient(i: int) -> tuple[str, str, str, str, str]:
    surnames = f"{SURNAMES[i % 8]} {SURNAMES[(i * 3 + 1) % 8]}"
    day = f"{i % 28 + 1:02d}/{i % 12 + 1:02d}/{1930 + i % 60}"
    return FIRST[i % 8], surnames, str(100000 + 37 * i), day, str(20 + i % 75)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """200 good documents in a two-level tree, 8 corrupt ones and 2 empty ones (~5 %
    bad); returns the root and the expected reason of each bad file."""
    root = tmp_path_factory.mktemp("batch") / "in"
    for i in range(N_GOOD):
        folder = root / "a" if i % 2 else root / "b" / "c"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"doc{i:03d}.txt").write_text(patient_document(f"doc{i}", patient(i)).text, encoding="utf-8")
    bad = {
        "a/binaria1.txt": (b"Nombre: Zebulonio\x00\x00Quirtanilla", "looks like a binary file"),
        "b/c/binaria2.txt": (b"\x00Anselma Britovar", "looks like a binary file"),
        "a/binaria3.txt": (b"NHC\x00 Teodulfo", "looks like a binary file"),
        "a/latina1.txt": ("Nombre: Zebulonio Núñez.\n".encode("latin-1"), "not valid utf-8"),
        "b/c/latina2.txt": ("Apellidos: Gorostiza Ibáñez.\n".encode("latin-1"), "not valid utf-8"),
        "a/latina3.txt": ("Médico: Filiberta Peña.\n".encode("latin-1"), "not valid utf-8"),
        "a/enorme1.txt": (("Nombre: Rigoberta Palomequ.\n" * 120).encode(), "over the limit of 2000"),
        "b/c/enorme2.txt": (("Eustaquio Valdorria.\n" * 150).encode(), "over the limit of 2000"),
        "a/vacia1.txt": (b"", "empty input"),
        "b/c/vacia2.txt": (b"", "empty input"),
    }
    for name, (data, _) in bad.items():
        (root / name).write_bytes(data)
    return root, {name: reason for name, (_, reason) in bad.items()}


def cli(args: list[str], killer: tuple[int, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "deid_crf.tag", *args]
    if killer is not None:
        command = [sys.executable, "-c", KILLER, str(killer[0]), killer[1], *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=300)


def tree(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def outputs(directory: Path) -> list[str]:
    """The output files under ``directory``, without the record of the run's settings."""
    return sorted(name for name in tree(directory) if name != batch.RUN_FILE)


def assert_no_phi(*texts: str) -> None:
    for text in texts:
        leaked = [phi for phi in PHI if phi in text]
        assert not leaked, f"PHI in logs: {leaked}"


def test_batch_kill_and_resume_gives_the_same_outputs(corpus, tiny_model_dir, tmp_path):
    root, bad = corpus
    common = ["--model", str(tiny_model_dir), "--format", "surrogate", "--seed", "7", "--max-bytes", MAX_BYTES]

    # Uninterrupted, two worker processes.
    full = cli([str(root), "-o", str(tmp_path / "full"), "--key-file", str(tmp_path / "k1" / "key.jsonl"), "-j", "2",
                "-v", "--log-file", str(tmp_path / "full.log"), *common])  # fmt: skip
    assert full.returncode == 1, full.stderr
    for name, reason in bad.items():
        assert f"{root / name}: " in full.stderr and reason in full.stderr.split(f"{root / name}: ")[1].split("\n")[0]
    assert f"into {tmp_path / 'full'}: 200 ok, 8 failed, 0 skipped (up to date), 2 empty" in full.stderr
    expected = tree(tmp_path / "full")
    good = {f"{'a' if i % 2 else 'b/c'}/doc{i:03d}.txt" for i in range(N_GOOD)}
    assert set(expected) == good | {"a/vacia1.txt", "b/c/vacia2.txt", batch.RUN_FILE}
    assert_no_phi(full.stdout, full.stderr, (tmp_path / "full.log").read_text(encoding="utf-8"))
    key_path = tmp_path / "k1" / "key.jsonl"
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    records = [json.loads(line) for line in key_path.read_text(encoding="utf-8").splitlines()]
    assert len(records) == N_GOOD + 2 and len({r["doc_id"] for r in records}) == N_GOOD + 2
    assert any(s["original"] == "Zebulonio" for r in records for s in r["spans"])  # the key holds the PHI

    # Killed twice (after the 60th output; between a key record and its outputs), then resumed.
    out, key = tmp_path / "resumed", tmp_path / "k2" / "key.jsonl"
    args = [str(root), "-o", str(out), "--key-file", str(key), "-j", "1", *common]
    killed = cli(args, killer=(60, "output"))
    assert killed.returncode == -9
    assert 0 < len(tree(out)) < len(expected)
    killed = cli(args, killer=(30, "key"))
    assert killed.returncode == -9
    with open(key, "a", encoding="utf-8") as f:
        f.write('{"date_shift_days": -12, "doc_id": "a/doc0')  # a record torn by a kill (keys sorted)
    stale = out / "a" / ".doc001.txt.abc123.tmp"
    stale.write_text("half a document", encoding="utf-8")
    resumed = cli(args)
    assert resumed.returncode == 1
    assert "skipped (up to date)" in resumed.stderr and " 0 skipped" not in resumed.stderr
    assert tree(out) == expected
    assert key.read_bytes() == key_path.read_bytes()
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert_no_phi(killed.stderr, resumed.stderr)

    # A third run has nothing left to do, unless told to overwrite.
    mtimes = {p: p.stat().st_mtime_ns for p in out.rglob("*.txt")}
    again = cli(args)
    assert "0 ok, 8 failed, 202 skipped" in again.stderr
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.txt")} == mtimes


def test_no_phi_in_logs_even_on_internal_errors(corpus, tiny_model_dir, tmp_path, capsys, monkeypatch):
    root, _ = corpus
    original = batch.Deidentifier.apply

    def failing_apply(self, text, spans, mode, doc_id=""):
        if doc_id.endswith("doc007"):
            raise RuntimeError(f"cannot handle {text[:40]!r}")  # a message quoting the document
        return original(self, text, spans, mode, doc_id)

    monkeypatch.setattr(batch.Deidentifier, "apply", failing_apply)
    log_file = tmp_path / "run.log"
    for fmt in ("masked", "json"):
        status = main([str(root), "-o", str(tmp_path / fmt), "--model", str(tiny_model_dir), "--format", fmt, "-j", "1",
                       "--max-bytes", MAX_BYTES, "-v", "--log-file", str(log_file), "--progress"])  # fmt: skip
        out, err = capsys.readouterr()
        assert status == 1
        assert "a/doc007.txt: internal error (RuntimeError) while de-identifying" in err
        assert "a/doc001: " in err and "span(s)" in err  # verbose per-document lines: ids, counts and types
        assert_no_phi(out, err)
    assert_no_phi(log_file.read_text(encoding="utf-8"))
    masked = (tmp_path / "masked" / "a" / "doc001.txt").read_text(encoding="utf-8")
    assert "Zebulonio" not in masked and "[NOMBRE_SUJETO_ASISTENCIA]" in masked

    def exploding_run(*args, **kwargs):
        raise ValueError("Nombre: Zebulonio Quirtanilla")

    monkeypatch.setattr("deid_crf.tag.run", exploding_run)
    assert main([str(root), "-o", str(tmp_path / "x"), "--model", str(tiny_model_dir), "-j", "1"]) == 3
    out, err = capsys.readouterr()
    assert "internal error (ValueError)" in err
    assert_no_phi(out, err)


def test_inputs_outputs_and_usage_errors(tmp_path, tiny_model_dir, capsys):
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "sub" / "uno.txt").write_text("Nombre: Zebulonio.\n", encoding="utf-8")
    (notes / ".oculto.txt").write_text("Nombre: Anselma.\n", encoding="utf-8")
    (notes / "dos.note").write_text("NHC: 368503.\n", encoding="utf-8")
    model = ["--model", str(tiny_model_dir), "-j", "1"]

    assert main([str(notes / "**" / "*.txt"), "-o", str(tmp_path / "g"), "--format", "masked", *model]) == 0
    assert outputs(tmp_path / "g") == ["sub/uno.txt"]
    assert main([str(notes), "--pattern", "*.note", "-o", str(tmp_path / "p"), "--format", "masked", *model]) == 0
    assert outputs(tmp_path / "p") == ["dos.txt"]
    # Outputs inside the input tree are not taken as inputs on the next run.
    assert main([str(notes), "-o", str(notes / "deid"), "--format", "masked", *model]) == 0
    assert main([str(notes), "-o", str(notes / "deid"), "--format", "masked", *model]) == 0
    assert outputs(notes / "deid") == ["sub/uno.txt"]
    # Masked output never overwrites its input.
    assert main([str(notes / "sub" / "uno.txt"), "-o", str(notes / "sub"), "--format", "masked", *model]) == 1
    assert "would overwrite the input" in capsys.readouterr().err
    assert (notes / "sub" / "uno.txt").read_text(encoding="utf-8") == "Nombre: Zebulonio.\n"
    # The key file stays out of the output tree, and goes only with masked/surrogate.
    for extra in (["--format", "surrogate", "--key-file", str(tmp_path / "o" / "k.jsonl")], ["--key-file", "k.jsonl"]):
        with pytest.raises(SystemExit):
            main([str(notes), "-o", str(tmp_path / "o"), *extra, *model])
    capsys.readouterr()


def test_stdin_and_stdout_with_key_file(tmp_path, tiny_model_dir, monkeypatch, capsys, unseen_document):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(unseen_document.text.encode("utf-8"))))
    key = tmp_path / "key.jsonl"
    args = ["-", "--model", str(tiny_model_dir), "--format", "surrogate", "--seed", "1", "--key-file", str(key)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert err == "" and "Filiberta" not in out and out.endswith("abdominal. La exploración es normal.\n")
    (record,) = [json.loads(line) for line in key.read_text(encoding="utf-8").splitlines()]
    assert record["doc_id"] == "stdin" and stat.S_IMODE(key.stat().st_mode) == 0o600
    replaced = {s["original"]: s["replacement"] for s in record["spans"]}
    assert replaced["Filiberta"] in out


def test_a_rerun_with_other_settings_is_refused_unless_it_overwrites(tmp_path, tiny_model_dir, capsys, monkeypatch):
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(3):
        (notes / f"doc{i}.txt").write_text(patient_document(f"doc{i}", patient(i)).text, encoding="utf-8")
    out = tmp_path / "out"

    def run_tag(*extra: str) -> tuple[int, str]:
        status = main([str(notes), "-o", str(out), "--model", str(tiny_model_dir), "-j", "1", *extra])
        return status, capsys.readouterr().err

    surrogate = ["--format", "surrogate", "--seed", "1"]
    assert run_tag(*surrogate)[0] == 0
    first = tree(out)
    recorded = json.loads(first[batch.RUN_FILE])
    assert recorded["settings"]["format"] == "surrogate" and recorded["since_ns"] == 0
    assert '"1"' not in first[batch.RUN_FILE].decode() and recorded["settings"]["seed_sha256"]  # the seed is hashed

    for changed in (
        ["--format", "masked"],
        ["--format", "surrogate", "--seed", "2"],
        ["--format", "surrogate"],  # a random seed is not seed 1
        [*surrogate, "--rules", "off"],
        [*surrogate, "--no-propagate"],
        [*surrogate, "--mask", "<{type}>"],
        [*surrogate, "--mask-char", "*"],
        [*surrogate, "--keep", ""],
        [*surrogate, "--encoding", "latin-1"],
    ):
        with pytest.raises(SystemExit) as info:
            run_tag(*changed)
        err = capsys.readouterr().err
        assert info.value.code == 2, changed
        assert f"{out} holds outputs of a run with other settings" in err and "--overwrite" in err
        assert tree(out) == first  # nothing touched
    assert "0 ok, 0 failed, 3 skipped" in run_tag(*surrogate)[1]

    # A key file added later: documents without a key record are redone (same bytes with the seed).
    key = tmp_path / "secret" / "key.jsonl"
    status, err = run_tag(*surrogate, "--key-file", str(key))
    assert status == 0 and "3 ok, 0 failed, 0 skipped" in err
    assert tree(out) == first and len(key.read_text(encoding="utf-8").splitlines()) == 3
    assert "0 ok, 0 failed, 3 skipped" in run_tag(*surrogate, "--key-file", str(key))[1]

    # Outputs with no record of their settings are not taken as done either.
    (out / batch.RUN_FILE).unlink()
    with pytest.raises(SystemExit):
        run_tag(*surrogate)
    assert "settings are unknown" in capsys.readouterr().err

    # --overwrite redoes everything with the new settings; killed after one document,
    # the run resumed without --overwrite still redoes the other two.
    write = batch.atomic_write_texts

    def interrupted_write(files, *mode):
        write(files[:1], *mode)  # the first output, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(batch, "atomic_write_texts", interrupted_write)
    assert run_tag("--format", "masked", "--overwrite")[0] == 130
    monkeypatch.setattr(batch, "atomic_write_texts", write)
    status, err = run_tag("--format", "masked")
    assert status == 0 and "2 ok, 0 failed, 1 skipped" in err
    assert (
        main(
            [str(notes), "-o", str(tmp_path / "clean"), "--model", str(tiny_model_dir), "--format", "masked", "-j", "1"]
        )
        == 0
    )
    assert {k: v for k, v in tree(out).items() if k != batch.RUN_FILE} == {
        k: v for k, v in tree(tmp_path / "clean").items() if k != batch.RUN_FILE
    }
    capsys.readouterr()


def test_brat_output_never_replaces_an_input_ann(tmp_path, tiny_model_dir, capsys):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "uno.ann").write_text("T1\tNOMBRE_SUJETO_ASISTENCIA 8 17\tZebulonio\n", encoding="utf-8")
    status = main([str(notes), "--pattern", "*.ann", "-o", str(notes), "--model", str(tiny_model_dir), "-j", "1"])
    assert status == 1 and "would overwrite the input" in capsys.readouterr().err
    assert (notes / "uno.ann").read_text(encoding="utf-8") == "T1\tNOMBRE_SUJETO_ASISTENCIA 8 17\tZebulonio\n"
    assert not (notes / "uno.txt").exists()


def test_model_digest_is_read_once_per_process_until_a_file_changes(tmp_path, monkeypatch):
    model = tmp_path / "model"
    (model / "sub").mkdir(parents=True)
    (model / "config.json").write_text("{}", encoding="utf-8")
    (model / "sub" / "weights.bin").write_bytes(b"\x00" * 100)
    first = batch.model_digest(model)
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a[0]) or real_open(*a, **k))
    assert batch.model_digest(model) == first and opened == []  # remembered: no file read again
    (model / "sub" / "weights.bin").write_bytes(b"\x00" * 99 + b"\x01")  # same size, new bytes and time
    os.utime(model / "sub" / "weights.bin", ns=(1, 1))
    assert batch.model_digest(model) != first and opened


@pytest.mark.parametrize("n_items, jobs", [(250, 1), (250, 2), (250, 4), (40, 2), (7, 2), (3, 4), (0, 2)])
def test_chunks_keep_every_document_in_order_and_shrink_at_the_end(n_items: int, jobs: int):
    items = [batch.WorkItem(f"in/{i}.txt", str(i), ("-",)) for i in range(n_items)]
    chunks = batch._chunks(items, jobs)
    assert [item for chunk in chunks for item in chunk] == items
    sizes = [len(chunk) for chunk in chunks]
    assert all(0 < size <= batch.MAX_CHUNK for size in sizes)
    if jobs == 1:  # one process: chunks of one size
        assert len(set(sizes[:-1])) <= 1
    else:  # several: never growing, and the last ones small enough for the workers to end together
        assert sizes == sorted(sizes, reverse=True)
        assert n_items < 4 * batch.MIN_TAIL_CHUNK * jobs or sizes[-jobs] <= batch.MIN_TAIL_CHUNK


def test_stale_temporaries_are_those_the_glob_of_each_output_found(tmp_path):
    # remove_stale_temporaries lists each folder once instead of globbing
    # ".NAME.*.tmp" per output: the same files must go, whatever dots and glob
    # characters the names hold.
    import fnmatch
    import glob
    import random

    rng = random.Random(3)
    pieces = ["a", "doc", ".", "..", "txt", "ann", "tmp", ".tmp", "*", "[x]", "?", "-", "é", "A"]
    for trial in range(60):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        names = {"".join(rng.choice(pieces) for _ in range(rng.randint(1, 4))) for _ in range(3)}
        names = sorted(n for n in names if n not in (".", "..") and "/" not in n)
        entries = set()
        for _ in range(40):  # temporaries of the outputs, near misses, and strangers' files
            name = rng.choice([*names, "other"])
            middle = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 3)))
            entries.add(rng.choice([f".{name}.{middle}.tmp", f".{name}{middle}.tmp", f"{name}.{middle}.tmp"]))
        entries = {e for e in entries if e not in (".", "..") and "/" not in e}
        for entry in entries:
            (folder / entry).write_text("x", encoding="utf-8")
        globbed = {e for e in entries for n in names if fnmatch.fnmatchcase(e, f".{glob.escape(n)}.*.tmp")}
        item = batch.WorkItem("in.txt", "in", tuple(str(folder / n) for n in names))
        batch.remove_stale_temporaries([item, batch.WorkItem("-", "stdin", ("-",))])
        assert {p.name for p in folder.iterdir()} == entries - globbed, (names, sorted(entries))
    # a folder not made yet is no error
    batch.remove_stale_temporaries([batch.WorkItem("in.txt", "in", (str(tmp_path / "new" / "a.ann"),))])
