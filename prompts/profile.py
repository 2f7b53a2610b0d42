"""Profile role: rewrite the background paragraph of each aspect a session touched, and name and
summarise each cluster of the user's preferences.

VERSION 1. Backgrounds: per aspect (enumerated) the model sees its current paragraph and the
session's new memories of that aspect, and writes the new paragraph (recursive, as Mem-PAL does).
Principles: per cluster (enumerated by number) the model sees the member preferences and gives the
requirement type (a few words) and a one-sentence summary of what the user likes and dislikes.
Code keeps a text only when its memories hold every name, number and date in it
(``caim.memory.profile.grounded_text``); otherwise the code's own text stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.prompts.common import DATA_RULE, Answer, data_block, literal, narrowed, quote

VERSION = 1

BACKGROUND_INSTRUCTIONS = (
    "You keep a short background of a user per aspect of their life. For each aspect below, rewrite its "
    "current background so that it also covers the new memories: at most three sentences in the third "
    "person, only what the memories say, no names, numbers or dates they do not hold; keep what still "
    "holds, drop what a new memory replaces. " + DATA_RULE
)
PRINCIPLE_INSTRUCTIONS = (
    "Each numbered group below holds a user's stated likes and dislikes about one kind of thing. For each "
    "group give the kind of requirement it is about in at most four words (for example 'restaurants', "
    "'holiday destinations') and one sentence saying what the user likes and dislikes in it, using only "
    "what the group says. " + DATA_RULE
)


@dataclass(frozen=True)
class AspectUpdate:
    """One aspect to rewrite: its current paragraph ("" for a new aspect) and the session's new memories."""

    aspect: str
    current: str
    new: list[str]


class BackgroundText(Answer):
    """The new background of one aspect."""

    aspect: str = Field(description="The aspect.")
    text: str = Field(description="The new background paragraph.")


class Backgrounds(Answer):
    """The profile role's backgrounds: at most one per aspect asked."""

    backgrounds: list[BackgroundText]


class PrincipleText(Answer):
    """The requirement type and summary of one preference group."""

    group: int = Field(description="Number of the group.")
    requirement: str = Field(description="The kind of requirement, at most four words.")
    summary: str = Field(description="What the user likes and dislikes in it, one sentence.")


class Principles(Answer):
    """The profile role's principles: at most one per group."""

    principles: list[PrincipleText]


def background_schema(aspects: list[str]) -> type[Backgrounds]:
    """The response model with ``aspects`` enumerated (non-empty)."""
    item = narrowed(BackgroundText, "Background", aspect=literal(aspects), text=(str, Field(max_length=700)))
    return narrowed(Backgrounds, backgrounds=(list[item], Field(max_length=len(aspects))))  # type: ignore[valid-type]


def principle_schema(groups: list[int]) -> type[Principles]:
    """The response model with the group numbers enumerated (non-empty)."""
    item = narrowed(
        PrincipleText,
        "Principle",
        group=literal(groups),
        requirement=(str, Field(max_length=60)),
        summary=(str, Field(max_length=700)),
    )
    return narrowed(Principles, principles=(list[item], Field(max_length=len(groups))))  # type: ignore[valid-type]


def background_messages(updates: list[AspectUpdate]) -> list[BaseMessage]:
    """The request to rewrite each aspect's background: its current text and its new memories, quoted."""
    blocks = []
    for u in updates:
        lines = [f"Aspect {quote(u.aspect, 40)}", f"  current: {quote(u.current, 700) if u.current else '(none yet)'}"]
        lines += [f"  new: {quote(m, 300)}" for m in u.new]
        blocks.append("\n".join(lines))
    return [SystemMessage(BACKGROUND_INSTRUCTIONS), HumanMessage(data_block(blocks))]


def principle_messages(groups: list[list[str]]) -> list[BaseMessage]:
    """The request to name and summarise each group of preferences (numbered from 1), quoted."""
    blocks = [
        "\n".join([f"Group {i}", *(f"  {quote(m, 200)}" for m in members)]) for i, members in enumerate(groups, 1)
    ]
    return [SystemMessage(PRINCIPLE_INSTRUCTIONS), HumanMessage(data_block(blocks))]
