"""De-identification: the rule layer over the model's spans, surrogates, audits and keys.

The rule layer and the surrogates are imported here, within
:func:`~deid_crf.io.pattern_cache.kept_compiles`: their ~500 regular expressions are
compiled once per machine and kept, not compiled again at every run's start."""

from deid_crf.io.pattern_cache import kept_compiles

with kept_compiles():
    from deid_crf.deid import rules, surrogates  # noqa: F401
