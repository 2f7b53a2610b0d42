"""Thought-writing role: the key events of a chunk -> one memory sentence and tags each, in one call.

VERSION 4 (facts, offered tags and parents quoted; a preference's polarity, enumerated, and its
reason). Event numbers, tags and polarities are enumerated (the tags
offered are the nearest ontology terms of the events, not the whole ontology). When no offered tag
fits, the model may propose up to two new single-word terms under an enumerated parent; code
decides whether they are accepted.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.prompts.common import DATA_RULE, Answer, data_block, literal, narrowed, quote

VERSION = 4
MAX_NEW_TERMS = 2

INSTRUCTIONS = (
    "Turn remembered facts about a user into concise memory sentences. For each numbered fact write one "
    "sentence that keeps its names, titles, places and numbers, and pick one to three of the offered tags. "
    "If no offered tag fits a fact, you may propose a new single lowercase English word as a tag under one "
    "of the offered parents. When a fact states the user's preference, give its polarity (like, dislike or "
    "neutral) and, only if the fact gives one, the reason in the fact's own words; otherwise leave both "
    "out. " + DATA_RULE
)


class Thought(Answer):
    """One memory sentence for a numbered fact, with its tags."""

    event: int = Field(description="Number of the fact.")
    thought: str = Field(max_length=300, description="The fact as a concise sentence, e.g. 'favourite food is pizza'.")
    tags: list[str] = Field(min_length=1, max_length=3, description="One to three offered tags.")
    polarity: Literal["like", "dislike", "neutral"] | None = Field(
        default=None, description="For a stated preference: like, dislike or neutral; null otherwise."
    )
    reason: str | None = Field(
        default=None, max_length=200, description="Why, in the fact's own words, when the fact says; else null."
    )


class NewTerm(Answer):
    """A proposed ontology term under an offered parent (code decides whether it is accepted)."""

    parent: str = Field(description="An offered parent.")
    term: str = Field(max_length=24, description="One new lowercase English word.")


class Thoughts(Answer):
    """The thoughts role's answer: the memory sentences and the proposed terms."""

    thoughts: list[Thought]
    new_terms: list[NewTerm] = Field(max_length=MAX_NEW_TERMS)


def schema(events: list[int], tags: list[str], parents: list[str]) -> type[Thoughts]:
    """The response model for one call (every closed set must be non-empty).

    Args:
        events: The numbers of the facts (enumerated; at most one thought each).
        tags: The offered tags (enumerated).
        parents: The offered parents of new terms (enumerated).

    Returns:
        :class:`Thoughts` with the fact numbers, tags and parents enumerated.
    """
    thought = narrowed(Thought, event=literal(events), tags=list[literal(tags)])  # type: ignore[misc]
    term = narrowed(NewTerm, parent=literal(parents))
    return narrowed(
        Thoughts,
        thoughts=(list[thought], Field(max_length=len(events))),  # type: ignore[valid-type]
        new_terms=list[term],  # type: ignore[valid-type]
    )


def messages(facts: list[tuple[int, str, str]], tags: list[str], parents: list[str]) -> list[BaseMessage]:
    """The thoughts request.

    Args:
        facts: ``(number, date, fact text)`` per fact.
        tags: The offered tags.
        parents: The offered parents of new terms.

    Returns:
        The system and user messages.
    """
    lines = [f"[{n}] ({date}) {quote(text, 600)}" for n, date, text in facts]
    return [
        SystemMessage(INSTRUCTIONS),
        HumanMessage(
            f"Offered tags: {', '.join(quote(t, 40) for t in tags)}\n"
            f"Offered parents for new tags: {', '.join(quote(p, 40) for p in parents)}\n\nFacts:\n" + data_block(lines)
        ),
    ]
