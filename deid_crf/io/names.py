"""How file names appear in messages and logs.

A file name is the one piece of a message that comes from outside: it may hold a
line break that would forge a log line, terminal escapes, or a patient's name. So
every message names a file through :func:`shown`:

* control, format and line/paragraph-separator characters (Unicode categories Cc,
  Cf, Zl, Zp) and the backslash are escaped (``\\n``, ``\\x1b``, ``\\u2028``,
  ``\\\\``), so that a message is always one line and reads back unambiguously;
* with :func:`redact_paths` on (``--redact-paths``), a name becomes ``file:`` and 12
  hex digits of an HMAC-SHA256 of it under a key drawn for the run: the same file has
  the same tag in every message of a run (its workers get the key), and a name cannot
  be found back by hashing guesses.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import unicodedata

_ESCAPED = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_key: bytes | None = None


def redact_paths(key: bytes | None) -> None:
    """Show file names as keyed hashes from now on in this process (None: as escaped names)."""
    global _key
    _key = key


def redacting() -> bytes | None:
    """The key names are hashed with in this process, or None."""
    return _key


def escape(text: str, backslash: bool = True) -> str:
    """``text`` with control, format and line-separator characters and (unless
    ``backslash`` is False) ``\\`` escaped."""
    if text.isprintable() and not (backslash and "\\" in text):
        return text
    return "".join(_escape_char(c, backslash) for c in text)


def _escape_char(c: str, backslash: bool) -> str:
    if c == "\\" and not backslash:
        return c
    if c in _ESCAPED:
        return _ESCAPED[c]
    if unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp", "Cs"):
        return c
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(path: str | os.PathLike) -> str:
    """``path`` as messages show it: escaped, or its keyed hash when names are redacted."""
    name = os.fspath(path)
    if _key is None:
        return escape(name)
    if name in ("-", "<stdin>"):
        return name
    digest = hmac.new(_key, os.fsencode(name), hashlib.sha256).hexdigest()
    return f"file:{digest[:12]}"


class OneLine(logging.Filter):
    """Escape what would break a log line in a whole message: the last guard, after
    the names each message escapes (:func:`shown`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not message.isprintable():
            record.msg, record.args = escape(message, backslash=False), ()
        return True
