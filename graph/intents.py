"""Post-thinking's intent units (goal-aware recall): each task the user worked on in the session -
a user turn a catalogue intent recognises, and the turns after it - becomes a memory holding its
intent unit (``caim.memory.records.IntentUnit``: the slots' values as the user said them, the turn
each came from, the outcome), so a later request of the same intent is filled from it.

Values and outcome are read by code (``caim.memory.intents.unit_of``); a unit with no slot value, or
whose sentence names what its turns do not hold (``unsupported``), is not stored. Ids come from
(user, session, turn), so a re-run stores nothing twice; units outside the privacy bounds are not
stored.
"""

from __future__ import annotations

from typing import Any

from caim.graph.common import within_bounds
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import State
from caim.graph.steps import IntentsStep
from caim.memory.intents import Intent, tasks, unit_of, unit_text
from caim.memory.records import HistoryEntry, IntentUnit, MemoryRecord, SourceTurn, stable_id
from caim.memory.stm import Exchange, turns
from caim.memory.text import unsupported


def write_intents(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Store an intent unit per task of the session, under the user's lock.

    Returns:
        No state update (the trace notes the units stored).
    """
    if not policy.uses_memory:
        return {}
    session = state.get("session_id", "")
    found = tasks(turns(state.get("messages", [])), env.svc.intents)
    records = [
        _record(env, session, intent, window, unit)
        for intent, window in found
        if (unit := unit_of(intent, window)).slots
    ]
    records = [r for r in records if not unsupported(r.thought, r.source_text())]  # the source holds every value
    ontology = env.svc.ontology.current
    store = env.svc.store
    if records:
        with store.user_lock(env.user_id):
            denied = store.denied(env.user_id)
            records = [
                r for r in records if r.tags[0] in ontology and within_bounds(ontology, r.tags, env.settings, denied)
            ]
            store.add(records)
    if records:  # a session with no task leaves no step in the trace
        env.note(IntentsStep(units=[r.intent.name for r in records if r.intent is not None]))
    return {}


def _record(env: Env, session: str, intent: Intent, window: list[Exchange], unit: IntentUnit) -> MemoryRecord:
    first = window[0]
    when = first.time or env.now
    sources = []
    for t in window:
        sources.append(SourceTurn(role="user", text=t.user, time=t.time, turn=t.number))
        if t.assistant:
            sources.append(SourceTurn(role="assistant", text=t.assistant, time=t.time, turn=t.number))
    return MemoryRecord(
        id=stable_id(env.user_id, session, "intent", first.number),
        user_id=env.user_id,
        thought=unit_text(intent, unit),
        tags=[intent.tag],
        event_time=when,
        valid_from=when,
        session_id=session,
        turn=first.number,
        sources=sources,
        history=[HistoryEntry(change="created", session_id=session, note=f"task: {intent.name}")],
        intent=unit,
    )
