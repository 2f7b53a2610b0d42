"""Response node (CAIM step 3): system prompt + kept memories (quoted, dated) + STM per the route.

Route ``none``: the message alone. ``stm``: the session so far (full or summary + recent turns).
``ltm``: kept memories (oldest first, dated) and the message. ``ltm+stm``: both. For a memory
question where nothing relevant was found, the prompt tells the model to say it does not remember.
The answer is streamed to callers as it is produced (custom stream events, see
``caim.graph.state.ANSWER``).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from caim.graph.common import current_input
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import State
from caim.memory.stm import TIME_KEY, clip
from caim.prompts import respond as prompt


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


def respond(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    route = state.get("route", "none")
    summary, history = _stm(state, env) if "stm" in route else ("", [])
    memories = sorted(state.get("memories", []) if "ltm" in route else [], key=lambda m: m["event_time"])
    today = env.now.strftime("%A, %B %d, %Y")
    reply = env.answer(
        prompt.messages(current_input(state, env), today, history, memories, summary, memory_question="ltm" in route)
    )
    env.note(route=route, memories=len(memories), history_messages=len(history))
    return {"messages": [AIMessage(reply, additional_kwargs={TIME_KEY: env.now.isoformat()})], "turn_time": ""}
