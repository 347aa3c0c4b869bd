"""Grid-search configuration files: parse a TOML grid and expand it into points.

A grid file is a run configuration (:class:`deid_crf.config.RunConfig`: ``[tokenizer]``,
``[features]``, ``[model]``, ``[data]``) in which hyper-parameters and feature settings
list the values to try; a model table's points are the product of its lists. An array
of tables (``[[model]]``) declares several sub-grids, as scikit-learn's list of
parameter grids; each may have its own ``[model.features]``, on top of the file's
``[features]``::

    [data]
    train = ["train"]   # MEDDOCAN splits to train on
    eval = "dev"        # split to score on
    folds = 0           # K >= 2: K-fold cross-validation on train + eval instead
    limit = 0           # at most this many documents of each split (0: all)

    [features]
    preset = "core"     # the feature set every point starts from

    [[model]]
    kind = "crf"
    c1 = [0.03, 0.1]
    c2 = [0.01, 0.05]

    [[model]]
    kind = "crf"
    [model.features]
    window = [1, 2]

Hyper-parameters are checked against the estimator's ``get_params()``, so any
parameter an estimator gains is available without changing this module. Every error
names the grid file and the offending key.
"""

from __future__ import annotations

import itertools
import json
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from sklearn.base import BaseEstimator

from deid_crf import resources
from deid_crf.config import (
    DEFAULT_PRESETS,
    FEATURE_PRESETS,
    MODEL_KINDS,
    DataConfig,
    FeatureConfig,
    RunConfig,
    TokenizerConfig,
)
from deid_crf.models import ESTIMATORS
from deid_crf.text.tokenizer import Tokenizer


class GridConfigError(ValueError):
    """A grid file is unreadable or declares something invalid; the message names it."""


@dataclass(frozen=True)
class ModelKind:
    """An estimator a grid can search, with the feature settings its points start from."""

    estimator: type[BaseEstimator]
    default_features: Callable[[], FeatureConfig]


KINDS: dict[str, ModelKind] = {
    kind: ModelKind(ESTIMATORS[kind], FEATURE_PRESETS[DEFAULT_PRESETS[kind]]) for kind in MODEL_KINDS
}
# Estimator parameters the runner sets itself: configs come from the ``features``
# table, and each point runs on one core (points run in parallel instead).
RUNNER_PARAMS = {
    "tokenizer_config": "the tokenizer is not searched",
    "feature_config": "use the kind's 'features' table",
    "n_jobs": "points run in parallel (--n-jobs), each on one core",
    "verbose": "the runner shows one progress bar",
}
# Written as the string "none" in TOML (which has no null) for parameters whose default is None.
NONE = "none"
# A short text featurized once per feature configuration, to report a bad group or
# window column (or a missing resource) with the grid file before anything runs.
_PROBE_TEXT = "Edad: 63 años.\nAcude a consulta."


# Which documents train and score every point: the ``[data]`` table of the run config.
DataSpec = DataConfig


@dataclass
class GridPoint:
    """One estimator configuration of a grid."""

    kind: str
    params: dict[str, Any]  # hyper-parameters the grid sets (others keep their defaults)
    features: FeatureConfig
    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    preset: str = ""  # the feature preset the point starts from ("": the kind's default)

    def estimator(self) -> BaseEstimator:
        """A fresh, unfitted estimator for this point (one core)."""
        return KINDS[self.kind].estimator(
            tokenizer_config=self.tokenizer, feature_config=self.features, n_jobs=1, **self.params
        )

    def base_features(self) -> FeatureConfig:
        """The feature set the point's ``features`` settings change."""
        return FEATURE_PRESETS[self.preset or DEFAULT_PRESETS[self.kind]]()

    def full_params(self) -> dict[str, Any]:
        """Every parameter of the point's estimator, defaults included, as plain
        JSON-ready values (configs as dicts): what identifies the point."""
        params = self.estimator().get_params(deep=False)
        for name in ("n_jobs", "verbose"):
            params.pop(name, None)
        return {k: asdict(v) if hasattr(v, "__dataclass_fields__") else v for k, v in params.items()}


@dataclass
class GridConfig:
    """A parsed grid file."""

    path: Path
    data: DataSpec
    points: list[GridPoint] = field(default_factory=list)


def _error(path: Path, where: str, message: str) -> GridConfigError:
    return GridConfigError(f"{path}: {where}: {message}" if where else f"{path}: {message}")


def _type_name(value: Any) -> str:
    return type(value).__name__


def _coerce(path: Path, where: str, value: Any, default: Any) -> Any:
    """``value`` checked against the type of the parameter's default (an int is
    accepted for a float); ``"none"`` is None where the default is None."""
    if default is None:
        return None if value == NONE else value
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, tuple):
        element = type(default[0]) if default else object
        ok = isinstance(value, list | tuple) and all(isinstance(v, element) and not isinstance(v, bool) for v in value)
        if not ok:
            raise _error(path, where, f"expected a list of {element.__name__} values, got {value!r}")
        value = tuple(value)
    else:
        ok = isinstance(value, type(default))
    if not ok:
        raise _error(path, where, f"expected {_type_name(default)}, got {_type_name(value)} {value!r}")
    return value


def _choices(path: Path, where: str, value: Any, default: Any) -> list[Any]:
    """The values to try for one key: a list of values, or a single value. For a
    list-valued setting (``groups``) a list of lists gives several values and a flat
    list one."""
    if isinstance(default, tuple):
        if not isinstance(value, list):
            raise _error(path, where, f"expected a list (or a list of lists), got {_type_name(value)}")
        nested = bool(value) and all(isinstance(v, list) for v in value)
        choices = [tuple(v) for v in value] if nested else [tuple(value)]
    else:
        choices = value if isinstance(value, list) else [value]
    if not choices:
        raise _error(path, where, "no values to try (empty list)")
    return [_coerce(path, where, v, default) for v in choices]


def _parse_data(path: Path, table: Any) -> DataSpec:
    if not isinstance(table, dict):
        raise _error(path, "data", "expected a table")
    known = {f.name for f in fields(DataSpec)}
    unknown = sorted(set(table) - known)
    if unknown:
        raise _error(path, "data", f"unknown key(s) {unknown}; known: {sorted(known)}")
    values = dict(table)
    if isinstance(values.get("train"), str):
        values["train"] = [values["train"]]
    defaults = DataSpec()
    spec = DataSpec(**{k: _coerce(path, f"data.{k}", v, getattr(defaults, k)) for k, v in values.items()})
    return check_data(path, spec)


def check_data(path: Path, spec: DataSpec) -> DataSpec:
    """``spec`` after checking folds, limit and splits (errors name ``path``)."""
    if spec.folds == 1 or spec.folds < 0:
        raise _error(path, "data.folds", f"must be 0 (train/eval split) or at least 2, not {spec.folds}")
    if spec.limit < 0:
        raise _error(path, "data.limit", f"must be 0 (all documents) or positive, not {spec.limit}")
    if not spec.train:
        raise _error(path, "data.train", "no training split")
    if spec.eval in spec.train:
        raise _error(path, "data.eval", f"split {spec.eval!r} is also a training split")
    return spec


def _check_features(path: Path, where: str, config: FeatureConfig) -> None:
    try:
        resources.featurizer(config).crf_items(Tokenizer()([_PROBE_TEXT]))
    except (ValueError, OSError) as exc:
        raise _error(path, where, f"{type(exc).__name__}: {exc}") from None


def _expand(
    path: Path, table: Any, where: str, base_features: dict[str, Any], tokenizer: TokenizerConfig
) -> list[GridPoint]:
    if not isinstance(table, dict):
        raise _error(path, where, "expected a table of parameter values")
    kind = table.get("kind", "crf")
    if kind not in KINDS:
        raise _error(path, f"{where}.kind", f"must be one of {sorted(KINDS)}, not {kind!r}")
    spec = KINDS[kind]
    defaults = spec.estimator().get_params(deep=False)
    axes: list[tuple[str, str, list[Any]]] = []  # (target, name, values)
    for name, value in table.items():
        if name in ("features", "kind"):
            continue
        if name in RUNNER_PARAMS:
            raise _error(path, f"{where}.{name}", f"not a grid parameter ({RUNNER_PARAMS[name]})")
        if name not in defaults:
            known = sorted(set(defaults) - set(RUNNER_PARAMS))
            raise _error(path, where, f"unknown {spec.estimator.__name__} parameter {name!r}; known: {known}")
        axes.append(("params", name, _choices(path, f"{where}.{name}", value, defaults[name])))
    own = table.get("features", {})
    if not isinstance(own, dict):
        raise _error(path, f"{where}.features", "expected a table of FeatureConfig fields")
    features = {**base_features, **own}
    preset = features.pop("preset", DEFAULT_PRESETS[kind])
    if preset not in FEATURE_PRESETS:
        raise _error(path, f"{where}.features.preset", f"must be one of {sorted(FEATURE_PRESETS)}, not {preset!r}")
    base = FEATURE_PRESETS[preset]()
    for name, value in features.items():
        if name not in {f.name for f in fields(FeatureConfig)}:
            known = sorted(f.name for f in fields(FeatureConfig))
            raise _error(path, f"{where}.features", f"unknown FeatureConfig field {name!r}; known: {known}")
        axes.append(("features", name, _choices(path, f"{where}.features.{name}", value, getattr(base, name))))

    points = []
    for combination in itertools.product(*(values for _, _, values in axes)):
        chosen = {"params": {}, "features": {}}
        for (target, name, _), value in zip(axes, combination, strict=True):
            chosen[target][name] = value
        point_features = replace(base, **chosen["features"])
        points.append(GridPoint(kind, chosen["params"], point_features, tokenizer, preset))
    return points


def parse_grid(path: Path, data: dict[str, Any]) -> GridConfig:
    """Expand a grid already read from ``path`` (errors name ``path``)."""
    unknown = sorted(set(data) - {"data", "tokenizer", "features", "model"})
    if unknown:
        raise _error(path, "", f"unknown table(s) {unknown}; expected data, tokenizer, features, model")
    spec = _parse_data(path, data.get("data", {}))
    try:
        tokenizer = RunConfig.from_dict({"tokenizer": data.get("tokenizer", {})}, str(path)).tokenizer
    except ValueError as exc:
        raise GridConfigError(str(exc)) from None
    base_features = data.get("features", {})
    if not isinstance(base_features, dict):
        raise _error(path, "features", "expected a table of FeatureConfig fields")
    tables = data.get("model")
    if tables is None:
        raise _error(path, "", "no [model] table: nothing to search")
    points: list[GridPoint] = []
    if isinstance(tables, list):
        for i, table in enumerate(tables):
            points.extend(_expand(path, table, f"model[{i}]", base_features, tokenizer))
    else:
        points.extend(_expand(path, tables, "model", base_features, tokenizer))
    checked: list[FeatureConfig] = []
    for point in points:
        if point.features not in checked:
            _check_features(path, "features", point.features)
            checked.append(point.features)
    return GridConfig(path, spec, _unique(points))


def _unique(points: list[GridPoint]) -> list[GridPoint]:
    """Points in order, each configuration once (sub-grids may overlap)."""
    seen: set[str] = set()
    out = []
    for point in points:
        key = json.dumps([point.kind, point.full_params()], sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(point)
    return out


def load_grid(path: str | Path, folds: int | None = None, limit: int | None = None) -> GridConfig:
    """Read and expand a TOML grid file; ``folds``/``limit`` override its ``[data]``."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise GridConfigError(f"{path}: cannot read grid file ({exc.strerror or type(exc).__name__})") from None
    except UnicodeDecodeError:
        raise GridConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise GridConfigError(f"{path}: not valid TOML ({exc})") from None
    grid = parse_grid(path, data)
    overrides = {k: v for k, v in (("folds", folds), ("limit", limit)) if v is not None}
    if overrides:
        grid.data = check_data(path, replace(grid.data, **overrides))
    return grid
