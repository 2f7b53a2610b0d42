r"""The CAIM graphs: a chat graph of two subgraphs, each usable on its own or in another graph.

    chat:   START -> intake -> recall -> respond -> END                   (a user turn)
                           -> post_thinking -> close_session -> END        (end_session)
                           -> END                                          (empty input)
                           -> refuse      (an over-long message or a bad turn time: removed, then an InputError)
    recall: START -+-> controller -+-> retrieve -> filter_relevant -> goal -> memory_prompt -> END
                   +-> search -----+          \-> goal -> memory_prompt -> END    (no LTM, or nothing found)
    post_thinking: START -> extract_key_events -> write_thoughts -> maintain -> write_intents -> update_profile -> END

The controller (the policy's plan: one model round trip for ``caim``) and the ranked search run in
parallel; when code signals point to memory, ``search`` also runs the relevance filter on its
candidates (and may draft the answer), so the plan and the filter make one round trip before the
answer; ``retrieve`` joins them. ``respond`` uses the drafted answer when the decisions confirm it.
``with_memory(agent)`` is the chat graph with a developer's own agent as the responder.

Every step is a plain function ``(state, env, policy) -> update``; ``as_node`` adapts it to
LangGraph's ``(state, config, runtime)``. ``graph`` (module level, no custom checkpointer) is what
``langgraph.json`` points at; the ``build_*`` functions are the factories for programmatic use.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from caim.core.blas import one_blas_thread
from caim.graph.controller import controller
from caim.graph.env import Env
from caim.graph.intake import after_intake, close_session, intake, refuse
from caim.graph.intents import write_intents
from caim.graph.policies import POLICIES, get_policy
from caim.graph.policies.base import MemoryPolicy
from caim.graph.post_thinking import extract_key_events, maintain, write_thoughts
from caim.graph.profile import update_profile
from caim.graph.respond import respond
from caim.graph.responder import responder_node
from caim.graph.retrieval import after_retrieve, filter_relevant, goal, memory_prompt, retrieve, search
from caim.graph.services import Services, services_for
from caim.graph.state import (
    Context,
    InputState,
    OutputState,
    PostThinkingInput,
    PostThinkingOutput,
    PostThinkingState,
    RecallInput,
    RecallOutput,
    RecallState,
    State,
    context_refused,
)
from caim.memory.stm import clock
from caim.memory.text import expecting

Step = Callable[[State, Env, MemoryPolicy], dict[str, Any]]

#: The recall subgraph's steps: controller and ranked search side by side, then route and
#: candidates, the relevance filter, a task request's slots (goal-aware recall), and the prompt
#: block of the kept memories.
RECALL_STEPS: tuple[Step, ...] = (controller, search, retrieve, filter_relevant, goal, memory_prompt)
#: The post-thinking subgraph's steps.
POST_THINKING_STEPS: tuple[Step, ...] = (extract_key_events, write_thoughts, maintain, write_intents, update_profile)
#: The chat graph's own steps around the two subgraphs.
CHAT_STEPS: tuple[Step, ...] = (intake, refuse, close_session)
STEPS: tuple[Step, ...] = (*CHAT_STEPS, *RECALL_STEPS, respond, *POST_THINKING_STEPS)


def check_policy(name: str) -> str:
    """``name`` if it names a registered memory policy (``caim.graph.policies``), else a one-line
    ``ConfigError`` naming the registered ones: what a caller of the graphs checks a policy by."""
    get_policy(name)
    return name


def authenticated_user(config: RunnableConfig) -> str | None:
    """The user a LangGraph server authenticated for this run (custom auth), if any."""
    conf = config.get("configurable") or {}
    if conf.get("langgraph_auth_user") is None:
        return None
    user = conf.get("langgraph_auth_user_id")
    return str(user) if user else None


def as_node(
    step: Step, services: Services | None, fixed: dict[str, Any] | None = None, *, one_blas: bool = False
) -> Callable[..., dict[str, Any]]:
    """Wrap a step ``(state, env, policy) -> update`` as a LangGraph node of ``(state, config, runtime)``.
    Behind a server with authentication the user id is the authenticated one, whatever the context says.
    The step reads texts whose words leave their language open in the language the user usually writes
    (``caim.memory.text.expecting``).
    The context's policy must be a registered one (else a one-line ``InputError`` before the step);
    without one the deployment's ``CAIM_POLICY`` applies. ``one_blas``: the step runs with numpy's BLAS
    at one thread (``caim.core.blas``: a step of small matrices, post-thinking's)."""

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
        settings = svc.tuned(ctx)
        env = Env(
            svc,
            settings.model_copy(update=fixed) if fixed else settings,
            ctx,
            clock(state.get("turn_time") or None),
            step.__name__,
            writer=runtime.stream_writer,
        )
        with (
            expecting(svc.retriever.usual_language(ctx.user_id)),  # read short texts in the user's language
            one_blas_thread() if one_blas else nullcontext(),
        ):
            update = step(state, env, policy)
        update["trace"] = update.get("trace", []) + env.trace
        return update

    node.__name__ = step.__name__
    node.__doc__ = step.__doc__
    return node


def build_recall_graph(
    services: Services | None = None, *, name: str = "recall", draft: bool = False, early: bool = False
) -> Any:
    """Compile the recall subgraph: ``RecallInput`` in (the conversation, its last message the user's
    turn), ``RecallOutput`` out (route, decisions and signals, kept memories, ``memory_prompt``).
    Usable as a node of any graph whose state has these keys, or invoked on its own (``Memory.recall``).
    ``draft``: start caim's own answer beside the decisions (``speculative_answer``) - only for the
    chat graph whose responder is caim's ``respond``; ``early``: with ``draft``, also answer before
    the plan where the code signals leave no doubt (``early_answer``) - only for a caller that
    streams the subgraph's answer events (``CaimAgent``)."""
    g = StateGraph(RecallState, context_schema=Context, input_schema=RecallInput, output_schema=RecallOutput)
    fixed: dict[str, Any] | None = None if draft else {"speculative_answer": False}
    if not (draft and early):
        fixed = {**(fixed or {}), "early_answer": False}
    for step in RECALL_STEPS:
        g.add_node(step.__name__, as_node(step, services, fixed))
    g.add_edge(START, "controller")
    g.add_edge(START, "search")  # beside the controller: the search needs no decision to begin
    g.add_edge(["controller", "search"], "retrieve")
    g.add_conditional_edges("retrieve", after_retrieve, ["filter_relevant", "goal"])
    g.add_edge("filter_relevant", "goal")
    g.add_edge("goal", "memory_prompt")
    g.add_edge("memory_prompt", END)
    return g.compile(name=name)


def build_post_thinking_graph(services: Services | None = None, *, name: str = "post_thinking") -> Any:
    """Compile the post-thinking subgraph: ``PostThinkingInput`` in (a session's dated messages and its
    id), ``PostThinkingOutput`` out (what was stored, merged, changed). Usable as a node of any graph,
    or invoked on its own (``Memory.remember``)."""
    g = StateGraph(
        PostThinkingState, context_schema=Context, input_schema=PostThinkingInput, output_schema=PostThinkingOutput
    )
    for step in POST_THINKING_STEPS:
        g.add_node(step.__name__, as_node(step, services, one_blas=True))
    g.add_edge(START, "extract_key_events")
    g.add_edge("extract_key_events", "write_thoughts")
    g.add_edge("write_thoughts", "maintain")
    g.add_edge("maintain", "write_intents")
    g.add_edge("write_intents", "update_profile")
    g.add_edge("update_profile", END)
    return g.compile(name=name)


def build_graph(
    services: Services | None = None,
    checkpointer: Any = None,
    store: Any = None,
    name: str = "caim",
    *,
    responder: Runnable | None = None,
    early: bool = False,
) -> Any:
    """Compile the chat graph: intake, then the recall subgraph and the responder (caim's ``respond``,
    or ``responder`` - see ``caim.graph.responder``), or at ``end_session`` the post-thinking subgraph
    and ``close_session``. Nodes are synchronous (Chroma and the model client block), so LangGraph
    runs them in worker threads under ``ainvoke``/``astream`` and ``langgraph dev``. ``early``: caim's
    answer may start in the recall subgraph before the plan (``early_answer``), its pieces then
    streamed from there - for a caller that streams subgraphs (``CaimAgent`` does; the module's
    ``graph`` does not start early)."""
    g = StateGraph(State, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    for step in CHAT_STEPS:
        g.add_node(step.__name__, as_node(step, services))
    g.add_node("recall", build_recall_graph(services, draft=responder is None, early=early))
    g.add_node("respond", as_node(respond, services) if responder is None else responder_node(responder, services))
    g.add_node("post_thinking", build_post_thinking_graph(services))
    g.add_edge(START, "intake")
    g.add_conditional_edges("intake", after_intake, ["recall", "post_thinking", "refuse", END])
    g.add_edge("recall", "respond")
    g.add_edge("respond", END)
    g.add_edge("post_thinking", "close_session")
    g.add_edge("close_session", END)
    return g.compile(checkpointer=checkpointer, store=store, name=name)


def with_memory(
    agent: Runnable,
    *,
    services: Services | None = None,
    checkpointer: Any = None,
    store: Any = None,
    name: str = "caim",
) -> Any:
    """caim's memory around your own agent: ``agent`` (a compiled graph with ``messages`` - e.g. a
    ``create_react_agent`` with tools - or any runnable taking messages) answers each turn after
    recall, with the kept memories as a system message; its messages stay in the thread; a run with
    ``{"end_session": True}`` post-thinks the session. Input, output and context are the chat graph's."""
    return build_graph(services, checkpointer, store, name, responder=agent)
