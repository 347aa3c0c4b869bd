"""fastText embedding clusters as features, trained on a tiny corpus written here."""

from __future__ import annotations

import gzip
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import train_fasttext
from deid_crf.features.embedding import cluster_columns, nearest_centroid

from deid_crf import resources
from deid_crf.config import FeatureConfig
from deid_crf.io.persistence import MANIFEST_FILE, InvalidModel
from deid_crf.resources.embeddings import CLUSTERS_FILE, VECTORS_FILE, Embeddings, kmeans_centroids
from deid_crf.text.tokenizer import tokenize


@pytest.fixture(scope="module")
def tiny_embeddings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("emb")
    corpus = directory / "corpus.txt"
    rng = random.Random(0)
    words = (
        "el la paciente presenta refiere dolor abdominal torácico fiebre sin con ingresa hospital universitario "
        "general de madrid valencia es trasladada al servicio urgencias médico análisis tratamiento informe"
    ).split()
    lines = [" ".join(rng.choice(words) for _ in range(12)) for _ in range(2000)]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = train_fasttext(corpus, dim=8, epoch=1, minCount=1, minn=3, maxn=5, bucket=20000)
    model.save_model(str(directory / VECTORS_FILE))
    words = model.get_words()
    vectors = np.stack([model.get_word_vector(w) for w in words])
    np.savez(directory / CLUSTERS_FILE, k4=kmeans_centroids(vectors, 4), k8=kmeans_centroids(vectors, 8))
    return directory


def test_nearest_centroid_is_cosine():
    centroids = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    vectors = np.array([[5.0, 1.0], [0.1, 3.0], [0.0, 0.0]], dtype=np.float32)
    assert nearest_centroid(vectors, centroids).tolist() == [0, 1, 0]


def test_cluster_columns_per_type():
    columns = cluster_columns([np.array([0, 1, 0]), np.array([3, 2, 0])], [2, 4])
    codes, values = columns["emb2"]
    assert codes.tolist() == [0, 1, 0] and values == ["0", "1"]
    assert columns["emb4"][0].tolist() == [3, 2, 0] and columns["emb4"][1] == ["0", "1", "2", "3"]


def test_every_token_gets_a_cluster_even_out_of_vocabulary(tiny_embeddings: Path):
    embeddings = Embeddings(tiny_embeddings)
    assert [len(c) for c in embeddings.centroids] == [4, 8]
    vectors = embeddings.vectors(["Hospital", "hospitalización", "xyzzy"])  # OOV: character n-grams
    assert vectors.shape == (3, 8) and np.isfinite(vectors).all()
    assert np.abs(vectors[1]).sum() > 0  # shares n-grams with "hospital"
    np.testing.assert_allclose(vectors[0], embeddings.vectors(["hospital"])[0])  # lower-cased lookup

    config = replace(FeatureConfig(), groups=("lower", "embeddings"), window_columns=("w",))
    config = replace(config, embeddings_model=str(tiny_embeddings))
    cols = resources.featurizer(config).columns(tokenize(["Ingresa en el Hospital hospitalización zzz."]))
    assert {"emb4", "emb8"} <= set(cols.names)
    column = cols.codes[:, cols.names.index("emb8")]
    assert ((column >= 0) & (column < 8)).all()


def test_missing_embeddings_error(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="make embeddings"):
        Embeddings(tmp_path)


def test_svm_appends_unit_fasttext_vectors_as_dense_columns(tiny_embeddings: Path, tiny_corpus, tmp_path: Path):
    from deid_crf.config import svm_feature_config
    from deid_crf.models import load_model
    from deid_crf.models.svm import WindowSVMTagger

    features = replace(svm_feature_config(), embedding_vectors=True, embeddings_model=str(tiny_embeddings))
    model = WindowSVMTagger(feature_config=features, n_features=2**12).fit(tiny_corpus)
    table = tokenize(["Ingresa en el Hospital zzz."])
    matrix = model._matrix(model._pipeline(), table)
    assert matrix.shape == (len(table), 2**12 + 8)
    dense = matrix[:, 2**12 :].toarray()
    norms = np.linalg.norm(dense, axis=1)
    # Unit length, or zero for a short OOV token with no character n-gram ("en", ".").
    assert np.allclose(norms[norms > 0], 1.0, rtol=1e-5) and norms[table.tokens.tolist().index("Hospital")] > 0
    # Tagging gathers weight rows for the hashed columns and multiplies the dense ones.
    expected = (matrix @ model.coef_.T).toarray() + model.intercept_
    np.testing.assert_allclose(
        model._scores(model._pipeline(), tokenize(["Ingresa en el Hospital zzz."])), expected, atol=1e-5
    )
    # The model carries its own copy of the vectors, found again after loading.
    directory = model.save(tmp_path / "svm")
    assert (directory / "embeddings_model" / VECTORS_FILE).is_file()
    loaded = load_model(directory)
    assert loaded.predict(tiny_corpus[:2]) == model.predict(tiny_corpus[:2])
    # A damaged vectors.bin is the model's error at load, manifest or not (not the
    # first document's): here cut inside its dictionary, which fastText would read for ever.
    vectors = directory / "embeddings_model" / VECTORS_FILE
    vectors.write_bytes(vectors.read_bytes()[:200])
    with pytest.raises(InvalidModel, match=f"{VECTORS_FILE}: 200 bytes, the model.s manifest says"):
        load_model(directory)
    (directory / MANIFEST_FILE).unlink()
    with pytest.raises(InvalidModel, match=f"{VECTORS_FILE}: damaged fastText model file"):
        load_model(directory)


def test_fasttext_trains_on_one_thread_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh clone's `make embeddings` must rebuild the same vectors, or `make train-crf`
    gives another default model each time: fastText's lock-free SGD on two threads gave
    other vectors at each run on the shared corpus, one thread the same ones
    (docs/resources.md). The corpus is tiny here, so fastText itself is stood in for."""
    import fasttext

    from deid_crf.resources.embeddings import CORPUS_FILES, train

    corpus = tmp_path / "data" / "unlabeled_es_clinical"
    corpus.mkdir(parents=True)
    for name in CORPUS_FILES:
        with gzip.open(corpus / name, "wt", encoding="utf-8") as f:
            f.write("paciente refiere dolor\n")
    asked: list[dict] = []

    class Stop(Exception):
        pass

    def record(path: str, **options):
        asked.append(options)
        raise Stop

    monkeypatch.setattr(fasttext, "train_unsupervised", record)
    for threads in (None, 2):
        with pytest.raises(Stop):
            train(tmp_path / "data", tmp_path / "out", **({} if threads is None else {"threads": threads}))
    assert [options["thread"] for options in asked] == [1, 2]
