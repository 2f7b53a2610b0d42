"""``single-call``: one structured call returns route, tags and time expressions together.

Cuts the hot path from up to five LLM round trips (three controller decisions, tags, time) to one.
The plan is kept in ``decisions["plan"]``; the tag and time steps reuse it instead of calling the model again.
"""

from __future__ import annotations

from typing import Any

from caim.core.types import Route
from caim.graph.common import current_input, recent_turns
from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import State
from caim.memory.timeref import find_expressions
from caim.prompts import single_call as prompt


def _plan(state: State) -> dict[str, Any]:
    plan = state.get("decisions", {}).get("plan")
    return plan if isinstance(plan, dict) else {}


class SingleCallPolicy(CaimPolicy):
    name = "single-call"
    description = "One structured call plans route, tags and time expressions; then fetch, filter, respond."

    def route(self, state: State, env: Env) -> tuple[Route, dict[str, Any]]:
        ontology = env.svc.ontology.current
        text = current_input(state, env)
        plan = env.structured(
            "single_call",
            prompt.schema(ontology.tags),
            prompt.messages(text, recent_turns(state), env.now.date().isoformat(), ontology.outline()),
        )
        if plan is None:
            return "ltm+stm", {"plan": {"route": "fallback", "tags": [], "time_expressions": []}}
        tags = list(dict.fromkeys(plan.tags))
        return plan.route, {"plan": {"route": plan.route, "tags": tags, "time_expressions": plan.time_expressions}}

    def select_tags(self, state: State, env: Env) -> list[str]:
        return list(_plan(state).get("tags", []))

    def time_expressions(self, state: State, env: Env) -> list[str]:
        text = current_input(state, env).lower()
        said = [e for e in _plan(state).get("time_expressions", []) if e and e.lower() in text]
        return list(dict.fromkeys(said + find_expressions(text)))
