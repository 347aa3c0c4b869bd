"""Compiled regular expressions kept between runs (deid_crf.io.pattern_cache): a
pattern from the cache is the one ``re`` compiles, a damaged file is ignored, and the
rule layer's patterns are the same strings at every run (else nothing would be found
in the cache)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from deid_crf.io import pattern_cache

pytestmark = pytest.mark.skipif(not pattern_cache._AVAILABLE, reason="CPython's re internals only")

PATTERNS = [
    (r"(?P<day>\d{1,2})/(?P<month>\d{1,2})/(?P<year>\d{4})", 0),
    (r"(?i:hospital)\s+(?P<name>[A-ZÁÉÍÓÚÑ]\w+)", 0),
    (r"^\s*(?:paciente|nombre)\s*:", re.MULTILINE | re.IGNORECASE),
    (r"(?<![\w-])(?=(?i:c(?:alle|arrer)|a(?:venida|vda)))", 0),
    (r"(\w+)\s+\1", 0),
]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh cache directory, and the module's state as in a new process."""
    monkeypatch.setenv("DEID_CRF_PATTERN_CACHE", str(tmp_path / "cache"))
    _fresh_process_state(monkeypatch)
    return tmp_path / "cache"


def _compile_all(patterns=PATTERNS) -> list[re.Pattern[str]]:
    re.purge()  # else re's own cache answers without compiling
    with pattern_cache.kept_compiles():
        return [re.compile(p, f) for p, f in patterns]


def _fresh_process_state(monkeypatch) -> None:
    monkeypatch.setattr(pattern_cache, "_stored", None)
    monkeypatch.setattr(pattern_cache, "_new", {})


def test_patterns_from_the_cache_equal_those_re_compiles(cache_dir, monkeypatch):
    cold = _compile_all()
    files = list(cache_dir.iterdir())
    assert [f.name for f in files] == [pattern_cache.cache_file().name]
    _fresh_process_state(monkeypatch)
    calls = []
    original = pattern_cache._compiler._code
    monkeypatch.setattr(pattern_cache._compiler, "_code", lambda *a: calls.append(a) or original(*a))
    warm = _compile_all()
    assert calls == []  # every one came from the file
    re.purge()
    expected = [re.compile(p, f) for p, f in PATTERNS]
    # (re.Pattern equality compares the pattern, the flags and the compiled code)
    assert warm == expected and cold == expected
    assert [p.groupindex for p in warm] == [p.groupindex for p in expected]
    assert warm[0].match("03/03/1946").group("year") == "1946"
    assert warm[4].search("de de la").group(1) == "de"


def test_the_file_is_not_rewritten_when_nothing_is_new(cache_dir, monkeypatch):
    _compile_all()
    path = pattern_cache.cache_file()
    before = path.stat().st_mtime_ns
    _fresh_process_state(monkeypatch)
    _compile_all()
    assert path.stat().st_mtime_ns == before


@pytest.mark.parametrize("damage", ["truncated", "flipped", "garbage", "empty"])
def test_a_damaged_file_is_ignored_and_replaced(cache_dir, monkeypatch, damage):
    _compile_all()
    path = pattern_cache.cache_file()
    data = path.read_bytes()
    damaged = {
        "truncated": data[: len(data) // 2],
        "flipped": data[:-200] + bytes(b ^ 0xFF for b in data[-200:-150]) + data[-150:],
        "garbage": os.urandom(4096),
        "empty": b"",
    }[damage]
    path.write_bytes(damaged)
    _fresh_process_state(monkeypatch)
    re.purge()
    assert _compile_all() == [re.compile(p, f) for p, f in PATTERNS]
    _fresh_process_state(monkeypatch)
    assert len(pattern_cache._read(path)) == len(PATTERNS)  # written again, whole


def test_code_that_sre_refuses_is_compiled_again(cache_dir, monkeypatch):
    pattern, flags = PATTERNS[0]
    key = pattern_cache._key(pattern, flags)
    bad = (flags | re.UNICODE, 3, {"day": 1, "month": 2, "year": 3}, np.array([1, 2, 3, 99999], dtype=np.uint32))
    cache_dir.mkdir()
    pattern_cache._write(pattern_cache.cache_file(), {key: bad})  # a valid file, with code _sre refuses
    _fresh_process_state(monkeypatch)
    re.purge()
    with pattern_cache.kept_compiles():
        compiled = re.compile(pattern, flags)
    re.purge()
    assert compiled == re.compile(pattern, flags)


def test_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_CRF_PATTERN_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert pattern_cache.cache_file() is None
    _compile_all()
    original = pattern_cache._compiler.compile
    with pattern_cache.kept_compiles():
        assert pattern_cache._compiler.compile is original  # not even hooked
    assert list(tmp_path.iterdir()) == []


def test_the_hook_is_removed_after_the_block(cache_dir):
    original = pattern_cache._compiler.compile
    with pattern_cache.kept_compiles():
        with pattern_cache.kept_compiles():  # nested blocks: the outer one restores
            assert pattern_cache._compiler.compile is not original
        assert pattern_cache._compiler.compile is not original
    assert pattern_cache._compiler.compile is original


def test_an_unwritable_directory_only_costs_the_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("DEID_CRF_PATTERN_CACHE", str(blocker / "cache"))  # under a file: cannot be made
    _fresh_process_state(monkeypatch)
    re.purge()
    assert _compile_all() == [re.compile(p, f) for p, f in PATTERNS]


_LIST_PATTERNS = """
import hashlib, sys
from re import _compiler
seen = []
original = _compiler.compile
def spy(p, flags=0):
    if isinstance(p, str):
        seen.append(f"{flags}\\0{p}")
    return original(p, flags)
_compiler.compile = spy
import deid_crf.deid.rules as rules
rules.prepare()
print(len(seen), hashlib.sha256("\\1".join(sorted(seen)).encode("utf-8", "surrogatepass")).hexdigest())
"""


def test_the_rule_layer_builds_the_same_patterns_at_every_run(tmp_path):
    """Patterns built from sets in their iteration order would differ with the hash
    seed: each run would miss the cache (and prefer another of two equal alternatives)."""
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "DEID_CRF_PATTERN_CACHE": "off"}
        done = subprocess.run(
            [sys.executable, "-c", _LIST_PATTERNS],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        outputs.append(done.stdout.split())
    assert int(outputs[0][0]) > 300
    assert outputs[0] == outputs[1]
