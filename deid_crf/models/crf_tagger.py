"""The whole de-identification tagger: tokenizer + features + CRF, over documents.

A trained tagger saves to a directory of safe files (``config.json`` + CRFsuite's
model file + bundled resources) and loads without executing code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Self

import numpy as np

from deid_crf.config import CRFConfig, FeatureConfig, TaggerConfig, TokenizerConfig, documents, from_params
from deid_crf.estimator import check_is_fitted
from deid_crf.featurization.featurizer import AttributeCodes
from deid_crf.io.persistence import ModelFormat
from deid_crf.models.base import Pipeline, TaggerBase, check_texts, entity_types
from deid_crf.models.candidates import ScoredEntity, k_best_entities, span_candidates
from deid_crf.models.crf import CRFModel
from deid_crf.text.document import Entity
from deid_crf.text.table import TokenTable


@documents(CRFConfig)
class DeidTagger(TaggerBase):
    """Find PHI entities in documents with a linear-chain CRF (CRFsuite, L-BFGS).

    A scikit-learn estimator over :class:`~deid_crf.text.document.Document` objects
    (:class:`~deid_crf.models.base.TaggerBase`). Tagging uses the numpy decoder of
    :mod:`deid_crf.models.crf_decode` (the same labels as CRFsuite); an entity's
    confidence is the CRF marginal probability of its predicted labels (numpy
    forward–backward, equal to CRFsuite's), averaged over its tokens.

    Parameters
    ----------
    tokenizer_config : TokenizerConfig or None, default=None
        How texts are cut into tokens and sentences; None: ``TokenizerConfig()``.
    feature_config : FeatureConfig or None, default=None
        Feature groups and token window; None: ``FeatureConfig()``, the core set (the
        default model of ``make train-crf`` uses ``full_feature_config()``).
    {CRFConfig}
    n_jobs : int or None, default=1
        Processes used to tokenize, featurize and tag (``predict``, ``score``,
        ``tag_texts``); -1: all cores. ``fit`` featurizes in one process and CRFsuite
        trains on one core.
    verbose : bool, default=False
        Show the L-BFGS iterations of ``fit`` on a progress bar.

    Attributes
    ----------
    model_ : CRFModel
        The trained CRF.
    entity_types_ : list of str
        The entity types the CRF can predict, sorted.
    """

    model_format = ModelFormat("deid-crf-tagger", 1, "crf")
    has_marginals = True

    def __init__(
        self,
        tokenizer_config: TokenizerConfig | None = None,
        feature_config: FeatureConfig | None = None,
        c1: float = CRFConfig.c1,
        c2: float = CRFConfig.c2,
        max_iterations: int = CRFConfig.max_iterations,
        all_possible_transitions: bool = CRFConfig.all_possible_transitions,
        min_freq: int = CRFConfig.min_freq,
        n_jobs: int | None = 1,
        verbose: bool = False,
    ):
        self.tokenizer_config = tokenizer_config
        self.feature_config = feature_config
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.all_possible_transitions = all_possible_transitions
        self.min_freq = min_freq
        self.n_jobs = n_jobs
        self.verbose = verbose

    # -- configuration -------------------------------------------------------------
    def crf_config(self) -> CRFConfig:
        """The CRF hyper-parameters of this tagger."""
        return from_params(CRFConfig, self.get_params(deep=False))

    def tagger_config(self) -> TaggerConfig:
        return TaggerConfig(
            tokenizer=self.tokenizer_config or TokenizerConfig(),
            features=self._feature_config(),
            crf=self.crf_config(),
        )

    def _crf_model(self) -> CRFModel:
        return CRFModel(**asdict(self.crf_config()), verbose=self.verbose)

    def _check_params(self) -> None:
        self._crf_model()._check_params()

    # -- training ------------------------------------------------------------------
    def _training_inputs(self, pipeline: Pipeline, table: TokenTable) -> AttributeCodes:
        """Every token's CRF attributes as compact integer codes."""
        return pipeline.featurizer.attribute_codes(table)

    def fit_featurized(self, features: AttributeCodes, labels: np.ndarray) -> Self:
        """Train the CRF on the output of :meth:`featurize` (e.g. from a cache)."""
        self._check_params()
        token_labels = np.asarray(labels).tolist()
        sentence_labels = [token_labels[a:b] for a, b in features.sent_bounds.tolist()]
        self.model_ = self._crf_model().fit(features.crf_items(), sentence_labels)
        self.entity_types_ = entity_types(self.model_.classes_)
        return self

    # -- tagging -------------------------------------------------------------------
    def _prepare_tagging(self) -> None:
        self.model_.weights()  # read once here, not in every worker

    def _labels(self, pipeline: Pipeline, table: TokenTable) -> np.ndarray:
        # The numpy decoder: the same labels as CRFsuite's tagger on the attribute
        # strings (tests/test_crf_decode.py), without rendering them.
        return self.model_.weights().tag(pipeline.featurizer, table)

    def _labels_with_confidence(self, pipeline: Pipeline, table: TokenTable) -> tuple[np.ndarray, np.ndarray]:
        """The labels of :meth:`_labels` and the marginal probability of each, by
        forward–backward in numpy (CRFsuite's marginals, tests/test_crf_decode.py)."""
        return self.model_.weights().tag_with_confidence(pipeline.featurizer, table)

    def _label_marginals(
        self, pipeline: Pipeline, table: TokenTable, span_threshold: float | None = None
    ) -> tuple[np.ndarray, np.ndarray, list[str], list[list[ScoredEntity]] | None]:
        weights = self.model_.weights()
        labels, marginals, spans = weights.tag_with_marginals(pipeline.featurizer, table, span_threshold)
        candidates = None if spans is None else span_candidates(table, spans, weights.entity_labels()[0])
        return labels, marginals, weights.labels, candidates

    def tag_texts_k_best(self, texts: Sequence[str], k: int) -> list[list[Entity]]:
        """The entities of each text on any of its sentences' ``k`` best label
        sequences (list Viterbi, :func:`~deid_crf.models.crf_decode.k_best`), each once,
        in text order; in this process (``k`` times Viterbi's work and memory)."""
        check_is_fitted(self)
        texts = check_texts(texts)
        if not texts:
            return []
        pipeline = self._pipeline()
        table = pipeline.tokenizer(texts)
        weights = self.model_.weights()
        paths, totals = weights.k_best(pipeline.featurizer, table, k)
        return k_best_entities(table, paths, totals, weights.labels)

    # -- persistence ---------------------------------------------------------------
    def _write_model(self, directory: Path, config: TaggerConfig) -> dict[str, Any]:
        self.model_.save(directory)
        return {"config": replace(config, crf=self.crf_config()).to_dict(), "entity_types": self.entity_types_}

    @classmethod
    def _from_config(cls, meta: dict[str, Any], config: TaggerConfig) -> tuple[dict[str, Any], dict[str, Any]]:
        return asdict(config.crf), {"entity_types_": list(meta.get("entity_types", []))}

    def _load_model_files(self, directory: Path) -> None:
        self.model_ = CRFModel.load(directory, **asdict(self.crf_config()))
