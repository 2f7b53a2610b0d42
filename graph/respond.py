"""Response node (CAIM step 3): system prompt + kept memories (quoted, dated) + STM per the route.

Route ``none``: the message alone. ``stm``: the session so far (full or summary + recent turns).
``ltm``: kept memories (oldest first, dated) and the message. ``ltm+stm``: both. For a memory
question where nothing relevant was found, the prompt tells the model to say it does not remember.
The answer is streamed to callers as it is produced (custom stream events, see
``caim.graph.state.ANSWER``). An answer drafted earlier in the run (``search``) is used when its
prompt is exactly this one, and dropped otherwise.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from caim.graph.common import answer_messages, shown_memories
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import State
from caim.memory.stm import TIME_KEY


def respond(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    route = state.get("route", "none")
    memories = shown_memories(state, route)
    messages = answer_messages(state, env, route, memories)
    draft = state.get("draft")
    reply = env.answer(messages, draft=draft["id"] if draft else None)
    env.note(route=route, memories=len(memories), history_messages=len(messages) - 2)
    return {
        "messages": [AIMessage(reply, additional_kwargs={TIME_KEY: env.now.isoformat()})],
        "turn_time": "",
        "draft": None,
    }
