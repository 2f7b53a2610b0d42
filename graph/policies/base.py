"""The memory policy interface: the model judgements of each CAIM step, chosen by name per run.

A policy owns its decisions; the nodes own the code around them. Every judgement may return
``None`` - no model decision (the policy makes none, or the model's answer was malformed) - and the
node then does what code can do reliably: route by code signals, keep the best-ranked candidates,
capture fact-stating turns verbatim, store a thought as new. So a policy can never lose memory by
failing. Policies never import nodes. ``caim.graph.policies.caim.CaimPolicy`` is the default -
subclass it and override only what you change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from caim.graph.env import Env
from caim.graph.state import KeyEvent, Plan, State
from caim.memory.maintenance import MaintainGroup
from caim.memory.records import MemoryBrief
from caim.memory.search.retrieval import DEFAULT_WEIGHTS, Weights
from caim.memory.stm import Exchange
from caim.prompts.maintain import MaintenancePlan
from caim.prompts.profile import AspectUpdate, Backgrounds, Principles
from caim.prompts.thoughts import Thoughts


class MemoryPolicy(ABC):
    """How the graph uses memory: the plan, the relevance filter, and post-thinking's model calls."""

    name: str = "?"
    description: str = ""
    #: Retrieves from and stores into long-term memory (a baseline without memory sets this False).
    uses_memory: bool = True
    #: Lets post-thinking extend the ontology with the terms the thoughts call proposes.
    extend_ontology: bool = True
    #: How the ranked search weighs its signals.
    weights: Weights = DEFAULT_WEIGHTS
    #: Runs the relevance filter on the code-ranked candidates beside the plan (when code signals
    #: point to memory) instead of after it: one round trip before the answer instead of two.
    filter_beside_plan: bool = False

    @abstractmethod
    def plan(self, state: State, env: Env, shortlist: Sequence[str]) -> Plan | None:
        """Route, decisions, tags (from ``shortlist`` unless the policy offers more) and time
        expressions for the current message; ``None`` leaves the route to the code signals."""

    @abstractmethod
    def filter(self, state: State, env: Env, candidates: list[MemoryBrief]) -> list[MemoryBrief] | None:
        """The candidates that go to the answer; ``None``: the best-ranked ones, up to ``max_kept``."""

    @abstractmethod
    def key_events(self, env: Env, chunk: list[Exchange]) -> list[KeyEvent] | None:
        """Key events of a chunk of the session's turns; ``None``: extraction failed (fact-stating
        turns are then captured verbatim)."""

    @abstractmethod
    def thoughts(self, env: Env, events: list[KeyEvent], tags: list[str], parents: list[str]) -> Thoughts | None:
        """One memory sentence and tags per event, and proposed ontology terms (``prompts.thoughts``
        schema); ``None``: the events' own words are stored, tagged by meaning."""

    @abstractmethod
    def maintain(self, env: Env, groups: list[MaintainGroup]) -> MaintenancePlan | None:
        """How each new memory relates to related stored ones (``prompts.maintain`` schema);
        ``None``: every new memory is kept as new (duplicates are still merged by code)."""

    def backgrounds(self, env: Env, updates: list[AspectUpdate]) -> Backgrounds | None:
        """New background paragraphs of the aspects a session touched (``prompts.profile``); ``None``
        (the default): code's paragraph, the aspects' newest memories."""
        return None

    def principles(self, env: Env, groups: list[list[str]]) -> Principles | None:
        """The requirement type and summary of each cluster of preferences (``prompts.profile``);
        ``None`` (the default): code's, the cluster's most common tag and most central memories."""
        return None
