"""Damaged CRFsuite model files never crash the process and never load silently.

1,200 variants of a small model file trained here, truncated or with bytes changed
(header fields set to extreme values, as the issue's 0x7FFFFFF0 offsets, and random
flips, many in the chunk headers and offset tables): the model's manifest refuses
every one before any C code reads it; without a manifest (a model saved before
them) the structural check of ``deid_crf.models.crfsuite_file`` refuses those
CRFsuite could not read safely, and every variant it lets through is opened, tagged
and read whole by CRFsuite in a child process, which must exit cleanly.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from deid_crf.io.persistence import MANIFEST_FILE, InvalidModel, verify_manifest
from deid_crf.models import load_model
from deid_crf.models.crf import MODEL_FILE
from deid_crf.models.crfsuite_file import HEADER, check_model_file
from deid_crf.tag import main

N_RANDOM = 900

# Opens every model file named on the command line with CRFsuite, tags sequences of
# known and unknown attributes, reads every label, attribute and feature (info) and
# every marginal; prints how many it got through.
READER = """
import sys
import pycrfsuite
xseq = [[a for a in sys.argv[1].split("\\t")] for _ in range(3)] + [["zz-unknown", "w=Zebulonio"]]
done = 0
for path in sys.argv[2:]:
    tagger = pycrfsuite.Tagger()
    try:
        tagger.open(path)
    except Exception:
        continue
    try:
        labels = tagger.labels()
        tagger.tag(xseq)
        for label in labels:
            tagger.marginal(label, 0)
        info = tagger.info()
        len(info.state_features), len(info.transitions)
    except Exception:
        pass
    tagger.close()
    done += 1
print(done)
"""


def variants(data: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    size = len(data)
    header = np.frombuffer(data, dtype=HEADER, count=1)[0]
    offsets = [int(header[k]) for k in ("off_features", "off_labels", "off_attrs", "off_labelrefs", "off_attrrefs")]
    out = [(f"truncated to {cut} bytes", data[:cut]) for cut in sorted(rng.sample(range(size), 250))]
    for field in range(1, 12):  # each 32-bit header field after the magic
        for value in (0, 1, 0x7FFFFFF0, 0xFFFFFFFF, size, size - 1, size + 4):
            changed = bytearray(data)
            changed[4 * field : 4 * field + 4] = value.to_bytes(4, "little")
            if bytes(changed) != data:
                out.append((f"header field {field} = {value:#x}", bytes(changed)))
    for i in range(N_RANDOM):
        changed = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            if i % 2:  # near the header, a chunk header or an offset table
                position = min(size - 1, rng.choice([0, *offsets]) + rng.randrange(64 if i % 4 == 1 else 2100))
            else:
                position = rng.randrange(size)
            changed[position] ^= rng.randrange(1, 256)
        out.append((f"random flips {i}", bytes(changed)))
    return out


@pytest.fixture(scope="module")
def saved_model(tiny_tagger, tmp_path_factory) -> Path:
    return tiny_tagger.save(tmp_path_factory.mktemp("fuzz") / "crf")


def test_damaged_model_files_are_refused_and_never_crash(saved_model, tiny_tagger, tmp_path):
    original = (saved_model / MODEL_FILE).read_bytes()
    cases = variants(original, random.Random(14))
    assert len(cases) >= 1000
    model = tmp_path / "model"
    shutil.copytree(saved_model, model)
    accepted = tmp_path / "accepted"
    accepted.mkdir()
    refused_by_check = 0
    for k, (_, data) in enumerate(cases):
        (model / MODEL_FILE).write_bytes(data)
        with pytest.raises(InvalidModel, match=rf"{MODEL_FILE}: "):  # the manifest: 0 silent loads
            verify_manifest(model)
        try:
            check_model_file(model / MODEL_FILE)
        except InvalidModel:
            refused_by_check += 1
        else:
            (accepted / f"{k:04d}.crfsuite").write_bytes(data)
    attributes = "\t".join(a for (a, _), _w in tiny_tagger.model_.crf_.tagger_.info().state_features.items())
    names = sorted(str(p) for p in accepted.iterdir())
    child = subprocess.run(
        [sys.executable, "-c", READER, attributes, *names], capture_output=True, text=True, timeout=300
    )
    assert child.returncode == 0, f"CRFsuite crashed (status {child.returncode}) on a variant the check let through"
    assert int(child.stdout) <= len(names)
    # Most damaged files are refused by the structural check alone (the others change
    # a weight, a string or an unused byte: CRFsuite reads them safely, above).
    assert refused_by_check >= len(cases) // 2, (refused_by_check, len(cases))


def test_a_damaged_model_is_one_error_at_load(saved_model, tmp_path, capsys):
    model = tmp_path / "model"
    shutil.copytree(saved_model, model)
    data = bytearray((model / MODEL_FILE).read_bytes())
    data[36:40] = (0x7FFFFFF0).to_bytes(4, "little")  # the attribute dictionary's offset
    (model / MODEL_FILE).write_bytes(bytes(data))
    note = tmp_path / "nota.txt"
    note.write_text("Nombre: Zebulonio.\n", encoding="utf-8")
    assert main([str(note), "--model", str(model), "-j", "1"]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"error: cannot load model: {model / MODEL_FILE}: changed since the model was saved (SHA-256 differs)\n"
    )
    (model / MANIFEST_FILE).unlink()  # as a model saved before manifests
    with pytest.raises(InvalidModel, match="damaged CRFsuite model file .the attributes dictionary lies outside"):
        load_model(model)
    (model / MODEL_FILE).write_bytes(bytes(data[:1000]))
    with pytest.raises(InvalidModel, match="damaged CRFsuite model file"):
        load_model(model)
