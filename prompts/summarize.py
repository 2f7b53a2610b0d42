"""STM summary role: condense the older part of the current session (plain text output).

VERSION 2. The previous summary and the new turns are quoted (JSON strings in data blocks).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from caim.prompts.common import DATA_RULE, data_block, quote, turn_lines

VERSION = 2
TURN_CHARS = 600
SUMMARY_CHARS = 3000


def messages(previous_summary: str, turns: Sequence[BaseMessage] | str) -> list[BaseMessage]:
    """``turns``: the messages to add to the summary, one quoted line each, or a transcript the
    caller wrote, quoted as one text."""
    prior = f"Summary so far:\n{data_block([quote(previous_summary, SUMMARY_CHARS)])}\n\n" if previous_summary else ""
    lines = [quote(turns, None)] if isinstance(turns, str) else turn_lines(turns, TURN_CHARS)
    return [
        SystemMessage(
            "Summarise a conversation between a user and an assistant in at most 8 short sentences. "
            "Keep names, dates, preferences, plans and recommendations; drop greetings. " + DATA_RULE
        ),
        HumanMessage(f"{prior}New turns:\n{data_block(lines)}\n\nWrite the updated summary."),
    ]
