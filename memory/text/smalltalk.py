"""Small talk: greetings, thanks, praise, exclamations, assent and farewells - words that tell no fact.

One vocabulary serves two checks. ``is_small_talk``: a whole message that is one greeting, thanks,
exclamation, assent or farewell ("Thanks!", "good night", "wow!!") states nothing to remember.
``SMALL_TALK_STEMS``: inside a sentence the greetings, thanks and exclamations carry no fact, so a
claim's content words leave them out ("Wow, looks awesome!" is not supported by "Wow, you had a
blast"); assent and farewells stay content there ("said goodbye to her dog", "the test came back ok").

English's words are below (from ``caim.memory.text.lang_en``); every other language's are in its
``Signals`` table (``greetings``, ``exclamations``, ``sign_offs``, ``openers``), and a message is read
with the words of its language (``caim.memory.text.lang.detect``).
"""

from __future__ import annotations

import re
from functools import cache

from caim.memory.text import languages
from caim.memory.text.lang import Language, alternation, detect, normal, tabled
from caim.memory.text.lang_en import EXCLAMATIONS, GREETINGS, SHARED, SIGN_OFFS, STEM_COGNATES
from caim.memory.text.tables import Signals
from caim.memory.text.tokens import terms, tokenize

#: Words that open a sentence before its statement, never part of it ("Yeah, I moved", "Thanks! Got
#: the tattoo..."): the greetings and the fillers of speech.
OPENERS = (*GREETINGS, "yeah", "yes", "yep", "wow", "oh", "ah", "haha", "lol", "well", "so", "ok", "okay")
_OPENING = re.compile(r"^\s*((" + "|".join(OPENERS) + r")\b[\s,!.]*)+", re.I)


def _foreign_stems(language: Language) -> set[str]:
    """Index terms of a language's one-word greetings and exclamations ("danke", "谢谢"), but for words
    English has too ("super") or shares a stem with (``STEM_COGNATES``); in a script without spaces
    only a word's own term (one or two characters), never the characters it shares with content words."""
    s = language.signals or Signals()
    english = set(SHARED) | set(STEM_COGNATES)
    single = [w for w in s.greetings + s.exclamations if " " not in w and w not in english]
    if language.unspaced:
        return {w for w in single if len(w) <= 2 and w in terms(w, language)}
    return set(terms(" ".join(single), language))


#: Index terms (``tokenize``) of the words that carry no fact inside a sentence, in every language
#: with tables: one-word greetings and exclamations (a word English has as well, "super" or "top",
#: only as English reads it).
SMALL_TALK_STEMS: set[str] = set()


@languages.on_change
def _gather_stems() -> None:
    """``SMALL_TALK_STEMS`` of the registered languages."""
    SMALL_TALK_STEMS.clear()
    SMALL_TALK_STEMS.update(tokenize(" ".join(GREETINGS + EXCLAMATIONS)))
    SMALL_TALK_STEMS.update(*(_foreign_stems(language) for language in tabled()[1:]))


_gather_stems()
_MESSAGE = re.compile(r"^\s*(" + "|".join(GREETINGS + SIGN_OFFS + EXCLAMATIONS) + r")\W*$", re.I)
#: Punctuation and spaces after an opener, the full-width forms too.
_AFTER_OPENER = r"[\s,!.\u3001\u3002\uff0c\uff01~\uff5e\u2026]"


@cache
def _message(signals: Signals) -> re.Pattern[str]:
    words = signals.greetings + signals.sign_offs + signals.exclamations
    return re.compile(rf"[\W_]*(?:{alternation(words)})[\W_]*", re.I)


@cache
def _opening(signals: Signals, unspaced: bool) -> re.Pattern[str]:
    after = f"{_AFTER_OPENER}+" if unspaced else rf"(?![^\W_]){_AFTER_OPENER}*"
    return re.compile(rf"^\s*((?:{alternation(signals.openers)}){after})+", re.I)


def is_small_talk(message: str) -> bool:
    """Is the whole message one piece of small talk (punctuation and emoji aside)?

    Args:
        message: A turn.

    Returns:
        True for a lone greeting, thanks, exclamation, assent or farewell.

    >>> is_small_talk("Thank you!!"), is_small_talk("Good night :)"), is_small_talk("Thanks, I loved it")
    (True, True, False)
    >>> is_small_talk("你好！"), is_small_talk("¡Hola!"), is_small_talk("Danke, ich war beim Arzt.")
    (True, True, False)
    """
    language = detect(message)
    if language.signals is None:
        return _MESSAGE.match(message) is not None
    return _message(language.signals).fullmatch(normal(message)) is not None


def without_opener(sentence: str) -> str:
    """The sentence without the greetings and fillers that open it (``OPENERS``).

    Args:
        sentence: One sentence.

    Returns:
        What follows them ("" when it is nothing else).

    >>> without_opener("Yeah, wow! I'm starting a dance studio."), without_opener("Thanks!")
    ("I'm starting a dance studio.", '')
    >>> without_opener("Ja, also, ich habe ein Studio eröffnet."), without_opener("嗯，我开了一家店。")
    ('ich habe ein Studio eröffnet.', '我开了一家店。')
    """
    language = detect(sentence)
    if language.signals is None:
        return _OPENING.sub("", sentence)
    return _opening(language.signals, language.unspaced).sub("", sentence)
