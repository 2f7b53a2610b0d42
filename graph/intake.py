"""Intake node: stamps the turn time, starts a session when needed, handles empty and huge input.

Runs first on every graph run. Empty or whitespace input is answered here without any model call;
input longer than ``max_input_chars`` is kept whole in the checkpoint but clipped in prompts, with
a notice in state and trace.
"""

from __future__ import annotations

import uuid

from langchain_core.messages import AIMessage, HumanMessage

from caim.graph.env import Env
from caim.graph.state import RESET, State
from caim.memory.stm import TIME_KEY

EMPTY_REPLY = "I didn't get a message - please type something and I'll answer."

_PER_TURN = {
    "route": "none",
    "decisions": {},
    "tags": [],
    "time_ranges": [],
    "candidates": [],
    "memories": [],
    "notice": "",
}


def intake(state: State, env: Env) -> dict:
    update: dict = {"trace": [RESET], **_PER_TURN}
    if not state.get("session_id"):
        update["session_id"] = uuid.uuid4().hex[:12]
        update["session_started"] = env.now.isoformat()
    if state.get("end_session"):
        update["key_events"], update["stored"], update["merged"], update["ontology_added"] = [], [], [], []
        env.note("intake", action="end_session", messages=len(state.get("messages", [])))
        return update
    messages = state.get("messages", [])
    last = messages[-1] if messages else None
    if not isinstance(last, HumanMessage) or not str(last.content).strip():
        env.note("intake", action="empty_input")
        update["messages"] = [AIMessage(EMPTY_REPLY, additional_kwargs={TIME_KEY: env.now.isoformat()})]
        update["notice"] = "empty input: no model call"
        update["turn_time"] = ""
        return update
    stamped = HumanMessage(
        content=last.content, id=last.id, additional_kwargs={**last.additional_kwargs, TIME_KEY: env.now.isoformat()}
    )
    update["messages"] = [stamped]
    update["last_turn_at"] = env.now.isoformat()
    n = len(str(last.content))
    if n > env.settings.max_input_chars:
        update["notice"] = f"input of {n} characters clipped to {env.settings.max_input_chars} in prompts"
    env.note("intake", action="turn", chars=n, turn_time=env.now.isoformat())
    return update


def after_intake(state: State) -> str:
    if state.get("end_session"):
        return "extract_key_events"
    last = (state.get("messages") or [None])[-1]
    return "controller" if isinstance(last, HumanMessage) else "__end__"
