"""Optional stanza backend of the "pos" feature group: stanza's neural Spanish tagger
behind the interface of the built-in :class:`deid_crf.resources.pos.PosTagger` (``predict_table``
and ``predict``; heads ``upos`` and ``eagles2``).

Selected by ``FeatureConfig.pos_backend = "stanza"``; needs the extra
``pip install 'deid-crf[stanza]'`` (torch installed first) and a Spanish model
downloaded once with ``stanza.download("es", processors="tokenize,pos")``. stanza is
imported only when this backend is used, never by the default install.

Tokens: ours. Sentences go to stanza pre-tokenized, one stanza token per token of ours,
so stanza's tokenizer and multi-word-token (MWT) model never run. The contractions
``del`` and ``al``, which stanza's Spanish models (trained on UD, where they are two
words) expect split, are handed over already expanded as multi-word tokens
(``de`` + ``el``, ``a`` + ``el``), and each of our tokens takes the tags of its first
word: ``del`` → ADP / SP, the convention the built-in tagger was trained with
(:func:`deid_crf.resources.pos_data.read_conllu`). Other Spanish multi-word tokens (verbs with
enclitic pronouns, ``dárselo``) go as one word, tagged as the verb their first word is.

EAGLES-2: stanza's AnCora-trained models predict AnCora's lower-case EAGLES XPOS
(``ncms000``, ``sps00``, ``fc``), whose first two characters are the reduced tag, as
for the built-in tagger. Any other XPOS (or none) gives a tag derived from UPOS, the UD
features and, for punctuation, the token itself (:func:`eagles2_of`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from deid_crf.features.encoding import Coded, factorize
from deid_crf.resources.pos import HEADS, upos_per_sentence
from deid_crf.resources.pos_data import eagles2
from deid_crf.text.table import TokenTable

LANGUAGE = "es"
PROCESSORS = "tokenize,pos"
INSTALL_HINT = (
    "install torch first (a CPU build, e.g. torch==2.13.0; see docs/resources.md), "
    "then the optional extra: pip install 'deid-crf[stanza]'"
)
DOWNLOAD_HINT = (
    "on a machine with internet run `python -c \"import stanza; stanza.download('es', "
    "processors='tokenize,pos', model_dir='DIR')\"`, copy DIR here and set "
    "FeatureConfig.stanza_dir (or $STANZA_RESOURCES_DIR) to it"
)

# Spanish preposition + article contractions, which UD (and so stanza) splits in two.
CONTRACTIONS = {"del": ("de", "el"), "al": ("a", "el")}

# AnCora's XPOS: lower-case EAGLES (``ncms000``, ``fc``, ``z``). Upper-case XPOS are
# other tag sets (UPOS, or the PTB-like tags of UD Spanish-PUD), not EAGLES.
_ANCORA_XPOS = re.compile(r"[a-z][a-z0-9]*")

# Reduced EAGLES tag of a UPOS when no EAGLES XPOS is predicted, refined below by features.
_UPOS_TO_EAGLES2 = {
    "NOUN": "NC",
    "PROPN": "NP",
    "VERB": "VM",
    "AUX": "VA",
    "ADJ": "AQ",
    "ADV": "RG",
    "ADP": "SP",
    "CCONJ": "CC",
    "SCONJ": "CS",
    "DET": "DI",
    "PRON": "PP",
    "NUM": "Z",
    "INTJ": "I",
    "PART": "RG",
    "PUNCT": "FZ",
    "SYM": "FZ",
}
# PronType → reduced EAGLES tag of determiners and pronouns (AnCora tags neuter "lo"
# as an article and the relative determiner "cuyo" as a relative pronoun).
_DET_TYPE = {"Art": "DA", "Dem": "DD", "Int": "DT", "Exc": "DE", "Rel": "PR", "Ind": "DI", "Neg": "DI", "Tot": "DI"}
_PRON_TYPE = {"Prs": "PP", "Art": "DA", "Dem": "PD", "Int": "PT", "Rel": "PR", "Exc": "PE"}
_PRON_TYPE |= dict.fromkeys(("Ind", "Neg", "Tot"), "PI")
# FreeLing punctuation classes (two characters) of single punctuation marks.
_PUNCT = {
    **dict.fromkeys(".()", "FP"),
    **dict.fromkeys(",[]", "FC"),
    ":": "FD",
    ";": "FX",
    **dict.fromkeys("-–—", "FG"),
    **dict.fromkeys("\"'«»“”‘’", "FE"),
    "/": "FH",
    **dict.fromkeys("{}", "FL"),
    **dict.fromkeys("¿?", "FI"),
    **dict.fromkeys("¡!", "FA"),
    **dict.fromkeys(["...", "…"], "FS"),
    "%": "FT",
}
_AUX_LEMMA = {"ser": "VS", "haber": "VA"}


class StanzaUnavailableError(RuntimeError):
    """stanza or its Spanish model is missing (the message says how to get them)."""


def import_stanza() -> Any:
    """The ``stanza`` module, imported now (it pulls in torch: seconds, not at import)."""
    try:
        return importlib.import_module("stanza")
    except ImportError as exc:
        raise StanzaUnavailableError(
            f"the stanza POS backend needs stanza, which is not installed; {INSTALL_HINT}"
        ) from exc


def resources_dir(model_dir: str | Path = "") -> Path:
    """stanza's resources directory: ``model_dir``, else stanza's default
    (``$STANZA_RESOURCES_DIR`` or its user cache)."""
    if model_dir:
        return Path(model_dir)
    return Path(import_stanza().resources.common.DEFAULT_MODEL_DIR)


def spanish_model_available(model_dir: str | Path = "") -> bool:
    """Whether ``model_dir`` holds stanza's resource index listing Spanish and a
    downloaded Spanish POS model (what ``stanza.download('es', …)`` leaves)."""
    stanza = import_stanza()
    directory = resources_dir(model_dir)
    try:
        index = stanza.resources.common.load_resources_json(str(directory))
    except (OSError, ValueError):
        return False
    language = index.get(LANGUAGE, {}).get("alias", LANGUAGE)
    return language in index and any((directory / language / "pos").glob("*.pt"))


def require_spanish_model(model_dir: str | Path = "", package: str = "default") -> Path:
    """stanza's resources directory, checked to hold a Spanish POS model; a clear
    :class:`StanzaUnavailableError` (how to install or download) otherwise."""
    directory = resources_dir(model_dir)
    if not spanish_model_available(directory):
        raise StanzaUnavailableError(_missing_model(directory, package))
    return directory


def _missing_model(directory: Path, package: str) -> str:
    return f"no stanza Spanish POS model (package {package!r}) in {directory}; {DOWNLOAD_HINT}"


def _token_entries(word_id: int, token: str) -> list[dict[str, Any]]:
    """stanza dicts of one of our tokens starting at word ``word_id``: one word, or a
    multi-word token and its words where it is a contraction (case kept: ``Del`` →
    ``De`` + ``el``, ``AL`` → ``A`` + ``EL``)."""
    expansion = CONTRACTIONS.get(token.lower())
    if expansion is None:
        return [{"id": word_id, "text": token}]
    first, second = expansion
    if token.isupper():
        first, second = first.upper(), second.upper()
    elif token[:1].isupper():
        first = first.capitalize()
    return [
        {"id": (word_id, word_id + 1), "text": token},
        {"id": word_id, "text": first},
        {"id": word_id + 1, "text": second},
    ]


def document_from_sentences(sentences: Sequence[Sequence[str]]) -> Any:
    """A stanza ``Document`` of our pre-tokenized sentences, ``del``/``al`` expanded."""
    stanza = import_stanza()
    doc_sentences = []
    for sentence in sentences:
        entries: list[dict[str, Any]] = []
        n_words = 0
        for token in sentence:
            token_entries = _token_entries(n_words + 1, token)
            n_words += 1 if len(token_entries) == 1 else len(token_entries) - 1
            entries.extend(token_entries)
        doc_sentences.append(entries)
    return stanza.models.common.doc.Document(doc_sentences)


def _features(feats: str | None) -> dict[str, str]:
    if not feats or feats == "_":
        return {}
    return dict(f.split("=", 1) for f in feats.split("|") if "=" in f)


def eagles2_of(upos: str, xpos: str | None, feats: str | None, lemma: str | None, text: str) -> str:
    """The reduced EAGLES tag of a stanza word: the first two characters of an AnCora
    (lower-case EAGLES) XPOS; otherwise derived from UPOS and the UD features: ``AO``
    for ordinals, ``RN`` for negation, determiners and pronouns by ``PronType``
    (``DA`` articles, ``DD``/``PD`` demonstratives, ``DP``/``PX`` possessives, ``DN``
    numerals, ``P0`` for *se*…), auxiliaries by lemma (``VS`` *ser*, ``VA`` *haber*,
    ``VM`` others; ``VA`` when no lemma was predicted), punctuation by FreeLing class of
    the mark (``FP``, ``FC``, ``FD``…; ``FZ`` others); ``X`` for UPOS without one."""
    if xpos and _ANCORA_XPOS.fullmatch(xpos):
        return eagles2(xpos)
    features = _features(feats)
    if upos in ("PUNCT", "SYM"):
        return _PUNCT.get(text, "FZ")
    if upos == "ADJ" and features.get("NumType") == "Ord":
        return "AO"
    if upos == "ADV" and features.get("Polarity") == "Neg":
        return "RN"
    if upos == "AUX" and lemma:
        return _AUX_LEMMA.get(lemma.lower(), "VM")
    if upos == "DET":
        if features.get("Poss") == "Yes":
            return "DP"
        if features.get("NumType") == "Card":
            return "DN"
        return _DET_TYPE.get(features.get("PronType", ""), "DI")
    if upos == "PRON":
        if text.lower() == "se":
            return "P0"
        if features.get("Poss") == "Yes":
            return "PX"
        return _PRON_TYPE.get(features.get("PronType", ""), "PP")
    return _UPOS_TO_EAGLES2.get(upos, "X")


def tags_from_document(document: Any) -> dict[str, list[str]]:
    """UPOS and EAGLES-2 of every stanza token, in order: a multi-word token (``del``
    = ``de`` + ``el``) takes its first word's tags."""
    upos: list[str] = []
    reduced: list[str] = []
    for sentence in document.sentences:
        for token in sentence.tokens:
            word = token.words[0]
            tag = word.upos or "X"
            upos.append(tag)
            reduced.append(eagles2_of(tag, word.xpos, word.feats, word.lemma, word.text))
    return {"upos": upos, "eagles2": reduced}


class StanzaPOSTagger:
    """stanza's Spanish POS tagger with the interface of :class:`deid_crf.resources.pos.PosTagger`.

    ``model_dir`` is stanza's resources directory ("" for stanza's default) and
    ``package`` the Spanish package (``"default"``, ``"ancora"``…). The pipeline is
    built on first use and never downloads anything."""

    def __init__(self, model_dir: str = "", package: str = "default"):
        self.model_dir = model_dir
        self.package = package
        self._pipeline: Any = None

    def pipeline(self) -> Any:
        """The stanza pipeline (pre-tokenized input, POS only), built once."""
        if self._pipeline is None:
            stanza = import_stanza()
            directory = require_spanish_model(self.model_dir, self.package)
            try:
                self._pipeline = stanza.Pipeline(
                    LANGUAGE,
                    dir=str(directory),
                    package=self.package,
                    processors=PROCESSORS,
                    tokenize_pretokenized=True,
                    download_method=None,
                    logging_level="WARN",
                )
            except Exception as exc:  # a missing, partial or incompatible download fails in many ways
                reason = f"{type(exc).__name__}: {exc}".rstrip(": ")
                raise StanzaUnavailableError(f"{_missing_model(directory, self.package)} ({reason})") from exc
        return self._pipeline

    def _sentence_tags(self, sentences: Sequence[Sequence[str]]) -> dict[str, list[str]]:
        if not any(sentences):
            return {"upos": [], "eagles2": []}
        document = self.pipeline()(document_from_sentences(sentences))
        tags = tags_from_document(document)
        expected = sum(len(s) for s in sentences)
        if len(tags["upos"]) != expected:
            raise RuntimeError(f"stanza returned {len(tags['upos'])} tokens for {expected} pre-tokenized tokens")
        return tags

    def predict_table(self, table: TokenTable, heads: Sequence[str] = HEADS) -> dict[str, np.ndarray]:
        """Tags (object arrays of str) of every token of ``table`` for each head."""
        tokens = table.tokens.tolist()
        sentences = [tokens[begin:end] for begin, end in table.sent_bounds.tolist() if end > begin]
        tags = self._sentence_tags(sentences)
        result = {}
        for head in heads:
            result[head] = np.empty(len(tokens), dtype=object)
            result[head][:] = tags[head]
        return result

    def predict_codes(self, table: TokenTable, heads: Sequence[str] = HEADS) -> dict[str, Coded]:
        """Per head, every token's tag as a code into the distinct tags."""
        return {head: factorize(tags.tolist()) for head, tags in self.predict_table(table, heads).items()}

    def predict(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """UPOS tags of pre-tokenized sentences."""
        return upos_per_sentence(self, sentences)
