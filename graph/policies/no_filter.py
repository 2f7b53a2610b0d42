"""``no-filter``: ablation without the relevance filter - the best-ranked candidates go to the answer."""

from __future__ import annotations

from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import State
from caim.memory.records import MemoryBrief


class NoFilterPolicy(CaimPolicy):
    """CAIM without the model's relevance filter."""

    name = "no-filter"
    description = "CAIM without the LLM relevance filter: the best-ranked candidates, up to max_kept, are used."
    filter_beside_plan = False  # no filter call to run early (nor an answer to draft)

    def filter(self, state: State, env: Env, candidates: list[MemoryBrief]) -> list[MemoryBrief] | None:
        """None: the best-ranked candidates are kept."""
        return None
