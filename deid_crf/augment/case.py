"""One synthetic patient and the people and places around them.

A :class:`Case` is drawn once per note, so that a note is coherent the way real
ones are: the same patient appears under several written forms ("María Puig
Vila", later "la Sra. Puig", "PUIG VILA, MARÍA"), the age agrees with the birth
date and the note's date, relatives share surnames, the staff sign with their
own collegiate numbers. Its methods render the PHI as typed spans, each in a form
drawn from the value generators of :mod:`deid_crf.augment.values`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from deid_crf.augment import tables as T
from deid_crf.augment import values as V
from deid_crf.augment.builder import Phrase, Span, recase
from deid_crf.augment.values import Lexicon, PersonName, Place, chance, weighted

PATIENT = "NOMBRE_SUJETO_ASISTENCIA"
STAFF = "NOMBRE_PERSONAL_SANITARIO"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"


@dataclass(frozen=True)
class Clinician:
    name: PersonName
    collegiate: str
    employee: str
    role: str  # "médico", "enfermera"… (plain text, never tagged)
    specialty: str


@dataclass(frozen=True)
class Relative:
    kinship: str  # "hija", "marido"…: a FAMILIARES span of its own or with the name
    name: PersonName
    age: int
    phone: str
    profession: str


@dataclass
class Case:
    """A patient, their relatives, the staff and the places of one note."""

    rng: random.Random
    lexicon: Lexicon
    patient: PersonName
    birth: date
    note_date: date
    home: Place
    birthplace: tuple[str, str | None]  # (town, country) — country None for Spain
    foreign: bool
    hospital_place: Place
    hospital: str
    centre: str
    service: str
    staff: list[Clinician]
    relatives: list[Relative]
    profession: str
    ids: dict[str, str] = field(default_factory=dict)
    name_case: str = "as_is"  # how this note writes the patient's name: as_is, upper, lower

    # -- dates and ages -------------------------------------------------------------------
    @property
    def female(self) -> bool:
        return self.patient.female

    @property
    def years(self) -> int:
        return V.age_between(self.birth, self.note_date)[0]

    @property
    def child(self) -> bool:
        return self.years < 14

    @property
    def works(self) -> bool:
        """Old enough to have had a job to mention."""
        return self.years >= 18

    def days_before(self, low: int, high: int) -> date:
        return self.note_date - timedelta(days=self.rng.randint(low, high))

    def date(self, d: date, style: str | None = None) -> Span:
        return Span(V.date_text(self.rng, d, style), "FECHAS")

    def numeric_date(self, d: date) -> Span:
        return Span(V.numeric_date(self.rng, d), "FECHAS")

    def age(self) -> Span:
        years, months, days = V.age_between(self.birth, self.note_date)
        return Span(V.age_text(self.rng, years, months, days), "EDAD_SUJETO_ASISTENCIA")

    def sex(self, field: bool = False) -> Span:
        if not field and self.child:
            word = "niña" if self.female else "niño"
            return Span(word.capitalize() if chance(self.rng, 0.4) else word, "SEXO_SUJETO_ASISTENCIA")
        return Span(V.sex_text(self.rng, self.female, field), "SEXO_SUJETO_ASISTENCIA")

    def sex_and_age(self) -> Phrase:
        """``Mujer de 67 años``, ``varón, 45a``, ``Niña de 3 años``."""
        sex, age = self.sex(), self.age()
        joiner = weighted(self.rng, [(" de ", 8), (", ", 2), (" ", 1)])
        # "de edad" follows the age outside its span (guideline P2.3 takes the unit only).
        filler = " de edad" if joiner == " de " and age.text.endswith("años") and chance(self.rng, 0.2) else ""
        return (sex, joiner, age, filler)

    # -- names --------------------------------------------------------------------------
    def _cased(self, phrase: Phrase, mode: str) -> Phrase:
        return phrase if mode == "as_is" else recase(phrase, mode)

    def patient_name(self, style: str | None = None, mode: str | None = None) -> Phrase:
        style = style or weighted(self.rng, V.NAME_STYLES)
        phrase = V.name_phrase(self.patient, style, PATIENT, self.rng)
        return self._cased(phrase, mode or self.name_case)

    def titled_patient(self, style: str | None = None, preposition: str = "") -> Phrase:
        """A title (outside the span) and the patient's name: ``Dña. María Puig``,
        ``el Sr. Puig``, after ``preposition`` (``a`` + ``el`` is written ``al``)."""
        rng = self.rng
        if style is None and chance(rng, 0.12):  # "la paciente Núria", "el paciente Karim Benali"
            noun = "la paciente " if self.female else "el paciente "
            lead = f"{preposition} {noun}".replace("a el ", "al ").replace("de el ", "del ").lstrip()
            return (lead, self.patient_name(rng.choice(["given", "given_first_surname", "full"])))
        style = style or weighted(rng, [("full", 5), ("first_surname", 3), ("surnames", 2), ("given_first_surname", 2)])
        title = V.title_for(rng, self.female, staff=False)
        if style in ("first_surname", "surnames") and not title:
            title = "Sra." if self.female else "Sr."
        name = self.patient_name(style)
        article = ("la " if self.female else "el ") if title.startswith("Sr") and chance(rng, 0.7) else ""
        lead = f"{preposition} {article}".replace("a el ", "al ").replace("de el ", "del ").lstrip()
        return (lead + title + " " if title else lead, name)

    def agree(self, masculine: str, feminine: str) -> str:
        """The word that agrees with the patient's gender."""
        return feminine if self.female else masculine

    def staff_name(self, clinician: Clinician, style: str | None = None, titled: bool = True) -> Phrase:
        rng = self.rng
        style = style or weighted(
            rng, [("full", 10), ("given_first_surname", 4), ("initial", 3), ("initials_glued", 1), ("first_surname", 1)]
        )
        title = V.title_for(rng, clinician.name.female, staff=True) if titled and clinician.role == "médico" else ""
        name = V.name_phrase(clinician.name, style, STAFF, rng)
        if chance(rng, 0.08):
            name = recase(name, "upper")
        return (title + " ", name) if title else name

    def staff_signature(self, clinician: Clinician) -> Phrase:
        """A sign-off: name, role or specialty and collegiate number in one of the
        layouts Spanish reports use; the number is its own span (N5.2, P20.1)."""
        rng = self.rng
        name = self.staff_name(clinician)
        number = Span(clinician.collegiate, "ID_TITULACION_PERSONAL_SANITARIO")
        label = weighted(
            rng,
            [
                ("Nº Col.: ", 3),
                ("Nº colegiado: ", 3),
                ("Col. ", 2),
                ("NºCol: ", 1),
                ("nº col. ", 1),
                ("Colegiado nº ", 2),
            ],
        )
        specialty = clinician.specialty if clinician.role == "médico" else clinician.role.capitalize()
        layout = weighted(rng, [("lines", 4), ("one_line", 3), ("fdo", 3), ("parenthesis", 2)])
        if layout == "lines":
            return (name, "\n", specialty, "\n", label, number)
        if layout == "one_line":
            return (name, rng.choice([" - ", ", ", ". "]), label, number)
        if layout == "fdo":
            return (rng.choice(["Fdo.: ", "Fdo. ", "Firmado: "]), name, "\n", specialty, ". ", label, number)
        return (name, " (", specialty, ", ", label.strip().rstrip(":"), " ", number, ")")

    # -- relatives ------------------------------------------------------------------------
    def relative_mention(self, relative: Relative) -> Phrase:
        """A relative in running text; kinship word and name that follow each other are
        one span (``hija Laura``), the relative's age another (``madre`` de ``80 años``)."""
        rng = self.rng
        kin, name = relative.kinship, relative.name
        given = name.given if chance(rng, 0.7) else f"{name.given} {' '.join(name.surnames)}"
        layout = weighted(
            rng,
            [("kin", 4), ("kin_name", 4), ("kin_age", 2), ("kin_comma_name", 2), ("kin_paren", 2), ("kin_name_age", 2)],
        )
        if layout == "kin":
            return (Span(kin, RELATIVE),)
        if layout == "kin_name":
            return (Span(f"{kin} {given}", RELATIVE),)
        if layout == "kin_age":  # the age is a span of its own (P4.3)
            return (Span(kin, RELATIVE), " de ", Span(V.age_text(rng, relative.age), RELATIVE))
        if layout == "kin_name_age":
            return (Span(f"{kin} {given}", RELATIVE), ", de ", Span(V.age_text(rng, relative.age), RELATIVE))
        if layout == "kin_comma_name":
            title = V.title_for(rng, name.female, staff=False)
            return (Span(kin, RELATIVE), ", ", (title + " ") if title else "", Span(given, RELATIVE))
        return (
            Span(kin, RELATIVE),
            " (",
            Span(given, RELATIVE),
            ", ",
            Span(V.age_text(rng, relative.age), RELATIVE),
            ")",
        )

    def relative_contact(self, relative: Relative) -> Phrase:
        """``hija: Laura Puig Soler, tlf. 612 34 56 78`` in a contact field."""
        rng = self.rng
        name = V.name_phrase(relative.name, weighted(rng, [("full", 3), ("given_first_surname", 2)]), RELATIVE, rng)
        phone = Span(relative.phone, "NUMERO_TELEFONO")
        phone_label = weighted(rng, [("tlf. ", 3), ("Tel.: ", 2), ("teléfono ", 2), ("móvil ", 1), ("", 1)])
        if chance(rng, 0.5):
            return (name, " (", Span(relative.kinship, RELATIVE), ")", rng.choice([", ", " - "]), phone_label, phone)
        return (Span(relative.kinship, RELATIVE), ": ", name, ", ", phone_label, phone)

    # -- places and identifiers -------------------------------------------------------------
    def address(self, one_line: bool = True) -> Phrase:
        return V.address_phrase(self.rng, self.lexicon, self.home, one_line)

    def town(self) -> Span:
        return Span(self.home.town, "TERRITORIO")

    def birthplace_phrase(self) -> Phrase:
        """``Nicaragua``, ``Lugo``, ``Nador (Marruecos)``, ``Marruecos (Nador)``: town and
        country separate."""
        town, country = self.birthplace
        if country is None:
            return (Span(town, "TERRITORIO"),)
        if chance(self.rng, 0.5):
            return (Span(country, "PAIS"),)
        layout = weighted(self.rng, [("town_paren", 2), ("town_comma", 2), ("country_paren", 3)])
        if layout == "town_paren":
            return (Span(town, "TERRITORIO"), " (", Span(country, "PAIS"), ")")
        if layout == "town_comma":
            return (Span(town, "TERRITORIO"), ", ", Span(country, "PAIS"))
        return (Span(country, "PAIS"), " (", Span(town, "TERRITORIO"), ")")

    def phone(self, mobile: bool = True) -> Span:
        if self.foreign and mobile and chance(self.rng, 0.2):  # a number kept from the home country
            return Span(V.foreign_phone_text(self.rng), "NUMERO_TELEFONO")
        return Span(V.phone_text(self.rng, mobile, self.home.code), "NUMERO_TELEFONO")

    def email(self) -> Span:
        return Span(V.email_text(self.rng, self.patient), "CORREO_ELECTRONICO")

    def hospital_span(self) -> Span:
        return Span(self.hospital, "HOSPITAL")

    def centre_span(self) -> Span:
        return Span(self.centre, "CENTRO_SALUD")

    def id_span(self, kind: str) -> Span:
        """The patient's identifier of ``kind`` (drawn once per case), typed."""
        types = {
            "nhc": "ID_SUJETO_ASISTENCIA",
            "dni": "ID_SUJETO_ASISTENCIA",
            "cip": "ID_SUJETO_ASISTENCIA",
            "passport": "ID_SUJETO_ASISTENCIA",
            "nass": "ID_ASEGURAMIENTO",
            "policy": "ID_ASEGURAMIENTO",
            "episode": "ID_CONTACTO_ASISTENCIAL",
        }
        if kind not in self.ids:
            rng = self.rng
            make = {
                "nhc": lambda: V.nhc_text(rng),
                "dni": lambda: V.nie_text(rng) if self.foreign and chance(rng, 0.7) else V.dni_text(rng),
                "cip": lambda: V.cip_text(rng, self.patient, self.birth),
                "passport": lambda: V.passport_text(rng),
                "nass": lambda: V.nass_text(rng, self.home.code),
                "policy": lambda: V.policy_text(rng),
                "episode": lambda: V.episode_text(rng),
            }[kind]
            self.ids[kind] = make()
        return Span(self.ids[kind], types[kind])

    def doctor(self) -> Clinician:
        return next((c for c in self.staff if c.role == "médico"), self.staff[0])

    def nurse(self) -> Clinician:
        return next((c for c in self.staff if c.role != "médico"), self.staff[-1])


# ----------------------------------------------------------------------------- drawing

STAFF_ROLES = (("enfermera", "enfermero"), ("auxiliar de enfermería", "auxiliar de enfermería"))


def _clinician(rng: random.Random, lexicon: Lexicon, where: Place, doctor: bool) -> Clinician:
    name = V.person_name(rng, lexicon, where.region, foreign=0.08)
    role = "médico" if doctor else rng.choice(STAFF_ROLES)[0 if name.female else 1]
    return Clinician(
        name=name,
        collegiate=V.collegiate_text(rng, where.code),
        employee=V.employee_text(rng),
        role=role,
        specialty=weighted(
            rng, [(f"Servicio de {rng.choice(T.SERVICES)}", 3), ("Médico de Familia", 1), ("FEA", 1), ("MIR", 1)]
        ),
    )


def _relative(rng: random.Random, lexicon: Lexicon, patient: PersonName, patient_age: int, region: str) -> Relative:
    female = chance(rng, 0.55)
    kinship_pool = T.RELATIVES_FEMALE if female else T.RELATIVES_MALE
    if patient_age < 18:
        kinship = rng.choice(["madre", "abuela", "tía", "hermana"] if female else ["padre", "abuelo", "tío", "hermano"])
    elif patient_age > 70:
        kinship = rng.choice(
            ["hija", "nieta", "esposa", "sobrina"] if female else ["hijo", "nieto", "marido", "sobrino"]
        )
    else:
        kinship = rng.choice(kinship_pool)
    name = V.person_name(rng, lexicon, region, female=female, foreign=0.0)
    if kinship in ("hija", "hijo", "hermana", "hermano", "nieta", "nieto") and len(patient.surnames) > 1:
        name = PersonName(name.given, (patient.surnames[0], *name.surnames[1:]), female)
    if patient.surname_first or len(patient.surnames) == 1:  # a foreign family keeps its surname
        given = V.person_name(rng, lexicon, region, female=female, foreign=1.0).given
        name = PersonName(given, patient.surnames, female, patient.surname_first)
    offsets = {
        "madre": 28,
        "padre": 30,
        "abuela": 55,
        "abuelo": 57,
        "hija": -30,
        "hijo": -30,
        "nieta": -55,
        "nieto": -55,
    }
    age = max(1, min(99, patient_age + offsets.get(kinship, 0) + rng.randint(-8, 8)))
    return Relative(kinship, name, age, V.phone_text(rng, True), V.profession_text(rng, lexicon, female))


def draw_case(rng: random.Random, lexicon: Lexicon) -> Case:
    """A new patient with relatives, staff, places and dates."""
    foreign = chance(rng, 0.22)
    home = V.place(rng, lexicon)
    patient = V.person_name(rng, lexicon, home.region, female=chance(rng, 0.5), foreign=1.0 if foreign else 0.0)
    note_date = V.random_date(rng, date(2012, 1, 1), date(2025, 6, 30))
    years = weighted(rng, [("adult", 70), ("old", 20), ("child", 7), ("infant", 3)])
    span_days = {
        "adult": (18 * 365, 64 * 365),
        "old": (65 * 365, 98 * 365),
        "child": (2 * 365, 14 * 365),
        "infant": (3, 700),
    }
    low, high = span_days[years]
    birth = note_date - timedelta(days=rng.randint(low, high))
    if foreign:
        birthplace: tuple[str, str | None] = V.foreign_place(rng)
    else:
        origin = V.place(rng, lexicon) if chance(rng, 0.6) else home
        birthplace = (origin.town, None)
    hospital_place = home if chance(rng, 0.7) else V.place(rng, lexicon)
    age_years = V.age_between(birth, note_date)[0]
    staff = [_clinician(rng, lexicon, hospital_place, doctor=True) for _ in range(rng.randint(1, 2))]
    staff.append(_clinician(rng, lexicon, hospital_place, doctor=False))
    relatives = [_relative(rng, lexicon, patient, age_years, home.region) for _ in range(rng.randint(1, 3))]
    name_case = weighted(rng, [("as_is", 80), ("upper", 14), ("lower", 6)])
    return Case(
        rng=rng,
        lexicon=lexicon,
        patient=patient,
        birth=birth,
        note_date=note_date,
        home=home,
        birthplace=birthplace,
        foreign=foreign,
        hospital_place=hospital_place,
        hospital=V.hospital_text(rng, lexicon, hospital_place),
        centre=V.health_centre_text(rng, lexicon, home),
        service=rng.choice(T.SERVICES),
        staff=staff,
        relatives=relatives,
        profession=V.profession_text(rng, lexicon, patient.female),
        name_case=name_case,
    )
