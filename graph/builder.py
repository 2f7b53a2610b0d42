r"""The CAIM state graph: one user turn is one run; ``end_session`` runs post-thinking.

    START -> intake -+-> controller -+-> retrieve -> filter_relevant -> respond -> END
                     +-> search -----+          \-> respond -> END     (no LTM, or nothing found)
                  -> extract_key_events -> write_thoughts -> maintain -> END   (end_session)
                  -> END   (empty input, record, discard_session)
                  -> refuse   (an over-long message or a bad turn time: removed, then an InputError)

The controller (the policy's plan: one model round trip for ``caim``) and the ranked search run in
parallel; when code signals point to memory, ``search`` also runs the relevance filter on its
candidates (and may draft the answer), so the plan and the filter make one round trip before the
answer; ``retrieve`` joins them. ``respond`` uses the drafted answer when the decisions confirm it.

Every node is a plain function ``(state, env, policy) -> update``; ``as_node`` adapts it to
LangGraph's ``(state, runtime)``. ``graph`` (module level, no custom checkpointer) is what
``langgraph.json`` points at; ``build_graph`` is the factory for programmatic use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from caim.graph.controller import controller
from caim.graph.env import Env
from caim.graph.intake import after_intake, intake, refuse
from caim.graph.policies import POLICIES, get_policy
from caim.graph.policies.base import MemoryPolicy
from caim.graph.post_thinking import extract_key_events, maintain, write_thoughts
from caim.graph.respond import respond
from caim.graph.retrieval import after_retrieve, filter_relevant, retrieve, search
from caim.graph.services import Services, services_for
from caim.graph.state import Context, InputState, OutputState, State, context_refused
from caim.memory.stm import clock

Step = Callable[[State, Env, MemoryPolicy], dict[str, Any]]

STEPS: tuple[Step, ...] = (
    intake,
    refuse,
    controller,
    search,
    retrieve,
    filter_relevant,
    respond,
    extract_key_events,
    write_thoughts,
    maintain,
)


def authenticated_user(config: RunnableConfig) -> str | None:
    """The user a LangGraph server authenticated for this run (custom auth), if any."""
    conf = config.get("configurable") or {}
    if conf.get("langgraph_auth_user") is None:
        return None
    user = conf.get("langgraph_auth_user_id")
    return str(user) if user else None


def as_node(step: Step, services: Services | None) -> Callable[..., dict[str, Any]]:
    """Wrap a step ``(state, env, policy) -> update`` as a LangGraph node of ``(state, config, runtime)``.
    Behind a server with authentication the user id is the authenticated one, whatever the context says.
    The context's policy must be a registered one (else a one-line ``InputError`` before the step);
    without one the deployment's ``CAIM_POLICY`` applies."""

    def node(state: State, config: RunnableConfig, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        if (user := authenticated_user(config)) is not None and user != ctx.user_id:
            ctx = replace(ctx, user_id=user)
        svc = services or services_for()
        if ctx.policy is not None and ctx.policy not in POLICIES:
            raise context_refused(
                f"context policy {ctx.policy[:64]!r} is no memory policy; choose one of: {', '.join(sorted(POLICIES))}"
            )
        policy = get_policy(ctx.policy or svc.settings.policy)
        env = Env(
            svc,
            svc.tuned(ctx),
            ctx,
            clock(state.get("turn_time") or None),
            step.__name__,
            writer=runtime.stream_writer,
        )
        update = step(state, env, policy)
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
    g.add_conditional_edges("intake", after_intake, ["controller", "search", "extract_key_events", "refuse", END])
    g.add_edge(["controller", "search"], "retrieve")
    g.add_conditional_edges("retrieve", after_retrieve, ["filter_relevant", "respond"])
    g.add_edge("filter_relevant", "respond")
    g.add_edge("respond", END)
    g.add_edge("extract_key_events", "write_thoughts")
    g.add_edge("write_thoughts", "maintain")
    g.add_edge("maintain", END)
    return g.compile(checkpointer=checkpointer, store=store, name=name)


graph = build_graph()
