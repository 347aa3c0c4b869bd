"""Span marginals and k-best paths of the numpy CRF decoder, against brute-force
enumeration of every label sequence of tiny random CRFs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_crf.models.crf_decode import k_best, marginals, span_marginals, viterbi

# Labels O, B-A, I-A, B-B, I-B, B-C: type C has no I- label (one-token entities).
LABELS = ["O", "B-A", "I-A", "B-B", "I-B", "B-C"]
BEGIN = np.array([1, 3, 5])
INSIDE = np.array([2, 4, -1])


def random_crf(lengths: list[int], k: int, scale: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ends = np.cumsum(lengths)
    bounds = np.stack([ends - lengths, ends], axis=1)
    return rng.normal(size=(sum(lengths), k)) * scale, rng.normal(size=(k, k)) * scale, bounds


def sequences(scores: np.ndarray, transitions: np.ndarray) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Every label sequence of one sentence and its total score."""
    n, k = scores.shape
    all_labels = list(itertools.product(range(k), repeat=n))
    totals = np.array(
        [
            scores[np.arange(n), list(labels)].sum() + sum(transitions[a, b] for a, b in itertools.pairwise(labels))
            for labels in all_labels
        ]
    )
    return all_labels, totals


def brute_force_spans(scores: np.ndarray, transitions: np.ndarray, bounds: np.ndarray) -> dict[tuple, float]:
    """``(first, last, type) → probability`` that the tokens form exactly one entity of
    that type (B- at first, I- through last, no I- after), summed over every sequence."""
    out: dict[tuple, float] = {}
    for start, end in bounds.tolist():
        if end == start:
            continue
        labels, totals = sequences(scores[start:end], transitions)
        probabilities = np.exp(totals - totals.max())
        probabilities /= probabilities.sum()
        for path, p in zip(labels, probabilities, strict=True):
            for kind, (b, i) in enumerate(zip(BEGIN.tolist(), INSIDE.tolist(), strict=True)):
                for first in range(len(path)):
                    if path[first] != b:
                        continue
                    last = first
                    while i >= 0 and last + 1 < len(path) and path[last + 1] == i:
                        last += 1
                    key = (start + first, start + last, kind)
                    out[key] = out.get(key, 0.0) + p
    return out


def as_dict(spans) -> dict[tuple, float]:
    return {
        (a, b, t): p
        for a, b, t, p in zip(
            spans.first.tolist(), spans.last.tolist(), spans.types.tolist(), spans.probability.tolist(), strict=True
        )
    }


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 4), min_size=1, max_size=4),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([0.3, 1.0, 3.0]),
)
def test_span_marginals_equal_brute_force_enumeration(lengths, seed, scale):
    scores, transitions, bounds = random_crf(lengths, len(LABELS), scale, seed)
    expected = brute_force_spans(scores, transitions, bounds)
    every = as_dict(span_marginals(scores, transitions, bounds, BEGIN, INSIDE, 0.0, 10))
    assert every.keys() == expected.keys()
    for key, p in expected.items():
        assert every[key] == pytest.approx(p, rel=0, abs=1e-9)
    # A threshold and a length bound keep exactly the spans that reach and fit them.
    bounded = as_dict(span_marginals(scores, transitions, bounds, BEGIN, INSIDE, 0.05, 2))
    assert bounded.keys() == {key for key, p in expected.items() if p >= 0.05 and key[1] - key[0] < 2}


@settings(max_examples=30, deadline=None)
@given(lengths=st.lists(st.integers(1, 6), min_size=1, max_size=4), seed=st.integers(0, 2**16))
def test_span_marginals_add_up_to_the_token_marginals(lengths, seed):
    scores, transitions, bounds = random_crf(lengths, len(LABELS), 1.0, seed)
    # Forbid I-X where no entity of type X runs (after another label, or first in a
    # sentence): every B-X or I-X token then lies in exactly one span of type X.
    for b, i in zip(BEGIN.tolist(), INSIDE.tolist(), strict=True):
        if i >= 0:
            transitions[[y for y in range(len(LABELS)) if y not in (b, i)], i] = -1e4
            scores[bounds[:, 0], i] = -1e4
    tokens = marginals(scores, transitions, bounds)
    spans = span_marginals(scores, transitions, bounds, BEGIN, INSIDE, 0.0, 100)
    starting = np.zeros((len(scores), len(BEGIN)))
    covering = np.zeros((len(scores), len(BEGIN)))
    for a, b, t, p in zip(spans.first, spans.last, spans.types, spans.probability, strict=True):
        starting[a, t] += p
        covering[a : b + 1, t] += p
    # Each B-X starts exactly one span of type X: the spans starting at a token sum to P(B-X) there.
    np.testing.assert_allclose(starting, tokens[:, BEGIN], rtol=0, atol=1e-9)
    inside = np.where(INSIDE >= 0, tokens[:, INSIDE], 0.0)
    np.testing.assert_allclose(covering, tokens[:, BEGIN] + inside, rtol=0, atol=1e-9)
    # Over every type, the spans covering a token sum to its probability of not being O.
    np.testing.assert_allclose(covering.sum(axis=1), 1.0 - tokens[:, 0], rtol=0, atol=1e-9)


def test_span_marginals_of_nothing_are_empty():
    scores, transitions, bounds = random_crf([3], len(LABELS), 1.0, 0)
    assert len(span_marginals(scores, transitions, bounds, BEGIN, INSIDE, 0.1, 0).first) == 0
    empty = span_marginals(
        np.zeros((0, len(LABELS))), transitions, np.zeros((0, 2), dtype=np.int64), BEGIN, INSIDE, 0.1, 5
    )
    assert len(empty.probability) == 0
    # A threshold of 1 keeps only certainties: a sentence whose one token must be B-C.
    scores = np.full((1, len(LABELS)), -1e4)
    scores[0, 5] = 0.0
    certain = span_marginals(scores, transitions, np.array([[0, 1]]), BEGIN, INSIDE, 1.0, 5)
    assert as_dict(certain).keys() == {(0, 0, 2)}


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 4), min_size=1, max_size=5),
    seed=st.integers(0, 2**16),
    k=st.sampled_from([1, 2, 5, 30, 100]),
)
def test_k_best_paths_equal_brute_force(lengths, seed, k):
    scores, transitions, bounds = random_crf(lengths, 3, 1.0, seed)
    paths, totals = k_best(scores, transitions, bounds, k)
    assert paths.shape == totals.shape == (k, len(scores))
    assert (paths[0] == viterbi(scores, transitions, bounds)).all()
    for start, end in bounds.tolist():
        if end == start:
            continue
        labels, scored = sequences(scores[start:end], transitions)
        ranked = sorted(zip(scored.tolist(), labels, strict=True), reverse=True)
        for r in range(k):
            if r < len(ranked):
                assert totals[r, start:end] == pytest.approx(ranked[r][0], rel=0, abs=1e-9)
                assert tuple(paths[r, start:end].tolist()) == ranked[r][1]
            else:  # fewer sequences than k
                assert np.isneginf(totals[r, start:end]).all() and (paths[r, start:end] == 0).all()


def test_k_best_blocks_of_sentences_agree_with_one_block(monkeypatch):
    scores, transitions, bounds = random_crf(list(range(1, 12)) * 3, 4, 1.0, 1)
    whole = k_best(scores, transitions, bounds, 4)
    monkeypatch.setattr("deid_crf.models.crf_decode.K_BEST_BLOCK", 5)
    blocks = k_best(scores, transitions, bounds, 4)
    assert (blocks[0] == whole[0]).all() and (blocks[1] == whole[1]).all()
    with pytest.raises(ValueError, match="at least 1"):
        k_best(scores, transitions, bounds, 0)
