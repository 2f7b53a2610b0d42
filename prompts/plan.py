"""Plan role (``caim`` policy): the memory controller's decisions, tags and time expressions in one call.

VERSION 3 (earlier turns and offered tags quoted; the task kind of a request). The schema keeps the
CAIM cascade's order - does the message need earlier information, which memory (past conversations,
this one, both), what to look for (tags from an enumerated shortlist, time expressions copied from
the message) - then the kind of task the message asks for (enumerated intents, or none). The
instructions come first and never change between turns (an endpoint's prompt cache can reuse them);
the turn's own material comes last.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.prompts.common import DATA_RULE, Answer, data_block, literal, narrowed, quote, turn_lines

VERSION = 3
RECENT_CHARS = 300

INSTRUCTIONS = (
    "You plan how an assistant with a long-term memory of its user answers a message. Decide, in order:\n"
    "1. needs_memory: 'yes' if a good answer depends on anything said earlier - the user's own details, "
    "preferences, plans, or something from this or a past conversation; 'no' if general knowledge is enough.\n"
    "2. memory: 'past' for earlier conversations (other days), 'current' for this conversation only, "
    "'both' when both matter.\n"
    "3. tags: up to three of the offered tags that describe what to look for.\n"
    "4. time_expressions: expressions of the message that point to a time (copy them exactly), else none.\n"
    "5. task: when the message asks you to do one of the offered kinds of task (book, plan, find, buy, "
    "schedule), its kind; else 'none'.\n" + DATA_RULE
)


class PlanAnswer(Answer):
    """The plan role's answer (``Plan`` to the model): the controller's two decisions and what to look for."""

    needs_memory: Literal["yes", "no"] = Field(description="Does the answer depend on earlier information?")
    memory: Literal["past", "current", "both"] = Field(description="Which memory the answer needs.")
    tags: list[str] = Field(max_length=3, description="Tags to look for, from the offered ones.")
    time_expressions: list[str] = Field(max_length=3, description="Time expressions copied from the message.")
    task: str = Field(default="none", description="The kind of task the message asks for, or 'none'.")


def schema(tags: list[str], tasks: Sequence[str] = ()) -> type[PlanAnswer]:
    """The response model for one call.

    Args:
        tags: The offered shortlist; the tags answered must come from it (any text when it is empty).
        tasks: The kinds of task offered (the intents of ``caim.memory.intents``), enumerated with "none".

    Returns:
        :class:`PlanAnswer`, named ``Plan``, with the offered tags and task kinds enumerated.
    """
    task = (literal(["none", *tasks]), Field(default="none"))
    if tags:
        return narrowed(PlanAnswer, "Plan", tags=list[literal(tags)], task=task)  # type: ignore[misc]
    return narrowed(PlanAnswer, "Plan", task=task)


def messages(user_input: str, recent: Sequence[BaseMessage], today: str, tags: list[str]) -> list[BaseMessage]:
    """The plan request: the static instructions first, the turn's material last.

    Args:
        user_input: The current message.
        recent: The messages before the current one that the plan sees.
        today: Today's date (ISO).
        tags: The offered tags.

    Returns:
        The system and user messages.
    """
    context = f"Earlier in this conversation:\n{data_block(turn_lines(recent, RECENT_CHARS))}\n" if recent else ""
    offered = ", ".join(quote(t, 40) for t in tags) if tags else "(none)"
    return [
        SystemMessage(INSTRUCTIONS),
        HumanMessage(f"Today is {today}.\n{context}Offered tags: {offered}\nMessage: {quote(user_input, 2000)}"),
    ]
