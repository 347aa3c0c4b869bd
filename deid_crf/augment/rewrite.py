"""MEDDOCAN training documents rewritten so that a model learns names and formats, not
MEDDOCAN's templates.

One rewritten copy of a document keeps its clinical text and changes what a model
could otherwise learn by heart:

* every entity gets another value of its type (:class:`~deid_crf.deid.surrogates.DocumentSurrogates`:
  names part by part, shifted dates, ids and phones with new digits, other towns,
  streets, hospitals…), and some values another written form (a numeric date written
  out, ``H`` as ``Varón``, ``70 años`` as ``70 a``);
* the header cues vary: ``Nombre:``/``Apellidos:`` become ``Paciente:``, ``PACIENTE:
  APELLIDOS, NOMBRE`` (two spans), ``Sr./Dña. …`` or ``Nombre y apellidos:``; the other labels
  take synonyms (``NHC:`` → ``Nº historia clínica:``, ``CP:`` → ``Código postal:``…)
  and the final stops of header lines come and go;
* letter case: names in ALL-CAPS or lower case, sometimes the whole header in capitals.

The document is handled as a list of :class:`Segment` (plain text or one entity), and
the offsets of the rewritten document are those of its segments once joined: they are
exact by construction (``tests/test_augment.py`` checks them on the whole train split).
Everything drawn comes from one generator seeded by the run's seed, the copy number
and the document, so a seed always gives the same documents.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from deid_crf.augment.values import date_text
from deid_crf.deid.surrogates import DocumentSurrogates, document_seed
from deid_crf.text.document import Document, Entity

PATIENT = "NOMBRE_SUJETO_ASISTENCIA"
STAFF = "NOMBRE_PERSONAL_SANITARIO"
NAME_TYPES = (PATIENT, STAFF)


@dataclass(frozen=True)
class RewriteOptions:
    """How often each variation is applied (probabilities per document or per value)."""

    header_names: float = 0.7  # the patient's Nombre:/Apellidos: lines are rewritten
    labels: float = 0.5  # each other header label takes a synonym
    drop_stops: float = 0.3  # header lines lose their final stop (per document)
    upper_names: float = 0.25  # names in ALL-CAPS (per document)
    lower_names: float = 0.08  # names in lower case (per document)
    upper_header: float = 0.12  # the whole header in capitals (per document)
    date_forms: float = 0.35  # a numeric date written in another form
    value_forms: float = 0.5  # sex and age values in another written form


@dataclass
class Segment:
    """A piece of a document's text: plain (``type`` None) or one entity."""

    text: str
    type: str | None = None
    verbatim: bool = False  # kept exactly as it is (an annotation that cuts a word)


# ----------------------------------------------------------------------------- segments


def to_segments(doc: Document) -> list[Segment]:
    """The document as plain and entity segments in text order. Overlapping entities
    (rare in gold data) keep the first one."""
    out, cursor = [], 0
    for entity in sorted(doc.entities):
        if entity.start < cursor:
            continue
        if entity.start > cursor:
            out.append(Segment(doc.text[cursor : entity.start]))
        out.append(Segment(doc.text[entity.start : entity.end], entity.type))
        cursor = entity.end
    if cursor < len(doc.text):
        out.append(Segment(doc.text[cursor:]))
    return out


def from_segments(doc_id: str, segments: Sequence[Segment]) -> Document:
    """Join segments back into a document; each entity segment becomes an entity
    (its surrounding spaces left outside the span)."""
    text, entities, cursor = [], [], 0
    for segment in segments:
        if segment.type is not None:
            stripped = segment.text.strip()
            if stripped:
                start = cursor + len(segment.text) - len(segment.text.lstrip())
                entities.append(Entity(start, start + len(stripped), segment.type))
        text.append(segment.text)
        cursor += len(segment.text)
    return Document(doc_id, "".join(text), entities)


# ----------------------------------------------------------------------------- values

_NUMERIC_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
# Full-date styles of the synthetic notes' date writer (day, month and year kept).
_FULL_DATE_STYLES = ("long", "dd.mm.yyyy", "d-m-yy", "dd-mm-yyyy", "iso", "roman", "dd/mm/yy", "abbr_month")


def date_in_another_form(text: str, rng: random.Random) -> str:
    """A ``dd/mm/yyyy`` date in another of the forms clinical notes use
    (:func:`deid_crf.augment.values.date_text`); other texts unchanged."""
    m = _NUMERIC_DATE.fullmatch(text)
    if not m:
        return text
    try:
        day = date(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    except ValueError:
        return text
    return date_text(rng, day, rng.choice(_FULL_DATE_STYLES))


_SEX_FORMS = {"H": ("Hombre", "Varón", "V", "varón", "masculino"), "M": ("Mujer", "F", "mujer", "femenino")}
_AGE = re.compile(r"(\d{1,3}) años")


def value_in_another_form(text: str, type_: str, rng: random.Random) -> str:
    """Sex letters and ages in another written form (``H`` → ``Varón``, ``70 años`` →
    ``70 a``); other values unchanged."""
    if type_ == "SEXO_SUJETO_ASISTENCIA" and text in _SEX_FORMS:
        return rng.choice(_SEX_FORMS[text])
    if type_ == "EDAD_SUJETO_ASISTENCIA" and (m := _AGE.fullmatch(text)):
        return rng.choice((f"{m.group(1)} a", f"{m.group(1)}a", f"{m.group(1)} años"))
    return text


# ----------------------------------------------------------------------------- header

# Label synonyms for MEDDOCAN's header fields (the original label is always among the
# choices). Keys are matched at a line start, case-sensitively, followed by ":".
LABEL_SYNONYMS: dict[str, tuple[str, ...]] = {
    "NHC": ("NHC", "Nº HC", "Nº historia clínica", "Historia clínica", "HC", "N.H.C.", "Nº de historia"),
    "NASS": ("NASS", "Nº SS", "NSS", "Nº afiliación", "Nº Seguridad Social", "N.A.S.S."),
    "Domicilio": ("Domicilio", "Dirección", "Dirección postal", "Domicilio habitual", "Dir."),
    "Localidad/ Provincia": ("Localidad/ Provincia", "Población", "Municipio", "Localidad", "Ciudad", "Provincia"),
    "CP": ("CP", "C.P.", "Código postal", "Cód. postal"),
    "Fecha de nacimiento": ("Fecha de nacimiento", "F. nacimiento", "Fecha nac.", "F. nac.", "FN", "F.N."),
    "País": ("País", "Nacionalidad", "País de origen"),
    "País de nacimiento": ("País de nacimiento", "Lugar de nacimiento", "Natural de", "Nacido en"),
    "Sexo": ("Sexo", "Género", "SEXO"),
    "Edad": ("Edad", "EDAD", "Años"),
    "Fecha de Ingreso": ("Fecha de Ingreso", "F. ingreso", "Fecha ingreso", "Ingreso", "Fecha de admisión"),
    "Médico": ("Médico", "Facultativo", "Médico responsable", "Atendido por", "Dr./Dra."),
    "Responsable clínico": ("Responsable clínico", "Médico responsable", "Facultativo responsable"),
    "Episodio": ("Episodio", "Nº episodio", "Nº de episodio", "Episodio nº"),
    "CIPA": ("CIPA", "CIP", "TSI", "Tarjeta sanitaria", "Nº tarjeta sanitaria"),
    "Remitido por": ("Remitido por", "Firmado", "Fdo.", "Médico remitente", "Remite"),
    "NºCol": ("NºCol", "Nº col.", "Col.", "Colegiado nº", "nº colegiado"),
    "Servicio": ("Servicio", "Unidad", "Especialidad"),
}
_LABEL = re.compile(
    r"(?m)(^|(?<=\s))(" + "|".join(map(re.escape, sorted(LABEL_SYNONYMS, key=len, reverse=True))) + r")(?=\s*:)"
)
# The narrative starts at this label; everything before it is the header.
_NARRATIVE_START = re.compile(r"(?im)^(?:Informe cl[ií]nico|Historia (?:Actual|del paciente)|Motivo de|Antecedentes)")


def _header_end(segments: Sequence[Segment]) -> int:
    """The index of the first segment at or after the narrative's start label (or
    of the first line over 150 characters)."""
    for index, segment in enumerate(segments):
        if segment.type is None and (
            _NARRATIVE_START.search(segment.text) or max(map(len, segment.text.split("\n"))) > 150
        ):
            return index
    return len(segments)


def _vary_labels(segments: list[Segment], stop: int, options: RewriteOptions, rng: random.Random) -> None:
    def synonym(m: re.Match[str]) -> str:
        label = m.group(2)
        return m.group(1) + (rng.choice(LABEL_SYNONYMS[label]) if rng.random() < options.labels else label)

    for index in range(stop):
        if segments[index].type is None:
            segments[index].text = _LABEL.sub(synonym, segments[index].text)


def _patient_title(segments: Sequence[Segment], rng: random.Random) -> str:
    sex = next((s.text for s in segments if s.type == "SEXO_SUJETO_ASISTENCIA"), "")
    female = sex.strip().upper()[:1] in ("M", "F")
    return rng.choice(("Sra.", "Dña.", "Doña", "la Sra.") if female else ("Sr.", "D.", "Don", "el Sr."))


_NOMBRE_LINE = re.compile(r"(?:^|\n)Nombre:\s*$")
_APELLIDOS_LINE = re.compile(r"^\.?[ \t]*\n(Apellidos:\s*)$")


def _vary_patient_header(segments: list[Segment], stop: int, rng: random.Random) -> None:
    """``Nombre: X.`` + ``Apellidos: Y.`` → one patient line in another form."""
    for i in range(min(stop, len(segments) - 3)):
        label, first, between, last = segments[i : i + 4]
        if not (
            label.type is None
            and first.type == PATIENT
            and between.type is None
            and last.type == PATIENT
            and _NOMBRE_LINE.search(label.text)
            and _APELLIDOS_LINE.match(between.text)
        ):
            continue
        cue = label.text[: label.text.rfind("Nombre:")]
        given, surnames = first.text.strip(), last.text.strip()
        form = rng.randrange(6)
        if form == 0:
            new = [Segment(cue + "Paciente: "), Segment(f"{given} {surnames}", PATIENT)]
        elif form == 1:  # surname first: two spans, as guideline M1.1 joins parts across spaces only
            label_text = rng.choice(("PACIENTE: ", "Paciente: ", "Apellidos, nombre: "))
            new = [Segment(cue + label_text), Segment(surnames, PATIENT), Segment(", "), Segment(given, PATIENT)]
        elif form == 2:
            new = [
                Segment(cue + rng.choice(("Nombre y apellidos: ", "Nombre completo: ", "Nom i cognoms: "))),
                Segment(f"{given} {surnames}", PATIENT),
            ]
        elif form == 3:
            new = [Segment(cue + _patient_title(segments, rng) + " "), Segment(f"{given} {surnames}", PATIENT)]
        elif form == 4:
            new = [Segment(cue + "Apellidos: "), last, Segment(".\nNombre: "), first]
        else:
            new = [Segment(cue + "Paciente: "), Segment(f"{surnames} {given}", PATIENT)]
        segments[i : i + 4] = new
        return


def _drop_header_stops(segments: list[Segment], stop: int) -> None:
    """``NHC: 368503.`` → ``NHC: 368503`` for every header line."""
    for index in range(stop):
        if segments[index].type is None and index > 0:
            segments[index].text = re.sub(r"^\.([ \t]*\n)", r"\1", segments[index].text)


def _upper(text: str) -> str:
    """Capitals, where that keeps the length (``ß`` would not), so offsets stay exact."""
    upper = text.upper()
    return upper if len(upper) == len(text) else text


# ----------------------------------------------------------------------------- document


@functools.cache
def _faker():
    """One Faker for the run's rewrites (reseeded for each document): its generators
    draw the streets, companies, e-mails and jobs of the rewritten copies, as they did
    for the ablation rows of docs/results.md (``rewrite`` is off by default)."""
    from faker import Faker

    return Faker("es_ES")


def rewrite_document(doc: Document, seed: int, copy: int = 0, options: RewriteOptions | None = None) -> Document:
    """One rewritten copy of ``doc`` (id ``{doc_id}~rw{copy}``); the same arguments give
    the same document."""
    options = options or RewriteOptions()
    rng = random.Random(document_seed(seed * 1000 + copy, doc.doc_id, doc.text))
    surrogates = DocumentSurrogates(rng.getrandbits(63), faker=_faker())
    segments = to_segments(doc)

    header = _header_end(segments)
    for index, segment in enumerate(segments):
        if segment.type is None:
            continue
        if _cuts_a_word(segments, index):  # "una niet|a", "Dr|Alberto": changing it would change the tokens
            segment.verbatim = True
            continue
        new = surrogates.replace(segment.text, segment.type, _label_before(segments, index))
        if segment.type == "FECHAS" and rng.random() < options.date_forms:
            new = date_in_another_form(new, rng)
        if index < header and rng.random() < options.value_forms:  # "70 a" in a header, not in prose
            new = value_in_another_form(new, segment.type, rng)
        segment.text = new

    stop = _header_end(segments)
    if rng.random() < options.header_names:
        _vary_patient_header(segments, stop, rng)
        stop = _header_end(segments)
    _vary_labels(segments, stop, options, rng)
    if rng.random() < options.drop_stops:
        _drop_header_stops(segments, stop)

    name_case = rng.random()
    if name_case < options.upper_names:
        for segment in segments:
            if segment.type in NAME_TYPES and not segment.verbatim:
                segment.text = _upper(segment.text)
    elif name_case < options.upper_names + options.lower_names:
        for segment in segments:
            if segment.type in NAME_TYPES and not segment.verbatim:
                segment.text = segment.text.lower()
    if rng.random() < options.upper_header and not any(s.verbatim for s in segments[:stop]):
        for segment in segments[:stop]:
            segment.text = _upper(segment.text)
    return from_segments(f"{doc.doc_id}~rw{copy}", segments)


def _cuts_a_word(segments: Sequence[Segment], index: int) -> bool:
    """Whether segment ``index`` starts or ends inside a word (or an e-mail address) of
    the original text."""
    text = segments[index].text
    before = segments[index - 1].text[-1:] if index > 0 else ""
    after = segments[index + 1].text[:1] if index + 1 < len(segments) else ""
    starts_inside = bool(before) and text[:1].isalnum() and (before.isalnum() or before in "._@+")
    ends_inside = bool(after) and text[-1:].isalnum() and (after.isalnum() or after == "@")
    return starts_inside or ends_inside


def _label_before(segments: Sequence[Segment], index: int) -> str:
    """The plain text just before segment ``index`` on its line (``Apellidos: ``),
    which tells the surrogates that a name holds surnames only."""
    if index == 0 or segments[index - 1].type is not None:
        return ""
    return segments[index - 1].text.rsplit("\n", 1)[-1]


def rewrite_corpus(
    documents: Sequence[Document], copies: float, seed: int, options: RewriteOptions | None = None
) -> list[Document]:
    """Rewritten copies of ``documents``: ``int(copies)`` of each, and one more of a
    fraction ``copies % 1`` of them (chosen by ``seed``)."""
    if copies < 0:
        raise ValueError(f"copies must be >= 0, not {copies}")
    whole, fraction = int(copies), copies - int(copies)
    chooser = random.Random(seed)
    out = []
    for doc in documents:
        count = whole + (1 if chooser.random() < fraction else 0)
        out.extend(rewrite_document(doc, seed, copy, options) for copy in range(count))
    return out
