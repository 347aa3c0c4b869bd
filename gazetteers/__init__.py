"""Word lists (names, places, hospitals…) and the code that builds them from declared
sources. Lists arrive with the gazetteer issue; each records its origin and license."""
