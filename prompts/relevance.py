"""Relevance filter role: which numbered memory candidates matter for the user's message.

VERSION 2. Candidate numbers are enumerated in the schema. Records that contradict the user's
statement count as relevant. Static instructions first, the turn's material last.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.memory.records import MemoryBrief
from caim.prompts.common import DATA_RULE, Answer, data_block, literal, narrowed, quote

VERSION = 2

INSTRUCTIONS = (
    "You select memories for an assistant. Given the user's message and numbered memories, return the "
    "numbers of the memories that help answer it, including memories that contradict what the user says. "
    "Return an empty list if none help. " + DATA_RULE
)


class Relevant(Answer):
    """The relevance role's answer: the numbers of the candidates that matter."""

    relevant: list[int] = Field(min_length=0, description="Numbers of the relevant memories.")


def schema(n: int, max_kept: int) -> type[Relevant]:
    """The response model for one call.

    Args:
        n: How many candidates are numbered (1 to ``n``, enumerated).
        max_kept: The most numbers the answer may hold.

    Returns:
        :class:`Relevant` with the candidate numbers enumerated.

    Raises:
        ValueError: ``n`` is below 1.
    """
    return narrowed(Relevant, relevant=(list[literal(list(range(1, n + 1)))], Field(max_length=max_kept)))  # type: ignore[misc]


def line(i: int, c: MemoryBrief, chars: int = 300) -> str:
    """Candidate ``i`` as the prompt shows it: number, date, quoted thought (and its context)."""
    text = f"[{i}] ({c['event_time'][:10]}) {quote(c['thought'], chars)}"
    if c.get("context"):
        text += f" (after: {quote(c['context'], 150)})"
    return text


def messages(user_input: str, candidates: list[MemoryBrief]) -> list[BaseMessage]:
    """The relevance request: the message and the candidates numbered from 1, quoted."""
    lines = [line(i, c) for i, c in enumerate(candidates, 1)]
    return [
        SystemMessage(INSTRUCTIONS),
        HumanMessage(f"User message: {quote(user_input, 2000)}\n\nMemories:\n{data_block(lines)}"),
    ]
