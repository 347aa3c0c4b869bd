"""The model card saved with every tagger: what it was trained on and under which
licenses, its feature set and hyper-parameters, its dev scores, when and with which
versions of deid-crf and Faker (whose generator wrote the synthetic training notes).

Two files, written into the staging folder before the manifest so that
``MANIFEST.json`` covers them: ``model_card.json`` (for programs) and
``MODEL_CARD.md`` (for people). Loading a model never reads them, so models saved
before cards existed load as before.

The corpora come from the data manifest (:mod:`deid_crf.sources.manifest`): the
sources that ``feed`` the tagger, and those of each bundled resource the features use
(POS tagger, embeddings); the gazetteer lists are described by their own
``SOURCES.json`` (one license per list), copied here as the model holds them.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deid_crf.config import FeatureConfig
from deid_crf.io.names import shown
from deid_crf.io.persistence import InvalidModel
from deid_crf.resources import used_groups

CARD_JSON = "model_card.json"
CARD_MARKDOWN = "MODEL_CARD.md"
CARD_FORMAT = ("deid-crf-model-card", 1)
# Feature group → the resource it uses, as named in the data manifest's ``feeds``.
GROUP_FEEDS = {"pos": "pos_tagger", "embeddings": "embeddings"}
# Packages whose versions decide what a model is and what its outputs are.
SOFTWARE = ("deid-crf", "faker", "python-crfsuite", "sklearn-crfsuite", "scikit-learn", "numpy", "fasttext")


def software_versions(packages: tuple[str, ...] = SOFTWARE) -> dict[str, str | None]:
    """Installed version of each package (None when it is not installed)."""
    from importlib import metadata  # a card is written at training only: tagging never pays for the import

    versions: dict[str, str | None] = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def training_sources(features: FeatureConfig) -> list[dict[str, Any]]:
    """The data-manifest sources a model with ``features`` was trained from: the
    tagger's corpus, and the corpora of the POS tagger and embeddings it uses."""
    groups = used_groups(features)
    feeds = {"tagger"} | {GROUP_FEEDS[g] for g in groups if g in GROUP_FEEDS}
    if "pos" in groups and features.pos_backend != "builtin":
        feeds.discard("pos_tagger")  # stanza's own model: its corpora are stanza's
    from deid_crf.sources.manifest import ManifestError, load_manifest  # (training only, as above)

    try:
        manifest = load_manifest()
    except ManifestError as exc:
        return [{"error": f"data manifest unreadable: {exc}"}]
    return [
        {
            "name": s.name,
            "title": s.title,
            "license": s.license,
            "license_url": s.license_url,
            "homepage": s.homepage,
            "used_for": s.used_for,
            "feeds": [f for f in s.feeds if f in feeds],
        }
        for s in manifest.sources
        if feeds & set(s.feeds)
    ]


def gazetteer_lists(model_dir: Path, features: FeatureConfig) -> list[dict[str, Any]]:
    """Each bundled gazetteer list with its description, size and license."""
    if "gazetteers" not in used_groups(features) or features.gazetteer_dir is None:
        return []
    try:
        sources = json.loads((model_dir / features.gazetteer_dir / "SOURCES.json").read_text(encoding="utf-8"))
        lists = sources["lists"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [
        {
            "list": name,
            "description": info.get("description", ""),
            "entries": info.get("entries"),
            "license": info.get("license", ""),
        }
        for name, info in sorted(lists.items())
        if isinstance(info, dict)
    ]


def build_card(
    model_dir: Path,
    kind: str,
    hyperparameters: Mapping[str, Any],
    features: FeatureConfig,
    training_data: Mapping[str, Any] | None,
    evaluation: Mapping[str, Any] | None,
    now: datetime.datetime | None = None,
) -> dict[str, Any]:
    """The card of a model being saved into ``model_dir`` (its staging folder)."""
    now = now or datetime.datetime.now(datetime.UTC)
    return {
        "format": CARD_FORMAT[0],
        "version": CARD_FORMAT[1],
        "kind": kind,
        "saved": now.isoformat(timespec="seconds"),
        "software": software_versions(),
        "training_data": dict(training_data) if training_data is not None else None,
        "sources": training_sources(features),
        "gazetteer_lists": gazetteer_lists(model_dir, features),
        "features": {
            "groups": list(features.groups),
            "window": features.window,
            "window_columns": list(features.window_columns),
            "pos_backend": features.pos_backend if "pos" in features.groups else None,
        },
        "hyperparameters": dict(hyperparameters),
        "evaluation": dict(evaluation) if evaluation is not None else None,
    }


def card_markdown(card: Mapping[str, Any]) -> str:
    """``card`` for people to read."""
    software = card["software"]
    lines = [
        f"# Model card: deid-crf {card['kind']} tagger",
        "",
        f"- Saved: {card['saved']} (UTC)",
        f"- deid-crf {software.get('deid-crf') or 'unknown'}, Faker {software.get('faker') or 'not installed'}; "
        + ", ".join(f"{k} {v}" for k, v in software.items() if k not in ("deid-crf", "faker") and v),
        "- Task: finding protected health information (PHI) in Spanish clinical text, MEDDOCAN entity types.",
        "",
        "## Training data",
        "",
    ]
    data = card["training_data"]
    if data:
        lines.append(
            f"MEDDOCAN splits {', '.join(data.get('train', []))}"
            + (f", rewritten copies (rewrite = {data.get('rewrite')})" if data.get("rewrite") else "")
            + (
                f", {data.get('synthetic')} synthetic notes generated with Faker {software.get('faker')} "
                f"(seed {data.get('augment_seed')})"
                if data.get("synthetic")
                else ""
            )
            + "."
        )
    else:
        lines.append("Not recorded (the model was saved without its run's `[data]` table).")
    lines += ["", "| source | license | used for |", "|---|---|---|"]
    for source in card["sources"]:
        if "error" in source:
            lines.append(f"| {source['error']} | | |")
            continue
        license_text = f"[{source['license']}]({source['license_url']})" if source["license_url"] else source["license"]
        lines.append(f"| [{source['title']}]({source['homepage']}) | {license_text} | {source['used_for']} |")
    if card["gazetteer_lists"]:
        lines += ["", "Gazetteer lists bundled with the model:", "", "| list | entries | license |", "|---|---:|---|"]
        lines += [
            f"| {g['list']}: {g['description']} | {g['entries']} | {_cell(g['license'])} |"
            for g in card["gazetteer_lists"]
        ]
    features = card["features"]
    lines += [
        "",
        "## Features and hyper-parameters",
        "",
        f"- Feature groups: {', '.join(features['groups'])}; window ±{features['window']} over "
        f"{', '.join(features['window_columns'])}"
        + (f"; POS from {features['pos_backend']}" if features["pos_backend"] else ""),
        f"- Hyper-parameters: `{json.dumps(card['hyperparameters'], sort_keys=True)}`",
        "",
        "## Evaluation",
        "",
    ]
    evaluation = card["evaluation"]
    if evaluation:
        lines += [
            f"MEDDOCAN measures on {evaluation['split']} ({evaluation.get('n_documents')} documents), model alone "
            "(no rule layer):",
            "",
            "| measure | P | R | F1 |",
            "|---|---:|---:|---:|",
        ]
        for measure in ("ner", "strict", "merged"):
            p, r, f1 = (evaluation.get(f"{measure}_{k}") for k in ("p", "r", "f1"))
            if f1 is not None:
                lines.append(f"| {measure} | {p:.4f} | {r:.4f} | {f1:.4f} |")
    else:
        lines.append("Not evaluated when it was saved.")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def write_card(model_dir: Path, card: Mapping[str, Any]) -> None:
    """Write ``model_card.json`` and ``MODEL_CARD.md`` into ``model_dir``."""
    (model_dir / CARD_JSON).write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (model_dir / CARD_MARKDOWN).write_text(card_markdown(card), encoding="utf-8")


def read_card(model_dir: str | Path) -> dict[str, Any] | None:
    """The card of a saved model, or None for a model saved before cards existed;
    :class:`~deid_crf.io.persistence.InvalidModel` naming the file when unreadable."""
    path = Path(model_dir) / CARD_JSON
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise InvalidModel(f"{shown(path)}: unreadable model card ({type(exc).__name__})") from None
    if not isinstance(card, dict) or (card.get("format"), card.get("version")) != CARD_FORMAT:
        raise InvalidModel(f"{shown(path)}: not a deid-crf model card of version {CARD_FORMAT[1]}")
    return card
