"""Capture in code: which turns state something about the user, and the raw record of such a turn.

``states_fact`` is the code signal beside key-event extraction: a turn in the first person that
tells something (I/my/we/our + a verb of being, having, liking, doing), names someone or something,
or holds a number or a date. When extraction fails, or returns nothing grounded for such a turn,
the turn is stored verbatim as a ``raw`` record (``raw_record``): the user's words, the turn's time,
tags by meaning, the turn (and the assistant turn before it, when it asked) as sources. Its id comes
from (user, session, turn), so capturing the same turn again replaces the record instead of adding one.
"""

from __future__ import annotations

import re
from datetime import datetime

from caim.memory.records import MemoryRecord, SourceTurn, as_aware, stable_id
from caim.memory.text import names

_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|my|mine|we|we're|we've|our|me)\b", re.I)
_TELLING = re.compile(
    r"\b(am|was|is|are|were|have|has|had|love|loves|like|likes|enjoy|enjoys|hate|hates|prefer|prefers|want|wants|"
    r"need|needs|plan|planning|going|went|got|work|works|working|live|lives|lived|moved|play|plays|played|"
    r"started|bought|made|adopted|married|called|named|born|visited|study|studying|learned|favourite|favorite|"
    r"allergic|can't|cannot|don't|never|always|usually|every)\b",
    re.I,
)
_NUMBER_OR_DATE = re.compile(
    r"\d|\b(january|february|march|april|may|june|july|august|september|october|"
    r"november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    re.I,
)
_SMALL_TALK = re.compile(
    r"^\s*(hi|hello|hey|thanks|thank you|ok|okay|bye|goodbye|good (morning|night|evening))\W*$", re.I
)

_NAMED_SUBJECT = re.compile(r"^\s*([A-Z][a-z]+)\s+(\w+)")
_NOT_SUBJECTS = frozenset(
    {
        "The",
        "This",
        "That",
        "It",
        "There",
        "Here",
        "What",
        "Which",
        "Who",
        "He",
        "She",
        "They",
        "You",
        "Your",
        "Yes",
        "No",
        "Thanks",
        "Hello",
        "Hi",
        "Hey",
        "Well",
        "So",
        "And",
        "But",
    }
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")

#: Longest raw thought kept (the user's words, trimmed); the full turn stays in the sources.
RAW_CHARS = 600


def states_fact(text: str) -> bool:
    """Does this user turn state something about the user (worth remembering even unprocessed)?
    True when one of its sentences, not a question, is in the first person and tells something, or
    names someone or something, or holds a number or a date.

    >>> states_fact("My sister lives in Lisbon."), states_fact("ok thanks!"), states_fact("Where is Lisbon?")
    (True, False, False)
    """
    t = " ".join(text.split())
    if len(t) < 8 or _SMALL_TALK.match(t):
        return False
    for sentence in _SENTENCE.split(t):
        if not sentence.strip() or sentence.rstrip().endswith("?"):
            continue
        if _FIRST_PERSON.search(sentence):
            if _TELLING.search(sentence) or names(sentence) or _NUMBER_OR_DATE.search(sentence):
                return True
        elif (
            (m := _NAMED_SUBJECT.match(sentence)) and _TELLING.fullmatch(m.group(2)) and m.group(1) not in _NOT_SUBJECTS
        ):
            return True  # "Clara got a puppy": someone in the user's life
    return False


def raw_record(
    *,
    user_id: str,
    session_id: str,
    turn: int,
    text: str,
    when: datetime,
    tags: list[str],
    speaker: str = "",
    reply: str = "",
    asked: str = "",
    turn_id: str | None = None,
    role: str = "user",
) -> MemoryRecord:
    """The verbatim record of one turn: ``reply`` is the answer that followed it, ``asked`` the
    other side's turn before it when that holds the missing half of the exchange."""
    words = " ".join(text.split())
    sources = []
    if asked:
        sources.append(
            SourceTurn(
                role="assistant" if role == "user" else "user", text=asked, time=when, turn=turn - 1, context=True
            )
        )
    sources.append(
        SourceTurn(role="user" if role == "user" else "assistant", text=text, time=when, turn_id=turn_id, turn=turn)
    )
    if reply:
        sources.append(SourceTurn(role="assistant" if role == "user" else "user", text=reply, time=when, turn=turn))
    return MemoryRecord(
        id=stable_id(user_id, session_id, turn, "raw"),
        user_id=user_id,
        thought=words if len(words) <= RAW_CHARS else words[:RAW_CHARS] + " …",
        kind="raw",
        tags=(tags or ["personal"])[:3],
        event_time=as_aware(when),
        speaker=speaker,
        session_id=session_id,
        turn=turn,
        sources=sources,
        history=[],
    )
