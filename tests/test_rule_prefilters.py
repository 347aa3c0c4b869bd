"""The rule layer's shortcuts find what the full search finds.

Each shortcut skips work that cannot match (a kinship phrase is only tried near a
kinship word, phonenumbers only on lines with a digit, a Basque pattern only in a
text with its head word, a long alternation grouped by first letter). These tests
check that premise against the full search on texts built to sit at its edges, so a
shortcut that would skip a real match fails here instead of losing PHI.
"""

from __future__ import annotations

import random
import re

import pytest
from phonenumbers import Leniency, PhoneNumberMatcher

from deid_crf.deid.recognizers import institutions, relatives
from deid_crf.deid.recognizers.common import by_first_letter, finditer_at
from deid_crf.deid.recognizers.institutions import find_health_centres, find_institutions, find_organisations
from deid_crf.deid.recognizers.phones import _DIGIT, find_phones
from deid_crf.deid.recognizers.relatives import RELATIVE
from deid_crf.deid.recognizers.relatives import relatives as find_relatives

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
