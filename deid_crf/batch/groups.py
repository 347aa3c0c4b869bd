"""Which patient group a document belongs to (``--group-by``), and the secret groups
are derived from (``--secret-file`` or ``$DEID_CRF_SECRET``).

A grouping is a function from a document to its group key, or None when it has none
(then the document is de-identified alone, as without ``--group-by``):

* ``regex:PATTERN``, or a bare ``PATTERN``: the first match of a regular expression
  with one capture group over the text, e.g. ``NHC:\\s*(\\d+)``;
* ``field:NAME``: a field of the JSON line (``--jsonl``), a string or an integer.

Only the group's tag (:meth:`deid_crf.deid.groups.GroupSecret.tag`) leaves this
module: the key, often a record number, is never stored, sent or logged.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from deid_crf.deid.groups import MIN_SECRET_BYTES, SECRET_ENV, SecretError
from deid_crf.io.names import shown

REGEX, FIELD = "regex", "field"


@dataclass(frozen=True)
class Document:
    """What a grouping may look at: the text and, for a JSON line, its fields."""

    text: str
    fields: Mapping[str, Any] | None = None


GroupKey = Callable[[Document], "str | None"]


class GroupingError(ValueError):
    """A ``--group-by`` value that cannot be used; the message says why."""


def parse_group_by(spec: str) -> tuple[str, str]:
    """``(kind, argument)`` of a ``--group-by`` value: ``("regex", pattern)`` or
    ``("field", name)``; :class:`GroupingError` if it cannot be used."""
    kind, _, rest = spec.partition(":")
    if kind == FIELD and rest:
        return FIELD, rest
    pattern = rest if kind == REGEX else spec
    try:
        groups = re.compile(pattern).groups
    except re.error as exc:
        raise GroupingError(f"--group-by: not a valid regular expression ({exc.msg} at position {exc.pos})") from None
    if groups != 1:
        raise GroupingError(
            f"--group-by: the regular expression needs exactly one capture group, the group key; it has {groups}"
        )
    return REGEX, pattern


def group_key_function(spec: str) -> GroupKey:
    """The grouping a ``--group-by`` value names (see the module's documentation)."""
    kind, argument = parse_group_by(spec)
    if kind == FIELD:

        def from_field(document: Document) -> str | None:
            value = (document.fields or {}).get(argument)
            if isinstance(value, bool) or not isinstance(value, str | int):
                return None
            return str(value).strip() or None

        return from_field
    pattern = re.compile(argument)

    def from_text(document: Document) -> str | None:
        match = pattern.search(document.text)
        value = match.group(1) if match is not None else None
        return (value.strip() or None) if value is not None else None

    return from_text


def load_secret(secret_file: str | os.PathLike | None, environ: Mapping[str, str] = os.environ) -> bytes:
    """The secret patient groups are derived from: the bytes of ``secret_file`` (one
    final line break dropped), else ``$DEID_CRF_SECRET``. :class:`SecretError`, naming
    the file but never quoting the secret, when there is none, when it is shorter than
    :data:`MIN_SECRET_BYTES` bytes, or when the file is not a regular file of this
    user that only they can read."""
    if secret_file is not None:
        try:
            fd = os.open(secret_file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise SecretError(f"{shown(secret_file)}: cannot read the secret file ({exc.strerror})") from None
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise SecretError(f"{shown(secret_file)}: the secret file is not a regular file")
            if st.st_uid != os.geteuid() or st.st_mode & 0o077:
                raise SecretError(
                    f"{shown(secret_file)}: the secret file must belong to you and be readable by you alone (chmod 600)"
                )
            secret = f.read(1 << 16)
        secret = secret.removesuffix(b"\n").removesuffix(b"\r")
        where = shown(secret_file)
    else:
        value = environ.get(SECRET_ENV)
        if not value:
            raise SecretError(
                f"--group-by needs a secret: --secret-file PATH or the environment variable {SECRET_ENV} "
                f"(at least {MIN_SECRET_BYTES} bytes, e.g. `openssl rand -hex 32`)"
            )
        secret, where = value.encode("utf-8", "surrogateescape"), f"${SECRET_ENV}"
    if len(secret) < MIN_SECRET_BYTES:
        raise SecretError(
            f"{where}: the secret is {len(secret)} bytes long; it needs at least {MIN_SECRET_BYTES} "
            "(e.g. `openssl rand -hex 32`)"
        )
    return secret
