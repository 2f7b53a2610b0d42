"""Intake node: reads what the run is for, stamps the turn time, starts a session when needed.

Runs first on every graph run and records the run's ``action``:

- ``turn``: a user message - stamped with the turn time, clipped in prompts when longer than
  ``max_input_chars`` (kept whole in the checkpoint, with a notice);
- ``empty``: an empty or whitespace message, answered here without any model call;
- ``end_session``: post-thinking follows, then ``close_session``;
- ``refused``: the input cannot be used (a message over ``CAIM_MAX_MESSAGE_CHARS``, which the state's
  reducer already replaced by a stand-in, or a turn time that is no ISO time within 1900-2199): the
  run's message is removed and the ``refuse`` node raises an ``InputError`` saying why.

The input flags are cleared here, so a later run never sees a stale command.
"""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage

from caim.core.errors import InputError
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import REFUSED, RESET, State, session_reset
from caim.graph.steps import Action, ClosedStep, IntakeStep
from caim.memory.stm import TIME_KEY, parse_time
from caim.memory.text import storable

EMPTY_REPLY = "I didn't get a message - please type something and I'll answer."

_PER_RUN: dict[str, Any] = {
    "route": "none",
    "decisions": {},
    "plan": None,
    "found": [],
    "shortlist": [],
    "signals": {},
    "changes": [],
    "denied": 0,
    "complete": True,
    "tags": [],
    "time_ranges": [],
    "candidates": [],
    "memories": [],
    "used": [],
    "answered": None,
    "notice": "",
    "key_events": [],
    "stored": [],
    "merged": [],
    "ontology_added": [],
    "memory_prompt": "",
    "intent": "",
    "known": {},
    "missing": [],
    "end_session": False,
    "explicit": False,
}


def _last(state: State) -> AnyMessage | None:
    """The session's latest message (``None``: no message yet)."""
    messages = state.get("messages")
    return messages[-1] if messages else None


def _action(state: State) -> Action:
    if state.get("end_session"):
        return "end_session"
    last = _last(state)
    return "turn" if isinstance(last, HumanMessage) and str(last.content).strip() else "empty"


def refusal(state: State) -> str | None:
    """Why this run's input cannot be used, or ``None``."""
    last = _last(state)
    if isinstance(last, HumanMessage) and last.additional_kwargs.get(REFUSED):
        return str(last.additional_kwargs[REFUSED])
    try:
        parse_time(state.get("turn_time") or None)
    except InputError as exc:
        return str(exc)
    return None


def _refuse(state: State, env: Env, why: str, update: dict[str, Any]) -> dict[str, Any]:
    """Take the run's unanswered message out of the session and leave the reason for ``refuse``."""
    last = _last(state)
    if isinstance(last, HumanMessage) and last.id:
        update["messages"] = [RemoveMessage(id=last.id)]
    env.note(IntakeStep(action="refused", why=why))
    return {**update, "action": "refused", "notice": why, "turn_time": ""}


def intake(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Start a run: refuse unusable input, pick the action, open the session if needed, stamp the message.

    Returns:
        The state update: ``action``, the time-stamped message (or the reply to empty input) and a notice
        when the input is clipped in prompts.
    """
    update: dict[str, Any] = {"trace": [RESET], **_PER_RUN}
    if (why := refusal(state)) is not None:
        return _refuse(state, env, why, update)
    action = _action(state)
    update["action"] = action
    if not state.get("session_id"):
        update["session_id"] = uuid.uuid4().hex[:12]
        update["session_started"] = env.now.isoformat()
    messages = state.get("messages", [])
    if action == "end_session":
        env.note(IntakeStep(action=action, messages=len(messages)))
        return update
    if action == "empty":
        env.note(IntakeStep(action=action))
        env.emit(EMPTY_REPLY)
        update["messages"] = [AIMessage(EMPTY_REPLY, additional_kwargs={TIME_KEY: env.now.isoformat()})]
        update["notice"] = "empty input: no model call"
        update["turn_time"] = ""
        return update
    last = messages[-1]
    stamped = HumanMessage(
        content=storable(str(last.content)),
        id=last.id,
        additional_kwargs={**last.additional_kwargs, TIME_KEY: env.now.isoformat()},
    )
    update["messages"] = [stamped]
    update["last_turn_at"] = env.now.isoformat()
    n = len(str(last.content))
    if n > env.settings.max_input_chars:
        update["notice"] = f"input of {n} characters clipped to {env.settings.max_input_chars} in prompts"
    env.note(IntakeStep(action=action, chars=n, turn_time=env.now.isoformat()))
    return update


def close_session(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """After post-thinking: the chat session is closed (messages, session id and summary cleared)."""
    env.note(ClosedStep(closed=state.get("session_id", "")))
    return {"turn_time": "", **session_reset()}


def refuse(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """End a refused run with an ``InputError`` (its message is already out of the session)."""
    raise InputError(state.get("notice") or "input refused")


def after_intake(state: State) -> str | list[str]:
    """The node after intake for the run's action: refuse, recall, post-thinking, or the end."""
    action = state.get("action")
    if action == "refused":
        return "refuse"
    if action == "turn":
        return "recall"
    if action == "end_session":
        return "post_thinking"
    return "__end__"
