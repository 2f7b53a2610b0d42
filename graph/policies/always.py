"""``always``: ablation without the controller - every turn uses LTM and STM."""

from caim.graph.policies.base import MemoryPolicy


class AlwaysPolicy(MemoryPolicy):
    name = "always"
    description = "No controller: every turn retrieves from LTM and uses the whole STM."

    def route(self, state, env):
        return "ltm+stm", {"controller": "skipped (always)"}
