"""Record, card and staff numbers written as the value of a label: ``NHC: HC-0045123``,
``Nº episodio: 2023/0045612``, ``CIP: ROSE0410215004``, ``Col. 08/41327``,
``Nº empl. E-30418``, anywhere on a line (``Sexo: M   NHC: 2210457   CIP: …``).

A label is followed by ``:``, dot leaders (``NHC ........ 5512098``), a ``nº`` or, for
abbreviations and labels that start with ``Nº``, a space. The value is one run of
letters, digits and inner ``-``, ``/``, ``.``, with single spaces only between digit
groups (``28 43758925 33``); it ends at punctuation, at two spaces or at a word, which
is where the line's next label starts, and it needs four digits. A value's letters stay
in the span (``EP20-0341177``, ``E-30418``); the prefix ``nhc-``/``HC-`` that repeats
the label does not (guideline N17.1, ``CIPA: nhc-150679``), nor a record number's letter
code (``NHC CC-781204``).

Types (MEDDOCAN guidelines):

* ID_SUJETO_ASISTENCIA: NHC and historia clínica, the regional health cards CIP, CIPA,
  TSI, TIS, SIP, NUHSA, CIC, and DNI, NIF, NIE, passport (P17.1 "códigos CIPA, NHC,
  DNI, NIF, CIE y pasaporte"; MEDDOCAN train annotates every ``CIPA:`` value so);
* ID_ASEGURAMIENTO: NASS, NSS, NAF, affiliation and European card (TSE) numbers, and an
  insurance policy's (P19.1);
* ID_CONTACTO_ASISTENCIAL: episode, admission, petition, biopsy, cytology, accession
  and study numbers (P18.1 "episodio, contacto, problema, proceso");
* ID_TITULACION_PERSONAL_SANITARIO: collegiate numbers (P20.1, label left out as in
  ``NºCol: 08-08-25574``);
* ID_EMPLEO_PERSONAL_SANITARIO: employee, mecanográfico, professional and CIAS numbers
  and a GP's list number (``cupo 1203``, not a year) (P21.1);
* NUMERO_IDENTIF: member numbers (P27.1 ``NºSocio: 5547889955``);
* IDENTIF_DISPOSITIVOS_NRSERIE: serial numbers (``nº de serie``; title of 2.3.23);
* OTROS_SUJETO_ASISTENCIA: file numbers (P28.1 "números de expedientes");
* NUMERO_IDENTIF also: federation licences and donor codes (``nº de federado``,
  ``código de donante``);
* IDENTIF_BIOMETRICOS: the code of a fingerprint, a signature or a stored template
  (``ID biométrico``, ``ID de firma``, ``identificador biométrico de firma``, ``Huella:``,
  ``plantilla biométrica``, ``código de iris``, ``plantilla`` before a code; P26.1).

Collegiate numbers that repeat their province code (``28 28 20943``) are found
without a label too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from deid_crf.deid.recognizers.common import (
    CASE_EXTRAS,
    COLLEGIATE_ID,
    CONTACT_ID,
    DEVICE_ID,
    EMPLOYEE_ID,
    INSURANCE_ID,
    OTHER_ID,
    OTHER_SUBJECT,
    PATIENT_ID,
    SP,
    STREET,
    TERRITORY,
    Match,
    letter_first,
    line_before,
)
from deid_crf.deid.recognizers.lower_case_names import clinical_words
from deid_crf.deid.recognizers.vehicles import VEHICLE_ID
from deid_crf.gazetteers.spanish import INSTITUTION_WORDS, SPECIALTY_WORDS, UPPER, normalize
from deid_crf.text.spans import RULE, PHISpan

BIOMETRIC_ID = "IDENTIF_BIOMETRICOS"
# "Nº", "n.º", "número", "núm." ("número" before "núm": a value after "núm" was "ero 31/05418")
_NUMBER_SIGN = r"(?:n[º°ª]\.?|n\.[º°ª]|n[úu]mero|n[úu]m\.?)"
_OF = rf"{SP}*(?:de{SP}+)?"


@dataclass(frozen=True)
class Field:
    """A label (regular expression) and the type of its value; a ``word`` label is
    also a word of running text ("historia clínica", "episodio"), so it is a field only
    when ``:``, dot leaders or ``nº`` follow it."""

    label: str
    type: str
    word: bool = False
    # A value shape that needs no ":" or "nº" after a ``word`` label (a passport's
    # letters and digits, a court case's number and year).
    shape: str = ""
    # The letters (lower case) the label can open with, in either case: the label is tried
    # only at a word that opens with one (tests/test_rule_prefilters.py derives them from
    # the pattern and checks they are here).
    opens: str = ""
    # Fewer digits than the usual four make a value of this label (a booking locator's
    # ``K7XQ2M``): then the shape must match.
    min_digits: int = 4


FIELDS: tuple[Field, ...] = (
    Field(rf"(?i:{_NUMBER_SIGN}{_OF}(?:historia(?:{SP}+cl[ií]nica)?|h\.?{SP}?c\.?))", PATIENT_ID, opens="n"),
    # A region's card number named so ("CIP autonómico: CANT390415772"); before the bare
    # "CIP", which would take the label's word for its value.
    Field(rf"CIP{SP}+(?i:auton[oó]mic[oa])", PATIENT_ID, opens="c"),
    # "tarjeta sanitaria EX0944172260": the card's code, shaped as one.
    Field(
        rf"(?i:tarjeta{SP}+sanitaria(?:{SP}+individual)?)",
        PATIENT_ID,
        word=True,
        shape=r"[A-Z]{0,4}[0-9]{8,}",
        opens="t",
    ),
    # CIPNA: Navarre's card; "tis" in a note typed in lower case.
    Field(
        r"N\.?H\.?C\.?|H\.?C\.?|CIP(?:A|NA)?(?:[ -]?SNS)?|TSI|(?i:TIS)|SIP|NUHSA|CIC|D\.?N\.?I\.?|NIF|NIE",
        PATIENT_ID,
        opens="cdhnst",
    ),
    Field(rf"(?i:historia{SP}+cl[ií]nica)", PATIENT_ID, word=True, opens="h"),
    # "pasaporte AW718233", "pasaporte colombiano AW718233": a nationality may come between;
    # some countries' passports are digits only ("Pasaporte boliviano 11384207").
    Field(
        rf"(?i:pasaporte)(?:{SP}+(?-i:[a-zñáéíóú]+(?:an[oa]|ñ[oa]|[eéi]s[ae]?|í|in[oa]|c[oa])))?",
        PATIENT_ID,
        word=True,
        shape=r"[A-Z]{0,3}[0-9]{6,9}",
        opens="p",
    ),
    # A foreign patient's national identity number, by its country's label (``Personnummer:
    # 440919-3386``, ``PESEL: …``, ``codice fiscale …``, ``NHS number …``): like a DNI (P17.1).
    Field(
        rf"(?i:personnummer|pesel|codice{SP}+fiscale|CNP|BSN|NHS{SP}+(?:number|no\.?|n[º°]))",
        PATIENT_ID,
        opens="bcnp",
    ),
    # Aragón's health card code ("CIA: AR0458837102", "CIA ARA0144910356"), in any case ("cia
    # FROH650219312" in a note typed in lower case); a word too (atrial septal defect), and
    # "cía" a company's: only a card's shape, capitals and digits.
    Field(r"(?i:CIA)", PATIENT_ID, word=True, shape=r"[A-Z]{2,4}[0-9]{8,12}", opens="c"),
    # (GHIC and EHIC: the British and the English name of the European health card, TSE)
    Field(r"N\.?A\.?S\.?S\.?|NSS|NAF|TSE|GHIC|EHIC", INSURANCE_ID, opens="egnt"),
    Field(rf"(?i:{_NUMBER_SIGN}{_OF}(?:afiliaci[oó]n|(?:la{SP}+)?seguridad{SP}+social))", INSURANCE_ID, opens="n"),
    Field(rf"(?i:afiliaci[oó]n|seguridad{SP}+social)", INSURANCE_ID, word=True, opens="as"),
    # "Nº episodio de Urgencias:", "Nº episodio urgencias:".
    Field(
        rf"(?i:{_NUMBER_SIGN}{_OF}episodio{SP}+(?:de{SP}+)?[^\W\d_]+(?={SP}*:)|c[oó]digo{_OF}cita)",
        CONTACT_ID,
        opens="cn",
    ),
    # (Catalan "episodi", "petició" too)
    Field(
        rf"(?i:(?:{_NUMBER_SIGN}{_OF}|id{SP}+)"
        rf"(?:episodio?|ingreso|petici[oó]n?|bi[oò]psia|citolog[ií]a|acceso|estudio?|muestra|mostra|solicitud))",
        CONTACT_ID,
        opens="in",
    ),
    # "(petición AP26004518)", "incidencia 02483317": a request's or a support call's number,
    # shaped as a code (not "a petición de su hija", "incidencia de caídas").
    Field(
        r"(?i:petici[oó]n?|incidencia)",
        CONTACT_ID,
        word=True,
        shape=r"(?=(?:[^0-9]*[0-9]){6})[A-Z]{0,4}[-/]?[0-9]+(?:[-/][0-9]+)*",
        opens="ip",
    ),
    # An imaging study's accession number and a biopsy's or a cytology's, shaped as a code
    # ("(acceso AR25110388)", "biopsia previa B25/03154", "citología C26/001287"): not
    # "acceso venoso", "biopsia 2019".
    Field(
        rf"(?i:acceso|biopsia(?:{SP}+previa)?|citolog[ií]a)",
        CONTACT_ID,
        word=True,
        shape=r"[A-Z]{1,4}[0-9]{2}[-/]?[0-9]{4,}",
        opens="abc",
    ),
    # "Episodio quirúrgico:", "Nº de episodio de Urgencias:", "Código de cita:", "muestra MC25-003318".
    Field(
        rf"(?i:episodio(?:{SP}+(?:de{SP}+)?[^\W\d_]+(?={SP}*:))?|muestra(?:{SP}+ADN)?)",
        CONTACT_ID,
        word=True,
        opens="em",
    ),
    Field(
        rf"(?i:{_NUMBER_SIGN}{SP}*col(?:egiad[oa]|·legiat)?\.?)|Col\.|NColeg\.?|(?i:col·legiat)",
        COLLEGIATE_ID,
        opens="cn",
    ),
    # A certificate's "colegiado en Murcia con el nº 30/3009187".
    Field(
        rf"(?i:colegiad[oa]{SP}+en{SP}+(?-i:[A-Z][^\W\d_]+)(?:{SP}+con{SP}+el)?(?={SP}+{_NUMBER_SIGN}))",
        COLLEGIATE_ID,
        opens="c",
    ),
    Field(r"(?i:colegiad[oa])", COLLEGIATE_ID, word=True, opens="c"),
    Field(
        rf"(?i:{_NUMBER_SIGN}{_OF}(?:empregad[oa]|emp(?:l(?:eado|eat)?)?\.?|mecanogr[aá]fico|pers(?:onal|oal)?\.?))|CIAS",
        EMPLOYEE_ID,
        opens="cn",
    ),  # ca: "núm. empleat"; gl: "n.º empregado"
    Field(rf"(?i:langile{SP}+zk\.?)", EMPLOYEE_ID, opens="l"),  # eu: "langile zk. 48812"
    Field(r"(?i:empl\.)", EMPLOYEE_ID, word=True, shape=r"[0-9]{4,8}", opens="e"),  # "(empl. 22184)" after a name
    Field(rf"(?i:c[oó]digo{_OF}empleado)", EMPLOYEE_ID, word=True, opens="c"),
    # "Nº de profesional: …", "código profesional …", a GP's list ("cupo 1203": the notes).
    Field(rf"(?i:(?:{_NUMBER_SIGN}|c[oó]d(?:igo|\.)){_OF}(?:profesional|trabajador(?:/a)?))", EMPLOYEE_ID, opens="cn"),
    Field(r"(?i:cupo)", EMPLOYEE_ID, word=True, shape=r"(?!(?:19|20)[0-9]{2}$)[0-9]{4,8}", opens="c"),  # not a year
    Field(rf"(?i:{_NUMBER_SIGN}{_OF}socio)", OTHER_ID, opens="n"),
    # The member's word before the sign ("socia nº 2471", "federado n.º 30412"), and a
    # newborn's identification bracelet ("pulsera madre-RN nº 4471203"): words of running
    # text, so "nº" (or ":") must follow them.
    Field(
        rf"(?i:soci[oa]|federad[oa]|pulsera(?:{SP}+(?:madre-RN|identificativa|de{SP}+identificaci[oó]n))?)",
        OTHER_ID,
        word=True,
        opens="fps",
    ),
    # "nº de federado", "código de donante" (Catalan "codi donant"): member and donor numbers (P27.1).
    Field(
        rf"(?i:{_NUMBER_SIGN}{_OF}federad[oa]|licencia{SP}+federativa|c[oó]digo{_OF}(?:donante|participante)|codi{SP}+donant)",
        OTHER_ID,
        opens="cln",
    ),
    # "ID biométrico …", "ID de firma …", "identificador biométrico de firma …": a
    # fingerprint's or a signature's code (P26.1).
    Field(
        rf"(?i:id(?:entificador)?{SP}+(?:biom[eé]trico(?:{SP}+de{SP}+(?:firma|huella|voz|iris))?"
        rf"|de{SP}+(?:firma|huella)))",
        BIOMETRIC_ID,
        opens="i",
    ),
    Field(r"(?i:huella(?:\s+dactilar)?)", BIOMETRIC_ID, word=True, opens="h"),
    # "plantilla biométrica PV-00418-…", "código de iris …": a stored template's code.
    Field(
        rf"(?i:plantilla{SP}+biom[eé]trica|(?:c[oó]digo|id|{_NUMBER_SIGN}){_OF}(?:iris|plantilla|patr[oó]n{SP}+de{SP}+voz))",
        BIOMETRIC_ID,
        word=True,
        opens="cinp",
    ),
    # "huella dactilar (plantilla HD-0047-2291)": a template's code, shaped as one
    # (after the labels that open with the same word, which the alternation tries first).
    Field(r"(?i:plantilla)", BIOMETRIC_ID, word=True, opens="p"),
    # "nº de serie", "nº de serie del implante …" (the device named between)
    Field(
        rf"(?i:{_NUMBER_SIGN}{_OF}serie(?:{SP}+(?:del|de{SP}+la){SP}+(?-i:[a-záéíóúñ]+)){{0,1}})", DEVICE_ID, opens="n"
    ),
    # "SN KX7720143" on an implant's label: a serial number; "S/N" too, before letters and
    # digits only (an address's "s/n", "sin número", comes before a postcode or a town).
    Field(r"SN", DEVICE_ID, word=True, shape=r"(?=[A-Z]*[0-9])[A-Z0-9]{6,}", opens="s"),
    Field(
        r"S/N(?=[ ]+(?=[0-9]*[A-Z])(?=[A-Z]*[0-9])[A-Z0-9]{6,}(?![\w-]))",
        DEVICE_ID,
        word=True,
        shape=r"(?=[0-9]*[A-Z])(?=[A-Z]*[0-9])[A-Z0-9]{6,}",
        opens="s",
    ),
    # "usuario nº TSN-33-20481", "donante nº BH-ZGZ-4471", "Familia nº FAM-CAN-0412", "nº de
    # participante CH-046-0113", "declaración nº EDO-47-2025-0193": other numbers (P27.1).
    Field(
        rf"(?i:{_NUMBER_SIGN}{_OF}(?:participante|donante|usuari[oa]|familia|declaraci[oó]n|registro))",
        OTHER_ID,
        opens="n",
    ),
    Field(r"(?i:participante|donante|usuari[oa]|declaraci[oó]n)", OTHER_ID, word=True, opens="dpu"),
    # Words whose ":" opens a date as often ("Fecha de alta: 12/03/2024"): with "nº" only.
    Field(rf"(?i:(?:alta|familia){SP}+{_NUMBER_SIGN})", OTHER_ID, opens="af"),
    # A police report's, a court case's, an application's or a notice's number (P28.1).
    Field(
        rf"(?i:atestado|autos|procedimiento|procedemento|diligencias|comunicat|exp\.|referencia{SP}+de{SP}+la{SP}+solicitud)",
        OTHER_SUBJECT,
        word=True,
        shape=r"[0-9]{3,6}/(?:19|20)[0-9]{2}",  # "autos 812/2024"; not "3/2024", a month
        opens="acdepr",
    ),
    # "nº de atestado PL-CE 0219/25": the number before the label says it is one; a work
    # accident's notice too ("nº de comunicación 30/OS/2025/018823").
    Field(
        rf"(?i:{_NUMBER_SIGN}{_OF}(?:atestado|autos|procedimiento|diligencias|comunicaci[oó]n|parte))",
        OTHER_SUBJECT,
        opens="n",
    ),
    # A sick-leave or work-accident report's number, the word before the sign ("parte n.º
    # 0726031601884", "parte de baja nº …"): a file number (P28.1).
    Field(
        rf"(?i:parte(?:{SP}+de{SP}+(?:baja|IT|accidente|confirmaci[oó]n)){{0,1}}{SP}+{_NUMBER_SIGN})",
        OTHER_SUBJECT,
        opens="p",
    ),
    # A travel booking's locator ("localizador K7XQ2M", "localizador de la reserva JPN7Q2K"): a
    # reference that names the patient's trip (P28.1), shaped as a code of letters and digits.
    Field(
        rf"(?i:localizador(?:{SP}+de{SP}+(?:la{SP}+)?reserva)?)",
        OTHER_SUBJECT,
        word=True,
        shape=r"(?=[A-Z0-9]*[0-9])(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,8}",
        opens="l",
        min_digits=1,
    ),
    # An insurance policy's number (P19.1): "póliza RV-4471-0092-DE", "póliza de
    # cancelación 698-0014432781" (eight digits or more: not a year or a date).
    Field(
        rf"(?i:p[oó]liza(?:{SP}+de{SP}+[^\W\d_]+)?)",
        INSURANCE_ID,
        word=True,
        shape=r"(?=(?:[^0-9]*[0-9]){8})[0-9A-Z]+(?:-[0-9A-Z]+)+",
        opens="p",
    ),
    # "Nº de expediente social:", "(expediente RGC-08-2023-114587)", "expediente de accidente
    # laboral AT-2024-33-07719".
    Field(
        rf"(?i:(?:{_NUMBER_SIGN}{_OF})?expediente(?:{SP}+[^\W\d_]+(?={SP}*:)"
        rf"|{SP}+de{SP}+accidente(?:{SP}+(?:laboral|de{SP}+trabajo))?)?)",
        OTHER_SUBJECT,
        opens="en",
    ),
)

# Every label opens with one of these letters (in either case), its field's ``opens``.
LABEL_FIRST_LETTERS = "".join(sorted({letter for field in FIELDS for letter in field.opens}))


def _labels_by_first_letter() -> str:
    """Every field's label, as ``(?P<f{index}_{letter}>label)``, after the letter its word
    opens with: one branch per letter, holding the labels that can open with it, in the
    fields' order. At a word's start ``re`` tries only that letter's labels, not all
    forty, and the first that matches is the one the full alternation would take (the
    others cannot match there). About a third of the search on MEDDOCAN dev."""
    branches = []
    for letter in LABEL_FIRST_LETTERS:
        opening = "".join(sorted({c for c in (letter, letter.upper(), *CASE_EXTRAS) if re.fullmatch(letter, c, re.I)}))
        labels = "|".join(f"(?P<f{i}_{letter}>{f.label})" for i, f in enumerate(FIELDS) if letter in f.opens)
        branches.append(f"(?=[{opening}])(?:{labels})")
    return "(?:" + "|".join(branches) + ")"


_LABELS = re.compile(rf"(?<![^\W_]){_labels_by_first_letter()}(?![^\W\d_])")


def _field_of(label: re.Match[str]) -> Field:
    """The field whose label ``label`` matched."""
    return FIELDS[int(label.lastgroup[1:].partition("_")[0])]


# What may stand between a label and its value: ":" or dot leaders, then "nº".
_SEPARATOR = re.compile(
    rf"{SP}*(?P<punct>:|[.…]{{2,}}|[.…](?={SP}*:))?(?:{SP}|[.…:])*(?P<sign>(?i:{_NUMBER_SIGN})[.:]?{SP}*)?"
)
_VALUE = re.compile(rf"(?:(?i:n?hc)[-/]{SP}?)?(?P<value>[^\W_](?:[^\W_]|[-/.](?=[^\W_])|{SP}(?=\d))*)")
_MIN_DIGITS = 4
# A record number's letter prefix, a hospital's or a centre's code before the number
# (``NHC: HC 0914472``, ``NHC CC-781204``, ``NHC ..... HL-00518826``), is left out like
# ``HC-`` (the notes' convention, and the synthetic notes': ``NHC PF-762969`` → ``762969``;
# MEDDOCAN train has no NHC value with letters): capitals, then ``-`` or a space, then
# five digits or more and nothing else. Cards (CIP, TSI…) keep their letters.
_RECORD_LABEL = re.compile(r"N\.?H\.?C\.?|H\.?C\.?|(?i:historia(?:\s+cl[ií]nica)?)")
_RECORD_PREFIX = re.compile(r"[A-Z]{1,3}[- ](?=\d{5,}$)")
_CODE = re.compile(r"(?=.*[^\W\d_])[^\W_]+(?:[-/][^\W_]+)+")


def _value_after(text: str, label: re.Match[str], field: Field) -> tuple[int, int] | None:
    """Where the value of ``label`` lies, or None if no value of four digits follows
    it the way a field's value does."""
    sep = _SEPARATOR.match(text, label.end())
    gap = text[label.end() : sep.end()]
    if not gap and not label.group().endswith((".", ":")):
        return None  # "NHC5512098" is one token, not a label and its value
    value = _VALUE.match(text, sep.end())
    if value is None:
        return None
    digits = sum(c.isdigit() for c in value.group("value"))
    if digits < _MIN_DIGITS and (
        digits < field.min_digits or not (field.shape and re.fullmatch(field.shape, value.group("value")))
    ):
        return None
    # A word of running text is a label when ":" or "nº" follows it, or when what follows
    # is shaped as a code: letters and digits in groups joined by "-" or "/" ("muestra
    # MC25-003318", "exp. SAD-2025/00871"); not digits alone, which may be a date ("alta
    # 12-3-2024").
    shaped = _CODE.fullmatch(value.group("value")) or (field.shape and re.fullmatch(field.shape, value.group("value")))
    if field.word and not (sep.group("punct") or sep.group("sign") or shaped):
        return None
    start = value.start("value")
    if _RECORD_LABEL.fullmatch(label.group()) and (prefix := _RECORD_PREFIX.match(value.group("value"))):
        start += prefix.end()
    return start, value.end("value")


# A laboratory's or a service's code for a sample or a study, after what it numbers
# (``Cultivo de esputo (MB26-119034)``, ``hemocultivos (H26-00418)``, ``muestra CNM26/118734``,
# ``ESTUDIO N.º: Q26/11847``, ``Vídeo-EEG n.º VEEG26-0142``): letters and the year's two digits,
# or the year's two digits and letters, then a hyphen or a slash and the number. The guide
# splits annotate them as the episode's identifiers (ID_CONTACTO_ASISTENCIAL, 6 of 6); MEDDOCAN
# train and dev hold no such code.
_SAMPLE_CUES = (
    "cultivo hemocultivo hemocultivos urocultivo coprocultivo muestra muestras estudio biopsia citología "
    "petición solicitud eeg"
).split()
# (the code looked for first, then the cue before it: codes are rare, the cues' letters common)
# (opening with the class of its first characters and what precedes checked after: re skips
# to the next capital or digit in C; the same matches as "(?<![\w/-])(?:[A-Z]{1,4}\d{2}[A-Z]?|\d{2}[A-Z]{1,3})…")
_SAMPLE_CODE = re.compile(
    r"[A-Z\d](?<![\w/-].)(?:(?<=[A-Z])[A-Z]{0,3}\d{2}[A-Z]?|(?<=\d)\d[A-Z]{1,3})[-/]\d{3,7}(?![\w/-])"
)
_SAMPLE_CUE_BEFORE = re.compile(
    rf"{letter_first(_SAMPLE_CUES)}(?![\w])[^\n():;]{{0,30}}?"
    rf"(?:\({SP}*(?:{_NUMBER_SIGN}{SP}*)?|{SP}*(?:{_NUMBER_SIGN}|:){SP}*:?{SP}*|{SP}+|{SP}*\n{SP}*)\Z"
)


def find_sample_codes(text: str) -> Iterator[Match]:
    """A sample's or a study's code after what it numbers (see above)."""
    for m in _SAMPLE_CODE.finditer(text):
        if _SAMPLE_CUE_BEFORE.search(text, max(0, m.start() - 60), m.start()):
            yield m.start(), m.end(), CONTACT_ID


def find_labelled_ids(text: str) -> Iterator[Match]:
    """The values of identifier labels (see the module docstring)."""
    for label in _LABELS.finditer(text):
        field = _field_of(label)
        where = _value_after(text, label, field)
        if where is not None:
            yield where[0], where[1], field.type


# A biometric identification's code, the first code after the word that names the
# biometric (P26.1: "huellas dactilares, de voz, de retina, ..."), later in its sentence
# and not a label's: ``reseña dactilar (n.º 28-0217734)``, ``registro de huella plantar
# (HP2510250641)``, ``firma electrónica biométrica del facultativo (ID de trazo):
# FS90371A55E2``, ``perfil genético de STR (código 26GX0193)``. MEDDOCAN train and dev name
# no biometric; the notes' guide splits hold 5 such codes that no label field finds.
_BIOMETRIC_WORD = re.compile(
    r"(?<!\w)(?i:biom[eé]tric[oa]s?|huellas?(?:\s+(?:dactilar(?:es)?|digital(?:es)?|plantar(?:es)?))?"
    r"|(?:reseña|ficha)\s+(?:dactilar|decadactilar|dactiloscópica)|dactiloscópic[oa]|perfil\s+genético"
    r"|reconocimiento\s+facial|iris|retina|patr[oó]n\s+de\s+voz)(?!\w)"
)
_BIOMETRIC_CODE = re.compile(
    r"(?<![\w/.,:-])(?=(?:[A-Z-]*[0-9]){4})[A-Z0-9]+(?:-[A-Z0-9]+)*(?![\w/.,:-]\w|[/.,-]?[0-9])"
)
_BIOMETRIC_WIDTH = 60
_DATE_LIKE = re.compile(r"[0-9]{1,2}-[0-9]{1,2}-[0-9]{2,4}|(?:19|20)[0-9]{2}")
_SENTENCE_END = re.compile(r"[.;](?:\s|$)|\n")


# A cheap check before the search: the words' stems, looked for in the lower-cased text.
_BIOMETRIC_STEMS = ("biom", "huella", "dactil", "perfil gen", "reconocimiento facial", "iris", "retina", "patr")


def find_biometric_codes(text: str) -> Iterator[Match]:
    """The code after a biometric's name in its sentence (see above)."""
    lowered = text.lower()
    if not any(stem in lowered for stem in _BIOMETRIC_STEMS):
        return
    for word in _BIOMETRIC_WORD.finditer(text):
        window = text[word.end() : word.end() + _BIOMETRIC_WIDTH]
        if stop := _SENTENCE_END.search(window):
            window = window[: stop.start()]
        if code := _BIOMETRIC_CODE.search(window):
            if len(code.group()) >= 6 and not _DATE_LIKE.fullmatch(code.group()):
                yield word.end() + code.start(), word.end() + code.end(), BIOMETRIC_ID


# Collegiate numbers: province code twice and five digits, "28 28 20943", "08-08-25574".
# The first digit first, what precedes it checked after it: re skips to the next digit
# in C (the same matches as with the lookbehind first, tests/test_rule_prefilters.py).
_COLLEGIATE = re.compile(r"(\d(?<![\w/.-]\d)\d)([ -])(\d{2})\2\d{5}(?![\w]|[ /-]\d)")
_COLLEGIATE_LABEL = re.compile(r"n[ºo°]\s?col|colegiad[oa]|col\.")


def find_collegiate(text: str) -> Iterator[Match]:
    """Collegiate numbers whose province code repeats, or after a collegiate label."""
    for m in _COLLEGIATE.finditer(text):
        if m.group(1) == m.group(3) or _COLLEGIATE_LABEL.search(line_before(text, m.start(), 30)):
            yield m.start(), m.end(), COLLEGIATE_ID


# The identifier types whose spans the model sometimes opens on the label before the
# value ("CIAS 1201010205A" as a record number).
_ID_TYPES = frozenset(
    (PATIENT_ID, INSURANCE_ID, CONTACT_ID, COLLEGIATE_ID, EMPLOYEE_ID, OTHER_ID, DEVICE_ID, BIOMETRIC_ID, OTHER_SUBJECT)
)


# characters before a span a label that runs into it may start at ("n.º personal 117302",
# "Pasaporte boliviano 11384207", "Muestra ADN GEN25-01873": the model's span opens on
# the label's last word)
_LABEL_REACH = 12


def _label_reaching_into(text: str, start: int) -> re.Match[str] | None:
    """A label that opens a few characters before ``start`` and ends after it (see
    :data:`_LABEL_REACH`)."""
    for i in range(max(0, start - _LABEL_REACH), start):
        if (i == 0 or not text[i - 1].isalnum()) and (m := _LABELS.match(text, i)) and m.end() > start:
            return m
    return None


_SIGN_AND_CODE = re.compile(r"(?i:n\.?[ \t]?[º°o]\.?|núm\.?)[ \t]*(?P<code>[\w/-]*\d[\w/-]*)")
_REPORT_CUE = re.compile(r"(?<![^\W_])(?i:atestado|diligencias|denuncia|expediente)(?![^\W_])")


def labels_cut_from_ids(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with each identifier span that opens on a label (``CIAS 1201010205A``,
    ``NHC 5512098``) cut to the label's value and typed by the label, when the value
    ends inside the span: the guidelines leave labels out (P20.1), and the label says
    what the number is better than the model does. A span inside a label is dropped."""
    out = []
    for span in spans:
        label = None
        if span.type in _ID_TYPES:
            label = _LABELS.match(text, span.start) or _label_reaching_into(text, span.start)
            if label is not None and label.start() < span.start and span.end <= label.end():
                continue  # a word of the label alone ("boliviano" of "Pasaporte boliviano …")
        elif span.type == STREET and (sign := _SIGN_TAIL.match(text, max(0, span.start - 2), span.start + 1)):
            # A "street" that opens on the tail of "n.º" ("º serie 7C41A20934", "º estudio
            # 26CE004471"): the model read a labelled number as an address's number.
            label = _LABELS.match(text, sign.start())
        elif span.type == STREET and (inner := _LABELS.search(text, span.start, span.end)):
            # A "street" that holds a label and ends on its value ("Col. n.º 13-0456",
            # "SenTiva, n.º de serie 104773"): the labelled number, read as a house number.
            label = inner
        elif span.type == STREET and (number := _SIGN_AND_CODE.fullmatch(text, span.start, span.end)):
            # "atestado de la Policía Local de Melilla n.º 318/2026": a report's number after its
            # body, the sign taken for an address's (the guide splits 2; MEDDOCAN none)
            line_start = text.rfind("\n", 0, span.start) + 1
            if _REPORT_CUE.search(text, max(line_start, span.start - 90), span.start):
                span = replace(span, start=number.start("code"), type=OTHER_SUBJECT, source=RULE)
        where = _value_after(text, label, _field_of(label)) if label else None
        if where is not None and where[0] > span.start and where[1] <= span.end:
            field = _field_of(label)
            span = replace(span, start=where[0], end=where[1], type=field.type, source=RULE)
        elif span.type in _ID_TYPES or (span.type == OTHER_SUBJECT and _DIGIT.search(text, span.start, span.end)):
            if (prefix := _JOINED_PREFIX.search(text, max(0, span.start - 16), span.start)) and (
                prefix.group("letters").upper() not in _PREFIX_LABELS
            ):
                if out and out[-1].end > prefix.start():
                    # the letters are a span of their own ("FMAS" of "FMAS-23-04412" as a
                    # body): the code takes it in; a span reaching before them stays as it is
                    if out[-1].start >= prefix.start():
                        out.pop()
                        span = replace(span, start=prefix.start(), source=RULE)
                else:
                    span = replace(span, start=prefix.start(), source=RULE)
        out.append(span)
    return out


# Capital letters joined to a code's digits that the model left out of the span (``M`` of
# ``M25118340``, ``HP`` of ``HP2510250641``): the notes' annotators always keep them (the
# guide splits and the training notes: no code with joined letters outside its span). A
# prefix over a hyphen is left alone: after a label it is the label's (``NHC: HC-0045123``,
# ``atestado nº AT-2024-000981``), elsewhere the code's (``ref. TD-2023-08817``). A label
# glued to the number stays out too (``NHC0045123``).
_DIGIT = re.compile(r"[0-9]")
_JOINED_PREFIX = re.compile(r"(?<![\w./-])(?P<letters>[A-Z]{1,6})\Z")
_PREFIX_LABELS = frozenset(
    "HC NHC NHCA CIP CIPA TSI TIS SIP NUHSA CIC DNI NIF NIE NASS NSS NAF TSE CIAS CIA REF LOT SN".split()
)


# The number sign whose last character opens a span: "n.º", "nº", "Nº".
_SIGN_TAIL = re.compile(r"(?i:n\.?)[º°]")


STAFF = "NOMBRE_PERSONAL_SANITARIO"
# A number labelled only ``nº`` or ``ID`` right after a staff member's name, in brackets
# or after a dash, with the role between them or not (``Enf.: Pilar Gimeno (ID 0021784)``,
# ``Enf. triaje: R. Benhamú — nº 3391``, ``X. Castro (TSID, nº T-0918)``): the person's
# employee number (P21.1). ``NºCol``/``col.`` numbers are the collegiate labels' (another
# field of :data:`FIELDS`), which the bare ``nº`` before digits never is.
_STAFF_NUMBER = re.compile(
    rf"{SP}*(?:[(\[]|[—–-]){SP}*(?:[A-Z]{{2,5}}\.?,{SP}*)?(?:(?i:n[º°]\.?|n\.[º°]|id)|ID){SP}*:?{SP}*"
    rf"(?P<value>(?:[A-Z]{{1,3}}-?)?\d{{3,8}})(?![\w/.-]\w)"
)


def staff_numbers_after_names(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` with the number labelled ``nº`` or ``ID`` right after a staff name added
    as an employee number, where no span covers it (see above)."""
    taken = [(s.start, s.end) for s in spans]
    added = []
    for span in spans:
        if span.type != STAFF or not (m := _STAFF_NUMBER.match(text, span.end)):
            continue
        start, end = m.span("value")
        if not any(a < end and start < b for a, b in taken):
            added.append(PHISpan(start, end, EMPLOYEE_ID, 1.0, RULE))
    return sorted([*spans, *added]) if added else list(spans)


# A person whose employee or collegiate number follows the name (``Enf. triaje: Rocío
# Navarrete Gil (n.º emp. 71904)``, ``Dra. … , colegiada 28/12345``) is staff (P5.1,
# P21.1), whatever person the model took them for: MEDDOCAN train and dev give no patient
# or relative such a number.
_PERSONS_BEFORE_NUMBERS = frozenset(("NOMBRE_SUJETO_ASISTENCIA", "FAMILIARES_SUJETO_ASISTENCIA"))
_STAFF_NUMBER_GAP = re.compile(r"[ \t,(\[—–-]{0,4}[^\n;()\[\]]{0,20}")


# A name no span covers right before the bracket that holds such a number (``Técnico
# Iosu Larraona Echarri (n.º E-70119)``): two to four capitalised words, one space between
# them (a label before a wide gap is not taken), not all of them words of clinical text.
_NAME_BEFORE_NUMBER = re.compile(
    rf"(?<![\w.])(?P<name>[{UPPER}][^\W\d_]+(?: (?:(?:de|del|de la|y|i) )?[{UPPER}][^\W\d_]+){{1,3}})"
    rf"{SP}*\({SP}*(?:n\.?[º°o]\.?|núm\.?|col\.?|colegiad[oa])?[^\n()]{{0,12}}\Z"
)


def staff_before_their_numbers(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted) with a patient's or relative's span right before an employee or
    collegiate number retyped as staff (see above)."""
    out = list(spans)
    for i, span in enumerate(out[:-1]):
        after = out[i + 1]
        if (
            span.type in _PERSONS_BEFORE_NUMBERS
            and after.type in (EMPLOYEE_ID, COLLEGIATE_ID)
            and _STAFF_NUMBER_GAP.fullmatch(text, span.end, after.start)
        ):
            out[i] = replace(span, type=STAFF, source=RULE)
    return out


_NOT_STAFF_WORDS = INSTITUTION_WORDS | SPECIALTY_WORDS


def staff_named_before_their_numbers(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted) with a staff name that no span covers added before the bracket of
    an employee or collegiate number (see above)."""
    out = list(spans)
    added = []
    for i, span in enumerate(out):
        if span.type not in (EMPLOYEE_ID, COLLEGIATE_ID):
            continue
        previous_end = out[i - 1].end if i else 0
        m = _NAME_BEFORE_NUMBER.search(text, max(previous_end, span.start - 70), span.start)
        if m is None:
            continue
        words = [w for w in m["name"].split() if w[0].isupper()]
        if (
            all(w.lower() in clinical_words() for w in words)
            or any(w.isupper() or normalize(w) in _NOT_STAFF_WORDS for w in words)  # "FEA Hematología"
        ):
            continue
        added.append(PHISpan(*m.span("name"), STAFF, 1.0, RULE))
    return sorted([*out, *added]) if added else out


# A code of capitals and digits joined by hyphens or slashes that the model cut to its digits,
# leaving its letters out (``Enf. Nerea … (L-38817)`` → ``38817``, ``FSE-10488``,
# ``BU-35421-VE``, ``PD-27-55018-A``), or cut in two at them (``2026/BAR/01744`` → ``2026`` +
# ``01744``): one span over the whole code, as the guide splits write all 11 such codes of
# dev15. The code holds a letter that no Roman month has (``26-XI-2026`` is a date's) and
# stands alone (no letter, digit, hyphen or slash around it), its letters in runs of at most
# four (``COVID-19`` is no code). Its digits alone were taken for
# a postcode, a date or a phone: the code keeps the type of an identifier span inside it, else
# it is NUMERO_IDENTIF, or the employee number of the staff member named right before its
# bracket, or a plate after ``matrícula``. MEDDOCAN train and dev hold no such code cut so.
_CODE_CHARS = frozenset("ABCDEFGHIJKLMNÑOPQRSTUVWXYZ0123456789-/")
_LETTERED_CODE = re.compile(r"[A-ZÑ0-9]+(?:[-/][A-ZÑ0-9]+)+")
# (the model's span: digits, or a part of the code with its own letters, "MU-26-00519" of
# "EDO-MU-26-00519")
_CODE_PART = re.compile(r"\d(?:[\d/.-]*\d)?|(?=[A-ZÑ0-9/-]*\d)[A-ZÑ0-9]+(?:[-/][A-ZÑ0-9]+)+")
_ROMAN_MONTH_LETTERS = frozenset("IVX")
_SPANISH_POSTCODE = re.compile(r"(?:E|ES)-\d{5}")
_RECORD_LABEL_BEFORE = re.compile(rf"(?<!\w)(?:{_RECORD_LABEL.pattern})[^\n\w]*\Z")
# (a word of five capitals or more is an acronym's, not a code's prefix: ``COVID-19``)
_LONG_LETTER_RUN = re.compile(r"[A-ZÑ]{5}")
# (a vehicle's plate too: "BU-35421-VE")
_CODE_TYPES = _ID_TYPES | {VEHICLE_ID}
_STAFF_BEFORE_BRACKET = re.compile(rf"{SP}*\({SP}*\Z")
# (after "matrícula", a vehicle's or a boat's plate: ``(matrícula BU-35421-VE)``)
_PLATE_LABEL_BEFORE = re.compile(r"(?i:matr[íi]cula)(?![\w])[^\n.;]{0,20}\Z")


def _code_around(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The code of capitals and digits (see above) that holds ``text[start:end]``, if it is longer."""
    a, b = start, end
    while a and text[a - 1] in _CODE_CHARS:
        a -= 1
    while b < len(text) and text[b] in _CODE_CHARS:
        b += 1
    while a < start and text[a] in "-/":
        a += 1
    while b > end and text[b - 1] in "-/":
        b -= 1
    if (
        (a, b) == (start, end)
        or (a and (text[a - 1].isalnum() or text[a - 1] in "."))
        or not _LETTERED_CODE.fullmatch(text, a, b)
    ):
        return None
    if b < len(text) and (text[b].isalnum() or (text[b] in "." and b + 1 < len(text) and text[b + 1].isalnum())):
        return None
    if _RECORD_PREFIX.match(text[a:b]) and _RECORD_LABEL_BEFORE.search(text, max(0, a - 24), a):
        return None  # a record number's prefix, left out on purpose: "NHC: HC-0045123"
    letters = {c for c in text[a:b] if c.isalpha()}
    if not letters - _ROMAN_MONTH_LETTERS or _LONG_LETTER_RUN.search(text, a, b):
        return None
    return a, b


def ids_with_their_letters(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (sorted, not overlapping) with each span of digits (or part of a code) that
    a code's letters were cut from widened to the code, the spans inside it merged (see
    above)."""
    out: list[PHISpan] = []
    i = 0
    while i < len(spans):
        span = spans[i]
        # (a rule's span was cut so on purpose: ``NHC: HC-0045123`` keeps the record's number)
        cut = span.source != RULE and _CODE_PART.fullmatch(text, span.start, span.end)
        where = _code_around(text, span.start, span.end) if cut else None
        if where is None:
            out.append(span)
            i += 1
            continue
        a, b = where
        j = i
        while j < len(spans) and spans[j].start < b:
            j += 1
        inside = spans[i:j]
        if any(s.start < a or s.end > b for s in inside) or (out and out[-1].end > a):
            out.append(span)
            i += 1
            continue
        kind = next((s.type for s in inside if s.type in _CODE_TYPES), OTHER_ID)
        if _SPANISH_POSTCODE.fullmatch(text, a, b) and inside[0].type == TERRITORY:
            kind = TERRITORY  # "E-23400 Úbeda": a postcode with Spain's letter (MEDDOCAN writes it whole)
        if kind == OTHER_ID and out and out[-1].type == STAFF and _STAFF_BEFORE_BRACKET.fullmatch(text, out[-1].end, a):
            kind = EMPLOYEE_ID
        elif kind == OTHER_ID and _PLATE_LABEL_BEFORE.search(text, max(0, a - 30), a):
            kind = VEHICLE_ID
        out.append(replace(span, start=a, end=b, type=kind, source=RULE, text="", replacement=None))
        i = j
    return out
