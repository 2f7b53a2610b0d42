"""Response role: the assistant's reply, with kept memories (quoted, dated, with the start of
their source turns for details) and STM per the route.

VERSION 2. Plain text output.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, SystemMessage

from caim.prompts.common import DATA_RULE, data_block, quote

VERSION = 2

BASE = (
    "You are a friendly personal assistant with a long-term memory of this user. "
    "Today is {today}. Answer helpfully and concisely."
)


def system(today: str, memories: list[dict] | None, summary: str, memory_question: bool) -> list[BaseMessage]:
    parts = [BASE.format(today=today)]
    if memories:
        lines = [
            f"- ({m['event_time'][:10]}) {quote(m['thought'], 600)}"
            + (f" - from the conversation: {quote(m['source'], 1200)}" if m.get("source") else "")
            for m in memories
        ]
        parts.append("What you remember about the user from earlier conversations:\n" + data_block(lines))
        parts.append(DATA_RULE)
    elif memory_question:
        parts.append(
            "You found nothing in your memory about this. If the user asks about something from the "
            "past, say plainly that you do not remember it; do not invent details."
        )
    if summary:
        parts.append("Summary of the earlier part of this conversation:\n" + data_block([quote(summary, 3000)]))
    return [SystemMessage("\n\n".join(parts))]
