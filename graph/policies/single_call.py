"""``single-call``: one structured call returns route, tags and time expressions together.

Cuts the hot path from up to five LLM round trips (three controller decisions, tags, time) to one.
The plan is kept in ``decisions["plan"]``; the tag and time steps reuse it instead of calling the model again.
"""

from caim.graph.controller import current_input
from caim.graph.policies.base import MemoryPolicy
from caim.memory.stm import transcript
from caim.memory.timeref import find_expressions
from caim.prompts import single_call as prompt


class SingleCallPolicy(MemoryPolicy):
    name = "single-call"
    description = "One structured call plans route, tags and time expressions; then fetch, filter, respond."

    def route(self, state, env):
        ontology = env.svc.ontology.current
        text = current_input(state, env)
        plan, ok = env.svc.llm.structured(
            "single_call",
            prompt.schema(ontology.tags),
            prompt.messages(text, transcript(state["messages"][-5:-1], 300), env.now.date().isoformat(), ontology.outline()),
            None,
            env.trace,
            "controller",
        )
        if not ok:
            return "ltm+stm", {"plan": {"route": "fallback", "tags": [], "time_expressions": []}}
        tags = list(dict.fromkeys(plan.tags))
        return plan.route, {"plan": {"route": plan.route, "tags": tags, "time_expressions": plan.time_expressions}}

    def select_tags(self, state, env):
        return state.get("decisions", {}).get("plan", {}).get("tags", [])

    def time_expressions(self, state, env):
        text = current_input(state, env).lower()
        said = [e for e in state.get("decisions", {}).get("plan", {}).get("time_expressions", []) if e and e.lower() in text]
        return list(dict.fromkeys(said + find_expressions(text)))
