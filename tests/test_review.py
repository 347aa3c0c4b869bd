"""The review file (``--review-below``): doubtful spans' offsets, types and confidences, no text."""

from __future__ import annotations

import json
import stat

import pytest

from deid_crf.tag import main


def test_review_file_lists_doubtful_spans_without_text(tiny_model_dir, unseen_document, tmp_path, fake_phi):
    notes = tmp_path / "in"
    notes.mkdir()
    (notes / "n.txt").write_text(unseen_document.text, encoding="utf-8")
    out = tmp_path / "out"
    args = [str(notes), "-o", str(out), "--model", str(tiny_model_dir), "--format", "json", "-j", "1"]
    assert main([*args, "--review-below", "1.0"]) == 0
    review_path = out / "n.review.json"
    assert stat.S_IMODE(review_path.stat().st_mode) == 0o600
    raw = review_path.read_text(encoding="utf-8")
    assert not any(phi in raw for phi in fake_phi)
    review = json.loads(raw)
    assert review["doc_id"] == "n" and review["review_below"] == 1.0
    entities = json.loads((out / "n.json").read_text(encoding="utf-8"))["entities"]
    # Every span below 1.0 is listed, with the offsets and type of its output entity.
    expected = [(e["start"], e["end"], e["type"]) for e in entities if e["confidence"] < 1.0]
    listed = [(s["start"], s["end"], s["type"]) for s in review["spans"]]
    assert listed and set(expected) <= set(listed)
    assert all(s["min_confidence"] < 1.0 and s["min_confidence"] <= s["confidence"] for s in review["spans"])
    assert set(review["spans"][0]) == {"start", "end", "type", "confidence", "min_confidence", "source"}
    # A review threshold no span is below gives an empty list.
    assert main([*args, "-o", str(tmp_path / "none"), "--review-below", "1e-9"]) == 0
    assert json.loads((tmp_path / "none" / "n.review.json").read_text())["spans"] == []


def test_review_of_masked_output_gives_output_offsets(tiny_model_dir, unseen_document, tmp_path):
    notes = tmp_path / "in"
    notes.mkdir()
    (notes / "n.txt").write_text(unseen_document.text, encoding="utf-8")
    out = tmp_path / "out"
    args = [str(notes), "-o", str(out), "--model", str(tiny_model_dir), "--format", "masked", "-j", "1"]
    assert main([*args, "--review-below", "1.0"]) == 0
    masked = (out / "n.txt").read_text(encoding="utf-8")
    spans = json.loads((out / "n.review.json").read_text())["spans"]
    assert spans
    for s in spans:
        assert masked[s["output_start"] : s["output_end"]] == f"[{s['type']}]"


def test_review_below_needs_an_output_dir(tiny_model_dir, tmp_path, capsys):
    note = tmp_path / "n.txt"
    note.write_text("Nombre: Ana.\n", encoding="utf-8")
    with pytest.raises(SystemExit) as refused:
        main([str(note), "--model", str(tiny_model_dir), "--review-below", "0.9"])
    assert refused.value.code == 2
    assert "needs -o" in capsys.readouterr().err
