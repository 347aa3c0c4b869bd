"""The grid search's featurization cache: training features computed once per
feature configuration and set of documents, kept by ``joblib.Memory``.

The key of a cached featurization is the model kind, the estimator parameters that
featurization depends on (``featurization_params`` of the estimator), and digests of
the documents, of the code and of the trained resources the features read, so that
changing any of them computes fresh features instead of loading stale ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from joblib import Memory
from sklearn.base import BaseEstimator

from deid_crf import resources
from deid_crf.config import FeatureConfig
from deid_crf.experiments.grid_config import KINDS, GridPoint
from deid_crf.text.document import Document


def documents_hash(docs: Sequence[Document]) -> str:
    """A digest of documents' ids, texts and gold entities."""
    digest = hashlib.sha256()
    for doc in docs:
        digest.update(f"{len(doc.doc_id)}:{doc.doc_id}{len(doc.text)}:".encode())
        digest.update(doc.text.encode("utf-8", "surrogatepass"))
        digest.update(repr(sorted((e.start, e.end, e.type) for e in doc.entities)).encode())
    return digest.hexdigest()


def code_hash() -> str:
    """A digest of the source of ``deid_crf``, ``features`` and ``gazetteers``: a code
    change gives a fresh featurization cache rather than stale features."""
    import deid_crf.features as features
    import deid_crf.gazetteers as gazetteers

    digest = hashlib.sha256()
    for package in (
        Path(__file__).resolve().parents[1],
        Path(features.__file__).parent,
        Path(gazetteers.__file__).parent,
    ):
        for source in sorted(package.rglob("*.py")):
            digest.update(f"{package.name}/{source.relative_to(package).as_posix()}\0".encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()


def resources_hash(config: FeatureConfig) -> str:
    """Names, sizes and modification times of the trained resources a feature
    configuration may read (POS model, embeddings, gazetteers): rebuilding one
    gives fresh features."""
    from deid_crf.resources.gazetteer import DEFAULT_DIR

    digest = hashlib.sha256()
    for name in sorted(resources.PATH_FIELDS):
        value = getattr(config, name)
        if not value and name != "gazetteer_dir":
            continue
        root = Path(value or DEFAULT_DIR)  # no gazetteer_dir: the lists in the package
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for path in files:
            if path.is_file():
                stat = path.stat()
                digest.update(f"{name}:{path.relative_to(root.parent)}:{stat.st_size}:{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def featurize_documents(
    kind: str, featurization: dict[str, Any], fingerprint: dict[str, str], docs: list[Document]
) -> Any:
    """The training input of ``kind``'s estimator for ``docs`` (its ``featurize``).

    Under ``joblib.Memory`` the cache key is everything but ``docs``: the kind, the
    parameters featurization depends on (``featurization_params`` of the estimator)
    and ``fingerprint`` (digests of the documents, the code and the resources).
    """
    return KINDS[kind].estimator(**featurization).featurize(docs)


def featurization_key(point: GridPoint) -> tuple[str, str, dict[str, Any]]:
    """What determines a point's featurization: its kind and the estimator parameters
    named by ``featurization_params``, with a canonical JSON text of both."""
    estimator = point.estimator()
    params = estimator.get_params(deep=False)
    params = {name: params[name] for name in type(estimator).featurization_params}
    plain = {k: asdict(v) if hasattr(v, "__dataclass_fields__") else v for k, v in params.items()}
    return json.dumps([point.kind, plain], sort_keys=True, default=str), point.kind, params


def open_cache(cache_dir: Path) -> Memory:
    """The featurization cache. It holds features of the training documents (numpy
    arrays and strings derived from the text, as joblib pickles): it is this user's
    own working data, created owner-only, never a file to share or load from others."""
    cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    return Memory(location=str(cache_dir), verbose=0)


@dataclass
class TrainingInput:
    """How a worker gets a fold's training features: a reference into the cache, or
    the documents to featurize itself (no cache)."""

    cached: Any = None  # joblib MemorizedResult
    docs: list[Document] | None = None

    def features(self, estimator: BaseEstimator) -> Any:
        return self.cached.get() if self.cached is not None else estimator.featurize(self.docs)
