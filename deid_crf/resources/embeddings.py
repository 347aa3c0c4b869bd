"""fastText word embeddings trained on unlabeled clinical Spanish, and the k-means
clusters used as CRF features.

    python -m deid_crf.resources.embeddings train [--data-dir DIR] [--out models/embeddings]

The model directory holds ``vectors.bin`` (fastText's own format: loading it runs no
Python code, and :mod:`deid_crf.resources.fasttext_file` checks its structure before
fastText's C++ reader sees it) and ``clusters.npz`` (centroids, ``allow_pickle=False``). Users with
pretrained vectors (e.g. Spanish clinical fastText ``.bin``) can point
``FeatureConfig.embeddings_model`` at a directory holding that file as
``vectors.bin``; ``train`` only computes the clusters then (``--vectors FILE``).
Vectors are looked up for lower-cased tokens; out-of-vocabulary tokens get a vector
from their character n-grams, so every token gets a cluster. A saved model holds
instead only what its cluster features need (``subwords.npz``,
:mod:`deid_crf.resources.subwords`), read without fastText: :func:`open_embeddings`
takes either.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
import time
from functools import cached_property
from pathlib import Path

import numpy as np

from deid_crf.config import data_dir
from deid_crf.features.embedding import nearest_centroid
from deid_crf.io.names import shown
from deid_crf.io.persistence import InvalidModel, load_arrays
from deid_crf.parallel import one_blas_thread
from deid_crf.resources.fasttext_file import check_vectors_file
from deid_crf.resources.subwords import SUBWORDS_FILE, SubwordClusters
from deid_crf.text.tokenizer import Tokenizer

VECTORS_FILE = "vectors.bin"
CLUSTERS_FILE = "clusters.npz"
CORPUS_FILES = ("meddocan_train_dev.txt.gz", "cantemist_annotated_sets.txt.gz", "cantemist_background.txt.gz")
DEFAULT_CLUSTERS = (64, 256, 1024)
# What a clusters.npz may hold: arrays k<N> of N centroids (N up to MAX_CLUSTERS) of
# the vectors' dimension, in MAX_CLUSTER_BYTES in all.
MAX_CLUSTERS = 4096
MAX_CLUSTER_BYTES = 64 << 20


def _centroid_problem(dim: int | None, name: str, shape: tuple[int, ...], dtype: np.dtype) -> str | None:
    """What is wrong with the header of centroid array ``name`` (None: nothing)."""
    count = name.removeprefix("k")
    if not name.startswith("k") or not count.isdigit() or not 1 <= int(count) <= MAX_CLUSTERS:
        return f"is not named k<number of clusters, 1 to {MAX_CLUSTERS}>"
    if len(shape) != 2 or shape[0] != int(count) or (dim is not None and shape[1] != dim) or dtype.kind != "f":
        return f"must hold {count} float centroids of dimension {dim if dim is not None else 'd'}"
    return None


def load_centroids(directory: Path, dim: int | None = None) -> list[np.ndarray]:
    """The centroid sets of ``directory/clusters.npz``, fewest clusters first, all of
    dimension ``dim`` (None: of one dimension)."""
    path = directory / CLUSTERS_FILE
    arrays = load_arrays(path, MAX_CLUSTER_BYTES, lambda *header: _centroid_problem(dim, *header))
    if not arrays:
        raise InvalidModel(f"{shown(path)}: no centroids")
    if len({a.shape[1] for a in arrays.values()}) > 1:
        raise InvalidModel(f"{shown(path)}: centroids of different dimensions")
    return [arrays[k] for k in sorted(arrays, key=lambda k: int(k.removeprefix("k")))]


def open_embeddings(directory: str | os.PathLike) -> Embeddings | SubwordClusters:
    """The embeddings in ``directory``: a fastText model (``vectors.bin``), or only what
    the cluster features need of one (``subwords.npz``, :mod:`deid_crf.resources.subwords`),
    which loads without fastText. Both give ``centroids`` and ``clusters(types)``."""
    directory = Path(directory)
    if not (directory / VECTORS_FILE).is_file() and (directory / SUBWORDS_FILE).is_file():
        return SubwordClusters(directory / SUBWORDS_FILE, load_centroids(directory))
    return Embeddings(directory)


class Embeddings:
    """A fastText model plus cluster centroids; vectors for any token string."""

    def __init__(self, directory: str | os.PathLike):
        import fasttext

        directory = Path(directory)
        vectors = directory / VECTORS_FILE
        if not vectors.is_file():
            raise FileNotFoundError(f"no embeddings in {directory}; run `make embeddings`")
        # fastText's C++ reader trusts the file's counts: walk them first (InvalidModel).
        check_vectors_file(vectors)
        try:
            self.model = fasttext.load_model(str(vectors))
        except ValueError:  # what fastText itself refuses, in its words: not shown
            raise InvalidModel(f"{shown(vectors)}: fastText cannot load this model file") from None
        self.centroids = load_centroids(directory, self.model.get_dimension())

    @cached_property
    def _vocabulary(self) -> tuple[dict[str, int], np.ndarray]:
        """The row of every word of the model's vocabulary and its vector, computed on
        first use (about 0.2 s for 27k words): a batch then looks its known words up in
        one array gather, and only out-of-vocabulary strings go through fastText's
        per-word subword lookup."""
        get = self.model.get_word_vector
        words = self.model.words
        vectors = np.empty((len(words), self.model.get_dimension()), dtype=np.float32)
        for i, word in enumerate(words):
            vectors[i] = get(word)
        return {word: i for i, word in enumerate(words)}, vectors

    def vectors(self, types: list[str]) -> np.ndarray:
        """One row per string (lower-cased before lookup): fastText's vector of the word,
        from its character n-grams when it is out of the vocabulary."""
        index, known = self._vocabulary
        lowered = [t.lower() for t in types]
        rows = np.array([index.get(word, -1) for word in lowered], dtype=np.int64)
        out = np.empty((len(types), known.shape[1]), dtype=np.float32)
        found = rows >= 0
        out[found] = known[rows[found]]
        get = self.model.get_word_vector
        for i in np.flatnonzero(~found).tolist():
            out[i] = get(lowered[i])
        return out

    def clusters(self, types: list[str]) -> list[np.ndarray]:
        """For every centroid set, the cluster id of every string's vector."""
        vectors = self.vectors(types)
        with one_blas_thread():
            return [nearest_centroid(vectors, centroids) for centroids in self.centroids]


def write_training_text(root: Path, path: Path) -> int:
    """Tokenize the unlabeled corpus with the project's tokenizer (so that vectors
    exist for the same tokens the tagger sees), lower-cased, one document per line."""
    tokenizer = Tokenizer()
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        for name in CORPUS_FILES:
            with gzip.open(root / "unlabeled_es_clinical" / name, "rt", encoding="utf-8") as f:
                lines = f.read().split("\n")
            for start in range(0, len(lines), 500):
                table = tokenizer(lines[start : start + 500])
                for a, b in table.doc_bounds.tolist():
                    out.write(" ".join(t.lower() for t in table.tokens[a:b]) + "\n")
                n += len(table)
    return n


def kmeans_centroids(vectors: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """Unit-norm centroids of spherical-ish k-means over unit vectors."""
    from sklearn.cluster import MiniBatchKMeans

    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms == 0, 1, norms)
    centroids = MiniBatchKMeans(n_clusters=k, random_state=seed, n_init=3, batch_size=4096).fit(unit).cluster_centers_
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    return centroids.astype(np.float32)


def train(root: Path, out: Path, dim: int = 64, epochs: int = 5, vectors: Path | None = None, threads: int = 1) -> None:
    """Train fastText skipgram vectors on the unlabeled text under ``root`` (or copy
    ``vectors``) and save them with their k-means centroids to ``out``.

    ``threads`` defaults to 1 because fastText's lock-free (Hogwild) SGD gives different
    vectors at each run with more than one thread, and the default model's features are
    cluster ids of these vectors: with one thread a fresh clone's ``make train-crf``
    rebuilds the same vectors, hence the same model (about twice the 40 s of two threads).
    """
    import fasttext

    out.mkdir(parents=True, exist_ok=True)
    if vectors is None:
        with tempfile.TemporaryDirectory() as tmp:
            text = Path(tmp) / "corpus.txt"
            started = time.perf_counter()
            n = write_training_text(root, text)
            print(f"tokenized {n} tokens in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            started = time.perf_counter()
            model = fasttext.train_unsupervised(
                str(text),
                model="skipgram",
                dim=dim,
                epoch=epochs,
                minCount=3,
                minn=3,
                maxn=5,
                bucket=100_000,
                thread=threads,
                verbose=0,
            )
            print(f"trained fastText skipgram in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            model.save_model(str(out / VECTORS_FILE))
    elif vectors.resolve() != (out / VECTORS_FILE).resolve():
        import shutil

        shutil.copyfile(vectors, out / VECTORS_FILE)
        model = fasttext.load_model(str(out / VECTORS_FILE))
    else:
        model = fasttext.load_model(str(out / VECTORS_FILE))
    words = model.get_words()
    matrix = np.stack([model.get_word_vector(w) for w in words])
    centroids = {f"k{k}": kmeans_centroids(matrix, k) for k in DEFAULT_CLUSTERS if k < len(words)}
    np.savez(out / CLUSTERS_FILE, **centroids)
    print(f"{len(words)} words; clusters {sorted(centroids)} saved to {out}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.resources.embeddings", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("command", choices=("train",))
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("models/embeddings"))
    parser.add_argument("--vectors", type=Path, default=None, help="use this pretrained fastText .bin instead")
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument(
        "--threads", type=int, default=1, help="fastText threads (default 1: more are faster but not reproducible)"
    )
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    train(args.data_dir or data_dir(), args.out, args.dim, args.epochs, args.vectors, args.threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
