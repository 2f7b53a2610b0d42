"""Response role: the assistant's reply (plain text).

VERSION 4. The instructions are one fixed system message (identical on every turn, so an endpoint's
prompt cache reuses it, followed by the conversation so far). The turn's own material comes last,
in the final user message: the kept memories first - quoted, dated, with the turn that gave them
context, each relative time phrase followed by the date it meant when it was said - then the date
and the message, with a request for a short answer drawn from the memories.
"""

from __future__ import annotations

from datetime import datetime

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from caim.memory.records import MemoryBrief
from caim.memory.timeref import long_date, with_dates
from caim.prompts.common import DATA_RULE, data_block, quote

VERSION = 4

SYSTEM = (
    "You are a friendly personal assistant with a long-term memory of this user. Answer helpfully and "
    "concisely. When memories are given, answer from them in a short reply and mention dates when they "
    "matter; if they do not contain the answer, say you do not remember rather than inventing details. " + DATA_RULE
)

NOTHING_FOUND = (
    "You found nothing in your memory about this. If the message asks about something from the past, "
    "say plainly that you do not remember it; do not invent details."
)


def memory_lines(memories: list[MemoryBrief], source_chars: int = 1200) -> list[str]:
    """One line per memory: the day it was said, then its words ("you said:" before the assistant's
    own) - each relative time phrase followed by the date it meant then ("yesterday [7 May 2023]"),
    so that the answer can give dates.

    >>> memory_lines([{"id": "a", "thought": "I ran a race last Sunday.", "tags": [], "event_time": "2023-05-25"}])
    ['- (25 May 2023) "I ran a race last Sunday [21 May 2023]."']
    """
    lines = []
    for m in memories:
        said = datetime.fromisoformat(m["event_time"])
        until = f" (until {long_date(datetime.fromisoformat(m['valid_until']))})" if m.get("valid_until") else ""
        who = "you said: " if m.get("speaker") == "assistant" else ""
        text = f"- ({long_date(said)}){until} {who}{quote(with_dates(m['thought'], said), 600)}"
        if m.get("context"):
            text += f" - in reply to: {quote(with_dates(m['context'], said), 300)}"
        if m.get("source"):
            text += f" - from the conversation: {quote(with_dates(m['source'], said), source_chars)}"
        lines.append(text)
    return lines


def system() -> SystemMessage:
    return SystemMessage(SYSTEM)


def final_message(
    user_input: str, today: str, memories: list[MemoryBrief] | None, summary: str, memory_question: bool
) -> HumanMessage:
    parts = []
    if memories:
        parts.append("What you remember about the user (oldest first):\n" + data_block(memory_lines(memories)))
    elif memory_question:
        parts.append(NOTHING_FOUND)
    if summary:
        parts.append("Summary of the earlier part of this conversation:\n" + data_block([quote(summary, 3000)]))
    if not parts:
        return HumanMessage(user_input)
    parts.append(f"Today is {today}. Reply to the user's message{' briefly, from the memories' if memories else ''}.")
    parts.append(f"Message: {user_input}")
    return HumanMessage("\n\n".join(parts))


def messages(
    user_input: str,
    today: str,
    history: list[BaseMessage],
    memories: list[MemoryBrief] | None,
    summary: str,
    memory_question: bool,
) -> list[BaseMessage]:
    return [system(), *history, final_message(user_input, today, memories, summary, memory_question)]
