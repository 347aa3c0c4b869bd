"""PHI written in running text without the cues MEDDOCAN's templates give, for the
formats of :mod:`deid_crf.augment.entry_formats`.

A model trained on header fields (``Nombre:``, ``Domicilio:``) learns the field, not
the value. Real notes name the same things in passing, and these generators write
them that way, each returning a :data:`~deid_crf.augment.builder.Phrase` with its
spans typed by the MEDDOCAN guidelines and the evaluation notes' README:

* staff who sign an entry in brackets: ``(Marta, enf.)``, ``(TCAE Rosa)``, ``(J. Ortiz)``,
  ``(MJG)``: the name or initials NOMBRE_PERSONAL_SANITARIO, the role word outside
  (N5.1); the entry's short date (``14/10``, ``lun 3``, ``mié 12-nov``) FECHAS with its
  weekday inside (P6.3);
* staff named in running text or under a role line (``Valorada por Trabajo Social
  (Nuria Gil)``, ``Responsable de la unidad: …``, the GP after ``médica de familia``);
* relatives in apposition and in lists: kinship word and name separated by a comma are
  two FAMILIARES spans, directly followed one span (``fillo Anxo``); a numbered
  contact list's ``Hija:`` label is a field label and stays outside (G2), the name and
  the phone are spans; a relative's age in brackets is FAMILIARES (P4.3);
* professions without a cue word (``Como camionero, …``, ``la paciente, gandeira,``),
  in Spanish, Catalan and Galician;
* the patient's employer without a legal form after ``en``/``para``/``d'``
  (OTROS_SUJETO_ASISTENCIA, P28.1), the school where the patient works (OTROS) or a
  child studies (INSTITUCION);
* hospitals by a short name or an acronym (``del Clínico``, ``urgencias del HUSE``,
  ``H. Universitario de …``), the article outside (P10.2 "alias");
* ages in short forms (``82a``, ``53 anys``, ``(85)`` after a birth date, ``sesenta y un
  años``), identifiers with letter prefixes (regional health cards, ``NHC HL-123456``
  with the hyphenated prefix outside, episode and request numbers with letters and
  slashes, a Portuguese health-card number, an IBAN, a police report number);
* towns, districts and valleys without an address around them, towns in Portugal,
  France and Switzerland, and mixed-language administrative headers (one INSTITUCION
  span per body, ``Área Sanitaria de A, B e C`` whole).

Every function draws from the case's ``random.Random``; the wording is the project's own.
"""

from __future__ import annotations

from datetime import date

from deid_crf.augment import organisations as O
from deid_crf.augment import regional as R
from deid_crf.augment import spoken as SP
from deid_crf.augment import tables as T
from deid_crf.augment import values as V
from deid_crf.augment.builder import Part, Phrase, Span
from deid_crf.augment.case import RELATIVE, STAFF, Case, Clinician, Relative
from deid_crf.augment.sections import say
from deid_crf.augment.values import chance, digits, letters, weighted

PROFESSION = "PROFESION"
EMPLOYER = "OTROS_SUJETO_ASISTENCIA"

WEEKDAY_SHORT = ("lun", "mar", "mié", "jue", "vie", "sáb", "dom")
MONTH_SHORT = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic")


# ----------------------------------------------------------------------------- dates and signatures


def short_entry_date(rng, d: date) -> str:
    """The date an entry of a shift log or a progress sheet opens with: ``14/10``,
    ``3/2``, ``lun 3``, ``Mié 12-nov``, ``vie 18/10``, ``12-nov``."""
    weekday = WEEKDAY_SHORT[d.weekday()]
    if chance(rng, 0.3):
        weekday = weekday.capitalize()
    month = MONTH_SHORT[d.month - 1]
    return weighted(
        rng,
        [
            (f"{d:%d/%m}", 5),
            (f"{d.day}/{d.month}", 2),
            (f"{weekday} {d.day}", 4),
            (f"{weekday} {d.day}-{month}", 3),
            (f"{weekday}. {d.day}", 1),
            (f"{weekday} {d:%d/%m}", 2),
            (f"{d.day}-{month}", 2),
            (f"{d:%d.%m}", 1),
        ],
    )


# Role words a writer puts before or after their name in an entry (never in the span).
NURSE_ROLES = ("enf.", "Enf.", "enf", "DUE", "TCAE", "aux.", "aux. enf.", "fisio", "TS")
DOCTOR_ROLES = ("MIR", "R2", "R3", "FEA", "adjunto", "adjunta", "méd.", "guardia")


def bracket_signature(c: Case, clinician: Clinician) -> Phrase:
    """The writer of an entry at its end: ``(Marta, enf.)``, ``(Marta)``, ``(M. Ortiz)``,
    ``(TCAE Rosa)``, ``(enf. Rosa)``, ``(MJO)``, ``- Rosa Gil, enf.``; only the name or the
    initials are a span (P5.2, N5.1)."""
    rng = c.rng
    name = clinician.name
    given = name.given.split()[0]
    surname = name.surnames[0]
    roles = DOCTOR_ROLES if clinician.role == "médico" else NURSE_ROLES
    role = rng.choice(roles)
    shown = weighted(
        rng,
        [
            (given, 6),
            (f"{given[0]}. {surname}", 3),
            (f"{given} {surname}", 2),
            (O.staff_initials(name.given, name.surnames, rng), 4),
            (f"{given[0]}{surname[0]}", 1),
        ],
    )
    who = Span(shown, STAFF)
    layout = weighted(rng, [("name_role", 4), ("name", 3), ("role_name", 4), ("dash", 1), ("slash", 1)])
    if layout == "name_role":
        return (" (", who, f", {role})")
    if layout == "name":
        return (" (", who, ")")
    if layout == "role_name":
        return (f" ({role} ", who, ")")
    if layout == "dash":
        return (" - ", who, f", {role}")
    return (" / ", who)


def staff_in_running_text(c: Case, clinician: Clinician) -> Phrase:
    """A member of staff named in a sentence or under a role line: ``Valorado por Trabajo
    Social (Nuria Gil Mas).``, ``Responsable de la unidad: …``, ``Comentado con su médica
    de familia, la Dra. …``; titles and roles outside the span."""
    rng = c.rng
    name = clinician.name
    full = f"{name.given} {' '.join(name.surnames)}"
    shown = weighted(rng, [(full, 4), (f"{name.given} {name.surnames[0]}", 3), (name.given.split()[0], 1)])
    who = Span(shown, STAFF)
    title = ("Dra. " if name.female else "Dr. ") if chance(rng, 0.6) else ""
    gp = "médica de familia" if name.female else "médico de familia"
    kind = weighted(rng, [("assessed", 4), ("head", 3), ("gp", 4), ("coordinated", 2), ("seen", 2)])
    if kind == "assessed":
        unit = rng.choice(["Trabajo Social", "Fisioterapia", "Nutrición", "Psicología", "la Unidad de Paliativos"])
        return (say(rng, "{Valorado|Valorada|Visto|Vista|Atendida|Atendido} por ") + f"{unit} (", who, ").")
    if kind == "head":
        role = rng.choice(
            ["Responsable de la unidad", "Supervisora de planta", "Enfermera referente", "Coordinador médico"]
        )
        return (f"{role}: ", who)
    if kind == "gp":
        article = rng.choice(["su", "la" if name.female else "el"])
        lead = say(rng, "{Comentado con|Se informa a|Hablo con|Copia para} ") + f"{article} "
        if chance(rng, 0.5):
            return (lead + gp + ", " + title, who, ".")
        return (lead + gp + " (" + title, who, ").")
    if kind == "coordinated":
        return (say(rng, "{Coordinado con|Contacto con|Derivado a} la enfermera gestora de casos, "), who, ".")
    return (say(rng, "{Pasa visita|Revisa} ") + title, who, say(rng, "{.| con el residente.}"))


# ----------------------------------------------------------------------------- relatives


def _given(relative: Relative, rng, full: float = 0.3) -> str:
    name = relative.name
    if chance(rng, full):
        return f"{name.given} {' '.join(name.surnames)}"
    return name.given


def _kin_word(c: Case, relative: Relative, language: str) -> str:
    return R.kinship(c.rng, language, relative.kinship) if language != "es" else relative.kinship


# (masculine, feminine) possessives and articles before a kinship word, by language.
POSSESSIVES = {"es": ("su", "su"), "ca": ("el seu", "la seua"), "gl": ("o seu", "a súa")}
ARTICLES = {"es": ("el", "la"), "ca": ("el", "la"), "gl": ("o", "a")}


def relative_apposition(c: Case, relative: Relative, language: str = "es") -> Phrase:
    """``vive con su mujer, María Jesús``, ``a la seua dona, Remei``, ``su fillo Anxo``,
    ``la hermana, Rosario (84)``: two FAMILIARES spans across a comma, one when the name
    follows the kinship word directly, the age in brackets a third."""
    rng = c.rng
    kin = _kin_word(c, relative, language)
    female = kin.endswith(("a", "á")) or relative.name.female
    possessive = POSSESSIVES.get(language, POSSESSIVES["es"])[female]
    article = ARTICLES.get(language, ARTICLES["es"])[female]
    lead = rng.choice([f"{possessive} ", f"{article} ", ""])
    given = _given(relative, rng)
    layout = weighted(rng, [("comma", 5), ("direct", 3), ("comma_age", 3), ("direct_age", 1)])
    if relative.age < 16 and layout.endswith("age"):
        layout = layout.removesuffix("_age")
    if layout == "direct":
        return (lead, Span(f"{kin} {given}", RELATIVE))
    if layout == "direct_age":
        return (lead, Span(f"{kin} {given}", RELATIVE), " (", Span(str(relative.age), RELATIVE), ")")
    parts: list[Part] = [lead, Span(kin, RELATIVE), ", ", Span(given, RELATIVE)]
    if layout == "comma_age":
        age = str(relative.age) if chance(rng, 0.6) else V.age_text(rng, relative.age)
        parts += [" (", Span(age, RELATIVE), ")"]
    return tuple(parts)


def relative_sentence(c: Case, language: str = "es") -> Phrase:
    """A sentence around :func:`relative_apposition`: who the patient lives with, who
    looks after them, who came."""
    rng = c.rng
    relative = rng.choice(c.relatives)
    mention = relative_apposition(c, relative, language)
    if language == "ca":
        verb = say(rng, "{Viu amb|Ha vingut amb|La cuida|L'acompanya} ")
        return (verb, mention, ".")
    if language == "gl":
        verb = say(rng, "{Vive con|Vén con|Está con} ")
        return (verb, mention, ".")
    kind = weighted(rng, [("lives", 4), ("cares", 3), ("came", 2), ("calls", 2)])
    if kind == "lives":
        return (say(rng, "{Vive con|Convive con|Reside con} "), mention, say(rng, "{.|, en el mismo domicilio.}"))
    if kind == "cares":
        carer = "La cuidadora principal es" if relative.name.female else "El cuidador principal es"
        return (rng.choice([carer, "Le ayuda"]) + " ", mention, ".")
    if kind == "came":
        return (say(rng, "{Acude acompañada de|Acude acompañado de|Viene con} "), mention, ".")
    return (say(rng, "{Llama por teléfono|Ha llamado} "), mention, say(rng, "{.|, preocupada.|, para preguntar.}"))


GROUP_WORDS = {2: "dos", 3: "tres", 4: "cuatro"}


def children_list(c: Case) -> Phrase:
    """``Tiene dos hijos: Ana, Pedro y Luis`` / ``tres nietos (Ana, Pedro, Luis)``: the
    group word one FAMILIARES span, each name another."""
    rng = c.rng
    n = rng.randint(2, 3)
    noun = weighted(rng, [("hijos", 4), ("hijas", 2), ("nietos", 2), ("hermanos", 2), ("sobrinos", 1)])
    names = []
    for _ in range(n):
        female = noun.endswith("as") or chance(rng, 0.5)
        names.append(V.person_name(rng, c.lexicon, c.home.region, female=female, foreign=0.0).given)
    group = Span(f"{GROUP_WORDS[n]} {noun}", RELATIVE)
    listed: list[Part] = []
    for i, given in enumerate(names):
        if i:
            listed.append(" y " if i == n - 1 and chance(rng, 0.7) else ", ")
        listed.append(Span(given, RELATIVE))
    if chance(rng, 0.5):
        return (say(rng, "{Tiene|Con} "), group, ": ", *listed, ".")
    lead = {"hijos": c.agree("Padre de ", "Madre de "), "hijas": c.agree("Padre de ", "Madre de ")}.get(noun, "Tiene ")
    if noun == "nietos":
        lead = c.agree("Abuelo de ", "Abuela de ")
    lead = lead if chance(rng, 0.6) else "Tiene "
    return (lead, group, " (", *listed, ").")


def contact_list(c: Case) -> list[Phrase]:
    """Lines of a numbered contact list: ``2. Hijo: Pedro Ruiz — 612 34 56 78``; the
    kinship label is a field label (not a span), the name FAMILIARES, the phone a span."""
    rng = c.rng
    numbered = chance(rng, 0.7)
    out = []
    for i, relative in enumerate(c.relatives[: rng.randint(1, 3)], start=1):
        label = relative.kinship.capitalize()
        shown = _given(relative, rng, full=0.6)
        line: list[Part] = [f"{i}. " if numbered else "", f"{label}: ", Span(shown, RELATIVE)]
        if chance(rng, 0.8):
            line += [rng.choice([" — ", " - ", ", ", ". Tel. ", " · "]), Span(relative.phone, "NUMERO_TELEFONO")]
        out.append(tuple(line))
    return out


# ----------------------------------------------------------------------------- work


# Trades and occupations named without a cue word, (masculine, feminine).
TRADES = (
    ("descorchador", "descorchadora"),
    ("pastor", "pastora"),
    ("pastor de cabras", "pastora de cabras"),
    ("resinero", "resinera"),
    ("vendimiador", "vendimiadora"),
    ("estibador", "estibadora"),
    ("camionero", "camionera"),
    ("operario de montaje", "operaria de montaje"),
    ("mozo de almacén", "moza de almacén"),
    ("carretillero", "carretillera"),
    ("repartidor", "repartidora"),
    ("conductor de ambulancia", "conductora de ambulancia"),
    ("guarda forestal", "guarda forestal"),
    ("socorrista", "socorrista"),
    ("marisquero", "mariscadora"),
    ("apicultor", "apicultora"),
    ("esquilador", "esquiladora"),
    ("panadero", "panadera"),
    ("teleoperador", "teleoperadora"),
    ("vigilante nocturno", "vigilante nocturna"),
    ("gruista", "gruista"),
    ("encofrador", "encofradora"),
    ("tractorista", "tractorista"),
    ("cocinero de hotel", "cocinera de hotel"),
    ("jardinero municipal", "jardinera municipal"),
    ("reponedor", "reponedora"),
    ("matarife", "matarife"),
    ("quesero", "quesera"),
    ("costurero", "costurera"),
    ("limpiacristales", "limpiacristales"),
)
TRADES_CA = (
    ("pagès", "pagesa"),
    ("paleta", "paleta"),
    ("conductor d'autobús", "conductora d'autobús"),
    ("cambrer", "cambrera"),
    ("fuster", "fustera"),
    ("lampista", "lampista"),
    ("perruquer", "perruquera"),
    ("botiguer", "botiguera"),
    ("mestre", "mestra"),
    ("forner", "fornera"),
)
TRADES_GL = (
    ("gandeiro", "gandeira"),
    ("labrego", "labrega"),
    ("mariñeiro", "mariñeira"),
    ("camioneiro", "camioneira"),
    ("carpinteiro", "carpinteira"),
    ("peixeiro", "peixeira"),
    ("costureiro", "costureira"),
    ("canteiro", "canteira"),
    ("mestre", "mestra"),
)


def trade(c: Case, language: str = "es") -> str:
    """An occupation in ``language`` that agrees with the patient's gender."""
    pool = {"ca": TRADES_CA, "gl": TRADES_GL}.get(language, TRADES)
    if language == "es" and chance(c.rng, 0.3):
        return c.profession
    if language == "es" and chance(c.rng, 0.15):  # a Catalan or Galician word in a Spanish sentence
        pool = c.rng.choice([TRADES_CA, TRADES_GL])
    masculine, feminine = c.rng.choice(pool)
    return c.agree(masculine, feminine)


# Companies named by a brand and a place, a service or a family, without a legal form.
EMPLOYER_PATTERNS = (
    "Autobuses Urbanos de {town}",
    "Conservas {surname}",
    "Panadería Hermanos {surname}",
    "Frigoríficos {surname}",
    "Cooperativa Agrícola de {town}",
    "Bodegas {surname}",
    "Quesos {town}",
    "Embutidos {surname}",
    "Aserradero {surname}",
    "Logística {town}",
    "Limpiezas {surname}",
    "Residencia {surname}",
    "Supermercados {surname}",
    "Granja {surname}",
    "Transportes {surname} e Hijos",
    "Muebles {surname}",
    "Piensos {town}",
    "Corchos {surname}",
    "Hostal {surname}",
    "Cafetería {given}",
)
EMPLOYER_PATTERNS_CA = ("Calçats {surname}", "Fusteria {surname}", "Forn {surname}", "Transports {surname}")
EMPLOYER_PATTERNS_GL = ("Conservas {surname}", "Gandería {surname}", "Serradoiro {surname}", "Mariscos {surname}")


def employer(c: Case, language: str = "es") -> str:
    """The patient's employer as people name it, now and then with ``SL`` (no final dot)."""
    rng = c.rng
    if chance(rng, 0.3):
        return O.company_text(rng, c.lexicon, c.home)
    pool = EMPLOYER_PATTERNS + {"ca": EMPLOYER_PATTERNS_CA, "gl": EMPLOYER_PATTERNS_GL}.get(language, ())
    name = rng.choice(pool).format(
        town=c.home.town, surname=c.lexicon.surname(rng), given=c.lexicon.first_name(rng).split()[0]
    )
    return name + (rng.choice([" SL", " SA", " SCCL"]) if chance(rng, 0.15) else "")


def work_sentence(c: Case, language: str = "es") -> Phrase:
    """The patient's job without ``profesión:``: ``Como camionero, pasa semanas fuera``,
    ``Fue pastor hasta los 60``, ``Trabaja a turnos como operario en Conservas Gil``,
    ``repartidor para Panadería Hermanos Gil``, ``treballa de paleta a …``."""
    rng = c.rng
    job = Span(trade(c, language), PROFESSION)
    company = Span(employer(c, language), EMPLOYER)
    if language == "ca":
        kind = weighted(rng, [("job_at", 3), ("job", 2)])
        if kind == "job_at":
            return (say(rng, "{Treballa de|Fa de} "), job, " a ", company, ".")
        return (say(rng, "{És|Era} "), job, say(rng, "{.| de tota la vida.}"))
    if language == "gl":
        kind = weighted(rng, [("job_at", 3), ("job", 2)])
        if kind == "job_at":
            return (say(rng, "{Traballa de|Traballa como} "), job, " en ", company, ".")
        return (say(rng, "{É|Foi} "), job, ".")
    kind = weighted(
        rng,
        [("como", 3), ("fue", 3), ("turns", 3), ("para", 3), ("es", 2), ("apposition", 2), ("company_only", 2)],
    )
    if kind == "como":
        return ("Como ", job, say(rng, ", {pasa semanas fuera de casa|carga peso a diario|trabaja de noche}."))
    if kind == "fue":
        return (say(rng, "{Fue|Ha sido|Trabajó de} "), job, say(rng, "{ hasta jubilarse.| muchos años.|.}"))
    if kind == "turns":
        return (say(rng, "{Trabaja a turnos como|Trabaja como|Hace de} "), job, say(rng, "{ en | para }"), company, ".")
    if kind == "para":
        return (job, say(rng, "{ para | en }"), company, say(rng, "{.|, a jornada completa.|, sin contrato.}"))
    if kind == "es":
        return ("Es ", job, ".")
    if kind == "apposition":
        return (c.agree("El paciente, ", "La paciente, "), job, say(rng, ", {refiere|cuenta|explica} que no descansa."))
    return (say(rng, "{Trabaja en|Lleva años en|Despedido de|Empleada en} "), company, ".")


SCHOOL_PATTERNS = ("IES {x}", "CEIP {x}", "Colegio {x}", "Escuela Infantil {x}", "Instituto {x}")
UNIVERSITIES = ("UPV", "UPNA", "UAB", "UCM", "USC", "UGR", "UV", "UNED", "Universidad de {town}")


def school_sentence(c: Case) -> Phrase:
    """A school where the patient teaches (OTROS: the employer, P28.1) or a child studies
    (INSTITUCION, P10.1), or a university by its acronym."""
    rng = c.rng
    filler = rng.choice([c.lexicon.surname(rng), c.home.town, f"San {rng.choice(('Roque', 'Blas', 'Isidro'))}"])
    school = rng.choice(SCHOOL_PATTERNS).format(x=filler)
    if c.works and chance(rng, 0.4):
        return (
            say(rng, "{Es profesora en el|Da clase en el|Conserje del|Trabaja en el} "),
            Span(school, EMPLOYER),
            ".",
        )
    if chance(rng, 0.4):
        university = rng.choice(UNIVERSITIES).format(town=c.home.town)
        relative = rng.choice(["el hijo", "la hija", "la nieta", "el nieto"])
        return (f"{relative.capitalize()} estudia en la ", Span(university, "INSTITUCION"), ".")
    return (
        say(rng, "{Los niños van al|El pequeño va al|Recoge a los nietos en el} "),
        Span(school, "INSTITUCION"),
        ".",
    )


# ----------------------------------------------------------------------------- hospitals, ages, identifiers

SHORT_HOSPITALS = ("Regional", "Clínico", "General", "Provincial", "Comarcal", "Materno", "Universitario")


def hospital_acronym(rng) -> str:
    """``HUSA``, ``HGUA``, ``HCUV``: the letters of a hospital's name."""
    return rng.choice(["HU", "HG", "HC", "CHU", "H"]) + letters(rng, rng.randint(1, 3))


def short_hospital_sentence(c: Case) -> Phrase:
    """A hospital by a short name or an acronym in running text: ``derivado al Clínico``,
    ``urgencias del HUSA``, ``H. Universitario de …``, ``Oftalmología del HGUA``."""
    rng = c.rng
    kind = weighted(rng, [("short", 4), ("acronym", 4), ("abbreviated", 3)])
    if kind == "short":
        name = rng.choice(SHORT_HOSPITALS)
        return (
            say(rng, "{Derivado al|Ingresó en el|Seguimiento en el|Operada en el|Trasladado al} "),
            Span(name, "HOSPITAL"),
            ".",
        )
    if kind == "acronym":
        name = hospital_acronym(rng)
        lead = say(rng, "{Acudió a urgencias del|Revisiones en Oftalmología del|Pendiente de cita en el|Alta del} ")
        return (lead, Span(name, "HOSPITAL"), say(rng, "{.| hace un mes.| en marzo.}"))
    head = rng.choice(["H. Universitario de", "H. General de", "Hosp. Comarcal de", "H. Clínico de", "Hosp. de"])
    return (
        say(rng, "{Valorado en|Intervenido en el|Cita en el} "),
        Span(f"{head} {c.hospital_place.town}", "HOSPITAL"),
        ".",
    )


def words_age(years: int) -> str:
    """``sesenta y un años``: the number in words before ``años`` (``uno`` → ``un``)."""
    words = SP.number_words(years)
    if words.endswith("uno"):
        words = words[:-1]
    return f"{words} años"


def short_age(c: Case, language: str = "es") -> str:
    """The patient's age as a telegraphic note, a form cell or another language writes it."""
    rng = c.rng
    years = c.years
    if language in ("ca", "gl"):
        return R.age_text(rng, language, years)
    return weighted(
        rng, [(f"{years}a", 4), (f"{years} a", 2), (f"{years} años", 2), (words_age(years), 2), (str(years), 2)]
    )


REGIONAL_CARDS = (("CIP", 3), ("TIS", 3), ("CIPNA", 2), ("CIPA", 2), ("SIP", 2), ("CIC", 2), ("TSI", 2))


def regional_card(c: Case) -> tuple[str, str]:
    """(label, number) of a regional health card with letters: ``TIS CLGA 123456 78``,
    ``CIPNA 1234567``, ``SIP 12345678``: ID_SUJETO_ASISTENCIA (P17.1)."""
    rng = c.rng
    label = weighted(rng, REGIONAL_CARDS)
    surname_letters = "".join(ch for ch in V.slug(c.patient.surnames[0]).upper() if ch.isalpha())[:2].ljust(2, "X")
    given_letters = "".join(ch for ch in V.slug(c.patient.given).upper() if ch.isalpha())[:2].ljust(2, "X")
    number = weighted(
        rng,
        [
            (f"{surname_letters}{given_letters} {digits(rng, 6)} {digits(rng, 2)}", 3),
            (f"{surname_letters}{given_letters}{digits(rng, 10)}", 2),
            (digits(rng, rng.choice([7, 8, 10]), True), 3),
            (f"{letters(rng, 1)}{digits(rng, 8)}", 1),
        ],
    )
    return label, number


def prefixed_record(rng) -> tuple[str, str]:
    """(prefix, number) of a record number whose letter prefix and hyphen are left out of
    the span (``NHC HL-123456`` → ``123456``), as the notes' decision 9 says."""
    return f"{letters(rng, 2)}-", digits(rng, rng.choice([6, 7]), True)


def episode_with_letters(rng, year: int) -> str:
    """Episode, request and study numbers with letters and slashes (ID_CONTACTO_ASISTENCIAL):
    ``U25/004817``, ``25-ABC-0188342``, ``RX/2025/011347``."""
    yy = f"{year % 100:02d}"
    return weighted(
        rng,
        [
            (f"{letters(rng, 1)}{yy}/{digits(rng, 6)}", 3),
            (f"{yy}-{letters(rng, 3)}-{digits(rng, 7)}", 2),
            (f"{letters(rng, 2)}/{year}/{digits(rng, 6)}", 3),
            (f"{letters(rng, 3)}{yy}-{digits(rng, 5)}", 1),
        ],
    )


def id_lines(c: Case) -> list[Phrase]:
    """Identifier lines of a header or a social report, each label outside its span."""
    rng = c.rng
    out: list[Phrase] = []
    label, number = regional_card(c)
    out.append((f"{label} ", Span(number, "ID_SUJETO_ASISTENCIA")))
    prefix, record = prefixed_record(rng)
    out.append((rng.choice(["NHC ", "NHC: ", "Nº HC ", "HC "]) + prefix, Span(record, "ID_SUJETO_ASISTENCIA")))
    label = rng.choice(["Episodio", "Nº episodio", "Nº petición", "Solicitud", "Estudio"])
    out.append((f"{label}: ", Span(episode_with_letters(rng, c.note_date.year), "ID_CONTACTO_ASISTENCIAL")))
    if c.foreign and chance(rng, 0.5):
        out.append(("Nº de utente (SNS Portugal): ", Span(digits(rng, 9, True), "ID_SUJETO_ASISTENCIA")))
    if chance(rng, 0.3):
        out.append(("TSE: ", Span(f"{letters(rng, 2)}{digits(rng, 8)}", "ID_ASEGURAMIENTO")))
    return out


def money_and_police(c: Case) -> Phrase:
    """An IBAN for a benefit or a police report number: OTROS_SUJETO_ASISTENCIA (P28.1),
    the label outside."""
    rng = c.rng
    if chance(rng, 0.5):
        return (
            say(rng, "{La ayuda se ingresa en la cuenta|Cuenta para el cobro:|IBAN} "),
            Span(V.iban_text(rng), EMPLOYER),
            ".",
        )
    number = O.case_number_text(rng, c.note_date.year)
    police = Span(O.police_text(rng, c.lexicon, c.home), "INSTITUCION")
    return (
        say(rng, "{Denuncia ante la|Interviene la|Atestado de la} "),
        police,
        ", atestado nº ",
        Span(number, EMPLOYER),
        ".",
    )


# ----------------------------------------------------------------------------- places

# Valleys, comarcas and coasts: TERRITORIO, the article before them outside.
AREAS = (
    ("del", "Valle de Arán"),
    ("del", "Valle del Baztán"),
    ("del", "Valle de Tena"),
    ("de la", "Comarca del Bierzo"),
    ("de la", "Ribera del Duero"),
    ("de la", "Sierra de Gata"),
    ("de la", "Costa Brava"),
    ("de la", "Vall d'Albaida"),
    ("de", "Tierra de Barros"),
    ("de la", "Ribeira Sacra"),
    ("del", "Alto Aragón"),
    ("de la", "Montaña Palentina"),
    ("de los", "Montes de Toledo"),
    ("de la", "Cerdanya"),
)
# Towns abroad near the border or where Spanish families work (town, country).
NEIGHBOUR_TOWNS = (
    ("Viana do Castelo", "Portugal"),
    ("Guimarães", "Portugal"),
    ("Chaves", "Portugal"),
    ("Bragança", "Portugal"),
    ("Faro", "Portugal"),
    ("Évora", "Portugal"),
    ("Pau", "Francia"),
    ("Burdeos", "Francia"),
    ("Tarbes", "Francia"),
    ("Montpellier", "Francia"),
    ("Marsella", "Francia"),
    ("Ginebra", "Suiza"),
    ("Zúrich", "Suiza"),
    ("Berna", "Suiza"),
    ("Basilea", "Suiza"),
    ("Neuchâtel", "Suiza"),
    ("Andorra la Vella", "Andorra"),
)


def place_sentence(c: Case) -> Phrase:
    """Towns and districts named without an address: ``en el polígono de …``, ``Vive en
    la Chana con…``, ``una prima en Ginebra (Suiza)``, ``del Valle de Arán``."""
    rng = c.rng
    other = V.place(rng, c.lexicon)
    kind = weighted(rng, [("polygon", 2), ("district", 3), ("abroad", 4), ("area", 2), ("town", 2)])
    if kind == "polygon":
        return (
            say(rng, "{Trabaja en una nave del|Tiene el taller en el|Accidente en el} polígono de "),
            Span(other.town, "TERRITORIO"),
            ".",
        )
    if kind == "district":
        name = rng.choice(T.NEIGHBOURHOODS)
        head, _, rest = name.partition(" ")
        article, shown = (f"{head} ", rest) if head in ("el", "la", "los", "las") else ("", name)
        return (
            say(rng, "{Vive en|Se mudó a|Reside en} ") + article,
            Span(shown, "TERRITORIO"),
            say(rng, "{ con su familia.| desde hace años.|.}"),
        )
    if kind == "abroad":
        town, country = rng.choice(NEIGHBOUR_TOWNS) if chance(rng, 0.6) else V.foreign_place(rng)
        article, who = rng.choice([("Una ", "prima"), ("Un ", "hermano"), ("La ", "hija mayor"), ("Su ", "pareja")])
        tail: tuple[Part, ...] = (" (", Span(country, "PAIS"), ")") if chance(rng, 0.5) else ()
        if chance(rng, 0.5):
            return (
                say(rng, "{Trabajó|Estuvo trabajando|Vivió} {diez años|una temporada|de joven} en "),
                Span(town, "TERRITORIO"),
                *tail,
                ".",
            )
        return (
            article,
            Span(who, RELATIVE),
            say(rng, " {vive|trabaja|reside} en "),
            Span(town, "TERRITORIO"),
            *tail,
            ".",
        )
    if kind == "area":
        article, area = rng.choice(AREAS)
        return (say(rng, "{Es natural|Procede|Vive en un pueblo} ") + article + " ", Span(area, "TERRITORIO"), ".")
    return (
        say(rng, "{Pasa los veranos en|Se desplaza a diario desde|Tiene una casa en} "),
        Span(other.town, "TERRITORIO"),
        ".",
    )


# Administrative headers of the co-official languages: each body one INSTITUCION span.
HEADER_BODIES = {
    "ca": (
        ("Generalitat de Catalunya", "Departament de Salut"),
        ("Institut Català de la Salut", "Gerència Territorial de {province}"),
        ("Generalitat Valenciana", "Conselleria de Sanitat"),
        ("Generalitat Valenciana", "Departament de Salut de {town}"),
    ),
    "gl": (
        ("Xunta de Galicia", "Consellería de Sanidade"),
        ("SERGAS", "Área Sanitaria de {town}, {town2} e {town3}"),
        ("Servizo Galego de Saúde", "Xerencia de Xestión Integrada de {town}"),
    ),
    "eu": (
        ("Osakidetza", "{town} ESI"),
        ("Eusko Jaurlaritza", "Osasun Saila"),
        ("Osakidetza", "Organización Sanitaria Integrada {town}"),
    ),
}


def administrative_header(c: Case, language: str) -> list[Phrase]:
    """Two header lines naming a health body and its area or department in ``language``."""
    rng = c.rng
    top, below = rng.choice(HEADER_BODIES[language])
    towns = [V.place(rng, c.lexicon).town for _ in range(2)]
    below = below.format(town=c.home.town, town2=towns[0], town3=towns[1], province=c.home.province)
    if chance(rng, 0.4):
        return [(Span(top, "INSTITUCION"), rng.choice([" - ", " · ", " / "]), Span(below, "INSTITUCION"))]
    return [(Span(top, "INSTITUCION"),), (Span(below, "INSTITUCION"),)]
