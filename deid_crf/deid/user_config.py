"""A user's configuration of the de-identifier: one TOML file (``tag --config FILE``).

* ``[[allow]]``: words and regular expressions that are never PHI (drug names, the
  hospital's own departments): a span whose whole text is one of them is dropped;
  ``types`` limits an entry to some entity types (default: all).
* ``[[deny]]``: words and regular expressions that are always PHI of ``type`` (the
  hospital's staff list, local id formats): their spans win over every other.
* ``[[recognizers]]``: a regular expression of one ``type``, with an optional
  check-digit ``validator`` (``phonenumbers``, or a python-stdnum module such as
  ``es.dni``, ``es.nie``, ``iban``) and optional ``context`` words, one of which must
  stand among the ``context_window`` word tokens before a match (presidio's
  ``PatternRecognizer``). Their spans merge with the model's as the built-in
  recognizers' do.
* ``[actions]``: entity type → ``mask``, ``surrogate``, ``keep`` or ``hash`` (a keyed
  HMAC-SHA256 of the value, short hex, with the secret of ``[hash]``), in the masked
  and surrogate formats; other types follow the format.
* ``[thresholds]``: entity type → the lowest mean confidence at which a model span
  of that type is kept.
* ``[hash]``: ``secret_file`` (relative to the configuration file) or ``secret_env``
  (an environment variable) holding the HMAC secret, and the hex ``length``.

Everything is checked when the file is read: an unknown key, a value of the wrong
type, a bad regular expression, an unknown entity type or validator is a
:class:`ConfigError` naming the file and the key (never a value of the file, which
may be PHI: a staff list). docs/user-config.md documents the schema with an example.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from deid_crf.deid.deidentifier import ACTIONS, HASH
from deid_crf.deid.recognizers.user import PatternRecognizer, validator, word_pattern
from deid_crf.deid.rules import Recognizer, RuleLayer
from deid_crf.io.markup import MEDDOCAN_TYPES
from deid_crf.io.names import shown

DEFAULT_CONTEXT_WINDOW = 5
DEFAULT_HASH_LENGTH = 12
MIN_SECRET_BYTES = 16


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file and key."""


@dataclass(frozen=True)
class AllowEntry:
    words: frozenset[str]
    patterns: tuple[re.Pattern[str], ...]
    types: frozenset[str] | None  # None: every type
    ignore_case: bool

    def allows(self, type_: str, value: str) -> bool:
        if self.types is not None and type_ not in self.types:
            return False
        if (value.casefold() if self.ignore_case else value) in self.words:
            return True
        return any(p.fullmatch(value) for p in self.patterns)


@dataclass(frozen=True)
class UserConfig:
    """What a configuration file declares (see the module docstring)."""

    allow: tuple[AllowEntry, ...] = ()
    deny: tuple[PatternRecognizer, ...] = ()
    recognizers: tuple[tuple[str, PatternRecognizer], ...] = ()  # (name, recognizer)
    actions: dict[str, str] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=dict)
    secret_file: Path | None = None
    secret_env: str | None = None
    hash_length: int = DEFAULT_HASH_LENGTH

    def allows(self, type_: str, value: str) -> bool:
        """Whether ``value``, found as ``type_``, is on the allow list."""
        return any(entry.allows(type_, value) for entry in self.allow)

    @property
    def needs_secret(self) -> bool:
        return HASH in self.actions.values()


# -------------------------------------------------------------------- reading and checking


class _Checker:
    """Type checks that raise :class:`ConfigError` naming the file and the key."""

    def __init__(self, name: str):
        self.name = name

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.name}: {key}: {problem}")

    def table(self, value: Any, key: str, allowed: Iterable[str], required: Iterable[str] = ()) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a table, not {_kind(value)}")
        allowed = tuple(allowed)
        for k in value:
            if k not in allowed:
                raise self.fail(f"{key}.{k}" if key else k, f"unknown key; expected one of {', '.join(allowed)}")
        for k in required:
            if k not in value:
                raise self.fail(f"{key}.{k}" if key else k, "missing (required)")
        return value

    def tables(self, value: Any, key: str) -> list[dict[str, Any]]:
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, f"must be an array of tables ([[{key}]]), not {_kind(value)}")
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(key, f"must be a non-empty string, not {_kind(value)}")
        return value

    def strings(self, value: Any, key: str) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(key, "must be an array of non-empty strings")
        return value

    def boolean(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {_kind(value)}")
        return value

    def integer(self, value: Any, key: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(key, f"must be an integer from {low} to {high}")
        return value

    def entity_type(self, value: Any, key: str) -> str:
        value = self.string(value, key)
        if value not in MEDDOCAN_TYPES:
            raise self.fail(key, f"unknown entity type {value[:60]!r}; known: {', '.join(sorted(MEDDOCAN_TYPES))}")
        return value

    def regex(self, value: Any, key: str, ignore_case: bool) -> re.Pattern[str]:
        value = self.string(value, key)
        try:
            pattern = re.compile(value, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:  # its message and position, not the pattern
            raise self.fail(key, f"invalid regular expression ({exc.msg} at position {exc.pos})") from None
        if pattern.fullmatch(""):
            raise self.fail(key, "the regular expression matches the empty string")
        return pattern


def _kind(value: Any) -> str:
    names = {dict: "a table", list: "an array", str: "a string", bool: "a boolean"}
    return names.get(type(value), type(value).__name__)


def parse_user_config(source: str, name: str, base_dir: Path | None = None) -> UserConfig:
    """The configuration in the TOML text ``source`` (from the file ``name``, whose
    folder ``base_dir`` relative secret files are found in); :class:`ConfigError`."""
    check = _Checker(name)
    try:
        data = tomllib.loads(source)
    except tomllib.TOMLDecodeError as exc:  # "… (at line L, column C)": no file content
        raise ConfigError(f"{name}: not valid TOML ({exc})") from None
    check.table(data, "", ("allow", "deny", "recognizers", "actions", "thresholds", "hash"))

    allow = []
    for i, entry in enumerate(check.tables(data.get("allow", []), "allow")):
        key = f"allow[{i}]"
        check.table(entry, key, ("words", "patterns", "types", "ignore_case"))
        ignore_case = check.boolean(entry.get("ignore_case", False), f"{key}.ignore_case")
        words = check.strings(entry.get("words", []), f"{key}.words")
        patterns = [
            check.regex(p, f"{key}.patterns[{j}]", ignore_case)
            for j, p in enumerate(check.strings(entry.get("patterns", []), f"{key}.patterns"))
        ]
        types = None
        if "types" in entry:
            listed = check.strings(entry["types"], f"{key}.types")
            types = frozenset(check.entity_type(t, f"{key}.types") for t in listed)
        if not words and not patterns:
            raise check.fail(key, "needs words or patterns")
        folded = frozenset(w.casefold() for w in words) if ignore_case else frozenset(words)
        allow.append(AllowEntry(folded, tuple(patterns), types, ignore_case))

    deny = []
    for i, entry in enumerate(check.tables(data.get("deny", []), "deny")):
        key = f"deny[{i}]"
        check.table(entry, key, ("type", "words", "patterns", "ignore_case"), required=("type",))
        type_ = check.entity_type(entry["type"], f"{key}.type")
        ignore_case = check.boolean(entry.get("ignore_case", False), f"{key}.ignore_case")
        words = check.strings(entry.get("words", []), f"{key}.words")
        patterns = check.strings(entry.get("patterns", []), f"{key}.patterns")
        if not words and not patterns:
            raise check.fail(key, "needs words or patterns")
        if words:
            deny.append(PatternRecognizer(type_, word_pattern(words, ignore_case)))
        deny.extend(
            PatternRecognizer(type_, check.regex(p, f"{key}.patterns[{j}]", ignore_case))
            for j, p in enumerate(patterns)
        )

    recognizers = []
    names: set[str] = set()
    for i, entry in enumerate(check.tables(data.get("recognizers", []), "recognizers")):
        key = f"recognizers[{i}]"
        fields = ("name", "type", "pattern", "validator", "context", "context_window", "ignore_case")
        check.table(entry, key, fields, required=("name", "type", "pattern"))
        name_ = check.string(entry["name"], f"{key}.name")
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name_):
            raise check.fail(f"{key}.name", "use 1 to 64 letters, digits, '_', '.' or '-'")
        if name_ in names:
            raise check.fail(f"{key}.name", f"another recognizer is named {name_!r}")
        names.add(name_)
        ignore_case = check.boolean(entry.get("ignore_case", False), f"{key}.ignore_case")
        check_digits = None
        if "validator" in entry:
            try:
                check_digits = validator(check.string(entry["validator"], f"{key}.validator"))
            except ValueError as exc:
                raise check.fail(f"{key}.validator", str(exc)) from None
        context = check.strings(entry.get("context", []), f"{key}.context")
        if any(not re.fullmatch(r"\w+", word) for word in context):
            raise check.fail(f"{key}.context", "each context word must be one word (letters and digits)")
        window = check.integer(entry.get("context_window", DEFAULT_CONTEXT_WINDOW), f"{key}.context_window", 1, 50)
        recognizer = PatternRecognizer(
            check.entity_type(entry["type"], f"{key}.type"),
            check.regex(entry["pattern"], f"{key}.pattern", ignore_case),
            check_digits,
            frozenset(word.lower() for word in context),
            window,
        )
        recognizers.append((name_, recognizer))

    actions = {}
    for type_, action in check.table(data.get("actions", {}), "actions", sorted(MEDDOCAN_TYPES)).items():
        if action not in ACTIONS:
            raise check.fail(f"actions.{type_}", f"must be one of {', '.join(ACTIONS)}")
        actions[type_] = action

    thresholds = {}
    for type_, value in check.table(data.get("thresholds", {}), "thresholds", sorted(MEDDOCAN_TYPES)).items():
        number_ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number_ok or not math.isfinite(value) or not 0.0 <= value <= 1.0:
            raise check.fail(f"thresholds.{type_}", "must be a number from 0 to 1")
        thresholds[type_] = float(value)

    hash_table = check.table(data.get("hash", {}), "hash", ("secret_file", "secret_env", "length"))
    secret_file = secret_env = None
    if "secret_file" in hash_table:
        secret_file = Path(check.string(hash_table["secret_file"], "hash.secret_file"))
        if not secret_file.is_absolute() and base_dir is not None:
            secret_file = base_dir / secret_file
    if "secret_env" in hash_table:
        secret_env = check.string(hash_table["secret_env"], "hash.secret_env")
    if secret_file is not None and secret_env is not None:
        raise check.fail("hash", "give secret_file or secret_env, not both")
    length = check.integer(hash_table.get("length", DEFAULT_HASH_LENGTH), "hash.length", 8, 64)
    config = UserConfig(
        tuple(allow), tuple(deny), tuple(recognizers), actions, thresholds, secret_file, secret_env, length
    )
    if config.needs_secret and secret_file is None and secret_env is None:
        raise check.fail("hash", "the hash action needs a secret: set hash.secret_file or hash.secret_env")
    return config


def read_user_config(path: str | os.PathLike) -> tuple[UserConfig, str]:
    """The configuration in the file ``path`` and its text; :class:`ConfigError`."""
    path = Path(path)
    try:
        source = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"{shown(path)}: cannot read ({exc.strerror or type(exc).__name__})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{shown(path)}: not UTF-8 text") from None
    return parse_user_config(source, shown(path), path.parent), source


def load_secret(config: UserConfig, name: str) -> bytes:
    """The HMAC secret the configuration points at (``b""`` when it needs none);
    :class:`ConfigError` naming the file or variable, never the secret."""
    if config.secret_file is None and config.secret_env is None:
        return b""
    if config.secret_file is not None:
        try:
            secret = config.secret_file.read_bytes().strip()
        except OSError as exc:
            where = shown(config.secret_file)
            raise ConfigError(f"{name}: hash.secret_file: cannot read {where} ({exc.strerror})") from None
    else:
        assert config.secret_env is not None
        secret = os.environ.get(config.secret_env, "").strip().encode()
        if not secret:
            raise ConfigError(f"{name}: hash.secret_env: the variable {config.secret_env} is not set")
    if len(secret) < MIN_SECRET_BYTES:
        raise ConfigError(f"{name}: hash: the secret must be at least {MIN_SECRET_BYTES} bytes")
    return secret


def hasher(secret: bytes, length: int = DEFAULT_HASH_LENGTH) -> Callable[[str, str], str]:
    """``(type, value) -> hex``: the first ``length`` hex digits of HMAC-SHA256 of the
    type and the value under ``secret``; the same value of the same type always gets
    the same digits, and without the secret they cannot be linked back to it."""

    def digest(type_: str, value: str) -> str:
        message = f"{type_}\0{' '.join(value.split())}".encode()
        return hmac.new(secret, message, hashlib.sha256).hexdigest()[:length]

    return digest


def with_user_config(layer: RuleLayer, config: UserConfig) -> RuleLayer:
    """``layer`` with the configuration's recognizers, deny list, thresholds and allow list."""
    extra = [Recognizer(f"user:{name}", (r.type,), r.find, "user recognizer") for name, r in config.recognizers]
    deny = [Recognizer(f"deny:{i}", (r.type,), r.find, "user deny list") for i, r in enumerate(config.deny)]
    return replace(
        layer,
        extra=(*layer.extra, *extra),
        deny=(*layer.deny, *deny),
        thresholds={**layer.thresholds, **config.thresholds},
        allow=config.allows if config.allow else layer.allow,
    )
