"""Ages under a year and ages written with a unit the model rarely sees
(EDAD_SUJETO_ASISTENCIA).

The guidelines (P2.2, P2.3) annotate ages in hours, days, weeks and months with their
unit: ``Recién nacido de [tres días] de vida``. MEDDOCAN train has few of them (22
``N meses``, 6 in days, 1 in weeks), so the model misses most in neonatal and paediatric
notes. Two forms are unambiguous enough for a rule:

* a duration followed by ``de vida`` (``a las 60 h de vida``, ``Varón de 26 días de vida``);
* a duration after a word for a baby or child and ``de`` (``Niña de 3 días``,
  ``lactante de 8 semanas``, ``RN de 36 horas``).

The span is the number and its unit, ``de vida`` left out (as in MEDDOCAN train's
``un mes``, ``26 días``). A bare ``3 días`` is usually a duration (``fiebre de 3 días``),
so without one of these cues nothing is proposed.

Ages in years the model has not seen written that way are found by
:func:`find_ages_in_words` (a person word, ``de`` and an age in words: ``varón de
setenta y dos años``) and :func:`find_labelled_ages` (a field label in Spanish,
Catalan, Galician or Basque and a number: ``Edat: 34 anys``, ``Idade: 83 anos``,
``edad 58``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from deid_crf.deid.recognizers import number_words
from deid_crf.deid.recognizers.common import AGE_LABELS, SP, Match, letter_first
from deid_crf.deid.recognizers.lower_case_names import clinical_words
from deid_crf.deid.recognizers.relatives import KIN_WORD
from deid_crf.gazetteers.spanish import MONTHS, UPPER
from deid_crf.text.spans import RULE, Coverage, PHISpan

AGE = "EDAD_SUJETO_ASISTENCIA"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"

_NUMBER = (
    r"(?:\d{1,3}(?:[.,]5)?|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|"
    r"trece|catorce|quince|dieciséis|diecisiete|dieciocho|diecinueve|veinte|veintiún|veintiuno|"
    r"treinta|cuarenta)"
)
_UNIT = r"(?:horas?|h|días?|dias?|semanas?|meses|mes)"
_DURATION = rf"{_NUMBER}{SP}*{_UNIT}(?:{SP}+y{SP}+(?:medio|media|{_NUMBER}{SP}*{_UNIT}))?"
_BABIES = (
    *(rf"reci[ée]n{SP}+nacid[oa]", "RN", "neonato", "neonata", "lactante", "beb[ée]", "niñ[oa]", "var[óo]n"),
    *("hij[oa]", "gemel[oa]"),
)

_OF_LIFE = re.compile(rf"(?<![\w.,])(?P<age>{_DURATION})(?!\w){SP}+de{SP}+vida\b", re.IGNORECASE)
# ``niño de 3 días de evolución``: a duration of something else.
_NOT_AN_AGE = rf"(?!{SP}+de{SP}+(?:evoluci|duraci|fiebre|ingreso|tratamiento|estancia|seguimiento|gestaci))"
_AFTER_BABY = re.compile(rf"{letter_first(_BABIES)}(?i:{SP}+de{SP}+(?P<age>{_DURATION})(?!\w){_NOT_AN_AGE})")


# A baby's age in an age field, maybe said when (``Edad al alta: 22 días``, ``Edad a la
# extracción: 2 meses y 2 días``, ``Edad: 7 semanas``); not a gestational, corrected or bone
# age (``Edad gestacional: 38 semanas``: no PHI, as the notes' README says).
# (matched only where _FIELD_HINT finds the label's "dad"/"dat", one letter after its start;
# tests/test_rule_prefilters.py checks it finds what the plain "(?<!\w)(?i:edad|…)" form does)
_YOUNG_AGE_FIELD = re.compile(
    rf"[EeIi](?<!\w[EeIi])(?i:dad|dat|dade)(?:{SP}+(?i:al|a{SP}+la|en{SP}+el|a{SP}+l['’])(?:{SP}*[^\W\d_]+)?)?{SP}*:{SP}*"
    rf"(?P<age>{_DURATION})(?!\w)"
)


_FIELD_HINT = re.compile("dad|dat|DAD|DAT|Dad|Dat")


# Every match of _OF_LIFE holds "vida" (ignoring case, as it does): a text without it,
# three in four MEDDOCAN notes, is not searched for one.
_LIFE = re.compile("vida", re.IGNORECASE)


def find_young_ages(text: str) -> Iterator[Match]:
    """Durations that are a baby's or child's age (see the module)."""
    patterns = (_OF_LIFE, _AFTER_BABY) if _LIFE.search(text) else (_AFTER_BABY,)
    found = {(m.start("age"), m.end("age")) for pattern in patterns for m in pattern.finditer(text)}
    # (the age field tried only where its label's "dad"/"dat" stands: d is rarer than e or i)
    for hint in _FIELD_HINT.finditer(text):
        if hint.start() and (m := _YOUNG_AGE_FIELD.match(text, hint.start() - 1)):
            found.add((m.start("age"), m.end("age")))
    for start, end in sorted(found):
        yield start, end, AGE


_PERSONS = (
    *("var[óo]n", "mujer", "hombre", "paciente", "señora?", "niñ[oa]", "chic[oa]", "ancian[oa]", "adolescente"),
    *("joven", "muchach[oa]", "lactante"),
)
# Opening with the person word's first letter (common.letter_first): re skips to the
# next letter that can open one in C.
_IN_WORDS = re.compile(
    rf"{letter_first(_PERSONS)}(?i:{SP}+de{SP}+(?P<age>{number_words.AGE}{SP}+(?:años|meses))(?!\w))"
)
# "Edad: 58 años", "Edat: 34 anys", "Idade: 83 anos", "Adina: 40 urte", "edad 58": the
# number and its unit; not "Edad gestacional" nor "edad de inicio". A form may write the
# field with dot leaders or as a table cell, the birth date first (``F. nac. / Edat ......
# 09/09/1971 / 53 anys``, ``edad | 30/06/2003 / 21``) or with the sex after it
# (``IDADE/SEXO .... 76 anos / Muller``, a table's ``| Edad / Sexo | 44 / M |``).
_BIRTH_DATE_FIRST = rf"(?:\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}{SP}*/{SP}*)?"
_LABELLED = re.compile(
    rf"{letter_first(AGE_LABELS)}(?i:(?:{SP}*/{SP}*(?:sexo|sexe|sexua))?{SP}*(?::|\.{{2,}}|\|)?{SP}*{_BIRTH_DATE_FIRST}"
    rf"(?P<age>\d{{1,3}}(?:{SP}*(?:años|anys|anos|urte|years)(?!\w))?)"
    rf"(?![\w/%]|[.,:]\d|{SP}*(?:%|kg|cm|mg|semanas|meses|días)))"
)
# The age in brackets after a birth date (``F. nac.: 15.04.1939 (85)``, ``nacida el
# 02/05/1950 (74 años)``, ``nacido el 9 de marzo de 1949 (setenta y seis años)``), in
# figures or in words.
_BIRTH = letter_first([r"nac(?:\.|imiento|ido|ida)?"])
_AFTER_BIRTH_DATE = re.compile(
    rf"{_BIRTH}(?:{SP}+el)?{SP}*:?{SP}*"
    rf"(?:\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}|\d{{1,2}}{SP}+de{SP}+(?i:{'|'.join(MONTHS)}){SP}+de{SP}+\d{{4}}){SP}*"
    rf"\({SP}*(?P<age>(?:\d{{1,3}}|(?i:{number_words.AGE})(?={SP}+(?i:años|anys|anos)))"
    rf"(?:{SP}*(?i:años|anys|anos|a))?){SP}*\)"
)


def find_ages_in_words(text: str) -> Iterator[Match]:
    """An age in words after a person word (``mujer de cuarenta y cinco años``)."""
    for m in _IN_WORDS.finditer(text):
        yield m.start("age"), m.end("age"), AGE


# An age written bare as when something began or ended ("con DM1 desde los 6,", "pastor de
# ovejas hasta los 70,", "antes de los 45."): the notes annotate it, 4 times of 4. MEDDOCAN
# train and dev never write it without a unit (``desde los 12 años``, which the model finds).
_BARE_AGE_SINCE = re.compile(
    letter_first(["desde", "hasta", f"antes{SP}+de", f"después{SP}+de", f"a{SP}+partir{SP}+de"])
    + rf"{SP}+(?i:los|las|els|os){SP}+(?P<age>\d{{1,3}})(?![.,]\d)(?={SP}*[,.;:)]|{SP}*$)",
    re.MULTILINE,
)


# The age as a field of its own on a terse note's patient line, after the name and
# before the sex or the card numbers (``pac: abdoulaye faye diop   39a  V   cip: …``,
# ``pac: … · 44a · v · cip …``, ``pac: …  38a M  CIP …``): the guide splits 4, all EDAD;
# MEDDOCAN has no such line.
_AGE_IN_PATIENT_LINE = re.compile(
    r"^[ \t]*(?i:pac|paciente|pacient)\.?[ \t]*:[^\n]*?(?:[·•|]|[ \t]{2,})[ \t]*"
    r"(?P<age>\d{1,3}[ \t]?(?:a|años|anys|anos))"
    r"(?=[ \t]*(?:[·•|]|[ \t]{2,}|$)|[ \t][HMVFhmvf](?:[ \t]*[·•|]|[ \t]{2,}|$))",
    re.MULTILINE,
)


def find_labelled_ages(text: str) -> Iterator[Match]:
    """The number after an age field label, with its unit when written, or in brackets
    after a birth date; a bare age after ``desde los``, ``hasta los``, ``antes de los``;
    the age field of a terse patient line (``pac: … 39a``)."""
    for m in (
        *_LABELLED.finditer(text),
        *_AFTER_BIRTH_DATE.finditer(text),
        *_BARE_AGE_SINCE.finditer(text),
        *_AGE_IN_PATIENT_LINE.finditer(text),
    ):
        if not (digits := re.match(r"\d+", m.group("age"))) or int(digits.group()) < 120:
            yield m.start("age"), m.end("age"), AGE  # (an age in words is below 120 by its pattern)


# "a los 47 y 59 años", "a los 22, 24 y 30 años": the unit comes once, after the last
# age, so the model finds the last and misses the others. MEDDOCAN train annotates each
# (``a los 22 y 24 años``: ``22`` and ``24 años``, two spans of one type).
_AGE_WITH_UNIT = re.compile(rf"\d{{1,3}}{SP}+(?:años|meses|anys|anos|urte)")
_EARLIER_AGE = re.compile(rf"(?<![\w.,])(?P<age>\d{{1,3}}){SP}*(?:,|y|e|i){SP}*$")
_AGES_OPENING = re.compile(rf"(?<!\w)(?i:a|entre|de){SP}+(?i:los|els|os){SP}+$")
_PAIRED_TYPES = (AGE, RELATIVE)


def ages_before_their_unit(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) with each bare age of a list whose last
    age (an age or a relative span, ``59 años``) carries the unit added as a span of
    the last age's type, when ``a los`` opens the list and no span covers it."""
    coverage = Coverage((s.start, s.end) for s in spans)
    added = []
    for span in spans:
        if span.type not in _PAIRED_TYPES or not _AGE_WITH_UNIT.fullmatch(text, span.start, span.end):
            continue
        end, found = span.start, []
        while (m := _EARLIER_AGE.search(text, max(0, end - 12), end)) and not coverage.overlaps(*m.span("age")):
            found.append(m.span("age"))
            end = m.start()
        if found and _AGES_OPENING.search(text, max(0, end - 12), end):
            added += [PHISpan(start, stop, span.type, span.confidence, RULE) for start, stop in found]
    return sorted([*spans, *added])


# "a los seis meses de edad", "el niño con 15 meses de edad", "a la edad de 10 años": an
# age stated as one. MEDDOCAN train annotates 154 of the 171 "N años|meses … de edad" and
# the rest are relatives' ages (FAMILIARES_SUJETO_ASISTENCIA, "Hermana de 55 años de edad")
# or pieces of a list; the model misses them in paediatric histories.
_STATED_UNIT = r"(?:años|meses|mes|semanas|días|dias)"
_STATED_AGE = rf"{_NUMBER}{SP}+{_STATED_UNIT}"
_OF_AGE = re.compile(rf"(?<![\w.,])(?P<age>{_STATED_AGE})(?!\w){SP}+de{SP}+edad\b", re.IGNORECASE)
_AT_AGE = re.compile(rf"\ba{SP}+la{SP}+edad{SP}+de{SP}+(?P<age>{_STATED_AGE})(?!\w)", re.IGNORECASE)
# Every match of _OF_AGE or _AT_AGE holds "edad" (ignoring case).
_EDAD = re.compile("edad", re.IGNORECASE)
# A relative's age: a kinship word earlier in the same sentence, within a few words.
_RELATIVE_BEFORE = re.compile(rf"(?<!\w){KIN_WORD}(?!\w)[^.;\n]{{0,40}}$", re.IGNORECASE)


def stated_ages(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) with each age stated as one (``N años de
    edad``, ``a la edad de N meses``) that no span overlaps added: a relative's
    (FAMILIARES_SUJETO_ASISTENCIA) after a kinship word in the same sentence, else the
    patient's."""
    if not _EDAD.search(text):
        return list(spans)
    coverage = Coverage((s.start, s.end) for s in spans)
    added = []
    for pattern in (_OF_AGE, _AT_AGE):
        for m in pattern.finditer(text):
            start, end = m.span("age")
            if coverage.overlaps(start, end) or any(a.start < end and start < a.end for a in added):
                continue
            relative = _RELATIVE_BEFORE.search(text, max(0, start - 80), start)
            added.append(PHISpan(start, end, RELATIVE if relative else AGE, 1.0, RULE))
    return sorted([*spans, *added])


# "hace más de 30 años", "desde hace 22 años", "durante los últimos 40 años", "en un
# periodo de 6 años", "de más de cinco años" de evolución: a duration, never an age. MEDDOCAN
# train: 168 such phrases, none in an entity; the model takes some for the patient's age.
_DURATION_BEFORE = re.compile(
    rf"(?:\bhace|\bdurante(?:{SP}+(?:los|las))?(?:{SP}+(?:últimos|últimas))?|\bper[ií]odo{SP}+de"
    rf"|\bevoluci[óo]n{SP}+de|\bm[áa]s{SP}+de|\bmenos{SP}+de)"
    rf"{SP}+(?:(?:m[áa]s|menos){SP}+de{SP}+|unos{SP}+|unas{SP}+|casi{SP}+|aproximadamente{SP}+)?$",
    re.IGNORECASE,
)


def durations_not_ages(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` without the patient's ages that a duration's words open (see above)."""
    return [s for s in spans if s.type != AGE or not _DURATION_BEFORE.search(text, max(0, s.start - 40), s.start)]


# "paciente: antía piñeiro figueiras, 39 anos, tis …", "Juan Pérez, 67 años": an age right
# after the patient's name and a comma is the patient's (MEDDOCAN train and dev have no
# such case; the notes' headers do).
_AGE_AFTER_NAME = re.compile(rf"{SP}*,{SP}*(?P<age>\d{{1,3}}{SP}*(?:años|anos|anys|a)(?!\w))")
PATIENT = "NOMBRE_SUJETO_ASISTENCIA"


def ages_after_patient_names(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) with the age right after a patient's name
    and a comma added, where no span covers it."""
    coverage = Coverage((s.start, s.end) for s in spans)
    added = [
        PHISpan(m.start("age"), m.end("age"), AGE, 1.0, RULE)
        for s in spans
        if s.type == PATIENT
        and (m := _AGE_AFTER_NAME.match(text, s.end))
        and not coverage.overlaps(m.start("age"), m.end("age"))
    ]
    return sorted([*spans, *added]) if added else list(spans)


# A patient named right before their sex or "de" and their age, after a comma, in a referral's
# or an e-mail's running text (``Te paso a Taras Hnatiuk, varón de 46 años, natural de…``,
# ``Valoramos a Ngozi Okafor, mujer de 38 años``): two to four capitalised words that no span
# covers, after "a", a courtesy title, a colon or the line's start, one of them at least no
# word of clinical text, and no kinship word just before them (``su hija a Rosa Gil, de 40
# años`` is a relative's). The guide splits: 2 (dev9's e-mail, whose subject line
# propagate_names then finds); MEDDOCAN train and dev: none.
_SEX_AND_AGE_AFTER = re.compile(
    rf",{SP}*(?:(?i:var[oó]n|mujer|hombre|ni[ñn][oa]|chic[oa]){SP}+)?de{SP}+\d{{1,3}}{SP}*(?:años|anos|anys)(?!\w)"
)
_NAME_BEFORE_AGE = re.compile(
    rf"(?:(?<=\ba )|(?<=\bSr\. )|(?<=\bSra\. )|(?<=\bD\. )|(?<=\bDña\. )|(?<=: )|^)"
    rf"(?P<name>[{UPPER}][^\W\d_]+(?:{SP}+(?:(?:de|del|van|von|da|dos|al|el){SP}+)?[{UPPER}][^\W\d_]+(?:-[{UPPER}][^\W\d_]+)?){{1,3}})\Z",
    re.MULTILINE,
)
_KIN_BEFORE_NAME = re.compile(rf"(?i:{KIN_WORD}){SP}*,?{SP}*(?:a{SP}+)?\Z")


def patients_before_their_age(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` plus a NOMBRE_SUJETO_ASISTENCIA span for a patient named right before
    their sex and age (see above)."""
    if ", " not in text:
        return list(spans)
    coverage = None  # built at the first candidate: most texts have none
    added = []
    for age in _SEX_AND_AGE_AFTER.finditer(text):
        line_start = text.rfind("\n", 0, age.start()) + 1
        name = _NAME_BEFORE_AGE.search(text, max(line_start, age.start() - 80), age.start())
        if name is None:
            continue
        if coverage is None:
            coverage = Coverage((s.start, s.end) for s in spans)
        if coverage.overlaps(*name.span("name")):
            continue
        words = name["name"].split()
        if all(w.lower() in clinical_words() for w in words):
            continue
        if _KIN_BEFORE_NAME.search(text, max(0, name.start() - 30), name.start()):
            continue
        added.append(PHISpan(*name.span("name"), PATIENT, 1.0, RULE))
    return sorted([*spans, *added]) if added else list(spans)


# An age in years and months, the months left out of the span (``EDAD: 6 A 10 M`` found as
# ``6 A``, ``3 años y 8 meses`` as ``3 años``): MEDDOCAN train and dev write it as one
# span (``3 años y 8 meses``, ``13 años y 7 meses``: 3 of 3), and so do the notes.
_YEARS_UNIT_END = re.compile(rf"(?<=\d){SP}*(?:años|anys|anos|a|A)\.?$")
_MONTHS_AFTER = re.compile(rf"(?:,?{SP}+(?:y|i|e))?{SP}+\d{{1,2}}{SP}*(?:meses|mes|mesos|m|M)(?![\w])")


def ages_with_their_months(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping one another) with each age span that ends in a
    unit of years widened over the months right after it, where no span starts there."""
    out = list(spans)
    for i, span in enumerate(out):
        if span.type != AGE or not _YEARS_UNIT_END.search(text, span.start, span.end):
            continue
        if (m := _MONTHS_AFTER.match(text, span.end)) and (i + 1 == len(out) or out[i + 1].start >= m.end()):
            out[i] = PHISpan(span.start, m.end(), AGE, span.confidence, RULE)
    return out
