"""Patient groups: one patient's documents de-identified as one record.

Within a group (the documents that share a group key, such as the patient's record
number) the same original value always gets the same surrogate, every date moves by
the same number of days, and a name found in one document is searched for in all of
them. Everything a group draws is derived from a secret with HMAC-SHA256:

* the group's **tag** (:meth:`GroupSecret.tag`), which names the group in the key file
  and in work items: the group key itself (often PHI) is never stored or sent;
* its **date shift** (:meth:`GroupSecret.date_shift`), ±1…365 days, never 0;
* the seed of each **value's** draws (:meth:`GroupSecret.seed`): a value's surrogate
  depends on the secret, the group and the value, not on the other documents or the
  order they come in. Two values that would draw the same surrogate are told apart by
  drawing again, in a fixed order (documents by id, spans in text order).

So a later batch with the same secret gives the same surrogates and shift; with the
same key file, it also reuses the exact mapping of earlier batches
(:class:`GroupMemory`, read by :func:`deid_crf.batch.keys.group_memories`) and searches
its documents for the names found in earlier ones.

The secret itself is never stored; the key file holds only :meth:`GroupSecret.check`,
an HMAC that tells whether a later run uses the same secret.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from deid_crf.deid.surrogates import DEFAULT_KEEP, MAX_SHIFT_DAYS, DocumentSurrogates, Vocabulary, normalize

# 32 bytes: e.g. `openssl rand -hex 16` (32 hex characters, 128 bits) or more.
MIN_SECRET_BYTES = 32
SECRET_ENV = "DEID_CRF_SECRET"


class SecretError(ValueError):
    """A missing or unusable secret; the message never quotes it."""


class GroupSecret:
    """The run's secret key and what is derived from it (HMAC-SHA256). ``repr``
    never shows the key."""

    def __init__(self, secret: bytes):
        if len(secret) < MIN_SECRET_BYTES:
            raise SecretError(
                f"the secret is {len(secret)} bytes long; it needs at least {MIN_SECRET_BYTES} "
                "(e.g. the output of `openssl rand -hex 32`)"
            )
        self._key = bytes(secret)

    def __repr__(self) -> str:
        return "GroupSecret(<hidden>)"

    def _mac(self, *parts: str) -> bytes:
        message = "\0".join(("deid-crf", *parts)).encode("utf-8", "surrogatepass")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def tag(self, group_key: str) -> str:
        """The group's name wherever it is stored or sent: 32 hex digits."""
        return self._mac("group", group_key).hex()[:32]

    def check(self) -> str:
        """16 hex digits that tell one secret from another, without revealing it."""
        return self._mac("secret check").hex()[:16]

    def date_shift(self, tag: str) -> int:
        """The group's date shift in days: ±1…:data:`MAX_SHIFT_DAYS`."""
        digest = self._mac("date shift", tag)
        magnitude = 1 + int.from_bytes(digest[:8], "big") % MAX_SHIFT_DAYS
        return magnitude if digest[8] & 1 else -magnitude

    def seed(self, tag: str, *parts: str) -> int:
        """A 64-bit seed for the draws of one value of the group."""
        return int.from_bytes(self._mac("draw", tag, *parts)[:8], "big")


@dataclass
class GroupMemory:
    """What earlier batches decided for one group, as the key file records it: name
    parts (normalised original → surrogate), other values ((kind, normalised
    original) → surrogate), and the names found (original string → type), searched
    for in this batch's documents of the group."""

    parts: dict[str, str] = field(default_factory=dict, repr=False)
    values: dict[tuple[str, str], str] = field(default_factory=dict, repr=False)
    names: dict[str, str] = field(default_factory=dict, repr=False)

    def update(self, other: GroupMemory) -> None:
        self.parts.update(other.parts)
        self.values.update(other.values)
        for name, type_ in other.names.items():
            self.names.setdefault(name, type_)


class GroupSurrogates(DocumentSurrogates):
    """:class:`~deid_crf.deid.surrogates.DocumentSurrogates` shared by the documents of
    one group: the group's date shift, each value drawn from a seed of its own
    (:meth:`GroupSecret.seed`), the mapping of earlier batches (``memory``) reused.
    :attr:`used` collects the entries the current document used (for its key record);
    :meth:`start_document` empties it."""

    def __init__(
        self,
        secret: GroupSecret,
        tag: str,
        memory: GroupMemory | None = None,
        vocabulary: Vocabulary | None = None,
        keep: Iterable[str] = DEFAULT_KEEP,
        placeholder: Callable[[str, str], str] = lambda type_, text: f"[{type_}]",
        avoid: Iterable[str] = (),
    ):
        super().__init__(secret.seed(tag, "start"), None, vocabulary, keep, placeholder, avoid)
        self._secret, self.tag = secret, tag
        self.date_shift_days = secret.date_shift(tag)
        if memory is not None:
            self._parts.update(memory.parts)
            self._values.update(memory.values)
        # Every surrogate handed out, so that a new value never takes one (the same
        # set whether the mapping was drawn in this run or read from the key file).
        self._used = {normalize(v) for v in (*self._parts.values(), *self._values.values())}
        self.used = GroupMemory()

    def start_document(self) -> None:
        self.used = GroupMemory()

    def _reseed(self, *parts: str) -> None:
        self.rng.seed(self._secret.seed(self.tag, *parts))  # (and a Faker's, the same object)

    def _cached(self, kind: str, original: str, make: Callable[[], str]) -> str:
        key = (kind, normalize(original))
        if key not in self._values:
            self._reseed("value", *key)
            self._values[key] = make()
            self._used.add(normalize(self._values[key]))
        self.used.values[key] = self._values[key]
        return super()._cached(kind, original, make)

    def _name_part(self, word: str, given: bool) -> str:
        key = normalize(word)
        if key not in self._parts:
            self._reseed("name part", key)
        out = super()._name_part(word, given)
        self.used.parts[key] = self._parts[key]
        return out

    def replace(self, text: str, type_: str, before: str = "") -> str:
        # Draws not tied to a cached value (street numbers, an impossible date's
        # digits) come from the span's own seed, whatever came before it.
        self._reseed("span", type_, normalize(text))
        return super().replace(text, type_, before)
