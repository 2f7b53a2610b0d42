"""``none``: baseline without memory - no retrieval, nothing stored at session end."""

from __future__ import annotations

from collections.abc import Sequence

from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import Plan, State


class NoMemoryPolicy(CaimPolicy):
    """No memory: answers from the current message only; post-thinking stores nothing."""

    name = "none"
    description = "No memory at all: answers from the current message only; post-thinking stores nothing."
    uses_memory = False
    extend_ontology = False

    def plan(self, state: State, env: Env, shortlist: Sequence[str]) -> Plan | None:
        """Always ``none``."""
        return {
            "route": "none",
            "decisions": {"controller": "skipped (no memory)"},
            "tags": [],
            "time_expressions": [],
            "model": False,
        }
