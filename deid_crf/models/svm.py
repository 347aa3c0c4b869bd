"""Window SVM tagger: each token classified on its own from a window of features, then
BIO-repaired into spans (Cotik et al. 2019).

It uses the CRF's feature extractors, one-hot hashed into a sparse matrix built straight
from integer arrays (``Featurizer.hashed_matrix``: no per-token dicts, no
``DictVectorizer``). A saved model is ``config.json`` plus the non-zero weights in
``weights.npz`` (loaded with ``allow_pickle=False``).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.svm import LinearSVC

from deid_crf.text import bio
from deid_crf import resources
from deid_crf.config import FeatureConfig, TaggerConfig, TokenizerConfig, svm_feature_config
from deid_crf.text.document import Document, Entity
from deid_crf.featurization.featurizer import Featurizer
from deid_crf.parallel import map_chunks
from deid_crf.text.tokenizer import Tokenizer
from deid_crf.text.table import TokenTable

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "weights.npz"
FORMAT_NAME = "deid-crf-svm"
CLASSIFIERS = ("linear_svc", "sgd", "logistic_regression")
DECODERS = ("viterbi", "repair")


class _SVMChunkTagger:
    """Tags one chunk of texts inside a worker; returns entities with confidences."""

    def __init__(self, model: WindowSVMTagger):
        self.model = model

    def __call__(self, texts: Sequence[str]) -> list[list[tuple[Entity, float]]]:
        table = self.model.tokenizer()(texts)
        labels, confidence = self.model._label_table(table)
        cumulative = np.concatenate(([0.0], np.cumsum(confidence)))
        scored = []
        for d, entities in enumerate(bio.decode(table, labels)):
            a, b = table.doc_bounds[d]
            first = a + np.searchsorted(table.start[a:b], [e.start for e in entities])
            last = a + np.searchsorted(table.end[a:b], [e.end for e in entities])
            mean = (cumulative[last + 1] - cumulative[first]) / np.maximum(last + 1 - first, 1)
            scored.append(list(zip(entities, mean.tolist(), strict=True)))
        return scored


class WindowSVMTagger(BaseEstimator):
    """Token-by-token linear classifier over hashed window features, decoded to
    valid BIO spans.

    ``classifier``: ``linear_svc`` (liblinear, the default), ``sgd`` (hinge loss,
    ``SGDClassifier``) or ``logistic_regression`` (saga, one multinomial model).
    ``decoder``: ``viterbi`` picks, per sentence, the valid BIO sequence with the
    largest summed decision score (:func:`bio.best_valid_labels`); ``repair`` takes
    each token's best label and applies the BIO repair of Cotik et al. (an orphan
    ``I-X`` becomes ``B-X``). With ``FeatureConfig.embedding_vectors`` the centre
    token's fastText vector is appended as dense columns, as in the paper.

    ``n_jobs`` is the number of processes used for tagging; training is one
    solver run. Confidence of an entity: the softmax probability of the chosen
    label over the decision scores, averaged over the entity's tokens (a ranking
    score, not a calibrated probability, except with logistic regression).
    """

    def __init__(
        self,
        tokenizer_config: TokenizerConfig | None = None,
        feature_config: FeatureConfig | None = None,
        n_features: int = 2**20,
        C: float = 0.1,
        class_weight: str | None = None,
        max_iter: int = 2000,
        classifier: str = "linear_svc",
        decoder: str = "viterbi",
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

    def tokenizer(self) -> Tokenizer:
        return Tokenizer(self.tokenizer_config)

    def _matrix(self, table: TokenTable) -> sparse.csr_matrix:
        features = self.feature_config or svm_feature_config()
        matrix = resources.featurizer(features).hashed_matrix(table, self.n_features)
        if not features.embedding_vectors:
            return matrix
        dense = resources.embedding_vectors(features, table)
        return sparse.hstack([matrix, sparse.csr_matrix(dense)], format="csr")

    def _check_params(self) -> None:
        if self.classifier not in CLASSIFIERS:
            raise ValueError(f"classifier must be one of {CLASSIFIERS}, not {self.classifier!r}")
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {DECODERS}, not {self.decoder!r}")

    def _classifier(self, n_samples: int):
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

    # Parameters that :meth:`featurize` depends on: points of a grid search that share
    # them share one featurization (``deid_crf.experiments.grid``).
    featurization_params = ("tokenizer_config", "feature_config", "n_features")

    def fit(self, X: Sequence[Document], y: None = None) -> WindowSVMTagger:
        self._check_params()
        return self.fit_featurized(*self.featurize(X))

    def featurize(self, X: Sequence[Document]) -> tuple[sparse.csr_matrix, np.ndarray]:
        """What :meth:`fit` trains on: the feature matrix and the BIO label of every
        token. Depends only on :attr:`featurization_params`."""
        docs = list(X)
        if not docs:
            raise ValueError("cannot fit on an empty document list")
        table = self.tokenizer()([d.text for d in docs])
        return self._matrix(table), bio.encode(table, [d.entities for d in docs]).astype(str)

    def fit_featurized(self, matrix: sparse.csr_matrix, labels: np.ndarray) -> WindowSVMTagger:
        """Train on the output of :meth:`featurize` (e.g. from a cache)."""
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
        self.entity_types_ = sorted({c[2:] for c in self.classes_ if c != bio.OUTSIDE})
        return self

    def _label_table(self, table: TokenTable) -> tuple[np.ndarray, np.ndarray]:
        """Predicted label and its softmax confidence for every token."""
        if len(table) == 0:
            return np.zeros(0, dtype=object), np.zeros(0)
        scores = np.asarray((self._matrix(table) @ self.coef_.T).todense()) + self.intercept_
        if getattr(self, "decoder", "repair") == "viterbi":
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

    def tag_texts_with_confidence(
        self, texts: Sequence[str], n_jobs: int | None = None
    ) -> list[list[tuple[Entity, float]]]:
        if not texts:
            return []
        parts = map_chunks(_SVMChunkTagger(self), list(texts), self.n_jobs if n_jobs is None else n_jobs)
        return [entities for part in parts for entities in part]

    def tag_texts(self, texts: Sequence[str], n_jobs: int | None = None) -> list[list[Entity]]:
        return [[e for e, _ in doc] for doc in self.tag_texts_with_confidence(texts, n_jobs)]

    def predict(self, X: Sequence[Document]) -> list[list[Entity]]:
        return self.tag_texts([d.text for d in X])

    def score(self, X: Sequence[Document], y: None = None) -> float:
        """MEDDOCAN subtask-1 (NER) F1 on documents with gold entities."""
        from deid_crf.scoring.meddocan import score_documents

        docs = list(X)
        predicted = [Document(d.doc_id, d.text, e) for d, e in zip(docs, self.predict(docs), strict=True)]
        return score_documents(docs, predicted).ner.f1

    def save(self, directory: str | os.PathLike) -> Path:
        """Write ``config.json`` and ``weights.npz`` (non-zero weights only)."""
        directory = Path(directory)
        if directory.exists() and not (directory / CONFIG_FILE).is_file() and any(directory.iterdir()):
            raise FileExistsError(f"{directory} exists and does not hold a model; refusing to replace it")
        directory.mkdir(parents=True, exist_ok=True)
        features = self.feature_config or svm_feature_config()
        for field in resources.PATH_FIELDS:
            shutil.rmtree(directory / field, ignore_errors=True)
        features = resources.bundle(features, directory)
        config = TaggerConfig(tokenizer=self.tokenizer_config or TokenizerConfig(), features=features).to_dict()
        config.pop("crf")
        coef = self.coef_.tocsr()
        tmp = directory / f".{WEIGHTS_FILE}.tmp.npz"
        np.savez_compressed(
            tmp,
            data=coef.data,
            indices=coef.indices,
            indptr=coef.indptr,
            shape=np.array(coef.shape),
            intercept=self.intercept_,
        )
        os.replace(tmp, directory / WEIGHTS_FILE)
        meta = {
            "format": FORMAT_NAME,
            "version": 1,
            "kind": "svm",
            "config": config,
            "params": {
                "n_features": self.n_features,
                "C": self.C,
                "class_weight": self.class_weight,
                "classifier": self.classifier,
                "decoder": self.decoder,
            },
            "classes": self.classes_,
        }
        text = json.dumps(meta, indent=2, ensure_ascii=False) + "\n"
        (directory / CONFIG_FILE).write_text(text, encoding="utf-8")
        return directory

    @classmethod
    def load(cls, directory: str | os.PathLike, n_jobs: int | None = 1) -> WindowSVMTagger:
        directory = Path(directory)
        meta = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT_NAME:
            raise ValueError(f"{directory / CONFIG_FILE}: not a {FORMAT_NAME} model")
        config = TaggerConfig.from_dict(meta["config"])
        config.features = resources.resolve(config.features, directory)
        # Models saved before the Viterbi decoder existed were decoded by repair.
        params = {"classifier": "linear_svc", "decoder": "repair", **meta["params"]}
        model = cls(config.tokenizer, config.features, n_jobs=n_jobs, **params)
        with np.load(directory / WEIGHTS_FILE, allow_pickle=False) as w:
            model.coef_ = sparse.csr_matrix((w["data"], w["indices"], w["indptr"]), shape=tuple(w["shape"]))
            model.intercept_ = w["intercept"]
        model.classes_ = list(meta["classes"])
        model.entity_types_ = sorted({c[2:] for c in model.classes_ if c != bio.OUTSIDE})
        return model


def decoding_report(model: WindowSVMTagger, docs: Sequence[Document]) -> dict[str, int | float]:
    """How decoding turns independent token labels into entities, on gold documents.

    Counts the orphan ``I-X`` tokens of the per-token best labels (an ``I-X`` after
    ``O`` or another type: a split entity) and, for three decodings, the gold
    entities found exactly and the NER F1: ``dropped`` (orphans read as ``O``, no
    repair), ``repair`` (Cotik et al.: orphans start an entity) and ``viterbi`` (the
    best valid BIO sequence). Only counts are returned, never text.
    """
    from deid_crf.scoring.meddocan import score_documents

    docs = list(docs)
    table = model.tokenizer()([d.text for d in docs])
    scores = np.asarray((model._matrix(table) @ model.coef_.T).todense()) + model.intercept_
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
