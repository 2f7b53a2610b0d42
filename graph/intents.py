"""Post-thinking's intent units (goal-aware recall): each task the user worked on in the session -
a user turn a catalogue intent recognises, and the turns after it - becomes a memory holding its
intent unit (``caim.memory.records.IntentUnit``: the slots' values as the user said them, the turn
each came from, the outcome), so a later request of the same intent is filled from it.

A task is a user turn an intent's cues recognise, else one closest in meaning to an intent's
description (``INTENT_SIMILARITY``, as a request at recall; not a turn referring to the past).
Values and outcome are read by code (``caim.memory.intents.unit_of``); a unit with no slot value, or
whose sentence names what its turns do not hold (``unsupported``), is not stored.

A task of no catalogue intent - a request whose exchange reached an outcome (booked, ordered,
cancelled, chosen) that no intent names (``caim.memory.intents.unfamiliar_requests``) - is described
by the model in a short phrase (``caim.prompts.intents``, one call for the session's such turns,
under the ``key_events`` role), validated by code (``describe``) and embedded; a description as close
in meaning to an earlier one of the user's as ``INTENT_SIMILARITY`` takes that one's words, so a
kind of task keeps one description. Its unit (``OTHER``) holds the description and its vector, which
a later request is matched against. When the model fails, no such unit is stored (nothing else
changes).

A user turn outside any key event of the session that gives a catalogue slot a value
(``caim.memory.intents.fills_slots``: "there are 8 of us now", "give me techno any day") is kept
too, verbatim as a raw record tagged with those intents' terms (the same id capture would give it,
refined later like capture's), so the facts a later task needs are not lost when extraction and
capture pass over them. Ids come from (user, session, turn), so a re-run stores nothing twice;
records outside the privacy bounds are not stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import State
from caim.graph.steps import IntentsStep
from caim.memory.capture import raw_record
from caim.memory.intents import (
    INTENT_SIMILARITY,
    OTHER,
    Catalogue,
    Intent,
    closest_task,
    describe,
    fills_slots,
    other_unit,
    tasks,
    unfamiliar_requests,
    unit_of,
    unit_text,
)
from caim.memory.records import HistoryEntry, IntentUnit, MemoryRecord, SourceTurn, stable_id
from caim.memory.stm import Exchange, said_before, turns
from caim.memory.text import asks_about_past, memory_signals, unsupported
from caim.ontology.tagger import tags_of
from caim.prompts import intents as intents_prompt
from caim.services.bounds import within_bounds


def write_intents(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Store an intent unit per task of the session, under the user's lock.

    Returns:
        No state update (the trace notes the units stored).
    """
    if not policy.uses_memory:
        return {}
    session = state.get("session_id", "")
    all_turns = turns(state.get("messages", []))
    exchanges = [t for t in all_turns if t.by_user]  # the user's tasks, not a participant's
    stored = [r["id"] for r in state.get("stored", [])]
    found = tasks(exchanges, env.svc.intents, _by_meaning(env, exchanges, stored))
    records = [
        _record(env, session, intent, window, unit)
        for intent, window in found
        if (unit := unit_of(intent, window)).slots
    ]
    in_tasks = [t.number for _, window in found for t in window]  # the turns of the catalogue's tasks
    records += _unknown_tasks(env, session, exchanges, unfamiliar_requests(exchanges, env.svc.intents, in_tasks))
    events = [e for e in state.get("key_events", []) if e.get("origin") != "refine"]  # refine: earlier sessions
    # an event of the assistant's words (a captured reply) holds none of the user's turn
    covered = {e["turn"] for e in events if "speaker" not in e} | {r.turn for r in records}
    before = dict(zip([t.number for t in all_turns], said_before(all_turns), strict=True))
    records += _slot_facts(env, session, [t for t in exchanges if t.number not in covered], env.svc.intents, before)
    records = [r for r in records if not unsupported(r.thought, r.source_text())]  # the source holds every value
    ontology = env.ontology
    store = env.svc.store
    if records:
        with store.user_lock(env.user_id):
            denied = store.denied(env.user_id)
            records = [
                r
                for r in records
                if all(t in ontology for t in r.tags[:1]) and within_bounds(ontology, r.tags, env.settings, denied)
            ]
            store.add(records)
    if records:  # a session with no task leaves no step in the trace
        env.note(IntentsStep(units=[r.intent.name for r in records if r.intent is not None]))
    return {}


def _by_meaning(env: Env, exchanges: list[Exchange], stored: Sequence[str] = ()) -> list[str]:
    """Per user turn, the intent closest in meaning to it ("" for none, for a turn referring to the
    past, and for one the catalogue's cues recognise: ``tasks`` takes the cues' intent there). A turn
    the session stored as a verbatim record (among ``stored``, by id) is read by that record's vector
    (its words with the reply and the turn it answered), the others embedded in one batch."""
    catalogue = env.svc.intents
    asks = [
        not (catalogue.recognise(t.user) or memory_signals(t.user).past_reference or asks_about_past(t.user))
        for t in exchanges
    ]
    held = _verbatim_vectors(env, stored)
    texts = [t.user for t, a in zip(exchanges, asks, strict=True) if a and t.user not in held]
    if texts:
        held.update(zip(texts, env.svc.embedder.vectors_of(texts), strict=True))
    embed = env.svc.embedder.embed
    return [catalogue.by_meaning(held[t.user], embed) if a else "" for t, a in zip(exchanges, asks, strict=True)]


def _verbatim_vectors(env: Env, ids: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors the store holds for the user's verbatim records among ``ids``, by their words."""
    store = env.svc.store
    mine = [r for r in store.get_many(env.user_id, ids) if r.kind == "raw" and r.by_user]
    return dict(zip([r.thought for r in mine], store.held_vectors(mine), strict=True)) if mine else {}


def _unknown_tasks(env: Env, session: str, exchanges: list[Exchange], asked: list[Exchange]) -> list[MemoryRecord]:
    """The units of the tasks of no catalogue intent, described by the model; none when it fails."""
    if not asked:
        return []
    numbers = [t.number for t in asked]
    answer = env.structured(
        "key_events",
        intents_prompt.schema(numbers),
        intents_prompt.messages([(t.number, t.user, t.assistant) for t in asked]),
    )
    if answer is None:
        return []
    described = {a.turn: d for a in answer.tasks if (d := describe(a.description))}
    if not described:
        return []
    earlier = env.svc.learned.of(env.user_id)
    vectors = np.asarray(env.svc.embedder.embed(list(described.values())), dtype=np.float32)
    out = []
    for (turn, description), vector in zip(described.items(), vectors, strict=True):
        same, sim = closest_task(vector, earlier)
        if same is not None and same.intent is not None and sim >= INTENT_SIMILARITY:
            description, vector = same.intent.description, np.asarray(same.intent.vector, dtype=np.float32)
        i = next(i for i, t in enumerate(exchanges) if t.number == turn)
        window = exchanges[i : i + 2]
        out.append(_record(env, session, None, window, other_unit(description, vector, window)))
    return out


def _slot_facts(
    env: Env, session: str, exchanges: list[Exchange], catalogue: Catalogue, before: dict[int, str]
) -> list[MemoryRecord]:
    """Raw records of the user turns that give a catalogue slot a value, tagged as the reader tags
    any message (``tags_of`` its chosen categories; none when it is unsure): what a task later needs
    is found by search, and a fact is not about the tasks it could serve ("There are 8 of us now"
    tells of work, not of restaurants). Each turn is read after its turn ``before`` (by number), as
    post-thinking read it when it chose what to keep: the reader does not read it again, and a
    message's categories and terms are read from the message alone either way."""
    facts = [t for t in exchanges if fills_slots(t.user, catalogue)]
    if not facts:
        return []
    reader = env.svc.reader
    read = reader.read([t.user for t in facts], [before.get(t.number, "") for t in facts])
    return [
        raw_record(
            user_id=env.user_id,
            session_id=session,
            turn=t.number,
            text=t.user,
            when=t.time or env.now,
            tags=tags_of(env.ontology, reader.model.chosen(r), r.found),
            reply=t.assistant,
        )
        for t, r in zip(facts, read, strict=True)
    ]


def _record(env: Env, session: str, intent: Intent | None, window: list[Exchange], unit: IntentUnit) -> MemoryRecord:
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
        tags=[intent.tag if intent is not None else "plans"],
        event_time=when,
        valid_from=when,
        session_id=session,
        turn=first.number,
        sources=sources,
        history=[HistoryEntry(change="created", session_id=session, note=f"task: {intent.name if intent else OTHER}")],
        intent=unit,
    )
