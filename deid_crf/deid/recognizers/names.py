"""Names the model found half of: a surname-first name's given name, a nickname.


Hospital systems print a patient as ``APELLIDOS, NOMBRE``, and the two parts are two
NOMBRE spans (guideline M1.1 joins only parts "separados sólo por espacios o por
guiones"). The model finds the surnames, which look like the surnames it has seen,
and often misses the given name after the comma. :func:`given_names_after_comma`
adds it, with the surnames' type, when the surnames open their line (after a label
such as ``Paciente:`` at most) and the given name closes it (or is followed by a wide
gap, a bracket or a separator), and the letter case agrees.

A nickname in quotes right after a name (``Encarnación Ruiz ("Encarni")``, ``Manuel
(«Manolo»)``, ``("el Sebi")`` without its article) is a span of the name's type of its
own (guideline P1.1, P4.1: "apodos, motes, alias"), added by
:func:`nicknames_after_names`.

Guideline M1.1 joins the parts of a name "separados sólo por espacios o por guiones";
the model cuts a name at a hyphen it has not seen in one (``Klaus`` ``-Dieter``,
``díaz`` ``-pintado``), and :func:`completed_names` joins them, and runs a name on over a Portuguese particle
(``Maria`` ``da Graça``).

An initial right before a name belongs to it (``A. Benali``, ``Enf. J. Rodríguez
Suárez``): :func:`initials_before_names` widens the span over it. A place the model
found right after an initial (``enfermería (E. Iglesias)``) is a surname: MEDDOCAN
writes only staff names with an initial (the 4 gold names in train and dev that open
with one are NOMBRE_PERSONAL_SANITARIO), so it becomes a staff name.

A header field that names the doctor (``Médico: Naveenjayakumar.``, ``Responsable
clínico: Dra. Ana Ruiz``) holds a staff name even when the name is one the model has
never seen: :func:`find_labelled_staff` proposes the capitalised words after such a
label at the start of a line, up to the end of the field, the courtesy title left out.
A specialty in that place (``Médico: Medicina Interna``) is no name.

A label right before a name says whose it is, whatever the model guessed from the
words around (:func:`roles_from_labels`): ``Paciente:``, ``pac.``, ``Nombre:`` before a
patient; ``Dr.``, ``Enf.``, ``Matrona:``, ``Fdo.:``, ``Realizado por`` before staff.
Only the label, a courtesy title and punctuation may stand between the two. A
patient's name followed by a clinician's degree or role and a collegiate number on its
line (``Dña. Amaia Goñi, médica de familia, colegiada nº …``) is a signer's.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import replace

from deid_crf.deid.recognizers import number_words
from deid_crf.deid.recognizers.common import LINE_BREAKS, SP, Match
from deid_crf.deid.recognizers.relatives import KIN_AT, KIN_WORD, RELATIVE
from deid_crf.gazetteers.spanish import (
    INSTITUTION_WORDS,
    SPECIALTY_WORDS,
    STREET_TYPES,
    TITLE_WORDS,
    UPPER,
    normalize,
)
from deid_crf.text.spans import RULE, Coverage, PHISpan

NAME_TYPES = ("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO", "FAMILIARES_SUJETO_ASISTENCIA")

_WORD = rf"[{UPPER}][^\W\d_]*(?:['’-][{UPPER}][^\W\d_]*)*"
_GIVEN = re.compile(
    rf"{SP}*,{SP}*(?P<given>{_WORD}(?:{SP}+(?:(?:del|de{SP}+la|de{SP}+los){SP}+)?{_WORD}){{0,3}})"
    rf"(?={SP}*(?:[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]|$)|{SP}{{2,}}|{SP}*[·|—–(\[]|{SP}+-{SP})"
)
# What may stand before the surnames on their line: nothing, or a label without digits
# of at most _LABEL_WIDTH characters.
_LABEL_WIDTH = 60
_LABEL_BEFORE = re.compile(r"(?:[^\W\d_][^\d\n:]*?(?::|\.{2,}|\s{2,})\s*)?$")
_NOT_GIVEN = INSTITUTION_WORDS | TITLE_WORDS | {"servicio", "unidad", "seccion", "jefe", "medico", "enfermera"}


def _case_agrees(surnames: str, given: str) -> bool:
    """Capitals for the surnames go with any given name (``THOMPSON, Sarah``); surnames
    in mixed case do not go with a given "name" in capitals (``Ruiz, NHC``)."""
    return surnames.upper() == surnames or given.upper() != given


def given_names_after_comma(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` plus the given name after each surname-first name (see the module)."""
    out = list(spans)
    coverage = Coverage((s.start, s.end) for s in spans)
    line_ends: list[int] | None = None  # where each line after the first starts, found once
    for span in spans:
        if span.type not in NAME_TYPES:
            continue
        m = _GIVEN.match(text, span.end)
        if not m:
            continue
        if line_ends is None:
            line_ends = [m.end() for m in LINE_BREAKS.finditer(text)]
        k = bisect_right(line_ends, span.start)
        line_start = line_ends[k - 1] if k else 0
        if span.start - line_start > _LABEL_WIDTH or not _LABEL_BEFORE.fullmatch(text, line_start, span.start):
            continue
        start, end = m.span("given")
        given = m.group("given")
        if not _case_agrees(text[span.start : span.end], given):
            continue
        if any(normalize(word) in _NOT_GIVEN for word in given.split() if word[0].isupper()):
            continue
        if coverage.overlaps(start, end):
            continue
        out.append(PHISpan(start, end, span.type, span.confidence, RULE))
    return sorted(out)


# The surnames in capitals before a comma and the given name the model found, opening the
# line after a label at most (``Gaixoa / Paciente ....... AIT OUAHMANE, MOHAMED``, ``PACIENTE
# PETROV, STOYAN GEORGIEV``; one space between their words, so not a label before a wide gap):
# a span of the given name's type of their own, as the guide splits write such headers (the
# model takes the given name alone in 2 of dev18's 3).
_SURNAMES_BEFORE = re.compile(
    rf"(?<![\w'’-])(?P<surnames>[{UPPER}][{UPPER}'’-]+(?: (?:(?:DE|DEL|DE LA|DE LOS|Y|I|EL|AL|VAN|VON|DA|DOS) )?"
    rf"[{UPPER}][{UPPER}'’-]+){{0,3}}),{SP}*\Z"
)


def surnames_before_given_names(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` plus the surnames in capitals before each given name (see above)."""
    out = list(spans)
    coverage = None  # built at the first candidate: most texts have none
    for span in spans:
        if span.type not in NAME_TYPES or not text[max(0, span.start - 4) : span.start].rstrip(" \t").endswith(","):
            continue
        if not text[span.start : span.end].isupper():
            continue
        line_start = text.rfind("\n", 0, span.start) + 1
        m = _SURNAMES_BEFORE.search(text, max(line_start, span.start - 60), span.start)
        if m is None:
            continue
        if coverage is None:
            coverage = Coverage((s.start, s.end) for s in spans)
        if coverage.overlaps(*m.span("surnames")):
            continue
        if m.start() - line_start > _LABEL_WIDTH or not _LABEL_BEFORE.fullmatch(text, line_start, m.start()):
            continue
        if any(normalize(word) in _NOT_GIVEN for word in m.group("surnames").split()):
            continue
        out.append(PHISpan(*m.span("surnames"), span.type, span.confidence, RULE))
    return sorted(out)


# The nickname in quotes, maybe with its article (``("el Sebi")``, left out: P4.1 keeps
# the name alone), maybe after a comma (``Manuel Vilariño Castiñeira, "Lito"``).
_NICKNAME = re.compile(
    rf"{SP}*(?:,{SP}*)?(?:\({SP}*)?(?P<open>[\"«“'‘])(?:(?:el|la){SP}+)?(?P<nick>{_WORD}(?:{SP}+{_WORD})?)(?P<close>[\"»”'’])"
)
_CLOSING = {'"': '"', "«": "»", "“": "”", "'": "'", "‘": "’"}


# The name someone is called by, after saying so (``En casa la llaman "Bego"``, ``prefiere
# que la llamen Yan``, ``conocido como «el Rubio»``): the patient's (the notes' guide
# splits, 3 of 3), its article left out; after ``conocido como`` only in quotes (``el
# fenómeno conocido como Cuádriga de Verdán`` names a sign).
# (Also a capitalised pronoun, ``La llaman Pili``, Galician ``prefire que lle chamen
# Manolita`` and Catalan ``li diuen Montse``; and without quotes after ``conocido`` where
# or by whom it is said, a village, a family, friends, ``conocido en el pueblo como Tinón``
# (not ``conocido en la literatura como Síndrome de …``): the guide splits' dev17 and
# dev18, 4 of 4.)
_CALLED = re.compile(
    rf"(?<!\w)(?:(?P<call>(?i:le|la|lo|les|los|las){SP}+(?:llaman|llamaban|llamen|dicen)|(?i:lle|li|la){SP}+"
    rf"(?:chaman|chamen|chamaban|diuen|diem|criden)|(?i:conocid[oa]|co[ñn]ecid[oa]|conegut|coneguda)"
    rf"(?:{SP}+|{SP}*\n{SP}*)(?:en|por|per|entre|no|na){SP}+(?:(?:el|la|o|a|su|sus|els){SP}*\n?{SP}*)?"
    rf"(?:pueblo|barrio|aldea|familia|casa|todos|amigos|vecinos|trabajo|poble|pobo|vila|veïns|barri)"
    rf"(?:{SP}+|{SP}*\n{SP}*)(?:como|com))"
    rf"|conocid[oa]{SP}+como|apodad[oa])"
    rf"{SP}+(?P<open>[\"«“'‘])?(?:(?:el|la){SP}+)?(?P<nick>{_WORD})(?(open)[\"»”'’])(?![\w-])"
)


def find_called_names(text: str) -> Iterator[Match]:
    """The name after ``la llaman``, ``prefiere que la llamen``, ``conocido como`` (see above)."""
    lower = text.lower()
    if not any(w in lower for w in ("llam", "dicen", "conocid", "apodad", "cham", "diuen", "diem", "criden", "conegu")):
        return
    for m in _CALLED.finditer(text):
        if m.group("call") or m.group("open"):
            yield m.start("nick"), m.end("nick"), "NOMBRE_SUJETO_ASISTENCIA"


def nicknames_after_names(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` plus the quoted nickname right after each name (see the module)."""
    out = list(spans)
    coverage = Coverage((s.start, s.end) for s in spans)
    for span in spans:
        if span.type not in NAME_TYPES:
            continue
        m = _NICKNAME.match(text, span.end)
        if not m or _CLOSING[m.group("open")] != m.group("close"):
            continue
        start, end = m.span("nick")
        if coverage.overlaps(start, end):
            # a span of the model's inside the quotes (``Marisa"``, as a relative) is
            # the nickname, which is the name's
            inside = [s for s in out if s.start < end and s.end > start]
            if any(s.start < m.start("open") or s.end > m.end() for s in inside):
                continue
            out = [s for s in out if s not in inside]
        out.append(PHISpan(start, end, span.type, span.confidence, RULE))
    return sorted(out)


# What a name runs on over after the model stopped: a hyphen and a word, or a
# Portuguese or Galician particle and a capitalised word (``Maria da Graça``, ``João
# dos Santos``; Spanish ``de`` is left alone: ``Juan de Madrid`` may be a town).
_NAME_TAIL = re.compile(rf"-[^\W\d_]{{2,}}(?!\w)|{SP}(?:da|do|dos|das){SP}[{UPPER}][^\W\d_]+(?![\w-])")


# A name that stops at a shortened surname's dot, before the second surname (``Laura Fdez.
# Prieto``, ``Jesús Fdez. Ortín``): the model took the dot for the name's end. The notes'
# annotators keep the dot and the next surname in the span (the guide splits: 2 names cut
# there).
_SHORTENED_SURNAME = re.compile(
    r"(?<!\w)(?:Fdez|Fdz|Fz|Fndez|Glez|Gzlez|Gonz|Rguez|Rdguez|Rdz|Rodz|Hdez|Hdz|Hndez|Mtnez|Mtez|Mtz|Mnez"
    r"|Gtez|Gtrrez|Gutz|Jmnez|Jmz|Dguez|Dmguez|Vzquez|Vqz|Vzqz|Álvz|Alvz|Lpz|Pz|Sdez|Bmdez|Mdez|Sánz|Sanchz)\Z"
)
_AFTER_SHORTENED_SURNAME = re.compile(rf"\.{SP}[{UPPER}][^\W\d_]+(?:-[{UPPER}][^\W\d_]+)?(?![\w-])")


def completed_names(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with a person's name that stops at a hyphen run on over the word after
    it (``Klaus-Dieter``, ``díaz-pintado``: guideline M1.1 joins parts "separados sólo
    por espacios o por guiones"), a name span there of the same type joined to it, and
    over a Portuguese particle and the word after it (``Maria`` + ``da Graça``)."""
    out: list[PHISpan] = []
    for span in sorted(spans):
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous.type in NAME_TYPES
            and previous.type == span.type
            and text[previous.end : span.start] == "-"
        ):
            out[-1] = replace(previous, end=span.end, source=RULE)
            continue
        out.append(span)
    swallowed = set()
    for i, span in enumerate(out):
        if span.type in NAME_TYPES and _SHORTENED_SURNAME.search(text, span.start, span.end):
            following = out[i + 1] if i + 1 < len(out) else None
            m = _AFTER_SHORTENED_SURNAME.match(text, span.end)
            if m and (following is None or m.end() <= following.start or following.end == m.end()):
                if following is not None and following.end == m.end():
                    swallowed.add(i + 1)  # the surname, read as a place ("Ortín")
                out[i] = span = replace(span, end=m.end(), source=RULE)
        if span.type in NAME_TYPES and text[span.end - 1].isalpha() and (m := _NAME_TAIL.match(text, span.end)):
            following = out[i + 1].start if i + 1 < len(out) else len(text)
            if m.end() <= following:
                out[i] = replace(span, end=m.end(), source=RULE)
    return [s for i, s in enumerate(out) if i not in swallowed]


PATIENT = "NOMBRE_SUJETO_ASISTENCIA"
STAFF = "NOMBRE_PERSONAL_SANITARIO"
_TITLE = r"(?:D\.|Dña\.|Dª|Sr\.|Sra\.|Srta\.|Don|Doña)"
_LABEL_END = rf"\.?{SP}*(?::|\.{{2,}}|{SP}-)?{SP}*(?:{_TITLE}{SP}*)?$"
_PATIENT_LABEL = re.compile(
    rf"(?<!\w)(?:paciente|pacient|pac|enferm[oa]|usuari[oa]|nombre|nombre{SP}+del{SP}+paciente"
    rf"|nombre{SP}+y{SP}+apellidos|apellidos{SP}+y{SP}+nombre"
    # a certificate is about the patient: "CERTIFICO: Que D. …"
    rf"|certific[oa]{SP}*:?{SP}*que){_LABEL_END}",
    re.IGNORECASE,
)
_STAFF_ROLE = (
    rf"dr|dra|doctor|doctora|enf|enfermer[oa]|matrona|m[ée]dic[oa](?:{SP}+(?:adjunt[oa]|residente|responsable))?"
    rf"|facultativ[oa]|fdo|firmado(?:{SP}+por)?|fea|mir|técnic[oa]|tsid|tcae|due|auxiliar|fisioterapeuta|psicólog[oa]"
    rf"|trabajador[a]?{SP}+social|(?:atendid|realizad|informad|validad|revisad|solicitad|valorad)[oa]{SP}+por"
    # a ward's head nurse or supervisor ("Responsable de la unidad: …", "Supervisora: …")
    rf"|responsable{SP}+de{SP}+(?:la{SP}+)?(?:unidad|planta|servicio|enfermería)|supervisor[a]?"
)
# A role and maybe a service's acronym before the label's end ("medico PAC:").
_STAFF_LABEL = re.compile(rf"(?<!\w)(?:{_STAFF_ROLE})(?:{SP}+(?-i:[A-Z]{{2,5}}))?{_LABEL_END}", re.IGNORECASE)
# A role with where it works, then a comma, before a name ("la trabajadora social del
# centro, Nerea …", "a la enfermera del CAP Sant Roc, Sra. Laia …").
_STAFF_ROLE_BEFORE = re.compile(
    rf"(?<!\w)(?:enfermer[oa]|matrona|m[ée]dic[oa]|trabajador[a]?{SP}+social|fisioterapeuta|psicólog[oa]"
    rf"|pediatra|supervisor[a]?|residente)(?:{SP}+(?:del|de{SP}+la|de){SP}+[^,\n]{{1,40}})?{SP}*,\s*"
    rf"(?:{_TITLE}{SP}*)?$",
    re.IGNORECASE,
)
# A name in brackets after a staff role or a service, maybe with a complement ("Valorada por
# Rehabilitación y Logopedia (Lucía …)", "la trabajadora social del Centro de Salud de Haro
# (Rebeca …)", "26/11 — Enfermería (Inmaculada …)", "la supervisora de quirófano (Amparo …)"):
# the staff member. MEDDOCAN train and dev have no name so; the notes' guide halves 9, all staff.
_SERVICE = (
    rf"trabajo{SP}+social|rehabilitaci[oó]n|logopedia|fisioterapia|enfermer[ií]a|psicolog[ií]a|nutrici[oó]n"
    rf"|terapia{SP}+ocupacional"
)
_STAFF_IN_BRACKETS = re.compile(
    rf"(?<!\w)(?:enfermer[oa]|matrona|m[ée]dic[oa]|trabajador[a]?{SP}+social|fisioterapeuta|psicólog[oa]"
    rf"|pediatra|supervisor[a]?|residente(?!{SP}+en\b)|logopeda|terapeuta{SP}+ocupacional|celador[a]?|{_SERVICE})"
    rf"(?:{SP}+(?:y|e){SP}+(?:{_SERVICE}))?(?:{SP}+[^()\n,;.:]{{1,40}}?)?{SP}*\({SP}*(?:{_TITLE}{SP}*)?$",
    re.IGNORECASE,
)
_ROLE_LOOKBACK = 60
_KINSHIP_BEFORE_ROLE = re.compile(rf"(?:{KIN_WORD}){SP}*,?{SP}*$", re.IGNORECASE)
_RETYPED = (PATIENT, STAFF, "FAMILIARES_SUJETO_ASISTENCIA")
# A clinician's degree or role in apposition, with the collegiate number on its line
# (``D. Íñigo Sáez, Doctor en Medicina, colegiado…``, ``Dña. Amaia Goñi, médica de
# familia, colegiada nº…``): a certificate's or report's signer, whom the model took
# for the patient. A patient may be a doctor; a collegiate number makes it a signature.
_STAFF_AFTER = re.compile(
    # a collegiate or employee number in brackets ("Fco Javier Moya (col. 0204511)")
    rf"{SP}*\({SP}*(?:col\.|n\.?º{SP}*(?:de{SP}+)?(?:col|emplead)|colegiad|emplead|langile)"
    rf"|{SP}*,{SP}*(?:(?:doctor|doctora|licenciad[oa]|graduad[oa]){SP}+en{SP}+(?:medicina|enfermería)"
    rf"|(?:médic[oa]|enfermer[oa]|facultativ[oa]|pediatra|psiquiatra|fisioterapeuta|psicólog[oa])(?!\w)"
    rf"[^\n]{{0,60}}?(?<!\w)(?:colegiad[oa]|col\.|nº{SP}*de{SP}+colegiad[oa]|cias)(?!\w))",
    re.IGNORECASE,
)


def _staff_role_before(before: str) -> bool:
    """A role and a comma, or a role or a service and an opening bracket, end ``before``,
    and no kinship word opens the phrase (``su hija, enfermera, Marta`` is the daughter)."""
    m = _STAFF_ROLE_BEFORE.search(before) or _STAFF_IN_BRACKETS.search(before)
    return m is not None and not _KINSHIP_BEFORE_ROLE.search(before, 0, m.start())


def roles_from_labels(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with each person's name typed by the label right before it (see the
    module); names without such a label keep their type."""
    out = []
    for span in spans:
        if span.type in _RETYPED:
            before = text[max(0, span.start - _ROLE_LOOKBACK) : span.start]
            patient, staff = _PATIENT_LABEL.search(before), _STAFF_LABEL.search(before)
            if patient and staff and staff.start() < patient.start():
                patient = None  # the longer label wins: "medico PAC:" names the doctor
            if span.type != PATIENT and patient:
                span = replace(span, type=PATIENT)
            elif span.type != STAFF and not patient and (staff or _staff_role_before(before)):
                span = replace(span, type=STAFF)
            elif span.type != STAFF and _STAFF_AFTER.match(text, span.end):
                span = replace(span, type=STAFF)
            elif span.type == STAFF and not staff and _AGE_AFTER_NAME.match(text, span.end):
                if not _staff_role_before(before):
                    span = replace(span, type=PATIENT)
        out.append(span)
    return out


# An age right after a name and a comma ("Os escribo por Nerea Sanchis Gil, diecisiete
# años"): notes give staff no age, so the model's staff name is the patient's (MEDDOCAN
# train and dev: no staff name so; the notes' guide halves: 3 patients' names, 6
# relatives', no staff).
_AGE_AFTER_NAME = re.compile(
    rf",{SP}*(?:de{SP}+)?(?:\d{{1,3}}|(?i:{number_words.AGE})){SP}+(?i:años|anys|anos)(?![^\W\d_])"
)


# One or two capital initials with their dots, then the space before a name. ``D.`` is
# the title Don (left out of a name, guideline M1.1), ``C.P.`` a postcode label.
_INITIALS = re.compile(rf"(?<![\w.])(?P<initials>(?:[{UPPER}]\.{SP})?(?!D\.)[{UPPER}]\.){SP}+$")
_INITIALS_LOOKBACK = 8
_PLACE_AFTER_INITIAL = ("TERRITORIO",)


def initials_before_names(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with each person's name widened over the initials right before it, and
    a TERRITORIO span after an initial made a staff name (see the module)."""
    out = []
    previous_end = 0
    for span in sorted(spans):
        named = text[span.start : span.start + 1].isupper()
        if named and (span.type in NAME_TYPES or span.type in _PLACE_AFTER_INITIAL):
            window_start = max(previous_end, span.start - _INITIALS_LOOKBACK)
            m = _INITIALS.search(text, window_start, span.start)
            if m:
                new_type = STAFF if span.type in _PLACE_AFTER_INITIAL else span.type
                span = replace(span, start=m.start("initials"), type=new_type, source=RULE)
        out.append(span)
        previous_end = max(previous_end, span.end)
    return out


_COURTESY = r"(?:Dr|Dra|Dña|Sr|Sra|D|Dª)\."
# A staff member's role before the name, which the model sometimes takes in: a resident
# (``MIR``, ``R2``), a nurse (``DUE``, ``Enf.``), a nursing assistant (``TCAE``), a
# radiographer (``TSID``, ``TER``); capitals (or the abbreviation's dot) only, so that
# no name that opens with those letters is cut.
_ROLE = r"(?:MIR|R[1-5]|DUE|TCAE|TSID|TER|Enf\.|Inf\.)(?![^\W_])"
# A courtesy title or a role that opens a name span, the space after it included (N3.1,
# N5.1: titles are never annotated).
_LEADING_TITLE = re.compile(
    rf"(?:{_COURTESY}|Dª|Don|Doña|Srta\.|Doctora?|DOCTORA?|Profesora?\b|Prof\.|{_ROLE}"
    # foreign titles (N1.1): "Mr. Nigel …", "Frau Ursula Kemper-Haas", "Sig. Giancarlo …"
    rf"|Mr\.|Mrs\.|Ms\.|Mme\.|Mlle\.|Sig\.|Herr|Frau){SP}+(?=[^\W\d_])"
)


# A hyphenated name the model took half of (``Ana-Mirela`` found as ``Mirela``, ``Sánchez-
# Migallón`` as ``Sánchez``): the capitalised half glued to it by the hyphen joins the span,
# where no other span holds it. MEDDOCAN train and dev gold: no name span stops at a hyphen.
_HALF_BEFORE = re.compile(rf"(?<![\w-])[{UPPER}][^\W\d_]+-\Z")
_HALF_AFTER = re.compile(rf"-[{UPPER}][^\W\d_]+(?![\w-])")
_HYPHENATED_TYPES = (*NAME_TYPES, RELATIVE)


def hyphenated_names(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping one another) with each person's span widened over
    the other half of its hyphenated name (see above)."""
    out = list(spans)
    for i, span in enumerate(out):
        if span.type not in _HYPHENATED_TYPES or not text[span.start : span.start + 1].isupper():
            continue
        start, end = span.start, span.end
        before = _HALF_BEFORE.search(text, max(0, start - 30), start)
        if before and (i == 0 or out[i - 1].end <= before.start()):
            start = before.start()
        after = _HALF_AFTER.match(text, end)
        if after and (i + 1 == len(out) or out[i + 1].start >= after.end()):
            end = after.end()
        if (start, end) != (span.start, span.end):
            out[i] = replace(span, start=start, end=end, source=RULE, text="", replacement=None)
    return out


# A title the model took for the name itself, the name after it left out or a span of its
# own (``Paciente: Mr. Graham Pettigrew``, ``Sig. Giancarlo Bertolazzi``; the guide splits
# 5 such spans, MEDDOCAN train and dev none): the span moves to the name, the capitalised
# words after the dot up to the end of the field.
_TITLE_ALONE = re.compile(r"(?:Mr|Mrs|Ms|Miss|Sig|Sig\.ra|Mme|Mlle|Herr|Frau|Sr|Sra|Srta|Dña|Don|Doña)")
_NAME_AFTER_TITLE = re.compile(
    rf"\.?[ \t]+(?P<name>[{UPPER}][^\W\d_]+(?:[-'’][^\W\d_]+)*"
    rf"(?:[ \t](?:(?:de|del|de[ \t]la|y|i)[ \t])?[{UPPER}][^\W\d_]+(?:[-'’][^\W\d_]+)*){{0,4}})"
)


def without_titles(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping one another) with a courtesy title cut from the
    start of a person's name (``D. Nauzet Santana`` → ``Nauzet Santana``), and a span that
    is a title alone moved to the name after it, or dropped where a span holds that name."""
    out: list[PHISpan] = []
    spans = sorted(spans)
    for i, span in enumerate(spans):
        if span.type in NAME_TYPES and (m := _LEADING_TITLE.match(text, span.start)) and m.end() < span.end:
            span = replace(span, start=m.end(), text="", replacement=None)
        elif span.type in NAME_TYPES and _TITLE_ALONE.fullmatch(text, span.start, span.end):
            name = _NAME_AFTER_TITLE.match(text, span.end)
            if name is None:
                out.append(span)
                continue
            following = spans[i + 1] if i + 1 < len(spans) else None
            if following is not None and following.start < name.end("name"):
                continue  # the name has a span of its own (or another span stands there)
            span = replace(span, start=name.start("name"), end=name.end("name"), source=RULE, text="", replacement=None)
        out.append(span)
    return out


def _name_field(labels: str) -> re.Pattern[str]:
    """A field opening its line with one of ``labels`` (or two, a bilingual form's: ``Pacient
    / Paciente``), a colon (or a run of dots: ``Paciente ........ POPESCU``) and a name: the
    capitalised words up to the end of the field, the courtesy title left out."""
    return re.compile(
        # (or a table's row: ``| Paciente      | PICHLER, WALBURGA |``)
        rf"^{SP}*(?:\|{SP}*)?(?:{labels})(?:{SP}*/{SP}*(?:{labels}))?{SP}*(?:\.?{SP}*:|\.{{2,}}{SP}*:?|(?P<bar>\|))"
        rf"{SP}*(?:{_COURTESY}{SP}*)?"
        # (maybe a given name's initial first: "Infermera: C. Pons")
        rf"(?P<name>(?!{_COURTESY})(?:[{UPPER}]\.{SP}?(?=[{UPPER}][^\W\d_]))?{_WORD}"
        rf"(?:{SP}(?:(?:de|del|de{SP}la|de{SP}los|y|i){SP})?{_WORD}){{0,4}})"
        # and then the end of the field: punctuation, the end of the line or a wide gap
        rf"(?={SP}*(?:[.,;(|·]|$)|{SP}{{2,}})",
        re.IGNORECASE | re.MULTILINE,
    )


_STAFF_FIELD = _name_field(
    rf"médic[oa](?:{SP}+(?:responsable|adjunt[oa]|residente|de{SP}+familia))?|doctor[a]?|facultativ[oa]"
    rf"|responsable{SP}+clínic[oa]|enfermer[oa](?:{SP}+responsable)?|matrona|remitid[oa]{SP}+por|firmado{SP}+por"
    # (Catalan, Galician and Basque: "Infermera:", "Metge responsable:", "Enfermeira:", "Erizaina:")
    rf"|infermer[a]?(?:{SP}+responsable)?|metge(?:{SP}+responsable)?|metgessa|llevadora|enfermeir[oa]|erizaina?"
    rf"|fdo|informado{SP}+por|realizado{SP}+por"
    # the other staff a report or a sheet names in a field ("Residente: Laura …", "MIR: …")
    rf"|residente|mir|adjunt[oa]|supervisor[a]?|trabajador[a]?{SP}+social|fisioterapeutas?|logopeda|psicólog[oa]"
    # a specialist named by the specialty (``Psiquiatra:``, ``PATOLOGO.:``, ``Cirujano:``,
    # ``Anestesista:``), the responsible doctor abbreviated (``MEDICO RESP.:``)
    rf"|[^\W\d_]+(?:ólog[oa]s?|olog[oa]s?|iatras?|istas?)|cirujan[oa]s?|médic[oa]{SP}+resp\.?|medic[oa]{SP}+resp\.?"
)
# The patient's name fields of other forms than MEDDOCAN's ``Nombre:`` template, in
# the co-official languages too (``Pacient:``, ``Nome:``, ``Izena:``).
_PATIENT_FIELD = _name_field(
    rf"paciente|pacient|nombre|nom|nome|izena|nombre{SP}+y{SP}+apellidos|apellidos{SP}+y{SP}+nombre"
    rf"|nome{SP}+e{SP}+apelidos|nom{SP}+i{SP}+cognoms|usuari[oa]"
    # the surnames first (``Cognoms i nom ..... BOUKHALFA MERABET, NADIA``)
    rf"|cognoms,?{SP}+(?:i{SP}+)?nom|apelidos,?{SP}+(?:e{SP}+)?nome|apellidos,?{SP}+nombre|abizenak{SP}+eta{SP}+izena"
    # the surnames' own field (``Cognoms: LIN``, ``Apellidos ..... PETROSYAN``): a surname alone
    # is what the model passes over (the guide splits, 3 of 3 such one-word fields missed)
    rf"|apellidos|apelidos|cognoms|abizenak"
    # a mutua's or a prevention service's worker, an insurer's insured person, a deceased
    rf"|trabajador[a]?(?!{SP}+social)|treballador[a]?(?!{SP}+social)|asegurad[oa]|lesionad[oa]|fallecid[oa]"
)
_NAME_WORD = re.compile(_WORD)
# Where a name in a field stops: the department, hospital or street written after it
# on the same line ("Dra. Celia Quicios Dorado Servicio de Urología").
_NOT_NAME_WORDS = (
    SPECIALTY_WORDS
    | INSTITUTION_WORDS
    | {normalize(w).rstrip(".") for t in STREET_TYPES for w in t.split()}
    | {"apartado", "residente", "adjunto", "adjunta", "jefe", "jefa", "especialista", "medico", "no", "si"}
)


# A doctor named by the title and surnames anywhere in running text (``TC de macizo facial
# (Dr. Bensimón, radiólogo de guardia)``, ``la Dra. Lasa``, ``Doctora Ruiz de la Serna``),
# and a nurse or a nursing assistant by theirs (``Enf. Yeray Hdez / TCAE Acerina``):
# staff (P5.1), the title left out (N5.1). Not after the head of a place named after a
# doctor (``Hospital Dr. Negrín``, ``Avda. Doctor Fleming``, ``CEIP Doctor …``). The rule layer
# adds it after the merge, only where no span overlaps it: a hospital the model found (``el
# Doctor Peset``) stays a hospital, and a name the model found keeps its edges.
_LONG_WORD = rf"[{UPPER}][^\W\d_]+(?:['’-][{UPPER}][^\W\d_]+)*"
_TITLED_NAME = re.compile(
    rf"(?<![\w.])(?:Dr|Dra|Dr\.ª|Doctor|Doctora|Enf|TCAE|DUE)\.?{SP}+"
    rf"(?P<name>{_LONG_WORD}(?:{SP}+(?:(?:de|del|de{SP}la|y|i){SP}+)?{_LONG_WORD}){{0,3}})(?![\w/-])"
)
# Words that end the name: those that end a name in a field, and a header's next field on the
# same line ("Dr. Luis Moyano Calvo Correo electrónico: …", "… Sección de Urología").
_AFTER_TITLED_NAME = _NOT_NAME_WORDS | frozenset(
    "correo correos email mail direccion seccion servicio departamento unidad tel telefono movil fax col nºcol".split()
)
_PLACE_HEAD_BEFORE = re.compile(
    rf"(?i:hospital|hosp\.|clínica|instituto|centro|calle|c/|avda\.?|avenida|plaza|paseo|colegio|ceip|ies"
    rf"|fundación|residencia|consultorio|complejo|policlínica|hospitalario|universitario|universitari)\.?{SP}+\Z"
)


def titled_staff(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` plus a staff span on each name after a doctor's title (see above) that no
    span overlaps."""
    coverage = Coverage((s.start, s.end) for s in spans)
    added = [PHISpan(a, b, STAFF, 1.0, RULE) for a, b, _ in find_titled_staff(text) if not coverage.overlaps(a, b)]
    return sorted([*spans, *added]) if added else list(spans)


def find_titled_staff(text: str) -> Iterator[Match]:
    """A name after a doctor's title in running text (see above)."""
    for m in _TITLED_NAME.finditer(text):
        if _PLACE_HEAD_BEFORE.search(text, max(0, m.start() - 20), m.start()):
            continue
        end = m.start("name")
        for word in _NAME_WORD.finditer(text, m.start("name"), m.end("name")):
            if normalize(word.group()) in _AFTER_TITLED_NAME:
                break
            end = word.end()
        if end > m.start("name"):
            yield m.start("name"), end, STAFF


def find_labelled_staff(text: str) -> Iterator[Match]:
    """The name in a header field that names the doctor (see the module)."""
    return _names_in_fields(_STAFF_FIELD, text, STAFF)


def find_labelled_patients(text: str) -> Iterator[Match]:
    """The name in a field that names the patient (``Paciente: …``, ``Nome: …``)."""
    return _names_in_fields(_PATIENT_FIELD, text, PATIENT)


# The given name after the surnames and a comma, as a legacy form writes a person
# (``PACIENTE ....: CASTIÑEIRA OUTEDA, XOSE BENITO``, ``MEDICO RESP.: ARRIBAS DE PABLO, M.
# TERESA``): a span of its own (MEDDOCAN and the notes write two), up to the field's end.
_GIVEN_AFTER_SURNAMES = re.compile(
    rf",{SP}*(?P<given>(?:[{UPPER}]\.{SP}*)?{_WORD}(?:{SP}{_WORD}){{0,2}})(?={SP}*(?:[.;(|·]|$)|{SP}{{2,}})",
    re.MULTILINE,
)


_CAPITAL_PARTICLES = frozenset(("de", "del", "la", "los", "las", "y", "i"))
_NEWBORN_OF = re.compile(rf"(?i:R\.?{SP}?N\.?{SP}+de|rec[ií]én{SP}+nacid[oa]{SP}+de){SP}+")


# The rest of a table's row after its value: a row of two cells, label and value (not a
# header row, ``| Paciente | Edad | Sexo |``).
_ROW_END = re.compile(rf"{SP}*\|{SP}*$", re.MULTILINE)


def _names_in_fields(field: re.Pattern[str], text: str, type_: str) -> Iterator[Match]:
    for m in field.finditer(text):
        if m.group("bar") and not _ROW_END.match(text, _value_end(text, m.end("name"))):
            continue
        end = m.start("name")
        for word in _NAME_WORD.finditer(text, m.start("name"), m.end("name")):
            if word.group().isupper() and word.group().lower() in _CAPITAL_PARTICLES:
                continue  # "ARRIBAS DE PABLO", "SANTAMARIA Y OCHOA": the name goes on
            if normalize(word.group()) in _NOT_NAME_WORDS or not word.group()[0].isupper():
                break
            end = word.end()
        if end > m.start("name"):
            # A newborn registered by the mother's name ("Paciente: RN DE NDIAYE SARR, AWA"):
            # the name and the given name after it are hers, the relative's (the notes' dev
            # half; MEDDOCAN has no such field).
            newborn = _NEWBORN_OF.match(text, m.start("name"), end)
            start = newborn.end() if newborn else m.start("name")
            kind = RELATIVE if newborn else type_
            if start < end:
                yield start, end, kind
            if end == m.end("name") and (given := _GIVEN_AFTER_SURNAMES.match(text, end)):
                # in the same letter case as the surnames ("Dr. Luis Roberto León, DIAVERUM"
                # names a company after the doctor)
                if given.group("given").isupper() == text[start:end].isupper():
                    yield given.start("given"), given.end("given"), kind


def _value_end(text: str, end: int) -> int:
    """Where a field's value ending at ``end`` ends with the given name after its comma."""
    given = _GIVEN_AFTER_SURNAMES.match(text, end)
    return given.end("given") if given else end


# The patient named in a field of the note's header (``Paciente: Daniel Royo Mairal``) is
# the patient wherever else the note names them, whole or in part (``Revisamos ayer a
# Daniel``), though the model took a mention for a relative or staff: the name's words in
# another person's span that holds no kinship word and no title before it are retyped.
_TITLE_BEFORE = re.compile(rf"(?:{_COURTESY}|Dr|Dra|Doctor|Doctora|Enf|Enfermer[oa])\.?{SP}*\Z", re.IGNORECASE)
_OTHER_PERSONS = frozenset((STAFF, RELATIVE))


def patient_named_everywhere(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with other persons' spans made of the patient's field name's words
    retyped as the patient (see above)."""
    if not any(s.type in _OTHER_PERSONS for s in spans):
        return list(spans)
    words = {
        normalize(w.group())
        for a, b, kind in find_labelled_patients(text)
        if kind == PATIENT
        for w in _NAME_WORD.finditer(text, a, b)
        if len(w.group()) > 2
    }
    if not words:
        return list(spans)
    out = list(spans)
    for i, span in enumerate(out):
        if span.type not in _OTHER_PERSONS:
            continue
        mention = [normalize(w.group()) for w in _NAME_WORD.finditer(text, span.start, span.end)]
        if not mention or not all(w in words for w in mention) or KIN_AT.search(text, span.start, span.end):
            continue
        if _TITLE_BEFORE.search(text, max(0, span.start - 12), span.start):
            continue
        out[i] = replace(span, type=PATIENT, source=RULE)
    return out


def newborns_mothers(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with a person's span that opens on a newborn's ``RN DE`` cut to the
    mother's name after it and typed hers (see _NEWBORN_OF)."""
    out = list(spans)
    for i, span in enumerate(out):
        if span.type in (PATIENT, RELATIVE) and (m := _NEWBORN_OF.match(text, span.start, span.end)):
            if m.end() < span.end:
                out[i] = replace(span, start=m.end(), type=RELATIVE, source=RULE)
    return out
