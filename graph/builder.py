"""The CAIM state graph: one user turn is one run; ``end_session`` runs post-thinking.

    START -> intake -> controller -> select_tags -> resolve_time -> fetch_candidates
                  |              \\                                   -> filter_relevant -> respond -> END
                  |               -> respond -> END   (route none / stm)
                  -> extract_key_events -> write_thoughts -> review_merge -> END   (end_session)
                  -> END   (empty input, record, discard_session)

Every node is a plain function ``(state, env, policy) -> update``; ``as_node`` adapts it to
LangGraph's ``(state, runtime)``. ``graph`` (module level, no custom checkpointer) is what
``langgraph.json`` points at; ``build_graph`` is the factory for programmatic use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from caim.graph.controller import after_controller, controller
from caim.graph.env import Env
from caim.graph.intake import after_intake, intake
from caim.graph.policies import get_policy
from caim.graph.policies.base import MemoryPolicy
from caim.graph.post_thinking import extract_key_events, review_merge, write_thoughts
from caim.graph.respond import respond
from caim.graph.retrieval import fetch_candidates, filter_relevant, resolve_time, select_tags
from caim.graph.services import Services, services_for
from caim.graph.state import Context, InputState, OutputState, State
from caim.memory.stm import parse_time

Step = Callable[[State, Env, MemoryPolicy], dict[str, Any]]

STEPS: tuple[Step, ...] = (
    intake,
    controller,
    select_tags,
    resolve_time,
    fetch_candidates,
    filter_relevant,
    respond,
    extract_key_events,
    write_thoughts,
    review_merge,
)


def as_node(step: Step, services: Services | None) -> Callable[[State, Runtime[Context]], dict[str, Any]]:
    """Wrap a step ``(state, env, policy) -> update`` as a LangGraph node of ``(state, runtime)``."""

    def node(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        svc = services or services_for(ctx)
        env = Env(
            svc,
            svc.tuned(ctx),
            ctx,
            parse_time(state.get("turn_time") or None),
            step.__name__,
            writer=runtime.stream_writer,
        )
        update = step(state, env, get_policy(ctx.policy))
        update["trace"] = update.get("trace", []) + env.trace
        return update

    node.__name__ = step.__name__
    node.__doc__ = step.__doc__
    return node


def build_graph(
    services: Services | None = None, checkpointer: Any = None, store: Any = None, name: str = "caim"
) -> Any:
    """Compile the CAIM graph. Nodes are synchronous (Chroma and the model client block), so
    LangGraph runs them in worker threads under ``ainvoke``/``astream`` and ``langgraph dev``."""
    g = StateGraph(State, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    for step in STEPS:
        g.add_node(step.__name__, as_node(step, services))
    g.add_edge(START, "intake")
    g.add_conditional_edges("intake", after_intake, ["controller", "extract_key_events", END])
    g.add_conditional_edges("controller", after_controller, ["select_tags", "respond"])
    g.add_edge("select_tags", "resolve_time")
    g.add_edge("resolve_time", "fetch_candidates")
    g.add_edge("fetch_candidates", "filter_relevant")
    g.add_edge("filter_relevant", "respond")
    g.add_edge("respond", END)
    g.add_edge("extract_key_events", "write_thoughts")
    g.add_edge("write_thoughts", "review_merge")
    g.add_edge("review_merge", END)
    return g.compile(checkpointer=checkpointer, store=store, name=name)


graph = build_graph()
