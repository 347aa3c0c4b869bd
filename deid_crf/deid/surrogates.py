"""Realistic, consistent replacements ("surrogates") for PHI spans.

:class:`DocumentSurrogates` replaces the spans of one document. Everything it draws
comes from one random generator seeded from the run's seed and the document, so the
same seed gives the same output whatever the order or the process a document is
handled in. Within a document the same normalised string always gets the same
surrogate, and names are replaced part by part ("Ernesto Rivera Bueno" and a later
"Sr. Rivera" share the surrogate of "Rivera"). The letter case of the original is
kept (``RIVERA`` → ``GÓMEZ``).

What each type becomes:

* names (patient, staff, relatives' names): each part from first-name or surname
  lists, a first name of the same gender when the lists tell it; particles
  (``de``, ``del``…), titles (``Dr.``) and kinship words (``madre``) are kept;
* dates: shifted by one random number of days per document (±1…365), written in
  the same format (``03/03/1946``, ``5-4-17``, ``15 de marzo de 2016``,
  ``diciembre-08``, ``año 2004``); a weekday name is recomputed;
* ages: kept, or capped at 90 from 90 years on (HIPAA);
* streets, towns, provinces, countries, hospitals, institutions, professions,
  e-mails, URLs and IP addresses: values from the project's gazetteers where built
  (``gazetteers/lists``), otherwise from Faker's ``es_ES`` lists (saved in the
  :class:`Vocabulary`: tagging imports no Faker); a street keeps its type word
  (``Calle``, ``Avda.``) and the shape of its numbers;
* phone numbers and identifiers: the same pattern of digits, letters and separators
  with new digits; a DNI/NIE gets a valid check letter, a valid NASS valid check
  digits; a phone keeps its country prefix and first digit;
* sex (``SEXO_SUJETO_ASISTENCIA``) is kept by default (changing it would contradict
  the clinical content), and types with no realistic generator
  (``OTROS_SUJETO_ASISTENCIA``) get their placeholder, e.g. ``[OTROS_SUJETO_ASISTENCIA]``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import random
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from deid_crf.deid.recognizers import number_words
from deid_crf.deid.recognizers.common import longest_first
from deid_crf.deid.recognizers.national_ids import dni_letter, nass_is_valid
from deid_crf.gazetteers import VOCABULARY_CACHE_DIR, spanish
from deid_crf.gazetteers.spanish import (
    ADDRESS_WORDS,
    CATALAN_MONTHS,
    GALICIAN_MONTHS,
    INSTITUTION_WORDS,
    KINSHIP,
    MONTHS,
    PARTICLES,
    ROMAN_MONTHS,
    TITLE_WORDS,
    WEEKDAYS,
)

if TYPE_CHECKING:
    from faker import Faker  # imported only by the training data's rewrite (DocumentSurrogates' faker)

MAX_SHIFT_DAYS = 365
AGE_CAP = 90
DEFAULT_KEEP = frozenset({"SEXO_SUJETO_ASISTENCIA"})

PERSON_TYPES = ("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO")
RELATIVE_TYPE = "FAMILIARES_SUJETO_ASISTENCIA"
ID_TYPES = (
    "ID_SUJETO_ASISTENCIA",
    "ID_CONTACTO_ASISTENCIAL",
    "ID_ASEGURAMIENTO",
    "ID_TITULACION_PERSONAL_SANITARIO",
    "ID_EMPLEO_PERSONAL_SANITARIO",
    "IDENTIF_VEHICULOS_NRSERIE_PLACAS",
    "IDENTIF_DISPOSITIVOS_NRSERIE",
    "NUMERO_IDENTIF",
)

# The other words a relative's span holds besides kinship words and name particles
# ("dos hermanos", "su pareja", "madre de 60 años", "primo en primer grado"); any
# other word of such a span is taken as a name and replaced, whatever its case. Once
# a name has been replaced, a capitalised one of these words is a name too ("sobrino
# Andrés en Dos Hermanas": the town, not two sisters).
RELATIVE_WORDS = KINSHIP | frozenset(
    """
    un una uno unos unas su sus mi ambos ambas con o u en sin que otros otras
    dos tres cuatro cinco seis siete ocho nueve diez once doce
    primer primero primera segundo segunda tercer tercero tercera grado rama linea lado parte
    masculino masculina femenino femenina mediano mediana joven jovenes miembro miembros
    ano anos mes meses semana semanas dia dias edad
    """.split()
)


def normalize(text: str) -> str:
    """The key of consistency: :func:`deid_crf.gazetteers.spanish.normalize` (case and
    accents folded) with runs of spaces collapsed."""
    return " ".join(spanish.normalize(text).split())


@functools.lru_cache(maxsize=16)
def _keys_of(pool: tuple[str, ...]) -> frozenset[str]:
    """The :func:`normalize` keys of a vocabulary list, built once per list, not for
    each place replaced (350 names: a tenth of the surrogate format's replacing)."""
    return frozenset(normalize(p) for p in pool)


def match_case(original: str, surrogate: str) -> str:
    """``surrogate`` in the letter case of ``original`` (upper, lower or capitalised)."""
    letters = [c for c in original if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return surrogate.upper()
    if letters and all(c.islower() for c in letters):
        return surrogate.lower()
    if letters and letters[0].isupper() and surrogate[:1].islower():
        return surrogate[:1].upper() + surrogate[1:]
    return surrogate


def document_seed(seed: int, doc_id: str, text: str) -> int:
    """A 64-bit seed for one document from the run's seed, its id and its text."""
    digest = hashlib.sha256(f"{seed}\0{doc_id}\0".encode() + text.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big")


# ----------------------------------------------------------------------------- lists


# The gazetteer lists the vocabulary is built from (those that are built).
VOCABULARY_LISTS = (
    "first_names",
    "surnames",
    "meddocan_first_names",
    "meddocan_surnames",
    "municipalities",
    "provinces",
    "autonomous_communities",
    "countries",
    "meddocan_hospitals",
    "street_types",
    "titles",
)
# The built vocabulary, saved by ``make gazetteers`` beside the lists: loading it takes
# a tenth of building it (0.01 s against 0.11 s, in the serial start of every surrogate
# run), most of which is folding 88,000 name keys.
VOCABULARY_CACHE = Path(VOCABULARY_CACHE_DIR) / "surrogate_vocabulary.json"
_VOCABULARY_CACHE_FORMAT = 2


def _gazetteer_lists(names: Iterable[str], directory: Path | None = None) -> dict[str, list[str]]:
    """The project's gazetteer lists that are built (``make gazetteers``); empty when
    none are. Entries of banded lists (``.tsv``) are their first column."""
    try:
        from deid_crf.resources.gazetteer import DEFAULT_DIR, read_list, read_manifest

        directory = directory or DEFAULT_DIR
        manifest = read_manifest(directory)
    except Exception:  # the gazetteers are optional: no manifest, no package, another layout
        return {}
    out = {}
    for name in names:
        try:
            entries = read_list(directory / manifest["lists"][name]["file"])
        except Exception:
            continue
        out[name] = list(entries)
    return out


def _vocabulary_fingerprint(directory: Path) -> dict | None:
    """What a saved vocabulary was built from: the lists (their checksums in the
    manifest), Faker's version and this code (this module and the Spanish tables, whose
    title words and folding it uses). None without a manifest."""
    try:
        from importlib import metadata

        from deid_crf.resources.gazetteer import read_manifest

        lists = read_manifest(directory)["lists"]
        code = hashlib.sha256(Path(__file__).read_bytes() + Path(spanish.__file__).read_bytes()).hexdigest()
    except Exception:
        return None
    return {
        "format": _VOCABULARY_CACHE_FORMAT,
        "faker": metadata.version("faker"),  # (not `import faker`: 0.05 s of the serial start)
        "code": code,
        "lists": {name: lists[name].get("sha256") for name in VOCABULARY_LISTS if name in lists},
    }


def _single_words(values: Iterable[str]) -> list[str]:
    return sorted({v for v in values if v and v.replace("-", "").isalpha()})


@dataclass(frozen=True)
class Vocabulary:
    """The value lists surrogates are drawn from, and the sets that recognise name parts."""

    male_names: tuple[str, ...]
    female_names: tuple[str, ...]
    surnames: tuple[str, ...]
    towns: tuple[str, ...]
    provinces: tuple[str, ...]
    regions: tuple[str, ...]
    countries: tuple[str, ...]
    hospitals: tuple[str, ...]
    jobs: tuple[str, ...]
    company_prefixes: tuple[str, ...]  # Grupo, Hermanos
    company_suffixes: tuple[str, ...]  # S.L., S.Coop.
    email_domains: tuple[str, ...]
    web_tlds: tuple[str, ...]
    street_types: frozenset[str]  # normalised, without a final dot
    first_name_keys: frozenset[str] = field(repr=False)
    male_keys: frozenset[str] = field(repr=False)
    female_keys: frozenset[str] = field(repr=False)
    surname_keys: frozenset[str] = field(repr=False)
    common_surname_keys: frozenset[str] = field(repr=False)
    title_keys: frozenset[str] = field(repr=False)

    @classmethod
    @functools.cache
    def default(cls) -> Vocabulary:
        """Faker ``es_ES`` lists, extended with the project's gazetteers when built:
        the saved vocabulary (:meth:`save`) when it was built from the same lists,
        Faker and code, otherwise built now and saved for the next runs (where the
        folder can be written: a stale cache would cost every run 0.16 s)."""
        from deid_crf.resources.gazetteer import DEFAULT_DIR

        saved = cls.load(DEFAULT_DIR)
        if saved is not None:
            return saved
        built = cls.build()
        try:
            built.save(DEFAULT_DIR)
        except OSError:  # a read-only installation: build at every run, as before
            pass
        return built

    @classmethod
    def build(cls, directory: Path | None = None) -> Vocabulary:
        """Built from Faker ``es_ES`` and the gazetteer lists of ``directory`` (the
        project's by default) that are built."""
        from faker import Faker

        fake = Faker("es_ES")
        person = fake.provider("faker.providers.person")
        address = fake.provider("faker.providers.address")
        company = fake.provider("faker.providers.company")
        internet = fake.provider("faker.providers.internet")
        lists = _gazetteer_lists(VOCABULARY_LISTS, directory)
        male, female = _single_words(person.first_names_male), _single_words(person.first_names_female)
        surnames = _single_words(person.last_names)
        known_first = [*male, *female, *lists.get("first_names", []), *lists.get("meddocan_first_names", [])]
        known_surnames = [*surnames, *lists.get("surnames", []), *lists.get("meddocan_surnames", [])]
        street_types = [*address.street_prefixes, *lists.get("street_types", []), "C/", "Avda", "Av", "Pº", "Ctra"]
        return cls(
            male_names=tuple(male),
            female_names=tuple(female),
            surnames=tuple(surnames),
            towns=tuple(lists.get("municipalities") or address.states),
            provinces=tuple(lists.get("provinces") or address.states),
            regions=tuple(lists.get("autonomous_communities") or address.regions),
            countries=tuple(lists.get("countries") or address.countries),
            hospitals=tuple(lists.get("meddocan_hospitals", ())),
            jobs=tuple(fake.provider("faker.providers.job").jobs),
            company_prefixes=tuple(company.company_prefixes),
            company_suffixes=tuple(company.company_suffixes),
            email_domains=tuple(internet.free_email_domains),
            web_tlds=tuple(internet.tlds),
            street_types=frozenset(normalize(s).rstrip(".") for s in street_types),
            first_name_keys=frozenset(normalize(n) for n in known_first),
            male_keys=frozenset(normalize(n) for n in male),
            female_keys=frozenset(normalize(n) for n in female),
            surname_keys=frozenset(normalize(n) for n in known_surnames),
            common_surname_keys=frozenset(normalize(n) for n in surnames),
            title_keys=frozenset([*TITLE_WORDS, *(normalize(t).rstrip(".") for t in lists.get("titles", []))]),
        )

    def save(self, directory: Path) -> Path | None:
        """Save this vocabulary, built from ``directory``'s lists, as JSON in
        ``directory`` (:data:`VOCABULARY_CACHE`), atomically; None when there is no
        manifest to fingerprint it by."""
        fingerprint = _vocabulary_fingerprint(directory)
        if fingerprint is None:
            return None
        fields_ = {
            f.name: sorted(value) if isinstance(value := getattr(self, f.name), frozenset) else list(value)
            for f in dataclasses.fields(self)
        }
        path = directory / VOCABULARY_CACHE
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(
                json.dumps({"fingerprint": fingerprint, "fields": fields_}, ensure_ascii=False), encoding="utf-8"
            )
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
        return path

    @classmethod
    def load(cls, directory: Path) -> Vocabulary | None:
        """The vocabulary :meth:`save` wrote in ``directory``, if it was built from the
        lists, Faker and code there are now; None otherwise (or if it is unreadable:
        it is rebuilt then, never trusted)."""
        path = directory / VOCABULARY_CACHE
        try:
            saved = json.loads(path.read_bytes())
            if saved["fingerprint"] != _vocabulary_fingerprint(directory):
                return None
            values = saved["fields"]
            kinds = {f.name: f.type for f in dataclasses.fields(cls)}
            # (types checked with map, in C: 95,000 entries in the serial start of a run)
            if set(values) != set(kinds) or not all(
                isinstance(v, list) and set(map(type, v)) <= {str} for v in values.values()
            ):
                return None
            return cls(**{k: frozenset(v) if "frozenset" in kinds[k] else tuple(v) for k, v in values.items()})
        except (OSError, ValueError, KeyError, TypeError):
            return None


# ----------------------------------------------------------------------------- dates

_MONTH_INDEX = {normalize(m): i for i, m in enumerate(MONTHS, start=1)}
_MONTH_INDEX |= {normalize(m)[:3]: i for i, m in enumerate(MONTHS, start=1)} | {"sept": 9, "setiembre": 9}
# Catalan and Galician month names ("13 de juny de 2023", "2 d'abril"): a date written
# in one is shifted and written in the same language. Spanish wins where they agree.
_MONTH_NAMES = {"ca": CATALAN_MONTHS, "gl": GALICIAN_MONTHS}
_MONTH_LANGUAGE = {normalize(m): lang for lang, names in _MONTH_NAMES.items() for m in names} | {
    key: "es" for key in _MONTH_INDEX
}
_MONTH_INDEX |= {
    normalize(m): i
    for names in _MONTH_NAMES.values()
    for i, m in enumerate(names, start=1)
    if normalize(m) not in _MONTH_INDEX
}
_WEEKDAY_INDEX = {normalize(d): i for i, d in enumerate(WEEKDAYS)}
_MONTH_RE = "|".join(
    longest_first([*MONTHS, "setiembre", "sept", *(m[:3] for m in MONTHS), *CATALAN_MONTHS, *GALICIAN_MONTHS])
)
_ROMAN_INDEX = {r: i for i, r in enumerate(ROMAN_MONTHS, start=1)}
_NUMERIC = r"(?P<d>\d{1,2})(?P<s>[/.-])(?P<m>\d{1,2})(?P=s)(?P<y>\d{4}|\d{2})"
# 8-XI-2023, 3.III.20: a Roman month, in capitals only ("vi" is a word).
_ROMAN = (
    rf"(?P<rd>\d{{1,2}})(?P<rs>[/.-])(?P<rm>(?-i:{'|'.join(sorted(ROMAN_MONTHS, key=len, reverse=True))}))"
    r"(?P=rs)(?P<ry>\d{4}|\d{2})"
)
_YMD = r"(?P<iy>\d{4})(?P<is>[/.-])(?P<im>\d{1,2})(?P=is)(?P<id>\d{1,2})"  # 2016-03-15, 2016/3/15
_YM = r"(?P<zy>\d{4})(?P<zs>[/.-])(?P<zm>\d{1,2})"  # 2016-03
_MY = r"(?P<mm>\d{1,2})(?P<ms>[/.-])(?P<my>\d{4})"  # 03/2016
_WRITTEN = (
    rf"(?:(?P<wd>\d{{1,2}})(?P<ws1>\s+de\s+|\s+d['’]|[-/ ]))?(?P<wm>{_MONTH_RE})(?P<dot>\.?)"
    rf"(?:(?P<ws2>\s+de(?:l)?(?:\s+año)?\s+|[-/ ])(?P<wy>\d{{4}}|\d{{2}})(?!\d))?"
)
_YEAR = r"(?P<yy>(?:1[89]|20)\d\d)"
_DATE = re.compile(
    rf"(?<!\w){_NUMERIC}(?!\d)|(?<!\w){_ROMAN}(?!\d)|(?<!\d){_YMD}(?!\d)|(?<!\d){_YM}(?!\d)|(?<!\w){_MY}(?!\d)"
    rf"|(?<!\w){_WRITTEN}(?!\w)|(?<!\d){_YEAR}(?!\d)",
    re.I,
)
_WEEKDAY = re.compile(rf"(?<!\w)(?:{'|'.join(WEEKDAYS + ['miercoles', 'sabado'])})(?!\w)", re.I)
_DAY_MONTH = re.compile(r"(?P<dd>\d{1,2})(?P<ds>[/.-])(?P<dm>\d{1,2})")
_NUMBER_WORDS = re.compile(rf"(?<!\w){number_words.NUMBER}(?!\w)", re.I)


def _full_year(text: str) -> int:
    year = int(text)
    if len(text) == 2:
        year += 2000 if year <= 30 else 1900
    return year


def _padded(*parts: str | None) -> bool:
    """Whether day and month numbers are written with two digits: yes when one has a
    leading zero, no when one has a single digit, yes when both have two."""
    parts = tuple(p for p in parts if p)
    if any(p.startswith("0") for p in parts):
        return True
    return bool(parts) and all(len(p) == 2 for p in parts)


def _number(value: int, padded: bool) -> str:
    return f"{value:02d}" if padded else str(value)


def _year_like(year: int, like: str) -> str:
    return f"{year % 100:02d}" if len(like) == 2 else f"{year:04d}"


def _month_like(month: int, like: str, language: str = "es") -> str:
    """The name of ``month`` in ``language`` ("es", "ca", "gl") written like ``like``:
    full or abbreviated (Spanish), same case."""
    if language != "es":
        return match_case(like, _MONTH_NAMES[language][month - 1])
    name = MONTHS[month - 1]
    key = normalize(like)
    if key not in {normalize(m) for m in MONTHS} and key != "setiembre":
        name = "sept" if month == 9 and len(key) == 4 else name[:3]
    return match_case(like, name)


def _elided(separator: str | None) -> bool:
    return bool(separator) and separator.rstrip()[-1:] in ("'", "’")


def _before_month(separator: str, month: str, language: str) -> str:
    """The separator between a day and ``month``: in Catalan "d'" before a vowel and
    "de" before a consonant ("2 d'abril", "13 de juny")."""
    if language != "ca" or separator.strip() not in ("de", "d'", "d’"):
        return separator
    lead = separator[: len(separator) - len(separator.lstrip())]
    if normalize(month)[0] in "aeiou":
        return f"{lead}d{separator.strip()[-1] if _elided(separator) else chr(39)}"
    return f"{lead}de "


def shift_date_text(text: str, days: int, rng: random.Random | None = None) -> str | None:
    """``text`` with every date in it moved by ``days`` and written as before, or
    None when it holds no date that can be read. A month without a day (``06/2016``,
    ``junio de 2016``) moves as its 15th does, a year alone as its 1 July. An
    impossible date (``31/02/2000``) gets new digits and letters of the same shape
    (drawn from ``rng``); a text with digits outside the dates it holds
    (``12/06 /2016``, ``semana 23 de 2016``) gets new digits everywhere rather than
    a partial shift that would keep the rest."""
    rng = rng or random.Random(days)
    if m := _DAY_MONTH.fullmatch(text):  # "03/03" in a ward list: a day of a leap year
        try:
            new = date(2000, int(m["dm"]), int(m["dd"])) + timedelta(days)
        except (ValueError, OverflowError):
            return _pattern_like(text, rng)
        pad = _padded(m["dd"], m["dm"])
        return f"{_number(new.day, pad)}{m['ds']}{_number(new.month, pad)}"
    # A date in words ("diecinueve de junio de mil novecientos ochenta y tres") is read
    # and moved as one in figures, and written in figures: its day and year in words
    # would otherwise stay as they were.
    text = _NUMBER_WORDS.sub(lambda m: str(number_words.value(m.group())), text)
    found: list[tuple[int, int]] = []
    shifted_day: date | None = None

    def shift(m: re.Match[str]) -> str:
        nonlocal shifted_day
        g = m.groupdict()
        try:
            if g["d"]:
                new = date(_full_year(g["y"]), int(g["m"]), int(g["d"])) + timedelta(days)
                pad = _padded(g["d"], g["m"])
                out = f"{_number(new.day, pad)}{g['s']}{_number(new.month, pad)}{g['s']}{_year_like(new.year, g['y'])}"
                shifted_day = new
            elif g["rd"]:
                new = date(_full_year(g["ry"]), _ROMAN_INDEX[g["rm"]], int(g["rd"])) + timedelta(days)
                day, sep = _number(new.day, g["rd"].startswith("0")), g["rs"]
                out = f"{day}{sep}{ROMAN_MONTHS[new.month - 1]}{sep}{_year_like(new.year, g['ry'])}"
                shifted_day = new
            elif g["iy"]:
                new = date(int(g["iy"]), int(g["im"]), int(g["id"])) + timedelta(days)
                pad = _padded(g["im"], g["id"])
                out = f"{new.year:04d}{g['is']}{_number(new.month, pad)}{g['is']}{_number(new.day, pad)}"
                shifted_day = new
            elif g["zy"] or g["my"]:
                year, month = (g["zy"], g["zm"]) if g["zy"] else (g["my"], g["mm"])
                new = date(int(year), int(month), 15) + timedelta(days)
                new_month = _number(new.month, _padded(month))
                out = f"{new.year:04d}{g['zs']}{new_month}" if g["zy"] else f"{new_month}{g['ms']}{new.year:04d}"
            elif g["wm"]:
                month = _MONTH_INDEX[normalize(g["wm"])]
                year = _full_year(g["wy"]) if g["wy"] else 2000  # a leap year: "29 de febrero"
                new = date(year, month, int(g["wd"]) if g["wd"] else 15) + timedelta(days)
                out = ""
                language = "ca" if _elided(g["ws1"]) else _MONTH_LANGUAGE.get(normalize(g["wm"]), "es")
                name = _month_like(new.month, g["wm"], language)
                if g["wd"]:
                    out += _number(new.day, g["wd"].startswith("0")) + _before_month(g["ws1"], name, language)
                    shifted_day = new if g["wy"] else None
                out += name + g["dot"]
                if g["wy"]:
                    out += g["ws2"] + _year_like(new.year, g["wy"])
            else:
                out = str((date(int(g["yy"]), 7, 1) + timedelta(days)).year)
        except (ValueError, KeyError, OverflowError):
            out = _pattern_like(m.group(), rng)
        found.append(m.span())
        return out

    result = _DATE.sub(shift, text)
    if not found:
        return None
    outside = [c for i, c in enumerate(text) if not any(a <= i < b for a, b in found)]
    if any(c.isdigit() for c in outside):
        return _pattern_like(result, rng, letters=False)  # month names moved, every digit new
    if shifted_day is not None:
        weekday = WEEKDAYS[shifted_day.weekday()]
        result = _WEEKDAY.sub(lambda m: match_case(m.group(), weekday), result)
    return result


# ----------------------------------------------------------------------------- ages

_AGE_NUMBER = re.compile(r"\d+")
# Number words that may follow "noventa y" and "ciento" in an age of 90 or more.
_UNITS = r"un[oa]?|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|tantos"
_TENS = r"diez|once|doce|trece|catorce|quince|dieci\w+|veinte|veinti\w+|treinta|cuarenta|cincuenta"
_AGE_WORDS = re.compile(
    rf"\b(?:noventa(?:\s+y\s+(?:{_UNITS}))?|ciento(?:\s+(?:{_UNITS}|{_TENS})(?:\s+y\s+(?:{_UNITS}))?)?|cien)\b",
    re.I,
)
_NOT_YEARS = re.compile(r"\b(?:mes|meses|semana|semanas|d[ií]a|d[ií]as|hora|horas)\b", re.I)


def cap_age(text: str) -> str:
    """Ages of 90 years or more become 90 ("noventa" when written in words)."""
    if _NOT_YEARS.search(text):
        return text
    text = _AGE_NUMBER.sub(lambda m: str(AGE_CAP) if int(m.group()) >= AGE_CAP else m.group(), text, count=1)
    return _AGE_WORDS.sub(lambda m: match_case(m.group(), "noventa"), text, count=1)


# ----------------------------------------------------------------------------- patterns


def _pattern_like(text: str, rng: random.Random, keep_prefix: int = 0, letters: bool = True) -> str:
    """Same shape: each digit a new digit (a leading non-zero stays non-zero), each
    letter (unless ``letters`` is False) a new letter of the same case, other
    characters kept; the first ``keep_prefix`` digits are kept."""
    out, digits_seen, first_digit = [], 0, True
    for c in text:
        if c.isdigit():
            if digits_seen < keep_prefix:
                out.append(c)
            else:
                low = 1 if first_digit and c != "0" else 0
                out.append(str(rng.randint(low, 9)))
            digits_seen += 1
            first_digit = False
        elif letters and c.isascii() and c.isalpha():
            letter = chr(rng.randint(ord("A"), ord("Z")))
            out.append(letter if c.isupper() else letter.lower())
        else:
            out.append(c)
    return "".join(out)


_DNI_SHAPE = re.compile(r"^(?P<pre>[XYZ]?)(?P<sep0>[ -]?)(?P<num>[\d.]{7,10})(?P<sep>[ -]?)(?P<letter>[A-Z])$")
_COLLEGIATE_SHAPE = re.compile(r"^(\d\d)([ -])\1\2(\d{5})$")


def identifier_like(text: str, rng: random.Random) -> str:
    """A new identifier of the same shape; valid DNI/NIE and NASS numbers stay valid."""
    m = _DNI_SHAPE.match(text)
    if m:
        digits = m["num"].replace(".", "")
        prefix_value = "XYZ".index(m["pre"]) * 10**7 if m["pre"] else 0
        if len(digits) == (7 if m["pre"] else 8) and dni_letter(prefix_value + int(digits)) == m["letter"]:
            new = _pattern_like(m["num"], rng)
            value = prefix_value + int(new.replace(".", ""))
            return f"{m['pre']}{m['sep0']}{new}{m['sep']}{dni_letter(value)}"
    # Decimal digits (what ``\d`` and ``int`` read) carry the check; other characters
    # that ``str.isdigit`` accepts ("❶", "²") get a new digit too, and nothing else moves.
    digits = "".join(c for c in text if c.isdecimal())
    if nass_is_valid(digits):
        body = _pattern_like(digits[:10], rng, keep_prefix=0)
        it = iter(body + f"{int(body) % 97:02d}")
        return "".join(next(it) if c.isdecimal() else str(rng.randint(0, 9)) if c.isdigit() else c for c in text)
    m = _COLLEGIATE_SHAPE.match(text)
    if m:
        province = f"{rng.randint(1, 52):02d}"
        return f"{province}{m[2]}{province}{m[2]}{_pattern_like(m[3], rng)}"
    return _pattern_like(text, rng)


_PHONE_PREFIX = re.compile(r"^\+?\s?(?:00)?34[ .-]*")


def phone_like(text: str, rng: random.Random) -> str:
    """Same grouping, same country prefix and first digit, new digits."""
    prefix = _PHONE_PREFIX.match(text)
    head = prefix.group() if prefix else ""
    return head + _pattern_like(text[len(head) :], rng, keep_prefix=1)


# ----------------------------------------------------------------------------- documents

_WORD_SPLIT = re.compile(r"(\s+|-|/)")
_INITIAL = re.compile(r"^[A-ZÁÉÍÓÚÑ]\.?$")
_NUMBERS_IN_ADDRESS = re.compile(r"\d+")
_STREET_HEAD = re.compile(r"^\s*(C\s?/\s?\.?|[^\W\d_]+\.?)\s*", re.UNICODE)
_ACRONYM = re.compile(r"^[A-ZÁÉÍÓÚÑ]{2,8}$")
_WORDS = re.compile(r"[^\W\d_]+")
# A place after "en" inside a relative's span: "sobrino Andrés en Dos Hermanas".
_PLACE_IN_RELATIVE = re.compile(
    r"(?<!\w)en\s+((?:[A-ZÁÉÍÓÚÑ][^\W\d_]*)(?:[\s-]+(?:(?:de|del|la|las|los|el)\s+)?[A-ZÁÉÍÓÚÑ][^\W\d_]*)*)"
)


class DocumentSurrogates:
    """Replacements for the PHI spans of one document.

    ``replace(text, type_, before)`` returns the surrogate of one span given the text
    just before it on its line (used to tell surnames after ``Apellidos:``). Call it
    in text order: the draws, and so the output, depend on that order only. Types
    with no generator get ``placeholder(type_, text)`` (the mask of masked mode).

    Streets, companies, e-mails, web and IP addresses and jobs are drawn from the
    vocabulary, unless ``faker`` is given: then its generators draw them (the training
    data's rewrite passes one, so that its copies, and the ablation rows measured on
    them, stay what they were; tagging does not: importing Faker costs 0.05 s of a
    run's start).
    """

    def __init__(
        self,
        seed: int,
        faker: Faker | None = None,
        vocabulary: Vocabulary | None = None,
        keep: Iterable[str] = DEFAULT_KEEP,
        placeholder: Callable[[str, str], str] = lambda type_, text: f"[{type_}]",
        avoid: Iterable[str] = (),
    ):
        self.faker = faker
        if faker is not None:
            faker.seed_instance(seed)  # its generator is then random.Random(seed), shared with it
            self.rng: random.Random = faker.random
        else:
            self.rng = random.Random(seed)
        self.vocabulary = vocabulary or Vocabulary.default()
        self.keep = frozenset(keep)
        self.placeholder = placeholder
        magnitude = self.rng.randint(1, MAX_SHIFT_DAYS)
        self.date_shift_days = magnitude if self.rng.random() < 0.5 else -magnitude
        self._parts: dict[str, str] = {}  # normalised name part → surrogate part
        self._values: dict[tuple[str, str], str] = {}  # (kind, normalised text) → surrogate
        self._used: set[str] = set()
        # Normalised words of the originals that no surrogate may bring back (the leak
        # audit would find them: deid_crf.deid.audit).
        self.avoid = frozenset(avoid)

    # -- helpers ---------------------------------------------------------------------
    def _fresh(self, draw: Callable[[], str], original: str) -> str:
        """A value from ``draw`` different from the original, from values already
        handed out in this document and without a word of :attr:`avoid` (when a few
        tries find one)."""
        value = draw()
        for _ in range(20):
            key = normalize(value)
            if key and key != normalize(original) and key not in self._used and not self._brings_back(key):
                break
            value = draw()
        self._used.add(normalize(value))
        return value

    def _brings_back(self, key: str) -> bool:
        return bool(self.avoid) and any(word in self.avoid for word in _WORDS.findall(key))

    def _cached(self, kind: str, original: str, make: Callable[[], str]) -> str:
        key = (kind, normalize(original))
        if key not in self._values:
            self._values[key] = make()
        return match_case(original, self._values[key])

    # -- names -----------------------------------------------------------------------
    def _name_part(self, word: str, given: bool) -> str:
        key = normalize(word)
        if key not in self._parts:
            v = self.vocabulary
            if given:
                female, male = key in v.female_keys, key in v.male_keys
                if female == male:  # both or neither: Spanish first names ending in -a are mostly female
                    female = key.endswith("a")
                pool = v.female_names if female else v.male_names
            else:
                pool = v.surnames
            self._parts[key] = self._fresh(lambda: self.rng.choice(pool), word)
        return match_case(word, self._parts[key])

    def name(self, text: str, before: str = "", relatives: bool = False) -> str:
        """Replace each name part; keep particles, titles and, for relatives, the
        words of :data:`RELATIVE_WORDS` (``hija marta`` → ``hija gema``)."""
        if relatives:
            place = _PLACE_IN_RELATIVE.search(text)
            if place is not None:
                a, b = place.span(1)
                head = self.name(text[:a], before, relatives=True)
                return head + self.territory(text[a:b]) + self.name(text[b:], before, relatives=True)
        v = self.vocabulary
        surnames_only = "apellido" in normalize(before)
        pieces = _WORD_SPLIT.split(text)
        out, position, given = [], 0, not surnames_only
        for piece in pieces:
            key = normalize(piece).rstrip(".")
            if not piece or _WORD_SPLIT.fullmatch(piece) or not any(c.isalpha() for c in piece):
                out.append(piece if not any(c.isdigit() for c in piece) else cap_age(piece))
                continue
            # A title comes before the name ("Dr.", "Don"): after a name part, or after
            # "Apellidos:", a word of the title lists ("Abad", "Reyes") is a surname.
            title = key in v.title_keys and position == 0 and not surnames_only
            # In a relative's span, a capitalised kinship or number word after a name
            # is part of a name ("Andrés Dos Hermanas"), not the grammar of the span.
            grammar = relatives and key in RELATIVE_WORDS and (position == 0 or piece[:1].islower())
            if key in PARTICLES or title or grammar:
                out.append(piece)
                continue
            if _INITIAL.match(piece):
                letter = self._cached("initial", piece[0], lambda: chr(self.rng.randint(65, 90)))
                out.append(letter + piece[1:])
                position += 1
                continue
            if position == 0:
                is_given = given and not (key in v.surname_keys and key not in v.first_name_keys)
            else:
                is_given = given and key in v.first_name_keys and key not in v.common_surname_keys
            given = is_given
            out.append(self._name_part(piece, is_given))
            position += 1
        return "".join(out)

    # -- places and organisations ----------------------------------------------------------
    def street(self, text: str) -> str:
        head = _STREET_HEAD.match(text)
        keep = ""
        if head and normalize(head.group(1)).replace(" ", "").rstrip(".") in self.vocabulary.street_types:
            keep = head.group()
        rest = text[len(keep) :]
        cut = re.search(r"[\d,]|\bs/n\b", rest)
        name, tail = (rest[: cut.start()], rest[cut.start() :]) if cut else (rest, "")
        trailing = name[len(name.rstrip()) :]

        def core() -> str:
            if self.faker is not None:
                return self.faker.street_name().split(" ", 1)[1].removeprefix("de ")
            return f"{self._first_name()} {self.rng.choice(self.vocabulary.surnames)}"

        new_name = self._cached("street", name.strip(), lambda: self._fresh(core, name)) if name.strip() else ""
        new_tail = _NUMBERS_IN_ADDRESS.sub(lambda m: _pattern_like(m.group(), self.rng), tail)
        new_tail = _WORDS.sub(self._address_word, new_tail)
        return keep + new_name + trailing + new_tail

    def _address_word(self, m: re.Match[str]) -> str:
        """A capitalised word after a street's number ("3, Esquina San Eloy", "875
        Paseo de Martí", "Residencial El Limonar") is a name unless it is the grammar of
        an address (floor, door, block, street type) or a door's letter."""
        word = m.group()
        key = normalize(word)
        if (
            len(word) < 2
            or not word[0].isupper()
            or key in ADDRESS_WORDS
            or key in PARTICLES
            or key in self.vocabulary.street_types
        ):
            return word
        pool = self.vocabulary.surnames
        return self._cached("street word", word, lambda: self._fresh(lambda: self.rng.choice(pool), word))

    def territory(self, text: str) -> str:
        stripped = text.strip()
        if re.fullmatch(r"(?:E-)?\d{5}", stripped):
            prefix = "E-" if stripped.startswith("E-") else ""
            return self._cached(
                "postcode", stripped, lambda: prefix + f"{self.rng.randint(1, 52):02d}{self.rng.randint(0, 999):03d}"
            )
        v, key = self.vocabulary, normalize(text)
        for kind, pool in (("province", v.provinces), ("region", v.regions), ("country", v.countries)):
            if key in _keys_of(pool):
                return self._cached(kind, text, lambda pool=pool: self._fresh(lambda: self.rng.choice(pool), text))
        return self._cached("town", text, lambda: self._fresh(lambda: self.rng.choice(v.towns), text))

    def country(self, text: str) -> str:
        pool = self.vocabulary.countries
        return self._cached("country", text, lambda: self._fresh(lambda: self.rng.choice(pool), text))

    def organisation(self, text: str, type_: str) -> str:
        words = text.split()
        kind_len = 0
        while kind_len < len(words) and normalize(words[kind_len]) in INSTITUTION_WORDS:
            kind_len += 1
        while kind_len and normalize(words[kind_len - 1]) in PARTICLES:
            kind_len -= 1
        kind = " ".join(words[:kind_len])

        def make() -> str:
            if _ACRONYM.match(text.strip()):
                return _pattern_like(text.strip(), self.rng)
            if type_ == "HOSPITAL" and self.vocabulary.hospitals and not kind_len:
                return self.rng.choice(self.vocabulary.hospitals)
            if not kind:
                if type_ == "INSTITUCION":
                    return self._company()
                default_kind = "Centro de Salud" if type_ == "CENTRO_SALUD" else "Hospital"
            else:
                default_kind = kind
            choice = self.rng.randrange(3)
            if choice == 0:
                return f"{default_kind} {self.rng.choice(self.vocabulary.surnames)}"
            if choice == 1:
                return f"{default_kind} de {self.rng.choice(self.vocabulary.towns)}"
            first = self.rng.choice(self.vocabulary.male_names + self.vocabulary.female_names)
            return f"{default_kind} {first} {self.rng.choice(self.vocabulary.surnames)}"

        return self._cached(type_, text, lambda: self._fresh(make, text))

    # -- dispatch ----------------------------------------------------------------------------
    def replace(self, text: str, type_: str, before: str = "") -> str:
        """The surrogate of one span of type ``type_`` whose text is ``text``."""
        if type_ in self.keep:
            return text
        if type_ in PERSON_TYPES:
            return self.name(text, before)
        if type_ == RELATIVE_TYPE:
            return self.name(text, before, relatives=True)
        if type_ == "FECHAS":
            shifted = shift_date_text(text, self.date_shift_days, self.rng)
            if shifted is not None:
                return shifted
            return _pattern_like(text, self.rng) if any(c.isdigit() for c in text) else self.placeholder(type_, text)
        if type_ == "EDAD_SUJETO_ASISTENCIA":
            return cap_age(text)
        if type_ in ID_TYPES:
            return self._cached(type_, text, lambda: self._fresh(lambda: identifier_like(text, self.rng), text))
        if type_ in ("NUMERO_TELEFONO", "NUMERO_FAX"):
            return self._cached("phone", text, lambda: self._fresh(lambda: phone_like(text, self.rng), text))
        if type_ == "CALLE":
            return self.street(text)
        if type_ == "TERRITORIO":
            return self.territory(text)
        if type_ == "PAIS":
            return self.country(text)
        if type_ in ("HOSPITAL", "INSTITUCION", "CENTRO_SALUD"):
            return self.organisation(text, type_)
        if type_ == "CORREO_ELECTRONICO":
            return self._cached("email", text, lambda: self._fresh(self._email, text))
        if type_ == "URL_WEB":
            return self._cached("url", text, lambda: self._fresh(self._url, text))
        if type_ == "DIREC_PROT_INTERNET":
            # An address with a protocol (guideline P24.1), or an IP address typed so by a model.
            make = self._uri if "://" in text else self._ipv6 if ":" in text else self._ipv4
            return self._cached("ip", text, lambda: self._fresh(make, text))
        if type_ == "PROFESION":
            return self._cached("job", text, lambda: self._fresh(self._job, text))
        return self.placeholder(type_, text)

    # -- values of the types Faker drew (see the class's docstring) ------------------------
    def _first_name(self) -> str:
        return self.rng.choice(self.rng.choice((self.vocabulary.male_names, self.vocabulary.female_names)))

    def _user_word(self) -> str:
        """A surname as an e-mail or web address writes it: ``Muñoz`` → ``munoz``."""
        return "".join(c for c in normalize(self.rng.choice(self.vocabulary.surnames)) if c.isalnum()) or "correo"

    def _company(self) -> str:
        if self.faker is not None:
            return self.faker.company()
        v, rng = self.vocabulary, self.rng
        suffix = rng.choice(v.company_suffixes)
        shape = rng.randrange(3)  # three of the shapes of Faker's es_ES companies
        if shape == 0:
            return f"{rng.choice(v.company_prefixes)} {rng.choice(v.surnames)} {suffix}"
        if shape == 1:
            return f"{rng.choice(v.surnames)} y {rng.choice(v.surnames)} {suffix}"
        return f"{self._first_name()} {rng.choice(v.surnames)} {rng.choice(v.surnames)} {suffix}"

    def _email(self) -> str:
        if self.faker is not None:
            return self.faker.free_email()
        first = "".join(c for c in normalize(self._first_name()) if c.isalnum())
        user = (f"{first}.{self._user_word()}", f"{self._user_word()}.{first}", f"{first}{self.rng.randint(10, 99)}")
        return f"{self.rng.choice(user)}@{self.rng.choice(self.vocabulary.email_domains)}"

    def _url(self) -> str:
        if self.faker is not None:
            return self.faker.url()
        return f"https://www.{self._user_word()}.{self.rng.choice(self.vocabulary.web_tlds)}/"

    def _uri(self) -> str:
        if self.faker is not None:
            return self.faker.uri()
        return f"{self._url()}{self._user_word()}.html"

    def _ipv4(self) -> str:
        if self.faker is not None:
            return self.faker.ipv4()
        rng = self.rng
        return f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"

    def _ipv6(self) -> str:
        if self.faker is not None:
            return self.faker.ipv6()
        return ":".join(f"{self.rng.randrange(0x10000):x}" for _ in range(8))

    def _job(self) -> str:
        if self.faker is not None:
            return self.faker.job()
        return self.rng.choice(self.vocabulary.jobs)


def main(argv: list[str] | None = None) -> int:
    """``python -m deid_crf.deid.surrogates [DIR]`` (run by ``make gazetteers``): save the
    surrogate vocabulary built from the gazetteer lists of DIR (the project's by default)
    beside them, for surrogate runs to load instead of building it at every start."""
    import argparse

    from deid_crf.resources.gazetteer import DEFAULT_DIR

    parser = argparse.ArgumentParser(prog="python -m deid_crf.deid.surrogates", description=main.__doc__)
    parser.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR, help="gazetteer lists folder")
    args = parser.parse_args(argv)
    path = Vocabulary.build(args.directory).save(args.directory)
    if path is None:
        print(f"{args.directory}: no gazetteer manifest (SOURCES.json); nothing saved", file=sys.stderr)
        return 1
    print(f"{path}: surrogate vocabulary saved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
