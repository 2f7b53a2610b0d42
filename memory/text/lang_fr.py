"""French: stopwords (after Snowball's list, with the elided "l'", "j'", "qu'"...), Snowball stems,
and the code signals' words. An apostrophe splits a word ("j'ai" is "j" and "ai"). ``SLOTS``: single-value
facts the speaker states of themselves; ``ENTITIES``: the work, places, people and pets of their life."""

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
    words("""au aux avec ce ces dans de des du elle en et eux il ils je la le les leur lui ma mais me même mes moi mon
    ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre vous
    c d j l à m n s t y été étais était étions étiez étaient suis es est sommes êtes sont ai as a avons avez
    ont avais avait avions aviez avaient eu ceci cela ça cet cette ici ils leurs lorsqu lorsque puisqu quand
    quel quelle quels quelles sans si très tout tous toute toutes aussi comme donc alors car où""")
)

# Goal-aware recall (``caim.memory.intents``): request cues, closed vocabularies and slot words.
_N = r"(?P<n>\d{1,2}|deux|trois|quatre|cinq|six|sept|huit|neuf|dix)"
INTENTS = IntentWords(
    code="fr",
    cues={
        "restaurant": (
            r"\brestaurant\b",
            r"\b(?:réserv|trouv|cherch)\w*\b.{0,40}\b(?:table|dîner|diner|déjeuner|brunch)\b",
            r"\bune table pour\b",
            r"\b(?:manger|dîner) dehors\b",
        ),
        "travel": (r"\b(?:voyage|vacances|séjour|escapade|week-end à)\w*",),
        "gift": (r"\bcadeau\w*", r"\bprésent pour\b"),
        "appointment": (
            r"\brendez-vous\b",
            r"\brdv\b",
            r"\b(?:dentiste|médecin|coiffeur|coiffeuse|vétérinaire|kiné\w*)\b.{0,40}\b(?:prendre|réserv|fix)\w*",
            r"\b(?:prendre|réserv|fix)\w*\b.{0,40}\b(?:dentiste|médecin|coiffeur|vétérinaire|kiné\w*)\b",
        ),
        "entertainment": (
            r"\b(?:cinéma|film|concert|théâtre|billets?|spectacle)\b.{0,40}\b(?:ce soir|week-end|vendredi|samedi|"
            r"dimanche|voir|aller|réserv|trouv)\w*",
            r"\b(?:réserv|trouv|prend)\w*\b.{0,30}\b(?:billets?|places?|cinéma|concert|spectacle)\b",
            r"\bune sortie\b",
        ),
    },
    vocab={
        "cuisine": {
            "italien": "italian",
            "japonais": "japanese",
            "chinois": "chinese",
            "mexicain": "mexican",
            "indien": "indian",
            "thaï": "thai",
            "thaïlandais": "thai",
            "français": "french",
            "grec": "greek",
            "espagnol": "spanish",
            "coréen": "korean",
            "vietnamien": "vietnamese",
            "libanais": "lebanese",
            "sushi": "sushi",
            "pizza": "pizza",
        },
        "diet": {
            "végétarien": "vegetarian",
            "végétalien": "vegan",
            "végan": "vegan",
            "sans gluten": "gluten-free",
            "sans lactose": "lactose-free",
            "halal": "halal",
            "casher": "kosher",
        },
        "lodging": {
            "hôtel": "hotel",
            "auberge de jeunesse": "hostel",
            "appartement": "apartment",
            "airbnb": "airbnb",
            "camping": "camping",
            "chambre d'hôtes": "b&b",
            "gîte": "guesthouse",
        },
        "transport": {
            "train": "train",
            "avion": "plane",
            "voiture": "car",
            "bus": "bus",
            "ferry": "ferry",
            "vélo": "bike",
        },
        "occasion": {
            "anniversaire de mariage": "anniversary",
            "anniversaire": "birthday",
            "mariage": "wedding",
            "noël": "christmas",
            "retraite": "retirement",
            "crémaillère": "housewarming",
        },
        "provider": {
            "dentiste": "dentist",
            "médecin": "doctor",
            "kiné": "physiotherapist",
            "kinésithérapeute": "physiotherapist",
            "coiffeur": "hairdresser",
            "coiffeuse": "hairdresser",
            "vétérinaire": "vet",
            "opticien": "optician",
            "dermatologue": "dermatologist",
        },
        "time": {
            "le matin": "mornings",
            "l'après-midi": "afternoons",
            "le soir": "evenings",
            "week-end": "weekends",
            "samedi": "saturdays",
            "midi": "lunchtime",
        },
        "genre": {
            "horreur": "horror",
            "comédie": "comedy",
            "thriller": "thriller",
            "science-fiction": "sci-fi",
            "drame": "drama",
            "jazz": "jazz",
            "rock": "rock",
            "classique": "classical",
            "opéra": "opera",
            "comédie musicale": "musical",
            "techno": "techno",
        },
    },
    people=(
        rf"\b(?:nous serons|nous sommes|on sera|on est|pour) {_N}(?: personnes| adultes| invités)?\b",
        rf"\b{_N} personnes\b",
    ),
    numbers={
        "deux": "2",
        "trois": "3",
        "quatre": "4",
        "cinq": "5",
        "six": "6",
        "sept": "7",
        "huit": "8",
        "neuf": "9",
        "dix": "10",
    },
    money=r"\d[\d.,]*\s?(?:€|(?:euros?|francs?)\b)|€\s?\d[\d.,]*",
    relatives={
        "sœur": "sister",
        "soeur": "sister",
        "frère": "brother",
        "mère": "mother",
        "maman": "mum",
        "père": "father",
        "papa": "dad",
        "femme": "wife",
        "mari": "husband",
        "copine": "girlfriend",
        "copain": "boyfriend",
        "amie": "friend",
        "ami": "friend",
        "fils": "son",
        "fille": "daughter",
        "grand-mère": "grandma",
        "grand-père": "grandpa",
        "neveu": "nephew",
        "nièce": "niece",
        "collègue": "colleague",
    },
    mine=r"\b(?:ma|mon|mes)\s+(?:meilleure?\s+|petite?\s+|grande?\s+)?{rel}",
    company=r"\bavec\s+(?:ma|mon|mes)\s+{rel}",
    likes=r"\b(?:elle|il|(?:ma|mon|mes)\s+(?:meilleure?\s+|petite?\s+|grande?\s+)?{rel})\s+"
    r"(?:adore|aime(?: beaucoup| bien)?|collectionne|se passionne pour|est (?:fan|passionnée?|folle?|fou) d(?:e |')|"
    r"fait d(?:u|e la|es) )\s*(?P<thing>[^.,;!?]{2,40})",
    ends=r"\s+(?:et|mais|parce|depuis|le week-end|tous|toutes|chaque)\b",
    outcomes={
        "cancelled": r"\b(?:annulée?s?|j'annule|on annule|annule[rz]?|laisse tomber)\b",
        "booked": r"\b(?:réservée?s?|commandée?s?|achetée?s?|confirmée?s?|c'est fait)\b",
        "chosen": r"\b(?:je prends|on prend|nous prenons|je choisis|on choisit|va pour|ça me va)\b",
    },
)

MONTHS = words("janvier février mars avril mai juin juillet août septembre octobre novembre décembre")
WEEKDAYS = {"lundi": 0, "mardi": 1, "mercredi": 2, "jeudi": 3, "vendredi": 4, "samedi": 5, "dimanche": 6}
_DAYS = dict(zip(WEEKDAYS, DAYS, strict=True))
_UNITS = {
    "semaine": "week",
    "week-end": "weekend",
    "weekend": "weekend",
    "mois": "month",
    "année": "year",
    "an": "year",
}
_LAST = dict.fromkeys(words("dernier dernière passé passée précédent précédente"), "last")
_NEXT = dict.fromkeys(words("prochain prochaine"), "next")
_THIS = dict.fromkeys(words("ce cet cette"), "this")

TIME = TimeWords(
    phrases={
        "hier": "yesterday",
        "avant-hier": "the day before yesterday",
        "aujourd'hui": "today",
        "ce matin": "this morning",
        "ce soir": "tonight",
        "hier soir": "last night",
        "la nuit dernière": "last night",
        "demain": "tomorrow",
        "récemment": "recently",
        "dernièrement": "lately",
        "ces derniers temps": "lately",
        "l'autre jour": "the other day",
        "ce mois-ci": "this month",
        **combine(_LAST, _UNITS | _DAYS, after=True),
        **combine(_NEXT, _UNITS | _DAYS, after=True),
        **combine(_THIS, _UNITS | _DAYS),
    },
    ago="il y a {count} {unit}",
    counts={"un": "a", "une": "a", "quelques": "a few", "plusieurs": "several"}
    | counting("deux trois quatre cinq six sept huit neuf dix", 2),
    units={"jour": "day", "jours": "day", "semaine": "week", "semaines": "week", "mois": "month"}
    | {"an": "year", "ans": "year", "année": "year", "années": "year"},
    months={
        **dict(zip(MONTHS, range(1, 13), strict=True)),
        **{"janv": 1, "févr": 2, "fév": 2, "avr": 4, "juil": 7, "sept": 9, "oct": 10, "nov": 11, "déc": 12},
        "fevrier": 2,
        "aout": 8,
        "decembre": 12,
    },
    weekdays=WEEKDAYS,
    dates=(r"{day}(?:er)? {month}(?: {year})?", r"{month} {year}"),
    in_month=(r"en {month}", r"au mois de {month}", r"au mois d'{month}", r"début {month}", r"fin {month}"),
    markers=("depuis", "autrefois", "jadis", "à l'époque"),
)

SIGNALS = Signals(
    first_person=words("je j moi me m mon ma mes nous notre nos"),
    third_person=words("il elle ils elles"),
    telling=words(
        """suis étais est sommes ai avais avons aime aimons adore adorons préfère déteste veux voudrais dois vais
        allons travaille travaillons habite habitons vis vivons joue jouons étudie apprends fais faisons appelle
        né née marié mariée déménagé commencé acheté adopté visité peux jamais toujours souvent chaque prends
        mange lis cuisine d'habitude"""
    ),
    # "I'm sorry / glad for you / proud of you / here for you / not sure": said to the other side
    reactions=phrases("désolé; désolée; ça me fait plaisir; je ne suis pas sûr; je ne suis pas sûre")
    + spelled(
        ("je suis", "nous sommes"),
        ("", "si", "tellement", "vraiment", "très"),
        phrases("désolé; désolée; content pour toi; contente pour toi; heureux pour toi; heureuse pour toi")
        + phrases("fier de toi; fière de toi; là pour toi; sûr; sûre"),
    ),
    past=PastTense(
        subjects=words("je j nous on"),
        auxiliaries=words("ai avons avais avions suis sommes étais étions"),
        participle=r"\w+(?:é|ée|és|ées|i|ie|is|ise|it|ite|u|ue|us|ert|erte|eint)",
        not_after=words(
            """un une le la les l des du de d mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs ce cet
            cette ces"""
        ),
        simple=words(
            "étais étions avais avions allais allions faisais habitais travaillais jouais voulais pensais aimais"
        ),
    ),
    past_reference=phrases(
        """tu te souviens; vous vous souvenez; te souviens-tu; tu te rappelles; rappelle-toi; souviens-toi;
        je t'ai dit; je t'ai parlé; je t'ai raconté; je vous ai dit; je t'ai montré; je t'ai envoyé;
        j'ai mentionné; je l'ai mentionné; tu m'as dit; tu m'as recommandé; tu m'as conseillé; tu m'as suggéré;
        tu m'avais; vous m'avez; tu as dit; on a parlé; nous avons parlé; on en a parlé; la dernière fois;
        l'autre jour; plus tôt; avant; auparavant; précédemment; autrefois; encore; de nouveau; à nouveau"""
    ),
    asks_past=phrases(
        """avant; auparavant; autrefois; précédemment; ancien; ancienne; anciens; anciennes; à l'époque;
        à ce moment-là; d'origine; au départ; avais l'habitude; avait l'habitude"""
    ),
    when=phrases(
        """quand; en quelle année; quelle année; en quel mois; quel mois; quel jour; quelle date; à quelle date;
        depuis quand; il y a combien de temps; depuis combien de temps"""
    ),
    aggregate=("combien",),
    question_words=words(
        "que qu quoi qui où quand comment pourquoi quel quelle quels quelles lequel laquelle combien est-ce"
    ),
    greetings=phrases("bonjour; salut; coucou; bonsoir; merci; merci beaucoup; merci bien; mille mercis"),
    exclamations=phrases(
        """super; génial; cool; top; bravo; magnifique; chouette; waouh; wow; ouah; formidable; excellent; parfait;
        trop bien; trop cool; c'est génial; c'est super"""
    ),
    sign_offs=phrases(
        "ok; d'accord; au revoir; à bientôt; à plus; à demain; bonne nuit; bonne journée; bonne soirée; ciao"
    ),
    openers=phrases(
        """oui; ouais; non; bon; alors; ben; bah; ah; oh; euh; merci; bonjour; salut; coucou; ok; waouh; wow; super;
        eh bien; d'accord"""
    ),
    not_names=words(
        """Je Tu Il Elle Nous Vous Ils Elles On Le La Les Un Une Des Mon Ma Mes Ton Ta Mais Et Alors Merci Bonjour
        Salut Oui Non Bon Ah Oh Super Bravo User Assistant"""
    ),
    quotes='"\u201c\u00ab\u201e',
    giving=phrases(
        """je recommande; je te recommande; je vous recommande; je conseille; je te conseille; je vous conseille;
        je suggère; je te suggère; je vous suggère; je propose; j'ai réservé; je t'ai envoyé;
        je vais te rappeler"""
    ),
    accepting=phrases(
        """merci; merci beaucoup; ok; d'accord; bonne idée; super idée; ça marche; ça me va; parfait; génial; super;
        je vais essayer; je vais le faire; je vais tester; j'essaierai; volontiers; oui; avec plaisir; top;
        excellent; bien vu; entendu"""
    ),
    refusing=phrases("non; non merci; plutôt pas; pas vraiment; merci, mais; sans façon; pas intéressé"),
    claims=phrases(
        """tu as mentionné; tu m'as dit; tu as dit; comme tu disais; vous avez mentionné; vous m'avez dit; tu es;
        tu habites; tu travailles; ta; ton; tes; votre"""
    ),
    wishes=phrases(
        """bonne journée; bonne soirée; bon courage; bonne chance; à bientôt; amuse-toi bien; amusez-vous bien;
        profite; profitez; bon week-end; bonnes vacances"""
    ),
    time=TIME,
)

#: Preference cues (``caim.memory.text.polarity``).
POLARITY = PolarityWords(
    likes=phrases(
        """aime; aimes; aimons; aiment; aimé; adore; adores; adorons; adorent; adoré; préfère; préfères; préférons;
        kiffe; kiffes; kiffé; apprécie; apprécies; fan de; fan absolue; fan absolu; grand fan; grande fan; raffole;
        raffoles; passionné; passionnée; passionnés; passionné de; passionnée de; passionné par; passionnée par;
        accro à; accro aux; accro au; fou de; folle de; dingue de; à fond dans; me passionne; me passionnent;
        je collectionne; les collectionne; m'éclate; me régale; me régalent; j'en raffole; fais toujours plaisir;
        fait du bien;
        me fait du bien; me fait un bien fou; me détend; me détendent; me calme; me vide la tête; me ressource;
        me rend heureux; me rend heureuse; me rend dingue de joie; m'apaise; me fait vibrer; tombé amoureux;
        tombée amoureuse; amoureux de; amoureuse de; m'a donné envie; me donne envie; me plaît; me plait;
        me plaisent; m'a plu; m'ont plu; suis fan; un faible pour; mon péché mignon; prends plaisir;
        m'intéresse; m'intéressent; m'amuse; me fascine; me fascinent"""
    )
    + spelled(("un", "une"), ("", "grand", "grande", "énorme", "immense", "vrai", "vraie"), ("fan",)),
    dislikes=phrases(
        """déteste; détestes; détestons; détestent; détesté; supporte pas; supporte plus; supportes pas; horreur;
        pas fan; exècre; ai marre; en ai marre; marre de; ras le bol; ras-le-bol; me saoule; me soûle; me gonfle;
        m'énerve; m'énervent; m'ennuie; m'ennuient; me fatigue; me fatiguent; me dégoûte; me dégoûtent;
        j'en peux plus; en peux plus; insupportable; me casse les pieds; me tape sur les nerfs; plus jamais;
        peux pas voir; pas mon truc; pas pour moi; pas trop mon truc; me stresse; m'angoisse; me fait peur;
        me font peur; m'agace; m'agacent; m'insupporte; m'insupportent; me gave; me gavent; me lasse;
        me lassent; lassé de; lassée de; me barbe; me barbent; me rase; du mal avec; pas ma tasse de thé"""
    ),
    neutral=phrases("m'est égal; indifférent; indifférente; ça va; pas mal; ça dépend; comme tu veux"),
    praise=phrases(
        """génial; géniale; géniaux; excellent; excellente; délicieux; délicieuse; incroyable; magnifique; sublime;
        parfait; parfaite; top; trop bien; trop bon; trop bonne; une tuerie; une merveille; un régal; magique;
        merveilleux; merveilleuse; fantastique; extra; le meilleur; la meilleure; les meilleurs; génialissime;
        ouf; le pied; au top; canon; super bon; super bonne;
        hyper bon; vraiment bon; vraiment bien; trop cool; trop beau; trop belle; réconfortant; apaisant;
        relaxant; reposant; un délice; délicieusement; seul moment où; déconnecter;
        m'aide à me détendre; m'aide à décompresser; m'aide à déconnecter; m'aide à tenir; m'aide à souffler;
        m'empêche de devenir fou; m'empêche de devenir folle; me garde sain d'esprit; me garde saine d'esprit;
        me maintient à flot; me met de bonne humeur; me donne le sourire; me remonte le moral;
        coup de cœur; coup de coeur; m'a bluffé; m'a bluffée; m'ont bluffé; m'a complètement bluffé;
        m'a complètement bluffée; m'a vraiment bluffé; m'a vraiment bluffée"""
    ),
    scorn=phrases(
        """nul; nulle; ennuyeux; ennuyeuse; chiant; chiante; horrible; affreux; affreuse; dégoûtant; dégoûtante;
        dégueu; dégueulasse; pénible; barbant; barbante; le pire; la pire; relou; gonflant; gonflante; infect;
        infecte; immonde; épuisant; épuisante; lourd; lourde; trop cher; trop long; trop lent; trop sucré;
        trop épicé; un cauchemar; l'enfer; insipide; fade; décevant; décevante; bondé; bondée; bof; immondes;
        nuls; nulles; horribles; affreux; dégoûtants; décevants; décevantes; infects; fades"""
    ),
    reactions=phrases(
        """ça a l'air; a l'air; t'as; tu; toi; ton; ta; tes; vous; votre; vos; quel; quelle; quels; quelles;
        comme c'est; félicitations; bravo; merci; il est; elle est; ça sera; ce sera; sera; serait; j'espère;
        on dirait; c'était; ce serait"""
    ),
    events=phrases(
        """soirée; fête; voyage; vacances; week-end; week end; weekend; journée; nuit; mariage; anniversaire; nouvelle;
        nouvelles; sortie; idée; moment; temps"""
    ),
    trail=words(
        "mais et aussi pour en au à dans avec vraiment franchement honnêtement quand même d'ailleurs bref non"
        " c'est était est sont pour moi encore toujours"
    ),
    ever=phrases("de tous les temps; de ma vie; du monde; depuis des années; jamais"),
    nouns=(
        *words("préféré préférée préférés préférées passion truc kif"),
        *phrases(
            """ma passion; mon truc; mon rayon de soleil; ma bouffée d'oxygène; ma thérapie; ma soupape;
            mon échappatoire; mon moment à moi; mon refuge; mon plaisir; mon bonheur; mon kif; ma came; mon dada"""
        ),
    ),
    bad_nouns=phrases("bête noire"),
    owners=words("mon ma mes notre nos son sa ses leur leurs ton ta tes votre vos le la les un une l"),
    negations=words("ne n pas plus jamais guère rien"),
    once=words("aimé adoré kiffé détesté"),
    blocks=phrases(
        """j'aimerais; aimerais; aimerait; aimerions; voudrais; je t'aime; t'aime; vous aime; je vous adore;
        je t'adore; t'adore; bisous; bon appétit; bonne soirée; bonne journée; amuse-toi; amusez-vous; profite;
        profitez; d'horreur; film d'horreur; films d'horreur; aime bien que tu; super idée; bonne idée;
        excellente idée; génial, merci; super, merci; parfait, merci; top, merci; avec plaisir; ça marche;
        pas mal de; trop de; bien sûr; j'ai hâte; hâte de"""
    ),
    selves=words("je j moi nous mon ma mes notre nos me m"),
    holders=words("il elle ils elles"),
    others=words("tu t toi vous qui on les le la l un une des ton ta tes votre vos tout tous gens"),
    addressee=words("tu te t toi ton ta tes vous votre vos"),
    fillers=phrases(
        """vraiment; trop; tellement; beaucoup; bien; aussi; toujours; encore; déjà; grave; franchement;
        honnêtement; vraiment beaucoup; énormément; carrément; complètement; totalement; absolument; juste;
        surtout; en fait; en vrai; du coup; sincèrement; ne; n; y; en; l; le; la; les; j'; c'est; c; est; était;
        ai; as; a; avoir; suis; es; été; oh; ah; waouh; wow; haha; ok; bon; bah; ben; eh; ouais; oui; salut;
        coucou; super; hyper; étaient; sont; de plus en plus"""
    ),
    pointers=words("ce cet cette ces"),
    joins=words("et mais ou puis à de pour"),
    reasons=phrases("parce que; parce qu'; car; puisque; —; –"),
    reason_openers=phrases("trop; c'est; c'était; si; tellement; toujours"),
)

LANGUAGE = Language(
    code="fr",
    stemmer="french",
    stopwords=STOPWORDS,
    votes=vote_words(STOPWORDS) | table_words(SIGNALS),
    marks="çœèêëîïûùâ",
    signals=SIGNALS,
)

_J = r"\bj(?:'|\u2019| )"
_JE_SUIS = r"\bje suis (?:maintenant |désormais |devenue? )?"
SLOTS = SlotWords(
    patterns=(
        ("name", r"\bje m(?:'|\u2019| )appelle {v}"),
        ("name", r"\bmon (?:pré)?nom est {v}"),
        ("age", _J + r"ai (?:maintenant )?{n} ans"),
        ("age", r"\bje viens d(?:'|\u2019)avoir {n} ans"),
        ("location", _J + r"habite (?:maintenant |désormais |à présent )?(?:à|a|en|au) {v}"),
        ("location", r"\b(?:je vis|nous vivons|nous habitons) (?:maintenant |désormais )?(?:à|en|au) {v}"),
        ("location", _J + r"ai déménagé (?:à|en|au) {v}"),
        ("location", r"\b(?:nous avons|on a) déménagé (?:à|en|au) {v}"),
        ("location", r"\bje (?:viens de déménager|me suis installée?|suis installée?) (?:à|en|au) {v}"),
        ("job", r"\bje (?:travaille|bosse) (?:maintenant |désormais )?comme {v}"),
        ("job", r"\bje suis devenue? {v}"),
        ("job", r"\bmon métier est {v}"),
        ("employer", r"\bje (?:travaille|bosse) (?:maintenant |désormais )?(?:chez|pour) {v}"),
    ),
    values=(
        ("diet", "vegan", _JE_SUIS + r"(?:végane?|vegane?|végétalienne?)\b"),
        ("diet", "vegetarian", _JE_SUIS + r"végétarien(?:ne)?\b"),
        ("diet", "vegetarian", r"\bje ne mange (?:plus|pas) de viande"),
        ("diet", "omnivore", r"\bje ne suis plus (?:végétarien(?:ne)?|végane?|vegane?)"),
        ("diet", "omnivore", r"\bje (?:re)?mange (?:à nouveau |de nouveau )?de la viande"),
    ),
    stops=words(
        "et mais avec depuis maintenant parce car comme à au en chez pour dernier dernière aussi désormais"
        " ans je nous il y a cette ce"
    ),
    not_values=words(
        "un une mon ma mes notre nos son sa ses végétarien végétarienne végane vegane végan vegan végétalien"
    ),
    articles=("le", "la", "les", "l'", "l\u2019"),
)

_NOT_THE_FR = r"(?!(?:la|le|les|l'|l’|un|une) )(?!l['’])"
ENTITIES = EntityWords(
    mine=(
        ("job", "", r"\bje suis (?:maintenant |désormais |actuellement |aussi )?(?:devenue? )?(?:un |une )?{job}"),
        ("place", "origin", r"\bje (?:suis|viens) (?:originaire )?(?:de |d['’]|du |des ){v}"),
        ("place", "origin", r"\bj['’]ai grandi (?:à|a|en|au) {v}"),
        ("place", "origin", r"\bje suis née? (?:à|a|en|au) {v}"),
        ("place", "work", r"\bje travaille (?:maintenant |actuellement )?(?:à|a|en) " + _NOT_THE_FR + "{v}"),
        (
            "place",
            "travel",
            r"\b(?:je|nous|on) (?:pars|partons|part|vais|allons|va|suis allée?|sommes allée?s|suis partie?|"
            r"sommes partie?s|voyage|voyageons|rentre|rentrons) (?:\w+ ){0,2}?(?:en vacances |en voyage )?"
            r"(?:à|a|en|au|aux|pour) " + _NOT_THE_FR + "{v}",
        ),
        ("place", "travel", r"\b(?:je|nous) (?:reviens|revenons|rentre|rentrons) (?:tout juste )?(?:de |d['’]|du ){v}"),
    ),
    holder=r"\b(?:ma|mon|notre)\s+{adj}{rel}(?:\s+{name})?(?:,?\s+qui)?",
    theirs=(
        ("job", "", r"\s+est (?:maintenant |aussi |devenue? |désormais )?(?:un |une )?{job}"),
        ("job", "", r"\s+travaille (?:maintenant |désormais )?comme {v}"),
        ("employer", "", r"\s+travaille (?:maintenant |désormais )?(?:chez|pour) {v}"),
        ("place", "home", r"\s+(?:habite|vit) (?:maintenant |désormais )?(?:à|a|en|au) {v}"),
        ("place", "home", r"\s+a déménagé (?:à|a|en|au) {v}"),
        ("place", "origin", r"\s+(?:vient|est originaire) (?:de |d['’]|du ){v}"),
        ("place", "work", r"\s+travaille (?:à|a|en) " + _NOT_THE_FR + "{v}"),
    ),
    job_verbs=(
        (r"\bj['’]enseigne(?:\s+{v})?", "professeur de {v}", "professeur"),
        (r"\bje donne des cours(?: de| d['’])?(?:\s*{v})?", "professeur de {v}", "professeur"),
    ),
    their_job_verbs=((r"\s+enseigne(?:\s+{v})?", "professeur de {v}", "professeur"),),
    elisions=((r"\bde l['’]", "d'"), (r"\bde (?=[aeiouyhéèêàâîôû])", "d'")),
    tails=(
        ("employer", "", r"\bchez {v}"),
        ("place", "work", r"\b(?:à|a|en) " + _NOT_THE_FR + "{v}"),
        ("job", "", r"\bcomme {v}"),
    ),
    people=(
        r"\b(?:ma|mon|mes|notre|nos)\s+{adj}{rel}\s+{name}",
        r"\b(?:ma|mon|notre)\s+{adj}{rel} s['’]appelle {name}",
        r"(?:^|(?<=\s)){name} (?:est|c['’]est) (?:ma|mon|notre) {adj}{rel}\b",
    ),
    animals=(
        r"\b(?:ma|mon|mes|notre|nos)\s+{adj}{pet}\s+{name}",
        r"\b(?:un|une|deux|trois)\s+{adj}{pet},? (?:qui s['’]appelle|nommée?|appelée?) {name}",
        r"\b(?:ma|mon|notre)\s+{adj}{pet} s['’]appelle {name}",
        r"\b(?:j['’]ai|nous avons|on a) (?:adopté |aussi |maintenant )?(?:un|une|deux|trois) {adj}{pet}",
        r"\b(?:ma|mon|mes|notre|nos)\s+{adj}{pet}(?![^\W_])",
    ),
    jobs=words(
        """infirmier infirmière médecin docteur ingénieur ingénieure développeur développeuse programmeur
        programmeuse designer graphiste avocat avocate comptable architecte chef cuisinier cuisinière
        boulanger boulangère pharmacien pharmacienne dentiste vétérinaire chercheur chercheuse scientifique
        professeur professeure prof enseignant enseignante instituteur institutrice consultant consultante
        journaliste rédacteur rédactrice photographe artiste musicien musicienne électricien électricienne
        plombier menuisier mécanicien mécanicienne chauffeur pilote pompier policier policière militaire
        agriculteur agricultrice bibliothécaire traducteur traductrice interprète thérapeute psychologue
        chirurgien chirurgienne sage-femme serveur serveuse vendeur vendeuse caissier caissière secrétaire
        kiné kinésithérapeute coiffeur coiffeuse directeur directrice analyste fonctionnaire aide-soignant
        aide-soignante éducateur éducatrice"""
    ),
    job_after=r"(?:\s+(?:de|du|des|en)\s+[^\W\d_]+|\s+d['’][^\W\d_]+)?",
    not_jobs=words("pas plus jamais bon bonne mauvais mauvaise grand grande fan ancien ancienne futur future"),
    adjectives=words("petit petite meilleur meilleure grand grande jeune vieux vieille nouveau nouvelle cher chère"),
    being=r"\bje suis\b",
    relatives={
        **INTENTS.relatives,
        **{"cousin": "cousin", "cousine": "cousin", "tante": "aunt", "oncle": "uncle", "compagnon": "partner"},
        **{"compagne": "partner", "conjoint": "partner", "conjointe": "partner", "coloc": "roommate"},
        **{"colocataire": "roommate", "voisin": "neighbour", "voisine": "neighbour", "patron": "boss"},
        **{"patronne": "boss", "fiancé": "fiancé", "fiancée": "fiancée"},
    },
    pets={
        **{"chien": "dog", "chienne": "dog", "chat": "cat", "chatte": "cat", "chaton": "kitten", "chiot": "puppy"},
        **{"perroquet": "parrot", "perruche": "budgie", "lapin": "rabbit", "hamster": "hamster"},
        **{"tortue": "tortoise", "poisson rouge": "goldfish", "cheval": "horse", "furet": "ferret"},
        "cochon d'inde": "guinea pig",
    },
    hypothetical=phrases(
        """si; s'il; aimerais; voudrais; rêve; rêverais; peut-être; un jour; pourrais; devrais; souhaite;
        espère; envisage; imagine"""
    ),
    joins=words("et mais parce car pendant où qui"),
    stops=words("enfants élèves adultes depuis dans sur"),
    connectors=words("de du des la le sur en"),
    not_values=words(
        """IT mon ma mes notre nos son sa ses lui leur moi eux enfants élèves adultes maison ville campagne
        vacances"""
    ),
)

#: Questions that ask the speaker's own single value (``caim.memory.text.slots.asked``): (attribute,
#: pattern) pairs matched without regard to case in a question sentence. Present tense only: a
#: question about the past does not ask the current value.
ASKS: tuple[tuple[str, str], ...] = (
    ("name", r"\bcomment (?:est-ce que )?je m['’]appelle\b"),
    ("name", r"\bquel est mon (?:nom|prénom)\b"),
    ("age", r"\bquel âge (?:ai-je|j['’]ai|est-ce que j['’]ai)\b"),
    ("location", r"\boù (?:est-ce que )?(?:j['’]habite|je vis|je réside)\b"),
    ("location", r"\boù (?:habité-je|vis-je)\b"),
    ("location", r"\bdans quel(?:le)? (?:ville|pays|endroit) (?:est-ce que )?(?:j['’]habite|je vis|vis-je)\b"),
    ("diet", r"\bquel est mon régime\b"),
    ("diet", r"\b(?:suis-je|est-ce que je suis) (?:\w+ )?(?:végétarien|végétalien|végan)"),
    ("diet", r"\b(?:est-ce que je mange|mangé-je) (?:\w+ )?de la viande\b"),
    ("job", r"\bquel est mon (?:métier|travail|emploi|poste)\b"),
    ("job", r"\b(?:qu['’]est-ce que je fais|que fais-je) dans la vie\b"),
    ("employer", r"\boù (?:est-ce que )?je travaille\b"),
    ("employer", r"\boù travaillé-je\b"),
    ("employer", r"\bpour (?:qui|quelle (?:entreprise|société|boîte)) (?:est-ce que )?je travaille\b"),
    ("employer", r"\bquel est mon employeur\b"),
)
