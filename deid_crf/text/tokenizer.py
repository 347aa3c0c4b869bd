"""Offset-keeping tokenizer and sentence splitter for Spanish clinical text.

Tokens never swallow a final full stop (``H.`` → ``H`` ``.``), so PHI spans that
end before a stop stay token-aligned. Numbers keep internal separators
(``03/03/1946``, ``1.16``, ``5-7``), e-mails and URLs are single tokens, and words
glued at a lower→upper case join are split (``CuéllarNºCol``). A line break (any
that ``str.splitlines`` knows: ``\n``, ``\r``, ``\v``, ``\f``, ``\x1c``–``\x1e``,
U+0085, U+2028, U+2029) always ends a line and a sentence (MEDDOCAN headers are one
field per line); ``.``, ``?`` and ``!``
end one when the next token starts a new sentence and the stop does not follow an
abbreviation or an initial. No sentence is longer than
:data:`~deid_crf.config.MAX_SENTENCE_TOKENS` tokens: a longer run is cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from deid_crf.config import MAX_SENTENCE_TOKENS, TokenizerConfig
from deid_crf.gazetteers.spanish import NUMBER, OTHER, WORD_JOINED, WORD_SPLIT
from deid_crf.text.document import LINE_BREAKS
from deid_crf.text.table import TokenTable

# "E-mail.x@y.es": the field label glued to an address is its own token.
_MAIL_LABEL = r"(?i:e-?mail)(?=[.:-]\w[\w.+-]*@)"
_EMAIL = r"\w[\w.+-]*@[\w-]+(?:\.[\w-]+)+"
_URL = r"(?:https?://|www\.)[\w\-./?=&%#~+:]*[\w/]"


def _token_pattern(split_case_joins: bool) -> re.Pattern[str]:
    word = WORD_SPLIT if split_case_joins else WORD_JOINED
    return re.compile("|".join((_MAIL_LABEL, _EMAIL, _URL, NUMBER, word, OTHER)))


_MAX_TABLE = 0x2100  # (past U+2028, U+2029 and "…" U+2026)
# Lookup tables over code points, so that character tests run as numpy gathers (a code
# point past the table is looked up at its last entry, which is False in each); cheaper
# than np.isin, whose fixed cost is most of a short note's.
_IS_UPPER = np.array([c < _MAX_TABLE - 1 and chr(c).isupper() for c in range(_MAX_TABLE)], dtype=bool)


def _table_of(chars: str) -> np.ndarray:
    table = np.zeros(_MAX_TABLE, dtype=bool)
    table[[ord(c) for c in chars]] = True
    assert not table[-1]
    return table


_IS_LINE_BREAK = _table_of(LINE_BREAKS)
_IS_SENTENCE_FINAL = _table_of(".?!…")
_IS_SENTENCE_OPENING = _table_of("¿¡(\"«'[-•*")


def code_points(text: str) -> np.ndarray:
    """The text as an array of Unicode code points (one per character)."""
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)


class Tokenizer:
    """Cuts documents into a :class:`TokenTable` (tokens, offsets, lines, sentences)."""

    def __init__(self, config: TokenizerConfig | None = None):
        self.config = config or TokenizerConfig()
        self._pattern = _token_pattern(self.config.split_case_joins)
        self._abbreviations = frozenset(a.lower() for a in self.config.abbreviations)

    def __call__(self, texts: Sequence[str]) -> TokenTable:
        return self.tokenize(texts)

    def tokenize(self, texts: Sequence[str]) -> TokenTable:
        tokens: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        doc_bounds = np.zeros((len(texts), 2), dtype=np.int64)
        lines, sent_bounds, docs = [], [], []
        for d, text in enumerate(texts):
            first = len(tokens)
            matches = list(self._pattern.finditer(text))
            tokens.extend([m.group() for m in matches])
            spans = np.array([m.span() for m in matches], dtype=np.int64).reshape(-1, 2)
            starts.append(spans[:, 0])
            ends.append(spans[:, 1])
            doc_bounds[d] = (first, len(tokens))
            line, sentence_ends = self._lines_and_sentence_ends(text, spans, tokens, first)
            lines.append(line)
            docs.append(np.full(len(matches), d, dtype=np.int32))
            begins = np.concatenate(([0], sentence_ends[:-1] + 1)) if len(sentence_ends) else sentence_ends
            sent_bounds.append(np.stack([begins + first, sentence_ends + 1 + first], axis=1))
        token_array = np.empty(len(tokens), dtype=object)
        token_array[:] = tokens
        return TokenTable(
            texts=list(texts),
            tokens=token_array,
            start=np.concatenate(starts) if starts else np.zeros(0, np.int64),
            end=np.concatenate(ends) if ends else np.zeros(0, np.int64),
            doc=np.concatenate(docs) if docs else np.zeros(0, np.int32),
            line=np.concatenate(lines).astype(np.int32) if lines else np.zeros(0, np.int32),
            sent_bounds=np.concatenate(sent_bounds).reshape(-1, 2) if sent_bounds else np.zeros((0, 2), np.int64),
            doc_bounds=doc_bounds,
        )

    def _lines_and_sentence_ends(
        self, text: str, spans: np.ndarray, tokens: list[str], first: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Line number of each token and the (document-relative) indices of the tokens
        that end a sentence."""
        n = len(spans)
        if n == 0:
            return np.zeros(0, np.int32), np.zeros(0, np.int64)
        cps = code_points(text)
        is_break = _IS_LINE_BREAK[np.minimum(cps, _MAX_TABLE - 1)]
        is_break[:-1] &= ~((cps[:-1] == 0x0D) & (cps[1:] == 0x0A))  # "\r\n" is one line break
        newlines = np.flatnonzero(is_break)
        line = np.searchsorted(newlines, spans[:, 0]).astype(np.int32)
        is_end = np.zeros(n, dtype=bool)
        is_end[-1] = True
        is_end[:-1] |= line[1:] > line[:-1]

        first_cp = cps[spans[:, 0]]
        single = (spans[:, 1] - spans[:, 0]) == 1
        first_cp = np.minimum(first_cp, _MAX_TABLE - 1)
        candidates = np.flatnonzero(single[:-1] & _IS_SENTENCE_FINAL[first_cp[:-1]] & ~is_end[:-1])
        if len(candidates):
            nxt = first_cp[candidates + 1]
            # A stop followed by a number is taken as part of an address or list
            # ("Castellana 87. 9F", "No. 121"); Spanish prose rarely opens with digits.
            starts_sentence = _IS_UPPER[nxt] | _IS_SENTENCE_OPENING[nxt]
            for i in candidates[starts_sentence]:
                if i > 0 and self._after_abbreviation(tokens[first + i - 1], text, spans, i):
                    continue
                is_end[i] = True
        return line, capped_sentence_ends(np.flatnonzero(is_end))

    def _after_abbreviation(self, previous: str, text: str, spans: np.ndarray, i: int) -> bool:
        """True when the stop at token ``i`` closes an abbreviation, an initial or an
        acronym glued to it (``Dr.``, ``Avda.``, ``C/.``, ``J.``, ``EE.UU.``)."""
        if spans[i - 1, 1] != spans[i, 0]:
            return False
        if previous.lower() in self._abbreviations or previous == "/":
            return True
        return len(previous) <= 3 and previous.isupper()


def capped_sentence_ends(ends: np.ndarray, cap: int = MAX_SENTENCE_TOKENS) -> np.ndarray:
    """The sentence ends ``ends`` (indices of the last token of each sentence, ascending,
    the first sentence starting at token 0), with an end added after every ``cap``
    tokens of a longer sentence."""
    begins = np.concatenate(([0], ends[:-1] + 1))
    too_long = np.flatnonzero(ends - begins + 1 > cap)
    if not len(too_long):
        return ends
    cuts = [np.arange(begins[i] + cap - 1, ends[i], cap) for i in too_long.tolist()]
    return np.union1d(ends, np.concatenate(cuts))


def tokenize(texts: Sequence[str], config: TokenizerConfig | None = None) -> TokenTable:
    """Tokenize documents with a default (or given) tokenizer configuration."""
    return Tokenizer(config)(texts)


def count_sentences(text: str, config: TokenizerConfig | None = None) -> int:
    """Number of sentences the splitter finds in ``text`` (used by the leak measure)."""
    return Tokenizer(config)([text]).n_sentences
