"""English: the words detection and the index read. English's signal grammar lives in the signal
modules themselves (``signals``, ``dates``, ``smalltalk``, ``names``, ``caim.memory.capture``).

- ``STOPWORDS``: the words the index leaves out.
- ``GREETINGS``, ``EXCLAMATIONS``, ``SIGN_OFFS``: small talk (``caim.memory.text.smalltalk``).
- ``LANGUAGE``: English for ``caim.memory.text.lang``: its votes are its stopwords, its small talk,
  and the English words that are also function words of another language ("die", "war", "also"),
  so that an English text holding them is not taken for that language.
"""

from __future__ import annotations

from caim.memory.text.tables import Language, vote_words, words

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

LANGUAGE = Language(
    code="en",
    stemmer="english",
    stopwords=STOPWORDS,
    votes=vote_words(STOPWORDS, GREETINGS, EXCLAMATIONS, SIGN_OFFS, SHARED),
)
