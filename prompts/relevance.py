"""Relevance filter role: which numbered memory candidates matter for the user's message.

VERSION 2. Candidate numbers are enumerated in the schema. Records that contradict the user's
statement count as relevant. Static instructions first, the turn's material last.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from caim.memory.records import MemoryBrief
from caim.prompts.common import DATA_RULE, closed_list_model, data_block, quote

VERSION = 2

INSTRUCTIONS = (
    "You select memories for an assistant. Given the user's message and numbered memories, return the "
    "numbers of the memories that help answer it, including memories that contradict what the user says. "
    "Return an empty list if none help. " + DATA_RULE
)


def schema(n: int, max_kept: int) -> type[BaseModel]:
    return closed_list_model(
        "Relevant", "relevant", list(range(1, n + 1)), max_kept, "Numbers of the relevant memories."
    )


def line(i: int, c: MemoryBrief, chars: int = 300) -> str:
    text = f"[{i}] ({c['event_time'][:10]}) {quote(c['thought'], chars)}"
    if c.get("context"):
        text += f" (after: {quote(c['context'], 150)})"
    return text


def messages(user_input: str, candidates: list[MemoryBrief]) -> list[BaseMessage]:
    lines = [line(i, c) for i, c in enumerate(candidates, 1)]
    return [
        SystemMessage(INSTRUCTIONS),
        HumanMessage(f"User message: {quote(user_input, 2000)}\n\nMemories:\n{data_block(lines)}"),
    ]
