"""The Dask backend of batch de-identification on a real local cluster (2 worker
processes on the loopback interface): the same outputs as the local joblib backend,
a worker killed mid-run, one model load per worker process; TLS (the CLI's own
cluster refuses whoever lacks its certificates, a tls:// scheduler with certificate
files gives the same outputs); and the same per-partition function under a
local-mode PySpark session."""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import patient_document
from test_batch import assert_no_phi, patient, tree

from deid_crf.batch import engine as batch
from deid_crf.batch.engine import BatchRun, DocStatus, KeyFile, Settings, deidentify_partition, discover, plan
from deid_crf.tag import main

if importlib.util.find_spec("distributed") is None:
    MISSING = "dask[distributed] is not installed (pip install 'deid-crf[dask]')"
    if os.environ.get("CI"):  # CI installs the dask extra: its tests must run there
        pytest.fail(MISSING, pytrace=False)
    pytest.skip(MISSING, allow_module_level=True)

import cloudpickle
from distributed import Client, LocalCluster

from deid_crf.batch.dask_backend import (
    SchedulerUsageError,
    TLSFiles,
    check_scheduler,
    dask_client,
    partition_size,
    run_dask,
)

REPO = Path(__file__).resolve().parents[1]
N_GOOD = 200
MAX_BYTES = "2000"
SURROGATE = ["--format", "surrogate", "--seed", "7", "--max-bytes", MAX_BYTES]
BAD = {
    "a/binaria.txt": (b"Nombre: Zebulonio\x00\x00Quirtanilla", "looks like a binary file"),
    "b/binaria.txt": (b"\x00Anselma Britovar", "looks like a binary file"),
    "a/latina.txt": ("Nombre: Zebulonio Núñez.\n".encode("latin-1"), "not valid utf-8"),
    "b/latina.txt": ("Médico: Filiberta Peña.\n".encode("latin-1"), "not valid utf-8"),
    "a/enorme.txt": (("Nombre: Rigoberta Palomequ.\n" * 120).encode(), "over the limit of 2000"),
    "a/vacia.txt": (b"", "empty input"),
}
GOOD = {f"{'a' if i % 2 else 'b'}/doc{i:03d}.txt" for i in range(N_GOOD)}

# Workers run functions of this module (client.run) without importing it.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 good documents in two folders and 6 bad files (binary, latin-1, oversize, empty)."""
    root = tmp_path_factory.mktemp("dask") / "in"
    for name in GOOD:
        i = int(name[-7:-4])
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(patient_document(f"doc{i}", patient(i)).text, encoding="utf-8")
    for name, (data, _) in BAD.items():
        (root / name).write_bytes(data)
    return root


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def local_reference(corpus, tiny_model_dir, tmp_path_factory) -> tuple[dict[str, bytes], bytes, list[str]]:
    """Outputs, key file and logged problems of the local joblib backend (2 processes)."""
    tmp = tmp_path_factory.mktemp("local")
    args = [str(corpus), "-o", str(tmp / "out"), "--model", str(tiny_model_dir), "-j", "2", *SURROGATE]
    assert main([*args, "--key-file", str(tmp / "key.jsonl"), "--log-file", str(tmp / "log")]) == 1
    return tree(tmp / "out"), (tmp / "key.jsonl").read_bytes(), logged(tmp / "log", tmp / "out")


def logged(log_file: Path, out: Path) -> list[str]:
    """The messages of a --log-file, without their time stamps, the output folder's
    name and the run's speed."""
    text = log_file.read_text(encoding="utf-8").replace(str(out), "OUT")
    lines = [line.split(" ", 2)[2] for line in text.splitlines()]
    return [line.rsplit(";", 1)[0] if line.startswith("INFO de-identified") else line for line in lines]


def items_of(corpus: Path, out: Path, fmt: str = "surrogate") -> list[batch.WorkItem]:
    found, problems = discover([str(corpus)], output_dir=out)
    items, refused = plan(found, fmt, out)
    assert not problems and not refused
    return items


def test_dask_outputs_are_byte_identical_to_the_local_backend(
    corpus, client, tiny_model_dir, local_reference, tmp_path
):
    expected, expected_key, expected_log = local_reference
    assert set(expected) == GOOD | {"a/vacia.txt", batch.RUN_FILE}
    out, key, log_file = tmp_path / "out", tmp_path / "secret" / "key.jsonl", tmp_path / "log"
    args = [str(corpus), "-o", str(out), "--model", str(tiny_model_dir), *SURROGATE, "--key-file", str(key)]
    address = client.scheduler.address
    assert main([*args, "--backend", "dask", "--scheduler", address, "-v", "--log-file", str(log_file)]) == 1
    assert tree(out) == expected
    assert key.read_bytes() == expected_key and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not KeyFile.shard_dir(key).exists()
    # The same problems, warnings and summary, in the same words.
    messages = logged(log_file, out)
    assert sorted(m for m in messages if not m.startswith("DEBUG")) == sorted(expected_log)
    for name, (_, reason) in BAD.items():
        level = "WARNING" if name.endswith("vacia.txt") else "ERROR"
        assert any(m.startswith(f"{level} {corpus / name}: ") and reason in m for m in messages), name
    assert "INFO de-identified 201 document(s) into" in "\n".join(messages)
    assert "DEBUG 2 worker process(es) tagged documents, each loading the model at most 1 time(s)" in messages
    assert_no_phi(log_file.read_text(encoding="utf-8"))

    # A second run on the same workers, another format: the models stay loaded.
    summary = run_dask(items_of(corpus, tmp_path / "masked", "masked"), Settings(str(tiny_model_dir), "masked",
                       max_bytes=int(MAX_BYTES)), client=client, output_dir=tmp_path / "masked")  # fmt: skip
    assert summary.counts == {"ok": N_GOOD, "failed": 5, "empty": 1, "skipped": 0}
    assert len(summary.model_loads) == 2 and set(summary.model_loads.values()) == {1}
    assert set(summary.model_loads) == {f"{socket.gethostname()}:{pid}" for pid in client.run(os.getpid).values()}
    # Resumed: nothing left to do.
    again = run_dask(items_of(corpus, tmp_path / "masked", "masked"), Settings(str(tiny_model_dir), "masked",
                     max_bytes=int(MAX_BYTES)), client=client, output_dir=tmp_path / "masked")  # fmt: skip
    assert again.counts == {"skipped": N_GOOD + 1, "failed": 5}


def install_killer(counter: str, limit: int, where: str) -> None:
    """In a worker: SIGKILL this process right after the cluster's ``limit``-th output
    file is renamed into place (``where="output"``) or key record appended (``"key"``,
    before that document's outputs are written); ``counter`` is a file every worker
    appends one byte to, so exactly one write, in whichever worker makes it, is the
    ``limit``-th."""

    def kill_after(function):
        @functools.wraps(function)
        def wrapped(*args):
            function(*args)
            fd = os.open(counter, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            try:
                os.write(fd, b".")
                position = os.lseek(fd, 0, os.SEEK_CUR)
            finally:
                os.close(fd)
            if position == limit:
                os.kill(os.getpid(), signal.SIGKILL)

        return wrapped

    if where == "output":
        write, count = batch.atomic_write_texts, kill_after(lambda: None)

        @functools.wraps(write)
        def one_by_one(files, *mode):  # a chunk's files in turn: the kill can fall between two of them
            errors = []
            for file in files:
                errors += write([file], *mode)
                count()
            return errors

        batch.atomic_write_texts = one_by_one
    else:
        batch.KeyFile.append = kill_after(batch.KeyFile.append)


def remove_killer() -> None:
    batch.atomic_write_texts = getattr(batch.atomic_write_texts, "__wrapped__", batch.atomic_write_texts)
    batch.KeyFile.append = getattr(batch.KeyFile.append, "__wrapped__", batch.KeyFile.append)


@pytest.mark.parametrize("where", ["output", "key"])
def test_a_worker_killed_mid_run_loses_nothing_after_a_rerun(
    where, corpus, client, tiny_model_dir, local_reference, tmp_path
):
    expected, expected_key, _ = local_reference
    out, key = tmp_path / "out", tmp_path / "key.jsonl"
    settings = Settings(str(tiny_model_dir), "surrogate", seed=7, max_bytes=int(MAX_BYTES))
    items = items_of(corpus, out)
    pids = set(client.run(os.getpid).values())
    client.run(install_killer, str(tmp_path / "writes"), 40, where)
    try:
        first = run_dask(items, settings, client=client, key_file=key, output_dir=out, partitions=16)
    finally:
        client.run(remove_killer)
    killed = [pid for pid in pids if not Path(f"/proc/{pid}").exists()]
    assert len(killed) == 1, "exactly one worker process was killed"
    assert (tmp_path / "writes").stat().st_size > 40, "it was killed mid-run, and the run went on"
    # Dask redid the dead worker's partition elsewhere: every document reported once.
    assert sum(first.counts.values()) == len(items) == N_GOOD + len(BAD)
    assert first.counts["failed"] == 5 and first.counts["ok"] == N_GOOD
    assert not KeyFile.shard_dir(key).exists()  # the workers' key shards are merged into the key file

    again = run_dask(items, settings, client=client, key_file=key, output_dir=out)
    assert again.counts == {"skipped": N_GOOD + 1, "failed": 5}
    assert tree(out) == expected  # every good document exactly once, intact; no temporary file left
    assert key.read_bytes() == expected_key


def install_slow_find(marker: str, seconds: float) -> None:
    """In a worker: de-identifying a text that holds ``marker`` takes ``seconds`` of
    Python code (short sleeps in a loop: a time limit can stop it between two)."""
    from deid_crf.deid.deidentifier import Deidentifier

    find = Deidentifier.find

    @functools.wraps(find)
    def slow_find(self, texts, confidence=True):
        if any(marker in text for text in texts):
            ends = time.monotonic() + seconds
            while time.monotonic() < ends:
                time.sleep(0.01)
        return find(self, texts, confidence)

    Deidentifier.find = slow_find


def remove_slow_find() -> None:
    from deid_crf.deid.deidentifier import Deidentifier

    Deidentifier.find = getattr(Deidentifier.find, "__wrapped__", Deidentifier.find)


def test_a_document_over_its_time_limit_fails_alone_on_dask(client, tiny_model_dir, tmp_path, capsys):
    """``--doc-timeout`` under Dask, whose workers run tasks in threads (no SIGALRM
    there): the slow document fails, the others of its partition and the batch go on,
    and the workers stay sound for the next run."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in [("a", "Nombre: Zebulonio.\n"), ("b", "Paciente Lento.\n"), ("c", "NHC: 368503.\n")]:
        (notes / f"{name}.txt").write_text(text, encoding="utf-8")
    address = client.scheduler.address
    args = ["--model", str(tiny_model_dir), "--format", "masked", "--backend", "dask", "--scheduler", address]
    client.run(install_slow_find, "Lento", 60)
    try:
        started = time.monotonic()
        status = main([str(notes), "-o", str(tmp_path / "out"), *args, "--partitions", "1", "--doc-timeout", "1"])
        took = time.monotonic() - started
    finally:
        client.run(remove_slow_find)
    err = capsys.readouterr().err.splitlines()
    assert took < 30, took  # not the 60 s (twice: the partition, then the document alone) the document would take
    assert status == 1
    assert err[0] == f"error: {notes / 'b.txt'}: not de-identified within 1 s (--doc-timeout)"
    assert any("2 ok, 1 failed" in line for line in err[1:])  # the summary (the audit's line may follow)
    assert sorted(p.name for p in (tmp_path / "out").glob("*.txt")) == ["a.txt", "c.txt"]
    # The same workers, the same limit, nothing slow: every document done (no late timeout).
    status = main([str(notes), "-o", str(tmp_path / "again"), *args, "--doc-timeout", "1"])
    assert status == 0, capsys.readouterr().err


def test_model_cache_counts_loads_and_refuses_another_model(tiny_model_dir, tiny_tagger, tmp_path):
    digest = batch.model_digest(tiny_model_dir)
    batch.cached_model(str(tiny_model_dir), digest)
    loads = batch.model_loads()
    assert batch.cached_model(str(tiny_model_dir), digest) is batch.cached_model(str(tiny_model_dir), digest)
    assert batch.model_loads() == loads
    other = tiny_tagger.save(tmp_path / "other")
    batch.cached_model(str(other), batch.model_digest(other))
    assert batch.model_loads() == loads + 1
    # A worker that sees other files than the client refuses them, naming only the folder.
    with pytest.raises(batch.ModelMismatch, match="is missing or differs"):
        batch.cached_model(str(tmp_path / "missing"), digest)
    settings = Settings(str(tmp_path / "missing"), "masked", model_sha256=digest)
    item = batch.WorkItem(str(tmp_path / "x.txt"), "x", (str(tmp_path / "o" / "x.txt"),))
    (tmp_path / "x.txt").write_text("Nombre: Zebulonio.\n", encoding="utf-8")
    (status,) = deidentify_partition([item], settings)
    assert status.status == "failed" and "cannot load model" in status.reason and "differs" in status.reason
    # Folders the client made must exist on the worker (a shared filesystem).
    (status,) = deidentify_partition([item], settings, shared_dirs=[str(tmp_path / "not-shared")])
    assert status.status == "failed" and "filesystem that every worker shares" in status.reason


def test_cli_starts_and_closes_its_own_local_cluster(corpus, tiny_model_dir, tmp_path):
    subset = tmp_path / "in"
    for name in sorted(GOOD)[:12] + ["a/binaria.txt"]:
        (subset / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(corpus / name, subset / name)
    args = [sys.executable, "-m", "deid_crf.tag", str(subset), "-o", str(tmp_path / "out"), "--model",
            str(tiny_model_dir), "--format", "masked", "--backend", "dask", "-j", "2", "--partitions", "3",
            "-v"]  # fmt: skip
    done = subprocess.run(args, capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 1, done.stderr
    assert f"error: {subset / 'a/binaria.txt'}: looks like a binary file" in done.stderr
    assert f"into {tmp_path / 'out'}: 12 ok, 1 failed, 0 skipped (up to date), 0 empty" in done.stderr
    assert "local Dask cluster at tls://127.0.0.1:" in done.stderr and "TLS with temporary certificates" in done.stderr
    assert_no_phi(done.stdout, done.stderr)
    masked = (tmp_path / "out" / "a" / "doc001.txt").read_text(encoding="utf-8")
    assert "Zebulonio" not in masked and "[NOMBRE_SUJETO_ASISTENCIA]" in masked


def test_dask_usage_errors(corpus, tiny_model_dir, tmp_path, capsys, monkeypatch):
    model = ["--model", str(tiny_model_dir)]
    for args in (
        [str(corpus), "--backend", "dask"],  # no -o: outputs cannot go to stdout
        ["-", "-o", str(tmp_path / "o"), "--backend", "dask"],
        [str(corpus), "-o", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:1"],  # local backend
        [str(corpus), "-o", str(tmp_path / "o"), "--backend", "dask", "--partitions", "0"],
    ):
        with pytest.raises(SystemExit) as info:
            main([*args, *model])
        assert info.value.code == 2, args
    capsys.readouterr()
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "1s")
    import dask

    dask.config.refresh()
    try:
        status = main([str(corpus), "-o", str(tmp_path / "o"), "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1",
                       *model])  # fmt: skip
    finally:
        monkeypatch.delenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT")
        dask.config.refresh()
    assert status == 2
    assert "cannot connect to the Dask scheduler at tcp://127.0.0.1:1" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# Connects to each address given (``address`` or ``address=tls-ca,tls-cert,tls-key``)
# as another process of this machine would, and prints what happened: "connected",
# or "refused" and the error's type. Bounded: 5 s per address.
INTRUDER = """
import asyncio, ssl, sys
from distributed.comm import connect
from distributed.security import Security

def no_certificate():  # TLS that trusts any server and shows no certificate of its own
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return {"ssl_context": context}

async def attempt(address, kwargs):
    try:
        comm = await asyncio.wait_for(connect(address, timeout="4s", **kwargs), 5)
        await comm.write({"op": "identity"})  # the scheduler's and worker's own handler
        await asyncio.wait_for(comm.read(), 5)
    except BaseException as exc:
        return f"refused {type(exc).__name__}"
    await comm.close()
    return "connected"

for arg in sys.argv[1:]:
    address, _, files = arg.partition("=")
    if files == "none":
        kwargs = no_certificate()
    elif files == "other":  # certificates of another CA
        kwargs = Security.temporary().get_connection_args("client")
    else:
        kwargs = {}
    print(asyncio.run(attempt(address, kwargs)))
"""


def intrude(*attempts: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", INTRUDER, *attempts], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_local_cluster_speaks_tls_and_refuses_whoever_lacks_its_certificates(client):
    # The check can fail: a plain cluster (the module's) lets the same intruder in.
    assert intrude(client.scheduler.address) == ["connected"]
    with dask_client(jobs=1) as own:
        address = own.scheduler.address
        (worker,) = own.scheduler_info()["workers"]
        assert address.startswith("tls://127.0.0.1:") and worker.startswith("tls://127.0.0.1:")
        assert own.submit(sum, [1, 2]).result() == 3  # its own client gets in
        started = time.monotonic()
        tried = intrude(
            address.replace("tls://", "tcp://"),  # no TLS at all
            f"{address}=none",  # TLS without a client certificate
            f"{address}=other",  # a certificate of another CA
            f"{worker.replace('tls://', 'tcp://')}",
            f"{worker}=none",
            f"{worker}=other",
        )
        assert time.monotonic() - started < 60
        assert [line.split()[0] for line in tried] == ["refused"] * 6, tried


def answers_http(port: int) -> bool:
    """Whether something on the loopback interface's ``port`` answers an HTTP request."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            return conn.recv(64).startswith(b"HTTP/")
    except OSError:  # refused, reset or timed out
        return False


def http_ports(client) -> list[int]:
    """The ports of the HTTP servers of the client's scheduler (in this process) and workers."""
    workers = client.run(lambda dask_worker: dask_worker.http_server.port)
    return [client.cluster.scheduler.http_server.port, *workers.values()]


def test_the_local_cluster_serves_no_http(client):
    """Dask's scheduler and workers serve pages, JSON and metrics over plain HTTP without
    authentication (the module's cluster does: the check can fail); the CLI's own
    cluster stops them, on a restarted worker too, and advertises none."""
    assert all(answers_http(port) for port in http_ports(client))
    with dask_client(jobs=1) as own:
        assert not any(answers_http(port) for port in http_ports(own))
        assert own.cluster.scheduler.services == {}
        assert list(own.run(lambda dask_worker: dict(dask_worker.services)).values()) == [{}]
        before = http_ports(own)[1:]
        own.restart()  # the nanny starts a new worker process
        after = http_ports(own)[1:]
        assert after != before and not any(answers_http(port) for port in after)
        assert own.submit(sum, [1, 2]).result() == 3


ROLES = ("scheduler", "worker")


def throwaway_pki(directory: Path) -> dict[str, str]:
    """A CA and two certificates it signed (the cluster's and a client's), as PEM
    files in ``directory``: ``ca``, ``cluster-cert``, ``cluster-key``, ``client-cert``,
    ``client-key`` → path."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def certificate(name: str, key, issuer: x509.Name, signer, ca: bool) -> x509.Certificate:
        return (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
            .issuer_name(issuer)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            .sign(signer, hashes.SHA256())
        )

    paths = {}

    def write(name: str, data: bytes) -> None:
        paths[name] = str(directory / f"{name}.pem")
        Path(paths[name]).write_bytes(data)

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "deid-crf test CA")])
    ca_cert = certificate("deid-crf test CA", ca_key, ca_name, ca_key, ca=True)
    write("ca", ca_cert.public_bytes(serialization.Encoding.PEM))
    for role in ("cluster", "client"):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = certificate(f"deid-crf test {role}", key, ca_name, ca_key, ca=False)
        write(f"{role}-cert", cert.public_bytes(serialization.Encoding.PEM))
        write(f"{role}-key", key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))  # fmt: skip
    return paths


def test_a_tls_scheduler_with_certificate_files_gives_the_local_outputs(
    corpus, tiny_model_dir, local_reference, tmp_path
):
    from distributed.security import Security

    pki = throwaway_pki(tmp_path)
    cluster_security = Security(
        require_encryption=True,
        tls_ca_file=pki["ca"],
        **{f"tls_{role}_{part}": pki[f"cluster-{part}"] for role in ROLES for part in ("cert", "key")},
        tls_client_cert=pki["client-cert"],
        tls_client_key=pki["client-key"],
    )
    expected, expected_key, _ = local_reference
    out, key = tmp_path / "out", tmp_path / "secret" / "key.jsonl"
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1", protocol="tls://",
                      security=cluster_security, dashboard_address=None) as cluster:  # fmt: skip
        address = cluster.scheduler_address
        assert address.startswith("tls://")
        assert [line.split()[0] for line in intrude(f"{address}=none", f"{address}=other")] == ["refused"] * 2
        args = [str(corpus), "-o", str(out), "--model", str(tiny_model_dir), *SURROGATE, "--key-file", str(key),
                "--backend", "dask", "--scheduler", address, "--tls-ca-file", pki["ca"],
                "--tls-cert", pki["client-cert"], "--tls-key", pki["client-key"]]  # fmt: skip
        assert main(args) == 1  # the bad files of the corpus
    assert tree(out) == expected
    assert key.read_bytes() == expected_key


def test_scheduler_addresses_and_certificate_options(tmp_path, capsys):
    # Plain connections on this machine's loopback interface, or in this process: accepted.
    for address in ("tcp://127.0.0.1:8786", "127.0.0.2:8786", "tcp://[::1]:8786", "localhost:8786", "inproc://x"):
        assert check_scheduler(address) is None, address
    # Off this machine: refused unless allowed (never connected to here).
    for address in ("tcp://10.0.0.5:8786", "10.0.0.5:8786", "ws://10.0.0.5:8786", "tcp://scheduler.example:8786",
                    "ucx://10.0.0.5:8786"):  # fmt: skip
        with pytest.raises(SchedulerUsageError, match="it is not on this machine"):
            check_scheduler(address)
        assert check_scheduler(address, allow_plaintext=True) is None
    pki = throwaway_pki(tmp_path)
    files = TLSFiles(pki["ca"], pki["client-cert"], pki["client-key"])
    assert check_scheduler("tls://10.0.0.5:8786", files) == files
    with pytest.raises(SchedulerUsageError, match="needs --tls-ca-file and --tls-cert"):
        check_scheduler("tls://127.0.0.1:8786", allow_plaintext=True)
    with pytest.raises(SchedulerUsageError, match="go with a tls:// scheduler address"):
        check_scheduler("tcp://127.0.0.1:8786", files)
    with pytest.raises(SchedulerUsageError, match="--tls-cert/--tls-key .*: not a PEM certificate and its private"):
        check_scheduler("tls://10.0.0.5:8786", TLSFiles(pki["ca"], pki["client-cert"], pki["cluster-key"]))
    with pytest.raises(SchedulerUsageError, match="--tls-ca-file .*: not a PEM CA certificate"):
        check_scheduler("tls://10.0.0.5:8786", TLSFiles(pki["client-key"], pki["client-cert"], pki["client-key"]))

    # The CLI: each a usage error (status 2) before any connection or model load.
    tls = ["--tls-ca-file", pki["ca"], "--tls-cert", pki["client-cert"], "--tls-key", pki["client-key"]]
    base = [str(tmp_path), "-o", str(tmp_path / "o"), "--model", str(tmp_path / "no-model"), "--backend", "dask"]
    for extra, message in (
        (["--scheduler", "tls://10.0.0.5:8786"], "needs --tls-ca-file and --tls-cert"),
        (["--scheduler", "tls://10.0.0.5:8786", "--tls-cert", pki["client-cert"]], "go together"),
        (["--scheduler", "tcp://10.0.0.5:8786"], "neither encrypted nor authenticated"),
        (["--scheduler", "tcp://127.0.0.1:8786", *tls], "go with a tls:// scheduler address"),
        (["--scheduler", "tls://10.0.0.5:8786", "--tls-ca-file", str(tmp_path / "none.pem"), *tls[2:]], "no such file"),
        (tls, "go with --backend dask --scheduler ADDRESS"),
        (["--allow-plaintext-scheduler"], "go with --backend dask --scheduler ADDRESS"),
    ):
        with pytest.raises(SystemExit) as info:
            main([*base, *extra])
        assert info.value.code == 2, extra
        err = capsys.readouterr().err
        assert message in err, (extra, err)
    assert not (tmp_path / "o").exists()


def test_partition_size():
    assert partition_size(200, 2) == 25  # 4 partitions per worker
    assert partition_size(10_000, 2) == 1000  # none over MAX_PARTITION_DOCS
    assert partition_size(200, 2, partitions=16) == 13
    assert partition_size(3, 2, partitions=16) == 1


def spark_missing() -> str | None:
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install pyspark)"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Spark needs a Java runtime (java not found)"
    return None


@pytest.mark.skipif(spark_missing() is not None, reason=str(spark_missing()))
def test_pyspark_map_partitions_recipe(corpus, tiny_model_dir, local_reference, tmp_path, monkeypatch):
    """The PySpark recipe of docs/batch-and-dask.md, in a local-mode session: the same outputs and key."""
    from pyspark.sql import SparkSession

    # Spark's Python workers must run this interpreter (with deid-crf installed), not
    # whichever `python3` is first on the PATH.
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)

    expected, expected_key, _ = local_reference
    out, key = tmp_path / "out", tmp_path / "key.jsonl"
    items = items_of(corpus, out)
    settings = Settings(str(tiny_model_dir), "surrogate", seed=7, max_bytes=int(MAX_BYTES))
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    try:
        with BatchRun(items, settings, key_file=key, output_dir=out) as batch_run:
            do = functools.partial(deidentify_partition, settings=batch_run.settings, key_dir=batch_run.key_dir,
                                   shared_dirs=(str(out),))  # fmt: skip
            statuses = spark.sparkContext.parallelize(batch_run.todo, 4).mapPartitions(do).collect()
            for status in statuses:
                batch_run.record(status)
    finally:
        spark.stop()
    assert all(isinstance(s, DocStatus) for s in statuses)
    assert batch_run.summary.counts == {"ok": N_GOOD, "failed": 5, "empty": 1, "skipped": 0}
    assert set(batch_run.summary.model_loads.values()) == {1}
    assert tree(out) == expected and key.read_bytes() == expected_key
