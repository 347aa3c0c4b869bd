"""Organisations named in running text, and the numbers of their files.

Real notes name many organisations that are neither hospitals nor health centres:
courts (written whole, with their number and town: one INSTITUCION span, M10.1),
the companies patients work for (often without a legal form: ``Autocares del
Nalón``, ``Confecciones Marisa``; OTROS_SUJETO_ASISTENCIA by P28.1), NGOs, insurers,
mutuas, sports clubs and the sub-national bodies of the health services (``Área
Sanitaria V``, ``Servicio Territorial de Sanidad de Soria``; INSTITUCION by P10.1).
Court case numbers (``autos 812/2024``) and other file numbers are
OTROS_SUJETO_ASISTENCIA (P28.1, "números de expedientes"); the word before the number
(``autos``, ``procedimiento abreviado``) is its label and stays outside the span.

Every function draws from the ``random.Random`` it is given and returns a surface
string, never a span: the caller types it.
"""

from __future__ import annotations

import random

from deid_crf.augment import tables as T
from deid_crf.augment.values import Lexicon, Place, chance, digits, letters, weighted

COURT_KINDS = (
    ("Juzgado de lo Social", 3),
    ("Juzgado de Primera Instancia", 3),
    ("Juzgado de Instrucción", 3),
    ("Juzgado de Primera Instancia e Instrucción", 3),
    ("Juzgado de Violencia sobre la Mujer", 3),
    ("Juzgado de lo Penal", 2),
    ("Juzgado de Menores", 1),
    ("Juzgado de Familia", 1),
    ("Juzgado de lo Contencioso-Administrativo", 1),
    ("Juzgado de Guardia", 1),
)


def court_text(rng: random.Random, where: Place) -> str:
    """``Juzgado de lo Social nº 3 de Bilbao``, ``Audiencia Provincial de Lugo``,
    ``Juzgado de Violencia sobre la Mujer número 2 de Getafe``."""
    if chance(rng, 0.12):
        return weighted(
            rng,
            [
                (f"Audiencia Provincial de {where.province}", 3),
                (f"Fiscalía Provincial de {where.province}", 2),
                (f"Instituto de Medicina Legal de {where.province}", 2),
                (f"Registro Civil de {where.town}", 2),
                ("Tribunal Superior de Justicia", 1),
            ],
        )
    kind = weighted(rng, COURT_KINDS)
    if kind == "Juzgado de Guardia":
        return f"{kind} de {where.town}"
    number = str(weighted(rng, [("1", 5), ("2", 4), ("3", 3), ("4", 2), (str(rng.randint(5, 42)), 2)]))
    label = weighted(rng, [("nº", 6), ("n.º", 2), ("número", 2), ("Nº", 2), ("núm.", 1)])
    if "Mujer" in kind:  # "… Mujer nº" is kept out: the generator's wording must stay its own
        label = weighted(rng, [("número", 2), ("núm.", 1)])
    return f"{kind} {label} {number} de {where.town}"


CASE_LABELS = (
    ("autos", 4),
    ("autos nº", 2),
    ("procedimiento", 2),
    ("procedimiento abreviado", 2),
    ("diligencias previas", 3),
    ("DP", 1),
    ("juicio rápido", 1),
    ("procedimiento de tutela", 1),
    ("expediente", 2),
    ("atestado nº", 2),
    ("denuncia nº", 1),
)


def case_number_text(rng: random.Random, year: int) -> str:
    """A court or police file number: ``812/2024``, ``0001234/2023``, ``DP 45/24``."""
    number = str(rng.randint(1, 2500))
    return weighted(
        rng,
        [
            (f"{number}/{year}", 6),
            (f"{number.zfill(7)}/{year}", 2),
            (f"{number}/{year % 100:02d}", 2),
            (f"{year}/{digits(rng, 5)}", 1),
            (f"{letters(rng, 2)}-{digits(rng, 5)}-{year}", 1),
        ],
    )


# Trades a company is named after when it has no legal form in the text.
_COMPANY_TRADES = (
    "Autocares",
    "Confecciones",
    "Conservas",
    "Bodegas",
    "Construcciones",
    "Excavaciones",
    "Talleres",
    "Transportes",
    "Limpiezas",
    "Frutas",
    "Panificadora",
    "Carnicería",
    "Mármoles",
    "Invernaderos",
    "Maderas",
    "Cárnicas",
    "Pescados",
    "Lácteos",
    "Aceites",
    "Reformas",
    "Jardinería",
    "Hostal",
    "Bar",
    "Cafetería",
    "Hotel",
    "Locutorio",
    "Peluquería",
    "Gasolinera",
    "Ferretería",
    "Granja",
)


def company_text(rng: random.Random, lexicon: Lexicon, where: Place) -> str:
    """A company named the way people name their employer: ``Autocares del Nalón``,
    ``Confecciones Marisa``, ``Bodegas Pazo de Rial``, ``el Bar Casa Paco``;
    sometimes with a legal form (``… SL``, written without its dot, as people do)."""
    trade = rng.choice(_COMPANY_TRADES)
    surname = lexicon.surname(rng)
    given = lexicon.first_name(rng).split()[0]
    name = weighted(
        rng,
        [
            (f"{trade} {surname}", 4),
            (f"{trade} {given}", 2),
            (f"{trade} de {where.town}", 2),
            (f"{trade} {surname} e Hijos", 1),
            (f"{trade} Hermanos {surname}", 1),
            (f"{trade} Casa {given[:4] if chance(rng, 0.3) else given}", 1),
            (f"{trade} {rng.choice(T.NEIGHBOURHOODS).removeprefix('el ').removeprefix('la ')}", 1),
        ],
    )
    if chance(rng, 0.15):
        name += rng.choice([" SL", " SA", " SLU", " SCCL", " SAT", " Coop."])
    return name


NGOS = (
    "Cáritas",
    "Cáritas Diocesana de {province}",
    "Cruz Roja",
    "Cruz Roja de {town}",
    "CEAR",
    "CEAR {community}",
    "Accem",
    "Accem {town}",
    "Médicos del Mundo",
    "Fundación Secretariado Gitano",
    "Banco de Alimentos de {province}",
    "Proyecto Hombre",
    "Alcohólicos Anónimos de {town}",
    "AECC",
    "Asociación Española Contra el Cáncer",
    "ONCE",
    "Plena Inclusión {community}",
    "Fundación ANAR",
    "Asociación de Vecinos de {town}",
    "Fundación San Martín de Porres",
    "Comedor Social de {town}",
)
INSURERS = (
    "Mapfre",
    "Mutua Madrileña",
    "Allianz",
    "Línea Directa",
    "AXA",
    "Generali",
    "Santa Lucía",
    "Ocaso",
    "Caser",
    "Zurich",
    "DKV",
    "Asisa",
    "Sanitas",
    "Adeslas",
    "Fremap",
    "Asepeyo",
    "Ibermutua",
    "Umivale Activa",
    "Mutua Universal",
    "Mutua Montañesa",
    "Mutua Navarra",
    "MAZ",
    "Solimat",
    "Mutualia",
    "Fraternidad-Muprespa",
    "MUFACE",
    "ISFAS",
    "MUGEJU",
)
CLUBS = (
    "Club Deportivo {town}",
    "CD {town}",
    "Club de Remo {town}",
    "Unión Deportiva {town}",
    "Club Atletismo {town}",
    "Club Baloncesto {town}",
    "Peña Ciclista {surname}",
    "Club de Montaña {town}",
    "Sociedad Deportiva {town}",
    "Club Natación {town}",
)
HEALTH_BODIES = (
    "Área Sanitaria {roman}",
    "Área de Salud de {town}",
    "Área Sanitaria de {town}",
    "Sector {town} {roman}",
    "Distrito Sanitario {town}",
    "Servicio Territorial de Sanidad de {province}",
    "Delegación Territorial de Salud de {province}",
    "Gerencia de Atención Primaria de {province}",
    "Dirección General de Salud Pública",
    "Unidad de Vigilancia Epidemiológica de {province}",
    "Sección de Epidemiología de {province}",
    "Inspección Médica de {province}",
    "Inspección de Trabajo de {province}",
    "Consejería de Sanidad",
    "Gerencia Regional de Salud",
    "Subdirección de Salud Pública de {province}",
)
POLICE = (
    "Policía Nacional",
    "Guardia Civil",
    "Policía Local de {town}",
    "Comisaría de {town}",
    "Comisaría de Policía Nacional de {town}",
    "Puesto de la Guardia Civil de {town}",
    "Policía Municipal de {town}",
    "Ertzaintza",
    "Mossos d'Esquadra",
    "Policía Foral",
    "Oficina de Asistencia a las Víctimas del Delito de {province}",
    "SUMMA 112",
    "SAMUR",
    "061",
    "112",
)
_ROMAN = "I II III IV V VI VII VIII IX X".split()


def _fill(rng: random.Random, lexicon: Lexicon, pattern: str, where: Place) -> str:
    return pattern.format(
        town=where.town,
        province=where.province,
        community=where.community.removeprefix("Comunidad de ").removeprefix("Comunitat "),
        surname=lexicon.surname(rng),
        roman=rng.choice(_ROMAN),
    )


def ngo_text(rng: random.Random, lexicon: Lexicon, where: Place) -> str:
    return _fill(rng, lexicon, rng.choice(NGOS), where)


def insurer_text(rng: random.Random) -> str:
    return rng.choice(INSURERS)


def club_text(rng: random.Random, lexicon: Lexicon, where: Place) -> str:
    return _fill(rng, lexicon, rng.choice(CLUBS), where)


def health_body_text(rng: random.Random, lexicon: Lexicon, where: Place) -> str:
    """A health area, sector or public-health body (INSTITUCION, P10.1)."""
    return _fill(rng, lexicon, rng.choice(HEALTH_BODIES), where)


def police_text(rng: random.Random, lexicon: Lexicon, where: Place) -> str:
    return _fill(rng, lexicon, rng.choice(POLICE), where)


def staff_initials(given: str, surnames: tuple[str, ...], rng: random.Random) -> str:
    """Initials a nurse or surgeon signs with in a list or a check: ``MR``, ``JP``,
    ``MAG`` (first letters of given name and surnames, particles left out)."""
    words = [w for w in given.replace("-", " ").split() if w[:1].isupper()]
    surname_words = [w for s in surnames for w in s.replace("-", " ").split() if w[:1].isupper()]
    n_surnames = 2 if chance(rng, 0.4) else 1
    text = "".join(w[0] for w in [*words[:2], *surname_words[:n_surnames]]).upper()
    return text if text.isalpha() and len(text) >= 2 else "XX"


FOREIGN_ID_KINDS = (
    ("passport", 5),
    ("ro_cnp", 1),
    ("ma_cin", 1),
    ("co_cc", 1),
    ("cn_id", 1),
    ("ua_passport", 1),
    ("gb_passport", 1),
    ("it_cf", 1),
)


def foreign_id_text(rng: random.Random) -> tuple[str, str]:
    """(label, number) of a foreign identity document: a passport, a Romanian CNP, a
    Moroccan CIN, a Colombian cédula, a Chinese resident id…: ID_SUJETO_ASISTENCIA for
    the patient (P17.1 names the passport), NUMERO_IDENTIF for a relative."""
    kind = weighted(rng, FOREIGN_ID_KINDS)
    if kind == "ro_cnp":
        return "CNP", rng.choice("12") + digits(rng, 12)
    if kind == "ma_cin":
        return "CIN", letters(rng, rng.choice([1, 2])) + digits(rng, 6, True)
    if kind == "co_cc":
        number = digits(rng, 10, True)
        return "cédula de ciudadanía", f"{int(number):,}".replace(",", ".") if chance(rng, 0.5) else number
    if kind == "cn_id":
        return "documento de identidad chino", digits(rng, 17, True) + rng.choice("0123456789X")
    if kind == "ua_passport":
        return "pasaporte ucraniano", letters(rng, 2) + digits(rng, 6)
    if kind == "gb_passport":
        return "pasaporte británico", digits(rng, 9, True)
    if kind == "it_cf":
        code = letters(rng, 6) + digits(rng, 2) + letters(rng, 1) + digits(rng, 2)
        return "codice fiscale", code + letters(rng, 1) + digits(rng, 3) + letters(rng, 1)
    return rng.choice(["pasaporte", "pasaporte nº", "Pasaporte", "PASAPORTE"]), weighted(
        rng,
        [
            (letters(rng, 2) + digits(rng, 7), 3),
            (letters(rng, 1) + digits(rng, 8), 2),
            (digits(rng, 9, True), 1),
            (letters(rng, 3) + digits(rng, 6), 2),
        ],
    )
