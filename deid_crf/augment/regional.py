"""Catalan, Galician and Basque words for the PHI of a note written (partly) in those
languages: kinship words, sex and age, weekdays and dates, health centres, councils,
country names and Basque street forms.

A note from Lleida, Ourense or Bilbao mixes languages: ``la seva filla Aina``, ``o seu
home, Xurxo``, ``83 anos``, ``dilluns, 15 de juliol de 2024``, ``2025eko apirilaren
8an``. The words here are common vocabulary; the surfaces follow the same span
conventions as the Spanish ones (kinship word and name one span, the age another,
the weekday inside the date, postal code and town separate).
"""

from __future__ import annotations

import random
from datetime import date

from deid_crf.augment.values import CATALAN_MONTHS, GALICIAN_MONTHS, Lexicon, Place, chance, weighted

LANGUAGES = ("ca", "gl", "eu")

# Spanish kinship word → the word in each language (Basque notes are mostly written in
# Spanish with Basque kinship words here and there, ``ama``, ``aita``).
KINSHIP = {
    "ca": {
        "madre": "mare",
        "padre": "pare",
        "hija": "filla",
        "hijo": "fill",
        "hermana": "germana",
        "hermano": "germà",
        "marido": "marit",
        "esposo": "marit",
        "esposa": "dona",
        "mujer": "dona",
        "abuela": "àvia",
        "abuelo": "avi",
        "nieta": "néta",
        "nieto": "nét",
        "tía": "tia",
        "tío": "oncle",
        "sobrina": "neboda",
        "sobrino": "nebot",
        "suegra": "sogra",
        "suegro": "sogre",
        "nuera": "jove",
        "yerno": "gendre",
        "cuñada": "cunyada",
        "cuñado": "cunyat",
        "prima": "cosina",
        "primo": "cosí",
        "pareja": "parella",
    },
    "gl": {
        "madre": "nai",
        "padre": "pai",
        "hija": "filla",
        "hijo": "fillo",
        "hermana": "irmá",
        "hermano": "irmán",
        "marido": "home",
        "esposo": "home",
        "esposa": "muller",
        "mujer": "dona",
        "abuela": "avoa",
        "abuelo": "avó",
        "nieta": "neta",
        "nieto": "neto",
        "tía": "tía",
        "tío": "tío",
        "sobrina": "sobriña",
        "sobrino": "sobriño",
        "suegra": "sogra",
        "suegro": "sogro",
        "nuera": "nora",
        "yerno": "xenro",
        "cuñada": "cuñada",
        "cuñado": "cuñado",
        "prima": "curmá",
        "primo": "curmán",
        "pareja": "parella",
    },
    "eu": {
        "madre": "ama",
        "padre": "aita",
        "hija": "alaba",
        "hijo": "semea",
        "hermana": "ahizpa",
        "hermano": "anaia",
        "marido": "senarra",
        "esposo": "senarra",
        "esposa": "emaztea",
        "mujer": "emaztea",
        "abuela": "amona",
        "abuelo": "aitona",
        "nieta": "biloba",
        "nieto": "biloba",
    },
}
# "su hija" in each language, by the gender of the kinship word.
POSSESSIVE = {"ca": ("el seu", "la seva"), "gl": ("o seu", "a súa"), "eu": ("su", "su")}
CHILDREN_GROUPS = {
    "ca": ("dos fills", "dues filles", "tres fills", "dos nens", "els fills"),
    "gl": ("dous nenos", "dúas fillas", "tres fillos", "os fillos", "dous fillos"),
    "eu": ("dos hijos", "dos hijas", "tres hijos"),
}
SEX = {
    "ca": (("Home", "home", "H"), ("Dona", "dona", "D")),
    "gl": (("Home", "home", "H"), ("Muller", "muller", "M")),
    "eu": (("Gizona", "gizona", "G"), ("Emakumea", "emakumea", "E")),
}
AGE_UNIT = {"ca": "anys", "gl": "anos", "eu": "urte"}
WEEKDAYS = {
    "ca": "dilluns dimarts dimecres dijous divendres dissabte diumenge".split(),
    "gl": "luns martes mércores xoves venres sábado domingo".split(),
    "eu": "astelehena asteartea asteazkena osteguna ostirala larunbata igandea".split(),
}
BASQUE_MONTHS_GENITIVE = (
    "urtarrilaren otsailaren martxoaren apirilaren maiatzaren ekainaren uztailaren abuztuaren irailaren "
    "urriaren azaroaren abenduaren"
).split()
COUNTRIES = {
    "ca": {"Francia": "França", "Marruecos": "Marroc", "Rumanía": "Romania", "China": "Xina", "Alemania": "Alemanya"},
    "gl": {"Francia": "Francia", "Marruecos": "Marrocos", "Rumanía": "Romanía", "Suiza": "Suíza", "Brasil": "Brasil"},
    "eu": {"Francia": "Frantzia", "Marruecos": "Maroko", "Rumanía": "Errumania", "Alemania": "Alemania"},
}
COUNCILS = {"ca": "Ajuntament de {town}", "gl": "Concello de {town}", "eu": "{town}ko Udala"}
GOVERNMENTS = {
    "ca": ("Generalitat de Catalunya", "CatSalut", "Institut Català de la Salut", "ICS", "Servei Català de la Salut"),
    "gl": (
        "Xunta de Galicia",
        "SERGAS",
        "Servizo Galego de Saúde",
        "área sanitaria de {town}",
        "Área Sanitaria de {town}",
    ),
    "eu": ("Osakidetza", "Eusko Jaurlaritza", "Osakidetza-Servicio Vasco de Salud", "Bizkaia Osasun Eskualdea"),
}
HEALTH_CENTRES = {
    "ca": ("CAP {town}", "CAP {saint}", "Centre d'Atenció Primària {town}", "EAP {town}", "CAP de {town}"),
    "gl": ("centro de saúde de {town}", "Centro de Saúde de {town}", "Centro de Saúde {town}", "PAC de {town}"),
    "eu": ("{town} Osasun Zentroa", "{town}ko osasun zentroa", "Centro de Salud de {town}", "Ambulatorio de {town}"),
}
# Basque streets named after a date or a person, as they are written (``kalea`` after).
BASQUE_STREET_CORES = (
    "Maiatzaren Bata",
    "Iparragirre",
    "Autonomia",
    "Zabalbide",
    "Otxarkoaga",
    "Nafarroa",
    "Txomin Agirre",
    "Artekale",
    "Barrenkale",
    "Errondo",
    "Zumardi",
    "Goiko",
)
BASQUE_STREET_TYPES = (("kalea", 6), ("etorbidea", 2), ("plaza", 1), ("pasealekua", 1), ("kale", 1))


def kinship(rng: random.Random, language: str, spanish: str) -> str:
    """``spanish`` in ``language`` when the language has the word, else the Spanish word."""
    return KINSHIP.get(language, {}).get(spanish, spanish)


def sex_word(rng: random.Random, language: str, female: bool, field: bool) -> str:
    capital, lower, code = SEX[language][female]
    return weighted(rng, [(capital, 3), (code, 2)]) if field else lower


def age_text(rng: random.Random, language: str, years: int) -> str:
    unit = AGE_UNIT[language]
    return weighted(rng, [(f"{years} {unit}", 5), (f"{years}a", 1), (f"{years} a", 1)])


def _basque_case_suffix(n: int, genitive: bool) -> str:
    """The Basque case ending of a number written in digits (``2025eko``, ``2024ko``,
    ``8an``, ``15ean``, ``11n``): it follows how the number's last word sounds."""
    last = n % 10
    tens = (n // 10) % 10
    if genitive:
        if last in (1, 5) or (last == 0 and tens in (1, 3, 5, 7, 9)):
            return "eko"
        return "ko"
    if n in (11, 31):
        return "n"
    if last in (1, 5) or n in (10, 30):
        return "ean"
    return "an"


def date_text(rng: random.Random, language: str, d: date) -> str:
    """A date in ``language``, sometimes with its weekday:
    ``dilluns, 15 de juliol de 2024``, ``xoves 06/03/2025``, ``luns 10``,
    ``2025eko apirilaren 8an, asteartea``."""
    weekday = WEEKDAYS[language][d.weekday()]
    if language == "eu":
        text = (
            f"{d.year}{_basque_case_suffix(d.year, True)} {BASQUE_MONTHS_GENITIVE[d.month - 1]} "
            f"{d.day}{_basque_case_suffix(d.day, False)}"
        )
        return text + (f", {weekday}" if chance(rng, 0.4) else "")
    months = CATALAN_MONTHS if language == "ca" else GALICIAN_MONTHS
    month = months[d.month - 1]
    of_month = f"d'{month}" if language == "ca" and month[0] in "aeiou" else f"de {month}"
    style = weighted(rng, [("long", 4), ("weekday_long", 3), ("weekday_numeric", 2), ("weekday_day", 1)])
    if style == "long":
        return f"{d.day} {of_month} de {d.year}"
    if style == "weekday_long":
        return f"{weekday}{rng.choice([', ', ' '])}{d.day} {of_month} de {d.year}"
    if style == "weekday_numeric":
        return f"{weekday} {d:%d/%m/%Y}"
    return f"{weekday} {d.day}"


def council_text(rng: random.Random, language: str, where: Place) -> str:
    return COUNCILS[language].format(town=where.town)


def government_text(rng: random.Random, language: str, where: Place) -> str:
    return rng.choice(GOVERNMENTS[language]).format(town=where.town)


def health_centre_text(rng: random.Random, language: str, where: Place, lexicon: Lexicon) -> str:
    return rng.choice(HEALTH_CENTRES[language]).format(town=where.town, saint=f"Sant {lexicon.surname(rng)}")


def country_text(language: str, spanish: str) -> str:
    return COUNTRIES.get(language, {}).get(spanish, spanish)


def basque_street_text(rng: random.Random) -> str:
    """``Maiatzaren Bata kalea, 27, 3. esk.``, ``Iparragirre kalea 5 z/g``: Basque street
    with its number and floor (one CALLE span, P11.1)."""
    name = f"{rng.choice(BASQUE_STREET_CORES)} {weighted(rng, BASQUE_STREET_TYPES)}"
    if chance(rng, 0.15):
        return f"{name} z/g"
    number = rng.randint(1, 90)
    floor = weighted(
        rng,
        [
            (f"{rng.randint(1, 9)}. esk.", 3),
            (f"{rng.randint(1, 9)}. ezk.", 3),
            (f"{rng.randint(1, 9)}. eskuma", 1),
            (f"{rng.randint(1, 9)}. {rng.choice('ABCD')}", 2),
            ("behea", 1),
            ("", 2),
        ],
    )
    return f"{name}{rng.choice([', ', ' '])}{number}" + (f", {floor}" if floor else "")
