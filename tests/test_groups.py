"""Patient groups (``--group-by``): one patient's documents de-identified as one record,
reproducibly from a secret, and reused by a later batch through the key file."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from conftest import ApellidosTagger

from deid_crf.batch.groups import Document, GroupingError, group_key_function, load_secret, parse_group_by
from deid_crf.batch.keys import group_memories
from deid_crf.deid.deidentifier import SURROGATE, Deidentifier
from deid_crf.deid.groups import GroupSecret, SecretError
from deid_crf.deid.rules import rule_layer
from deid_crf.deid.surrogates import normalize
from deid_crf.tag import main
from tests.conftest import PATIENTS, patient_document

SECRET = b"k" * 16 + b"0123456789abcdef"  # 32 bytes
OTHER_SECRET = b"z" * 40
GROUP_BY = r"NHC:\s*(\d+)"
DATE = re.compile(r"Fecha de ingreso: (\d\d)/(\d\d)/(\d{4})")
NAME = re.compile(r"Nombre: ([^.]+)\.\nApellidos: ([^.]+)\.")


def note(patient: tuple[str, str, str, str, str], day: str) -> str:
    return patient_document("x", (*patient[:3], day, patient[4])).text


def secret_file(tmp_path: Path, secret: bytes = SECRET, name: str = "secret.key") -> Path:
    path = tmp_path / "secrets" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(secret + b"\n")
    path.chmod(0o600)
    return path


def run(tmp_path, model, inputs, out, *extra: str, secret: Path | None = None) -> int:
    args = [str(inputs), "-o", str(out), "--model", str(model), "--format", "surrogate", "--group-by", GROUP_BY]
    args += ["--secret-file", str(secret or secret_file(tmp_path)), "-j", "1", *extra]
    return main(args)


def read(out: Path, doc: str) -> tuple[str, int]:
    """The surrogate name and the date shift (days) of an output of :func:`note`."""
    text = (out / f"{doc}.txt").read_text(encoding="utf-8")
    return " ".join(NAME.search(text).groups()), text


def shift(original_day: str, text: str) -> int:
    d, m, y = DATE.search(text).groups()
    od, om, oy = map(int, original_day.split("/"))
    return (date(int(y), int(m), int(d)) - date(oy, om, od)).days


A, B = PATIENTS[0], PATIENTS[1]
DAYS = {"a1": "03/03/2016", "a2": "10/04/2016", "a3": "22/05/2016", "b1": "03/03/2016", "a4": "01/09/2016"}


@pytest.fixture
def notes(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    for doc in ("a1", "a2", "a3", "b1"):
        (folder / f"{doc}.txt").write_text(note(A if doc[0] == "a" else B, DAYS[doc]), encoding="utf-8")
    return folder


def test_a_patients_documents_share_surrogates_and_date_shift(tmp_path, tiny_model_dir, notes, capsys):
    key = tmp_path / "secrets" / "key.jsonl"
    assert run(tmp_path, tiny_model_dir, notes, tmp_path / "out", "--key-file", str(key)) == 0
    out = tmp_path / "out"
    names = {doc: read(out, doc)[0] for doc in DAYS if doc != "a4"}
    shifts = {doc: shift(DAYS[doc], read(out, doc)[1]) for doc in names}
    assert names["a1"] == names["a2"] == names["a3"] != names["b1"]
    assert shifts["a1"] == shifts["a2"] == shifts["a3"] != shifts["b1"]
    assert all(shifts.values()) and A[0] not in names["a1"]
    # Without groups each document draws its own surrogates and shift: the test can fail.
    assert (
        main([str(notes), "-o", str(tmp_path / "alone"), "--model", str(tiny_model_dir), "--format", "surrogate"]) == 0
    )
    alone = {doc: read(tmp_path / "alone", doc) for doc in ("a1", "a2", "a3")}
    assert len({name for name, _ in alone.values()}) > 1 or len({shift(DAYS[d], t) for d, (_, t) in alone.items()}) > 1

    # Reproducible with the same secret, whatever the number of workers; another secret, other values.
    assert run(tmp_path, tiny_model_dir, notes, tmp_path / "again", "-j", "2") == 0
    for doc in names:
        assert (tmp_path / "again" / f"{doc}.txt").read_bytes() == (out / f"{doc}.txt").read_bytes()
    other = secret_file(tmp_path, OTHER_SECRET, "other.key")
    assert run(tmp_path, tiny_model_dir, notes, tmp_path / "other", secret=other) == 0
    assert read(tmp_path / "other", "a1")[0] != names["a1"]

    # A second batch: a fourth document of the first patient, the same key file.
    later = tmp_path / "later"
    later.mkdir()
    (later / "a4.txt").write_text(note(A, DAYS["a4"]), encoding="utf-8")
    assert run(tmp_path, tiny_model_dir, later, tmp_path / "out2", "--key-file", str(key)) == 0
    name4, text4 = read(tmp_path / "out2", "a4")
    assert name4 == names["a1"] and shift(DAYS["a4"], text4) == shifts["a1"]
    records = [json.loads(line) for line in key.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["doc_id"] for r in records) == ["a1", "a2", "a3", "a4", "b1"]
    assert len({r["group"] for r in records}) == 2 and A[2] not in {r["group"] for r in records}
    assert SECRET.decode() not in key.read_text(encoding="utf-8")
    # What the second batch read back: the first patient's mapping, as the first batch drew it.
    memories = group_memories(key, GroupSecret(SECRET).check())
    first = memories[GroupSecret(SECRET).tag(A[2])]
    assert first.parts[normalize(A[0])] == names["a1"].split()[0]
    assert first.names[A[0]] == "NOMBRE_SUJETO_ASISTENCIA"
    # The same key file with another secret is refused before any work.
    status = run(tmp_path, tiny_model_dir, later, tmp_path / "out3", "--key-file", str(key), secret=other)
    assert status == 2 and "another secret" in capsys.readouterr().err
    assert not (tmp_path / "out3" / "a4.txt").exists()


def test_a_group_is_redone_whole_when_resumed(tmp_path, tiny_model_dir, notes):
    key = tmp_path / "secrets" / "key.jsonl"
    assert run(tmp_path, tiny_model_dir, notes, tmp_path / "out", "--key-file", str(key)) == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "out").glob("*.txt")}
    keys_before = key.read_bytes()
    (tmp_path / "out" / "a2.txt").unlink()  # as a run killed inside the group leaves it
    assert run(tmp_path, tiny_model_dir, notes, tmp_path / "out", "--key-file", str(key)) == 0
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").glob("*.txt")} == before
    assert key.read_bytes() == keys_before


def test_names_found_in_one_document_are_searched_in_the_others():
    deid = Deidentifier(ApellidosTagger(), rules=rule_layer("off", propagate=True), secret=GroupSecret(SECRET))
    texts = ["Apellidos: Quirtanilla.\n", "Control: Quirtanilla refiere mejoría.\n"]
    alone = deid.deidentify_many(texts, SURROGATE, ["n1", "n2"])
    assert "Quirtanilla" in alone[1].text  # per document, the second note keeps it
    together = deid.deidentify_group(texts, SURROGATE, ["n1", "n2"], "t")
    assert all("Quirtanilla" not in r.text for r in together)
    surrogate = together[0].spans[0].replacement
    assert together[1].spans[0].replacement == surrogate and together[1].spans[0].source == "propagated"
    # The order the documents come in changes nothing.
    assert [r.text for r in deid.deidentify_group(texts[::-1], SURROGATE, ["n2", "n1"], "t")][::-1] == [
        r.text for r in together
    ]
    # A later batch: the names of earlier ones come from the key file's memory.
    from deid_crf.deid.groups import GroupMemory

    memory = GroupMemory(parts=dict(together[0].group_used.parts), names={"Quirtanilla": "NOMBRE_SUJETO_ASISTENCIA"})
    (later,) = deid.deidentify_group(["Visto: Quirtanilla.\n"], SURROGATE, ["n3"], "t", memory)
    assert "Quirtanilla" not in later.text and surrogate in later.text
    # The recorded mapping wins over a new draw.
    memory.parts["quirtanilla"] = "Berrocal"
    (later,) = deid.deidentify_group(["Visto: Quirtanilla.\n"], SURROGATE, ["n3"], "t", memory)
    assert later.text == "Visto: Berrocal.\n"


def test_group_keys_and_secrets_are_checked(tmp_path, tiny_model_dir, notes, capsys, monkeypatch):
    assert parse_group_by(r"NHC:\s*(\d+)") == ("regex", r"NHC:\s*(\d+)")
    assert parse_group_by("field:patient_id") == ("field", "patient_id")
    assert parse_group_by("regex:field:(\\d+)") == ("regex", "field:(\\d+)")
    for bad in ("NHC: \\d+", "(a)(b)", "(unclosed"):
        with pytest.raises(GroupingError):
            parse_group_by(bad)
    assert group_key_function(GROUP_BY)(Document("Nombre: X.\nNHC: 0042.\n")) == "0042"
    assert group_key_function(GROUP_BY)(Document("sin número")) is None
    assert group_key_function("field:p")(Document("", {"p": 7})) == "7"
    assert group_key_function("field:p")(Document("", {"p": None})) is None

    monkeypatch.delenv("DEID_CRF_SECRET", raising=False)
    with pytest.raises(SecretError, match="DEID_CRF_SECRET"):
        load_secret(None, {})
    with pytest.raises(SecretError, match="at least 32"):
        load_secret(None, {"DEID_CRF_SECRET": "short"})
    assert load_secret(None, {"DEID_CRF_SECRET": SECRET.decode()}) == SECRET
    readable = secret_file(tmp_path, name="readable.key")
    readable.chmod(0o644)
    with pytest.raises(SecretError, match="chmod 600") as info:
        load_secret(readable)
    assert SECRET.decode() not in str(info.value)
    with pytest.raises(SecretError, match="at least 32"):
        load_secret(secret_file(tmp_path, b"0123456789", "short.key"))
    with pytest.raises(SecretError, match="cannot read"):
        load_secret(tmp_path / "missing.key")
    assert load_secret(secret_file(tmp_path)) == SECRET

    base = [str(notes), "-o", str(tmp_path / "o"), "--model", str(tiny_model_dir), "--format", "surrogate"]
    assert main([*base, "--group-by", GROUP_BY]) == 2  # no secret at all
    assert "DEID_CRF_SECRET" in capsys.readouterr().err
    monkeypatch.setenv("DEID_CRF_SECRET", SECRET.decode())
    for extra, message in (
        (["--group-by", "NHC"], "exactly one capture group"),
        (["--group-by", "field:nhc"], "--jsonl"),
        (["--group-by", GROUP_BY, "--backend", "dask"], "--backend local"),
        (["--secret-file", str(secret_file(tmp_path))], "--secret-file goes with --group-by"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            main([*base, *extra])
        assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    assert main([*base, "--group-by", GROUP_BY]) == 0  # the secret from the environment


def test_jsonl_groups_by_a_field(tmp_path, tiny_model_dir, monkeypatch, capsysbinary):
    monkeypatch.setenv("DEID_CRF_SECRET", SECRET.decode())
    lines = [
        {"id": "a1", "patient": "P1", "text": note(A, DAYS["a1"])},
        {"id": "b1", "patient": "P2", "text": note(B, DAYS["b1"])},
        {"id": "a2", "patient": "P1", "text": note(A, DAYS["a2"])},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    args = [
        str(source),
        "--jsonl",
        "--model",
        str(tiny_model_dir),
        "--format",
        "surrogate",
        "--group-by",
        "field:patient",
    ]
    assert main(args) == 0
    results = [json.loads(line) for line in capsysbinary.readouterr().out.decode().splitlines()]
    assert [r["id"] for r in results] == ["a1", "b1", "a2"]
    name = {r["id"]: NAME.search(r["text"]).groups() for r in results}
    assert name["a1"] == name["a2"] != name["b1"]
    assert shift(DAYS["a1"], results[0]["text"]) == shift(DAYS["a2"], results[2]["text"])
