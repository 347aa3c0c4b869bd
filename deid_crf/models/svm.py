"""Window SVM tagger: each token classified on its own from a window of features, then
BIO-repaired into spans (Cotik et al. 2019).

It uses the CRF's feature extractors, one-hot hashed into a sparse matrix built straight
from integer arrays for training (``Featurizer.hashed_matrix``: no per-token dicts, no
``DictVectorizer``); tagging sums the weight rows of those hashed columns instead
(``Featurizer.linear_scores``), without building the matrix. A saved model is
``config.json`` plus the non-zero weights in ``weights.npz`` (loaded with
``allow_pickle=False``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, Self

import numpy as np
from scipy import sparse

from deid_crf import resources
from deid_crf.config import (
    FeatureConfig,
    SVMConfig,
    TaggerConfig,
    TokenizerConfig,
    check_config,
    documents,
    from_params,
    svm_feature_config,
)
from deid_crf.estimator import check_is_fitted
from deid_crf.featurization.hashing import hash_strings
from deid_crf.io.persistence import ModelFormat, load_arrays, save_arrays
from deid_crf.models.base import Pipeline, TaggerBase, check_documents, entity_types
from deid_crf.scoring.meddocan import score_documents
from deid_crf.text import bio
from deid_crf.text.document import Document
from deid_crf.text.table import TokenTable

WEIGHTS_FILE = "weights.npz"
CLASSIFIERS = ("linear_svc", "sgd", "logistic_regression")
DECODERS = ("viterbi", "repair")


@documents(SVMConfig)
class WindowSVMTagger(TaggerBase):
    """Token-by-token linear classifier over hashed window features, decoded to
    valid BIO spans.

    A scikit-learn estimator over :class:`~deid_crf.text.document.Document` objects
    (:class:`~deid_crf.models.base.TaggerBase`). With ``FeatureConfig.embedding_vectors``
    the centre token's fastText vector is appended as dense columns, as in the paper.
    Confidence of an entity: the softmax probability of the chosen label over the
    decision scores, averaged over the entity's tokens (a ranking score, not a
    calibrated probability, except with logistic regression).

    Parameters
    ----------
    tokenizer_config : TokenizerConfig or None, default=None
        How texts are cut into tokens and sentences; None: ``TokenizerConfig()``.
    feature_config : FeatureConfig or None, default=None
        Feature groups and token window; None: ``svm_feature_config()`` (more window
        columns than the CRF's default).
    {SVMConfig}
    n_jobs : int or None, default=1
        Processes used to tag (``predict``, ``score``, ``tag_texts``); -1: all cores.
        Training is one solver run.

    Attributes
    ----------
    coef_ : scipy.sparse.csr_matrix of shape (n_classes, n_columns)
        The weights of each label (float32).
    intercept_ : numpy.ndarray of shape (n_classes,)
        The bias of each label.
    classes_ : list of str
        The BIO labels, in the order of the rows of ``coef_``.
    entity_types_ : list of str
        The entity types the model can predict, sorted.
    n_iter_ : int
        Solver iterations of ``fit`` (the largest over the labels).
    converged_ : bool
        Whether the solver stopped before ``max_iter``.
    fit_seconds_ : float
        Wall time of the solver run of ``fit``.
    """

    model_format = ModelFormat("deid-crf-svm", 1, "svm")
    featurization_params = ("tokenizer_config", "feature_config", "n_features")

    def __init__(
        self,
        tokenizer_config: TokenizerConfig | None = None,
        feature_config: FeatureConfig | None = None,
        n_features: int = SVMConfig.n_features,
        C: float = SVMConfig.C,
        class_weight: str | None = SVMConfig.class_weight,
        max_iter: int = SVMConfig.max_iter,
        classifier: str = SVMConfig.classifier,
        decoder: str = SVMConfig.decoder,
        n_jobs: int | None = 1,
    ):
        self.tokenizer_config = tokenizer_config
        self.feature_config = feature_config
        self.n_features = n_features
        self.C = C
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.classifier = classifier
        self.decoder = decoder
        self.n_jobs = n_jobs

    def _default_feature_config(self) -> FeatureConfig:
        return svm_feature_config()

    def _check_params(self) -> None:
        if self.classifier not in CLASSIFIERS:
            raise ValueError(f"classifier must be one of {CLASSIFIERS}, not {self.classifier!r}")
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {DECODERS}, not {self.decoder!r}")

    def _classifier(self, n_samples: int):
        from sklearn.linear_model import LogisticRegression, SGDClassifier
        from sklearn.svm import LinearSVC

        if self.classifier == "linear_svc":
            return LinearSVC(C=self.C, class_weight=self.class_weight, max_iter=self.max_iter, random_state=0)
        if self.classifier == "sgd":
            # SGD's alpha weighs the penalty against the mean loss, liblinear's C the
            # summed loss against the penalty: alpha = 1 / (C n) is the same objective.
            return SGDClassifier(
                loss="hinge",
                alpha=1.0 / (self.C * n_samples),
                class_weight=self.class_weight,
                max_iter=self.max_iter,
                tol=1e-4,
                random_state=0,
            )
        return LogisticRegression(
            C=self.C, class_weight=self.class_weight, max_iter=self.max_iter, solver="saga", random_state=0
        )

    # -- training ------------------------------------------------------------------
    def _matrix(self, pipeline: Pipeline, table: TokenTable) -> sparse.csr_matrix:
        """The hashed one-hot features of every token (plus the dense embedding columns)."""
        matrix = pipeline.featurizer.hashed_matrix(table, self.n_features)
        features = pipeline.featurizer.config
        if not features.embedding_vectors:
            return matrix
        dense = resources.embedding_vectors(features, table)
        return sparse.hstack([matrix, sparse.csr_matrix(dense)], format="csr")

    def _training_inputs(self, pipeline: Pipeline, table: TokenTable) -> sparse.csr_matrix:
        return self._matrix(pipeline, table)

    def fit_featurized(self, matrix: sparse.csr_matrix, labels: np.ndarray) -> Self:
        """Train on the output of :meth:`featurize` (e.g. from a cache)."""
        from sklearn.exceptions import ConvergenceWarning

        self._check_params()
        model = self._classifier(matrix.shape[0])
        started = time.perf_counter()
        with warnings.catch_warnings():
            # Non-convergence is reported through ``converged_`` (and by `train`).
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(matrix, labels)
        self.fit_seconds_ = time.perf_counter() - started
        self.n_iter_ = int(np.max(model.n_iter_))
        self.converged_ = self.n_iter_ < self.max_iter
        self.coef_ = sparse.csr_matrix(model.coef_.astype(np.float32))
        self.intercept_ = model.intercept_.astype(np.float32)
        self.classes_ = [str(c) for c in model.classes_]
        self.entity_types_ = entity_types(self.classes_)
        return self

    # -- tagging -------------------------------------------------------------------
    def _weight_rows(self) -> _WeightRows:
        """The weights as gathered by :meth:`_scores` (built once per ``coef_``)."""
        cached = getattr(self, "_rows", None)
        if cached is None or cached.coef is not self.coef_:
            cached = self._rows = _WeightRows(self.coef_, self.n_features)
        return cached

    def _prepare_tagging(self) -> None:
        self._weight_rows()  # built once here, not in every worker

    def _scores(self, pipeline: Pipeline, table: TokenTable) -> np.ndarray:
        """The decision score of every label for every token: the sum of the weight rows
        of its hashed features (``Featurizer.linear_scores``, no sparse matrix), plus the
        dense embedding columns and the bias."""
        rows = self._weight_rows()
        scores = pipeline.featurizer.linear_scores(table, rows.weights, rows.rows_of)
        features = pipeline.featurizer.config
        if features.embedding_vectors:
            scores += resources.embedding_vectors(features, table) @ rows.dense.T
        return scores + self.intercept_

    def _labels_with_confidence(self, pipeline: Pipeline, table: TokenTable) -> tuple[np.ndarray, np.ndarray]:
        """The decoded label of every token and its softmax probability over the scores."""
        if len(table) == 0:
            return np.zeros(0, dtype=object), np.zeros(0)
        scores = self._scores(pipeline, table)
        if self.decoder == "viterbi":
            labels = bio.best_valid_labels(scores, self.classes_, table)
            index = {c: i for i, c in enumerate(self.classes_)}
            best = np.fromiter((index[c] for c in labels.tolist()), dtype=np.int64, count=len(labels))
        else:
            best = scores.argmax(axis=1)
            labels = np.array(self.classes_, dtype=object)[best]
        top = scores.max(axis=1)
        exp = np.exp(scores - top[:, None])
        confidence = np.exp(scores[np.arange(len(best)), best] - top) / exp.sum(axis=1)
        return labels, confidence

    # -- persistence ---------------------------------------------------------------
    def _write_model(self, directory: Path, config: TaggerConfig) -> dict[str, Any]:
        """``weights.npz`` (the non-zero weights only)."""
        coef = self.coef_.tocsr()
        arrays = {
            "data": coef.data,
            "indices": coef.indices,
            "indptr": coef.indptr,
            "shape": np.array(coef.shape),
            "intercept": self.intercept_,
        }
        save_arrays(directory / WEIGHTS_FILE, arrays)
        saved = config.to_dict()
        saved.pop("crf")
        params = asdict(from_params(SVMConfig, self.get_params(deep=False)))
        return {"config": saved, "params": params, "classes": self.classes_}

    @classmethod
    def _from_config(cls, meta: dict[str, Any], config: TaggerConfig) -> tuple[dict[str, Any], dict[str, Any]]:
        # Models saved before the Viterbi decoder existed were decoded by repair.
        params = {"classifier": "linear_svc", "decoder": "repair", **meta["params"]}
        check_config(SVMConfig(**params), "params")
        classes = [str(c) for c in meta["classes"]]
        return params, {"classes_": classes, "entity_types_": entity_types(classes)}

    def _load_model_files(self, directory: Path) -> None:
        weights = load_arrays(directory / WEIGHTS_FILE)
        self.coef_ = sparse.csr_matrix(
            (weights["data"], weights["indices"], weights["indptr"]), shape=tuple(weights["shape"])
        )
        self.intercept_ = weights["intercept"]


class _WeightRows:
    """The hashed columns of ``coef`` that have a weight as rows (a label's weight in
    each, float32 as ``coef``), and the dense columns after the hashed ones."""

    def __init__(self, coef: sparse.csr_matrix, n_features: int):
        self.coef = coef
        self.n_features = n_features
        hashed = coef[:, :n_features].tocsc()
        weighted = np.flatnonzero(np.diff(hashed.indptr))
        # Sorted, ending with a column no string hashes to: the row of the columns
        # without weights, which stays zero.
        self.columns = np.append(weighted, n_features)
        self.weights = np.zeros((len(self.columns), coef.shape[0]), dtype=coef.dtype)
        self.weights[: len(weighted)] = hashed[:, weighted].T.toarray()
        self.dense = coef[:, n_features:].toarray()

    def rows_of(self, strings: list[str]) -> np.ndarray:
        """The row of :attr:`weights` of each attribute string's hashed column."""
        columns = hash_strings(strings, self.n_features)
        position = np.searchsorted(self.columns, columns)
        return np.where(self.columns[position] == columns, position, len(self.columns) - 1)


def decoding_report(model: WindowSVMTagger, docs: Sequence[Document]) -> dict[str, int | float]:
    """How decoding turns independent token labels into entities, on gold documents.

    Counts the orphan ``I-X`` tokens of the per-token best labels (an ``I-X`` after
    ``O`` or another type: a split entity) and, for three decodings, the gold
    entities found exactly and the NER F1: ``dropped`` (orphans read as ``O``, no
    repair), ``repair`` (Cotik et al.: orphans start an entity) and ``viterbi`` (the
    best valid BIO sequence). Only counts are returned, never text.
    """
    check_is_fitted(model)
    docs = check_documents(docs)
    pipeline = model._pipeline()
    table = pipeline.tokenizer([d.text for d in docs])
    scores = model._scores(pipeline, table)
    best = np.array(model.classes_, dtype=object)[scores.argmax(axis=1)]
    repaired = bio.repair(best, table)
    orphans = np.array([a != b for a, b in zip(best.tolist(), repaired.tolist(), strict=True)])
    dropped = np.where(orphans, bio.OUTSIDE, best)
    report: dict[str, int | float] = {"orphan_tokens": int(orphans.sum())}
    for name, labels in (
        ("dropped", dropped),
        ("repair", best),
        ("viterbi", bio.best_valid_labels(scores, model.classes_, table)),
    ):
        system = [Document(d.doc_id, d.text, e) for d, e in zip(docs, bio.decode(table, labels), strict=True)]
        result = score_documents(docs, system)
        report[f"{name}_exact"] = result.ner.tp
        report[f"{name}_f1"] = round(result.ner.f1, 4)
    return report
