"""Note formats a MEDDOCAN-trained model finds hardest, beyond :mod:`~deid_crf.augment.formats`.

Each writes one :class:`~deid_crf.augment.case.Case` like the formats there, and
together they teach what the first seventeen formats do not:

* :func:`ward_handover`: a nurses' or residents' handover list, one patient per row,
  surname-first ALL-CAPS names, ``78a H`` cells, staff initials in the last cell and
  relatives, towns and employers in the free-text cell;
* :func:`dictation`: a transcribed dictation, lower case, without punctuation, dates,
  ages, record numbers and phones in words or spaced digits, the spoken commands
  (``coma``, ``punto y aparte``) outside every span;
* :func:`genetics_report`: a genetic-counselling report with a pedigree: many
  relatives, each named after a comma, with their ages, ages at diagnosis (every age
  of a relative a FAMILIARES span), birth and death years, professions and towns;
* :func:`regional_note`: a note in Catalan, Galician or Spanish with Basque, with the
  kinship words, dates, ages, councils and health centres of that language;
* :func:`court_report`: a parte de lesiones / medico-legal report: the court's full
  name one INSTITUCION span, the case number OTROS_SUJETO_ASISTENCIA, foreign identity
  documents, police bodies, an ex-partner;
* :func:`surgical_protocol`: the surgical team with roles outside the names, implant
  serial numbers after ``SN`` (catalogue ``Ref.`` numbers left untagged), staff
  initials in running text;
* :func:`evolution_sheet`: free-text daily entries with dates in many forms, and the
  social facts real notes scatter: employers without a legal form, NGOs, insurers,
  clubs, health areas, relatives in apposition, kinship words opening a sentence,
  professions after ``Es`` or ``de profesión``, towns and foreign regions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

from deid_crf.augment import organisations as O
from deid_crf.augment import regional as R
from deid_crf.augment import sections as S
from deid_crf.augment import spoken as SP
from deid_crf.augment import tables as T
from deid_crf.augment import values as V
from deid_crf.augment.builder import NoteBuilder, Part, Phrase, Span, recase
from deid_crf.augment.case import PATIENT, RELATIVE, STAFF, Case, Clinician, Relative
from deid_crf.augment.sections import field, heading, say
from deid_crf.augment.values import PersonName, chance, weighted

Format = Callable[[Case, NoteBuilder], None]

# Towns abroad with their region (``nacido en Sylhet (Sylhet, Bangladés)``): town and
# region TERRITORIO, country PAIS.
FOREIGN_REGIONS = (
    ("Peshawar", "Khyber Pakhtunkhwa", "Pakistán"),
    ("Sialkot", "Pendjab", "Pakistán"),
    ("Sylhet", "Sylhet", "Bangladés"),
    ("Fez", "Fez-Mequinez", "Marruecos"),
    ("Kenitra", "Rabat-Salé-Kenitra", "Marruecos"),
    ("Berkane", "Oriental", "Marruecos"),
    ("Timisoara", "Timiș", "Rumanía"),
    ("Constanța", "Dobrogea", "Rumanía"),
    ("Fuzhou", "Fujian", "China"),
    ("Lishui", "Zhejiang", "China"),
    ("Odesa", "Óblast de Odesa", "Ucrania"),
    ("Kaolack", "Kaolack", "Senegal"),
    ("Kano", "Kano", "Nigeria"),
    ("Arequipa", "Arequipa", "Perú"),
    ("Barranquilla", "Atlántico", "Colombia"),
    ("Pereira", "Risaralda", "Colombia"),
    ("Oruro", "Oruro", "Bolivia"),
    ("Tegucigalpa", "Francisco Morazán", "Honduras"),
    ("Santiago de los Caballeros", "Cibao", "República Dominicana"),
    ("Guayaquil", "Guayas", "Ecuador"),
)


# Everyday diminutives a ward list writes next to the name (P1.3: a span of its own).
NICKNAMES = {
    "Antonio": "Toño", "José": "Pepe", "Francisco": "Paco", "Manuel": "Manolo", "Dolores": "Lola",
    "Concepción": "Concha", "Jesús": "Chus", "Ignacio": "Nacho", "Guillermo": "Guille", "Rosario": "Charo",
    "Mercedes": "Merche", "Asunción": "Choni", "Josefa": "Pepa", "Enrique": "Quique", "Joaquín": "Quino",
    "Pilar": "Pili", "Isabel": "Isa", "Consuelo": "Chelo", "Soledad": "Sole", "Alfonso": "Fonso",
}  # fmt: skip


def _title(b: NoteBuilder, rng, *titles: str) -> None:
    text = rng.choice(titles)
    b.line(text.upper() if chance(rng, 0.6) else text)
    b.blank()


def _other_case(c: Case) -> Case:
    from deid_crf.augment.case import draw_case

    other = draw_case(c.rng, c.lexicon)
    other.staff = c.staff
    return other


def _relative_given(c: Case, relative: Relative) -> str:
    name = relative.name
    return name.given if chance(c.rng, 0.7) else f"{name.given} {' '.join(name.surnames)}"


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


# ----------------------------------------------------------------------------- running-text facts


def foreign_birthplace(c: Case) -> Phrase:
    """``Sylhet (Sylhet, Bangladés)``, ``Fez, Marruecos``: town and region TERRITORIO,
    country PAIS."""
    rng = c.rng
    town, region, country = rng.choice(FOREIGN_REGIONS)
    layout = weighted(rng, [("town_region_country", 3), ("town_country", 2), ("region_country", 1)])
    if layout == "town_region_country":
        return (Span(town, "TERRITORIO"), " (", Span(region, "TERRITORIO"), ", ", Span(country, "PAIS"), ")")
    if layout == "town_country":
        return (Span(town, "TERRITORIO"), rng.choice([", ", " - "]), Span(country, "PAIS"))
    return ("la región de ", Span(region, "TERRITORIO"), " (", Span(country, "PAIS"), ")")


def relative_apposition(c: Case, relative: Relative, upper: bool = False) -> Phrase:
    """``su mujer, Ionela,`` / ``EL PADRE, CHEN HAO, cocinero``: kinship word and name
    separated by a comma are two FAMILIARES spans; a profession after them is PROFESION."""
    rng = c.rng
    name = relative.name
    if name.surname_first or upper:
        shown = f"{' '.join(name.surnames)} {name.given}" if name.surname_first else f"{name.given} {name.surnames[0]}"
    else:
        shown = _relative_given(c, relative)
    parts: list[Part] = [
        rng.choice(["su ", "la ", "el "]) if not upper else rng.choice(["SU ", ""]),
        Span(relative.kinship, RELATIVE),
        ", ",
        Span(shown, RELATIVE),
    ]
    if chance(rng, 0.4):
        parts += [", ", Span(relative.profession, "PROFESION")]
    elif chance(rng, 0.3):
        parts += [", ", Span(V.age_text(rng, relative.age), RELATIVE)]
    phrase = tuple(parts)
    return recase(phrase, "upper") if upper else phrase


def kinship_opening(c: Case) -> Phrase:
    """A sentence that opens with the kinship word: ``Sobrina refiere que…``, ``Marido
    avisado``, ``Hija de 52 años, cuidadora principal``."""
    rng = c.rng
    relative = rng.choice(c.relatives)
    kin = Span(_upper_first(relative.kinship), RELATIVE)
    kind = weighted(rng, [("refiere", 3), ("avisado", 3), ("age", 2), ("named", 2)])
    if kind == "refiere":
        return (
            kin,
            say(
                rng,
                " {refiere que|comenta que|cuenta que|informa de que}"
                " {no ha comido bien|está más confuso|ha dormido mal|se cayó ayer}.",
            ),
        )
    if kind == "avisado":
        return (
            kin,
            say(
                rng,
                " {avisado|avisada|informado|informada|localizado por teléfono}{|, vendrá por la tarde|, de acuerdo}.",
            ),
        )
    if kind == "age":
        return (
            kin,
            " de ",
            Span(V.age_text(rng, relative.age), RELATIVE),
            say(rng, ", {cuidadora principal|cuidador principal|vive con el paciente|vive cerca}."),
        )
    return (
        Span(f"{_upper_first(relative.kinship)} {relative.name.given}", RELATIVE),
        say(rng, " {acompaña|está presente|pregunta por el alta}."),
    )


def profession_sentence(c: Case) -> Phrase:
    """``Es carpintero``, ``antiguo minero``, ``de profesión camarera``, ``Trabaja en
    Autocares del Nalón como conductor``: the profession PROFESION, a company named
    without a legal form OTROS_SUJETO_ASISTENCIA (P28.1)."""
    rng = c.rng
    job = Span(c.profession, "PROFESION")
    company = Span(O.company_text(rng, c.lexicon, c.home), "OTROS_SUJETO_ASISTENCIA")
    kind = weighted(rng, [("es", 3), ("antiguo", 2), ("profesion", 2), ("works_at", 3), ("factory", 2)])
    if kind == "es":
        return ("Es ", job, say(rng, "{.| de baja desde hace un mes.| en activo.}"))
    if kind == "antiguo":
        return (c.agree("Antiguo ", "Antigua "), job, say(rng, "{, jubilado.|, ahora en paro.|.}"))
    if kind == "profesion":
        return ("De profesión ", job, ".")
    if kind == "works_at":
        return (say(rng, "{Trabaja en|Trabajó en|Empleado en|Contratado por} "), company, " como ", job, ".")
    return (say(rng, "{Trabaja en la fábrica de|Limpia en|Trabaja de temporero en|Lleva años en}") + " ", company, ".")


def organisation_sentence(c: Case) -> Phrase:
    """NGOs, insurers, mutuas, clubs and health areas in running text (INSTITUCION)."""
    rng = c.rng
    kind = weighted(rng, [("ngo", 3), ("insurer", 2), ("club", 2), ("body", 3), ("council", 1)])
    if kind == "ngo":
        org = Span(O.ngo_text(rng, c.lexicon, c.home), "INSTITUCION")
        return (
            say(rng, "{Recibe ayuda de|Acude al comedor de|Le acompaña una voluntaria de|En seguimiento por}") + " ",
            org,
            ".",
        )
    if kind == "insurer":
        org = Span(O.insurer_text(rng), "INSTITUCION")
        return (
            say(rng, "{Tiene seguro privado con|La baja la lleva|Accidente gestionado por|Póliza con}") + " ",
            org,
            ".",
        )
    if kind == "club":
        org = Span(O.club_text(rng, c.lexicon, c.home), "INSTITUCION")
        return (say(rng, "{Juega en el|Entrena con el|Socio del|Federado en el}") + " ", org, ".")
    if kind == "body":
        org = Span(O.health_body_text(rng, c.lexicon, c.home), "INSTITUCION")
        return (say(rng, "{Se notifica a|Se comunica al|Pendiente de respuesta de|Consultado con}") + " ", org, ".")
    org = Span(f"Ayuntamiento de {c.home.town}", "INSTITUCION")
    return ("Tiene ayuda a domicilio del ", org, ".")


def place_sentence(c: Case) -> Phrase:
    """Towns, provinces and foreign places in running text."""
    rng = c.rng
    kind = weighted(rng, [("born_abroad", 3), ("lives", 3), ("worked", 2)])
    if kind == "born_abroad":
        return (
            c.agree("Nacido en ", "Nacida en "),
            foreign_birthplace(c),
            say(rng, "{, en España desde |, llegó en }"),
            Span(str(max(c.days_before(400, 7000), c.birth).year), "FECHAS"),
            ".",
        )
    if kind == "lives":
        return (
            say(rng, "{Vive en|Reside en|Vive sola en|Vive solo en}") + " ",
            c.town(),
            " (",
            Span(V.province_name(rng, c.home), "TERRITORIO"),
            ").",
        )
    other = V.place(rng, c.lexicon)
    return (
        say(rng, "{Trabajó muchos años en|Pasa temporadas en|Tiene familia en}") + " ",
        Span(other.town, "TERRITORIO"),
        ".",
    )


def life_sentences(c: Case, k: int) -> list[Phrase]:
    """``k`` sentences of social facts (see the module docstring)."""
    rng = c.rng
    writers: list[Callable[[], Phrase]] = [
        lambda: profession_sentence(c),
        lambda: organisation_sentence(c),
        lambda: place_sentence(c),
        lambda: kinship_opening(c),
        lambda: ("Vive con ", relative_apposition(c, rng.choice(c.relatives)), "."),
    ]
    if not c.works:
        writers.pop(0)
    return [rng.choice(writers)() for _ in range(k)]


# ----------------------------------------------------------------------------- ward handover


def ward_handover(c: Case, b: NoteBuilder) -> None:
    """A handover list: one patient per row, surname-first ALL-CAPS names, ``78a H``,
    a free-text cell with relatives and places, the nurse's initials."""
    rng = c.rng
    nurses = [c.nurse(), *(V.person_name(rng, c.lexicon, c.home.region) for _ in range(2))]
    initials = [
        O.staff_initials(n.name.given, n.name.surnames, rng)
        if isinstance(n, Clinician)
        else O.staff_initials(n.given, n.surnames, rng)
        for n in nurses
    ]
    weekday = V.WEEKDAYS[c.note_date.weekday()][:3]
    when = Span(f"{weekday} {c.note_date:%d/%m/%y}", "FECHAS") if chance(rng, 0.5) else c.numeric_date(c.note_date)
    b.line(
        say(rng, "{PASE DE GUARDIA|Relevo de enfermería|LISTADO DE PLANTA|Pase de planta} - "),
        say(rng, "{Planta|Unidad|Control} {2ª|3ª|4ª|5ª|B|Norte} - "),
        when,
    )
    piped = chance(rng, 0.6)
    if piped:
        b.line(
            rng.choice(
                ["| Hab | Paciente | Edad/Sexo | Comentarios | Enf |", "| Cama | Nombre | E/S | Situación | Resp. |"]
            )
        )
    for _ in range(rng.randint(4, 9)):
        other = _other_case(c)
        name = other.patient_name("surname_comma_given", "upper" if chance(rng, 0.75) else None)
        cells: list[Part] = [name]
        if chance(rng, 0.12):
            nickname = NICKNAMES.get(other.patient.given.split()[0])
            if nickname:
                cells += [' ("', Span(nickname, PATIENT), '")']
        years = other.years
        age = Span(weighted(rng, [(f"{years}a", 4), (f"{years} a", 1), (f"{years}", 1)]), "EDAD_SUJETO_ASISTENCIA")
        sex = Span(
            weighted(rng, [("M", 3), ("F", 1)]) if other.female else weighted(rng, [("H", 3), ("V", 1)]),
            "SEXO_SUJETO_ASISTENCIA",
        )
        free: list[Part] = [rng.choice(T.DIAGNOSES)]
        for _ in range(rng.randint(1, 2)):
            extra = weighted(rng, [("relative", 4), ("town", 2), ("residence", 1), ("pending", 2), ("employer", 1)])
            if extra == "relative" and other.relatives:
                relative = other.relatives[0]
                free += [
                    "; ",
                    Span(f"{relative.kinship} {relative.name.given}", RELATIVE),
                    say(rng, " {avisado|avisada|de acuerdo|tel.} "),
                ]
                if free[-1].endswith("tel. "):
                    free.append(Span(relative.phone, "NUMERO_TELEFONO"))
                else:
                    free[-1] = free[-1].rstrip()
            elif extra == "town":
                free += [say(rng, "; {vive en|de|vive sola en|procede de} "), other.town()]
            elif extra == "residence":
                free += ["; viene de ", Span(f"Residencia {c.lexicon.surname(rng)}", "INSTITUCION")]
            elif extra == "employer" and other.works:
                free += ["; trabaja en ", Span(O.company_text(rng, c.lexicon, other.home), "OTROS_SUJETO_ASISTENCIA")]
            else:
                free += ["; TC ", other.date(c.note_date + timedelta(days=rng.randint(1, 4)), "day_month")]
        nurse = Span(rng.choice(initials), STAFF)
        room = f"{rng.randint(201, 540)}{rng.choice(['', '-1', '-2', 'A', 'B'])}"
        if piped:
            b.line("| ", room, " | ", *cells, " | ", age, " ", sex, " | ", *free, " | ", nurse, " |")
        else:
            b.line(room, "  ", *cells, "  ", age, " ", sex, "  ", *free, "  ", nurse)
    b.blank()
    b.line(say(rng, "{Enfermeras|Enf. de turno|Equipo}: "), *_initials_key(c, nurses, initials))
    if chance(rng, 0.5):
        b.line(say(rng, "{Busca guardia|Busca residente|Ext. control}: "), Span(V.pager_text(rng), "NUMERO_TELEFONO"))


def _initials_key(c: Case, nurses: list, initials: list[str]) -> list[Part]:
    parts: list[Part] = []
    for nurse, code in zip(nurses, initials, strict=True):
        name = nurse.name if isinstance(nurse, Clinician) else nurse
        if parts:
            parts.append(", ")
        parts += [Span(code, STAFF), " (", V.name_phrase(name, "given_first_surname", STAFF, c.rng), ")"]
    return parts


# ----------------------------------------------------------------------------- dictation


def _unpunctuated(text: str) -> str:
    """Clinical wording as speech recognition writes it: lower case, no punctuation."""
    return " ".join(re.sub(r"[,;:.()/%º]", " ", text.lower()).split())


_COMMANDS = ("coma", "punto", "punto y seguido", "punto y aparte", "dos puntos")


def dictation(c: Case, b: NoteBuilder) -> None:
    """A transcribed dictation: lower case, no punctuation, spoken numbers and commands."""
    rng = c.rng
    doctor = c.doctor()

    def cmd() -> str:
        return " " + weighted(rng, [(w, 3 if w in ("coma", "punto") else 1) for w in _COMMANDS]) + " "

    nhc = "".join(ch for ch in c.id_span("nhc").text if ch.isdigit())
    phone = SP.spoken_phone(rng, V.national_number(rng, True, c.home.code))
    patient = c.patient_name(weighted(rng, [("full", 3), ("given_first_surname", 2)]), "lower")
    lines: list[Phrase] = [
        (
            say(rng, "{consulta de|informe de|revisión en} ") + c.service.lower(),
            cmd(),
            "fecha ",
            Span(SP.spoken_date(rng, c.note_date), "FECHAS"),
            cmd(),
        ),
        (
            "paciente ",
            patient,
            cmd(),
            say(rng, "{número de historia|historia clínica|nhc} "),
            Span(SP.spoken_digits(rng, nhc), "ID_SUJETO_ASISTENCIA"),
            cmd(),
        ),
        (
            Span(c.sex().text.lower(), "SEXO_SUJETO_ASISTENCIA"),
            " de ",
            Span(SP.spoken_age(rng, c.years), "EDAD_SUJETO_ASISTENCIA"),
            say(rng, " {que acude por|remitido por|en seguimiento por} ") + _unpunctuated(rng.choice(T.COMPLAINTS)),
            cmd(),
        ),
    ]
    if c.relatives:
        relative = c.relatives[0]
        lines.append(
            (
                say(rng, "{viene con|acompañado de|acude con} su "),
                Span(f"{relative.kinship} {relative.name.given}".lower(), RELATIVE),
                cmd(),
            )
        )
    if c.works:
        lines.append(
            (
                say(rng, "{trabaja como|es|de profesión} "),
                Span(c.profession.lower(), "PROFESION"),
                " en ",
                Span(O.company_text(rng, c.lexicon, c.home).lower(), "OTROS_SUJETO_ASISTENCIA"),
                cmd(),
            )
        )
    seen = c.note_date - timedelta(days=rng.randint(20, 200))
    lines.append(
        (
            say(rng, "{en la última revisión del|la vimos el|desde el} "),
            Span(SP.spoken_date(rng, seen, weekday=chance(rng, 0.3)), "FECHAS"),
            say(rng, " {refiere|presenta|nota} ") + _unpunctuated(rng.choice(T.COMPLAINTS)),
            cmd(),
        )
    )
    lines.append((say(rng, "{a la exploración|exploración} ") + _unpunctuated(rng.choice(T.EXAM_FINDINGS)), cmd()))
    lines.append((say(rng, "{plan|se pauta|se mantiene} ") + _unpunctuated(rng.choice(T.DRUGS)), cmd()))
    lines.append((say(rng, "{teléfono de contacto|su teléfono es el|móvil} "), Span(phone, "NUMERO_TELEFONO"), cmd()))
    lines.append(
        (
            say(rng, "{revisión en|control en|nueva cita en} {tres|seis|dos} meses"),
            cmd(),
            "firmado ",
            V.name_phrase(doctor.name, "full", STAFF, rng),
            " ",
            say(rng, "{número de colegiado|colegiado número|colegiada} "),
            Span(SP.spoken_digits(rng, doctor.collegiate), "ID_TITULACION_PERSONAL_SANITARIO"),
        ),
    )
    middle = lines[3:-2]  # the order of what is said varies; the opening and sign-off do not
    rng.shuffle(middle)
    lines[3:-2] = middle
    for phrase in lines:
        b.add(recase(phrase, "lower"))
        if chance(rng, 0.3):
            b.add("\n")
    b.line()


# ----------------------------------------------------------------------------- genetics

_CANCERS = (
    "cáncer de mama",
    "cáncer de ovario",
    "cáncer de colon",
    "cáncer de próstata",
    "cáncer gástrico",
    "melanoma",
    "cáncer de endometrio",
    "cáncer de páncreas",
)
_FEMALE_KIN = frozenset({"madre", "abuela", "tía", "hermana", "prima", "hija", "sobrina"})
_PEDIGREE_KIN = (
    ("I", ("abuelo materno", "abuela materna", "abuelo paterno", "abuela paterna")),
    ("II", ("madre", "padre", "tía materna", "tío materno", "tía paterna", "tío paterno")),
    ("III", ("hermana", "hermano", "prima materna", "primo materno")),
    ("IV", ("hija", "hijo", "sobrina", "sobrino")),
)


def genetics_report(c: Case, b: NoteBuilder) -> None:
    """Consejo genético: proband, family number, a pedigree of many relatives."""
    rng = c.rng
    style = S.draw_style(rng, upper=0.2)
    b.line(
        say(rng, "{Unidad de Consejo Genético|Consulta de Cáncer Hereditario|Unidad de Genética Clínica} - "),
        c.hospital_span(),
    )
    b.blank()
    _title(b, rng, "Informe de consejo genético", "Asesoramiento genético", "Informe de genética clínica")
    field(
        b,
        style,
        rng.choice(["Consultante", "Probando", "Paciente"]),
        c.patient_name(weighted(rng, [("full", 3), ("surname_comma_given", 2)])),
    )
    field(b, style, "NHC", c.id_span("nhc"))
    field(
        b,
        style,
        rng.choice(["Nº familia", "Código familiar", "Familia nº"]),
        Span(f"{rng.choice(['F', 'FAM-', 'HBOC-', ''])}{V.digits(rng, 4, True)}", "NUMERO_IDENTIF"),
    )
    field(b, style, "Fecha", c.date(c.note_date))
    if chance(rng, 0.6):
        field(
            b,
            style,
            rng.choice(["Nº muestra ADN", "Muestra"]),
            Span(f"ADN-{V.digits(rng, 6)}", "ID_CONTACTO_ASISTENCIAL"),
        )
    b.blank()
    heading(b, rng, "Motivo de consulta", style)
    b.line(
        c.sex().text.capitalize(),
        " de ",
        c.age(),
        c.agree(" remitido por ", " remitida por "),
        rng.choice(
            ["historia familiar de cáncer", "sospecha de síndrome de Lynch", "agregación familiar de cáncer de mama"]
        ),
        ".",
    )
    b.blank()
    heading(b, rng, rng.choice(["Árbol genealógico", "Historia familiar (tres generaciones)", "Genealogía"]), style)
    for generation, kin_pool in _PEDIGREE_KIN:
        for index, kin in enumerate(rng.sample(kin_pool, rng.randint(1, min(3, len(kin_pool)))), start=1):
            female = kin.split()[0] in _FEMALE_KIN
            name = V.person_name(rng, c.lexicon, c.home.region, female=female, foreign=0.05)
            parts: list[Part] = [f"[{generation}.{index}] " if chance(rng, 0.8) else "* ", Span(kin, RELATIVE)]
            if chance(rng, 0.6):
                parts += [", ", Span(name.given if chance(rng, 0.6) else f"{name.given} {name.surnames[0]}", RELATIVE)]
            base = {"I": 75, "II": 55, "III": 40, "IV": 14}[generation]
            age = max(1, base + rng.randint(-12, 12))
            kind = weighted(rng, [("age", 3), ("diagnosed", 3), ("two_ages", 2), ("died", 2)])
            if kind == "age":
                parts += [
                    ", ",
                    Span(V.age_text(rng, age), RELATIVE),
                    say(rng, "{, sana|, sin antecedentes|}" if female else "{, sano|, sin antecedentes|}"),
                ]
            elif kind == "diagnosed":
                parts += [f", {rng.choice(_CANCERS)} a los ", Span(V.age_text(rng, max(20, age - 10)), RELATIVE)]
            elif kind == "two_ages":
                first, second = max(20, age - 15), max(25, age - 3)
                parts += [
                    f", {rng.choice(_CANCERS)} y {rng.choice(_CANCERS)} a los ",
                    Span(str(first), RELATIVE),
                    " y ",
                    Span(f"{second} años", RELATIVE),
                ]
            else:
                died = c.note_date.year - rng.randint(1, 30)
                parts += [
                    say(rng, ", {fallecida|fallecido|exitus} en "),
                    Span(str(died), "FECHAS"),
                    " a los ",
                    Span(V.age_text(rng, age), RELATIVE),
                ]
            if chance(rng, 0.25):
                parts += [", ", Span(V.profession_text(rng, c.lexicon, female), "PROFESION")]
            if chance(rng, 0.25):
                if chance(rng, 0.3):
                    town, region, country = rng.choice(FOREIGN_REGIONS)
                    parts += [", vive en ", Span(town, "TERRITORIO"), " (", Span(country, "PAIS"), ")"]
                else:
                    parts += [", vive en ", Span(V.place(rng, c.lexicon).town, "TERRITORIO")]
            if generation == "III" and chance(rng, 0.2):
                of = "de la" if female else "del"
                parts += [f". NHC {of} ", Span(kin.split()[0], RELATIVE), ": ", Span(V.nhc_text(rng), "NUMERO_IDENTIF")]
            b.line(*parts, ".")
    if chance(rng, 0.5):
        group = rng.choice(["dos hijas", "dos hijos", "tres hijos", "una hija"])
        ages = sorted(rng.sample(range(4, 30), 2), reverse=True)
        b.line(
            "La consultante tiene ",
            Span(group, RELATIVE),
            " de ",
            Span(str(ages[0]), RELATIVE),
            " y ",
            Span(f"{ages[1]} años", RELATIVE),
            ".",
        )
    b.blank()
    heading(b, rng, rng.choice(["Valoración", "Conclusión"]), style)
    b.line(
        say(
            rng,
            "Cumple criterios {de Ámsterdam II|de estudio genético|clínicos}"
            " {para estudio de|de} {BRCA1/2|genes MMR|panel de cáncer hereditario}.",
        )
    )
    b.blank()
    counsellor = c.nurse()
    b.line(
        say(rng, "{Asesora genética|Consejera genética|Enfermera de consejo genético}: "),
        V.name_phrase(counsellor.name, "full", STAFF, rng),
    )
    S.signature(b, c, dated=False)


# ----------------------------------------------------------------------------- regional languages

_REGIONAL_TEXT = {
    "ca": {
        "title": ("Informe d'urgències", "Informe d'alta", "Curs clínic", "Visita d'atenció primària"),
        "labels": ("Nom", "Data", "Edat", "Sexe", "Adreça", "Telèfon"),
        "lives": "Viu a ",
        "with": " amb ",
        "works": ("Treballa a ", "Treballa de "),
        "children": " i ",
        "consults": ("Consulta per ", "Acudeix per ", "Ve per "),
        "informed": ("S'informa ", "Es parla amb ", "Avisem "),
        "refer": ("Es deriva al ", "Control al "),
        "born": "Natural de ",
        "helps": " ajuda a casa. ",
    },
    "gl": {
        "title": ("Informe de alta", "Consulta de medicina de familia", "Informe de continuidade de coidados"),
        "labels": ("Nome", "Data", "Idade", "Sexo", "Enderezo", "Teléfono"),
        "lives": "Vive en ",
        "with": " co ",
        "works": ("Traballa en ", "Traballa de "),
        "children": " e ",
        "consults": ("Consulta por ", "Acode por ", "Refire "),
        "informed": ("Infórmase ", "Fálase con ", "Avísase "),
        "refer": ("Derívase ao ", "Control no "),
        "born": "Natural de ",
        "helps": " axuda na casa. ",
    },
    "eu": {
        "title": (
            "Informe de alta / Alta-txostena",
            "Comunicación de cita / Hitzordu-jakinarazpena",
            "Consulta externa",
        ),
        "labels": (
            "Nombre / Izena",
            "Fecha / Data",
            "Edad / Adina",
            "Sexo / Sexua",
            "Dirección / Helbidea",
            "Teléfono",
        ),
        "lives": "Vive en ",
        "with": " con ",
        "works": ("Trabaja en ", "Trabaja como "),
        "children": " y ",
        "consults": ("Acude por ", "Consulta por "),
        "informed": ("Se informa ", "Se habla con "),
        "refer": ("Se remite a ", "Control en "),
        "born": "Natural de ",
        "helps": " ayuda en casa. ",
    },
}


def regional_note(c: Case, b: NoteBuilder) -> None:
    """A short note in Catalan, Galician or Spanish with Basque forms, mixing in Spanish."""
    rng = c.rng
    language = c.home.region if c.home.region in R.LANGUAGES else rng.choice(R.LANGUAGES)
    words = _REGIONAL_TEXT[language]
    # The note is written where the language is spoken: the patient's town is drawn there.
    where = c.home if c.home.region == language else V.place(rng, c.lexicon, region=language)
    home_town = Span(where.town, "TERRITORIO")
    style = S.draw_style(rng, upper=0.2)
    b.line(Span(R.government_text(rng, language, c.hospital_place), "INSTITUCION"))
    b.line(
        c.hospital_span()
        if chance(rng, 0.5)
        else Span(R.health_centre_text(rng, language, where, c.lexicon), "CENTRO_SALUD")
    )
    b.blank()
    _title(b, rng, *words["title"])
    name_label, date_label, age_label, sex_label, address_label, phone_label = words["labels"]
    field(b, style, name_label, c.patient_name(weighted(rng, [("full", 3), ("surname_comma_given", 2)])))
    field(b, style, date_label, Span(R.date_text(rng, language, c.note_date), "FECHAS"))
    field(
        b,
        style,
        age_label,
        Span(R.age_text(rng, language, c.years), "EDAD_SUJETO_ASISTENCIA"),
        "   ",
        style.label(sex_label),
        Span(R.sex_word(rng, language, c.female, field=True), "SEXO_SUJETO_ASISTENCIA"),
    )
    if chance(rng, 0.7):
        street = (
            R.basque_street_text(rng)
            if language == "eu" and chance(rng, 0.6)
            else V.street_text(rng, c.lexicon, language)
        )
        field(
            b, style, address_label, Span(street, "CALLE"), ", ", Span(where.postal_code, "TERRITORIO"), " ", home_town
        )
    field(b, style, phone_label, c.phone())
    b.blank()
    body: list[Part] = []
    if c.foreign:
        town, country = c.birthplace
        body += [
            words["born"],
            Span(town, "TERRITORIO"),
            " (",
            Span(R.country_text(language, country or "Rumanía"), "PAIS"),
            "). ",
        ]
    body += [rng.choice(words["consults"]), rng.choice(T.COMPLAINTS), ". "]
    relatives = c.relatives[:2]
    if relatives:
        first = relatives[0]
        kin = R.kinship(rng, language, first.kinship)
        female_kin = first.kinship.endswith("a") or first.kinship in ("madre", "mujer", "nuera")
        possessive = R.POSSESSIVE[language][female_kin]
        if chance(rng, 0.5):
            mention: tuple[Part, ...] = (Span(f"{kin} {first.name.given}", RELATIVE),)
        else:
            mention = (Span(kin, RELATIVE), ", ", Span(first.name.given, RELATIVE), ",")
        body += [words["lives"], home_town, words["with"], possessive, " ", *mention]
        if chance(rng, 0.5):
            group = rng.choice(R.CHILDREN_GROUPS[language])
            ages = sorted(rng.sample(range(2, 25), 2))
            body += [
                words["children"],
                Span(group, RELATIVE),
                " (",
                Span(str(ages[0]), RELATIVE),
                words["children"],
                Span(f"{ages[1]} {R.AGE_UNIT[language]}", RELATIVE),
                ")",
            ]
        body.append(". ")
        if len(relatives) > 1:
            second = relatives[1]
            body += [
                Span(_upper_first(R.kinship(rng, language, second.kinship)), RELATIVE),
                words["helps"],
            ]
    if c.works:
        body += [
            words["works"][0],
            Span(O.company_text(rng, c.lexicon, where), "OTROS_SUJETO_ASISTENCIA"),
            ". ",
        ]
    body += [rng.choice(words["informed"]), Span(R.council_text(rng, language, where), "INSTITUCION"), ". "]
    body += [
        rng.choice(words["refer"]),
        Span(R.health_centre_text(rng, language, where, c.lexicon), "CENTRO_SALUD"),
        ". ",
    ]
    later = c.note_date + timedelta(days=rng.randint(3, 40))
    body += ["Cita: ", Span(R.date_text(rng, language, later), "FECHAS"), "."]
    lower = chance(rng, 0.3)
    b.line(recase(body, "lower") if lower else body)
    b.blank()
    b.line(c.staff_signature(c.doctor()))


# ----------------------------------------------------------------------------- court


def court_report(c: Case, b: NoteBuilder) -> None:
    """Parte de lesiones / informe médico-legal addressed to a court."""
    rng = c.rng
    style = S.draw_style(rng, upper=0.3)
    court_place = c.hospital_place
    court = Span(O.court_text(rng, court_place), "INSTITUCION")
    case_label = weighted(rng, O.CASE_LABELS)
    case_number = Span(O.case_number_text(rng, c.note_date.year), "OTROS_SUJETO_ASISTENCIA")
    S.facility_header(b, c, style)
    _title(b, rng, "Parte de lesiones", "Informe médico-legal", "Parte judicial de lesiones", "Informe de sanidad")
    field(b, style, rng.choice(["Dirigido a", "A la atención del", "Órgano judicial"]), court)
    field(b, style, rng.choice(["Referencia", "Procedimiento", "Asunto"]), f"{case_label} ", case_number)
    field(b, style, "Fecha", c.date(c.note_date, weighted(rng, [("long", 3), ("dd/mm/yyyy", 2), ("weekday_long", 1)])))
    b.blank()
    heading(b, rng, rng.choice(["Datos de la persona lesionada", "Datos del paciente", "Filiación"]), style)
    field(b, style, "Nombre", Span(c.patient.given, PATIENT))
    field(b, style, "Apellidos", Span(" ".join(c.patient.surnames), PATIENT))
    label, number = O.foreign_id_text(rng) if c.foreign or chance(rng, 0.3) else ("DNI", c.id_span("dni").text)
    field(b, style, _upper_first(label), Span(number, "ID_SUJETO_ASISTENCIA"))
    if c.foreign and chance(rng, 0.5):
        field(b, style, "NIE", Span(V.nie_text(rng), "ID_SUJETO_ASISTENCIA"))
    if c.foreign:
        field(b, style, "Nacionalidad", Span(c.birthplace[1] or "España", "PAIS"))
    field(b, style, "Edad", c.age())
    field(b, style, "Domicilio", c.address())
    field(b, style, "Teléfono", c.phone())
    b.blank()
    heading(b, rng, rng.choice(["Relato de los hechos", "Manifiesta", "Circunstancias"]), style)
    event = c.days_before(0, 3)
    parts: list[Part] = [
        say(
            rng,
            "{Refiere|Manifiesta|La paciente refiere|El paciente refiere} haber sufrido {una agresión|"
            "un accidente laboral|una caída en la vía pública} el ",
        ),
        c.date(event, weighted(rng, [("day_month", 3), ("weekday_long", 2), ("dd/mm/yyyy", 1)])),
        f" hacia las {rng.randint(0, 23):02d}:{rng.choice(['00', '15', '30'])} h",
    ]
    if c.relatives and chance(rng, 0.6):
        ex = rng.choice(["expareja", "exmarido", "pareja", "marido", "exnovio", "exmujer"])
        ex_name = V.person_name(rng, c.lexicon, c.home.region, female=ex == "exmujer")
        parts += [
            ", por parte de su ",
            Span(ex, RELATIVE),
            ", ",
            Span(f"{ex_name.given} {' '.join(ex_name.surnames)}", RELATIVE),
        ]
        if chance(rng, 0.4):
            parts += [", que conducía el vehículo ", Span(V.plate_text(rng), "IDENTIF_VEHICULOS_NRSERIE_PLACAS")]
    else:
        parts += [
            " en su puesto de trabajo en ",
            Span(O.company_text(rng, c.lexicon, c.home), "OTROS_SUJETO_ASISTENCIA"),
        ]
    parts.append(". ")
    police = Span(O.police_text(rng, c.lexicon, c.home), "INSTITUCION")
    parts += [say(rng, "{Interviene|Acude al lugar|Ha presentado denuncia ante}") + " ", police]
    if chance(rng, 0.6):
        parts += [
            say(rng, " ({atestado|denuncia|diligencias} nº "),
            Span(O.case_number_text(rng, c.note_date.year), "OTROS_SUJETO_ASISTENCIA"),
            ")",
        ]
    parts.append(".")
    b.line(*parts)
    if c.relatives and chance(rng, 0.5):
        b.line(
            say(rng, "{Acude acompañada de|Le acompaña|Viene con} "),
            relative_apposition(c, rng.choice(c.relatives)),
            ".",
        )
    if chance(rng, 0.4):
        group = rng.choice(["dos hijas", "dos hijos", "un hijo", "tres hijos"])
        ages = sorted(rng.sample(range(2, 16), 2))
        b.line("A su cargo, sus ", Span(f"{group} de {ages[0]} y {ages[1]} años", RELATIVE), ".")
    b.blank()
    heading(b, rng, rng.choice(["Lesiones objetivadas", "Exploración", "Lesiones"]), style)
    b.line(
        say(
            rng,
            "{Hematoma de 3 x 2 cm en región malar izquierda|Erosiones lineales en antebrazo derecho|"
            "Herida incisa de 4 cm en cuero cabelludo que se sutura con Prolene|"
            "Contusión costal sin fractura en la radiografía}.",
        )
    )
    b.line(
        say(
            rng,
            "Pronóstico {leve|reservado|menos grave}. {Precisa|No precisa} {tratamiento médico|seguimiento} posterior.",
        )
    )
    b.blank()
    fax = Span(V.phone_text(rng, False, court_place.code), "NUMERO_FAX")
    opening = say(rng, " {(fax |por fax al |al número }")
    b.line(
        say(rng, "{Se remite copia al|Se envía por fax al|Copia para el} "),
        Span(court.text, "INSTITUCION"),
        opening,
        fax,
        ")" if "(" in opening else "",
        ".",
    )
    b.blank()
    b.line(c.staff_signature(c.doctor()))


# ----------------------------------------------------------------------------- surgery

_ROLES = (
    ("Cirujano", "Cirujana", True),
    ("Primer ayudante", "Primera ayudante", True),
    ("Segundo ayudante", "Segunda ayudante", True),
    ("Anestesista", "Anestesista", True),
    ("Instrumentista", "Instrumentista", False),
    ("Circulante", "Circulante", False),
    ("TCAE", "TCAE", False),
)
_IMPLANTS = (
    "cotilo",
    "vástago femoral",
    "cabeza cerámica",
    "inserto de polietileno",
    "placa de bloqueo",
    "tornillo cortical",
    "clavo endomedular",
    "malla de polipropileno",
)


def surgical_protocol(c: Case, b: NoteBuilder) -> None:
    """Protocolo quirúrgico: the team with roles, implants with serial numbers, checks."""
    rng = c.rng
    style = S.draw_style(rng, upper=0.4)
    _title(b, rng, "Protocolo quirúrgico", "Hoja operatoria", "Informe quirúrgico", "Registro intraoperatorio")
    field(b, style, "Paciente", c.patient_name())
    field(b, style, "NHC", c.id_span("nhc"))
    field(b, style, "Edad", Span(str(c.years), "EDAD_SUJETO_ASISTENCIA") if chance(rng, 0.5) else c.age())
    field(b, style, "Fecha", c.date(c.note_date, weighted(rng, [("weekday_long", 2), ("dd/mm/yyyy", 3), ("long", 2)])))
    field(b, style, "Quirófano", str(rng.randint(1, 14)))
    b.blank()
    team: list[tuple[str, PersonName]] = []
    for masculine, feminine, titled in _ROLES:
        if not titled and chance(rng, 0.2):
            continue
        person = V.person_name(rng, c.lexicon, c.hospital_place.region, foreign=0.05)
        role = feminine if person.female else masculine
        title = ""
        if titled and chance(rng, 0.7):
            title = weighted(rng, [("Dra. " if person.female else "Dr. ", 5), ("MIR ", 1 if "Segund" in role else 0.1)])
        name_style = weighted(rng, [("full", 3), ("given_first_surname", 3), ("initial", 2), ("first_surname", 1)])
        b.line(style.label(role), title, V.name_phrase(person, name_style, STAFF, rng))
        team.append((role, person))
    b.blank()
    field(b, style, "Diagnóstico", rng.choice(T.DIAGNOSES))
    field(
        b,
        style,
        "Intervención",
        rng.choice(
            [
                "artroplastia total de cadera",
                "osteosíntesis de fémur",
                "hernioplastia inguinal",
                "colecistectomía laparoscópica",
                "artroplastia de rodilla",
            ]
        ),
    )
    b.blank()
    heading(b, rng, rng.choice(["Implantes", "Material implantado", "Trazabilidad"]), style)
    for implant in rng.sample(_IMPLANTS, rng.randint(2, 4)):
        ref = f"{V.digits(rng, 4, True)}-{V.digits(rng, 2)}-{V.digits(rng, 3)}"
        serial = Span(
            V.device_serial_text(rng) if chance(rng, 0.5) else V.digits(rng, 8, True), "IDENTIF_DISPOSITIVOS_NRSERIE"
        )
        b.line(
            "- ",
            implant,
            f" {rng.choice(['Exeter', 'Pinnacle', 'Trident', 'Corail', 'Zimmer'])}",
            f" Ref. {ref} ",
            rng.choice(["SN ", "SN: ", "Nº serie ", "S/N "]),
            serial,
        )
    if chance(rng, 0.5):
        b.line(
            "Injerto de banco de huesos, donante nº ",
            Span(f"{rng.choice(['BT', 'D', ''])}{V.digits(rng, 6, True)}", "NUMERO_IDENTIF"),
            ".",
        )
    if chance(rng, 0.4):
        b.line("Registro de artroplastias nº ", Span(f"{c.note_date.year}-{V.digits(rng, 5)}", "NUMERO_IDENTIF"), ".")
    b.blank()
    heading(b, rng, rng.choice(["Descripción", "Técnica"]), style)
    checkers = [p for _, p in team if p][-3:]
    codes = [Span(O.staff_initials(p.given, p.surnames, rng), STAFF) for p in rng.sample(checkers, 2)]
    b.line(
        say(rng, "{Abordaje posterolateral|Abordaje de Hardinge|Vía anterior}. Cementación con Palacos. "),
        say(
            rng,
            "{Recuento de gasas y compresas correcto,|Recuento de material completo,|Checklist de seguridad realizado,}"
            " {comprobado por|verificado por|firmado por} ",
        ),
        codes[0],
        " y ",
        codes[1],
        ".",
    )
    if c.relatives and chance(rng, 0.6):
        relative = rng.choice(c.relatives)
        b.line("Se informa al terminar a su ", Span(f"{relative.kinship} {relative.name.given}", RELATIVE), ".")
    b.blank()
    b.line(c.staff_signature(c.doctor()))


# ----------------------------------------------------------------------------- evolution sheet


def evolution_sheet(c: Case, b: NoteBuilder) -> None:
    """Hoja de evolución in free text: daily entries with dates in many forms, social
    facts in running text, staff initials and pagers."""
    rng = c.rng
    b.line(
        c.patient_name("surname_comma_given", "upper" if chance(rng, 0.6) else None),
        say(rng, "{ - | · |  }"),
        rng.choice(["NHC ", "NUHSA ", "HC "]),
        c.id_span("nhc" if chance(rng, 0.6) else "cip"),
    )
    b.line(say(rng, "{HOJA DE EVOLUCIÓN|Evolución clínica|Notas de evolución} - ") + c.service)
    b.blank()
    day: date = c.days_before(3, 12)
    writer_code = O.staff_initials(c.doctor().name.given, c.doctor().name.surnames, rng)
    facts = life_sentences(c, rng.randint(2, 4))
    for _ in range(rng.randint(3, 5)):
        style_ = weighted(
            rng, [("dd/mm", 2), ("d-mon", 2), ("weekday_day", 2), ("d/m/yy", 1), ("weekday_long", 1), ("dd.mm.yyyy", 1)]
        )
        month = V.MONTHS[day.month - 1]
        shown = {
            "dd/mm": f"{day:%d/%m}",
            "d-mon": f"{day.day}-{month[:3]}",
            "weekday_day": f"{V.WEEKDAYS[day.weekday()]} {day.day}",
            "d/m/yy": f"{day.day}/{day.month}/{day:%y}",
            "weekday_long": f"{V.WEEKDAYS[day.weekday()]} {day.day} de {month}",
            "dd.mm.yyyy": f"{day:%d.%m.%Y}",
        }[style_]
        entry: list[Part] = [
            Span(_upper_first(shown) if chance(rng, 0.3) else shown, "FECHAS"),
            say(rng, "{: |. | - }"),
        ]
        entry += [say(rng, "{Estable|Afebril|Mejor|Más confuso}, "), rng.choice(T.EXAM_FINDINGS).lower(), ". "]
        if facts and chance(rng, 0.7):
            entry += [facts.pop(), " "]
        entry += [say(rng, "{Plan:|Se ajusta|Mantener} "), rng.choice(T.DRUGS).split()[0], ". "]
        entry += [Span(writer_code, STAFF)]
        if chance(rng, 0.3):
            entry += [" (busca ", Span(V.pager_text(rng), "NUMERO_TELEFONO"), ")"]
        b.line(*entry)
        day += timedelta(days=rng.randint(1, 2))
    for fact in facts:
        b.line(fact)


MORE_FORMATS: dict[str, tuple[Format, float]] = {
    "pase_de_planta": (ward_handover, 4),
    "dictado": (dictation, 4),
    "consejo_genetico": (genetics_report, 3),
    "lengua_cooficial": (regional_note, 6),
    "medico_legal": (court_report, 3),
    "protocolo_quirurgico": (surgical_protocol, 3),
    "hoja_evolucion": (evolution_sheet, 4),
}
