"""Names: capitalised words that name a person, pet, place or thing ("Caroline", "Berlin", "Miso").

One lexicon (``_NOT_A_NAME``) lists the capitalised words that are no name - pronouns, determiners,
question words, greetings and interjections, speaker roles - each with where it misleads: inside a
sentence (``NOT_NAMES``, which ``names`` skips) or opening one (``NOT_SUBJECTS``: "There is..." has
no one as its subject), or both. A word opening a sentence is never taken for a name by ``names``.

Other languages (``caim.memory.text.lang``) read names from their ``Signals`` tables: a capitalised
word in any alphabet, not opening a sentence and not in ``not_names``; in German, which capitalises
every noun, not after a determiner and without a noun ending either. Chinese and Japanese have no
capitals: a name there is a title in brackets (《百年孤独》), the word after "called" (叫小白) or
before a title of address (田中さん, 王老师), or a capitalised Latin word among the characters.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from caim.memory.text.lang import UNSPACED_CHAR, alternation, detect
from caim.memory.text.tables import Language, Signals

#: Where a capitalised word is no name: inside a sentence, opening one, or both.
_Where = Literal["inside", "opening", "both"]
_NOT_A_NAME: dict[str, _Where] = {
    "I": "inside",
    "A": "inside",
    "An": "inside",
    "The": "both",
    "That": "both",
    "This": "both",
    "It": "both",
    "Its": "inside",
    "There": "opening",
    "Here": "opening",
    "My": "inside",
    "Our": "inside",
    "Your": "both",
    "We": "inside",
    "You": "both",
    "He": "both",
    "She": "both",
    "They": "both",
    "His": "inside",
    "Her": "inside",
    "Their": "inside",
    "What": "both",
    "Which": "opening",
    "Who": "both",
    "When": "inside",
    "Where": "inside",
    "How": "inside",
    "Why": "inside",
    "Do": "inside",
    "Did": "inside",
    "Can": "inside",
    "And": "both",
    "But": "both",
    "So": "both",
    "Well": "both",
    "Yes": "both",
    "No": "both",
    "Hey": "both",
    "Hi": "both",
    "Hello": "both",
    "Thanks": "both",
    "Thank": "inside",
    "Wow": "inside",
    "Yeah": "inside",
    "Oh": "inside",
    "Great": "inside",
    "Sure": "inside",
    "Okay": "inside",
    "Ok": "inside",
    "User": "inside",
    "Assistant": "inside",
}
#: Capitalised words inside a sentence that are no name ("Thanks, Mel! Wow, That...").
NOT_NAMES = frozenset(w for w, where in _NOT_A_NAME.items() if where != "opening")
#: Capitalised words opening a sentence that are not who or what it is about ("There is...").
NOT_SUBJECTS = frozenset(w for w, where in _NOT_A_NAME.items() if where != "inside")

#: A capitalised word neither opening the text nor following a sentence's end.
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:[A-Z][a-z]*)*\b")
#: How a shared image is appended to a turn's text (its caption follows); names stop there.
IMAGE_MARK = " [shared an image:"


def names(text: str, exclude: frozenset[str] = frozenset()) -> list[str]:
    """Capitalised words that look like names of people, pets, places or things.

    Args:
        text: A turn, a question or a memory; a shared image's caption (after ``IMAGE_MARK``) is
            left out.
        exclude: More words that are no name here (the conversation's speakers, say).

    Returns:
        Each name once, in the order of first mention.

    >>> names("Thanks, Mel! We met Caroline in Berlin. Caroline loved it.")
    ['Mel', 'Caroline', 'Berlin']
    >>> names("Are Harry Potter and GoT still your favourites, McKenzie?")  # a word whole, never a piece
    ['Harry', 'Potter', 'GoT', 'McKenzie']
    """
    body = text.split(IMAGE_MARK)[0]
    return names_in(body, detect(body), exclude)


def names_in(body: str, language: Language, exclude: frozenset[str] = frozenset()) -> list[str]:
    """``names`` of a text read as ``language`` (no image caption to leave out)."""
    if language.signals is None:
        return list(dict.fromkeys(w for w in _NAME.findall(body) if w not in NOT_NAMES and w not in exclude))
    found = _capitalised(body, language.signals)
    if language.unspaced:
        found = _bracketed(body, language.signals) + found + _marked(body, language)
    return list(dict.fromkeys(w for w in found if w not in exclude))


#: A word of letters in a script written with spaces (characters of Chinese or Japanese end it).
_WORD = re.compile(f"(?:(?!{UNSPACED_CHAR})[^\\W\\d_])+")
#: What may stand between a sentence's end and its first word: spaces, opening quotes and marks.
_OPENING = re.compile(r"[\s\"'\u201c\u201e\u00ab\u00bb\u300c\u300e(\u00bf\u00a1-]*$")
_ENDS = (".", "!", "?", ":", "\u3002", "\uff01", "\uff1f")


def _opens_sentence(text: str, at: int) -> bool:
    before = text[: at - len(_OPENING.search(text[:at]).group())]  # type: ignore[union-attr]
    return not before or before.endswith(_ENDS)


def _capitalised(body: str, signals: Signals) -> list[str]:
    """Capitalised words (any alphabet) inside a sentence that ``signals`` does not rule out."""
    out, prev = [], ""
    for m in _WORD.finditer(body):
        w = m.group()
        if w[0].isupper() and w[1:2].islower() and w not in signals.not_names and not _opens_sentence(body, m.start()):
            noun = signals.noun_capitals and (
                prev.lower() in signals.determiners or w.lower().endswith(signals.noun_endings)
            )
            if not noun:
                out.append(w)
        prev = w
    return out


def _bracketed(body: str, signals: Signals) -> list[str]:
    """Titles between the language's brackets (《百年孤独》)."""
    return [
        t.strip()
        for a, b in signals.titles
        for t in re.findall(re.escape(a) + f"([^{b}]{{1,40}})" + re.escape(b), body)
    ]


@cache
def _markers(language: Language) -> tuple[re.Pattern[str], ...]:
    """``_marked``'s patterns: a word of one to three characters, none a stopword, after a "called"
    marker or before a title of address."""
    signals = language.signals or Signals()
    stop = "".join(sorted(language.stopwords))
    word = f"(?:(?![{re.escape(stop)}]){UNSPACED_CHAR}){{1,3}}"
    before = [re.compile(f"(?:{alternation(signals.name_before)})({word})")] if signals.name_before else []
    after = [re.compile(f"({word})(?:{alternation(signals.name_after)})")] if signals.name_after else []
    return (*before, *after)


def _marked(body: str, language: Language) -> list[str]:
    """Words of one to three characters after a "called" marker (叫小白) or before a title of address
    (田中さん), stopping at a function character (the language's stopwords)."""
    question_words = language.signals.question_words if language.signals else ()
    out = [w for p in _markers(language) for w in p.findall(body)]
    return [w for w in out if not any(q in w for q in question_words)]
