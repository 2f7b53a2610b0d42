"""Names: capitalised words that name a person, pet, place or thing ("Caroline", "Berlin", "Miso").

One lexicon (``_NOT_A_NAME``) lists the capitalised words that are no name - pronouns, determiners,
question words, greetings and interjections, speaker roles - each with where it misleads: inside a
sentence (``NOT_NAMES``, which ``names`` skips) or opening one (``NOT_SUBJECTS``: "There is..." has
no one as its subject), or both. A word opening a sentence is never taken for a name by ``names``.
"""

from __future__ import annotations

import re
from typing import Literal

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
    return list(dict.fromkeys(w for w in _NAME.findall(body) if w not in NOT_NAMES and w not in exclude))
