"""English: the words detection and the index read. English's signal grammar lives in the signal
modules themselves (``signals``, ``dates``, ``smalltalk``, ``names``, ``caim.memory.capture``).

- ``STOPWORDS``: the words the index leaves out.
- ``GREETINGS``, ``EXCLAMATIONS``, ``SIGN_OFFS``: small talk (``caim.memory.text.smalltalk``).
- ``SLOTS``: single-value facts the speaker states of themselves (``caim.memory.text.slots``).
- ``ENTITIES``: the work, places, people and pets of the speaker's life (``caim.memory.text.entities``).
- ``LANGUAGE``: English for ``caim.memory.text.lang``: its votes are its stopwords, its small talk,
  and the English words that are also function words of another language ("die", "war", "also"),
  so that an English text holding them is not taken for that language.
"""

from __future__ import annotations

from caim.memory.text.tables import EntityWords, Language, PolarityWords, SlotWords, vote_words, words

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn't",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "ll",
        "m",
        "re",
        "ve",
        "d",
    ]
)

#: Greetings and thanks.
GREETINGS = ("hi", "hello", "hey", "thanks", "thank you")
#: Praise and exclamations.
EXCLAMATIONS = ("wow", "awesome", "great", "glad", "cool", "amazing", "nice", "yeah", "yay", "totally")
#: Assent and farewells: small talk as a whole message only.
SIGN_OFFS = ("ok", "okay", "bye", "goodbye", "good morning", "good night", "good evening")

#: Words of another language's tables that English has too (German "die", "war"; French "son";
#: Spanish "come"): they vote for English too, and count as small talk only as English reads them.
SHARED = words(
    """also toll art bald bin den die fast gift hat hell kind man mist rat rock so war was will wo top super genial
    prima klasse bravo son sur pour est plus on non ton ou sale tout car come con sin pan era ante este
    para solo mi ten once red fin ciao chat coin pain main dire vale mar ha he ai cuisine plane ya um ma hay
    mag ins soy al lo er yo tag im da weekend week content moment oh courage chance end excellent jo eh hm ah
    comment rate six date aug jun parfait ay oft gut encore january february march april may june july august
    september october november december monday tuesday wednesday thursday friday saturday sunday"""
)

#: Small talk of another language whose stem an English word shares (Spanish "perfecto" and English
#: "perfect", French "salut" and "salute", German "danke" and "dank"): ``SMALL_TALK_STEMS`` of
#: ``caim.memory.text.smalltalk`` leaves them out, so an English claim keeps those words.
STEM_COGNATES = words("perfecto fantástico salut danke")

#: Preference cues (``caim.memory.text.polarity``).
POLARITY = PolarityWords(
    likes=(
        "love",
        "loved",
        "enjoy",
        "enjoyed",
        "adore",
        "prefer",
        "fan of",
        "big fan",
        "huge fan",
        "favourite",
        "favorite",
        "fond of",
        "crazy about",
        "obsessed with",
        "passionate about",
        "can't get enough",
        "i'm into",
        "really into",
        "keen on",
        "mad about",
        "interested in",
        "my passion",
        "i'm loving",
        "i am loving",
        "been loving",
        "brings me joy",
        "brings me so much joy",
        "gives me joy",
        "gives me so much joy",
    ),
    dislikes=(
        "hate",
        "hated",
        "dislike",
        "can't stand",
        "cannot stand",
        "can not stand",
        "can't bear",
        "cannot bear",
        "not a fan",
        "not a big fan",
        "not really a fan",
        "no fan of",
        "detest",
        "loathe",
        "despise",
        "sick of",
        "tired of",
        "fed up with",
        "not into",
        "can't stand",
        "couldn't stand",
        "not for me",
        "never liked",
    ),
    neutral=(
        "don't mind",
        "do not mind",
        "doesn't mind",
        "don't care",
        "doesn't matter",
        "indifferent",
        "so-so",
        "meh",
        "no preference",
        "either way",
        "neither here nor there",
        "it's okay",
        "it's ok",
        "it's fine",
        "it's alright",
    ),
    bare=("like", "likes", "liked"),
    before_bare=(
        "i",
        "we",
        "you",
        "they",
        "he",
        "she",
        "really",
        "also",
        "do",
        "does",
        "did",
        "don't",
        "doesn't",
        "didn't",
        "not",
        "never",
        "kinda",
        "actually",
        "totally",
        "always",
        "just",
        "still",
        "definitely",
        "quite",
        "rather",
        "both",
        "all",
        "genuinely",
        "honestly",
        "truly",
    ),
    negations=(
        "don't",
        "do not",
        "doesn't",
        "does not",
        "didn't",
        "did not",
        "not",
        "never",
        "no longer",
        "won't",
        "can't",
        "isn't",
        "aren't",
        "wasn't",
        "hardly",
        "barely",
    ),
    reasons=("because", "cause", "'cause", "coz", "since", "due to", "—", "–"),
    reason_openers=(
        "too",
        "so",
        "way too",
        "it's",
        "it is",
        "they're",
        "they are",
        "it was",
        "they were",
        "always",
        "very",
        "really",
    ),
    others=words(
        "you your yours you're you've you'd you'll they their them they're they've he his him he's she her"
        " she's our people everyone everybody who in of with about"
    ),
    fillers=words(
        "must would will do does did really also always still just so totally truly absolutely"
        " definitely probably might may can could should all both too surely certainly be been very quite"
        " is are am was were"
    ),
)

LANGUAGE = Language(
    code="en",
    stemmer="english",
    stopwords=STOPWORDS,
    votes=vote_words(STOPWORDS, GREETINGS, EXCLAMATIONS, SIGN_OFFS, SHARED),
)

_I_AM = r"\bi(?:'m|’m| am)"
_NOW = r"(?:now |currently |still |finally |just |recently )?"
#: A name written with capitals ("call me back" names no one).
_CAPITALISED = r"(?-i:(?P<value>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?))"
_MEAT_FREE = r"(?:stopped|quit|gave up) eating (?:meat|animal products)"
SLOTS = SlotWords(
    patterns=(
        ("name", r"\bmy name(?: is|'s|’s) {v}"),
        ("name", r"\b(?:please )?call me " + _CAPITALISED),
        ("name", r"\bi go by " + _CAPITALISED),
        ("name", r"\bi changed my name to {v}"),
        ("age", _I_AM + r" (?:now )?{n}(?= years? old| yo\b| now\b| today\b| and\b|\s*[,.;!]|\s*$)"),
        ("age", r"\bi (?:just |recently )?turned {n}\b"),
        ("location", r"\b(?:i|we) " + _NOW + r"(?:live|am living|'m living|are living|'re living) in {v}"),
        ("location", r"\b(?:i|we)(?:'ve| have)? " + _NOW + r"(?:moved|relocated) (?:\w+ )?to {v}"),
        ("location", _I_AM + r" " + _NOW + r"based in {v}"),
        ("location", r"\bmy home is (?:now )?in {v}"),
        ("job", r"\bi(?:'m| am)? " + _NOW + r"(?:work|working) as (?:an? )?{v}"),
        ("job", _I_AM + r" now an? {v}"),
        ("job", _I_AM + r" an? (?P<value>\w+(?: \w+)?) now\b"),
        ("job", r"\bi (?:just |recently )?became an? {v}"),
        ("job", r"\bmy (?:job|profession|occupation) is (?:an? )?{v}"),
        ("job", r"\bi got a job as (?:an? )?{v}"),
        ("employer", r"\bi(?:'m| am)? " + _NOW + r"(?:work|working) (?:at|for) {v}"),
        ("employer", r"\bi (?:just |recently )?(?:got a job|started working|started a new job) (?:at|with|for) {v}"),
        ("employer", r"\bi (?:just |recently )?joined (?-i:(?P<value>[A-Z][\w&.-]*(?: [A-Z][\w&.-]*)*))"),
        ("employer", _I_AM + r" (?:now )?employed (?:at|by) {v}"),
    ),
    values=(
        ("diet", "vegan", _I_AM + r" " + _NOW + r"(?:an? )?vegan\b"),
        ("diet", "vegan", r"\bi (?:went|became|have become|'ve become|turned) (?:an? )?vegan\b"),
        ("diet", "vegetarian", _I_AM + r" " + _NOW + r"(?:an? )?vegetarian\b"),
        ("diet", "vegetarian", r"\bi (?:went|became|have become|'ve become|turned) (?:an? )?vegetarian\b"),
        ("diet", "vegetarian", r"\bi " + _NOW + _MEAT_FREE),
        ("diet", "vegetarian", r"\bi (?:don't|do not|no longer|never) eat meat\b"),
        ("diet", "pescatarian", _I_AM + r" " + _NOW + r"(?:an? )?pescatarian\b"),
        ("diet", "omnivore", _I_AM + r" (?:not|no longer) (?:an? )?(?:vegetarian|vegan)\b"),
        ("diet", "omnivore", r"\bi (?:eat|started eating|am eating|'m eating) meat\b"),
    ),
    stops=words(
        "and but with since for now because as at in from again anymore these this last next so which who where"
        " near after before until right currently too also though actually i we my our years today then when"
        " while lol haha every already ago a one two three four five six seven eight nine ten few several months"
        " weeks days"
    ),
    not_values=words(
        "a an my our his her their this that it there here myself home some one another not no"
        " vegetarian vegan pescatarian big huge little bit lot mess fan member part proud better good happy"
        " stable boring hard tough fine great ok okay stressful exhausting demanding fun exciting amazing interesting"
        " tiring busy so really very pretty quite going getting killing driving"
        " mom mum mother dad father parent grandmother grandfather grandma grandpa aunt uncle wife husband"
    ),
    articles=words("the"),
)

#: A relation's word to the relation (the English words of every table's ``relatives``).
RELATIVES = {
    **{w: w for w in words("sister brother mother mom mum father dad wife husband partner girlfriend boyfriend")},
    **{w: w for w in words("son daughter friend colleague boss grandma grandmother grandpa grandfather niece")},
    **{w: w for w in words("nephew aunt uncle cousin fiancé fiancée roommate flatmate housemate neighbour neighbor")},
    **{w: w for w in words("sister-in-law brother-in-law mother-in-law father-in-law stepmom stepdad grandson")},
    **{w: w for w in words("granddaughter twin classmate")},
    "coworker": "colleague",
    "co-worker": "colleague",
    "mommy": "mom",
    "daddy": "dad",
    "kid": "child",
    "child": "child",
    "baby": "child",
}
#: Words after an animal that make it a thing, not a pet ("dog food", "horse painting").
_PET_THINGS = (
    "food|bowl|bed|toys?|treats?|hair|fur|allergy|allergies|walker|sitter|trainer|show|costume|photos?|pictures?|"
    "paintings?|drawings?|tattoo|mug|shirt|lovers?|person|people|park|friendly|videos?|memes?|cafe|shelter|years"
)
_YEARS = r"(?:now |currently |still |also |finally |just |recently )?"
_GOING = r"(?:flying|travel(?:l)?ing|heading|going|off|driving|moving back) (?:back )?to"
ENTITIES = EntityWords(
    mine=(
        ("job", "", _I_AM + r" " + _YEARS + r"an? {job}"),
        ("job", "", r"\bi(?:'ve|’ve| have) been (?:working as )?an? {job}(?= for\b| since\b)"),
        ("employer", "", r"\bi (?:just |recently )?started (?:a new job |working )?at {v}"),
        ("place", "origin", r"\b(?:i|we)(?:'m|’m| am|'re|’re| are) (?:originally |actually )?from {v}"),
        ("place", "origin", r"\bi (?:originally )?come from {v}"),
        ("place", "origin", r"\b(?:i|we) grew up in {v}"),
        ("place", "origin", r"\bi was born (?:and raised )?in {v}"),
        ("place", "work", r"\b(?:i|we) " + _YEARS + r"(?:work|'m working|’m working|am working) in {v}"),
        (
            "place",
            "travel",
            r"\b(?:i|we)(?:'m|’m| am|'re|’re| are) (?:just |finally )?(?:" + _GOING + r"|visiting) {v}",
        ),
        ("place", "travel", r"\b(?:i|we) (?:just |finally )?(?:went|flew|travel(?:l)?ed|drove) (?:back )?to {v}"),
        ("place", "travel", r"\b(?:i|we) (?:just )?(?:got|came) back from {v}"),
        ("place", "travel", r"\b(?:i|we) (?:just )?(?:visited|spent (?:a|two|three|\w+) (?:days?|weeks?) in) {v}"),
        ("place", "travel", r"\b(?:my|our) (?:\w+ )?(?:trip|holiday|vacation|honeymoon) (?:to|in) {v}"),
    ),
    holder=r"\b(?:my|our) {adj}{rel}(?:,?\s+{name})?(?:,?\s+who)?",
    theirs=(
        ("job", "", r"\s+(?:now |also |still )?(?:works|is working) as (?:an? )?{v}"),
        ("job", "", r"(?:\s+is|'s|’s|\s+has become|\s+became) (?:now |also |still |actually )?an? {job}"),
        ("employer", "", r"\s+(?:now |also |still )?(?:works|is working) (?:at|for) {v}"),
        ("employer", "", r"\s+(?:just |recently )?joined {name}"),
        ("place", "home", r"\s+(?:now |still |also )?(?:lives|is living) in {v}"),
        ("place", "home", r"(?:\s+has|'s|’s)? (?:just |recently )?moved to {v}"),
        ("place", "origin", r"(?:\s+is|'s|’s) (?:originally )?from {v}"),
        ("place", "work", r"\s+(?:now |also |still )?works in {v}"),
    ),
    job_verbs=(
        (r"\bi " + _YEARS + r"teach(?:\s+{v})?", "{v} teacher", "teacher"),
        (r"\bi(?:'m|’m| am) " + _YEARS + r"teaching(?:\s+{v})?", "{v} teacher", "teacher"),
        (r"\bi " + _YEARS + r"drive an? (?P<value>taxi|cab|bus|truck|lorry|tram|train|forklift)\b", "{v} driver", ""),
    ),
    their_job_verbs=(
        (r"\s+(?:now |also |still )?teaches(?:\s+{v})?", "{v} teacher", "teacher"),
        (r"\s+(?:now |also |still )?drives an? (?P<value>taxi|cab|bus|truck|lorry|tram|train)\b", "{v} driver", ""),
    ),
    tails=(("employer", "", r"\b(?:at|for) {v}"), ("place", "work", r"\bin {v}"), ("job", "", r"\bas an? {job}")),
    people=(
        r"\b(?:my|our) {adj}{rel},?\s+{name}",
        r"\b(?:my|our) {adj}{rel}(?:'s|’s) name is {name}",
        r"\b(?:my|our) {adj}{rel} is (?:called|named) {name}",
        r"(?:^|(?<=\s)){name} is (?:my|our) {adj}{rel}\b(?!['’-])",
    ),
    animals=(
        r"\b(?:my|our) {adj}{pet},?\s+{name}",
        r"\b(?:an?|my|our|two|three) {adj}{pet},? (?:called|named) {name}",
        r"\b(?:my|our) {adj}{pet}(?:(?:'s|’s) name is| is called| is named) {name}",
        r"\b(?:i|we)(?:'ve|’ve| have)? (?:just |also |finally )?(?:got|have|adopted|own|rescued)"
        r" (?:an?|two|three|four) {adj}{pet},?\s+{name}",
        r"\b(?:i|we)(?:'ve|’ve| have)? (?:just |also |finally )?(?:got|have|adopted|own|rescued)"
        r" (?:an?|two|three|four|some) {adj}{pet}",
        # "my dog", but not "my dog food", "my horse painting"
        r"\b(?:my|our) {adj}{pet}(?![^\W_])(?![ -](?:" + _PET_THINGS + r")\b)",
    ),
    jobs=(
        *words(
            """teacher nurse doctor physician surgeon dentist pharmacist vet veterinarian midwife paramedic therapist
        physiotherapist psychologist psychiatrist counsellor counselor engineer developer programmer designer
        architect lawyer solicitor barrister attorney paralegal accountant bookkeeper auditor banker economist
        analyst consultant scientist researcher professor lecturer tutor librarian journalist reporter editor
        writer author translator interpreter photographer illustrator animator artist musician chef baker
        butcher barista bartender waiter waitress cashier receptionist secretary clerk technician electrician
        plumber carpenter mechanic builder pilot firefighter farmer gardener hairdresser barber cleaner
        caretaker carer caregiver nanny manager director administrator entrepreneur freelancer coach
        instructor trainer chemist biologist physicist mathematician statistician historian"""
        ),
        "police officer",
        "social worker",
        "care worker",
        "factory worker",
        "construction worker",
        "civil servant",
        "flight attendant",
        "estate agent",
        "real estate agent",
        "travel agent",
        "bus driver",
        "taxi driver",
        "truck driver",
        "lorry driver",
        "delivery driver",
        "personal assistant",
        "teaching assistant",
        "web developer",
        "data scientist",
        "software developer",
        "product manager",
        "project manager",
    ),
    not_jobs=words(
        """good great bad terrible awful decent lousy nervous careful fast slow quick big huge massive proud happy
        better best worst fan of and or the hobby amateur aspiring wannabe former ex future retired
        not no never"""
    ),
    adjectives=words(
        """older younger little big best oldest youngest eldest elder baby twin dear old new lovely sweet late
        step half rescue senior young two three beloved"""
    ),
    being=r"\bi(?:'m|’m| am)\b|\bi (?:just |recently )?became\b",
    relatives=RELATIVES,
    pets={
        **{w: w for w in words("dog puppy cat kitten parrot budgie rabbit bunny hamster tortoise turtle goldfish")},
        **{w: w for w in words("horse pony ferret snake lizard gecko rat mouse chicken hen cockatiel canary bird")},
        **{w: w for w in words("fish chinchilla")},
        "guinea pig": "guinea pig",
        "pup": "puppy",
        "kitty": "cat",
    },
    hypothetical=(
        "if",
        "would",
        "i'd",
        "we'd",
        "wish",
        "imagine",
        "suppose",
        "someday",
        "one day",
        "dream of",
        "dreaming of",
        "hope to",
        "hoping to",
        "want to",
        "wanna",
        "plan to",
        "planning to",
        "thinking of",
        "thinking about",
        "considering",
        "might",
        "maybe",
        "could",
        "should",
        "unless",
        "pretend",
    ),
    joins=words("and but because while so though although where which who whereas"),
    connectors=words("of upon de la del du am"),
    stops=words("to on"),
    not_values=words("IT HR PR QA ER ICU A&E R&D my our his her their him them me myself yourself himself herself you"),
)
