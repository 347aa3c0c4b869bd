"""The spaCy component: ``nlp.add_pipe("deid_crf", config={"model": DIR})`` on
``spacy.blank("es")`` with a tiny CRF trained in the test session."""

from __future__ import annotations

import importlib
import importlib.util
import os
import tomllib
from pathlib import Path

import pytest

if importlib.util.find_spec("spacy") is None:
    MISSING = "spaCy is not installed (pip install 'deid-crf[spacy]')"
    if os.environ.get("CI"):  # CI installs the spacy extra: its tests must run there
        pytest.fail(MISSING, pytrace=False)
    pytest.skip(MISSING, allow_module_level=True)

import spacy
from spacy.tokens import Span

import deid_crf
from deid_crf.integrations import spacy_component
from deid_crf.io.persistence import InvalidModel, ModelNotFoundError

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def nlp(tiny_model_dir: Path):
    nlp = spacy.blank("es")
    nlp.add_pipe("deid_crf", config={"model": str(tiny_model_dir)})
    return nlp


def expected_spans(model_dir: Path, text: str):
    """What deid-crf itself finds in ``text`` (model + rule layer)."""
    return deid_crf.load(model_dir).find([text])[0]


def test_the_component_sets_ents_and_scored_spans(nlp, tiny_model_dir, unseen_document):
    text = unseen_document.text
    doc = nlp(text)
    found = expected_spans(tiny_model_dir, text)
    assert found, "the tiny model finds the unseen patient's PHI"
    group = doc.spans["deid_crf"]
    assert [(s.start_char, s.end_char, s.label_) for s in group] == [(p.start, p.end, p.type) for p in found]
    assert group.attrs["scores"] == [p.confidence for p in found]
    assert [s._.deid_confidence for s in group] == [p.confidence for p in found]
    assert [s._.deid_source for s in group] == [p.source for p in found]
    assert all(0.0 < c <= 1.0 for c in group.attrs["scores"])
    assert [(e.start_char, e.end_char, e.label_) for e in doc.ents] == [(p.start, p.end, p.type) for p in found]
    # the gold entities of the unseen document, as the model should find them
    names = {e.text for e in doc.ents if e.label_ == "NOMBRE_SUJETO_ASISTENCIA"}
    assert "Filiberta" in names


def test_a_span_inside_a_spacy_token_expands_to_the_token(nlp, tiny_model_dir):
    # spaCy keeps "NHC:745120." apart differently from deid-crf: spans cover whole tokens.
    text = "Nombre: Filiberta.\nNHC:745120X.\n"
    doc = nlp(text)
    found = expected_spans(tiny_model_dir, text)
    assert [p.type for p in found] == ["NOMBRE_SUJETO_ASISTENCIA", "ID_SUJETO_ASISTENCIA"]
    spans = list(doc.spans["deid_crf"])
    assert [(s.start_char, s.end_char) for s in spans] == [(found[0].start, found[0].end), (19, 31)]
    assert spans[1].text == "NHC:745120X." and (found[1].start, found[1].end) == (23, 30)  # one spaCy token
    assert [s.label_ for s in spans] == [p.type for p in found]


def test_pipe_batches_give_the_same_result_as_one_call(nlp, tiny_corpus, unseen_document):
    texts = [d.text for d in tiny_corpus] + [unseen_document.text]
    one = [[(e.start_char, e.end_char, e.label_) for e in nlp(t).ents] for t in texts]
    piped = [[(e.start_char, e.end_char, e.label_) for e in d.ents] for d in nlp.pipe(texts, batch_size=3)]
    assert piped == one


def test_entities_set_earlier_are_kept_unless_phi_overlaps_them(tiny_model_dir, unseen_document):
    nlp = spacy.blank("es")

    @spacy.Language.component("mark_first_and_last_token")
    def mark(doc):
        doc.ents = [Span(doc, 0, 1, label="FIRST"), Span(doc, len(doc) - 1, len(doc), label="LAST")]
        return doc

    nlp.add_pipe("mark_first_and_last_token")
    nlp.add_pipe("deid_crf", config={"model": str(tiny_model_dir)})
    doc = nlp(unseen_document.text)
    labels = [e.label_ for e in doc.ents]
    assert labels[0] == "FIRST" and labels[-1] == "LAST"
    assert "NOMBRE_SUJETO_ASISTENCIA" in labels


def test_rules_off_and_a_spans_key_of_ones_own(tiny_model_dir, unseen_document):
    nlp = spacy.blank("es")
    nlp.add_pipe(
        "deid_crf", config={"model": str(tiny_model_dir), "rules": "off", "spans_key": "phi", "set_ents": False}
    )
    doc = nlp(unseen_document.text)
    model_only = deid_crf.load(tiny_model_dir, rules="off").find([unseen_document.text])[0]
    assert [(s.start_char, s.end_char) for s in doc.spans["phi"]] == [(p.start, p.end) for p in model_only]
    assert {s._.deid_source for s in doc.spans["phi"]} == {"model"}
    assert doc.ents == ()
    assert "deid_crf" not in doc.spans


def test_a_missing_or_damaged_model_fails_at_creation(tmp_path, tiny_model_dir):
    nlp = spacy.blank("es")
    with pytest.raises(ValueError, match="config 'model' must name"):
        nlp.add_pipe("deid_crf")
    with pytest.raises(ModelNotFoundError, match="no trained model in"):
        nlp.add_pipe("deid_crf", config={"model": str(tmp_path / "nowhere")})
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for f in tiny_model_dir.iterdir():
        (damaged / f.name).write_bytes(f.read_bytes())
    crfsuite = damaged / "model.crfsuite"
    data = bytearray(crfsuite.read_bytes())
    data[100] ^= 0xFF
    crfsuite.write_bytes(bytes(data))
    with pytest.raises(InvalidModel, match="model.crfsuite"):
        nlp.add_pipe("deid_crf", config={"model": str(damaged)})


def test_the_factory_is_registered_and_declared_as_an_entry_point():
    assert spacy.Language.has_factory("deid_crf")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entry = project["entry-points"]["spacy_factories"]["deid_crf"]
    module, _, function = entry.partition(":")
    assert getattr(importlib.import_module(module), function) is spacy_component.make_deid_crf
    assert any(dep.startswith("spacy") for dep in project["optional-dependencies"]["spacy"])
