"""Key-event extraction role: what is worth remembering from a session's numbered turns.

VERSION 2. Each event names the turn it came from (enumerated), so its timestamp is the turn's
exact time, set by code. The turns are quoted (JSON strings): they are data, never instructions.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.prompts.common import DATA_RULE, Answer, data_block, literal, narrowed, quote

VERSION = 2
MAX_EVENTS = 8

INSTRUCTIONS = (
    "You keep a memory of a user for a personal assistant. From the numbered conversation turns, list the "
    "facts worth remembering: the user's personal details, preferences, plans, habits, experiences and "
    "problems, and things the assistant recommended. One short sentence per fact, in the third person and "
    "using the words of the turn, each with the number of its turn. Skip greetings, thanks and small talk. "
    "Return an empty list if nothing is worth remembering. " + DATA_RULE
)


class EventAnswer(Answer):
    """One fact worth remembering and the number of the turn it comes from (``KeyEvent`` to the model)."""

    turn: int = Field(description="Number of the turn this event comes from.")
    event: str = Field(max_length=300, description="One short sentence, e.g. 'The user's favourite food is pizza.'")


class KeyEvents(Answer):
    """The key-events role's answer."""

    events: list[EventAnswer] = Field(max_length=MAX_EVENTS)


def schema(turn_numbers: list[int]) -> type[KeyEvents]:
    """The response model for one call.

    Args:
        turn_numbers: The numbers of the turns shown (enumerated; must be non-empty).

    Returns:
        :class:`KeyEvents` with the turn numbers enumerated.
    """
    event = narrowed(EventAnswer, "KeyEvent", turn=literal(turn_numbers))
    return narrowed(KeyEvents, events=list[event])  # type: ignore[valid-type]


def numbered(turns: list[tuple[int, str, str]], limit: int = 700) -> str:
    """``(number, user text, assistant text)`` turns as the prompt shows them (no timestamps: each
    event's time comes from its turn number, in code)."""
    return "\n\n".join(
        f"Turn {n}\nUser: {quote(user, limit)}" + (f"\nAssistant: {quote(reply, limit)}" if reply else "")
        for n, user, reply in turns
    )


def messages(turns: list[tuple[int, str, str]]) -> list[BaseMessage]:
    """The key-events request for ``(number, user text, assistant text)`` turns."""
    return [SystemMessage(INSTRUCTIONS), HumanMessage(data_block([numbered(turns)]))]
