"""Response node (CAIM step 3): the answer to the turn, with the memories it used.

Route ``none``: the message alone. ``stm``: the session so far (full or summary + recent turns).
``ltm``: kept memories (oldest first, dated) and the message. ``ltm+stm``: both. For a memory
question where nothing relevant was found, the prompt tells the model to say it does not remember.
``caim.graph.reply.produce`` gives the answer - composed from the kept memories by code when the
answer model does not beat code at it, else the model's with the answer check beside it - streamed
to callers as it is produced (custom stream events, see ``caim.graph.state.ANSWER``). An answer
drafted earlier in the run (``search``) is used when its prompt is exactly this one, and dropped
otherwise; an answer started before the plan (``answered``, where the code signals left no doubt)
is the reply as it was streamed.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from caim.graph.common import shown_memories
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.reply import Produced, produce, used_entries
from caim.graph.state import USED, State
from caim.memory.stm import TIME_KEY


def respond(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Answer the message with the route's memories and history (streamed), or keep the answer that
    started early.

    Returns:
        The state update: the reply as a time-stamped message carrying the memories it used, and ``used``.
    """
    early = state.get("answered")
    if early:
        done = Produced(early["text"], early["used"])
    else:
        route = state.get("route", "none")
        draft = state.get("draft")
        done = produce(state, env, route, shown_memories(state, route), draft["id"] if draft else None)
    kwargs: dict[str, Any] = {TIME_KEY: env.now.isoformat()}
    if done.used:
        kwargs[USED] = used_entries(done.used)
    return {
        "messages": [AIMessage(done.text, additional_kwargs=kwargs)],
        "used": done.used,
        "turn_time": "",
        "draft": None,
        "answered": None,
    }
