"""Recall-first mode: candidates from the CRF's marginals beside its best path."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from deid_crf.batch.html_view import html_page
from deid_crf.deid.deidentifier import Deidentifier, Result, UnsupportedOption
from deid_crf.io.brat import read_brat_dir
from deid_crf.models.candidates import (
    SPAN_CANDIDATES,
    TOKEN_CANDIDATES,
    candidate_labels,
    entity_token_scores,
    scored_entities,
    span_candidates,
)
from deid_crf.models.crf_decode import SpanMarginals
from deid_crf.tag import main
from deid_crf.text import bio
from deid_crf.text.document import Entity
from deid_crf.text.spans import CANDIDATE, MODEL, PHISpan
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
    scored = scored_entities(table, best, chosen, marginals, NAMES, 0.15, candidates=(TOKEN_CANDIDATES,))[0]
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


def test_entity_scores_read_only_the_entities_tokens():
    """Each entity's mean and lowest token confidence, whatever the other tokens hold
    (NaN: not computed), in two documents, entities touching each other and the last token."""
    table = Tokenizer()(["Vive en Lugo Ana hoy .", "Ana Ruiz Gil"])
    labels = np.array(["O", "O", "B-PAIS", "B-PAIS", "O", "O", "B-PAIS", "I-PAIS", "I-PAIS"], dtype=object)
    confidence = np.array([np.nan, np.nan, 0.9, 0.7, np.nan, np.nan, 0.5, 0.25, 0.75])
    entities = bio.decode(table, labels)
    assert [len(found) for found in entities] == [2, 1]
    mean, lowest = entity_token_scores(table, entities, confidence)
    assert mean == pytest.approx([0.9, 0.7, 0.5]) and lowest == [0.9, 0.7, 0.25]
    assert entity_token_scores(table, [[], []], confidence) == ([], [])


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
        assert all(s.confidence < 0.5 + 1e-9 for s in scored if s.candidate and not s.alternative)
        assert all(s.confidence >= threshold for s in scored if s.alternative)
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


def test_span_candidates_are_alternatives_beside_the_best_path():
    table = Tokenizer()(["Vive en Lugo desde ayer .", "Nada ."])
    best = np.array(["O", "O", "B-PAIS", "O", "O", "O", "O", "O"], dtype=object)
    chosen = np.ones(len(table))
    # Three span candidates: the best path's own PAIS (dropped: already found), "en Lugo"
    # as PAIS (overlapping it) and "Nada" in the second document.
    spans = SpanMarginals(
        first=np.array([1, 2, 6]),
        last=np.array([2, 2, 6]),
        types=np.array([1, 1, 0]),
        probability=np.array([0.3, 0.6, 0.2]),
    )
    alternatives = span_candidates(table, spans, ["FECHAS", "PAIS"])
    scored = scored_entities(
        table, best, chosen, recall_threshold=0.1, spans=alternatives, candidates=(SPAN_CANDIDATES,)
    )
    start = {t: int(table.start[i]) for i, t in enumerate(table.tokens.tolist()[:6])}
    assert [(s.entity, s.confidence, s.candidate, s.alternative) for s in scored[0]] == [
        (Entity(start["en"], start["Lugo"] + 4, "PAIS"), 0.3, True, True),
        (Entity(start["Lugo"], start["Lugo"] + 4, "PAIS"), 1.0, False, False),
    ]
    assert [(s.entity, s.min_confidence) for s in scored[1]] == [(Entity(0, 4, "FECHAS"), 0.2)]
    with pytest.raises(ValueError, match="span marginals"):
        scored_entities(table, best, chosen, recall_threshold=0.1, candidates=(SPAN_CANDIDATES,))
    with pytest.raises(ValueError, match="unknown candidate kinds"):
        scored_entities(table, best, chosen, recall_threshold=0.1, candidates=("paths",))


def test_tagger_span_candidates_are_its_span_marginals(tiny_tagger, unseen_document):
    text = unseen_document.text
    found = {}
    for threshold in (0.5, 0.05, 1e-3):
        scored = tiny_tagger.tag_texts_scored([text], recall_threshold=threshold, candidates=(SPAN_CANDIDATES,))[0]
        assert [s.entity for s in scored if not s.candidate] == tiny_tagger.tag_texts([text])[0]
        found[threshold] = {s.entity: s.confidence for s in scored if s.alternative}
    assert found[0.5].keys() <= found[0.05].keys() <= found[1e-3].keys() and found[1e-3].keys() > found[0.5].keys()
    # The same probabilities as the decoder's span marginals on this text alone.
    pipeline = tiny_tagger._pipeline()
    table = pipeline.tokenizer([text])
    weights = tiny_tagger.model_.weights()
    _, _, spans = weights.tag_with_marginals(pipeline.featurizer, table, span_threshold=1e-3)
    types = weights.entity_labels()[0]
    expected = {
        Entity(int(table.start[a]), int(table.end[b]), types[t]): p
        for a, b, t, p in zip(spans.first, spans.last, spans.types, spans.probability, strict=True)
    }
    assert found[1e-3].keys() <= expected.keys()
    assert all(found[1e-3][e] == pytest.approx(expected[e], abs=1e-12) for e in found[1e-3])


def test_deidentifier_lists_overlapping_candidates_and_masks_their_union(tiny_tagger, unseen_document):
    text = unseen_document.text
    deid = Deidentifier(tiny_tagger, rules="off", recall_threshold=1e-3, mask_char="#")
    spans = deid.find([text])[0]
    assert any(a.overlaps(b) for a, b in itertools.combinations(spans, 2))  # alternatives overlap
    annotated = deid.apply(text, spans, "annotate")
    assert [(s.start, s.end, s.type) for s in annotated.spans] == [(s.start, s.end, s.type) for s in sorted(spans)]
    assert all(s.text == text[s.start : s.end] for s in annotated.spans)
    masked = deid.apply(text, spans, "masked").text
    assert len(masked) == len(text)  # a mask character per character: offsets kept
    covered = {i for s in spans for i in range(s.start, s.end) if not text[i].isspace()}
    assert all(masked[i] == "#" for i in covered)
    assert all(masked[i] == text[i] for i in range(len(text)) if i not in covered)


def test_cli_candidates_in_brat_and_their_union_masked(tiny_model_dir, unseen_document, tmp_path):
    notes = tmp_path / "in"
    notes.mkdir()
    text = unseen_document.text
    (notes / "n.txt").write_text(text, encoding="utf-8")
    base = [str(notes), "--model", str(tiny_model_dir), "-j", "1", "--recall-first", "1e-3"]
    assert main([*base, "--format", "brat", "-o", str(tmp_path / "brat")]) == 0
    assert main([*base, "--format", "masked", "--mask-char", "#", "-o", str(tmp_path / "masked")]) == 0
    assert main([*base, "--format", "json", "-o", str(tmp_path / "json")]) == 0
    (doc,) = read_brat_dir(tmp_path / "brat")  # BRAT reads overlapping annotations back
    entities = doc.entities
    assert any(a.start < b.end and b.start < a.end for a, b in itertools.combinations(entities, 2))
    listed = json.loads((tmp_path / "json" / "n.json").read_text())["entities"]
    assert sorted((e["start"], e["end"], e["type"]) for e in listed) == [
        (e.start, e.end, e.type) for e in sorted(entities)
    ]
    masked = (tmp_path / "masked" / "n.txt").read_text(encoding="utf-8")
    covered = {i for e in entities for i in range(e.start, e.end) if not text[i].isspace()}
    assert len(masked) == len(text) and all(masked[i] == "#" for i in covered)
    assert all(masked[i] == text[i] for i in range(len(text)) if i not in covered)


def test_html_page_marks_one_layer_and_lists_overlapping_candidates():
    text = "Paciente Ana Rivera Bueno."
    spans = [
        PHISpan(9, 19, "NOMBRE_SUJETO_ASISTENCIA", 0.9, MODEL, text=text[9:19]),
        PHISpan(9, 25, "NOMBRE_SUJETO_ASISTENCIA", 0.2, CANDIDATE, text=text[9:25]),
    ]
    page = html_page(Result("a", text, spans, "annotate"))
    document, alternatives = page.split('<div class="doc">')[1].split("</div>")
    assert document.count("<mark") == 1 and 'data-start="9" data-end="19"' in document
    assert "1 overlapping candidate(s)" in alternatives
    assert alternatives.count("<mark") == 1 and 'data-start="9" data-end="25"' in alternatives
