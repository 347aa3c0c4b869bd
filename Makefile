# The verbs users type. `make install` creates .venv/ and installs the package there.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
DATA_DIR ?= ../shared/data
MODEL_DIR ?= models/crf
N_JOBS ?= -1
export DEID_CRF_DATA_DIR := $(DATA_DIR)

.PHONY: help data recall-curve notes-brat eval-notes ablation-augment install train-crf train-svm evaluate test test-fast bench alignment gazetteers pos-model embeddings ablation rules-table notebooks figures grid-search bench-dask bench-long lint clean

.DEFAULT_GOAL := help

## List the verbs with what they do.
help:
	@awk '/^## /{doc = doc (doc ? " " : "") substr($$0, 4); next} /^[A-Z_]+ *[?:]?=/{next} /^[a-zA-Z][a-zA-Z_-]*:/{if (doc) {split($$0, t, ":"); printf "  make %-13s %s\n", t[1], doc}} {doc = ""}' $(MAKEFILE_LIST)

## Create .venv/ and install the package with its test, lint, Dask, spaCy and Parquet extras (versions in constraints.txt held fixed).
install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev,dask,spacy,parquet]'
	touch $@

## Download every corpus the default model needs into $(DATA_DIR), verifying each file's SHA-256 against
## deid_crf/sources/manifest.toml (nothing already verified is fetched again): make data [MIRROR=DIR_OR_URL]
## (derived files, which have no public URL, come only from a MIRROR).
MIRROR ?=
data: install
	$(PY) -m deid_crf.sources.fetch --data-dir $(DATA_DIR) $(if $(MIRROR),--mirror $(MIRROR))

## Train the default CRF on $(DATA_DIR)/meddocan/train, evaluate on dev, save to $(MODEL_DIR).
## Its full feature set (POS, gazetteers, embeddings, document labels) needs resources that
## are built first, once (about 10 minutes); FEATURES=core trains without them.
FEATURES ?= full
train-crf: install $(if $(filter full,$(FEATURES)),pos-model embeddings gazetteers)
	$(PY) -m deid_crf.train --config configs/crf.toml --features $(FEATURES) --data-dir $(DATA_DIR) --model-dir $(MODEL_DIR) --n-jobs $(N_JOBS)

## Train the window SVM (Cotik et al. 2019) the same way, saved to models/svm.
train-svm: install
	$(PY) -m deid_crf.train --config configs/svm.toml --data-dir $(DATA_DIR) --model-dir models/svm --n-jobs $(N_JOBS)

## Score a directory of system .ann files: make evaluate SYS=out/ [GOLD=$(DATA_DIR)/meddocan/dev]
GOLD ?= $(DATA_DIR)/meddocan/dev
evaluate: install
	@test -n "$(SYS)" || { echo "usage: make evaluate SYS=DIR [GOLD=DIR]"; exit 2; }
	$(PY) -m deid_crf.evaluate $(GOLD) $(SYS)

## All tests, including the end-to-end ones on the shared MEDDOCAN data (marked slow).
test: install
	$(PY) -m pytest

## The fast tests only (no training on the shared data).
test-fast: install
	$(PY) -m pytest -m "not slow"

## Throughput, training time and memory on the dev split; the command line as users run it, with $(MODEL_DIR).
bench: install pos-model embeddings gazetteers
	$(PY) -m deid_crf.experiments.bench --data-dir $(DATA_DIR) --model $(MODEL_DIR)

## One 10 MiB single-line document (dev texts end to end) through the tag CLI: wall and CPU time, memory (needs $(MODEL_DIR)).
bench-long: install
	$(PY) -m deid_crf.experiments.long_document --data-dir $(DATA_DIR) --model $(MODEL_DIR)

## Dask backend: documents/s and tokens/s with 1 and 2 workers on dev x10, and the 2/1 ratio (needs $(MODEL_DIR)).
bench-dask: install
	$(PY) -m deid_crf.experiments.bench_dask --data-dir $(DATA_DIR) --model $(MODEL_DIR)

## How many gold entities of train+dev the tokenizer and sentence splitter cannot represent.
alignment: install
	$(PY) -m deid_crf.experiments.alignment --data-dir $(DATA_DIR)

## Gazetteer word lists in gazetteers/lists/ from $(DATA_DIR)/gazetteer_sources (sources, licenses: gazetteers/lists/SOURCES.md),
## and the surrogate vocabulary built from them (gazetteers/lists/cache/), which surrogate runs load instead of building.
gazetteers: install
	$(PY) -m deid_crf.gazetteers.build --data-dir $(DATA_DIR) --out gazetteers/lists
	$(PY) -m deid_crf.deid.surrogates gazetteers/lists

## Built-in POS tagger in models/pos from SPACCC + UD GSD/PUD (docs/resources.md).
pos-model: models/pos/config.json
models/pos/config.json: | install
	$(PY) -m deid_crf.resources.pos train --data-dir $(DATA_DIR) --model models/pos

## fastText skipgram vectors + k-means clusters in models/embeddings from $(DATA_DIR)/unlabeled_es_clinical.
embeddings: models/embeddings/clusters.npz
models/embeddings/clusters.npz: | install
	$(PY) -m deid_crf.resources.embeddings train --data-dir $(DATA_DIR) --out models/embeddings

## Feature-group ablation on dev (trains one CRF per row; about 3 minutes a row).
ablation: install pos-model embeddings gazetteers
	$(PY) -m deid_crf.experiments.ablation --data-dir $(DATA_DIR)

## Rule layer on dev: model alone vs with the regex recognizers under each priority (table in docs/deidentification.md).
rules-table: install
	$(PY) -m deid_crf.experiments.rules_table --data-dir $(DATA_DIR) --model $(MODEL_DIR)

## Recall-first operating points on dev: NER P/R/F1, merged recall, leak at several --recall-first thresholds (needs $(MODEL_DIR)).
recall-curve: install
	$(PY) -m deid_crf.experiments.recall_curve --data-dir $(DATA_DIR) --model $(MODEL_DIR)

## Model alone and shipped pipeline on the multi-format notes (evaluation/notes): dev, dev2 … dev20 and test, per type.
eval-notes: install
	$(PY) -m deid_crf.experiments.eval_notes --model $(MODEL_DIR)

## What each training-data source adds (MEDDOCAN only, +rewrite, +synthetic, both): dev and notes scores.
ablation-augment: install
	$(PY) -m deid_crf.experiments.augment_ablation --config configs/crf.toml --data-dir $(DATA_DIR)

## Grid search (resumable; results/NAME.csv, one row per point): make grid-search [GRID=configs/FILE.toml]
GRID ?= configs/grid-example.toml
grid-search: install
	$(PY) -m deid_crf.experiments.grid $(GRID) --data-dir $(DATA_DIR) --n-jobs $(N_JOBS)

## Execute the notebooks with papermill, full settings, into notebooks/out/ (executed copies + figures/, git-ignored).
## The error analysis and the recall-first curve use $(MODEL_DIR) when it holds a model, else train a CRF themselves.
NOTEBOOKS ?= notebooks/grid_search.ipynb notebooks/error_analysis.ipynb notebooks/learning_curve.ipynb notebooks/recall_first.ipynb
notebooks: install
	@mkdir -p notebooks/out
	@set -e; for nb in $(NOTEBOOKS); do \
		model=; \
		if { [ "$$(basename $$nb)" = error_analysis.ipynb ] || [ "$$(basename $$nb)" = recall_first.ipynb ]; } \
			&& [ -f $(MODEL_DIR)/config.json ]; then \
			model="-p model_dir $(abspath $(MODEL_DIR))"; fi; \
		echo "papermill $$nb notebooks/out/$$(basename $$nb)"; \
		$(VENV)/bin/papermill $$nb notebooks/out/$$(basename $$nb) --cwd notebooks/out --no-progress-bar \
			-p data_dir $(abspath $(DATA_DIR)) $$model; \
	done

## Documentation figures as PNG in docs/figures/: confusion matrix, per-type scores and false negatives of
## $(MODEL_DIR) on dev (skipped without a model), a learning curve (trains four core-feature CRFs on 25 to 200
## documents, about a minute) and the c1 x c2 heat map of results/grid-example.csv (skipped until make grid-search).
figures: install
	$(PY) -m deid_crf.experiments.figures --data-dir $(DATA_DIR) --model $(MODEL_DIR) \
		--grid-csv results/$(basename $(notdir $(GRID))).csv --out docs/figures

## The multi-format evaluation notes as BRAT (evaluation/notes/brat/{dev,dev2,dev3,dev4,dev5,dev6,dev7,dev8,dev9,dev10,dev11,dev12,dev13,dev14,dev15,dev16,dev17,dev18,dev19,dev20,test}) from their markup source.
notes-brat: install
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev evaluation/notes/brat/dev
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev2 evaluation/notes/brat/dev2
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev3 evaluation/notes/brat/dev3
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev4 evaluation/notes/brat/dev4
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev5 evaluation/notes/brat/dev5
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev6 evaluation/notes/brat/dev6
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev7 evaluation/notes/brat/dev7
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev8 evaluation/notes/brat/dev8
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev9 evaluation/notes/brat/dev9
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev10 evaluation/notes/brat/dev10
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev11 evaluation/notes/brat/dev11
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev12 evaluation/notes/brat/dev12
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev13 evaluation/notes/brat/dev13
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev14 evaluation/notes/brat/dev14
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev15 evaluation/notes/brat/dev15
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev16 evaluation/notes/brat/dev16
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev17 evaluation/notes/brat/dev17
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev18 evaluation/notes/brat/dev18
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev19 evaluation/notes/brat/dev19
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/dev20 evaluation/notes/brat/dev20
	$(PY) -m deid_crf.io.markup evaluation/notes/markup/test evaluation/notes/brat/test

## Lint and format check (ruff), as CI runs it.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## Remove the virtualenv, trained models and caches.
clean:
	rm -rf $(VENV) models cache .pytest_cache .hypothesis
