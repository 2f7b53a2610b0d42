"""Helpers that nodes and policies share: the current input, recent turns, the STM window, the
answer's prompt (built the same way for a drafted answer and the decided one)."""

from __future__ import annotations

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage

from caim.core.types import Route
from caim.graph.env import Env
from caim.graph.state import State
from caim.graph.steps import SummaryReusedStep
from caim.memory.profile import ANSWER_CHARS, about_user, aspect_of
from caim.memory.records import MemoryBrief
from caim.memory.stm import clip, session_tokens
from caim.prompts import respond as respond_prompt
from caim.prompts import summarize as summarize_prompt


def current_input(state: State, env: Env) -> str:
    """The user's latest message, clipped to ``max_input_chars`` for prompts."""
    return clip(str(state["messages"][-1].content), env.settings.max_input_chars)


def recent_turns(state: State, n: int = 4) -> list[AnyMessage]:
    """The ``n`` messages before the current one (the prompt that shows them quotes and clips them)."""
    return list(state["messages"][-n - 1 : -1])


def ready_window(state: State, env: Env, route: Route) -> State | None:
    """The STM window when it needs no model call (full, or the stored summary reused), else ``None``."""
    earlier = state["messages"][:-1]
    if "stm" not in route or session_tokens(earlier) <= env.settings.stm_token_budget:
        return {"stm_mode": "full"}
    cut = max(len(earlier) - env.settings.stm_keep_recent, 0)
    return {"stm_mode": "summary"} if cut <= int(state.get("summary_upto", 0)) else None


def stm_window(state: State, env: Env, route: Route) -> State:
    """Full or summarised STM for the answer: over the token budget, older turns are summarised
    incrementally (only turns the stored summary does not yet cover) and the summary is reused."""
    ready = ready_window(state, env, route)
    if ready is not None:
        if ready["stm_mode"] == "summary":
            env.note(SummaryReusedStep(stm="summary reused", summary_upto=int(state.get("summary_upto", 0))))
        return ready
    earlier = state["messages"][:-1]
    upto = int(state.get("summary_upto", 0))
    cut = max(len(earlier) - env.settings.stm_keep_recent, 0)
    summary = env.text("summarize", summarize_prompt.messages(state.get("summary", ""), earlier[upto:cut]), fallback="")
    if not summary:  # the model failed: keep what was summarised before (or the whole, clipped STM)
        return {"stm_mode": "summary" if upto else "full"}
    return {"stm_mode": "summary", "summary": summary, "summary_upto": cut}


def speculates(env: Env) -> bool:
    """Whether this run drafts its answer beside the decisions (``speculative_answer``)."""
    setting = env.settings.speculative_answer
    return env.svc.models.speculative if setting is None else setting


def _stm(state: State, env: Env) -> tuple[str, list[AnyMessage]]:
    earlier = state["messages"][:-1]
    summary = ""
    if state.get("stm_mode") == "summary":
        summary = state.get("summary", "")
        earlier = earlier[int(state.get("summary_upto", 0)) :]
    limit = env.settings.max_input_chars
    msgs: list[AnyMessage] = [
        (HumanMessage if isinstance(m, HumanMessage) else AIMessage)(content=clip(str(m.content), limit))
        for m in earlier
    ]
    return summary, msgs


def answer_messages(state: State, env: Env, route: Route, memories: list[MemoryBrief]) -> list[BaseMessage]:
    """The answer's prompt for ``route``: kept memories (oldest first, dated) when it includes LTM, the
    session so far (full, or summary + recent turns, per ``stm_mode``) when it includes STM."""
    summary, history = _stm(state, env) if "stm" in route else ("", [])
    shown = sorted(memories if "ltm" in route else [], key=lambda m: m["event_time"])
    today = env.now.strftime("%A, %B %d, %Y")
    text = current_input(state, env)
    profile = profile_lines(env, shown, text) if "ltm" in route else []
    task = task_note(state, env)
    return respond_prompt.messages(
        text, today, history, shown, summary, memory_question="ltm" in route, profile=profile, task=task
    )


def task_note(state: State, env: Env) -> respond_prompt.TaskNote | None:
    """For a task request (``goal``'s ``intent``), its description, the slots memory fills and those missing."""
    intent = env.svc.intents.intents.get(state.get("intent") or "")
    if intent is None:
        return None
    known = [(slot, k["value"], k["date"]) for slot, k in state.get("known", {}).items()]
    return respond_prompt.TaskNote(intent.description, known, list(state.get("missing", [])))


def profile_lines(env: Env, memories: list[MemoryBrief], message: str) -> list[str]:
    """What the user's profile adds to the memories kept for ``message``: the backgrounds of their
    aspects and the principles they belong to - or all of it for a question about the user as a
    whole or their likes and dislikes (``about_user``) - within ``ANSWER_CHARS``."""
    profile = env.svc.store.profile(env.user_id)
    if profile.empty:
        return []
    ontology = env.ontology
    aspects = {aspect_of(ontology.path(t).split("/")[0]) for m in memories for t in m["tags"][:1] if t in ontology}
    ids = [m["id"] for m in memories]
    return profile.lines(aspects, ids, everything=about_user(message), limit=ANSWER_CHARS)


def shown_memories(state: State, route: Route) -> list[MemoryBrief]:
    """The memories the answer shows: the kept ones, or - when an answer was drafted and the decisions
    confirm it (route with long-term memory, something kept, all of it among the draft's) - the
    draft's, so that its prompt is the decided one."""
    kept = state.get("memories", []) if "ltm" in route else []
    draft = state.get("draft")
    if not draft or not kept or not {m["id"] for m in kept} <= set(draft["memories"]):
        return kept
    pool = {m["id"]: m for m in [*state.get("candidates", []), *state.get("found", [])]}
    if not all(i in pool for i in draft["memories"]):
        return kept
    return [pool[i] for i in draft["memories"]]
