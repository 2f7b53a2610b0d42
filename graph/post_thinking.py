"""Post-thinking nodes (CAIM step 4), run when a session ends. Capture never fails.

1. ``extract_key_events``: the policy lists key events per chunk of eight turns; each event must be
   grounded in its turn (``caim.memory.maintenance.grounded``: two or more content words of its
   own - speakers' names and small talk do not count - enough of them found in the turn, or some
   found and the two close in meaning), else it is dropped. Exchanges with no grounded event - all
   of them when extraction failed - become ``capture`` events: the user's words when they state
   something about the user (``caim.memory.capture.states_fact``), the assistant's when its reply
   names or recommends something (``reply_worth_keeping``: "what did you recommend?").
   Raw records of earlier sessions join as ``refine`` events, to be rewritten as thoughts.
2. ``write_thoughts``: one call per eight events writes memory sentences and tags (from the
   events' nearest ontology terms) and may propose ontology terms (accepted only when code finds
   them real and fitting). A sentence not grounded in its source is not stored: the event's own
   words are (a raw record for captures, spoken by the user or by the assistant). A capture's (or
   raw record's) rewrite must also keep its names, numbers, dates and most of its words
   (``caim.memory.maintenance.keeps``), else the words stay as they were. An event or a sentence
   that asserts a name, number or date its source turns do not hold (``caim.memory.text.unsupported``)
   is refused - noted in the trace - and the turn's own words are kept instead. Records outside
   the deployment's privacy bounds are never stored. Ids come from (user, session, turn, event), so
   a re-run stores nothing twice.
3. ``maintain``: each new record is compared with related stored ones; the policy decides new /
   same / update / extends / contradicts and ``caim.memory.maintenance`` applies it (an update never
   deletes). Exact duplicates are merged by code even without a decision; records naming the same
   entity are linked.

The nodes read ``messages`` (the session), ``session_id`` and ``explicit`` (every user turn is a fact
to keep - ``Memory.add`` - even when code would not call it fact-stating); closing the chat
session afterwards is the chat graph's ``close_session``.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import numpy as np

from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import Change, KeyEvent, State
from caim.memory.capture import captures, raw_record
from caim.memory.maintenance import (
    apply_contradiction,
    apply_extend,
    apply_update,
    content_overlap,
    grounded,
    keeps,
    link,
)
from caim.memory.merge import Merge, merge_group
from caim.memory.records import HistoryEntry, MemoryRecord, SourceTurn, as_aware, stable_id
from caim.memory.retrieval import Query
from caim.memory.stm import Turn, clip, turns
from caim.memory.text import names, unsupported
from caim.ontology import Ontology, Proposal
from caim.testing import faultpoints

CHUNK = 8
#: How an event from the assistant's words is put to the thoughts model (the memory is of what it said).
ASSISTANT_SAID = "The assistant said: "
_LIST_MARK = re.compile(r"^\s*(\d+[.)]|[-*•])\s*")  # "2. ..." - small models number their sentences
#: Raw records of earlier sessions refined per post-thinking run.
REFINE_PER_SESSION = 8
#: Cosine similarity at which two records are duplicates whatever the model says.
DUPLICATE = 0.95
#: Further search hits the code checks for stored copies of a new memory (beyond those the model sees).
COPIES = 8
#: Cosine similarity a proposed ontology term needs to the events it is meant for (when it does not occur in them).
TERM_FIT = 0.3


def _chunks(items: list, n: int = CHUNK) -> list[list]:
    return [items[i : i + n] for i in range(0, len(items), n)]


def _turn_text(t: Turn) -> str:
    return f"{t.user}\n{t.assistant}".strip()


# ---- 1. key events ------------------------------------------------------------------------------------
def extract_key_events(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    if not policy.uses_memory:
        env.note(events=0, ok=True, reason="policy stores nothing")
        return {"key_events": [], "complete": True}
    all_turns = turns(state.get("messages", []))
    events: list[KeyEvent] = []
    ok = True
    dropped: list[str] = []
    invented: list[dict[str, Any]] = []  # events naming what their turn does not hold: refused
    for chunk in _chunks(all_turns):
        got = policy.key_events(env, chunk)
        if got is None:
            ok = False
            continue
        by_number = {t.number: t for t in chunk}
        texts = [e["event"] for e in got] + [_turn_text(by_number[e["turn"]]) for e in got]
        sims = env.svc.embedder.similarity(texts) if got else np.zeros((0, 0))
        for i, e in enumerate(got):
            source = _turn_text(by_number[e["turn"]])
            made_up = unsupported(e["event"], source)
            if made_up:
                invented.append({"event": e["event"], "invented": made_up})
            elif grounded(
                e["event"],
                source,
                float(sims[i, len(got) + i]),
                min_overlap=env.settings.ground_overlap,
                min_similarity=env.settings.ground_similarity,
            ):
                events.append(e)
            else:
                dropped.append(e["event"])
    covered = {e["turn"] for e in events}
    by_number = {t.number: t for t in all_turns}
    kept = captures(all_turns, skip=covered, explicit=bool(state.get("explicit")), persona=env.settings.persona)
    for c in kept:
        t = by_number[c.turn]
        kept_event: KeyEvent = {
            "turn": c.turn,
            "event": clip(c.text, 600),
            "time": (t.time or env.now).isoformat(),
            "origin": "capture",
        }
        if c.speaker == "assistant":
            kept_event["event"] = ASSISTANT_SAID + kept_event["event"]
            kept_event["speaker"] = "assistant"
        events.append(kept_event)
    captured = len(kept)
    refine = [r for r in env.svc.store.iter(env.user_id) if r.kind == "raw" and r.session_id != state.get("session_id")]
    for r in refine[:REFINE_PER_SESSION]:
        event: KeyEvent = {
            "turn": r.turn or 0,
            "event": r.thought,
            "time": as_aware(r.event_time).isoformat(),
            "origin": "refine",
            "record": r.id,
        }
        if r.speaker == "assistant":
            event["speaker"] = "assistant"
            event["event"] = ASSISTANT_SAID + r.thought
        events.append(event)
    env.note(
        events=len(events),
        ok=ok,
        ungrounded=dropped,
        invented=invented,
        captured=captured,
        refining=min(len(refine), REFINE_PER_SESSION),
    )
    faultpoints.hit("after_key_events")
    return {"key_events": events, "complete": ok}


# ---- 2. thoughts ------------------------------------------------------------------------------------------
def _accept_terms(proposals: list[Any], events: list[KeyEvent], env: Env) -> list[str]:
    """Proposed ontology terms that code finds real and fitting: the word occurs in the events, or
    is close in meaning to them. Everything else is refused and logged in the trace."""
    if not proposals:
        return []
    raw = " ".join(e["event"] for e in events)
    text = raw.lower()
    words = set(text.replace(",", " ").replace(".", " ").split())
    # a name (written capitalised, or a speaker's) is about one person or place, not a kind of memory
    named = {n.casefold() for n in names(raw)} | {w.casefold() for w in re.findall(r"^\s*([A-Z][a-z]+):", raw, re.M)}
    ok: list[Proposal] = []
    refused: list[str] = []
    for p in proposals:
        term = p.term.strip().lower()
        if term in named:
            refused.append(f"{term!r}: a name, not a kind of memory")
            continue
        if term in words:
            ok.append(Proposal(p.parent, term))
            continue
        sim = float(env.svc.embedder.similarity([term, text])[0, 1]) if term else 0.0
        if sim >= TERM_FIT:
            ok.append(Proposal(p.parent, term))
        else:
            refused.append(f"{term!r}: neither in the events nor close to them ({sim:.2f})")
    accepted, rejected = env.svc.ontology.extend(ok) if ok else ([], [])
    if refused or rejected or accepted:
        env.note(ontology_added=[p.term for p in accepted], ontology_refused=refused + rejected)
    return [f"{p.parent}/{p.term}" for p in accepted]


def _under(ontology: Ontology, tag: str, roots: list[str]) -> bool:
    path = ontology.path(tag)
    return any(tag == r or path == r or path.startswith(r + "/") or f"/{r}/" in f"/{path}/" for r in roots)


def _allowed(ontology: Ontology, tags: list[str], env: Env) -> bool:
    """The deployment's privacy bounds: no tag under a denied category, and (when an allow-list is
    set) every tag under an allowed one."""
    s = env.settings
    if s.deny_categories and any(_under(ontology, t, s.deny_categories) for t in tags):
        return False
    return not (s.allow_categories and not all(_under(ontology, t, s.allow_categories) for t in tags))


def _sources(t: Turn | None, prev: Turn | None) -> list[SourceTurn]:
    if t is None:
        return []
    out = []
    if prev is not None and prev.assistant and prev.assistant.rstrip().endswith("?"):
        out.append(SourceTurn(role="assistant", text=prev.assistant, time=prev.time, turn=prev.number, context=True))
    out.append(SourceTurn(role="user", text=t.user, time=t.time, turn_id=t.user_id, turn=t.number))
    if t.assistant:
        out.append(SourceTurn(role="assistant", text=t.assistant, time=t.time, turn=t.number))
    return out


def write_thoughts(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    with env.svc.store.user_lock(env.user_id):  # one writer per user, across processes
        return _write_thoughts(state, env, policy)


def _write_thoughts(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    events = state.get("key_events", [])
    if not events:
        return {"stored": [], "ontology_added": [], "denied": 0}
    session = state.get("session_id", "")
    ontology = env.svc.ontology.current
    by_number = {t.number: t for t in turns(state.get("messages", []))}
    refined = {r.id: r for r in env.svc.store.get_many(env.user_id, [e["record"] for e in events if e.get("record")])}
    event_vecs = env.svc.store.embed([e["event"] for e in events])
    nearest = env.svc.tagger.nearest(ontology, event_vecs, 4)
    answers: dict[int, Any] = {}
    added: list[str] = []
    for start in range(0, len(events), CHUNK):
        chunk = events[start : start + CHUNK]
        tags = list(dict.fromkeys(t for row in nearest[start : start + CHUNK] for t, _ in row))
        parents = list(dict.fromkeys(ontology.parent_of(t) for t in tags if ontology.parent_of(t)))
        answer = policy.thoughts(env, chunk, tags, parents or ontology.parents()[:1])
        if answer is None:
            continue
        for th in answer.thoughts:
            answers.setdefault(start + th.event - 1, th)
        if policy.extend_ontology:
            added += _accept_terms(list(answer.new_terms), chunk, env)
    ontology = env.svc.ontology.current
    sources_text = []
    for e in events:
        raw = refined.get(e.get("record", ""))
        t = by_number.get(e["turn"]) if raw is None else None
        sources_text.append(raw.source_text() if raw else (_turn_text(t) if t else e["event"]))
    # small models number their sentences, and copy the "The assistant said:" an event was shown with
    written = [
        _LIST_MARK.sub("", answers[i].thought).strip().removeprefix(ASSISTANT_SAID).strip() if i in answers else ""
        for i in range(len(events))
    ]
    check = [w for w in written if w]
    sims = env.svc.embedder.similarity(check + sources_text) if check else None
    records: list[MemoryRecord] = []
    retire: list[str] = []
    refused: list[dict[str, Any]] = []
    denied = 0
    per_turn: dict[int, int] = {}
    ci = 0
    for i, e in enumerate(events):
        origin = e.get("origin", "model")
        raw = refined.get(e.get("record", ""))
        thought = written[i]
        ok_thought = False
        if thought:
            sim = float(sims[ci, len(check) + i]) if sims is not None else 0.0
            ci += 1
            ok_thought = grounded(
                thought,
                sources_text[i],
                sim,
                min_overlap=env.settings.ground_overlap,
                min_similarity=env.settings.ground_similarity,
            )
        made_up = unsupported(thought, sources_text[i]) if ok_thought else []
        if made_up:  # a name, number or date its source turns do not hold: refused, the turn's words kept
            refused.append({"thought": thought, "invented": made_up})
            ok_thought = False
            origin = "capture" if origin == "model" else origin
        if ok_thought and (origin == "capture" or raw is not None):  # words a rewrite must keep
            said = raw.thought if raw is not None else e["event"].removeprefix(ASSISTANT_SAID)
            ok_thought = keeps(thought, said, env.settings.capture_keep)
        model_tags = [t for t in (answers[i].tags if i in answers else []) if t in ontology]
        tags = list(dict.fromkeys(model_tags or [t for t, _ in nearest[i]]))[:3] or ["personal"]
        if not _allowed(ontology, tags, env):
            denied += 1
            continue
        when = datetime.fromisoformat(e["time"])
        if raw is not None:  # refining an earlier raw capture
            if not ok_thought:
                continue
            rec = raw.model_copy(
                update={
                    "id": stable_id(
                        env.user_id, raw.session_id, raw.turn, 0 if raw.speaker != "assistant" else "assistant"
                    ),
                    "kind": "thought",
                    "thought": clip(thought, 500),
                    "tags": tags,
                    "history": [*raw.history, HistoryEntry(change="refined", session_id=session, others=[raw.id])],
                }
            )
            records.append(rec)
            retire.append(raw.id)
            continue
        t = by_number.get(e["turn"])
        assistant = e.get("speaker") == "assistant"
        if origin == "capture" and not ok_thought:
            if assistant:  # the reply's words; the user's turn it answered is its context
                rec = raw_record(
                    user_id=env.user_id,
                    session_id=session,
                    turn=e["turn"],
                    text=t.assistant if t else e["event"].removeprefix(ASSISTANT_SAID),
                    when=when,
                    tags=tags,
                    speaker="assistant",
                    asked=t.user if t else "",
                    role="assistant",
                )
            else:
                rec = raw_record(
                    user_id=env.user_id,
                    session_id=session,
                    turn=e["turn"],
                    text=t.user if t else e["event"],
                    when=when,
                    tags=tags,
                    speaker="user",
                    reply=t.assistant if t else "",
                    turn_id=t.user_id if t else None,
                )
            records.append(rec.model_copy(update={"history": [HistoryEntry(change="captured", session_id=session)]}))
            continue
        k = per_turn.get(e["turn"], 0)
        per_turn[e["turn"]] = k + 1
        text = thought if ok_thought else e["event"]
        prev = by_number.get(e["turn"] - 1)
        records.append(
            MemoryRecord(
                id=stable_id(env.user_id, session, e["turn"], k),
                user_id=env.user_id,
                thought=clip(text, 500),
                tags=tags,
                event_time=as_aware(when),
                session_id=session,
                turn=e["turn"],
                speaker="assistant" if assistant else "user",
                entities=names(e["event"]),
                sources=_sources(t, prev),
                history=[HistoryEntry(change="created", session_id=session)],
            )
        )
    env.svc.store.add(records)
    faultpoints.hit("after_store_thoughts")
    if retire:
        env.svc.store.delete(env.user_id, [r for r in retire if r not in {x.id for x in records}])
    env.note(
        stored_ids=[r.id for r in records],
        raw=sum(r.kind == "raw" for r in records),
        refined=retire,
        invented=refused,
        denied=denied,
        thoughts_from_model=len(answers),
    )
    return {"stored": [r.brief() for r in records], "ontology_added": added, "denied": denied}


# ---- 3. maintenance ---------------------------------------------------------------------------------------
def maintain(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    stored = state.get("stored", [])
    session = state.get("session_id", "")
    merged: list[Merge] = []
    changes: list[Change] = []
    if stored and policy.uses_memory:
        with env.svc.store.user_lock(env.user_id):
            merged, changes = _maintain(stored, env, policy, session)
    env.note(merged=merged, changes=changes)
    faultpoints.hit("before_session_reset")
    return {"merged": merged, "changes": changes}


def _maintain(stored: list, env: Env, policy: MemoryPolicy, session: str) -> tuple[list[Merge], list[Change]]:
    store = env.svc.store
    new, merged = _merge_new_copies(store.get_many(env.user_id, [r["id"] for r in stored]), env, session)
    new_ids = {r.id for r in new}
    related: dict[str, list[tuple[MemoryRecord, float]]] = {}
    decisions: dict[str, tuple[str, MemoryRecord | None]] = {}
    # the code signal: the same words, or near-identical meaning, are the same whatever the model says;
    # every stored copy is merged (sessions ended at once elsewhere may each have stored one), so the
    # code looks further than the few related records the model is shown
    also_same: dict[str, list[MemoryRecord]] = {}
    for rec in new:
        hits = env.svc.retriever.search(
            env.user_id, Query(text=rec.thought, now=env.now, past=True), env.settings.maintain_k + len(new) + COPIES
        )
        others = [h.record for h in hits if h.record.id not in new_ids]
        sims = env.svc.embedder.similarity([rec.thought] + [o.thought for o in others])[0, 1:] if others else []
        scored = [(o, float(sim)) for o, sim in zip(others, sims, strict=True)]
        related[rec.id] = scored[: env.settings.maintain_k]
        same = [other for other, sim in scored if _duplicate(rec.thought, other.thought, sim)]
        if same:
            decisions[rec.id] = ("same", same[0])
            also_same[rec.id] = same[1:]
            if same[0].id not in {o.id for o, _ in related[rec.id]}:
                related[rec.id] = [next(x for x in scored if x[0].id == same[0].id), *related[rec.id]]
    groups_all = [rec for rec in new if related[rec.id]]
    for chunk in _chunks(groups_all):
        numbering: dict[int, MemoryRecord] = {}
        groups = []
        n_new = len(chunk)
        for i, rec in enumerate(chunk, 1):
            rel = []
            for other, _ in related[rec.id]:
                m = next((k for k, v in numbering.items() if v.id == other.id), None)
                if m is None:
                    m = n_new + len(numbering) + 1
                    numbering[m] = other
                rel.append((m, as_aware(other.event_time).date().isoformat(), other.thought))
            groups.append((i, as_aware(rec.event_time).date().isoformat(), rec.thought, rel))
        answer = policy.maintain(env, groups)
        if answer is None:
            continue
        for d in answer.decisions:
            rec = chunk[d.memory - 1]
            target = numbering.get(d.target)
            if rec.id in decisions or d.decision == "new" or target is None:
                continue
            if target.id not in {o.id for o, _ in related[rec.id]}:
                continue  # a stored memory shown for another new one: not this one's to change
            decisions[rec.id] = (d.decision, target)
    changes: list[Change] = []
    current = {r.id: r for r in new}
    for rid, (decision, target) in decisions.items():
        rec = current.get(rid)
        if rec is None or target is None:
            continue
        old = store.get(env.user_id, target.id)
        if old is None:
            continue
        sim = dict((o.id, s) for o, s in related[rid]).get(old.id, 0.0)
        if decision == "same":
            if sim < env.settings.merge_min_similarity and content_overlap(rec.thought, old.thought) < 0.5:
                continue  # refused: a confused model cannot merge unrelated facts
            if not _same_details(rec.thought, old.thought):
                continue  # refused: other numbers or names ("locker 707" / "locker 807") are other facts
            group = [old] + [
                again
                for o in also_same.get(rid, [])
                if o.id != old.id and (again := store.get(env.user_id, o.id)) is not None
            ]
            keep = merge_group([*group, rec], session)
            gone = [rec.id, *(g.id for g in group)]
            store.replace(keep, gone)
            current.pop(rid, None)
            faultpoints.hit("after_maintain_write")
            merged.append({"kept": keep.id, "removed": [i for i in gone if i != keep.id], "thought": keep.thought})
        elif decision == "update":
            closed, newer = apply_update(old, rec, session)
            store.add([closed, newer])
            current[rid] = newer
            changes.append({"change": "update", "record": newer.id, "others": [old.id], "thought": newer.thought})
        elif decision == "extends":
            grown = apply_extend(old, rec, session)
            store.replace(grown, [rec.id])
            current.pop(rid, None)
            changes.append({"change": "extends", "record": grown.id, "others": [rec.id], "thought": grown.thought})
        elif decision == "contradicts":
            a, b = apply_contradiction(old, rec, session)
            store.add([a, b])
            current[rid] = b
            changes.append({"change": "contradicts", "record": b.id, "others": [a.id], "thought": b.thought})
    changes += _link(list(current.values()), env, session)
    return merged, changes


_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")


def _same_details(a: str, b: str) -> bool:
    """Do two texts state the same numbers and names? Near-identical wording with another number or
    name is another fact, so neither the similarity rule nor a model may merge them."""
    return set(_NUMBER.findall(a)) == set(_NUMBER.findall(b)) and {n.casefold() for n in names(a)} == {
        n.casefold() for n in names(b)
    }


def _merge_new_copies(new: list[MemoryRecord], env: Env, session: str) -> tuple[list[MemoryRecord], list[Merge]]:
    """Merge copies among this session's new records (two events saying the same, raw records of
    earlier sessions refined now) before they are compared with stored ones."""
    if len(new) < 2:
        return new, []
    sims = env.svc.embedder.similarity([r.thought for r in new])
    group_of = list(range(len(new)))
    for i in range(len(new)):
        for j in range(i):
            if group_of[j] == j and _duplicate(new[i].thought, new[j].thought, float(sims[i, j])):
                group_of[i] = j
                break
    groups: dict[int, list[MemoryRecord]] = {}
    for i, g in enumerate(group_of):
        groups.setdefault(g, []).append(new[i])
    out: list[MemoryRecord] = []
    merged: list[Merge] = []
    for members in groups.values():
        if len(members) == 1:
            out.append(members[0])
            continue
        keep = merge_group(members, session)
        gone = [m.id for m in members]
        env.svc.store.replace(keep, gone)
        faultpoints.hit("after_maintain_write")
        merged.append({"kept": keep.id, "removed": [i for i in gone if i != keep.id], "thought": keep.thought})
        out.append(keep)
    return out, merged


def _duplicate(a: str, b: str, similarity: float) -> bool:
    """The code's own "same": the same words, or near-identical meaning with the same numbers and names."""
    return _same_words(a, b) or (similarity >= DUPLICATE and _same_details(a, b))


def _same_words(a: str, b: str) -> bool:
    return re.sub(r"\W+", " ", a).strip().casefold() == re.sub(r"\W+", " ", b).strip().casefold()


def _link(new: list[MemoryRecord], env: Env, session: str) -> list[Change]:
    """Link each new record to stored records naming the same entity."""
    store = env.svc.store
    out: list[Change] = []
    for fresh in new:
        rec = store.get(env.user_id, fresh.id)
        if rec is None:  # folded into another record meanwhile
            continue
        for name in rec.entities:
            rids = store.db.with_names(env.user_id, [name], 5)
            for other in store.db.by_rid(env.user_id, rids).values():
                if other.id == rec.id or other.id in rec.links:
                    continue
                rec, other2 = link(rec, other, session, name)
                store.add([rec, other2])
                out.append({"change": "linked", "record": rec.id, "others": [other.id], "thought": name})
    return out
