"""Post-thinking nodes (CAIM step 4), run when a session ends.

1. ``extract_key_events``: the policy lists the session's key events, each dated by its turn.
2. ``write_thoughts``: the ontology is extended if the events are not covered (validated,
   persisted); then per event an LLM writes an inductive thought and picks up to three ontology
   tags; records are stored with their verbatim source turns.
3. ``review_merge``: the policy merges new records with stored ones that mean the same.
If extraction failed for any chunk the messages stay in the checkpoint so post-thinking can be
re-run (``complete`` is False); otherwise the session is closed and the next turn starts a new one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from caim.graph.common import keyword_tags
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import KeyEvent, State, session_reset
from caim.memory.records import MemoryRecord, SourceTurn, as_aware
from caim.memory.stm import Turn, clip, turns
from caim.ontology import Proposal
from caim.prompts import ontology_extend as onto_prompt
from caim.prompts import thoughts as thoughts_prompt


def extract_key_events(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    events, ok = policy.key_events(state, env)
    env.note(events=len(events), ok=ok)
    return {"key_events": events, "complete": ok}


def extend_ontology(events: list[KeyEvent], env: Env) -> list[str]:
    ontology = env.svc.ontology.current
    answer = env.structured(
        "ontology",
        onto_prompt.schema(ontology.parents()),
        onto_prompt.messages([e["event"] for e in events][:12], ontology.outline()),
    )
    if answer is None or answer.covered == "yes" or not answer.new_terms:
        return []
    accepted, rejected = env.svc.ontology.extend([Proposal(p.parent, p.term) for p in answer.new_terms])
    env.note(ontology_added=[p.term for p in accepted], ontology_rejected=rejected)
    return [f"{p.parent}/{p.term}" for p in accepted]


def _sources(t: Turn) -> list[SourceTurn]:
    out = [SourceTurn(role="user", text=t.user, time=t.time, turn_id=t.user_id)]
    if t.assistant:
        out.append(SourceTurn(role="assistant", text=t.assistant, time=t.time))
    return out


def write_thoughts(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    events = state.get("key_events", [])
    if not events:
        return {"stored": [], "ontology_added": []}
    added = extend_ontology(events, env) if policy.extend_ontology else []
    ontology = env.svc.ontology.current
    schema = thoughts_prompt.schema(ontology.tags)
    by_number = {t.number: t for t in turns(state.get("messages", []))}
    records = []
    for e in events:
        when = datetime.fromisoformat(e["time"])
        answer = env.structured(
            "thoughts", schema, thoughts_prompt.messages(e["event"], when.date().isoformat(), ontology.outline())
        )
        thought = answer.thought.strip() if answer and answer.thought.strip() else e["event"]
        tags = list(dict.fromkeys(answer.tags))[:3] if answer else (keyword_tags(e["event"], env) or ["personal"])
        records.append(
            MemoryRecord(
                user_id=env.user_id,
                thought=clip(thought, 500),
                tags=tags,
                event_time=as_aware(when),
                session_id=state.get("session_id", ""),
                sources=_sources(by_number[e["turn"]]) if e["turn"] in by_number else [],
            )
        )
    env.svc.store.add(records)
    env.note(stored_ids=[r.id for r in records])
    return {"stored": [r.brief() for r in records], "ontology_added": added}


def review_merge(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    merged = policy.review(state, env)
    env.note(merged=merged)
    update: dict[str, Any] = {"merged": merged, "turn_time": ""}
    if state.get("complete"):  # extraction succeeded: the session is done
        update.update(session_reset())
    return update
