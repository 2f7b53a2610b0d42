"""``none``: baseline without memory - no retrieval, nothing stored at session end."""

from caim.graph.policies.base import MemoryPolicy


class NoMemoryPolicy(MemoryPolicy):
    name = "none"
    description = "No memory at all: answers from the current message only; post-thinking stores nothing."
    extend_ontology = False

    def route(self, state, env):
        return "none", {"controller": "skipped (no memory)"}

    def key_events(self, state, env):
        return [], True

    def review(self, state, env):
        return []
