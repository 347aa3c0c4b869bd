"""Spans the model (or a rule) proposes that are no PHI by what they are: a field's label
alone, a hospital's unit taken for a hospital or a body, the word ``familia`` used as a
heading or a label rather than for the relatives, fragments (a lone preposition, a
one-letter name, a time of day as a name), a product's reference taken for a phone,
ribs counted by ordinals taken for an address, a carer's or a social worker's role
taken for a job, a nursing shift's letter taken for the patient's sex, and the dates that
name a law, a classification or a tumour code rather than anything in the patient's life. The rule layer drops them
(:meth:`deid_crf.deid.rules.RuleLayer.apply`, through :func:`is_no_entity`)."""

from __future__ import annotations

import re

from deid_crf.deid.recognizers.common import DATE, INSTITUTION, STREET, is_lower_case_note
from deid_crf.deid.recognizers.institutions import HOSPITAL, listed_body_keys
from deid_crf.deid.recognizers.sex import SEX
from deid_crf.deid.recognizers.work import PROFESSION
from deid_crf.gazetteers.spanish import MONTHS, normalize
from deid_crf.text.spans import PHISpan


def is_unit(text: str, span: PHISpan) -> bool:
    """A hospital's unit that the model took for a hospital or a body: a day hospital
    (``Hospital de Día de Diabetes``, ``Hospital de Dia Oncològic``, or its ``Día de …``
    after ``Hospital de``) or a ``Unidad``/``Unitat``/``Unidade`` (``Unitat de Treball
    Social Sanitari``); services and units are no PHI (MEDDOCAN train and dev: the two
    day hospitals in their text are not annotated, and no INSTITUCION span opens so)."""
    if span.type == HOSPITAL:
        return bool(
            _DAY_HOSPITAL.match(text, span.start)
            or (_DAY.match(text, span.start) and _HOSPITAL_OF.search(text, max(0, span.start - 15), span.start))
        )
    return span.type == INSTITUTION and bool(_UNIT.match(text, span.start))


def is_family_heading(text: str, span: PHISpan) -> bool:
    """``familia`` or ``familiares`` as a label or a heading (``Familiares: padre
    fallecido``, ``FAMILIA`` alone on its line), not a mention of the relatives: MEDDOCAN
    train annotates 36 of 51 ``familia`` in running text and none of 8 ``familiares:``."""
    if not _FAMILY_WORD.fullmatch(text, span.start, span.end) or not (after := _FIELD_END.match(text, span.end)):
        return False
    return after.group(1) == ":" or bool(_LINE_START.search(text, max(0, span.start - 40), span.start))


_FAMILY_WORD = re.compile(r"(?i:familia(?:res)?)")
_FIELD_END = re.compile(r"[ \t]*(:|\n|\Z)")
_LINE_START = re.compile(r"(?:^|\n)[ \t\d.)\-•]*$")


_DAY_HOSPITAL = re.compile(r"(?i:hospital)\s+(?i:de)\s+(?i:d[ií]a)(?![^\W_])")
_DAY = re.compile(r"(?i:d[ií]a)(?![^\W_])")
_HOSPITAL_OF = re.compile(r"(?i:hospital)\s+(?i:de)\s+$")
_UNIT = re.compile(r"(?i:unidad|unitat|unidade)(?![^\W_])")


NAME_TYPES = ("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO")
# Words a name span is never made of alone: a preposition or article the model left on
# its own ("de" as a HOSPITAL), and the times of day of a treatment table's columns
# ("| mañana |" as a patient's name).
_FUNCTION_WORDS = frozenset("de del la el los las y e en a al".split())
_NEIGHBOURHOOD_WORDS = frozenset("barrio barriada barri".split())  # the generic word alone
_TIMES_OF_DAY = frozenset("mañana tarde noche mediodía desayuno comida cena merienda".split())
_DAY_WORDS = frozenset(("día", "dia"))  # the word alone is no date


def is_fragment(text: str, span: PHISpan) -> bool:
    """A span that is no entity by its words alone: a lower-case preposition or article,
    a body's name of one lower-case word (``al barrio``, Catalan ``per``: MEDDOCAN train
    and dev have no INSTITUCION span so), a person's name of one letter (``talla M``;
    MEDDOCAN train and dev have no name span so short) unless it is an initial before a
    name, or a time of day as a name; a neighbourhood's generic word alone (``barriada``);
    and a span with no letter and no digit (a report's
    rule of dashes ``-----`` the model took for a plate: MEDDOCAN train and dev have no
    span without one)."""
    words = text[span.start : span.end]
    if words in _FUNCTION_WORDS or not any(char.isalnum() for char in words):
        return True
    if words.lower() in _NEIGHBOURHOOD_WORDS:
        return True  # "barriada" left of "barriada Príncipe Alfonso" once the place is cut off
    if span.type == DATE and words.lower() in _DAY_WORDS:
        return True  # "día" left of the model's "día 20" once the rules' "20" is cut off
    if span.type == INSTITUTION and words.isalpha() and words.islower():
        return normalize(words) not in listed_body_keys()  # "sergas" in a note in lower case is one
    if span.type in NAME_TYPES:
        if len(words) == 1 and words.isalpha():  # a digit the model typed a name is still masked
            return not _INITIAL_BEFORE_NAME.match(text, span.end)
        return words.lower() in _TIMES_OF_DAY
    return False


# An initial's dot and the name it opens ("M. Pérez de Nanclares"): the letter is the
# name's, whatever the model made of the rest.
_INITIAL_BEFORE_NAME = re.compile(r"\.[ \t]*[A-ZÁÉÍÓÚÑÜ]")


# The labels of a letterhead's contact fields, which the model sometimes takes for the
# end of the address before them (``Los Balbos, s/n. Cádiz. Tfno``), and of a form's
# fields, which it takes for a name in a table: never PHI alone.
_FIELD_LABELS = frozenset(
    "tel telf tfno tlf telefono movil fax email e-mail correo domicilio direccion".split()
    # and a form's or a table's own labels ("| DNI | 45107832-T |")
    + "dni nie nif nhc hc cip cipa cipna tis nass nss poliza sexo edad nombre apellidos paciente".split()
    # (and the other record and card labels: no MEDDOCAN train or dev span is one)
    + "pasaporte sip nuhsa tsi cic naf episodio localidad provincia municipio".split()
    # (Basque, Galician and Catalan forms' labels: "| Adina / Edad | 29 |", "Idade", "Edat")
    + "adina sexua izena abizenak helbidea idade edat sexe nome cognoms apelidos".split()
    # and a collegiate number's ("Dr. V. Llorens · Col. 4614982")
    + "col colegiado colegiada".split()
)


def is_field_label(span_text: str) -> bool:
    """A field's or a form's label alone (``Tfno``, ``DNI``, ``NHC:``)."""
    return normalize(span_text.rstrip(":. ")) in _FIELD_LABELS


def is_no_entity(text: str, span: PHISpan) -> bool:
    """Whether ``span`` is no PHI by what it is (see the module)."""
    return (
        is_field_label(text[span.start : span.end])
        or is_unit(text, span)
        or is_family_heading(text, span)
        or is_fragment(text, span)
        or is_product_reference(text, span)
        or is_rib_count(text, span)
        or is_care_role(text, span)
        or is_reference_date(text, span)
        or is_shift_letter(text, span)
        or is_lower_case_place(text, span)
        or is_month_of_a_season(text, span)
        or is_generic_court(text, span)
    )


# The duty court without its town (a report's title: ``PARTE AL JUZGADO DE GUARDIA``): no
# body in particular; the guide splits annotate all 9 duty courts named with their town and
# neither of the 2 without one (MEDDOCAN: none).
_GENERIC_COURTS = frozenset(("juzgado de guardia", "jutjat de guardia", "xulgado de garda"))


def is_generic_court(text: str, span: PHISpan) -> bool:
    """An INSTITUCION span that is the duty court alone (see above)."""
    return span.type == INSTITUTION and normalize(text[span.start : span.end]) in _GENERIC_COURTS


# Two bare months bounding a season that comes back every year (``de octubre a marzo``, a
# farm worker's ``campaña de septiembre a diciembre``, ``de octubre a mayo`` in the daughter's
# flat): no date of the patient's (the guide splits leave all 4 such ranges unannotated, 8
# false positives; MEDDOCAN train and dev hold none). A range with its year (``de enero a
# marzo de 2024``) is dated.
_MONTH_NAMES = "|".join(MONTHS)
_SEASON_RANGE = re.compile(
    rf"(?i)(?<!\w)(?:de|desde)\s+(?P<first>{_MONTH_NAMES})\s+(?:a|hasta)\s+(?P<second>{_MONTH_NAMES})"
    rf"(?!\w)(?!\s+(?:de|del)\s+(?:\d|dos\s+mil))"
)


def is_month_of_a_season(text: str, span: PHISpan) -> bool:
    """A month alone that bounds a yearly season (see above)."""
    if span.type != DATE:
        return False
    line_start = text.rfind("\n", 0, span.start) + 1
    for m in _SEASON_RANGE.finditer(text, max(line_start, span.start - 30), min(len(text), span.end + 30)):
        if (span.start, span.end) in (m.span("first"), m.span("second")):
            return True
    return False


def is_lower_case_place(text: str, span: PHISpan) -> bool:
    """A place's span written all in lower case, without a digit, in a note that writes
    names capitalised (``Vive en la isla desde 2019``, ``terapia en espejo``, ``en avión``): a
    common noun the model took for a place. No TERRITORIO or PAIS span of MEDDOCAN train and
    dev, nor of the guide splits outside their lower-case notes, is one (the guide splits: 6
    such false positives)."""
    if span.type not in _PLACE_TYPES:
        return False
    value = text[span.start : span.end]
    return value.islower() and not any(c.isdigit() for c in value) and not is_lower_case_note(text)


_PLACE_TYPES = frozenset(("TERRITORIO", "PAIS"))


def is_shift_letter(text: str, span: PHISpan) -> bool:
    """A nursing table's or entry's shift (``M``, ``T``, ``N``: mañana, tarde, noche) taken
    for the patient's sex: the letter alone right after an entry's weekday and day/month,
    between a table's bars or dots (``| jue 12/02 | M |``, ``JUE 02/04/26 · M · Enf. …``,
    ``Vie 03/04 (Viernes Santo) · M``). A sex field follows a birth date or an age, never a
    weekday (the guide splits: 6 such shifts; MEDDOCAN train and dev: no SEXO span after one)."""
    if span.type != SEX or text[span.start : span.end] not in _SHIFT_LETTERS:
        return False
    line_start = text.rfind("\n", 0, span.start) + 1
    return bool(_ENTRY_DATE_BEFORE.search(text, line_start, span.start))


def is_reference_date(text: str, span: PHISpan) -> bool:
    """A date that is part of a reference, not of the patient's story: a law's date
    (``Ley 41/2002, de 14 de noviembre``), a classification's or a set of criteria's year
    (``criterios ACR/EULAR 2010``, ``criterios de Tokio 2018``, ``clasificación ILAE
    2022``, ``sistema Bethesda 2023``: the notes' annotation decision 5 and the
    guidelines' G1) or an ICD-O morphology code taken for a date (``CIE-O 8380/3``).
    MEDDOCAN train and dev gold: no FECHAS span is one (``tests/test_rules_dev13.py``)."""
    if span.type != DATE:
        return False
    if _MORPHOLOGY_CODE.fullmatch(text, span.start, span.end):
        return True
    if _LAW_BEFORE.search(text, max(0, span.start - 40), span.start):
        return True
    return bool(
        _NAMED_YEAR.fullmatch(text, span.start, span.end)
        and _CLASSIFICATION_BEFORE.search(text, max(0, span.start - 40), span.start)
    )


def is_care_role(text: str, span: PHISpan) -> bool:
    """A role in someone's care taken for the patient's job: the relative who is the main
    carer (``su hija …, cuidadora principal``), and a social worker or a mediator named
    by the role (``se contacta con la trabajadora social``, ``Judit Ferré i Pallarès,
    treballadora social sanitària`` signing). The notes' guide halves annotate none of
    their 13 (MEDDOCAN train and dev have none); after ``es``, ``como``, ``de
    profesión`` … it is the patient's job and stays."""
    if span.type != PROFESSION or not _CARE_ROLE.fullmatch(text, span.start, span.end):
        return False
    return bool(_CARER.match(text, span.start)) or not _JOB_CUE_BEFORE.search(text, max(0, span.start - 30), span.start)


def is_rib_count(text: str, span: PHISpan) -> bool:
    """Ribs counted by ordinals that the model took for an address's floor (``dolor a la
    palpación de 4º–6º arcos costales``, ``8.º-9.º arcos``): a CALLE span made of
    ordinals, maybe with ``arcos``/``costillas`` after them, that ``arco``, ``costilla``
    or ``espacio`` follows or ends (MEDDOCAN train and dev: no CALLE span holds one)."""
    return span.type == STREET and bool(
        _ORDINALS.fullmatch(text, span.start, span.end)
        and (_RIB_WORD.search(text, span.start, span.end) or _RIB_AFTER.match(text, span.end))
    )


def is_product_reference(text: str, span: PHISpan) -> bool:
    """A catalogue reference or a batch number the model took for a phone number
    (``Cotilo: Ref. 6405-1-550``, ``Lote 0580-1-441``): a product's, not a person's
    (MEDDOCAN train and dev have no ``Ref.`` nor ``Lote``)."""
    return span.type in _PHONE_TYPES and bool(_PRODUCT_LABEL.search(text, max(0, span.start - 16), span.start))


_SHIFT_LETTERS = frozenset("MTN")
_ENTRY_DATE_BEFORE = re.compile(
    # weekdays abbreviated or whole, Spanish, Galician and Catalan ("| mércores 11/11 | M |")
    r"(?<![^\W_])(?i:lun(?:es)?|mar(?:tes)?|mi[eé](?:r(?:coles)?)?|jue(?:ves)?|vie(?:rnes)?|s[aá]b(?:ado)?|dom(?:ingo)?"
    r"|luns|mércores|xoves|venres|dilluns|dimarts|dimecres|dijous|divendres|dissabte|diumenge"
    r"|dl|dt|dc|dj|dv|ds|dg)\.?[ \t]*\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    r"(?:[ \t]*\([^()\n]*\))?[ \t]*[|·][ \t]*\Z"
)
_MORPHOLOGY_CODE = re.compile(r"\d{4}/\d")
_LAW_BEFORE = re.compile(
    r"(?<![^\W_])(?i:ley|leis?|llei|real[ \t]+decreto|decreto|orden|reglamento|directiva)[ \t]+"
    r"(?:org[aá]nica[ \t]+)?\d{1,4}/(?:19|20)\d\d,?[ \t]+(?i:de)[ \t]+\Z"
)
# The span: a year, maybe after the classification's name or acronym (``Tokio 2018``).
_NAMED_YEAR = re.compile(r"(?:[A-ZÁÉÍÓÚ][\w/-]*[ \t]+)?(?:19|20)\d\d")
# Before it: the cue, then at most two names or acronyms (``criterios ACR/EULAR``,
# ``RECOMENDACIONES ISUP``, ``sistema``, ``criterios de``).
_CLASSIFICATION_BEFORE = re.compile(
    r"(?<![^\W_])(?i:criterios?|clasificaci[oó]n|sistema|recomendaciones|gu[ií]as?|consenso|estadificaci[oó]n)"
    r"(?:[ \t]+(?i:de|del|de[ \t]+la))?(?:[ \t]+[A-ZÁÉÍÓÚ][\w/-]*){0,2}[ \t]+\Z"
)
_CARER = re.compile(r"(?i:cuidador[a]?)")
_CARE_ROLE = re.compile(
    r"(?i:cuidador[a]?[ \t]+principal|(?:trabajador|treballador|traballador|mediador|educador|integrador)[a]?"
    r"[ \t]+(?:social|intercultural|familiar)(?:[ \t]+(?:sanitari[oa]|sanitària))?)"
)
_JOB_CUE_BEFORE = re.compile(
    r"(?i:\b(?:es|era|fue|soy|como|profesi[oó]n|ocupaci[oó]n|trabaja[a-z]*[ \t]+de))[ \t:]+(?:(?:un|una)[ \t]+)?\Z"
)
_ORDINAL = r"\d{1,2}\.?[º°ª]"
_RIB = r"(?i:arcos?|costillas?|espacios?)"
_ORDINALS = re.compile(rf"(?:\d{{1,2}}\.?)?[º°ª]?(?:[ \t]*[-–y,][ \t]*{_ORDINAL})*(?:[ \t]+{_RIB}(?:[ \t]+\w+)?)?")
_RIB_WORD = re.compile(rf"(?<![^\W_]){_RIB}(?![^\W_])")
_RIB_AFTER = re.compile(rf"(?:[ \t]*[-–y,][ \t]*{_ORDINAL})*[ \t]+{_RIB}(?![^\W_])")
_PHONE_TYPES = ("NUMERO_TELEFONO", "NUMERO_FAX")
_PRODUCT_LABEL = re.compile(r"(?<![^\W_])(?i:ref|referencia|lote|lot|cat)\.?[ \t]*(?:n[º°o]\.?[ \t]*)?:?[ \t]*\Z")
