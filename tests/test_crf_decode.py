"""The numpy CRF decoder and the matrix-free linear scores it stands on: the same
labels as CRFsuite's own tagger, the same scores as summing weights over the
rendered attribute strings."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_crf.config import FeatureConfig
from deid_crf.featurization.featurizer import Featurizer
from deid_crf.models.crf_decode import CRFWeights, viterbi
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.text.document import Document
from deid_crf.text.tokenizer import tokenize

TEXTS = [
    "Nombre: Ana.\nApellidos: Rivera Bueno.\nNHC: 368503.\n\nLa Sra. Rivera, de 43 años, acude a urgencias.",
    "Remitido por el Dr. Tomás Cuéllar.\nNºCol: 28 28 70973.\nCorreo: tcuellar@hospital.es",
    "",
    "Sin antecedentes.",
]


def brute_force(scores: np.ndarray, transitions: np.ndarray) -> float:
    """The best total score of any label sequence (every sequence tried)."""
    n, k = scores.shape
    best = -np.inf
    for labels in itertools.product(range(k), repeat=n):
        total = sum(scores[t, y] for t, y in enumerate(labels))
        total += sum(transitions[a, b] for a, b in itertools.pairwise(labels))
        best = max(best, total)
    return best


@settings(max_examples=40, deadline=None)
@given(lengths=st.lists(st.integers(0, 4), min_size=1, max_size=6), seed=st.integers(0, 2**16))
def test_viterbi_finds_the_best_sequence_of_every_sentence(lengths, seed):
    rng = np.random.default_rng(seed)
    k = 3
    scores = rng.normal(size=(sum(lengths), k))
    transitions = rng.normal(size=(k, k))
    ends = np.cumsum(lengths)
    bounds = np.stack([ends - lengths, ends], axis=1)
    labels = viterbi(scores, transitions, bounds)
    for (start, end), length in zip(bounds.tolist(), lengths, strict=True):
        if length == 0:
            continue
        path = labels[start:end]
        total = scores[np.arange(start, end), path].sum() + sum(transitions[a, b] for a, b in itertools.pairwise(path))
        assert total == pytest.approx(brute_force(scores[start:end], transitions))


def test_viterbi_blocks_of_sentences_agree_with_one_block(monkeypatch):
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 30, size=50)
    ends = np.cumsum(lengths)
    bounds = np.stack([ends - lengths, ends], axis=1)
    scores, transitions = rng.normal(size=(int(ends[-1]), 5)), rng.normal(size=(5, 5))
    whole = viterbi(scores, transitions, bounds)
    monkeypatch.setattr("deid_crf.models.crf_decode.SENTENCE_BLOCK", 7)
    assert (viterbi(scores, transitions, bounds) == whole).all()
    assert viterbi(np.zeros((0, 5)), transitions, np.zeros((0, 2), dtype=np.int64)).shape == (0,)


@pytest.mark.parametrize(
    "config",
    [
        FeatureConfig(),
        FeatureConfig(groups=(*FeatureConfig().groups, "document_label"), window_columns=("w", "doclabel")),
    ],
)
def test_linear_scores_equal_the_sum_over_rendered_attributes(config: FeatureConfig):
    table = tokenize(TEXTS)
    featurizer = Featurizer(config)
    items = featurizer.crf_items(table)
    attributes = sorted({a for sentence in items for token in sentence for a in token})
    if "document_label" in config.groups:  # its absent value "-" is left out, the others kept
        assert "doclabel=apellidos" in attributes and "-1:doclabel=nombre" in attributes
        assert not [a for a in attributes if a.endswith("doclabel=-")]
    rng = np.random.default_rng(1)
    # A weight row for every other attribute; the rest are unknown to the "model".
    known = {a: i for i, a in enumerate(attributes[::2])}
    weights = np.vstack([rng.normal(size=(len(known), 4)), np.zeros((1, 4))])

    def rows_of(strings: list[str]) -> np.ndarray:
        return np.array([known.get(s, len(known)) for s in strings], dtype=np.int64)

    expected = np.array([weights[rows_of(token)].sum(axis=0) for sentence in items for token in sentence])
    np.testing.assert_allclose(featurizer.linear_scores(replace(table), weights, rows_of), expected, atol=1e-9)
    matrix = featurizer.hashed_matrix(table, 2**10)
    assert np.diff(matrix.indptr).tolist() == [len(token) for sentence in items for token in sentence]
    hashed_weights = rng.normal(size=(2**10, 3))
    np.testing.assert_allclose(featurizer.hashed_scores(table, hashed_weights), matrix @ hashed_weights, atol=1e-9)


def test_numpy_decoder_tags_as_crfsuite_does(tiny_tagger: DeidTagger, tiny_corpus: list[Document]):
    texts = [d.text for d in tiny_corpus] + TEXTS
    pipeline = tiny_tagger._pipeline()
    table = pipeline.tokenizer(texts)
    by_crfsuite = tiny_tagger.model_.predict(pipeline.featurizer.crf_items(table))
    expected = [label for sentence in by_crfsuite for label in sentence]
    weights = tiny_tagger.model_.weights()
    assert weights.tag(pipeline.featurizer, replace(table)).tolist() == expected
    assert set(weights.labels) == set(tiny_tagger.model_.classes_)


def test_crf_weights_read_every_feature(tiny_tagger: DeidTagger):
    crfsuite = tiny_tagger.model_.crf_.tagger_
    info = crfsuite.info()
    weights = CRFWeights.from_tagger(crfsuite)
    index = {label: k for k, label in enumerate(weights.labels)}
    for (attribute, label), value in itertools.islice(info.state_features.items(), 200):
        assert weights.state[weights.attributes[attribute], index[label]] == value
    for (previous, label), value in info.transitions.items():
        assert weights.transitions[index[previous], index[label]] == value
    assert (weights.rows(["no such attribute"]) == len(weights.attributes)).all()
    assert not weights.state[-1].any()
