"""Sections shared by the note formats: headers, patient blocks, clinical history,
social and family history, examination, tests, treatment, follow-up, sign-offs.

Each writer appends to a :class:`~deid_crf.augment.builder.NoteBuilder` and draws its
wording from the case's random generator: label spellings, separators, order and
optional sentences vary, so no two notes share long fixed runs of words. The
clinical text around the PHI is deliberately full of non-PHI look-alikes —
eponyms, drug brands, scales, services, times of day, durations such as "15 años
de evolución" — that a tagger must leave untagged.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import timedelta

from deid_crf.augment import tables as T
from deid_crf.augment import values as V
from deid_crf.augment.builder import NoteBuilder, Part, Phrase, Span, plain, recase
from deid_crf.augment.case import Case, Clinician
from deid_crf.augment.values import chance, weighted
from deid_crf.gazetteers.spanish import normalize

_CHOICE = re.compile(r"\{([^{}]*)\}")
_DOUBLE_SPACE = re.compile(r"(?<=\S)  +(?=\S)")


def say(rng: random.Random, template: str) -> str:
    """``template`` with each ``{a|b|c}`` replaced by one of its alternatives
    (an empty alternative drops the group, and the double space it leaves)."""
    return _DOUBLE_SPACE.sub(" ", _CHOICE.sub(lambda m: rng.choice(m.group(1).split("|")), template))


# ----------------------------------------------------------------------------- labels


@dataclass(frozen=True)
class Style:
    """How one note writes its field labels: ``Paciente: ``, ``PACIENTE: ``,
    ``PACIENTE.........: ``, ``Paciente - ``."""

    case: str  # title, upper, lower
    dotted: bool
    separator: str

    def label(self, text: str) -> str:
        if self.case == "upper":
            text = text.upper()
        elif self.case == "lower":
            text = text.lower()
        if self.dotted:
            return f"{text} " + "." * (2 + len(text) % 4) + ": "  # short leaders: 2-5 dots
        return text + self.separator


def draw_style(rng: random.Random, upper: float = 0.25, dotted: float = 0.12) -> Style:
    case = "upper" if chance(rng, upper) else weighted(rng, [("title", 12), ("lower", 1)])
    separator = weighted(rng, [(": ", 12), (":", 2), (":\t", 1), (" - ", 1), (".- ", 1)])
    return Style(case, chance(rng, dotted), separator)


def heading(b: NoteBuilder, rng: random.Random, text: str, style: Style) -> None:
    """A section heading on its own line: ``ANTECEDENTES:``, ``Antecedentes``, ``- Antecedentes -``."""
    form = weighted(rng, [("upper_colon", 4), ("title_colon", 4), ("plain", 2), ("dashed", 1)])
    if style.case == "upper" or form == "upper_colon":
        b.line(text.upper() + (":" if chance(rng, 0.7) else ""))
    elif form == "title_colon":
        b.line(text + ":")
    elif form == "dashed":
        b.line(f"- {text} -")
    else:
        b.line(text)


def field(b: NoteBuilder, style: Style, label: str, *value: Part) -> None:
    b.line(style.label(label), *value)


# ----------------------------------------------------------------------------- headers


def facility_header(b: NoteBuilder, c: Case, style: Style, centre: bool = False) -> None:
    """Letterhead: the hospital (or health centre), its service, address, phones, web."""
    rng = c.rng
    upper = style.case == "upper" or chance(rng, 0.3)
    if chance(rng, 0.4):  # the health service or government above the hospital's name
        body = Span(V.health_service_text(rng, c.hospital_place), "INSTITUCION")
        b.line(recase((body,), "upper") if upper else body)
    org: Phrase = (c.centre_span() if centre else c.hospital_span(),)
    if chance(rng, 0.25):  # "HOSPITAL … — SEVILLA": the town after a separator is its own span
        town = Span(c.hospital_place.town, "TERRITORIO")
        org = (*org, weighted(rng, [(" — ", 3), (" - ", 2), (" · ", 1), (" (", 1), (", ", 2)]), town)
        if org[-2] == " (":
            org = (*org, ")")
    b.line(*(recase(org, "upper") if upper else org))
    if not centre and chance(rng, 0.6):
        b.line(say(rng, "{Servicio de |Servei de |Unidad de |}") + c.service)
    if chance(rng, 0.55):
        b.line(V.address_phrase(rng, c.lexicon, c.hospital_place, one_line=True))
    if chance(rng, 0.45):
        phone = Span(V.phone_text(rng, False, c.hospital_place.code), "NUMERO_TELEFONO")
        parts: list[Part] = [weighted(rng, [("Tel.: ", 3), ("Tfno. ", 2), ("Teléfono: ", 2), ("Tlf: ", 1)]), phone]
        if chance(rng, 0.5):
            fax = Span(V.phone_text(rng, False, c.hospital_place.code), "NUMERO_FAX")
            parts += [weighted(rng, [(" - Fax: ", 3), (". Fax ", 2), ("  FAX: ", 1), (" / Fax ", 1)]), fax]
        b.line(*parts)
    if chance(rng, 0.2):
        url = V.url_text(rng, c.hospital)
        b.line(Span(url, V.url_type(url)))
    b.blank()


def patient_block(b: NoteBuilder, c: Case, style: Style, extended: bool = False) -> None:
    """The patient's identification, in one of several layouts."""
    rng = c.rng
    layout = weighted(rng, [("fields", 5), ("split_name", 3), ("one_line", 2), ("table", 1), ("surname_first", 2)])
    if layout == "one_line":
        _patient_one_line(b, c, style)
    elif layout == "table":
        _patient_table(b, c)
    else:
        if layout == "split_name":
            given, surnames = c.patient.given, " ".join(c.patient.surnames)
            mode = c.name_case if c.name_case != "lower" else "as_is"
            field(
                b,
                style,
                rng.choice(["Nombre", "Nombre"]),
                recase((Span(given, "NOMBRE_SUJETO_ASISTENCIA"),), mode)
                if mode != "as_is"
                else Span(given, "NOMBRE_SUJETO_ASISTENCIA"),
            )
            surname_span = Span(surnames, "NOMBRE_SUJETO_ASISTENCIA")
            field(
                b,
                style,
                rng.choice(["Apellidos", "1er y 2º apellido"]),
                recase((surname_span,), mode) if mode != "as_is" else surname_span,
            )
        elif layout == "surname_first":
            field(
                b,
                style,
                rng.choice(["Paciente", "Nombre", "Apellidos, nombre"]),
                c.patient_name("surname_comma_given", "upper" if chance(rng, 0.6) else None),
            )
        else:
            label = weighted(
                rng, [("Paciente", 5), ("Nombre y apellidos", 3), ("Nombre", 2), ("Usuario", 1), ("Nombre completo", 1)]
            )
            field(b, style, label, c.patient_name(weighted(rng, [("full", 6), ("given_first_surname", 1)])))
        _patient_fields(b, c, style, extended)
    b.blank()


def _patient_fields(b: NoteBuilder, c: Case, style: Style, extended: bool) -> None:
    rng = c.rng
    items = ["nhc", "birth", "age", "sex"]
    if chance(rng, 0.4) or extended:
        items.append("cip")
    if chance(rng, 0.3) or extended:
        items.append("dni")
    if extended or chance(rng, 0.15):
        items += ["nass", "address", "phone"]
    if chance(rng, 0.35):
        items.append("episode")
    rng.shuffle(items[1:3])
    for item in items:
        if item == "nhc":
            label = weighted(rng, [("NHC", 5), ("Nº Historia", 2), ("Historia clínica", 2), ("HC", 1), ("N.H.C.", 1)])
            prefix = weighted(rng, [("", 8), ("HC-", 1), ("NHC ", 1)])
            field(b, style, label, prefix, c.id_span("nhc"))
        elif item == "birth":
            field(
                b,
                style,
                rng.choice(["Fecha de nacimiento", "F. nacimiento", "F.Nac.", "Fecha nac."]),
                c.numeric_date(c.birth),
            )
        elif item == "age":
            years = V.age_between(c.birth, c.note_date)[0]
            value = c.age() if chance(rng, 0.6) or years < 2 else Span(str(years), "EDAD_SUJETO_ASISTENCIA")
            field(b, style, "Edad", value)
        elif item == "sex":
            field(b, style, "Sexo", c.sex(field=True))
        elif item == "cip":
            field(
                b,
                style,
                rng.choice(["CIP", "CIPA", "TSI", "Nº tarjeta sanitaria", "Código SNS", "NUHSA"]),
                c.id_span("cip"),
            )
        elif item == "dni":
            kind = "passport" if c.foreign and chance(rng, 0.25) else "dni"
            label = "Pasaporte" if kind == "passport" else rng.choice(["DNI", "DNI/NIE", "NIF", "D.N.I."])
            field(b, style, label, c.id_span(kind))
        elif item == "nass":
            field(
                b, style, rng.choice(["NASS", "Nº Seguridad Social", "Nº afiliación SS", "N.A.S.S."]), c.id_span("nass")
            )
        elif item == "address":
            field(b, style, rng.choice(["Domicilio", "Dirección", "Dirección postal"]), c.address())
        elif item == "phone":
            field(b, style, rng.choice(["Teléfono", "Tfno.", "Tel. contacto", "Móvil"]), c.phone())
        elif item == "episode":
            field(b, style, rng.choice(["Episodio", "Nº episodio", "Nº de ingreso", "Proceso"]), c.id_span("episode"))


def _patient_one_line(b: NoteBuilder, c: Case, style: Style) -> None:
    rng = c.rng
    gap = rng.choice(["   ", "  ", " | ", "\t", ". "])
    name = c.patient_name(
        weighted(rng, [("surname_comma_given", 3), ("full", 2)]), "upper" if chance(rng, 0.5) else None
    )
    b.line(
        style.label("Paciente"), name, gap,
        style.label("NHC"), c.id_span("nhc"), gap,
        style.label(rng.choice(["F.Nac", "FN", "Nac."])), c.numeric_date(c.birth), gap,
        style.label("Edad"), c.age(), gap,
        style.label("Sexo"), c.sex(field=True),
    )  # fmt: skip


def _patient_table(b: NoteBuilder, c: Case) -> None:
    rng = c.rng
    b.line("| Paciente | NHC | F. nacimiento | Sexo |")
    b.line("|:--|:--|:--|:--|")
    b.line(
        "| ",
        c.patient_name("full"),
        " | ",
        c.id_span("nhc"),
        " | ",
        c.numeric_date(c.birth),
        " | ",
        c.sex(field=True),
        " |",
    )
    if chance(rng, 0.5):
        b.line("| Domicilio | ", c.address(), " | Tel. | ", c.phone(), " |")


# ----------------------------------------------------------------------------- history


def intro_sentence(c: Case) -> Phrase:
    """``Mujer de 67 años, natural de Lugo, que …``: sex, age and more in running text."""
    rng = c.rng
    opening = weighted(
        rng,
        [("sex_age", 5), ("paciente_sex_age", 3), ("se_trata", 2), ("titled", 2), ("name_age", 2)],
    )
    if opening == "sex_age":
        sex, *rest = c.sex_and_age()
        head: Phrase = (Span(sex.text[0].upper() + sex.text[1:], sex.type), *rest)
    elif opening == "paciente_sex_age":
        head = ("Paciente ", c.sex(), " de ", c.age())
    elif opening == "se_trata":
        head = (say(rng, "Se trata de {un|una} "), "paciente" if chance(rng, 0.5) else c.sex(), " de ", c.age())
    elif opening == "titled":
        head = (c.titled_patient(), ", de ", c.age())
    else:
        head = (c.patient_name(rng.choice(["given", "full"])), ", ", c.sex(), " de ", c.age())
    tail: list[Part] = []
    if chance(rng, 0.3):
        tail += [", ", _population_group(c)] if opening != "titled" else []
    if chance(rng, 0.35):
        tail += [c.agree(", nacido en ", ", nacida en "), c.birthplace_phrase()]
    if c.works and chance(rng, 0.3):
        tail += [", ", Span(c.profession, "PROFESION")]
        if chance(rng, 0.3):
            tail += [" ", rng.choice(T.PROFESSION_MODIFIERS)]
    return (*head, *tail)


def _population_group(c: Case) -> Span:
    group = c.rng.choice(T.POPULATION_GROUPS)
    if group.endswith("o") and c.female:
        group = group[:-1] + "a"
    return Span(group, "ID_SUJETO_ASISTENCIA")


def background(b: NoteBuilder, c: Case, style: Style) -> None:
    """Personal history: allergies, conditions (with durations, eponyms), drugs."""
    rng = c.rng
    heading(b, rng, rng.choice(["Antecedentes personales", "Antecedentes", "AP", "Antecedentes médicos"]), style)
    b.line(
        say(rng, "{Alergias|Alergia a medicamentos|RAM}: ")
        + weighted(rng, [("no conocidas", 3), ("NAMC", 2), ("penicilina", 1), ("AINEs", 1), ("niega", 1)])
    )
    items = rng.sample(T.BACKGROUND, rng.randint(2, 5))
    if chance(rng, 0.5):
        items[0] += f" de {rng.randint(2, 30)} años de evolución"
    if chance(rng, 0.6):
        items.append(rng.choice(T.EPONYMS))
    bullet = rng.choice(["- ", "* ", "• ", ""])
    if bullet:
        for item in items:
            b.line(bullet + item[0].upper() + item[1:])
    else:
        b.line(", ".join(items).capitalize() + ".")
    if chance(rng, 0.4):
        year = str(c.days_before(400, 6000).year)
        when: Phrase = (
            (" en ", Span(year, "FECHAS")) if chance(rng, 0.6) else (" en el ", Span(f"año {year}", "FECHAS"))
        )
        surgery = rng.choice(["apendicitis", "hernia inguinal", "colecistectomía", "cataratas", "prótesis de rodilla"])
        b.line(say(rng, "{Intervenido|Operado|IQ} de "), surgery, when, ".")
    if chance(rng, 0.5):
        b.line(
            say(rng, "{Tratamiento habitual|Medicación habitual|Tto. domiciliario}: ")
            + "; ".join(rng.sample(T.DRUGS, rng.randint(2, 4)))
            + "."
        )
    b.blank()


def social_history(b: NoteBuilder, c: Case, style: Style) -> None:
    """Where the patient comes from, lives and works, with whom: towns, countries,
    professions, employers and relatives as separate entities in running text."""
    rng = c.rng
    if chance(rng, 0.5):
        heading(
            b,
            rng,
            rng.choice(["Situación social", "Antecedentes sociales", "Hábitos y situación social", "Historia social"]),
            style,
        )
    sentences: list[Phrase] = []
    since = max(c.days_before(365, 9000), c.birth + timedelta(days=400))
    if c.birthplace[1] is not None or chance(rng, 0.5):
        born = say(
            rng, "{Natural de|" + c.agree("Nacido en|Originario de", "Nacida en|Originaria de") + "|Procedente de} "
        )
        lives = say(rng, "{, reside en|. Vive en|, vive en|; residente en} ")
        if chance(rng, 0.6):
            since_phrase: Phrase = (
                say(rng, " {desde|desde hace años, concretamente desde} "),
                Span(str(since.year), "FECHAS"),
            )
        elif chance(rng, 0.5):
            since_phrase = (" desde el ", Span(f"año {since.year}", "FECHAS"))
        else:
            since_phrase = (" desde ", Span(V.date_text(rng, since, "month_year"), "FECHAS"))
        sentences.append((born, c.birthplace_phrase(), lives, c.town(), *since_phrase))
    if chance(rng, 0.2):
        sentences.append(V.neighbourhood_phrase(rng, c.home))
    if c.works and chance(rng, 0.7):
        work = [say(rng, "{Trabaja como|De profesión|Profesión:|Ocupación:|Es} "), Span(c.profession, "PROFESION")]
        if chance(rng, 0.3):
            work += [
                say(rng, " en {la empresa|} "),
                Span(V.employer_text(rng, c.lexicon, c.home), "OTROS_SUJETO_ASISTENCIA"),
            ]
        elif chance(rng, 0.2):
            # The modifier stays outside the span (guideline N7.1).
            status = rng.choice([c.agree("jubilado", "jubilada"), "en paro", c.agree("retirado", "retirada")])
            opening = f"Actualmente {status}" if chance(rng, 0.4) else status.capitalize()
            work = [opening, say(rng, "{, antes|; trabajó como|, previamente}"), " ", Span(c.profession, "PROFESION")]
        sentences.append(tuple(work))
    if c.relatives and chance(rng, 0.8):
        relative = rng.choice(c.relatives)
        verb = say(rng, "{Vive con|Convive con|Vive en domicilio propio con|Reside con} su ")
        sentences.append((verb, c.relative_mention(relative)))
        if chance(rng, 0.4):
            sentences.append(
                (
                    "Su ",
                    Span(relative.kinship, "FAMILIARES_SUJETO_ASISTENCIA"),
                    " trabaja como ",
                    Span(relative.profession, "PROFESION"),
                )
            )
    if chance(rng, 0.3):
        group = rng.choice([g for g in T.RELATIVE_GROUPS if c.years < 50 or g not in ("padres", "progenitores")])
        sentences.append(
            (
                say(rng, "{Tiene|Refiere tener|Con} "),
                Span(group, "FAMILIARES_SUJETO_ASISTENCIA"),
                say(rng, "{| sanos| que viven fuera| con los que mantiene buena relación}"),
            )
        )
    if chance(rng, 0.25):
        sentences.append(
            (
                say(rng, "{Hábitos tóxicos|Tóxicos}: ")
                + rng.choice(
                    ["niega", "fumador activo", "exfumador desde hace 10 años", "consumo ocasional de alcohol"]
                ),
            )
        )
    if not sentences:
        sentences.append(("Vive en ", c.town(), "."))
    for sentence in sentences:
        stop = "" if plain(sentence).endswith(".") else "."  # an employer such as "… S.L."
        b.add(sentence, stop + (" " if chance(rng, 0.75) else "\n"))
    b.blank()


FAMILY_CONDITIONS = (
    "cáncer de colon",
    "IAM",
    "ictus",
    "cáncer de mama",
    "diabetes",
    "enfermedad de Alzheimer",
    "enfermedad de Parkinson",
    "enfermedad de Crohn",
    "linfoma de Hodgkin",
)


def family_history(b: NoteBuilder, c: Case, style: Style) -> None:
    rng = c.rng
    heading(b, rng, rng.choice(["Antecedentes familiares", "AF", "Historia familiar"]), style)
    relatives_text = [
        ("madre", "exitus a los"),
        ("padre", "fallecido a la edad de"),
        ("hermano", "diagnosticado a los"),
        ("tía materna", "diagnosticada a los"),
        ("abuelo paterno", "fallecido a los"),
    ]
    for kin, verb in rng.sample(relatives_text, rng.randint(1, 3)):
        condition = rng.choice(FAMILY_CONDITIONS)
        shown = kin.capitalize() if chance(rng, 0.7) else kin
        if chance(rng, 0.3):  # "a los N años" is the patient's own age far more often
            b.line(
                "- " if chance(rng, 0.5) else "",
                Span(shown, "FAMILIARES_SUJETO_ASISTENCIA"),
                f" {verb} ",
                Span(V.age_text(rng, rng.randint(40, 92)), "FAMILIARES_SUJETO_ASISTENCIA"),
                f" por {condition}.",
            )
        else:
            b.line("- " if chance(rng, 0.5) else "", Span(shown, "FAMILIARES_SUJETO_ASISTENCIA"), f" con {condition}.")
    if chance(rng, 0.3):
        b.line("Sin otros antecedentes familiares de interés.")
    b.blank()


def present_illness(b: NoteBuilder, c: Case, style: Style, onset_days: int = 5) -> None:
    rng = c.rng
    heading(b, rng, rng.choice(["Enfermedad actual", "Anamnesis", "Historia actual", "Motivo de consulta"]), style)
    onset = c.days_before(1, onset_days)
    complaint = rng.choice(T.COMPLAINTS)
    when = weighted(rng, [("date", 4), ("since_days", 3), ("pasado", 2)])
    b.add(intro_sentence(c), say(rng, "{, que| que} {consulta|acude|ingresa} por "), complaint)
    if when == "date":
        b.add(
            say(rng, " {desde el|iniciado el|desde el pasado} "),
            c.date(onset, weighted(rng, [("dd/mm/yyyy", 3), ("day_month", 3), ("weekday_long", 1), ("long", 1)])),
        )
    elif when == "pasado":
        b.add(" de ", str(rng.randint(2, 15)), " días de evolución")
    else:
        b.add(say(rng, " {de|desde hace} "), str(rng.randint(2, 72)), " horas")
    b.add(". ")
    if chance(rng, 0.6):
        b.add(say(rng, "{Refiere|Asocia|Además presenta|No refiere} "), rng.choice(T.COMPLAINTS), ". ")
    if chance(rng, 0.4) and c.relatives:
        relative = rng.choice(c.relatives)
        b.add(
            say(rng, "{Acude acompañado de|Viene con|Le acompaña} su ")
            if not c.female
            else say(rng, "{Acude acompañada de|Viene con|Le acompaña} su "),
            c.relative_mention(relative),
            ". ",
        )
    if chance(rng, 0.3):
        b.add(say(rng, "El paciente {niega|no refiere} {fiebre|traumatismo previo|otra sintomatología}. "))
    b.add("\n")
    b.blank()


def vital_signs(rng: random.Random) -> str:
    """Blood pressure, heart rate, temperature, saturation and sometimes the time."""
    temperature = rng.randint(355, 392)
    vitals = (
        f"TA {rng.randint(95, 185)}/{rng.randint(50, 105)} mmHg, FC {rng.randint(50, 130)} lpm, "
        f"T {temperature // 10},{temperature % 10} °C, SpO2 {rng.randint(86, 100)}%"
    )
    if chance(rng, 0.3):
        vitals += f" (a las {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} h)"
    return vitals


def examination(b: NoteBuilder, c: Case, style: Style) -> None:
    rng = c.rng
    heading(b, rng, rng.choice(["Exploración física", "Exploración", "EF", "Examen físico"]), style)
    b.line(vital_signs(rng))
    findings = rng.sample(T.EXAM_FINDINGS, rng.randint(2, 4))
    if chance(rng, 0.5):
        findings.append(rng.choice(T.SCALES))
    if chance(rng, 0.4):
        findings.append(rng.choice(T.SIGNS))
    b.line(". ".join(findings) + ".")
    b.blank()


def tests(b: NoteBuilder, c: Case, style: Style) -> None:
    rng = c.rng
    heading(b, rng, rng.choice(["Pruebas complementarias", "Exploraciones complementarias", "PPCC", "Pruebas"]), style)
    for item in rng.sample(T.TESTS, rng.randint(1, 3)):
        if chance(rng, 0.35):
            b.line("- ", item, " (", c.numeric_date(c.days_before(0, 10)), ").")
        else:
            b.line("- ", item, ".")
    b.blank()


def treatment(b: NoteBuilder, c: Case, style: Style, title: str | None = None) -> None:
    rng = c.rng
    heading(b, rng, title or rng.choice(["Tratamiento", "Tratamiento al alta", "Plan terapéutico", "Tto."]), style)
    for drug in rng.sample(T.DRUGS, rng.randint(2, 5)):
        b.line(rng.choice(["- ", "", "* "]) + drug[0].upper() + drug[1:])
    b.blank()


def follow_up(b: NoteBuilder, c: Case, style: Style) -> None:
    rng = c.rng
    heading(b, rng, rng.choice(["Recomendaciones", "Seguimiento", "Plan", "Recomendaciones al alta"]), style)
    appointment = c.note_date + timedelta(days=rng.randint(7, 90))
    options: list[Phrase] = [
        (
            say(rng, "{Control|Seguimiento|Revisión} {en 1-2 semanas|en 15 días|esta semana} en {el|su} "),
            c.centre_span(),
            say(rng, "{ por su médico de cabecera| con su MAP|}."),
        ),
        (
            say(rng, "{Cita en|Revisión en} consultas externas de ") + c.service + " el ",
            c.date(appointment, weighted(rng, [("dd/mm/yyyy", 3), ("long", 2), ("weekday_long", 1)])),
            f" a las {rng.randint(8, 14)}:{rng.choice(['00', '15', '30', '45'])} h.",
        ),
        (say(rng, "{Acudir a|Volver a} Urgencias si {empeoramiento|fiebre|dolor no controlado}."),),
        ("Dieta " + rng.choice(["hiposódica", "para diabético", "blanda", "libre"]) + ".",),
    ]
    for option in rng.sample(options, rng.randint(2, 4)):
        b.line(option)
    b.blank()


_FEMININE_ORGS = frozenset("clinica policlinica fundacion fundacio residencia unidad mutua clinic".split())


def article(name: str) -> str:
    """``el`` or ``la`` for an organisation's name (``la Clínica …``, ``el Hospital …``)."""
    return "la" if normalize(name.split()[0]) in _FEMININE_ORGS else "el"


def signature(b: NoteBuilder, c: Case, dated: bool = True) -> None:
    rng = c.rng
    clinician = rng.choice([s for s in c.staff if s.role == "médico"] or c.staff)
    if dated and chance(rng, 0.6):
        town = Span(c.hospital_place.town, "TERRITORIO")
        b.line(
            town,
            ", ",
            c.date(
                c.note_date,
                weighted(
                    rng,
                    [
                        ("long", 5),
                        ("dd/mm/yyyy", 3),
                        ("long_capital", 1),
                        ("catalan", 1) if c.hospital_place.region == "ca" else ("long_del", 1),
                    ],
                ),
            ),
        )
    b.blank()
    if chance(rng, 0.2):
        b.line(*correspondence_line(c, clinician))
        return
    b.line(c.staff_signature(clinician))
    if chance(rng, 0.15):
        b.line(Span(V.email_text(rng, clinician.name, work=True), "CORREO_ELECTRONICO"))


def correspondence_line(c: Case, clinician: Clinician) -> Phrase:
    """The contact footer of a published or shared report on one line, with little or no
    punctuation between its parts: name, service, hospital, address, e-mail."""
    rng = c.rng
    stop = weighted(rng, [(". ", 3), (" ", 2), (", ", 2)])
    parts: list[Part] = [
        say(rng, "{Correspondencia|Dirección para correspondencia|Contacto|Autor de contacto}: "),
        c.staff_name(clinician),
    ]
    if chance(rng, 0.6):
        parts += [stop, say(rng, "{Servicio de |Unidad de |Sección de }") + c.service]
    parts += [stop, c.hospital_span(), stop, *V.address_phrase(rng, c.lexicon, c.hospital_place, one_line=True)]
    if chance(rng, 0.5):
        email = Span(V.email_text(rng, clinician.name, work=True), "CORREO_ELECTRONICO")
        parts += [stop, say(rng, "{Correo-e|E-mail|Email|Correo}: "), email]
    return tuple(parts)
