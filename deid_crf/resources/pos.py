"""A fast part-of-speech tagger: a linear classifier over hashed window features.

Each token is tagged independently from the same vectorized features as the CRF
(lower-cased form, affixes, shapes, flags in a ±2 window), one-hot hashed into a
sparse matrix, so tagging is one sparse matrix product. Two heads share the
features: UPOS and the reduced two-character EAGLES tag (``NC``, ``VM``, ``SP``…).

    python -m deid_crf.resources.pos train [--data-dir DIR] [--out models/pos]
    python -m deid_crf.resources.pos evaluate [--model models/pos]

A model is a directory with ``config.json`` and ``weights.npz`` (no pickle). The
weights are kept as 16-bit integers times a float32 scale per class, from the end of
``fit`` on, and only for the hashed features that have a non-zero weight (about half
of them): the default model's file is 2.3 MB instead of 11 MB, and its tags on
MEDDOCAN train and dev and the evaluation notes (436,387 tokens) are those of its
float32 weights. Version 1 files (float32 weights of every feature) still load, exactly.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np

from deid_crf.config import FeatureConfig, POSConfig, TaggerConfig, check_config, data_dir, documents
from deid_crf.estimator import Estimator, check_is_fitted
from deid_crf.features.encoding import Coded
from deid_crf.featurization.featurizer import Featurizer
from deid_crf.featurization.hashing import hash_strings
from deid_crf.featurization.type_scores import TypeScores
from deid_crf.io.names import shown
from deid_crf.io.persistence import (
    InvalidModel,
    ModelFormat,
    invalid_config,
    load_arrays,
    read_config,
    read_model_dir,
    save_arrays,
    write_model_dir,
)
from deid_crf.resources.pos_data import TaggedSentence, read_conllu, read_spaccc, spaccc_doc_id
from deid_crf.text.table import TokenTable

HEADS = ("upos", "eagles2")
WEIGHTS_FILE = "weights.npz"
WEIGHT_BITS = 16
_WEIGHT_MAX = 2 ** (WEIGHT_BITS - 1) - 1

# Features of the tagger itself (not the NER feature configuration).
POS_FEATURES = FeatureConfig(
    groups=("lower", "affixes", "shape", "flags"),
    window=2,
    window_columns=("w", "s2", "s3", "sshape", "f"),
    affix_lengths=(1, 2, 3, 4),
)


def table_from_sentences(sentences: Sequence[Sequence[str]]) -> TokenTable:
    """A token table for pre-tokenized sentences (one document per sentence)."""
    lengths = np.array([len(s) for s in sentences], dtype=np.int64)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    tokens = np.empty(int(lengths.sum()), dtype=object)
    tokens[:] = [t for s in sentences for t in s]
    token_len = np.array([len(t) for t in tokens], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(token_len + 1)[:-1])) if len(tokens) else np.zeros(0, np.int64)
    doc = np.repeat(np.arange(len(sentences), dtype=np.int32), lengths)
    bounds = np.stack([starts, ends], axis=1) if len(sentences) else np.zeros((0, 2), np.int64)
    return TokenTable(
        texts=[" ".join(s) for s in sentences],
        tokens=tokens,
        start=offsets,
        end=offsets + token_len,
        doc=doc,
        line=np.zeros(len(tokens), np.int32),
        sent_bounds=bounds,
        doc_bounds=bounds.copy(),
    )


def upos_per_sentence(tagger, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
    """UPOS tags of pre-tokenized sentences from any tagger with ``predict_table``
    (the built-in one or the stanza adapter)."""
    tags = tagger.predict_table(table_from_sentences(sentences), heads=("upos",))["upos"].tolist()
    out, i = [], 0
    for s in sentences:
        out.append(tags[i : i + len(s)])
        i += len(s)
    return out


@documents(POSConfig)
class PosTagger(Estimator):
    """Token-level linear POS tagger with a UPOS and an EAGLES-2 head.

    ``fit(sentences)`` learns from :class:`~deid_crf.resources.pos_data.TaggedSentence`
    objects; each head is a liblinear ``LinearSVC`` over the same hashed features.

    Parameters
    ----------
    {POSConfig}

    Attributes
    ----------
    features_ : FeatureConfig
        The features the tagger was trained on (``POS_FEATURES`` at training time).
    weights_ : numpy.ndarray
        The weights of the hashed features that have any, one row per feature and one
        column per class of every head (``HEADS`` order), then a row of zeros: shape
        (n_weighted + 1, n_classes of all heads). Multiples of ``scale_``.
    feature_rows_ : numpy.ndarray
        The row of ``weights_`` of every hashed feature (n_features,); the zero row
        for a feature without weights.
    scale_ : numpy.ndarray or None
        Per class, the step of its weights (16-bit integers times it); None for a
        tagger loaded from a version 1 file, whose float32 weights are kept exactly.
    intercept_ : dict of str to numpy.ndarray
        Per head, the bias of each class.
    classes_ : dict of str to list of str
        Per head, its tags in the order of the columns of ``weights_``.
    """

    model_format = ModelFormat("deid-crf-pos", 2, "pos", build_hint="run `make pos-model`")
    # Files of version 1 hold every feature's float32 weights (``coef_<head>``).
    model_format_v1 = ModelFormat("deid-crf-pos", 1, "pos", build_hint="run `make pos-model`")

    def __init__(
        self, n_features: int = POSConfig.n_features, C: float = POSConfig.C, max_iter: int = POSConfig.max_iter
    ):
        self.n_features = n_features
        self.C = C
        self.max_iter = max_iter

    def _matrix(self, table: TokenTable):
        return Featurizer(self.features_).hashed_matrix(table, self.n_features)

    def fit(self, sentences: Sequence[TaggedSentence]) -> PosTagger:
        """Learn both heads from tagged sentences (tokens without a tag are left out)."""
        from sklearn.svm import LinearSVC

        sentences = list(sentences)
        if not sentences:
            raise ValueError("cannot fit on an empty sentence list")
        for i, sentence in enumerate(sentences):
            if not isinstance(sentence, TaggedSentence):
                raise TypeError(f"sentences[{i}] is a {type(sentence).__name__}, not a TaggedSentence")
        self.features_ = POS_FEATURES
        table = table_from_sentences([s.forms for s in sentences])
        X = self._matrix(table)
        coef: dict[str, np.ndarray] = {}
        self.intercept_: dict[str, np.ndarray] = {}
        self.classes_: dict[str, list[str]] = {}
        for head in HEADS:
            y = np.array([t for s in sentences for t in getattr(s, head)], dtype=object)
            known = np.array([t is not None for t in y])
            model = LinearSVC(C=self.C, max_iter=self.max_iter, random_state=0).fit(X[known], y[known].astype(str))
            coef[head] = model.coef_.astype(np.float32)
            self.intercept_[head] = model.intercept_.astype(np.float32)
            self.classes_[head] = [str(c) for c in model.classes_]
        # Rounded to what the file keeps now, so that the saved tagger tags as this one.
        stacked = np.concatenate([coef[h] for h in HEADS]).T
        present = stacked.any(axis=1)
        integers, self.scale_ = quantize_columns(stacked[present])
        self._set_weights(integers, present, self.scale_)
        return self

    def _set_weights(self, rows: np.ndarray, present: np.ndarray, scale: np.ndarray | None = None) -> None:
        """Keep the weight ``rows`` (times the per-class ``scale``, if given) of the
        features ``present`` marks (and a zero row), as float32, written once (the
        default model's are 30 MB: each copy costs start-up time and peak memory)."""
        weights = np.empty((len(rows) + 1, rows.shape[1]), dtype=np.float32)
        if scale is None:
            weights[:-1] = rows
        else:
            np.multiply(rows, scale, out=weights[:-1])
        weights[-1] = 0
        self.weights_ = weights
        self.feature_rows_ = np.full(len(present), len(rows), dtype=np.int32)
        self.feature_rows_[present] = np.arange(len(rows), dtype=np.int32)

    def predict_table(self, table: TokenTable, heads: Sequence[str] = HEADS) -> dict[str, np.ndarray]:
        """Tags (object arrays of str) of every token of ``table`` for each head."""
        return {
            head: np.array(classes, dtype=object)[codes]
            for head, (codes, classes) in self.predict_codes(table, heads).items()
        }

    def predict_codes(self, table: TokenTable, heads: Sequence[str] = HEADS) -> dict[str, Coded]:
        """Per head, every token's tag as a code into that head's classes."""
        check_is_fitted(self)
        weights, intercepts = self._stacked_weights(tuple(heads))
        rows, n_features = self.feature_rows_, len(self.feature_rows_)
        # Kept per weight matrix (one per tuple of heads), from one table to the next.
        type_scores = self.__dict__.setdefault("_type_scores", {}).setdefault(tuple(heads), TypeScores())
        scores = Featurizer(self.features_).linear_scores(
            table, weights, lambda strings: rows[hash_strings(strings, n_features)], type_scores
        )
        scores += intercepts
        result, first = {}, 0
        for head in heads:
            last = first + len(self.classes_[head])
            result[head] = (scores[:, first:last].argmax(axis=1).astype(np.int32), list(self.classes_[head]))
            first = last
        return result

    def _stacked_weights(self, heads: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The columns of ``heads`` in ``weights_``, so that one pass over the features
        scores them all, and their intercepts (kept for the next batch)."""
        if heads == HEADS:
            return self.weights_, np.concatenate([self.intercept_[h] for h in heads])
        cache = self.__dict__.setdefault("_stacked", {})
        if heads not in cache:
            first = dict(zip(HEADS, np.cumsum([0] + [len(self.classes_[h]) for h in HEADS]).tolist(), strict=False))
            columns = np.concatenate([np.arange(first[h], first[h] + len(self.classes_[h])) for h in heads])
            cache[heads] = (
                np.ascontiguousarray(self.weights_[:, columns]),
                np.concatenate([self.intercept_[h] for h in heads]),
            )
        return cache[heads]

    def predict(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """UPOS tags of pre-tokenized sentences."""
        check_is_fitted(self)
        return upos_per_sentence(self, sentences)

    def save(self, directory: str | os.PathLike) -> Path:
        """Save to ``directory`` (``config.json`` and ``weights.npz``), replacing an
        existing model only once the new one is completely written."""
        check_is_fitted(self)

        def write(staging: Path) -> dict:
            rows = self.weights_[:-1]
            if self.scale_ is None:  # float32 weights of a version 1 file: rounded now
                integers, scale = quantize_columns(rows)
            else:
                integers, scale = np.round(rows / self.scale_).astype(np.int16), self.scale_
            arrays = {
                "features_present": np.packbits(self.feature_rows_ < len(rows)),
                "weights": integers,
                "scales": scale,
            } | {f"intercept_{h}": self.intercept_[h] for h in HEADS}
            save_arrays(staging / WEIGHTS_FILE, arrays)
            return {"params": self.get_params(), "features": asdict(self.features_), "classes": self.classes_}

        return write_model_dir(directory, self.model_format, write)

    @classmethod
    def load(cls, directory: str | os.PathLike) -> PosTagger:
        """Load a tagger saved by :meth:`save` (JSON + ``.npz``; no pickle)."""
        directory = Path(directory)
        version = read_config(directory, cls.model_format.build_hint).get("version")
        meta = read_model_dir(directory, cls.model_format_v1 if version == 1 else cls.model_format)
        with invalid_config(directory):
            tagger = cls(**asdict(check_config(POSConfig(**meta["params"]), "params")))
            # Featurize exactly as the saved model was trained, whatever the current defaults.
            tagger.features_ = TaggerConfig.from_dict({"features": meta["features"]}).features
            tagger.classes_ = {h: [str(c) for c in meta["classes"][h]] for h in HEADS}
        path = directory / WEIGHTS_FILE
        sizes = {h: len(tagger.classes_[h]) for h in HEADS}
        weights = load_arrays(path, expect=_weights_checker(version, tagger.n_features, sizes))
        needed = {f"coef_{h}" for h in HEADS} if version == 1 else {"features_present", "weights", "scales"}
        missing = sorted((needed | {f"intercept_{h}" for h in HEADS}) - set(weights))
        if missing:
            raise InvalidModel(f"{shown(path)}: no array {missing[0]!r}")
        tagger.intercept_ = {h: weights[f"intercept_{h}"] for h in HEADS}
        if version == 1:
            stacked = np.concatenate([weights[f"coef_{h}"] for h in HEADS]).T
            present = stacked.any(axis=1)
            tagger.scale_ = None
            tagger._set_weights(stacked[present], present)
            return tagger
        present = np.unpackbits(weights["features_present"])
        integers, tagger.scale_ = weights["weights"], weights["scales"]
        if present[tagger.n_features :].any() or int(present.sum()) != len(integers):
            raise InvalidModel(f"{shown(path)}: the weight rows do not match the features marked present")
        if not np.isfinite(tagger.scale_).all() or not all(np.isfinite(v).all() for v in tagger.intercept_.values()):
            raise InvalidModel(f"{shown(path)}: a scale or intercept is not finite")
        tagger._set_weights(integers, present[: tagger.n_features].astype(bool), tagger.scale_)
        return tagger


def quantize_columns(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(integers, scales)``: 16-bit integers times a float32 scale per column, each
    column's largest magnitude at the largest integer."""
    peak = np.abs(rows).max(axis=0) if len(rows) else np.zeros(rows.shape[1], np.float32)
    scales = (peak / np.float32(_WEIGHT_MAX)).astype(np.float32)
    scales[scales == 0] = 1
    return np.round(rows / scales).astype(np.int16), scales


def _weights_checker(version: int, n_features: int, sizes: dict[str, int]):
    """What the arrays of a ``weights.npz`` of ``version`` must look like, for
    :func:`~deid_crf.io.persistence.load_arrays`."""
    n_classes = sum(sizes.values())
    expected: dict[str, tuple[str, tuple[int | None, ...]]] = {f"intercept_{h}": ("f4", (n,)) for h, n in sizes.items()}
    if version == 1:
        expected |= {f"coef_{h}": ("f4", (n, n_features)) for h, n in sizes.items()}
    else:
        expected |= {
            "features_present": ("u1", (-(-n_features // 8),)),
            "weights": ("i2", (None, n_classes)),
            "scales": ("f4", (n_classes,)),
        }

    def problem(name: str, shape: tuple[int, ...], dtype: np.dtype) -> str | None:
        if name not in expected:
            return "is not an array of this tagger"
        kind, want = expected[name]
        if dtype.str.lstrip("<>|=") != kind or len(shape) != len(want):
            return f"must be of type {kind} with {len(want)} dimensions"
        if any(w is not None and w != n for w, n in zip(want, shape, strict=True)):
            return f"has shape {shape}; the tagger's configuration needs {want}"
        return None

    return problem


# -- data selection ---------------------------------------------------------------------


def training_sentences(root: Path, include_ancora: bool = False) -> list[TaggedSentence]:
    """The default training data (docs/resources.md): SPACCC gold development + silver, without
    the gold validation documents (held out) and without MEDDOCAN dev documents (their
    narratives are in the silver set; the NER models are tuned on dev), plus UD
    Spanish-GSD dev/test and PUD test. AnCora (GPL-3.0 here) only when asked."""

    spaccc = root / "spaccc_pos"
    held_out = {s.doc_id for s in read_spaccc(spaccc / "gold_validation.tsv.gz")}
    gold_dev = list(read_spaccc(spaccc / "gold_development.tsv.gz"))
    gold_dev_ids = {s.doc_id for s in gold_dev}
    meddocan_dev = {p.stem for p in (root / "meddocan" / "dev").glob("*.txt")}
    silver = [
        s
        for s in read_spaccc(spaccc / "silver_autotagged.tsv.gz")
        if s.doc_id not in held_out and s.doc_id not in gold_dev_ids and spaccc_doc_id(s.doc_id) not in meddocan_dev
    ]
    gold_dev = [s for s in gold_dev if spaccc_doc_id(s.doc_id) not in meddocan_dev]
    ud = []
    for name in ("es_gsd-ud-dev.conllu.gz", "es_gsd-ud-test.conllu.gz", "es_pud-ud-test.conllu.gz"):
        ud.extend(read_conllu(root / "ud_spanish_extra" / name))
    if include_ancora:
        ud.extend(read_conllu(root / "ud_spanish_ancora" / "es_ancora-ud-dev.conllu.gz"))
    return gold_dev + silver + ud


def held_out_sets(root: Path) -> dict[str, list[TaggedSentence]]:
    return {
        "spaccc_gold_validation": list(read_spaccc(root / "spaccc_pos" / "gold_validation.tsv.gz")),
        "ud_ancora_test": list(read_conllu(root / "ud_spanish_ancora" / "es_ancora-ud-test.conllu.gz")),
    }


def accuracy(tagger: PosTagger, sentences: Sequence[TaggedSentence]) -> dict[str, float]:
    table = table_from_sentences([s.forms for s in sentences])
    predicted = tagger.predict_table(table)
    result = {}
    for head in HEADS:
        gold = np.array([t for s in sentences for t in getattr(s, head)], dtype=object)
        known = np.array([t is not None for t in gold])
        if known.any():
            result[head] = float((predicted[head][known] == gold[known]).mean())
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deid_crf.resources.pos", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("train", "evaluate"))
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--model", type=Path, default=Path("models/pos"), help="model directory (default models/pos)")
    parser.add_argument("--include-ancora", action="store_true", help="also train on UD AnCora dev (GPL-3.0)")
    args = parser.parse_args(argv)
    root = args.data_dir or data_dir()
    if args.command == "train":
        sentences = training_sentences(root, args.include_ancora)
        n_tokens = sum(len(s.forms) for s in sentences)
        print(f"training POS tagger on {len(sentences)} sentences, {n_tokens} tokens", file=sys.stderr)
        started = time.perf_counter()
        tagger = PosTagger().fit(sentences)
        print(f"trained in {time.perf_counter() - started:.1f} s; saved to {args.model}", file=sys.stderr)
        tagger.save(args.model)
    else:
        tagger = PosTagger.load(args.model)
    for name, sentences in held_out_sets(root).items():
        scores = accuracy(tagger, sentences)
        n = sum(len(s.forms) for s in sentences)
        print(f"{name:<24} {n:>6} tokens  " + "  ".join(f"{h} accuracy {v:.4f}" for h, v in scores.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
