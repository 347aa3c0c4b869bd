"""Feature extractors (``features/``) and their assembly into CRFsuite attributes
(``deid_crf.featurization.featurizer``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from deid_crf.features import lexical
from deid_crf.features.encoding import factorize
from deid_crf.features.registry import GROUPS, KINDS, get_group
from deid_crf.features.window import AFTER_SENTENCE, BEFORE_SENTENCE, shifted_index
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_crf.config import FeatureConfig, TokenizerConfig
from deid_crf.featurization.featurizer import Featurizer
from deid_crf.featurization.hashing import hash_strings, murmurhash3_32
from deid_crf.text.tokenizer import tokenize

REPO = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------- lexical


def test_lower_and_affixes():
    assert lexical.lower(["Cuéllar", "NHC"]) == {"w": ["cuéllar", "nhc"]}
    columns = lexical.affixes(["Cuéllar", "Ab"], lengths=(1, 3))
    assert columns == {"p1": ["c", "a"], "s1": ["r", "b"], "p3": ["cué", "ab"], "s3": ["lar", "ab"]}


@pytest.mark.parametrize(
    ("token", "long", "short"),
    [
        ("Cuéllar", "Xxxxxxx", "Xx"),
        ("NHC", "XXX", "X"),
        ("Ñandú", "Xxxxx", "Xx"),
        ("03/03/1946", "dd/dd/dddd", "d/d/d"),
        ("5-7", "d-d", "d-d"),
        ("x@y.com", "x@x.xxx", "x@x.x"),
        ("ΑΒγ", "XXx", "Xx"),  # letters outside the Spanish table keep their case class
        ("Electrocardiograma", "Xxxxxxxxxxxx", "Xx"),  # long shape capped at 12 characters
    ],
)
def test_shapes(token: str, long: str, short: str):
    assert lexical.word_shape(token)[:12] == long
    assert lexical.shapes([token]) == {"shape": [long], "sshape": [short]}


@pytest.mark.parametrize(
    ("token", "flag", "length"),
    [
        ("NHC", "UA", "3"),
        ("Cuéllar", "TA", "5-7"),
        ("dcha", "LA", "4"),
        ("368503", "DA", "5-7"),
        ("2º", "LdA", "2"),  # "º" is a lower-case letter
        ("abc1", "LdA", "4"),
        (".", "P", "1"),
        ("03/03/1946", "d", "8-11"),
        ("electrocardiograma", "LA", "12+"),
    ],
)
def test_flags(token: str, flag: str, length: str):
    assert lexical.flags([token]) == {"f": [flag], "len": [length]}


@pytest.mark.parametrize(
    ("token", "pattern"),
    [
        ("ana.lopez@hospital.es", "email"),
        ("https://www.hospital.es/cita", "url"),
        ("www.hospital.es", "url"),
        ("03/03/1946", "date"),
        ("3-3-46", "date"),
        ("1946", "year"),
        ("912345678", "phone"),
        ("+34612345678", "phone"),
        ("28016", "postcode"),
        ("12345678Z", "id_long"),
        ("1-2-3-4", "digits_grouped"),
        ("10:30", "time"),
        ("1.16", "decimal"),
        ("63", "number"),
        ("99999", "number"),  # not a Spanish postcode
        ("º", "ordinal"),
        ("García", "-"),
        (":", "-"),
    ],
)
def test_patterns(token: str, pattern: str):
    assert lexical.patterns([token]) == {"pat": [pattern]}


def test_factorize_codes_in_order_of_appearance():
    codes, values = factorize(["b", "a", "b", "c"])
    assert codes.tolist() == [0, 1, 0, 2] and codes.dtype == np.int32
    assert values == ["b", "a", "c"]
    codes, values = factorize([])
    assert codes.tolist() == [] and values == []


# --------------------------------------------------------------------------- context


def context_columns(texts: list[str], groups: tuple[str, ...]) -> tuple[list[str], dict[str, list[str]]]:
    """Tokens of ``texts`` and the per-token values of the columns of ``groups``."""
    table = tokenize(texts)
    cols = Featurizer(FeatureConfig(groups=groups, window_columns=())).columns(table)
    values = {name: [cols.vocab[j][c] for c in cols.codes[:, j].tolist()] for j, name in enumerate(cols.names)}
    return table.tokens.tolist(), values


HEADER = "Nombre: Ernesto.\nMédico: Ana López NºCol: 28 28 70973.\nEdad 63 años"


def test_field_label():
    tokens, columns = context_columns([HEADER], ("field_label",))
    label = dict(enumerate(columns["label"]))
    assert tokens[:4] == ["Nombre", ":", "Ernesto", "."]
    assert [label[i] for i in range(4)] == ["-", "-", "nombre", "nombre"]
    assert label[tokens.index("Médico")] == "-"  # a new line does not inherit the label above
    assert label[tokens.index("Ana")] == "médico"
    # The tokenizer splits "NºCol" at the case join, so the word before ':' is "Col".
    assert label[tokens.index("28")] == "col"
    assert label[tokens.index("70973")] == "col"
    assert [label[i] for i in range(tokens.index("Edad"), len(tokens))] == ["-", "-", "-"]


def test_field_label_does_not_cross_documents():
    tokens, columns = context_columns(["Nombre: Ana", "Pedro viene"], ("field_label",))
    assert tokens == ["Nombre", ":", "Ana", "Pedro", "viene"]
    assert columns["label"] == ["-", "-", "nombre", "-", "-"]


def test_field_label_on_unsplit_tokens():
    table = tokenize(["NºCol: 28"], TokenizerConfig(split_case_joins=False))
    assert table.tokens.tolist() == ["NºCol", ":", "28"]
    cols = Featurizer(FeatureConfig(groups=("field_label",), window_columns=())).columns(table)
    assert [cols.vocab[0][c] for c in cols.codes[:, 0].tolist()] == ["-", "-", "nºcol"]


def test_line_position():
    tokens, columns = context_columns(["a b c d e f\ng h", "i"], ("line_position",))
    assert tokens == list("abcdefghi")
    assert columns["linepos"] == ["0", "1", "2", "3", "4+", "4+", "0", "1", "0"]


def test_context_groups_on_empty_input():
    tokens, columns = context_columns(["", " \n"], ("field_label", "line_position"))
    assert tokens == []
    assert all(values == [] for values in columns.values())


# --------------------------------------------------------------------------- windows


def test_shifted_index_stops_at_sentence_boundaries():
    sentence_ids = np.array([0, 0, 0, 1, 1, 2])
    assert shifted_index(sentence_ids, 1).tolist() == [1, 2, AFTER_SENTENCE, 4, AFTER_SENTENCE, AFTER_SENTENCE]
    assert shifted_index(sentence_ids, -1).tolist() == [BEFORE_SENTENCE, 0, 1, BEFORE_SENTENCE, 3, BEFORE_SENTENCE]
    assert shifted_index(sentence_ids, 2).tolist() == [2] + [AFTER_SENTENCE] * 5
    assert shifted_index(sentence_ids, -2).tolist() == [BEFORE_SENTENCE] * 2 + [0] + [BEFORE_SENTENCE] * 3
    assert shifted_index(np.zeros(0, np.int64), 1).tolist() == []


# --------------------------------------------------------------------------- featurizer


TEXT = "Nombre: Ana.\nLa exploración es normal. El paciente mejora."


def test_crf_items_structure_with_default_config():
    table = tokenize([TEXT])
    config = FeatureConfig()
    items = Featurizer(config).crf_items(table)
    assert len(items) == table.n_sentences == 3
    assert [len(s) for s in items] == [b - a for a, b in table.sent_bounds.tolist()]
    for sentence in items:
        for attributes in sentence:
            assert all(isinstance(a, str) for a in attributes)
            assert sum(a.startswith("w=") for a in attributes) == 1
            for offset in range(1, config.window + 1):
                assert any(a.startswith(f"-{offset}:") for a in attributes)
                assert any(a.startswith(f"+{offset}:") for a in attributes)
        assert "-1:w=<s>" in sentence[0]
        assert "+1:w=</s>" in sentence[-1]
    # Only the configured window columns are repeated at non-zero offsets.
    assert {a.split("=")[0] for a in items[0][2] if a.startswith("+1:")} == {f"+1:{c}" for c in config.window_columns}


def test_crf_items_window_attributes():
    config = FeatureConfig(groups=("lower", "shape", "field_label"), window=2, window_columns=("w", "sshape"))
    items = Featurizer(config).crf_items(tokenize([TEXT]))
    first = items[0]
    assert first[0] == [
        "bias",
        "w=nombre",
        "shape=Xxxxxx",
        "sshape=Xx",
        "label=-",
        "-1:w=<s>",
        "-1:sshape=<s>",
        "+1:w=:",
        "+1:sshape=:",
        "-2:w=<s>",
        "-2:sshape=<s>",
        "+2:w=ana",
        "+2:sshape=Xx",
    ]
    assert {"-1:w=:", "-2:w=nombre", "label=nombre", "+1:w=.", "+2:w=</s>"} <= set(first[2])
    # "El" opens the third sentence: its left context is the sentence start, not the stop.
    el = items[2][0]
    assert "w=el" in el and "-1:w=<s>" in el and "-1:w=." not in el
    assert "+1:w=paciente" in el and "-2:w=<s>" in el


def test_crf_items_window_zero_and_several_documents():
    featurizer = Featurizer(FeatureConfig(window=0))
    items = featurizer.crf_items(tokenize(["Sexo: H.", "", "NHC: 1."]))
    assert len(items) == 2
    assert not any(a[:3] in ("-1:", "+1:") for sentence in items for token in sentence for a in token)
    assert featurizer.crf_items(tokenize([])) == []
    assert featurizer.crf_items(tokenize(["", "  "])) == []


def test_crf_items_are_the_same_for_a_batch_and_its_documents():
    texts = ["Nombre: Ana.\nNHC: 368503.", "Sexo: H. Vive en Madrid."]
    featurizer = Featurizer()
    batch = featurizer.crf_items(tokenize(texts))
    assert batch == [s for t in texts for s in featurizer.crf_items(tokenize([t]))]


def test_unknown_group_or_window_column_is_a_value_error():
    with pytest.raises(ValueError, match="unknown feature group 'nope'"):
        Featurizer(FeatureConfig(groups=("lower", "nope")))
    with pytest.raises(ValueError, match="unknown feature group"):
        get_group("nope")
    featurizer = Featurizer(FeatureConfig(groups=("lower",), window_columns=("w", "sshape")))
    with pytest.raises(ValueError, match="sshape"):
        featurizer.crf_items(tokenize(["Nombre: Ana."]))


def test_registry_groups_are_declared():
    default_groups = FeatureConfig().groups
    assert set(default_groups) <= set(GROUPS)
    assert all(g.kind in KINDS for g in GROUPS.values())


def test_features_import_nothing_of_the_application_but_the_domain_tables():
    """Feature extractors are pure: loading them brings in no model, resource or I/O code
    of deid_crf, only the Spanish domain tables (and the package root's light API)."""
    code = (
        "import sys, deid_crf.features.registry, deid_crf.features.window, deid_crf.features.encoding\n"
        "print(sorted(m for m in sys.modules if m.startswith('deid_crf.') and not m.startswith('deid_crf.features')))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    loaded = set(eval(result.stdout))
    assert loaded <= {"deid_crf.gazetteers", "deid_crf.gazetteers.spanish", "deid_crf.text", "deid_crf.text.document"}
    assert "deid_crf.gazetteers.spanish" in loaded


def test_document_label_carries_header_labels_to_running_text():
    from deid_crf.features.context import document_label

    table = tokenize(["Apellidos: Rivera Bueno.\nMédico: Ana Gil.\nEl Sr. rivera ve a Ana y a Gómez.", "Ve a Ana."])
    codes, values = document_label(table.tokens, table.doc, table.line)["doclabel"]
    got = [(t, values[c]) for t, c in zip(table.tokens.tolist(), codes.tolist(), strict=True)]
    doc0 = got[: table.doc_bounds[0][1]]
    assert ("rivera", "apellidos") in doc0  # lower-cased match
    assert doc0.count(("Ana", "médico")) == 2
    assert ("Gómez", "-") in doc0 and ("Sr", "-") in doc0 and (".", "-") in doc0
    assert got[table.doc_bounds[1][0] :] == [("Ve", "-"), ("a", "-"), ("Ana", "-"), (".", "-")]  # other document
    empty = tokenize([""])
    assert document_label(empty.tokens, empty.doc, empty.line)["doclabel"][0].tolist() == []


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=60))
def test_hashing_is_scikit_learns_murmurhash3(strings):
    """The numpy MurmurHash3 gives the columns scikit-learn's did: saved SVM and POS
    weights keep their meaning."""
    from sklearn.utils import murmurhash3_32 as reference

    strings += ["", "a", "ab", "abc", "abcd", "w=año", "-1:w=</s>", "\U0001f600", "a\0"]
    # Short strings are hashed zero-padded together, long ones by byte length.
    strings += ["x" * 63, "x" * 64, "x" * 65, "é" * 32, "é" * 33, "w=" + "ñ" * 200]
    expected = [reference(s, positive=True) for s in strings]
    assert murmurhash3_32(strings).tolist() == expected
    assert hash_strings(strings, 2**20).tolist() == [h % 2**20 for h in expected]
    assert hash_strings(strings, 2**20).tolist() == [h % 2**20 for h in expected]  # from the cache
