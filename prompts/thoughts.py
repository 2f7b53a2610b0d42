"""Thought-writing role: one key event -> an inductive thought and up to three ontology tags.

VERSION 1. Tags are enumerated from the current ontology.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, create_model

from caim.prompts.common import DATA_RULE, literal, quote

VERSION = 1


def schema(tags: tuple[str, ...]) -> type[BaseModel]:
    return create_model(
        "Thought",
        thought=(
            str,
            Field(max_length=300, description="A concise sentence capturing the fact, e.g. 'favourite food is pizza'."),
        ),
        tags=(list[literal(tags)], Field(min_length=1, max_length=3, description="One to three ontology tags.")),
    )


def messages(event: str, date: str, outline: str) -> list[BaseMessage]:
    return [
        SystemMessage(
            "Turn a remembered fact about a user into a concise memory sentence (keep names, titles and "
            "numbers) and pick one to three single-word tags from this ontology:\n" + outline + "\n" + DATA_RULE
        ),
        HumanMessage(f"Fact from {date}: <data>{quote(event, 1000)}</data>"),
    ]
