"""Word-embedding features: k-means cluster ids of each token type's vector, at several
granularities (the vectors come from a fastText model in ``deid_crf.resources.embeddings``,
which assigns the clusters with :func:`nearest_centroid`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from deid_crf.features.encoding import Coded


def nearest_centroid(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Index of the nearest centroid (cosine) of every row of ``vectors``."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms == 0, 1, norms)
    return np.argmax(unit @ centroids.T, axis=1).astype(np.int32)


def cluster_columns(type_clusters: Sequence[np.ndarray], sizes: Sequence[int]) -> dict[str, Coded]:
    """One column ``emb{k}`` per centroid set of ``k`` clusters (``sizes``): the cluster
    id of each distinct token string (one array of ``type_clusters`` per set)."""
    return {f"emb{k}": (codes, [str(i) for i in range(k)]) for codes, k in zip(type_clusters, sizes, strict=True)}
