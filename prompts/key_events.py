"""Key-event extraction role: what is worth remembering from a session's numbered turns.

VERSION 1. Each event names the turn it came from (enumerated), so its timestamp is the turn's
exact time, set by code.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, create_model

from caim.prompts.common import DATA_RULE, literal

VERSION = 1
MAX_EVENTS = 8


def schema(turn_numbers: list[int]) -> type[BaseModel]:
    event = create_model(
        "KeyEvent",
        turn=(literal(turn_numbers), Field(description="Number of the turn this event comes from.")),
        event=(
            str,
            Field(
                max_length=300,
                description="One short sentence, third person, e.g. 'The user's favourite food is pizza.'",
            ),
        ),
    )
    return create_model("KeyEvents", events=(list[event], Field(max_length=MAX_EVENTS)))


def messages(numbered_turns: str) -> list[BaseMessage]:
    return [
        SystemMessage(
            "You keep a memory of a user for a personal assistant. From the numbered conversation turns, "
            "list the facts worth remembering: the user's personal details, preferences, plans, habits, "
            "experiences and problems, and things the assistant recommended. One short sentence per fact, "
            "each with the number of its turn. Skip greetings, thanks and small talk. Return an empty list "
            "if nothing is worth remembering. " + DATA_RULE
        ),
        HumanMessage(f"<data>\n{numbered_turns}\n</data>"),
    ]
