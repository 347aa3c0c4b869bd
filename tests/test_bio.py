"""BIO encoding, repair and decoding, and the alignment counts of gold entities."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_crf.text import bio
from deid_crf.text.document import Entity
from deid_crf.text.table import TokenTable
from deid_crf.text.tokenizer import tokenize


def labels(*values: str) -> np.ndarray:
    return np.array(values, dtype=object)


def span(text: str, value: str, label: str, occurrence: int = 0) -> Entity:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(value, start + 1)
    return Entity(start, start + len(value), label)


def one_line_table(tokens: list[str], sentence_lengths: list[int]) -> TokenTable:
    """A hand-made table: tokens joined by single spaces, cut into sentences of the
    given lengths."""
    text = " ".join(tokens)
    starts = np.cumsum([0] + [len(t) + 1 for t in tokens[:-1]])
    ends = starts + np.array([len(t) for t in tokens])
    cuts = np.cumsum([0] + sentence_lengths)
    token_array = np.empty(len(tokens), dtype=object)
    token_array[:] = tokens
    return TokenTable(
        texts=[text],
        tokens=token_array,
        start=starts.astype(np.int64),
        end=ends.astype(np.int64),
        doc=np.zeros(len(tokens), np.int32),
        line=np.zeros(len(tokens), np.int32),
        sent_bounds=np.stack([cuts[:-1], cuts[1:]], axis=1).astype(np.int64),
        doc_bounds=np.array([[0, len(tokens)]], dtype=np.int64),
    )


TEXT = "Nombre: Ana López.\nNHC: 368503.\nVive en c/ Peñalara 5, Madrid. Lo trae su hija Ana."


def test_encode_decode_round_trip():
    entities = sorted(
        [
            span(TEXT, "Ana", "NOMBRE_SUJETO_ASISTENCIA"),
            span(TEXT, "López", "NOMBRE_SUJETO_ASISTENCIA"),  # adjacent, same type: stays two entities
            span(TEXT, "368503", "ID_SUJETO_ASISTENCIA"),
            span(TEXT, "c/ Peñalara 5", "CALLE"),
            span(TEXT, "Madrid", "TERRITORIO"),
            span(TEXT, "Ana", "NOMBRE_SUJETO_ASISTENCIA", occurrence=1),
        ]
    )
    table = tokenize([TEXT])
    encoded = bio.encode(table, [entities])
    assert dict(zip(table.tokens.tolist()[:4], encoded.tolist()[:4], strict=True)) == {
        "Nombre": "O",
        ":": "O",
        "Ana": "B-NOMBRE_SUJETO_ASISTENCIA",
        "López": "B-NOMBRE_SUJETO_ASISTENCIA",
    }
    assert encoded[table.tokens.tolist().index("Peñalara")] == "I-CALLE"
    assert bio.decode(table, encoded) == [entities]


def test_encode_decode_several_documents():
    texts = ["Sexo: H.", "", "NHC: 368503.\nEdad: 63 años."]
    gold = [[Entity(6, 7, "SEXO")], [], [Entity(5, 11, "ID"), Entity(19, 21, "EDAD")]]
    table = tokenize(texts)
    assert bio.decode(table, bio.encode(table, gold)) == gold


def test_repair_turns_orphan_inside_into_begin():
    table = one_line_table(["a", "b", "c", "d"], [4])
    assert bio.repair(labels("O", "I-X", "I-X", "O"), table).tolist() == ["O", "B-X", "I-X", "O"]
    assert bio.repair(labels("B-X", "I-Y", "I-Y", "I-X"), table).tolist() == ["B-X", "B-Y", "I-Y", "B-X"]
    assert bio.repair(labels("I-X", "B-X", "I-X", "O"), table).tolist() == ["B-X", "B-X", "I-X", "O"]


def test_decode_applies_repair():
    table = one_line_table(["a", "bb", "c", "dd"], [4])
    assert bio.decode(table, labels("O", "I-X", "I-X", "O")) == [[Entity(2, 6, "X")]]
    assert bio.decode(table, labels("B-X", "I-Y", "I-Y", "O")) == [[Entity(0, 1, "X"), Entity(2, 6, "Y")]]
    assert bio.decode(table, labels("B-X", "B-X", "O", "I-X")) == [
        [Entity(0, 1, "X"), Entity(2, 4, "X"), Entity(7, 9, "X")]
    ]


def test_entities_never_cross_a_sentence_boundary():
    table = one_line_table(["a", "bb", "c", "dd"], [2, 2])
    # Labels that would continue across the boundary are cut there.
    assert bio.repair(labels("B-X", "I-X", "I-X", "I-X"), table).tolist() == ["B-X", "I-X", "B-X", "I-X"]
    assert bio.decode(table, labels("B-X", "I-X", "I-X", "I-X")) == [[Entity(0, 4, "X"), Entity(5, 9, "X")]]
    # A gold entity spanning two sentences is encoded as two, cut at the boundary.
    text = "Vive en Madrid\nCentro hoy."
    table = tokenize([text])
    assert table.n_sentences == 2
    encoded = bio.encode(table, [[span(text, "Madrid\nCentro", "TERRITORIO")]])
    assert encoded.tolist() == ["O", "O", "B-TERRITORIO", "B-TERRITORIO", "O", "O"]
    assert bio.decode(table, encoded) == [[span(text, "Madrid", "TERRITORIO"), span(text, "Centro", "TERRITORIO")]]


def test_entities_never_hold_a_layout_separator():
    text = "HOSPITAL VIRGEN MACARENA — SEVILLA\nCAP Sant Roc · C/ Mayor, 3\n| Juan | hijo |"
    table = tokenize([text])
    tags = {"HOSPITAL": "B-H", "VIRGEN": "I-H", "MACARENA": "I-H", "SEVILLA": "I-H", "CAP": "B-C", "Juan": "B-N"}
    tags |= {"Sant": "I-C", "Roc": "I-C", "C": "I-C", "/": "I-C", "Mayor": "I-C", ",": "I-C", "3": "I-C"}
    tags |= {"—": "I-H", "·": "I-C", "|": "I-N", "hijo": "I-N"}
    (entities,) = bio.decode(table, labels(*(tags[t] for t in table.tokens.tolist())))
    assert [(text[e.start : e.end], e.type) for e in entities] == [
        ("HOSPITAL VIRGEN MACARENA", "H"),
        ("SEVILLA", "H"),
        ("CAP Sant Roc", "C"),
        ("C/ Mayor, 3", "C"),
        ("Juan", "N"),
        ("hijo", "N"),
    ]


def test_decode_checks_label_count():
    table = one_line_table(["a", "b"], [2])
    with pytest.raises(ValueError, match="1 labels for 2 tokens"):
        bio.decode(table, labels("O"))


def test_empty_inputs():
    empty = tokenize([])
    assert bio.decode(empty, labels()) == []
    assert bio.encode(empty, []).tolist() == []
    blank = tokenize(["", " \n "])
    assert bio.decode(blank, labels()) == [[], []]
    assert bio.repair(labels(), blank).tolist() == []
    assert bio.alignment(blank, [[], []]) == bio.Alignment(0, 0, 0, 0)


LABELS = st.sampled_from(["O", "O", "O", "B-X", "I-X", "B-Y", "I-Y"])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Ana", "López", ".", ":", "368503", "Dr", "\n", " ", "  ", "El", "\ufeff", "ñ"]), max_size=25
    ).map("".join),
    st.data(),
)
def test_decoded_entities_are_valid_and_reencode_to_repaired_labels(text: str, data: st.DataObject):
    table = tokenize([text])
    predicted = labels(*data.draw(st.lists(LABELS, min_size=len(table), max_size=len(table))))
    (entities,) = bio.decode(table, predicted)
    sentence_of = dict(zip(table.start.tolist(), table.sentence_ids().tolist(), strict=True))
    sentence_of_end = dict(zip(table.end.tolist(), table.sentence_ids().tolist(), strict=True))
    previous_end = 0
    for e in entities:
        assert previous_end <= e.start < e.end <= len(text)
        assert sentence_of[e.start] == sentence_of_end[e.end]  # token-aligned, one sentence
        previous_end = e.end
    assert bio.encode(table, [entities]).tolist() == bio.repair(predicted, table).tolist()


def test_alignment_counts():
    text = "Paciente Juan Pérezz vive en Madrid\nCentro. Su NHC es 368503."
    table = tokenize([text])
    entities = [
        Entity(9, 19, "NOMBRE"),  # "Juan Pérez": ends inside the token "Pérezz"
        span(text, "Madrid\nCentro", "TERRITORIO"),  # crosses the newline sentence break
        span(text, "368503", "ID"),  # exact
        Entity(text.index(" es ") + 3, text.index(" es ") + 4, "NADA"),  # only a space: no token
        span(text, "uan", "NOMBRE"),  # both boundaries inside one token
    ]
    result = bio.alignment(table, [entities])
    assert (result.total, result.inside_token, result.crossing_sentence, result.no_token) == (5, 2, 1, 1)
    assert [(d, e.type, problem) for d, e, problem in result.offenders] == [
        (0, "NOMBRE", "inside_token"),
        (0, "TERRITORIO", "crossing_sentence"),
        (0, "NADA", "no_token"),
        (0, "NOMBRE", "inside_token"),
    ]


def test_alignment_uses_each_documents_own_tokens():
    texts = ["Sexo: H.", "Vive en Madrid\nCentro."]
    table = tokenize(texts)
    gold = [[Entity(6, 7, "SEXO")], [span(texts[1], "Madrid\nCentro", "TERRITORIO")]]
    result = bio.alignment(table, gold)
    assert (result.total, result.inside_token, result.crossing_sentence, result.no_token) == (2, 0, 1, 0)
    assert [(d, problem) for d, _, problem in result.offenders] == [(1, "crossing_sentence")]


CLASSES = ["O", "B-NAME", "I-NAME", "B-DATE", "I-DATE", "I-AGE"]  # I-AGE: no B-AGE seen


def is_valid_bio(sequence: list[str]) -> bool:
    previous = "O"
    for label in sequence:
        if label.startswith("I-") and previous[2:] != label[2:]:
            return False
        previous = label
    return True


def brute_force_best(scores: np.ndarray) -> float:
    import itertools

    best = -np.inf
    for combo in itertools.product(range(len(CLASSES)), repeat=len(scores)):
        if is_valid_bio([CLASSES[k] for k in combo]):
            best = max(best, float(sum(scores[i, k] for i, k in enumerate(combo))))
    return best


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
    st.integers(0, 2**32 - 1),
)
def test_best_valid_labels_is_the_best_valid_sequence_per_sentence(sentence_lengths, seed):
    n = sum(sentence_lengths)
    table = one_line_table([f"t{i}" for i in range(n)], sentence_lengths)
    scores = np.random.default_rng(seed).normal(size=(n, len(CLASSES)))
    result = bio.best_valid_labels(scores, CLASSES, table).tolist()
    index = {c: i for i, c in enumerate(CLASSES)}
    start = 0
    for length in sentence_lengths:
        chosen = result[start : start + length]
        assert is_valid_bio(chosen)  # each sentence on its own: none opens with I-
        total = sum(scores[start + i, index[c]] for i, c in enumerate(chosen))
        assert total == pytest.approx(brute_force_best(scores[start : start + length]))
        start += length


def test_best_valid_labels_joins_what_repair_splits():
    table = one_line_table(["Ernesto", "Rivera", "Bueno", "ingresa"], [4])
    scores = np.full((4, len(CLASSES)), -1.0)
    scores[0, CLASSES.index("B-NAME")] = 2.0
    scores[1, CLASSES.index("O")] = 0.6  # a weak O between two confident name tokens
    scores[1, CLASSES.index("I-NAME")] = 0.5
    scores[2, CLASSES.index("I-NAME")] = 2.0
    scores[3, CLASSES.index("O")] = 2.0
    argmax = np.array(CLASSES, dtype=object)[scores.argmax(axis=1)]
    assert len(bio.decode(table, argmax)[0]) == 2  # repair: "Ernesto" and "Bueno"
    best = bio.best_valid_labels(scores, CLASSES, table)
    assert best.tolist() == ["B-NAME", "I-NAME", "I-NAME", "O"]
    assert bio.decode(table, best)[0] == [Entity(0, len("Ernesto Rivera Bueno"), "NAME")]


def test_best_valid_labels_checks_shapes_and_handles_empty_input():
    table = one_line_table(["a"], [1])
    with pytest.raises(ValueError, match="score columns"):
        bio.best_valid_labels(np.zeros((1, 2)), CLASSES, table)
    empty = TokenTable(
        [""],
        np.zeros(0, dtype=object),
        *(np.zeros(0, dtype=np.int64) for _ in range(2)),
        np.zeros(0, dtype=np.int32),
        np.zeros(0, dtype=np.int32),
        np.zeros((0, 2), dtype=np.int64),
        np.array([[0, 0]], dtype=np.int64),
    )
    assert bio.best_valid_labels(np.zeros((0, len(CLASSES))), CLASSES, empty).tolist() == []
