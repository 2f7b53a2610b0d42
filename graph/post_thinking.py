"""Post-thinking (CAIM step 4), run when a session ends.

1. ``extract_key_events``: the session's numbered turns go to an LLM (in chunks, so prompts stay
   bounded) that lists key events; each event takes the exact time of its turn.
2. ``write_thoughts``: the ontology is extended if the events are not covered (validated, persisted);
   then per event an LLM writes an inductive thought and picks up to three ontology tags; records
   are stored with their verbatim source turns.
3. ``review_merge``: stored records sharing a tag with the new ones are shown to an LLM that groups
   same-meaning records; code merges each group (``caim.memory.merge``). Groups whose members are
   not similar in meaning (MiniLM cosine) are refused, so a confused model cannot merge unrelated facts.
If extraction fails the messages stay in the checkpoint so post-thinking can be re-run; on success
the session's messages are cleared and the next turn starts a new session.
"""

from __future__ import annotations

from datetime import datetime

from langchain_core.messages import RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from caim.graph.env import Env
from caim.graph.retrieval import keyword_tags
from caim.graph.state import State
from caim.memory.merge import apply_merges
from caim.memory.records import MemoryRecord, SourceTurn, as_aware
from caim.memory.stm import Turn, clip, turns
from caim.ontology import Proposal
from caim.prompts import key_events as events_prompt
from caim.prompts import merge as merge_prompt
from caim.prompts import ontology_extend as onto_prompt
from caim.prompts import thoughts as thoughts_prompt

CHUNK_TURNS = 8
MERGE_WINDOW = 24


def _numbered(chunk: list[Turn], limit: int) -> str:
    # No timestamps in the text: each event's time comes from its turn number, in code.
    return "\n\n".join(f"Turn {t.number}\nUser: {clip(t.user, limit)}\nAssistant: {clip(t.assistant, limit)}" for t in chunk)


def caim_key_events(state: State, env: Env) -> tuple[list[dict], bool]:
    """(events, ok). Each event: turn number, text, time (ISO)."""
    all_turns = turns(state.get("messages", []))
    events: list[dict] = []
    ok_all = True
    for i in range(0, len(all_turns), CHUNK_TURNS):
        chunk = all_turns[i : i + CHUNK_TURNS]
        schema = events_prompt.schema([t.number for t in chunk])
        answer, ok = env.svc.llm.structured(
            "key_events", schema, events_prompt.messages(_numbered(chunk, 700)), None, env.trace, "extract_key_events"
        )
        ok_all &= ok
        if not ok:
            continue
        by_number = {t.number: t for t in chunk}
        seen: set[str] = set()
        for e in answer.events:
            text = e.event.strip()
            if not text or text.lower() in seen:  # small models repeat items
                continue
            seen.add(text.lower())
            t = by_number[e.turn]
            events.append({"turn": t.number, "event": clip(text, 500), "time": (t.time or env.now).isoformat()})
    return events, ok_all


def extract_key_events(state: State, env: Env) -> dict:
    events, ok = env.policy.key_events(state, env)
    env.note("extract_key_events", events=len(events), ok=ok)
    return {"key_events": events, "end_session": ok}


def extend_ontology(events: list[dict], env: Env) -> list[str]:
    ontology = env.svc.ontology.current
    schema = onto_prompt.schema(ontology.parents())
    answer, ok = env.svc.llm.structured(
        "ontology", schema, onto_prompt.messages([e["event"] for e in events][:12], ontology.outline()), None, env.trace, "write_thoughts"
    )
    if not ok or answer.covered == "yes" or not answer.new_terms:
        return []
    accepted, rejected = env.svc.ontology.extend([Proposal(p.parent, p.term) for p in answer.new_terms])
    env.note("write_thoughts", ontology_added=[p.term for p in accepted], ontology_rejected=rejected)
    return [f"{p.parent}/{p.term}" for p in accepted]


def _sources(t: Turn) -> list[SourceTurn]:
    out = [SourceTurn(role="user", text=t.user, time=t.time, turn_id=t.user_id)]
    if t.assistant:
        out.append(SourceTurn(role="assistant", text=t.assistant, time=t.time))
    return out


def write_thoughts(state: State, env: Env) -> dict:
    events = state.get("key_events", [])
    if not events:
        return {"stored": [], "ontology_added": []}
    added = extend_ontology(events, env) if env.policy.extend_ontology else []
    ontology = env.svc.ontology.current
    schema = thoughts_prompt.schema(ontology.tags)
    by_number = {t.number: t for t in turns(state.get("messages", []))}
    records = []
    for e in events:
        when = datetime.fromisoformat(e["time"])
        answer, ok = env.svc.llm.structured(
            "thoughts", schema, thoughts_prompt.messages(e["event"], when.date().isoformat(), ontology.outline()), None, env.trace, "write_thoughts"
        )
        thought = answer.thought.strip() if ok and answer.thought.strip() else e["event"]
        tags = list(dict.fromkeys(answer.tags))[:3] if ok else (keyword_tags(e["event"], env) or ["personal"])
        records.append(
            MemoryRecord(
                user_id=env.user_id, thought=clip(thought, 500), tags=tags, event_time=as_aware(when),
                session_id=state.get("session_id", ""), sources=_sources(by_number[e["turn"]]) if e["turn"] in by_number else [],
            )
        )
    env.svc.store.add(records)
    env.note("write_thoughts", stored_ids=[r.id for r in records])
    return {"stored": [r.brief() for r in records], "ontology_added": added}


def caim_review(state: State, env: Env) -> list[dict]:
    new_ids = [r["id"] for r in state.get("stored", [])]
    if not new_ids:
        return []
    tags = sorted({t for r in state["stored"] for t in r["tags"]})
    pool = env.svc.store.candidates(env.user_id, tags, limit=MERGE_WINDOW)
    pool_ids = {r.id for r in pool}
    for rid in new_ids:  # new records always take part, even past the window
        if rid not in pool_ids:
            rec = env.svc.store.get(env.user_id, rid)
            if rec:
                pool.append(rec)
    if len(pool) < 2:
        return []
    answer, ok = env.svc.llm.structured(
        "merge", merge_prompt.schema(len(pool)), merge_prompt.messages([r.brief() for r in pool]), None, env.trace, "review_merge"
    )
    if not ok:
        return []
    groups = []
    for g in answer.groups:
        members = [pool[n - 1] for n in dict.fromkeys(g) if 1 <= n <= len(pool)]
        if len(members) < 2 or not any(m.id in new_ids for m in members):
            continue
        vecs = env.svc.store.embedder.embed([m.thought for m in members])  # one batch per group
        sims = [sum(a * b for a, b in zip(vecs[0], v)) for v in vecs]
        similar = [m for m, sim in zip(members, sims) if sim >= env.settings.merge_min_similarity]
        if len(similar) >= 2:
            groups.append([m.id for m in similar])
    return apply_merges(env.svc.store, env.user_id, groups, {r.id: r for r in pool})


def review_merge(state: State, env: Env) -> dict:
    merged = env.policy.review(state, env)
    env.note("review_merge", merged=merged)
    update: dict = {"merged": merged, "end_session": False, "turn_time": ""}
    if state.get("end_session") is not False:  # extraction succeeded: the session is done
        update.update({"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)], "session_id": "", "summary": "", "summary_upto": 0})
    return update
