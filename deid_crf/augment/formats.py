"""The note formats: one function per kind of document, each with variants of its own.

A format writes one :class:`~deid_crf.augment.case.Case` into a
:class:`~deid_crf.augment.builder.NoteBuilder`, choosing its sections, their order
and their wording from the case's random generator. :data:`FORMATS` names every
format with its drawing weight.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from deid_crf.augment import sections as S
from deid_crf.augment import tables as T
from deid_crf.augment import values as V
from deid_crf.augment.builder import NoteBuilder, Part, Span, recase
from deid_crf.augment.case import Case, Clinician
from deid_crf.augment.sections import field, heading, say
from deid_crf.augment.values import chance, weighted

Format = Callable[[Case, NoteBuilder], None]


def _title(b: NoteBuilder, c: Case, style: S.Style, *titles: str) -> None:
    text = c.rng.choice(titles)
    b.line(text.upper() if style.case == "upper" or chance(c.rng, 0.6) else text)
    b.blank()


# ----------------------------------------------------------------------------- hospital documents


def discharge_report(c: Case, b: NoteBuilder) -> None:
    """Informe de alta: letterhead, patient, dates, history, course, plan, signature."""
    rng, style = c.rng, S.draw_style(c.rng)
    S.facility_header(b, c, style)
    _title(
        b,
        c,
        style,
        "Informe de alta",
        "Informe de alta hospitalaria",
        "Informe clínico de alta",
        "Alta de hospitalización",
    )
    S.patient_block(b, c, style)
    admitted = c.days_before(2, 25)
    field(b, style, rng.choice(["Fecha de ingreso", "F. de ingreso", "Ingreso"]), c.numeric_date(admitted))
    field(b, style, rng.choice(["Fecha de alta", "F. alta", "Alta"]), c.numeric_date(c.note_date))
    if chance(rng, 0.5):
        field(b, style, "Servicio", c.service)
    b.blank()
    middle = [S.background, S.social_history, S.family_history]
    rng.shuffle(middle)
    for section in middle[: rng.randint(1, 3)]:
        section(b, c, style)
    S.present_illness(b, c, style)
    if chance(rng, 0.7):
        S.examination(b, c, style)
    if chance(rng, 0.7):
        S.tests(b, c, style)
    heading(b, rng, rng.choice(["Evolución", "Evolución clínica", "Curso clínico"]), style)
    day = admitted + timedelta(days=rng.randint(1, 3))
    b.line(
        say(rng, "{Ingresa en planta|Durante el ingreso|Tras su ingreso} {con|se inicia} "),
        rng.choice(T.DRUGS).split()[0],
        say(rng, " {con buena evolución|con mejoría progresiva|con evolución tórpida inicial}. "),
        say(rng, "{El día|El|Con fecha} "),
        c.date(day, weighted(rng, [("dd/mm/yyyy", 3), ("day_month", 3), ("d/m/yyyy", 1)])),
        say(rng, " {se realiza ecocardiograma|presenta un pico febril aislado|se solicita interconsulta a Cirugía}."),
    )  # fmt: skip
    if chance(rng, 0.4):
        b.line(
            say(rng, "Se {comenta con|informa a} la "),
            Span("familia", "FAMILIARES_SUJETO_ASISTENCIA"),
            say(rng, " {la situación clínica|el pronóstico|el plan al alta}."),
        )
    b.blank()
    heading(
        b, rng, rng.choice(["Diagnóstico principal", "Diagnósticos", "Juicio clínico", "Diagnóstico al alta"]), style
    )
    b.line(rng.choice(T.DIAGNOSES).capitalize() + ".")
    b.blank()
    S.treatment(b, c, style)
    S.follow_up(b, c, style)
    S.signature(b, c)


def referral_letter(c: Case, b: NoteBuilder) -> None:
    """Carta de derivación or interconsulta: from primary care (or a service) to a colleague."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.1)
    from_centre = chance(rng, 0.6)
    S.facility_header(b, c, style, centre=from_centre)
    _title(b, c, style, "Hoja de derivación", "Interconsulta", "Solicitud de interconsulta", "Carta de derivación")
    if chance(rng, 0.6):
        field(
            b,
            style,
            rng.choice(["Servicio destino", "A la atención de", "Destino"]),
            "Servicio de ",
            rng.choice(T.SERVICES),
            " - ",
            c.hospital_span(),
        )
    field(b, style, "Fecha", c.date(c.note_date, weighted(rng, [("dd/mm/yyyy", 3), ("long", 2)])))
    field(b, style, "Prioridad", rng.choice(["normal", "preferente", "urgente"]))
    b.blank()
    b.line(rng.choice(["Estimado/a colega:", "Estimado compañero:", "Estimada colega:", "Apreciado/a compañero/a,"]))
    b.blank()
    b.add(
        say(rng, "{Le remito|Remito|Derivo|Os envío} "),
        c.titled_patient(preposition="a"),
        ", ",
        *(c.sex_and_age() if chance(rng, 0.5) else ("de ", c.age())),
    )
    if chance(rng, 0.4):
        b.add(say(rng, "{, con NHC |, nº de historia |, HC }"), c.id_span("nhc"))
    b.add(say(rng, ", {por|para valoración de|para estudio de} "), rng.choice(T.COMPLAINTS), ". ")
    b.add(
        say(rng, "{Como antecedentes destacan|Antecedentes de|Entre sus antecedentes:} "),
        ", ".join(rng.sample(T.BACKGROUND, 2)),
        ". ",
    )
    if chance(rng, 0.5):
        b.add(say(rng, "{En tratamiento con|Toma} "), rng.choice(T.DRUGS), ". ")
    if chance(rng, 0.5):
        b.add(
            say(rng, "{Se realizó|Aporta} "),
            rng.choice(T.TESTS).split(":")[0],
            " el ",
            c.numeric_date(c.days_before(5, 60)),
            ". ",
        )
    if chance(rng, 0.4):
        b.add("Teléfono de contacto: ", c.phone(), ". ")
    b.line()
    b.blank()
    for section in (S.background, S.examination, S.tests):
        if chance(rng, 0.4):
            section(b, c, style)
    b.line(
        say(
            rng,
            "{Agradeciendo de antemano su atención|Gracias por su valoración|Quedo a su disposición}, "
            "{un saludo|atentamente|reciba un cordial saludo}.",
        )
    )
    S.signature(b, c, dated=chance(rng, 0.5))


def emergency_note(c: Case, b: NoteBuilder) -> None:
    """Nota de urgencias / triaje: arrival time, triage level, who brought the patient."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.4, dotted=0.05)
    b.line(
        recase((c.hospital_span(),), "upper") if chance(rng, 0.5) else c.hospital_span(),
        say(rng, "{ - Urgencias| · Servicio de Urgencias| URGENCIAS|}"),
    )
    _title(b, c, style, "Informe de urgencias", "Triaje", "Hoja de urgencias", "Nota de ingreso en Urgencias")
    if chance(rng, 0.5):
        S.patient_block(b, c, style)
    else:
        field(b, style, "Paciente", c.patient_name())
        field(b, style, rng.choice(["Episodio", "Nº urgencia", "Nº episodio"]), c.id_span("episode"))
    field(
        b,
        style,
        rng.choice(["Fecha de llegada", "Llegada", "Fecha/hora"]),
        c.numeric_date(c.note_date),
        f" {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
    )
    field(b, style, "Triaje", "Manchester ", rng.choice(T.TRIAGE_LEVELS))
    arrival = weighted(rng, [("own", 3), ("ambulance", 2), ("relative", 3), ("police", 1), ("residence", 1)])
    if arrival == "ambulance":
        field(
            b,
            style,
            "Procedencia",
            say(rng, "{traído por|remitido por|trasladado en ambulancia del} "),
            Span(rng.choice(["SAMUR", "SUMMA 112", "SEM", "061", "Cruz Roja"]), "INSTITUCION")
            if chance(rng, 0.8)
            else c.centre_span(),
        )
    elif arrival == "relative" and c.relatives:
        field(b, style, "Acompañante", c.relative_contact(rng.choice(c.relatives)))
    elif arrival == "police":
        field(
            b,
            style,
            "Procedencia",
            "traído por ",
            Span(
                rng.choice(["Guardia Civil", "Policía Local", "Policía Nacional", "Mossos d'Esquadra", "Ertzaintza"]),
                "INSTITUCION",
            ),
        )
    elif arrival == "residence":
        field(
            b,
            style,
            "Procedencia",
            Span(
                V.institution_text(rng, c.lexicon, c.home)
                if chance(rng, 0.3)
                else f"Residencia {c.lexicon.surname(rng)}",
                "INSTITUCION",
            ),
        )
    else:
        field(b, style, "Procedencia", "domicilio (", c.town(), ")")
    b.blank()
    S.present_illness(b, c, style, onset_days=3)
    if chance(rng, 0.3):
        plate = Span(V.plate_text(rng), "IDENTIF_VEHICULOS_NRSERIE_PLACAS")
        b.line(
            say(
                rng,
                "{Accidente de tráfico|Colisión frontal|Atropello} {como conductor|como ocupante|} "
                "{del vehículo|de turismo} {matrícula|con matrícula|} ",
            ),
            plate,
            say(rng, "{. Atestado de la |, interviene la }"),
            Span(rng.choice(["Guardia Civil", "Policía Local", "Policía Nacional"]), "INSTITUCION"),
            ".",
        )
        b.blank()
    S.examination(b, c, style)
    if chance(rng, 0.6):
        S.tests(b, c, style)
    heading(b, rng, rng.choice(["Juicio clínico", "Diagnóstico", "JC", "Impresión diagnóstica"]), style)
    b.line(rng.choice(T.DIAGNOSES).capitalize())
    b.blank()
    heading(b, rng, rng.choice(["Destino", "Plan", "Actitud"]), style)
    b.line(
        weighted(rng, [("Alta a domicilio", 3), ("Ingreso en " + c.service, 2), ("Observación", 1)]),
        say(rng, "{|. Control por su MAP|. Se explica a paciente y acompañante}."),
    )
    b.blank()
    clinician = c.doctor()
    opening, closing = rng.choice([(" - Nº Col. ", ""), (", col. ", ""), (" (", ")"), ("  NºCol ", "")])
    number = Span(clinician.collegiate, "ID_TITULACION_PERSONAL_SANITARIO")
    b.line(
        rng.choice(["Médico: ", "Médico responsable: ", "Atendido por: ", "Facultativo: "]),
        c.staff_name(clinician),
        opening,
        number,
        closing,
    )


def soap_progress(c: Case, b: NoteBuilder) -> None:
    """Evolutivo SOAP: dated entries, each with S/O/A/P and the writer's name."""
    rng = c.rng
    if chance(rng, 0.6):
        b.line(
            say(rng, "{Evolutivo|Curso clínico|Notas de evolución|EVOLUCIÓN} - "),
            c.patient_name(),
            " - ",
            rng.choice(["NHC ", "HC: ", "nº hist. "]),
            c.id_span("nhc"),
        )
        b.blank()
    day = c.days_before(1, 10)
    for _ in range(rng.randint(2, 4)):
        writer = rng.choice(c.staff)
        b.line(
            c.numeric_date(day),
            f" {rng.randint(7, 22):02d}:{rng.randint(0, 59):02d}",
            " - ",
            c.staff_name(writer, titled=chance(rng, 0.5)),
            rng.choice(["", " (R2)", " (adjunto)", f" ({writer.role})"]),
        )
        lower = chance(rng, 0.15)
        entry = [
            (
                "S: ",
                say(
                    rng,
                    "{Refiere|Paciente refiere|Comenta} "
                    "{haber descansado bien|que persiste el dolor|mejoría de la disnea|náuseas esta mañana}. ",
                ),
            ),
            ("O: ", S.vital_signs(rng), ". ", rng.choice(T.EXAM_FINDINGS), "."),
            ("A: ", rng.choice(T.DIAGNOSES), say(rng, " {en mejoría|estable|sin cambios}.")),
            (
                "P: ",
                say(rng, "{Mantener|Ajustar|Suspender} ")
                + rng.choice(T.DRUGS).split()[0]
                + say(rng, ". {Se habla con la |Informo a su |}"),
            ),
        ]
        for head, *rest in entry:
            line: tuple[Part, ...] = (head, *rest)
            if head == "P: " and b is not None and line[-1].endswith(("la ", "su ")) and c.relatives:
                line = (*line, c.relative_mention(rng.choice(c.relatives)), ".")
            elif head == "P: " and line[-1].endswith(" "):
                line = (*line[:-1], line[-1].rstrip())
            b.line(recase(line, "lower") if lower else line)
        b.blank()
        day += timedelta(days=rng.randint(1, 2))


def nursing_record(c: Case, b: NoteBuilder) -> None:
    """Registro de enfermería: shifts, vitals, cares, scales, the nurse's signature."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.3)
    _title(b, c, style, "Registro de enfermería", "Hoja de enfermería", "Valoración de enfermería", "Plan de cuidados")
    field(
        b,
        style,
        "Paciente",
        c.patient_name(),
        rng.choice(["  Cama ", " - Hab. ", "  Box "]),
        f"{rng.randint(100, 640)}{rng.choice(['', '-A', '-B'])}",
    )
    if chance(rng, 0.6):
        field(b, style, "NHC", c.id_span("nhc"))
    if chance(rng, 0.5):
        field(b, style, "Edad", c.age())
    field(b, style, "Fecha", c.numeric_date(c.note_date))
    b.blank()
    for shift in rng.sample(["Turno de mañana", "Turno de tarde", "Turno de noche"], rng.randint(1, 3)):
        nurse = c.nurse()
        b.line(shift.upper() if style.case == "upper" else shift, ":")
        b.line(S.vital_signs(rng), ".")
        for care in rng.sample(T.NURSING_CARES, rng.randint(1, 3)):
            b.line("- ", care, ".")
        if chance(rng, 0.3):
            b.line("- ", rng.choice(T.SCALES), ".")
        if chance(rng, 0.3) and c.relatives:
            b.line(
                "- ",
                say(rng, "{Acompañado por|Presente|Se informa a} su "),
                c.relative_mention(rng.choice(c.relatives)),
                ".",
            )
        signer = c.staff_name(
            nurse, style=weighted(rng, [("given_first_surname", 3), ("initial", 2), ("full", 2)]), titled=False
        )
        employee: tuple[Part, ...] = ()
        if chance(rng, 0.5):
            opening, closing = rng.choice(
                [(" (nº ", ")"), (" - Nº empleado ", ""), (" mec. ", ""), (" (nº mecanográfico ", ")")]
            )
            employee = (opening, Span(nurse.employee, "ID_EMPLEO_PERSONAL_SANITARIO"), closing)
        b.line(rng.choice(["Enf.: ", "Firma: ", "DUE ", "Enfermera/o: "]), signer, *employee)
        b.blank()


def radiology_report(c: Case, b: NoteBuilder) -> None:
    """Informe radiológico: request and accession numbers, technique, findings."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.35, dotted=0.2)
    S.facility_header(b, c, style)
    _title(b, c, style, "Informe radiológico", "Servicio de Radiodiagnóstico", "Informe de imagen")
    field(b, style, "Paciente", c.patient_name())
    field(b, style, rng.choice(["NHC", "Nº historia"]), c.id_span("nhc"))
    if chance(rng, 0.6):
        field(b, style, "Edad", c.age(), " - Sexo: ", c.sex(field=True))
    field(
        b,
        style,
        rng.choice(["Nº de petición", "Nº solicitud", "Petición"]),
        Span(V.petition_text(rng), "ID_CONTACTO_ASISTENCIAL"),
    )
    if chance(rng, 0.5):
        field(
            b,
            style,
            rng.choice(["Nº de estudio", "Accesión", "Nº acceso"]),
            Span(V.accession_text(rng), "ID_CONTACTO_ASISTENCIAL"),
        )
    field(b, style, rng.choice(["Fecha de exploración", "Fecha del estudio", "Realizado"]), c.numeric_date(c.note_date))
    field(b, style, rng.choice(["Solicitante", "Médico peticionario", "Remitido por"]), c.staff_name(c.staff[0]))
    b.blank()
    study = rng.choice(T.RADIOLOGY_STUDIES)
    field(b, style, "Exploración", study)
    if chance(rng, 0.5):
        b.line("Datos clínicos: ", rng.choice(T.COMPLAINTS), ".")
    if chance(rng, 0.25):
        opening, closing = rng.choice(
            [(", nº de serie ", ""), (" (nº serie ", ")"), (" con número de serie ", ""), (" (NS: ", ")")]
        )
        serial = Span(V.device_serial_text(rng), "IDENTIF_DISPOSITIVOS_NRSERIE")
        b.line(say(rng, "{Portador de|Paciente con} "), rng.choice(T.DEVICES), opening, serial, closing, ".")
    b.blank()
    heading(b, rng, rng.choice(["Hallazgos", "Informe", "Descripción"]), style)
    if chance(rng, 0.5):
        b.line(
            "Se compara con estudio previo de ",
            c.date(c.days_before(60, 900), weighted(rng, [("dd/mm/yyyy", 3), ("month_year", 2)])),
            ".",
        )
    for finding in rng.sample(T.RADIOLOGY_FINDINGS, rng.randint(2, 4)):
        b.line(finding, ".")
    b.blank()
    heading(b, rng, rng.choice(["Conclusión", "Impresión diagnóstica", "Conclusiones"]), style)
    b.line(rng.choice(T.RADIOLOGY_FINDINGS), ".")
    b.blank()
    radiologist = c.staff[-2] if len(c.staff) > 2 else c.doctor()
    b.line(
        rng.choice(["Radiólogo: ", "Informado por: ", "Fdo.: "]),
        c.staff_name(radiologist),
        say(rng, "{ - FEA Radiodiagnóstico|| (Radiología)}"),
    )
    if chance(rng, 0.3):
        b.line(
            "Informe firmado electrónicamente desde ",
            Span(V.ip_text(rng), V.IP_TYPE),
            " el ",
            c.numeric_date(c.note_date),
            f" {rng.randint(8, 21):02d}:{rng.randint(0, 59):02d}",
        )


def pathology_report(c: Case, b: NoteBuilder) -> None:
    """Informe de anatomía patológica: biopsy number, sample, microscopy, diagnosis."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.4)
    S.facility_header(b, c, style)
    _title(b, c, style, "Informe de Anatomía Patológica", "Anatomía Patológica", "Informe anatomopatológico")
    field(
        b,
        style,
        rng.choice(["Biopsia nº", "Nº biopsia", "Nº de muestra", "Referencia"]),
        Span(V.sample_text(rng), "NUMERO_IDENTIF"),
    )
    S.patient_block(b, c, style)
    received = c.days_before(3, 20)
    field(b, style, rng.choice(["Fecha de recepción", "Recibida", "F. recepción"]), c.numeric_date(received))
    field(b, style, rng.choice(["Fecha de informe", "F. informe"]), c.numeric_date(c.note_date))
    origin = c.centre_span() if chance(rng, 0.3) else c.hospital_span()
    field(b, style, rng.choice(["Procedencia", "Centro peticionario"]), origin)
    field(b, style, rng.choice(["Médico solicitante", "Solicitante"]), c.staff_name(c.staff[0]))
    b.blank()
    sample, diagnosis = rng.choice(T.PATHOLOGY_CASES)
    heading(b, rng, "Muestra", style)
    b.line(sample[0].upper() + sample[1:], ".")
    b.blank()
    heading(b, rng, rng.choice(["Descripción macroscópica", "Macroscopía"]), style)
    b.line(
        say(
            rng,
            "{Se reciben varios fragmentos|Se recibe una pieza|Se recibe material} {en formol |}de "
            "{0,5|1,2|3|4,5} cm{ de eje mayor|}{, que se incluye en su totalidad|, de coloración parda|}.",
        )
    )
    b.blank()
    heading(b, rng, "Diagnóstico", style)
    b.line(diagnosis, ".")
    b.blank()
    pathologist = c.doctor()
    b.line(
        rng.choice(["Patólogo: ", "Fdo.: ", "Dictaminado por: "]),
        c.staff_name(pathologist),
        ". ",
        rng.choice(["Nº Col. ", "Col.: "]),
        Span(pathologist.collegiate, "ID_TITULACION_PERSONAL_SANITARIO"),
    )


def lab_report(c: Case, b: NoteBuilder) -> None:
    """Informe de laboratorio: a results table whose many numbers are not PHI."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.5, dotted=0.3)
    b.line(
        rng.choice(
            [
                "LABORATORIO DE ANÁLISIS CLÍNICOS",
                "Laboratorio Central",
                "Bioquímica Clínica",
                "LABORATORIO DE URGENCIAS",
            ]
        ),
        " - ",
        c.hospital_span(),
    )
    b.blank()
    field(b, style, "Paciente", c.patient_name(weighted(rng, [("surname_comma_given", 2), ("full", 2)])))
    field(
        b,
        style,
        rng.choice(["Nº de petición", "Petición", "Nº solicitud"]),
        Span(V.petition_text(rng), "ID_CONTACTO_ASISTENCIAL"),
    )
    field(b, style, "NHC", c.id_span("nhc"))
    field(b, style, "F. nacimiento", c.numeric_date(c.birth), "   Sexo: ", c.sex(field=True))
    requester: tuple[Part, ...] = (c.centre_span(),) if chance(rng, 0.5) else ("Servicio de ", c.service)
    field(b, style, rng.choice(["Procedencia", "Origen", "Centro solicitante"]), *requester)
    field(b, style, "Solicitante", c.staff_name(c.doctor()))
    field(
        b,
        style,
        rng.choice(["Extracción", "Fecha de extracción", "Toma de muestra"]),
        c.numeric_date(c.note_date),
        f" {rng.randint(7, 11):02d}:{rng.randint(0, 59):02d}",
    )
    b.blank()
    table = chance(rng, 0.6)
    if table:
        b.line("Prueba | Resultado | Unidades | Valores de referencia")
    for name, unit, low, high, decimals in rng.sample(T.LAB_TESTS, rng.randint(5, 10)):
        value = round(rng.uniform(low, high), decimals)
        shown = f"{value:.{decimals}f}".replace(".", ",")
        flag = rng.choice(["", "", "", " *", " (H)", " (L)"])
        reference = f"{low:.{decimals}f} - {high:.{decimals}f}".replace(".", ",")
        if table:
            b.line(f"{name} | {shown}{flag} | {unit} | {reference}")
        else:
            b.line(f"{name} " + "." * (2 + len(name) % 4) + f" {shown} {unit}{flag}")
    b.blank()
    validator = c.doctor()
    b.line(
        rng.choice(["Validado por: ", "Facultativo responsable: ", "Validación: "]),
        c.staff_name(validator),
        " ",
        c.numeric_date(c.note_date),
    )


def prescription(c: Case, b: NoteBuilder) -> None:
    """Receta or hoja de tratamiento: drugs, doses, prescriber, prescription number."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.3, dotted=0.2)
    _title(b, c, style, "Hoja de tratamiento", "Receta médica", "Orden de tratamiento", "Prescripción")
    if chance(rng, 0.5):
        b.line(c.centre_span() if chance(rng, 0.5) else c.hospital_span())
    field(b, style, "Paciente", c.patient_name())
    field(b, style, rng.choice(["DNI/NIE", "DNI", "NIF"]), c.id_span("dni"))
    field(b, style, rng.choice(["CIP", "Tarjeta sanitaria", "TSI"]), c.id_span("cip"))
    if chance(rng, 0.4):
        field(
            b,
            style,
            rng.choice(["Mutualidad", "Entidad"]),
            Span(rng.choice(["MUFACE", "ISFAS", "MUGEJU", "Sanitas", "Adeslas"]), "INSTITUCION"),
            " - nº afiliado ",
            c.id_span("policy"),
        )
    if chance(rng, 0.5):
        field(b, style, "Fecha de nacimiento", c.numeric_date(c.birth), " (", c.age(), ")")
    b.blank()
    for drug in rng.sample(T.DRUGS, rng.randint(2, 6)):
        b.line(
            rng.choice(["- ", "", "[ ] "])
            + drug[0].upper()
            + drug[1:]
            + say(rng, "{| durante 10 días| de forma indefinida| hasta nueva revisión}")
        )
    b.blank()
    field(b, style, rng.choice(["Diagnóstico", "Indicación", "Motivo"]), rng.choice(T.DIAGNOSES))
    if chance(rng, 0.6):
        heading(b, rng, rng.choice(["Indicaciones", "Instrucciones al paciente", "Observaciones"]), style)
        for _ in range(rng.randint(1, 3)):
            b.line(
                say(rng, "- {Tomar|Administrar} {con|después de} las comidas{| y con abundante agua}. "),
                say(
                    rng,
                    "{No suspender sin consultar.|Control de INR en su centro de salud.|Evitar alcohol.|"
                    "Revisar glucemias antes de cada comida.}",
                ),
            )
    if chance(rng, 0.3):
        field(
            b,
            style,
            rng.choice(["Farmacia", "Dispensación"]),
            Span(f"Farmacia {c.lexicon.surname(rng)}", "INSTITUCION"),
            " - ",
            c.town(),
        )
    if chance(rng, 0.6):
        field(
            b,
            style,
            rng.choice(["Nº de receta", "Nº receta", "Código de receta"]),
            Span(V.member_number_text(rng) if chance(rng, 0.3) else V.digits(rng, 12, True), "NUMERO_IDENTIF"),
        )
    field(b, style, rng.choice(["Fecha de prescripción", "Fecha"]), c.numeric_date(c.note_date))
    prescriber = c.doctor()
    field(b, style, rng.choice(["Prescriptor", "Médico prescriptor", "Firma"]), c.staff_name(prescriber))
    field(
        b,
        style,
        rng.choice(["Nº colegiado", "Nº Col."]),
        Span(prescriber.collegiate, "ID_TITULACION_PERSONAL_SANITARIO"),
    )


def consent_form(c: Case, b: NoteBuilder) -> None:
    """Consentimiento informado: patient or legal representative, procedure, signatures."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.3)
    b.line(c.hospital_span())
    _title(
        b,
        c,
        style,
        "Documento de consentimiento informado",
        "Consentimiento informado",
        "Consentimiento para procedimiento",
    )
    procedure = rng.choice(T.CONSENT_PROCEDURES)
    id_label = rng.choice(["DNI", "DNI/NIE", "con DNI nº", "documento de identidad"])
    b.add(rng.choice(["Yo, ", "D./Dña. ", "Yo, D./Dña. "]), c.patient_name("full"), f", {id_label} ", c.id_span("dni"))
    if chance(rng, 0.5):
        b.add(say(rng, ", {con domicilio en|domiciliado/a en|residente en} "), c.address())
    doctor = c.doctor()
    by = say(rng, ", {declaro que he sido informado/a|manifiesto haber recibido información} por ")
    by += ("la Dra. " if doctor.name.female else "el Dr. ") if chance(rng, 0.8) else ""
    b.add(by, V.name_phrase(doctor.name, rng.choice(["full", "given_first_surname"]), "NOMBRE_PERSONAL_SANITARIO", rng))
    b.add(say(rng, " {sobre el procedimiento de|acerca de la realización de} "), procedure, ".\n")
    b.blank()
    b.line(
        say(
            rng,
            "{Se me han explicado|Comprendo} {los beneficios, riesgos y alternativas|los riesgos frecuentes y graves} "
            "{del procedimiento|de la intervención}{, así como la posibilidad de revocar este consentimiento|}.",
        )
    )
    b.blank()
    if chance(rng, 0.7):
        heading(b, rng, rng.choice(["Riesgos", "Riesgos frecuentes", "Complicaciones posibles"]), style)
        risks = [
            "hemorragia",
            "infección de la herida",
            "reacción alérgica",
            "trombosis venosa",
            "perforación",
            "dolor persistente",
            "necesidad de reintervención",
        ]
        b.line(
            ", ".join(rng.sample(risks, rng.randint(3, 5))).capitalize()
            + say(rng, "{. En casos excepcionales, riesgo vital.|.|; su frecuencia es inferior al 5%.}")
        )
        b.line(
            say(
                rng,
                "{Alternativas|Otras opciones}: "
                "{tratamiento conservador|seguimiento clínico|tratamiento farmacológico}.",
            )
        )
        b.blank()
    if chance(rng, 0.35):
        witness = V.person_name(rng, c.lexicon, c.home.region)
        witness_name = V.name_phrase(witness, "full", "NOMBRE_PERSONAL_SANITARIO", rng)
        b.line("Testigo: ", witness_name, say(rng, "{ (enfermería de la unidad)| (TCAE)| - enfermería}"))
    if c.child or c.years > 80 or chance(rng, 0.3):
        relative = rng.choice(c.relatives)
        title = V.title_for(rng, relative.name.female, staff=False)
        b.line(
            "Representante legal: ",
            f"{title} " if title else "",
            V.name_phrase(relative.name, "full", "FAMILIARES_SUJETO_ASISTENCIA", rng),
            ", en calidad de ",
            Span(relative.kinship, "FAMILIARES_SUJETO_ASISTENCIA"),
            ", DNI ",
            Span(V.dni_text(rng), "ID_SUJETO_ASISTENCIA"),
        )
        if chance(rng, 0.15):
            b.line(
                "Verificación de identidad por huella dactilar, código ",
                Span(V.biometric_text(rng), "IDENTIF_BIOMETRICOS"),
            )
    b.blank()
    b.line(
        c.town() if chance(rng, 0.5) else Span(c.hospital_place.town, "TERRITORIO"),
        rng.choice([", a ", ", ", " a "]),
        c.date(c.note_date, weighted(rng, [("long", 4), ("dd/mm/yyyy", 2), ("catalan", 1), ("galician", 1)])),
    )
    b.blank()
    b.line("Firma del paciente", "\t\t", "Firma del médico")
    b.line(c.staff_name(doctor), " - Col. ", Span(doctor.collegiate, "ID_TITULACION_PERSONAL_SANITARIO"))


# ----------------------------------------------------------------------------- primary care and social


def primary_care_note(c: Case, b: NoteBuilder) -> None:
    """Nota de atención primaria: brief consultation, often with sick leave and work."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.15)
    b.line(
        c.centre_span(), say(rng, "{ - Consulta de Medicina de Familia| · Consulta a demanda| (Atención Primaria)|}")
    )
    field(
        b,
        style,
        "Fecha",
        c.date(c.note_date, weighted(rng, [("dd/mm/yyyy", 4), ("dd/mm/yy", 1), ("iso", 1)])),
        f"  {rng.randint(8, 20):02d}:{rng.choice(['00', '10', '20', '30', '40', '50'])}",
    )
    field(b, style, "Paciente", c.patient_name(), " (", c.age(), ")")
    if chance(rng, 0.5):
        field(b, style, rng.choice(["CIP", "TSI", "Tarjeta"]), c.id_span("cip"))
    if chance(rng, 0.2):
        field(b, style, rng.choice(["Correo", "E-mail", "email"]), c.email())
    b.blank()
    b.line(say(rng, "{Motivo|MC|Motivo de consulta}: "), rng.choice(T.COMPLAINTS), ".")
    if chance(rng, 0.6):
        b.line(
            say(rng, "{AP|Antecedentes}: "),
            ", ".join(rng.sample(T.BACKGROUND, rng.randint(2, 4))),
            ". ",
            rng.choice(T.DRUGS),
            ".",
        )
    b.add(
        say(rng, "{Refiere|Cuenta|Comenta} "),
        rng.choice(T.COMPLAINTS),
        say(rng, " {desde hace|de} "),
        str(rng.randint(2, 20)),
        " días",
    )
    if chance(rng, 0.5):
        trip = (
            Span(V.country(rng, c.lexicon), "PAIS") if chance(rng, 0.6) else Span(V.foreign_place(rng)[0], "TERRITORIO")
        )
        b.add(say(rng, "{ tras un viaje a | al volver de }"), trip)
    b.add(". ")
    if c.works and chance(rng, 0.5):
        b.add(
            say(rng, "{Trabaja como|Es} "),
            Span(c.profession, "PROFESION"),
            say(rng, "{ en |, empresa }"),
            Span(V.employer_text(rng, c.lexicon, c.home), "OTROS_SUJETO_ASISTENCIA"),
            ". ",
        )
        if chance(rng, 0.5):
            b.add(
                "Se tramita IT por contingencia ",
                rng.choice(["común", "profesional"]),
                say(rng, "{; mutua: |, la gestiona }"),
                Span(rng.choice(["Fremap", "Asepeyo", "Ibermutua", "MC Mutual", "Mutua Universal"]), "INSTITUCION"),
                ". ",
            )
    b.line()
    b.line("EF: ", S.vital_signs(rng), ". ", rng.choice(T.EXAM_FINDINGS), ".")
    b.line(say(rng, "{JC|Orientación|Impresión}: "), rng.choice(T.DIAGNOSES), ".")
    b.line(
        say(rng, "{Plan|Tto.|Conducta}: "),
        rng.choice(T.DRUGS),
        say(rng, ". {Revisión en 1 semana|Si no mejora, volver|Control analítico en 3 meses}."),
    )
    if chance(rng, 0.3):
        of = "de la " if S.article(c.hospital) == "la" else "del "
        b.line("Derivo a ", c.service, " ", of, c.hospital_span(), ".")
    b.blank()
    b.line(c.staff_name(c.doctor()), say(rng, "{| (MF)| - MAP| - médico de familia}"))


def social_report(c: Case, b: NoteBuilder) -> None:
    """Informe social: family unit, housing, income, institutions, file numbers."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.25, dotted=0.1)
    b.line(
        c.hospital_span(),
        " - ",
        say(rng, "{Unidad de Trabajo Social|Trabajo Social Sanitario|Servicio de Atención al Usuario}"),
    )
    _title(b, c, style, "Informe social", "Valoración sociofamiliar", "Informe de trabajo social")
    field(b, style, rng.choice(["Usuario/a", "Paciente", "Nombre y apellidos"]), c.patient_name())
    field(b, style, rng.choice(["DNI/NIE", "Documento"]), c.id_span("dni"))
    field(b, style, "Fecha de nacimiento", c.numeric_date(c.birth))
    field(b, style, "Domicilio", c.address())
    field(b, style, "Teléfono", c.phone(), " / ", c.phone(mobile=False))
    if chance(rng, 0.3):
        field(b, style, "Correo electrónico", c.email())
    if chance(rng, 0.6):
        field(
            b,
            style,
            rng.choice(["Nº expediente", "Expediente SS.SS.", "Nº de expediente"]),
            Span(V.record_number_text(rng), "OTROS_SUJETO_ASISTENCIA"),
        )
    b.blank()
    heading(b, rng, rng.choice(["Composición familiar", "Unidad de convivencia", "Situación familiar"]), style)
    for relative in c.relatives:
        parts: list[Part] = ["- ", c.relative_contact(relative) if chance(rng, 0.4) else c.relative_mention(relative)]
        if chance(rng, 0.4):
            parts += [", ", Span(relative.profession, "PROFESION")]
        b.line(*parts)
    b.blank()
    heading(b, rng, rng.choice(["Situación socioeconómica", "Vivienda y economía"]), style)
    b.add(
        say(
            rng,
            "{Vive en|Reside en} "
            "{un piso de alquiler|vivienda en propiedad|una habitación alquilada|un tercer piso sin ascensor} en ",
        ),
        c.town(),
    )
    if chance(rng, 0.4):
        b.add(" (", Span(V.province_name(rng, c.home), "TERRITORIO"), ")")
    if chance(rng, 0.3):
        b.add(
            ". Ingresos: el salario de su ", Span(rng.choice(c.relatives).kinship, "FAMILIARES_SUJETO_ASISTENCIA"), ". "
        )
    else:
        b.add(
            say(
                rng,
                ". {Ingresos:|Percibe} "
                "{una pensión no contributiva|el ingreso mínimo vital|una pensión de jubilación de 780 €}. ",
            )
        )
    if c.foreign:
        arrival = max(c.days_before(700, 6000), c.birth)
        b.add(
            say(rng, "Llegó a España {en|hacia} "),
            Span(str(arrival.year), "FECHAS"),
            say(rng, " procedente de "),
            Span(c.birthplace[1] or "Marruecos", "PAIS"),
            ". ",
        )
    b.line()
    b.blank()
    heading(b, rng, rng.choice(["Coordinación", "Intervención", "Recursos"]), style)
    institution = Span(V.institution_text(rng, c.lexicon, c.home), "INSTITUCION")
    contact: tuple[Part, ...] = (" para valoración de recursos.",)
    if chance(rng, 0.5):
        contact = (
            (" (tel. ", c.phone(mobile=False), ").")
            if chance(rng, 0.5)
            else (", teléfono ", c.phone(mobile=False), ".")
        )
    b.line(say(rng, "{Se contacta con|Coordinación telefónica con|Se deriva a} "), institution, *contact)
    if chance(rng, 0.4):
        b.line(
            "Solicitada plaza en ",
            Span(f"Residencia {c.lexicon.surname(rng)}", "INSTITUCION"),
            " el ",
            c.numeric_date(c.days_before(2, 40)),
            ".",
        )
    if chance(rng, 0.3):
        b.line(
            say(rng, "{Cuenta de abono de la prestación|IBAN para la ayuda}: "),
            Span(V.iban_text(rng), "OTROS_SUJETO_ASISTENCIA"),
        )
    if chance(rng, 0.2):
        b.line(
            say(rng, "{Señas|Rasgos} de identificación aportados por la familia: "),
            Span(rng.choice(T.DISTINGUISHING_MARKS), "OTROS_SUJETO_ASISTENCIA"),
            ".",
        )
    b.blank()
    worker = c.nurse()
    worker_label = "Trabajadora social: " if worker.name.female else "Trabajador social: "
    opening, closing = rng.choice([(" - Col. ", ""), (", nº colegiada ", ""), (" (col. ", ")")])
    b.line(
        rng.choice([worker_label, "T.S.: ", "Fdo.: "]),
        c.staff_name(worker, titled=False),
        opening,
        Span(worker.collegiate, "ID_TITULACION_PERSONAL_SANITARIO"),
        closing,
    )


def medical_certificate(c: Case, b: NoteBuilder) -> None:
    """Certificado médico: the doctor certifies a fact about the patient, place and date."""
    rng, style = c.rng, S.draw_style(c.rng, upper=0.3)
    doctor = c.doctor()
    _title(
        b,
        c,
        style,
        "Certificado médico",
        "Certificado médico oficial",
        "Justificante médico",
        "Informe médico a petición del interesado",
    )
    b.add(
        "D./Dña. " if chance(rng, 0.3) else (doctor.name.female and "La Dra. " or "El Dr. "),
        V.name_phrase(doctor.name, "full", "NOMBRE_PERSONAL_SANITARIO", rng),
        say(rng, ", {médico|facultativo especialista|licenciado en Medicina} "
        "{colegiado|con nº de colegiado|colegiado con el número} "),
        Span(doctor.collegiate, "ID_TITULACION_PERSONAL_SANITARIO"),
        say(rng, " {del Colegio de Médicos de |por |en }"),
        Span(V.province_name(rng, c.hospital_place), "TERRITORIO"),
        ", en ejercicio en ",
        c.centre_span() if chance(rng, 0.5) else c.hospital_span(),
        ",\n",
    )  # fmt: skip
    b.line("CERTIFICA:" if chance(rng, 0.7) else "Certifica:")
    b.add(say(rng, "Que {D./Dña.|el/la paciente|} "), c.patient_name("full"), ", ")
    b.add(say(rng, "{con DNI|provisto/a de DNI|NIE} "), c.id_span("dni"), ", ")
    b.add(
        say(rng, "{nacido/a el|con fecha de nacimiento} "),
        c.date(c.birth, weighted(rng, [("long", 3), ("dd/mm/yyyy", 3)])),
        ", ",
    )
    b.add(say(rng, "{padece|presenta|ha sido atendido/a por} "), rng.choice(T.DIAGNOSES))
    if c.works and chance(rng, 0.5):
        b.add(", que le impide desarrollar su trabajo habitual como ", Span(c.profession, "PROFESION"))
    b.add(
        say(rng, "{ desde el | el día }"),
        c.date(c.days_before(1, 30), weighted(rng, [("long", 2), ("dd/mm/yyyy", 2)])),
        ".\n",
    )
    if chance(rng, 0.6):
        b.line(
            say(
                rng,
                "{Precisa|Se recomienda} {reposo domiciliario|reposo relativo|no realizar esfuerzos} "
                "durante {7|10|15|30} días{ y control por su médico de Atención Primaria| y revisión en consultas|}.",
            )
        )
    b.blank()
    b.line(
        say(
            rng,
            "Y para que conste "
            "{a petición del interesado|a los efectos oportunos|ante quien corresponda}"
            "{, se extiende el presente en|, expido el presente en|, en} ",
        ),
        Span(c.hospital_place.town, "TERRITORIO"),
        rng.choice([", a ", " a ", ", "]),
        c.date(c.note_date, weighted(rng, [("long", 5), ("long_del", 1), ("catalan", 1), ("galician", 1)])),
        ".",
    )
    b.blank()
    b.line("Fdo.: ", c.staff_name(doctor, titled=chance(rng, 0.5)))


def professional_email(c: Case, b: NoteBuilder) -> None:
    """Correo entre profesionales: headers with addresses, a patient discussed informally."""
    rng = c.rng
    sender = c.doctor()
    receiver = rng.choice([s for s in c.staff if s is not sender])
    sender_mail = Span(V.email_text(rng, sender.name, work=True), "CORREO_ELECTRONICO")
    receiver_mail = Span(V.email_text(rng, receiver.name, work=chance(rng, 0.7)), "CORREO_ELECTRONICO")
    b.line("De: ", V.name_phrase(sender.name, "full", "NOMBRE_PERSONAL_SANITARIO", rng), " <", sender_mail, ">")
    b.line("Para: ", receiver_mail)
    b.line(
        "Enviado: ",
        c.date(c.note_date, "weekday_long") if chance(rng, 0.4) else c.numeric_date(c.note_date),
        f" {rng.randint(7, 23)}:{rng.randint(0, 59):02d}",
    )
    subject_name = c.patient_name(weighted(rng, [("initial", 2), ("full", 2), ("surnames", 1)]))
    b.line(
        "Asunto: ",
        say(rng, "{Paciente|Consulta sobre|RE: caso de|Interconsulta} "),
        subject_name,
        *((" (NHC ", c.id_span("nhc"), ")") if chance(rng, 0.5) else ()),
    )
    b.blank()
    b.line(
        say(rng, "{Hola|Buenos días|Buenas tardes|Hola de nuevo}, "),
        V.name_phrase(receiver.name, "given", "NOMBRE_PERSONAL_SANITARIO", rng),
        ":",
    )
    b.blank()
    lower = chance(rng, 0.25)
    body: list[Part] = [
        c.titled_patient(preposition=say(rng, "{Te escribo por|Te comento el caso de|Quería comentarte lo de}")),
        ", ",
        c.sex(),
        " de ",
        c.age(),
        say(rng, " {que vimos|que valoramos|a quien atendimos} el "),
        c.date(c.days_before(1, 20), weighted(rng, [("day_month", 3), ("weekday_long", 2), ("dd/mm/yyyy", 1)])),
        say(rng, " {por|con} "),
        rng.choice(T.COMPLAINTS),
        ". ",
        say(rng, "{Su |La |}"),
    ]
    if body[-1] and c.relatives:
        body += [
            Span(rng.choice(c.relatives).kinship, "FAMILIARES_SUJETO_ASISTENCIA"),
            say(rng, " {nos ha llamado|está preocupada|pregunta} por los resultados. "),
        ]
    if chance(rng, 0.3):
        body += [
            "¿Te parece que lo derivemos a ",
            Span(V.hospital_text(rng, c.lexicon, c.hospital_place), "HOSPITAL"),
            "?",
        ]
    else:
        body += [say(rng, "{¿Podrías mirarlo|¿Lo podemos comentar en sesión|¿Tienes hueco para verlo}?")]
    b.line(recase(body, "lower") if lower else body)
    if chance(rng, 0.4):
        b.line("Te dejo su teléfono por si acaso: ", c.phone(), ".")
    if chance(rng, 0.25):
        url = V.url_text(rng, c.hospital) + "/resultados"
        b.line("Los resultados están en ", Span(url, V.url_type(url)))
    b.blank()
    b.line(rng.choice(["Un saludo,", "Gracias,", "Saludos", "Un abrazo,"]))
    b.line(V.name_phrase(sender.name, rng.choice(["given", "given_first_surname"]), "NOMBRE_PERSONAL_SANITARIO", rng))
    if chance(rng, 0.5):
        _quoted_reply(b, c, receiver)
    if chance(rng, 0.6):
        b.line(sender.specialty, " · ", c.hospital_span())
        pager: tuple[Part, ...] = (rng.choice([" · Busca ", " - busca "]), Span(V.pager_text(rng), "NUMERO_TELEFONO"))
        b.line("Ext. ", Span(V.pager_text(rng), "NUMERO_TELEFONO"), *(pager if chance(rng, 0.5) else ()))


def _quoted_reply(b: NoteBuilder, c: Case, writer: Clinician) -> None:
    """The earlier message of the thread, quoted with ``>``."""
    rng = c.rng
    b.blank()
    b.line(
        "El ", c.numeric_date(c.days_before(1, 5)), f" a las {rng.randint(8, 21)}:{rng.randint(0, 59):02d}, ",
        V.name_phrase(writer.name, "full", "NOMBRE_PERSONAL_SANITARIO", rng),
        " <", Span(V.email_text(rng, writer.name, work=True), "CORREO_ELECTRONICO"), "> escribió:",
    )  # fmt: skip
    b.line(
        "> ",
        say(rng, "{Hola|Buenas}, ¿{sabes algo|hay novedades} de {la paciente|el paciente} de la cama "),
        str(rng.randint(100, 640)),
        "?",
    )
    b.line(
        "> ",
        say(rng, "{Tiene pendiente|Le falta} {la ecografía|el TC|la analítica de control}"),
        " y ",
        say(rng, "{la familia|su hija|el hijo} {pregunta por el alta|quiere hablar con nosotros}."),
    )
    if chance(rng, 0.5):
        b.line(
            "> ",
            "Le di cita para el ",
            c.date(
                c.note_date + timedelta(days=rng.randint(3, 30)), weighted(rng, [("day_month", 2), ("dd/mm/yyyy", 1)])
            ),
            ".",
        )


# ----------------------------------------------------------------------------- generic layouts


def ward_list(c: Case, b: NoteBuilder) -> None:
    """A ward or clinic list: a ``|`` table of several patients, one per row."""
    rng = c.rng
    b.line(
        rng.choice(["Listado de pacientes", "PACIENTES INGRESADOS", "Agenda de consulta", "Pase de planta"]),
        " - ",
        c.service,
        " - ",
        c.numeric_date(c.note_date),
    )
    b.line("Cama | Paciente | NHC | Edad | Diagnóstico | Responsable")
    b.line("|:--|:--|:--|:--|:--|:--|")
    for _ in range(rng.randint(3, 7)):
        other = _other_case(c)
        b.line(
            f"{rng.randint(100, 640)}{rng.choice(['A', 'B', ''])} | ",
            other.patient_name(weighted(rng, [("surname_comma_given", 3), ("full", 2), ("initial", 1)])),
            " | ", other.id_span("nhc"), " | ", other.age(), " | ", rng.choice(T.DIAGNOSES), " | ",
            other.staff_name(rng.choice(c.staff), rng.choice(["first_surname", "initial", "given"]), chance(rng, 0.4)),
        )  # fmt: skip
    if chance(rng, 0.5):
        b.line("Guardia: ", c.staff_name(c.doctor()), " (busca ", Span(V.pager_text(rng), "NUMERO_TELEFONO"), ")")


def _other_case(c: Case) -> Case:
    """Another patient for a list, sharing the staff and places of ``c``."""
    from deid_crf.augment.case import draw_case

    other = draw_case(c.rng, c.lexicon)
    other.staff = c.staff
    return other


def admin_form(c: Case, b: NoteBuilder) -> None:
    """A ``CAMPO.....: valor`` admission or demographic sheet, ALL-CAPS labels."""
    rng = c.rng
    style = S.Style("upper", chance(rng, 0.7), ": ")
    _title(b, c, style, "Hoja de filiación", "Datos administrativos", "Ficha de ingreso", "Registro de admisión")
    field(b, style, "Apellidos", recase((Span(" ".join(c.patient.surnames), "NOMBRE_SUJETO_ASISTENCIA"),), "upper"))
    field(b, style, "Nombre", recase((Span(c.patient.given, "NOMBRE_SUJETO_ASISTENCIA"),), "upper"))
    field(b, style, "Sexo", c.sex(field=True))
    field(b, style, "Fecha nacimiento", c.numeric_date(c.birth))
    field(b, style, "Lugar nacimiento", c.birthplace_phrase())
    if c.foreign or chance(rng, 0.2):
        field(b, style, "Nacionalidad", Span(c.birthplace[1] or "España", "PAIS"))
    field(b, style, rng.choice(["DNI/NIE", "Doc. identidad"]), c.id_span("dni"))
    field(b, style, "NASS", c.id_span("nass"))
    field(b, style, "CIP", c.id_span("cip"))
    field(b, style, "Domicilio", Span(V.street_text(rng, c.lexicon, c.home.region), "CALLE"))
    field(b, style, "Código postal", Span(V.postal_code_text(rng, c.home), "TERRITORIO"))
    field(b, style, "Localidad", c.town())
    field(b, style, "Provincia", Span(V.province_name(rng, c.home), "TERRITORIO"))
    if chance(rng, 0.4):
        field(b, style, "Comunidad", Span(V.community_name(rng, c.home), "TERRITORIO"))
    field(b, style, "Teléfono", c.phone(mobile=False), " / ", c.phone())
    if chance(rng, 0.5):
        field(b, style, "E-mail", Span(V.email_text(rng, c.patient), "CORREO_ELECTRONICO"))
    if c.works:
        field(b, style, "Profesión", Span(c.profession, "PROFESION"))
    if c.relatives:
        field(b, style, "Persona de contacto", c.relative_contact(c.relatives[0]))
    field(b, style, "Médico de cabecera", c.staff_name(c.staff[0]), " (", c.centre_span(), ")")
    if chance(rng, 0.3):
        field(
            b,
            style,
            "Nº socio",
            Span(V.member_number_text(rng), "NUMERO_IDENTIF"),
            " (",
            Span(rng.choice(["Cruz Roja", "ONCE", "Cáritas", "Asociación de Diabéticos"]), "INSTITUCION"),
            ")",
        )
    if chance(rng, 0.2):
        field(
            b,
            style,
            "Vehículo adaptado",
            Span(V.plate_text(rng), "IDENTIF_VEHICULOS_NRSERIE_PLACAS"),
            " / bastidor ",
            Span(V.vin_text(rng), "IDENTIF_VEHICULOS_NRSERIE_PLACAS"),
        )
    field(b, style, "Fecha de ingreso", c.numeric_date(c.note_date))
    field(b, style, "Episodio", c.id_span("episode"))
    if chance(rng, 0.2):
        field(
            b,
            style,
            "Terminal",
            Span(V.ip_text(rng), V.IP_TYPE),
            " ",
            Span(V.mac_text(rng), "IDENTIF_DISPOSITIVOS_NRSERIE"),
        )


def narrative(c: Case, b: NoteBuilder) -> None:
    """Free narrative without headers: the story of an illness, PHI in running text."""
    rng = c.rng
    if chance(rng, 0.4):
        b.line(say(rng, "{Resumen de historia clínica|Nota clínica|Caso clínico}"))
        b.blank()
    b.add(S.intro_sentence(c), ". ")
    if chance(rng, 0.6):
        b.add(
            say(rng, "{Vive en|Reside en} "),
            c.town(),
            say(rng, "{ con su | junto a su }"),
            c.relative_mention(rng.choice(c.relatives)),
            ". ",
        )
    b.add(
        say(rng, "{Como antecedentes|Antecedentes de|Entre sus antecedentes destaca} "),
        rng.choice(T.BACKGROUND),
        say(rng, " {y|e historia de} "),
        rng.choice(T.EPONYMS),
        ". ",
    )
    diagnosed = max(c.days_before(800, 5000), c.birth)
    b.add(
        c.agree("Diagnosticado", "Diagnosticada"),
        " en ",
        Span(str(diagnosed.year), "FECHAS"),
        " de ",
        rng.choice(T.DIAGNOSES),
        f" en {S.article(c.hospital)} ",
        c.hospital_span(),
        ". ",
    )
    b.line()
    b.blank()
    b.add(
        say(rng, "{El pasado|El día|El} "),
        c.date(c.days_before(2, 40), weighted(rng, [("day_month", 4), ("long", 2), ("weekday_long", 1)])),
        say(rng, " {acude a|consulta en} "),
        c.centre_span() if chance(rng, 0.5) else c.hospital_span(),
        " por ",
        rng.choice(T.COMPLAINTS),
        ". ",
    )
    b.add(
        say(rng, "{En la exploración destaca|A la exploración:} "),
        rng.choice(T.EXAM_FINDINGS).lower(),
        " y ",
        rng.choice(T.SCALES),
        ". ",
    )
    if chance(rng, 0.4):
        b.add(
            "Viajó a ",
            Span(rng.choice(c.lexicon.countries), "PAIS"),
            say(rng, " {en|durante} "),
            Span(V.date_text(rng, c.days_before(30, 200), "month_year"), "FECHAS"),
            ". ",
        )
    if chance(rng, 0.3):
        when = Span(V.season_or_holiday_text(rng, c.days_before(30, 700)), "FECHAS")
        b.add(say(rng, "{Empeoró durante|Refiere un episodio similar en|Ya ingresó en} "), when, ". ")
    if chance(rng, 0.3):
        b.add(
            say(rng, "{Su |La }"),
            Span(rng.choice(c.relatives).kinship, "FAMILIARES_SUJETO_ASISTENCIA"),
            " nos facilita el teléfono ",
            c.phone(),
            ". ",
        )
    if chance(rng, 0.3):
        continent = Span(rng.choice(T.CONTINENTS), "TERRITORIO")
        b.add(say(rng, "{Ha vivido varios años en|Estancia prolongada en} "), continent, ". ")
    if chance(rng, 0.3):
        area = Span(rng.choice(T.AREAS), "TERRITORIO")
        b.add(say(rng, "{Pasa los veranos en|Tiene una casa en|Trabajó en el campo en} "), area, ". ")
    if chance(rng, 0.3):
        b.add(*V.neighbourhood_phrase(rng, c.home), ". ")
    b.line()
    b.blank()
    if chance(rng, 0.6):
        later = c.days_before(0, 2)
        b.add(
            say(rng, "{Posteriormente|A los pocos días|Días después}, el "),
            c.date(later, weighted(rng, [("dd/mm/yyyy", 2), ("day_month", 2), ("d/m/yyyy", 1)])),
            say(rng, ", {se realiza|se solicita|se obtiene} "),
            rng.choice(T.TESTS).split(":")[0],
            say(rng, " {con resultado normal|que muestra hallazgos compatibles|sin cambios relevantes}. "),
        )
        if chance(rng, 0.5):
            b.add(
                say(rng, "{Se informa a|Se comenta con} "),
                c.titled_patient(),
                say(rng, " y a su "),
                c.relative_mention(rng.choice(c.relatives)),
                ". ",
            )
        b.line()
        b.blank()
    b.line(
        say(rng, "{Se decide|Se pauta|Se inicia} "),
        rng.choice(T.DRUGS),
        say(rng, " y {control evolutivo|seguimiento} por "),
        c.staff_name(c.doctor()),
        ".",
    )


FORMATS: dict[str, tuple[Format, float]] = {
    "informe_alta": (discharge_report, 10),
    "derivacion": (referral_letter, 7),
    "urgencias": (emergency_note, 9),
    "evolutivo_soap": (soap_progress, 6),
    "enfermeria": (nursing_record, 6),
    "radiologia": (radiology_report, 6),
    "anatomia_patologica": (pathology_report, 5),
    "laboratorio": (lab_report, 5),
    "receta": (prescription, 5),
    "consentimiento": (consent_form, 4),
    "atencion_primaria": (primary_care_note, 7),
    "informe_social": (social_report, 5),
    "certificado": (medical_certificate, 5),
    "correo": (professional_email, 5),
    "listado": (ward_list, 3),
    "ficha_administrativa": (admin_form, 4),
    "narrativa": (narrative, 6),
}
