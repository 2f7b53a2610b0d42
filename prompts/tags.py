"""Tag selection role: two or three ontology tags that summarise the user's message.

VERSION 3 (the message and each line of the ontology outline are quoted as JSON strings). The
schema enumerates the current ontology, so only existing tags can be returned.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.prompts.common import Answer, literal, narrowed, quote

VERSION = 3


class TagChoice(Answer):
    """The tags role's answer: one to three ontology tags."""

    tags: list[str] = Field(
        min_length=1, max_length=3, description="Two or three tags from the ontology that fit the message."
    )


def schema(tags: tuple[str, ...]) -> type[TagChoice]:
    """The response model for one call.

    Args:
        tags: The ontology's tags (enumerated; must be non-empty).

    Returns:
        :class:`TagChoice` with the tags enumerated.
    """
    return narrowed(TagChoice, tags=list[literal(tags)])  # type: ignore[misc]


def messages(user_input: str, outline: str) -> list[BaseMessage]:
    """The tags request: the ontology outline (each line quoted), then the message."""
    return [
        SystemMessage(
            "Pick the two or three single-word tags from the ontology below that best describe what "
            "the user's message is about. Prefer specific tags.\nOntology (category: subcategory(attributes)):\n"
            + "\n".join(quote(line, 2000) for line in outline.splitlines())
        ),
        HumanMessage(f"User message: {quote(user_input, 2000)}"),
    ]
