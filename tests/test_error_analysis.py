"""Error analysis: overlap pairing, the type confusion matrix, false negatives, shapes."""

from __future__ import annotations

import numpy as np
import pytest

from deid_crf.experiments.error_analysis import (
    BOUNDARY,
    MISSED,
    SPURIOUS,
    WRONG_TYPE,
    confusion_matrix,
    false_negative_causes,
    false_negative_shapes,
    false_negatives,
    match_by_overlap,
    span_shape,
)
from deid_crf.scoring.meddocan import score_documents
from deid_crf.text.document import Document, Entity

NAME, DATE, HOSP = "NOMBRE_SUJETO_ASISTENCIA", "FECHAS", "HOSPITAL"


def test_match_by_overlap_pairs_one_to_one_by_largest_total_overlap():
    gold = [Entity(0, 10, NAME), Entity(12, 20, DATE)]
    # p1 overlaps both gold entities; the best pairing gives it to the first (6 chars
    # rather than 2) and p2 to the second.
    p1, p2, p3 = Entity(4, 14, NAME), Entity(14, 20, DATE), Entity(30, 35, HOSP)
    pairs = match_by_overlap(gold, [p3, p2, p1])
    assert pairs == [(gold[0], p1), (gold[1], p2), (None, p3)]


def test_match_by_overlap_leaves_second_fragment_and_non_overlapping_unpaired():
    gold = [Entity(0, 10, NAME), Entity(40, 50, DATE)]
    left, right = Entity(0, 4, NAME), Entity(5, 10, NAME)
    pairs = match_by_overlap(gold, [left, right])
    assert pairs == [(gold[0], right), (gold[1], None), (None, left)]
    assert match_by_overlap([], []) == []
    assert match_by_overlap([], [left]) == [(None, left)]
    assert match_by_overlap(gold, []) == [(gold[0], None), (gold[1], None)]


def test_adjacent_spans_do_not_overlap():
    assert match_by_overlap([Entity(0, 5, NAME)], [Entity(5, 9, NAME)]) == [
        (Entity(0, 5, NAME), None),
        (None, Entity(5, 9, NAME)),
    ]


def test_confusion_matrix_counts_types_missed_and_spurious():
    text = "x" * 100
    gold = [
        Document("a", text, [Entity(0, 5, NAME), Entity(10, 20, DATE), Entity(30, 40, HOSP)]),
        Document("b", text, [Entity(0, 8, HOSP)]),
        Document("c", text, [Entity(0, 3, DATE)]),  # no predicted document: missed
    ]
    predicted = [
        Document("a", text, [Entity(0, 5, NAME), Entity(12, 18, DATE), Entity(50, 60, NAME)]),
        Document("b", text, [Entity(2, 6, NAME)]),
        Document("zz", text, [Entity(0, 3, DATE)]),  # no gold document: ignored
    ]
    matrix = confusion_matrix(gold, predicted)
    assert matrix.types == (DATE, HOSP, NAME)
    assert matrix.rows == [DATE, HOSP, NAME, SPURIOUS]
    assert matrix.columns == [DATE, HOSP, NAME, MISSED]
    expected = {
        (NAME, NAME): 1,
        (DATE, DATE): 1,  # boundaries differ, type right
        (HOSP, MISSED): 1,
        (HOSP, NAME): 1,
        (DATE, MISSED): 1,
        (SPURIOUS, NAME): 1,
    }
    for r in matrix.rows:
        for c in matrix.columns:
            assert matrix.count(r, c) == expected.get((r, c), 0), (r, c)
    # Rows of types sum to gold counts, columns of types to predicted counts (of the
    # documents that have a gold counterpart).
    assert matrix.counts[:-1].sum() == 5
    assert matrix.counts[:, :-1].sum() == 4


def test_confusion_matrix_with_given_types():
    gold = [Document("a", "x" * 20, [Entity(0, 5, NAME)])]
    matrix = confusion_matrix(gold, gold, types=[NAME, DATE])
    assert matrix.rows == [NAME, DATE, SPURIOUS]
    np.testing.assert_array_equal(matrix.counts, [[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="not in `types`"):
        confusion_matrix(gold, gold, types=[DATE])


def test_false_negatives_agree_with_the_scorer():
    text = "Ana Pérez ingresó el 03/03/1946 en el Hospital Central."
    gold = [Document("a", text, [Entity(0, 9, NAME), Entity(21, 31, DATE), Entity(38, 54, HOSP)])]
    predicted = [Document("a", text, [Entity(0, 3, NAME), Entity(21, 31, DATE), Entity(38, 54, NAME)])]
    missed = false_negatives(gold, predicted)
    assert [e for _, e in missed] == [Entity(0, 9, NAME), Entity(38, 54, HOSP)]
    assert len(missed) == score_documents(gold, predicted, n_sentences=1).ner.fn
    shapes = false_negative_shapes(gold, predicted)
    assert shapes == {HOSP: {"Xxxxxxxx Xxxxxxx": 1}, NAME: {"Xxx Xxxxx": 1}}


def test_false_negative_causes():
    text = "x" * 100
    gold = [
        Document("a", text, [Entity(0, 5, NAME), Entity(10, 20, DATE), Entity(30, 40, HOSP), Entity(50, 55, NAME)]),
        Document("b", text, [Entity(0, 8, HOSP)]),
    ]
    predicted = [
        Document("a", text, [Entity(0, 5, NAME), Entity(12, 18, DATE), Entity(30, 40, NAME)]),
        Document("b", text, []),
    ]
    causes = false_negative_causes(gold, predicted)
    assert causes == {HOSP: {WRONG_TYPE: 1, MISSED: 1}, DATE: {BOUNDARY: 1}, NAME: {MISSED: 1}}
    assert sum(c.total() for c in causes.values()) == len(false_negatives(gold, predicted))
    assert list(causes) == [HOSP, DATE, NAME]


def test_false_negative_shapes_sorted_by_count_and_capped():
    text = "Ana Pérez, Luis Gómez; 03/03/1946"
    gold = [Document("a", text, [Entity(0, 9, NAME), Entity(11, 21, NAME), Entity(23, 33, DATE)])]
    shapes = false_negative_shapes(gold, [Document("a", text, [])], max_run=2)
    assert list(shapes) == [NAME, DATE]
    assert shapes[NAME] == {"Xxx Xxx": 2}
    assert shapes[DATE] == {"dd/dd/dd": 1}


def test_span_shape():
    assert span_shape("Cuéllar Ñúñez") == "Xxxxxxx Xxxxx"
    assert span_shape("03/03/1946") == "dd/dd/dddd"
    assert span_shape("C/ Mayor,\n  12") == "X/ Xxxxx, dd"
    assert span_shape("Zebulonio Quirtanilla", max_run=4) == "Xxxxx Xxxxx"
    assert span_shape("12345678-Z", max_run=3) == "ddd-X"
    assert span_shape("") == ""
    with pytest.raises(ValueError):
        span_shape("Ana", max_run=0)
