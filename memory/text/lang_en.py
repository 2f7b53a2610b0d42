"""English: the words detection and the index read. English's signal grammar lives in the signal
modules themselves (``signals``, ``dates``, ``smalltalk``, ``names``, ``caim.memory.capture``).

- ``STOPWORDS``: the words the index leaves out.
- ``GREETINGS``, ``EXCLAMATIONS``, ``SIGN_OFFS``: small talk (``caim.memory.text.smalltalk``).
- ``SLOTS``: single-value facts the speaker states of themselves (``caim.memory.text.slots``).
- ``LANGUAGE``: English for ``caim.memory.text.lang``: its votes are its stopwords, its small talk,
  and the English words that are also function words of another language ("die", "war", "also"),
  so that an English text holding them is not taken for that language.
"""

from __future__ import annotations

from caim.memory.text.tables import Language, PolarityWords, SlotWords, vote_words, words

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
        " mom mum mother dad father parent grandmother grandfather grandma grandpa aunt uncle wife husband"
    ),
    articles=words("the"),
)
