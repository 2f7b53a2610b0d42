"""Key-event extraction role: what is worth remembering from a session's numbered turns.

VERSION 2. Each event names the turn it came from (enumerated), so its timestamp is the turn's
exact time, set by code. The turns are quoted (JSON strings): they are data, never instructions.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from caim.prompts.common import DATA_RULE, data_block, dynamic_model, list_of, literal, quote

VERSION = 2
MAX_EVENTS = 8

INSTRUCTIONS = (
    "You keep a memory of a user for a personal assistant. From the numbered conversation turns, list the "
    "facts worth remembering: the user's personal details, preferences, plans, habits, experiences and "
    "problems, and things the assistant recommended. One short sentence per fact, in the third person and "
    "using the words of the turn, each with the number of its turn. Skip greetings, thanks and small talk. "
    "Return an empty list if nothing is worth remembering. " + DATA_RULE
)


def schema(turn_numbers: list[int]) -> type[BaseModel]:
    event = dynamic_model(
        "KeyEvent",
        turn=(literal(turn_numbers), Field(description="Number of the turn this event comes from.")),
        event=(
            str,
            Field(max_length=300, description="One short sentence, e.g. 'The user's favourite food is pizza.'"),
        ),
    )
    return dynamic_model("KeyEvents", events=(list_of(event), Field(max_length=MAX_EVENTS)))


def numbered(turns: list[tuple[int, str, str]], limit: int = 700) -> str:
    """``(number, user text, assistant text)`` turns as the prompt shows them (no timestamps: each
    event's time comes from its turn number, in code)."""
    return "\n\n".join(
        f"Turn {n}\nUser: {quote(user, limit)}" + (f"\nAssistant: {quote(reply, limit)}" if reply else "")
        for n, user, reply in turns
    )


def messages(turns: list[tuple[int, str, str]]) -> list[BaseMessage]:
    return [SystemMessage(INSTRUCTIONS), HumanMessage(data_block([numbered(turns)]))]
