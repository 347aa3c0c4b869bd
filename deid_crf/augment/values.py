"""PHI values for synthetic notes, each drawn from a :class:`random.Random`.

One function (or :class:`Lexicon` method) per kind of value, returning surface
strings, or for composite values a :data:`~deid_crf.augment.builder.Phrase` whose PHI
pieces are typed :class:`~deid_crf.augment.builder.Span` values (an address is a
street span, a postal-code span and a town span with the punctuation between
them as plain text). Variety is the point: every kind comes in the many written
forms Spanish clinical documents use.

Names and places come from the project's gazetteer lists when they are built
(``make gazetteers``: INE first names and surnames with frequency bands,
municipalities, provinces, countries, ESCO occupations); otherwise from Faker's
``es_ES`` lists, as :class:`deid_crf.deid.surrogates.Vocabulary` does. The INE
lists are upper case without accents, so names are given their accents from the
Faker and MEDDOCAN lists and :data:`~deid_crf.augment.tables.ACCENTED`, and their
gender from the first given name.
"""

from __future__ import annotations

import functools
import importlib
import random
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import phonenumbers
from stdnum import iban as stdnum_iban
from stdnum.es import dni as stdnum_dni
from stdnum.es import nie as stdnum_nie

from deid_crf.augment import tables as T
from deid_crf.augment.builder import Phrase, Span
from deid_crf.gazetteers.spanish import HEALTH_SERVICES, MONTHS, PARTICLES, ROMAN_MONTHS, WEEKDAYS, normalize

# ----------------------------------------------------------------------------- helpers

# How often a name is drawn from each INE frequency band: common names dominate,
# rarer ones still appear.
BAND_WEIGHTS = {"top100": 0.42, "top1k": 0.33, "top10k": 0.18, "rest": 0.07}


def weighted(rng: random.Random, choices: Sequence[tuple[str, float]]) -> str:
    """One of ``(value, weight)`` pairs, drawn by weight."""
    values = [c[0] for c in choices]
    weights = [c[1] for c in choices]
    return rng.choices(values, weights)[0]


def chance(rng: random.Random, p: float) -> bool:
    return rng.random() < p


def digits(rng: random.Random, n: int, first_nonzero: bool = False) -> str:
    out = "".join(rng.choice(string.digits) for _ in range(n))
    if first_nonzero and out[0] == "0":
        out = str(rng.randint(1, 9)) + out[1:]
    return out


def letters(rng: random.Random, n: int, alphabet: str = string.ascii_uppercase) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


# ----------------------------------------------------------------------------- lexicon


def _faker_list(locale: str, attribute: str) -> list[str]:
    """A person-name list of a Faker locale, read from its provider class (no Faker
    instance, so no hidden random state)."""
    provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
    for klass in provider.__mro__:
        if attribute in klass.__dict__:
            value = klass.__dict__[attribute]
            if isinstance(value, (list, tuple, dict)):
                return [v for v in value if v.strip()]
    return []


def _faker_address_list(attribute: str) -> list[str]:
    provider = importlib.import_module("faker.providers.address.es_ES").Provider
    return list(getattr(provider, attribute))


def _read_built_lists(directory: Path | None) -> dict[str, list[str] | dict[str, str]]:
    """The built gazetteer lists of ``directory`` (default: the package's), by list
    name; empty when there is no manifest. A list whose file is absent is skipped."""
    try:
        from deid_crf.resources.gazetteer import DEFAULT_DIR, read_list, read_manifest

        directory = Path(directory or DEFAULT_DIR)
        manifest = read_manifest(directory)
    except (FileNotFoundError, ImportError, ValueError):
        return {}
    out: dict[str, list[str] | dict[str, str]] = {}
    for name, info in manifest.get("lists", {}).items():
        path = directory / info["file"]
        if path.is_file():
            out[name] = read_list(path)
    return out


def _banded(entries: list[str] | dict[str, str] | None) -> dict[str, tuple[str, ...]]:
    if not entries:
        return {}
    if isinstance(entries, dict):
        bands: dict[str, list[str]] = {}
        for entry, band in entries.items():
            bands.setdefault(band, []).append(entry)
        return {band: tuple(values) for band, values in bands.items()}
    return {"top1k": tuple(entries)}


@dataclass(frozen=True)
class Lexicon:
    """The value lists names, places and occupations are drawn from."""

    first_names: dict[str, tuple[str, ...]]  # frequency band → names (as listed)
    surnames: dict[str, tuple[str, ...]]
    towns: tuple[str, ...]
    countries: tuple[str, ...]
    occupations: tuple[str, ...]  # extra occupations (ESCO, MEDDOCAN), may be empty
    hospitals: tuple[str, ...]  # listed hospital names, may be empty
    accents: dict[str, str]  # normalised word → accented, capitalised spelling
    female_keys: frozenset[str]
    male_keys: frozenset[str]
    source: str  # "gazetteers" or "faker"

    @classmethod
    def from_directory(cls, directory: str | Path | None = None) -> Lexicon:
        """Lists built in ``directory`` (default: the package's gazetteer lists),
        Faker ``es_ES`` lists for whatever is not built."""
        built = _read_built_lists(Path(directory) if directory else None)
        male = [n for loc in T.FAKER_SPANISH_LOCALES for n in _faker_list(loc, "first_names_male")]
        female = [n for loc in T.FAKER_SPANISH_LOCALES for n in _faker_list(loc, "first_names_female")]
        faker_surnames = [n for loc in T.FAKER_SPANISH_LOCALES for n in _faker_list(loc, "last_names")]
        for names in T.REGIONAL_FIRST_NAMES.values():
            male += [n for n, is_female in names if not is_female]
            female += [n for n, is_female in names if is_female]
        spellings = [*male, *female, *faker_surnames]
        spellings += [*built.get("meddocan_first_names", []), *built.get("meddocan_surnames", [])]
        trusted = [*T.ACCENTED, *(n for names in T.REGIONAL_SURNAMES.values() for n in names)]
        trusted += [n for names in T.REGIONAL_FIRST_NAMES.values() for n, _ in names]
        first_names = _banded(built.get("first_names")) or {"top1k": tuple(sorted(set(male + female)))}
        surnames = _banded(built.get("surnames")) or {"top1k": tuple(sorted(set(faker_surnames)))}
        towns = built.get("municipalities") or [p[2] for p in T.PROVINCES] + [t for p in T.PROVINCES for t in p[5]]
        countries = built.get("countries") or _faker_address_list("countries")
        occupations = [*built.get("occupations_esco", []), *built.get("meddocan_occupations", [])]
        return cls(
            first_names=first_names,
            surnames=surnames,
            towns=tuple(towns),
            countries=tuple(c for c in countries if c.strip()),
            occupations=tuple(o for o in occupations if o.strip() and len(o) < 50),
            hospitals=tuple(h for h in built.get("meddocan_hospitals", []) if 8 < len(h) < 70),
            accents=_accent_table(spellings, trusted),
            female_keys=frozenset(normalize(n) for n in female),
            male_keys=frozenset(normalize(n) for n in male),
            source="gazetteers" if "first_names" in built else "faker",
        )

    @classmethod
    @functools.cache
    def default(cls) -> Lexicon:
        """:meth:`from_directory` of the package's lists, loaded once per process."""
        return cls.from_directory()

    # -- names --------------------------------------------------------------------------
    def spelled(self, raw: str) -> str:
        """A listed name in the case and accents a person would write it:
        ``MARIA DEL CARMEN`` → ``María del Carmen``, ``DE LA FUENTE`` → ``de la Fuente``."""
        words = raw.replace("-", " - ").split()
        out = []
        for i, word in enumerate(words):
            key = normalize(word)
            if word == "-":
                out.append("-")
            elif key in PARTICLES and 0 < i < len(words) - 1:
                out.append(key)
            elif key in PARTICLES and i == 0 and len(words) > 1:
                out.append(key)
            else:
                out.append(self.accents.get(key) or _accent_by_rule(word.capitalize()))
        return " ".join(out).replace(" - ", "-")

    def is_female(self, given: str) -> bool:
        """Gender of a given name, decided by its first word (``José María`` is male)."""
        first = normalize(given.split()[0])
        female, male = first in self.female_keys, first in self.male_keys
        if female != male:
            return female
        return first.endswith("a")

    def first_name(self, rng: random.Random) -> str:
        band = weighted(rng, [(b, w) for b, w in BAND_WEIGHTS.items() if b in self.first_names])
        return self.spelled(rng.choice(self.first_names[band]))

    def first_name_of(self, rng: random.Random, female: bool) -> str:
        """A first name of the given gender: one whose gender the lists know, or
        now and then one the ending suggests (rare INE names have no known gender)."""
        name = self.first_name(rng)
        for _ in range(30):
            first = normalize(name.split()[0])
            known = first in (self.female_keys if female else self.male_keys)
            other = first in (self.male_keys if female else self.female_keys)
            if known and not other or not other and self.is_female(name) == female and chance(rng, 0.15):
                return name
            name = self.first_name(rng)
        return "María" if female else "José"

    def surname(self, rng: random.Random) -> str:
        band = weighted(rng, [(b, w) for b, w in BAND_WEIGHTS.items() if b in self.surnames])
        return self.spelled(rng.choice(self.surnames[band]))


def _accent_table(spellings: Sequence[str], trusted: Sequence[str]) -> dict[str, str]:
    """normalised word → its usual spelling, for words whose usual spelling has
    accents. The lists disagree now and then (``Luis``/``Luís``, ``Núñez``/``Nuñez``):
    the spelling most of them use wins, and ``trusted`` spellings count five times."""
    votes: dict[str, Counter[str]] = {}
    for weight, words in ((1, spellings), (5, trusted)):
        for spelling in words:
            for word in spelling.replace("-", " ").split():
                if word[:1].isupper():
                    votes.setdefault(normalize(word), Counter())[word[0] + word[1:].lower()] += weight
    table = {}
    for key, counter in votes.items():
        best = counter.most_common(1)[0][0]
        if not best.isascii():
            table[key] = best
    return table


def _accent_by_rule(word: str) -> str:
    """Accents Spanish spelling rules make certain for INE words no list spells:
    patronymic ``-ez`` (``Benitez`` → ``Benítez``) and ``-cion`` (``Asuncion``)."""
    lower = word.lower()
    if lower.endswith("cion") and len(lower) > 5:
        return word[:-2] + "ón"
    if lower.endswith("ez") and len(lower) > 4 and lower not in _STRESSED_LAST:
        stem = lower[:-2]
        for i in range(len(stem) - 1, 0, -1):  # the stressed vowel of "-ez" names is the one before
            c = stem[i]
            if c in _ACUTE and not (c == "u" and stem[i - 1] in "qg"):
                return word[:i] + _ACUTE[c] + word[i + 1 :]
    return word


_ACUTE = {"a": "á", "e": "é", "i": "í", "o": "ó", "u": "ú"}
# "-ez" words stressed on the last syllable, which Spanish writes without an accent.
_STRESSED_LAST = frozenset({"jerez", "valdez", "alcaez", "feliz"})


# ----------------------------------------------------------------------------- people


@dataclass(frozen=True)
class PersonName:
    """A person's given name(s) and surname(s), in the spelling of a document."""

    given: str
    surnames: tuple[str, ...]
    female: bool
    surname_first: bool = False  # Chinese order: "Wang Wei" is surname then given name


def _spanish_surnames(rng: random.Random, lexicon: Lexicon, region: str) -> tuple[str, ...]:
    def one() -> str:
        if region in T.REGIONAL_SURNAMES and chance(rng, 0.45):
            return rng.choice(T.REGIONAL_SURNAMES[region])
        return lexicon.surname(rng)

    first, second = one(), one()
    if chance(rng, 0.05):
        first = (
            f"{weighted(rng, [('Sáez', 2), ('Ruiz', 2), ('López', 1), ('Fernández', 1), ('Martínez', 1)])} de {one()}"
        )
    if chance(rng, 0.08):
        first = f"{first}-{one()}"
    if region == "ca" and chance(rng, 0.12):
        return (f"{first} i {second}",)
    if chance(rng, 0.05):
        return (f"{first} y {second}",)
    return (first, second)


def _spanish_given(rng: random.Random, lexicon: Lexicon, region: str, female: bool | None) -> tuple[str, bool]:
    regional = T.REGIONAL_FIRST_NAMES.get(region, ())
    if regional and chance(rng, 0.35):
        pool = [n for n in regional if female is None or n[1] == female] or list(regional)
        return rng.choice(pool)
    if female is None:
        female = chance(rng, 0.5)
    given = lexicon.first_name_of(rng, female)
    if chance(rng, 0.08) and " " not in given:
        second = lexicon.first_name_of(rng, female)
        if second != given and " " not in second:
            given = f"{given} {second}"
    return given, female


def _foreign_name(rng: random.Random, female: bool | None) -> PersonName:
    kind = weighted(rng, [("faker", 12), ("arabic", 7), ("chinese", 2), ("west_african", 3), ("eastern", 2)])
    if female is None:
        female = chance(rng, 0.5)
    if kind == "faker":
        locale = weighted(rng, T.FAKER_FOREIGN_LOCALES)
        given = rng.choice(_faker_list(locale, "first_names_female" if female else "first_names_male"))
        surnames = [rng.choice(_faker_list(locale, "last_names"))]
        if locale == "pt_PT" and chance(rng, 0.6):
            surnames.append(rng.choice(_faker_list(locale, "last_names")))
        return PersonName(given, tuple(surnames), female)
    if kind == "chinese":
        given = rng.choice([n for n, f in T.CHINESE_GIVEN if f == female])
        return PersonName(given, (rng.choice(T.CHINESE_SURNAMES),), female, surname_first=chance(rng, 0.6))
    pools = {
        "arabic": (T.ARABIC_FIRST_NAMES, T.ARABIC_SURNAMES),
        "west_african": (T.WEST_AFRICAN_FIRST_NAMES, T.WEST_AFRICAN_SURNAMES),
        "eastern": (T.EASTERN_FIRST_NAMES, T.EASTERN_SURNAMES),
    }
    given_pool, surname_pool = pools[kind]
    given = rng.choice([n for n, f in given_pool if f == female])
    surnames = [rng.choice(surname_pool).replace("-", " ") if chance(rng, 0.5) else rng.choice(surname_pool)]
    if kind == "arabic" and chance(rng, 0.3):
        surnames.append(rng.choice(surname_pool))
    return PersonName(given, tuple(surnames), female)


def person_name(
    rng: random.Random, lexicon: Lexicon, region: str = "es", female: bool | None = None, foreign: float = 0.22
) -> PersonName:
    """A person's name: Spanish (with the region's flavour) or, with probability
    ``foreign``, from another country."""
    if chance(rng, foreign):
        return _foreign_name(rng, female)
    given, is_female = _spanish_given(rng, lexicon, region, female)
    return PersonName(given, _spanish_surnames(rng, lexicon, region), is_female if female is None else female)


def _abbreviated_given(rng: random.Random, given: str) -> str:
    """``María José`` → ``Mª José`` / ``M. José``, ``Francisco`` → ``Fco.``, else initials."""
    words = given.split()
    first = normalize(words[0])
    if first == "maria" and len(words) > 1:
        return rng.choice(["Mª", "M.ª", "M.", "Mª."]) + " " + " ".join(words[1:])
    if first == "francisco":
        return "Fco." + ("" if len(words) == 1 else " " + " ".join(words[1:]))
    if first == "jose" and len(words) > 1:
        return "J. " + " ".join(words[1:])
    return " ".join(w[0] + "." for w in words if w[:1].isalpha())


NAME_STYLES = (
    ("full", 34),
    ("given_first_surname", 14),
    ("surnames", 8),
    ("first_surname", 8),
    ("given", 6),
    ("initial", 8),
    ("abbreviated", 4),
    ("surname_comma_given", 10),
    ("initials_glued", 2),
)


def name_phrase(name: PersonName, style: str, type_: str, rng: random.Random) -> Phrase:
    """``name`` written in ``style`` (see :data:`NAME_STYLES`) as spans of ``type_``.
    Surname-first with a comma is two spans (guideline M1.1: only spaces and hyphens
    join the parts of one mention)."""
    given, surnames = name.given, " ".join(name.surnames)
    first_surname = name.surnames[0]
    if name.surname_first and style in ("full", "given_first_surname"):
        return (Span(f"{surnames} {given}", type_),)
    if style == "full":
        return (Span(f"{given} {surnames}", type_),)
    if style == "given_first_surname":
        return (Span(f"{given} {first_surname}", type_),)
    if style == "surnames":
        return (Span(surnames, type_),)
    if style == "first_surname":
        return (Span(first_surname, type_),)
    if style == "given":
        return (Span(given, type_),)
    if style == "initial":
        initials = " ".join(w[0] + "." for w in given.split() if w[:1].isalpha())
        return (Span(f"{initials} {surnames if chance(rng, 0.4) else first_surname}", type_),)
    if style == "abbreviated":
        return (Span(f"{_abbreviated_given(rng, given)} {surnames}", type_),)
    if style == "surname_comma_given":
        return (Span(surnames, type_), rng.choice([", ", ",", " , "]), Span(given, type_))
    if style == "initials_glued":
        initials = ".".join(w[0] for w in given.split() if w[:1].isalpha())
        return (Span(f"{initials}. {first_surname}", type_),)
    raise ValueError(f"unknown name style {style!r}")


def title_for(rng: random.Random, female: bool, staff: bool) -> str:
    """A courtesy or professional title; never part of the name's span (N1.1, N5.1)."""
    if staff:
        return weighted(rng, [("Dra." if female else "Dr.", 10), ("Dra" if female else "Dr", 2), ("", 3)])
    if female:
        return weighted(rng, [("Dña.", 6), ("Dª", 2), ("Doña", 2), ("Sra.", 5), ("Dña", 1), ("", 4)])
    return weighted(rng, [("D.", 6), ("Don", 2), ("Sr.", 5), ("Sr", 1), ("", 4)])


# ----------------------------------------------------------------------------- places


@dataclass(frozen=True)
class Place:
    """Where someone lives: a town of a province, with postal code and language area."""

    code: str  # two-digit INE province code = postal-code prefix
    province: str
    community: str
    region: str  # language area: es, ca, gl, eu, can
    town: str
    postal_code: str


def place(rng: random.Random, lexicon: Lexicon, region: str | None = None) -> Place:
    """A Spanish place: a capital, one of the province's towns or any municipality."""
    rows = [p for p in T.PROVINCES if region is None or p[4] == region] or list(T.PROVINCES)
    code, province, capital, community, language, towns = rng.choice(rows)
    kind = weighted(rng, [("capital", 5), ("town", 4), ("municipality", 2)])
    if kind == "capital" or (kind == "town" and not towns):
        town = capital
    elif kind == "town":
        town = rng.choice(towns)
    else:
        town = rng.choice(lexicon.towns)
    # Capitals have the province's low codes (28001-28080), other towns higher ones.
    suffix = f"0{rng.randint(1, 80):02d}" if town == capital else f"{rng.randint(10, 99)}{rng.choice('0000125')}"
    return Place(code, province, community, language, town, code + suffix)


def province_name(rng: random.Random, where: Place) -> str:
    variants = T.PROVINCE_VARIANTS.get(where.province, ())
    return rng.choice(variants) if variants and chance(rng, 0.3) else where.province


def community_name(rng: random.Random, where: Place) -> str:
    variants = T.COMMUNITY_VARIANTS.get(where.community, ())
    return rng.choice(variants) if variants and chance(rng, 0.3) else where.community


def postal_code_text(rng: random.Random, where: Place) -> str:
    return weighted(rng, [(where.postal_code, 20), (f"E-{where.postal_code}", 1)])


def country(rng: random.Random, lexicon: Lexicon) -> str:
    return rng.choice(lexicon.countries)


@functools.cache
def _faker_foreign_towns() -> tuple[tuple[str, str], ...]:
    """(town, country) from the real town lists of Faker's address locales."""
    out: list[tuple[str, str]] = []
    for locale, attribute, country in T.FAKER_FOREIGN_TOWNS:
        towns = getattr(importlib.import_module(f"faker.providers.address.{locale}").Provider, attribute)
        towns = towns.values() if isinstance(towns, dict) else towns
        names = (t[-1] if isinstance(t, tuple) else t for t in towns)
        out += sorted({(n, country) for n in names if n[:1].isupper() and len(n) < 30})
    return tuple(out)


def neighbourhood_phrase(rng: random.Random, where: Place) -> Phrase:
    """``Reside en el barrio de Deusto (Bilbao)``: the neighbourhood without ``barrio de``,
    the town a span of its own (P12.4)."""
    name = rng.choice(T.NEIGHBOURHOODS)
    article, shown = {"el ": ("del", name[3:]), "la ": ("de la", name[3:])}.get(name[:3], ("de", name))
    verb = rng.choice(["Reside en el barrio", "Vive en el barrio", "Residente en el barrio", "Domicilio en el barrio"])
    head: Phrase = (f"{verb} {article} ", Span(shown, "TERRITORIO"))
    town = Span(where.town, "TERRITORIO")
    tail = weighted(rng, [((), 3), ((" (", town, ")"), 2), ((", en ", town), 2), ((" de ", town), 2)])
    return (*head, *tail)


def foreign_place(rng: random.Random) -> tuple[str, str]:
    """(town, country) abroad: a town a Spanish clinician writes in Spanish spelling, or
    any town of a Faker locale's list (drawn country first, so large lists do not dominate)."""
    if chance(rng, 0.5):
        return rng.choice(T.FOREIGN_PLACES)
    country = rng.choice(T.FAKER_FOREIGN_TOWNS)[2]
    return rng.choice([p for p in _faker_foreign_towns() if p[1] == country])


def _floor_es(rng: random.Random) -> str:
    n = rng.randint(1, 9)
    door = rng.choice("ABCDEFGH")
    side = rng.choice(["izq.", "izda.", "dcha.", "dcha", "izquierda", "derecha", "centro"])
    return weighted(
        rng,
        [
            (f"{n}º {door}", 8),
            (f"{n}º{door}", 5),
            (f"{n}.º {door}", 3),
            (f"{n}º-{door}", 3),
            (f"{n}º {side}", 4),
            (f"{n}º {rng.randint(1, 4)}ª", 4),
            (f"{n}{door}", 3),
            (f"{n} {door}", 2),
            (f"{n}-{door}", 2),
            (f"bajo {door}", 2),
            ("bajo", 2),
            ("ático", 1),
            (f"entreplanta {rng.randint(1, 3)}", 1),
            (f"piso {n}, puerta {rng.randint(1, 6)}", 2),
            (f"esc. {rng.choice('ABC12')}, {n}º {door}", 2),
            (f"portal {rng.randint(1, 6)}, {n}º {door}", 2),
            (f"{n}o {door}", 1),
        ],
    )


def _floor_ca(rng: random.Random) -> str:
    n = rng.randint(1, 6)
    ordinal = {1: "1r", 2: "2n", 3: "3r", 4: "4t", 5: "5è", 6: "6è"}[n]
    door = f"{rng.randint(1, 4)}a"
    return weighted(
        rng,
        [
            (f"{ordinal} {door}", 10),
            (f"{ordinal}-{door}", 3),
            (f"{n}º {door}", 3),
            (f"{ordinal}", 2),
            ("baixos", 2),
            (f"àtic {door}", 1),
            (f"pral. {door}", 1),
            (f"entl. {door}", 1),
            (f"esc. B, {ordinal} {door}", 1),
        ],
    )


def _floor_gl(rng: random.Random) -> str:
    n = rng.randint(1, 8)
    return weighted(
        rng,
        [(f"{n}º esq.", 3), (f"{n}º dta.", 3), (f"{n}º {rng.choice('ABCD')}", 5), ("baixo", 2), (f"{n}º", 2)],
    )


def _floor_eu(rng: random.Random) -> str:
    n = rng.randint(1, 9)
    return weighted(
        rng,
        [(f"{n}. ezk.", 4), (f"{n}. esk.", 4), (f"{n}. {rng.choice('ABCD')}", 4), ("behea", 1), (f"{n}º izda.", 2)],
    )


def _number(rng: random.Random) -> str:
    n = str(rng.choice([rng.randint(1, 30), rng.randint(1, 150), rng.randint(1, 400)]))
    return weighted(
        rng,
        [
            (n, 20),
            (f"nº {n}", 4),
            (f"n.º {n}", 2),
            (f"núm. {n}", 2),
            (f"{n}-{int(n) + 2}", 1),
            (f"{n} bis", 1),
            ("s/n", 3),
        ],
    )


def street_text(rng: random.Random, lexicon: Lexicon, region: str) -> str:
    """One CALLE surface: type word, name, number and often floor and door."""
    if chance(rng, 0.08):
        return _rural_street(rng)
    if region == "ca" and chance(rng, 0.75):
        kind = weighted(rng, [*T.STREET_TYPES_CA, *T.STREET_TYPES_CA_EXTRA])
        core = rng.choice(T.STREET_CORES_CA)
        if chance(rng, 0.3):
            core = core.removeprefix("de ").removeprefix("del ")
        name, floor = f"{kind} {core}", _floor_ca(rng)
    elif region == "gl" and chance(rng, 0.75):
        name, floor = f"{weighted(rng, T.STREET_TYPES_GL)} {rng.choice(T.STREET_CORES_GL)}", _floor_gl(rng)
    elif region == "eu" and chance(rng, 0.7):
        name, floor = f"{rng.choice(T.STREET_CORES_EU)} {weighted(rng, T.STREET_TYPES_EU)}", _floor_eu(rng)
    else:
        core = rng.choice(T.STREET_CORES_ES) if chance(rng, 0.6) else _person_street(rng, lexicon)
        name, floor = f"{weighted(rng, T.STREET_TYPES_ES)} {core}", _floor_es(rng)
    number = _number(rng)
    if number == "s/n" or chance(rng, 0.3):
        return f"{name}{rng.choice([', ', ' '])}{number}"
    sep = rng.choice([", ", ", ", " ", " - ", ". "])
    return f"{name}{rng.choice([', ', ' ', ', '])}{number}{sep}{floor}"


def _person_street(rng: random.Random, lexicon: Lexicon) -> str:
    who = lexicon.first_name(rng).split()[0] + " " + lexicon.surname(rng)
    return weighted(rng, [(who, 5), (f"Doctor {lexicon.surname(rng)}", 1), (f"Pintor {lexicon.surname(rng)}", 1)])


def _rural_street(rng: random.Random) -> str:
    kind = weighted(rng, [("rural", 3), ("road", 2), ("galician", 1)])
    if kind == "road":
        km = f"{rng.randint(1, 140)},{rng.randint(0, 9)}" if chance(rng, 0.5) else str(rng.randint(1, 140))
        return f"{rng.choice(T.ROADS)}, km {km}"
    if kind == "galician":
        return f"Lugar de {rng.choice(T.RURAL_GL)}, {rng.randint(1, 40)}"
    place_name = rng.choice(T.RURAL_PLACES)
    return weighted(
        rng,
        [
            (place_name, 2),
            (f"{place_name}, {rng.randint(1, 60)}", 3),
            (f"{place_name}, parcela {rng.randint(1, 300)}", 1),
            (f"{place_name} s/n", 1),
        ],
    )


def address_phrase(rng: random.Random, lexicon: Lexicon, where: Place, one_line: bool = True) -> Phrase:
    """Street, postal code, town and sometimes province and country, in the many
    orders and punctuations of a letterhead or a patient's record; each a separate
    span (M11.1, M12.1)."""
    street = Span(street_text(rng, lexicon, where.region), "CALLE")
    code = Span(postal_code_text(rng, where), "TERRITORIO")
    town = Span(where.town, "TERRITORIO")
    province = Span(province_name(rng, where), "TERRITORIO")
    parts: list = [street]
    line_break = "\n" if not one_line else ""
    separator = rng.choice([", ", " ", " - "] if street.text.endswith(".") else [", ", ". ", " ", " - "])
    parts.append(line_break or separator)
    layout = weighted(rng, [("code_town", 6), ("town_code", 2), ("town", 2), ("code_town_province", 3)])
    if layout == "code_town":
        parts += [code, rng.choice([" ", " ", "-", " - "]), town]
    elif layout == "town_code":
        parts += [town, rng.choice([" (", ", CP "]), code]
        parts.append(")" if parts[-2] == " (" else "")
    elif layout == "town":
        parts += [town]
    else:
        parts += [code, " ", town]
        if where.town != where.province:
            parts += [rng.choice([" (", ", "]), province]
            parts.append(")" if parts[-2] == " (" else "")
    if chance(rng, 0.12):
        parts += [rng.choice([". ", ", "]), Span(rng.choice(["España", "ESPAÑA", "Spain"]), "PAIS")]
    return tuple(parts)


def foreign_address_phrase(rng: random.Random) -> Phrase:
    town, country_name = foreign_place(rng)
    number = str(rng.randint(1, 120))
    street = rng.choice(T.FOREIGN_STREETS)
    street_text_ = f"{number} {street}" if street[0].islower() else f"{street} {number}"
    code = digits(rng, 5, first_nonzero=True)
    return (
        Span(street_text_, "CALLE"),
        ", ",
        Span(code, "TERRITORIO"),
        " ",
        Span(town, "TERRITORIO"),
        rng.choice([", ", " (", ". "]),
        Span(country_name, "PAIS"),
    )


# ----------------------------------------------------------------------------- dates

CATALAN_MONTHS = "gener febrer març abril maig juny juliol agost setembre octubre novembre desembre".split()
GALICIAN_MONTHS = "xaneiro febreiro marzo abril maio xuño xullo agosto setembro outubro novembro decembro".split()
ROMAN = ROMAN_MONTHS


def random_date(rng: random.Random, start: date, end: date) -> date:
    return start + timedelta(days=rng.randint(0, max(0, (end - start).days)))


def _month_name(rng: random.Random, month: int, capital: bool) -> str:
    name = MONTHS[month - 1]
    if capital:
        name = name.capitalize()
    return name


DATE_STYLES = (
    ("dd/mm/yyyy", 30),
    ("d/m/yyyy", 6),
    ("dd/mm/yy", 6),
    ("dd-mm-yyyy", 6),
    ("d-m-yy", 3),
    ("dd.mm.yyyy", 4),
    ("iso", 4),
    ("yyyy/mm/dd", 1),
    ("long", 14),
    ("long_capital", 3),
    ("long_del", 2),
    ("day_month", 4),
    ("month_year", 5),
    ("month_year_short", 1),
    ("abbr_month", 3),
    ("abbr_month_upper", 2),
    ("roman", 2),
    ("weekday_long", 2),
    ("catalan", 1),
    ("galician", 1),
)


def date_text(rng: random.Random, d: date, style: str | None = None) -> str:
    """``d`` written in ``style`` (a :data:`DATE_STYLES` name, drawn when None). Never
    includes a time of day (guideline N6.1)."""
    style = style or weighted(rng, DATE_STYLES)
    day, month, year = d.day, d.month, d.year
    if style == "dd/mm/yyyy":
        return f"{day:02d}/{month:02d}/{year}"
    if style == "d/m/yyyy":
        return f"{day}/{month}/{year}"
    if style == "dd/mm/yy":
        return f"{day:02d}/{month:02d}/{year % 100:02d}"
    if style == "dd-mm-yyyy":
        return f"{day:02d}-{month:02d}-{year}"
    if style == "d-m-yy":
        return f"{day}-{month}-{year % 100:02d}"
    if style == "dd.mm.yyyy":
        return f"{day:02d}.{month:02d}.{year}"
    if style == "iso":
        return d.isoformat()
    if style == "yyyy/mm/dd":
        return f"{year}/{month:02d}/{day:02d}"
    if style in ("long", "long_capital"):
        return f"{day} de {_month_name(rng, month, style == 'long_capital')} de {year}"
    if style == "long_del":
        return f"{day:02d} de {MONTHS[month - 1]} del {year}"
    if style == "day_month":
        return f"{day} de {MONTHS[month - 1]}"
    if style == "month_year":
        return f"{_month_name(rng, month, chance(rng, 0.2))} de {year}"
    if style == "month_year_short":
        short = MONTHS[month - 1][:3]
        return weighted(
            rng, [(f"{short}-{year % 100:02d}", 2), (f"{short}-{year}", 2), (f"{MONTHS[month - 1]} {year}", 2)]
        )
    if style == "abbr_month":
        return f"{day}-{MONTHS[month - 1][:3]}-{year}" if chance(rng, 0.5) else f"{day} {MONTHS[month - 1][:3]} {year}"
    if style == "abbr_month_upper":
        return f"{day:02d}-{MONTHS[month - 1][:3].upper()}-{year}"
    if style == "roman":
        return f"{day}-{ROMAN[month - 1]}-{year}"
    if style == "weekday_long":
        return f"{WEEKDAYS[d.weekday()]} {day} de {MONTHS[month - 1]}"
    if style == "catalan":
        name = CATALAN_MONTHS[month - 1]
        joined = f"d'{name}" if name[0] in "ao" else f"de {name}"
        return f"{day} {joined} de {year}"
    if style == "galician":
        return f"{day} de {GALICIAN_MONTHS[month - 1]} de {year}"
    raise ValueError(f"unknown date style {style!r}")


SEASONS = ("primavera", "verano", "otoño", "invierno")
HOLIDAYS = ("Navidad", "Nochebuena", "Nochevieja", "Semana Santa", "Reyes", "San Juan", "las Navidades")


def season_or_holiday_text(rng: random.Random, d: date) -> str:
    """A season or holiday, with or without its year (guidelines P6.2, P6.5):
    ``verano de 2019``, ``otoño del 2017``, ``Navidad``, ``Semana Santa de 2018``."""
    if chance(rng, 0.6):
        season = SEASONS[(d.month % 12) // 3 - 1 if d.month % 12 >= 3 else 3]
        return f"{season} {rng.choice(['de', 'del'])} {d.year}" if chance(rng, 0.8) else season
    holiday = rng.choice(HOLIDAYS)
    return f"{holiday} de {d.year}" if chance(rng, 0.3) else holiday


def numeric_date(rng: random.Random, d: date) -> str:
    """``d`` in a numeric form, for headers and tables."""
    return date_text(rng, d, weighted(rng, [("dd/mm/yyyy", 10), ("d/m/yyyy", 2), ("dd/mm/yy", 2), ("dd-mm-yyyy", 2)]))


# ----------------------------------------------------------------------------- ages

NUMBER_WORDS = (
    "cero un dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis "
    "diecisiete dieciocho diecinueve veinte"
).split()


def age_text(rng: random.Random, years: int, months: int = 0, days: int = 0) -> str:
    """An EDAD surface: ``45 años``, ``45 a``, ``45a``, ``3 meses``, ``10 días``,
    ``tres años``; the number and its unit only (P2.3), never ``de edad``."""
    if years == 0 and months == 0:
        unit = "día" if days == 1 else "días"
        return f"{NUMBER_WORDS[days]} {unit}" if days <= 10 and chance(rng, 0.3) else f"{days} {unit}"
    if years < 2:
        total = years * 12 + months
        unit = "mes" if total == 1 else "meses"
        return f"{NUMBER_WORDS[total]} {unit}" if total <= 20 and chance(rng, 0.3) else f"{total} {unit}"
    if years <= 20 and chance(rng, 0.15):
        return f"{NUMBER_WORDS[years]} años"
    return weighted(
        rng,
        [(f"{years} años", 30), (f"{years} a", 2), (f"{years}a", 2), (f"{years} a.", 2), (f"{years} AÑOS", 1)],
    )


def age_between(birth: date, on: date) -> tuple[int, int, int]:
    """Completed years, months and days from ``birth`` to ``on``."""
    years = on.year - birth.year - ((on.month, on.day) < (birth.month, birth.day))
    months = (on.year - birth.year) * 12 + on.month - birth.month - (on.day < birth.day)
    return years, months % 12 if years else months, (on - birth).days


def sex_text(rng: random.Random, female: bool, field: bool) -> str:
    """A SEXO surface: a field value (``M``, ``H``, ``V``, ``F``, ``Mujer``) or a noun
    or adjective of running text (``varón``, ``mujer``, ``paciente masculino``)."""
    if field:
        if female:
            return weighted(rng, [("M", 6), ("Mujer", 4), ("F", 2), ("Femenino", 2), ("MUJER", 1)])
        return weighted(rng, [("H", 5), ("V", 3), ("Varón", 4), ("Hombre", 2), ("Masculino", 2), ("VARÓN", 1)])
    if female:
        return weighted(rng, [("mujer", 6), ("Mujer", 3), ("femenina", 1)])
    return weighted(rng, [("varón", 6), ("Varón", 3), ("hombre", 2), ("masculino", 1)])


# ----------------------------------------------------------------------------- phones

LANDLINE_PREFIXES = {
    "28": "91",
    "08": "93",
    "41": "95",
    "46": "96",
    "48": "94",
    "15": "981",
    "36": "986",
    "33": "98",
    "50": "976",
    "31": "948",
    "30": "968",
    "29": "95",
}


def _valid_spanish(national: str) -> bool:
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(national, "ES"))
    except phonenumbers.NumberParseException:
        return False


def _spanish_number(rng: random.Random, mobile: bool, province_code: str | None) -> str:
    for _ in range(20):
        if mobile:
            national = rng.choice("6667") + digits(rng, 8)
        else:
            prefix = LANDLINE_PREFIXES.get(province_code or "", rng.choice(["91", "93", "95", "96", "98", "97", "94"]))
            national = prefix + digits(rng, 9 - len(prefix))
        if _valid_spanish(national):
            return national
    return "600" + digits(rng, 6)


def national_number(rng: random.Random, mobile: bool = True, province_code: str | None = None) -> str:
    """A valid Spanish national number, digits only (for forms that write it their own way)."""
    return _spanish_number(rng, mobile, province_code)


def _grouped(rng: random.Random, national: str) -> str:
    a = national
    if a.startswith(("91", "93")):
        groups = weighted(rng, [((2, 3, 2, 2), 4), ((3, 3, 3), 3), ((9,), 3), ((2, 7), 1), ((3, 6), 1)])
    else:
        groups = weighted(rng, [((3, 3, 3), 4), ((3, 2, 2, 2), 3), ((9,), 3), ((3, 6), 1)])
    pieces, i = [], 0
    for g in groups:
        pieces.append(a[i : i + g])
        i += g
    return rng.choice([" ", " ", "-", "."]).join(pieces)


def phone_text(rng: random.Random, mobile: bool = True, province_code: str | None = None) -> str:
    """A Spanish phone number in one of the groupings people write, sometimes with a
    country prefix or an extension (kept in the span, as MEDDOCAN does)."""
    text = _grouped(rng, _spanish_number(rng, mobile, province_code))
    prefix = weighted(rng, [("", 20), ("+34 ", 3), ("0034 ", 1), ("(+34) ", 1), ("+34", 1)])
    text = prefix + text
    if not mobile and chance(rng, 0.1):
        text += rng.choice([" ext. ", " ext ", " Ext. "]) + digits(rng, 4, first_nonzero=True)
    return text


def foreign_phone_text(rng: random.Random) -> str:
    """A valid number of another country in international format (+33, +40, +212…)."""
    region = rng.choice(["FR", "RO", "MA", "GB", "SN", "PT", "IT", "DE", "CO", "EC", "PL", "UA"])
    example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
    national = str(example.national_number)
    for _ in range(20):
        candidate = national[:2] + digits(rng, len(national) - 2)
        number = phonenumbers.parse(f"+{example.country_code}{candidate}")
        if phonenumbers.is_valid_number(number):
            break
    else:
        number = example
    text = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
    return text.replace("+", "00", 1) if chance(rng, 0.15) else text


def pager_text(rng: random.Random) -> str:
    """An internal extension or pager number (P14.2: annotated as a phone)."""
    return weighted(rng, [(digits(rng, 4, True), 3), (f"{digits(rng, 4, True)}-{digits(rng, 4, True)}", 1)])


# ----------------------------------------------------------------------------- identifiers


def dni_text(rng: random.Random) -> str:
    number = digits(rng, 8, first_nonzero=chance(rng, 0.8))
    letter = stdnum_dni.calc_check_digit(number)
    body = f"{number[:2]}.{number[2:5]}.{number[5:]}" if chance(rng, 0.12) else number
    return body + weighted(rng, [("", 6), ("-", 3), (" ", 1)]) + letter


def nie_text(rng: random.Random) -> str:
    prefix = rng.choice("XYZ")
    number = digits(rng, 7)
    letter = stdnum_nie.calc_check_digit(prefix + number)
    sep = weighted(rng, [("", 6), ("-", 2)])
    return f"{prefix}{sep}{number}{sep}{letter}"


def nass_text(rng: random.Random, province_code: str) -> str:
    """A social-security affiliation number with valid mod-97 check digits."""
    body = province_code + digits(rng, 8)
    check = f"{int(body) % 97:02d}"
    sep = weighted(rng, [(" ", 5), ("/", 3), ("", 2), ("-", 1)])
    return f"{body[:2]}{sep}{body[2:]}{sep}{check}"


def nhc_text(rng: random.Random) -> str:
    return digits(rng, rng.choice([6, 7, 7, 8, 8, 9]), first_nonzero=True)


def episode_text(rng: random.Random) -> str:
    return weighted(
        rng,
        [
            (digits(rng, rng.choice([7, 8, 9, 10]), True), 6),
            (f"{rng.randint(2015, 2025)}/{digits(rng, 6)}", 1),
            (f"URG-{digits(rng, 7, True)}", 1),
        ],
    )


def cip_text(rng: random.Random, name: PersonName, birth: date) -> str:
    """A regional health-card code: Catalan CIP (surname letters, sex, birth date),
    Andalusian NUHSA, SNS 16-character code or a plain TSI number."""
    kind = weighted(rng, [("cip", 4), ("nuhsa", 2), ("sns", 2), ("tsi", 2)])
    if kind == "cip":
        letters_ = "".join(normalize(s)[:2].upper() for s in (name.surnames + ("XX",))[:2])
        letters_ = "".join(c if c.isalpha() and c.isascii() else "X" for c in letters_)
        return f"{letters_}{int(name.female)}{birth:%y%m%d}{digits(rng, 3)}"
    if kind == "nuhsa":
        return f"AN{digits(rng, 10, True)}"
    if kind == "sns":
        return letters(rng, 4) + digits(rng, 12)
    return digits(rng, 10, True) if chance(rng, 0.5) else f"{letters(rng, 4)} {digits(rng, 6)} {digits(rng, 2)}"


def passport_text(rng: random.Random) -> str:
    return weighted(
        rng, [(letters(rng, 3) + digits(rng, 6), 3), ("P" + digits(rng, 7), 1), (letters(rng, 2) + digits(rng, 7), 1)]
    )


def collegiate_text(rng: random.Random, province_code: str) -> str:
    """A collegiate number in the shapes medical colleges print (``28/12345``,
    ``08-08-25574``, ``28 28 54712``, ``281234567``)."""
    tail = digits(rng, 5, True)
    p = province_code
    return weighted(
        rng,
        [(f"{p}/{tail}", 3), (f"{p}-{p}-{tail}", 3), (f"{p} {p} {tail}", 3), (f"{p}{p}{tail}", 2), (tail, 2)],
    )


def employee_text(rng: random.Random) -> str:
    return weighted(
        rng,
        [
            (f"E-{digits(rng, 5, True)}", 3),
            (digits(rng, 6, True), 3),
            (f"u{digits(rng, 6)}", 1),
            (f"e{digits(rng, 6)}", 1),
            (letters(rng, 1) + digits(rng, 5), 1),
        ],
    )


def petition_text(rng: random.Random) -> str:
    return weighted(
        rng, [(digits(rng, 8, True), 4), (f"{rng.randint(20, 25)}{digits(rng, 7)}", 2), (f"P{digits(rng, 7)}", 1)]
    )


def sample_text(rng: random.Random) -> str:
    year = rng.randint(15, 25)
    letter = rng.choice("BCQP")
    return weighted(
        rng,
        [
            (f"{letter}{year}-{digits(rng, 5)}", 4),
            (f"{letter}-{year}-{digits(rng, 4)}", 2),
            (f"{year}{letter}{digits(rng, 5)}", 1),
        ],
    )


def accession_text(rng: random.Random) -> str:
    return weighted(
        rng, [(digits(rng, 10, True), 2), (f"RX{digits(rng, 8)}", 1), (f"{letters(rng, 2)}{digits(rng, 7)}", 1)]
    )


def device_serial_text(rng: random.Random) -> str:
    return weighted(
        rng,
        [
            (letters(rng, 3) + digits(rng, 6) + letters(rng, 1), 3),
            (f"{digits(rng, 5, True)}-{letters(rng, 2)}", 1),
            ("SN" + digits(rng, 9), 2),
            (f"{letters(rng, 2)}{digits(rng, 4)}-{digits(rng, 4)}", 1),
        ],
    )


def mac_text(rng: random.Random) -> str:
    return ":".join(f"{rng.randint(0, 255):02x}" for _ in range(6))


PLATE_LETTERS = "BCDFGHJKLMNPRSTVWXYZ"


def plate_text(rng: random.Random) -> str:
    """A Spanish number plate, current (``1234 HJK``) or provincial (``M-1234-AB``)."""
    number = digits(rng, 4)
    new = letters(rng, 3, PLATE_LETTERS)
    old = f"{rng.choice(['M', 'B', 'V', 'SE', 'MU', 'Z', 'GR', 'A'])}-{number}-{letters(rng, 2, PLATE_LETTERS)}"
    return weighted(rng, [(f"{number} {new}", 4), (f"{number}{new}", 3), (f"{number}-{new}", 2), (old, 2)])


def vin_text(rng: random.Random) -> str:
    alphabet = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
    return rng.choice(["VF1", "WVW", "VSS", "ZFA", "WBA"]) + "".join(rng.choice(alphabet) for _ in range(14))


def ip_text(rng: random.Random) -> str:
    kind = weighted(rng, [("private", 4), ("public", 2), ("v6", 1)])
    if kind == "private":
        return rng.choice([f"10.{rng.randint(0, 255)}", "192.168", f"172.{rng.randint(16, 31)}"]) + (
            f".{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        )
    if kind == "public":
        return ".".join(str(rng.randint(1, 223)) for _ in range(4))
    return "2001:db8:" + ":".join(f"{rng.randint(0, 0xFFFF):x}" for _ in range(4))


def slug(text: str) -> str:
    """Lower-case ASCII letters and digits of ``text`` (for e-mails and URLs)."""
    return "".join(c for c in normalize(text) if c.isascii() and c.isalnum())


MAIL_DOMAINS = (
    ("gmail.com", 10),
    ("hotmail.com", 6),
    ("yahoo.es", 3),
    ("outlook.es", 3),
    ("telefonica.net", 1),
    ("icloud.com", 1),
    ("hotmail.es", 2),
)
WORK_DOMAINS = ("salud.madrid.org", "gencat.cat", "sergas.es", "osakidetza.eus", "juntadeandalucia.es", "gva.es")


def email_text(rng: random.Random, name: PersonName, work: bool = False) -> str:
    """An e-mail address derived from ``name`` (people do use their names)."""
    given, first_surname = slug(name.given.split()[0]), slug(name.surnames[0])
    second = slug(name.surnames[1]) if len(name.surnames) > 1 else ""
    local = weighted(
        rng,
        [
            (f"{given}.{first_surname}", 4),
            (f"{given[:1]}{first_surname}{second}", 3),
            (f"{given}{first_surname}{rng.randint(1, 99)}", 2),
            (f"{first_surname}.{given[:1]}", 1),
            (f"{given}_{first_surname}", 1),
            (f"{given}{rng.randint(1950, 2010)}", 1),
        ],
    )
    domain = rng.choice(WORK_DOMAINS) if work else weighted(rng, MAIL_DOMAINS)
    return f"{local or 'usuario'}@{domain}"


def url_text(rng: random.Random, organisation: str) -> str:
    base = slug(organisation)[:24] or "hospital"
    path = weighted(rng, [("", 4), ("/citaprevia", 1), ("/pacientes", 1), ("/es/inicio", 1)])
    return weighted(rng, [(f"www.{base}.es{path}", 4), (f"https://www.{base}.es{path}", 3), (f"http://{base}.org", 1)])


def url_type(url: str) -> str:
    """The type of a web address as the rule layer and the notes give it (guidelines
    P24.1 and P25.1): an address with a protocol (``https://…``) is
    DIREC_PROT_INTERNET, a bare ``www.…`` one URL_WEB."""
    return "DIREC_PROT_INTERNET" if "://" in url else "URL_WEB"


# IP and MAC addresses identify a device (guideline P23.1 lists them there).
IP_TYPE = "IDENTIF_DISPOSITIVOS_NRSERIE"


def iban_text(rng: random.Random) -> str:
    bban = digits(rng, 20)
    check = stdnum_iban.calc_check_digits("ES00" + bban)
    number = f"ES{check}{bban}"
    return " ".join(number[i : i + 4] for i in range(0, len(number), 4)) if chance(rng, 0.7) else number


def record_number_text(rng: random.Random) -> str:
    """A file or case-record number (social services, court): OTROS_SUJETO_ASISTENCIA."""
    return weighted(
        rng,
        [(f"{rng.randint(2010, 2025)}/{digits(rng, 5)}", 3), (f"EXP-{digits(rng, 6)}", 1), (digits(rng, 7, True), 1)],
    )


def member_number_text(rng: random.Random) -> str:
    return weighted(rng, [(digits(rng, 8, True), 2), (f"{letters(rng, 2)}-{digits(rng, 6)}", 1)])


def biometric_text(rng: random.Random) -> str:
    return f"{letters(rng, 2)}{digits(rng, 3)}{letters(rng, 4)}{digits(rng, 3)}"


def policy_text(rng: random.Random) -> str:
    return weighted(
        rng,
        [
            (digits(rng, 10, True), 2),
            (f"{letters(rng, 3)}-{digits(rng, 8)}", 1),
            (f"{digits(rng, 2)}/{digits(rng, 7)}", 1),
        ],
    )


# ----------------------------------------------------------------------------- organisations


def _fill(rng: random.Random, lexicon: Lexicon, pattern: str, where: Place) -> str:
    """Fill a name pattern's slots ({town}, {surname}, {place}, {saint}…)."""
    values = {
        "town": where.town,
        "province": where.province,
        "surname": lexicon.surname(rng),
        "first": lexicon.first_name(rng).split()[0],
        "saint": rng.choice(T.SAINTS),
        "female_saint": rng.choice(T.FEMALE_SAINTS),
        "virgin": rng.choice(T.VIRGINS),
        "zone": rng.choice(T.ZONES),
        "n": str(rng.randint(1, 12)),
    }
    values["place"] = weighted(
        rng,
        [
            (f"{values['first']} {values['surname']}", 2),
            (f"San {values['saint']}", 2),
            (f"Santa {values['female_saint']}", 1),
            (values["town"], 2),
            (rng.choice(["Las Acacias", "El Naranjo", "Los Rosales", "La Alameda", "El Parque", "Los Olmos"]), 2),
            (rng.choice(["Barrio del Pilar", "La Chana", "Casco Viejo", "Ensanche", "Sant Andreu", "Txurdinaga"]), 1),
        ],
    )
    return pattern.format(**values)


def hospital_text(rng: random.Random, lexicon: Lexicon, where: Place) -> str:
    if lexicon.hospitals and chance(rng, 0.15):
        name = rng.choice(lexicon.hospitals)
        return name if chance(rng, 0.5) else " ".join(w.capitalize() if len(w) > 3 else w.lower() for w in name.split())
    if chance(rng, 0.07):
        return rng.choice(T.HOSPITAL_ABBREVIATIONS)
    patterns = {"ca": T.HOSPITAL_PATTERNS_CA, "gl": T.HOSPITAL_PATTERNS_GL}.get(where.region, ())
    pool = patterns if patterns and chance(rng, 0.5) else T.HOSPITAL_PATTERNS
    return _fill(rng, lexicon, rng.choice(pool), where)


def health_centre_text(rng: random.Random, lexicon: Lexicon, where: Place) -> str:
    regional = {"ca": T.HEALTH_CENTRE_PATTERNS_CA, "gl": T.HEALTH_CENTRE_PATTERNS_GL, "eu": T.HEALTH_CENTRE_PATTERNS_EU}
    patterns = regional.get(where.region, ())
    pool = patterns if patterns and chance(rng, 0.6) else T.HEALTH_CENTRE_PATTERNS
    return _fill(rng, lexicon, rng.choice(pool), where)


def health_service_text(rng: random.Random, where: Place) -> str:
    """The health service or government of ``where``'s community, as it heads a letter."""
    return rng.choice(HEALTH_SERVICES.get(where.community) or HEALTH_SERVICES["Comunidad de Madrid"])


def institution_text(rng: random.Random, lexicon: Lexicon, where: Place) -> str:
    if chance(rng, 0.3):
        return rng.choice(T.INSTITUTION_NAMES)
    return _fill(rng, lexicon, rng.choice(T.INSTITUTION_PATTERNS), where)


def employer_text(rng: random.Random, lexicon: Lexicon, where: Place) -> str:
    """The patient's employer: OTROS_SUJETO_ASISTENCIA by guideline P28.1."""
    return _fill(rng, lexicon, rng.choice(T.COMPANY_PATTERNS), where)


def profession_text(rng: random.Random, lexicon: Lexicon, female: bool) -> str:
    if lexicon.occupations and chance(rng, 0.25):
        return rng.choice(lexicon.occupations)
    male_form, female_form = rng.choice(T.PROFESSIONS)
    return female_form if female else male_form
