"""``none``: baseline without memory - no retrieval, nothing stored at session end."""

from __future__ import annotations

from typing import Any

from caim.core.types import Route
from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import KeyEvent, State
from caim.memory.merge import Merge


class NoMemoryPolicy(CaimPolicy):
    name = "none"
    description = "No memory at all: answers from the current message only; post-thinking stores nothing."
    uses_memory = False
    extend_ontology = False

    def route(self, state: State, env: Env) -> tuple[Route, dict[str, Any]]:
        return "none", {"controller": "skipped (no memory)"}

    def key_events(self, state: State, env: Env) -> tuple[list[KeyEvent], bool]:
        return [], True

    def review(self, state: State, env: Env) -> list[Merge]:
        return []
