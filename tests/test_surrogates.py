"""Surrogate values: formats, validity, consistency and reproducibility."""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_crf.deid.rules import dni_letter, find_dni, nass_is_valid
from deid_crf.deid.surrogates import (
    MONTHS,
    DocumentSurrogates,
    cap_age,
    identifier_like,
    match_case,
    normalize,
    phone_like,
    shift_date_text,
)

NUMERIC_FORMATS = ("{d:02d}/{m:02d}/{y:04d}", "{d}/{m}/{y:04d}", "{d:02d}-{m:02d}-{y2:02d}", "{d:02d}.{m:02d}.{y:04d}")


@settings(max_examples=200, deadline=None)
@given(
    st.dates(min_value=date(1901, 1, 1), max_value=date(2090, 12, 31)),
    st.integers(min_value=-365, max_value=365),
    st.sampled_from(NUMERIC_FORMATS),
)
def test_numeric_dates_keep_format_and_validity(day, shift, fmt):
    text = fmt.format(d=day.day, m=day.month, y=day.year, y2=day.year % 100)
    out = shift_date_text(f"el {text}.", shift)
    new = day + timedelta(shift)
    expected = fmt.format(d=new.day, m=new.month, y=new.year, y2=new.year % 100)
    if fmt.startswith("{d}/"):  # unpadded when a part has one digit, padded when both have two
        padded = day.day >= 10 and day.month >= 10
        expected = f"{new.day:02d}/{new.month:02d}/{new.year}" if padded else f"{new.day}/{new.month}/{new.year}"
    assert out == f"el {expected}."


@settings(max_examples=100, deadline=None)
@given(st.dates(min_value=date(1901, 1, 1), max_value=date(2090, 12, 31)), st.integers(min_value=-365, max_value=365))
def test_written_dates_keep_format_and_validity(day, shift):
    new = day + timedelta(shift)
    text = f"{day.day} de {MONTHS[day.month - 1]} de {day.year}"
    assert shift_date_text(text, shift) == f"{new.day} de {MONTHS[new.month - 1]} de {new.year}"
    upper = f"{MONTHS[day.month - 1].capitalize()} {day.year}"
    shifted = shift_date_text(upper, shift)
    assert re.fullmatch(r"[A-ZÁÉ][a-záé]+ \d{4}", shifted), shifted


@pytest.mark.parametrize(
    ("text", "days", "expected"),
    [
        ("diciembre-08", 31, "enero-09"),
        ("Sept 2004", 30, "Oct 2004"),
        ("año 2004", 200, "año 2005"),
        ("lunes 3 de marzo de 2014", 1, "martes 4 de marzo de 2014"),
        ("2016-03-15", -15, "2016-02-29"),
        ("29 de febrero", 1, "1 de marzo"),
        # Month/year and year/month/day dates move with the document's shift too.
        ("06/2016", -166, "01/2016"),
        ("6-2016", 200, "1-2017"),
        ("2016/06/15", -166, "2016/01/01"),
        ("2016-6-5", -166, "2015-12-22"),
        ("2016.06", 31, "2016.07"),
        ("lunes 2016/06/13", 2, "miércoles 2016/06/15"),
        # Roman months (capitals only), and Catalan or Galician month names kept in their language.
        ("8-XI-2023", 40, "18-XII-2023"),
        ("lunes 04-IV-2024", -100, "martes 26-XII-2023"),
        ("29.II.24", 1, "1.III.24"),
        ("13 de juny de 2023", 40, "23 de juliol de 2023"),
        ("2 d'abril de 2024", 40, "12 de maig de 2024"),
        ("13 de juny de 2023", 60, "12 d'agost de 2023"),
        ("30 de xuño de 2022", -100, "22 de marzo de 2022"),
        ("1 de xaneiro de 2020", 40, "10 de febreiro de 2020"),
    ],
)
def test_other_date_formats(text, days, expected):
    assert shift_date_text(text, days) == expected


def test_month_year_dates_move_as_full_dates_do():
    shift = -166
    full = shift_date_text("15/06/2016", shift)
    assert full == "01/01/2016"
    assert shift_date_text("06/2016", shift) == full[3:]  # the month of the 15th, not the real one
    assert shift_date_text("junio de 2016", shift) == "enero de 2016"
    assert shift_date_text("2016/06/15", shift) == "2016/01/01"


@pytest.mark.parametrize("text", ["12/06 /2016", "semana 23 de 2016", "el 15/06 y en 2016", "1er trimestre de 2016"])
def test_dates_only_partly_understood_get_new_digits(text):
    out = shift_date_text(text, -166, random.Random(1))
    shape = re.sub(r"\d", "9", text)
    assert re.sub(r"\d", "9", out) == shape  # same shape…
    assert re.findall(r"\d", out) != re.findall(r"\d", text)  # …new digits…
    assert not any(run in out for run in re.findall(r"\d\d+", text))  # …and no number of the original


def test_unreadable_dates():
    assert shift_date_text("verano", 10) is None
    out = shift_date_text("31/02/2000", 10)
    assert out != "31/02/2000" and re.fullmatch(r"\d\d/\d\d/\d{4}", out)


def test_ages_are_capped_at_90():
    assert [cap_age(a) for a in ("53 años", "94 años", "100", "noventa y dos años", "95 meses")] == [
        "53 años",
        "90 años",
        "90",
        "noventa años",
        "95 meses",
    ]
    # Only number words follow "cien"/"ciento": the unit stays.
    words = ("cien años", "Cien años", "ciento dos años", "ciento treinta y un años", "noventa y tantos años")
    assert [cap_age(a) for a in words] == [
        "noventa años",
        "Noventa años",
        "noventa años",
        "noventa años",
        "noventa años",
    ]


def test_case_and_normalisation():
    assert match_case("RIVERA", "Gómez") == "GÓMEZ"
    assert match_case("rivera", "Gómez") == "gómez"
    assert match_case("Rivera", "gómez") == "Gómez"
    assert normalize("  Núñez   GARCÍA ") == "nunez garcia"


def test_identifiers_keep_shape_and_validity():
    import random

    rng = random.Random(3)
    dni = f"12345678-{dni_letter(12345678)}"
    for _ in range(20):
        new = identifier_like(dni, rng)
        assert re.fullmatch(r"\d{8}-[A-Z]", new) and list(find_dni(new))
        nass = identifier_like("28 12345678 " + f"{2812345678 % 97:02d}", rng)
        assert re.fullmatch(r"\d\d \d{8} \d\d", nass) and nass_is_valid(nass.replace(" ", ""))
        col = identifier_like("28 28 20943", rng)
        assert re.fullmatch(r"(\d\d) \1 \d{5}", col)
        nhc = identifier_like("nhc-0456", rng)
        assert re.fullmatch(r"[a-z]{3}-\d{4}", nhc)
        phone = phone_like("+34 630 75 89 15", rng)
        assert re.fullmatch(r"\+34 6\d\d \d\d \d\d \d\d", phone)


def surrogates(seed: int = 1, **kwargs) -> DocumentSurrogates:
    return DocumentSurrogates(seed, **kwargs)


def test_names_are_consistent_part_by_part():
    s = surrogates()
    full = s.replace("Ernesto Rivera Bueno", "NOMBRE_SUJETO_ASISTENCIA", "Nombre: ")
    first, surname1, surname2 = full.split()
    assert "Rivera" not in full and "Ernesto" not in full
    assert s.replace("Sr. Rivera", "NOMBRE_SUJETO_ASISTENCIA") == f"Sr. {surname1}"
    assert s.replace("RIVERA", "NOMBRE_SUJETO_ASISTENCIA") == surname1.upper()
    assert s.replace("Ernesto Rivera Bueno", "NOMBRE_SUJETO_ASISTENCIA") == full
    assert s.replace("madre Teresa Bueno", "FAMILIARES_SUJETO_ASISTENCIA").endswith(f" {surname2}")
    assert s.replace("madre", "FAMILIARES_SUJETO_ASISTENCIA") == "madre"
    # In a relative's span only kinship words and particles stay: a name in lower case is replaced.
    hija = s.replace("hija marta", "FAMILIARES_SUJETO_ASISTENCIA")
    assert hija.startswith("hija ") and hija != "hija marta" and hija == hija.lower()
    assert s.replace("su hija Marta", "FAMILIARES_SUJETO_ASISTENCIA") == "su hija " + hija[5:].capitalize()
    for kept in ("dos hermanos", "madre de 60 años", "Hijo de una prima hermana de su pareja", "tía materna"):
        assert s.replace(kept, "FAMILIARES_SUJETO_ASISTENCIA") == kept
    assert s.replace("De Miguel", "NOMBRE_SUJETO_ASISTENCIA", "Apellidos: ").startswith("De ")
    # Different originals get different surrogates.
    assert len({s.replace(n, "NOMBRE_PERSONAL_SANITARIO") for n in ("Ana", "Eva", "Luz", "Pilar", "Rosa")}) == 5


def test_values_are_consistent_and_reproducible():
    spans = [
        ("Calle Carmen Romero, 23, 1D", "CALLE"),
        ("Madrid", "TERRITORIO"),
        ("28035", "TERRITORIO"),
        ("España", "PAIS"),
        ("Hospital Universitario La Paz", "HOSPITAL"),
        ("eromero@yahoo.es", "CORREO_ELECTRONICO"),
        ("967 597 100", "NUMERO_TELEFONO"),
        ("2569870", "ID_SUJETO_ASISTENCIA"),
        ("03/03/1946", "FECHAS"),
        ("militar", "PROFESION"),
        ("Madrid", "TERRITORIO"),
        ("MADRID", "TERRITORIO"),
    ]
    a = [surrogates(5).replace(t, ty) for t, ty in spans]
    one = surrogates(5)
    b = [one.replace(t, ty) for t, ty in spans]
    c = [surrogates(6).replace(t, ty) for t, ty in spans]
    assert b[1] == b[10] and b[11] == b[1].upper()
    assert [x for x, (t, _) in zip(b, spans, strict=True) if x == t] == []
    again = surrogates(5)
    assert [again.replace(t, ty) for t, ty in spans] == b
    assert a[0] == b[0] and c != b
    assert b[0].startswith("Calle ") and re.search(r", \d\d, \dD$", b[0])
    assert re.fullmatch(r"\d{5}", b[2]) and 1 <= int(b[2][:2]) <= 52
    assert re.fullmatch(r"9\d\d \d{3} \d{3}", b[6])


def test_kept_and_placeholder_types():
    s = surrogates(keep={"SEXO_SUJETO_ASISTENCIA"})
    assert s.replace("varón", "SEXO_SUJETO_ASISTENCIA") == "varón"
    assert s.replace("raza negroide", "OTROS_SUJETO_ASISTENCIA") == "[OTROS_SUJETO_ASISTENCIA]"
    assert s.replace("94 años", "EDAD_SUJETO_ASISTENCIA") == "90 años"
    t = surrogates(keep=())
    assert t.replace("varón", "SEXO_SUJETO_ASISTENCIA") == "[SEXO_SUJETO_ASISTENCIA]"


def test_internet_and_catch_all_identifiers():
    s = surrogates()
    url = s.replace("https://pacs.sespa.es/visor?acc=RX23-0048711", "DIREC_PROT_INTERNET")
    assert "://" in url and "sespa" not in url
    assert re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", s.replace("10.46.12.87", "DIREC_PROT_INTERNET"))
    assert re.fullmatch(r"[A-Z]{2}-\d{4}", s.replace("BB-2317", "NUMERO_IDENTIF"))


@pytest.mark.parametrize("text", ["28 12345678 40❶", "NASS: 28 12345678 40❶", "²28 12345678 40"])
def test_identifiers_with_digit_like_characters(text):
    """``str.isdigit`` accepts "❶" and "²", which ``\\d`` and ``int`` do not read:
    the NASS stays valid, each such character becomes a digit, nothing else moves."""
    new = identifier_like(text, random.Random(5))
    assert len(new) == len(text)
    assert nass_is_valid("".join(b for a, b in zip(text, new, strict=True) if a.isdecimal()))
    assert all(a == b for a, b in zip(text, new, strict=True) if not a.isdigit())
    assert "❶" not in new and "²" not in new
    assert surrogates().replace(text, "ID_ASEGURAMIENTO")


# One span of each type whose values Faker drew before the vocabulary held its lists.
FAKER_FREE_SPANS = [
    ("Calle Carmen Romero, 23, 1D", "CALLE"),
    ("Talleres Urbieta S.L.", "INSTITUCION"),
    ("eromero@yahoo.es", "CORREO_ELECTRONICO"),
    ("www.clinicabidasoa.com", "URL_WEB"),
    ("https://pacs.sespa.es/visor?acc=RX23-0048711", "DIREC_PROT_INTERNET"),
    ("10.46.12.87", "DIREC_PROT_INTERNET"),
    ("fe80::1ff:fe23:4567:890a", "DIREC_PROT_INTERNET"),
    ("militar", "PROFESION"),
]


def test_values_faker_drew_come_from_the_vocabulary_in_valid_shapes():
    import ipaddress
    from urllib.parse import urlsplit

    from deid_crf.deid.surrogates import Vocabulary

    vocabulary = Vocabulary.default()
    for seed in range(40):
        s = surrogates(seed)
        street, company, email, url, uri, ipv4, ipv6, job = (s.replace(t, ty) for t, ty in FAKER_FREE_SPANS)
        assert re.fullmatch(r"Calle [^\W\d]+(?:[ -][^\W\d]+)+, \d\d, \dD", street) and "Carmen Romero" not in street
        assert company.split()[-1] in vocabulary.company_suffixes
        user, domain = email.split("@")
        assert re.fullmatch(r"[a-z0-9]+(?:\.[a-z0-9]+)?", user) and domain in vocabulary.email_domains
        assert urlsplit(url).scheme == "https" and urlsplit(url).netloc.startswith("www.")
        assert urlsplit(uri).scheme == "https" and urlsplit(uri).path.endswith(".html") and "sespa" not in uri
        assert ipaddress.ip_address(ipv4).version == 4 and ipv4 != "10.46.12.87"
        assert ipaddress.ip_address(ipv6).version == 6
        assert job.lower() in {j.lower() for j in vocabulary.jobs} and job != "militar"
    again = [surrogates(3).replace(t, ty) for t, ty in FAKER_FREE_SPANS]
    assert again == [surrogates(3).replace(t, ty) for t, ty in FAKER_FREE_SPANS]
    assert again != [surrogates(4).replace(t, ty) for t, ty in FAKER_FREE_SPANS]


def test_surrogates_of_every_type_import_no_faker_given_the_saved_vocabulary(tmp_path):
    """Tagging draws everything from the saved vocabulary (``make gazetteers``): Faker,
    0.05 s to import, is left to the training data's rewrite (which passes one)."""
    import shutil
    import subprocess
    import sys

    from deid_crf.deid.surrogates import Vocabulary
    from deid_crf.resources.gazetteer import DEFAULT_DIR

    lists = tmp_path / "lists"
    lists.mkdir()
    shutil.copy(DEFAULT_DIR / "SOURCES.json", lists)  # the fingerprint's lists: the project's
    Vocabulary.build().save(lists)
    spans = [*FAKER_FREE_SPANS, ("Ernesto Rivera Bueno", "NOMBRE_SUJETO_ASISTENCIA"), ("Madrid", "TERRITORIO")]
    spans += [("03/03/1946", "FECHAS"), ("Hospital Universitario La Paz", "HOSPITAL"), ("Italia", "PAIS")]
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from deid_crf.deid.surrogates import DocumentSurrogates, Vocabulary\n"
        f"vocabulary = Vocabulary.load(Path({str(lists)!r}))\n"
        "assert vocabulary is not None\n"
        "s = DocumentSurrogates(5, vocabulary=vocabulary)\n"
        f"values = [s.replace(t, ty) for t, ty in {spans!r}]\n"
        "print(len(values), 'faker' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == [str(len(spans)), "False"]
