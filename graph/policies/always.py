"""``always``: ablation without the controller - every turn uses LTM and STM (tags by meaning)."""

from __future__ import annotations

from collections.abc import Sequence

from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import Plan, State


class AlwaysPolicy(CaimPolicy):
    """Every turn reads long-term memory and the whole session: no controller call."""

    name = "always"
    description = "No controller: every turn retrieves from LTM and uses the whole STM."

    def plan(self, state: State, env: Env, shortlist: Sequence[str]) -> Plan | None:
        """Always ``ltm+stm``, with the first three shortlisted tags."""
        return {
            "route": "ltm+stm",
            "decisions": {"controller": "skipped (always)"},
            "tags": list(shortlist[:3]),
            "time_expressions": [],
            "model": False,
        }
