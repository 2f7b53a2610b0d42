"""A developer's own responder in caim's chat graph: any runnable answers the turn after recall.

``responder_node(agent)`` adapts a compiled LangGraph graph whose state has ``messages`` (e.g. a
``create_react_agent`` with tools) or any runnable that takes a list of messages (a chat model, a
chain) to the chat graph's ``respond`` node. It receives the kept memories as a system message
(``memory_prompt``: quoted, dated, with the data rule; none when the route uses no long-term memory)
followed by the session's messages; what it adds - tool calls, tool results, the final reply - is
kept in the thread, each message stamped with the turn's time, so post-thinking sees the session as
it happened. It runs with the node's config, so its model tokens and tool calls stream to callers
(``stream_mode="messages"``, ``subgraphs=True``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.pregel import Pregel

from caim.graph.services import Services, services_for
from caim.graph.state import State
from caim.memory.stm import TIME_KEY, clock


def _stamped(message: BaseMessage, when: str) -> BaseMessage:
    return message.model_copy(update={"additional_kwargs": {**message.additional_kwargs, TIME_KEY: when}})


def _answer(agent: Runnable, inputs: Sequence[BaseMessage], config: RunnableConfig) -> list[BaseMessage]:
    """What ``agent`` adds to ``inputs``: a graph's new messages, or a runnable's one reply."""
    if isinstance(agent, Pregel):
        out = agent.invoke({"messages": inputs}, config)
        return list(out["messages"][len(inputs) :])
    out = agent.invoke(inputs, config)
    return [out] if isinstance(out, BaseMessage) else [AIMessage(str(out))]


def responder_node(agent: Runnable, services: Services | None = None) -> Callable[..., dict[str, Any]]:
    """The ``respond`` node of a chat graph whose answer comes from ``agent`` (see the module docstring)."""

    def respond(state: State, config: RunnableConfig) -> dict[str, Any]:
        draft = state.get("draft")
        if draft:  # an answer drafted for caim's own responder is not needed
            pending = (services or services_for()).drafts.pop(draft["id"])
            if pending is not None:
                pending.cancel(trace=[], node="respond")
        prompt = state.get("memory_prompt", "")
        inputs = [*([SystemMessage(prompt)] if prompt else []), *state["messages"]]
        when = clock(state.get("turn_time") or None).isoformat()
        produced = [_stamped(m, when) for m in _answer(agent, inputs, config)]
        return {"messages": produced, "turn_time": "", "draft": None}

    return respond
