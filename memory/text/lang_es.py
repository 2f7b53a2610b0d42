"""Spanish: stopwords (after Snowball's list), Snowball stems, and the code signals' words.

Spanish drops the subject pronoun: the first person shows in the verb ("tengo", "compré"), so common
first-person verb forms count as the first person, and a past action needs no subject. ``SLOTS``:
single-value facts the speaker states of themselves; ``ENTITIES``: the work, places, people and pets
of their life ("trabajo en ..." names an employer or a place, so only its words tell which).
"""

from __future__ import annotations

from caim.memory.text.intent_words import IntentWords
from caim.memory.text.tables import (
    DAYS,
    EntityWords,
    Language,
    PastTense,
    PolarityWords,
    Signals,
    SlotWords,
    TimeWords,
    combine,
    counting,
    phrases,
    spelled,
    table_words,
    vote_words,
    words,
)

STOPWORDS = frozenset(
    words("""de la que el en y a los del se las por un para con no una su al lo como más pero sus le ya o este sí
    porque esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos durante todos uno
    les ni contra otros ese eso ante ellos e esto mí antes algunos qué unos yo otro otras otra él tanto esa
    estos mucho quienes nada muchos cual poco ella estar estas algunas algo nosotros mi mis tú te ti tu tus
    ellas nosotras os mío mía míos mías tuyo tuya suyo suya nuestro nuestra nuestros nuestras es son fue era
    soy estoy está están he ha han hemos había habían""")
)

# Goal-aware recall (``caim.memory.intents``): request cues, closed vocabularies and slot words.
_N = r"(?P<n>\d{1,2}|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez)"
INTENTS = IntentWords(
    code="es",
    cues={
        "restaurant": (
            r"\brestaurante\b",
            r"\b(?:reserv|busc|encuentr)\w*\b.{0,40}\b(?:mesa|cena|comida|almuerzo|brunch)\b",
            r"\buna mesa para\b",
            r"\bcomer fuera\b",
        ),
        "travel": (r"\b(?:viaje|vacaciones|escapada|excursión)\w*",),
        "gift": (r"\bregalo\w*",),
        "appointment": (
            r"\bcita\b",
            r"\b(?:dentista|médico|medico|peluquer\w*|veterinari\w*|fisio\w*)\b.{0,40}\b(?:reserv|pedir|pide|agend)\w*",
            r"\b(?:reserv|pedir|pide|agend)\w*\b.{0,40}\b(?:dentista|médico|peluquer\w*|veterinari\w*|fisio\w*)\b",
        ),
        "entertainment": (
            r"\b(?:cine|película|concierto|teatro|entradas?|espectáculo)\b.{0,40}\b(?:esta noche|fin de semana|viernes|"
            r"sábado|domingo|ver|ir|reserv|busc|compr|consig)\w*",
            r"\b(?:reserv|busc|compr|consig)\w*\b.{0,30}\b(?:entradas?|cine|concierto|película)\b",
            r"\bsalir de noche\b",
        ),
    },
    vocab={
        "cuisine": {
            "italiana": "italian",
            "italiano": "italian",
            "japonesa": "japanese",
            "japonés": "japanese",
            "china": "chinese",
            "chino": "chinese",
            "mexicana": "mexican",
            "mexicano": "mexican",
            "india": "indian",
            "indio": "indian",
            "tailandesa": "thai",
            "francesa": "french",
            "griega": "greek",
            "española": "spanish",
            "coreana": "korean",
            "vietnamita": "vietnamese",
            "peruana": "peruvian",
            "sushi": "sushi",
            "pizza": "pizza",
            "tapas": "tapas",
        },
        "diet": {
            "vegetariana": "vegetarian",
            "vegetariano": "vegetarian",
            "vegana": "vegan",
            "vegano": "vegan",
            "sin gluten": "gluten-free",
            "sin lactosa": "lactose-free",
            "halal": "halal",
            "kosher": "kosher",
        },
        "lodging": {
            "hotel": "hotel",
            "hostal": "hostel",
            "albergue": "hostel",
            "apartamento": "apartment",
            "airbnb": "airbnb",
            "camping": "camping",
            "casa rural": "guesthouse",
        },
        "transport": {
            "tren": "train",
            "avión": "plane",
            "coche": "car",
            "carro": "car",
            "autobús": "bus",
            "ferry": "ferry",
            "bici": "bike",
        },
        "occasion": {
            "cumpleaños": "birthday",
            "aniversario": "anniversary",
            "boda": "wedding",
            "navidad": "christmas",
            "jubilación": "retirement",
            "graduación": "graduation",
        },
        "provider": {
            "dentista": "dentist",
            "médico": "doctor",
            "fisioterapeuta": "physiotherapist",
            "fisio": "physiotherapist",
            "peluquero": "hairdresser",
            "peluquera": "hairdresser",
            "peluquería": "hairdresser",
            "veterinario": "vet",
            "óptico": "optician",
            "dermatólogo": "dermatologist",
        },
        "time": {
            "por la mañana": "mornings",
            "mañanas": "mornings",
            "por la tarde": "afternoons",
            "tardes": "afternoons",
            "por la noche": "evenings",
            "fines de semana": "weekends",
            "fin de semana": "weekends",
            "sábados": "saturdays",
            "mediodía": "lunchtime",
        },
        "genre": {
            "terror": "horror",
            "comedia": "comedy",
            "thriller": "thriller",
            "ciencia ficción": "sci-fi",
            "drama": "drama",
            "jazz": "jazz",
            "rock": "rock",
            "clásica": "classical",
            "ópera": "opera",
            "musical": "musical",
            "techno": "techno",
            "flamenco": "flamenco",
        },
    },
    people=(
        rf"\b(?:somos|seremos|para) {_N}(?: personas| adultos| invitados)?\b",
        rf"\b{_N} personas\b",
    ),
    numbers={
        "dos": "2",
        "tres": "3",
        "cuatro": "4",
        "cinco": "5",
        "seis": "6",
        "siete": "7",
        "ocho": "8",
        "nueve": "9",
        "diez": "10",
    },
    money=r"\d[\d.,]*\s?(?:€|(?:euros?|pesos?|dólares?)\b)|[€$]\s?\d[\d.,]*",
    relatives={
        "hermana": "sister",
        "hermano": "brother",
        "madre": "mother",
        "mamá": "mum",
        "padre": "father",
        "papá": "dad",
        "mujer": "wife",
        "esposa": "wife",
        "marido": "husband",
        "esposo": "husband",
        "novia": "girlfriend",
        "novio": "boyfriend",
        "amiga": "friend",
        "amigo": "friend",
        "hijo": "son",
        "hija": "daughter",
        "abuela": "grandma",
        "abuelo": "grandpa",
        "sobrino": "nephew",
        "sobrina": "niece",
        "compañera": "colleague",
        "compañero": "colleague",
    },
    mine=r"\b(?:mi|mis)\s+(?:mejor\s+)?{rel}",
    company=r"\bcon\s+(?:mi|mis)\s+{rel}",
    likes=r"(?:\b(?:a\s+)?(?:mi|mis)\s+(?:mejor\s+)?{rel}\s+(?:le\s+|les\s+)?|\b(?:ella|él)\s+|(?:^|[.!?¡]\s*)le\s+)(?:encanta|encantan|gusta|"
    r"gustan|apasiona|ama|adora|colecciona|está obsesionad[oa] con)\s+(?P<thing>[^.,;!?]{2,40})",
    ends=r"\s+(?:y|pero|porque|desde|cada|todos|todas)\b",
    outcomes={
        "cancelled": r"\b(?:cancelad[oa]s?|cancél[ao]|cancela(?:r|lo|la)|anulad[oa]s?|anúla(?:lo|la)|olvídalo)\b",
        "booked": r"\b(?:reservad[oa]s?|comprad[oa]s?|pedid[oa]s?|confirmad[oa]s?)\b",
        "chosen": r"\b(?:me quedo con|nos quedamos con|elijo|elegimos|vamos con|suena bien)\b",
    },
)

MONTHS = words("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre")
WEEKDAYS = {"lunes": 0, "martes": 1, "miércoles": 2, "jueves": 3, "viernes": 4, "sábado": 5, "domingo": 6}
_DAYS = dict(zip(WEEKDAYS, DAYS, strict=True))
_UNITS = {"semana": "week", "fin de semana": "weekend", "mes": "month", "año": "year"}
_LAST = dict.fromkeys(words("pasado pasada anterior"), "last")
_NEXT = dict.fromkeys(("próximo", "próxima", "que viene"), "next")

TIME = TimeWords(
    phrases={
        "ayer": "yesterday",
        "anteayer": "the day before yesterday",
        "antes de ayer": "the day before yesterday",
        "antier": "the day before yesterday",
        "hoy": "today",
        "esta mañana": "this morning",
        "esta noche": "tonight",
        "anoche": "last night",
        "ayer por la noche": "last night",
        "mañana": "tomorrow",
        "recientemente": "recently",
        "últimamente": "lately",
        "hace poco": "recently",
        "el otro día": "the other day",
        **combine(_LAST, _UNITS | _DAYS, after=True),
        **combine({"último": "last", "última": "last"}, _UNITS),
        **combine({"este": "this", "esta": "this"}, _UNITS | _DAYS),
        **combine(_NEXT, _UNITS | _DAYS, after=True),
        **combine({"próximo": "next", "próxima": "next"}, _UNITS | _DAYS),
    },
    ago="hace {count} {unit}",
    counts={"un": "a", "una": "a", "unos": "a few", "unas": "a few", "algunos": "a few", "algunas": "a few"}
    | {"un par de": "a couple of", "varios": "several", "varias": "several"}
    | counting("dos tres cuatro cinco seis siete ocho nueve diez", 2),
    units={"día": "day", "días": "day", "dia": "day", "dias": "day", "semana": "week", "semanas": "week"}
    | {"mes": "month", "meses": "month", "año": "year", "años": "year"},
    months={**dict(zip(MONTHS, range(1, 13), strict=True)), "setiembre": 9, "sept": 9},
    weekdays=WEEKDAYS,
    dates=(r"{day} de {month}(?: de(?:l)? {year})?", r"{day} {month}(?: {year})?", r"{month} de(?:l)? {year}"),
    in_month=(
        r"en {month}",
        r"el mes de {month}",
        r"principios de {month}",
        r"mediados de {month}",
        r"finales de {month}",
    ),
    markers=("desde", "hace tiempo", "hace mucho", "en aquel entonces"),
)

_FIRST_PERSON_VERBS = words(
    """soy estoy tengo vivo trabajo quiero necesito voy hago prefiero estudio juego puedo he hemos tenemos somos
    estamos vivimos fui fuimos tuve hice estuve era estaba tenía"""
)

SIGNALS = Signals(
    first_person=words("yo me mi mis mí conmigo nosotros nosotras nos nuestro nuestra nuestros nuestras")
    + tuple(_FIRST_PERSON_VERBS),
    third_person=words("él ella ellos ellas"),
    telling=phrases(
        """soy; era; fui; estoy; estaba; es; está; son; tengo; tenía; tenemos; tiene; amo; odio; prefiero; quiero;
        queremos; necesito; voy; vamos; iba; trabajo; trabajamos; vivo; vivimos; juego; estudio; aprendo; compré;
        hice; hago; adopté; casado; casada; nací; empecé; visité; llamo; llama; puedo; nunca; siempre;
        normalmente; cada; favorito; favorita; me gusta; me gustan; me encanta; me encantan; me casé; me mudé;
        me encantaría; me gustaría"""
    ),
    # "I'm sorry / glad / proud of you / here for you / not sure": said to the other side
    reactions=phrases("lo siento; lo siento mucho; me alegro; me alegro mucho; me alegro por ti; me alegra; qué pena")
    + spelled(
        ("estoy", "estamos", "no estoy"),
        ("", "muy", "tan"),
        phrases("orgulloso de ti; orgullosa de ti; feliz por ti; contento por ti; contenta por ti; aquí para ti")
        + phrases("seguro; segura"),
    ),
    past=PastTense(
        subjects=words("yo nosotros nosotras"),
        auxiliaries=words("he hemos había habíamos"),
        not_after=words("un una unos unas el la los las lo mi mis tu tus su sus nuestro nuestra"),
        participle=r"\w+(?:ado|ada|ados|adas|ido|ida|idos|idas)|hecho|visto|dicho|escrito|puesto|vuelto|roto|abierto",
        simple=words(
            """fui fuimos tuve tuvimos hice hicimos estuve estuvimos vi vimos dije dijimos pude pudimos puse vine
            vinimos supe quise di dimos traje conduje éramos estaba estábamos tenía teníamos iba íbamos"""
        ),
        simple_endings=("é", "í"),
        not_simple=words("qué aquí allí ahí así sí mí café bebé josé sé dé esquí rubí maní"),
        subject_required=False,
    ),
    past_reference=phrases(
        """te acuerdas; se acuerda; recuerdas; recuerda; te conté; te dije; te hablé; te lo dije; te mencioné;
        mencioné; te mostré; te enseñé; te envié; te mandé; me dijiste; me recomendaste; me sugeriste;
        me contaste; me enseñaste; me mostraste; me diste; hablamos; hemos hablado; la última vez; el otro día;
        antes; anteriormente; previamente; otra vez; de nuevo; todavía; solía; solíamos"""
    ),
    asks_past=phrases(
        """antes; solía; solías; solíamos; anteriormente; originalmente; antiguo; antigua; antiguos; antiguas;
        en aquel entonces; en ese momento; en esa época; al principio; previamente"""
    ),
    when=phrases(
        """cuándo; ¿cuando; en qué año; qué año; en qué mes; qué mes; qué día; qué fecha; en qué fecha; hace cuánto;
        desde cuándo; cuánto tiempo hace"""
    ),
    aggregate=phrases("cuántos; cuántas; cuánto; cuantos; cuantas; cuántas veces"),
    question_words=phrases(
        "qué; quién; quiénes; dónde; adónde; cuándo; cómo; cuál; cuáles; cuánto; cuántos; cuántas; por qué"
    ),
    greetings=phrases("hola; buenas; buenos días; buenas tardes; gracias; muchas gracias; mil gracias"),
    exclamations=phrases(
        """genial; guay; increíble; estupendo; fantástico; perfecto; bravo; wow; guau; maravilloso; qué bien;
        qué guay; muy bien; qué bonito; qué chulo"""
    ),
    sign_offs=phrases(
        """ok; vale; de acuerdo; adiós; hasta luego; hasta pronto; hasta mañana; nos vemos; chao; chau;
        buenas noches; claro"""
    ),
    openers=phrases(
        "sí; bueno; pues; vale; oye; mira; ah; oh; ay; hola; gracias; claro; ok; vaya; guau; muchas gracias"
    ),
    not_names=words(
        """Yo Tú Él Ella Nosotros Ellos Ellas Usted El La Los Las Un Una Mi Mis Tu Su Hola Gracias Sí No Bueno Pero
        Y Vale Oye Mira Qué Claro Genial Buenos Buenas User Assistant"""
    ),
    quotes='"\u201c\u00ab',
    giving=phrases(
        """te recomiendo; le recomiendo; os recomiendo; recomiendo; te sugiero; sugiero; te aconsejo; propongo;
        he reservado; reservé; te envié; te mando"""
    ),
    accepting=phrases(
        """gracias; muchas gracias; ok; vale; de acuerdo; buena idea; gran idea; me parece bien; suena bien; perfecto;
        genial; estupendo; lo probaré; lo intentaré; voy a probar; voy a intentar; sí; claro; por supuesto;
        excelente; me gusta la idea"""
    ),
    refusing=phrases("no; no gracias; mejor no; prefiero no; no mucho; gracias, pero; no me interesa"),
    claims=phrases(
        """mencionaste; me dijiste; dijiste; como decías; me contaste; usted mencionó; eres; vives; trabajas; tu;
        tus; su hermana; su hermano"""
    ),
    wishes=phrases(
        """que te diviertas; que lo pases bien; buena suerte; que tengas; disfruta; disfrutad; buen viaje;
        hasta pronto; nos vemos; feliz"""
    ),
    time=TIME,
)

#: Preference cues (``caim.memory.text.polarity``).
POLARITY = PolarityWords(
    likes=phrases(
        """me gusta; me gustan; me gustó; me gustaron; me encanta; me encantan; me encantó; me encantaron; amo;
        adoro; disfruto; disfruté; prefiero; soy fan; soy muy fan; fan de; me fascina; me fascinan; me chifla;
        me chiflan; me flipa; me flipan; me mola; me molan; me vuelve loco; me vuelve loca; me vuelven loco;
        me vuelven loca; estoy enganchado; estoy enganchada; enganchado a; enganchada a; obsesionado con;
        obsesionada con; me apasiona; me apasionan; apasionado de; apasionada de; loco por; loca por;
        me hace feliz; me hacen feliz; me relaja; me relajan; me calma; me da paz; me despeja; me salvó la vida;
        me sentí increíble; lo vuelvo a ver; la vuelvo a ver; no me canso; nunca me canso;
        le gusta; le gustan; le encanta; le encantan; les gusta; les gustan; les encanta; les encantan;
        me quedo con; me divierte; me divierten; me entretiene; me interesa; me interesan; me llama la atención;
        me pirra; me pirran; lo disfruto; la disfruto; adora; adoran; ama; aman; metido en; metida en;
        metidos en; metidas en; enganchado con; enganchada con; enganchado al; enganchada al; muy fan;
        enganchadísimo; enganchadísima; me tiene enganchado; me tiene enganchada; me llena; me llenan;
        me sube el ánimo; me suben el ánimo; me anima; me priva; me privan; soy más de; soy muy de;
        me tiene loco; me tiene loca; me tienen loco; me tienen loca"""
    )
    + spelled(("un", "una"), ("gran", "enorme", "auténtico", "auténtica", "verdadero", "verdadera", "súper"), ("fan",)),
    dislikes=phrases(
        """odio; detesto; no soporto; no aguanto; me molesta; me molestan; me fastidia; me fastidian; no me va;
        harto de; harta de; hartos de; me aburre; me aburren; me cansa; me cansan; me harta; me hartan;
        me tiene harto; me tiene harta; me tiene paranoica; me tiene paranoico; me da asco; me dan asco;
        me pone de mal humor; me saca de quicio; me sacan de quicio; me da pereza; me da flojera; nunca más;
        no es lo mío; no es para mí; no me convence; me agobia; me agobian; me estresa; me estresan;
        le molesta; le da miedo; me cae mal; me da miedo; me dan miedo; me pone nervioso; me pone nerviosa;
        odia; odian; detesta; detestan; no soporta; no soportan; no aguanta; no aguantan; me da rabia;
        me dan rabia; me da grima; me dan grima; hasta las narices; hasta el gorro; hasta el moño;
        me pone de los nervios; me ponen de los nervios; me revienta; me revientan; me deprime; me deprimen"""
    ),
    neutral=phrases("me da igual; me es indiferente; ni fu ni fa; no me importa; me da lo mismo"),
    praise=phrases(
        """genial; increíble; buenísimo; buenísima; riquísimo; riquísima; delicioso; deliciosa; una pasada;
        una maravilla; maravilloso; maravillosa; espectacular; lo mejor; el mejor; la mejor; los mejores;
        las mejores; perfecto; perfecta; precioso; preciosa; brutal; lo máximo; excelente; fantástico;
        fantástica; lo más rico; una delicia; divino; divina; lo mío; una joya; una obra maestra; muy rico; muy rica;
        súper rico; súper rica; relajante; me encantó; adictivo; adictiva; me ayuda a relajarme;
        me ayuda a desconectar; me ayuda a despejarme; me mantiene cuerdo; me mantiene cuerda; me mantiene sano;
        me mantiene sana; me da vida; me pone de buen humor; me alegra el día; me alegra la vida"""
    ),
    scorn=phrases(
        """aburrido; aburrida; horrible; asqueroso; asquerosa; un asco; fatal; pésimo; pésima; lo peor; el peor;
        la peor; insoportable; un rollo; un coñazo; agotador; agotadora; malísimo; malísima; horroroso;
        horrorosa; espantoso; espantosa; una pesadilla; un infierno; decepcionante; demasiado caro;
        demasiado lento; demasiado dulce; demasiado picante; aburridísimo; aburridísima; pesadísimo; pesadísima"""
    ),
    reactions=phrases(
        """qué; que bien; suena; suenan; tú; tu; tus; te; ti; usted; ustedes; su; vosotros; felicidades;
        enhorabuena; gracias; será; sería; ojalá; espero; él es; ella es; fue"""
    ),
    events=phrases(
        """fiesta; viaje; vacaciones; fin de semana; finde; noche; día; boda; cumpleaños; noticia; noticias;
        idea; momento; tiempo; plan"""
    ),
    trail=words(
        "pero y también para en con de del por la el lo sin muy todavía siempre ahora hoy jaja jajaja es son"
        " era fue está"
    ),
    ever=phrases("de mi vida; del mundo; de toda la vida; de todos los tiempos; en años; jamás"),
    nouns=(
        *words("favorito favorita favoritos favoritas preferido preferida pasión debilidad"),
        *phrases("mi pasión; mi escape; mi terapia; mi refugio; mi momento favorito; mi cable a tierra"),
    ),
    owners=words("mi mis nuestro nuestra nuestros nuestras su sus tu tus el la los las un una"),
    negations=words("no nunca jamás tampoco ni"),
    once=phrases("me gustó; me gustaron; me encantó; me encantaron; disfruté"),
    blocks=phrases(
        """me gustaría; me encantaría; nos gustaría; nos encantaría; te quiero; te amo; te adoro; te gusta;
        te encanta; te gustan; te encantan; le gustaría; disfruta; disfrutad; disfrutá; que disfrutes;
        buen provecho; qué bien; qué padre; qué guay; que bien; genial, gracias; perfecto, gracias;
        gracias, genial; buena idea; muy buena idea; excelente idea; mi vida!; me muero por; tengo ganas"""
    ),
    selves=words("yo me mí mi mis nosotros nosotras nos nuestro nuestra nuestros nuestras"),
    holders=words("él ella ellos ellas le les"),
    others=words("tú te ti usted ustedes vosotros os quien quienes todos todo gente el la los las un una lo"),
    addressee=words("tú te ti tu tus usted ustedes vosotros os vuestro vuestra"),
    fillers=phrases(
        """muchísimo; mucho; muy; tanto; también; siempre; todavía; ya; realmente; de verdad; la verdad;
        sinceramente; la neta; súper; super; bastante; totalmente; completamente; absolutamente; es que; es;
        son; era; fue; está; están; estoy; soy; oh; ah; uy; wow; jaja; jajaja; vale; bueno; pues; oye; hola;
        lo; la; ha sido; a; estaba; estaban; fueron; eran"""
    ),
    pointers=words("ese esa esos esas este esta estos estas aquel aquella aquellos aquellas"),
    joins=words("y pero o luego e"),
    reasons=phrases("porque; ya que; pues; —; –"),
    reason_openers=phrases("demasiado; es; son; muy; siempre; tan"),
)

LANGUAGE = Language(
    code="es",
    stemmer="spanish",
    stopwords=STOPWORDS,
    votes=vote_words(STOPWORDS) | table_words(SIGNALS),
    marks="¿¡ñ",
    signals=SIGNALS,
)

_SOY = r"(?<!no )\bsoy (?:ahora )?"
SLOTS = SlotWords(
    patterns=(
        ("name", r"\bme llamo {v}"),
        ("name", r"\bmi nombre es {v}"),
        ("age", r"\btengo (?:ya )?{n} años"),
        ("age", r"\bacabo de cumplir {n}\b"),
        ("location", r"\b(?:ahora )?(?:vivo|vivimos) (?:ahora |actualmente )?en {v}"),
        ("location", r"\b(?:me|nos) (?:he |hemos )?(?:mudé|mudamos|mudado) a {v}"),
        ("location", r"\bacabo de mudarme a {v}"),
        ("job", r"\b(?:trabajo|estoy trabajando) (?:ahora )?(?:como|de) {v}"),
        ("job", r"\bmi (?:trabajo|profesión) es {v}"),
        ("employer", r"\b(?:trabajo|estoy trabajando) (?:ahora )?(?:en|para) {v}"),
    ),
    values=(
        ("diet", "vegan", _SOY + r"vegan[oa]\b"),
        ("diet", "vegetarian", _SOY + r"vegetarian[oa]\b"),
        ("diet", "vegetarian", r"\b(?:ya )?no como carne"),
        ("diet", "vegetarian", r"\bdejé de comer carne"),
        ("diet", "omnivore", r"\bya no soy (?:vegetarian[oa]|vegan[oa])"),
        ("diet", "omnivore", r"(?<!no )\b(?:vuelvo a comer|como) carne"),
    ),
    stops=words(
        "y pero con desde ahora porque como en para hace también ya pasado pasada este esta mes semana año"
        " años yo nosotros el la los las del"
    ),
    not_values=words("un una mi mis nuestro nuestra su sus casa"),
    articles=words("el la los las"),
)

_MI = r"\b(?:mi|nuestr[oa])"
_MIS = r"\b(?:mis?|nuestr[oa]s?)"
#: An adjective after a relation ("mi hermana mayor Clara").
_AFTER = r"(?:\s+(?:mayor|menor|pequeñ[oa]|mayores|menores))?"
ENTITIES = EntityWords(
    mine=(
        ("job", "", r"(?<!no )\bsoy (?:ahora |actualmente |también )?(?:un |una )?{job}"),
        ("place", "origin", r"(?<!no )\bsoy (?:originari[oa] )?de {v}"),
        ("place", "origin", r"\b(?:vengo|procedo) de {v}"),
        ("place", "origin", r"\b(?:crecí|nací) en {v}"),
        (
            "place",
            "travel",
            r"\b(?:me voy|nos vamos|voy|vamos|fui|fuimos|viajé|viajamos|viajo|volé|volamos|vuelo) "
            r"(?:\w+ ){0,2}?(?:de vacaciones |de viaje )?(?:a|para) {v}",
        ),
        ("place", "travel", r"\b(?:estuve|estuvimos) (?:\w+ ){0,2}?en {v}"),
        ("place", "travel", r"\b(?:acabo|acabamos) de volver de {v}"),
    ),
    holder=_MI + r"\s+{adj}{rel}" + _AFTER + r"(?:\s+{name})?(?:,?\s+que)?",
    theirs=(
        ("job", "", r"\s+es (?:ahora |también )?(?:un |una )?{job}"),
        ("job", "", r"\s+trabaja (?:ahora )?(?:como|de) {v}"),
        ("employer", "", r"\s+trabaja (?:ahora )?para {v}"),
        ("site", "", r"\s+trabaja (?:ahora )?en {v}"),
        ("place", "home", r"\s+vive (?:ahora )?en {v}"),
        ("place", "home", r"\s+se (?:ha )?mud(?:ó|ado) a {v}"),
        ("place", "origin", r"\s+es de {v}"),
    ),
    job_verbs=((r"\b(?:enseño|doy clases(?: de)?)(?:\s+{v})?", "docente de {v}", "docente"),),
    their_job_verbs=((r"\s+(?:enseña|da clases(?: de)?)(?:\s+{v})?", "docente de {v}", "docente"),),
    tails=(("employer", "", r"\bpara {v}"), ("site", "", r"\ben {v}"), ("job", "", r"\bcomo {v}")),
    people=(
        _MIS + r"\s+{adj}{rel}" + _AFTER + r",?\s+{name}",
        _MI + r"\s+{adj}{rel}" + _AFTER + r" se llama {name}",
        r"(?:^|(?<=\s)){name} es " + _MI + r" {adj}{rel}\b",
    ),
    animals=(
        _MIS + r"\s+{adj}{pet}\s+{name}",
        r"\b(?:un|una|dos|tres)\s+{adj}{pet},? (?:que se llama|llamad[oa]) {name}",
        _MI + r"\s+{adj}{pet} se llama {name}",
        r"\b(?:tengo|tenemos|adopté|adoptamos) (?:también |ahora )?(?:un|una|dos|tres) {adj}{pet}",
        _MIS + r"\s+{adj}{pet}(?![^\W_])",
    ),
    jobs=words(
        """enfermero enfermera médico médica doctor doctora ingeniero ingeniera desarrollador desarrolladora
        programador programadora diseñador diseñadora abogado abogada contador contadora contable arquitecto
        arquitecta cocinero cocinera chef panadero panadera farmacéutico farmacéutica dentista veterinario
        veterinaria investigador investigadora científico científica profesor profesora maestro maestra
        docente consultor consultora periodista redactor redactora fotógrafo fotógrafa artista músico música
        electricista fontanero fontanera plomero mecánico mecánica conductor conductora taxista camionero
        piloto bombero bombera policía soldado agricultor agricultora bibliotecario bibliotecaria traductor
        traductora intérprete terapeuta psicólogo psicóloga cirujano cirujana matrona camarero camarera
        mesero mesera vendedor vendedora cajero cajera secretaria peluquero peluquera director directora
        analista funcionario funcionaria fisioterapeuta educador educadora economista"""
    ),
    job_after=r"(?:\s+de\s+[^\W\d_]+)?",
    not_jobs=words("no buen buena mal mala gran fan ex futuro futura"),
    adjectives=words("mejor pequeño pequeña querido querida nuevo nueva viejo vieja"),
    being=r"\bsoy\b",
    relatives={
        **INTENTS.relatives,
        **{"primo": "cousin", "prima": "cousin", "tía": "aunt", "tío": "uncle", "pareja": "partner"},
        **{"jefe": "boss", "jefa": "boss", "vecino": "neighbour", "vecina": "neighbour", "nieto": "grandson"},
        **{"nieta": "granddaughter", "prometido": "fiancé", "prometida": "fiancée"},
    },
    pets={
        **{"perro": "dog", "perra": "dog", "perrito": "dog", "perrita": "dog", "gato": "cat", "gata": "cat"},
        **{"gatito": "kitten", "gatita": "kitten", "cachorro": "puppy", "loro": "parrot", "periquito": "budgie"},
        **{"conejo": "rabbit", "hámster": "hamster", "tortuga": "tortoise", "caballo": "horse"},
        **{"hurón": "ferret", "cobaya": "guinea pig", "pez": "fish"},
    },
    sites=r"\btrabaj\w* (?:ahora )?en\b",
    org_words=words(
        "banco hospital universidad empresa colegio instituto clínica ayuntamiento escuela fundación ministerio"
    ),
    hypothetical=phrases(
        """si; ojalá; me gustaría; quisiera; quiero; algún día; podría; debería; sueño; espero; tal vez; quizás;
        quizá; pienso"""
    ),
    joins=words("y pero porque aunque mientras donde que"),
    stops=words("niños adultos alumnos"),
    connectors=words("de del la las los"),
    not_values=words("mi mis su sus tu nuestro nuestra les le casa niños adultos alumnos"),
)

#: Questions that ask the speaker's own single value (``caim.memory.text.slots.asked``): (attribute,
#: pattern) pairs matched without regard to case in a question sentence. Present tense only: a
#: question about the past does not ask the current value.
ASKS: tuple[tuple[str, str], ...] = (
    ("name", r"\bc[oó]mo me llamo\b"),
    ("name", r"\bcu[aá]l es mi nombre\b"),
    ("age", r"\b(?:cu[aá]ntos años|qu[eé] edad) tengo\b"),
    ("location", r"\bd[oó]nde (?:vivo|resido)\b"),
    ("location", r"\ben qu[eé] (?:ciudad|pa[ií]s|lugar) (?:vivo|resido)\b"),
    ("diet", r"\bcu[aá]l es mi dieta\b"),
    ("diet", r"\bqu[eé] dieta (?:sigo|tengo|llevo)\b"),
    ("diet", r"\bsoy (?:\w+ )?(?:vegetarian|vegan)[oa]\b"),
    ("diet", r"\b(?:todav[ií]a )?como carne\b"),
    ("job", r"\bcu[aá]l es mi (?:trabajo|profesi[oó]n|oficio|empleo)\b"),
    ("job", r"\b(?:a qu[eé] me dedico|de qu[eé] trabajo)\b"),
    ("employer", r"\bd[oó]nde trabajo\b"),
    ("employer", r"\b(?:para|en) (?:qui[eé]n|qu[eé] empresa|qu[eé] compañ[ií]a) trabajo\b"),
)
