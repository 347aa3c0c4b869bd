"""constraints.txt holds fixed what a fresh clone's `make train-crf` must rebuild the same."""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def pinned() -> dict[str, str]:
    lines = (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pins = [re.fullmatch(r"([\w.-]+)==([\w.]+)", line) for line in lines if line and not line.startswith("#")]
    return dict(pin.groups() for pin in pins)


def test_faker_pin_is_the_version_the_committed_lists_record():
    sources = json.loads((REPO / "gazetteers" / "lists" / "SOURCES.json").read_text(encoding="utf-8"))
    recorded = {
        info["source"]["commit"] for info in sources["lists"].values() if info["source"]["commit"].startswith("faker==")
    }
    assert recorded == {f"faker=={pinned()['faker']}"}


def test_the_makefile_installs_with_the_constraints():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    target = makefile.split("$(VENV)/.installed:")[1]
    assert "constraints.txt" in target.splitlines()[0]  # a new pin reinstalls
    assert "-c constraints.txt" in target
