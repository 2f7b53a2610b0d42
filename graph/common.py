"""Helpers that nodes and policies share: the current input, recent turns, the STM window."""

from __future__ import annotations

from typing import Any

from caim.core.types import Route
from caim.graph.env import Env
from caim.graph.state import State
from caim.memory.stm import clip, session_tokens, transcript
from caim.prompts import summarize as summarize_prompt


def current_input(state: State, env: Env) -> str:
    """The user's latest message, clipped to ``max_input_chars`` for prompts."""
    return clip(str(state["messages"][-1].content), env.settings.max_input_chars)


def recent_turns(state: State, n: int = 4, per_message: int = 300) -> str:
    """The ``n`` messages before the current one, as a short transcript."""
    return transcript(state["messages"][-n - 1 : -1], per_message=per_message)


def stm_window(state: State, env: Env, route: Route) -> dict[str, Any]:
    """Full or summarised STM for the answer: over the token budget, older turns are summarised
    incrementally (only turns the stored summary does not yet cover) and the summary is reused."""
    earlier = state["messages"][:-1]
    if "stm" not in route or session_tokens(earlier) <= env.settings.stm_token_budget:
        return {"stm_mode": "full"}
    upto = int(state.get("summary_upto", 0))
    cut = max(len(earlier) - env.settings.stm_keep_recent, 0)
    if cut <= upto:
        env.note(stm="summary reused", summary_upto=upto)
        return {"stm_mode": "summary"}
    summary = env.text(
        "summarize", summarize_prompt.messages(state.get("summary", ""), transcript(earlier[upto:cut])), fallback=""
    )
    if not summary:  # the model failed: keep what was summarised before (or the whole, clipped STM)
        return {"stm_mode": "summary" if upto else "full"}
    return {"stm_mode": "summary", "summary": summary, "summary_upto": cut}
