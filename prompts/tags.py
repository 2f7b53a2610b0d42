"""Tag selection role: two or three ontology tags that summarise the user's message.

VERSION 3 (the message and each line of the ontology outline are quoted as JSON strings). The
schema enumerates the current ontology, so only existing tags can be returned.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from caim.prompts.common import closed_list_model, quote

VERSION = 3


def schema(tags: tuple[str, ...]) -> type[BaseModel]:
    return closed_list_model(
        "TagChoice", "tags", tags, 3, "Two or three tags from the ontology that fit the message.", 1
    )


def messages(user_input: str, outline: str) -> list[BaseMessage]:
    return [
        SystemMessage(
            "Pick the two or three single-word tags from the ontology below that best describe what "
            "the user's message is about. Prefer specific tags.\nOntology (category: subcategory(attributes)):\n"
            + "\n".join(quote(line, 2000) for line in outline.splitlines())
        ),
        HumanMessage(f"User message: {quote(user_input, 2000)}"),
    ]
