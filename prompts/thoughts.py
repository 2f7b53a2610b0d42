"""Thought-writing role: the key events of a chunk -> one memory sentence and tags each, in one call.

VERSION 3 (facts, offered tags and parents quoted). Event numbers and tags are enumerated (the tags
offered are the nearest ontology terms of the events, not the whole ontology). When no offered tag
fits, the model may propose up to two new single-word terms under an enumerated parent; code
decides whether they are accepted.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from caim.prompts.common import DATA_RULE, data_block, dynamic_model, list_of, literal, quote

VERSION = 3
MAX_NEW_TERMS = 2

INSTRUCTIONS = (
    "Turn remembered facts about a user into concise memory sentences. For each numbered fact write one "
    "sentence that keeps its names, titles, places and numbers, and pick one to three of the offered tags. "
    "If no offered tag fits a fact, you may propose a new single lowercase English word as a tag under one "
    "of the offered parents. " + DATA_RULE
)


def schema(events: list[int], tags: list[str], parents: list[str]) -> type[BaseModel]:
    thought = dynamic_model(
        "Thought",
        event=(literal(events), Field(description="Number of the fact.")),
        thought=(
            str,
            Field(max_length=300, description="The fact as a concise sentence, e.g. 'favourite food is pizza'."),
        ),
        tags=(list_of(literal(tags)), Field(min_length=1, max_length=3, description="One to three offered tags.")),
    )
    term = dynamic_model(
        "NewTerm",
        parent=(literal(parents), Field(description="An offered parent.")),
        term=(str, Field(max_length=24, description="One new lowercase English word.")),
    )
    return dynamic_model(
        "Thoughts",
        thoughts=(list_of(thought), Field(max_length=len(events))),
        new_terms=(list_of(term), Field(max_length=MAX_NEW_TERMS)),
    )


def messages(facts: list[tuple[int, str, str]], tags: list[str], parents: list[str]) -> list[BaseMessage]:
    """``facts``: (number, date, fact text)."""
    lines = [f"[{n}] ({date}) {quote(text, 600)}" for n, date, text in facts]
    return [
        SystemMessage(INSTRUCTIONS),
        HumanMessage(
            f"Offered tags: {', '.join(quote(t, 40) for t in tags)}\n"
            f"Offered parents for new tags: {', '.join(quote(p, 40) for p in parents)}\n\nFacts:\n" + data_block(lines)
        ),
    ]
