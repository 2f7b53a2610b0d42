"""Single-call planner role: route, tags and time expressions in one structured answer.

VERSION 1. Route and tags are enumerated.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, create_model

from caim.prompts.common import literal

VERSION = 1


def schema(tags: tuple[str, ...]) -> type[BaseModel]:
    return create_model(
        "MemoryPlan",
        route=(
            Literal["none", "stm", "ltm", "ltm+stm"],
            Field(
                description="none: general knowledge; stm: this conversation; ltm: past conversations; ltm+stm: both."
            ),
        ),
        tags=(list[literal(tags)], Field(max_length=3, description="Two or three ontology tags for the message.")),
        time_expressions=(list[str], Field(max_length=3, description="Time expressions copied from the message.")),
    )


def messages(user_input: str, recent: str, today: str, outline: str) -> list[BaseMessage]:
    context = f"Recent turns:\n{recent}\n\n" if recent else ""
    return [
        SystemMessage(
            "Plan memory use for an assistant that remembers its user. Decide which memory the message "
            "needs (none if general knowledge is enough; stm for the current conversation; ltm for past "
            "conversations; ltm+stm for both), pick two or three tags from the ontology, and copy any time "
            "expressions.\nOntology:\n" + outline
        ),
        HumanMessage(f"Today is {today}.\n{context}Message: {user_input}"),
    ]
