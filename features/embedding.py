"""Word-embedding features: k-means cluster ids of each token type's vector, at several
granularities (the vectors come from a fastText model in ``deid_crf.resources.embeddings``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from deid_crf.features.encoding import Coded


def nearest_centroid(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Index of the nearest centroid (cosine) of every row of ``vectors``."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms == 0, 1, norms)
    return np.argmax(unit @ centroids.T, axis=1).astype(np.int32)


def cluster_columns(type_vectors: np.ndarray, centroids: Sequence[np.ndarray]) -> dict[str, Coded]:
    """One column ``emb{k}`` per centroid set (k clusters): the cluster of each
    distinct token string's vector (one row of ``type_vectors`` per string)."""
    return {f"emb{len(c)}": (nearest_centroid(type_vectors, c), [str(i) for i in range(len(c))]) for c in centroids}
