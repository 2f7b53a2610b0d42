"""Response role: the assistant's reply (plain text).

VERSION 6. The instructions are one fixed system message (identical on every turn, so an endpoint's
prompt cache reuses it), followed by the conversation so far as chat messages whose words pass
``quote_chat`` (prose, but no markup: a turn can neither open nor close a data block nor form a chat
template's token). The turn's own material comes last,
in the final user message: the kept memories first - quoted, dated, with the turn that gave them
context, each relative time phrase followed by the date it meant when it was said - then what the
user's profile says of the aspects and preferences they belong to (``PROFILE_HEAD``), then the date
and the message (also through ``quote_chat``), with a request for a short answer drawn from the memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from caim.memory.records import MemoryBrief
from caim.memory.text.polarity import polarity
from caim.memory.text.timeref import long_date, with_dates
from caim.prompts.common import DATA_RULE, data_block, quote, quote_chat

VERSION = 6

SYSTEM = (
    "You are a friendly personal assistant with a long-term memory of this user. Answer helpfully and "
    "concisely. When memories are given, answer from them in a short reply and mention dates when they "
    "matter; if they do not contain the answer, say you do not remember rather than inventing details. " + DATA_RULE
)

NOTHING_FOUND = (
    "You found nothing in your memory about this. If the message asks about something from the past, "
    "say plainly that you do not remember it; do not invent details."
)


@dataclass(frozen=True)
class TaskNote:
    """A task request's intent (its description), the slots memory fills - (slot, value, date said) -
    and the slots still missing."""

    description: str
    known: list[tuple[str, str, str]]
    missing: list[str]


def task_part(task: TaskNote) -> str:
    """The instruction for a task request: confirm what memory gives in one sentence, ask only for
    what is missing.

    >>> print(task_part(TaskNote("book a table", [("city", "Porto", "2024-03-02")], ["date"])))
    The message is a task request (book a table). From memory you already know (quoted data):
    <data>
    - city: "Porto" (said 2024-03-02)
    </data>
    Confirm these in one sentence instead of asking for them, then ask only for: date.
    """
    head = f"The message is a task request ({task.description})."
    ask = f"ask only for: {', '.join(task.missing)}." if task.missing else "do not ask for anything else."
    if not task.known:
        return f"{head} Nothing about it is known from memory; {ask}"
    lines = [f"- {slot}: {quote(value, 200)} (said {date})" for slot, value, date in task.known]
    return (
        f"{head} From memory you already know (quoted data):\n{data_block(lines)}\n"
        f"Confirm these in one sentence instead of asking for them, then {ask}"
    )


PROFILE_HEAD = "What you know of the user in general (their profile, from all past conversations):"


def profile_part(profile: Sequence[str]) -> str:
    """The profile's lines as a quoted block under ``PROFILE_HEAD`` ("" for none).

    >>> print(profile_part(["food: Vegetarian; cooks at home."]))
    What you know of the user in general (their profile, from all past conversations):
    <data>
    - "food: Vegetarian; cooks at home."
    </data>
    """
    return f"{PROFILE_HEAD}\n{data_block([f'- {quote(line, 900)}' for line in profile])}" if profile else ""


#: How a preference's polarity reads in a memory's line.
_PREFERS = {"like": "likes", "dislike": "dislikes", "neutral": "is neutral about"}


def preference_note(m: MemoryBrief) -> str:
    """A preference's polarity, what it is about and its reason, the words quoted ("" for a memory
    that states no preference).

    >>> preference_note({"id": "a", "thought": "I can't stand crowded beaches, too noisy", "tags": [],
    ...                  "event_time": "2024-05-07", "polarity": "dislike", "reason": "too noisy"})
    ' - preference: dislikes "crowded beaches" \u2014 "too noisy"'
    """
    if m.get("polarity") not in _PREFERS:
        return ""
    found = polarity(m["thought"])
    thing = f" {quote(found.thing, 120)}" if found is not None and found.thing else ""
    why = f" \u2014 {quote(m['reason'], 200)}" if m.get("reason") else ""
    whose = f" of {quote(m['holder'], 120)} (not the speaker's)" if m.get("holder") else ""
    return f" - preference{whose}: {_PREFERS[m['polarity']]}{thing}{why}"


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
        text += preference_note(m)
        if m.get("context"):
            text += f" - in reply to: {quote(with_dates(m['context'], said), 300)}"
        if m.get("source"):
            text += f" - from the conversation: {quote(with_dates(m['source'], said), source_chars)}"
        lines.append(text)
    return lines


def memory_block(
    memories: list[MemoryBrief], memory_question: bool, profile: Sequence[str] = (), task: TaskNote | None = None
) -> str:
    """The kept memories for another agent's prompt: the data rule, then the memories quoted and dated
    as caim's own answer sees them, then the ``profile`` lines - or, with neither for a memory
    question, the instruction not to invent ("" when there is nothing to say).

    >>> print(memory_block([{"id": "a", "thought": "Lives in Porto.", "tags": [], "event_time": "2024-05-07"}], True))
    Text inside <data> tags ...
    What you remember about the user (oldest first):
    <data>
    - (7 May 2024) "Lives in Porto."
    </data>
    """
    parts = []
    if memories:
        shown = sorted(memories, key=lambda m: m["event_time"])
        parts.append(f"What you remember about the user (oldest first):\n{data_block(memory_lines(shown))}")
    if profile:
        parts.append(profile_part(profile))
    if task is not None:
        parts.append(task_part(task))
    if parts:
        return "\n".join([DATA_RULE, *parts])
    return NOTHING_FOUND if memory_question else ""


def system() -> SystemMessage:
    """The answer's system message (the same every turn)."""
    return SystemMessage(SYSTEM)


def final_message(
    user_input: str,
    today: str,
    memories: list[MemoryBrief] | None,
    summary: str,
    memory_question: bool,
    profile: Sequence[str] = (),
    task: TaskNote | None = None,
) -> HumanMessage:
    """The last message of the answer's prompt: memories, summary, date and the current message.

    Args:
        user_input: The current message.
        today: Today's date.
        memories: The memories kept for the answer (``None`` or empty: none).
        summary: The summary of the session's earlier part ("" when none).
        memory_question: Whether the message asks about memory (then "nothing found" is said).
        profile: The profile's lines for this message (``caim.memory.profile.Profile.lines``).
        task: For a task request, what memory gives and what is missing (``task_part``).

    Returns:
        The message alone (prose, escaped) when there is nothing else to add.
    """
    parts = []
    if memories:
        parts.append("What you remember about the user (oldest first):\n" + data_block(memory_lines(memories)))
    if profile:
        parts.append(profile_part(profile))
    if memory_question and not parts:
        parts.append(NOTHING_FOUND)
    if task is not None:
        parts.append(task_part(task))
    if summary:
        parts.append("Summary of the earlier part of this conversation:\n" + data_block([quote(summary, 3000)]))
    if not parts:
        return HumanMessage(quote_chat(user_input))
    known = memories or profile
    parts.append(f"Today is {today}. Reply to the user's message{' briefly, from the memories' if known else ''}.")
    parts.append(f"Message: {quote_chat(user_input)}")
    return HumanMessage("\n\n".join(parts))


def messages(
    user_input: str,
    today: str,
    history: Sequence[BaseMessage],
    memories: list[MemoryBrief] | None,
    summary: str,
    memory_question: bool,
    profile: Sequence[str] = (),
    task: TaskNote | None = None,
) -> list[BaseMessage]:
    """``history``: the session's earlier messages (user and assistant), already clipped; ``profile``:
    the profile's lines for this message; ``task``: a task request's known and missing slots."""
    earlier: list[BaseMessage] = [
        (HumanMessage if isinstance(m, HumanMessage) else AIMessage)(content=quote_chat(str(m.content)))
        for m in history
    ]
    return [system(), *earlier, final_message(user_input, today, memories, summary, memory_question, profile, task)]
