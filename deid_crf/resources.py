"""Trained resources behind the "resource" feature groups: loaded lazily, once per
process, and bundled into a saved tagger so that a model always uses the resources
it was trained with.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .config import POS_BACKENDS, FeatureConfig
from .tokens import TokenTable


@lru_cache(maxsize=4)
def load_pos(path: str):
    from .pos import PosTagger

    return PosTagger.load(path)


@lru_cache(maxsize=2)
def load_stanza_pos(model_dir: str, package: str):
    from .pos_stanza import StanzaPOSTagger

    return StanzaPOSTagger(model_dir, package)


def pos_tagger(config: FeatureConfig):
    """The POS tagger that ``config.pos_backend`` selects (both have ``predict_table``)."""
    if config.pos_backend == "builtin":
        return load_pos(str(Path(config.pos_model).resolve()))
    if config.pos_backend == "stanza":
        return load_stanza_pos(config.stanza_dir, config.stanza_package)
    raise ValueError(f"unknown FeatureConfig.pos_backend {config.pos_backend!r}; one of {POS_BACKENDS}")


def pos_inputs(config: FeatureConfig, table: TokenTable) -> dict[str, Any]:
    tags = pos_tagger(config).predict_codes(table, ("upos", "eagles2"))
    type_codes, types = table.type_index
    return {
        "upos": tags["upos"],
        "eagles2": tags["eagles2"],
        "type_codes": type_codes,
        "types": types,
        "sentence_ids": table.sentence_ids(),
    }


@lru_cache(maxsize=4)
def load_embeddings(path: str):
    from .embeddings import Embeddings

    return Embeddings(path)


def embedding_inputs(config: FeatureConfig, table: TokenTable) -> dict[str, Any]:
    embeddings = load_embeddings(str(Path(config.embeddings_model).resolve()))
    return {"type_vectors": embeddings.vectors(table.type_index[1]), "centroids": embeddings.centroids}


def embedding_vectors(config: FeatureConfig, table: TokenTable) -> np.ndarray:
    """Every token's fastText vector scaled to unit length (the dense SVM columns);
    looked up once per distinct token."""
    embeddings = load_embeddings(str(Path(config.embeddings_model).resolve()))
    type_codes, types = table.type_index
    vectors = embeddings.vectors(types)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= np.where(norms == 0, 1, norms)
    return vectors[type_codes]


def gazetteer_inputs(config: FeatureConfig, table: TokenTable) -> dict[str, Any]:
    from gazetteers.load import get_gazetteer

    return {
        "tokens": table.tokens,
        "doc": table.doc,
        "line": table.line,
        "gazetteer": get_gazetteer(config.gazetteer_dir),
        "boundaries": table.sentence_starts(),
    }


# group name → (function computing the group's inputs, config field holding its path)
PROVIDERS: dict[str, tuple[Callable[[FeatureConfig, TokenTable], dict[str, Any]], str]] = {
    "pos": (pos_inputs, "pos_model"),
    "embeddings": (embedding_inputs, "embeddings_model"),
    "gazetteers": (gazetteer_inputs, "gazetteer_dir"),
}


def missing_resources(config: FeatureConfig) -> list[str]:
    """The trained resources ``config`` needs that are not built (paths), so that a
    command can say what to build before it starts, not halfway through."""
    from gazetteers.load import read_manifest

    groups = used_groups(config)
    needed: list[Path] = []
    if "pos" in groups and config.pos_backend == "builtin":
        needed.append(Path(config.pos_model) / "config.json")
    if "embeddings" in groups:
        needed += [Path(config.embeddings_model) / name for name in ("vectors.bin", "clusters.npz")]
    if "gazetteers" in groups:
        directory = _source_path(config, "gazetteer_dir")
        try:
            needed += [directory / info["file"] for info in read_manifest(directory)["lists"].values()]
        except FileNotFoundError:
            needed.append(directory / "SOURCES.json")
    return [str(path) for path in needed if not path.is_file()]


def resource_key(group: str, config: FeatureConfig) -> str:
    """What identifies the resource a group uses under ``config`` (its configured path)."""
    return str(getattr(config, PROVIDERS[group][1]))


def resource_inputs(group: str, config: FeatureConfig, table: TokenTable) -> dict[str, Any]:
    provider, _ = PROVIDERS[group]
    return provider(config, table)


def _source_path(config: FeatureConfig, field: str) -> Path:
    value = getattr(config, field)
    if value is None and field == "gazetteer_dir":
        from gazetteers.load import DEFAULT_DIR

        return DEFAULT_DIR
    return Path(value)


def used_groups(config: FeatureConfig) -> tuple[str, ...]:
    """Feature groups whose resources ``config`` needs (the dense embedding columns
    use the embeddings group's model)."""
    extra = ("embeddings",) if config.embedding_vectors and "embeddings" not in config.groups else ()
    return tuple(config.groups) + extra


def bundled_groups(config: FeatureConfig) -> tuple[str, ...]:
    """Used groups whose resource is copied into a saved model: not "pos" from stanza,
    whose model (torch pickles) stays in stanza's directory; ``config.pos_backend``
    records that the model needs it."""
    stanza = config.pos_backend == "stanza"
    return tuple(g for g in used_groups(config) if g in PROVIDERS and not (stanza and g == "pos"))


def bundle(config: FeatureConfig, directory: Path) -> FeatureConfig:
    """Copy the resources that ``config`` uses into ``directory`` (a model being
    saved) and return the config pointing at them by relative name."""
    changes = {}
    for group in bundled_groups(config):
        field = PROVIDERS[group][1]
        source = _source_path(config, field)
        if not source.exists():
            raise FileNotFoundError(f"resource for feature group {group!r} not found at {source}")
        target = directory / field
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)
        changes[field] = field
    return replace(config, **changes)


def resolve(config: FeatureConfig, directory: Path) -> FeatureConfig:
    """Point a loaded model's resource paths into its own directory; a model whose POS
    features come from stanza fails here, clearly, where stanza or its model is missing."""
    if "pos" in config.groups and config.pos_backend == "stanza":
        from .pos_stanza import StanzaUnavailableError, require_spanish_model

        try:
            require_spanish_model(config.stanza_dir, config.stanza_package)
        except StanzaUnavailableError as exc:
            raise StanzaUnavailableError(f"{directory}: this model's POS features come from stanza: {exc}") from None
    changes = {}
    for group in bundled_groups(config):
        field = PROVIDERS[group][1]
        if getattr(config, field) is None:
            continue
        bundled = directory / getattr(config, field)
        if bundled.exists():
            changes[field] = str(bundled)
    return replace(config, **changes)
