"""The optional stanza POS backend (``deid_crf/pos_stanza.py``).

Without stanza (the default install, CI) the tests that need it are skipped with that
reason; the error paths for a missing stanza, the EAGLES derivation and how a saved model
records the backend run everywhere. With stanza, the adapter is tested against what
stanza offers offline: real ``stanza.Document`` objects and a ``Pipeline`` that must fail
cleanly without a Spanish model. Tagging with a real Spanish model runs only where one
has been downloaded; it is skipped, never faked, where none is available."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from deid_crf import resources
from deid_crf.config import FeatureConfig
from deid_crf.io.persistence import write_manifest
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.resources import pos_stanza
from deid_crf.resources.pos import table_from_sentences
from deid_crf.resources.pos_stanza import StanzaPOSTagger, StanzaUnavailableError, eagles2_of

HAS_STANZA = importlib.util.find_spec("stanza") is not None
needs_stanza = pytest.mark.skipif(not HAS_STANZA, reason="stanza is not installed (optional extra deid-crf[stanza])")
NO_MODEL = "no stanza Spanish model available offline"

STANZA_POS = replace(FeatureConfig(), groups=(*FeatureConfig().groups, "pos"), pos_backend="stanza")


@pytest.fixture
def without_stanza(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import stanza`` fail as it does where the extra is not installed."""
    monkeypatch.setitem(sys.modules, "stanza", None)


def test_missing_stanza_tells_how_to_install(without_stanza: None):
    with pytest.raises(StanzaUnavailableError, match=r"pip install 'deid-crf\[stanza\]'") as info:
        StanzaPOSTagger().predict([["Paciente", "."]])
    assert "torch" in str(info.value)


def test_importing_the_package_does_not_import_stanza():
    code = (
        "import sys, deid_crf.resources.pos_stanza, deid_crf.resources, deid_crf.models.crf_tagger;"
        "print(sorted({'stanza', 'torch'} & set(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_eagles2_from_ancora_xpos_or_derived_from_features():
    assert eagles2_of("NOUN", "ncms000", "Gender=Masc|Number=Sing", None, "dolor") == "NC"
    assert eagles2_of("ADP", "sps00", None, None, "de") == "SP"
    assert eagles2_of("PUNCT", "fc", None, None, ",") == "FC"
    assert eagles2_of("NUM", "z", None, None, "3") == "Z"
    # Not EAGLES (UPOS as XPOS, PTB-like tags, none): derived from UPOS and features.
    assert eagles2_of("NOUN", "NOUN", None, None, "dolor") == "NC"
    assert eagles2_of("ADP", "IN", None, None, "de") == "SP"
    assert eagles2_of("DET", None, "Definite=Def|PronType=Art", None, "el") == "DA"
    assert eagles2_of("DET", None, "Number=Sing|Poss=Yes|PronType=Prs", None, "su") == "DP"
    assert eagles2_of("PRON", None, "Case=Acc|Person=3|PronType=Prs|Reflex=Yes", None, "se") == "P0"
    assert eagles2_of("PRON", None, "PronType=Rel", None, "que") == "PR"
    assert eagles2_of("ADJ", None, "NumType=Ord", None, "primer") == "AO"
    assert eagles2_of("ADV", None, "Polarity=Neg", None, "no") == "RN"
    assert eagles2_of("AUX", None, None, "ser", "es") == "VS"
    assert eagles2_of("AUX", None, None, "estar", "está") == "VM"
    assert eagles2_of("PUNCT", None, None, None, "(") == "FP"
    assert eagles2_of("PUNCT", None, None, None, "¿") == "FI"
    assert eagles2_of("PUNCT", None, None, None, "*") == "FZ"
    assert eagles2_of("X", None, None, None, "xq") == "X"


def test_saving_with_stanza_bundles_no_pos_model(tmp_path: Path):
    """The stanza model (torch pickles) is never copied into a saved model; the config
    records the backend instead. The built-in model path is not even looked at."""
    config = replace(STANZA_POS, pos_model=str(tmp_path / "does-not-exist"))
    assert resources.bundle(config, tmp_path) == config
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(FileNotFoundError, match="'pos'"):
        resources.bundle(replace(config, pos_backend="builtin"), tmp_path)


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="pos_backend 'spacy'"):
        resources.pos_tagger(replace(STANZA_POS, pos_backend="spacy"))


def _stanza_model(tiny_model_dir: Path, target: Path, stanza_dir: Path) -> Path:
    """A copy of a saved model whose config says its POS features came from stanza
    (what `DeidTagger.save` writes for such a model)."""
    shutil.copytree(tiny_model_dir, target)
    meta = json.loads((target / "config.json").read_text(encoding="utf-8"))
    meta["config"]["features"].update(groups=list(STANZA_POS.groups), pos_backend="stanza", stanza_dir=str(stanza_dir))
    (target / "config.json").write_text(json.dumps(meta), encoding="utf-8")
    write_manifest(target)  # as saving writes it
    return target


def test_loading_a_stanza_model_without_stanza_fails_clearly(tiny_model_dir: Path, tmp_path: Path, without_stanza):
    model = _stanza_model(tiny_model_dir, tmp_path / "model", tmp_path / "stanza")
    with pytest.raises(StanzaUnavailableError, match=r"POS features come from stanza.*deid-crf\[stanza\]") as info:
        DeidTagger.load(model)
    assert str(model) in str(info.value)


@needs_stanza
def test_loading_a_stanza_model_without_its_spanish_model_fails_clearly(tiny_model_dir: Path, tmp_path: Path):
    model = _stanza_model(tiny_model_dir, tmp_path / "model", tmp_path / "stanza")
    with pytest.raises(StanzaUnavailableError, match=r"POS features come from stanza.*stanza\.download\('es'"):
        DeidTagger.load(model)


@needs_stanza
def test_tags_from_a_stanza_document():
    from stanza.models.common.doc import Document

    document = Document(
        [
            [
                {"id": 1, "text": "Paciente", "upos": "NOUN", "xpos": "ncms000", "feats": "Gender=Masc|Number=Sing"},
                {"id": 2, "text": "ingresado", "upos": "VERB", "xpos": "vmp00sm", "feats": "VerbForm=Part"},
                {"id": (3, 4), "text": "del"},
                {"id": 3, "text": "de", "upos": "ADP", "xpos": "sps00"},
                {"id": 4, "text": "el", "upos": "DET", "xpos": "da0ms0", "feats": "Definite=Def|PronType=Art"},
                {"id": 5, "text": "hospital", "upos": "NOUN", "xpos": "ncms000"},
            ],
            [
                {"id": 1, "text": "Se", "upos": "PRON", "feats": "Person=3|PronType=Prs|Reflex=Yes"},
                {"id": 2, "text": "le", "upos": "PRON", "feats": "Case=Dat|Person=3|PronType=Prs"},
                {"id": 3, "text": "da", "upos": "VERB", "xpos": "VERB"},
                {"id": 4, "text": "el", "upos": "DET", "feats": "Definite=Def|PronType=Art"},
                {"id": 5, "text": "alta", "upos": "NOUN"},
                {"id": 6, "text": ".", "upos": "PUNCT"},
            ],
        ]
    )
    tags = pos_stanza.tags_from_document(document)
    assert tags["upos"] == ["NOUN", "VERB", "ADP", "NOUN", "PRON", "PRON", "VERB", "DET", "NOUN", "PUNCT"]
    assert tags["eagles2"] == ["NC", "VM", "SP", "NC", "P0", "PP", "VM", "DA", "NC", "FP"]


@needs_stanza
def test_contractions_go_to_stanza_as_multi_word_tokens_and_come_back_as_ours():
    sentences = [["Ingresó", "DEL", "servicio", "al", "alta", "."], ["Del", "hospital"]]
    document = pos_stanza.document_from_sentences(sentences)
    tokens = [[t.text for t in s.tokens] for s in document.sentences]
    words = [[[w.text for w in t.words] for t in s.tokens] for s in document.sentences]
    assert tokens == sentences
    assert words == [
        [["Ingresó"], ["DE", "EL"], ["servicio"], ["a", "el"], ["alta"], ["."]],
        [["De", "el"], ["hospital"]],
    ]
    assert [len(s.words) for s in document.sentences] == [8, 3]
    # Tag the words as stanza's AnCora model would, then read tags back per token of ours.
    gold = {"de": ("ADP", "sps00"), "a": ("ADP", "sps00"), "el": ("DET", "da0ms0"), ".": ("PUNCT", "fp")}
    for word in document.iter_words():
        word.upos, word.xpos = gold.get(word.text.lower(), ("NOUN", "ncms000"))
    tags = pos_stanza.tags_from_document(document)
    assert tags["upos"] == ["NOUN", "ADP", "NOUN", "ADP", "NOUN", "PUNCT", "ADP", "NOUN"]
    assert tags["eagles2"] == ["NC", "SP", "NC", "SP", "NC", "FP", "SP", "NC"]


@needs_stanza
def test_pipeline_without_a_spanish_model_fails_cleanly(tmp_path: Path):
    with pytest.raises(StanzaUnavailableError, match=r"no stanza Spanish POS model") as info:
        StanzaPOSTagger(str(tmp_path)).pipeline()
    assert str(tmp_path) in str(info.value) and "stanza.download('es'" in str(info.value)
    # A table with tokens needs the pipeline; an empty one does not.
    with pytest.raises(StanzaUnavailableError):
        StanzaPOSTagger(str(tmp_path)).predict([["Paciente", "."]])
    assert StanzaPOSTagger(str(tmp_path)).predict([]) == []


@needs_stanza
def test_pipeline_over_a_broken_download_fails_cleanly(tmp_path: Path):
    """An index that lists Spanish and a truncated model file (an interrupted copy):
    stanza's own Pipeline construction fails, and says so through our error."""
    (tmp_path / "resources.json").write_text(json.dumps({"es": {"lang_name": "Spanish"}}), encoding="utf-8")
    (tmp_path / "es" / "pos").mkdir(parents=True)
    (tmp_path / "es" / "pos" / "default.pt").write_bytes(b"")
    assert pos_stanza.spanish_model_available(tmp_path)
    with pytest.raises(StanzaUnavailableError, match=r"no stanza Spanish POS model .*EOFError"):
        StanzaPOSTagger(str(tmp_path)).pipeline()


@needs_stanza
def test_tagging_with_a_real_spanish_model(tmp_path: Path, tiny_corpus, unseen_document):
    """Where a Spanish model was downloaded ($STANZA_RESOURCES_DIR or stanza's default)."""
    if not pos_stanza.spanish_model_available():
        pytest.skip(NO_MODEL)
    tagger = StanzaPOSTagger()
    sentences = [
        ["El", "paciente", "ingresó", "del", "servicio", "de", "urgencias", "."],
        ["Se", "le", "da", "el", "alta"],
    ]
    tags = tagger.predict_table(table_from_sentences(sentences))
    assert [len(tags[h]) for h in ("upos", "eagles2")] == [13, 13]
    assert list(tags["upos"][[1, 3, 7]]) == ["NOUN", "ADP", "PUNCT"]
    assert list(tags["eagles2"][[1, 3, 7]]) == ["NC", "SP", "FP"]
    assert tagger.predict(sentences)[1][0] == "PRON"
    # A NER model trained with stanza POS features saves without them and loads again.
    config = replace(STANZA_POS, window_columns=(*FeatureConfig().window_columns, "pos"))
    ner = DeidTagger(feature_config=config, max_iterations=5).fit(tiny_corpus[:4])
    saved = ner.save(tmp_path / "ner")
    assert not (saved / "pos_model").exists()
    loaded = DeidTagger.load(saved)
    assert loaded.feature_config.pos_backend == "stanza"
    assert loaded.predict([unseen_document]) == ner.predict([unseen_document])
    assert np.array_equal(tagger.predict_table(table_from_sentences(sentences))["upos"], tags["upos"])
