"""Text and gold spans built together, so that every offset is exact by construction.

A note is written as a sequence of *parts*: plain strings, :class:`Span` values (a
surface string and its MEDDOCAN type) and nested sequences of parts (a
:data:`Phrase`, what a value generator returns for composite things such as an
address: ``("C/ Mayor 3", ", ", "28004", " ", "Madrid")`` with the PHI pieces
as spans). :class:`NoteBuilder` appends parts and computes the offsets only when the
document is made, so a case change applied to a whole section (:func:`recase`)
can never shift an entity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple, TypeAlias

from deid_crf.text.document import Document, Entity


class Span(NamedTuple):
    """A PHI surface string and its MEDDOCAN type."""

    text: str
    type: str


Part: TypeAlias = "str | Span | Sequence[Part]"
Phrase = tuple[Part, ...]


def flatten(parts: Iterable[Part]) -> Iterator[str | Span]:
    """The strings and spans of ``parts`` in order, nested phrases opened."""
    for part in parts:
        if isinstance(part, (str, Span)):
            yield part
        else:
            yield from flatten(part)


def _recase_text(text: str, mode: str) -> str:
    if mode == "upper":
        new = text.upper()
    elif mode == "lower":
        new = text.lower()
    else:
        raise ValueError(f"unknown case mode {mode!r}")
    # A few characters change length when their case changes ("ß" → "SS"); such a
    # string keeps its case, so a span's surface stays a real word.
    return new if len(new) == len(text) else text


def recase(parts: Iterable[Part], mode: str) -> Phrase:
    """``parts`` in ``mode`` case (``"upper"`` or ``"lower"``), spans included: careless
    all-lower-case typing, ALL-CAPS headers."""
    out: list[Part] = []
    for part in flatten(parts):
        if isinstance(part, Span):
            out.append(Span(_recase_text(part.text, mode), part.type))
        else:
            out.append(_recase_text(part, mode))
    return tuple(out)


def plain(parts: Iterable[Part]) -> str:
    """The text of ``parts`` without the span information."""
    return "".join(p.text if isinstance(p, Span) else p for p in flatten(parts))


def check_span(span: Span) -> None:
    """A span's surface must be non-empty, without outer whitespace and on one line."""
    text = span.text
    if not text or text != text.strip() or "\n" in text or "\r" in text:
        raise ValueError(f"malformed {span.type} span of length {len(text)}")


class NoteBuilder:
    """Appends parts; :meth:`document` turns them into a :class:`Document`."""

    def __init__(self) -> None:
        self._pieces: list[str | Span] = []

    def add(self, *parts: Part) -> NoteBuilder:
        for piece in flatten(parts):
            if isinstance(piece, Span):
                check_span(piece)
                self._pieces.append(piece)
            elif piece:
                self._pieces.append(piece)
        return self

    def line(self, *parts: Part) -> NoteBuilder:
        """``parts`` followed by a line break."""
        return self.add(*parts, "\n")

    def blank(self) -> NoteBuilder:
        """End the current line and leave one empty line (never more than one)."""
        tail = self.tail(2)
        if not tail:
            return self
        if not tail.endswith("\n"):
            self._pieces.append("\n\n")
        elif not tail.endswith("\n\n"):
            self._pieces.append("\n")
        return self

    def recase_all(self, mode: str) -> NoteBuilder:
        """Every piece written so far in ``mode`` case (see :func:`recase`)."""
        self._pieces = list(flatten(recase(self._pieces, mode)))
        return self

    def rewrite_all(self, rewrite: Callable[[str], str]) -> NoteBuilder:
        """Every piece written so far passed through ``rewrite`` (accents dropped, typos):
        offsets are computed only in :meth:`document`, so a change of length is safe. A
        span whose rewritten surface would be malformed keeps its text."""
        pieces: list[str | Span] = []
        for piece in self._pieces:
            if isinstance(piece, Span):
                new = rewrite(piece.text)
                pieces.append(Span(new, piece.type) if new and new == new.strip() and "\n" not in new else piece)
            else:
                pieces.append(rewrite(piece))
        self._pieces = pieces
        return self

    def tail(self, n: int) -> str:
        """The last ``n`` characters written so far."""
        out = ""
        for piece in reversed(self._pieces):
            out = (piece.text if isinstance(piece, Span) else piece) + out
            if len(out) >= n:
                break
        return out[-n:]

    def document(self, doc_id: str) -> Document:
        """The text (outer blank lines trimmed, one final line break) and its entities."""
        pieces = list(self._pieces)
        while pieces and isinstance(pieces[0], str) and not pieces[0].strip():
            pieces.pop(0)
        while pieces and isinstance(pieces[-1], str) and not pieces[-1].strip():
            pieces.pop()
        if pieces and isinstance(pieces[0], str):
            pieces[0] = pieces[0].lstrip()
        if pieces and isinstance(pieces[-1], str):
            pieces[-1] = pieces[-1].rstrip()
        chunks: list[str] = []
        entities: list[Entity] = []
        offset = 0
        for piece in pieces:
            if isinstance(piece, Span):
                entities.append(Entity(offset, offset + len(piece.text), piece.type))
                chunks.append(piece.text)
                offset += len(piece.text)
            else:
                chunks.append(piece)
                offset += len(piece)
        chunks.append("\n")
        return Document(doc_id, "".join(chunks), entities)
