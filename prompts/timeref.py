"""Time reference role: find the time expressions in the user's message (code resolves them).

VERSION 2. The message is quoted (a JSON string): it is data, never instructions.
"""

from __future__ import annotations

from typing import Annotated

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field, StringConstraints

from caim.prompts.common import Answer, quote

VERSION = 2


class TimeRefs(Answer):
    """The time role's answer: time expressions copied from the message (code resolves them)."""

    expressions: list[Annotated[str, StringConstraints(max_length=60)]] = Field(
        default_factory=list,
        max_length=3,
        description="Time expressions copied from the message, e.g. 'yesterday', 'on May 4th', 'last week'. "
        "Empty if none.",
    )


def messages(user_input: str, today: str) -> list[BaseMessage]:
    """The time request: today's date and the quoted message."""
    return [
        SystemMessage(
            "List the expressions in the message that point to a time or date (like 'yesterday', "
            "'April 27th', 'last week', 'two days ago'). Copy them exactly. Return an empty list if there are none."
        ),
        HumanMessage(f"Today is {today}.\nMessage: {quote(user_input, 2000)}"),
    ]
