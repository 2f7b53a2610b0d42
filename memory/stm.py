"""Short-term memory helpers: the current session's messages as turns, token estimates, transcripts.

STM itself is the ``messages`` list in graph state, persisted per thread by the checkpointer. Each
message carries its turn time in ``additional_kwargs["caim_time"]`` so post-thinking can date
events exactly, also when a dated conversation from the past is replayed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from caim.memory.records import as_aware, utcnow

TIME_KEY = "caim_time"


def estimate_tokens(text: str) -> int:
    """Cheap, offline token estimate (about four characters per token)."""
    return len(text) // 4 + 1


def message_time(m: AnyMessage) -> datetime | None:
    raw = (m.additional_kwargs or {}).get(TIME_KEY)
    try:
        return as_aware(datetime.fromisoformat(raw)) if raw else None
    except ValueError:
        return None


def parse_time(value: str | datetime | None) -> datetime:
    if isinstance(value, datetime):
        return as_aware(value)
    if value:
        return as_aware(datetime.fromisoformat(value))
    return utcnow()


@dataclass
class Turn:
    """One exchange: the user's message and the assistant's reply (if any)."""

    number: int
    user: str
    assistant: str
    time: datetime | None
    user_id: str | None = None


def turns(messages: list[AnyMessage]) -> list[Turn]:
    out: list[Turn] = []
    for m in messages:
        if isinstance(m, HumanMessage):
            out.append(Turn(len(out) + 1, str(m.content), "", message_time(m), m.id))
        elif isinstance(m, AIMessage) and out and not out[-1].assistant:
            out[-1].assistant = str(m.content)
    return out


def clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f" …[{len(text) - limit} more characters not shown]"


def transcript(messages: list[AnyMessage], per_message: int = 600) -> str:
    lines = []
    for m in messages:
        who = "User" if isinstance(m, HumanMessage) else "Assistant"
        lines.append(f"{who}: {clip(str(m.content), per_message)}")
    return "\n".join(lines)


def session_tokens(messages: list[AnyMessage]) -> int:
    return sum(estimate_tokens(str(m.content)) for m in messages)
