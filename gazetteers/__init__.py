"""Word lists (names, places, streets, titles, occupations, hospitals…) and the code
that builds them from declared sources, each list with its origin and license
(``lists/SOURCES.md``).

- :mod:`deid_crf.gazetteers.build` — ``make gazetteers``: sources → ``lists/*.txt|tsv``;
- :mod:`deid_crf.resources.gazetteer` — lists → a compiled :class:`deid_crf.features.gazetteer.Gazetteer`,
  loaded lazily and cached per process (importing this package reads no file);
- :mod:`deid_crf.gazetteers.annotations` — cross-fitted lists from training annotations.
"""

#: Folder of a list directory where the surrogate vocabulary built from its lists is saved
#: (:mod:`deid_crf.deid.surrogates`); a saved model's copy of the lists leaves it out
#: (:mod:`deid_crf.resources.compact`): surrogates read it from the lists, never from a model.
VOCABULARY_CACHE_DIR = "cache"
