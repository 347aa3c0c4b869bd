"""What a person does for a living, and for whom: professions after a cue, companies by
their legal form.

* ``trabaja como camionero``, ``trabajó de costurera en Triana``, ``de profesión
  farmacéutica``, ``Profesión: transportista de mercancías``: the words after the cue
  are a PROFESION span (guideline P7.1: "cualquier trabajo que aparezca en el
  texto"), a head with at most two more words (``auxiliar de geriatría``, ``peón
  agrícola``), stopping at a preposition other than ``de``, a conjunction or
  punctuation. Words that follow such cues without being a job (``trabaja de
  noche``, ``de lunes a viernes``) are refused.
* ``el hijo mayor que es camionero``, ``antiguo agricultor``, ``LA MADRE, ES
  DEPENDIENTA``: after a weaker cue (``que es``, ``, es``, ``antiguo``), only a word
  of the project's list of everyday jobs (``OCCUPATION_STEMS`` in
  ``gazetteers/spanish.py``), so that ``que es portador`` and ``es responsable`` are
  left alone. Catalan and
  Galician cues count too (``treballa de``, ``traballa de``, ``com a``). A listed job
  in apposition to a patient's or relative's span (``su filla, Laura, farmacéutica``)
  is one too (:func:`professions_in_apposition`, after the merge).
* ``la fábrica de Confecciones Nalón``, ``el locutorio Bilbao Connect``: the name after
  a workplace's generic head, after a word about work on its line, is the employer
  (:func:`find_employers`).
* ``para Transportes Duero Norte S.L.``, ``su empresa, Logística Turia SL``:
  capitalised words ending in a company's legal form, after a word about work on
  their line, are the patient's employer, OTROS_SUJETO_ASISTENCIA (P28.1: "el nombre
  de la empresa para la que trabaja"); the form's dots are kept.
  A bare ``SA`` is not a form here (``nodo SA`` is the sinoatrial node).
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import replace

from deid_crf.deid.recognizers import number_words
from deid_crf.deid.recognizers.common import (
    OTHER_SUBJECT,
    SP,
    Match,
    by_first_letter,
    finditer_at,
    is_lower_case_note,
    letter_first,
    line_before,
    starts_before,
)
from deid_crf.deid.recognizers.places import is_place_name_at
from deid_crf.gazetteers.spanish import MONTHS, OCCUPATION_STEMS, SPECIALTY_WORDS, UPPER, WEEKDAYS, normalize
from deid_crf.text.spans import RULE, PHISpan

PROFESSION = "PROFESION"

# How long or since when someone worked, between the verb and "como" or "de" ("trabajó
# 30 años de operaria", "trabajó treinta años de operaria", "treballà tota la vida com a
# pagès", "trabaja desde 2021 como").
_WORKED_FOR = (
    rf"(?:{SP}+(?:durante{SP}+)?(?:(?:unos|casi|más{SP}+de){SP}+)?(?:\d{{1,2}}|muchos|varios|pocos"
    rf"|{number_words.BELOW_HUNDRED}){SP}+años"
    # or how ("trabaja a turnos como operador de planta")
    rf"|{SP}+a{SP}+turnos"
    rf"|{SP}+(?:toda{SP}+(?:la{SP}+|su{SP}+)?vida|tota{SP}+la{SP}+vida)"
    # or since when ("trabaja desde 2021 como bartender", "desde hace 3 años de")
    rf"|{SP}+desde{SP}+(?:(?:19|20)\d\d|hace{SP}+\S+{SP}+años))?"
)
_CUE = (
    r"(?:(?<!\w)(?:trabaja(?:ba|ndo)?|trabajó|trabajado|trabajar|ejerce|ejercía|ejerció"
    r"|treballa|treballava|treballà|treballar|traballa|traballaba|traballou)"
    # (the job may open the next line of a wrapped note: "a trabajar de⏎    tornero en Orbea")
    # (and "como" may open it: "Trabaja⏎como patrón de embarcación")
    rf"{_WORKED_FOR}(?:{SP}+|{SP}*\n{SP}*)(?:como|de|com{SP}+a)(?:{SP}+|{SP}*\n{SP}*)"
    rf"|(?<!\w)(?:de{SP}+)?profesión(?:{SP}+(?:declarada|habitual|actual))?{SP}*[:,]?{SP}*"
    rf"|(?<!\w)(?:ocupación|oficio){SP}*:{SP}*"
    rf"|(?<!\w)(?:su|un){SP}+(?:trabajo|empleo|puesto){SP}+como{SP}+"
    # "en su puesto de operaria de línea" (not "puesto de trabajo": a stop word; nor "el
    # puesto de Cabra", a Guardia Civil post, or "el Puesto de Socorro")
    rf"|(?<!\w)su{SP}+puesto{SP}+de{SP}+)"
)
_WORD = r"[^\W\d_]{3,}"
# Words that may not be a profession or go on one.
_STOP = frozenset(
    """
    en para desde hasta y e o u con a al durante por que hace sin cuando donde pero aunque
    el la los las un una unos unas su sus lo este esta ese esa mismo misma muy más menos
    actualmente antes después entonces todavía también ya no sí habitual habitualmente
    jubilado jubilada retirado retirada parado parada activo activa años meses días
    noche día tarde mañana turno turnos forma manera modo todo toda nuevo nueva casa baja alta
    lunes martes miércoles jueves viernes sábado domingo fin semana media completa jornada
    interés riesgo referencia oficio profesión matí tarda nit torn torns trabajo tot tota tots totes
    jubilat jubilats retirat xubilado xubilada joven jove novo nova niño niña pequeño pequeña chico chica
    fins des durant amb per quan als dels ata dende
    """.split()
)
_PROFESSION = re.compile(
    rf"{_CUE}(?P<head>{_WORD})"
    rf"(?P<rest>(?:{SP}+(?:de|del|de{SP}+la|de{SP}+los|de{SP}+las){SP}+{_WORD}|{SP}+{_WORD}){{0,2}})",
    re.IGNORECASE,
)


# Weaker cues: what follows them is a job only if the occupation lists say so.
# (also "como" before a listed job, "trabaja a turnos como operario", "Como camionero,";
# "fue pastor"; and a listed job in apposition to the patient, "La paciente, gandeira,")
_LISTED_CUE = (
    rf"(?:(?<!\w)(?:que|quien|q){SP}+(?:es|era|fue)|,{SP}*(?:es|era){SP}+(?:un|una{SP}+)?"
    rf"|(?:^|(?<=[.;|:]){SP}*)(?:es|era){SP}+"
    # (Catalan "ha estat", "va ser", "era" and Galician "foi": "Ha estat pagès tota la vida")
    rf"|(?<!\w)(?:como|fue|ha{SP}+sido|había{SP}+sido|ha{SP}+estat|va{SP}+ser|foi){SP}+(?:(?:un|una){SP}+)?"
    rf"|(?<!\w)(?:paciente|pacient|enferm[oa]|usuari[oa]){SP}*,"
    rf"|(?<!\w)(?:antigu[oa]|ex-?)){SP}*"
)
# A job's complements: "de" and a word, a word, or Catalan "d'" and a lower-case word
# ("conductor d'autobús").
_COMPLEMENT = (
    rf"(?:{SP}+(?i:de|del|de{SP}+la|de{SP}+los|de{SP}+las){SP}+{_WORD}|{SP}+{_WORD}|{SP}*d['’](?-i:[a-zàèéíïòóúü]+))"
)
_REST = rf"(?P<rest>{_COMPLEMENT}{{0,2}})"
# Where a cue can begin is checked first: at a letter that opens one of its words, a
# comma, a line's start or after ".", ";", ":" or "|" (the same matches, a quarter faster on
# MEDDOCAN dev; tests/test_rule_prefilters.py).
_LISTED_PROFESSION = re.compile(
    rf"(?:(?=[qcefhpuav,])|(?<=[.;|:])|^){_LISTED_CUE}(?P<head>{_WORD}){_REST}", re.IGNORECASE | re.MULTILINE
)


def _feminine(word: str) -> str:
    """The feminine of a masculine job noun ("camarero" → "camarera", "conductor" →
    "conductora", "payés" → "payesa"); the same word when it has no other form."""
    for ending, replacement in (("o", "a"), ("or", "ora"), ("er", "era"), ("ín", "ina"), ("és", "esa"), ("ès", "esa")):
        if word.endswith(ending):
            return word[: -len(ending)] + replacement
    return word


@functools.cache
def occupation_words() -> frozenset[str]:
    """Lower-case words that name a job (:data:`~deid_crf.gazetteers.spanish.OCCUPATION_STEMS`
    and their feminine forms). Written in the project rather than read from the built
    occupation lists, which are not shipped: the rules must answer the same everywhere."""
    return frozenset(w for stem in OCCUPATION_STEMS for w in (stem, _feminine(stem)))


# Clinicians' roles: after a name the model typed as the patient's they are a
# signature's (after a relative's name, the relative's job); alone they are labels.
_CLINICIAN_WORDS = frozenset(
    w
    for stem in (
        "médico enfermero cirujano anestesista psiquiatra psicólogo geriatra matrón fisioterapeuta técnico celador"
    ).split()
    for w in (stem, _feminine(stem))
)


# A listed job opening a sentence or a list item of a history, alone or before
# "jubilado", a comma or a preposition (``- Agricultor jubilado, natural de…``,
# ``Transportista de mercancías por carretera``). A clinician's word there is a
# label or a role (``Médico de guardia avisado``), not the patient's job.
# After a semicolon the job opens a clause in lower case (``en Sabadell desde 2006; limpiadora
# en Neteges Vallès SL``).
_JOB_ALONE = re.compile(
    rf"(?:^|(?<=[.;|]){SP}|(?<=^[-•*]{SP}))(?P<head>[{UPPER}][^\W\d_]+|(?<=;{SP})[^\W\d_]+){_REST}", re.MULTILINE
)
# (or before the employer's capitalised name, "Estibador de la Autoridad Portuaria de Ceuta";
# not before a colon, where a listed job is a form's label: "Ayudante: Dra. …")
_AFTER_JOB_ALONE = re.compile(
    rf"{SP}*(?:\.(?!\.)|[;,]|$)|{SP}+(?:(?:jubilad[oa]|retirad[oa]|jubilat|jubilada|xubilad[oa])(?!\w)|(?:por|para|en|POR|PARA|EN){SP})"
    rf"|{SP}+(?:de|del)(?:{SP}+(?:la|el|los|las))?{SP}+[{UPPER}]",
    re.MULTILINE,
)
# (or before another listed job after "y": "Agricultor y viticultor jubilado")
_AND_ANOTHER_JOB = re.compile(rf"{SP}+(?:y|e|i){SP}+(?P<word>[^\W\d_]+)")


# A listed job after a comma and before "jubilado" or "retirado" (``exfumador (40 paq-año),
# pescador jubilado;``): the notes annotate the job, 6 times of 6 (MEDDOCAN train leaves
# its one such job, ``minero jubilado``, unannotated; dev has none).
_JOB_BEFORE_RETIRED = re.compile(
    rf",{SP}+(?P<head>{_WORD})(?P<rest>){SP}+(?:jubilad[oa]s?|retirad[oa]s?)(?![^\W\d_])", re.IGNORECASE
)


# A listed job in apposition after a comma or a bracket and before where it is done, a
# capitalised employer or town after "en" (``natural de Ereván (Armenia), conductor de camión
# en Transportes …``, ``(pasaporte …), operario en Frigoríficos …``): the job, whatever the
# span before the comma (the guide splits 2 of 2; the apposition to a person is
# professions_in_apposition's).
# (also in brackets, "(envasadora en un almacén …)", and before Catalan or Galician "a"/"na"/
# "no" and a capital, "és bomber a Badalona"; in a note in lower case before any word,
# "(quesero en cabrales)")
_JOB_AT_EMPLOYER = re.compile(
    # (each alternative opens with a literal character: re skips to the next one in C)
    # (and Spanish "es"/"Es", maybe before a wrapped line's break: "su neta Aina es⏎infermera en el Hospital …")
    rf"(?:,|\)|\(|é(?<!\wé)s{SP}+|f(?<!\wf)o[ui]{SP}+|[eE](?<!\w[eE])s(?={SP}|\n))(?:{SP}*|{SP}*\n{SP}*)(?P<head>{_WORD})"
    rf"(?P<rest>(?:{SP}+(?:de|del|de{SP}+la){SP}+{_WORD})?)"
    rf"(?={SP}+(?:en|a|na|no){SP}+(?:(?P<article>el|la|los|las|un|una|o|a){SP}+)?(?P<next>[^\W\d_]))"
)


# A job the lists lack (or a listed one), after "fue", "era", "luego" or "después" and before where it was done
# (``fue quesera en la Quesería del Valle de Ansó``, ``luego conserje en el ajuntament de …``,
# Galician ``foi``): a word with a job's ending (-ero/-era, -eiro/-eira, -or/-ora, -ista,
# -ante, -ario/-aria, Catalan -er) and a capital after ``en`` (any word in a note in lower case);
# not a participle nor a comparative, an ordinal or an adjective of those endings.
_JOB_ENDING = re.compile(r"(?:er[oa]|eir[oa]|or|ora|ista|ante|ari[oa]|er)$")
_NOT_JOBS = frozenset(
    """primero primera tercero tercera postrero postrera entero entera mayor menor anterior posterior
    superior inferior exterior interior mejor peor importante abundante constante relevante necesario
    necesaria contrario contraria primario primaria secundario secundaria diario diaria ordinario ordinaria
    extraordinario extraordinaria habitual portador portadora anterior ulterior mayor igual similar
    diferente mismo misma ayer hacer tener poner ser ver estar haber""".split()
)
_WORKPLACE_CUES = tuple(
    form
    for cue in ("fue", "foi", "era", "luego", "después", "despois")
    for form in (cue, cue.capitalize(), cue.upper())
)
_JOB_BEFORE_WORKPLACE = re.compile(
    rf"(?<!\w)(?i:fue|foi|era|luego|después|despois){SP}+(?P<head>[a-zñáéíóúàèòçü]{{4,}})(?P<rest>)"
    rf"(?={SP}+(?:en|a){SP}+(?:(?:el|la|los|las){SP}+|l['’])?(?P<next>[^\W\d_]))"
)


_PARTICIPLE = re.compile(r"(?:ad|id)[oa]s?$")
_PREPOSITION_AFTER = re.compile(rf"{SP}+(?:en|a|al|por|con|desde|hasta)(?!\w)")


def _is_job_alone(text: str, m: re.Match[str]) -> bool:
    """A listed job, not a clinician's, that ends where a sentence or a clause does (a
    participle after it makes it the subject of a sentence: ``Celador avisado``)."""
    head = m.group("head").lower()
    if head not in occupation_words() or head in _CLINICIAN_WORDS:
        return False  # most capitalised words after a full stop: their end is not looked for
    end = _profession_end(m)
    return not any(_PARTICIPLE.search(w) for w in text[m.end("head") : end].split()) and (
        _AFTER_JOB_ALONE.match(text, end) is not None
        or ((other := _AND_ANOTHER_JOB.match(text, end)) is not None and other["word"] in occupation_words())
    )


# Where a cue of _PROFESSION can begin: at one of these words (an empty match at each),
# or one word before it ("de profesión", "su trabajo como"); few notes hold one.
_CUE_WORD = re.compile(
    r"(?<!\w)(?=(?i:"
    + by_first_letter(["trabaj", "ejerc", "treball", "traball", "profesi", "ocupaci", "oficio", "empleo", "puesto"])
    + "))"
)


def _cue_starts(text: str) -> list[int]:
    """Every position where a match of :data:`_PROFESSION` can begin."""
    return starts_before(text, [m.start() for m in _CUE_WORD.finditer(text)], 1)


# "cuidador de su madre", "tutor de sus hijos": a part someone plays, not a job.
_OF_SOMEONE = re.compile(rf"{SP}+de{SP}+(?:su|sus|mi|mis|tu|tus){SP}", re.IGNORECASE)


def find_professions(text: str) -> Iterator[Match]:
    """The job after a cue (see the module)."""
    listed = [
        m
        for m in _LISTED_PROFESSION.finditer(text)
        if m.group("head").lower() in occupation_words() and not _OF_SOMEONE.match(text, m.end("head"))
    ]
    listed += [m for m in _JOB_ALONE.finditer(text) if _is_job_alone(text, m)]
    listed += [
        m
        for m in _JOB_BEFORE_RETIRED.finditer(text)
        if (head := m.group("head").lower()) in occupation_words() and head not in _CLINICIAN_WORDS
    ]
    if any(cue in text for cue in _WORKPLACE_CUES):  # (few texts hold one: plain substrings first)
        listed += [m for m in _JOB_BEFORE_WORKPLACE.finditer(text) if _is_unlisted_job(text, m)]
    for m in _JOB_AT_EMPLOYER.finditer(text):
        head = m.group("head")
        if not head.islower() or head not in occupation_words() or head in _CLINICIAN_WORDS:
            continue
        # a capital after "en", a workplace after an article ("en un almacén"), or any word in a
        # note in lower case
        if not m.group("next").isupper() and m.group("article") is None and not is_lower_case_note(text):
            continue
        listed.append(m)
    cued = finditer_at(_PROFESSION, text, _cue_starts(text))
    seen = set()  # a job after "trabaja como" is one after "como" too
    for m in sorted([*cued, *listed], key=lambda m: m.start("head")):
        head = m.group("head")
        if head.lower() in _STOP or (head[0].isupper() and not head[1:].islower() and not head.isupper()):
            continue
        where = (m.start("head"), _profession_end(m))
        if where not in seen:
            seen.add(where)
            yield *where, PROFESSION


def _is_unlisted_job(text: str, m: re.Match[str]) -> bool:
    """The word of :data:`_JOB_BEFORE_WORKPLACE` is a job (see there)."""
    head = m.group("head")
    if head in _NOT_JOBS or head in _STOP or _PARTICIPLE.search(head):
        return False
    if not _JOB_ENDING.search(head) and head not in occupation_words():  # (a listed job of another ending: "conserje")
        return False
    if head in occupation_words() and head in _CLINICIAN_WORDS:
        return False
    return m.group("next").isupper() or is_lower_case_note(text)


def _profession_end(m: re.Match[str]) -> int:
    """Where the job of ``m`` ends: its head, and the following words while each is a
    lower-case content word (``auxiliar de geriatría``); in a note in capitals, while
    each is in capitals."""
    end, capitals = m.end("head"), m.group("head").isupper()
    for extra in re.finditer(
        rf"(?:{SP}+(?:(?:de|del|de{SP}+la|de{SP}+los|de{SP}+las){SP}+)?|{SP}*d['’])({_WORD})", m.group("rest")
    ):
        word = extra.group(1)
        if not (word.isupper() if capitals else word.islower()) or word.lower() in _STOP:
            break
        if _PARTICIPLE.search(word.lower()) and _PREPOSITION_AFTER.match(m.string, m.start("rest") + extra.end()):
            break  # "guardia civil destinado en …" (not "camionero de largo recorrido")
        end = m.start("rest") + extra.end()
    return end


# A job in apposition to a person, a relative or the patient's age (``su hija, Laura,
# farmacéutica``, ``EL PADRE, CHEN HAO, COCINERO``, ``su hija de 19 años, estudiante de
# Enfermería``, ``paciente de 46 años, empleada de hogar``): a listed job word right after
# the span and a comma.
_RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"
_APPOSED_TO = ("NOMBRE_SUJETO_ASISTENCIA", _RELATIVE, "EDAD_SUJETO_ASISTENCIA")
# (or in brackets: "Padre: Iñigo Goñi Arbizu (electricista)")
_APPOSED_PROFESSION = re.compile(rf"{SP}*(?:,|\(){SP}*(?P<head>{_WORD}){_REST}", re.IGNORECASE)


def professions_in_apposition(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping) with a PROFESION span added for each listed
    job in apposition to a patient's or relative's span (see above) that no span
    covers."""
    out = list(spans)
    for i, span in enumerate(spans):
        if span.type not in _APPOSED_TO:
            continue
        m = _APPOSED_PROFESSION.match(text, span.end)
        if m is None or m.group("head").lower() not in occupation_words():
            continue
        head = m.group("head")
        if not (head.islower() or head.isupper()):
            continue
        if span.type != _RELATIVE and head.lower() in _CLINICIAN_WORDS:
            continue  # a signature: "Dña. Amaia Goñi, médica de familia" is the staff's role
        start, end = m.start("head"), _profession_end(m)
        if i + 1 < len(spans) and spans[i + 1].start < end:
            continue
        out.append(PHISpan(start, end, PROFESSION, 1.0, RULE))
    return sorted(out)


# A job's complement that the model cut off (``auxiliar de ayuda`` + ``a domicilio``,
# ``estudiante`` + ``de Enfermería``): MEDDOCAN train keeps it in the span
# (``auxiliar de enfermería``, ``monitora de deporte``, ``jugador de fútbol``).
_COMPLEMENT = re.compile(rf"{SP}+(?:de|del|de{SP}+la|de{SP}+los|de{SP}+las|a){SP}+(?P<word>{_WORD})")
# Jobs whose complement is a field of study, which notes write capitalised.
_STUDY_JOBS = frozenset("estudiante alumno alumna licenciado licenciada graduado graduada profesor profesora".split())
# "Mecánico de profesión": the cue, not a complement.
_NOT_COMPLEMENT = _STOP | {"profesión", "profesió", "oficio", "ocupación"}


def professions_with_their_complement(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping) with each PROFESION span run on over the
    complements after it (``de`` or ``a`` and a lower-case content word; after a job
    of study, one capitalised field), up to the next span."""
    out = list(spans)
    for i, span in enumerate(spans):
        if span.type != PROFESSION:
            continue
        limit = spans[i + 1].start if i + 1 < len(spans) else len(text)
        end = span.end
        last_word = text[span.start : span.end].split()[-1].lower()
        while (m := _COMPLEMENT.match(text, end)) and m.end() <= limit:
            word = m.group("word")
            field = end == span.end and last_word in _STUDY_JOBS and word[:1].isupper() and word[1:].islower()
            if not (word.islower() and word not in _NOT_COMPLEMENT or field):
                break
            if m.group().split()[0] == "a" and word != "domicilio":
                break  # "a" only in "ayuda a domicilio": "auxiliar a tiempo parcial" stops
            end = m.end()
        if end != span.end:
            out[i] = PHISpan(span.start, end, PROFESSION, span.confidence, RULE)
    return out


LEGAL_FORM = (
    r"(?:S\.{SP}?L\.(?:U\.|L\.|N\.E\.)?|S\.{SP}?A\.(?:U\.|T\.)?|S\.{SP}?Coop\.|SLU|SLL|SL|SAU|SAT|SA|SCCL|SCL"
    # and abroad: a foreign employer's legal form ("North Sea Welding Ltd", "Nordhav Rederi AS")
    r"|Ltd\.?|LLC|Inc\.?|GmbH|AG|AS|ASA|A/S|AB|BV|B\.V\.|NV|SARL|SAS|S\.r\.l\.|Srl|SRL|SpA|S\.p\.A\.|Oy|Lda\.?)"
)
_NAME_WORD = rf"(?:[{UPPER}][^\W_]*(?:['’&.-][^\W_]+)*|[0-9]+)"
# The name's first capital looked for first and what precedes it checked after
# (``[A-Z](?<![\w.][A-Z])``, not ``(?<![\w.])[A-Z]``): the same matches, but re skips
# to the next capital in C.
_COMPANY = re.compile(
    rf"(?P<name>[{UPPER}](?<![\w.][{UPPER}])[^\W_]*(?:['’&.-][^\W_]+)*"
    rf"(?:{SP}+(?:(?:de|del|y|e|&|de{SP}+la|de{SP}+los|de{SP}+las){SP}+)?{_NAME_WORD}){{0,5}})"
    rf"{SP}*,?{SP}+(?P<form>{LEGAL_FORM.replace('{SP}', SP)})(?![^\W_])"
)


# A company is the patient's employer only where the text says so; a manufacturer
# (``dispositivo VAC® (KCI Clinic Spain SL)``) is an INSTITUCION in MEDDOCAN.
_EMPLOYER_CUE = re.compile(
    r"empresa|trabaj|treball|traball|emplead|contratad|autónom|negocio|\bpara\b|\bper a\b"
    r"|naveg|jubilad|soldador|operari"
)
_CUE_WIDTH = 60


# (or right after a listed job and "en", "para" or "a", maybe across a wrapped line's break:
# "su hijo Pere, mecánico en⏎Talleres Vilamala SL")
_JOB_AND_PREPOSITION_BEFORE = re.compile(rf"(?P<job>[^\W\d_]+){SP}+(?:en|para|a|per{SP}+a){SP}*\n?{SP}*\Z")


def find_companies(text: str) -> Iterator[Match]:
    """Capitalised words ending in a company's legal form, after a word about work on
    their line or a listed job right before them (see the module)."""
    for m in _COMPANY.finditer(text):
        if _EMPLOYER_CUE.search(line_before(text, m.start("name"), _CUE_WIDTH)) or (
            (job := _JOB_AND_PREPOSITION_BEFORE.search(text, max(0, m.start("name") - 40), m.start("name")))
            and job["job"].lower() in occupation_words()
        ):
            yield m.start("name"), m.end("form"), OTHER_SUBJECT


# An employer named after a generic head (``trabaja en la fábrica de Confecciones
# Nalón``, ``dependiente en el locutorio Bilbao Connect``, ``enóloga na adega Viña do
# Avia``): the capitalised words after the head, when a word about work comes before
# it on its line. The head is a common noun and stays out of the span.
_WORKPLACE_HEADS = (
    "empresa",
    "fábrica",
    "factoría",
    "bodega",
    "adega",
    "celler",
    "cooperativa",
    "taller",
    "granja",
    "locutorio",
    "conservera",
    "constructora",
    "gestoría",
    "asesoría",
    "consultora",
    "explotación",
)
_WORK_CUE = re.compile(r"trabaj|treball|traball|emplead|contratad|jubilad|autónom|profesión|enólog|dependient")
# Opening with the head's first letter (common.letter_first): re skips to the next
# letter that can open one in C instead of trying the heads at every position.
_EMPLOYER = re.compile(
    rf"{letter_first(_WORKPLACE_HEADS)}(?:{SP}+(?:de|del|de{SP}+la|do|da))?{SP}+"
    rf"(?P<name>[{UPPER}][^\W_]*(?:['’&.-][^\W_]+)*"
    rf"(?:{SP}+(?:(?:de|del|y|e|i|do|da|de{SP}+la|de{SP}+los){SP}+)?{_NAME_WORD}){{0,4}})"
)


def find_employers(text: str) -> Iterator[Match]:
    """The name after a workplace's generic head, after a word about work on its line
    (see above)."""
    for m in _EMPLOYER.finditer(text):
        if _WORK_CUE.search(line_before(text, m.start(), _CUE_WIDTH)) and not m.group("name").isupper():
            yield m.start("name"), m.end("name"), OTHER_SUBJECT


# The place someone works at, right after the job or a verb of working and "en"/"para"
# ("soldador en CAF Beasain", "trabaja de profesora en el IES Santa Clara", "dio clase
# durante treinta años en el Colegio Público …", "repartidor para Panadería …"): the
# employer, OTROS_SUJETO_ASISTENCIA (P28.1; the notes annotate every such employer so),
# whatever body the model took it for. A health centre or hospital (its head word first)
# stays what it is, and so does a place (TERRITORIO, PAIS). MEDDOCAN train and dev have no
# such phrase before a span; the notes' guide halves have 13, 10 of them employers and 3
# towns.
_WORK_VERB = (
    rf"(?:trabaj(?:a|aba|ó|ado|ar|an|aban)|emplead[oa]|contratad[oa]|(?:dio|da|daba){SP}+clases?|ejerce|ejercía)"
)
# "en"/"para" and maybe an article, a few lower-case words after the job or the verb first
# ("durante treinta años", "muchos años", "a turnos").
# (across a wrapped line's break too: "entró como maquinista⏎en Renfe")
_AT = rf"(?:{SP}+[a-záéíóúñ]+){{0,3}}?(?:{SP}+|{SP}*\n{SP}*)(?:en|para)(?:{SP}+(?:el|la|los|las|un|una))?{SP}+"
_AFTER_JOB = re.compile(_AT)
_AFTER_WORK_VERB = re.compile(
    rf"(?<!\w){_WORK_VERB}(?:{SP}+(?:como|de){SP}+[^\W\d_]+(?:{SP}+[^\W\d_]+){{0,2}}?)?{_AT}\Z", re.IGNORECASE
)
_RETYPED_AS_EMPLOYER = frozenset(
    ("INSTITUCION", "CENTRO_SALUD", "HOSPITAL", "FAMILIARES_SUJETO_ASISTENCIA", "NOMBRE_SUJETO_ASISTENCIA")
)
_HEALTH_HEAD = re.compile(
    rf"(?i:hospital|h\.|centro{SP}+de{SP}+salud|centre{SP}+de{SP}+salut|cap\b|cs\b|cl[ií]nica|consultorio|ambulatorio"
    rf"|complejo{SP}+hospitalario|complexo|ospitalea|osasun)"
)
_WORK_LOOKBACK = 60


def employers_after_jobs(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted) with each capitalised span right after a job (a PROFESION span)
    or a verb of working and ``en``/``para`` retyped as the employer (see above)."""
    out = list(spans)
    for i, span in enumerate(out):
        if span.type not in _RETYPED_AS_EMPLOYER or not text[span.start].isupper():
            continue
        if _HEALTH_HEAD.match(text, span.start):
            continue
        previous = out[i - 1] if i > 0 else None
        after_job = (
            previous is not None
            and previous.type == PROFESSION
            and _AFTER_JOB.fullmatch(text, previous.end, span.start) is not None
        )
        window = max(0, span.start - _WORK_LOOKBACK, previous.end if previous else 0)
        line = text.rfind("\n", window, span.start) + 1 or window  # searched back over the window only
        if after_job or _AFTER_WORK_VERB.search(text, line, span.start):
            out[i] = replace(span, type=OTHER_SUBJECT, source=RULE)
    return out


# An employer the model left unmarked, right after a job (a PROFESION span), a verb of
# working or ``jubilado de`` and ``en``/``para``/``de`` (``informático en Porcelanosa``,
# ``trabaja como repartidor para Glovo``, ``trabajó treinta años para Rolls-Royce``,
# ``Maquinista jubilado de RENFE``): the capitalised words there, OTROS_SUJETO_ASISTENCIA
# (P28.1), where no span begins. A place (a country, a Spanish region or municipality, a
# city abroad: ``trabaja en Francia``), a hospital or health centre, a hospital's service
# (``trabaja en Urgencias``), a weekday or a month are left alone.
_WORKED_AT = re.compile(
    rf"(?<!\w)(?:{_WORK_VERB}(?:{SP}+(?:como|de){SP}+[^\W\d_]+(?:{SP}+[^\W\d_]+){{0,2}}?)?{_AT}"
    rf"|(?:pre)?jubilad[oa]{SP}+de(?:{SP}+(?:la|el|los|las))?{SP}+)",
    re.IGNORECASE,
)
# A word of each cue of _WORKED_AT, looked for first (most notes have none).
_WORK_WORDS = ("trabaj", "emplead", "contratad", "clase", "ejerc", "jubilad")
_EMPLOYER_WORD = rf"[{UPPER}][^\W_]*(?:['’&.-][^\W_]+)*"
# (its particles in Catalan and English too: "Carns de l'Empordà SL", "Port of Antwerp")
_EMPLOYER_NAME = re.compile(
    rf"{_EMPLOYER_WORD}(?:{SP}+(?:(?:de|del|y|e|i|&|of|and|de{SP}+la|de{SP}+los|de{SP}+las){SP}+|de{SP}+l['’]|d['’])?"
    rf"{_EMPLOYER_WORD}){{0,4}}(?![\w-])"
)
_NOT_EMPLOYER_WORDS = frozenset(
    normalize(w)
    for w in (
        *SPECIALTY_WORDS,
        *WEEKDAYS,
        *MONTHS,
        *"urgencias uci reanimación quirófano planta casa domicilio consulta".split(),
    )
)


def employers_named_after_work(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted) with an OTROS_SUJETO_ASISTENCIA span added for each capitalised
    name right after a job, a verb of working or ``jubilado de`` where no span begins
    (see above)."""
    lower = text.lower()
    worked = any(w in lower for w in _WORK_WORDS)
    cues = [m.end() for m in _WORKED_AT.finditer(text)] if worked else []
    cues += [m.end() for s in spans if s.type == PROFESSION and (m := _AFTER_JOB.match(text, s.end))]
    if not cues:
        return list(spans)
    starts = [s.start for s in spans]
    added = []
    for start in sorted(set(cues)):
        m = _EMPLOYER_NAME.match(text, start)
        if m is None:
            continue
        end = m.end()
        after = bisect_left(starts, start)
        if (after < len(spans) and spans[after].start < end) or (after and spans[after - 1].end > start):
            continue  # a span is there already (employers_after_jobs retypes it)
        if _HEALTH_HEAD.match(text, start) or normalize(m.group().split()[0]) in _NOT_EMPLOYER_WORDS:
            continue
        if is_place_name_at(text, start):
            continue
        added.append(PHISpan(start, end, OTHER_SUBJECT, 1.0, RULE))
    return sorted([*spans, *added]) if added else list(spans)
