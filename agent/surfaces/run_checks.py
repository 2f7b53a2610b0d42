"""What a client may send a LangGraph server in a run, checked before the server stores the run.

Both LangGraph configurations check every run (and cron) the same way, with these functions: the
authenticated deployment (``deploy/langgraph.json``) in its auth handlers (``caim.agent.surfaces.auth``), the
local ``langgraph dev`` (``langgraph.json``) in the middleware of its HTTP app
(``caim.agent.surfaces.langgraph_app``). Without them the server would silently drop a context key the
graph's ``Context`` does not have and turn a value out of range into "An internal error occurred".

- the run context (or, when a client sends none, ``config.configurable``) may carry only what
  ``caim.graph.state.Context`` lets a client choose, a registered policy and budgets in range: 400;
- the input holds at most ``MAX_INPUT_MESSAGES`` messages, none over ``CAIM_MAX_MESSAGE_CHARS``: 413;
- its ``turn_time`` is an ISO time within 1900-2199: 422.

Each refusal is a ``RunRefused``: its HTTP status and one line naming the field.
"""

from __future__ import annotations

from typing import Any

from caim.core.errors import InputError
from caim.graph.policies import POLICIES
from caim.graph.state import TIME_CHARS, Context, context_refused, message_limit
from caim.memory.stm import check_length, parse_time

#: Most messages one run's input may carry.
MAX_INPUT_MESSAGES = 200


class RunRefused(InputError):
    """A run a client may not send: ``status`` (400, 413 or 422) and one line saying why."""

    def __init__(self, status: int, line: str) -> None:
        super().__init__(line)
        self.status = status


def check_run_context(context: Any) -> None:
    """Refuse (400) a run context a client may not send: a key ``Context`` does not have (the
    deployment's settings among them), a value out of range, or an unregistered policy.

    Raises:
        RunRefused: Status 400 and the line naming the key or field.
    """
    if not context:
        return
    try:
        if not isinstance(context, dict):
            raise context_refused("the run context must be a JSON object")
        ctx = Context(**context)
        if ctx.policy is not None and ctx.policy not in POLICIES:
            raise context_refused(
                f"context policy {ctx.policy[:64]!r} is no memory policy; choose one of: {', '.join(sorted(POLICIES))}"
            )
    except InputError as exc:
        raise RunRefused(400, str(exc)) from None


def _text(message: Any) -> str:
    """The text of a message as a client sends it (a dict, a [role, text] pair or a string)."""
    if isinstance(message, dict):
        content = message.get("content", "")
    elif isinstance(message, list | tuple) and len(message) == 2:
        content = message[1]
    else:
        content = message
    if isinstance(content, list):  # content blocks
        return "".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return str(content)


def check_run_input(payload: Any) -> None:
    """Refuse a run's input: more than ``MAX_INPUT_MESSAGES`` messages or a message over
    ``CAIM_MAX_MESSAGE_CHARS`` (413), a turn time that is no ISO time within 1900-2199 (422).

    Raises:
        RunRefused: The status and one line.
    """
    if not isinstance(payload, dict):
        return
    messages = payload.get("messages") or []
    messages = messages if isinstance(messages, list) else [messages]
    try:
        if len(messages) > MAX_INPUT_MESSAGES:
            raise InputError(f"{len(messages)} messages in one run; at most {MAX_INPUT_MESSAGES} are accepted")
        for m in messages:
            check_length(_text(m), message_limit())
    except InputError as exc:
        raise RunRefused(413, str(exc)) from None
    try:
        if payload.get("turn_time"):
            parse_time(str(payload["turn_time"])[:TIME_CHARS])
    except InputError as exc:
        raise RunRefused(422, str(exc)) from None


def check_run(body: Any) -> None:
    """Check what a request that creates or changes runs, crons or assistants carries: its
    ``context`` (else its ``config.configurable``, which the server turns into the context) and its
    ``input``; a list (a batch of runs) item by item. Anything else is the server's to judge.

    Raises:
        RunRefused: The first refusal.
    """
    for item in body if isinstance(body, list) else [body]:
        if not isinstance(item, dict):
            continue
        config = item.get("config")
        configurable = config.get("configurable") if isinstance(config, dict) else None
        check_run_context(item.get("context") or configurable)
        check_run_input(item.get("input"))
