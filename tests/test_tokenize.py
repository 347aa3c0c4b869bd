"""Tokenizer and sentence splitter: offset invariants on any text, and the Spanish
clinical cases the tokenizer is designed for."""

from __future__ import annotations

import re

import numpy as np
import pytest
from deid_crf.gazetteers.spanish import INVISIBLE as _INVISIBLE
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_crf.config import MAX_SENTENCE_TOKENS, TokenizerConfig
from deid_crf.text.document import LINE_BREAKS
from deid_crf.text.table import TokenTable
from deid_crf.text.tokenizer import Tokenizer, capped_sentence_ends, count_sentences, tokenize

# Every str.splitlines break, "\r\n" counting once.
LINE_BREAK = re.compile(f"\r\n|[{LINE_BREAKS}]")

TOKENIZER = Tokenizer()

# Plain unicode text, and text drawn from the characters the tokenizer treats specially.
SPECIAL = list("aAzZéÉñÑçº ª.,;:/-_+@?!…¿¡()\"«'[•*0123456789\n\r\t \u00a0\u2028") + list(_INVISIBLE)
TEXTS = st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from(SPECIAL)),
    st.lists(
        st.sampled_from(["Dr", "García", "EE", "UU", "NHC", "368503", "x@y.es", "E-mail", "www.a.es", "Nº", "c/"])
        | st.sampled_from([".", ". ", " ", "\n", ":", "\ufeff", "ÉL", "el"]),
        max_size=30,
    ).map("".join),
)


def is_invisible(c: str) -> bool:
    return c.isspace() or c in _INVISIBLE


def check_table(table: TokenTable, texts: list[str]) -> None:
    """Every invariant of a token table over ``texts``."""
    n = len(table)
    assert len(table.start) == len(table.end) == len(table.doc) == len(table.line) == n
    assert table.doc_bounds.shape == (len(texts), 2)
    # Documents are contiguous runs, in order, covering every token.
    begin = 0
    for d, (a, b) in enumerate(table.doc_bounds.tolist()):
        assert a == begin and a <= b
        assert (table.doc[a:b] == d).all()
        begin = b
    assert begin == n
    # Sentences partition the tokens contiguously, are never empty and never cross documents.
    bounds = table.sent_bounds.tolist()
    if bounds:
        assert [a for a, _ in bounds] == [0] + [b for _, b in bounds[:-1]]
        assert bounds[-1][1] == n
    else:
        assert n == 0
    assert all(a < b for a, b in bounds)
    assert all(table.doc[a] == table.doc[b - 1] for a, b in bounds)
    assert (np.diff(table.sentence_ids()) >= 0).all()
    for d, text in enumerate(texts):
        a, b = table.doc_bounds[d]
        starts, ends = table.start[a:b].tolist(), table.end[a:b].tolist()
        covered = [0] * len(text)
        previous_end = 0
        for token, s, e, line in zip(table.tokens[a:b], starts, ends, table.line[a:b].tolist(), strict=True):
            assert previous_end <= s < e <= len(text)  # in order, non-overlapping, in bounds
            assert text[s:e] == token
            assert not any(is_invisible(c) for c in token)
            assert line == len(LINE_BREAK.findall(text, 0, s))
            for i in range(s, e):
                covered[i] += 1
            previous_end = e
        assert all(covered[i] == (0 if is_invisible(c) else 1) for i, c in enumerate(text))
        # A newline between two tokens always ends a sentence.
        sentence_ids = table.sentence_ids()[a:b]
        for i in range(len(starts) - 1):
            if "\n" in text[ends[i] : starts[i + 1]]:
                assert sentence_ids[i] != sentence_ids[i + 1]


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_token_invariants_on_any_text(text: str):
    check_table(TOKENIZER([text]), [text])


@settings(max_examples=100, deadline=None)
@given(st.lists(TEXTS, max_size=5))
def test_multi_document_tables(texts: list[str]):
    table = TOKENIZER(texts)
    check_table(table, texts)
    assert table.texts == texts
    # A batch is the concatenation of its documents tokenized one by one.
    if texts:
        joined = TokenTable.concat([TOKENIZER([t]) for t in texts])
        check_table(joined, texts)
        for column in ("tokens", "start", "end", "doc", "line", "sent_bounds", "doc_bounds"):
            assert getattr(joined, column).tolist() == getattr(table, column).tolist(), column


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Vino el Dr. García. Está bien.", 2),  # "Dr." does not end a sentence
        ("Avda. de la Paz 3. Madrid.", 2),
        ("Nombre: Ana.\nNHC: 123.", 2),
        ("Sin punto final", 1),
        ("¿Dolor? Sí. No.", 3),
        ("  ", 0),
    ],
)
def test_count_sentences_on_hand_counted_texts(text: str, expected: int):
    assert count_sentences(text) == expected


def tokens(text: str) -> list[str]:
    return TOKENIZER([text]).tokens.tolist()


def sentences(text: str) -> list[str]:
    """Each sentence as the text from its first token's start to its last token's end."""
    table = TOKENIZER([text])
    return [text[table.start[a] : table.end[b - 1]] for a, b in table.sent_bounds.tolist()]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("NHC: 368503.", ["NHC", ":", "368503", "."]),
        ("Sexo: H.", ["Sexo", ":", "H", "."]),
        ("Fecha de nacimiento: 03/03/1946.", ["Fecha", "de", "nacimiento", ":", "03/03/1946", "."]),
        ("Creatinina 1.16 mg/dl.", ["Creatinina", "1.16", "mg", "/", "dl", "."]),
        ("c/ del Abedul 5-7, 2º dcha", ["c", "/", "del", "Abedul", "5-7", ",", "2", "º", "dcha"]),
        ("CuéllarNºCol", ["Cuéllar", "Nº", "Col"]),
        ("DRAlberto", ["DR", "Alberto"]),
        ("Correo: ana.lopez-ruiz+1@hospital.sanitas.es.", ["Correo", ":", "ana.lopez-ruiz+1@hospital.sanitas.es", "."]),
        ("E-mail.x@y.com", ["E-mail", ".", "x@y.com"]),
        ("Web: www.hospital.es/cita?id=3.", ["Web", ":", "www.hospital.es/cita?id=3", "."]),
        ("\ufeffNombre:\u200bAna", ["Nombre", ":", "Ana"]),
    ],
)
def test_spanish_clinical_tokens(text: str, expected: list[str]):
    assert tokens(text) == expected


def test_case_joins_can_be_kept():
    table = Tokenizer(TokenizerConfig(split_case_joins=False))(["CuéllarNºCol DRAlberto"])
    assert table.tokens.tolist() == ["CuéllarNºCol", "DRAlberto"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Nombre: Ana\nApellidos: López", ["Nombre: Ana", "Apellidos: López"]),
        ("Sexo: H\n\nEdad: 63", ["Sexo: H", "Edad: 63"]),
        ("Lo atiende el Dr. García en consulta.", ["Lo atiende el Dr. García en consulta."]),
        ("Vive en la Avda. Castilla 5.", ["Vive en la Avda. Castilla 5."]),
        ("Trabajó en EE.UU. durante años.", ["Trabajó en EE.UU. durante años."]),
        ("Remitido por J. Pérez para estudio.", ["Remitido por J. Pérez para estudio."]),
        ("La exploración es normal. El paciente mejora.", ["La exploración es normal.", "El paciente mejora."]),
        ("¿Dolor? Sí. ¿Fiebre? Leve.", ["¿Dolor?", "Sí.", "¿Fiebre?", "Leve."]),
        ("Vive en Castellana 87. 9F de Madrid.", ["Vive en Castellana 87. 9F de Madrid."]),
        ("Fin de frase.Sin espacio.", ["Fin de frase.", "Sin espacio."]),
    ],
)
def test_sentence_splitting(text: str, expected: list[str]):
    assert sentences(text) == expected


def test_newline_always_ends_a_sentence_even_after_abbreviation():
    assert sentences("Atendido por Dr.\nGarcía") == ["Atendido por Dr.", "García"]


def test_no_sentence_is_longer_than_the_cap():
    """A line with no full stop is cut every MAX_SENTENCE_TOKENS tokens (one sequence of
    2 M tokens for the CRF otherwise); shorter sentences stay as they were."""
    words = " ".join(["palabra"] * (2 * MAX_SENTENCE_TOKENS + 5))
    table = tokenize([f"Primera frase. Luego {words}\nOtra línea."])
    lengths = (table.sent_bounds[:, 1] - table.sent_bounds[:, 0]).tolist()
    assert lengths == [3, MAX_SENTENCE_TOKENS, MAX_SENTENCE_TOKENS, 6, 3]
    assert table.sent_bounds[1:, 0].tolist() == table.sent_bounds[:-1, 1].tolist()
    assert capped_sentence_ends(np.array([2, 9, 10]), 3).tolist() == [2, 5, 8, 9, 10]
    assert capped_sentence_ends(np.array([5]), 6).tolist() == [5]
    assert capped_sentence_ends(np.array([6]), 3).tolist() == [2, 5, 6]


def test_lines_and_offsets_of_a_multi_line_document():
    text = "\ufeffNombre: Ana.\r\nNHC: 368503.\n"
    table = TOKENIZER([text])
    assert table.tokens.tolist() == ["Nombre", ":", "Ana", ".", "NHC", ":", "368503", "."]
    assert table.start.tolist() == [1, 7, 9, 12, 15, 18, 20, 26]
    assert table.line.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert table.sent_bounds.tolist() == [[0, 4], [4, 8]]


def test_empty_inputs():
    table = tokenize([])
    assert len(table) == 0 and table.n_sentences == 0 and table.doc_bounds.shape == (0, 2)
    table = tokenize(["", "  \n\ufeff", "Ana"])
    assert table.doc_bounds.tolist() == [[0, 0], [0, 0], [0, 1]]
    assert table.sent_bounds.tolist() == [[0, 1]]
    assert table.doc.tolist() == [2]
    assert count_sentences("") == 0


def test_concat_keeps_offsets_and_document_indices():
    first = tokenize(["Nombre: Ana.\nEdad: 3.", "Sexo: H."])
    second = tokenize(["NHC: 368503."])
    joined = TokenTable.concat([first, second])
    assert joined.texts == ["Nombre: Ana.\nEdad: 3.", "Sexo: H.", "NHC: 368503."]
    assert joined.doc.tolist() == [0] * 8 + [1] * 4 + [2] * 4
    assert joined.doc_bounds.tolist() == [[0, 8], [8, 12], [12, 16]]
    assert joined.sent_bounds.tolist() == [[0, 4], [4, 8], [8, 12], [12, 16]]
    assert joined.start.tolist()[12:] == [0, 3, 5, 11]
    assert joined.sentence_ids().tolist() == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
    assert TokenTable.concat([second]) is second
