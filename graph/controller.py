"""Memory controller (CAIM step 1): does this turn need memory, and which - LTM, STM or both?

A cascade of separate two-option LLM decisions, each recorded in ``decisions``:
(a) needs earlier information at all? no -> route ``none``;
(b) needs past sessions and the current one? yes -> ``ltm+stm``;
(c) refers to past sessions only? yes -> ``ltm``, no -> ``stm``.
Malformed output falls back to ``ltm+stm`` (recorded). The controller also decides whether the STM
goes to the answer in full or summarised: over the token budget, older turns are summarised
incrementally and the summary is reused on later turns.
"""

from __future__ import annotations

from caim.graph.env import Env
from caim.graph.state import State
from caim.memory.stm import clip, session_tokens, transcript
from caim.prompts import controller as prompt
from caim.prompts import summarize as summarize_prompt


def current_input(state: State, env: Env) -> str:
    return clip(str(state["messages"][-1].content), env.settings.max_input_chars)


def caim_route(state: State, env: Env) -> tuple[str, dict]:
    text = current_input(state, env)
    recent = transcript(state["messages"][-5:-1], per_message=300)
    decisions: dict = {}

    def ask(name: str) -> str | None:
        choice, ok = env.svc.llm.structured(
            "controller", prompt.Choice, prompt.messages(name, text, recent), None, env.trace, "controller"
        )
        decisions[name] = choice.answer if ok else "fallback"
        return choice.answer if ok else None

    first = ask("needs_memory")
    if first is None:
        return "ltm+stm", decisions
    if first == "B":
        return "none", decisions
    both = ask("needs_both")
    if both is None or both == "A":
        return "ltm+stm", decisions
    past = ask("past_only")
    if past is None:
        return "ltm+stm", decisions
    return ("ltm" if past == "A" else "stm"), decisions


def stm_window(state: State, env: Env, route: str) -> dict:
    """Full or summarised STM; summarises only turns not yet covered by the stored summary."""
    earlier = state["messages"][:-1]
    if "stm" not in route or session_tokens(earlier) <= env.settings.stm_token_budget:
        return {"stm_mode": "full"}
    upto = int(state.get("summary_upto", 0))
    cut = max(len(earlier) - env.settings.stm_keep_recent, 0)
    if cut <= upto:
        env.note("controller", stm="summary reused", summary_upto=upto)
        return {"stm_mode": "summary"}
    summary = env.svc.llm.text(
        "summarize",
        summarize_prompt.messages(state.get("summary", ""), transcript(earlier[upto:cut])),
        env.trace,
        "controller",
    )
    return {"stm_mode": "summary", "summary": summary, "summary_upto": cut}


def controller(state: State, env: Env) -> dict:
    route, decisions = env.policy.route(state, env)
    env.note("controller", route=route, decisions=decisions)
    return {"route": route, "decisions": decisions, **stm_window(state, env, route)}


def after_controller(state: State) -> str:
    return "select_tags" if "ltm" in state.get("route", "none") else "respond"
