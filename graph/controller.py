"""Memory controller node (CAIM step 1): does this turn need memory, and which - LTM, STM or both?

The policy decides the route (``caim``: a cascade of separate two-option LLM decisions) and this
node records it with the decisions behind it. It also decides whether the STM goes to the answer in
full or summarised: over the token budget, older turns are summarised incrementally and the
summary is reused on later turns.
"""

from __future__ import annotations

from typing import Any

from caim.core.types import Route
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import State
from caim.memory.stm import session_tokens, transcript
from caim.prompts import summarize as summarize_prompt


def stm_window(state: State, env: Env, route: Route) -> dict[str, Any]:
    """Full or summarised STM; summarises only turns not yet covered by the stored summary."""
    earlier = state["messages"][:-1]
    if "stm" not in route or session_tokens(earlier) <= env.settings.stm_token_budget:
        return {"stm_mode": "full"}
    upto = int(state.get("summary_upto", 0))
    cut = max(len(earlier) - env.settings.stm_keep_recent, 0)
    if cut <= upto:
        env.note(stm="summary reused", summary_upto=upto)
        return {"stm_mode": "summary"}
    summary = env.text("summarize", summarize_prompt.messages(state.get("summary", ""), transcript(earlier[upto:cut])))
    return {"stm_mode": "summary", "summary": summary, "summary_upto": cut}


def controller(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    route, decisions = policy.route(state, env)
    env.note(route=route, decisions=decisions)
    return {"route": route, "decisions": decisions, **stm_window(state, env, route)}


def after_controller(state: State) -> str:
    return "select_tags" if "ltm" in state.get("route", "none") else "respond"
