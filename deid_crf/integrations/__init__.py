"""deid-crf inside other libraries' pipelines (optional extras): :mod:`.spacy_component`."""
