"""What every tagger shares: the scikit-learn API over documents, chunked parallel
tagging, entity confidences, and saving/loading through :mod:`deid_crf.io.persistence`.

A tagger is a scikit-learn estimator (:class:`~deid_crf.estimator.Estimator`: the
conventions, without importing scikit-learn) whose samples are
:class:`~deid_crf.text.document.Document` objects: ``fit(docs)`` learns from their
gold entities, ``predict(docs)`` returns entity lists and ``score(docs)`` the MEDDOCAN
subtask-1 F1, so it works in ``GridSearchCV`` and ``cross_validate``. A subclass
supplies only what differs: its training inputs and fit, the label (and confidence) of
every token of a :class:`~deid_crf.text.table.TokenTable`, and its model files.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np

from deid_crf import resources
from deid_crf.config import RECALL_FIRST_CANDIDATES, FeatureConfig, TaggerConfig, TokenizerConfig
from deid_crf.estimator import Estimator, check_is_fitted
from deid_crf.io.persistence import ModelFormat, invalid_config, read_model_dir, write_model_dir
from deid_crf.models.candidates import (
    CANDIDATE_KINDS,
    SPAN_CANDIDATES,
    ScoredEntity,
    entity_token_scores,
    scored_entities,
)
from deid_crf.models.card import build_card, write_card
from deid_crf.parallel import map_chunks
from deid_crf.scoring.meddocan import score_documents
from deid_crf.text import bio
from deid_crf.text.document import Document, Entity
from deid_crf.text.table import TokenTable
from deid_crf.text.tokenizer import Tokenizer

# Estimator parameters that configure running, not learning: left out of the model card.
NOT_HYPERPARAMETERS = ("tokenizer_config", "feature_config", "n_jobs", "verbose")


def check_documents(X: Any, name: str = "X") -> list[Document]:
    """``X`` (a list, tuple, array or other iterable of documents) as a list;
    ``TypeError`` otherwise (the message names the position, never the text)."""
    if isinstance(X, (str, bytes, Mapping, Document)) or not isinstance(X, Iterable):
        raise TypeError(f"{name} must be a sequence of Document, not {type(X).__name__}")
    docs = list(X)
    for i, doc in enumerate(docs):
        if not isinstance(doc, Document):
            raise TypeError(f"{name}[{i}] is a {type(doc).__name__}, not a Document")
    return docs


def check_texts(texts: Any, name: str = "texts") -> list[str]:
    """``texts`` (an iterable of ``str``, not one ``str``) as a list; ``TypeError`` otherwise."""
    if isinstance(texts, (str, bytes, Mapping)) or not isinstance(texts, Iterable):
        raise TypeError(f"{name} must be a sequence of str, not {type(texts).__name__}")
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{name}[{i}] is a {type(text).__name__}, not a str")
    return texts


def entity_types(labels: Sequence[str]) -> list[str]:
    """The entity types of a model's BIO ``labels``, sorted."""
    return sorted({label[2:] for label in labels if label != bio.OUTSIDE})


def entity_confidences(
    table: TokenTable, labels: np.ndarray, confidences: np.ndarray
) -> list[list[tuple[Entity, float]]]:
    """The entities of every document of ``table`` decoded from the token ``labels``,
    each with the mean of ``confidences`` over its tokens (only theirs are read)."""
    entities = bio.decode(table, labels)
    means = iter(entity_token_scores(table, entities, confidences)[0])
    return [[(e, next(means)) for e in found] for found in entities]


class Pipeline:
    """A tagger's tokenizer and featurizer (not scikit-learn's ``Pipeline``): small and
    picklable, so tagging workers receive it ready to use."""

    def __init__(self, tokenizer: TokenizerConfig | None, features: FeatureConfig):
        self.tokenizer = Tokenizer(tokenizer)
        self.featurizer = resources.featurizer(features)

    def prepare(self, texts: Sequence[str]) -> tuple[TokenTable, list]:
        """The token table of ``texts`` and its CRFsuite items (attribute strings)."""
        table = self.tokenizer(texts)
        return table, self.featurizer.crf_items(table)


class _ChunkTagger:
    """Tags one chunk of texts end to end inside a worker; returns only entities
    (with their confidences when asked, or as :class:`ScoredEntity` when ``scored``)."""

    def __init__(
        self,
        tagger: TaggerBase,
        pipeline: Pipeline,
        with_confidence: bool,
        scored: bool = False,
        recall_threshold: float | None = None,
        candidates: Sequence[str] = RECALL_FIRST_CANDIDATES,
    ):
        self.tagger = tagger
        self.pipeline = pipeline
        self.with_confidence = with_confidence
        self.scored = scored
        self.recall_threshold = recall_threshold
        self.candidates = tuple(candidates)

    def __call__(self, texts: Sequence[str]) -> list:
        table = self.pipeline.tokenizer(texts)
        if self.scored:
            if self.recall_threshold is None:
                labels, confidences = self.tagger._labels_with_confidence(self.pipeline, table)
                return scored_entities(table, labels, confidences)
            span_threshold = self.recall_threshold if SPAN_CANDIDATES in self.candidates else None
            labels, marginals, names, spans = self.tagger._label_marginals(self.pipeline, table, span_threshold)
            index = {name: k for k, name in enumerate(names)}
            chosen = np.fromiter((index[label] for label in labels.tolist()), dtype=np.int64, count=len(labels))
            confidences = marginals[np.arange(len(labels)), chosen]
            return scored_entities(
                table, labels, confidences, marginals, names, self.recall_threshold, spans, self.candidates
            )
        if self.with_confidence:
            return entity_confidences(table, *self.tagger._labels_with_confidence(self.pipeline, table))
        return bio.decode(table, self.tagger._labels(self.pipeline, table))


class TaggerBase(Estimator, ABC):
    """Base of the taggers: everything but the model.

    Subclasses declare ``model_format`` and implement :meth:`fit_featurized`,
    :meth:`_training_inputs`, :meth:`_labels_with_confidence`, :meth:`_write_model`,
    :meth:`_from_config` and :meth:`_load_model_files`; they may override
    :meth:`_labels` with a faster path than the confident one.
    """

    model_format: ClassVar[ModelFormat]
    # Whether :meth:`_label_marginals` gives every token's probability of every label
    # (what recall-first mode needs).
    has_marginals: ClassVar[bool] = False
    # Parameters that :meth:`featurize` depends on: points of a grid search that share
    # them share one featurization (``deid_crf.experiments.grid``).
    featurization_params: ClassVar[tuple[str, ...]] = ("tokenizer_config", "feature_config")

    tokenizer_config: TokenizerConfig | None
    feature_config: FeatureConfig | None
    n_jobs: int | None

    # -- configuration -------------------------------------------------------------
    def _default_feature_config(self) -> FeatureConfig:
        return FeatureConfig()

    def _feature_config(self) -> FeatureConfig:
        return self.feature_config or self._default_feature_config()

    def tokenizer(self) -> Tokenizer:
        """The tokenizer this tagger was configured (and trained) with."""
        return Tokenizer(self.tokenizer_config)

    def _pipeline(self) -> Pipeline:
        return Pipeline(self.tokenizer_config, self._feature_config())

    def _check_params(self) -> None:
        """Refuse invalid hyper-parameters (before any work); none to check here."""

    # -- training ------------------------------------------------------------------
    def fit(self, X: Sequence[Document], y: None = None) -> Self:
        """Learn from the gold entities of the documents ``X`` (``y`` is ignored)."""
        self._check_params()
        return self.fit_featurized(*self.featurize(X))

    def featurize(self, X: Sequence[Document]) -> tuple[Any, np.ndarray]:
        """What :meth:`fit` trains on: the model's inputs for every token and its gold
        BIO label. Depends only on :attr:`featurization_params`."""
        docs = check_documents(X)
        if not docs:
            raise ValueError("cannot fit on an empty document list")
        # Features for training are built in this process: shipping millions of
        # attribute strings back from workers costs more than computing them
        # (`make bench`: featurize_all_cores_with_transfer vs featurize_1proc).
        pipeline = self._pipeline()
        table = pipeline.tokenizer([d.text for d in docs])
        labels = bio.encode(table, [d.entities for d in docs]).astype(str)  # plain array: caches cheaply
        return self._training_inputs(pipeline, table), labels

    @abstractmethod
    def _training_inputs(self, pipeline: Pipeline, table: TokenTable) -> Any:
        """What :meth:`fit_featurized` trains on, built from the token table of the
        training documents (CRF: attribute codes; SVM: a sparse feature matrix)."""

    @abstractmethod
    def fit_featurized(self, features: Any, labels: np.ndarray) -> Self:
        """Train on the output of :meth:`featurize` (e.g. from a cache)."""

    # -- tagging -------------------------------------------------------------------
    @abstractmethod
    def _labels_with_confidence(self, pipeline: Pipeline, table: TokenTable) -> tuple[np.ndarray, np.ndarray]:
        """The predicted BIO label (object array of str) and its confidence (floats)
        for every token of ``table``."""

    def _label_marginals(
        self, pipeline: Pipeline, table: TokenTable, span_threshold: float | None = None
    ) -> tuple[np.ndarray, np.ndarray, list[str], list[list[ScoredEntity]] | None]:
        """The predicted label of every token of ``table``, its probability of every
        label (tokens × labels), the label names of the columns and, with
        ``span_threshold``, each document's span candidates of at least that probability
        (:func:`~deid_crf.models.candidates.span_candidates`); only where :attr:`has_marginals`."""
        raise NotImplementedError(f"{type(self).__name__} gives no per-label probabilities")

    def _labels(self, pipeline: Pipeline, table: TokenTable) -> np.ndarray:
        """The predicted BIO label of every token of ``table``."""
        return self._labels_with_confidence(pipeline, table)[0]

    def _prepare_tagging(self) -> None:
        """Compute, once in this process, what every tagging worker needs."""

    def _tag(
        self,
        texts: Sequence[str],
        n_jobs: int | None,
        with_confidence: bool,
        scored: bool = False,
        recall_threshold: float | None = None,
        candidates: Sequence[str] = RECALL_FIRST_CANDIDATES,
    ) -> list:
        check_is_fitted(self)
        texts = check_texts(texts)
        if not texts:
            return []
        self._prepare_tagging()
        worker = _ChunkTagger(self, self._pipeline(), with_confidence, scored, recall_threshold, candidates)
        parts = map_chunks(worker, texts, self.n_jobs if n_jobs is None else n_jobs)
        return [entities for part in parts for entities in part]

    def tag_texts(self, texts: Sequence[str], n_jobs: int | None = None) -> list[list[Entity]]:
        """Entities of each text (tokenized, featurized and tagged in chunks, in
        ``n_jobs`` processes; None: the tagger's ``n_jobs``)."""
        return self._tag(texts, n_jobs, with_confidence=False)

    def tag_texts_with_confidence(
        self, texts: Sequence[str], n_jobs: int | None = None
    ) -> list[list[tuple[Entity, float]]]:
        """Like :meth:`tag_texts`, each entity paired with its confidence: the model's
        confidence in the predicted label, averaged over the entity's tokens."""
        return self._tag(texts, n_jobs, with_confidence=True)

    def tag_texts_scored(
        self,
        texts: Sequence[str],
        n_jobs: int | None = None,
        recall_threshold: float | None = None,
        candidates: Sequence[str] = RECALL_FIRST_CANDIDATES,
    ) -> list[list[ScoredEntity]]:
        """Like :meth:`tag_texts_with_confidence`, each entity as a
        :class:`~deid_crf.models.candidates.ScoredEntity` (mean and lowest token
        confidence); with ``recall_threshold`` (taggers with :attr:`has_marginals`),
        recall-first ``candidates`` are added (:mod:`deid_crf.models.candidates`): span
        candidates may overlap the other entities."""
        if recall_threshold is not None:
            if not self.has_marginals:
                raise ValueError(f"recall-first mode needs a CRF model; {type(self).__name__} has no marginals")
            if not 0.0 < recall_threshold <= 1.0:
                raise ValueError(f"recall threshold must be in (0, 1], not {recall_threshold}")
            unknown = sorted(set(candidates) - set(CANDIDATE_KINDS))
            if unknown:
                raise ValueError(f"unknown candidate kinds {unknown}; choose from {CANDIDATE_KINDS}")
        return self._tag(texts, n_jobs, True, True, recall_threshold, candidates)

    def predict(self, X: Sequence[Document]) -> list[list[Entity]]:
        """The entities of each document of ``X`` (their gold entities are not used)."""
        check_is_fitted(self)
        return self.tag_texts([d.text for d in check_documents(X)])

    def score(self, X: Sequence[Document], y: None = None) -> float:
        """MEDDOCAN subtask-1 (NER) F1 on documents with gold entities."""
        docs = check_documents(X)
        predicted = [Document(d.doc_id, d.text, e) for d, e in zip(docs, self.predict(docs), strict=True)]
        return score_documents(docs, predicted).ner.f1

    # -- persistence ---------------------------------------------------------------
    @abstractmethod
    def _write_model(self, directory: Path, config: TaggerConfig) -> dict[str, Any]:
        """Write the model's files into ``directory`` (a staging folder) and return the
        rest of its ``config.json``; ``config`` holds the tokenizer configuration and the
        feature configuration pointing at the resources bundled there."""

    @classmethod
    @abstractmethod
    def _from_config(cls, meta: dict[str, Any], config: TaggerConfig) -> tuple[dict[str, Any], dict[str, Any]]:
        """From a saved ``config.json``: the model's hyper-parameters (besides the
        tokenizer and feature configurations) and its learned attributes stored there."""

    @abstractmethod
    def _load_model_files(self, directory: Path) -> None:
        """Read the learned state kept in the model's own files."""

    def save(
        self,
        directory: str | os.PathLike,
        training_data: Mapping[str, Any] | None = None,
        evaluation: Mapping[str, Any] | None = None,
    ) -> Path:
        """Save to ``directory`` (``config.json``, the model files, the trained
        resources the features use and the model card), replacing an existing model only
        once the new one is completely written. ``training_data`` (the run's ``[data]``
        table: splits and augmentation) is recorded in ``config.json`` so that the model
        can be trained again; it and ``evaluation`` (``MeddocanScores.to_dict()`` with
        the ``split`` it was scored on) go into the card (:mod:`deid_crf.models.card`)."""
        check_is_fitted(self)
        data = {k: list(v) if isinstance(v, tuple) else v for k, v in (training_data or {}).items()}

        def write(staging: Path) -> dict[str, Any]:
            features = resources.bundle(self._feature_config(), staging)
            config = TaggerConfig(tokenizer=self.tokenizer_config or TokenizerConfig(), features=features)
            meta = self._write_model(staging, config)
            if training_data is not None:
                meta["training_data"] = data
            hyperparameters = {k: v for k, v in self.get_params(deep=False).items() if k not in NOT_HYPERPARAMETERS}
            card = build_card(
                staging,
                self.model_format.kind,
                hyperparameters,
                features,
                data if training_data is not None else None,
                evaluation,
            )
            write_card(staging, card)
            return meta

        return write_model_dir(directory, self.model_format, write)

    @classmethod
    def load(cls, directory: str | os.PathLike, n_jobs: int | None = 1) -> Self:
        """Load a tagger saved by :meth:`save` (JSON, the model files and bundled
        resources; no pickle): :class:`~deid_crf.io.persistence.ModelNotFoundError` if
        there is none, ``ValueError`` naming ``config.json`` if it is not of this kind."""
        directory = Path(directory)
        meta = read_model_dir(directory, cls.model_format)
        with invalid_config(directory):
            config = TaggerConfig.from_dict(meta["config"])
            params, learned = cls._from_config(meta, config)
            tagger = cls(tokenizer_config=config.tokenizer, feature_config=config.features, n_jobs=n_jobs, **params)
        tagger.feature_config = resources.resolve(config.features, directory)
        for name, value in learned.items():
            setattr(tagger, name, value)
        tagger._load_model_files(directory)
        return tagger
