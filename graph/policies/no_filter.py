"""``no-filter``: ablation without the relevance filter - every fetched candidate (up to the cap) is kept."""

from __future__ import annotations

from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import State
from caim.memory.records import MemoryBrief


class NoFilterPolicy(CaimPolicy):
    name = "no-filter"
    description = "CAIM without the LLM relevance filter: all candidates up to max_kept go to the answer."

    def filter(self, state: State, env: Env) -> list[MemoryBrief]:
        return state.get("candidates", [])[: env.settings.max_kept]
