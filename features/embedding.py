"""Word-embedding features: k-means cluster ids of each token type's vector, at several
granularities (the vectors come from a fastText model in ``deid_crf.resources.embeddings``,
which assigns the clusters with :func:`nearest_centroid`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from deid_crf.features.encoding import Coded


def nearest_centroid(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Index of the nearest centroid (cosine) of every row of ``vectors``.

    Computed in float64: a float32 product's last bits depend on how BLAS blocks the
    matrix (its number of rows, threads), so a near tie could go one way for a word
    in a batch of 10 strings and the other in a batch of 10,000. The float32 products
    are exact in float64, and its rounding (~1e-16) leaves such flips out of reach."""
    # A row's own norm scales all its products alike: the argmax needs no division.
    products = np.asarray(vectors, dtype=np.float64) @ np.asarray(centroids, dtype=np.float64).T
    return np.argmax(products, axis=1).astype(np.int32)


def cluster_columns(type_clusters: Sequence[np.ndarray], sizes: Sequence[int]) -> dict[str, Coded]:
    """One column ``emb{k}`` per centroid set of ``k`` clusters (``sizes``): the cluster
    id of each distinct token string (one array of ``type_clusters`` per set)."""
    return {f"emb{k}": (codes, [str(i) for i in range(k)]) for codes, k in zip(type_clusters, sizes, strict=True)}
