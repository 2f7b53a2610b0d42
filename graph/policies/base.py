"""The memory policy interface: what each CAIM step decides, per run, for the graph's nodes.

A policy decides the controller route, tag selection, time expressions, whether nearest-by-meaning
candidates are added, the relevance filter, key-event extraction, ontology extension and memory
review. Nodes call the policy chosen by name in the run context; policies never import nodes.
``caim.graph.policies.caim.CaimPolicy`` is the paper's policy - subclass it and override only the
steps you change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from caim.core.types import Route
from caim.graph.env import Env
from caim.graph.state import KeyEvent, State
from caim.memory.merge import Merge
from caim.memory.records import MemoryBrief


class MemoryPolicy(ABC):
    name: str = "?"
    description: str = ""
    #: Retrieves from and stores into long-term memory (baselines without memory set this False).
    uses_memory: bool = True
    #: Adds a few nearest-by-meaning records to the tag/time candidates.
    semantic_candidates: bool = True
    #: Lets post-thinking extend the ontology.
    extend_ontology: bool = True

    @abstractmethod
    def route(self, state: State, env: Env) -> tuple[Route, dict[str, Any]]:
        """The memory route for the current message and the decisions behind it."""

    @abstractmethod
    def select_tags(self, state: State, env: Env) -> list[str]:
        """Ontology tags describing the current message (unknown tags are dropped by the node)."""

    @abstractmethod
    def time_expressions(self, state: State, env: Env) -> list[str]:
        """Time expressions in the current message; code resolves them to ranges."""

    @abstractmethod
    def filter(self, state: State, env: Env) -> list[MemoryBrief]:
        """The candidates that go to the answer."""

    @abstractmethod
    def key_events(self, state: State, env: Env) -> tuple[list[KeyEvent], bool]:
        """The session's key events, and whether extraction succeeded for every chunk."""

    @abstractmethod
    def review(self, state: State, env: Env) -> list[Merge]:
        """Merges applied among the new records and stored ones that mean the same."""
