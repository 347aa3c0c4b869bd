"""A long single-line document (~200 KB, the shape of `make bench-long`'s 10 MiB one)
through the whole pipeline: the result does not depend on how the work is cut into
blocks (linear scores, Viterbi, forward–backward), no sentence is longer than the cap,
and the outputs hold (offsets, BRAT reading back). Its time is measured by
``python -m deid_crf.experiments.long_document``, not here."""

from __future__ import annotations

import pytest

from deid_crf.batch.formats import mode_of, render
from deid_crf.config import MAX_SENTENCE_TOKENS
from deid_crf.deid.deidentifier import Deidentifier
from deid_crf.io.brat import parse_ann
from deid_crf.text.document import LINE_BREAKS

SMALL_BLOCKS = {
    "deid_crf.featurization.featurizer.SCORE_BLOCK_TOKENS": 97,
    "deid_crf.models.crf_decode.DECODE_BLOCK_TOKENS": 300,
    "deid_crf.models.crf_decode.SENTENCE_BLOCK": 5,
}
ONE_BLOCK = {name: 10**9 for name in SMALL_BLOCKS}
FORMATS = ("brat", "json", "masked", "surrogate")


def one_line(texts: list[str], size: int, stops: bool = True) -> str:
    """``texts`` end to end on one line, repeated to about ``size`` characters (without
    any sentence-final punctuation unless ``stops``)."""
    line = " ".join(texts)
    for c in LINE_BREAKS:
        line = line.replace(c, " ")
    if not stops:
        line = line.replace(".", " ").replace("?", " ").replace("!", " ")
    return (line + " ") * (size // (len(line) + 1) + 1)


@pytest.fixture(scope="module")
def deid(tiny_tagger_with_absent_values) -> Deidentifier:
    return Deidentifier(tiny_tagger_with_absent_values, rules="default", seed=5)


@pytest.fixture(scope="module")
def texts(tiny_corpus, unseen_document) -> list[str]:
    return [d.text for d in [*tiny_corpus, unseen_document]]


def spans_in(deid: Deidentifier, text: str, blocks: dict[str, int]) -> list:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in blocks.items():
            patch.setattr(name, value)
        return deid.find([text])[0]


@pytest.mark.parametrize("stops", [True, False], ids=["sentences", "no-full-stop"])
def test_a_long_single_line_document_gives_the_same_outputs_in_any_blocks(deid, texts, stops):
    text = one_line(texts, 200_000, stops)
    table = deid.tagger.tokenizer()([text])
    lengths = table.sent_bounds[:, 1] - table.sent_bounds[:, 0]
    assert len(table) > 30_000 and lengths.max() <= MAX_SENTENCE_TOKENS
    if not stops:  # one run of tokens, cut by the cap alone
        assert (lengths[:-1] == MAX_SENTENCE_TOKENS).all()
    spans = spans_in(deid, text, ONE_BLOCK)  # with their confidences (rounded to 4 places)
    assert spans_in(deid, text, SMALL_BLOCKS) == spans
    tokenizer = deid.tagger.tokenizer()
    out = {fmt: render(deid.apply(text, spans, mode_of(fmt), "long"), fmt, tokenizer) for fmt in FORMATS}
    entities = parse_ann(out["brat"], text, "long.ann")
    assert len(entities) > 1000 and [(e.start, e.end, e.type) for e in entities] == [
        (s.start, s.end, s.type) for s in spans
    ]
    assert "Zebulonio" in text and "Zebulonio" not in out["masked"] and "Zebulonio" not in out["surrogate"]
