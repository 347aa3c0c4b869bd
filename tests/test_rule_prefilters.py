"""The rule layer's shortcuts find what the full search finds.

Each shortcut skips work that cannot match (a kinship phrase is only tried near a
kinship word, phonenumbers only on lines with a digit and only parsing the candidates
that could be a possible number, an identifier label only where its first letter is, a
Basque pattern only in a text with its head word, a long alternation grouped by first
letter, a date pattern only where a month, weekday, number word or digit lets it begin,
a place's words looked for only in the phrases that hold one). These tests
check that premise against the full search on texts built to sit at its edges, so a
shortcut that would skip a real match fails here instead of losing PHI.
"""

from __future__ import annotations

import importlib
import random
import re
from dataclasses import replace

import phonenumbers
import pytest
from deid_crf.gazetteers.spanish import normalize
from phonenumbers import Leniency, PhoneNumberMatcher

from deid_crf.deid.audit import identifies, identifying_tokens
from deid_crf.deid.recognizers import common, dates, institutions, labelled_ids, phones, relatives, repeats
from deid_crf.deid.recognizers.common import by_first_letter, finditer_at, line_before
from deid_crf.deid.recognizers.institutions import find_health_centres, find_institutions, find_organisations
from deid_crf.deid.recognizers.phones import _DIGIT, find_phones
from deid_crf.deid.recognizers.relatives import RELATIVE
from deid_crf.deid.recognizers.relatives import relatives as find_relatives
from deid_crf.deid.recognizers.repeats import propagate_places
from deid_crf.text.spans import PROPAGATED, Coverage, PHISpan

# Pieces around kinship phrases: determiners, numerals, marks, line breaks, tabs,
# no-break spaces, other languages' words, letters that only match ignoring case (ſ).
_KIN_PIECES = (
    *("su ", "la seva ", "o seu ", "el ", "y ", "de ", "ambos ", "dos ", "2 ", "12 ", "x", "solución "),
    *("madre", "Madre", "MADRE", "hijos", "hija", "germana", "germà", "àvia", "avó", "fillo", "tío", "alaba"),
    *(" mayor", " materno", ",", ":", "-", "(", "\n", "\r\n", "\t", " ", "  ", "\u00a0", "ſ", "é", "_"),
)


def _phrases(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[a:b] for a, b in spans]


def test_kinship_phrases_tried_near_kinship_words_are_every_phrase():
    rng = random.Random(13)
    texts = ["".join(rng.choice(_KIN_PIECES) for _ in range(rng.randint(1, 12))) for _ in range(4000)]
    found = 0
    for text in texts:
        everywhere = [m.span("phrase") for m in relatives._KIN_PHRASE.finditer(text)]
        near_words = [
            m.span("phrase") for m in finditer_at(relatives._KIN_PHRASE, text, relatives._phrase_starts(text))
        ]
        assert near_words == everywhere, repr(text)
        found += len(everywhere)
    assert found > 1000  # the texts do hold phrases of every kind


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("madre con DM2.", ["madre"]),  # at the start of the text
        ("Antecedentes:\nhermano mayor con asma.", ["hermano mayor"]),  # at the start of a line
        ("Antecedentes:\r\n\u00a0 dos hijas sanas.", ["dos hijas"]),  # spaces before it on its line
        ("Viu amb la seva germana i el seu avi.", ["germana", "avi"]),  # Catalan
        ("Vive co seu fillo e coa súa avoa.", ["fillo", "avoa"]),  # Galician
        ("Tiene 2   hijos y ambos padres viven.", ["2   hijos", "ambos padres"]),  # numerals, long gaps
        ("(tía materna) y -primo-", ["tía materna"]),  # marks before it; a compound is none
        ("solución madre y células hijas", []),
    ],
)
def test_kinship_phrases_at_the_edges(text, expected):
    spans = find_relatives(text, [])
    assert [text[s.start : s.end] for s in spans if s.type == RELATIVE] == expected


def test_finditer_at_refuses_an_empty_match():
    with pytest.raises(ValueError, match="empty string"):
        list(finditer_at(re.compile(r"a*"), "bbb", [0]))


@pytest.mark.parametrize(
    "alternatives",
    [
        relatives._KIN_WORDS,
        [institutions._flexible(n) for n in institutions._NAMES],
        [institutions._flexible(h) for h in sorted(set(institutions._HEADS), key=len, reverse=True)],
    ],
    ids=["kinship words", "bodies", "heads"],
)
def test_grouping_by_first_letter_matches_as_the_plain_alternation(alternatives):
    plain = re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")", re.IGNORECASE)
    grouped = re.compile(r"(?<!\w)" + by_first_letter(alternatives), re.IGNORECASE)
    # Every alternative's own strings, in three letter cases, run together: where one
    # alternative is a prefix of another, the first in order must still win.
    words = [w for a in alternatives for w in re.findall(r"[^\W\d_]+", a.replace("\\", ""))]
    rng = random.Random(5)
    for _ in range(200):
        text = " ".join(rng.choice([w, w.upper(), w.title()]) for w in rng.sample(words, min(8, len(words))))
        text += " " + " ".join(rng.sample(words, min(8, len(words))))
        assert [m.span() for m in grouped.finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_grouping_by_first_letter_refuses_what_it_cannot_group():
    with pytest.raises(ValueError, match="open with a letter"):
        by_first_letter(["abc", "[xy]z"])
    with pytest.raises(ValueError, match="same character"):
        by_first_letter(["ida", "ıda"])  # dotless i: both match "I" ignoring case


def test_phonenumbers_reads_no_number_on_a_line_without_a_digit():
    # Letters become digits in a vanity number ("0049 ext" is +49 398), so the lines
    # tried here have every letter, plus and bracket a number may hold, but no digit.
    rng = random.Random(7)
    pieces = ["+", "\uff0b", "(", ")", "ext", "ext.", "extension", "anexo", "x", "#", " ", "-", "Tel.", "abcdefg"]
    for _ in range(500):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 10)))
        assert not _DIGIT.search(line)
        assert list(PhoneNumberMatcher(line, "ES", leniency=Leniency.POSSIBLE)) == [], repr(line)
    # while one digit is enough for it to look at a line, even as a vanity number
    assert [m.raw_string for m in PhoneNumberMatcher("Tel. 0049 ext. 12", "ES", leniency=Leniency.POSSIBLE)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tel. +49 12", ["+49 12"]),  # the shortest number phonenumbers reads: 4 digits
        ("x\nTel.\n+49 12\n", ["+49 12"]),  # alone on its line
        ("Móvil: 6 1 2 3 4 5 6 7 8", ["6 1 2 3 4 5 6 7 8"]),  # digits in groups of one
        ("Tfno 93-3-84-21-67", ["93-3-84-21-67"]),
        ("nada\nTeléfono: 91 336 87 85\nnada 12", ["91 336 87 85"]),
    ],
)
def test_phones_on_lines_the_filter_keeps(text, expected):
    assert [text[a:b] for a, b, _ in find_phones(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("control en Ondarroako Osasun Zentroa", ["Ondarroako Osasun Zentroa"]),
        ("ingresa en DONOSTIA UNIBERTSITATE OSPITALEA hoy", ["DONOSTIA UNIBERTSITATE OSPITALEA"]),
        ("ingresa en Gurutzetako Unibertsitate Ospitalea", ["Gurutzetako Unibertsitate Ospitalea"]),
        ("Su hija estudia en Amaia Zubiri Ikastola.", ["Amaia Zubiri Ikastola"]),
        ("Trabaja en Errenteria Udala.", ["Errenteria Udala"]),
        ("Excmo. Ayuntamiento de Terrassa", ["Excmo. Ayuntamiento de Terrassa"]),
        ("Concello de Vigo.\nAjuntament de Reus", ["Concello de Vigo", "Ajuntament de Reus"]),
        ("ospitalea, zentroa, udala, ayuntamiento", []),
    ],
)
def test_head_words_looked_for_first(text, expected):
    found = [*find_health_centres(text), *find_organisations(text), *find_institutions(text)]
    assert [text[a:b] for a, b, _ in sorted(found)] == expected
    # the same as the patterns tried everywhere
    everywhere = [
        m.span()
        for pattern in (
            institutions._BASQUE_HEALTH_CENTRE,
            institutions._BASQUE_HOSPITAL,
            institutions._BASQUE_ORGANISATION,
            institutions._COUNCIL,
        )
        for m in pattern.finditer(text)
    ]
    assert sorted(everywhere) == sorted((a, b) for a, b, _ in found)


# The slots of a date, each filled at random, often wrongly: words that open dates,
# weekdays, days, months, years in figures and in words, in three cases, with the
# separators, line breaks, tabs, bars, brackets, no-break spaces and letters that only
# match ignoring case (ſ) that stand between and around them.
_DATE_SLOTS = (
    ("", "", "el ", "del ", "desde el ", "entre el ", "en ", "(", "| ", "los ", "el año ", "RD 1/2006, de ", "x"),
    ("", "", "lunes", "Martes ", "MIÉRCOLES, ", "dimarts ", "xoves ", "vie. ", "jue ", "domingo ", "ſábado "),
    ("", "", "15", "3 ", "08", "31 ", "32 ", "veinte ", "treinta y uno ", "primero ", "24 al 28 ", "24 y el 2 "),
    ("", "", " de ", " d'", "-", "/", ".", " ", "de ", " y ", "\n"),
    ("marzo", "MARZO", "Septiembre", "sept", "juny", "abril", "xuño", "mar.", "oct", "03", "III", "12", "verano"),
    ("", "", " de ", " del ", "-", "/", ".", " ", " del año ", " y abril de ", "\t"),
    ("", "", "2016", "1995", "24", "dos mil veinticinco", "mil novecientos", "60", "90s", "13"),
    ("", "", " ", ".", ",", " 16:42", " pacientes", " se", "/2", "%", "\r\n", "\u00a0", "|", ")", "_"),
)
_DATE_WORDS = (
    *("Navidad", "Semana Santa", "día de Reyes", "primavera", "años 60", "año 2000", "dos mil", "Mil"),
    *("\nvie 18 — ", "\nmar 15-oct — Alta", "\n  lun. 3 – ", "\ndom 40 — "),  # an entry's weekday and day
    *("\nMiércoles\n", "\n  domingo — guardia", "\nsábado · M", "\nLunes 3"),  # a weekday heading an entry
    *("\n24/XI\n", "\n29-X. Trabajo", "\n  3-IV", "| 9/11 |", "| 3/12 | T", "|1/2|"),  # headings and cells
    *("2025eko otsailaren 26a", "1999ko urriaren 3an", "2024 MAIATZAREN 40"),  # Basque, the year first
    *("la madrugada del 18.", "noche del 4 al 5", "la tarde del 40", "del 21 al 22:", "do 4 ao 5 "),  # days alone
)
# Dates in figures: a day, a month and a year (or a year first) with one separator.
_FIGURE_SLOTS = (
    ("", "", "", "martes ", "vie. ", "dilluns, ", "el ", "del ", "| ", "\n", "los ", "los años ", "ſáb "),
    ("3", "15", "31", "29", "2024", "1946", "08", "60", "90"),
    ("/", "-", ".", " ", "s"),
    ("03", "III", "12", "II", "13", "3", "02"),
    ("/", "-", ".", "", "", " |", " 9:40"),
    ("2020", "24", "1946", "05", "", "", "1"),
    ("", "", " ", ".", "/3", "-2", "h", ",5", " de", "%"),
)
_INTERVALS = (
    "del 24 al 28 de",
    "desde el 3 hasta el 5 de",
    "entre el 1 y el 31 d'",
    "del 40 al 2 de",
    "del 2 al",
    "do 2 ao 19 de",
    "el 2 y regreso el 16 de",
    "el 2 e a volta o 16 de",
)


def _date_texts(rng: random.Random, n: int) -> list[str]:
    texts = []
    for _ in range(n):
        dates = ["".join(rng.choice(slot) for slot in _DATE_SLOTS) for _ in range(rng.randint(1, 3))]
        figures = ["".join(rng.choice(slot) for slot in _FIGURE_SLOTS) for _ in range(rng.randint(0, 2))]
        words = [rng.choice(_DATE_WORDS) for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.4:
            dates[0] = f"{rng.choice(_INTERVALS)} {dates[0]}"
        parts = dates + figures + words
        rng.shuffle(parts)
        texts.append(rng.choice(("", " ", "en ", "\n")).join(parts))
    return texts


def test_dates_tried_where_they_can_begin_are_every_date():
    found = dict.fromkeys(dates.STARTS, 0)
    for text in _date_texts(random.Random(17), 6000):
        where = dates.anchors(text)
        for pattern, starts in dates.STARTS.items():
            everywhere = [m.span() for m in pattern.finditer(text)]
            tried = [m.span() for m in finditer_at(pattern, text, starts(text, where))]
            assert tried == everywhere, (pattern.pattern[:60], text)
            found[pattern] += len(everywhere)
    # the texts hold dates of every form, so no pattern passed for want of matches
    assert min(found.values()) >= 10, {p.pattern[:40]: n for p, n in found.items()}


def _places_everywhere(text, spans):
    """propagate_places looking at the words of every phrase (no occurrence skipped)."""
    wanted = {}
    for span in spans:
        if span.type in repeats.PLACE_TYPES:
            value = text[span.start : span.end]
            words, _ = identifying_tokens(replace(span, text=value))
            for m in repeats._WORD.finditer(value):
                if repeats._title_case(m.group()) and normalize(m.group()) in words:
                    wanted.setdefault(m.group(), span)
    coverage = Coverage((s.start, s.end) for s in spans)
    added = []
    for phrase in repeats._PHRASE.finditer(text):
        words = list(repeats._WORD.finditer(phrase.group()))
        found = [w for w in words if w.group() in wanted]
        if not found or any(w.group() not in wanted and identifies(w.group()) for w in words):
            continue
        start, end = phrase.start() + found[0].start(), phrase.start() + found[-1].end()
        if not coverage.overlaps(start, end):
            origin = wanted[found[0].group()]
            added.append(PHISpan(start, end, origin.type, origin.confidence, PROPAGATED))
    return sorted([*spans, *added])


_PLACE_WORDS = (
    *("Colón", "Humphrey", "Gran", "Canaria", "Muralla", "Leandro", "San", "Unidad", "Reumatología", "HUMPHREY"),
    *("de", "del", "la", "y", "restaurante", "campo", "Colónia", "Humphreys", "28", "30-2", "Ángel", "é"),
)
_PLACE_GAPS = (" ", " ", " ", "  ", ", ", "-", " (", ") ", "\n", "\t", "\u00a0", "'", "_")


def test_places_propagated_from_the_occurrences_of_their_words_only():
    rng = random.Random(23)
    added = 0
    for _ in range(3000):
        text = "".join(rng.choice(_PLACE_WORDS) + rng.choice(_PLACE_GAPS) for _ in range(rng.randint(1, 20)))
        words = [m.span() for m in re.finditer(r"[^\W\d_]+(?:[^\S\n]+[^\W\d_]+)?", text)]
        picked = sorted(rng.sample(words, min(len(words), rng.randint(0, 2))))
        spans = [PHISpan(a, b, rng.choice(("TERRITORIO", "INSTITUCION", "CALLE", "FECHAS")), 0.9) for a, b in picked]
        spans = [s for i, s in enumerate(spans) if not any(t.end > s.start for t in spans[:i])]
        expected = _places_everywhere(text, spans)
        assert propagate_places(text, spans) == expected, (text, spans)
        added += len(expected) - len(spans)
    assert added > 200  # the texts do repeat the places' words


# Pieces of phone-number candidates: digits (zeros apart, as they make an "00" prefix),
# digits phonenumbers reads that are not ASCII (Arabic-Indic, full-width, superscript),
# plus signs, separators, brackets, extensions, vanity letters, RFC 3966 parts.
_PHONE_PIECES = (
    *("6", "9", "1", "34", "0", "00", "0034", "123", "4567", "612", "345", "678", "12", "5", "2019", "100"),
    *("\u0663", "\u0660", "\uff11", "\uff10", "\u00b2", "+", "\uff0b", "(+", "(", ")", "[", "]", " ", "  "),
    *("-", ".", "/", "x", "X", "ext", "ext. ", "anexo ", "#", ";", ",", "TEL", "FLOWERS", "abc", "ſ"),
    *("tel:", ";phone-context=+34", ";ext=12", "\u00a0", "\u2010", "~", "*", "h", "%", ":", "€"),
)


_PHONE_SEPARATORS = (" ", "", "-", ".", " ", "")


def _phone_texts(rng: random.Random, n: int, pieces: int = 14) -> list[str]:
    """Lines of pieces and of digit groups (one to four digits, most often what a
    phone number is made of, and often one digit short or over)."""

    def piece() -> str:
        if rng.random() < 0.5:
            return rng.choice(_PHONE_PIECES)
        group = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 4)))
        return group + rng.choice(_PHONE_SEPARATORS)

    return ["".join(piece() for _ in range(rng.randint(1, pieces))) for _ in range(n)]


def test_phone_candidates_not_parsed_cannot_be_possible_numbers():
    # phones._cannot_be_possible is what lets phonenumbers skip a candidate: whatever
    # it skips, parsing would not have given a possible number.
    rng = random.Random(29)
    skipped = kept = 0
    for candidate in _phone_texts(rng, 20000, pieces=7):
        if not phones._cannot_be_possible(candidate):
            kept += 1
            continue
        skipped += 1
        try:
            number = phonenumbers.parse(candidate, "ES")
        except phonenumbers.NumberParseException:
            continue
        assert not phonenumbers.is_possible_number(number), repr(candidate)
    assert skipped > 5000 and kept > 5000  # both sides of the shortcut were tried


def test_shortest_spanish_national_number_comes_from_the_metadata():
    assert phones._shortest_national_number() == 9


def test_sparing_matcher_finds_what_phonenumbers_finds():
    rng = random.Random(31)
    found = 0
    for line in _phone_texts(rng, 6000):
        stock = [(m.start, m.end, m.raw_string, m.number) for m in PhoneNumberMatcher(line, "ES", Leniency.POSSIBLE)]
        sparing = [
            (m.start, m.end, m.raw_string, m.number) for m in phones._SparingMatcher(line, "ES", Leniency.POSSIBLE)
        ]
        assert sparing == stock, repr(line)
        found += len(stock)
    assert found > 900  # numbers of every shape, so the comparison is not of empty lists


def test_sparing_matcher_counts_failed_tries_as_phonenumbers_does():
    # After max_tries failed candidates the matcher stops looking: skipping a candidate
    # must count as a failed try, or a long line would find numbers the stock one does not.
    line = "dosis 1, luego 2, luego 3, luego 4, luego 5; llamar al 612 345 678"
    found = []
    for tries in range(8):
        stock = [m.raw_string for m in PhoneNumberMatcher(line, "ES", Leniency.POSSIBLE, max_tries=tries)]
        sparing = [m.raw_string for m in phones._SparingMatcher(line, "ES", Leniency.POSSIBLE, max_tries=tries)]
        assert sparing == stock, tries
        found.append(len(stock))
    assert found == [0] * 6 + [1] * 2  # five failed tries before the number, then it


def _first_characters(items) -> tuple[set[str] | None, bool]:
    """The characters a parsed pattern (``re._parser``) can open a match with (None:
    any character), and whether it can match the empty string."""
    from re import _constants as c

    out: set[str] = set()
    for op, value in items:
        if op is c.LITERAL:
            return out | {chr(value)}, False
        if op is c.IN:
            chars = set()
            for kind, item in value:
                if kind is c.LITERAL:
                    chars.add(chr(item))
                elif kind is c.RANGE:
                    chars.update(chr(x) for x in range(item[0], item[1] + 1))
                else:
                    return None, False  # a category or a negated set: anything
            return out | chars, False
        if op in (c.ASSERT, c.ASSERT_NOT, c.AT):
            continue  # consumes nothing
        if op is c.SUBPATTERN:
            first, empty = _first_characters(value[-1])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            first, empty = _first_characters(value[2])
            empty = empty or value[0] == 0
        elif op is c.BRANCH:
            firsts = [_first_characters(branch) for branch in value[1]]
            if any(f is None for f, _ in firsts):
                return None, False
            first, empty = set().union(*(f for f, _ in firsts)), any(e for _, e in firsts)
        else:
            return None, False
        if first is None:
            return None, False
        out |= first
        if not empty:
            return out, False
    return out, True


def test_every_identifier_label_opens_with_a_letter_looked_for_first():
    from re import _parser

    for field in labelled_ids.FIELDS:
        first, empty = _first_characters(_parser.parse(field.label))
        assert first is not None and not empty, field.label
        assert {ch.lower() for ch in first} <= set(field.opens), field.label


_LABEL_PIECES = (
    *("NHC", "N.H.C.", "nhc", "H.C", "CIPA", "cipa", "TSI", "NUHSA", "DNI", "NASS", "NSS", "TSE", "Nº", "nº", "n.º"),
    *("núm.", "NÚMERO", "historia clínica", "HISTORIA", "pasaporte", "afiliación", "seguridad social", "episodio"),
    *("código de cita", "ID ", "id biométrico", "muestra", "Col.", "NColeg", "col·legiat", "colegiado", "CIAS"),
    *("empleado", "socio", "federado", "licencia federativa", "huella", "serie", "participante", "usuaria"),
    *("alta", "familia", "atestado", "autos", "exp.", "expediente", "referencia de la solicitud", "ſocio", "İD"),
    *("CIP autonómico", "CIP AUTONÓMICA", "tarjeta sanitaria", "acceso", "biopsia previa", "BIOPSIA", "comunicación"),
    *("TIS", "tis", "SIP", "CIA", "plantilla", "póliza", "cupo", "empl.", "SN", "S/N", "petición", "incidencia"),
    *("NIF", "NIE", "CIC", "D.N.I.", "langile zk.", "código de empleado", "declaración", "procedimiento", "İ", "ı"),
    *(": ", ":", " ", "  ", ".....", " de ", "\n", "\t", "\u00a0", "-", "x", "9", "_", "é", "HC-0045123", "2210457"),
)


def test_identifier_labels_looked_for_after_their_first_letter_are_every_label():
    plain = re.compile(
        r"(?<![^\W_])(?:"
        + "|".join(f"(?P<f{i}>{f.label})" for i, f in enumerate(labelled_ids.FIELDS))
        + r")(?![^\W\d_])"
    )
    rng = random.Random(37)
    found = 0
    for _ in range(5000):
        text = "".join(rng.choice(_LABEL_PIECES) for _ in range(rng.randint(1, 12)))
        expected = [(m.span(), labelled_ids.FIELDS[int(m.lastgroup[1:])]) for m in plain.finditer(text)]
        grouped = [(m.span(), labelled_ids._field_of(m)) for m in labelled_ids._LABELS.finditer(text)]
        assert grouped == expected, repr(text)
        found += len(expected)
    assert found > 2000  # labels of every field, so the comparison is not of empty lists


def test_country_key_normalises_pieces_as_it_did_each_character():
    # places._key normalises the pieces between ñs whole; normalize must then give
    # what it gives character by character, on letters that decompose, fold to two
    # (ß, ﬁ), change by context elsewhere (final sigma) or combine after the fact.
    from deid_crf.deid.recognizers import places

    def per_character(name: str) -> str:
        return "".join("ñ" if char in "ñÑ" else normalize(char) for char in name)

    alphabet = ["ñ", "Ñ", "n\u0303", "\u0303", "ß", "ﬁ", "İ", "Σ", "ς", "ſ", "\u212a", "é", "E\u0301", "ǅ", "a", "Z"]
    alphabet += [" ", "-", "'", "1", "²", "Ａ", "ö", "Ø", "ł", "\u00a0"]
    rng = random.Random(37)
    for _ in range(3000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        assert places._key(name) == per_character(name), repr(name)


def test_letter_runs_found_with_find_are_those_a_pattern_of_the_words_finds():
    # propagate_places skips a phrase unless one of these occurrences lies in it, so
    # they must be exactly the whole runs of letters that are wanted words (the
    # pattern that found them before), edges and letters that are no ASCII included.
    rng = random.Random(41)
    pieces = ["San", "Santa", "Colón", "Colónia", "sanS", "é", "_", "1", "²", " ", "-", "\n", "Ａ", "ſ", "San_"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        words = set(rng.sample(["San", "Santa", "Colón", "Colónia", "é", "Ａ", "ſ", "sanS"], rng.randint(1, 3)))
        alternation = "|".join(map(re.escape, sorted(words, key=len, reverse=True)))
        pattern = re.compile(rf"(?<![^\W\d_])(?:{alternation})(?![^\W\d_])")
        assert repeats._letter_runs(text, words) == [m.span() for m in pattern.finditer(text)], (text, words)


def _body_and_head_texts(rng: random.Random, n: int) -> list[str]:
    """Runs of the bodies' and heads' words in three letter cases (and ſ for s), with
    the separators, particles, marks and capitals around and between them."""
    names = [*institutions._NAMES, *institutions._HEADS]
    words = sorted({w for name in names for w in re.split(r"[\s-]+", name)})
    glue = (" ", "  ", "-", " - ", "\n", "\t", "\u00a0", "'", "’", "·", "_", "x", "1", "(", ". ", ", ")
    extra = ("de", "del", "la", "y", "i", "d'", "Sant", "Bizkaia", "Castilla", "La Mancha", "Reus", "nº 3", "ſ")
    texts = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 10)):
            word = rng.choice(words) if rng.random() < 0.6 else rng.choice(extra)
            word = rng.choice((word, word, word.upper(), word.lower(), word.replace("s", "ſ")))
            parts.append(word + rng.choice(glue))
        texts.append("".join(parts))
    return texts


@pytest.mark.parametrize("which", ["body", "organisation"])
def test_bodies_and_heads_tried_where_their_first_word_begins_are_every_match(which):
    pattern, starts_of = {
        "body": (institutions._body(), institutions._BODY_STARTS),
        "organisation": (institutions._organisation(), institutions._HEAD_STARTS),
    }[which]
    found = 0
    for text in _body_and_head_texts(random.Random(43), 4000):
        everywhere = [m.span() for m in pattern.finditer(text)]
        starts = [m.start() for m in starts_of.finditer(text)]
        assert [m.span() for m in finditer_at(pattern, text, starts)] == everywhere, text
        found += len(everywhere)
    assert found > 200  # the texts do hold bodies and heads


def test_young_ages_looked_for_in_texts_with_vida_are_every_age():
    from deid_crf.deid.recognizers import ages

    def everywhere(text):
        found = {(m.start("age"), m.end("age")) for p in (ages._OF_LIFE, ages._AFTER_BABY) for m in p.finditer(text)}
        return [(a, b, ages.AGE) for a, b in sorted(found)]

    durations = ("3 días", "26 días", "un mes", "dos semanas", "3,5 meses", "36 horas", "60 h", "1 mes y medio")
    durations += ("2 meses y 3 días", "tres ſemanas", "4días")
    lives = ("vida", "VIDA", "Vida", "vıda", "vidas", "vida\n", "evolución")
    babies = ("", "", "niño de ", "RN de ", "Lactante de ", "varón de ", "x")
    glue = (" de ", " de  ", "\u00a0de ", " de\n", " ", ", ")
    rng = random.Random(47)
    found = 0
    for _ in range(4000):
        parts = [rng.choice(babies) + rng.choice(durations) + rng.choice(glue) + rng.choice(lives)]
        parts += [rng.choice((*durations, *lives, *babies)) for _ in range(rng.randint(0, 3))]
        rng.shuffle(parts)
        text = rng.choice((" ", "\n", ". ")).join(parts)
        expected = everywhere(text)
        assert list(ages.find_young_ages(text)) == expected, text
        found += len(expected)
    assert found > 500


def _pieced_texts(pieces, seed: int, n: int, most: int):
    """``n`` texts of 1 to ``most`` pieces drawn from ``pieces`` (deterministic by ``seed``)."""
    rng = random.Random(seed)
    for _ in range(n):
        yield "".join(rng.choice(pieces) for _ in range(rng.randint(1, most)))


def test_ip_and_mac_patterns_tried_in_texts_that_hold_their_core_are_every_address():
    from deid_crf.deid.recognizers import internet

    def everywhere(text):
        out = [
            (m.start(), m.end(), internet.DEVICE_ID)
            for p in (internet._IPV4, internet._IPV6)
            for m in p.finditer(text)
            if internet._is_ip(m.group())
        ]
        return out + [(m.start(), m.end(), internet.DEVICE_ID) for m in internet._MAC.finditer(text)]

    pieces = ("1", "12", "192", "0", "255", "256", ".", ":", "::", "-", "a", "F", "fe80", "db8", "x", " ", "\n")
    pieces += ("\u0663", "\uff11", "_", "2001:db8::1", "00:1A:2b:3C:4d:5E", "10.0.0.1", "a-b-")
    found = 0
    for text in _pieced_texts(pieces, 53, 6000, 14):
        expected = everywhere(text)
        assert list(internet.find_ips(text)) == expected, text
        found += len(expected)
    assert found > 500


def test_profession_cues_tried_near_their_words_are_every_cue():
    from deid_crf.deid.recognizers import work

    cues = ("trabaja como ", "TRABAJABA DE ", "trabajó de ", "ejerce de ", "treballa com a ", "traballa de ")
    cues += ("de profesión ", "De  Profesión: ", "profesión habitual, ", "ocupación: ", "Oficio : ", "su trabajo como ")
    cues += ("un empleo como ", "Su puesto como ", "trabajando de\u00a0", "ejercía como\n", "ſu trabajo como ")
    words = ("camionero", "auxiliar de geriatría", "noche", "de", "la", "Peón agrícola", "x", "12", "en Triana", "")
    glue = (" ", "", "\n", ", ", ". ", "-", "_", "(", "\t")
    rng = random.Random(59)
    found = 0
    for _ in range(5000):
        parts = [rng.choice((*cues, *words)) + rng.choice(glue) for _ in range(rng.randint(1, 8))]
        text = "".join(parts)
        everywhere = [m.span() for m in work._PROFESSION.finditer(text)]
        assert [m.span() for m in finditer_at(work._PROFESSION, text, work._cue_starts(text))] == everywhere, text
        found += len(everywhere)
    assert found > 2000


def _with_a_lookahead():
    """(pattern, the pattern as it was written before its opening lookahead, the pieces
    of the texts to compare them on, the seed)."""
    from deid_crf.deid.recognizers import work

    profession_pieces = ("que es ", "QUIEN ERA ", "q fue ", ", es un ", ",era una ", "Es ", "era ", "como ")
    profession_pieces += ("Como una ", "fue ", "ha sido ", "había  sido ", "paciente, ", "Pacient,", "enferma ,")
    profession_pieces += ("usuario,", "antiguo ", "ex-", "Ex ", "camionero", "auxiliar de geriatría", "d'autobús")
    profession_pieces += ("x", "12", "ſ", "é", "Ñ", " ", "\n", ". ", ".", ";", "|", "\t", "\u00a0", ",", "-", "(")
    phone_pieces = ("(", ")", "+", "+34", "0034", " ", "  ", "\u00a0", "\t", "\n", ".", "-", "1", "23", "456")
    phone_pieces += ("7890", "612345678", "(5982) 487-3837", "a", "Tel: ", "x", "\u0663", "\u2028")
    return {
        "listed profession": (
            work._LISTED_PROFESSION,
            re.compile(rf"{work._LISTED_CUE}(?P<head>{work._WORD}){work._REST}", re.IGNORECASE | re.MULTILINE),
            profession_pieces,
            61,
        ),
        "labelled phone number": (
            phones._LABELLED_NUMBER,
            re.compile(rf"\(?\+?{common.SP}?(\d(?:\)?[ .-]?\d){{6,14}})(?![\w]|[ .-]\d)"),
            phone_pieces,
            67,
        ),
    }


@pytest.mark.parametrize("name", ["listed profession", "labelled phone number"])
def test_patterns_after_a_lookahead_of_their_opening_find_what_they_found_without_it(name):
    pattern, reference, pieces, seed = _with_a_lookahead()[name]
    found = 0
    for text in _pieced_texts(pieces, seed, 6000, 12):
        expected = [(m.span(), m.groups()) for m in reference.finditer(text)]
        assert [(m.span(), m.groups()) for m in pattern.finditer(text)] == expected, repr(text)
        found += len(expected)
    assert found > 2000


def test_plates_and_vins_looked_for_in_texts_that_hold_their_core_are_every_one():
    from deid_crf.deid.recognizers import vehicles

    def everywhere(text):
        def context(start):
            before = line_before(text, start, vehicles._CONTEXT_WIDTH)
            return before if before.strip() else text[max(0, start - len(before) - 30) : start]

        found = [
            (m.start(), m.end(), vehicles.VEHICLE_ID)
            for p in (vehicles._PLATE, vehicles._VIN)
            for m in p.finditer(text)
            if vehicles._CONTEXT.search(context(m.start()))
        ]
        # (and a foreign plate after the word for a plate, wherever that word is)
        found += [
            (m.start("plate"), m.end("plate"), vehicles.VEHICLE_ID)
            for m in vehicles._FOREIGN_PLATE.finditer(text)
            if not any(a < m.end("plate") and m.start("plate") < b for a, b, _ in found)
        ]
        return sorted(found)

    contexts = ("matrícula ", "coche: ", "VIN ", "bastidor nº ", "x ", "\n", "", "Tractora ", "placa alemana ")
    pieces = ("7731", "LKB", " ", "-", "R-", "M", "AB", "1234", "\u0663\u0663\u0663\u0663", "BCD", "12345", "A")
    pieces += ("1234-", "R-4512-", "M-1234-", "7731 ", "7731-", "M-")
    pieces += ("1HGCM82633A004352", "WVWZZZ1JZXW000001", "I", "O", "Q", "x", "\n", "_", "ñ", "12345678", "ABCDEFGH")
    rng = random.Random(61)
    found = 0
    for _ in range(6000):
        text = "".join(rng.choice(contexts) + rng.choice(pieces) + rng.choice(pieces) for _ in range(rng.randint(1, 5)))
        expected = everywhere(text)
        assert list(vehicles.find_vehicle_ids(text)) == expected, text
        found += len(expected)
    assert found > 150


def test_short_spaces_read_every_character_but_the_rare_line_breaks_as_sp():
    # Every character of Unicode, alone and next to each letter case, once with each class.
    every = "".join(chr(c) for c in range(0x110000))
    for flags in (0, re.IGNORECASE):
        exact = {m.start() for m in re.compile(common.SP, flags).finditer(every)}
        short = {m.start() for m in re.compile(common.SP_SHORT, flags).finditer(every)}
        assert exact ^ short == {0x2028, 0x2029}
        assert "\u2028" not in common.SP_SHORT and not common.has_rare_line_breaks(common.SP_SHORT)


@pytest.mark.parametrize("which", ["body", "organisation"])
def test_bodies_and_heads_with_short_spaces_find_what_sp_finds(which):
    build = {"body": institutions._body, "organisation": institutions._organisation}[which]
    short, exact = build(), build(rare_line_breaks=True)
    assert short.pattern != exact.pattern and common.SP not in short.pattern
    rng = random.Random(53)
    found = 0
    for text in _body_and_head_texts(rng, 4000):
        everywhere = [m.span() for m in exact.finditer(text)]
        assert [m.span() for m in short.finditer(text)] == everywhere, text
        found += len(everywhere)
    assert found > 100  # the texts do hold bodies and heads


@pytest.mark.parametrize("which", ["body", "organisation"])
def test_a_text_with_rare_line_breaks_is_searched_with_sp_itself(which, monkeypatch):
    # Where U+2028 or U+2029 stands for a space, the short class would join the words
    # around it into one name: the recognizer must use the pattern written with SP.
    name = {"body": "_body", "organisation": "_organisation"}[which]
    finder = {"body": find_institutions, "organisation": find_organisations}[which]
    build = getattr(institutions, name)
    rng = random.Random(61)
    # 6000 texts: about one in a thousand tells the classes apart (3000 of seed 59 held none
    # after the heads of the stop after d8896ba were added)
    texts = [t.replace(" ", rng.choice(common.RARE_LINE_BREAKS)) for t in _body_and_head_texts(rng, 6000)]
    found = [list(finder(t)) for t in texts]
    for always in (True, False):
        monkeypatch.setattr(institutions, name, lambda rare_line_breaks=False, always=always: build(always))
        with_one = [list(finder(t)) for t in texts]
        if always:
            assert with_one == found
        else:
            assert with_one != found  # the short class alone would find other spans


_ADDRESS_PIECES = (
    *("@", "@@", "a", "Z", "é", "ſ", "1", "٣", "²", "_", ".", "+", "-", "..", "ab.cd", "x@y.com", "n.o-p+q@h-1.es"),
    *(".com", ".es", ".c", "com", " ", "\n", "\t", ":", "/", "(", "·", "'", "<", "www", "www.", "WWW.", "wWw."),
    *("https://", "HTTP://", "ftp://", "sftp://", "://", ":/", "w.", "ww.", "İ"),
)


def test_emails_looked_for_from_their_at_signs_are_every_email():
    from deid_crf.deid.recognizers import internet

    found = 0
    for text in _pieced_texts(_ADDRESS_PIECES, 61, 5000, 14):
        everywhere = [(m.start(), m.end(), internet.EMAIL) for m in internet._EMAIL.finditer(text)]
        assert list(internet.find_emails(text)) == everywhere, repr(text)
        found += len(everywhere)
    assert found > 1000


def test_urls_looked_for_in_texts_with_a_protocol_or_www_are_every_url():
    from deid_crf.deid.recognizers import internet

    found = 0
    for text in _pieced_texts(_ADDRESS_PIECES, 67, 5000, 14):
        everywhere = [m.start() for m in internet._URL.finditer(text)]
        assert [start for start, _, _ in internet.find_urls(text)] == everywhere, repr(text)
        found += len(everywhere)
    assert found > 1000


_NATIONAL_IDS = "deid_crf.deid.recognizers.national_ids"
# The number patterns of national_ids (and labelled_ids) as they were written before they opened with their
# first character's class (a lookbehind first): the reference for the reordered ones.
_LOOKBEHIND_FIRST = {
    "_DNI": r"(?<![\w.-])(\d{1,2}\.?\d{3}\.?\d{3})[ -]?([A-Z])(?!\w)",
    "_NIE": r"(?<![\w.-])([XYZ])[ -]?(\d\.?\d{3}\.?\d{3})[ -]?([A-Z])(?!\w)",
    "_CIF": r"(?<![\w.-])([ABCDEFGHJNPQRSUVW])[ -]?(\d{2}\.?\d{3}\.?\d{2})[ -]?([0-9A-J])(?!\w)",
    "_IBAN": r"(?<![\w])[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,3})?(?![\w])",
    "_BANK_ACCOUNT": r"(?<![\w.-])\d{4}([ -]?)\d{4}\1\d{2}\1\d{10}(?![\w]|[ .-]\d)",
    "_NASS": r"(?<![\w/.-])(\d{2})([ /-]?)(\d{8})\2(\d{2})(?![\w]|[ /-]\d)",
    "labelled_ids._COLLEGIATE": r"(?<![\w/.-])(\d{2})([ -])(\d{2})\2\d{5}(?![\w]|[ /-]\d)",
}
_NUMBER_PIECES = (
    *("12345678Z", "12.345.678-Z", "1234567 L", "X1234567L", "X-1.234.567-L", "B12345674", "B-12.345.67-4"),
    *("ES9121000418450200051332", "ES91 2100 0418 4502 0005 133", "2100-0418-45-0200051332"),
    *("21000418450200051332", "28 12345678 40", "28/12345678/40", "281234567840", "28-12345678-4"),
    *("28 28 20943", "08-08-25574", "28 2820943"),
    *("1", "23", "456", "7890", "0000", "X", "Z", "B", "ES", "AB", "J", "Q"),
    *(" ", " ", "-", ".", "/", "_", "a", "é", "٣", "\n", "(", ":", "ſ"),
)


@pytest.mark.parametrize("name", sorted(_LOOKBEHIND_FIRST))
def test_number_patterns_opening_with_their_first_class_find_what_the_lookbehind_first_ones_find(name):
    module, _, attribute = name.rpartition(".")
    reordered = getattr(labelled_ids if module else importlib.import_module(_NATIONAL_IDS), attribute)
    reference = re.compile(_LOOKBEHIND_FIRST[name])
    found = 0
    for text in _pieced_texts(_NUMBER_PIECES, 71, 6000, 16):
        expected = [(m.span(), m.groups()) for m in reference.finditer(text)]
        assert [(m.span(), m.groups()) for m in reordered.finditer(text)] == expected, repr(text)
        found += len(expected)
    assert found > 100  # the texts do hold numbers of every shape


_ROAD_PIECES = (
    *("Ctra. ", "ctra ", "Carretera de ", "Autovía del ", "A-62", "AP-7", "N-II", "Nacional 330", "M30", "Toledo"),
    *(" km ", "km. ", ", km 4", "kilómetro ", "kilometro", "p.k. ", "p. k.", "pk ", "PK ", "KM ", "punto kilométrico "),
    *("148", "12,5", "9.100", "4", " ", "  ", ",", "-", "\n", "x", "é", "Sur"),
)


def test_road_points_looked_for_in_texts_with_a_kilometre_word_are_every_road_point():
    from deid_crf.deid.recognizers import roads

    found = 0
    for text in _pieced_texts(_ROAD_PIECES, 73, 6000, 10):
        everywhere = [(m.start(), m.end(), roads.STREET) for m in roads._ROAD_POINT.finditer(text)]
        assert list(roads.find_road_points(text)) == everywhere, repr(text)
        found += len(everywhere)
    assert found > 50  # the texts do hold road points of every form


_PLACE_PIECES = (
    *("Francia", "Reino Unido", "Congo", "rojo Congo", "Alemaña", "Alemana", "Ávila", "Álava", "ÑANDÚ", "Ñ"),
    *("Islas Baleares", "Santa Cruz de Tenerife", "País Vasco", "Israel", "Georgia", "Toledo", "Madrid", "Lugo"),
    *(" ", " ", ",", ".", "-", "'", "_", "1", "a", "é", "ſ", "\n", "(", "\u00a0", "x", "É"),
)


def test_capitalised_words_found_capital_first_are_those_the_lookbehind_first_pattern_finds():
    from deid_crf.gazetteers.spanish import UPPER

    from deid_crf.deid.recognizers import places

    reference = re.compile(rf"(?<!\w)[{UPPER}][^\W\d_]*")
    found = 0
    for text in _pieced_texts(_PLACE_PIECES, 79, 6000, 10):
        expected = [(m.start(), places._key(m.group())) for m in reference.finditer(text)]
        assert places._capitalised_words(text) == expected, repr(text)
        # and the places found with the words found once are those each list finds alone
        words = places._capitalised_words(text)
        for find in (places.find_country_names, places.find_region_names):
            assert list(find(text, words)) == list(find(text)), repr(text)
        found += len(expected)
    assert found > 10000


def test_letter_first_classes_hold_every_character_that_matches_a_letter_ignoring_case():
    """What :func:`letter_first` puts in its opening class for a letter is every
    character ``re`` takes for that letter ignoring case (all of Unicode searched)."""
    letters = "abcdefghijklmnopqrstuvwxyzáéíóúüñàèìòùçâêîôûäëïöåß"
    candidates = [c for c in map(chr, range(0x110000)) if re.fullmatch(f"[{letters}]", c, re.IGNORECASE)]
    for letter in letters:
        expected = sorted(c for c in candidates if re.fullmatch(letter, c, re.IGNORECASE))
        opening = common.letter_first([letter + "x"])
        assert sorted(opening[1 : opening.index("]")]) == expected, letter


# What stands before and after the fields below: nothing, word characters, marks, line
# breaks, no-break spaces, and letters that only match ignoring case (ſ for s, K for k,
# İ and ı for i).
_AROUND = ("", "", " ", "  ", "\u00a0", "\n", "\u2028", ",", ".", "-", "_", "/", ":", "x", "é", "K", "1", "ſ", "ı")
# The slots of each field, by the name of the pattern that finds it, each filled at
# random, often wrongly.
_FIELD_SLOTS = {
    "sex": (
        ("Sexo", "SEXE", "sexua", "Género", "xenero", "generoa", "ſexo", "sexos", "exo"),
        ("", "", "/Sexo", " / GÉNERO"),
        (": ", ":", " .... ", " ", "..", "\n: "),
        ("Varón", "H", "h", "muller", "Home", "emakumea", "Mujer/", "D", "Ж"),
    ),
    "age_sex": (
        ("IDADE", "Edad", "edat", "adina", "ıdade", "İDADE", "dad"),
        ("/", " / ", "|"),
        ("SEXO", "sexe", "ſexo"),
        (" .... ", ": ", " "),
        ("76", "5", "1234"),
        (" anos ", " ", ""),
        ("/ ", "/", " | "),
        ("Muller", "H", "varon"),
    ),
    "in_words": (
        ("varón", "Mujer", "señor", "señora", "niño", "ſeñora", "paciente", "PACIENTE", "joven", "muchacha"),
        (" de ", " ", "  de  ", " del "),
        ("setenta y dos", "cuarenta", "Cuarenta y cinco", "veinte", "cien", "mil"),
        (" años", " meses", " AÑOS", "años", " días"),
    ),
    "labelled": (
        ("Edad", "EDAT", "idade", "adina", "İdade", "ıdade", "edades"),
        ("", "", "/sexo", "/SEXE"),
        (": ", " | ", " .... ", " ", ":"),
        ("", "", "02/05/1950 / ", "9.9.71/"),
        ("58", "3", "120", "1234"),
        ("", " años", " anys", " urte", "%", " kg", ".5", "/2"),
    ),
    "birth": (
        ("nac.", "Nacimiento", "nacida", "NACIDO", "F. nac.", "ac", "nacimientos"),
        ("", " el ", "  el "),
        (": ", "", ":"),
        ("15.04.1939", "02/05/1950", "1-1-20", "1/1"),
        (" (85)", " (74 años)", "(74 a)", " ( 9 anys )", " (", " 85"),
    ),
    "baby": (
        ("RN", "rn", "Recién nacido", "recien  nacida", "lactante", "bebé", "hija", "gemelo", "niño", "neonata"),
        (" de ", " ", "  de "),
        ("3", "un", "dos", "1,5", "tres"),
        (" días", " semanas", " h", " meses y medio", " horas"),
        ("", "", " de evolución", " de vida", "s"),
    ),
    "home": (
        ("natural de", "Reside en", "vive en", "nacido en", "residía", "RESIDENTE  EN", "domiciliada en", "ive en"),
        (" ", "  ", "\u00a0", ""),
        ("Lugo", "Madrid", "Vigo", "San Sebastián", "lugo", "la Coruña"),
    ),
    "employer": (
        ("empresa", "Fábrica", "taller", "Bodega", "EXPLOTACIÓN", "gestoría", "mpresa", "fábricas"),
        ("", " de", " de la", " do"),
        (" ", "  "),
        ("Construcciones", "Pérez", "Gil y Gil", "ACME", "Talleres del Norte", "pérez"),
    ),
    "company": (
        ("Talleres", "Pérez", "Gil", "construcciones", "Bodega", "Ñu", "2", "O'Neill"),
        ("", " y Gil", " de la Sierra", " 3"),
        (" ", ", ", "", "  "),
        ("S.L.", "SA", "S.A.", "SL", "S. Coop.", "SLU", "sa", "S.L.U."),
        ("", "", "x", "."),
    ),
}


def _field_texts(slots, seed: int, n: int):
    """``n`` texts of one to three fields of ``slots``, each slot filled at random, with
    what may stand around them (deterministic by ``seed``)."""
    rng = random.Random(seed)
    for _ in range(n):
        fields = ["".join(rng.choice(slot) for slot in slots) for _ in range(rng.randint(1, 3))]
        yield "".join(rng.choice(_AROUND) + field + rng.choice(_AROUND) for field in fields)


def _before_letter_first():
    """The patterns that open with common.letter_first, as they were written before
    (the lookbehind, then the alternation, ignoring case): the reference."""
    from deid_crf.gazetteers.spanish import UPPER

    from deid_crf.deid.recognizers import ages, places, sex, work
    from deid_crf.deid.recognizers.common import AGE_LABELS, SP

    labels = "|".join(AGE_LABELS)
    before = {
        "sex": rf"(?<!\w){sex._LABEL}{SP}*(?:/{SP}*{sex._LABEL}{SP}*)?{sex._SEPARATOR}(?P<sex>{sex._VALUE})(?![\w/])",
        "age_sex": rf"(?<!\w)(?:{labels}){SP}*/{SP}*{sex._LABEL}{sex._SEPARATOR}\d{{1,3}}(?:{SP}*[^\W\d_]+)?"
        rf"{SP}*/{SP}*(?P<sex>{sex._VALUE})(?![\w/])",
        "in_words": rf"\b(?:{'|'.join(ages._PERSONS)}){SP}+de{SP}+(?P<age>{ages.number_words.AGE}{SP}+(?:años|meses))"
        r"(?!\w)",
        "labelled": rf"(?<!\w)(?:{labels})(?:/(?:sexo|sexe|sexua))?{SP}*(?::|\.{{2,}}|\|)?{SP}*{ages._BIRTH_DATE_FIRST}"
        rf"(?P<age>\d{{1,3}}(?:{SP}*(?:años|anys|anos|urte)(?!\w))?)"
        rf"(?![\w/%]|[.,:]\d|{SP}*(?:%|kg|cm|mg|semanas|meses|días))",
        "birth": rf"(?<!\w)(?i:nac(?:\.|imiento|ido|ida)?)(?:{SP}+el)?{SP}*:?{SP}*\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}"
        rf"{SP}*\({SP}*(?P<age>\d{{1,3}}(?:{SP}*(?i:años|anys|anos|a))?){SP}*\)",
        "baby": rf"\b(?:{'|'.join(ages._BABIES)}){SP}+de{SP}+(?P<age>{ages._DURATION})(?!\w){ages._NOT_AN_AGE}",
        "home": rf"(?<!\w)(?i:{'|'.join(places._HOME_CUES)}){SP}+(?P<place>{places._NAME})",
        "employer": work._EMPLOYER.pattern.replace(
            common.letter_first(work._WORKPLACE_HEADS), rf"(?<!\w)(?i:{'|'.join(work._WORKPLACE_HEADS)})"
        ),
        "company": work._COMPANY.pattern.replace(
            rf"(?P<name>[{UPPER}](?<![\w.][{UPPER}])", rf"(?<![\w.])(?P<name>[{UPPER}]"
        ),
    }
    ignoring_case = {"sex", "age_sex", "in_words", "labelled", "baby"}  # compiled with re.IGNORECASE
    patterns = {
        "sex": sex._SEX_FIELD,
        "age_sex": sex._AGE_AND_SEX_FIELD,
        "in_words": ages._IN_WORDS,
        "labelled": ages._LABELLED,
        "birth": ages._AFTER_BIRTH_DATE,
        "baby": ages._AFTER_BABY,
        "home": places._HOME_CUE,
        "employer": work._EMPLOYER,
        "company": work._COMPANY,
    }
    return {
        name: (patterns[name], re.compile(pattern, re.IGNORECASE if name in ignoring_case else 0))
        for name, pattern in before.items()
    }


def test_patterns_opening_with_their_first_letters_find_what_the_lookbehind_first_ones_find():
    for seed, (name, (pattern, reference)) in enumerate(_before_letter_first().items()):
        assert reference.pattern != pattern.pattern, name  # a reference written as it was, not the pattern itself
        found = 0
        for text in _field_texts(_FIELD_SLOTS[name], 83 + seed, 4000):
            expected = [(m.span(), m.groups()) for m in reference.finditer(text)]
            assert [(m.span(), m.groups()) for m in pattern.finditer(text)] == expected, (name, text)
            found += len(expected)
        assert found >= 300, (name, found)  # the texts do hold fields of every kind


def test_digit_runs_the_audit_looks_for_are_those_the_lookbehind_first_pattern_finds():
    from deid_crf.deid import audit

    reference = re.compile(r"(?<!\d)\d{4,}(?!\d)")
    found = 0
    for text in _pieced_texts(_NUMBER_PIECES, 89, 6000, 16):
        expected = [m.span() for m in reference.finditer(text)]
        assert [m.span() for m in audit._DIGITS.finditer(text)] == expected, repr(text)
        found += len(expected)
    assert found > 1000


def test_capitalised_words_the_audit_looks_for_are_the_capitalised_letter_runs():
    """The audit's candidates, once ``isupper`` has checked their first letter, are the
    letter runs of two letters or more that open with a capital, whatever the script
    (capitals outside Latin-1, title-case and lower-case letters that are neither)."""
    from deid_crf.deid import audit

    pieces = ("Ana", "ANA", "ana", "Ñúñez", "ñu", "Élodie", "ÉL", "é", "Ö", "ß", "ẞ", "Σοφία", "σ", "Иван", "иван")
    pieces += ("ǅ", "ǆ", "Ǆ", "İ", "ı", "ª", "º", "Ⅷ", "ⅷ", "ſ", "K", "ÿ", "Ÿ", "A", "a", "x", "Z")
    pieces += (" ", "-", "'", "1", "12", "_", "\n", ".", "\u00a0", "\u0663")
    found = 0
    for text in _pieced_texts(pieces, 97, 6000, 10):
        expected = [m.span() for m in audit._WORD.finditer(text) if len(m.group()) >= 2 and m.group()[0].isupper()]
        candidates = audit._CAPITALISED_CANDIDATE.finditer(text)
        assert [m.span() for m in candidates if m.group()[0].isupper()] == expected, repr(text)
        found += len(expected)
    assert found > 3000


def test_days_alone_found_from_del_and_a_digit_are_those_a_scan_of_every_position_finds():
    """_days_alone tries its patterns only at "del"/"do" and a digit: the same days as the
    patterns searched at every position."""
    sp = r"[^\S\n\r]"
    part = re.compile(rf"(?<!\w)(?i:madrugada|noche|mañana|tarde|mediodía){sp}+{dates._DAY_OF_PART.pattern}")
    interval = re.compile(rf"(?<!\w){dates._DAYS_INTERVAL.pattern}")
    rng = random.Random(5)
    pieces = ("la madrugada del ", "noche del ", "Tarde del ", "del ", "do ", "modelo ", " al ", " ao ", "ydel ")
    numbers = ("18", "4", "40", "2", "31", "10")
    after = ("", ".", " %", " de marzo", " mg", ":", " y", "h", ",5")
    for _ in range(3000):
        text = "".join(rng.choice(pieces) + rng.choice(numbers) + rng.choice(after) for _ in range(rng.randint(1, 4)))
        expected = []
        for m in interval.finditer(text):
            if 1 <= int(m.group("date")) < int(m.group("date2")) <= 31:
                expected += [m.span("date"), m.span("date2")]
        taken = set(expected)
        for m in part.finditer(text):
            if (
                1 <= int(m.group("date")) <= 31
                and m.span("date") not in taken
                and not interval.match(text, m.start("date") - 4)
            ):
                expected.append(m.span("date"))
        assert sorted(set(dates._days_alone(text, dates.anchors(text)))) == sorted(set(expected)), text


def test_the_young_age_fields_letter_first_pattern_finds_what_the_plain_one_does():
    """``_YOUNG_AGE_FIELD`` opens with its first letter as a class before the look-behind
    (a speed-up); it must match exactly where the plain ``(?<!\\w)(?i:edad|edat|idade)`` form
    does."""
    import random
    import re

    from deid_crf.deid.recognizers import ages

    plain = re.compile(
        ages._YOUNG_AGE_FIELD.pattern.replace(r"[EeIi](?<!\w[EeIi])(?i:dad|dat|dade)", r"(?<!\w)(?i:edad|edat|idade)")
    )
    assert plain.pattern != ages._YOUNG_AGE_FIELD.pattern
    rng = random.Random(7)
    pieces = [
        "Edad",
        "EDAD",
        "edat",
        "Idade",
        "unidad",
        "_edad",
        "xEdad",
        " al alta",
        ":",
        " ",
        "3 días",
        "2 meses",
        "\n",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 10)))
        assert [m.span() for m in ages._YOUNG_AGE_FIELD.finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_the_job_at_employer_patterns_literal_first_alternatives_find_what_the_plain_ones_do():
    """``_JOB_AT_EMPLOYER`` writes its Catalan/Galician cues as a literal then a look-behind
    (a speed-up); it must match exactly where the plain ``(?<!\\w)(?:és|fou|foi)`` form does."""
    import random
    import re

    from deid_crf.deid.recognizers import work
    from deid_crf.deid.recognizers.common import SP

    fast = work._JOB_AT_EMPLOYER.pattern
    cues = f"é(?<!\\wé)s{SP}+|f(?<!\\wf)o[ui]{SP}+"
    assert cues in fast
    plain = re.compile(fast.replace(cues, f"(?<!\\w)(?:és|fou|foi){SP}+"))
    rng = random.Random(11)
    pieces = [
        "és",
        "fou",
        "foi",
        "xés",
        "afou",
        ", ",
        "(",
        ")",
        "bomber",
        "camarero",
        " a ",
        " en ",
        " na ",
        "Badalona",
    ]
    pieces += ["un ", "almacén", "\n"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        assert [m.span() for m in work._JOB_AT_EMPLOYER.finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_sample_codes_looked_for_from_their_first_character_are_every_code():
    from deid_crf.deid.recognizers import labelled_ids

    plain = re.compile(r"(?<![\w/-])(?:[A-Z]{1,4}\d{2}[A-Z]?|\d{2}[A-Z]{1,3})[-/]\d{3,7}(?![\w/-])")
    rng = random.Random(71)
    codes = ("MB26", "Q26", "26M", "CNM26", "H26", "26", "VEEG26", "2A")
    pieces = ("-", "/", "119034", "0142", "12", " ", "x", "\n", "ñ", "_", "B", "(")
    found = 0
    for _ in range(6000):
        text = "".join(
            rng.choice(pieces) + rng.choice(codes) + rng.choice("-/ ") + rng.choice(("119034", "0142", "12", "x9"))
            for _ in range(rng.randint(1, 4))
        )
        expected = [m.span() for m in plain.finditer(text)]
        assert [m.span() for m in labelled_ids._SAMPLE_CODE.finditer(text)] == expected, text
        found += len(expected)
    assert found > 100
