"""Values in the columns of a table whose header names them: a ward list's
``HAB | PACIENTE | EDAD/S | NHC | … | ENF`` rows, a contact table's ``Persona |
Parentesco | Teléfono``.

MEDDOCAN has no tables, so the model reads a row as a run of words: a rare surname in
capitals (``OKONKWO``), an age written ``38a`` with the sex after it (``38a H``) and a
nurse's initials in the last cell (``MR``) go unseen. The header says what each
column holds, for every row under it:

* a name column (``Paciente``, ``Nombre``, ``Apellidos, nombre``, ``Persona``): each
  part of the cell on either side of a comma (``BAUZÀ MAS, MARGALIDA``: the notes'
  convention 1, two spans) and a nickname in quotes or guillemets after it is a
  NOMBRE_SUJETO_ASISTENCIA span — FAMILIARES_SUJETO_ASISTENCIA when the table also
  has a ``Parentesco`` column (it lists relatives);
* an age column (``Edad``, ``Edad/S``, ``E/S``): a number with its unit (``84a``,
  ``38 años``, ``7 m``), and in ``Edad/S`` columns the sex letter after it;
* a sex column (``Sexo``, ``S``): ``H``, ``M``, ``V``, ``F`` or the word;
* a record-number column (``NHC``, ``Historia``, ``CIP``): a number, maybe with a
  letter prefix, is ID_SUJETO_ASISTENCIA;
* a staff column (``ENF``, ``Médico``, ``Responsable``, ``Firma``): initials (``MR``)
  or a name is NOMBRE_PERSONAL_SANITARIO.

A table is a header line and the lines right under it with as many ``|`` cells; a
row with another count of cells ends it. A header is a line of short cells without
digits, one of them a known header.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import PATIENT_ID, Match, lines
from deid_crf.deid.recognizers.sex import SEX

PATIENT = "NOMBRE_SUJETO_ASISTENCIA"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"
STAFF = "NOMBRE_PERSONAL_SANITARIO"
AGE = "EDAD_SUJETO_ASISTENCIA"

# Header words (lower case, without accents or dots) and what their column holds.
_NAME, _AGE, _AGE_SEX, _SEX, _RECORD, _STAFF, _KINSHIP = "name age age_sex sex record staff kinship".split()
_HEADERS = {
    **dict.fromkeys(
        ("paciente", "pacient", "nombre", "nom", "nome", "apellidos", "apellidos, nombre", "apellidos y nombre")
        + ("nombre y apellidos", "persona", "usuario", "usuaria", "residente"),
        _NAME,
    ),
    **dict.fromkeys(("edad", "edat", "idade", "anos", "años"), _AGE),
    **dict.fromkeys(("edad/s", "edad/sexo", "e/s", "edad / sexo", "edat/sexe", "edad-sexo"), _AGE_SEX),
    **dict.fromkeys(("sexo", "sexe", "s"), _SEX),
    **dict.fromkeys(("nhc", "hc", "historia", "n historia", "no historia", "historia clinica", "cip", "sip"), _RECORD),
    **dict.fromkeys(
        ("enf", "enfermera", "enfermero", "enfermeria", "due", "medico", "metge", "responsable", "firma", "mir")
        + ("adjunto", "adjunta", "resp", "tcae", "facultativo", "medico responsable", "enf responsable")
        # Catalan and Galician nurses' columns ("| Data | Torn | Registre | Inf. |")
        + ("inf", "infermera", "infermer", "infermeria", "enfermeira", "enfermeiro"),
        _STAFF,
    ),
    **dict.fromkeys(("parentesco", "relacion", "vinculo", "parentiu"), _KINSHIP),
}
_MAX_HEADER_CELL = 30

_AGE_VALUE = re.compile(r"(?P<age>\d{1,3}(?:[ ]?(?:a|años|anys|anos|m|meses|d|días))?)(?:[ ]+(?P<sex>[HMVF]))?")
_SEX_VALUE = re.compile(r"[HMVF]|(?i:varón|varon|hombre|mujer|home|dona|muller)")
_RECORD_VALUE = re.compile(r"(?:[A-Z]{1,4}[ -]?)?\d[\d -]{3,}\d")
_INITIALS = re.compile(r"[A-ZÁÉÍÓÚÑ]{2,3}")
_NAME_PART = re.compile(r"[^\W\d_][^\W\d_'’. -]*(?:[ '’.-]+[^\W\d_][^\W\d_'’.-]*)*")
_NICKNAME = re.compile(r"""["“«(]+\s*(?P<nick>[^\W\d_][^"”»()]*?)\s*["”»)]+""")


def _normalized(cell: str) -> str:
    text = unicodedata.normalize("NFD", cell.strip().lower().replace("º", "").replace(".", "").rstrip(":"))
    return " ".join("".join(c for c in text if not unicodedata.combining(c)).split())


def _cells(line: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each cell of a ``|`` line, spaces around it left out (an
    empty cell is ``(i, i)``)."""
    out, start = [], 0
    for end in [*(m.start() for m in re.finditer(r"\|", line)), len(line)]:
        a, b = start, end
        while a < b and line[a].isspace():
            a += 1
        while b > a and line[b - 1].isspace():
            b -= 1
        out.append((a, b))
        start = end + 1
    return out


def _header(line: str, cells: list[tuple[int, int]]) -> list[str | None] | None:
    """What each column holds, when ``line`` is a table's header."""
    texts = [line[a:b] for a, b in cells]
    if any(len(t) > _MAX_HEADER_CELL or any(c.isdigit() for c in t) for t in texts):
        return None
    roles = [_HEADERS.get(_normalized(t)) for t in texts]
    if _is_label_and_value(texts, roles):
        return None
    return roles if any(r in (_NAME, _AGE, _AGE_SEX, _SEX, _RECORD, _STAFF) for r in roles) else None


def _is_label_and_value(texts: list[str], roles: list[str | None]) -> bool:
    """A row of a form's label/value table, not a header: a name's label first and the
    name itself after it, in two or four cells (``| Paciente | PARK, JI-WON |``, ``|
    Paciente | Rūta Kazlauskienė | Nº petición | … |``): the rows under it are other
    fields, not patients (the guide splits' dev16 10 labels taken for names). A name is
    two words or more, or holds a comma; one capitalised word is a header's
    (``| Paciente | Diagnóstico |``)."""
    filled = [(t, r) for t, r in zip(texts, roles, strict=True) if t]  # (the empty cells outside the bars)
    if len(filled) not in (2, 4) or filled[0][1] != _NAME or filled[1][1] is not None:
        return False
    value = filled[1][0]
    parts = [part.strip() for part in value.split(",")]
    return all(_is_name(part) for part in parts) and (len(parts) > 1 or len(value.split()) >= 2)


def find_table_values(text: str) -> Iterator[Match]:
    """The values of the named columns of every table in ``text`` (see the module)."""
    if "|" not in text:
        return
    roles: list[str | None] | None = None
    for offset, line in lines(text):
        if line.count("|") < 2:
            roles = None
            continue
        cells = _cells(line)
        if roles is not None and len(cells) == len(roles):
            name_type = RELATIVE if _KINSHIP in roles else PATIENT
            for role, (a, b) in zip(roles, cells, strict=True):
                for start, end, type_ in _cell_values(line[a:b], role, name_type):
                    yield offset + a + start, offset + a + end, type_
            continue
        roles = _header(line, cells)


def _cell_values(cell: str, role: str | None, name_type: str) -> Iterator[Match]:
    if not cell:
        return
    if role in (_AGE, _AGE_SEX):
        m = _AGE_VALUE.fullmatch(cell)
        if m and (role == _AGE_SEX or m.group("sex") is None):
            yield *m.span("age"), AGE
            if m.group("sex"):
                yield *m.span("sex"), SEX
    elif role == _SEX:
        if _SEX_VALUE.fullmatch(cell):
            yield 0, len(cell), SEX
    elif role == _RECORD:
        if _RECORD_VALUE.fullmatch(cell):
            yield 0, len(cell), PATIENT_ID
    elif role == _STAFF:
        if _INITIALS.fullmatch(cell) or _is_name(cell):
            yield 0, len(cell), STAFF
    elif role == _NAME:
        yield from _names(cell, name_type)


def _is_name(part: str) -> bool:
    """Letters only, every word capitalised or a lower-case particle."""
    return bool(_NAME_PART.fullmatch(part)) and all(
        w[0].isupper() or w in ("de", "del", "la", "las", "los", "y", "i") for w in re.split(r"[ -]+", part) if w
    )


def _names(cell: str, type_: str) -> Iterator[Match]:
    """The parts of a name cell: the name on either side of a comma, and a nickname."""
    nickname = _NICKNAME.search(cell)
    for part in re.finditer(r"[^,]+", cell[: nickname.start() if nickname else len(cell)]):
        a, b = part.span()
        while a < b and cell[a].isspace():
            a += 1
        while b > a and cell[b - 1].isspace():
            b -= 1
        if a < b and _is_name(cell[a:b]):
            yield a, b, type_
    if nickname and _is_name(nickname.group("nick")):
        yield *nickname.span("nick"), type_
