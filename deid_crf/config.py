"""Every tunable setting of deid-crf, declared in one place.

The defaults reproduce the numbers documented in the README. Configs are plain
dataclasses so they serialise to the JSON saved next to a model.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

# Abbreviations after which a full stop does not end a sentence (compared lower-cased).
# Titles, address words and administrative abbreviations of Spanish; not units ("mg/dl."
# and "etc." often end a sentence).
DEFAULT_ABBREVIATIONS = tuple(
    """
    dr dra drs dras sr sra sres srta d dña dª prof profa lic ing avda av avd ctra crta urb c cl pza
    pl plza pº ps pso bº bda blq bl esc pta pt piso izq izqda izda dcha dch dcho drcha nº núm num
    apdo edif pol ptal sta sto sn km hosp univ dpto dep serv tel telf tfno fax ej aprox vs cf pág
    págs fig figs art col cp nhc ss gral edf ed cra carr hnos apto ada pa cdad nnal calle paseo
    avenida plaza
    """.split()
)


@dataclass
class TokenizerConfig:
    """How text is cut into tokens and sentences."""

    abbreviations: tuple[str, ...] = DEFAULT_ABBREVIATIONS
    # Split words glued at a lower→upper case join ("CuéllarNºCol" → "Cuéllar", "Nº", "Col").
    split_case_joins: bool = True


# The longest sentence the tokenizer makes: a longer run of tokens without a sentence
# end (a document without full stops or line breaks) is cut after every this many tokens.
# A sentence is one sequence for the CRF, decoded token by token (a 10 MiB line with no
# stop would be 2 M steps, minutes); MEDDOCAN's longest is 299 tokens (train), 156 (dev).
MAX_SENTENCE_TOKENS = 1000

POS_BACKENDS = ("builtin", "stanza")


@dataclass
class FeatureConfig:
    """Which feature groups are on and how wide the token window is."""

    # Groups computed for the centre token (names from ``deid_crf.features.registry``).
    groups: tuple[str, ...] = (
        "lower",
        "affixes",
        "shape",
        "flags",
        "patterns",
        "field_label",
        "line_position",
    )
    # Window half-width and the feature columns repeated at each non-zero offset.
    window: int = 2
    window_columns: tuple[str, ...] = ("w", "sshape", "s3", "f", "label")
    affix_lengths: tuple[int, ...] = (1, 2, 3, 4)
    # Window SVM only: append the centre token's fastText vector (unit length) as
    # dense columns, as Cotik et al. did; needs `make embeddings`.
    embedding_vectors: bool = False
    # Trained resources used by the "pos" group: built by `make pos-model`; a saved
    # tagger carries its own copy, so these paths matter only for training.
    pos_model: str = "models/pos"
    # Which tagger feeds the "pos" group (one of POS_BACKENDS): "builtin" is the model
    # above (fast, trained on the shared clinical + UD data, bundled into saved models);
    # "stanza" is the optional extra `deid-crf[stanza]` (deid_crf/pos_stanza.py), far
    # slower, whose model is not bundled (its torch files are pickles): a saved model
    # records the backend and package, and loading it needs stanza and that model.
    pos_backend: str = "builtin"
    stanza_dir: str = ""  # stanza resources directory; "" = $STANZA_RESOURCES_DIR or stanza's default
    stanza_package: str = "default"  # stanza's Spanish package ("default", "ancora"…)
    embeddings_model: str = "models/embeddings"  # `make embeddings`
    # None: the lists inside the installed `gazetteers` package (`make gazetteers`
    # builds the large ones there), wherever the command runs from.
    gazetteer_dir: str | None = None


def full_feature_config() -> FeatureConfig:
    """The full feature set, that of the default model (`make train-crf`): the core
    groups plus POS, gazetteers, embedding clusters and the document-level field label,
    each but the gazetteers also at the window positions. It needs `make pos-model
    embeddings gazetteers` (which `make train-crf` runs first). Dev NER F1 and speeds:
    README, "Results" and "Ablation on dev"."""
    core = FeatureConfig()
    return FeatureConfig(
        groups=core.groups + ("pos", "gazetteers", "embeddings", "document_label"),
        window_columns=core.window_columns + ("pos", "emb256", "doclabel"),
    )


def svm_feature_config() -> FeatureConfig:
    """Default features of the window SVM: tagging each token on its own, it needs more
    of the window than the CRF (dev NER F1 0.9273 with these columns vs 0.9190 with the
    CRF's, both decoded with BIO repair; `python -m deid_crf.train --kind svm`)."""
    return FeatureConfig(window_columns=("w", "sshape", "s3", "f", "label", "p3", "shape", "pat"))


# Named feature sets (``[features] preset = …``, ``python -m deid_crf.train --features NAME``);
# the default CRF (`make train-crf`) uses DEFAULT_PRESET.
FEATURE_PRESETS = {"core": FeatureConfig, "full": full_feature_config, "svm": svm_feature_config}
DEFAULT_PRESET = "full"

# Recall-first mode (``tag --recall-first P``, deid_crf.models.candidates): the candidates
# it proposes beside the CRF's best path (``tokens``: tokens with P(PHI) >= P that the best
# path left ``O``; ``spans``: spans whose probability of being exactly one entity of a type
# is >= P), and the longest candidate span in tokens (twice MEDDOCAN train's longest entity,
# 16 tokens; the search stops sooner wherever the span's prefix falls below P).
RECALL_FIRST_CANDIDATES = ("tokens", "spans")
MAX_CANDIDATE_SPAN_TOKENS = 32

# Distinct token strings whose summed type-level feature weights a tagging process keeps
# (``deid_crf.featurization.type_scores``): most tokens repeat, so a batch computes the
# features of a word once, not once per chunk. At 5 window offsets and 42 labels a string
# costs 1.7 kB (MEDDOCAN dev has 15,680 distinct strings); a full cache starts again empty.
TYPE_SCORES_MAX_TYPES = 50_000


def hyper_parameter(default: Any, doc: str) -> Any:
    """A config field whose default and meaning are declared together: the estimators
    that take it use the default, and their docstrings the meaning (:func:`documents`)."""
    return field(default=default, metadata={"doc": doc})


@dataclass
class CRFConfig:
    """Hyper-parameters of the linear-chain CRF: CRFsuite's L-BFGS training (the
    defaults of :class:`~deid_crf.models.crf_tagger.DeidTagger` and
    :class:`~deid_crf.models.crf.CRFModel`)."""

    # Chosen on dev (train on train): c1 ∈ {0.02, 0.03, 0.05, 0.1}, c2 ∈ {0.01, 0.05, 0.1}
    # all gave subtask-1 F1 0.957–0.959 for the model alone; 150 iterations was no better than
    # 100 and 1.7× slower. c2 then rose from 0.05 to 0.15: the shipped pipeline (model + rule
    # layer) with the full feature set was ahead with it on MEDDOCAN dev and on the notes'
    # three guide halves, the model staying under 15 MB (docs/results.md, "Regularisation for
    # notes in other formats"). c1 then rose from 0.03 to 0.1 when the hand-annotated training
    # notes joined the training data: at 0.03 and 0.05 the model grew to 16 MB, at 0.1 it is
    # 14.7 MB (docs/training-data.md, "Hand-annotated training notes").
    c1: float = hyper_parameter(
        0.1, "Coefficient of the L1 penalty of the CRF weights (CRFsuite L-BFGS, run as OWL-QN when c1 > 0)."
    )
    c2: float = hyper_parameter(0.15, "Coefficient of the L2 penalty of the CRF weights (CRFsuite L-BFGS).")
    max_iterations: int = hyper_parameter(100, "Maximum number of L-BFGS iterations of CRF training.")
    all_possible_transitions: bool = hyper_parameter(
        True,
        "Give the CRF a transition weight for every pair of labels, also pairs never seen "
        "in training, which it can then learn to penalize (CRFsuite feature.possible_transitions).",
    )
    min_freq: int = hyper_parameter(
        1, "Drop CRF attributes seen fewer times than this in training (CRFsuite feature.minfreq)."
    )


@dataclass
class SVMConfig:
    """Hyper-parameters of the window SVM
    (:class:`~deid_crf.models.svm.WindowSVMTagger`)."""

    n_features: int = hyper_parameter(
        2**20,
        "Columns of the hashed one-hot feature matrix (each attribute string is hashed to a "
        "column); featurization depends on it.",
    )
    C: float = hyper_parameter(
        0.1,
        "Inverse strength of the L2 penalty: liblinear's C for ``linear_svc`` and saga's for "
        "``logistic_regression``; ``sgd`` uses alpha = 1 / (C n_samples), the same objective.",
    )
    class_weight: str | None = hyper_parameter(
        None, "Weights of the label classes in the loss: None (all 1) or 'balanced' (all classifiers)."
    )
    max_iter: int = hyper_parameter(2000, "Maximum number of solver iterations (liblinear, SGD epochs or saga passes).")
    classifier: str = hyper_parameter(
        "linear_svc",
        "The linear classifier: 'linear_svc' (liblinear, squared hinge loss), 'sgd' (hinge loss, "
        "SGDClassifier) or 'logistic_regression' (saga, one multinomial model).",
    )
    decoder: str = hyper_parameter(
        "viterbi",
        "From token scores to BIO labels: 'viterbi' picks, per sentence, the valid BIO sequence "
        "with the largest summed decision score; 'repair' takes each token's best label and "
        "turns an orphan I-X into B-X (Cotik et al.).",
    )


@dataclass
class POSConfig:
    """Hyper-parameters of the built-in POS tagger
    (:class:`~deid_crf.resources.pos.PosTagger`): one liblinear ``LinearSVC`` per head."""

    n_features: int = hyper_parameter(
        2**18, "Columns of the hashed one-hot feature matrix (each attribute string is hashed to a column)."
    )
    C: float = hyper_parameter(0.1, "Inverse strength of the L2 penalty of each head's LinearSVC (liblinear).")
    max_iter: int = hyper_parameter(2000, "Maximum number of liblinear iterations of each head's LinearSVC.")


def from_params(config: Callable[..., T], params: Mapping[str, Any]) -> T:
    """The ``config`` dataclass with each of its fields taken from ``params`` (e.g. an
    estimator's ``get_params()``)."""
    return config(**{f.name: params[f.name] for f in fields(config)})


def _default_text(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1024 and value & (value - 1) == 0:
        return f"2**{value.bit_length() - 1}"
    return repr(value)


def parameters_doc(config: type, indent: str = "") -> str:
    """numpydoc ``Parameters`` entries for the fields of ``config``: name, type,
    default and the meaning declared with :func:`hyper_parameter`."""
    entries = []
    for f in fields(config):
        kind = str(f.type).replace(" | ", " or ")
        default = "" if f.default is MISSING else f", default={_default_text(f.default)}"
        body = textwrap.fill(
            f.metadata.get("doc", ""), width=88, initial_indent=indent + "    ", subsequent_indent=indent + "    "
        )
        entries.append(f"{indent}{f.name} : {kind}{default}\n{body}")
    return "\n".join(entries)


def documents(*configs: type) -> Callable[[T], T]:
    """Class decorator: each line ``{Name}`` of the class docstring, where ``Name`` is
    one of ``configs``, becomes the :func:`parameters_doc` entries of that config, so an
    estimator documents the hyper-parameters it takes from a config where they are declared."""

    def fill(cls: T) -> T:
        lines = []
        names = {f"{{{config.__name__}}}": config for config in configs}
        for line in (cls.__doc__ or "").split("\n"):
            config = names.pop(line.strip(), None)
            lines.append(line if config is None else parameters_doc(config, line[: len(line) - len(line.lstrip())]))
        if names:
            raise ValueError(f"{cls.__name__} docstring has no line {sorted(names)}")
        cls.__doc__ = "\n".join(lines)
        return cls

    return fill


# Declared ranges of the settings a config file can set (a saved model's config.json,
# a run's TOML): ``check_config`` refuses a value outside them before anything is built
# from it. Numbers: (lowest, highest); tuples: (fewest, most) items. The ranges are far
# wider than useful values, but bounded: a window of 10⁹ tokens or affixes of 10⁶
# characters would allocate without end.
LIMITS: dict[str, tuple[float, float]] = {
    "TokenizerConfig.abbreviations": (0, 10_000),
    "FeatureConfig.groups": (0, 32),
    "FeatureConfig.window": (0, 8),
    "FeatureConfig.window_columns": (0, 64),
    "FeatureConfig.affix_lengths": (0, 8),
    "CRFConfig.c1": (0, 1e6),
    "CRFConfig.c2": (0, 1e6),
    "CRFConfig.max_iterations": (1, 100_000),
    "CRFConfig.min_freq": (0, 1_000_000),
    "SVMConfig.n_features": (1, 2**26),
    "SVMConfig.C": (1e-12, 1e12),
    "SVMConfig.max_iter": (1, 1_000_000),
    "POSConfig.n_features": (1, 2**24),
    "POSConfig.C": (1e-12, 1e12),
    "POSConfig.max_iter": (1, 1_000_000),
}
# The items of these tuples: their type and range (of a number, or of a string's length).
ITEM_LIMITS: dict[str, tuple[type, float, float]] = {
    "TokenizerConfig.abbreviations": (str, 1, 40),
    "FeatureConfig.groups": (str, 1, 40),
    "FeatureConfig.window_columns": (str, 1, 40),
    "FeatureConfig.affix_lengths": (int, 1, 16),
}
# Strings a field may hold; other string fields (paths, package names) are at most
# MAX_STRING characters.
CHOICES: dict[str, tuple[Any, ...]] = {
    "FeatureConfig.pos_backend": POS_BACKENDS,
    "SVMConfig.class_weight": (None, "balanced"),
    "SVMConfig.classifier": ("linear_svc", "sgd", "logistic_regression"),
    "SVMConfig.decoder": ("viterbi", "repair"),
}
MAX_STRING = 4096


def check_config(config: Any, where: str = "config") -> Any:
    """``config`` (a config dataclass) if every field has the type of its default and
    lies in :data:`LIMITS`, :data:`ITEM_LIMITS` and :data:`CHOICES`; ``ValueError``
    naming ``where`` and the field otherwise."""
    defaults = type(config)()
    for f in fields(config):
        name, value, default = f"{type(config).__name__}.{f.name}", getattr(config, f.name), getattr(defaults, f.name)
        problem = _field_problem(name, value, default)
        if problem:
            raise ValueError(f"{where}: {f.name} {problem}")
    return config


def _field_problem(name: str, value: Any, default: Any) -> str | None:
    if name in CHOICES:
        return None if value in CHOICES[name] else f"must be one of {CHOICES[name]}, not {value!r:.60}"
    if value is None:
        return None if default is None else f"must be a {type(default).__name__}, not null"
    if isinstance(default, bool) or isinstance(value, bool):
        return None if isinstance(value, bool) and isinstance(default, bool) else f"must be {_kind(default)}"
    if isinstance(default, (int, float)):
        if not isinstance(value, int if isinstance(default, int) else (int, float)):
            return f"must be {_kind(default)}, not {type(value).__name__}"
        low, high = LIMITS.get(name, (-math.inf, math.inf))
        return None if math.isfinite(value) and low <= value <= high else f"must be from {low:g} to {high:g}"
    if isinstance(default, tuple):
        if not isinstance(value, tuple):
            return f"must be a list, not {type(value).__name__}"
        low, high = LIMITS.get(name, (0, math.inf))
        if not low <= len(value) <= high:
            return f"must have from {low:g} to {high:g} items, not {len(value)}"
        kind, least, most = ITEM_LIMITS[name]
        for item in value:
            if not isinstance(item, kind) or isinstance(item, bool):
                return f"must hold {kind.__name__} items, not {type(item).__name__}"
            size = len(item) if isinstance(item, str) else item
            if not least <= size <= most:
                what = "characters long" if kind is str else "in value"
                return f"items must be from {least:g} to {most:g} {what}"
        return None
    if not isinstance(value, str):
        return f"must be a string, not {type(value).__name__}"
    return None if len(value) <= MAX_STRING and "\0" not in value else "is not a usable string"


def _kind(default: Any) -> str:
    return "a boolean" if isinstance(default, bool) else "an integer" if isinstance(default, int) else "a number"


def _from_dict(cls: type, data: Any) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__} must be a JSON object, not {type(data).__name__}")
    known = {f.name for f in fields(cls)}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"unknown {cls.__name__} keys: {sorted(unknown)}")
    converted = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return check_config(cls(**converted), cls.__name__)


@dataclass
class TaggerConfig:
    """Everything that defines a trained tagger besides its learned weights."""

    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    features: FeatureConfig = field(default_factory=FeatureConfig)
    crf: CRFConfig = field(default_factory=CRFConfig)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaggerConfig:
        return cls(
            tokenizer=_from_dict(TokenizerConfig, data.get("tokenizer", {})),
            features=_from_dict(FeatureConfig, data.get("features", {})),
            crf=_from_dict(CRFConfig, data.get("crf", {})),
        )


MODEL_KINDS = ("crf", "svm")
# The feature set each model kind starts from when a config names no preset.
DEFAULT_PRESETS = {"crf": DEFAULT_PRESET, "svm": "svm"}


@dataclass(frozen=True)
class DataConfig:
    """``[data]``: which MEDDOCAN splits train and score a model."""

    train: tuple[str, ...] = ("train",)
    eval: str = "dev"  # "none": no evaluation
    folds: int = 0  # grid search only: >= 2 for K-fold cross-validation over train + eval
    limit: int = 0  # at most this many documents of each split; 0 = all
    seed: int = 0  # shuffling of the folds
    # Augmented training data (deid_crf.augment), added to the training documents only,
    # never to the evaluation split; the same augment_seed gives the same documents.
    rewrite: float = 0.0  # surrogate-rewritten copies per training document (0.5: half of them get one)
    synthetic: int = 0  # synthetic notes in other formats (deid_crf.augment.synthetic)
    # "base", "extended" or "running" (deid_crf.augment.synthetic.FORMAT_SETS): neither
    # the extended nor the running set won on every notes half (docs/training-data.md),
    # so neither is the default
    synthetic_formats: str = "base"
    # hand-annotated training notes (deid_crf.augment.notes): 0 = off, N = each note once
    # as written and N - 1 rewritten copies; notes_dir "" = the project's training/notes/markup
    notes: int = 0
    notes_dir: str = ""
    augment_seed: int = 0


@dataclass
class ModelConfig:
    """``[model]``: the estimator kind and the hyper-parameters set explicitly (names of
    the estimator's ``get_params()``; the others keep the estimator's defaults)."""

    kind: str = "crf"
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunConfig:
    """Everything that reproduces a trained model, in one schema: the TOML tables
    ``[tokenizer]``, ``[features]``, ``[model]`` and ``[data]``. A grid file is the same
    schema with lists of values (``deid_crf.experiments.grid_config``), and a saved
    model's ``config.json`` holds this config under ``"config"``, so that
    ``python -m deid_crf.train --config MODEL_DIR/config.json`` trains it again."""

    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    features: FeatureConfig = field(default_factory=full_feature_config)
    model: ModelConfig = field(default_factory=ModelConfig)
    data: DataConfig = field(default_factory=DataConfig)

    def to_dict(self) -> dict[str, Any]:
        model = {"kind": self.model.kind, **self.model.params}
        return {
            "tokenizer": asdict(self.tokenizer),
            "features": asdict(self.features),
            "model": {k: list(v) if isinstance(v, tuple) else v for k, v in model.items()},
            "data": asdict(self.data),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "config") -> RunConfig:
        """Parse the four tables (each optional). ``[features]`` may name a ``preset``
        (``core``, ``full``, ``svm``) that its other keys then change; without one the
        model kind's default feature set is used. Errors name ``source`` and the key."""
        if not isinstance(data, dict):
            raise ValueError(f"{source}: expected a table of tables")
        unknown = sorted(set(data) - {"tokenizer", "features", "model", "data"})
        if unknown:
            raise ValueError(f"{source}: unknown table(s) {unknown}; expected tokenizer, features, model, data")
        model_table = dict(_table(data, "model", source))
        kind = model_table.pop("kind", "crf")
        if kind not in MODEL_KINDS:
            raise ValueError(f"{source}: model.kind must be one of {MODEL_KINDS}, not {kind!r}")
        features_table = dict(_table(data, "features", source))
        preset = features_table.pop("preset", DEFAULT_PRESETS[kind])
        if preset not in FEATURE_PRESETS:
            raise ValueError(f"{source}: features.preset must be one of {sorted(FEATURE_PRESETS)}, not {preset!r}")
        data_table = dict(_table(data, "data", source))
        if isinstance(data_table.get("train"), str):
            data_table["train"] = [data_table["train"]]
        return cls(
            tokenizer=check_config(
                _fields(TokenizerConfig(), _table(data, "tokenizer", source), f"{source}: tokenizer"),
                f"{source}: tokenizer",
            ),
            features=check_config(
                _fields(FEATURE_PRESETS[preset](), features_table, f"{source}: features"), f"{source}: features"
            ),
            model=ModelConfig(kind, {k: tuple(v) if isinstance(v, list) else v for k, v in model_table.items()}),
            data=_fields(DataConfig(), data_table, f"{source}: data"),
        )


def _table(data: dict[str, Any], name: str, source: str) -> dict[str, Any]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ValueError(f"{source}: [{name}] must be a table")
    return table


def _fields(base: Any, values: dict[str, Any], where: str) -> Any:
    """``base`` (a dataclass) with ``values`` replaced, each checked against the type of
    the field's current value (an int is accepted for a float; lists become tuples)."""
    known = {f.name for f in fields(base)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; known: {sorted(known)}")
    changes = {}
    for name, value in values.items():
        current = getattr(base, name)
        if isinstance(value, list):
            value = tuple(value)
        if isinstance(current, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if current is not None and value is not None:
            if isinstance(value, bool) != isinstance(current, bool) or not isinstance(value, type(current)):
                raise ValueError(f"{where}.{name}: expected {type(current).__name__}, got {type(value).__name__}")
        changes[name] = value
    return replace(base, **changes)


def data_dir() -> Path:
    """Where the shared corpora live: ``$DEID_CRF_DATA_DIR``, else ``../shared/data``
    relative to the current directory (the layout of a checkout)."""
    return Path(os.environ.get("DEID_CRF_DATA_DIR", "../shared/data"))


def default_model_dir() -> Path:
    """Where ``make train-crf`` saves and ``deid_crf.tag`` looks for the model:
    ``$DEID_CRF_MODEL_DIR``, else ``models/crf`` relative to the current directory."""
    return Path(os.environ.get("DEID_CRF_MODEL_DIR", "models/crf"))


def default_cache_dir() -> Path:
    """Where the grid search caches featurized training data: ``$DEID_CRF_CACHE_DIR``,
    else ``.cache/deid-crf`` relative to the current directory (git-ignored)."""
    return Path(os.environ.get("DEID_CRF_CACHE_DIR", ".cache/deid-crf"))


def pattern_cache_dir() -> Path | None:
    """Where compiled regular expressions are kept between runs
    (:mod:`deid_crf.io.pattern_cache`): ``$DEID_CRF_PATTERN_CACHE`` (``off`` for
    nowhere), else ``$XDG_CACHE_HOME/deid-crf``, else ``~/.cache/deid-crf``."""
    chosen = os.environ.get("DEID_CRF_PATTERN_CACHE", "")
    if chosen.lower() in ("off", "0", "no", "false"):
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "deid-crf"
