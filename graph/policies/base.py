"""The memory policy interface; the base class is the CAIM paper's policy (``caim``).

A policy decides, per step, what the graph's nodes do: the controller route, tag selection, time
expressions, whether nearest-by-meaning candidates are added, the relevance filter, key-event
extraction, ontology extension and memory review. Override only the steps you change.
"""

from __future__ import annotations

from caim.graph import controller, post_thinking, retrieval
from caim.graph.env import Env
from caim.graph.state import State


class MemoryPolicy:
    name = "caim"
    description = "CAIM: controller cascade, tag+time retrieval, LLM relevance filter, post-thinking with review."
    semantic_candidates = True
    extend_ontology = True

    def route(self, state: State, env: Env) -> tuple[str, dict]:
        return controller.caim_route(state, env)

    def select_tags(self, state: State, env: Env) -> list[str]:
        return retrieval.caim_tags(state, env)

    def time_expressions(self, state: State, env: Env) -> list[str]:
        return retrieval.caim_time_expressions(state, env)

    def filter(self, state: State, env: Env) -> list[dict]:
        return retrieval.caim_filter(state, env)

    def key_events(self, state: State, env: Env) -> tuple[list[dict], bool]:
        return post_thinking.caim_key_events(state, env)

    def review(self, state: State, env: Env) -> list[dict]:
        return post_thinking.caim_review(state, env)
