"""Shared fixtures: the shared-data location, a tiny synthetic MEDDOCAN-like corpus
and a tiny tagger trained on it. Every fake value is invented and distinctive, so a
test can check that it never shows up in an error message."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from deid_crf.config import FeatureConfig
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.resources.pos_data import TaggedSentence
from deid_crf.text.document import Document, Entity

REPO = Path(__file__).resolve().parents[1]

# (first name, surnames, NHC, date, age) of each synthetic patient.
PATIENTS = [
    ("Zebulonio", "Quirtanilla Mofrejo", "368503", "03/03/1946", "63"),
    ("Anselma", "Britovar Ulzama", "412907", "12/11/1952", "58"),
    ("Teodulfo", "Carrasquel Nieva", "550218", "21/06/1938", "71"),
    ("Rigoberta", "Palomequ Salcedo", "107734", "07/09/1960", "49"),
    ("Eustaquio", "Valdorria Pinzal", "893012", "30/01/1975", "34"),
    ("Wenceslada", "Oyarzun Fresneda", "264481", "15/04/1981", "28"),
]
# An unseen patient for checking predictions.
UNSEEN = ("Filiberta", "Gorostiza Ventanal", "745120", "19/08/1949", "60")
# Strings that must never appear in error output.
FAKE_PHI = [p[0] for p in PATIENTS] + [UNSEEN[0], "Quirtanilla", "Gorostiza"]


def rule_layer_spans(text: str, model: list[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """The shipped rule layer's ``(surface, type)`` spans of ``text``, given the model's
    spans as ``(surface, type)`` pairs (each at its first occurrence)."""
    from deid_crf.deid.rules import rule_layer
    from deid_crf.text.spans import MODEL, PHISpan

    given = []
    for surface, type_ in model:
        start = text.index(surface)
        given.append(PHISpan(start, start + len(surface), type_, 0.9, MODEL))
    return [(text[s.start : s.end], s.type) for s in rule_layer("default").apply(text, sorted(given))]


def make_document(doc_id: str, parts: list[str | tuple[str, str]]) -> Document:
    """Concatenate ``parts``; a ``(text, TYPE)`` part becomes an entity."""
    text, entities = "", []
    for part in parts:
        if isinstance(part, tuple):
            value, label = part
            entities.append(Entity(len(text), len(text) + len(value), label))
            text += value
        else:
            text += part
    return Document(doc_id, text, entities)


def patient_document(doc_id: str, patient: tuple[str, str, str, str, str]) -> Document:
    name, surnames, nhc, date, age = patient
    return make_document(
        doc_id,
        [
            "Nombre: ",
            (name, "NOMBRE_SUJETO_ASISTENCIA"),
            ".\nApellidos: ",
            (surnames, "NOMBRE_SUJETO_ASISTENCIA"),
            ".\nNHC: ",
            (nhc, "ID_SUJETO_ASISTENCIA"),
            ".\nFecha de ingreso: ",
            (date, "FECHAS"),
            ".\n\nPaciente de ",
            (age, "EDAD_SUJETO_ASISTENCIA"),
            " años que acude a consulta por dolor abdominal. La exploración es normal.\n",
        ],
    )


@pytest.fixture(scope="session")
def fake_phi() -> list[str]:
    """Fake names of the synthetic documents, which no error output may contain."""
    return FAKE_PHI


@pytest.fixture(scope="session")
def tiny_corpus() -> list[Document]:
    return [patient_document(f"caso{i}", p) for i, p in enumerate(PATIENTS)]


@pytest.fixture(scope="session")
def unseen_document() -> Document:
    return patient_document("nuevo", UNSEEN)


@pytest.fixture(scope="session")
def tiny_tagger(tiny_corpus: list[Document]) -> DeidTagger:
    return DeidTagger(max_iterations=20).fit(tiny_corpus)


@pytest.fixture(scope="session")
def tiny_tagger_with_absent_values(tiny_corpus: list[Document]) -> DeidTagger:
    """A tiny tagger with a feature group whose absent value is left out of the
    attributes (``document_label``), as the default model has."""
    groups = (*FeatureConfig.groups, "document_label")
    return DeidTagger(feature_config=FeatureConfig(groups=groups), max_iterations=20).fit(tiny_corpus)


@pytest.fixture(scope="session")
def tiny_model_dir(tiny_tagger: DeidTagger, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_tagger.save(tmp_path_factory.mktemp("model") / "crf")


@pytest.fixture(scope="session")
def pos_sentences() -> list[TaggedSentence]:
    """Tiny POS training data: 60 tagged sentences of one invented shape."""
    nouns = ["paciente", "médico", "dolor", "fiebre", "hospital", "análisis", "tratamiento", "informe"]
    verbs = ["presenta", "refiere", "niega", "muestra", "requiere"]
    sentences = []
    for i in range(60):
        forms = ["El", nouns[i % 8], verbs[i % 5], str(i), nouns[(i + 3) % 8], "."]
        upos = ["DET", "NOUN", "VERB", "NUM", "NOUN", "PUNCT"]
        tags = ["DA", "NC", "VM", "Z", "NC", "FP"]
        sentences.append(TaggedSentence(forms, upos, tags, f"d{i}"))
    return sentences


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared MEDDOCAN data: fail in CI when it is missing, skip elsewhere."""
    # Absolute: `make test` passes a path relative to the repo, and some tests run code
    # (notebooks, workers) in other working directories.
    root = Path(os.environ.get("DEID_CRF_DATA_DIR", REPO.parent / "shared" / "data")).resolve()
    if not (root / "meddocan" / "train").is_dir() or not (root / "meddocan" / "dev").is_dir():
        message = f"shared MEDDOCAN data not found under {root} (set DEID_CRF_DATA_DIR)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return root


# Trains one model in a fresh interpreter and saves it: argv = corpus, params (JSON), out.
_TRAIN_FASTTEXT = (
    "import json, sys, fasttext; "
    "fasttext.train_unsupervised(sys.argv[1], model='skipgram', thread=1, verbose=0, "
    "**json.loads(sys.argv[2])).save_model(sys.argv[3])"
)


def train_fasttext(corpus: Path, **params):
    """A fastText skipgram model of ``corpus`` with ``params`` whose vectors are all
    finite. On a corpus as small as a test's, fastText's training often diverges:
    it reports "Encountered NaN", or ends with a few non-finite values (which
    ``deid_crf.resources.fasttext_file`` refuses); a fresh attempt succeeds. Each
    attempt runs in its own process: after one NaN, later attempts in the same
    process sometimes all diverge (40 in a row were seen)."""
    import json
    import subprocess
    import sys

    import fasttext
    import numpy as np

    out = corpus.with_name(corpus.name + ".trained.bin")
    for _attempt in range(40):
        trained = subprocess.run(
            [sys.executable, "-c", _TRAIN_FASTTEXT, str(corpus), json.dumps(params), str(out)],
            capture_output=True,
            check=False,
        )
        if trained.returncode != 0:
            if b"Encountered NaN" not in trained.stderr:
                pytest.fail(f"fastText training failed: {trained.stderr.decode(errors='replace')[-2000:]}")
            continue
        model = fasttext.load_model(str(out))
        out.unlink()
        if np.isfinite(model.get_input_matrix()).all() and np.isfinite(model.get_output_matrix()).all():
            return model
    pytest.fail("fastText training diverged 40 times on a tiny corpus")


class ApellidosTagger:
    """A stand-in tagger that finds only the surname after "Apellidos:" (so that other
    mentions of it are left to propagation, the audit or patient groups)."""

    def tag_texts_with_confidence(self, texts):
        return [
            [
                (Entity(m.start(1), m.end(1), "NOMBRE_SUJETO_ASISTENCIA"), 1.0)
                for m in re.finditer(r"Apellidos: (\w+)", t)
            ]
            for t in texts
        ]

    def tag_texts(self, texts):
        return [[e for e, _ in entities] for entities in self.tag_texts_with_confidence(texts)]
