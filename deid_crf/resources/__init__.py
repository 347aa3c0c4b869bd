"""Trained resources behind the "resource" feature groups: loaded lazily, once per
process, and bundled into a saved tagger so that a model always uses the resources
it was trained with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from deid_crf.config import POS_BACKENDS, FeatureConfig
from deid_crf.features.registry import GROUPS, get_group
from deid_crf.featurization.featurizer import Featurizer
from deid_crf.io.names import shown
from deid_crf.io.persistence import CONFIG_FILE, InvalidModel
from deid_crf.text.table import TokenTable


@lru_cache(maxsize=4)
def load_pos(path: str):
    from deid_crf.resources.pos import PosTagger

    return PosTagger.load(path)


@lru_cache(maxsize=2)
def load_stanza_pos(model_dir: str, package: str):
    from deid_crf.resources.pos_stanza import StanzaPOSTagger

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
    from deid_crf.resources.embeddings import open_embeddings

    return open_embeddings(path)


def embedding_type_inputs(config: FeatureConfig, types: Sequence[str]) -> dict[str, Any]:
    embeddings = load_embeddings(str(Path(config.embeddings_model).resolve()))
    return {"type_clusters": embeddings.clusters(types), "sizes": [len(c) for c in embeddings.centroids]}


def embedding_vectors(config: FeatureConfig, table: TokenTable) -> np.ndarray:
    """Every token's fastText vector scaled to unit length (the dense SVM columns);
    looked up once per distinct token."""
    from deid_crf.resources.embeddings import Embeddings

    embeddings = load_embeddings(str(Path(config.embeddings_model).resolve()))
    if not isinstance(embeddings, Embeddings):
        raise InvalidModel(f"{shown(config.embeddings_model)}: dense embedding columns need a fastText vectors.bin")
    type_codes, types = table.type_index
    vectors = embeddings.vectors(types)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= np.where(norms == 0, 1, norms)
    return vectors[type_codes]


def gazetteer_inputs(config: FeatureConfig, table: TokenTable) -> dict[str, Any]:
    from deid_crf.resources.gazetteer import get_gazetteer

    return {
        "tokens": table.tokens,
        "doc": table.doc,
        "line": table.line,
        "gazetteer": get_gazetteer(config.gazetteer_dir),
        "boundaries": table.sentence_starts(),
    }


@dataclass(frozen=True)
class Resource:
    """A trained resource: how it turns a token table (a "resource" group) or distinct
    token strings (a "type_resource" group) into the inputs of the feature group that
    uses it, and which :class:`FeatureConfig` field holds its path."""

    path_field: str
    inputs: Callable[[FeatureConfig, TokenTable], dict[str, Any]] | None = None
    type_inputs: Callable[[FeatureConfig, Sequence[str]], dict[str, Any]] | None = None


# Resource name → resource. Feature groups name the resource they use
# (``deid_crf.features.registry.FeatureGroup.resource``).
RESOURCES: dict[str, Resource] = {
    "pos_tagger": Resource("pos_model", inputs=pos_inputs),
    "embeddings": Resource("embeddings_model", type_inputs=embedding_type_inputs),
    "gazetteer": Resource("gazetteer_dir", inputs=gazetteer_inputs),
}
PATH_FIELDS = tuple(resource.path_field for resource in RESOURCES.values())


def resource_of(group: str) -> str | None:
    """The name of the resource feature group ``group`` uses (None: none)."""
    return get_group(group).resource if group in GROUPS else None


@dataclass(frozen=True)
class ConfiguredResources:
    """The resource outputs a :class:`~deid_crf.featurization.featurizer.Featurizer`
    asks for, computed from the resources ``config`` points at (loaded once per
    process). Small and picklable, so tagging workers receive it with the featurizer."""

    config: FeatureConfig

    def key(self, group: str) -> str:
        """What identifies the resource behind ``group`` (its configured path)."""
        return str(getattr(self.config, RESOURCES[resource_of(group)].path_field))

    def inputs(self, group: str, table: TokenTable) -> dict[str, Any]:
        inputs = RESOURCES[resource_of(group)].inputs
        if inputs is None:
            raise ValueError(f"feature group {group!r} takes distinct token strings, not a token table")
        return inputs(self.config, table)

    def type_inputs(self, group: str, types: Sequence[str]) -> dict[str, Any]:
        type_inputs = RESOURCES[resource_of(group)].type_inputs
        if type_inputs is None:
            raise ValueError(f"feature group {group!r} takes a token table, not distinct token strings")
        return type_inputs(self.config, types)


def featurizer(config: FeatureConfig | None = None) -> Featurizer:
    """A featurizer for ``config`` fed by the resources the config points at."""
    config = config or FeatureConfig()
    return Featurizer(config, ConfiguredResources(config))


def missing_resources(config: FeatureConfig) -> list[str]:
    """The trained resources ``config`` needs that are not built (paths), so that a
    command can say what to build before it starts, not halfway through."""
    from deid_crf.resources.embeddings import CLUSTERS_FILE, VECTORS_FILE
    from deid_crf.resources.gazetteer import is_compiled_only, read_manifest
    from deid_crf.resources.subwords import SUBWORDS_FILE

    groups = used_groups(config)
    needed: list[Path] = []
    if "pos" in groups and config.pos_backend == "builtin":
        needed.append(Path(config.pos_model) / "config.json")
    if "embeddings" in groups:
        embeddings = Path(config.embeddings_model)
        compact = not config.embedding_vectors and (embeddings / SUBWORDS_FILE).is_file()
        needed += [embeddings / name for name in (SUBWORDS_FILE if compact else VECTORS_FILE, CLUSTERS_FILE)]
    if "gazetteers" in groups and not is_compiled_only(_source_path(config, "gazetteer_dir")):
        directory = _source_path(config, "gazetteer_dir")
        try:
            needed += [directory / info["file"] for info in read_manifest(directory)["lists"].values()]
        except FileNotFoundError:
            needed.append(directory / "SOURCES.json")
    return [str(path) for path in needed if not path.is_file()]


def _source_path(config: FeatureConfig, field: str) -> Path:
    value = getattr(config, field)
    if value is None and field == "gazetteer_dir":
        from deid_crf.resources.gazetteer import DEFAULT_DIR

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
    return tuple(g for g in used_groups(config) if resource_of(g) and not (stanza and g == "pos"))


def bundle(config: FeatureConfig, directory: Path) -> FeatureConfig:
    """Write the resources that ``config`` uses into ``directory`` (a model being
    saved), in the compact form tagging needs (:mod:`deid_crf.resources.compact`),
    and return the config pointing at them by relative name."""
    from deid_crf.resources.compact import compact_resource

    changes = {}
    for group in bundled_groups(config):
        field = RESOURCES[resource_of(group)].path_field
        if field in changes:
            continue
        source = _source_path(config, field)
        if not source.exists():
            raise FileNotFoundError(f"resource for feature group {group!r} not found at {source}")
        compact_resource(field, source, directory / field, config)
        changes[field] = field
    return replace(config, **changes)


def resolve(config: FeatureConfig, directory: Path, inside: bool = True) -> FeatureConfig:
    """Point a loaded model's resource paths into its own directory; a model whose POS
    features come from stanza fails here, clearly, where stanza or its model is missing.

    With ``inside`` (loading a model), each bundled resource's path must be a relative
    one that stays inside ``directory``, links resolved, and exist there: anything else
    is :class:`~deid_crf.io.persistence.InvalidModel` naming its ``config.json`` (a
    model never reads files from elsewhere). Without it (training again from a saved
    configuration), a resource missing from ``directory`` keeps its configured path."""
    if "pos" in config.groups and config.pos_backend == "stanza":
        from deid_crf.resources.pos_stanza import StanzaUnavailableError, require_spanish_model

        try:
            require_spanish_model(config.stanza_dir, config.stanza_package)
        except StanzaUnavailableError as exc:
            raise StanzaUnavailableError(f"{directory}: this model's POS features come from stanza: {exc}") from None
    changes = {}
    for group in bundled_groups(config):
        field = RESOURCES[resource_of(group)].path_field
        value = getattr(config, field)
        if inside:
            _check_inside(directory, field, value)
            _load_bundled(field, directory / value, config)
        elif value is None:
            continue
        bundled = directory / value
        if bundled.exists():
            changes[field] = str(bundled)
    return replace(config, **changes)


def _load_bundled(field: str, path: Path, config: FeatureConfig) -> None:
    """Load (once per process) or check a bundled resource at model load, so that a
    damaged one is the model's error (InvalidModel naming the file), not the first
    document's. fastText reads ``vectors.bin`` only at the first document: its
    structure is checked here instead."""
    from deid_crf.resources.embeddings import VECTORS_FILE
    from deid_crf.resources.fasttext_file import check_vectors_file

    if field == "embeddings_model":
        if (path / VECTORS_FILE).is_file():
            check_vectors_file(path / VECTORS_FILE)
        else:
            load_embeddings(str(path.resolve()))
    elif field == "pos_model" and config.pos_backend == "builtin":
        load_pos(str(path.resolve()))
    elif field == "gazetteer_dir":
        from deid_crf.resources.gazetteer import get_gazetteer, is_compiled_only

        if is_compiled_only(path):
            get_gazetteer(path)


def _check_inside(directory: Path, field: str, value: str | None) -> None:
    problem = None
    relative = Path(value or "")
    if not value or relative.is_absolute() or ".." in relative.parts:
        problem = "must be a path inside the model folder"
    else:
        try:
            (directory / relative).resolve(strict=True).relative_to(directory.resolve(strict=True))
        except FileNotFoundError:
            problem = "is missing from the model folder"
        except (ValueError, OSError, RuntimeError):
            problem = "leads outside the model folder"
    if problem:
        raise InvalidModel(f"{shown(directory / CONFIG_FILE)}: features.{field} ({shown(str(value))}) {problem}")
