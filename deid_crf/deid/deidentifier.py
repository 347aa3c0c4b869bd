"""De-identify texts: find PHI (model + rules), then mask it or replace it.

>>> import deid_crf
>>> deid = deid_crf.load("models/crf", seed=7)                   # doctest: +SKIP
>>> result = deid.deidentify("Nombre: Ernesto Rivera.", mode="surrogate")  # doctest: +SKIP
>>> result.text                                                  # doctest: +SKIP
'Nombre: Tomás Barroso.'
>>> result.spans                                                 # doctest: +SKIP
[PHISpan(start=8, end=22, type='NOMBRE_SUJETO_ASISTENCIA', confidence=0.99, source='model')]

Modes:

* ``masked``: each span becomes its placeholder (``[NOMBRE_SUJETO_ASISTENCIA]`` by
  default; any template with ``{type}``), or, with ``mask_char``, that character
  repeated over the span's non-space characters so offsets do not move;
* ``surrogate``: each span becomes a realistic, consistent value
  (:mod:`deid_crf.deid.surrogates`);
* ``annotate``: the text is unchanged; the spans say what was found.

Everything outside the spans is copied unchanged, character for character.

Recall-first span candidates may overlap other spans (another boundary or type of the
same words): :meth:`Deidentifier.find` and ``annotate`` results list them all, while the
masked and surrogate modes replace the union of overlapping spans
(:func:`~deid_crf.text.spans.cover`), so no character any candidate covers stays in clear.
"""

from __future__ import annotations

import math
import os
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from deid_crf.config import RECALL_FIRST_CANDIDATES
from deid_crf.deid.audit import Survivor, audit, identifying_words, mask_survivors
from deid_crf.deid.groups import GroupMemory, GroupSecret, GroupSurrogates
from deid_crf.deid.rules import NAME_TYPES, RuleLayer, propagate_names, rule_layer
from deid_crf.deid.surrogates import DEFAULT_KEEP, DocumentSurrogates, Vocabulary, document_seed
from deid_crf.models import Tagger, load_model
from deid_crf.models.candidates import ScoredEntity
from deid_crf.text.spans import CANDIDATE, MODEL, PHISpan, cover

MASKED = "masked"
SURROGATE = "surrogate"
ANNOTATE = "annotate"
MODES = (MASKED, SURROGATE, ANNOTATE)
DEFAULT_MASK = "[{type}]"
# Per-type actions of a user configuration (deid_crf.deid.user_config), by name.
MASK, SURROGATE_ACTION, KEEP, HASH = "mask", "surrogate", "keep", "hash"
ACTIONS = (MASK, SURROGATE_ACTION, KEEP, HASH)


class UnsupportedOption(ValueError):
    """An option the model cannot honour (recall-first mode without marginals)."""


@dataclass
class Result:
    """A de-identified document: ``text`` is the output text; each span has the
    offsets of the original text, and ``output_spans()`` those of ``text``."""

    doc_id: str
    text: str = field(repr=False)
    spans: list[PHISpan]
    mode: str
    date_shift_days: int | None = field(default=None, repr=False)
    # Identifying tokens of the originals still in ``text`` (leak audit; masked when strict).
    survivors: list[Survivor] = field(default_factory=list)
    strict: bool = False
    # Patient group: its tag, the secret's check and the group's surrogates this document used.
    group: str | None = None
    group_check: str | None = field(default=None, repr=False)
    group_used: GroupMemory | None = field(default=None, repr=False)

    def output_spans(self) -> list[tuple[int, int, str]]:
        """``(start, end, type)`` of every replacement in :attr:`text`."""
        out, delta = [], 0
        for s in self.spans:
            new = len(s.replacement) if s.replacement is not None else s.end - s.start
            out.append((s.start + delta, s.start + delta + new, s.type))
            delta += new - (s.end - s.start)
        return out

    def key_record(self) -> dict[str, Any]:
        """The original → replacement mapping, for authorised re-identification only;
        a document of a patient group also records its group and the group's
        surrogates it used, which a later batch reuses (:mod:`deid_crf.deid.groups`)."""
        record = {
            "doc_id": self.doc_id,
            "mode": self.mode,
            "date_shift_days": self.date_shift_days,
            "spans": [
                {
                    "type": s.type,
                    "start": s.start,
                    "end": s.end,
                    "output_start": a,
                    "output_end": b,
                    "original": s.text,
                    "replacement": s.replacement,
                }
                for s, (a, b, _) in zip(self.spans, self.output_spans(), strict=True)
            ],
        }
        if self.group is not None:
            used = self.group_used or GroupMemory()
            record["group"] = self.group
            record["group_secret_check"] = self.group_check
            record["group_surrogates"] = {
                "parts": dict(sorted(used.parts.items())),
                "values": sorted([kind, key, value] for (kind, key), value in used.values.items()),
            }
        return record


def replace_spans(
    text: str, spans: Sequence[PHISpan], replacement: Callable[[PHISpan], str]
) -> tuple[str, list[PHISpan]]:
    """``text`` with each span replaced by ``replacement(span)``; characters outside the
    spans are copied unchanged. Spans must be sorted and must not overlap. Returns the
    new text and the spans with their ``text`` and ``replacement`` filled in."""
    pieces, done, cursor = [], [], 0
    for span in spans:
        if span.start < cursor or span.end > len(text) or span.start >= span.end:
            raise ValueError(f"span {span.start}-{span.end} ({span.type}) overlaps another or lies outside the text")
        # Built field by field: with dataclasses.replace, the two copies of a span were
        # a fifth of rendering a surrogate output (MEDDOCAN dev).
        fields = (span.start, span.end, span.type, span.confidence, span.source)
        span = PHISpan(*fields, text[span.start : span.end], span.replacement, span.min_confidence)
        new = replacement(span)
        pieces.append(text[cursor : span.start])
        pieces.append(new)
        done.append(PHISpan(*fields, span.text, new, span.min_confidence))
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces), done


def mask_function(template: str = DEFAULT_MASK, mask_char: str | None = None) -> Callable[[PHISpan], str]:
    """The replacement of masked mode: ``template.format(type=...)``, or ``mask_char``
    over every non-space character of the span (offsets then stay the same)."""
    if mask_char is not None:
        if len(mask_char) != 1 or mask_char.isspace():
            raise ValueError("the mask character must be one non-space character")
        return lambda s: "".join(c if c.isspace() else mask_char for c in s.text)
    try:
        template.format(type="X")
    except (IndexError, KeyError, ValueError):
        raise ValueError("invalid mask template: use {type} for the entity type and {{ }} for braces") from None
    return lambda s: template.format(type=s.type)


class Deidentifier:
    """A trained tagger, the rule layer and the replacement settings.

    ``rules`` is a :class:`~deid_crf.deid.rules.RuleLayer`, a mode of
    :data:`~deid_crf.deid.rules.RULE_MODES` (``"default"``: the priorities chosen on dev)
    or None/``"off"`` for the model alone. ``seed`` makes surrogates reproducible;
    without it a random seed is drawn once for this object. ``keep`` lists entity
    types that surrogate mode leaves as they are.

    Masked and surrogate results are audited (:mod:`deid_crf.deid.audit`): the
    identifying tokens of the originals still in the output are
    :attr:`Result.survivors`; with ``strict`` they are masked. ``secret`` (a
    :class:`~deid_crf.deid.groups.GroupSecret`) is what :meth:`deidentify_group` draws
    a patient group's surrogates and date shift from. ``actions`` maps entity types to
    ``mask``, ``surrogate``, ``keep`` or ``hash`` (``hash_value(type, text)``) in the
    masked and surrogate modes, overriding the mode's own replacement for those types
    (a kept span is not audited). ``recall_threshold`` (CRF models) adds the
    recall-first ``recall_candidates`` of :mod:`deid_crf.models.candidates`: token
    candidates join the model's spans before the rule layer, span candidates (which
    may overlap any span) are added after it.
    """

    def __init__(
        self,
        tagger: Tagger,
        rules: RuleLayer | str | None = "default",
        mask: str = DEFAULT_MASK,
        mask_char: str | None = None,
        seed: int | None = None,
        keep: Iterable[str] = DEFAULT_KEEP,
        vocabulary: Vocabulary | None = None,
        strict: bool = False,
        secret: GroupSecret | None = None,
        recall_threshold: float | None = None,
        actions: Mapping[str, str] | None = None,
        hash_value: Callable[[str, str], str] | None = None,
        recall_candidates: Sequence[str] = RECALL_FIRST_CANDIDATES,
    ):
        if recall_threshold is not None and not getattr(tagger, "has_marginals", False):
            raise UnsupportedOption(f"recall-first mode needs a CRF model; {type(tagger).__name__} has no marginals")
        self.tagger = tagger
        self.strict = strict
        self.secret = secret
        self.recall_threshold = recall_threshold
        self.recall_candidates = tuple(recall_candidates)
        self.actions = dict(actions or {})
        unknown = sorted(set(self.actions.values()) - set(ACTIONS))
        if unknown:
            raise ValueError(f"unknown actions {unknown}; choose from {ACTIONS}")
        if HASH in self.actions.values() and hash_value is None:
            raise ValueError("the hash action needs hash_value (a keyed hash of type and value)")
        self.hash_value = hash_value
        self.rules = rules if isinstance(rules, RuleLayer) else rule_layer(rules or "off")
        self.mask = mask_function(mask, mask_char)
        self.seed = secrets.randbits(63) if seed is None else int(seed)
        self.keep = frozenset(keep)
        self._vocabulary = vocabulary

    @property
    def vocabulary(self) -> Vocabulary:
        if self._vocabulary is None:
            self._vocabulary = Vocabulary.default()
        return self._vocabulary

    def prepare(self, mode: str) -> None:
        """Load now what replacing in ``mode`` loads on first use: the surrogate
        vocabulary, when surrogates are drawn. Worker processes forked after this share
        it instead of each loading it again."""
        if mode == SURROGATE or SURROGATE_ACTION in self.actions.values():
            self._vocabulary = self.vocabulary

    def find(self, texts: Sequence[str], confidence: bool = True) -> list[list[PHISpan]]:
        """PHI spans of each text, sorted: the model's (with confidences) merged with
        the rules', which never overlap, then the recall-first span candidates, which
        may. With ``confidence=False`` the model's spans (the same ones) are found
        faster, without their confidences, which are then NaN: for outputs that do not
        show them."""
        alternatives: list[list[PHISpan]] = [[] for _ in texts]
        if confidence or self.recall_threshold is not None or self.rules.thresholds:
            if hasattr(self.tagger, "tag_texts_scored"):
                found = self.tagger.tag_texts_scored(
                    list(texts), recall_threshold=self.recall_threshold, candidates=self.recall_candidates
                )
            else:  # a tagger of one's own with confidences only: each its entity's lowest too
                found = [
                    [ScoredEntity(e, c, c) for e, c in entities]
                    for entities in self.tagger.tag_texts_with_confidence(list(texts))
                ]
            model_spans = [
                [
                    PHISpan(
                        s.entity.start,
                        s.entity.end,
                        s.entity.type,
                        round(s.confidence, 4),
                        CANDIDATE if s.candidate else MODEL,
                        min_confidence=round(s.min_confidence, 4),
                    )
                    for s in entities
                ]
                for entities in found
            ]
            alternatives = [
                [span for span, s in zip(spans, entities, strict=True) if s.alternative]
                for spans, entities in zip(model_spans, found, strict=True)
            ]
            model_spans = [
                [span for span, s in zip(spans, entities, strict=True) if not s.alternative]
                for spans, entities in zip(model_spans, found, strict=True)
            ]
        else:
            model_spans = [
                [PHISpan(e.start, e.end, e.type, math.nan) for e in entities]
                for entities in self.tagger.tag_texts(list(texts))
            ]
        return [
            _with_alternatives(self.rules.apply(text, spans), extra)
            for text, spans, extra in zip(texts, model_spans, alternatives, strict=True)
        ]

    @property
    def _kept_words(self) -> frozenset[str]:
        """Words surrogates keep by design besides those the audit knows: street types."""
        return self.vocabulary.street_types

    @property
    def _titles(self) -> frozenset[str]:
        """Titles surrogates keep before a name ("Doctora"): not identifying there."""
        return self.vocabulary.title_keys

    def _placeholder(self, type_: str, original: str) -> str:
        return self.mask(PHISpan(0, len(original), type_, text=original))

    def group_surrogates(
        self, tag: str, memory: GroupMemory | None = None, avoid: Iterable[str] = ()
    ) -> GroupSurrogates:
        """The surrogates of the patient group tagged ``tag`` (needs :attr:`secret`),
        drawing none with a word of ``avoid``."""
        if self.secret is None:
            raise ValueError("patient groups need a secret (GroupSecret)")
        return GroupSurrogates(self.secret, tag, memory, self.vocabulary, self.keep, self._placeholder, avoid)

    def apply(
        self,
        text: str,
        spans: Sequence[PHISpan],
        mode: str,
        doc_id: str = "",
        surrogates: DocumentSurrogates | None = None,
    ) -> Result:
        """Mask or replace the given spans of ``text`` (found by :meth:`find` or
        elsewhere); ``surrogates`` replaces them instead of the document's own (a
        patient group's, :meth:`deidentify_group`)."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose from {MODES}")
        if mode == ANNOTATE:
            return Result(doc_id, text, annotated_spans(text, spans), mode)
        spans = cover(spans)
        default_action = MASK if mode == MASKED else SURROGATE_ACTION
        needs_surrogates = mode == SURROGATE or SURROGATE_ACTION in self.actions.values()
        if surrogates is None and needs_surrogates:
            surrogates = DocumentSurrogates(
                document_seed(self.seed, doc_id, text),
                vocabulary=self.vocabulary,
                keep=self.keep,
                placeholder=self._placeholder,
                avoid=identifying_words(
                    (replace(s, text=text[s.start : s.end]) for s in spans), self._kept_words, self._titles
                ),
            )

        def surrogate(span: PHISpan) -> str:
            # Up to 40 characters before the span on its line (searched in those 40
            # only: a long single-line document is not scanned back once per span).
            window = max(0, span.start - 40)
            line_start = text.rfind("\n", window, span.start) + 1
            assert surrogates is not None
            return surrogates.replace(span.text, span.type, text[max(line_start, window) : span.start])

        operators: dict[str, Callable[[PHISpan], str]] = {
            MASK: self.mask,
            SURROGATE_ACTION: surrogate,
            KEEP: lambda s: s.text,
            HASH: lambda s: self.hash_value(s.type, s.text),  # type: ignore[misc]
        }
        new_text, done = replace_spans(text, spans, lambda s: operators[self.actions.get(s.type, default_action)](s))
        shift = surrogates.date_shift_days if surrogates is not None and mode == SURROGATE else None
        result = Result(doc_id, new_text, done, mode, shift)
        if isinstance(surrogates, GroupSurrogates) and self.secret is not None:
            result.group, result.group_check, result.group_used = surrogates.tag, self.secret.check(), surrogates.used
        return self._audited(result, text)

    def _audited(self, result: Result, text: str) -> Result:
        """``result`` with its :attr:`~Result.survivors`, masked when :attr:`strict`."""
        placeholders = [i for i, s in enumerate(result.spans) if result.mode == MASKED or s.replacement == self.mask(s)]
        surrogate = result.mode == SURROGATE  # masked mode keeps nothing, and loads no Faker
        kept, titles = (self._kept_words, self._titles) if surrogate else (frozenset(), frozenset())
        result.survivors = audit(result.text, result.spans, placeholders, kept, titles)
        result.strict = self.strict
        if self.strict and result.survivors:
            spans = mask_survivors(text, result.spans, result.survivors, self.mask)
            replacements = {(s.start, s.end): s.replacement for s in spans}
            result.text, result.spans = replace_spans(text, spans, lambda s: replacements[s.start, s.end] or "")
        return result

    def deidentify_group(
        self,
        texts: Sequence[str],
        mode: str,
        doc_ids: Sequence[str],
        tag: str,
        memory: GroupMemory | None = None,
        confidence: bool = True,
    ) -> list[Result]:
        """De-identify the documents of one patient group (tagged ``tag``, see
        :meth:`GroupSecret.tag <deid_crf.deid.groups.GroupSecret.tag>`) together, in two
        passes: find the spans of every document, then (with name propagation on)
        search each document for the names found in any of them and in ``memory`` (what
        earlier batches recorded for the group), and replace: one surrogate per original
        value and one date shift for the whole group. Documents are replaced in the
        order of their ids, so the results do not depend on the order given; they are
        returned in that order."""
        if len(doc_ids) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(doc_ids)} document ids")
        found = self.find(texts, confidence) if texts else []
        if self.rules.propagate:
            found = propagate_across(texts, found, doc_ids, memory)
        order = sorted(range(len(texts)), key=lambda i: doc_ids[i])
        results: dict[int, Result] = {}
        surrogates = None
        if mode == SURROGATE:
            # No surrogate may bring back a word of the group's originals, of this batch or earlier ones.
            avoid = identifying_words(
                (replace(s, text=texts[i][s.start : s.end]) for i, spans in enumerate(found) for s in spans),
                self._kept_words,
                self._titles,
            )
            if memory is not None:
                avoid |= {w for key in [*memory.parts, *(k for _, k in memory.values)] for w in key.split()}
            surrogates = self.group_surrogates(tag, memory, avoid)
        for i in order:
            if surrogates is not None:
                surrogates.start_document()
            results[i] = self.apply(texts[i], found[i], mode, doc_ids[i], surrogates)
            if surrogates is None and mode != ANNOTATE and self.secret is not None:
                results[i].group, results[i].group_check = tag, self.secret.check()
        return [results[i] for i in range(len(texts))]

    def deidentify_many(
        self,
        texts: Sequence[str],
        mode: str = SURROGATE,
        doc_ids: Sequence[str] | None = None,
        confidence: bool = True,
    ) -> list[Result]:
        """:meth:`deidentify` for several texts, tagged together (faster)."""
        doc_ids = list(doc_ids) if doc_ids is not None else [str(i) for i in range(len(texts))]
        if len(doc_ids) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(doc_ids)} document ids")
        found = self.find(texts, confidence) if texts else []
        return [self.apply(t, s, mode, d) for t, s, d in zip(texts, found, doc_ids, strict=True)]

    def deidentify(self, text: str, mode: str = SURROGATE, doc_id: str = "", confidence: bool = True) -> Result:
        """Find the PHI of ``text`` and mask or replace it (``mode``: masked,
        surrogate or annotate). ``doc_id`` names the document in key records and,
        with the seed and the text, seeds its surrogates; ``confidence=False`` skips
        the spans' confidences (NaN; the spans are the same)."""
        return self.deidentify_many([text], mode, [doc_id], confidence)[0]


def _with_alternatives(spans: list[PHISpan], alternatives: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` plus the ``alternatives`` that are not one of them (same offsets and type), sorted."""
    known = {s.entity for s in spans}
    return sorted(spans + [s for s in alternatives if s.entity not in known])


def annotated_spans(text: str, spans: Sequence[PHISpan]) -> list[PHISpan]:
    """``spans`` sorted, each with its ``text`` (no replacement); they may overlap.
    ``ValueError`` (offsets and type only) for a span outside ``text`` or empty."""
    done = []
    for span in sorted(spans):
        if span.start < 0 or span.end > len(text) or span.start >= span.end:
            raise ValueError(f"span {span.start}-{span.end} ({span.type}) lies outside the text or is empty")
        done.append(replace(span, text=text[span.start : span.end], replacement=None))
    return done


def propagate_across(
    texts: Sequence[str],
    found: Sequence[Sequence[PHISpan]],
    doc_ids: Sequence[str],
    memory: GroupMemory | None = None,
) -> list[list[PHISpan]]:
    """The spans of each document of a group plus the occurrences of the names found
    in the other documents (in the order of their ids) and in ``memory``
    (:func:`~deid_crf.deid.rules.propagate_names`; a document's own names first).
    Recall-first candidates are not propagated: a doubtful name stays where it was proposed."""
    order = sorted(range(len(texts)), key=lambda i: doc_ids[i])
    known = [
        (texts[j][s.start : s.end], s.type, s.confidence)
        for j in order
        for s in found[j]
        if s.type in NAME_TYPES and s.source != CANDIDATE
    ]
    if memory is not None:
        known += [(name, type_, 1.0) for name, type_ in sorted(memory.names.items())]
    return [propagate_names(text, spans, known=known) for text, spans in zip(texts, found, strict=True)]


def load(
    path: str | os.PathLike | None = None,
    *,
    rules: RuleLayer | str | None = "default",
    mask: str = DEFAULT_MASK,
    mask_char: str | None = None,
    seed: int | None = None,
    keep: Iterable[str] = DEFAULT_KEEP,
    n_jobs: int | None = 1,
    strict: bool = False,
    secret: GroupSecret | None = None,
) -> Deidentifier:
    """Load a saved tagger (default: ``$DEID_CRF_MODEL_DIR`` or ``models/crf``) as a
    :class:`Deidentifier`."""
    from deid_crf.config import default_model_dir

    tagger = load_model(default_model_dir() if path is None else path, n_jobs=n_jobs)
    return Deidentifier(
        tagger, rules=rules, mask=mask, mask_char=mask_char, seed=seed, keep=keep, strict=strict, secret=secret
    )
