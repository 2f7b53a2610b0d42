"""Small talk: greetings, thanks, praise, exclamations, assent and farewells - words that tell no fact.

One vocabulary serves two checks. ``is_small_talk``: a whole message that is one greeting, thanks,
exclamation, assent or farewell ("Thanks!", "good night", "wow!!") states nothing to remember.
``SMALL_TALK_STEMS``: inside a sentence the greetings, thanks and exclamations carry no fact, so a
claim's content words leave them out ("Wow, looks awesome!" is not supported by "Wow, you had a
blast"); assent and farewells stay content there ("said goodbye to her dog", "the test came back ok").
"""

from __future__ import annotations

import re

from caim.memory.text.tokens import tokenize

#: Greetings and thanks.
GREETINGS = ("hi", "hello", "hey", "thanks", "thank you")
#: Praise and exclamations.
EXCLAMATIONS = ("wow", "awesome", "great", "glad", "cool", "amazing", "nice", "yeah", "yay", "totally")
#: Assent and farewells: small talk as a whole message only.
SIGN_OFFS = ("ok", "okay", "bye", "goodbye", "good morning", "good night", "good evening")

#: Words that open a sentence before its statement, never part of it ("Yeah, I moved", "Thanks! Got
#: the tattoo..."): the greetings and the fillers of speech.
OPENERS = (*GREETINGS, "yeah", "yes", "yep", "wow", "oh", "ah", "haha", "lol", "well", "so", "ok", "okay")
_OPENING = re.compile(r"^\s*((" + "|".join(OPENERS) + r")\b[\s,!.]*)+", re.I)

#: Index terms (``tokenize``) of the words that carry no fact inside a sentence.
SMALL_TALK_STEMS = frozenset(tokenize(" ".join(GREETINGS + EXCLAMATIONS)))
_MESSAGE = re.compile(r"^\s*(" + "|".join(GREETINGS + SIGN_OFFS + EXCLAMATIONS) + r")\W*$", re.I)


def is_small_talk(message: str) -> bool:
    """Is the whole message one piece of small talk (punctuation and emoji aside)?

    Args:
        message: A turn.

    Returns:
        True for a lone greeting, thanks, exclamation, assent or farewell.

    >>> is_small_talk("Thank you!!"), is_small_talk("Good night :)"), is_small_talk("Thanks, I loved it")
    (True, True, False)
    """
    return _MESSAGE.match(message) is not None


def without_opener(sentence: str) -> str:
    """The sentence without the greetings and fillers that open it (``OPENERS``).

    Args:
        sentence: One sentence.

    Returns:
        What follows them ("" when it is nothing else).

    >>> without_opener("Yeah, wow! I'm starting a dance studio."), without_opener("Thanks!")
    ("I'm starting a dance studio.", '')
    """
    return _OPENING.sub("", sentence)
