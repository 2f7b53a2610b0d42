"""Memory maintenance role: how each new memory relates to the user's stored ones.

VERSION 1. For every numbered new memory the model sees its related stored memories (numbered
after the new ones) and picks one decision from an enumerated set, with the stored memory it
concerns:

- ``new``: nothing stored says this;
- ``same``: a stored memory says the same thing (the two are merged);
- ``update``: it replaces what a stored memory said (the old one stays, closed at this date);
- ``extends``: it adds a detail to a stored memory (appended to it);
- ``contradicts``: it disagrees with a stored memory, but both may hold (both kept, linked).

Code applies the decisions; an update never deletes anything.
"""

from __future__ import annotations

from typing import Literal, get_args

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.memory.maintenance import Decision as DecisionSet
from caim.memory.maintenance import MaintainGroup
from caim.prompts.common import DATA_RULE, Answer, data_block, literal, narrowed, quote

VERSION = 1
#: The decisions offered: ``caim.memory.maintenance.Decision``'s values.
Decision = Literal["new", "same", "update", "extends", "contradicts"]
assert set(get_args(Decision)) == {d.value for d in DecisionSet}, "the prompt offers Decision's closed set"

INSTRUCTIONS = (
    "You maintain a memory of a user. For each new memory, compare it with the stored memories listed "
    "under it and decide: 'new' if none of them says this; 'same' if one says the same thing; 'update' if "
    "it replaces what one said (the user moved, changed job, changed a preference); 'extends' if it adds a "
    "detail to one; 'contradicts' if it disagrees with one but both may be true. For every decision other "
    "than 'new', give the number of the stored memory it concerns; for 'new' give 0. " + DATA_RULE
)


class MaintenanceDecision(Answer):
    """The decision for one new memory and the stored memory it concerns, 0 for ``new``
    (``Maintenance`` to the model)."""

    memory: int = Field(description="Number of the new memory.")
    decision: Decision = Field(description="How it relates to the stored memories.")
    target: int = Field(description="Number of the stored memory it concerns, 0 for 'new'.")


class MaintenancePlan(Answer):
    """The maintain role's answer: at most one decision per new memory."""

    decisions: list[MaintenanceDecision]


def schema(new: list[int], stored: list[int]) -> type[MaintenancePlan]:
    """The response model for one call.

    Args:
        new: The numbers of the new memories (enumerated; must be non-empty).
        stored: The numbers of the stored memories shown (enumerated with 0).

    Returns:
        :class:`MaintenancePlan` with the memory numbers enumerated.
    """
    item = narrowed(MaintenanceDecision, "Maintenance", memory=literal(new), target=literal([0, *stored]))
    return narrowed(MaintenancePlan, decisions=(list[item], Field(max_length=len(new))))  # type: ignore[valid-type]


def messages(groups: list[MaintainGroup]) -> list[BaseMessage]:
    """The request for ``groups``: each new memory with its number and date, the stored ones under it.

    Args:
        groups: The new memories and the stored memories related to each.

    Returns:
        The system and user messages.
    """
    blocks = []
    for g in groups:
        lines = [f"New [{g.new}] ({g.date}) {quote(g.text, 400)}"]
        lines += [f"  stored [{m.number}] ({m.date}) {quote(m.text, 300)}" for m in g.stored] or [
            "  (no stored memories)"
        ]
        blocks.append("\n".join(lines))
    return [SystemMessage(INSTRUCTIONS), HumanMessage(data_block(blocks))]
