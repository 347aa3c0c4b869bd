"""Compact model resources (deid_crf.resources.compact, .subwords, the POS tagger's
version 2 file, the gazetteer compiled only): the same features as the full resources,
fastText's n-gram hashing reproduced exactly, damaged files refused at load with exit
status 2, and models in the earlier layout still loading and converting."""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import train_fasttext

from deid_crf.config import FeatureConfig
from deid_crf.io.persistence import MANIFEST_FILE, load_arrays, save_arrays, write_manifest
from deid_crf.models.crf_tagger import DeidTagger
from deid_crf.resources import compact
from deid_crf.resources.embeddings import CLUSTERS_FILE, VECTORS_FILE, Embeddings, kmeans_centroids, open_embeddings
from deid_crf.resources.gazetteer import DEFAULT_DIR
from deid_crf.resources.pos import PosTagger
from deid_crf.resources.subwords import SUBWORDS_FILE, SubwordClusters, ngram_buckets
from deid_crf.tag import main as tag
from deid_crf.text.tokenizer import Tokenizer

WORDS = (
    "el la paciente presenta refiere dolor abdominal torácico fiebre sin con ingresa hospital universitario "
    "general de madrid valencia es trasladada al servicio urgencias médico análisis tratamiento informe "
    "niño año señora cañón pingüino ñandú"
).split()
# Out of the vocabulary: accents, ñ, a 4-byte character, one too short for any n-gram.
UNSEEN = ["hospitalización", "xyzzy", "urgencia", "ñoño", "café☕", "👩‍⚕️médica", "a", "", "Ñandúes", "über"]


@pytest.fixture(scope="module")
def fasttext_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("fasttext")
    rng = random.Random(0)
    corpus = directory / "corpus.txt"
    corpus.write_text("\n".join(" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(2000)), "utf-8")
    model = train_fasttext(corpus, dim=8, epoch=1, minCount=1, minn=2, maxn=5, bucket=5000)
    model.save_model(str(directory / VECTORS_FILE))
    vectors = np.stack([model.get_word_vector(w) for w in model.get_words()])
    np.savez(directory / CLUSTERS_FILE, k4=kmeans_centroids(vectors, 4), k8=kmeans_centroids(vectors, 8))
    corpus.unlink()
    return directory


@pytest.fixture(scope="module")
def subwords_dir(fasttext_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("compact") / "embeddings"
    compact.compact_embeddings(fasttext_dir, directory)
    return directory


def test_ngram_buckets_are_fasttexts(fasttext_dir: Path):
    full = Embeddings(fasttext_dir)
    args = full.model.f.getArgs()
    nwords = len(full.model.words)
    words = [*UNSEEN, *WORDS]
    buckets, counts = ngram_buckets(words, args.minn, args.maxn, args.bucket)
    ends = np.cumsum(counts)
    for word, end, count in zip(words, ends, counts, strict=True):
        _, ids = full.model.get_subwords(word)
        ngrams = [i - nwords for i in ids.tolist() if i >= nwords]  # a known word's own row comes first
        assert buckets[end - count : end].tolist() == ngrams, word


def test_subword_vectors_sum_as_fasttext_does(fasttext_dir: Path, subwords_dir: Path):
    """With fastText's own float32 rows the vectors are its vectors bit for bit; with
    the stored 16-bit rows they are within the rounding of a row."""
    full = Embeddings(fasttext_dir)
    compact_clusters = open_embeddings(subwords_dir)
    assert isinstance(compact_clusters, SubwordClusters)
    expected = np.stack([full.model.get_word_vector(w) for w in UNSEEN])
    np.testing.assert_allclose(compact_clusters.vectors(UNSEEN), expected, atol=1e-4)
    nwords = len(full.model.words)
    exact = full.model.get_input_matrix()[nwords:]
    stored = np.flatnonzero(exact.any(axis=1))
    compact_clusters.rows = np.vstack([exact[stored], np.zeros((1, exact.shape[1]), np.float32)])
    compact_clusters.scales = np.ones(len(compact_clusters.rows), np.float32)
    assert np.array_equal(compact_clusters.vectors(UNSEEN), expected)
    compact_clusters.minn = 4  # "<a>" has no n-gram of 4 characters: fastText's zero vector
    assert ngram_buckets(["a"], 4, 5, 10)[1].tolist() == [0] and not compact_clusters.vectors(["a"]).any()


def test_compact_clusters_are_fasttexts(fasttext_dir: Path, subwords_dir: Path):
    full = Embeddings(fasttext_dir)
    compact_clusters = open_embeddings(subwords_dir)
    types = [*WORDS, *(w.upper() for w in WORDS), *UNSEEN, "</s>"]
    for got, want in zip(compact_clusters.clusters(types), full.clusters(types), strict=True):
        assert got.tolist() == want.tolist()
    assert sorted(p.name for p in subwords_dir.iterdir()) == [CLUSTERS_FILE, SUBWORDS_FILE]


def test_pos_version_2_tags_as_the_fitted_tagger(pos_sentences, tmp_path: Path):
    tagger = PosTagger(n_features=2**12).fit(pos_sentences)
    assert tagger.weights_.dtype == np.float32 and len(tagger.weights_) <= 2**12 + 1
    loaded = PosTagger.load(tagger.save(tmp_path / "pos"))
    assert np.array_equal(loaded.weights_, tagger.weights_) and np.array_equal(loaded.scale_, tagger.scale_)
    sentences = [s.forms for s in pos_sentences] + [["Ingresa", "el", "niño", "en", "Madrid", "."]]
    assert loaded.predict(sentences) == tagger.predict(sentences)
    arrays = load_arrays(tmp_path / "pos" / "weights.npz")
    assert arrays["weights"].dtype == np.int16 and "coef_upos" not in arrays


@pytest.fixture(scope="module")
def full_and_compact(fasttext_dir, pos_sentences, tiny_corpus, tmp_path_factory) -> tuple[Path, Path]:
    """A model with every resource group saved in the earlier layout (fastText binary,
    gazetteer lists) and the same model saved now (compact)."""
    root = tmp_path_factory.mktemp("models")
    pos_dir = PosTagger(n_features=2**12).fit(pos_sentences).save(root / "pos")
    gazetteer = root / "gazetteer"
    shutil.copytree(DEFAULT_DIR, gazetteer)
    features = replace(
        FeatureConfig(),
        groups=(*FeatureConfig().groups, "pos", "gazetteers", "embeddings"),
        window_columns=(*FeatureConfig().window_columns, "pos", "emb8"),
        pos_model=str(pos_dir),
        embeddings_model=str(fasttext_dir),
        gazetteer_dir=str(gazetteer),
    )
    saved = DeidTagger(feature_config=features, max_iterations=15).fit(tiny_corpus).save(root / "compact")
    old = root / "full"
    shutil.copytree(saved, old)
    shutil.rmtree(old / "embeddings_model")
    shutil.copytree(fasttext_dir, old / "embeddings_model")
    shutil.rmtree(old / "gazetteer_dir")
    shutil.copytree(gazetteer, old / "gazetteer_dir")
    write_manifest(old)
    return old, saved


def _tag_json(model: Path, note: Path, out: Path) -> list[dict]:
    assert tag([str(note), "--model", str(model), "-j", "1", "--format", "json", "-o", str(out), "-q"]) == 0
    return json.loads((out / "nota.json").read_text(encoding="utf-8"))["entities"]


def _cluster_flips(full_dir: Path, compact_dir: Path, text: str) -> list[str]:
    """The token strings of ``text`` whose embedding cluster differs between a model's
    fastText binary and its compact 16-bit n-gram rows."""
    types = sorted(set(Tokenizer().tokenize([text]).type_index[1]))
    full, small = Embeddings(full_dir), open_embeddings(compact_dir)
    differ = np.zeros(len(types), dtype=bool)
    for want, got in zip(full.clusters(types), small.clusters(types), strict=True):
        differ |= want != got
    return [t for t, d in zip(types, differ, strict=True) if d]


def test_compact_model_tags_as_the_full_one(full_and_compact, unseen_document, tmp_path: Path):
    old, saved = full_and_compact
    assert not (saved / "embeddings_model" / VECTORS_FILE).exists()
    assert not (saved / "gazetteer_dir" / "SOURCES.json").exists()
    assert not list((saved / "gazetteer_dir").glob("*.txt"))
    assert (saved / "gazetteer_dir" / "compiled" / "trie.npz").is_file()
    loaded_old, loaded_new = DeidTagger.load(old), DeidTagger.load(saved)
    documents = [unseen_document]
    assert loaded_new.predict(documents) == loaded_old.predict(documents)
    note = tmp_path / "nota.txt"
    note.write_text(unseen_document.text + "\nIngresa en el Hospital Universitario de Valencia.\n", "utf-8")
    got, want = _tag_json(saved, note, tmp_path / "new"), _tag_json(old, note, tmp_path / "old")
    assert [(e["start"], e["end"], e["type"]) for e in got] == [(e["start"], e["end"], e["type"]) for e in want]
    # The scores are the same but for one thing: an out-of-vocabulary word's vector
    # from 16-bit n-gram rows (within 1e-4 of fastText's) can fall on the other side
    # of a cluster boundary. The fixture's tiny fastText model (8 dimensions, trained
    # anew at each run: fastText is not deterministic) sometimes has such a near tie.
    flips = _cluster_flips(old / "embeddings_model", saved / "embeddings_model", note.read_text("utf-8"))
    vocabulary = set(Embeddings(old / "embeddings_model").model.words)
    assert not [t for t in flips if t.lower() in vocabulary], "an in-vocabulary word changed cluster"
    tolerance = 1e-6 if not flips else 0.05
    assert np.allclose([e["confidence"] for e in got], [e["confidence"] for e in want], atol=tolerance, rtol=0)


def test_conversion_of_a_model_in_the_earlier_layout(full_and_compact, unseen_document, tmp_path: Path, capsys):
    old, saved = full_and_compact
    out = tmp_path / "converted"
    assert compact.main([str(old), str(out)]) == 0
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == sorted(
        p.relative_to(saved).as_posix() for p in saved.rglob("*")
    )
    for name in ("embeddings_model/subwords.npz", "pos_model/weights.npz", "gazetteer_dir/compiled/trie.npz"):
        assert (out / name).read_bytes() == (saved / name).read_bytes(), name
    assert DeidTagger.load(out).predict([unseen_document]) == DeidTagger.load(old).predict([unseen_document])
    # Refused, with the file named: not a model, the same folder, a damaged one.
    assert compact.main([str(tmp_path), str(tmp_path / "x")]) == 2
    assert compact.main([str(old), str(old)]) == 2
    damaged = tmp_path / "damaged"
    shutil.copytree(old, damaged)
    (damaged / "model.crfsuite").write_bytes(b"\0")
    assert compact.main([str(damaged), str(tmp_path / "y")]) == 2
    assert "model.crfsuite" in capsys.readouterr().err and not (tmp_path / "y").exists()


@pytest.mark.parametrize(
    "name, damage, problem",
    [
        ("embeddings_model/subwords.npz", {"word_clusters": "out"}, "cluster id out of its centroid set"),
        ("embeddings_model/subwords.npz", {"rows": "short"}, "number of rows"),
        ("embeddings_model/subwords.npz", {"settings": np.array([3, 2, 10], np.int64)}, "settings out of range"),
        ("embeddings_model/subwords.npz", {"words": np.frombuffer(b"\xff\xfe", np.uint8)}, "not UTF-8"),
        ("embeddings_model/subwords.npz", {"rows": np.zeros((2, 2, 2), np.int16)}, "wrong shape"),
        ("pos_model/weights.npz", {"weights": "short"}, "do not match the features"),
        ("pos_model/weights.npz", {"scales": np.zeros(3, np.float32)}, "has shape"),
        (
            "gazetteer_dir/compiled/trie.npz",
            {"edge_child": "big"},
            "trie: an edge to a token or node that does not exist",
        ),
        ("gazetteer_dir/compiled/trie.npz", {"node_mask": np.zeros(3)}, "not a one-dimensional integer array"),
    ],
)
def test_damaged_compact_files_are_refused_at_load(full_and_compact, name, damage, problem, tmp_path, capsys):
    """Crafted, with a matching manifest (a manifest finds damage, it is no
    signature): one line naming the file, exit status 2, for the CLI."""
    _, saved = full_and_compact
    model = tmp_path / "model"
    shutil.copytree(saved, model)
    path = model / name
    arrays = load_arrays(path)
    changes = {}
    for key, value in damage.items():
        if isinstance(value, np.ndarray):
            changes[key] = value
        elif value == "out":
            changes[key] = arrays[key] + 100
        elif value == "big":
            changes[key] = np.full_like(arrays[key], len(arrays[key]) + 5)
        else:  # "short"
            changes[key] = arrays[key][:-1]
    save_arrays(path, arrays | changes)
    for manifest in (model / "pos_model" / MANIFEST_FILE, model / MANIFEST_FILE):
        if manifest.is_file():  # the POS tagger's own folder has one too
            write_manifest(manifest.parent)
    note = tmp_path / "nota.txt"
    note.write_text("Nombre: Zebulonio.\n", encoding="utf-8")
    assert tag([str(note), "--model", str(model), "-j", "1"]) == 2
    err = capsys.readouterr().err
    named = Path(name).name
    assert problem in err and named in err and "Zebulonio" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_damaged_compact_file_is_found_by_the_manifest(full_and_compact, tmp_path, capsys):
    _, saved = full_and_compact
    model = tmp_path / "model"
    shutil.copytree(saved, model)
    path = model / "embeddings_model" / SUBWORDS_FILE
    path.write_bytes(path.read_bytes()[:-10])
    note = tmp_path / "nota.txt"
    note.write_text("Nombre: Zebulonio.\n", encoding="utf-8")
    assert tag([str(note), "--model", str(model), "-j", "1"]) == 2
    assert f"{SUBWORDS_FILE}: " in capsys.readouterr().err
    assert MANIFEST_FILE in {p.name for p in model.iterdir()}
