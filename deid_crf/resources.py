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

from features.encoding import factorize

from .config import FeatureConfig
from .tokens import TokenTable


@lru_cache(maxsize=4)
def load_pos(path: str):
    from .pos import PosTagger

    return PosTagger.load(path)


def pos_inputs(config: FeatureConfig, table: TokenTable) -> dict[str, Any]:
    tags = load_pos(str(Path(config.pos_model).resolve())).predict_table(table)
    return {
        "upos": tags["upos"],
        "eagles2": tags["eagles2"],
        "tokens": table.tokens,
        "sentence_ids": table.sentence_ids(),
    }


@lru_cache(maxsize=4)
def load_embeddings(path: str):
    from .embeddings import Embeddings

    return Embeddings(path)


def embedding_inputs(config: FeatureConfig, table: TokenTable) -> dict[str, Any]:
    embeddings = load_embeddings(str(Path(config.embeddings_model).resolve()))
    type_codes, types = factorize(table.tokens.tolist())
    return {"type_vectors": embeddings.vectors(types), "type_codes": type_codes, "centroids": embeddings.centroids}


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


def resource_inputs(group: str, config: FeatureConfig, table: TokenTable) -> dict[str, Any]:
    provider, _ = PROVIDERS[group]
    return provider(config, table)


def bundle(config: FeatureConfig, directory: Path) -> FeatureConfig:
    """Copy the resources that ``config`` uses into ``directory`` (a model being
    saved) and return the config pointing at them by relative name."""
    changes = {}
    for group in config.groups:
        if group not in PROVIDERS:
            continue
        field = PROVIDERS[group][1]
        source = Path(getattr(config, field))
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
    """Point a loaded model's resource paths into its own directory."""
    changes = {}
    for group in config.groups:
        if group in PROVIDERS:
            field = PROVIDERS[group][1]
            bundled = directory / getattr(config, field)
            if bundled.exists():
                changes[field] = str(bundled)
    return replace(config, **changes)
