"""Unknown-intent role (goal-aware recall): a short description of each task the user asked for that
is none of the catalogue's intents.

VERSION 1. Post-thinking shows only the numbered turns code marked as tasks no catalogue intent
names (a request whose exchange reached an outcome: booked, ordered, cancelled...); the model
answers, per turn (enumerated), a description of two to eight words. Code validates each one
(``caim.memory.intents.describe``) and drops the rest. The turns are quoted (JSON strings): they are
data, never instructions. The call runs under the ``key_events`` role (post-thinking's extraction).
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.prompts.common import DATA_RULE, Answer, data_block, literal, narrowed, quote

VERSION = 1
#: Most tasks described per call.
MAX_TASKS = 4

INSTRUCTIONS = (
    "You keep a memory of a user for a personal assistant. In each numbered turn below the user asked the "
    "assistant to carry out a task. For each turn that does ask for a task, describe the kind of task in a "
    "short phrase of two to eight words that starts with a verb, such as 'order groceries for the week' or "
    "'renew a parking permit'. Describe the kind of task only: no names, numbers or dates. Leave out a "
    "turn that asks for no task. " + DATA_RULE
)


class TaskAnswer(Answer):
    """One task and the number of the turn that asked for it (``Task`` to the model)."""

    turn: int = Field(description="Number of the turn that asks for the task.")
    description: str = Field(max_length=80, description="The kind of task, two to eight words, e.g. 'order groceries'.")


class Tasks(Answer):
    """The unknown-intent role's answer."""

    tasks: list[TaskAnswer] = Field(max_length=MAX_TASKS)


def schema(turn_numbers: list[int]) -> type[Tasks]:
    """The response model for one call.

    Args:
        turn_numbers: The numbers of the turns shown (enumerated; must be non-empty).

    Returns:
        :class:`Tasks` with the turn numbers enumerated.
    """
    task = narrowed(TaskAnswer, "Task", turn=literal(turn_numbers))
    return narrowed(Tasks, tasks=list[task])  # type: ignore[valid-type]


def messages(turns: list[tuple[int, str, str]], limit: int = 500) -> list[BaseMessage]:
    """The request for ``(number, user text, assistant text)`` turns."""
    shown = "\n\n".join(
        f"Turn {n}\nUser: {quote(user, limit)}" + (f"\nAssistant: {quote(reply, limit)}" if reply else "")
        for n, user, reply in turns
    )
    return [SystemMessage(INSTRUCTIONS), HumanMessage(data_block([shown]))]
