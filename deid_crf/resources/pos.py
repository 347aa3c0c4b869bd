"""A fast part-of-speech tagger: a linear classifier over hashed window features.

Each token is tagged independently from the same vectorized features as the CRF
(lower-cased form, affixes, shapes, flags in a ±2 window), one-hot hashed into a
sparse matrix, so tagging is one sparse matrix product. Two heads share the
features: UPOS and the reduced two-character EAGLES tag (``NC``, ``VM``, ``SP``…).

    python -m deid_crf.resources.pos train [--data-dir DIR] [--out models/pos]
    python -m deid_crf.resources.pos evaluate [--model models/pos]

A model is a directory with ``config.json`` and ``weights.npz`` (no pickle).
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
from deid_crf.io.persistence import (
    ModelFormat,
    invalid_config,
    load_arrays,
    read_model_dir,
    save_arrays,
    write_model_dir,
)
from deid_crf.resources.pos_data import TaggedSentence, read_conllu, read_spaccc, spaccc_doc_id
from deid_crf.text.table import TokenTable

HEADS = ("upos", "eagles2")
WEIGHTS_FILE = "weights.npz"

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
    coef_ : dict of str to numpy.ndarray
        Per head, the weights of shape (n_classes, n_features).
    intercept_ : dict of str to numpy.ndarray
        Per head, the bias of each class.
    classes_ : dict of str to list of str
        Per head, its tags in the order of the rows of ``coef_``.
    """

    model_format = ModelFormat("deid-crf-pos", 1, "pos", build_hint="run `make pos-model`")

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
        self.coef_: dict[str, np.ndarray] = {}
        self.intercept_: dict[str, np.ndarray] = {}
        self.classes_: dict[str, list[str]] = {}
        for head in HEADS:
            y = np.array([t for s in sentences for t in getattr(s, head)], dtype=object)
            known = np.array([t is not None for t in y])
            model = LinearSVC(C=self.C, max_iter=self.max_iter, random_state=0).fit(X[known], y[known].astype(str))
            self.coef_[head] = model.coef_.astype(np.float32)
            self.intercept_[head] = model.intercept_.astype(np.float32)
            self.classes_[head] = [str(c) for c in model.classes_]
        return self

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
        scores = Featurizer(self.features_).hashed_scores(table, weights)
        scores += intercepts
        result, first = {}, 0
        for head in heads:
            last = first + len(self.classes_[head])
            result[head] = (scores[:, first:last].argmax(axis=1).astype(np.int32), list(self.classes_[head]))
            first = last
        return result

    def _stacked_weights(self, heads: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The heads' weights side by side, ``(n_features, n_classes of all heads)``, so
        that one pass over the features scores them all (kept for the next batch)."""
        cache = self.__dict__.setdefault("_stacked", {})
        if heads not in cache:
            weights = np.ascontiguousarray(np.concatenate([self.coef_[h] for h in heads]).T)
            cache[heads] = weights, np.concatenate([self.intercept_[h] for h in heads])
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
            arrays = {f"coef_{h}": self.coef_[h] for h in HEADS} | {f"intercept_{h}": self.intercept_[h] for h in HEADS}
            save_arrays(staging / WEIGHTS_FILE, arrays)
            return {"params": self.get_params(), "features": asdict(self.features_), "classes": self.classes_}

        return write_model_dir(directory, self.model_format, write)

    @classmethod
    def load(cls, directory: str | os.PathLike) -> PosTagger:
        """Load a tagger saved by :meth:`save` (JSON + ``.npz``; no pickle)."""
        directory = Path(directory)
        meta = read_model_dir(directory, cls.model_format)
        with invalid_config(directory):
            tagger = cls(**asdict(check_config(POSConfig(**meta["params"]), "params")))
            # Featurize exactly as the saved model was trained, whatever the current defaults.
            tagger.features_ = TaggerConfig.from_dict({"features": meta["features"]}).features
            tagger.classes_ = {h: list(meta["classes"][h]) for h in HEADS}
        weights = load_arrays(directory / WEIGHTS_FILE)
        tagger.coef_ = {h: weights[f"coef_{h}"] for h in HEADS}
        tagger.intercept_ = {h: weights[f"intercept_{h}"] for h in HEADS}
        return tagger


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
