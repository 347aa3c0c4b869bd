"""Damaged fastText ``vectors.bin`` files never crash or hang the process and never
load silently.

A small fastText model is trained here and ~1,000 variants of its file are made:
truncated, with each header and dictionary field and each matrix size set to extreme
values, and with random byte flips (half of them in the header and dictionary). The
model's manifest refuses every one; without it (a model saved before manifests),
the structural check of :mod:`deid_crf.resources.fasttext_file` refuses those
fastText could not load safely, and every variant it lets through is loaded by
fastText in a child process, which must exit cleanly; such a variant only has a
changed vector value or word, or an unused byte.

Without the check, fastText itself crashes on such files: a bucket count of 0 is a
division by zero (SIGFPE), a larger one a read outside the input matrix (SIGSEGV), a
larger dimension silently returns vectors read from outside it, and a truncated
dictionary makes its reader loop for ever.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import train_fasttext

from deid_crf.io.persistence import InvalidModel, verify_manifest, write_manifest
from deid_crf.resources.embeddings import CLUSTERS_FILE, VECTORS_FILE, Embeddings
from deid_crf.resources.fasttext_file import ARGS, DICTIONARY, MATRIX, check_vectors_file

N_RANDOM = 600
# Header fields fastText reads as settings, not as sizes or counts: any value in range loads.
SETTINGS = {"ws", "epoch", "minCount", "neg", "wordNgrams", "loss", "model", "minn", "maxn", "lrUpdateRate", "ntokens",
            "qout"}  # fmt: skip
PROBES = ["dolor", "paciente", "hospitalización", "xyzzy", "madrid"]

# Loads every model file named on the command line with fastText and prints, per
# file, its probe words' vectors (JSON lines), or the exception's type; a crash ends it.
LOADER = """
import json, sys
import fasttext
probes = json.loads(sys.argv[1])
for path in sys.argv[2:]:
    try:
        model = fasttext.load_model(path)
        vectors = [model.get_word_vector(w).tolist() for w in probes + model.words[:50]]
    except Exception as exc:
        print(json.dumps({"path": path, "error": type(exc).__name__}), flush=True)
        continue
    print(json.dumps({"path": path, "vectors": vectors, "words": model.words}), flush=True)
"""


# Hierarchical softmax: fastText loads it in a millisecond (negative sampling builds a
# 10-million-entry table at every load), and its tree is what damaged counts break;
# with fewer buckets training diverges on this corpus nearly every time.
TINY_MODEL = {"dim": 4, "epoch": 1, "minCount": 1, "minn": 3, "maxn": 5, "bucket": 10000, "loss": "hs"}


def train_tiny_model(path: Path) -> None:
    corpus = path.with_suffix(".txt")
    rng = random.Random(0)
    words = "el la paciente presenta dolor fiebre hospital de madrid urgencias médico informe con sin".split()
    corpus.write_text("".join(" ".join(rng.choice(words) for _ in range(12)) + "\n" for _ in range(2000)), "utf-8")
    train_fasttext(corpus, **TINY_MODEL).save_model(str(path))


@pytest.fixture(scope="module")
def vectors_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fasttext") / VECTORS_FILE
    train_tiny_model(path)
    return path


def field_offsets(data: bytes) -> dict[str, tuple[int, str]]:
    """Offset and struct format of each header field, dictionary header field and
    matrix size of the file."""
    names = "dim ws epoch minCount neg wordNgrams loss model bucket minn maxn lrUpdateRate".split()
    fields = {"magic": (0, "<i"), "version": (4, "<i")}
    fields.update({name: (8 + 4 * i, "<i") for i, name in enumerate(names)})
    start = 8 + ARGS.size
    for i, name in enumerate(("size", "nwords", "nlabels")):
        fields[name] = (start + 4 * i, "<i")
    fields["ntokens"], fields["pruneidx_size"] = (start + 12, "<q"), (start + 20, "<q")
    offset = start + DICTIONARY.size
    size = struct.unpack_from("<i", data, start)[0]
    for _ in range(size):
        offset = data.index(b"\0", offset) + 10
    fields["quant_input"] = (offset, "<b")
    fields["input rows"], fields["input columns"] = (offset + 1, "<q"), (offset + 9, "<q")
    rows, columns = struct.unpack_from("<2q", data, offset + 1)
    offset += 1 + MATRIX.size + 4 * rows * columns
    fields["qout"] = (offset, "<b")
    fields["output rows"], fields["output columns"] = (offset + 1, "<q"), (offset + 9, "<q")
    return fields


def variants(data: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    size = len(data)
    fields = field_offsets(data)
    dictionary_end = fields["quant_input"][0]
    cuts = sorted(set(rng.sample(range(dictionary_end), 150)) | set(rng.sample(range(size), 100)))
    out = [(f"truncated to {cut} bytes", data[:cut]) for cut in cuts]
    for name, (offset, fmt) in fields.items():
        bits = 8 * struct.calcsize(fmt)
        for value in (
            0,
            1,
            -1,
            2,
            300,
            2 ** (bits - 1) - 1,
            -(2 ** (bits - 1)),
            struct.unpack_from(fmt, data, offset)[0] + 1,
        ):
            changed = bytearray(data)
            struct.pack_into(fmt, changed, offset, max(-(2 ** (bits - 1)), min(2 ** (bits - 1) - 1, value)))
            if bytes(changed) != data:
                out.append((f"{name} = {value}", bytes(changed)))
    for i in range(N_RANDOM):
        changed = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(dictionary_end + 40) if i % 2 else rng.randrange(size)
            changed[position] ^= rng.randrange(1, 256)
        out.append((f"random flips {i}", bytes(changed)))
    return out


def load_in_child(paths: list[str]) -> tuple[subprocess.CompletedProcess, dict[str, dict]]:
    child = subprocess.run(
        [sys.executable, "-c", LOADER, json.dumps(PROBES), *paths], capture_output=True, text=True, timeout=300
    )
    return child, {r["path"]: r for r in map(json.loads, child.stdout.splitlines())}


def test_damaged_vectors_files_are_refused_and_never_crash(vectors_file, tmp_path):
    original = vectors_file.read_bytes()
    check_vectors_file(vectors_file)  # the real file passes
    cases = variants(original, random.Random(14))
    assert len(cases) >= 1000
    model = tmp_path / "model"
    model.mkdir()
    shutil.copy(vectors_file, model / VECTORS_FILE)
    write_manifest(model)
    accepted: dict[str, str] = {}
    (tmp_path / "accepted").mkdir()
    for k, (what, data) in enumerate(cases):
        (model / VECTORS_FILE).write_bytes(data)
        with pytest.raises(InvalidModel, match=rf"{VECTORS_FILE}: "):  # the manifest: 0 silent loads
            verify_manifest(model)
        try:
            check_vectors_file(model / VECTORS_FILE)
        except InvalidModel as exc:
            assert str(exc).startswith(f"{model / VECTORS_FILE}: ") and "\n" not in str(exc)
        else:
            path = tmp_path / "accepted" / f"{k:04d}.bin"
            path.write_bytes(data)
            accepted[str(path)] = what
    # Every structural change is refused: a variant let through is the same size,
    # with its header, dictionary counts and matrix sizes intact.
    for what in accepted.values():
        assert what.startswith("random flips") or what.split(" = ")[0] in SETTINGS, what
    child, loaded = load_in_child([str(vectors_file), *accepted])
    assert child.returncode == 0, f"fastText crashed (status {child.returncode}) on a variant the check let through"
    reference = loaded[str(vectors_file)]["vectors"]
    assert set(loaded) == {str(vectors_file), *accepted}  # every one loaded, none raised
    errors = {accepted[path]: result["error"] for path, result in loaded.items() if "error" in result}
    assert not errors
    same = sum(result["vectors"] == reference for path, result in loaded.items() if path != str(vectors_file))
    # Most damaged files are refused by the structural check alone; the others change
    # a vector value, a word or a count, which only the manifest sees.
    refused = len(cases) - len(accepted)
    assert refused >= len(cases) // 2, (refused, len(cases))
    print(f"{len(cases)} variants: {refused} refused by the structure check, {len(accepted)} loaded ({same} same)")


def test_without_the_check_fasttext_crashes(vectors_file, tmp_path):
    """What the check prevents, shown in a child process."""
    data = vectors_file.read_bytes()
    fields = field_offsets(data)
    cases = {}
    for name, value in (("bucket", 0), ("bucket", 100_000_000), ("dim", 400)):
        changed = bytearray(data)
        struct.pack_into("<i", changed, fields[name][0], value)
        cases[name + str(value)] = tmp_path / f"{name}{value}.bin"
        cases[name + str(value)].write_bytes(bytes(changed))
        with pytest.raises(InvalidModel):
            check_vectors_file(cases[name + str(value)])
    crashed = [load_in_child([str(cases[case])])[0].returncode for case in ("bucket0", "bucket100000000")]
    assert crashed == [-signal.SIGFPE, -signal.SIGSEGV]
    _, loaded = load_in_child([str(vectors_file), str(cases["dim400"])])
    garbage = np.array(loaded[str(cases["dim400"])]["vectors"][0])
    assert len(garbage) == 400  # 392 of its values read from outside the input matrix


def test_a_damaged_vectors_file_is_one_error_at_load(vectors_file, tmp_path, capsys):
    embeddings = tmp_path / "embeddings"
    embeddings.mkdir()
    data = bytearray(vectors_file.read_bytes())
    struct.pack_into("<i", data, field_offsets(bytes(data))["bucket"][0], 0)
    (embeddings / VECTORS_FILE).write_bytes(bytes(data))
    np.savez(embeddings / CLUSTERS_FILE, k2=np.eye(2, 8, dtype=np.float32))
    with pytest.raises(InvalidModel, match=r"vectors.bin: damaged fastText model file \(character n-grams without"):
        Embeddings(embeddings)
    (embeddings / VECTORS_FILE).write_bytes(vectors_file.read_bytes()[:40])
    with pytest.raises(InvalidModel, match=r"vectors.bin: damaged fastText model file \(the file ends inside the arg"):
        Embeddings(embeddings)
