"""The per-string memory of type-level feature weights (TypeScores): scores computed with
a cache filled by earlier tables are exactly those computed without it, and only the
strings not seen before are featurized."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from deid_crf.features.registry import get_group

from deid_crf.config import FeatureConfig
from deid_crf.featurization.featurizer import Featurizer
from deid_crf.featurization.type_scores import TypeScores
from deid_crf.text.table import TokenTable
from deid_crf.text.tokenizer import tokenize

TEXTS = [
    "Nombre: Ana.\nApellidos: Rivera Bueno.\nNHC: 368503.\n\nLa Sra. Rivera, de 43 años, acude a urgencias.",
    "Remitido por el Dr. Tomás Cuéllar.\nNºCol: 28 28 70973.\nCorreo: tcuellar@hospital.es",
    "Paciente de 43 años. Refiere dolor abdominal.\nNombre: Tomás.",
    "",
]
CONFIG = FeatureConfig(
    groups=(*FeatureConfig().groups, "document_label", "embeddings"),
    window_columns=("w", "sshape", "label", "emb4", "doclabel"),
)


class FakeClusters:
    """Resource outputs for the embeddings group (a "type_resource"): a made-up cluster
    id per string, so that the per-string resource path is exercised without fastText."""

    def key(self, group: str) -> str:
        return "fake"

    def inputs(self, group: str, table: TokenTable) -> dict[str, Any]:
        raise AssertionError("a type_resource group is fed per string")

    def type_inputs(self, group: str, types: Sequence[str]) -> dict[str, Any]:
        return {"type_clusters": [np.array([len(t) % 4 for t in types], dtype=np.int32)], "sizes": [4]}


def model_of(featurizer: Featurizer, n_outputs: int = 5, seed: int = 0):
    """Random weights for every other attribute of ``TEXTS`` (the rest unknown), and rows_of."""
    items = featurizer.crf_items(tokenize(TEXTS))
    attributes = sorted({a for sentence in items for token in sentence for a in token})
    known = {a: i for i, a in enumerate(attributes[::2])}
    weights = np.vstack([np.random.default_rng(seed).normal(size=(len(known), n_outputs)), np.zeros((1, n_outputs))])

    def rows_of(strings: list[str]) -> np.ndarray:
        return np.array([known.get(s, len(known)) for s in strings], dtype=np.int64)

    return weights, rows_of


def rendered_scores(featurizer: Featurizer, table: TokenTable, weights: np.ndarray, rows_of) -> np.ndarray:
    items = featurizer.crf_items(table)
    return np.array([weights[rows_of(token)].sum(axis=0) for sentence in items for token in sentence])


def test_scores_with_a_filled_cache_are_those_without():
    featurizer = Featurizer(CONFIG, FakeClusters())
    weights, rows_of = model_of(featurizer)
    featurized: list[list[str]] = []
    original = featurizer.type_sums

    def type_sums(types, *args):
        featurized.append(list(types))
        return original(types, *args)

    featurizer.type_sums = type_sums  # type: ignore[method-assign]
    cache = TypeScores()
    first, second = tokenize(TEXTS[:2]), tokenize(TEXTS[1:])
    featurizer.linear_scores(first, weights, rows_of, cache)
    kept = featurizer.linear_scores(second, weights, rows_of, cache)
    fresh = featurizer.linear_scores(tokenize(TEXTS[1:]), weights, rows_of)
    assert np.array_equal(kept, fresh)  # bit for bit, not only close
    np.testing.assert_allclose(kept, rendered_scores(featurizer, second, weights, rows_of), atol=1e-9)
    # The second table's strings were featurized only where the first had not them.
    seen = set(first.type_index[1])
    assert featurized[1] == [t for t in second.type_index[1] if t not in seen] != []
    assert len(cache) == len(seen | set(second.type_index[1]))


def test_cache_forgets_on_other_weights_or_configuration():
    featurizer = Featurizer(CONFIG, FakeClusters())
    weights, rows_of = model_of(featurizer)
    cache = TypeScores()
    featurizer.linear_scores(tokenize(TEXTS), weights, rows_of, cache)
    other_weights = weights * 2
    table = tokenize(TEXTS[1:2])
    assert np.array_equal(
        featurizer.linear_scores(table, other_weights, rows_of, cache),
        featurizer.linear_scores(tokenize(TEXTS[1:2]), other_weights, rows_of),
    )
    assert len(cache) == len(table.type_index[1])  # started again
    core = Featurizer(FeatureConfig())
    core_weights, core_rows_of = model_of(core)
    assert np.array_equal(
        core.linear_scores(tokenize(TEXTS[:1]), core_weights, core_rows_of, cache),
        core.linear_scores(tokenize(TEXTS[:1]), core_weights, core_rows_of),
    )


def test_a_full_cache_starts_again():
    featurizer = Featurizer(CONFIG, FakeClusters())
    weights, rows_of = model_of(featurizer)
    cache = TypeScores(max_types=20)
    for text in TEXTS:
        table = tokenize([text])
        expected = featurizer.linear_scores(tokenize([text]), weights, rows_of)
        assert np.array_equal(featurizer.linear_scores(table, weights, rows_of, cache), expected)
        assert len(cache) <= max(20, len(table.type_index[1]))
    with pytest.raises(ValueError, match="at least 1"):
        TypeScores(max_types=0)


def test_a_pickled_cache_travels_empty():
    featurizer = Featurizer(CONFIG, FakeClusters())
    weights, rows_of = model_of(featurizer)
    cache = TypeScores(max_types=1000)
    featurizer.linear_scores(tokenize(TEXTS), weights, rows_of, cache)
    copy = pickle.loads(pickle.dumps(cache))
    assert len(cache) > 0 and len(copy) == 0 and copy.max_types == 1000
    assert np.array_equal(
        featurizer.linear_scores(tokenize(TEXTS), weights, rows_of, copy),
        featurizer.linear_scores(tokenize(TEXTS), weights, rows_of),
    )


def test_kept_rows_survive_growth_and_stay_as_handed_out(monkeypatch):
    # Room for 700 strings, 1,800 in three tables: the kept array grows (copied), and
    # rows handed out earlier are neither moved nor changed by what comes later.
    monkeypatch.setattr("deid_crf.featurization.type_scores.INITIAL_TYPES", 700)
    featurizer = Featurizer(CONFIG, FakeClusters())
    weights, rows_of = model_of(featurizer)
    words = ["".join("abcdefghij"[int(d)] for d in f"{n:04d}") for n in range(1800)]  # distinct
    texts = [" ".join(words[k * 600 : (k + 1) * 600]) + "." for k in range(3)]
    cache = TypeScores()
    handed_out = []
    for text in texts:
        table = tokenize([text])
        assert np.array_equal(
            featurizer.linear_scores(table, weights, rows_of, cache),
            featurizer.linear_scores(tokenize([text]), weights, rows_of),
        )
        _, _, sums, index = cache.sums(featurizer, table.type_index[1], weights, rows_of)
        handed_out.append((sums, index, sums[:, index].copy()))
    assert len(cache) > 1024 and cache._sums is not None and len(cache._sums) > 700 + 2
    for sums, index, copied in handed_out:
        assert np.array_equal(sums[:, index], copied)


def test_featurizers_sharing_lexical_groups_reuse_columns_only_for_the_same_strings():
    # The NER model and its POS tagger featurize the same new strings one after the
    # other: the second reuses the first's columns of a group with the same parameters,
    # and nothing else (other strings, other affix lengths).
    types = tokenize(TEXTS).type_index[1]
    model = Featurizer(FeatureConfig(groups=("lower", "affixes", "shape"), window_columns=("w",)))
    tagger = Featurizer(FeatureConfig(groups=("lower", "affixes"), window_columns=("w",)))
    other_lengths = Featurizer(FeatureConfig(groups=("affixes",), window_columns=(), affix_lengths=(2,)))
    affixes = get_group("affixes")
    first = model._type_group_columns(affixes, list(types))
    assert tagger._type_group_columns(affixes, list(types)) is first
    assert list(other_lengths._type_group_columns(affixes, list(types))) == ["p2", "s2"]
    fewer = tagger._type_group_columns(affixes, list(types[1:]))
    assert fewer is not first and fewer["p1"][1] == list(dict.fromkeys(t[:1].lower() for t in types[1:]))
    for strings in (types, types[1:]):
        weights, rows_of = model_of(tagger)
        assert all(
            np.array_equal(a, b)
            for a, b in zip(
                tagger.type_sums(list(strings), weights, rows_of)[2],
                Featurizer(tagger.config).type_sums(tuple(strings), weights, rows_of)[2],
                strict=True,
            )
        )
