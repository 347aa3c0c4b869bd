"""Hand-written vocabulary of the synthetic-note generator: pure data, no code.

Regional and foreign name lists complement the INE lists (which have no accents and
no gender), the province table ties postal-code prefixes to provinces, capitals and
languages, and the clinical lists supply the non-PHI text around the PHI,
including look-alikes a tagger must leave alone (eponyms, drug brands, scales,
hospital services). Everything here was written for this generator.
"""

from __future__ import annotations


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.strip().splitlines() if line.strip())


# ------------------------------------------------------------------ provinces

# (INE code = postal prefix, province, capital, autonomous community, language area,
#  a few other towns). Language areas: es, ca (Catalan/Valencian), gl, eu, can (Canary).
PROVINCES: tuple[tuple[str, str, str, str, str, tuple[str, ...]], ...] = (
    ("01", "Álava", "Vitoria-Gasteiz", "País Vasco", "eu", ("Llodio", "Amurrio", "Salvatierra")),
    ("02", "Albacete", "Albacete", "Castilla-La Mancha", "es", ("Hellín", "Villarrobledo", "Almansa")),
    ("03", "Alicante", "Alicante", "Comunidad Valenciana", "ca", ("Elche", "Benidorm", "Alcoy", "Orihuela")),
    ("04", "Almería", "Almería", "Andalucía", "es", ("El Ejido", "Roquetas de Mar", "Níjar", "Vera")),
    ("05", "Ávila", "Ávila", "Castilla y León", "es", ("Arévalo", "Arenas de San Pedro")),
    ("06", "Badajoz", "Badajoz", "Extremadura", "es", ("Mérida", "Don Benito", "Zafra", "Almendralejo")),
    ("07", "Illes Balears", "Palma", "Illes Balears", "ca", ("Manacor", "Inca", "Maó", "Eivissa")),
    ("08", "Barcelona", "Barcelona", "Cataluña", "ca", ("Sabadell", "Terrassa", "Badalona", "Mataró", "Vic")),
    ("09", "Burgos", "Burgos", "Castilla y León", "es", ("Miranda de Ebro", "Aranda de Duero")),
    ("10", "Cáceres", "Cáceres", "Extremadura", "es", ("Plasencia", "Navalmoral de la Mata", "Coria")),
    ("11", "Cádiz", "Cádiz", "Andalucía", "es", ("Jerez de la Frontera", "Algeciras", "Chiclana", "Rota")),
    ("12", "Castellón", "Castelló de la Plana", "Comunidad Valenciana", "ca", ("Vila-real", "Vinaròs", "Onda")),
    ("13", "Ciudad Real", "Ciudad Real", "Castilla-La Mancha", "es", ("Puertollano", "Tomelloso", "Valdepeñas")),
    ("14", "Córdoba", "Córdoba", "Andalucía", "es", ("Lucena", "Puente Genil", "Montilla", "Priego")),
    ("15", "A Coruña", "A Coruña", "Galicia", "gl", ("Santiago de Compostela", "Ferrol", "Carballo", "Arteixo")),
    ("16", "Cuenca", "Cuenca", "Castilla-La Mancha", "es", ("Tarancón", "San Clemente", "Motilla del Palancar")),
    ("17", "Girona", "Girona", "Cataluña", "ca", ("Figueres", "Blanes", "Olot", "Lloret de Mar")),
    ("18", "Granada", "Granada", "Andalucía", "es", ("Motril", "Loja", "Baza", "Guadix", "Almuñécar")),
    ("19", "Guadalajara", "Guadalajara", "Castilla-La Mancha", "es", ("Azuqueca de Henares", "Sigüenza")),
    ("20", "Gipuzkoa", "Donostia-San Sebastián", "País Vasco", "eu", ("Irun", "Eibar", "Zarautz", "Tolosa")),
    ("21", "Huelva", "Huelva", "Andalucía", "es", ("Lepe", "Almonte", "Moguer", "Ayamonte")),
    ("22", "Huesca", "Huesca", "Aragón", "es", ("Monzón", "Barbastro", "Jaca", "Fraga")),
    ("23", "Jaén", "Jaén", "Andalucía", "es", ("Linares", "Úbeda", "Andújar", "Martos")),
    ("24", "León", "León", "Castilla y León", "es", ("Ponferrada", "San Andrés del Rabanedo", "Astorga")),
    ("25", "Lleida", "Lleida", "Cataluña", "ca", ("Balaguer", "Tàrrega", "Mollerussa", "La Seu d'Urgell")),
    ("26", "La Rioja", "Logroño", "La Rioja", "es", ("Calahorra", "Arnedo", "Haro")),
    ("27", "Lugo", "Lugo", "Galicia", "gl", ("Monforte de Lemos", "Viveiro", "Vilalba", "Sarria")),
    ("28", "Madrid", "Madrid", "Comunidad de Madrid", "es", ("Móstoles", "Alcalá de Henares", "Getafe", "Leganés")),
    ("29", "Málaga", "Málaga", "Andalucía", "es", ("Marbella", "Vélez-Málaga", "Ronda", "Antequera")),
    ("30", "Murcia", "Murcia", "Región de Murcia", "es", ("Cartagena", "Lorca", "Molina de Segura", "Yecla")),
    ("31", "Navarra", "Pamplona", "Comunidad Foral de Navarra", "eu", ("Tudela", "Estella-Lizarra", "Burlada")),
    ("32", "Ourense", "Ourense", "Galicia", "gl", ("Verín", "O Barco de Valdeorras", "O Carballiño")),
    ("33", "Asturias", "Oviedo", "Principado de Asturias", "es", ("Gijón", "Avilés", "Mieres", "Langreo")),
    ("34", "Palencia", "Palencia", "Castilla y León", "es", ("Guardo", "Aguilar de Campoo")),
    ("35", "Las Palmas", "Las Palmas de Gran Canaria", "Canarias", "can", ("Telde", "Arrecife", "Puerto del Rosario")),
    ("36", "Pontevedra", "Pontevedra", "Galicia", "gl", ("Vigo", "Vilagarcía de Arousa", "Lalín", "Cangas")),
    ("37", "Salamanca", "Salamanca", "Castilla y León", "es", ("Béjar", "Ciudad Rodrigo", "Santa Marta de Tormes")),
    ("38", "Santa Cruz de Tenerife", "Santa Cruz de Tenerife", "Canarias", "can", ("La Laguna", "Arona", "Adeje")),
    ("39", "Cantabria", "Santander", "Cantabria", "es", ("Torrelavega", "Castro Urdiales", "Laredo")),
    ("40", "Segovia", "Segovia", "Castilla y León", "es", ("Cuéllar", "El Espinar")),
    ("41", "Sevilla", "Sevilla", "Andalucía", "es", ("Dos Hermanas", "Utrera", "Écija", "Carmona")),
    ("42", "Soria", "Soria", "Castilla y León", "es", ("Almazán", "El Burgo de Osma")),
    ("43", "Tarragona", "Tarragona", "Cataluña", "ca", ("Reus", "Tortosa", "Valls", "Cambrils")),
    ("44", "Teruel", "Teruel", "Aragón", "es", ("Alcañiz", "Andorra", "Calamocha")),
    ("45", "Toledo", "Toledo", "Castilla-La Mancha", "es", ("Talavera de la Reina", "Illescas", "Seseña")),
    ("46", "Valencia", "València", "Comunidad Valenciana", "ca", ("Torrent", "Gandia", "Sagunt", "Xàtiva")),
    ("47", "Valladolid", "Valladolid", "Castilla y León", "es", ("Medina del Campo", "Laguna de Duero")),
    ("48", "Bizkaia", "Bilbao", "País Vasco", "eu", ("Barakaldo", "Getxo", "Durango", "Basauri")),
    ("49", "Zamora", "Zamora", "Castilla y León", "es", ("Benavente", "Toro")),
    ("50", "Zaragoza", "Zaragoza", "Aragón", "es", ("Calatayud", "Utebo", "Ejea de los Caballeros")),
    ("51", "Ceuta", "Ceuta", "Ceuta", "es", ()),
    ("52", "Melilla", "Melilla", "Melilla", "es", ()),
)

# Other written forms of some provinces and communities (co-official names, short forms).
PROVINCE_VARIANTS = {
    "Álava": ("Araba", "Araba/Álava"),
    "Gipuzkoa": ("Guipúzcoa",),
    "Bizkaia": ("Vizcaya",),
    "Illes Balears": ("Baleares", "Islas Baleares"),
    "A Coruña": ("La Coruña",),
    "Girona": ("Gerona",),
    "Lleida": ("Lérida",),
    "Ourense": ("Orense",),
    "Navarra": ("Nafarroa",),
    "Valencia": ("València",),
    "Alicante": ("Alacant",),
    "Castellón": ("Castelló",),
}
COMMUNITY_VARIANTS = {
    "Cataluña": ("Catalunya",),
    "País Vasco": ("Euskadi",),
    "Comunidad Valenciana": ("Comunitat Valenciana",),
    "Principado de Asturias": ("Asturias",),
    "Comunidad de Madrid": ("Madrid",),
    "Región de Murcia": ("Murcia",),
}

# Comarcas, neighbourhoods and natural areas (TERRITORIO without being a town).
AREAS = _lines(
    """
    la Sierra Norte
    el Bierzo
    la Ribera Alta
    el Vallès Occidental
    el Baix Llobregat
    la Costa da Morte
    la Vega Baja
    el Aljarafe
    la Axarquía
    Tierra de Campos
    la Marina Alta
    el Valle del Jerte
    la Alpujarra
    la Garrotxa
    el Campo de Gibraltar
    """
)

# Neighbourhood names: TERRITORIO without the words "barrio de" (guideline P12.4).
NEIGHBOURHOODS = _lines(
    """
    San Blas
    el Carmen
    Gràcia
    Txurdinaga
    la Chana
    Lavapiés
    Vallecas
    Carabanchel
    Moratalaz
    Tetuán
    Chamberí
    el Raval
    Sants
    el Poblenou
    Sant Andreu
    Deusto
    Rekalde
    Otxarkoaga
    Gros
    Amara
    el Cabanyal
    Benimaclet
    el Zaidín
    el Albaicín
    la Cartuja
    Polígono Sur
    el Palo
    la Trinidad
    Ciudad Jardín
    Torrero
    el Actur
    Oliver
    la Magdalena
    Vegueta
    Ofra
    el Calvario
    San Pablo
    Pajarillos
    la Victoria
    Teis
    el Couto
    Monte Alto
    los Mallos
    Pumarín
    la Calzada
    el Llano
    Buenavista
    San Francisco
    el Arrabal
    Santa Isabel
    """
)
FOREIGN_PLACES = (
    # (town, country) in the Spanish form a Spanish clinician would write
    ("Lyon", "Francia"),
    ("Toulouse", "Francia"),
    ("Perpiñán", "Francia"),
    ("Oporto", "Portugal"),
    ("Braga", "Portugal"),
    ("Bucarest", "Rumanía"),
    ("Cluj-Napoca", "Rumanía"),
    ("Iasi", "Rumanía"),
    ("Craiova", "Rumanía"),
    ("Milán", "Italia"),
    ("Nápoles", "Italia"),
    ("Múnich", "Alemania"),
    ("Hamburgo", "Alemania"),
    ("Londres", "Reino Unido"),
    ("Mánchester", "Reino Unido"),
    ("Cracovia", "Polonia"),
    ("Varsovia", "Polonia"),
    ("Casablanca", "Marruecos"),
    ("Tánger", "Marruecos"),
    ("Nador", "Marruecos"),
    ("Alhucemas", "Marruecos"),
    ("Orán", "Argelia"),
    ("Dakar", "Senegal"),
    ("Ziguinchor", "Senegal"),
    ("Bamako", "Malí"),
    ("Lagos", "Nigeria"),
    ("Kumasi", "Ghana"),
    ("Bogotá", "Colombia"),
    ("Medellín", "Colombia"),
    ("Cali", "Colombia"),
    ("Guayaquil", "Ecuador"),
    ("Quito", "Ecuador"),
    ("Lima", "Perú"),
    ("Caracas", "Venezuela"),
    ("Maracaibo", "Venezuela"),
    ("Rosario", "Argentina"),
    ("Santa Cruz de la Sierra", "Bolivia"),
    ("Cochabamba", "Bolivia"),
    ("Asunción", "Paraguay"),
    ("San Pedro Sula", "Honduras"),
    ("Santo Domingo", "República Dominicana"),
    ("La Habana", "Cuba"),
    ("Wenzhou", "China"),
    ("Qingtian", "China"),
    ("Lahore", "Pakistán"),
    ("Kiev", "Ucrania"),
    ("Járkov", "Ucrania"),
)
# Real town lists of Faker address locales, with the country in Spanish, for the
# birthplaces of patients born abroad beyond FOREIGN_PLACES: (module, attribute, country).
FAKER_FOREIGN_TOWNS = (
    ("de_DE", "cities", "Alemania"),
    ("de_AT", "cities", "Austria"),
    ("it_IT", "cities", "Italia"),
    ("pt_PT", "cities", "Portugal"),
    ("ro_RO", "cities", "Rumanía"),
    ("pl_PL", "cities", "Polonia"),
    ("nl_NL", "cities", "Países Bajos"),
    ("es_CO", "municipalities", "Colombia"),
    ("es_CL", "communes", "Chile"),
)
CONTINENTS = ("Europa", "África", "América Latina", "Sudamérica", "Asia", "Centroamérica", "Europa del Este")

# ------------------------------------------------------------------ names

# Hand-written regional first names: (name, female?). The INE lists hold many of them
# too, but without accents and gender; these give both, and a regional flavour.
REGIONAL_FIRST_NAMES: dict[str, tuple[tuple[str, bool], ...]] = {
    "ca": tuple(
        [(n, False) for n in _words("Jordi Pere Joan Josep Marc Oriol Arnau Pol Ferran Quim Xavier Llorenç Jaume")]
        + [(n, False) for n in _words("Enric Lluís Martí Biel Roger Gerard Sergi Albert Eudald Pau Bernat Guillem")]
        + [(n, True) for n in _words("Núria Montserrat Laia Mireia Meritxell Roser Gemma Carme Mercè Neus Eulàlia")]
        + [(n, True) for n in _words("Assumpta Àngels Montse Anna Marta Berta Clàudia Júlia Aina Mariona Ona Queralt")]
    ),
    "gl": tuple(
        [(n, False) for n in _words("Xosé Xoán Iago Brais Breixo Anxo Xurxo Lois Roi Uxío Martiño Antón Xabier")]
        + [(n, True) for n in _words("Uxía Antía Noa Sabela Xiana Maruxa Olalla Iria Aldara Carme Rosalía Uxue")]
    ),
    "eu": tuple(
        [(n, False) for n in _words("Iñaki Aitor Asier Gorka Iker Jon Josu Mikel Unai Koldo Ibai Ander Eneko Xabi")]
        + [(n, False) for n in _words("Imanol Joseba Patxi Urko Beñat Oier Julen Aritz Igor")]
        + [(n, True) for n in _words("Ainhoa Amaia Ane Itziar Leire Maialen Nerea Oihane Edurne Garazi Haizea")]
        + [(n, True) for n in _words("Irati Miren Arantxa Nekane Izaskun Idoia Begoña Amaya Uxue Maite")]
    ),
    "es": tuple(
        [(n, False) for n in _words("Manuel Francisco Rafael Antonio Juan José Jesús Joaquín Rodrigo Álvaro Fermín")]
        + [
            (n, True)
            for n in _words("Rocío Macarena Reyes Dolores Maribel Amparo Inmaculada Esperanza Triana Consuelo")
        ]
    ),
    "can": tuple(
        [(n, False) for n in _words("Yeray Ayoze Tanausú Nauzet Jonay Acorán Airam Echedey")]
        + [(n, True) for n in _words("Acerina Guacimara Idaira Yaiza Tamara Chaxiraxi Nayra Cathaysa")]
    ),
}

REGIONAL_SURNAMES: dict[str, tuple[str, ...]] = {
    "ca": _words(
        """
        Puig Vila Ferrer Soler Serra Font Roca Pujol Casals Vidal Riera Mas Bosch Sala Coll Prat Pons Rovira
        Garriga Vilaró Camps Solé Bonet Roig Torrent Sabaté Batlle Grau Ribas Canals Domènech Comas Balcells
        Pagès Llobet Cases Subirats Perelló Fàbregas Vilanova Oliveras Tarrés Rius Figueras Estruch Castells
        Bertran Codina Sunyer Planas Noguera Valls Carbonell Esteve Llorens Miralles Vallverdú Brugués Mir
        """
    ),
    "gl": _words(
        """
        Otero Seoane Souto Lema Outeiro Carballo Piñeiro Bouzas Rei Pazos Lois Formoso Rial Ferreiro Couto
        Vilar Mouriño Barreiro Cotelo Regueira Losada Currás Varela Castiñeira Dopico Fraga Freire Nogueira
        Pereiro Vilariño Lamas Míguez Noya Gestoso Teijeiro Bermúdez Cambeiro Porto Vieites Sanmartín
        """
    ),
    "eu": _words(
        """
        Etxeberria Goikoetxea Agirre Arrieta Bengoetxea Elorza Gorostiaga Ibarra Larrañaga Mendizabal
        Olabarria Uriarte Zubizarreta Arregi Aranburu Garmendia Urkiola Zabala Lizarralde Azkue Aldekoa
        Iturbe Oiartzabal Errasti Etxaniz Otxoa Urrutia Zubiaurre Arrizabalaga Lekuona Beitia Ormaetxea
        Mugika Egaña Amezaga Zugasti Larrea Ugarte Eizagirre Zubeldia
        """
    ),
    "es": _words(
        """
        Cabello Vela Heredia Cortés Montoya Carmona Rosado Alcántara Ternero Orozco Lozano Cantero Fajardo
        Barrera Moya Galindo Arjona Villalobos Zamora Benjumea Espinosa Bernal Requena Ortega Navas Cuenca
        """
    ),
    "can": _words("Hernández Santana Perdomo Cabrera Betancor Rodríguez Quintana Déniz Suárez Falcón Medina"),
}

# Names Faker's locales do not have, written as they appear on Spanish documents.
ARABIC_FIRST_NAMES = tuple(
    [(n, False) for n in _words("Mohamed Mohammed Mohamed-Amine Ahmed Hassan Youssef Rachid Said Karim Omar")]
    + [(n, False) for n in _words("Hamza Abdelkader Mustapha Ilyas Abdellah Bilal Driss Nabil Tarik Yassine")]
    + [(n, True) for n in _words("Fatima Fátima Khadija Nadia Amina Zineb Latifa Samira Soukaina Hanane Naima")]
    + [(n, True) for n in _words("Malika Salma Houda Imane Rachida Zahra Yasmina Asmae Hafsa")]
)
ARABIC_SURNAMES = _words(
    """
    El-Amrani Benali Bouazza El-Idrissi Haddad Alaoui Ouali Bennani Tazi Chakir El-Ouahabi Lahlou Mansouri
    Zerouali Belkacem Abdellaoui Boutaleb Azzouzi Bakkali Chaoui El-Khattabi Hamdaoui Kaddouri Laaroussi
    Mokhtari Naciri Ouazzani Rahmouni Saidi Tahiri Ziani Amrani Boukhari
    """
)
CHINESE_SURNAMES = _words("Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Lin Guo He Gao Luo Ye")
CHINESE_GIVEN = tuple(
    [(n, False) for n in _words("Wei Hao Jie Lei Qiang Jun Bo Tao Feng Yong Ming Xiang Jian")]
    + [(n, True) for n in _words("Na Min Jing Fang Mei Xin Li Yan Hui Ying Lan Xiu Ting")]
)
WEST_AFRICAN_FIRST_NAMES = tuple(
    [(n, False) for n in _words("Mamadou Moussa Ousmane Ibrahima Cheikh Abdoulaye Modou Lamine Seydou Babacar")]
    + [(n, False) for n in _words("Chinedu Oluwaseun Adebayo Kwame Kofi Emeka")]
    + [(n, True) for n in _words("Aminata Fatou Awa Aissatou Mariama Kadiatou Binta Ndeye Coumba Ngozi Abena")]
)
WEST_AFRICAN_SURNAMES = _words(
    "Diallo Diop Ndiaye Sow Ba Fall Touré Traoré Keita Camara Coulibaly Sylla Cissé Konaté Mbaye Faye Sarr "
    "Gueye Diouf Okafor Eze Okonkwo Adeyemi Mensah Asante Boateng"
)
EASTERN_FIRST_NAMES = tuple(
    [(n, False) for n in _words("Oleksandr Andriy Dmytro Serhiy Mykola Vasyl Ivan Yuriy")]
    + [(n, True) for n in _words("Olena Iryna Oksana Natalia Tetiana Svitlana Halyna Yulia")]
)
EASTERN_SURNAMES = _words("Kovalenko Shevchenko Bondarenko Tkachenko Kravchenko Melnyk Boyko Moroz Lysenko Petrenko")

# Faker person locales used for foreign names, with how often each is drawn.
FAKER_FOREIGN_LOCALES = (
    ("ro_RO", 4),
    ("fr_FR", 2),
    ("pt_PT", 2),
    ("it_IT", 2),
    ("de_DE", 1),
    ("en_GB", 2),
    ("pl_PL", 1),
)
# Faker Spanish-language locales: their lists carry accents and gender for the INE names.
FAKER_SPANISH_LOCALES = ("es_ES", "es_CA", "es_MX", "es_AR", "es_CO", "es_CL")

# Accented spellings the Faker and MEDDOCAN lists may lack (INE writes names without accents).
ACCENTED = _words(
    """
    María José Jesús Ramón Martín Julián Adrián Sebastián Iván Óscar Álvaro Ángel Ángela Héctor Víctor Inés
    Mónica Sofía Lucía Raúl Rubén Andrés Tomás Nicolás Germán Joaquín Agustín Fermín Benjamín Valentín Ínigo
    Íñigo Aníbal Begoña Concepción Asunción Encarnación Purificación Visitación Presentación Ascensión Elías
    Matías Jesús Eugenia Zoé Noé Moisés Salomé Verónica Bárbara Débora Ángeles Álex Rocío Belén Nazaret Míriam
    Fátima Dolores Ramírez Álvarez Gómez López Pérez Sánchez Martínez Rodríguez Fernández González Hernández
    Jiménez Muñoz Díaz Gutiérrez Domínguez Vázquez Suárez Benítez Méndez Núñez Ibáñez Sáez Sáenz Ordóñez Peláez
    Velázquez Márquez Cortés Durán Rubén Beltrán Galán Román Marín Rincón Calderón León Colón Simón Ramón
    Ángeles García Díez Báez Páez Cáceres Córdoba Málaga Muñiz Pascual Cuéllar Andújar Jáuregui Arévalo Ávila
    Gálvez Gázquez Lázaro Pérez-Llorca Vélez Ríos Río Pardiñas Montaña Bermúdez Sáinz Míguez Chávez
    Giménez Álamo Garcés Cabañas Cañizares Peña Castaño Patiño Toribio Tejón Ortuño Quiñones Ruíz Ruiz Valdés
    """
)

# ------------------------------------------------------------------ places and streets

STREET_CORES_ES = _lines(
    """
    Mayor
    Real
    Nueva
    del Carmen
    de la Iglesia
    San Francisco
    Santa Ana
    de Cervantes
    Goya
    de Alcalá
    Reyes Católicos
    de la Constitución
    de Andalucía
    del Sol
    de las Flores
    Doctor Fleming
    Doctor Marañón
    de Colón
    Pío XII
    de la Paz
    Ramón y Cajal
    Blas Infante
    Antonio Machado
    Federico García Lorca
    Miguel Hernández
    de los Almendros
    del Pino
    Virgen del Pilar
    de la Estación
    del Mercado
    de la Fuente
    Dos de Mayo
    Doce de Octubre
    de los Olivos
    de la Libertad
    Juan de Herrera
    Sor Ángela de la Cruz
    de Castilla
    de Extremadura
    Isaac Peral
    Pablo Iglesias
    Clara Campoamor
    de la Ermita
    de los Mártires
    del Río
    Alférez Provisional
    Almirante Cervera
    de la Cooperación
    Obispo Hurtado
    de Santa Teresa
    """
)
STREET_TYPES_ES = (
    ("Calle", 30),
    ("C/", 25),
    ("C/.", 3),
    ("c/", 8),
    ("Cl.", 2),
    ("Avenida", 8),
    ("Avda.", 8),
    ("Av.", 4),
    ("Plaza", 5),
    ("Pza.", 2),
    ("Pl.", 1),
    ("Paseo", 3),
    ("Pº", 2),
    ("Camino", 2),
    ("Travesía", 1),
    ("Ronda", 1),
    ("Glorieta", 1),
    ("Callejón", 1),
)
STREET_CORES_CA = _lines(
    """
    de Sant Pere
    Major
    de la Riera
    del Pi
    de Verdaguer
    de Pompeu Fabra
    de Mossèn Cinto
    dels Arbres
    del Doctor Trueta
    de l'Església
    de Catalunya
    de la Muralla
    de Sant Antoni
    del Mar
    de les Corts
    de Can Ribes
    de la Creu
    del Vent
    de Francesc Macià
    de les Moreres
    """
)
STREET_TYPES_CA = (("carrer", 10), ("Carrer", 10), ("c/", 8), ("passeig", 3), ("Pg.", 2), ("plaça", 3), ("Pl.", 2))
STREET_TYPES_CA_EXTRA = (("avinguda", 3), ("Av.", 2), ("ronda", 1), ("travessera", 1), ("camí", 1))
STREET_CORES_GL = _lines(
    """
    do Franco
    da Paz
    Nova
    de Galicia
    Maior
    de Vigo
    dos Castiñeiros
    Rosalía de Castro
    Pintor Laxeiro
    do Hórreo
    da Igrexa
    do Muíño
    de Castelao
    das Hortas
    """
)
STREET_TYPES_GL = (("Rúa", 10), ("rúa", 4), ("Praza", 3), ("Avenida", 3), ("Estrada", 1), ("Camiño", 1))
RURAL_GL = _words("Outeiro Vilanova Cortiñas Pazos Aldea Carballal Fontela Regueiro Bouza Cruceiro")
STREET_CORES_EU = _lines(
    """
    Nagusia
    Elkano
    Gernikako Arbola
    Foruen
    Santiago
    Intxaurrondo
    Errekalde
    Zumalakarregi
    Lehendakari Agirre
    Sabino Arana
    Txurruka
    Amara
    """
)
STREET_TYPES_EU = (("kalea", 10), ("etorbidea", 3), ("plaza", 2), ("pasealekua", 1), ("auzoa", 1), ("bidea", 1))
RURAL_PLACES = _lines(
    """
    Cortijo Los Almendros
    Cortijo El Romeral
    Finca La Dehesa
    Finca Los Llanos
    Urbanización Los Pinos
    Urbanización El Mirador
    Urbanización Montesol
    Diseminado Las Lomas
    Partida La Marina
    Caserío Etxeberri
    Masía Can Roca
    Mas Pujol
    Barrio Arriba
    Polígono Industrial El Prado
    Lugar de Outeiro
    """
)
ROADS = ("Ctra. N-340", "Ctra. de Valencia", "Carretera N-II", "Ctra. A-7", "Ctra. C-17", "Ctra. CV-50", "Ctra. AC-552")
FOREIGN_STREETS = (
    "rue Victor Hugo",
    "avenue Jean Jaurès",
    "Rua de Santa Catarina",
    "Strada Mihai Eminescu",
    "Via Garibaldi",
    "Hauptstraße",
    "Calle 45 Sur",
    "Carrera 15",
    "Avenida Arequipa",
    "Jirón Puno",
    "ulica Długa",
    "Baker Street",
)

# ------------------------------------------------------------------ organisations

SAINTS = _words("Pedro Juan Jorge Agustín Rafael Cecilio Millán Roque Lázaro Telmo Vicente Pablo Andrés")
FEMALE_SAINTS = _words("Lucía Bárbara Clotilde Marina Teresa Cristina Eulalia Engracia Tecla Águeda")
VIRGINS = _lines(
    """
    de la Salud
    de los Lirios
    de la Vega
    de la Concha
    del Puerto
    de la Luz
    de las Nieves
    del Castañar
    de la Montaña
    de Altagracia
    de la Esperanza
    del Mar
    """
)
HOSPITAL_PATTERNS = _lines(
    """
    Hospital Universitario {place}
    Hospital General Universitario de {town}
    Hospital General de {town}
    Complejo Hospitalario Universitario de {town}
    Complejo Hospitalario de {town}
    Hospital Comarcal de {town}
    Hospital Clínico Universitario de {town}
    Hospital Universitario Virgen {virgin}
    Hospital San {saint}
    Hospital Santa {female_saint}
    Hospital Universitario Doctor {surname}
    Hospital Dr. {surname}
    Hospital {first} {surname}
    Hospital de {town}
    Clínica {surname}
    Clínica Virgen {virgin}
    Policlínica {town}
    Hospital Quirón {town}
    Hospital Materno-Infantil de {town}
    Hospital de Día {town}
    Hospital Nuestra Señora {virgin}
    """
)
HOSPITAL_PATTERNS_CA = _lines(
    """
    Hospital Universitari de {town}
    Hospital de Sant {saint}
    Hospital Comarcal de {town}
    Consorci Sanitari de {town}
    Hospital General de {town}
    Clínica {surname}
    """
)
HOSPITAL_PATTERNS_GL = _lines(
    """
    Complexo Hospitalario Universitario de {town}
    Hospital Comarcal de {town}
    Hospital da Mariña
    Hospital Público de {town}
    """
)
HOSPITAL_ABBREVIATIONS = _words("HUVR HGU HCU HUCA CHUAC HUMV HUPA HGUGM HCSC HUB HUVH CHN HULP HUSE HURS HUVN")

HEALTH_CENTRE_PATTERNS = _lines(
    """
    Centro de Salud {place}
    Centro de Salud de {town}
    Centro de Salud {town} {zone}
    CS {place}
    C.S. {place}
    Consultorio Local de {town}
    Consultorio de {town}
    Consultorio Médico de {town}
    Centro de Atención Primaria {place}
    PAC de {town}
    """
)
HEALTH_CENTRE_PATTERNS_CA = _lines(
    """
    CAP {place}
    CAP {town}
    ABS {town} {zone}
    ABS {place}
    Centre d'Atenció Primària {place}
    """
)
HEALTH_CENTRE_PATTERNS_GL = ("Centro de Saúde de {town}", "Centro de Saúde {place}", "PAC de {town}")
HEALTH_CENTRE_PATTERNS_EU = ("{town} Osasun Zentroa", "Centro de Salud de {town}", "Ambulatorio de {town}")
ZONES = ("Norte", "Sur", "Centro", "Este", "Oeste", "I", "II", "III", "1", "2", "4", "Casco Antiguo", "Ensanche")

# Institution patterns by kind: courts, care homes, schools, councils, social services,
# police, NGOs, mutual insurers and companies (not the patient's employer: that is
# OTROS_SUJETO_ASISTENCIA by guideline P28.1).
INSTITUTION_PATTERNS = _lines(
    """
    Juzgado de Primera Instancia nº {n} de {town}
    Juzgado de Instrucción nº {n} de {town}
    Juzgado de Guardia de {town}
    Juzgado de Violencia sobre la Mujer nº {n} de {town}
    Fiscalía de Menores de {province}
    Residencia {surname}
    Residencia de Mayores {place}
    Residencia Geriátrica {place}
    Residència {place}
    Centro de Día {place}
    Colegio {place}
    CEIP {place}
    IES {place}
    Escuela Infantil {place}
    Ikastola {place}
    Ayuntamiento de {town}
    Servicios Sociales de {town}
    Servicios Sociales de Base de {town}
    Policía Local de {town}
    Instituto de Medicina Legal de {province}
    Centro Penitenciario de {town}
    Universidad de {town}
    Fundación {surname}
    Asociación de Familiares de Enfermos de Alzheimer de {town}
    Centro de Acogida {place}
    Oficina de Extranjería de {province}
    Farmacia {surname}
    """
)
INSTITUTION_NAMES = _lines(
    """
    Guardia Civil
    Mossos d'Esquadra
    Ertzaintza
    Policía Nacional
    Cruz Roja
    Cáritas
    ONCE
    SAMUR
    SUMMA 112
    SEM
    INSS
    Instituto Nacional de la Seguridad Social
    IMSERSO
    Médicos del Mundo
    Accem
    CEAR
    Fremap
    Asepeyo
    MC Mutual
    Ibermutua
    Mutua Universal
    MUFACE
    ISFAS
    Sanitas
    Adeslas
    DKV
    Asisa
    Medtronic
    Boston Scientific
    Abbott
    Roche
    Pfizer
    """
)
COMPANY_PATTERNS = _lines(
    """
    Construcciones {surname} S.L.
    Transportes {surname} S.A.
    Talleres {surname}
    Limpiezas {place} S.L.
    Supermercados {surname}
    Hotel {place}
    Restaurante {place}
    Panadería {surname}
    Autocares {surname}
    Frutas {surname} e Hijos
    Gestoría {surname}
    Carpintería {surname}
    Mercadona
    Renfe
    Correos
    Inditex
    Seat
    Telefónica
    """
)

# ------------------------------------------------------------------ people

# Common occupations as (masculine, feminine) forms.
PROFESSIONS = tuple(
    tuple(pair.split("/"))
    for pair in _lines(
        """
        albañil/albañil
        camarero/camarera
        cocinero/cocinera
        conductor de autobús/conductora de autobús
        camionero/camionera
        taxista/taxista
        agricultor/agricultora
        jornalero/jornalera
        ganadero/ganadera
        pescador/pescadora
        mecánico/mecánica
        electricista/electricista
        fontanero/fontanera
        carpintero/carpintera
        pintor/pintora
        soldador/soldadora
        maestro/maestra
        profesor de instituto/profesora de instituto
        administrativo/administrativa
        dependiente/dependienta
        cajero de supermercado/cajera de supermercado
        auxiliar de enfermería/auxiliar de enfermería
        enfermero/enfermera
        limpiador/limpiadora
        empleado de hogar/empleada de hogar
        cuidador de personas mayores/cuidadora de personas mayores
        peluquero/peluquera
        abogado/abogada
        ingeniero informático/ingeniera informática
        arquitecto/arquitecta
        farmacéutico/farmacéutica
        policía local/policía local
        guardia civil/guardia civil
        bombero/bombera
        militar/militar
        vigilante de seguridad/vigilante de seguridad
        repartidor/repartidora
        operario de fábrica/operaria de fábrica
        minero/minera
        trabajador de la construcción/trabajadora de la construcción
        funcionario de prisiones/funcionaria de prisiones
        periodista/periodista
        músico/música
        futbolista profesional/futbolista profesional
        estudiante de Medicina/estudiante de Medicina
        comercial/comercial
        informático/informática
        panadero/panadera
        carnicero/carnicera
        temporero/temporera
        marinero/marinera
        veterinario/veterinaria
        azafato de vuelo/azafata de vuelo
        monitor de tiempo libre/monitora de tiempo libre
        """
    )
)
# Occupation modifiers that stay outside the span (guideline N7.1).
PROFESSION_MODIFIERS = ("jubilado", "jubilada", "en paro", "de baja laboral", "en activo", "retirado", "retirada")

# Kinship words by sex of the relative (FAMILIARES_SUJETO_ASISTENCIA).
RELATIVES_MALE = _words("padre hijo hermano marido esposo abuelo nieto tío sobrino primo cuñado suegro yerno pareja")
RELATIVES_FEMALE = _words("madre hija hermana mujer esposa abuela nieta tía sobrina prima cuñada suegra nuera pareja")
RELATIVE_MODIFIERS = ("mayor", "menor", "pequeño", "materno", "paterno", "gemelo")
RELATIVE_GROUPS = _lines(
    """
    padres
    dos hijos
    tres hijos
    dos hijas
    un hijo
    una hija
    dos hermanos
    tres hermanas
    sus hijos
    familia
    familiares
    hermanos
    nietos
    progenitores
    """
)

# Ethnic and population groups, sexual orientation (ID_SUJETO_ASISTENCIA, guideline
# C1, P17.2, P17.3) written as they follow "Paciente" / "Mujer" in running text.
POPULATION_GROUPS = _lines(
    """
    raza blanca
    raza negra
    caucásico
    caucásica
    de origen subsahariano
    de etnia gitana
    homosexual
    heterosexual
    bisexual
    transexual
    """
)
# Other identifying facts (OTROS_SUJETO_ASISTENCIA, P28.1).
DISTINGUISHING_MARKS = _lines(
    """
    tatuaje de un ancla en el antebrazo derecho
    tatuaje con el escudo del Real Betis en la espalda
    tatuaje de una rosa en el tobillo izquierdo
    piercing en la ceja izquierda
    cicatriz de quemadura en la mejilla derecha
    tatuaje tribal en el hombro
    """
)

# ------------------------------------------------------------------ clinical text (no PHI)

SERVICES = _lines(
    """
    Cardiología
    Medicina Interna
    Neumología
    Neurología
    Digestivo
    Aparato Digestivo
    Nefrología
    Endocrinología
    Traumatología
    Cirugía General
    Urología
    Ginecología
    Oncología Médica
    Hematología
    Geriatría
    Psiquiatría
    Pediatría
    Reumatología
    Dermatología
    Rehabilitación
    Urgencias
    Medicina Intensiva
    Anestesiología
    Otorrinolaringología
    Oftalmología
    Enfermedades Infecciosas
    Cuidados Paliativos
    """
)
EPONYMS = _lines(
    """
    enfermedad de Parkinson
    enfermedad de Alzheimer
    enfermedad de Crohn
    linfoma de Hodgkin
    síndrome de Guillain-Barré
    síndrome de Sjögren
    enfermedad de Graves-Basedow
    síndrome de Cushing
    enfermedad de Addison
    tiroiditis de Hashimoto
    esófago de Barrett
    síndrome de Down
    enfermedad de Paget
    contractura de Dupuytren
    fenómeno de Raynaud
    neuralgia del trigémino
    enfermedad de Still
    """
)
SCALES = _lines(
    """
    Glasgow 15/15
    Glasgow 14
    índice de Barthel 60
    Barthel 95
    escala de Norton 14
    escala de Braden 16
    escala de Downton 3
    test de Pfeiffer con 2 errores
    NIHSS 4
    Killip I
    CURB-65 de 2
    ECOG 1
    Karnofsky 70%
    escala de Gijón 12
    Child-Pugh A
    NYHA II
    Apgar 9/10
    escala EVA 7/10
    Wells 3
    mRankin 2
    """
)
SIGNS = _lines(
    """
    Murphy negativo
    Blumberg negativo
    Romberg negativo
    Babinski bilateral negativo
    Lasègue positivo a 40º
    signo de Homans negativo
    puñopercusión renal bilateral negativa
    Rovsing negativo
    """
)
DRUGS = _lines(
    """
    paracetamol 1 g/8 h
    Nolotil 575 mg/8 h
    Enantyum 25 mg/8 h si dolor
    omeprazol 20 mg/24 h
    Sintrom según pauta de hematología
    Adiro 100 mg/24 h
    Eutirox 75 mcg en ayunas
    Seguril 40 mg/día
    furosemida 40 mg/12 h
    Lexatin 1,5 mg/12 h
    Orfidal 1 mg por la noche
    Ventolin 2 inhalaciones/6 h
    Symbicort 160/4,5 1-0-1
    Spiriva 18 mcg/24 h
    Xarelto 20 mg/24 h
    Eliquis 5 mg/12 h
    metformina 850 mg cada 12 h
    Januvia 100 mg/24 h
    Lantus 18 UI por la noche
    NovoRapid según glucemias
    atorvastatina 40 mg/24 h
    enalapril 10 mg/12 h
    bisoprolol 2,5 mg/24 h
    Augmentine 875/125 mg/8 h durante 7 días
    levofloxacino 500 mg/24 h
    ceftriaxona 2 g/24 h iv
    Clexane 40 mg/24 h sc
    Hidroferol 0,266 mg mensual
    Tardyferon 80 mg/24 h
    Trankimazin 0,5 mg si ansiedad
    Dacortín 30 mg en pauta descendente
    tramadol 50 mg/8 h
    Zaldiar 37,5/325 mg/8 h
    Lyrica 75 mg/12 h
    Movicol 1 sobre/24 h
    Duphalac 15 ml/12 h
    Primperan 10 mg/8 h si náuseas
    amlodipino 5 mg/24 h
    """
)
COMPLAINTS = _lines(
    """
    dolor torácico opresivo
    disnea de moderados esfuerzos
    fiebre de hasta 38,7 ºC
    dolor abdominal en fosa ilíaca derecha
    cefalea holocraneal
    síncope sin pródromos
    deposiciones melénicas
    tos productiva con expectoración amarillenta
    mareo con inestabilidad
    edemas en miembros inferiores
    dolor lumbar irradiado a pierna izquierda
    disuria y polaquiuria
    caída casual en domicilio
    palpitaciones
    pérdida de fuerza en hemicuerpo derecho
    hematuria macroscópica
    vómitos alimentarios
    rectorragia
    dolor en rodilla derecha tras traumatismo
    lesiones cutáneas pruriginosas
    ideación autolítica
    alteración del comportamiento
    """
)
DIAGNOSES = _lines(
    """
    neumonía adquirida en la comunidad
    insuficiencia cardiaca descompensada
    fibrilación auricular con respuesta ventricular rápida
    infección del tracto urinario
    EPOC agudizada
    ictus isquémico en territorio de la ACM izquierda
    cólico renoureteral izquierdo
    pielonefritis aguda
    hemorragia digestiva alta
    fractura de cadera derecha
    diabetes mellitus tipo 2 descompensada
    síndrome coronario agudo sin elevación del ST
    celulitis en miembro inferior izquierdo
    trombosis venosa profunda
    anemia ferropénica
    colecistitis aguda litiásica
    apendicitis aguda
    gastroenteritis aguda
    crisis hipertensiva
    episodio depresivo mayor
    """
)
BACKGROUND = _lines(
    """
    HTA
    DM tipo 2
    dislipemia
    EPOC
    cardiopatía isquémica
    fibrilación auricular
    insuficiencia renal crónica estadio 3
    hipotiroidismo
    obesidad
    SAHS en tratamiento con CPAP
    artrosis
    osteoporosis
    hiperplasia benigna de próstata
    asma
    migraña
    depresión
    exfumador
    fumador de 20 cigarrillos/día
    bebedor moderado
    """
)
EXAM_FINDINGS = _lines(
    """
    Consciente, orientado y colaborador
    Normocoloreado y normohidratado
    Eupneico en reposo
    AC: rítmica, sin soplos
    AP: murmullo vesicular conservado
    AP: crepitantes bibasales
    Abdomen blando y depresible, no doloroso
    Abdomen doloroso a la palpación en epigastrio
    MMII: sin edemas ni signos de TVP
    MMII: edemas con fóvea hasta rodillas
    Pupilas isocóricas y normorreactivas
    Sin focalidad neurológica
    Pulsos periféricos presentes y simétricos
    """
)
TESTS = _lines(
    """
    Radiografía de tórax: sin condensaciones
    Radiografía de tórax: infiltrado en base derecha
    ECG: ritmo sinusal a 78 lpm, sin alteraciones de la repolarización
    ECG: fibrilación auricular a 120 lpm
    TC craneal: sin lesiones agudas
    Ecografía abdominal: colelitiasis sin signos de colecistitis
    Analítica: Hb 10,2 g/dl, leucocitos 13.400, PCR 86 mg/l
    Analítica: creatinina 1,8 mg/dl, Na 134 mEq/l, K 5,1 mEq/l
    Gasometría venosa: pH 7,31, pCO2 52 mmHg
    Urocultivo: E. coli sensible a fosfomicina
    Troponina I ultrasensible 45 ng/l
    Dímero D 1.250 ng/ml
    """
)
LAB_TESTS = (
    # (name, unit, low, high, decimals)
    ("Hemoglobina", "g/dl", 9.0, 16.5, 1),
    ("Hematocrito", "%", 30.0, 50.0, 1),
    ("Leucocitos", "x10^3/µl", 3.5, 18.0, 1),
    ("Plaquetas", "x10^3/µl", 90, 420, 0),
    ("Glucosa", "mg/dl", 70, 260, 0),
    ("Urea", "mg/dl", 18, 95, 0),
    ("Creatinina", "mg/dl", 0.5, 2.6, 2),
    ("Sodio", "mEq/l", 128, 146, 0),
    ("Potasio", "mEq/l", 3.1, 5.6, 1),
    ("PCR", "mg/l", 0.5, 180.0, 1),
    ("Colesterol total", "mg/dl", 130, 290, 0),
    ("HbA1c", "%", 5.0, 10.5, 1),
    ("TSH", "µUI/ml", 0.3, 8.0, 2),
    ("Ferritina", "ng/ml", 12, 480, 0),
    ("GOT", "U/l", 12, 110, 0),
    ("GPT", "U/l", 10, 130, 0),
    ("INR", "", 0.9, 3.4, 2),
    ("Procalcitonina", "ng/ml", 0.02, 4.5, 2),
)
NURSING_CARES = _lines(
    """
    Se realiza cura de úlcera sacra grado II con apósito hidrocoloide
    Portador de sonda vesical tipo Foley nº 16
    Vía periférica en antebrazo izquierdo, permeable
    Se administra medicación pautada sin incidencias
    Diuresis conservada, orina clara
    Deambula con andador y ayuda de una persona
    Ingesta del 50% de la dieta
    Refiere dolor 4/10, se administra analgesia de rescate
    Descansa durante la noche
    Cambios posturales cada 3 horas
    Se retira vía periférica por flebitis
    Glucemia capilar 184 mg/dl, se ajusta insulina según pauta
    """
)
RADIOLOGY_STUDIES = _lines(
    """
    TC de tórax con contraste
    RM de columna lumbar
    Ecografía abdominal
    Radiografía de tórax PA y lateral
    TC craneal sin contraste
    Angio-TC de arterias pulmonares
    Mamografía bilateral
    RM de rodilla derecha
    Ecografía Doppler de miembros inferiores
    """
)
RADIOLOGY_FINDINGS = _lines(
    """
    No se observan adenopatías mediastínicas de tamaño significativo
    Nódulo pulmonar de 8 mm en lóbulo superior derecho
    Derrame pleural izquierdo de pequeña cuantía
    Protrusión discal L4-L5 que contacta con la raíz L5 izquierda
    Hígado de tamaño normal y ecoestructura homogénea
    Vesícula biliar con múltiples litiasis
    Sin signos de sangrado intracraneal agudo
    Defecto de repleción en arteria lobar inferior derecha
    Rotura del menisco interno en su cuerno posterior
    Lesión focal hepática de 2 cm compatible con hemangioma
    """
)
# (sample, diagnosis) pairs of a pathology report.
PATHOLOGY_CASES = (
    ("biopsia de próstata (12 cilindros)", "Adenocarcinoma acinar de próstata, Gleason 3+4=7 (grupo de grado 2)"),
    ("pieza de hemicolectomía derecha", "Adenocarcinoma de colon moderadamente diferenciado, pT3 N1a"),
    ("biopsia gástrica endoscópica", "Gastritis crónica con presencia de Helicobacter pylori"),
    ("biopsia de mama con aguja gruesa", "Carcinoma ductal infiltrante de mama, grado histológico 2"),
    ("pieza de colecistectomía", "Colecistitis crónica litiásica"),
    ("biopsia cutánea por punch", "Carcinoma basocelular nodular con márgenes libres"),
    ("citología de PAAF tiroidea", "Hallazgos citológicos benignos (categoría II de Bethesda)"),
    ("pieza de apendicectomía", "Apendicitis aguda flemonosa"),
    ("biopsia de ganglio cervical", "Linfoma de Hodgkin clásico, subtipo esclerosis nodular"),
    ("biopsia duodenal", "Atrofia vellositaria compatible con enfermedad celíaca (Marsh 3b)"),
)
CONSENT_PROCEDURES = _lines(
    """
    colonoscopia con sedación
    cateterismo cardiaco
    artroplastia total de rodilla
    transfusión de hemoderivados
    anestesia general
    biopsia hepática percutánea
    colecistectomía laparoscópica
    implante de marcapasos definitivo
    """
)
DEVICES = _lines(
    """
    marcapasos bicameral
    desfibrilador automático implantable
    bomba de insulina
    audífono retroauricular
    sistema de monitorización continua de glucosa
    neuroestimulador medular
    prótesis total de cadera
    """
)
TRIAGE_LEVELS = ("nivel I (rojo)", "nivel II (naranja)", "nivel III (amarillo)", "nivel IV (verde)", "nivel V (azul)")
