"""Word lists (names, places, streets, titles, occupations, hospitals…) and the code
that builds them from declared sources, each list with its origin and license
(``lists/SOURCES.md``).

- :mod:`deid_crf.gazetteers.build` — ``make gazetteers``: sources → ``lists/*.txt|tsv``;
- :mod:`deid_crf.resources.gazetteer` — lists → a compiled :class:`deid_crf.features.gazetteer.Gazetteer`,
  loaded lazily and cached per process (importing this package reads no file);
- :mod:`deid_crf.gazetteers.annotations` — cross-fitted lists from training annotations.
"""
