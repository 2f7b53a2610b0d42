"""German: stopwords (after Snowball's list), Snowball stems, and the code signals' words.

German capitalises every noun, so a capitalised word is a name only when no determiner precedes it
and it has no noun ending (``Signals.noun_capitals``). ``ENTITIES``: the work, places, people and pets
of the speaker's life (``caim.memory.text.entities``).
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
    words("""aber alle allem allen aller alles als also am an andere anderem anderen anderer anderes auch auf aus bei
    bin bis bist da damit dann das dass daß dein deine deinem deinen deiner dem den denn der des dich die dir
    doch dort du durch ein eine einem einen einer eines er es etwas euch euer eure für gegen gewesen hab habe
    haben hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in indem ins
    ist ja jede jedem jeden jeder jedes jene jetzt kann kein keine keinem keinen keiner man manche mein meine
    meinem meinen meiner meines mich mir mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr sein
    seine seinem seinen seiner sich sie sind so solche soll sollte sondern sonst über um und uns unser unsere
    unserem unseren unserer unter vom von vor war waren warst was weil welche welchem welchen welcher welches
    wenn werde werden wie wieder will wir wird wirst wo wollen wollte würde würden zu zum zur zwar zwischen""")
)

# Goal-aware recall (``caim.memory.intents``): request cues, closed vocabularies and slot words.
_N = r"(?P<n>\d{1,2}|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn)"
INTENTS = IntentWords(
    code="de",
    cues={
        "restaurant": (
            r"\brestaurant\b",
            r"\b(?:reservier|buch|such|find)\w*\b.{0,40}\b(?:tisch|abendessen|mittagessen|brunch)\b",
            r"\b(?:tisch|abendessen|mittagessen)\b.{0,40}\b(?:reservier|buch)\w*",
            r"\bessen gehen\b",
        ),
        "travel": (r"\b(?:reise|urlaub|ausflug|kurztrip|wochenendtrip|ferien)\w*",),
        "gift": (r"\bgeschenk\w*", r"\bmitbringsel\b"),
        "appointment": (
            r"\btermin\w*",
            r"\b(?:zahnarzt|arzt|ärztin|friseur|tierarzt|physiotherap\w*)\b.{0,40}\b(?:buch|vereinbar|ausmach)\w*",
        ),
        "entertainment": (
            r"\b(?:kino|film|konzert|theater|karten|tickets?|show)\w*\b.{0,40}\b(?:heute|wochenende|freitag|samstag|"
            r"sonntag|buch|besorg|such|find|gehen)\w*",
            r"\b(?:besorg|buch|such|find)\w*\b.{0,30}\b(?:kino|film|konzert|karten|tickets?)\w*",
            r"\b(?:ins|in ein|in den|ins nächste) (?:kino|konzert|theater|musical)\b",
        ),
    },
    vocab={
        "cuisine": {
            "italienisch": "italian",
            "japanisch": "japanese",
            "chinesisch": "chinese",
            "mexikanisch": "mexican",
            "indisch": "indian",
            "thailändisch": "thai",
            "französisch": "french",
            "griechisch": "greek",
            "spanisch": "spanish",
            "koreanisch": "korean",
            "vietnamesisch": "vietnamese",
            "türkisch": "turkish",
            "sushi": "sushi",
            "pizza": "pizza",
        },
        "diet": {
            "vegetarisch": "vegetarian",
            "vegetarier": "vegetarian",
            "vegan": "vegan",
            "glutenfrei": "gluten-free",
            "laktosefrei": "lactose-free",
            "halal": "halal",
            "koscher": "kosher",
        },
        "lodging": {
            "hotel": "hotel",
            "hostel": "hostel",
            "jugendherberge": "hostel",
            "ferienwohnung": "apartment",
            "camping": "camping",
            "zelten": "camping",
            "pension": "guesthouse",
        },
        "transport": {
            "zug": "train",
            "bahn": "train",
            "flugzeug": "plane",
            "fliegen": "flying",
            "auto": "car",
            "bus": "bus",
            "fähre": "ferry",
            "fahrrad": "bike",
        },
        "occasion": {
            "geburtstag": "birthday",
            "jahrestag": "anniversary",
            "hochzeit": "wedding",
            "weihnachten": "christmas",
            "ruhestand": "retirement",
            "einweihung": "housewarming",
        },
        "provider": {
            "zahnarzt": "dentist",
            "hausarzt": "gp",
            "arzt": "doctor",
            "ärztin": "doctor",
            "physiotherapeut": "physiotherapist",
            "friseur": "hairdresser",
            "tierarzt": "vet",
            "optiker": "optician",
            "hautarzt": "dermatologist",
        },
        "time": {
            "morgens": "mornings",
            "vormittags": "mornings",
            "nachmittags": "afternoons",
            "abends": "evenings",
            "wochenende": "weekends",
            "samstags": "saturdays",
            "sonntags": "sundays",
            "mittags": "lunchtime",
        },
        "genre": {
            "horror": "horror",
            "komödie": "comedy",
            "thriller": "thriller",
            "krimi": "thriller",
            "science-fiction": "sci-fi",
            "drama": "drama",
            "jazz": "jazz",
            "rock": "rock",
            "klassik": "classical",
            "oper": "opera",
            "musical": "musical",
            "techno": "techno",
        },
    },
    people=(
        rf"\b(?:wir sind|für|mit) {_N} (?:personen|leute|gäste|erwachsene)\b",
        r"\bzu (?P<n>zweit|dritt|viert|fünft|sechst|siebt|acht)\b",
        rf"\bwir sind {_N}\b",
    ),
    numbers={
        "zwei": "2",
        "drei": "3",
        "vier": "4",
        "fünf": "5",
        "sechs": "6",
        "sieben": "7",
        "acht": "8",
        "neun": "9",
        "zehn": "10",
        "zweit": "2",
        "dritt": "3",
        "viert": "4",
        "fünft": "5",
        "sechst": "6",
        "siebt": "7",
    },
    money=r"\d[\d.,]*\s?(?:€|(?:euro|franken|chf)\b)|€\s?\d[\d.,]*",
    relatives={
        "schwester": "sister",
        "bruder": "brother",
        "mutter": "mother",
        "mama": "mum",
        "vater": "father",
        "papa": "dad",
        "frau": "wife",
        "mann": "husband",
        "freundin": "girlfriend",
        "freund": "friend",
        "sohn": "son",
        "tochter": "daughter",
        "oma": "grandma",
        "opa": "grandpa",
        "neffe": "nephew",
        "nichte": "niece",
        "kollegin": "colleague",
        "kollege": "colleague",
    },
    mine=r"\b(?:meine[mnrs]?|meiner)\s+{rel}",
    company=r"\bmit\s+(?:meine[mnrs]?|meiner)\s+{rel}",
    likes=r"\b(?:sie|er|(?:meine[mnrs]?|meiner)\s+{rel})\s+(?:\w+\s+)?(?:liebt|mag|sammelt|steht auf|"
    r"ist (?:total |ganz )?verrückt nach|interessiert sich (?:sehr )?für|spielt gern|spielt|macht gern)\s+"
    r"(?P<thing>[^.,;!?]{2,40})",
    ends=r"\s+(?:und|aber|weil|denn|seit|am|im|jeden|jede|jedes|sehr|total)\b",
    outcomes={
        "cancelled": r"\b(?:abgesagt|storniert|stornier(?:e|en)|sag(?:e|en)? (?:es|das|ihn|sie) ab|vergiss es)\b",
        "booked": r"\b(?:gebucht|reserviert|bestellt|gekauft|bestätigt|fest vereinbart|ist erledigt)\b",
        "chosen": r"\b(?:ich nehme|wir nehmen|nehmen wir|ich entscheide mich für|wir entscheiden uns für|klingt gut)\b",
    },
)

MONTHS = words("januar februar märz april mai juni juli august september oktober november dezember")
_UNITS = {"woche": "week", "wochenende": "weekend", "monat": "month", "jahr": "year"}
WEEKDAYS = {"montag": 0, "dienstag": 1, "mittwoch": 2, "donnerstag": 3, "freitag": 4, "samstag": 5, "sonntag": 6}
_DAYS = dict(zip(WEEKDAYS, DAYS, strict=True))
_LAST = dict.fromkeys(
    words("letzte letzten letzter letztes vergangene vergangenen vergangener vergangenes vorige vorigen voriges"),
    "last",
)
_THIS = dict.fromkeys(words("diese diesen dieser dieses"), "this")
_NEXT = dict.fromkeys(words("nächste nächsten nächster nächstes kommende kommenden"), "next")

TIME = TimeWords(
    phrases={
        "gestern": "yesterday",
        "vorgestern": "the day before yesterday",
        "heute": "today",
        "heute morgen": "this morning",
        "heute früh": "this morning",
        "heute abend": "tonight",
        "gestern abend": "last night",
        "letzte nacht": "last night",
        "neulich": "the other day",
        "letztens": "the other day",
        "kürzlich": "recently",
        "vor kurzem": "recently",
        "in letzter zeit": "lately",
        **combine(_LAST, _UNITS | _DAYS),
        **combine(_THIS, _UNITS | _DAYS),
        **combine(_NEXT, _UNITS | _DAYS),
    },
    ago="vor {count} {unit}",
    counts={"einem": "a", "einer": "a", "ein paar": "a few", "paar": "a few", "einigen": "a few", "mehreren": "several"}
    | counting("zwei drei vier fünf sechs sieben acht neun zehn", 2),
    units={"tag": "day", "tagen": "day", "woche": "week", "wochen": "week", "monat": "month", "monaten": "month"}
    | {"jahr": "year", "jahren": "year"},
    months={
        **dict(zip(MONTHS, range(1, 13), strict=True)),
        **{"jan": 1, "feb": 2, "mär": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "okt": 10},
        **{"nov": 11, "dez": 12},
        "jänner": 1,
        "maerz": 3,
    },
    weekdays=WEEKDAYS,
    dates=(r"{day}\.? ?{month}(?: {year})?", r"{month} {year}"),
    in_month=(r"im {month}", r"anfang {month}", r"ende {month}", r"mitte {month}"),
    markers=("seit", "damals", "früher", "vor langer zeit"),
)

SIGNALS = Signals(
    first_person=words("ich mich mir mein meine meinem meinen meiner meines wir uns unser unsere unserem unseren"),
    third_person=words("er sie"),
    telling=words(
        """bin war ist sind waren habe hab hatte haben hatten hat liebe lieben mag mögen gefällt spiele spielen
        arbeite arbeiten wohne wohnen lebe leben gehe gehen fahre fahren lerne lernen studiere studieren plane
        möchte will wollen brauche brauchen koche lese mache machen esse trinke heiße heißt geboren verheiratet
        umgezogen angefangen gekauft adoptiert besucht treffe treffen hasse bevorzuge kann nie immer
        normalerweise jeden jede jedes oft liegt liegen"""
    ),
    # "I'm sorry / glad / proud of you / here for you / not sure": said to the other side
    reactions=phrases("tut mir leid; tut mir so leid; tut mir wirklich leid; freut mich; freut mich für dich")
    + spelled(
        ("ich bin", "bin", "wir sind", "ich freue mich", "freue mich"),
        ("", "so", "sehr", "wirklich"),
        ("froh", "froh für dich", "glücklich für dich", "für dich", "stolz auf dich", "für dich da", "sicher"),
    )
    + phrases("bin mir nicht sicher; ich bin mir nicht sicher"),
    past=PastTense(
        subjects=words("ich wir"),
        auxiliaries=words("habe hab haben hatte hatten bin sind war waren"),
        not_after=words(
            "ein eine einen einem der die das den dem des kein keine keinen mein meine meinen dein deine sein seine"
        ),
        participle=r"\w*ge\w{2,}(?:t|en)|(?:be|ver|er|ent|zer|emp)\w{2,}(?:t|en)|\w{3,}iert",
        simple=words(
            """war waren hatte hatten ging gingen fuhr fuhren sah sahen traf trafen kam kamen fand fanden machte
            machten kaufte kauften las lasen schrieb bekam gewann verlor lernte begann zog wurde wurden spielte
            besuchte"""
        ),
    ),
    past_reference=phrases(
        """erinnerst du dich; erinnern sie sich; weißt du noch; wie du weißt; erinnere mich; habe dir erzählt;
        hab dir erzählt; habe ich dir erzählt; hab ich dir erzählt; habe dir gesagt; hab dir gesagt;
        habe ich dir gesagt; habe ich erwähnt; hab ich erwähnt; habe erwähnt; du hast mir; hast du mir;
        du hast gesagt; hast du gesagt; du hast empfohlen; hast du empfohlen; du hattest; hattest du;
        wir haben gesprochen; wir haben darüber; haben wir darüber; letztes mal; das letzte mal; neulich; vorhin;
        früher; vorher; zuvor; damals; wieder; noch einmal; nochmal"""
    ),
    asks_past=words("früher vorher damals ehemals ehemalige ehemaligen ursprünglich zuvor alte alten alter altes"),
    when=phrases(
        """wann; seit wann; in welchem jahr; welches jahr; in welchem monat; welcher monat; an welchem tag;
        welches datum; wie lange ist es her; wie lange her"""
    ),
    aggregate=phrases("wie viele; wie viel; wie oft"),
    question_words=words(
        """was wer wen wem wessen wo wohin woher wann wie warum wieso weshalb welche welcher welches welchen hast
        bist kannst weißt erinnerst hattest warst habe"""
    ),
    greetings=phrases(
        """hallo; hi; hey; servus; moin; guten tag; guten morgen; guten abend; danke; danke schön; dankeschön;
        danke sehr; vielen dank"""
    ),
    exclamations=phrases(
        """wow; toll; super; klasse; prima; cool; genial; wunderbar; schön; krass; juhu; spitze; wie schön;
        sehr gut; sehr schön"""
    ),
    sign_offs=phrases(
        """ok; okay; alles klar; tschüss; tschüs; ciao; bis bald; bis dann; bis morgen; gute nacht; auf wiedersehen;
        mach's gut"""
    ),
    openers=words("ja jo nein na naja ach oh ah also gut hm ähm okay ok wow hallo hi hey danke klar stimmt"),
    not_names=words(
        """Ich Du Sie Er Es Wir Ihr Ihnen Ihre Ihren Ihrem Ihrer Dich Dir Der Die Das Ein Eine Hallo Danke Ja Nein
        Aber Und Also Toll Super Oh Ach Wow Okay User Assistant"""
    ),
    noun_capitals=True,
    determiners=words(
        """der die das den dem des ein eine einen einem einer eines kein keine keinen keinem keiner mein meine
        meinen meinem meiner dein deine deinen deinem sein seine seinen seinem ihr ihre ihren ihrem unser unsere
        unseren unserem euer eure im am zum zur beim vom ins ans aufs dieser diese dieses diesen jeder jede
        jedes viele einige alle welche welcher etwas viel wenig neue neuen neuer neues alte alten schöne schönen
        tolle tollen große großen kleine kleinen gute guten"""
    ),
    noun_endings=words("ung heit keit schaft tion chen lein ismus tät nis tum ment ei ur"),
    quotes='"\u201c\u201e\u00bb\u00ab',
    giving=phrases(
        """ich empfehle; empfehle dir; empfehle ihnen; ich schlage vor; schlage dir; ich rate dir; ich habe gebucht;
        ich habe reserviert; ich erinnere dich; ich schicke dir"""
    ),
    accepting=phrases(
        """danke; dankeschön; vielen dank; ok; okay; gut; gute idee; super idee; klingt gut; klingt toll; mach ich;
        werde ich; probiere ich; versuche ich; das probiere ich; ich probiere; ich versuche; ich werde; ja; gerne;
        gern; perfekt; prima; alles klar; genau; passt; toll; super; cool"""
    ),
    refusing=phrases("nein; nee; nein danke; lieber nicht; eher nicht; danke, aber; kein interesse; nicht wirklich"),
    claims=phrases(
        """du hast erwähnt; du hast gesagt; du hast mir erzählt; wie du sagtest; wie du erwähnt hast; du bist;
        du wohnst; du arbeitest; deine; dein; deinen; deinem"""
    ),
    wishes=phrases(
        """viel spaß; viel glück; schönen tag; bis bald; bis dann; bis morgen; gute reise; genieß; genieße;
        hab einen schönen; habe einen schönen"""
    ),
    time=TIME,
)

#: Preference cues (``caim.memory.text.polarity``).
POLARITY = PolarityWords(
    likes=phrases(
        """liebt; lieben; liebst; mögen; magst; mögt; genieße; genießt; genieße es; bevorzuge; bevorzugt; stehe auf;
        steh auf; steht auf; stehst auf; finde toll; find ich toll; finde ich toll; find ich gut; finde ich gut;
        finde ich super; find ich super; finde ich klasse; fand ich toll; fand ich super; fand ich gut;
        begeistert von; bin begeistert; großer fan; riesiger fan; bin fan; fan von; süchtig nach; verliebt in;
        hat es mir angetan; ins herz geschlossen; macht mir spaß; macht mir riesig spaß; macht mir viel spaß;
        macht richtig spaß; macht spaß; macht so viel spaß; macht mir so viel spaß; gerne; gern; am liebsten;
        interessiere mich für; kann nicht genug bekommen; freue mich jedes mal; unverzichtbar;
        nicht wegzudenken; nicht mehr wegzudenken; schwärme für; vergöttere; gefällt mir; gefallen mir;
        hat mir gefallen; hat mir gut gefallen; hat mir sehr gut gefallen; haben mir gefallen; gefiel mir;
        schmeckt mir; schmecken mir; hat mir geschmeckt; fasziniert mich; faszinieren mich; interessiert mich;
        interessieren mich; bin ein großer fan; liebe es; mach ich gern; mache ich gerne;
        steh total auf; stehe total auf; steh voll auf; stehe voll auf; steh echt auf; stehe echt auf;
        steht total auf; steht voll auf; steh so auf; stehe so auf; verrückt nach; ganz verrückt nach;
        ein faible für; faible für; vernarrt in; schwöre auf; begeistert mich; begeistern mich;
        schwärmt für; schwärmen für"""
    )
    + spelled(
        ("ein", "eine"),
        ("", "großer", "große", "riesiger", "riesige", "echter", "echte", "totaler", "absoluter"),
        ("fan",),
    ),
    dislikes=phrases(
        """hasse; hasst; hassen; nicht ausstehen; nicht leiden; nicht ertragen; nicht aushalten; verabscheue; kein fan;
        nervt mich; nerven mich; nervt; nerven; geht mir auf die nerven; geht mir auf den keks; auf den geist;
        habe es satt; hab es satt; habe das satt; hab das satt; hab die nase voll; habe die nase voll; bin es leid;
        bin das leid; keine lust mehr; kann nicht mehr; graut mir; graust mir; ekelt mich; stört mich;
        stören mich; ärgert mich; regt mich auf; nie wieder; keine lust auf; stresst mich; macht mir angst;
        langweilt mich; langweilen mich; mag keine; mag keinen; mag kein; mögen keine; magst keine;
        nichts anfangen; nichts für mich; macht mich wahnsinnig; macht mich verrückt; ödet mich an;
        nicht mehr hören; nicht mehr sehen"""
    ),
    neutral=phrases("egal; ist mir gleich; geht so; ganz okay; nicht schlimm; ist okay; passt schon"),
    bare=words("mag liebe"),
    before_bare=words("ich wir auch echt total einfach wirklich so sehr schon immer noch eigentlich voll"),
    after_bare=words("ich wir er sie"),
    stems=words("lieblings"),
    praise=phrases(
        """toll; super; wunderbar; großartig; genial; fantastisch; lecker; köstlich; herrlich; traumhaft;
        himmlisch; der hammer; ein traum; spitze; perfekt; wunderschön; legendär; bester; beste; besten;
        genau das richtige; macht mich glücklich; macht mich froh; entspannt mich; beruhigt mich; tut mir gut;
        tut mir so gut;
        tut so gut; wie eine zweite familie; wie meditation; entspannend;
        beruhigend; erholsam; wirkt wunder; entspannt an; gemütlich; spannend; ein genuss; ein gedicht;
        empfehlenswert; unschlagbar; ein muss; bester kauf;
        kann ich entspannen; kann ich abschalten; kann ich runterkommen; kann ich mich entspannen;
        hilft mir beim abschalten; hilft mir abzuschalten; hilft mir zu entspannen; hilft mir runterzukommen;
        hält mich bei verstand; hält mich gesund; hält mich über wasser; hält mich aufrecht; bringt mich runter;
        erdet mich; gibt mir kraft; gibt mir ruhe; macht mich ruhig; bringt mich zum lachen; hilft mir, abzuschalten;
        hilft mir, zu entspannen; hilft mir, runterzukommen; macht mir freude; macht mir große freude;
        bereitet mir freude"""
    )
    + spelled(
        ("ist die", "ist der", "ist das", "sind die", "für mich die", "für mich der", "für mich das"),
        ("beste", "besten", "allerbeste"),
    ),
    scorn=phrases(
        """langweilig; schrecklich; furchtbar; grässlich; ekelhaft; eklig; nervig; öde; mies; grauenhaft;
        katastrophal; eine katastrophe; ätzend; doof; blöd; stressig; anstrengend; nervtötend; die hölle;
        zum kotzen; rappelvoll; überfüllt; zu düster; zu vertraulich; zu laut; zu voll; zu süß; zu scharf;
        zu teuer; zu kalt; zu heiß; unerträglich; stinkt; schlimm; fürchterlich; grausam; enttäuschend;
        eine qual; qual; albtraum; ein albtraum; nervenaufreibend; unmöglich; zu lang; zu langsam"""
    )
    + spelled(("war", "ist", "waren", "sind"), ("", "echt", "ziemlich", "richtig", "total", "sehr"), ("schwach",)),
    reactions=phrases(
        """das ist; das klingt; klingt; das war; das wäre; wäre; du; dein; deine; deinen; deinem; ihr; euer;
        er ist; sie ist; wie; was für; glückwunsch; herzlichen; sieht; aussieht; hört sich; wird; werden;
        hoffe; sie sind; sind sie; danke; dankeschön; vielen dank; es war; war es"""
    ),
    events=phrases(
        """party; feier; reise; urlaub; wochenende; abend; tag; nacht; hochzeit; geburtstag; fest; ausflug;
        nachricht; nachrichten; neuigkeit; neuigkeiten; idee; zeit; tipp; vorschlag"""
    ),
    trail=words(
        "aber und auch für an am im in bei mit ehrlich echt finde find fand ich wir oder so doch ja eigentlich"
        " übrigens gewesen geworden ist sind war heute jetzt immer noch"
    ),
    ever=phrases("ever; aller zeiten; meines lebens; seit jahren; der welt; überhaupt; je"),
    nouns=(
        *words("leidenschaft favorit favoritin"),
        *phrases(
            """mein ventil; mein ding; meine leidenschaft; mein ganzer stolz; mein highlight; meine therapie;
            mein ausgleich; mein lieblingsort; mein glück; meine auszeit; mein rückzugsort; meine zuflucht;
            mein zufluchtsort; mein anker; meine oase; mein safe space; meine flucht"""
        ),
    ),
    owners=words(
        "mein meine meinen meinem meiner unser unsere unseren unserem sein seine seinen seinem ihr ihre ihren ihrem"
        " dein deine deinen deinem der die das den dem ein eine einen einem"
    ),
    negations=phrases(
        "nicht; kein; keine; keinen; keinem; keiner; nie; niemals; nicht mehr; gar nicht; überhaupt nicht; nicht so"
    ),
    once=phrases("fand ich toll; fand ich super; fand ich gut"),
    blocks=phrases(
        """würde gerne; würde gern; würd gern; würde ich gerne; würde ich gern; möchte gerne; möchte gern;
        möchte ich gerne; hätte gerne; hätte gern; gerne geschehen; gern geschehen; sehr gerne; ja gerne;
        ja, gerne; gerne!; gerne mal; gern mal; liebe grüße; lieben gruß; liebe grüsse; hab dich lieb;
        ich liebe dich; liebe dich; mag sein; viel spaß; schönes wochenende; schönen abend; schönen tag;
        schöne grüße; super, danke; danke, super; toll, danke; klingt toll; klingt gut; klingt super;
        genieß; genieße den; genieße die; genießt; macht nichts; super idee; tolle idee; gute idee;
        klasse idee; super tipp; toller tipp; super, dass; toll, dass; schön, dass; perfekt, danke;
        gerne wieder; bin gerne; gern geschehen; kannst du gerne; können gerne; darfst gerne; gerne doch;
        lieber nicht; so gut wie"""
    ),
    selves=words("ich wir mein meine meinen meinem meiner meins unser unsere unseren unserem mir mich uns"),
    holders=words("er sie"),
    others=words(
        "du dich dir ihr euch dein deine deinen deinem ihnen wer man leute alle jeder die der das den dem des ein"
        " eine einen einem zur zum"
    ),
    addressee=words("du dich dir dein deine deinen deinem euch euer eure"),
    fillers=phrases(
        """auch; sehr; echt; total; wirklich; einfach; schon; immer; immer noch; noch; so; richtig; voll; mega;
        ganz; besonders; eigentlich; halt; ja; doch; mal; gerade; inzwischen; mittlerweile; ehrlich gesagt;
        ehrlich; übrigens; jetzt; heute; ist; sind; war; waren; bin; bist; finde; find; fand; ziemlich;
        unglaublich; wahnsinnig; so richtig; also; oh; ach; wow; haha; ok; okay; hallo; hi; hey; na; nun; eh;
        eh schon; schon immer; ganz schön; einfach nur; wirklich sehr; das; es"""
    ),
    pointers=words("dieser diese dieses diesen diesem jener jene"),
    joins=words("und aber oder dann zu um"),
    reasons=phrases("weil; denn; da es; da sie; —; –"),
    reason_openers=phrases("zu; viel zu; so; es ist; sie sind; das ist; immer"),
)

LANGUAGE = Language(
    code="de",
    stemmer="german",
    stopwords=STOPWORDS,
    votes=vote_words(STOPWORDS) | table_words(SIGNALS),
    marks="ßäöü",
    signals=SIGNALS,
)

_ICH_BIN = r"\bich bin (?:jetzt |inzwischen |nun |seit \w+ |schon )?"
#: Since when, or now ("seit drei Jahren", "jetzt"), between a verb and its value.
_SINCE = r"(?:jetzt |inzwischen |nun |seit kurzem |seit (?:\w+ ){1,2})?"
SLOTS = SlotWords(
    patterns=(
        ("name", r"\bmein name ist {v}"),
        ("name", r"\bich hei(?:ß|ss)e {v}"),
        ("name", r"\bnenn(?:t)? mich {v}"),
        ("age", r"\b(?:ich|und) bin (?:jetzt |gerade )?{n}(?= jahre\b|\s*[,.;!]|\s*$| und\b)"),
        ("age", r"\bich bin (?:jetzt |gerade )?{n} geworden"),
        ("age", r"\bich werde (?:heute )?{n}(?= jahre\b|\s*[,.;!]|\s*$)"),
        ("location", r"\b(?:ich wohne|ich lebe|wir wohnen|wir leben) " + _SINCE + "in {v}"),
        ("location", r"\b(?:wohne|lebe) ich " + _SINCE + "in {v}"),
        (
            "location",
            r"\b(?:ich bin|wir sind) (?:jetzt |gerade |letzten monat |letztes jahr )?(?:nach|in) {v}"
            r"(?= (?:um)?gezogen)",
        ),
        ("job", r"\b(?:ich arbeite|arbeite ich) " + _SINCE + "als {v}"),
        ("job", r"\bich bin (?:jetzt |inzwischen |nun )?von beruf {v}"),
        ("job", r"\bmein beruf ist {v}"),
        ("job", r"\bich bin (?:jetzt|inzwischen|nun) (?-i:(?P<value>[A-ZÄÖÜ]\w+))"),
        ("employer", r"\b(?:ich arbeite|arbeite ich) " + _SINCE + "(?:bei|für) {v}"),
        ("employer", r"\bich bin (?:jetzt )?bei {v}(?= angestellt)"),
    ),
    values=(
        ("diet", "vegan", _ICH_BIN + r"(?:veganer|veganerin|vegan)\b"),
        ("diet", "vegetarian", _ICH_BIN + r"(?:vegetarier|vegetarierin|vegetarisch)\b"),
        ("diet", "vegetarian", r"\bich esse (?:jetzt |seit \w+ )?(?:kein|keinen) fleisch"),
        ("diet", "omnivore", r"\bich bin (?:kein|keine) (?:vegetarier|vegetarierin|veganer|veganerin) mehr"),
        ("diet", "omnivore", r"\bich esse (?:wieder |jetzt wieder )?fleisch"),
    ),
    stops=words(
        "und aber mit seit jetzt weil als in bei für gezogen umgezogen angestellt letzten letzte letztes vor schon"
        " auch mehr nun inzwischen heute gerade geworden ich wir zusammen da dort jahre alt"
    ),
    not_values=words("ein eine einer einem einen mein meine meinem meinen meiner unser unsere unserem"),
    articles=words("der die das dem den"),
)

#: German nominative possessives of the speaker's ("meine Schwester", "unser Hund").
_MEIN = r"\b(?:mein|meine|unser|unsere)"
#: ... in any case ("mit meinem Hund").
_MEINE_ANY = r"\b(?:meine?[mnrs]?|unsere?[mnrs]?)"
_NOT_THE = r"(?!(?:der|dem|den|die|das|einer|einem|eine|ein) )"
ENTITIES = EntityWords(
    mine=(
        (
            "job",
            "",
            r"\bich bin (?:jetzt |inzwischen |nun |seit \w+ |schon |auch )?"
            r"(?:gelernte[rs]? |ausgebildete[rs]? |selbstständige[rs]? |freiberufliche[rs]? )?(?:ein |eine )?{job}",
        ),
        ("place", "origin", r"\bich (?:komme|stamme) (?:ursprünglich |eigentlich )?aus {v}"),
        ("place", "origin", r"\bich bin in (?P<value>[^,.;:!?]{1,60}?) (?:aufgewachsen|geboren)"),
        ("place", "work", r"\bich arbeite (?:jetzt |inzwischen |nun )?in " + _NOT_THE + "{v}"),
        ("place", "travel", r"\b(?:ich|wir) (?:fahre|fliege|reise|fahren|fliegen|reisen) (?:\w+ ){0,3}?nach {v}"),
        ("place", "travel", r"\b(?:fahre|fliege|reise) ich (?:\w+ ){0,3}?nach {v}"),
        ("place", "travel", r"\b(?:fahren|fliegen|reisen) wir (?:\w+ ){0,3}?nach {v}"),
        (
            "place",
            "travel",
            r"\b(?:ich|wir) (?:bin|sind|war|waren) (?:\w+ ){0,3}?nach (?P<value>[^,.;:!?]{1,60}?)"
            r" (?:gefahren|geflogen|gereist)",
        ),
        ("place", "travel", r"\b(?:urlaub|reise|ferien|trip) (?:in|nach) " + _NOT_THE + "{v}"),
    ),
    holder=_MEIN + r"\s+{adj}{rel}(?:\s+{name})?(?:,\s+(?:die|der))?",
    theirs=(
        (
            "job",
            "",
            r"\s+(?:ist|wird) (?:jetzt |inzwischen |auch |seit \w+ )?(?:gelernte[rs]? |ausgebildete[rs]? )?"
            r"(?:ein |eine )?{job}",
        ),
        ("job", "", r"\s+arbeitet (?:jetzt |inzwischen |auch )?als {v}"),
        ("employer", "", r"\s+arbeitet (?:jetzt |inzwischen |auch )?(?:bei|für) {v}"),
        ("place", "home", r"\s+(?:wohnt|lebt) (?:jetzt |inzwischen |seit \w+ )?in " + _NOT_THE + "{v}"),
        ("place", "home", r"\s+(?:ist|sind) (?:\w+ ){0,3}?nach (?P<value>[^,.;:!?]{1,60}?) (?:um)?gezogen"),
        ("place", "origin", r"\s+(?:kommt|stammt) (?:ursprünglich )?aus {v}"),
    ),
    job_verbs=((r"\bich unterrichte(?:\s+{v})?", "Lehrkraft für {v}", "Lehrkraft"),),
    their_job_verbs=((r"\s+unterrichtet(?:\s+{v})?", "Lehrkraft für {v}", "Lehrkraft"),),
    tails=(("employer", "", r"\bbei {v}"), ("place", "work", r"\bin " + _NOT_THE + "{v}"), ("job", "", r"\bals {v}")),
    people=(
        _MEINE_ANY + r"\s+{adj}{rel}\s+{name}",
        _MEIN + r"\s+{adj}{rel} hei(?:ß|ss)t {name}",
        r"(?:^|(?<=\s)){name} ist (?:meine?|unsere?) {adj}{rel}\b",
    ),
    animals=(
        _MEINE_ANY + r"\s+{adj}{pet}\s+{name}",
        r"\b(?:ein|eine|einen|zwei|drei)\s+{adj}{pet},? (?:namens|mit namen) {name}",
        _MEIN + r"\s+{adj}{pet} hei(?:ß|ss)t {name}",
        r"\b(?:ein|eine|einen)\s+{adj}{pet}, (?:der|die|das) {name} hei(?:ß|ss)t",
        r"\b(?:ich|wir) (?:habe|haben|hab|hatte) (?:jetzt |seit \w+ |auch )?(?:einen|eine|ein|zwei|drei|vier)"
        r"\s+{adj}{pet}",
        _MEINE_ANY + r"\s+{adj}{pet}(?![^\W_])",
    ),
    jobs=words(
        """lehrer lehrerin lehrkraft krankenpfleger krankenpflegerin krankenschwester pflegekraft pfleger
        pflegerin arzt ärztin ingenieur ingenieurin entwickler entwicklerin programmierer programmiererin
        designer designerin anwalt anwältin architekt architektin koch köchin bäcker bäckerin apotheker
        apothekerin wissenschaftler wissenschaftlerin forscher forscherin professor professorin dozent
        dozentin manager managerin berater beraterin journalist journalistin redakteur redakteurin fotograf
        fotografin künstler künstlerin musiker musikerin elektriker elektrikerin klempner installateur
        schreiner schreinerin tischler tischlerin mechaniker mechanikerin mechatroniker busfahrer
        busfahrerin taxifahrer taxifahrerin lkw-fahrer pilot pilotin feuerwehrmann feuerwehrfrau polizist
        polizistin soldat soldatin landwirt landwirtin bibliothekar bibliothekarin übersetzer übersetzerin
        dolmetscher dolmetscherin therapeut therapeutin psychologe psychologin sozialarbeiter
        sozialarbeiterin chirurg chirurgin hebamme kellner kellnerin verkäufer verkäuferin kassierer
        kassiererin sekretärin buchhalter buchhalterin steuerberater steuerberaterin erzieher erzieherin
        friseur friseurin informatiker informatikerin analyst analystin physiotherapeut physiotherapeutin
        zahnarzt zahnärztin tierarzt tierärztin altenpfleger altenpflegerin beamter beamtin"""
    ),
    compounds=True,
    not_jobs=words(
        """nicht kein keine keinen nie gut guter gute schlecht schlechter schlechte großer große riesiger fan
        ehemaliger ehemalige angehender angehende hobby"""
    ),
    adjectives=words(
        """kleine kleinen kleiner kleines große großen großer jüngere jüngeren jüngerer ältere älteren älterer
        beste besten bester alte alten alter neue neuen neuer liebe lieben"""
    ),
    being=r"\bich bin\b",
    relatives={
        **INTENTS.relatives,
        **{"cousine": "cousin", "cousin": "cousin", "tante": "aunt", "onkel": "uncle", "partner": "partner"},
        **{"partnerin": "partner", "ehemann": "husband", "ehefrau": "wife", "verlobte": "fiancée"},
        **{"verlobter": "fiancé", "mitbewohner": "roommate", "mitbewohnerin": "roommate", "nachbar": "neighbour"},
        **{"nachbarin": "neighbour", "chef": "boss", "chefin": "boss", "enkel": "grandson", "enkelin": "granddaughter"},
    },
    pets={
        **{"hund": "dog", "hündin": "dog", "katze": "cat", "kater": "cat", "kätzchen": "kitten"},
        **{"welpe": "puppy", "papagei": "parrot", "wellensittich": "budgie", "hamster": "hamster"},
        **{"kaninchen": "rabbit", "hase": "rabbit", "meerschweinchen": "guinea pig", "pferd": "horse"},
        **{"pony": "pony", "schildkröte": "tortoise", "goldfisch": "goldfish", "frettchen": "ferret"},
    },
    hypothetical=phrases(
        """wenn; falls; würde; würden; wäre; wären; hätte; hätten; möchte; möchten; will; wollen; träume;
        vielleicht; irgendwann; eines tages; könnte; könnten; sollte; plane; überlege"""
    ),
    joins=words("und aber weil denn während da wo"),
    stops=words("an am auf zu ab"),
    connectors=words("am an der ob im"),
    not_values=words(
        """IT EDV Nähe Stadt Innenstadt Gegend Hause Ausland Wohnung Haus Zentrum Urlaub Ferien Zukunft Rente
        Homeoffice Teilzeit Vollzeit mein meine meinen meinem meiner unser unsere ihn sie ihm ihr mich
        kinder schüler schülerin schülern erwachsene erwachsenen"""
    ),
)

#: Questions that ask the speaker's own single value (``caim.memory.text.slots.asked``): (attribute,
#: pattern) pairs matched without regard to case in a question sentence. Present tense only: a
#: question about the past does not ask the current value.
ASKS: tuple[tuple[str, str], ...] = (
    ("name", r"\bwie hei(?:ß|ss)e ich\b"),
    ("name", r"\b(?:wie|was) ist mein (?:vor)?name\b"),
    ("age", r"\bwie alt bin ich\b"),
    ("location", r"\bwo (?:wohne|lebe) ich\b"),
    ("location", r"\bin welche[mr] (?:stadt|ort|land) (?:wohne|lebe) ich\b"),
    ("location", r"\bwo bin ich (?:\w+ )?zu ?hause\b"),
    ("diet", r"\bwie ernähre ich mich\b"),
    ("diet", r"\bbin ich (?:\w+ )?(?:vegetarier|veganer)(?:in)?\b"),
    ("diet", r"\besse ich (?:\w+ )?fleisch\b"),
    ("job", r"\bwas (?:ist mein beruf|bin ich von beruf|mache ich beruflich)\b"),
    ("job", r"\bals was arbeite ich\b"),
    ("employer", r"\bwo arbeite ich\b"),
    ("employer", r"\b(?:bei|für) welche[rms]? (?:firma|unternehmen|arbeitgeber) arbeite ich\b"),
    ("employer", r"\bwer ist mein arbeitgeber\b"),
)
