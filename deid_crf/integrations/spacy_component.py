"""A spaCy pipeline component that finds PHI with a deid-crf model (extra ``[spacy]``).

    import spacy
    import deid_crf.integrations.spacy_component  # registers the factory (the entry point does too)

    nlp = spacy.blank("es")
    nlp.add_pipe("deid_crf", config={"model": "models/crf"})
    doc = nlp(text)
    doc.ents                                  # PHI spans, labels = MEDDOCAN entity types
    doc.spans["deid_crf"]                     # every span found, overlapping ones included
    doc.spans["deid_crf"].attrs["scores"]     # their confidences, as spaCy's span categorizer stores them
    span._.deid_confidence, span._.deid_source  # the same per span, and who found it (model, rule…)

The component runs what ``deid_crf.load(model)`` runs in ``annotate`` mode: the model,
then the rule layer (``rules``: ``"default"``, a priority of
:data:`~deid_crf.deid.rules.RULE_MODES` or ``"off"``). deid-crf finds spans on the
document's characters with its own tokenizer; each becomes a spaCy span by
``doc.char_span(start, end, alignment_mode="expand")``, so a span that cuts a spaCy token
covers the whole token. ``doc.ents`` cannot hold overlapping spans: where two found spans
share a token after expansion the longer one (then the first) is kept there, and where
one overlaps an entity set earlier in the pipeline, the PHI span replaces it.

The factory is registered under ``spacy_factories`` in ``pyproject.toml``, so an installed
deid-crf is found by ``nlp.add_pipe("deid_crf")`` without an import; the model is loaded
once, when the component is created, and checked as ``deid_crf.tag`` checks it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup
from spacy.util import filter_spans

from deid_crf.deid.deidentifier import load

SPANS_KEY = "deid_crf"
if not Span.has_extension("deid_confidence"):
    Span.set_extension("deid_confidence", default=None)
if not Span.has_extension("deid_source"):
    Span.set_extension("deid_source", default=None)


class DeidCRFComponent:
    """Sets ``doc.ents`` and ``doc.spans[spans_key]`` from a deid-crf model's PHI spans."""

    def __init__(
        self, nlp: Language, name: str, model: str, rules: str, spans_key: str, set_ents: bool, batch_size: int
    ) -> None:
        if not model:
            raise ValueError(f"{name}: config 'model' must name a saved deid-crf model directory")
        self.name = name
        self.spans_key = spans_key
        self.set_ents = set_ents
        self.batch_size = batch_size
        self.deidentifier = load(os.fspath(model), rules=rules)

    def __call__(self, doc: Doc) -> Doc:
        return self._annotate([doc])[0]

    def pipe(self, stream: Iterable[Doc], batch_size: int | None = None) -> Iterator[Doc]:
        """Tag documents ``batch_size`` at a time (one call to the model per batch)."""
        size = batch_size or self.batch_size
        batch: list[Doc] = []
        for doc in stream:
            batch.append(doc)
            if len(batch) >= size:
                yield from self._annotate(batch)
                batch = []
        if batch:
            yield from self._annotate(batch)

    def _annotate(self, docs: list[Doc]) -> list[Doc]:
        found = self.deidentifier.find([doc.text for doc in docs])
        for doc, phi in zip(docs, found, strict=True):
            spans, scores = [], []
            for s in phi:
                span = doc.char_span(s.start, s.end, label=s.type, alignment_mode="expand")
                if span is None or len(span) == 0:  # only whitespace: no token to hold it
                    continue
                span._.deid_confidence = s.confidence
                span._.deid_source = s.source
                spans.append(span)
                scores.append(s.confidence)
            doc.spans[self.spans_key] = SpanGroup(doc, name=self.spans_key, spans=spans, attrs={"scores": scores})
            if self.set_ents:
                ents = filter_spans(spans)
                taken = {i for e in ents for i in range(e.start, e.end)}
                kept = [e for e in doc.ents if not taken.intersection(range(e.start, e.end))]
                doc.ents = sorted(ents + kept, key=lambda e: e.start)
        return docs


@Language.factory(
    "deid_crf",
    default_config={"model": "", "rules": "default", "spans_key": SPANS_KEY, "set_ents": True, "batch_size": 64},
)
def make_deid_crf(
    nlp: Language, name: str, model: str, rules: str, spans_key: str, set_ents: bool, batch_size: int
) -> DeidCRFComponent:
    """The ``deid_crf`` component: ``model`` (a saved model directory; required),
    ``rules`` (default ``"default"``), ``spans_key`` (default ``"deid_crf"``),
    ``set_ents`` (default true) and ``batch_size`` for ``nlp.pipe`` (default 64)."""
    return DeidCRFComponent(nlp, name, model, rules, spans_key, set_ents, batch_size)
