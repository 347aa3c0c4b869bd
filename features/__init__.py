"""Feature extractors: pure functions from token arrays to feature value arrays.

Nothing here reads files or knows about models. ``deid_crf.features.registry`` names the
feature groups so a configuration can switch them on and off.
"""
