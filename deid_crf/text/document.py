"""Documents and their entities: the unit every layer passes around."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Entity:
    """A typed character span ``[start, end)`` of a document's text."""

    start: int
    end: int
    type: str


@dataclass
class Document:
    """A text with its identifier and (gold or predicted) entities."""

    doc_id: str
    text: str
    entities: list[Entity] = field(default_factory=list)
