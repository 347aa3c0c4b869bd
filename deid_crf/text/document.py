"""Documents and their entities: the unit every layer passes around."""

from __future__ import annotations

from dataclasses import dataclass, field

# Every character at which ``str.splitlines`` breaks a line. The tokenizer ends a line
# (and a sentence) at each of them, so no entity ever holds one.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# What no entity span holds: a line break, or the tab that separates BRAT's fields;
# an entity the model or a rule would stretch over one is cut there.
SPAN_BREAKS = LINE_BREAKS + "\t"


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
