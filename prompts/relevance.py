"""Relevance filter role: which numbered memory candidates matter for the user's message.

VERSION 1. Candidate numbers are enumerated in the schema. Records that contradict the user's
statement count as relevant.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from caim.prompts.common import DATA_RULE, closed_list_model, data_block, quote

VERSION = 1


def schema(n: int, max_kept: int) -> type[BaseModel]:
    return closed_list_model(
        "Relevant", "relevant", list(range(1, n + 1)), max_kept, "Numbers of the relevant memories."
    )


def messages(user_input: str, candidates: list[dict]) -> list[BaseMessage]:
    lines = [f"[{i}] ({c['event_time'][:10]}) {quote(c['thought'], 400)}" for i, c in enumerate(candidates, 1)]
    return [
        SystemMessage(
            "You select memories for an assistant. Given the user's message and numbered memories, "
            "return the numbers of the memories that help answer it, including memories that "
            "contradict what the user says. Return an empty list if none help. " + DATA_RULE
        ),
        HumanMessage(f"User message: {user_input}\n\nMemories:\n{data_block(lines)}"),
    ]
