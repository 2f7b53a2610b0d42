"""``dense``: the plain-retrieval baseline - embed the message, take the nearest records, answer.

What most memory layers do on every message: no controller, no lexical or time signals, no filter.
Post-thinking as in ``caim``, so both build the same memory.
"""

from __future__ import annotations

from collections.abc import Sequence

from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import Plan, State
from caim.memory.records import MemoryBrief
from caim.memory.search.retrieval import DENSE_ONLY


class DensePolicy(CaimPolicy):
    """Plain dense retrieval: the nearest records by meaning on every turn, no controller, no filter."""

    name = "dense"
    description = "Plain retrieval baseline: nearest records by meaning on every turn, no controller, no filter."
    filter_beside_plan = False  # no filter call to run early (nor an answer to draft)
    weights = DENSE_ONLY

    def plan(self, state: State, env: Env, shortlist: Sequence[str]) -> Plan | None:
        """Always ``ltm+stm``, without tags or time expressions."""
        return {
            "route": "ltm+stm",
            "decisions": {"controller": "skipped (dense)"},
            "tags": [],
            "time_expressions": [],
            "model": False,
        }

    def filter(self, state: State, env: Env, candidates: list[MemoryBrief]) -> list[MemoryBrief] | None:
        """None: the best-ranked candidates are kept."""
        return None
