"""The numpy CRF decoder and the matrix-free linear scores it stands on: the same
labels and marginals as CRFsuite's own tagger, the same scores as summing weights
over the rendered attribute strings."""

from __future__ import annotations

import itertools
import os
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_crf.config import FeatureConfig
from deid_crf.featurization.featurizer import Featurizer
from deid_crf.io.brat import read_brat_dir
from deid_crf.models.base import entity_confidences
from deid_crf.models.crf_decode import CRFWeights, marginals, sentence_blocks, viterbi
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.text.document import Document
from deid_crf.text.table import TokenTable
from deid_crf.text.tokenizer import tokenize

REPO = Path(__file__).resolve().parents[1]

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


def brute_force_marginals(scores: np.ndarray, transitions: np.ndarray) -> np.ndarray:
    """Every label's probability at every position (every sequence enumerated)."""
    n, k = scores.shape
    sequences = list(itertools.product(range(k), repeat=n))
    totals = np.array(
        [
            scores[np.arange(n), list(labels)].sum() + sum(transitions[a, b] for a, b in itertools.pairwise(labels))
            for labels in sequences
        ]
    )
    probabilities = np.exp(totals - totals.max())
    probabilities /= probabilities.sum()
    out = np.zeros((n, k))
    for labels, p in zip(sequences, probabilities, strict=True):
        out[np.arange(n), list(labels)] += p
    return out


def random_sentences(lengths: list[int], k: int, scale: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random state scores and transitions (standard normal times ``scale``) and the
    bounds of consecutive sentences of ``lengths``."""
    rng = np.random.default_rng(seed)
    ends = np.cumsum(lengths)
    bounds = np.stack([ends - lengths, ends], axis=1)
    return rng.normal(size=(sum(lengths), k)) * scale, rng.normal(size=(k, k)) * scale, bounds


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 4), min_size=1, max_size=6),
    seed=st.integers(0, 2**16),
    # 1000: weights thousands of nats apart, where the matrix-product sums underflow
    # and are recomputed term by term.
    scale=st.sampled_from([0.1, 1.0, 10.0, 1000.0]),
)
def test_marginals_are_the_probabilities_of_every_label(lengths, seed, scale):
    scores, transitions, bounds = random_sentences(lengths, 3, scale, seed)
    probabilities = marginals(scores, transitions, bounds)
    assert probabilities.shape == scores.shape
    for start, end in bounds.tolist():
        if end > start:
            expected = brute_force_marginals(scores[start:end], transitions)
            np.testing.assert_allclose(probabilities[start:end], expected, rtol=0, atol=1e-9)
    assert marginals(np.zeros((0, 3)), transitions, np.zeros((0, 2), dtype=np.int64)).shape == (0, 3)


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 6), min_size=1, max_size=8),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([0.1, 1.0, 1000.0]),
    tokens=st.sampled_from([3, 16384]),
)
def test_confidences_are_the_marginals_of_the_best_labels_bit_for_bit(lengths, seed, scale, tokens):
    """``tag_with_confidence`` runs forward–backward over the sentences with an entity
    token (a label other than ``O``) only and divides only the chosen label's
    exponential: at those tokens, the very numbers of ``marginals`` of those sentences
    at the Viterbi labels (one block or many); NaN at the ``O`` tokens, and 0 for an
    entity token outside every sentence."""
    scores, transitions, bounds = random_sentences(lengths, 4, scale, seed)
    scores = np.vstack([scores, np.ones((2, 4))])  # two last tokens in no sentence
    weights = CRFWeights(["B-Y", "O", "B-X", "I-X"], {}, np.zeros((1, 4)), transitions)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("deid_crf.models.crf_decode.DECODE_BLOCK_TOKENS", tokens)
        patch.setattr(weights, "scores", lambda featurizer, table: scores)
        table = SimpleNamespace(sent_bounds=bounds)
        labels, confidence = weights.tag_with_confidence(None, table)  # type: ignore[arg-type]
        best = viterbi(scores, transitions, bounds)
        entity = best != 1
        with_entity = np.array([entity[a:b].any() for a, b in bounds.tolist()], dtype=bool)
        expected = marginals(scores, transitions, bounds[with_entity])[np.arange(len(best)), best]  # same blocks
    assert labels.tolist() == [weights.labels[i] for i in best.tolist()]
    assert confidence[entity].tobytes() == expected[entity].tobytes()
    assert np.isnan(confidence[~entity]).all() and (confidence[-2:] == 0).all()  # label 0 (B-Y) outside sentences


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


def full_viterbi(scores: np.ndarray, transitions: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Viterbi with the maximum over every previous label at every step (the first of
    tied labels), sentence by sentence: what the pruned steps must reproduce."""
    out = np.zeros(len(scores), dtype=np.int64)
    for start, end in bounds.tolist():
        if end <= start:
            continue
        best, back = scores[start].astype(np.float64), []
        for t in range(start + 1, end):
            step = best[None, :] + transitions.T  # (next, previous)
            back.append(step.argmax(axis=1))
            best = step[np.arange(len(best)), back[-1]] + scores[t]
        label = int(best.argmax())
        for t in range(end - 1, start, -1):
            out[t] = label
            label = int(back[t - start - 1][label])
        out[start] = label
    return out


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 12), min_size=1, max_size=40),
    seed=st.integers(0, 2**16),
    # Whole numbers: ties everywhere. A dominant label: steps where one label is best
    # before every next one (left without a maximum). Spread scores: several can be.
    kind=st.sampled_from(["ties", "dominant", "spread"]),
    step_sentences=st.sampled_from([1, 3, 128]),
)
def test_pruned_viterbi_steps_give_the_full_maximum_labels(lengths, seed, kind, step_sentences):
    """The labels skipped at a step are never among the best (ties included): the
    labels are those of the maximum over every label, whatever the step size."""
    rng = np.random.default_rng(seed)
    k = 6
    ends = np.cumsum(lengths)
    bounds = np.stack([ends - lengths, ends], axis=1)
    if kind == "ties":
        scores, transitions = rng.integers(-2, 3, size=(int(ends[-1]), k)), rng.integers(-1, 2, size=(k, k))
    else:
        scores, transitions = rng.normal(size=(int(ends[-1]), k)), rng.normal(size=(k, k))
        if kind == "dominant":
            scores[:, 0] += 8.0
    scores, transitions = scores.astype(np.float64), transitions.astype(np.float64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("deid_crf.models.crf_decode.VITERBI_STEP_SENTENCES", step_sentences)
        labels = viterbi(scores, transitions, bounds)
    assert labels.tolist() == full_viterbi(scores, transitions, bounds).tolist()


@pytest.mark.parametrize(("sentences", "tokens"), [(7, 10**9), (10**9, 40), (3, 25), (1, 1)])
def test_blocks_of_sentences_agree_with_one_block(monkeypatch, sentences, tokens):
    """Labels the same and marginals within rounding, whatever the blocks (at most
    ``sentences`` sentences and ``tokens`` tokens, or one longer sentence), and whatever
    the order of the sentences' bounds."""
    rng = np.random.default_rng(0)
    lengths = rng.integers(0, 30, size=50)
    ends = np.cumsum(lengths)
    bounds = np.stack([ends - lengths, ends], axis=1)
    scores, transitions = rng.normal(size=(int(ends[-1]), 5)), rng.normal(size=(5, 5))
    whole, probabilities = viterbi(scores, transitions, bounds), marginals(scores, transitions, bounds)
    monkeypatch.setattr("deid_crf.models.crf_decode.SENTENCE_BLOCK", sentences)
    monkeypatch.setattr("deid_crf.models.crf_decode.DECODE_BLOCK_TOKENS", tokens)
    for order in (np.arange(len(bounds)), rng.permutation(len(bounds))):
        assert (viterbi(scores, transitions, bounds[order]) == whole).all()
        np.testing.assert_allclose(marginals(scores, transitions, bounds[order]), probabilities, rtol=0, atol=1e-12)
    assert viterbi(np.zeros((0, 5)), transitions, np.zeros((0, 2), dtype=np.int64)).shape == (0,)


@settings(max_examples=100, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 9), max_size=30),
    sentences=st.integers(1, 6),
    tokens=st.integers(1, 20),
)
def test_sentence_blocks_cover_every_sentence_once_within_the_limits(lengths, sentences, tokens):
    ends = np.cumsum(lengths, dtype=np.int64)
    bounds = np.stack([ends - lengths, ends], axis=1).reshape(-1, 2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("deid_crf.models.crf_decode.SENTENCE_BLOCK", sentences)
        patch.setattr("deid_crf.models.crf_decode.DECODE_BLOCK_TOKENS", tokens)
        blocks = sentence_blocks(bounds)
    assert [i for block in blocks for i in range(len(bounds))[block]] == list(range(len(bounds)))
    for block in blocks:
        size = int((bounds[block, 1] - bounds[block, 0]).sum())
        count = len(range(len(bounds))[block])
        assert 1 <= count <= sentences and (size <= tokens or count == 1)


def test_confidences_of_a_long_document_take_memory_of_a_block_not_of_the_document(
    monkeypatch, unsure_tagger: DeidTagger, marginal_texts: list[str]
):
    """Forward–backward of a 130,000-token document in blocks: its peak of allocations
    stays below one (tokens, labels) array (it held six at once before, 3.2 GB for a
    10 MiB document), with the labels and confidences of a single block."""
    import tracemalloc

    pipeline = unsure_tagger._pipeline()
    table = pipeline.tokenizer([" ".join(t.replace("\n", " ") for t in marginal_texts) * 500])
    weights = unsure_tagger.model_.weights()
    scores = weights.scores(pipeline.featurizer, table)
    monkeypatch.setattr(CRFWeights, "scores", lambda self, featurizer, table: scores)
    monkeypatch.setattr("deid_crf.models.crf_decode.DECODE_BLOCK_TOKENS", 10**9)
    whole_labels, whole_confidence = weights.tag_with_confidence(pipeline.featurizer, table)
    monkeypatch.setattr("deid_crf.models.crf_decode.DECODE_BLOCK_TOKENS", 2000)
    tracemalloc.start()
    try:
        labels, confidence = weights.tag_with_confidence(pipeline.featurizer, table)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(table) > 100_000 and peak < scores.nbytes
    assert labels.tolist() == whole_labels.tolist()
    np.testing.assert_allclose(confidence, whole_confidence, rtol=0, atol=1e-12)


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
    scores = featurizer.linear_scores(replace(table), weights, rows_of)
    np.testing.assert_allclose(scores, expected, atol=1e-9)
    # Summed in blocks of tokens, each token's sum in the same order: the same bits.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("deid_crf.featurization.featurizer.SCORE_BLOCK_TOKENS", 3)
        assert featurizer.linear_scores(replace(table), weights, rows_of).tobytes() == scores.tobytes()
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


def test_crf_weights_read_every_feature(tiny_tagger: DeidTagger, tmp_path: Path):
    crfsuite = tiny_tagger.model_.crf_.tagger_
    info = crfsuite.info()
    weights = CRFWeights.from_file(tiny_tagger.model_.crf_.modelfile.name)
    assert weights.labels == list(crfsuite.labels())
    index = {label: k for k, label in enumerate(weights.labels)}
    # CRFsuite's dump prints every weight rounded to 6 decimals; the file holds them exactly.
    for (attribute, label), value in info.state_features.items():
        assert abs(weights.state[weights.attributes[attribute], index[label]] - value) <= 5e-7
    for (previous, label), value in info.transitions.items():
        assert abs(weights.transitions[index[previous], index[label]] - value) <= 5e-7
    assert np.count_nonzero(weights.state) == len(info.state_features)
    assert np.count_nonzero(weights.transitions) == len(info.transitions)
    assert (weights.rows(["no such attribute"]) == len(weights.attributes)).all()
    assert not weights.state[-1].any()
    not_a_model = tmp_path / "model.crfsuite"
    not_a_model.write_bytes(b"lCRF" + bytes(60))
    with pytest.raises(ValueError, match=f"{not_a_model}: not a CRFsuite model file"):
        CRFWeights.from_file(not_a_model)


def crfsuite_marginals(tagger: DeidTagger, table: TokenTable) -> tuple[list[str], np.ndarray, list[str]]:
    """CRFsuite's own labels and marginals (every label, in ``labels`` order) of every
    token, from the rendered attribute strings: the reference for the numpy path."""
    crf = tagger.model_.crf_.tagger_
    labels = list(crf.labels())
    tags, probabilities = [], []
    for xseq in tagger._pipeline().featurizer.crf_items(table):
        tags.extend(crf.tag(xseq))  # also sets xseq for the marginals
        probabilities.extend([crf.marginal(label, i) for label in labels] for i in range(len(xseq)))
    return tags, np.array(probabilities).reshape(-1, len(labels)), labels


@pytest.fixture(scope="module")
def unsure_tagger(tiny_corpus: list[Document]) -> DeidTagger:
    """A small CRF trained here, regularized so strongly that it is unsure of many
    tokens: marginals far from 0 and 1 make the comparison with CRFsuite's telling."""
    return DeidTagger(c2=5.0, max_iterations=30).fit(tiny_corpus)


@pytest.fixture(scope="module")
def marginal_texts(tiny_corpus: list[Document], unseen_document: Document) -> list[str]:
    return [d.text for d in tiny_corpus] + [unseen_document.text] + TEXTS


def test_numpy_marginals_equal_crfsuites(unsure_tagger: DeidTagger, marginal_texts: list[str]):
    pipeline = unsure_tagger._pipeline()
    table = pipeline.tokenizer(marginal_texts)
    tags, expected, crf_labels = crfsuite_marginals(unsure_tagger, table)
    assert ((expected > 0.05) & (expected < 0.95)).any(axis=1).mean() > 0.3
    weights = unsure_tagger.model_.weights()
    scores = weights.scores(pipeline.featurizer, replace(table))
    got = marginals(scores, weights.transitions, table.sent_bounds)
    got = got[:, [weights.labels.index(label) for label in crf_labels]]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    labels, confidence = weights.tag_with_confidence(pipeline.featurizer, replace(table))
    assert labels.tolist() == tags
    chosen = expected[np.arange(len(tags)), [crf_labels.index(t) for t in tags]]
    entity = labels != "O"
    assert entity.sum() >= 20 and np.isnan(confidence[~entity]).all()
    np.testing.assert_allclose(confidence[entity], chosen[entity], rtol=0, atol=1e-6)


def test_entity_confidences_are_crfsuites(unsure_tagger: DeidTagger, marginal_texts: list[str]):
    table = unsure_tagger.tokenizer()(marginal_texts)
    tags, expected, crf_labels = crfsuite_marginals(unsure_tagger, table)
    confidence = expected[np.arange(len(tags)), [crf_labels.index(t) for t in tags]]
    reference = entity_confidences(table, np.array(tags, dtype=object), confidence)
    scored = unsure_tagger.tag_texts_with_confidence(marginal_texts, n_jobs=1)
    assert [[e for e, _ in doc] for doc in scored] == [[e for e, _ in doc] for doc in reference]
    assert sum(map(len, scored)) >= 20
    np.testing.assert_allclose(
        [c for doc in scored for _, c in doc], [c for doc in reference for _, c in doc], rtol=0, atol=1e-6
    )


@pytest.mark.slow
def test_full_model_on_dev_labels_and_marginals_equal_crfsuites(data_dir: Path):
    """The trained default model (skipped where there is none, e.g. in CI) on MEDDOCAN
    dev: no token labelled differently from CRFsuite, every marginal within 1e-6."""
    model_dir = Path(os.environ.get("DEID_CRF_MODEL_DIR", REPO / "models" / "crf"))
    if not (model_dir / "config.json").is_file():
        pytest.skip(f"no trained model in {model_dir}")
    tagger = DeidTagger.load(model_dir)
    texts = [d.text for d in read_brat_dir(data_dir / "meddocan" / "dev")]
    pipeline = tagger._pipeline()
    table = pipeline.tokenizer(texts)
    tags, expected, crf_labels = crfsuite_marginals(tagger, table)
    weights = tagger.model_.weights()
    scores = weights.scores(pipeline.featurizer, replace(table))
    got = marginals(scores, weights.transitions, table.sent_bounds)
    got = got[:, [weights.labels.index(label) for label in crf_labels]]
    labels, _ = weights.tag_with_confidence(pipeline.featurizer, replace(table))
    assert sum(a != b for a, b in zip(labels.tolist(), tags, strict=True)) == 0
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
