"""Relatives the model missed or typed as someone else.

The guidelines annotate a relative by the kinship word itself (P4.2: ``su madre``,
``dos hijos``, ``tío paterno``), and MEDDOCAN's training annotations do so for almost
every lower-case kinship word (``madre`` 28 of 36, ``hermano`` 15 of 15; the rest are
things like ``solución madre``). Notes written in other ways put the word where the
model has not seen it (``su marido y su hijo mayor siguen en …``), and put a relative's
name after it (``Su marido, Karim``), which the model types as the patient or staff.
:func:`relatives` runs after the merge, on the merged spans:

* a lower-case kinship phrase that no span covers becomes a FAMILIARES span: the word
  with a numeral before it and a qualifier after it (``dos hijos``, ``hijo mayor``,
  ``tía materna``), but only after a determiner, a preposition, a conjunction or the
  start of a clause, so that ``solución madre`` and ``células hijas`` are left alone,
  and never as a field label (``Madre:``) or a compound (``madre-RN``); before a colon
  only where prose goes on after it (``a la hija: manejo …``) or after a phone word
  (``móbil da filla: 639 …``);
* a FAMILIARES span that starts with an article or a possessive (``un hermano``) loses
  it, as the guidelines' examples do;
* two ages with their unit written once (``de 4 y 11 años``) are two spans, the first
  number alone (:func:`_paired_ages`);
* a person's name right after a kinship phrase (maybe saying whose relative it is: ``una
  prima de la paciente``) and a comma (``esposa, Dña. Blanca
  Irigoyen``) or a kinship label opening a list's line (``3. Sobrina: Piedad``) is the
  relative's: its type becomes FAMILIARES; so does a name the model took for a place
  there (``su hija mayor, Salma``); a name the model missed there is added (see
  :func:`_names_after_kin`);
* an age right after a relative (``su hijo Iñaki, de 12 años``), or later in the
  relative's sentence before the patient comes back into it (``Madre fallecida a los
  48 años``), is the relative's, a FAMILIARES span of its own as in MEDDOCAN train (15
  such spans to 5 typed EDAD right after; 17 to 1 later in the sentence);
  right after the kinship phrase itself (``hija de 19 años``, ``dos hijas de 16 y 12
  años``, ``hijo mediano (21 años)``) it joins the phrase's span, as MEDDOCAN train
  writes ``hijo de 27 años`` and ``madre de 34 años``;
* kinship words of Catalan, Galician and Basque count too (``la seva germana``, ``o seu
  fillo``, ``alaba``); those that also mean "woman", "man" or "couple" (``mujer``,
  ``pareja``, ``dona``, ``home``, ``muller``) only after a possessive (``su mujer``, ``o
  seu home``), and a name after them and a comma is the partner's (``su mujer, Ionela``);
* words for children after an article, a possessive or a numeral (``los niños están
  con una prima``, ``tres menores a cargo``, ``os dous nenos``) and the Catalan and
  Galician ``dona`` after an article (``la dona no té telèfon``) are relatives too;
* a capitalised kinship word opening a sentence before a lower-case word or a comma
  (``Sobrina refiere…``, ``Marido avisado``) is a relative too; in an ALL-CAPS note, a
  name after an article, a kinship word and a comma (``EL PADRE, CHEN HAO``);
* a kinship phrase and the name right after it, a space between (``filla Aina``), are
  one span, as in MEDDOCAN train (``madre Teresa Rodriguez``) and the notes; a relative
  span the model opened on the word before the article (``Traduce el hijo Wei``) or ran
  past the name (``hija Inmaculada trabaja``) is cut back to the phrase and the name, and
  one over the relative's health (``hermana gemela sana``) loses that word.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from deid_crf.deid.recognizers import number_words
from deid_crf.deid.recognizers.common import SP, by_first_letter, finditer_at, is_lower_case_note, is_word_char
from deid_crf.gazetteers.spanish import INSTITUTION_WORDS, MONTHS, SPECIALTY_WORDS, UPPER, WEEKDAYS, normalize
from deid_crf.text.spans import RULE, Coverage, PHISpan

RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"
PERSON_TYPES = ("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO")
# Types of a name after "kinship word," that make it the relative's.
_NAMED_AFTER_KIN = (*PERSON_TYPES, "TERRITORIO")

# "mujer" and "pareja" are left out: MEDDOCAN annotates them 4 times in 155 and 4 in 6,
# and "mujer" is the patient far more often than a wife.
_KIN_WORDS = (
    *("madres?", "padres?", "hij[oa]s?", "herman[oa]s?", "espos[oa]s?", "marido", "exmarido", "expareja", "exmujer"),
    *("abuel[oa]s?", "bisabuel[oa]s?", "tí[oa]s?", "sobrin[oa]s?", "prim[oa]s?", "niet[oa]s?", "bisniet[oa]s?"),
    *("cuñad[oa]s?", "yerno", "nuera", "suegr[oa]s?", "consuegr[oa]s?", "hermanastr[oa]s?", "padrastro", "madrastra"),
    *("hijastr[oa]s?", "progenitor(?:a|es|as)?", "gemel[oa]s?", "melliz[oa]s?"),
    # colloquial and regional words for a child or a grandparent ("el peque", "la yaya",
    # Asturian "la güela")
    *("peques?", "yay[oa]s?", "güel[oa]s?"),
    # Catalan, Galician and Basque, as notes quote them ("la seva germana", "o seu fillo",
    # "alaba"); words that are also ordinary Spanish or mean "woman" or "man" left out
    # (dona, home, muller, ama).
    *("mare", "pare", "fill", "filla", "fills", "filles", "germà", "germana", "germans", "germanes", "marit", "avi"),
    *(
        "àvia",
        "néta?",
        "néts",
        "oncles?",
        "cosina?",
        "nebot",
        "neboda",
        "nebots",
        "sogres?",
        "sogra",
        "gendre",
        "cunyat",
    ),
    *("cunyada", "nai", "pai", "fill[oa]s?", "irmán", "irmá", "irmáns", "irmás", "avó", "avoa", "avós"),
    *("sobriñ[oa]s?", "curmán", "curmá", "sogr[oa]s?", "xenro", "cunhad[oa]s?"),
    *("aita", "alaba", "semea", "anaia", "ahizpa", "arreba", "senarra", "emaztea", "amona", "aitona"),
)
_KIN_WORD = by_first_letter(_KIN_WORDS)
# Galician "neto"/"neta" (grandson, granddaughter) is Spanish "net" ("límites netos", "bordes
# netos y netas" in the unlabeled case reports): a grandchild only after a Galician article or
# possessive ("O neto, enxeñeiro …", "a súa neta"; the guide splits 3 of 3).
_GALICIAN_GRANDCHILD = re.compile(
    r"(?<![^\W_])(?:[Oo]s?|[Aa]s?|seu|seus|súa|súas|do|dos|da|das|ao|aos|coa|co)[ \t]+(?P<phrase>net[oa]s?)(?![^\W_]|-)"
)
KIN_WORD = _KIN_WORD  # a kinship word, as a pattern (other recognizers' guards)
_NUMERAL = r"(?:dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|ambos|ambas|dous|dúas|dues|catro|quatre|\d{1,2})"
_QUALIFIER = (
    r"(?:mayor|menor|mayores|menores|pequeñ[oa]s?|median[oa]|únic[oa]|gemel[oa]s?|mellizos?"
    r"|matern[oa]s?|patern[oa]s?|políticos?|política"
    # Catalan and Galician ("el fill gran", "la filla petita", "o fillo maior")
    r"|gran|grans|petit|petita|petits|petites|mitjà|mitjana|maior|maiores|pequeno|pequena)"
)
# What may stand right before a kinship phrase: the start of a line, punctuation, a
# determiner, a possessive, a preposition or a conjunction.
_BEFORE = (
    # (and a list item's number: "2) nebot, Jordi Rovira")
    r"(?:^|[\n\r(\[;:,.\-–—•|·]|(?<=\d\))|\b(?:el|la|los|las|un|una|unos|unas|su|sus|mi|mis|tu|tus|nuestr[oa]s?"
    r"|a|al|de|del|con|por|para|sin|entre|y|e|o|u|ni|como|según|que|otro|otra|otros|otras"
    r"|seva|seves|seua|seues|seu|seus|i|amb|súa|súas|coa|co|cos|coas|da|do|das|meu|miña"
    # Catalan and Galician articles ("els néts", "dels fills", "os netos"), and the elided
    # "l'" and "d'" of Catalan ("l'esposa", "d'una germana": the apostrophe after the word)
    r"|els|les|als|dels|pels|os|as)\b|(?<![^\W\d_])[LlDd]['’])"
)
# A numeral is guard enough: "tiene dos hijos".
# (before a colon only with a numeral, "Dos hijas: Marisa, …": a field's label has none)
_KIN_PHRASE = re.compile(
    rf"(?:(?<!\w)(?={_NUMERAL}{SP}+{_KIN_WORD})|{_BEFORE}{SP}*)"
    rf"(?P<phrase>(?P<numeral>{_NUMERAL}{SP}+)?{_KIN_WORD}(?:{SP}+{_QUALIFIER})?)"
    rf"(?![\w\-])(?(numeral)(?!{SP}*:{SP}*(?-i:[a-zñáéíóú]))|(?!{SP}*:))",
    re.MULTILINE | re.IGNORECASE,
)
# A kinship phrase that says whose a phone is (``tel. hija 659 …``, Galician ``móbil da
# filla: 639 …``), or one in running text before a colon (``Educación sanitaria a la hija:
# manejo …``: a lower-case word after the colon), where :data:`_KIN_PHRASE` takes the colon
# for a field label's (``Nombre elegido por los padres: Aminata`` stays a label). MEDDOCAN
# train and dev have neither; the notes' guide splits 3, all relatives.
_PHONE_WORD = r"(?:tel|telf|tlf|tfno|teléfono|telèfon|móvil|móbil|mòbil|whatsapp)\.?"
_KIN_BEFORE_COLON = re.compile(
    rf"(?<!\w)(?:{_PHONE_WORD}(?:{SP}+(?:de{SP}+la|de{SP}+el|del|de|da|do|dos|das|de{SP}+su))?"
    rf"|(?:la|el|los|las|su|sus|al|del|da|do|a|o)(?={SP}+{_KIN_WORD}(?:{SP}+{_QUALIFIER})?{SP}*:{SP}*(?-i:[a-zñáéíóú])))"
    rf"{SP}+(?P<phrase>{_KIN_WORD}(?:{SP}+{_QUALIFIER})?)(?![\w\-])",
    re.IGNORECASE,
)
# A lower-case kinship phrase before a colon and what the relative said or how to reach
# them (``; hijo: +54 9 341 …``, ``Comentario del hijo: «Mi madre …»``): the notes' guide
# splits annotate it (a capitalised ``Hijo:`` opens a field whose value is the name; it is
# left alone). MEDDOCAN train and dev have none.
_VALUE_AFTER_COLON = re.compile(rf"(?P<q>{SP}+{_QUALIFIER})?{SP}*:{SP}*(?:[+(]?\d|[«\"“]|[\w.+-]+@)", re.IGNORECASE)
_BEFORE_COLON_REACH = 24  # characters a phone word and its "de la" may stand before the kinship word


def _before_colon_starts(kin_words: Sequence[re.Match[str]]) -> list[int]:
    """Every position where :data:`_KIN_BEFORE_COLON` can begin: up to
    :data:`_BEFORE_COLON_REACH` characters before a kinship word (a few per note; trying the
    pattern everywhere cost a third of this module's time)."""
    starts: set[int] = set()
    for m in kin_words:
        starts.update(range(max(0, m.start() - _BEFORE_COLON_REACH), m.start()))
    return sorted(starts)


# A kinship word standing as a whole word: the one of every kinship phrase. Its few
# occurrences are found fast (one branch per first letter), and _KIN_PHRASE is tried only
# just before them instead of at every position of the text.
_KIN_AT = re.compile(rf"(?<!\w){_KIN_WORD}(?!\w)", re.IGNORECASE)
KIN_AT = _KIN_AT  # a kinship word standing as a whole word (other recognizers' checks)


# A lower-case kinship word right before a phone number, without a colon: whose number it
# is (``Tlf: 631 04 88 27 / madre +212 661 23 47 90``, ``Contacto: hija 609 … / nuera 651 20
# 48 19``): the guide splits 2 of 2; MEDDOCAN train and dev have none.
_PHONE_RIGHT_AFTER = re.compile(
    rf"{SP}+(?P<number>(?:\+\d{{1,3}}{SP}*)?\d{{1,3}}(?:[ .]?\d{{2,3}}){{2,5}})(?![\d/.,-]\d|\d)"
)
_PHONE_DIGITS = 9


def _kin_before_values(text: str, kin_words: Sequence[re.Match[str]]) -> Iterator[tuple[int, int]]:
    """The lower-case kinship phrases right before a colon and a value, or right before a
    phone number (see above)."""
    for m in kin_words:
        if not m.group().islower():
            continue
        if value := _VALUE_AFTER_COLON.match(text, m.end()):
            yield m.start(), value.end("q") if value.group("q") else m.end()
        elif (phone := _PHONE_RIGHT_AFTER.match(text, m.end())) and sum(
            c.isdigit() for c in phone.group("number")
        ) >= _PHONE_DIGITS:
            yield m.span()


def _phrase_starts(text: str, kin_words: Sequence[re.Match[str]] | None = None) -> Iterator[int]:
    """Every position, ascending, where :data:`_KIN_PHRASE` can begin: within reach of
    a kinship word, which a match holds as a whole word, with before it at most a
    numeral, a word of :data:`_BEFORE` (or one of its marks) and the spaces around
    them. Walking back over any spaces, word, spaces, word, spaces and two characters
    more (an elided article: ``l'``) reaches at least that far."""
    next_start = 0
    for m in _KIN_AT.finditer(text) if kin_words is None else kin_words:
        i = m.start()
        for is_skipped in (str.isspace, is_word_char, str.isspace, is_word_char, str.isspace):
            while i and is_skipped(text[i - 1]):
                i -= 1
        yield from range(max(i - 2, next_start), m.start() + 1)
        next_start = m.start() + 1


_ARTICLE = re.compile(rf"(?:un|una|unos|unas|su|sus|el|la|los|las|mi|mis){SP}+(?={_KIN_WORD}\b)", re.IGNORECASE)
# A kinship phrase, maybe whose relative it is ("la prima de la paciente", "la hija de
# Lucena"), a comma and maybe a courtesy title, right before a name. (MEDDOCAN train and dev
# have no kinship phrase with a "de …" before a comma and a name; the notes' guide halves 2.)
_OF_WHOM = rf"(?:{SP}+(?:de{SP}+la|del|de){SP}+(?:paciente|pacient|usuari[oa]|enferm[oa]|(?-i:[{UPPER}][^\W\d_]+)))"
_KIN_BEFORE_NAME = re.compile(
    rf"\b{_KIN_WORD}(?:{SP}+{_QUALIFIER})?{_OF_WHOM}?{SP}*,\s*(?:(?:D\.|Dña\.|Dª|Sr\.|Sra\.|Don|Doña){SP}*)?$",
    re.IGNORECASE,
)
_LOOKBACK = 60  # characters before a name searched for its kinship phrase
AGE = "EDAD_SUJETO_ASISTENCIA"
_KIN = re.compile(rf"\b{_KIN_WORD}\b", re.IGNORECASE)
_AGE_AFTER_RELATIVE = re.compile(rf"{SP}*,?{SP}*(?:de|con){SP}+")


# A partner: words that also mean "woman", "man" or "couple" name one only after a
# possessive (``su mujer``, ``la seva dona``, ``o seu home``, ``a súa muller``), and
# MEDDOCAN train annotates them there (``su mujer`` 2 of 2, ``su pareja`` 3 of 3). So does
# the Basque ``ama`` (mother; Spanish ``ama de casa``): ``su ama fue intervenida``.
_POSSESSIVE = r"(?:su|sus|mi|mis|tu|seva|seua|seu|súa|sua|nuestr[oa])"
_PARTNER = re.compile(
    rf"(?<!\w){_POSSESSIVE}{SP}+(?P<phrase>mujer|pareja|dona|home|muller|parella|parexa|novi[oa]|prometid[oa]"
    rf"|compañer[oa]{SP}+sentimental"
    rf"|ama(?!{SP}+de{SP}+(?:casa|llaves|cr[ií]a)))"
    rf"(?![\w\-:])(?!{SP}*:)",
    re.IGNORECASE,
)
# A partner's word alone in brackets after a phone number or after the partner's name
# (``667 402 918 (muller)``, ``Contacte: Hannah Pritchard (parella)``): whose the number
# or the name is, as a kinship word in brackets after a phone says it (``(madre)``); the
# name before it is the relative's. MEDDOCAN train and dev have none; the guide splits 2.
# (opening on the bracket, so that re skips to the next "(" in C)
_PARTNER_IN_BRACKETS = re.compile(
    rf"\({SP}*(?P<phrase>(?i:mujer|muller|dona|marido|home|pareja|parella|parexa|espos[oa]|novi[oa])){SP}*\)"
)


_SEX_WORDS = frozenset(("mujer", "muller", "dona", "home"))  # after a name they may say its sex: "Ana López (mujer)"


def _partners_in_brackets(text: str, spans: Sequence[PHISpan]) -> tuple[list[tuple[int, int]], set[int]]:
    """The partner words in brackets of :data:`_PARTNER_IN_BRACKETS` right after a digit or
    a person's span, and the starts of those persons' spans."""
    ends = {s.end: s for s in spans if s.type in PERSON_TYPES}
    found, named = [], set()
    for m in _PARTNER_IN_BRACKETS.finditer(text):
        before = m.start()  # where the word or number before ends
        while before and text[before - 1] in " \t":
            before -= 1
        if before and text[before - 1].isdigit():
            found.append(m.span("phrase"))
        elif (person := ends.get(before)) is not None and normalize(m.group("phrase")) not in _SEX_WORDS:
            found.append(m.span("phrase"))
            named.add(person.start)
    return found, named


# Catalan and Galician "dona" (woman, wife) after an article is the patient's wife in the
# notes that use it ("la dona no té telèfon", "A dona faleceu en 2019"); Spanish has "dona"
# only as a verb, after a pronoun or a name.
# (The word is looked for first, then the article before it: few texts hold "dona".)
_DONA = re.compile(rf"(?:dona|muller)(?![\w\-:])(?!{SP}*:)")
_DONA_ARTICLE_BEFORE = re.compile(rf"(?<!\w)(?:[Ll]a|[Aa]|[Dd]a){SP}+\Z")


def _is_wife_called_dona(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is ``dona`` after an article (see above)."""
    return (
        _DONA.fullmatch(text, start, end) is not None
        and not (start and text[start - 1].isalnum())
        and _DONA_ARTICLE_BEFORE.search(text, max(0, start - 6), start) is not None
    )


def _wives_called_dona(text: str) -> Iterator[tuple[int, int]]:
    """The spans of each ``dona`` after an article."""
    for m in _DONA.finditer(text):
        if _is_wife_called_dona(text, *m.span()):
            yield m.span()


# Children called by a word for children, not a kinship word ("los niños están con una
# prima", "no mantiene contacto con los chicos", "tres menores a cargo", "os dous nenos"):
# in lower case, after an article or a possessive (the word alone is the span, as for
# kinship words) or a numeral (which the span takes in). MEDDOCAN train and dev have
# none; the notes' guide halves have 6, all relatives. Not after a preposition that opens
# a general statement ("en los niños", "para las niñas") nor "menores de" (an age limit).
_CHILD_WORD = r"(?:niñ[oa]s|chic[oa]s|crí[oa]s|nen[oa]s|nens|nenes|menores)"
_CHILD_AT = re.compile(rf"{_CHILD_WORD}(?![\w\-:])(?!{SP}*:)(?!{SP}+de{SP}+(?:\d|edad))")
_CHILD_BEFORE = re.compile(
    rf"(?:(?<![\w-])(?P<determiner>[Ll]os|[Ll]as|[Ss]us|[Mm]is|[Oo]s|[Aa]s|seus|ses|[Ee]ls|[Ll]es)"
    rf"|(?<![\w-])(?P<numeral>{_NUMERAL})){SP}+\Z"
)
_GENERAL_STATEMENT = re.compile(rf"(?<!\w)(?:en|para|entre|En|Para|Entre){SP}+\Z")


def _children(text: str) -> Iterator[tuple[int, int]]:
    """The spans of children called so (see :data:`_CHILD_WORD`)."""
    for m in _CHILD_AT.finditer(text):  # the word first, then what is before it
        start = m.start()
        if start and (text[start - 1].isalnum() or text[start - 1] in "_-"):
            continue
        before = _CHILD_BEFORE.search(text, max(0, start - 16), start)
        if before is None:
            continue
        if before.group("numeral") is not None:
            start = before.start()
        if not _GENERAL_STATEMENT.search(text, max(0, before.start() - 8), before.start()):
            yield start, m.end()


_PARTNER_BEFORE_NAME = re.compile(rf"{_PARTNER.pattern}{SP}*,{SP}*$", re.IGNORECASE)
# An article or possessive in capitals right before a kinship phrase in capitals
# (``LA MADRE, LIN MEI``): an ALL-CAPS note, where a capital proves nothing.
_CAPITAL_DETERMINER = re.compile(rf"(?<!\w)(?:EL|LA|LOS|LAS|SU|SUS|MI|MIS){SP}+$")


# A kinship label opening a line of a list, then a colon (``3. Sobrina: Piedad``,
# ``- Padre: Juan``): the name after it is the relative's.
_KIN_LABEL = rf"^{SP}*(?:\d{{1,2}}[.)]{SP}*|[-•*]{SP}*)?(?=[{UPPER}])(?i:{_KIN_WORD})(?:{SP}+{_QUALIFIER})?{SP}*:{SP}*"
_KIN_LABEL_BEFORE_NAME = re.compile(rf"{_KIN_LABEL}$", re.MULTILINE)


def _kin_before(text: str, start: int) -> bool:
    """A kinship phrase or a partner and a comma end right before ``start``: in lower
    case (``Dos Hermanas, Sevilla`` is a town and its province), or in capitals after
    an article or possessive in capitals; or a kinship label opening the line."""
    window = max(0, start - _LOOKBACK)
    if _PARTNER_BEFORE_NAME.search(text, window, start) or _KIN_LABEL_BEFORE_NAME.search(text, window, start):
        return True
    m = _KIN_BEFORE_NAME.search(text, window, start)
    if m is None:
        return False
    if text[m.start()].islower():
        return True
    return text[m.start() : start].isupper() and _CAPITAL_DETERMINER.search(text, window, m.start()) is not None


# A capitalised kinship phrase opening a sentence, then a lower-case word or a comma
# (``Sobrina refiere…``, ``Marido avisado``, ``Madre, 70 años``): MEDDOCAN train
# annotates ``Padre``, ``Madre``, ``Hermana`` so. A capital after anything else is a
# name or a street (``Avenida Hermanos Machado``, ``Dña. Rosa Nieto``).
_SENTENCE_START = re.compile(r"(?:^|[\n.;•|]|^[\-–—*]|\n[\-–—*])[ \t]*$")
_LOWER_WORD_OR_COMMA = re.compile(rf"{SP}*,|{SP}+[a-zñáéíóúü]")


def _is_relative_phrase(text: str, m: re.Match[str]) -> bool:
    """Whether the kinship phrase of ``m`` is written as a relative is: in lower case,
    or capitalised at the start of a sentence before a lower-case word or a comma."""
    phrase = m.group("phrase")
    if phrase.islower():
        return True
    start, end = m.span("phrase")
    named_after = "numeral" in m.re.groupindex and m.group("numeral") and _NAMES_AFTER_COLON.match(text, end)
    return (
        phrase[0].isupper()
        and phrase[1:].islower()
        and _SENTENCE_START.search(text, max(0, start - 4), start) is not None
        and (_LOWER_WORD_OR_COMMA.match(text, end) is not None or bool(named_after))
    )


# A numbered kinship phrase and their names after a colon ("Dos hijas: Marisa, …").
_NAMES_AFTER_COLON = re.compile(rf"{SP}*:{SP}*[{UPPER}]")


# An age later in a relative's sentence is the relative's (``Madre fallecida a los 48
# años``, ``Tío materno intervenido a los 34 años``: MEDDOCAN train types such ages
# FAMILIARES 17 times to 1), unless the patient comes back into the sentence first.
_SENTENCE_GAP = 80
# A line end breaks the sentence unless the next line goes on in lower case (a wrapped line:
# ``hermano⏎intervenido de cáncer de colon a los 49``).
_SENTENCE_BREAK = re.compile(
    r"[.;:]|\n(?![ \t]*(?-i:[a-zñáéíóúü]))|\b(?:paciente|pacient|enferm[oa]|usuari[oa]|él|ella|mientras)\b",
    re.IGNORECASE,
)


def _later_in_the_sentence(text: str, relative_end: int, age_start: int) -> bool:
    return 0 <= age_start - relative_end <= _SENTENCE_GAP and not _SENTENCE_BREAK.search(text, relative_end, age_start)


def relatives(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` (not overlapping one another) with the relatives described in the
    module added, trimmed and retyped."""
    coverage = Coverage((s.start, s.end) for s in spans)
    kin_words = list(_KIN_AT.finditer(text))  # searched once: the search is most of the cost
    added = [
        PHISpan(*m.span("phrase"), RELATIVE, 1.0, RULE)
        for m in [
            *finditer_at(_KIN_PHRASE, text, _phrase_starts(text, kin_words)),
            *_PARTNER.finditer(text),
            *(_GALICIAN_GRANDCHILD.finditer(text) if "net" in text else ()),
            *finditer_at(_KIN_BEFORE_COLON, text, _before_colon_starts(kin_words)),
        ]
        # "Hermanos Falcó" is a street, "Nieto" a surname.
        if _is_relative_phrase(text, m) and not coverage.overlaps(*m.span("phrase"))
    ]
    added = list(dict.fromkeys(added))  # one span where two patterns find the same word ("da filla 619 …")
    partners, named = _partners_in_brackets(text, spans) if "(" in text else ([], set())
    added += [PHISpan(a, b, RELATIVE, 1.0, RULE) for a, b in partners if not coverage.overlaps(a, b)]
    if named:
        spans = [replace(s, type=RELATIVE, source=RULE) if s.start in named else s for s in spans]
    found = {(s.start, s.end) for s in added}
    added += [
        PHISpan(start, end, RELATIVE, 1.0, RULE)
        for start, end in [*_children(text), *_wives_called_dona(text)]
        if not coverage.overlaps(start, end)
    ]
    # (not over a relative's span found above either: "24 hija" of a run of digits and a
    # kinship word, and "hija" before a phone, are one relative)
    taken = Coverage((s.start, s.end) for s in added)
    added += [
        PHISpan(start, end, RELATIVE, 1.0, RULE)
        for start, end in _kin_before_values(text, kin_words)
        if (start, end) not in found and not coverage.overlaps(start, end) and not taken.overlaps(start, end)
    ]
    out: list[PHISpan] = []
    relative_end = -1  # where the last relative span with a kinship word ends
    relative_ends: list[int] = []
    for span in sorted([*spans, *added]):
        if span.type == RELATIVE and (m := _ARTICLE.match(text, span.start)) and m.end() < span.end:
            span = replace(span, start=m.end(), text="", replacement=None)
        elif span.type in _NAMED_AFTER_KIN and _kin_before(text, span.start):
            span = replace(span, type=RELATIVE)
        elif span.type == AGE and relative_end >= 0:
            m = _AGE_AFTER_RELATIVE.match(text, relative_end)
            if (m and m.end() == span.start) or _later_in_the_sentence(text, relative_end, span.start):
                span = replace(span, type=RELATIVE)
        # Only a relative the text calls one: the model's FAMILIARES on the patient's
        # own name must not take the patient's age with it.
        if span.type == RELATIVE and _KIN.search(text, max(0, span.start - _LOOKBACK), span.end):
            relative_end = span.end
            relative_ends.append(span.end)
        out.append(span)
    out = _with_their_qualifiers(text, _with_their_numerals(text, out))
    out = _with_their_ages(text, _with_their_names(text, _names_after_kin(text, out)))
    out = _paired_ages(text, _bracketed_ages(text, _ages_at_events(text, out, relative_ends)))
    return _patients_ages(text, _two_relatives_split(text, out))


# Two relatives the model joined over "y" ("el hijo y un sobrino"): two spans, without the
# article of the second, as MEDDOCAN and the notes write them (their FAMILIARES spans with
# "y" join only two ages or two names after one kinship word: "padres Teresa y Juan Carlos").
_TWO_KIN = re.compile(
    rf"(?P<first>{_KIN_WORD}){SP}+(?:y|e|i){SP}+(?:(?:un|una|unos|unas|su|sus|el|la|los|las){SP}+)?"
    rf"(?P<second>{_KIN_WORD})",
    re.IGNORECASE,
)


def _two_relatives_split(text: str, spans: list[PHISpan]) -> list[PHISpan]:
    out = []
    for span in spans:
        if span.type == RELATIVE and (m := _TWO_KIN.fullmatch(text, span.start, span.end)):
            out += [
                replace(span, start=m.start("first"), end=m.end("first"), source=RULE, text="", replacement=None),
                replace(span, start=m.start("second"), end=m.end("second"), source=RULE, text="", replacement=None),
            ]
        else:
            out.append(span)
    return out


# "Madre con cáncer de mama a los 47 y 59 años, fallecida a los 62.": ages at a
# relative's diagnosis or death, the unit written once or not at all, in a pedigree or
# a family history. Each number is a FAMILIARES span (the last with its unit), as MEDDOCAN
# train writes ``diagnosticado a los 64 de cáncer`` and the guidelines' P4.3 (Galician ``aos``
# and Catalan ``als`` as well: ``operada aos 50``, ``mort als 64 anys``); a bare
# number must end the clause or name what happened at that age (``a los 68.``,
# ``a los 64 de cáncer``), so ``a los 6 ciclos`` is left alone.
_AGES_AT = re.compile(
    rf"(?<!\w)(?:a{SP}+los|aos|als){SP}+(?P<ages>\d{{1,3}}(?:{SP}*(?:,|y|e){SP}*\d{{1,3}})*)"
    rf"(?:{SP}+(?P<unit>años|anys|anos)(?!\w)|(?=[.,;:)]|{SP}+de{SP}+[a-zñáéíóú]|{SP}*$))",
    re.MULTILINE,
)
_NUMBER_IN_LIST = re.compile(r"\d{1,3}")


def _ages_at_events(text: str, spans: list[PHISpan], relative_ends: list[int]) -> list[PHISpan]:
    """``spans`` with the ages of :data:`_AGES_AT` later in a relative's sentence (see
    :func:`_later_in_the_sentence`) added where no span covers them."""
    if not relative_ends:
        return spans
    coverage = Coverage((s.start, s.end) for s in spans)
    added = []
    for m in _AGES_AT.finditer(text):
        if coverage.overlaps(m.start("ages"), m.end()):
            continue
        if not any(_later_in_the_sentence(text, end, m.start()) for end in relative_ends if end <= m.start()):
            continue
        numbers = list(_NUMBER_IN_LIST.finditer(text, *m.span("ages")))
        for i, number in enumerate(numbers):
            end = m.end() if i == len(numbers) - 1 else number.end()
            added.append(PHISpan(number.start(), end, RELATIVE, 1.0, RULE))
    return sorted([*spans, *added])


# "hijo de 27 años", "dos hijas de 16 y 12 años": one span in MEDDOCAN train (hijo de 27
# años, madre de 34 años, Tío materno de 37 años: 8 such spans to 7 split) and in the notes'
# guide splits (9 to 2); after a name and a comma the age stays a span of its own (``su hijo
# Iñaki, de 12 años``). An age in brackets is a span of its own too (``hermana menor (61
# años)``, ``peque (2 años)``, ``aita (84 años)``: the guide splits 3 of 3; MEDDOCAN train
# joins its one ``hijo mediano (21 años)``, dev has none): see _BRACKETED_AGE.
# (in figures or in words: "madre de setenta y seis años", the dictated notes of the guide splits, 3 of 3)
_AGE_NUMBER = rf"(?:\d{{1,3}}|un[oa]?|{number_words.AGE})"
_OF_AGE = re.compile(
    rf"{SP}+de{SP}+{_AGE_NUMBER}(?:{SP}*(?:,|y|e){SP}*{_AGE_NUMBER})*{SP}+(?:años|meses|semanas|días)(?!\w)",
    re.IGNORECASE,
)
# (a whole word: "fill" must not match the start of "filla")
_KIN_ONLY = re.compile(rf"(?:{_NUMERAL}{SP}+)?{_KIN_WORD}(?:{SP}+{_QUALIFIER})?(?!\w)", re.IGNORECASE)


_BRACKETED_AGE = re.compile(
    rf"(?P<kin>{_KIN_ONLY.pattern}){SP}*\({SP}*(?P<age>{_AGE_NUMBER}{SP}+(?:años|anys|anos|meses)){SP}*\)?",
    re.IGNORECASE,
)


def _with_their_ages(text: str, spans: list[PHISpan]) -> list[PHISpan]:
    """``spans`` with each relative written as a kinship phrase alone widened over the
    age right after it (see above), the spans inside that age dropped; a relative's span
    over a kinship phrase and an age in brackets split in two."""
    split: list[PHISpan] = []
    for span in spans:
        if span.type == RELATIVE and (m := _BRACKETED_AGE.fullmatch(text, span.start, span.end)):
            split.append(replace(span, end=m.end("kin"), source=RULE, text="", replacement=None))
            split.append(replace(span, start=m.start("age"), end=m.end("age"), source=RULE, text="", replacement=None))
        else:
            split.append(span)
    spans = split
    out: list[PHISpan] = []
    reach = -1  # end of the last widened relative: spans before it are inside it
    for i, span in enumerate(spans):
        if span.end <= reach:
            continue
        if span.type == RELATIVE and _KIN_ONLY.fullmatch(text, span.start, span.end):
            m = _OF_AGE.match(text, span.end)
            j = i + 1
            while m and j < len(spans) and spans[j].start < m.end():  # sorted: only the few inside the age
                if spans[j].end > m.end() or spans[j].type not in (RELATIVE, AGE):
                    m = None
                j += 1
            if m:
                span, reach = replace(span, end=m.end(), source=RULE, text="", replacement=None), m.end()
        out.append(span)
    return out


_NAME_WORD = r"(?-i:[A-ZÁÉÍÓÚÑÜ])[^\W\d_]*(?:-[^\W\d_]+)*"
# A relative span the model ran past the relative's name into the sentence (``hija
# Inmaculada trabaja``, ``filla Montse viu a Andorra``), or opened on the word before the
# article (``Traduce el hijo Wei``): the kinship phrase and the name are kept, up to the
# first lower-case word after the name that is no connector. (Cutting a kinship phrase
# alone so would cut MEDDOCAN train's ``hijo varón``, ``padres jóvenes``.)
_RUN_ON = re.compile(
    rf"(?P<kept>{_KIN_ONLY.pattern}(?:{SP}+{_NAME_WORD})+)"
    rf"{SP}+(?!(?:de|del|y|i|e)\b)(?-i:[a-zñáéíóúüçàèòï]+)(?:{SP}+\S+)*",
    re.IGNORECASE,
)
# A relative's health that the model ran the span over (``hermana gemela sana``,
# ``padre fallecido``): MEDDOCAN train ends no FAMILIARES span with such a word.
_HEALTH_AFTER = re.compile(
    rf"(?<=[^\W\d_]){SP}+(?:san[oa]s?|fallecid[oa]s?|muert[oa]s?|viv[oa]s?|afect[oa]s?|asintomátic[oa]s?|difunt[oa]s?)$",
    re.IGNORECASE,
)
_LEADING_WORD = re.compile(rf"[^\W\d_]+{SP}+(?:el|la|los|las|su|sus|un|una){SP}+(?={_KIN_WORD}(?!\w))", re.IGNORECASE)
# A kinship phrase the model ran on by one word into the sentence: a verb (``El padre
# piensa viajar``, Galician ``A dona faleceu``, ``LA ABUELA PATERNA LLEGO``), a
# participle (``padre muerto``) or the relative's record number (``NHC de la hermana
# 5520931``). The word is kept when it may belong to the relative: a qualifier, ``de``
# (an age follows), a word of MEDDOCAN train's and the guide splits' FAMILIARES spans
# (``hermano varón``, ``recién nacida``, ``padres jóvenes``, ``primos hermanos``), a
# capitalised name, and any lower-case word in a note written in lower case, where it may
# be the relative's name (``su mujer encarna``, ``sobrina pilar``).
_KIN_THEN_WORD = re.compile(rf"(?P<kept>{_KIN_ONLY.pattern}){SP}+(?P<word>[^\W_]+)", re.IGNORECASE)
_QUALIFIER_WORD = re.compile(_QUALIFIER, re.IGNORECASE)
_WORDS_OF_RELATIVES = frozenset(
    ("de", "del", "y", "e", "i", "varon", "varones", "nacido", "nacida", "nacidos", "nacidas", "joven", "jovenes")
    + ("hermano", "hermana", "hermanos", "hermanas", "politico", "politica", "politicos", "politicas")
    + ("adoptivo", "adoptiva", "adoptivos", "adoptivas", "biologico", "biologica", "femenina", "masculino")
)


def _runs_into_sentence(text: str, m: re.Match[str]) -> bool:
    """The word after the kinship phrase of a :data:`_KIN_THEN_WORD` match is none of
    the relative's (see there)."""
    word = m.group("word")
    if word.isdigit():
        return True
    if not word.isalpha() or (word[0].isupper() and not text[m.start() : m.end()].isupper()):
        return False
    if word.islower() and is_lower_case_note(text):
        return False  # a note in lower case writes the relative's name so ("su sobrina pilar")
    return not _QUALIFIER_WORD.fullmatch(word) and normalize(word) not in _WORDS_OF_RELATIVES


_NAMED_TYPES = (*PERSON_TYPES, RELATIVE)


def _with_their_names(text: str, spans: list[PHISpan]) -> list[PHISpan]:
    """``spans`` with a kinship phrase and the name right after it, a space between,
    made one relative span (``filla Aina``, ``hijo Wei``: the notes' convention and
    MEDDOCAN train's ``madre Teresa Rodriguez``), and a relative span cut back to its
    kinship phrase and name (see :data:`_RUN_ON`)."""
    out: list[PHISpan] = []
    for span in spans:
        if span.type == RELATIVE:
            if (m := _LEADING_WORD.match(text, span.start)) and m.end() < span.end and not _KIN.match(text, span.start):
                span = replace(span, start=m.end(), source=RULE, text="", replacement=None)
            if (m := _RUN_ON.fullmatch(text, span.start, span.end)) and _starts_capitalised_name(text, m):
                span = replace(span, end=m.end("kept"), source=RULE, text="", replacement=None)
            if m := _HEALTH_AFTER.search(text, span.start, span.end):
                span = replace(span, end=m.start(), source=RULE, text="", replacement=None)
            if (m := _KIN_THEN_WORD.fullmatch(text, span.start, span.end)) and _runs_into_sentence(text, m):
                span = replace(span, end=m.end("kept"), source=RULE, text="", replacement=None)
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous.type == RELATIVE
            and span.type in _NAMED_TYPES
            and span.start == previous.end + 1
            and text[previous.end] == " "
            and text[span.start].isupper()
            and not text[span.start : span.end].isupper()
            and _is_kin_only(text, previous)
        ):
            out[-1] = replace(previous, end=span.end, source=RULE, text="", replacement=None)
            continue
        out.append(span)
    return out


def _starts_capitalised_name(text: str, m: re.Match[str]) -> bool:
    """The words after the kinship phrase of a :data:`_RUN_ON` match are capitalised
    (the pattern ignores case as a whole)."""
    kin = _KIN_ONLY.match(text, m.start())
    words = text[kin.end() : m.end("kept")].split() if kin else []
    return bool(words) and all(w[0].isupper() and not w.isupper() for w in words)


def _is_kin_only(text: str, span: PHISpan) -> bool:
    """The span is a kinship phrase or a partner alone, in lower case."""
    phrase = text[span.start : span.end]
    return phrase.islower() and (
        _KIN_ONLY.fullmatch(phrase) is not None
        or _PARTNER.search(text, max(0, span.start - 8), span.end) is not None
        or _is_wife_called_dona(text, span.start, span.end)
    )


# A relative's name the model missed after the kinship phrase (lower case) or a
# partner: after a comma, also at the next line's start of a wrapped note (``el nieto mayor,
# Íker,``, ``Su nuera,⏎  Desislava Petrova``), in brackets (``la sobrina
# (Loli)``) or a space (``su fillo Anxo``, joined to the phrase by
# :func:`_with_their_names`); and in a contact list, a capitalised kinship label, a colon
# and the name on a line with a phone number (``2. Hijo: Chema — 696 …``; a family
# history's ``Padre: Fallecido de IAM`` has no phone). A name is one to four capitalised
# words (not in capitals alone), particles between, that end at punctuation, a line end
# or a conjunction; words that open a clause or name a place or a service are no name.
_PERSON_WORD = rf"(?-i:[{UPPER}][a-zñáéíóúüçàèìòùâêôãõï]+)(?:-(?-i:[{UPPER}][a-zñáéíóúüçàèìòùâêôãõï]+))?"
# (no "y" between the words: after a kinship phrase it joins two people, "Rui y Sandra")
_PERSON = rf"{_PERSON_WORD}(?:{SP}+(?:(?:de|del|da|do|dos|das){SP}+)?{_PERSON_WORD}){{0,3}}"
_PERSON_END = rf"(?={SP}*(?:[,.;:()—–]|$)|{SP}+(?:y|e|i|que|con|de|del|en|vive|trabaja)\b)"
_TITLE_BEFORE = rf"(?:(?:D\.|Dña\.|Dª|Sr\.|Sra\.|Don|Doña){SP}*)?"
_AFTER_KIN = re.compile(
    rf"(?P<comma>{SP}*,(?:{SP}*|{SP}*\n{SP}*){_TITLE_BEFORE}|{SP}*\({SP}*|{SP})(?P<name>{_PERSON}){_PERSON_END}",
    re.MULTILINE,
)
_CONTACT_LABEL = re.compile(rf"{_KIN_LABEL}(?P<name>{_PERSON}){_PERSON_END}(?=[^\n]*\d[\d .-]{{7,}}\d)", re.MULTILINE)
_NOT_A_PERSON = frozenset(normalize(w) for w in (*INSTITUTION_WORDS, *SPECIALTY_WORDS, *MONTHS, *WEEKDAYS)) | {
    "el",
    "la",
    "los",
    "las",
    "no",
    "si",
    "sin",
    "con",
    "fallecido",
    "fallecida",
    "sano",
    "sana",
    "vive",
}


_PERSON_ALONE = re.compile(_PERSON)


def is_relatives_name(span_text: str) -> bool:
    """Whether a relative's span is a person's name alone (``Maite``, ``Maria da
    Graça``), without a kinship word (``su madre``, ``hijo Wei``)."""
    return _PERSON_ALONE.fullmatch(span_text) is not None and _is_person(span_text) and not _KIN.search(span_text)


def _is_person(name: str) -> bool:
    return not any(normalize(word) in _NOT_A_PERSON for word in name.split() if word[:1].isupper())


def _names_after_kin(text: str, spans: list[PHISpan]) -> list[PHISpan]:
    """``spans`` with the relatives' names described above added where no span is."""
    coverage = Coverage((s.start, s.end) for s in spans)
    added = []
    for span in spans:
        if span.type != RELATIVE or not _is_kin_only(text, span):
            continue
        m = _AFTER_KIN.match(text, span.end)
        if m and _is_person(m.group("name")) and not coverage.overlaps(*m.span("name")):
            if m.group("comma").strip() == "(" and not text.startswith((")", ","), m.end("name")):
                continue
            added.append(PHISpan(*m.span("name"), RELATIVE, 1.0, RULE))
    for m in _CONTACT_LABEL.finditer(text):
        if _is_person(m.group("name")) and not coverage.overlaps(*m.span("name")):
            added.append(PHISpan(*m.span("name"), RELATIVE, 1.0, RULE))
    return sorted([*spans, *added]) if added else spans


# A numeral the model left out of a kinship phrase (``dos`` + ``hijos``): P4.2's ``dos
# hijos`` is one span.
# (not "ambos": MEDDOCAN train writes ``ambos`` outside the span)
_NUMERAL_BEFORE = re.compile(rf"(?<!\w)(?!(?i:ambos|ambas))(?i:{_NUMERAL}){SP}+$")


# A qualifier the model left out of a kinship phrase (``hermana`` + ``pequeña``): MEDDOCAN
# train and dev write it inside the span every time (``hermano mayor``, ``tío materno``: 21
# of 21).
# (Not "gemela": MEDDOCAN dev writes "hermana" alone in "hermana gemela de su madre".)
_QUALIFIER_AFTER = re.compile(
    rf"{SP}+(?:mayor|menor|mayores|menores|pequeñ[oa]s?|median[oa]|únic[oa]|matern[oa]s?|patern[oa]s?"
    # Galician and Catalan ("Irmá pequena", "o fillo maior", "la filla petita")
    rf"|pequen[oa]s?|maior|maiores|petit[a]?|petits|petites|gran|grans)(?![\w-])",
    re.IGNORECASE,
)
_KIN_ALONE = re.compile(rf"(?:{_NUMERAL}{SP}+)?{_KIN_WORD}", re.IGNORECASE)


def _with_their_qualifiers(text: str, spans: list[PHISpan]) -> list[PHISpan]:
    out = list(spans)
    for i, span in enumerate(out):
        if span.type == RELATIVE and _KIN_ALONE.fullmatch(text, span.start, span.end):
            m = _QUALIFIER_AFTER.match(text, span.end)
            following = out[i + 1].start if i + 1 < len(out) else len(text)
            if m and m.end() <= following and m.group().islower():
                out[i] = replace(span, end=m.end(), source=RULE, text="", replacement=None)
    return out


def _with_their_numerals(text: str, spans: list[PHISpan]) -> list[PHISpan]:
    out: list[PHISpan] = []
    for span in spans:
        previous_end = out[-1].end if out else 0
        if span.type == RELATIVE and _KIN_ONLY.fullmatch(text, span.start, span.end):
            m = _NUMERAL_BEFORE.search(text, max(previous_end, span.start - 12), span.start)
            if m:
                span = replace(span, start=m.start(), source=RULE, text="", replacement=None)
        out.append(span)
    return out


# A relative's age in brackets right after the relative (``la hermana, Engracia (84)``,
# ``los dos hijos (17 y 20 años)``): a FAMILIARES span per number, the last with its unit,
# as the ages of :func:`_ages_at_events`.
_AGES_IN_BRACKETS = re.compile(
    rf"{SP}*\({SP}*(?P<ages>\d{{1,3}}(?:{SP}*(?:,|y|e|i){SP}*\d{{1,3}})*)(?:{SP}+(?P<unit>años|anys|anos|a))?{SP}*\)"
)
# (each age with its own unit, "dos niños pequeños (3 años y 18 meses)")
_AGE_WITH_UNIT = rf"\d{{1,3}}{SP}*(?:años|anys|anos|meses|mesos|a|m)(?!\w)"
_UNIT_AGES_IN_BRACKETS = re.compile(
    rf"{SP}*\({SP}*(?P<ages>{_AGE_WITH_UNIT}(?:{SP}*(?:,|y|e|i){SP}*{_AGE_WITH_UNIT})*){SP}*\)"
)
_ONE_AGE_WITH_UNIT = re.compile(_AGE_WITH_UNIT)


# A relative's age right after the relative's name and a comma (``padre, Ramón Sainz, 75
# años``, ``la dona (Roser, 74 anys)``, ``su muller Carmiña, de 80 anos``): the notes' guide
# halves have 5, all relatives'; MEDDOCAN train and dev none.
# With "de" only after a kinship word and a name (``D. Pau Vidal Roig, de 39 años`` is how
# a certificate gives the patient's own age, whatever the model typed the name).
_AGE_AFTER_NAME = re.compile(rf"{SP}*,{SP}*(?P<of>de{SP}+)?(?P<age>\d{{1,3}}{SP}+(?:años|anys|anos))(?!\w)")
# (a kinship word, or a partner's: "mujer", "muller", "home", "pareja")
_KIN_IN_SPAN = re.compile(
    rf"(?<!\w)(?:{_KIN_WORD}|mujer|muller|dona|home|pareja|compañer[oa]|novi[oa])(?!\w)", re.IGNORECASE
)
_LAST_WORD = re.compile(r"[^\W\d_]+$")


def _ends_with_a_name(text: str, span: PHISpan) -> bool:
    """Whether the relative's span ends with a capitalised word (``Roser``, ``muller Carmiña``)."""
    last = _LAST_WORD.search(text, span.start, span.end)
    return last is not None and last.group()[0].isupper()


def _bracketed_ages(text: str, spans: list[PHISpan]) -> list[PHISpan]:
    coverage = Coverage((s.start, s.end) for s in spans)
    added = []
    retyped: dict[tuple[int, int], PHISpan] = {}
    for span in spans:
        if (
            span.type == RELATIVE
            and _ends_with_a_name(text, span)
            and (m := _AGE_AFTER_NAME.match(text, span.end))
            and (not m.group("of") or _KIN_IN_SPAN.search(text, span.start, span.end))
        ):
            age = [s for s in spans if s.start < m.end("age") and s.end > m.start("age")]
            if not age:
                added.append(PHISpan(*m.span("age"), RELATIVE, 1.0, RULE))
            elif len(age) == 1 and age[0].type == AGE and (age[0].start, age[0].end) == m.span("age"):
                retyped[(age[0].start, age[0].end)] = replace(age[0], type=RELATIVE, source=RULE)
        if span.type == RELATIVE and not _AGES_IN_BRACKETS.match(text, span.end):
            if (m := _UNIT_AGES_IN_BRACKETS.match(text, span.end)) and not coverage.overlaps(*m.span("ages")):
                added += [
                    PHISpan(*a.span(), RELATIVE, 1.0, RULE) for a in _ONE_AGE_WITH_UNIT.finditer(text, *m.span("ages"))
                ]
            continue
        if span.type != RELATIVE or not (m := _AGES_IN_BRACKETS.match(text, span.end)):
            continue
        if (
            coverage.overlaps(m.start("ages"), m.end())
            or int(_NUMBER_IN_LIST.match(text, m.start("ages")).group()) > 110
        ):
            continue
        numbers = list(_NUMBER_IN_LIST.finditer(text, *m.span("ages")))
        for i, number in enumerate(numbers):
            end = m.end("unit") if i == len(numbers) - 1 and m.group("unit") else number.end()
            added.append(PHISpan(number.start(), end, RELATIVE, 1.0, RULE))
    if retyped:
        spans = [retyped.get((s.start, s.end), s) for s in spans]
    return sorted([*spans, *added]) if added else spans


# Two ages with their unit written once ("padres de 74 y 64 años", "a los 22 y 24 años", "dos
# hijos, de 4 y 11 años", "de 40 a 48 años"): two spans, the first number alone and the second
# with the unit, as MEDDOCAN train writes them (5 such pairs, all split but one joined to its
# kinship phrase: "2 hijos de 12 y 9 años", which stays whole).
_AGE_PAIR = re.compile(rf"(?P<first>\d{{1,3}}){SP}+(?:y|a|e|o){SP}+(?P<second>\d{{1,3}}{SP}+(?:años|anys|anos|meses))")
_FIRST_OF_PAIR = re.compile(rf"(?<![\w.,/])(?P<first>\d{{1,3}}){SP}+(?:y|a|e|o){SP}+\Z")
_AGE_TYPES = (RELATIVE, AGE)


def _paired_ages(text: str, spans: list[PHISpan]) -> list[PHISpan]:
    """``spans`` with each age or relative's age span of two ages split in two, and the
    first age of a pair added where the span holds only the second (see above)."""
    coverage = Coverage((s.start, s.end) for s in spans)
    out: list[PHISpan] = []
    for span in spans:
        if span.type in _AGE_TYPES:
            if pair := _AGE_PAIR.fullmatch(text, span.start, span.end):
                out.append(replace(span, end=pair.end("first"), text="", replacement=None, source=RULE))
                out.append(replace(span, start=pair.start("second"), text="", replacement=None, source=RULE))
                continue
            if first := _FIRST_OF_PAIR.search(text, max(0, span.start - 12), span.start):
                if text[span.start].isdigit() and not coverage.overlaps(*first.span("first")):
                    out.append(PHISpan(*first.span("first"), span.type, span.confidence, RULE))
        out.append(span)
    return sorted(out)


# An age the model typed FAMILIARES with no relative in its sentence before it (``a
# petición del Sr. Giancarlo Ferraris, de 71 años``, ``varón de unos 40 años``,
# ``Apendicectomía a los 12 años``): the patient's, EDAD_SUJETO_ASISTENCIA. A relative is
# a kinship or partner word or a relative's span between the sentence's start (a full
# stop, a semicolon, a colon or a line break) and the age.
_AGE_ALONE = re.compile(
    rf"\d{{1,3}}{SP}*(?:años|anys|anos|urte|meses|a)|(?:{number_words.AGE}){SP}+(?:años|anys|anos|meses)",
    re.IGNORECASE,
)
_PARTNER_WORD = re.compile(r"\b(?:mujer|pareja|dona|home|muller|parella|parexa|novi[oa]|compañer[oa])\b", re.IGNORECASE)
# A sentence ends at a full stop after a word of four letters or more (not ``CA.``, ``Dr.``)
# or a digit, and at a line break before a capital or a list's mark (a line that goes on
# in lower case is the same sentence); semicolons and colons do not end it (``- II-1: madre,
# …; vive en Bilbao, 73 años``).
_CLAUSE_BREAK = re.compile(r"(?:(?<=[^\W\d_]{4})|(?<=\d))\.(?=\s)|\n(?=\s*(?:[^\W\d_](?<![a-zñáéíóúü])|[-•*\d]))")


def _patients_ages(text: str, spans: list[PHISpan]) -> list[PHISpan]:
    out = list(spans)
    for i, span in enumerate(out):
        if span.type != RELATIVE or not _AGE_ALONE.fullmatch(text, span.start, span.end):
            continue
        reach = max(0, span.start - 300)
        sentence = max((m.end() for m in _CLAUSE_BREAK.finditer(text, reach, span.start)), default=reach)
        if _KIN.search(text, sentence, span.start) or _PARTNER_WORD.search(text, sentence, span.start):
            continue
        if any(s.type == RELATIVE and sentence <= s.start < span.start for s in out[max(0, i - 8) : i]):
            continue
        out[i] = replace(span, type=AGE, source=RULE, text="", replacement=None)
    return out
