"""A saved model's resources in the compact form tagging needs, and the conversion
of a model saved before it existed.

    python -m deid_crf.resources.compact MODEL_DIR OUT_DIR

Saving a tagger bundles its resources this way (:func:`deid_crf.resources.bundle`):

- ``embeddings_model/``: ``subwords.npz`` (the vocabulary's cluster ids and the 16-bit
  n-gram rows out-of-vocabulary tokens need, :mod:`deid_crf.resources.subwords`) and
  ``clusters.npz``; no fastText binary, so tagging does not need fastText. A model
  whose SVM uses the vectors themselves (``embedding_vectors``) keeps ``vectors.bin``.
- ``pos_model/``: the POS tagger in its version 2 file (16-bit weights of the features
  that have any, :mod:`deid_crf.resources.pos`).
- ``gazetteer_dir/``: the compiled trie only (its arrays and vocabulary in one
  compressed ``compiled/trie.npz``) and ``SOURCES.md``; not the lists.

The conversion checks the model first (its manifest and every resource, as loading
does) and writes ``OUT_DIR`` as :func:`~deid_crf.io.persistence.write_model_dir`
saves a model: staged, with a new manifest, renamed into place when complete.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from deid_crf.config import FeatureConfig, TaggerConfig
from deid_crf.io.names import shown
from deid_crf.io.persistence import (
    CONFIG_FILE,
    HEADER_KEYS,
    MANIFEST_FILE,
    InvalidModel,
    ModelFormat,
    ModelNotFoundError,
    invalid_config,
    load_arrays,
    read_config,
    save_arrays,
    verify_manifest,
    write_model_dir,
)


def compact_embeddings(source: Path, target: Path) -> None:
    """Write ``source``'s embeddings to ``target`` as ``subwords.npz`` + ``clusters.npz``."""
    from deid_crf.resources.embeddings import CLUSTERS_FILE, VECTORS_FILE, Embeddings
    from deid_crf.resources.subwords import MAX_SUBWORD_BYTES, SUBWORDS_FILE, save_subwords

    target.mkdir()
    shutil.copyfile(source / CLUSTERS_FILE, target / CLUSTERS_FILE)
    if not (source / VECTORS_FILE).is_file() and (source / SUBWORDS_FILE).is_file():
        # The same arrays, written as save_arrays writes them now (the rows stored
        # uncompressed since 2026-11-24: nothing to inflate at load).
        save_arrays(target / SUBWORDS_FILE, load_arrays(source / SUBWORDS_FILE, MAX_SUBWORD_BYTES))
        return
    embeddings = Embeddings(source)
    save_subwords(target / SUBWORDS_FILE, embeddings.model, embeddings.centroids)


def compact_pos(source: Path, target: Path) -> None:
    """Save the POS tagger of ``source`` to ``target`` in its current (compact) file."""
    from deid_crf.resources.pos import PosTagger

    PosTagger.load(source).save(target)


def compact_gazetteer(source: Path, target: Path) -> None:
    """Copy the gazetteer folder ``source`` to ``target`` with its lists compiled and
    removed, and without the surrogate vocabulary saved beside them: surrogates read it
    from the project's lists, never from a model (it would add 1.3 MB to the model)."""
    from deid_crf.gazetteers import VOCABULARY_CACHE_DIR
    from deid_crf.resources.gazetteer import save_compiled

    shutil.copytree(source, target, ignore=shutil.ignore_patterns(VOCABULARY_CACHE_DIR))
    save_compiled(target, keep_lists=False)


def compact_resource(field: str, source: Path, target: Path, config: FeatureConfig) -> None:
    """Write the resource of ``config``'s path field ``field`` found at ``source`` to
    ``target`` in its compact form (a copy when it has none)."""
    if field == "embeddings_model" and not config.embedding_vectors:
        compact_embeddings(source, target)
    elif field == "pos_model":
        compact_pos(source, target)
    elif field == "gazetteer_dir":
        compact_gazetteer(source, target)
    elif source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copyfile(source, target)


def convert(model_dir: Path, out_dir: Path) -> Path:
    """Write the model of ``model_dir`` to ``out_dir`` with compact resources."""
    from deid_crf.resources import RESOURCES, bundled_groups, resolve, resource_of

    if not verify_manifest(model_dir):
        print(f"warning: {shown(model_dir)}: no {MANIFEST_FILE}; its files are not checked", file=sys.stderr)
    meta = read_config(model_dir)
    with invalid_config(model_dir):
        header = ModelFormat(str(meta["format"]), int(meta["version"]), str(meta["kind"]))
        config = TaggerConfig.from_dict(meta["config"])
    resolve(config.features, model_dir)  # every resource inside the folder (InvalidModel)
    fields = {RESOURCES[resource_of(group)].path_field for group in bundled_groups(config.features)}
    resource_names = {getattr(config.features, field) for field in fields}
    listed = _listed_files(model_dir)

    def write(staging: Path) -> dict:
        for field in sorted(fields):
            name = getattr(config.features, field)
            compact_resource(field, model_dir / name, staging / name, config.features)
        for name in listed:  # the model's own files (model.crfsuite, an SVM's weights.npz)
            if name in (CONFIG_FILE, MANIFEST_FILE) or name.split("/", 1)[0] in resource_names:
                continue
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(model_dir / name, staging / name)
        return {key: value for key, value in meta.items() if key not in HEADER_KEYS}

    return write_model_dir(out_dir, header, write)


def _listed_files(model_dir: Path) -> list[str]:
    """The files of the model: those its manifest lists, or (a model saved before
    manifests) every regular file in it."""
    manifest = model_dir / MANIFEST_FILE
    if manifest.is_file():
        return sorted(json.loads(manifest.read_text(encoding="utf-8"))["files"])
    return sorted(
        p.relative_to(model_dir).as_posix() for p in model_dir.rglob("*") if p.is_file() and not p.is_symlink()
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.resources.compact",
        description="Copy a saved model with its resources in the compact form tagging needs "
        "(no fastText binary, 16-bit POS weights, the gazetteer compiled only).",
    )
    parser.add_argument("model_dir", type=Path, metavar="MODEL_DIR", help="a saved model (left as it is)")
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR", help="where to write the compact model")
    args = parser.parse_args(argv)
    if args.out_dir.resolve() == args.model_dir.resolve():
        print("error: OUT_DIR must differ from MODEL_DIR", file=sys.stderr)
        return 2
    try:
        convert(args.model_dir, args.out_dir)
    except (ModelNotFoundError, InvalidModel, FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"compact model written to {shown(args.out_dir)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
