"""STM summary role: condense the older part of the current session (plain text output).

VERSION 1.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

VERSION = 1


def messages(previous_summary: str, transcript: str) -> list[BaseMessage]:
    prior = f"Summary so far:\n{previous_summary}\n\n" if previous_summary else ""
    return [
        SystemMessage(
            "Summarise a conversation between a user and an assistant in at most 8 short sentences. "
            "Keep names, dates, preferences, plans and recommendations; drop greetings."
        ),
        HumanMessage(f"{prior}New turns:\n{transcript}\n\nWrite the updated summary."),
    ]
