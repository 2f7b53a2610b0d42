"""``caim-cascade``: the CAIM paper's controller, step by step, for ablations.

Three separate two-option decisions (needs earlier information? both past and current? past
only?), then a tag call over the whole ontology and a time-expression call - up to five sequential
round trips before retrieval, as the paper describes. Filter and post-thinking as in ``caim``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from caim.core.types import Route
from caim.graph.common import current_input, recent_turns
from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import Plan, State
from caim.prompts import controller as controller_prompt
from caim.prompts import tags as tags_prompt
from caim.prompts import timeref as time_prompt


class CascadePolicy(CaimPolicy):
    """The paper's controller: three A/B decisions, then tags and time expressions, then the filter."""

    name = "caim-cascade"
    description = "The paper's controller: three A/B decisions, then tags (whole ontology) and time expressions."
    filter_beside_plan = False  # the paper's order: every decision, then the filter

    def plan(self, state: State, env: Env, shortlist: Sequence[str]) -> Plan | None:
        """The route from the A/B decisions, then tags from the whole ontology and time expressions."""
        text = current_input(state, env)
        recent = recent_turns(state)
        decisions: dict[str, Any] = {}

        def ask(name: str) -> str | None:
            choice = env.structured(
                "controller", controller_prompt.Choice, controller_prompt.messages(name, text, recent)
            )
            decisions[name] = choice.answer if choice else "fallback"
            return choice.answer if choice else None

        route: Route | None
        first = ask("needs_memory")
        if first is None:
            route = None
        elif first == "B":
            route = "none"
        else:
            both = ask("needs_both")
            if both is None:
                route = None
            elif both == "A":
                route = "ltm+stm"
            else:
                past = ask("past_only")
                route = None if past is None else ("ltm" if past == "A" else "stm")
        if route is None:
            return None
        tags: list[str] = []
        expressions: list[str] = []
        if "ltm" in route:
            ontology = env.ontology
            answer = env.structured(
                "tags", tags_prompt.schema(ontology.tags), tags_prompt.messages(text, ontology.outline())
            )
            tags = list(dict.fromkeys(answer.tags))[:3] if answer else []
            found = env.structured("time", time_prompt.TimeRefs, time_prompt.messages(text, env.now.date().isoformat()))
            expressions = [e for e in (found.expressions if found else []) if e and e.lower() in text.lower()]
        return {"route": route, "decisions": decisions, "tags": tags, "time_expressions": expressions, "model": True}
