"""``single-call``: one model call per turn - the answer. Code signals route, the ranking keeps.

No planning call and no relevance filter: a reference to the past, a time expression, a question
about the user's own facts or a closely similar stored memory route the turn to memory, and the
best-ranked candidates (up to ``max_kept``) reach the answer. The fastest policy with memory.
"""

from __future__ import annotations

from collections.abc import Sequence

from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import Plan, State
from caim.memory.records import MemoryBrief


class SingleCallPolicy(CaimPolicy):
    """One model call per turn, the answer: code signals route, the ranked search picks the memories."""

    name = "single-call"
    description = "One model call per turn (the answer): code signals route, the ranked search decides what is kept."
    filter_beside_plan = False  # no filter call to run early (nor an answer to draft)

    def plan(self, state: State, env: Env, shortlist: Sequence[str]) -> Plan | None:
        """None: the code signals route."""
        return None

    def filter(self, state: State, env: Env, candidates: list[MemoryBrief]) -> list[MemoryBrief] | None:
        """None: the best-ranked candidates are kept."""
        return None
