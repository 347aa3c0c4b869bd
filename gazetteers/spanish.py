"""Spanish domain tables and orthography, in one place for every layer.

The tokenizer, the gazetteer matcher, the rule layer and the surrogate generator all
need the same facts about Spanish: which letters are upper case, how a word token is
cut, how two spellings compare (``MUÑOZ`` = ``Muñoz`` = ``munoz``), the month and
weekday names, name particles, kinship words and titles. They import them from here
(as ``deid_crf.gazetteers.spanish``), so the tables cannot drift apart. Pure data and
pure functions: nothing here reads a file.
"""

from __future__ import annotations

import re
import unicodedata

# ----------------------------------------------------------------------- orthography

UPPER = "A-ZÁÉÍÓÚÜÑÀÈÌÒÙÇÂÊÎÔÛÄËÏÖ"  # a regex character-class body
LETTER = r"[^\W\d_]"
LOWER = rf"(?:(?![{UPPER}]){LETTER})"
# Characters that separate tokens without being tokens: whitespace, BOM, zero-width.
INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"
NUMBER = r"\d+(?:[.,/:-]\d+)*"
# Upper-case runs ("NHC"), an upper-case run glued to a capitalised word ("DR" of
# "DRAlberto"), then capitalised or lower-case words ("Cuéllar" "Nº" "Col").
WORD_SPLIT = rf"[{UPPER}]+(?!{LETTER})|[{UPPER}]+(?=[{UPPER}]{LOWER})|[{UPPER}]?{LOWER}+|{LETTER}+"
WORD_JOINED = rf"{LETTER}+"
OTHER = rf"[^\s{INVISIBLE}]"

# How the tokenizer cuts plain words (no e-mails or URLs): gazetteer entries are cut the
# same way, so that a list entry matches the tokens of the text it names.
_ENTRY_TOKEN = re.compile("|".join((WORD_SPLIT, NUMBER, OTHER)))


def split_entry(entry: str) -> list[str]:
    """Tokens of a list entry, cut the way the project tokenizer cuts text
    (``Alegría-Dulantzi`` → ``Alegría`` ``-`` ``Dulantzi``; ``c /`` and ``C/`` alike)."""
    return _ENTRY_TOKEN.findall(entry)


class _StripMarks(dict):
    """``str.translate`` table: a character → its NFKD form without combining marks,
    filled on first use of each character."""

    def __missing__(self, code: int) -> str:
        value = "".join(c for c in unicodedata.normalize("NFKD", chr(code)) if not unicodedata.combining(c))
        self[code] = value
        return value


_STRIP_MARKS = _StripMarks()


def normalize(text: str) -> str:
    """Comparison key of a word: NFKD, combining marks dropped, casefolded
    (``Cuéllar`` → ``cuellar``, ``MUÑOZ`` → ``munoz``). Per character, which equals
    normalising the whole string because only combining marks are reordered."""
    if not text.isascii():
        text = text.translate(_STRIP_MARKS)
    return text.casefold()


# ------------------------------------------------------------------------- places

# Cities abroad by their Spanish names (exonyms: Londres, Nueva York, Tánger, Pekín), which
# no municipality list holds: capitals and the cities people in Spain come from, work in or
# travel to. Written for this project; words that are also common Spanish words or first
# names (Colonia, Victoria, Florencia, Rosario, Lima, Lagos, La Paz, San José, Asunción) are
# left out, and so is Túnez (a country too), and one-word names whose lower-case form the
# unlabeled clinical text has three times or more (roma, acra; tests/test_recognizers.py
# checks it, as for the municipalities that are words). "_" joins the words of a name. The
# second block: cities in Ukraine, Romania, Bulgaria, Senegal, Pakistan, Scandinavia,
# Germany and Portugal that patients in Spain and their relatives come from or live in.
WORLD_CITIES = tuple(
    w.replace("_", " ")
    for w in """
    Lisboa Oporto Coímbra Braga Faro Londres Mánchester Liverpool Edimburgo Dublín París Marsella
    Lyon Burdeos Perpiñán Niza Montpellier Biarritz Estrasburgo Bruselas Amberes Ámsterdam Róterdam
    La_Haya Berlín Múnich Fráncfort Hamburgo Stuttgart Düsseldorf Zúrich Ginebra Berna Basilea
    Lausana Viena Praga Varsovia Cracovia Budapest Bucarest Belgrado Zagreb Atenas Milán
    Nápoles Turín Venecia Bolonia Génova Palermo Moscú San_Petersburgo Kiev Járkov Odesa Minsk
    Chisináu Estambul Ankara Copenhague Estocolmo Oslo Helsinki Reikiavik Riga Vilna Tallin
    Andorra_la_Vella Tirana Sarajevo Tánger Tetuán Casablanca Rabat Fez Marrakech Agadir Nador
    Alhucemas Uxda Argel Orán Trípoli El_Cairo Dakar Bamako Nuakchot Conakri Abuya Malabo
    Kinsasa Luanda Nairobi Adís_Abeba Johannesburgo Ciudad_del_Cabo Nueva_York Miami Los_Ángeles
    Chicago Boston Houston Toronto Montreal Vancouver Ciudad_de_México Monterrey Cancún La_Habana
    Caracas Maracaibo Bogotá Medellín Barranquilla Cartagena_de_Indias Quito Guayaquil Arequipa
    Santa_Cruz_de_la_Sierra Cochabamba Montevideo Buenos_Aires Santiago_de_Chile Valparaíso
    São_Paulo Sao_Paulo Río_de_Janeiro Brasilia Tegucigalpa San_Pedro_Sula Managua San_Salvador
    Ciudad_de_Guatemala Puerto_Príncipe Pekín Shanghái Cantón Hong_Kong Wenzhou Qingtian Tokio Seúl
    Manila Bangkok Hanói Nueva_Delhi Bombay Calcuta Karachi Lahore Islamabad Daca Katmandú Teherán
    Bagdad Damasco Beirut Amán Jerusalén Tel_Aviv Riad Dubái Ereván Tiflis Bakú Kabul Sídney
    Melbourne
    Leópolis Lviv Mariúpol Vínnytsia Dnipró Zaporiyia Járkiv Cluj-Napoca Timișoara Timisoara Iași Iasi
    Constanța Brașov Brasov Bacău Craiova Pitești Sibiu Oradea Plovdiv Varna Chernivtsí Thiès Mbour
    Ziguinchor Kaolack Sialkot Gujranwala Faisalabad Rawalpindi Peshawar Bergen Gotemburgo Malmö Aarhus
    Núremberg Guimarães Aveiro Setúbal
    """.split()
)


# ------------------------------------------------------------------------- calendar

MONTHS = ("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre").split()
# Spanish, then the Catalan ones that differ (``10 de febr. 2026``; not ``des``, which is also
# Catalan "since", nor ``set``, "seven"); never a date alone, only with a day or a year.
MONTH_ABBREVIATIONS = ("ene feb mar abr may jun jul ago sep oct nov dic gen febr ag").split()
# Spellings of September that the tables above do not hold.
SEPTEMBER_VARIANTS = ("setiembre", "sept")
WEEKDAYS = "lunes martes miércoles jueves viernes sábado domingo".split()  # Monday first, as date.weekday()
# Their abbreviations, longest first where two share a start ("miér" before "mié"): Spanish, then
# Catalan (``dl. 16/03/2026``, ``dt., 10 de febr. 2026``). The recognizers take them only right
# before a date's figures.
WEEKDAY_ABBREVIATIONS = "lun mar miér mier mié mie juev jue vier vie sáb sab dom dl dt dc dj dv ds dg".split()
CATALAN_WEEKDAYS = "dilluns dimarts dimecres dijous divendres dissabte diumenge".split()
GALICIAN_WEEKDAYS = "luns martes mércores xoves venres sábado domingo".split()
# Month names of the co-official languages that Spanish notes quote in dates ("13 de juny de 2023",
# "2 d'abril de 2024"), January first; and the Roman numerals of "3-III-2020".
CATALAN_MONTHS = "gener febrer març abril maig juny juliol agost setembre octubre novembre desembre".split()
GALICIAN_MONTHS = "xaneiro febreiro marzo abril maio xuño xullo agosto setembro outubro novembro decembro".split()
ROMAN_MONTHS = "I II III IV V VI VII VIII IX X XI XII".split()
# Named days and feasts that are dates (MEDDOCAN guideline P6.5: "navidad", "nochevieja").
HOLIDAYS = (
    "Navidad",
    "Navidades",
    "Nochebuena",
    "Nochevieja",
    "Año Nuevo",
    "Semana Santa",
    "Jueves Santo",
    "Viernes Santo",
    "Domingo de Ramos",
    "Miércoles de Ceniza",
    "día de Reyes",
    "Ramadán",
    "Ramadan",
    # more feasts the notes date things by (P6.5: "el día de la madre"), Catalan and Galician too
    "Carnaval",
    "Carnavales",
    "Entroido",
    "Halloween",
    "Sanfermines",
    "Diada",
    "Setmana Santa",
    "día de la madre",
    "día del padre",
    "noche de San Juan",
    "revetlla de Sant Joan",
    # other calendars' and languages' feasts the notes date things by: Chinese New Year,
    # Orthodox Easter, Eid, Basque Holy Week, Asturian carnival (not "Fallas": matched in any
    # case, "fallas" are failures in the unlabeled clinical text)
    "Año Nuevo chino",
    "Any Nou xinès",
    "Pascua",
    "Pascua ortodoxa",
    "Aid el-Fitr",
    "Eid al-Fitr",
    "Aid el-Kebir",
    "Eid al-Adha",
    "Aste Santua",
    "Antroxu",
    "Moros y Cristianos",
    "Moros i Cristians",
    # All Saints' Day and the great local feasts notes date things by (Bilbao's "Aste Nagusia",
    # Zaragoza's Pilar: only as "día del Pilar", "Pilar" alone is a name)
    "Todos los Santos",
    "día de Todos los Santos",
    "Tots Sants",
    "día del Pilar",
    "fiestas del Pilar",
    "Aste Nagusia",
    "Semana Grande",
    # the feasts of the calendars Spain's patients from abroad live by, written for this project
    # from those calendars (Hindu, Sikh and Nepali; East Asian; Jewish; Persian; Buddhist), with
    # the Basque names of Christmas, a long weekend's and other named days (P6.5). Not the ones
    # that are also words, names or places in a note: "Tet" (an abbreviation), "Losar" (a town),
    # "Gabon" (a country), "Nadal" (a surname), "Sant Jordi" (a hospital's name).
    "Diwali",
    "Divali",
    "Holi",
    "Navratri",
    "Dussehra",
    "Dashain",
    "Tihar",
    "Vaisakhi",
    "Baisakhi",
    "Pongal",
    "Onam",
    "Chuseok",
    "Seollal",
    "Año Nuevo lunar",
    "Año Nuevo vietnamita",
    "Obon",
    "Janucá",
    "Hanukkah",
    "Yom Kipur",
    "Rosh Hashaná",
    "Pésaj",
    "Purim",
    "Nowruz",
    "Noruz",
    "Vesak",
    "Gabonak",
    "Eguberri",
    "Pentecostés",
    "Corpus Christi",
    "Acción de Gracias",
    "Día de Muertos",
    "Día de los Muertos",
    "puente de la Constitución",
    "puente de la Inmaculada",
    "puente de mayo",
    "puente de Todos los Santos",
    "Magosto",
    # Spain's national and regional days and its best-known local feasts, written for the
    # project from the official calendars (a saint's name alone is a person's or a place's:
    # only "día de"/"fiestas de" a saint, or a feast's own name; not "Fallas", which the
    # lists match in any case: "fallas de juicio")
    "Día de la Hispanidad",
    "Fiesta Nacional",
    "Día de la Constitución",
    "día de la Inmaculada",
    "Día del Trabajo",
    "Día de Andalucía",
    "Día de Canarias",
    "Día de Aragón",
    "día de San Jorge",
    "Día de Asturias",
    "Día de las Letras Gallegas",
    "Día das Letras Galegas",
    "Día de Galicia",
    "Día de Extremadura",
    "Día de Navarra",
    "Día de la Región de Murcia",
    "Día de Castilla-La Mancha",
    "Día de Castilla y León",
    "Día de la Comunidad Valenciana",
    "Día de la Comunidad de Madrid",
    "Día de Cantabria",
    "Día de La Rioja",
    "Día de las Illes Balears",
    "diada de Sant Jordi",
    "día de Sant Jordi",
    "Castanyada",
    "Hogueras de San Juan",
    "Fogueres",
    "Feria de Abril",
    "romería del Rocío",
    "Tamborrada",
    "fiestas de San Isidro",
    "fiestas de San Fermín",
    "fiestas de San Pedro",
    "fiestas de San Antón",
    # and other countries' and calendars' feasts that patients from there keep
    "Fiesta del Medio Otoño",
    "Festival del Medio Otoño",
    "Festival de Primavera",
    "Sinterklaas",
    "Thanksgiving",
    "Día de la Independencia",
    "Fiestas Patrias",
    "Mărțișor",
    "Ashura",
    "Mawlid",
    "Laylat al-Qadr",
)
# Spanish hospitals that notes name by their short name alone (``consulta de Hemostasia de
# Valdecilla``, ``operada en son espases``, ``derivo al molina orosa``), written for this
# project from the hospitals' own common names; only names that denote the hospital and
# little else (not ``La Paz``, ``La Fe``, ``Cruces``, ``Insular``, ``Ramón y Cajal``, ``Doce de
# Octubre``: also words, places or streets).
HOSPITAL_SHORT_NAMES = (
    "Valdecilla",
    "Marqués de Valdecilla",
    "Son Espases",
    "Son Llàtzer",
    "Son Dureta",
    "Can Misses",
    "Can Ruti",
    "Txagorritxu",
    "Vall d'Hebron",
    "Vall d'Hebrón",
    "Valle de Hebrón",
    "Germans Trias",
    "Germans Trias i Pujol",
    "Arrixaca",
    "La Arrixaca",
    "Cabueñes",
    "Gregorio Marañón",
    "Río Hortega",
    "Molina Orosa",
    "Parc Taulí",
    "Valme",
)
# Everyday job words (PROFESION, P7.1) that a note puts after "que es", "antiguo" or "ES"
# ("el hijo mayor, que es camionero"): written for this project, masculine forms, the
# feminine derived by :func:`occupation_words` ("-o" → "-a", "-or" → "-ora"; "-ista",
# "-ante", "-e" the same). Nouns that are also adjectives of a patient ("portador",
# "responsable") are left out.
_OCCUPATIONS = """
    abogado actor administrativo agente agricultor albañil alcalde alfarero analista anestesista
    arquitecto artesano artista asistente auxiliar azafato bailarín bibliotecario biólogo bombero
    cajero camarero camionero cantante dependienta carnicero carpintero cartero celador cerrajero chófer cirujano
    cocinero comercial comerciante conductor conserje constructor contable costurero cuidador
    delineante dentista dependiente deportista diseñador docente ebanista economista educador
    electricista empresario encargado enfermero enólogo escritor escultor estibador estudiante
    farmacéutico fisioterapeuta fontanero fotógrafo frutero funcionario ganadero gerente geriatra
    gestor guarda guardia herrero ingeniero informático instalador investigador jardinero jornalero
    juez labrador lechero limpiador locutor logopeda maestro marinero mariscador matrón mecánico
    médico minero monitor músico notario obrero odontólogo oficinista operario óptico panadero
    pastor peluquero periodista pescadero pescador pintor piloto policía porteador portero
    profesor programador psicólogo psiquiatra químico recepcionista reponedor repartidor sacerdote
    secretario socorrista soldado soldador taxista técnico temporero tendero tornero traductor
    transportista vendedor veterinario vigilante zapatero
    paleta peón payés pagès llaurador pagesa treballador mestre infermer cambrer forner fuster
    labrego mariñeiro gandeiro ferreiro canteiro mestra
    aparejador asesor ayudante barrendero basurero camillero chapista cristalero empleado estanquero
    feriante fresador granjero guarnicionero joyero librero maquinista mensajero militar modisto
    pastelero pocero quiosquero relojero sastre tapicero teleoperador tractorista vaquero viticultor
    vendimiador afilador herrador leñador molinero curtidor talabartero descorchador picador aparador
    quesero envasador gerocultor pelotari ertzaina arrantzale enfermeiro tendeiro dependenta bomber
    instructor buzo percebeiro redero hortelano charcutero procurador asistenta niñera apicultor
    barrenista cantero marmolista ferrallista encofrador gruista montador esteticista masajista
    futbolista ciclista entrenador árbitro sacristán hostelero bedel
"""
OCCUPATION_STEMS = tuple(_OCCUPATIONS.split())
# Seasons (P6.2: "Otoño del 2017"), a date when a year follows them.
# Seasons in Spanish, Catalan and Galician (P6.2).
SEASONS = "primavera verano otoño invierno estiu hivern tardor verán inverno outono".split()
# Spanish number words of a day of the month (1-31) and of a year (1900-2099), as dictated
# notes and formal letters write dates ("a veinte de febrero de dos mil veinticinco").
DAY_WORDS = (
    "uno primero dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis "
    "diecisiete dieciocho diecinueve veinte veintiuno veintiún veintidós veintitrés veinticuatro veinticinco "
    "veintiséis veintisiete veintiocho veintinueve treinta"
).split()
UNIT_WORDS = "uno dos tres cuatro cinco seis siete ocho nueve".split()
TEEN_WORDS = DAY_WORDS[DAY_WORDS.index("diez") : DAY_WORDS.index("veinte")]
TWENTIES_WORDS = DAY_WORDS[DAY_WORDS.index("veinte") : DAY_WORDS.index("treinta")]
TENS_WORDS = "treinta cuarenta cincuenta sesenta setenta ochenta noventa".split()

# ---------------------------------------------------------------------- addresses

# Street types and their abbreviations in Spanish, Catalan, Galician and Basque
# addresses, written as the start of a street ("C/ Feria", "Avda. de Roma", "rúa Real").
STREET_TYPES = (
    "calle c/ cl. avenida avda. avda av. avd. paseo pº ps. plaza pza. pza pl. plaça carretera ctra. ctra "
    "camino cno. ronda travesía trav. urbanización urb. glorieta rúa rua carrer avinguda passeig pg. "
    "kalea kale etorbidea polígono pol. barrio bº cortijo paraje prolongación"
).split()

# The grammar of an address after a street's name and number (floor, door, block,
# kilometre), compared normalized: "Calle X, 3, Bajo A", "Av. Y 6, 1 Izq.", "Ctra. Z, Km 7".
ADDRESS_WORDS = frozenset(
    """
    bajo bajos entresuelo principal atico piso planta puerta pta portal bloque blq escalera esc edificio edif ed
    apartamento apto apt local casa izq izda izquierda izquierdo der dcha drcha derecha derecho centro interior
    exterior km kilometro no nº num numero esquina esq frente contrafrente suite oficina of urbanizacion urb
    residencial colonia barrio manzana mz lote parcela nave poligono sn
    """.split()
)

# ---------------------------------------------------------------- names and people

# Words inside a person's or a place's name that are grammar, not the name:
# "María de la Fuente", "Roca i Serra", "Van der Berg", "Dos Santos".
PARTICLES = frozenset("de del la las los y e i da das do dos van von di le el".split())
# Titles before a name, compared normalized (never part of a name's span).
TITLE_WORDS = frozenset("dr dra dr. dra. sr sra sr. sra. d d. dna dna. don dona prof prof. srta srta.".split())
# Kinship and family words (normalized), the grammar of a relative's mention.
KINSHIP = frozenset(
    """
    madre padre hijo hija hijos hijas hermano hermana hermanos hermanas abuelo abuela abuelos nieto nieta nietos
    tio tia tios primo prima primos sobrino sobrina sobrinos esposo esposa marido mujer pareja conyuge novio novia
    cunado cunada suegro suegra yerno nuera padres familia familiar familiares gemelo gemela hermanastro hermanastra
    padrastro madrastra bisabuelo bisabuela materno materna paterno paterna mayor menor varon hembra otro otra
    abuelas nietas nietos tias primas sobrinas cunados cunadas suegros esposos conyuges gemelos gemelas mellizo
    melliza mellizos mellizas hermanastros progenitor progenitora progenitores nino nina ninos ninas bebe neonato
    recien nacido nacida varones mujeres
    """.split()
)
# The public bodies that run health care, by autonomous community, as they head
# letters and reports (INSTITUCION, guideline P10.2: acronyms included). The first
# name of each row is the official one; the short acronyms that are ordinary words
# (SALUD, SES, SMS, SCS) are written by the note generator only, never matched.
HEALTH_SERVICES: dict[str, tuple[str, ...]] = {
    "Andalucía": ("Servicio Andaluz de Salud", "SAS", "Junta de Andalucía", "Consejería de Salud y Consumo"),
    "Aragón": ("Servicio Aragonés de Salud", "SALUD", "Gobierno de Aragón", "Departamento de Sanidad"),
    "Canarias": ("Servicio Canario de la Salud", "SCS", "Gobierno de Canarias"),
    "Cantabria": ("Servicio Cántabro de Salud", "SCS", "Gobierno de Cantabria"),
    "Castilla y León": ("Gerencia Regional de Salud", "Sacyl", "SACYL", "Junta de Castilla y León"),
    "Castilla-La Mancha": (
        "Servicio de Salud de Castilla-La Mancha",
        "SESCAM",
        "Junta de Comunidades de Castilla-La Mancha",
    ),
    "Cataluña": (
        "Institut Català de la Salut",
        "ICS",
        "Generalitat de Catalunya",
        "CatSalut",
        "Servei Català de la Salut",
        "Departament de Salut",
    ),
    "Ceuta": ("Instituto Nacional de Gestión Sanitaria", "INGESA"),
    "Comunidad Foral de Navarra": (
        "Servicio Navarro de Salud - Osasunbidea",
        "Servicio Navarro de Salud",
        "SNS-O",
        "Gobierno de Navarra",
    ),
    "Comunidad Valenciana": (
        "Conselleria de Sanitat",
        "Generalitat Valenciana",
        "Conselleria de Sanitat Universal i Salut Pública",
    ),
    "Comunidad de Madrid": ("Servicio Madrileño de Salud", "SERMAS", "Comunidad de Madrid", "Consejería de Sanidad"),
    "Extremadura": ("Servicio Extremeño de Salud", "SES", "Junta de Extremadura"),
    "Galicia": ("Servizo Galego de Saúde", "SERGAS", "Xunta de Galicia", "Consellería de Sanidade"),
    "Illes Balears": ("Servei de Salut de les Illes Balears", "IB-Salut", "Govern de les Illes Balears"),
    "La Rioja": ("Servicio Riojano de Salud", "SERIS", "Rioja Salud", "Gobierno de La Rioja"),
    "Melilla": ("Instituto Nacional de Gestión Sanitaria", "INGESA"),
    "País Vasco": (
        "Osakidetza",
        "OSAKIDETZA",
        "Osakidetza - Servicio Vasco de Salud",
        "Eusko Jaurlaritza - Gobierno Vasco",
    ),
    "Principado de Asturias": (
        "Servicio de Salud del Principado de Asturias",
        "SESPA",
        "Gobierno del Principado de Asturias",
    ),
    "Región de Murcia": ("Servicio Murciano de Salud", "SMS", "Región de Murcia"),
}
# Acronyms of HEALTH_SERVICES that are also common words or other things' acronyms.
AMBIGUOUS_HEALTH_ACRONYMS = frozenset({"SAS", "SALUD", "SCS", "SES", "SMS", "ICS"})
# Public and voluntary bodies named in notes about a patient's care, police and
# social situation (INSTITUCION, P10.1-P10.2). Names only an institution can have.
NATIONAL_BODIES = (
    "Cruz Roja",
    "Cruz Roja Española",
    "Cáritas",
    "Càritas",
    "Guardia Civil",
    "Policía Nacional",
    "Mossos d'Esquadra",
    "Ertzaintza",
    "Médicos del Mundo",
    "Médicos Sin Fronteras",
    "Instituto Nacional de la Seguridad Social",
    "INSS",
    "IMSERSO",
    # Catalonia's child-protection directorate
    "DGAIA",
    "MUFACE",
    "ISFAS",
    "MUGEJU",
    "Fremap",
    "Asepeyo",
    "Ibermutua",
    "MC Mutual",
    "Mutua Universal",
    "Fraternidad-Muprespa",
    "Umivale",
    "Activa Mutua",
    "Mutua Balear",
    "Egarsat",
    "Solimat",
    "Mutualia",
    "Unió de Mutues",
    "Unión de Mutuas",
    "Mutua Montañesa",
    "Mutua Navarra",
    "Mutua Intercomarcal",
    "MAC Mutua",
    "ACCEM",
    "Accem",
    "CEAR",
    "Instituto Nacional de Gestión Sanitaria",
    "Sanidad Exterior",
    "Organización Nacional de Trasplantes",
    "ONT",
    # ombudsmen, national and regional, who take patients' complaints
    "Defensor del Pueblo",
    "Defensor del Paciente",
    "Procurador del Común",
    "Síndic de Greuges",
    "Ararteko",
    "Valedor do Pobo",
    "Justicia de Aragón",
    "Diputado del Común",
    # emergency medical services (the notes' convention 9: "SEM/SAMU 061" INSTITUCION)
    "SEM",
    "SEM 061",
    "SAMU",
    "SAMU 061",
    # the Basque and Canarian emergency services
    "Emergentziak",
    "Emergencias Osakidetza",
    "SUC",
    "SAMUR",
    "SAMUR-Protección Civil",
    "SUMMA 112",
    "SUMMA",
    "EPES 061",
    "GUETS",
    "Protección Civil",
    # private health insurers and the banks that lend on a policy (P10.1: "vicepresidente
    # de Sanitas"); names that are also a town or a word (Zurich, Ocaso, Santander,
    # Sabadell) are left to the model
    "Sanitas",
    "Adeslas",
    "SegurCaixa Adeslas",
    "Asisa",
    "ASISA",
    "DKV",
    "DKV Seguros",
    "Mapfre",
    "MAPFRE",
    "AXA",
    "Allianz",
    "Cigna",
    "Aegon",
    "Generali",
    "Mutua Madrileña",
    "FIATC",
    "Fiatc",
    "IMQ",
    "Divina Pastora",
    "Catalana Occidente",
    "Agrupació Mútua",
    "Asistencia Sanitaria Colegial",
    "CaixaBank",
    "BBVA",
    "Banco Santander",
    "Banco Sabadell",
    "Bankinter",
    "Unicaja",
    "Ibercaja",
    "Kutxabank",
    "Abanca",
    "Cajamar",
    # and more bodies notes name when a patient deals with them: the Guardia Civil's
    # environmental service, cancer and social-inclusion charities, occupational-health
    # services, home-oxygen suppliers, labour and tax offices (written for the project)
    "SEPRONA",
    "Seprona",
    "AECC",
    "Asociación Española Contra el Cáncer",
    "Proyecto Hombre",
    "Fundación Secretariado Gitano",
    "Provivienda",
    "Teléfono de la Esperanza",
    "Banco de Alimentos",
    "Plena Inclusión",
    "Alcohólicos Anónimos",
    "Quirónprevención",
    "Quirón Prevención",
    "Cualtis",
    "Preving",
    "Oxigen Salud",
    "Linde Healthcare",
    "Air Liquide Healthcare",
    "VitalAire",
    "Esteve Teijin",
    "Oximesa",
    "Nippon Gases",
    "ITSS",
    "TGSS",
    "Tesorería General de la Seguridad Social",
    "SEPE",
    "Servicio Público de Empleo Estatal",
    "Agencia Tributaria",
    "Dirección General de Tráfico",
)
# The generic words of institution names (normalized): "Hospital Universitario de …".
INSTITUTION_WORDS = frozenset(
    """
    hospital hospitales hospitalario hospitalaria complejo complexo universitario universitaria universitari
    general clinico clinica clinic centro salud medico medica comarcal provincial regional materno infantil
    policlinica fundacion fundacio instituto institut servicio servei unidad facultad universidad ambulatorio
    consultorio residencia sanatorio sanitario sanitaria area asistencial nacional de del la las los el y
    """.split()
)
# Medical specialties and the words of department names (normalized): "Servicio de
# Microbiología", "Unidad de Cuidados Paliativos", "Medicina Familiar y Comunitaria".
# They name a kind of care, not a place or a person, so an institution span that holds
# one does not make the word identifying elsewhere in the note (leak audit).
SPECIALTY_WORDS = frozenset(
    """
    medicina familiar comunitaria interna intensiva legal forense preventiva nuclear fisica deportiva
    trabajo cuidados paliativos dolor urgencias emergencias critica criticos reanimacion
    alergologia anestesiologia anestesia angiologia cardiologia cirugia dermatologia digestivo aparato
    endocrinologia estomatologia odontologia odontoestomatologia farmacia farmacologia geriatria ginecologia
    obstetricia hematologia hemoterapia inmunologia microbiologia parasitologia nefrologia neumologia
    neurologia neurocirugia neurofisiologia neonatologia oftalmologia oncologia otorrinolaringologia
    pediatria psiquiatria psicologia psiquiatrica radiologia radiodiagnostico radioterapia radiofisica
    rehabilitacion reumatologia traumatologia ortopedia ortopedica urologia andrologia genetica bioquimica
    analisis clinicos laboratorio anatomia patologica patologia citologia histologia nutricion dietetica
    endoscopia enfermeria fisioterapia logopedia matronas quirurgica quirurgico plastica reparadora
    vascular toracica cardiovascular cardiaca maxilofacial pediatrica infecciosas enfermedades
    hospitalizacion domiciliaria consultas externas quirofano quirofanos paritorio mental salud publica
    pais
    """.split()
)
