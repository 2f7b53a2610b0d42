"""``no-filter``: ablation without the relevance filter - every fetched candidate (up to the cap) is kept."""

from caim.graph.policies.base import MemoryPolicy


class NoFilterPolicy(MemoryPolicy):
    name = "no-filter"
    description = "CAIM without the LLM relevance filter: all candidates up to max_kept go to the answer."

    def filter(self, state, env):
        return state.get("candidates", [])[: env.settings.max_kept]
