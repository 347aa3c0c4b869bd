"""Recall-first mode: candidates from the CRF's marginals beside its best path."""

from __future__ import annotations

import json

import numpy as np
import pytest

from deid_crf.deid.deidentifier import Deidentifier, UnsupportedOption
from deid_crf.models.candidates import candidate_labels, scored_entities
from deid_crf.tag import main
from deid_crf.text.spans import CANDIDATE
from deid_crf.text.tokenizer import Tokenizer

NAMES = ["O", "B-FECHAS", "I-FECHAS", "B-PAIS", "I-PAIS"]


def test_candidate_labels_type_by_summed_begin_and_inside():
    marginals = np.array(
        [
            [0.95, 0.03, 0.00, 0.02, 0.00],  # P(PHI) 0.05: below 0.1
            [0.70, 0.10, 0.05, 0.00, 0.15],  # FECHAS 0.15 = PAIS 0.15: the first type; B 0.10 > I 0.05
            [0.60, 0.05, 0.00, 0.15, 0.20],  # PAIS 0.35 (I larger) beats FECHAS 0.05
        ]
    )
    labels, confidence = candidate_labels(marginals, NAMES, 0.1)
    assert labels.tolist() == ["O", "B-FECHAS", "I-PAIS"]
    assert confidence.tolist() == pytest.approx([0.0, 0.15, 0.35])


def test_scored_entities_add_candidates_only_off_the_best_path():
    table = Tokenizer()(["Vive en Lugo desde ayer ."])
    n = len(table)
    assert table.tokens.tolist() == ["Vive", "en", "Lugo", "desde", "ayer", "."]
    best = np.array(["O", "O", "B-PAIS", "O", "O", "O"], dtype=object)
    marginals = np.zeros((n, len(NAMES)))
    marginals[:, 0] = 1.0
    marginals[2] = [0.1, 0.0, 0.0, 0.9, 0.0]  # the best path's PAIS
    marginals[1] = [0.8, 0.0, 0.0, 0.0, 0.2]  # "en": a PAIS candidate would join "Lugo", but it is the best path's
    marginals[4] = [0.7, 0.25, 0.05, 0.0, 0.0]  # "ayer": a FECHAS candidate
    chosen = marginals[np.arange(n), [NAMES.index(label) for label in best]]
    scored = scored_entities(table, best, chosen, marginals, NAMES, recall_threshold=0.15)[0]
    found = [(s.entity.type, s.entity.start, s.entity.end, s.candidate) for s in scored]
    start = {t: int(table.start[i]) for i, t in enumerate(table.tokens.tolist())}
    assert found == [
        ("PAIS", start["en"], start["en"] + 2, True),
        ("PAIS", start["Lugo"], start["Lugo"] + 4, False),
        ("FECHAS", start["ayer"], start["ayer"] + 4, True),
    ]
    lugo = scored[1]
    assert lugo.confidence == pytest.approx(0.9) and lugo.min_confidence == pytest.approx(0.9)
    assert scored[2].min_confidence == pytest.approx(0.30)
    # Without the threshold, only the best path's entities.
    assert [s.candidate for s in scored_entities(table, best, chosen)[0]] == [False]


def test_tagger_candidates_grow_as_the_threshold_falls(tiny_tagger, unseen_document):
    text = unseen_document.text + "\nVisto en consulta el martes por Gumersinda Ortuño en Cuenca.\n"
    plain = tiny_tagger.tag_texts_scored([text])[0]
    assert [s.entity for s in plain] == tiny_tagger.tag_texts([text])[0]
    counts = []
    for threshold in (1.0, 0.5, 0.1, 1e-6):
        scored = tiny_tagger.tag_texts_scored([text], recall_threshold=threshold)[0]
        model = [s for s in scored if not s.candidate]
        assert [s.entity for s in model] == [s.entity for s in plain]  # the best path is untouched
        assert all(s.min_confidence <= s.confidence + 1e-12 for s in scored)
        assert all(s.confidence < 0.5 + 1e-9 for s in scored if s.candidate)
        counts.append(sum(s.candidate for s in scored))
    assert counts == sorted(counts) and counts[-1] > counts[0]


def test_deidentifier_marks_candidates_and_refuses_models_without_marginals(tiny_tagger, unseen_document):
    deid = Deidentifier(tiny_tagger, rules="off", recall_threshold=1e-6)
    spans = deid.find([unseen_document.text], confidence=False)[0]
    assert any(s.source == CANDIDATE for s in spans)

    class NoMarginals:
        has_marginals = False

    with pytest.raises(UnsupportedOption, match="recall-first mode needs a CRF model"):
        Deidentifier(NoMarginals(), recall_threshold=0.1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"in \(0, 1\]"):
        tiny_tagger.tag_texts_scored(["x"], recall_threshold=0.0)


@pytest.mark.parametrize("value", ["0", "1.5", "abc", "-0.1"])
def test_cli_refuses_a_threshold_outside_0_1(value, tiny_model_dir, tmp_path, capsys):
    note = tmp_path / "n.txt"
    note.write_text("Nombre: Ana.\n", encoding="utf-8")
    with pytest.raises(SystemExit) as refused:
        main([str(note), "--model", str(tiny_model_dir), "--recall-first", value])
    assert refused.value.code == 2
    assert "--recall-first" in capsys.readouterr().err


def test_cli_recall_first_adds_candidates_and_is_recorded(tiny_model_dir, unseen_document, tmp_path, capsys):
    notes = tmp_path / "in"
    notes.mkdir()
    (notes / "n.txt").write_text(unseen_document.text, encoding="utf-8")
    base = [str(notes), "--model", str(tiny_model_dir), "--format", "json", "-j", "1"]
    assert main([*base, "-o", str(tmp_path / "plain")]) == 0
    assert main([*base, "-o", str(tmp_path / "rf"), "--recall-first", "1e-6"]) == 0
    plain = json.loads((tmp_path / "plain" / "n.json").read_text())["entities"]
    more = json.loads((tmp_path / "rf" / "n.json").read_text())["entities"]
    assert len(more) > len(plain)
    assert {e["source"] for e in more if e not in plain} == {CANDIDATE}
    run = json.loads((tmp_path / "rf" / ".deid-crf-run.json").read_text())
    assert run["settings"]["recall_first"] == 1e-6
    assert "recall_first" not in json.loads((tmp_path / "plain" / ".deid-crf-run.json").read_text())["settings"]
    with pytest.raises(SystemExit):  # another threshold into the same folder: other settings
        main([*base, "-o", str(tmp_path / "rf"), "--recall-first", "0.5"])
    assert "recall_first" in capsys.readouterr().err
