"""Note formats that name PHI in running text, for the error classes a model trained on
:mod:`~deid_crf.augment.formats` still has on fresh notes in the same document types.

Each writes one :class:`~deid_crf.augment.case.Case`, its PHI from
:mod:`deid_crf.augment.running_text`:

* :func:`signed_entries`: a shift log or progress sheet whose entries open with a short
  date (``14/10``, ``lun 3``, ``mié 12-nov``) and end with the writer in brackets
  (``(Marta, enf.)``, ``(TCAE Rosa)``, ``(MJO)``), with relatives, jobs, hospitals and
  places mentioned in passing;
* :func:`lower_case_gp_note`: a telegraphic primary-care note typed all in lower case,
  names and the doctor's hyphenated surnames included, ages as ``82a``;
* :func:`family_assessment`: a social or family assessment in prose: relatives in
  apposition and in lists, a numbered contact list, the job and the employer, schools,
  staff named in sentences, towns without an address, an IBAN or a police report, under
  a health body's header in the region's language;
* :func:`co_official_note`: a short note in Catalan or Galician mixed with Spanish, with
  the language's kinship words, ages, dates, trades and administrative header.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from deid_crf.augment import regional as R
from deid_crf.augment import running_text as RT
from deid_crf.augment import sections as S
from deid_crf.augment import tables as T
from deid_crf.augment import values as V
from deid_crf.augment.builder import NoteBuilder, Part, Phrase, Span
from deid_crf.augment.case import STAFF, Case
from deid_crf.augment.sections import say
from deid_crf.augment.values import chance, weighted

Format = Callable[[Case, NoteBuilder], None]


def _header_language(c: Case) -> str | None:
    """The co-official language of the patient's region, if it has one here."""
    return c.home.region if c.home.region in RT.HEADER_BODIES else None


def _running_fact(c: Case) -> Phrase:
    rng = c.rng
    writers: list[tuple[Callable[[], Phrase], float]] = [
        (lambda: RT.relative_sentence(c), 4),
        (lambda: RT.staff_in_running_text(c, rng.choice(c.staff)), 3),
        (lambda: RT.short_hospital_sentence(c), 3),
        (lambda: RT.place_sentence(c), 3),
        (lambda: RT.children_list(c), 1),
    ]
    if c.works:
        writers.append((lambda: RT.work_sentence(c), 3))
    writer = rng.choices([w for w, _ in writers], [p for _, p in writers])[0]
    return writer()


def _patient_line(c: Case) -> Phrase:
    """``GIL MAS, ANA · 82a M · TIS CLGA 123456 78``: name, short age, sex and a card."""
    rng = c.rng
    label, number = RT.regional_card(c)
    name = c.patient_name(
        weighted(rng, [("surname_comma_given", 3), ("full", 3)]), "upper" if chance(rng, 0.5) else None
    )
    parts: list[Part] = [name, say(rng, "{ · | - |, }"), Span(RT.short_age(c), "EDAD_SUJETO_ASISTENCIA")]
    if chance(rng, 0.6):
        parts += [" ", c.sex(field=True)]
    parts += [say(rng, "{ · | - |. }"), f"{label} ", Span(number, "ID_SUJETO_ASISTENCIA")]
    return tuple(parts)


def signed_entries(c: Case, b: NoteBuilder) -> None:
    """A shift log or progress sheet: short-dated entries signed in brackets."""
    rng = c.rng
    language = _header_language(c)
    if language and chance(rng, 0.5):
        for line in RT.administrative_header(c, language):
            b.line(line)
    elif chance(rng, 0.5):
        b.line(c.hospital_span(), say(rng, "{ - | · }"), c.service)
    b.line(
        say(rng, "{REGISTRO DE ENFERMERÍA|Evolutivo de enfermería|HOJA DE EVOLUCIÓN|Notas de evolución|Seguimiento}")
    )
    b.line(_patient_line(c))
    if chance(rng, 0.6):
        prefix, record = RT.prefixed_record(rng)
        b.line("NHC ", prefix, Span(record, "ID_SUJETO_ASISTENCIA"))
    b.blank()
    day = c.days_before(4, 20)
    writers = [*c.staff]
    for _ in range(rng.randint(4, 7)):
        entry: list[Part] = [Span(RT.short_entry_date(rng, day), "FECHAS")]
        if chance(rng, 0.4):
            entry.append(f" {rng.randint(7, 23):02d}:{rng.choice(['00', '15', '30', '45'])}")
        entry.append(say(rng, "{: |. | - | }"))
        entry += [say(rng, "{Estable|Afebril|Tranquila|Inquieto|Sin incidencias|Buen descanso}. ")]
        if chance(rng, 0.5):
            entry += [rng.choice(T.NURSING_CARES), ". "]
        if chance(rng, 0.6):
            entry += [_running_fact(c), " "]
        if chance(rng, 0.3):
            entry += [say(rng, "{Se administra|Pauta de|Rescate con} "), rng.choice(T.DRUGS).split()[0], ". "]
        if isinstance(entry[-1], str):  # the signature's bracket follows one space
            entry[-1] = entry[-1].rstrip()
        entry += list(RT.bracket_signature(c, rng.choice(writers)))
        b.line(*entry)
        day += timedelta(days=rng.randint(1, 2))


def lower_case_gp_note(c: Case, b: NoteBuilder) -> None:
    """A telegraphic primary-care note typed in lower case, names included."""
    rng = c.rng
    b.line(
        c.centre_span(),
        say(rng, "{ - | · |, }"),
        c.date(c.note_date, weighted(rng, [("dd/mm/yy", 2), ("abbr_month", 2), ("dd/mm/yyyy", 1)])),
    )
    label, number = RT.regional_card(c)
    b.line(
        say(rng, "{pac.|paciente|pcte.|pac} "),
        c.patient_name(weighted(rng, [("full", 4), ("given_first_surname", 2)])),
        say(rng, "{, | - | }"),
        f"{label.lower()} ",
        Span(number, "ID_SUJETO_ASISTENCIA"),
        say(rng, "{, | }"),
        Span(RT.short_age(c), "EDAD_SUJETO_ASISTENCIA"),
    )
    b.line(say(rng, "{mc|motivo}: "), rng.choice(T.COMPLAINTS), ". ", _running_fact(c))
    if c.works and chance(rng, 0.7):
        b.line(RT.work_sentence(c))
    b.line(RT.relative_sentence(c), " ", _running_fact(c))
    if chance(rng, 0.4):
        b.line(RT.place_sentence(c))
    b.line("ef: ", S.vital_signs(rng), ". ", rng.choice(T.EXAM_FINDINGS), ".")
    b.line(
        say(rng, "{plan|pl|jc}: "),
        rng.choice(T.DRUGS),
        say(rng, "{. control en 15 días|. revisión|. si empeora, urgencias}."),
    )
    if chance(rng, 0.5):
        b.line(RT.short_hospital_sentence(c))
    doctor = c.doctor()
    name = doctor.name
    surnames = list(name.surnames)
    if len(surnames) > 1 and chance(rng, 0.4):
        surnames[-1] = f"{surnames[-1]}-{c.lexicon.surname(rng)}"
    shown = weighted(rng, [(f"{name.given} {' '.join(surnames)}", 3), (f"{name.given.split()[0]} {surnames[0]}", 2)])
    b.line(rng.choice(["dr. ", "dra. ", "", "fdo. "]), Span(shown, STAFF), say(rng, "{| (mf)| - map}"))
    b.recase_all("lower")


def family_assessment(c: Case, b: NoteBuilder) -> None:
    """A social or family assessment written as prose around a contact list."""
    rng = c.rng
    style = S.draw_style(rng, upper=0.2)
    language = _header_language(c)
    if language:
        for line in RT.administrative_header(c, language):
            b.line(line)
    b.line(c.hospital_span() if chance(rng, 0.6) else c.centre_span())
    b.line(
        say(
            rng,
            "{VALORACIÓN SOCIOFAMILIAR|Valoración social|Informe de Trabajo Social|Situación familiar}",
        )
    )
    b.blank()
    S.field(b, style, "Paciente", c.patient_name())
    S.field(
        b,
        style,
        "Fecha de nacimiento",
        c.numeric_date(c.birth),
        " (",
        Span(str(c.years), "EDAD_SUJETO_ASISTENCIA"),
        ")",
    )
    for line in RT.id_lines(c)[: rng.randint(2, 4)]:
        b.line(line)
    b.blank()
    S.heading(b, rng, "Situación familiar", style)
    sentences: list[Phrase] = [RT.relative_sentence(c)]
    if chance(rng, 0.6):
        sentences.append(RT.children_list(c))
    if len(c.relatives) > 1:
        sentences.append(RT.relative_sentence(c))
    b.line(*[part for sentence in sentences for part in (sentence, " ")])
    S.heading(b, rng, rng.choice(["Personas de contacto", "Contactos", "Teléfonos de contacto"]), style)
    for line in RT.contact_list(c):
        b.line(line)
    b.blank()
    S.heading(b, rng, rng.choice(["Situación laboral y económica", "Ocupación", "Situación socioeconómica"]), style)
    work: list[Phrase] = []
    if c.works:
        work.append(RT.work_sentence(c))
    work.append(RT.school_sentence(c))
    if chance(rng, 0.6):
        work.append(RT.money_and_police(c))
    b.line(*[part for sentence in work for part in (sentence, " ")])
    S.heading(b, rng, rng.choice(["Vivienda y entorno", "Entorno"]), style)
    b.line(RT.place_sentence(c), " ", RT.place_sentence(c))
    b.blank()
    b.line(RT.staff_in_running_text(c, c.nurse()))
    if chance(rng, 0.5):
        b.line(RT.short_hospital_sentence(c))
    b.blank()
    social_worker = c.nurse()
    role = "trabajadora social" if social_worker.name.female else "trabajador social"
    b.line(c.staff_name(social_worker, titled=False), rng.choice(["", f", {role}", ", TS"]))


CO_OFFICIAL_TEXT = {
    "ca": ("Motiu de consulta: ", "Exploració: ", "Pla: ", "Data: ", "Edat: "),
    "gl": ("Motivo de consulta: ", "Exploración: ", "Plan: ", "Data: ", "Idade: "),
}


def co_official_note(c: Case, b: NoteBuilder) -> None:
    """A short note in Catalan or Galician with Spanish mixed in."""
    rng = c.rng
    language = c.home.region if c.home.region in CO_OFFICIAL_TEXT else rng.choice(["ca", "gl"])
    if c.home.region != language:  # the note is written where the language is spoken
        c.home = V.place(rng, c.lexicon, region=language)
    reason, exam, plan, date_label, age_label = CO_OFFICIAL_TEXT[language]
    for line in RT.administrative_header(c, language):
        b.line(line)
    b.line(Span(R.health_centre_text(rng, language, c.home, c.lexicon), "CENTRO_SALUD"))
    b.blank()
    b.line(date_label, Span(R.date_text(rng, language, c.note_date), "FECHAS"))
    b.line(c.patient_name(), " - ", age_label, Span(RT.short_age(c, language), "EDAD_SUJETO_ASISTENCIA"))
    b.blank()
    b.line(reason, rng.choice(T.COMPLAINTS), ".")
    b.line(RT.relative_sentence(c, language), " ", RT.relative_sentence(c, "es"))
    if c.works:
        b.line(RT.work_sentence(c, language))
    if chance(rng, 0.5):
        b.line(RT.place_sentence(c))
    b.line(exam, S.vital_signs(rng), ".")
    b.line(plan, rng.choice(T.DRUGS), ".")
    b.line(c.staff_name(c.doctor()), RT.bracket_signature(c, c.nurse()) if chance(rng, 0.3) else "")


ENTRY_FORMATS: dict[str, tuple[Format, float]] = {
    "registro_firmado": (signed_entries, 8),
    "primaria_minusculas": (lower_case_gp_note, 4),
    "valoracion_familiar": (family_assessment, 7),
    "nota_cooficial": (co_official_note, 4),
}
