"""Tests of the MEDDOCAN scorer. Every expected number is worked out by hand from the
rules of the official evaluation script (see the comments), never by running it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from deid_crf.scoring.meddocan import MeddocanScores, Scores, format_report, main, merge_spans, score_documents
from deid_crf.text.document import Document, Entity

REPO = Path(__file__).resolve().parents[1]
# Filler whose every character is alphanumeric, so no two spans ever merge.
FILLER = "a" * 40


def doc(doc_id: str, text: str, *spans: tuple[int, int, str]) -> Document:
    return Document(doc_id, text, [Entity(s, e, t) for s, e, t in spans])


def score(gold: list[Document], system: list[Document], n_sentences=1) -> MeddocanScores:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # these cases must not warn
        return score_documents(gold, system, n_sentences)


def counts(s: Scores) -> tuple[int, int, int]:
    return s.tp, s.fp, s.fn


# --------------------------------------------------------------------------- Scores


def test_scores_zero_division_is_zero():
    s = Scores()
    assert (s.p, s.r, s.f1) == (0.0, 0.0, 0.0)
    s = Scores(tp=0, fp=3, fn=2)
    assert (s.p, s.r, s.f1) == (0.0, 0.0, 0.0)


def test_scores_values_and_sum():
    s = Scores(tp=3, fp=1, fn=2)  # P = 3/4, R = 3/5, F1 = 2*(0.45/1.35) = 2/3
    assert s.p == pytest.approx(0.75)
    assert s.r == pytest.approx(0.6)
    assert s.f1 == pytest.approx(2 / 3)
    assert s.support == 5
    assert Scores(1, 2, 3) + Scores(10, 20, 30) == Scores(11, 22, 33)


# --------------------------------------------------------------------------- subtask 1


def test_ner_tp_fp_fn_and_wrong_type():
    gold = [doc("d", FILLER, (0, 4, "NOMBRE"), (10, 16, "CALLE"), (20, 25, "HOSPITAL"))]
    system = [doc("d", FILLER, (0, 4, "NOMBRE"), (10, 16, "PAIS"), (30, 35, "FECHA"))]
    r = score(gold, system)
    # NER: (NOMBRE,0,4) TP; (PAIS,10,16) FP + (CALLE,10,16) FN (wrong type);
    # (FECHA,30,35) FP; (HOSPITAL,20,25) FN.
    assert counts(r.ner) == (1, 2, 2)
    assert r.ner.p == pytest.approx(1 / 3)
    assert r.ner.r == pytest.approx(1 / 3)
    assert r.ner.f1 == pytest.approx(1 / 3)


def test_strict_ignores_types():
    gold = [doc("d", FILLER, (0, 4, "NOMBRE"), (10, 16, "CALLE"), (20, 25, "HOSPITAL"))]
    system = [doc("d", FILLER, (0, 4, "NOMBRE"), (10, 16, "PAIS"), (30, 35, "FECHA"))]
    r = score(gold, system)
    # Spans: (0,4) and (10,16) match whatever the type; (30,35) FP; (20,25) FN.
    assert counts(r.strict) == (2, 1, 1)
    assert (r.strict.p, r.strict.r) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert r.strict.f1 == pytest.approx(2 / 3)
    # The filler is all alphanumeric: nothing merges, so merged == strict here.
    assert counts(r.merged) == (2, 1, 1)


def test_duplicate_annotations_count_once():
    gold = [doc("d", FILLER, (0, 4, "NOMBRE"), (0, 4, "NOMBRE"))]
    system = [doc("d", FILLER, (0, 4, "NOMBRE"), (0, 4, "NOMBRE"), (0, 4, "PAIS"))]
    r = score(gold, system)
    assert counts(r.ner) == (1, 1, 0)  # sets: {(NOMBRE,0,4)} vs {(NOMBRE,0,4), (PAIS,0,4)}
    assert counts(r.strict) == (1, 0, 0)  # {(0,4)} vs {(0,4)}


def test_counts_are_summed_over_documents():
    gold = [doc("a", FILLER, (0, 4, "X")), doc("b", FILLER, (0, 4, "X"), (10, 12, "Y"))]
    system = [doc("a", FILLER, (0, 4, "X"), (20, 22, "X")), doc("b", FILLER, (0, 4, "X"))]
    r = score(gold, system)
    # a: TP 1, FP 1; b: TP 1, FN 1 -> micro P = 2/3, R = 2/3.
    assert counts(r.ner) == (2, 1, 1)
    assert r.ner.p == pytest.approx(2 / 3)
    assert r.n_documents == 2


# --------------------------------------------------------------------------- leak


def test_leak_with_per_document_sentence_counts():
    gold = [doc("a", FILLER, (0, 4, "X"), (10, 12, "X")), doc("b", FILLER, (0, 4, "X"))]
    system = [doc("a", FILLER), doc("b", FILLER, (0, 4, "X"))]
    r = score(gold, system, {"a": 3, "b": 5})
    # NER FN = 2 (both of a's), sentences = 3 + 5 = 8 -> leak = 2/8.
    assert r.ner.fn == 2
    assert r.n_sentences == 8
    assert r.leak == pytest.approx(0.25)


def test_leak_with_total_and_zero_sentences():
    gold = [doc("a", FILLER, (0, 4, "X"), (10, 12, "X"), (20, 22, "X"))]
    system = [doc("a", FILLER)]
    assert score(gold, system, 4).leak == pytest.approx(0.75)  # 3 FN / 4 sentences
    assert score(gold, system, 0).leak == 0.0


def test_leak_missing_sentence_count_is_an_error():
    with pytest.raises(ValueError, match=r"no sentence count for gold document\(s\): b"):
        score_documents([doc("a", FILLER), doc("b", FILLER)], [doc("a", FILLER), doc("b", FILLER)], {"a": 1})


def test_sentences_counted_by_splitter_when_not_given(monkeypatch):
    from deid_crf.text import tokenizer as tokenize

    if not hasattr(tokenize, "count_sentences"):
        pytest.skip("deid_crf.text.tokenizer.count_sentences not written yet")
    monkeypatch.setattr(tokenize, "count_sentences", lambda text: 2)
    gold = [doc("a", FILLER, (0, 4, "X")), doc("b", FILLER, (0, 4, "X"))]
    r = score_documents(gold, [doc("a", FILLER), doc("b", FILLER)])
    # 2 FN over 2 + 2 sentences.
    assert r.n_sentences == 4
    assert r.leak == pytest.approx(0.5)


# --------------------------------------------------------------------------- merged


def test_merge_spans_rules():
    text = "Rivera Bueno, Madrid y 28001Sevilla"
    # 0-6 Rivera, 7-12 Bueno, 14-20 Madrid, 23-28 28001, 28-35 Sevilla
    spans = [(28, 35), (0, 6), (7, 12), (14, 20), (23, 28)]
    # " " merges, ", " merges, " y " does not (alnum "y"), "" (28-28) merges.
    assert merge_spans(spans, text) == [(0, 20), (23, 35)]
    assert merge_spans([], text) == []


def test_merge_spans_nested_quirk_of_official_script():
    # The official script merges into (previous start, current end), even when the
    # current span lies inside the previous one: the gap text[10:2] is empty.
    assert merge_spans([(0, 10), (2, 5)], FILLER) == [(0, 5)]


def test_merged_space_gap_two_system_spans_one_gold_span():
    text = "Paciente: Rivera Bueno, edad 40."
    assert text[10:16] == "Rivera" and text[17:22] == "Bueno" and text[10:22] == "Rivera Bueno"
    gold = [doc("d", text, (10, 22, "NOMBRE_SUJETO_ASISTENCIA"))]
    system = [doc("d", text, (10, 16, "NOMBRE_SUJETO_ASISTENCIA"), (17, 22, "NOMBRE_SUJETO_ASISTENCIA"))]
    r = score(gold, system)
    assert counts(r.ner) == (0, 2, 1)
    assert counts(r.strict) == (0, 2, 1)
    # System merged {(10,22)} == gold merged -> one TP; both system pieces and the
    # gold span lie inside it, so no FP and no FN.
    assert counts(r.merged) == (1, 0, 0)
    assert (r.merged.p, r.merged.r, r.merged.f1) == (1.0, 1.0, 1.0)


def test_merged_alphanumeric_gap_prevents_merging():
    text = "Rivera y Bueno"
    assert text[0:6] == "Rivera" and text[9:14] == "Bueno"
    gold = [doc("d", text, (0, 14, "NOMBRE"))]
    system = [doc("d", text, (0, 6, "NOMBRE"), (9, 14, "NOMBRE"))]
    r = score(gold, system)
    # Gap " y " holds "y": system stays {(0,6), (9,14)}; nothing matches.
    assert counts(r.merged) == (0, 2, 1)
    assert (r.merged.p, r.merged.r, r.merged.f1) == (0.0, 0.0, 0.0)


def test_merged_punctuation_gap_merges():
    text = "Madrid, España"
    assert text[0:6] == "Madrid" and text[6:8] == ", " and text[8:14] == "España"
    gold = [doc("d", text, (0, 14, "TERRITORIO"))]
    system = [doc("d", text, (0, 6, "TERRITORIO"), (8, 14, "PAIS"))]
    r = score(gold, system)
    assert counts(r.strict) == (0, 2, 1)
    assert counts(r.merged) == (1, 0, 0)


def test_merged_empty_gap_merges():
    text = "28001Madrid"
    gold = [doc("d", text, (0, 11, "CALLE"))]
    system = [doc("d", text, (0, 5, "CALLE"), (5, 11, "CALLE"))]
    r = score(gold, system)
    assert counts(r.strict) == (0, 2, 1)
    assert counts(r.merged) == (1, 0, 0)


def test_merged_gold_split_system_whole():
    text = "Rivera Bueno"
    gold = [doc("d", text, (0, 6, "NOMBRE"), (7, 12, "NOMBRE"))]
    system = [doc("d", text, (0, 12, "NOMBRE"))]
    r = score(gold, system)
    # Gold merged {(0,12)} == system: TP 1; gold pieces contained -> no FN.
    assert counts(r.strict) == (0, 1, 2)
    assert counts(r.merged) == (1, 0, 0)


def test_merged_contained_removal_is_partial():
    text = "Rivera Bueno vive en Madrid"
    assert text[0:12] == "Rivera Bueno" and text[21:27] == "Madrid"
    gold = [doc("d", text, (0, 12, "NOMBRE"), (21, 27, "TERRITORIO"))]
    system = [doc("d", text, (0, 6, "NOMBRE"), (7, 12, "NOMBRE"))]
    r = score(gold, system)
    # Gold merged {(0,12), (21,27)} (" vive en " blocks); system merged {(0,12)}.
    # inter = {(0,12)}: TP 1. FP {(0,6),(7,12)} both inside (0,12) -> 0.
    # FN {(0,12),(21,27)}: (0,12) inside -> removed, (21,27) stays -> 1.
    assert counts(r.merged) == (1, 0, 1)
    assert r.merged.p == 1.0
    assert r.merged.r == pytest.approx(0.5)
    assert r.merged.f1 == pytest.approx(2 / 3)


def test_merged_fp_inside_strict_match_is_forgiven():
    gold = [doc("d", "Rivera Bueno", (0, 12, "NOMBRE"))]
    system = [doc("d", "Rivera Bueno", (0, 12, "NOMBRE"), (0, 6, "NOMBRE"))]
    r = score(gold, system)
    # Strict: (0,12) TP, (0,6) FP. Merged: (0,6) lies inside the TP (0,12) -> no FP.
    assert counts(r.strict) == (1, 1, 0)
    assert counts(r.merged) == (1, 0, 0)


def test_merged_uses_gold_text_for_gaps():
    text = "Rivera Bueno"
    gold = [doc("d", text, (0, 12, "NOMBRE"))]
    # The system document's own text (here bogus) is not used for the gap test.
    system = [doc("d", "RiveraxBueno", (0, 6, "NOMBRE"), (7, 12, "NOMBRE"))]
    assert counts(score(gold, system).merged) == (1, 0, 0)


# --------------------------------------------------------------------------- documents


def test_missing_system_document_counts_as_false_negatives_and_warns():
    text = "Rivera Bueno vive en Madrid"
    gold = [
        doc("d1", text, (0, 12, "NOMBRE"), (21, 27, "TERRITORIO")),
        doc("d2", text, (0, 6, "NOMBRE")),
    ]
    system = [doc("d1", text, (0, 12, "NOMBRE"), (21, 27, "TERRITORIO"))]
    with pytest.warns(UserWarning, match="d2") as record:
        r = score_documents(gold, system, {"d1": 1, "d2": 1})
    assert len(record) == 1
    message = str(record[0].message)
    assert "d1" not in message and "Rivera" not in message
    # d1 perfect (TP 2); d2's one entity is a FN in every subtask.
    assert counts(r.ner) == (2, 0, 1)
    assert counts(r.strict) == (2, 0, 1)
    assert counts(r.merged) == (2, 0, 1)
    assert r.leak == pytest.approx(0.5)  # 1 FN / (1 + 1) sentences
    assert r.n_documents == 2


def test_extra_system_document_is_ignored_with_warning():
    gold = [doc("d1", FILLER, (0, 4, "X"))]
    system = [doc("d1", FILLER, (0, 4, "X")), doc("zz", FILLER, (0, 4, "X"), (5, 9, "X"))]
    with pytest.warns(UserWarning, match="zz"):
        r = score_documents(gold, system, 1)
    assert counts(r.ner) == (1, 0, 0)
    assert r.n_documents == 1


def test_duplicate_document_ids_are_refused():
    with pytest.raises(ValueError, match="duplicate"):
        score_documents([doc("a", FILLER), doc("a", FILLER)], [], 1)


# --------------------------------------------------------------------------- per type


def per_type_example() -> MeddocanScores:
    gold = [doc("d", FILLER, (0, 4, "NOMBRE"), (10, 14, "NOMBRE"), (20, 24, "FECHA"))]
    system = [doc("d", FILLER, (0, 4, "NOMBRE"), (10, 14, "FECHA"), (20, 24, "FECHA"), (30, 34, "PAIS"))]
    return score(gold, system)


def test_per_type_table():
    r = per_type_example()
    # NOMBRE: (0,4) TP, (10,14) FN.  FECHA: (20,24) TP, (10,14) FP.  PAIS: (30,34) FP.
    assert counts(r.per_type["NOMBRE"]) == (1, 0, 1)
    assert counts(r.per_type["FECHA"]) == (1, 1, 0)
    assert counts(r.per_type["PAIS"]) == (0, 1, 0)
    assert [r.per_type[t].support for t in ("NOMBRE", "FECHA", "PAIS")] == [2, 1, 0]
    assert r.per_type["NOMBRE"].p == 1.0 and r.per_type["NOMBRE"].r == pytest.approx(0.5)
    assert r.per_type["FECHA"].p == pytest.approx(0.5) and r.per_type["FECHA"].r == 1.0
    assert r.per_type["NOMBRE"].f1 == pytest.approx(2 / 3)
    assert r.per_type["PAIS"].f1 == 0.0
    assert counts(r.ner) == (2, 2, 1)


def test_to_dict_keys_and_json():
    d = per_type_example().to_dict()
    required = {
        "ner_p", "ner_r", "ner_f1", "leak",
        "strict_p", "strict_r", "strict_f1",
        "merged_p", "merged_r", "merged_f1",
        "ner_tp", "ner_fp", "ner_fn",
        "strict_tp", "strict_fp", "strict_fn",
        "merged_tp", "merged_fp", "merged_fn",
        "per_type",
    }  # fmt: skip
    assert required <= set(d)
    assert set(d) - required <= {"n_sentences", "n_documents"}
    assert (d["ner_tp"], d["ner_fp"], d["ner_fn"]) == (2, 2, 1)
    assert d["ner_p"] == pytest.approx(0.5) and d["ner_r"] == pytest.approx(2 / 3)
    assert d["leak"] == pytest.approx(1.0)  # 1 FN / 1 sentence
    assert d["per_type"]["NOMBRE"] == {
        "p": 1.0, "r": 0.5, "f1": pytest.approx(2 / 3), "tp": 1, "fp": 0, "fn": 1, "support": 2,
    }  # fmt: skip
    assert set(d["per_type"]) == {"NOMBRE", "FECHA", "PAIS"}
    assert json.loads(json.dumps(d)) == d


def test_format_report_lists_measures_and_types_by_support():
    report = format_report(per_type_example())
    for label in ("NER", "strict", "merged", "Leak"):
        assert label in report
    assert report.index("NOMBRE") < report.index("FECHA") < report.index("PAIS")
    assert "0.5000" in report  # NER precision 2/4


# --------------------------------------------------------------------------- CLI

GOLD_TEXT = "Paciente: Rivera Bueno.\nVive en Madrid.\n"
# 10-16 Rivera, 17-22 Bueno, 10-22 Rivera Bueno, 32-38 Madrid
GOLD_ANN = "T1\tNOMBRE_SUJETO_ASISTENCIA 10 22\tRivera Bueno\nT2\tTERRITORIO 32 38\tMadrid\n"
SYS_ANN = "T1\tNOMBRE_SUJETO_ASISTENCIA 10 16\tRivera\nT2\tNOMBRE_SUJETO_ASISTENCIA 17 22\tBueno\n"
PHI = ("Rivera", "Bueno", "Madrid", "Paciente")


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    from deid_crf.text import tokenizer as tokenize

    if not hasattr(tokenize, "count_sentences"):
        pytest.skip("deid_crf.text.tokenizer.count_sentences not written yet")
    # Fix the sentence count so the test does not depend on the splitter's rules.
    monkeypatch.setattr(tokenize, "count_sentences", lambda text: 2)
    gold, system = tmp_path / "gold", tmp_path / "sys"
    gold.mkdir()
    system.mkdir()
    (gold / "doc1.txt").write_text(GOLD_TEXT, encoding="utf-8", newline="")
    (gold / "doc1.ann").write_text(GOLD_ANN, encoding="utf-8", newline="")
    (system / "doc1.ann").write_text(SYS_ANN, encoding="utf-8", newline="")
    return gold, system


def assert_no_phi(*outputs: str) -> None:
    for out in outputs:
        for word in PHI:
            assert word not in out


def test_cli_report_with_ann_only_system_dir(dirs, capsys):
    gold, system = dirs
    assert main([str(gold), str(system)]) == 0
    out, err = capsys.readouterr()
    assert "Subtask 2 [merged]" in out and "NOMBRE_SUJETO_ASISTENCIA" in out
    assert err == ""
    assert_no_phi(out, err)


def test_cli_json_output(dirs, capsys):
    gold, system = dirs
    assert main([str(gold), str(system), "--json"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    # NER/strict: gold {(10,22), (32,38)} vs system {(10,16), (17,22)}: TP 0, FP 2, FN 2.
    assert (d["ner_tp"], d["ner_fp"], d["ner_fn"]) == (0, 2, 2)
    assert (d["strict_tp"], d["strict_fp"], d["strict_fn"]) == (0, 2, 2)
    # Merged: system -> (10,22) matches gold: TP 1, FP 0, FN 1 (Madrid).
    assert (d["merged_tp"], d["merged_fp"], d["merged_fn"]) == (1, 0, 1)
    assert d["merged_p"] == 1.0 and d["merged_r"] == pytest.approx(0.5)
    assert d["leak"] == pytest.approx(1.0)  # 2 FN / 2 sentences
    assert d["n_sentences"] == 2
    assert_no_phi(out, err)


def test_cli_system_dir_with_texts(dirs, capsys):
    gold, system = dirs
    (system / "doc1.txt").write_text(GOLD_TEXT, encoding="utf-8", newline="")
    assert main([str(gold), str(system), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["merged_tp"] == 1


def test_cli_system_text_differing_from_gold_is_an_error(dirs, capsys):
    gold, system = dirs
    (system / "doc1.txt").write_text(GOLD_TEXT.replace("Vive", "Vivo"), encoding="utf-8", newline="")
    assert main([str(gold), str(system)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "doc1" in err and len(err.strip().splitlines()) == 1
    assert_no_phi(err)


def test_cli_missing_system_document_warns(dirs, capsys):
    gold, system = dirs
    (gold / "doc2.txt").write_text("Nada.\n", encoding="utf-8", newline="")
    (gold / "doc2.ann").write_text("", encoding="utf-8", newline="")
    assert main([str(gold), str(system), "--json"]) == 0
    out, err = capsys.readouterr()
    assert "doc2" in err and "warning" in err
    assert json.loads(out)["n_documents"] == 2


def test_cli_malformed_brat_exits_2(dirs, capsys):
    gold, system = dirs
    # Offsets point at "Rivera" but the span text says otherwise.
    (system / "doc1.ann").write_text("T1\tNOMBRE 10 16\tRiverX\n", encoding="utf-8", newline="")
    assert main([str(gold), str(system)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert "doc1.ann" in err
    assert_no_phi(err)


def test_cli_missing_directory_exits_2(tmp_path, capsys):
    assert main([str(tmp_path / "nope"), str(tmp_path / "nope2")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and "not a directory" in err
    assert "Traceback" not in err


def test_cli_module_missing_directory_no_traceback(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(
        [sys.executable, "-m", "deid_crf.scoring.meddocan", str(tmp_path / "nope"), str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
