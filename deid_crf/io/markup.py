"""Inline-markup documents → BRAT standoff, with offsets computed, never typed by hand.

A markup document is plain text in which every PHI mention is written as
``{{TYPE|surface text}}``; converting it removes the braces and records the surface's exact
character offsets in the clean text. Hand-written evaluation notes and generated training notes
are both written this way, so no offset is ever counted by a person.

Only the markup is kept in the repository; the BRAT files are generated from it::

    python -m deid_crf.io.markup SRC_DIR OUT_DIR     # every SRC_DIR/*.md → OUT_DIR/*.txt + *.ann
    make notes-brat                                  # evaluation/notes/markup → evaluation/notes/brat
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from deid_crf.text.document import Document, Entity

#: The MEDDOCAN entity types (BRAT spelling, without accents), from the annotation guidelines.
MEDDOCAN_TYPES = frozenset(
    {
        "NOMBRE_SUJETO_ASISTENCIA",
        "EDAD_SUJETO_ASISTENCIA",
        "SEXO_SUJETO_ASISTENCIA",
        "FAMILIARES_SUJETO_ASISTENCIA",
        "NOMBRE_PERSONAL_SANITARIO",
        "FECHAS",
        "PROFESION",
        "HOSPITAL",
        "CENTRO_SALUD",
        "INSTITUCION",
        "CALLE",
        "TERRITORIO",
        "PAIS",
        "NUMERO_TELEFONO",
        "NUMERO_FAX",
        "CORREO_ELECTRONICO",
        "ID_SUJETO_ASISTENCIA",
        "ID_CONTACTO_ASISTENCIAL",
        "ID_ASEGURAMIENTO",
        "ID_TITULACION_PERSONAL_SANITARIO",
        "ID_EMPLEO_PERSONAL_SANITARIO",
        "IDENTIF_VEHICULOS_NRSERIE_PLACAS",
        "IDENTIF_DISPOSITIVOS_NRSERIE",
        "DIREC_PROT_INTERNET",
        "URL_WEB",
        "IDENTIF_BIOMETRICOS",
        "NUMERO_IDENTIF",
        "OTROS_SUJETO_ASISTENCIA",
    }
)

_MENTION = re.compile(r"\{\{([A-Z_]+)\|([^{}|]*)\}\}")


class MarkupError(ValueError):
    """A markup document that cannot be converted; the message names the position, not the text."""


def parse_markup(markup: str, source: str = "<markup>") -> tuple[str, list[tuple[int, int, str]]]:
    """Return the clean text and its ``(start, end, type)`` spans, in order of appearance."""
    pieces: list[str] = []
    spans: list[tuple[int, int, str]] = []
    length = 0
    cursor = 0
    for match in _MENTION.finditer(markup):
        kind, surface = match.group(1), match.group(2)
        if kind not in MEDDOCAN_TYPES:
            raise MarkupError(f"{source}: offset {match.start()}: unknown entity type {kind}")
        if not surface.strip() or surface != surface.strip():
            raise MarkupError(f"{source}: offset {match.start()}: empty span or span with outer spaces ({kind})")
        before = markup[cursor : match.start()]
        pieces.append(before)
        length += len(before)
        spans.append((length, length + len(surface), kind))
        pieces.append(surface)
        length += len(surface)
        cursor = match.end()
    pieces.append(markup[cursor:])
    text = "".join(pieces)
    leftover = re.search(r"\{\{|\}\}", text)
    if leftover:
        raise MarkupError(f"{source}: offset {leftover.start()}: unbalanced or malformed '{{{{ }}}}' markup")
    return text, spans


def read_markup_dir(folder: Path, what: str = "markup documents") -> list[Document]:
    """The documents of ``folder/*.md``, sorted by name, ids from the file names; an empty
    folder is an error naming it (``what`` says which documents were expected)."""
    paths = sorted(folder.glob("*.md"))
    if not paths:
        raise FileNotFoundError(f"{folder}: no *.md {what}")
    docs = []
    for path in paths:
        text, spans = parse_markup(path.read_text(encoding="utf-8"), source=path.name)
        docs.append(Document(path.stem, text, [Entity(a, b, t) for a, b, t in spans]))
    return docs


def to_brat(text: str, spans: list[tuple[int, int, str]]) -> str:
    """The ``.ann`` content for ``spans`` over ``text`` (one ``T`` line per span)."""
    lines = [f"T{i}\t{kind} {start} {end}\t{text[start:end]}" for i, (start, end, kind) in enumerate(spans, 1)]
    return "".join(line + "\n" for line in lines)


def convert_dir(source_dir: Path, out_dir: Path) -> int:
    """Convert every ``*.md`` markup file of ``source_dir``; returns the number of entities written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    total = 0
    for path in sorted(source_dir.glob("*.md")):
        text, spans = parse_markup(path.read_text(encoding="utf-8"), source=path.name)
        (out_dir / f"{path.stem}.txt").write_text(text, encoding="utf-8", newline="")
        (out_dir / f"{path.stem}.ann").write_text(to_brat(text, spans), encoding="utf-8", newline="")
        total += len(spans)
    return total


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m deid_crf.io.markup SRC_DIR OUT_DIR")
    try:
        count = convert_dir(Path(sys.argv[1]), Path(sys.argv[2]))
    except MarkupError as error:
        sys.exit(f"error: {error}")
    print(f"{count} entities written to {sys.argv[2]}")
