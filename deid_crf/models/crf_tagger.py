"""The whole de-identification tagger: tokenizer + features + CRF, over documents.

:class:`DeidTagger` is a scikit-learn estimator whose samples are
:class:`~deid_crf.io.brat.Document` objects: ``fit(docs)`` learns from their gold
entities, ``predict(docs)`` returns entity lists and ``score(docs)`` the MEDDOCAN
subtask-1 F1, so it works in ``GridSearchCV`` and ``cross_validate``. A trained
tagger saves to a directory of safe files (``config.json`` + CRFsuite's model file)
and loads without executing code.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator

from deid_crf.text import bio
from deid_crf import resources
from deid_crf.config import CRFConfig, FeatureConfig, TaggerConfig, TokenizerConfig
from deid_crf.text.document import Document, Entity
from deid_crf.models.crf import CRFModel
from deid_crf.featurization.featurizer import AttributeCodes, Featurizer
from deid_crf.parallel import map_chunks
from deid_crf.text.tokenizer import Tokenizer
from deid_crf.text.table import TokenTable

CONFIG_FILE = "config.json"
FORMAT_NAME = "deid-crf-tagger"
FORMAT_VERSION = 1


class ModelNotFoundError(FileNotFoundError):
    """No trained model where one was expected."""


class _Pipeline:
    """Tokenizer + featurizer; picklable so joblib workers can run it."""

    def __init__(self, tokenizer: TokenizerConfig, features: FeatureConfig):
        self.tokenizer = Tokenizer(tokenizer)
        self.featurizer = resources.featurizer(features)

    def prepare(self, texts: Sequence[str]) -> tuple[TokenTable, list]:
        table = self.tokenizer(texts)
        return table, self.featurizer.crf_items(table)


class _ChunkTagger:
    """Tags one chunk of texts end to end inside a worker; returns only entities."""

    def __init__(self, pipeline: _Pipeline, model: CRFModel):
        self.pipeline = pipeline
        self.model = model

    def __call__(self, texts: Sequence[str]) -> list[list[Entity]]:
        # The numpy decoder: the same labels as CRFsuite's tagger on the attribute
        # strings (tests/test_crf_decode.py), without rendering them.
        table = self.pipeline.tokenizer(texts)
        return bio.decode(table, self.model.weights().tag(self.pipeline.featurizer, table))


class _ScoredChunkTagger(_ChunkTagger):
    """Like :class:`_ChunkTagger`, with each entity's confidence: the CRF marginal
    probability of the predicted label, averaged over the entity's tokens."""

    def __call__(self, texts: Sequence[str]) -> list[list[tuple[Entity, float]]]:
        table, items = self.pipeline.prepare(texts)
        crf = self.model.crf_.tagger_
        labels: list[str] = []
        marginals: list[float] = []
        for xseq in items:
            sequence = crf.tag(xseq)  # also sets xseq for the marginals below
            labels.extend(sequence)
            marginals.extend(crf.marginal(label, i) for i, label in enumerate(sequence))
        cumulative = np.concatenate(([0.0], np.cumsum(marginals)))
        scored = []
        for d, entities in enumerate(bio.decode(table, np.array(labels, dtype=object))):
            a, b = table.doc_bounds[d]
            first = a + np.searchsorted(table.start[a:b], [e.start for e in entities])
            last = a + np.searchsorted(table.end[a:b], [e.end for e in entities])
            mean = (cumulative[last + 1] - cumulative[first]) / np.maximum(last + 1 - first, 1)
            scored.append(list(zip(entities, mean.tolist(), strict=True)))
        return scored


class DeidTagger(BaseEstimator):
    """Find PHI entities in documents with a linear-chain CRF.

    ``n_jobs`` is the number of processes used to tokenize, featurize and tag
    (``predict``, ``score``, ``tag_texts``); ``fit`` featurizes in one process and
    CRFsuite trains on one core.
    """

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
    def tagger_config(self) -> TaggerConfig:
        return TaggerConfig(
            tokenizer=self.tokenizer_config or TokenizerConfig(),
            features=self.feature_config or FeatureConfig(),
            crf=CRFConfig(self.c1, self.c2, self.max_iterations, self.all_possible_transitions, self.min_freq),
        )

    def tokenizer(self) -> Tokenizer:
        """The tokenizer this tagger was configured (and trained) with."""
        return Tokenizer(self.tagger_config().tokenizer)

    def _pipeline(self) -> _Pipeline:
        config = self.tagger_config()
        return _Pipeline(config.tokenizer, config.features)

    # -- scikit-learn API ------------------------------------------------------------
    # Parameters that :meth:`featurize` depends on: points of a grid search that share
    # them share one featurization (``deid_crf.experiments.grid``).
    featurization_params = ("tokenizer_config", "feature_config")

    def fit(self, X: Sequence[Document], y: None = None) -> DeidTagger:
        """Learn from the gold entities of the documents ``X``."""
        return self.fit_featurized(*self.featurize(X))

    def featurize(self, X: Sequence[Document]) -> tuple[AttributeCodes, np.ndarray]:
        """What :meth:`fit` trains on: every token's CRF attributes (compact integer
        codes) and gold BIO label. Depends only on :attr:`featurization_params`."""
        docs = list(X)
        if not docs:
            raise ValueError("cannot fit on an empty document list")
        # Features for training are built in this process: shipping millions of
        # attribute strings back from workers costs more than computing them
        # (`make bench`: featurize_all_cores_with_transfer vs featurize_1proc).
        pipeline = self._pipeline()
        table = pipeline.tokenizer([d.text for d in docs])
        labels = bio.encode(table, [d.entities for d in docs]).astype(str)  # plain array: caches cheaply
        return pipeline.featurizer.attribute_codes(table), labels

    def fit_featurized(self, features: AttributeCodes, labels: np.ndarray) -> DeidTagger:
        """Train the CRF on the output of :meth:`featurize` (e.g. from a cache)."""
        token_labels = np.asarray(labels).tolist()
        sentence_labels = [token_labels[a:b] for a, b in features.sent_bounds.tolist()]
        config = self.tagger_config().crf
        self.model_ = CRFModel(**asdict(config), verbose=self.verbose).fit(features.crf_items(), sentence_labels)
        self.entity_types_ = sorted({label[2:] for label in self.model_.classes_ if label != bio.OUTSIDE})
        return self

    def tag_texts(self, texts: Sequence[str], n_jobs: int | None = None) -> list[list[Entity]]:
        """Entities of each text (tokenized, featurized and tagged in chunks)."""
        if not texts:
            return []
        self.model_.weights()  # read once here, not in every worker
        worker = _ChunkTagger(self._pipeline(), self.model_)
        parts = map_chunks(worker, list(texts), self.n_jobs if n_jobs is None else n_jobs)
        return [entities for part in parts for entities in part]

    def tag_texts_with_confidence(
        self, texts: Sequence[str], n_jobs: int | None = None
    ) -> list[list[tuple[Entity, float]]]:
        """Like :meth:`tag_texts`, each entity paired with its confidence: the CRF
        marginal probability of the predicted label averaged over its tokens."""
        if not texts:
            return []
        worker = _ScoredChunkTagger(self._pipeline(), self.model_)
        parts = map_chunks(worker, list(texts), self.n_jobs if n_jobs is None else n_jobs)
        return [entities for part in parts for entities in part]

    def predict(self, X: Sequence[Document]) -> list[list[Entity]]:
        return self.tag_texts([d.text for d in X])

    def score(self, X: Sequence[Document], y: None = None) -> float:
        """MEDDOCAN subtask-1 (NER) F1 on documents with gold entities."""
        from deid_crf.scoring.meddocan import score_documents

        docs = list(X)
        predicted = [Document(d.doc_id, d.text, ents) for d, ents in zip(docs, self.predict(docs), strict=False)]
        return score_documents(docs, predicted).ner.f1

    # -- persistence -----------------------------------------------------------------
    def save(self, directory: str | os.PathLike) -> Path:
        """Write ``config.json`` and the CRFsuite model to ``directory``, replacing
        an existing model only once the new one is completely written."""
        directory = Path(directory)
        if directory.exists() and not (directory / CONFIG_FILE).is_file() and any(directory.iterdir()):
            raise FileExistsError(f"{directory} exists and does not hold a model; refusing to replace it")
        directory.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)  # mkdtemp makes it owner-only; a model is not secret
        try:
            config = self.tagger_config()
            config.features = resources.bundle(config.features, staging)
            meta = {
                "format": FORMAT_NAME,
                "version": FORMAT_VERSION,
                "kind": "crf",
                "config": config.to_dict(),
                "entity_types": self.entity_types_,
            }
            (staging / CONFIG_FILE).write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            self.model_.save(staging)
            if directory.exists():
                backup = directory.with_name(f".{directory.name}.old")
                shutil.rmtree(backup, ignore_errors=True)
                directory.rename(backup)
                staging.rename(directory)
                shutil.rmtree(backup, ignore_errors=True)
            else:
                staging.rename(directory)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return directory

    @classmethod
    def load(cls, directory: str | os.PathLike, n_jobs: int | None = 1) -> DeidTagger:
        """Load a tagger saved by :meth:`save` (JSON + CRFsuite file; no pickle)."""
        directory = Path(directory)
        config_path = directory / CONFIG_FILE
        if not config_path.is_file():
            raise ModelNotFoundError(f"no trained model in {directory} (missing {CONFIG_FILE})")
        try:
            meta = json.loads(config_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{config_path}: unreadable model configuration ({type(exc).__name__})") from None
        if meta.get("format") != FORMAT_NAME or meta.get("version") != FORMAT_VERSION:
            raise ValueError(f"{config_path}: not a {FORMAT_NAME} v{FORMAT_VERSION} model")
        config = TaggerConfig.from_dict(meta["config"])
        config.features = resources.resolve(config.features, directory)
        crf = config.crf
        tagger = cls(
            tokenizer_config=config.tokenizer,
            feature_config=config.features,
            c1=crf.c1,
            c2=crf.c2,
            max_iterations=crf.max_iterations,
            all_possible_transitions=crf.all_possible_transitions,
            min_freq=crf.min_freq,
            n_jobs=n_jobs,
        )
        tagger.model_ = CRFModel.load(directory, **asdict(crf))
        tagger.entity_types_ = list(meta.get("entity_types", []))
        return tagger
