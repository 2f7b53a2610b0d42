"""Memory controller node (CAIM step 1): does this turn need memory, which, and what to look for?

Runs beside the ``search`` node (both start right after intake). It computes the code signals - a
reference to the shared past, a time expression, a question about the user's own facts, whether this
is the session's first message - and the
shortlist of ontology tags nearest to the message, then asks the policy for its plan (``caim``: one
structured call; ``caim-cascade``: the paper's separate decisions; ``single-call``: none). The
``retrieve`` node combines plan and signals into the route.
"""

from __future__ import annotations

from typing import Any

from caim.graph.common import current_input
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import State
from caim.graph.steps import ControllerStep, message_signals
from caim.memory.text import memory_signals


def controller(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Compute the current message's code signals and tag shortlist, and ask the policy for its plan.

    Returns:
        The state update: ``plan`` (None leaves the route to the code signals), ``shortlist``, ``signals``.
    """
    text = current_input(state, env)
    # a first message has no "this conversation" to draw on: the past it asks about is long-term memory
    signals = message_signals(memory_signals(text), first_turn=len(state["messages"]) <= 1)
    shortlist: list[str] = []
    if policy.uses_memory:
        ontology = env.ontology
        vec = env.svc.embedder.embed_query(text)
        shortlist = [t for t, _ in env.svc.tagger.nearest(ontology, vec, env.settings.shortlist_tags)[0]]
    plan = policy.plan(state, env, shortlist)
    env.note(ControllerStep(signals=signals, shortlist=shortlist, plan=plan))
    return {"plan": plan, "shortlist": shortlist, "signals": signals}
