"""Word lists (names, places, streets, titles, occupations, hospitals…) and the code
that builds them from declared sources, each list with its origin and license
(``lists/SOURCES.md``).

- :mod:`gazetteers.build` — ``make gazetteers``: sources → ``lists/*.txt|tsv``;
- :mod:`gazetteers.load` — lists → a compiled :class:`features.gazetteer.Gazetteer`,
  loaded lazily and cached per process (importing this package reads no file);
- :mod:`gazetteers.annotations` — cross-fitted lists from training annotations.
"""
