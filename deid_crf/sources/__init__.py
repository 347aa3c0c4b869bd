"""The corpora the default model needs: where each comes from, under which license,
and the SHA-256 of every file (:mod:`deid_crf.sources.manifest`, reading
``manifest.toml`` beside it), and the download that fetches and verifies them
(:mod:`deid_crf.sources.fetch`, ``make data``)."""
