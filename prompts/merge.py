"""Memory review role: which numbered memories say the same thing (to be merged).

VERSION 1. Group members are enumerated candidate numbers.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, create_model

from caim.prompts.common import DATA_RULE, data_block, literal, quote

VERSION = 1


def schema(n: int) -> type[BaseModel]:
    return create_model(
        "MergeGroups",
        groups=(
            list[list[literal(list(range(1, n + 1)))]],
            Field(max_length=max(n // 2, 1), description="Groups of memory numbers that have the same meaning."),
        ),
    )


def messages(memories: list[dict]) -> list[BaseMessage]:
    lines = [f"[{i}] {quote(m['thought'], 300)}" for i, m in enumerate(memories, 1)]
    return [
        SystemMessage(
            "Find memories that state the same fact about the user (duplicates or near-duplicates). "
            "Return groups of their numbers, two or more per group. Memories about different things, or "
            "that disagree, must not be grouped. Return an empty list if there are no duplicates. " + DATA_RULE
        ),
        HumanMessage(data_block(lines)),
    ]
