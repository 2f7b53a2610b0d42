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
   a re-run stores nothing twice. ``caim.memory.build`` decides (``settle``) and builds the record
   of each origin (``RecordBuilder``).
3. ``maintain``: each new record is compared with related stored ones; the policy decides new /
   same / update / extends / contradicts (``caim.memory.maintenance.Decision``) and
   ``caim.memory.maintenance.Maintenance`` applies it (an update never deletes). Exact duplicates are
   merged by code even without a decision; records naming the same entity are linked. A single-value
   fact (an attribute the ontology marks ``single_valued``: a home city, a diet) given a new value
   closes the older current record whatever the model decided, found among the search hits and the
   records tagged with the attribute; within the session the later statement wins, and so does a
   later preference that turns an earlier one of the same thing (a like, then a dislike).

The nodes orchestrate: they call the policy and ``caim.memory``'s functions and note the trace; the
store is their only door to storage.

The nodes read ``messages`` (the session), ``session_id`` and ``explicit`` (every user turn is a fact
to keep - ``Memory.add`` - even when code would not call it fact-stating); closing the chat
session afterwards is the chat graph's ``close_session``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from caim.core import faults
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import Change, KeyEvent, State
from caim.graph.steps import (
    InventedEvent,
    InventedThought,
    KeyEventsStep,
    MaintainStep,
    OntologyStep,
    ThoughtsStep,
)
from caim.memory.build import Grounding, RecordBuilder, ThoughtDraft, said_by, settle
from caim.memory.capture import Capture, captures, reply_taken_up, worth_keeping
from caim.memory.maintenance import (
    Decision,
    Maintenance,
    displaced,
    duplicate,
    grounded,
    maintain_groups,
    opposed,
    record_slots,
)
from caim.memory.merge import Merge
from caim.memory.reading import Reading
from caim.memory.records import ASSISTANT, USER, MemoryRecord, as_aware
from caim.memory.search.retrieval import Query
from caim.memory.stm import Exchange, clip, said_before, turns
from caim.memory.text import names, unsupported
from caim.ontology import Ontology, Proposal
from caim.ontology.tagger import tags_of
from caim.prompts.thoughts import NewTerm, Thought
from caim.services.bounds import within_bounds

CHUNK = 8
_LIST_MARK = re.compile(r"^\s*(\d+[.)]|[-*•])\s*")  # "2. ..." - small models number their sentences
#: Raw records of earlier sessions refined per post-thinking run.
REFINE_PER_SESSION = 8
#: Further search hits the code checks for stored copies of a new memory (beyond those the model sees).
COPIES = 8
#: Cosine similarity a proposed ontology term needs to the events it is meant for (when it does not occur in them).
TERM_FIT = 0.3
#: Newest records under a single-value attribute's tag that code checks for an older value (beyond the search hits).
SLOT_PROBE = 20


def _chunks(items: list, n: int = CHUNK) -> list[list]:
    return [items[i : i + n] for i in range(0, len(items), n)]


def _turn_text(t: Exchange) -> str:
    return f"{t.user}\n{t.assistant}".strip()


# ---- 1. key events ------------------------------------------------------------------------------------
def _whose(event: str, t: Exchange, sims: tuple[float, float], env: Env, taken: bool) -> str | None:
    """Whose words an event of turn ``t`` states: the person's (the user's or the participant's) when
    it is grounded in them and names nothing they did not say; else the assistant's on the same terms,
    when the reply was ``taken`` up; ``None`` when neither (the event is dropped)."""
    s = env.settings
    for words, sim, speaker in ((t.user, sims[0], t.speaker or USER), (t.assistant, sims[1], ASSISTANT)):
        if not words or unsupported(event, words):
            continue
        if grounded(event, words, sim, min_overlap=s.ground_overlap, min_similarity=s.ground_similarity):
            return speaker if speaker != ASSISTANT or taken else None
    return None


def _judge_events(got: list[KeyEvent], session: list[Exchange], env: Env, judged: Judged) -> None:
    """Sort the policy's events of a chunk: grounded in the words of one side of their turn
    (``events``, with that side as their speaker: the assistant's only when the user took its reply
    up), naming what their turn does not hold (``invented``: refused), or not grounded (``dropped``)."""
    index = {t.number: i for i, t in enumerate(session)}
    sides = [session[index[e["turn"]]] for e in got]
    texts = [e["event"] for e in got] + [t.user for t in sides] + [t.assistant or t.user for t in sides]
    sims = env.svc.embedder.similarity(texts) if got else np.zeros((0, 0))
    n = len(got)
    for i, (e, t) in enumerate(zip(got, sides, strict=True)):
        taken = env.settings.persona or reply_taken_up(session, index[e["turn"]])
        speaker = _whose(e["event"], t, (float(sims[i, n + i]), float(sims[i, 2 * n + i])), env, taken)
        if speaker is not None:  # the model's own sentence: marked, not prefixed
            judged.events.append(e if speaker == USER else {**e, "speaker": speaker})
        elif made_up := unsupported(e["event"], _turn_text(t)):
            judged.invented.append(InventedEvent(event=e["event"], invented=made_up))
        else:
            judged.dropped.append(e["event"])


def _spoken(event: KeyEvent, speaker: str) -> KeyEvent:
    """The event of ``speaker``'s own words, marked and introduced as theirs ("The assistant said: ...";
    the user's events carry no speaker)."""
    if speaker == USER:
        return event
    out: KeyEvent = {**event, "speaker": speaker}
    out["event"] = said_by(speaker) + event["event"]
    return out


def _capture_event(c: Capture, t: Exchange, env: Env, reading: Reading | None) -> KeyEvent:
    """The event of a side of an exchange worth keeping in its own words, with the reader's reading of
    a person's words (the assistant's are read with the other events' later)."""
    event: KeyEvent = {
        "turn": c.turn,
        "event": clip(c.text, 600),
        "time": (t.time or env.now).isoformat(),
        "origin": "capture",
    }
    event = _spoken(event, c.speaker)
    return event if reading is None else _with_reading(event, reading, env)


def _refine_event(r: MemoryRecord) -> KeyEvent:
    """The event of a raw record of an earlier session, to be rewritten as a thought."""
    event: KeyEvent = {
        "turn": r.turn or 0,
        "event": r.thought,
        "time": as_aware(r.event_time).isoformat(),
        "origin": "refine",
        "record": r.id,
    }
    return _spoken(event, r.who)


@dataclass
class Judged:
    """The policy's events sorted: grounded (``events``), not grounded (``dropped``), naming what
    their turn does not hold (``invented``)."""

    events: list[KeyEvent] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    invented: list[InventedEvent] = field(default_factory=list)


def extract_key_events(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """List the session's key events: the policy's grounded ones, captures, raw records to refine.

    Args:
        state: The session (``messages``, ``session_id``, ``explicit``).
        env: The run's services, settings and trace.
        policy: The memory policy.

    Returns:
        ``key_events`` and ``complete`` (False when an extraction call failed).
    """
    if not policy.uses_memory:
        env.note(KeyEventsStep(events=0, ok=True, reason="policy stores nothing"))
        return {"key_events": [], "complete": True}
    all_turns = turns(state.get("messages", []))
    judged = Judged()
    ok = True
    for chunk in _chunks(all_turns):
        got = policy.key_events(env, chunk)
        if got is None:
            ok = ok and env.on_code("key_events")  # code serving the role is no failure
            continue
        _judge_events(got, all_turns, env, judged)
    events = judged.events
    covered = {e["turn"] for e in events}
    by_number = {t.number: t for t in all_turns}
    # the reader decides which person's turns are worth remembering (one batch: every turn's words;
    # each read after what was said just before it: a reaction to it reads as one); a turn that only
    # asks tells nothing to remember, nor one in which code finds nothing told unless the reader is sure
    turn_readings = readings(env, [t.user for t in all_turns], said_before(all_turns))
    read = dict(zip([t.number for t in all_turns], turn_readings, strict=True))
    store_at = env.svc.reader.model.store_at
    kept = captures(
        all_turns,
        skip=covered,
        explicit=bool(state.get("explicit")),
        persona=env.settings.persona,
        worth=lambda t: worth_keeping(t.user, read[t.number].stores, store_at),
    )
    events += [
        _capture_event(c, by_number[c.turn], env, read[c.turn] if c.speaker != ASSISTANT else None) for c in kept
    ]
    captured = len(kept)
    refine = [r for r in env.svc.store.iter(env.user_id) if r.kind == "raw" and r.session_id != state.get("session_id")]
    events += [_refine_event(r) for r in refine[:REFINE_PER_SESSION]]
    env.note(
        KeyEventsStep(
            events=len(events),
            ok=ok,
            ungrounded=judged.dropped,
            invented=judged.invented,
            captured=captured,
            refining=min(len(refine), REFINE_PER_SESSION),
        )
    )
    faults.hit("after_key_events")
    return {"key_events": events, "complete": ok}


# ---- 2. thoughts ------------------------------------------------------------------------------------------
def _accept_terms(proposals: list[NewTerm], events: list[KeyEvent], env: Env) -> list[str]:
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
    accepted, rejected = env.svc.ontology.extend(ok, user=env.user_id) if ok else ([], [])
    if refused or rejected or accepted:
        env.note(OntologyStep(ontology_added=[p.term for p in accepted], ontology_refused=refused + rejected))
    return [f"{p.parent}/{p.term}" for p in accepted]


def write_thoughts(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Store a record per key event, under the user's lock.

    Args:
        state: The session and its ``key_events``.
        env: The run's services, settings and trace.
        policy: The memory policy.

    Returns:
        ``stored`` (briefs of the records), ``ontology_added`` and ``denied`` (records outside the
        privacy bounds).
    """
    with env.svc.store.user_lock(env.user_id):  # one writer per user, across processes
        return _write_thoughts(state, env, policy)


def _ask_thoughts(events: list[KeyEvent], env: Env, policy: MemoryPolicy) -> tuple[dict[int, Thought], list[str]]:
    """The policy's sentence per event index (one call per chunk), offered the events' tags and their
    nearest terms by meaning of the user's view of the ontology, and the ontology terms accepted;
    nothing when code serves the role."""
    ontology = env.ontology
    answers: dict[int, Thought] = {}
    added: list[str] = []
    if env.on_code("thoughts"):
        return answers, added
    nearest = env.svc.tagger.nearest(ontology, env.svc.store.embed([e["event"] for e in events]), 4)
    own = [tags_of(ontology, e.get("categories", []), e.get("found", [])) for e in events]
    nearest = [[(t, 1.0) for t in mine] + row for mine, row in zip(own, nearest, strict=True)]
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
    return answers, added


def _drafts(
    events: list[KeyEvent],
    answers: dict[int, Thought],
    refined: dict[str, MemoryRecord],
    by_number: dict[int, Exchange],
) -> list[ThoughtDraft]:
    """Each event with the sentence written for it and the words it must be grounded in."""
    out = []
    for i, e in enumerate(events):
        raw = refined.get(e.get("record", ""))
        t = by_number.get(e["turn"]) if raw is None else None
        source = raw.source_text() if raw else (_turn_text(t) if t else e["event"])
        # small models number their sentences, and copy the "The assistant said:" an event was shown with
        speaker = e.get("speaker", USER)
        thought = (
            _LIST_MARK.sub("", answers[i].thought).strip().removeprefix(said_by(speaker)).strip()
            if i in answers
            else ""
        )
        when = datetime.fromisoformat(e["time"])
        model = answers.get(i)
        out.append(
            ThoughtDraft(
                e["turn"],
                e["event"],
                when,
                e.get("origin", "model"),
                speaker,
                thought,
                source,
                raw,
                polarity=model.polarity if model is not None else None,
                reason=(model.reason or "") if model is not None else "",
                liking=e.get("liking"),
            )
        )
    return out


def _similarities(drafts: list[ThoughtDraft], env: Env) -> list[float]:
    """Each draft's sentence against its source (0 without a sentence), in one embedding call."""
    check = [d.thought for d in drafts if d.thought]
    if not check:
        return [0.0] * len(drafts)
    sims = env.svc.embedder.similarity(check + [d.source for d in drafts])
    out, ci = [], 0
    for i, d in enumerate(drafts):
        out.append(float(sims[ci, len(check) + i]) if d.thought else 0.0)
        ci += bool(d.thought)
    return out


def _tags(answer: Thought | None, event: KeyEvent, ontology: Ontology) -> list[str]:
    """The model's tags that the ontology knows, else those of the categories the reader chose for the
    event's words (``tags_of``: the category, then the term they name); at most three, none when the
    reader was unsure (no tag rather than a wrong one)."""
    model_tags = [t for t in (answer.tags if answer is not None else []) if t in ontology]
    return list(dict.fromkeys(model_tags))[:3] or tags_of(ontology, event.get("categories", []), event.get("found", []))


def _read(events: list[KeyEvent], env: Env) -> list[KeyEvent]:
    """The events, each with what the reader takes from its words (``_with_reading``) where the
    reading is not there yet (events of the model's, of the assistant's words, of earlier sessions):
    one reader batch."""
    todo = [i for i, e in enumerate(events) if "categories" not in e]
    if not todo:
        return events
    out = list(events)
    for i, r in zip(todo, readings(env, [_said(events[i]) for i in todo]), strict=True):
        out[i] = _with_reading(events[i], r, env)
    return out


def readings(env: Env, texts: Sequence[str], before: Sequence[str] | None = None) -> list[Reading]:
    """The reader's ``Reading`` of each text, each after its turn in ``before`` ("" or none given:
    alone); the reader does not read again what it read lately (``Reader.read``)."""
    return env.svc.reader.read(list(texts), list(before) if before is not None else None)


def _said(event: KeyEvent) -> str:
    """The words of an event, without the "The assistant said: " it is shown to the model with."""
    return event["event"].removeprefix(said_by(event.get("speaker", USER)))


def _with_reading(event: KeyEvent, r: Reading, env: Env) -> KeyEvent:
    """The event with the reader's categories, terms and - for a person's words - like or dislike."""
    model = env.svc.reader.model
    out: KeyEvent = {**event, "categories": model.chosen(r), "found": sorted(r.found)}
    liking = model.liking(r)
    if liking is not None and event.get("speaker") != ASSISTANT:
        out["liking"] = liking
    return out


def _write_thoughts(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    events = state.get("key_events", [])
    if not events:
        return {"stored": [], "ontology_added": [], "denied": 0}
    store = env.svc.store
    by_number = {t.number: t for t in turns(state.get("messages", []))}
    refined = {r.id: r for r in store.get_many(env.user_id, [e["record"] for e in events if e.get("record")])}
    events = _read(events, env)
    answers, added = _ask_thoughts(events, env, policy)
    ontology = env.ontology
    drafts = _drafts(events, answers, refined, by_number)
    s = env.settings
    grounding = Grounding(s.ground_overlap, s.ground_similarity, s.capture_keep)
    builder = RecordBuilder(env.user_id, state.get("session_id", ""), by_number)
    records: list[MemoryRecord] = []
    refused: list[InventedThought] = []
    denied = 0
    user_denied = store.denied(env.user_id)  # read under the user's lock: a deny now is seen
    for i, (draft, sim) in enumerate(zip(drafts, _similarities(drafts, env), strict=True)):
        settled = settle(draft, sim, grounding)
        if settled.invented:
            refused.append(InventedThought(thought=draft.thought, invented=settled.invented))
        tags = _tags(answers.get(i), events[i], ontology)
        if not within_bounds(ontology, tags, env.settings, user_denied):
            denied += 1
        elif (rec := builder.build(settled, tags)) is not None:
            records.append(rec)
    store.add(records)
    faults.hit("after_store_thoughts")
    retire = builder.retired
    if retire:
        store.delete(env.user_id, [r for r in retire if r not in {x.id for x in records}])
    env.note(
        ThoughtsStep(
            stored_ids=[r.id for r in records],
            raw=sum(r.kind == "raw" for r in records),
            refined=retire,
            invented=refused,
            denied=denied,
            thoughts_from_model=len(answers),
        )
    )
    return {"stored": [r.brief() for r in records], "ontology_added": added, "denied": denied}


# ---- 3. maintenance ---------------------------------------------------------------------------------------
def maintain(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Relate the session's new records to stored ones and apply the decisions, under the user's lock.

    Args:
        state: The session and the records it ``stored``.
        env: The run's services, settings and trace.
        policy: The memory policy.

    Returns:
        ``merged`` and ``changes``, for the trace and the session summary.
    """
    stored = state.get("stored", [])
    session = state.get("session_id", "")
    merged: list[Merge] = []
    changes: list[Change] = []
    if stored and policy.uses_memory:
        with env.svc.store.user_lock(env.user_id):
            merged, changes = _maintain(stored, env, policy, session)
    env.note(MaintainStep(merged=merged, changes=changes))
    faults.hit("before_session_reset")
    return {"merged": merged, "changes": changes}


Related = dict[str, list[tuple[MemoryRecord, float]]]
Decisions = dict[str, tuple[Decision, MemoryRecord]]


def _displaced(
    rec: MemoryRecord, scored: list[tuple[MemoryRecord, float]], env: Env, new_ids: set[str]
) -> list[MemoryRecord]:
    """Current stored records to which ``rec`` gives a single-value attribute another value: among the
    search hits and the newest records tagged with the attribute (an old home city shares few words
    with "I moved to Lyon")."""
    single = env.ontology.single_valued
    attributes = [a for a in record_slots(rec) if single(a)]
    if not attributes:
        return []
    tagged = env.svc.store.page(env.user_id, 0, SLOT_PROBE, tags=attributes)
    seen = {o.id: o for o, _ in scored} | {o.id: o for o in tagged if o.id not in new_ids}
    return [o for o in seen.values() if displaced(rec, o, single) is not None]


def _related(
    new: list[MemoryRecord], env: Env
) -> tuple[Related, Decisions, dict[str, list[MemoryRecord]], dict[str, list[MemoryRecord]]]:
    """Per new record the stored ones it is compared with (with similarity), code's own decisions
    ("same" for copies, "update" for a single-value fact with a new value, "contradicts" for a
    preference that turned), the further stored copies each such "same" merges too, and the
    further stored records each such "update" closes too."""
    new_ids = {r.id for r in new}
    related: Related = {}
    decisions: Decisions = {}
    # the code signal: the same words, or near-identical meaning, are the same whatever the model says;
    # every stored copy is merged (sessions ended at once elsewhere may each have stored one), so the
    # code looks further than the few related records the model is shown
    also_same: dict[str, list[MemoryRecord]] = {}
    also_moved: dict[str, list[MemoryRecord]] = {}
    k = env.settings.maintain_k
    store = env.svc.store
    found: list[list[MemoryRecord]] = []
    # records are compared by the vectors the store holds for them (their embedded texts): none is embedded again
    mine = store.held_vectors(new)
    for rec, vec in zip(new, mine, strict=True):
        query = Query(text=rec.thought, now=env.now, past=True, vector=vec)
        hits = env.svc.retriever.search(env.user_id, query, k + len(new) + COPIES)
        found.append([h.record for h in hits if h.record.id not in new_ids])
    stored = list({o.id: o for others in found for o in others}.values())
    vectors = {r.id: v for r, v in zip(new, mine, strict=True)} | dict(
        zip([o.id for o in stored], store.held_vectors(stored), strict=True)
    )
    for rec, others in zip(new, found, strict=True):
        sims = [float(vectors[rec.id] @ vectors[o.id]) for o in others]
        scored = list(zip(others, sims, strict=True))
        related[rec.id] = scored[:k]
        same = [other for other, sim in scored if duplicate(rec.thought, other.thought, sim)]
        moved = [] if same else _displaced(rec, scored, env, new_ids)
        turned = [other for other, _ in related[rec.id] if opposed(rec, other)]
        if same:
            decisions[rec.id] = (Decision.SAME, same[0])
            also_same[rec.id] = same[1:]
            _show(related, rec.id, same[0], scored)
        elif moved:  # code's own signal: a single-value fact (a home city, a diet) with a new value
            decisions[rec.id] = (Decision.UPDATE, moved[0])
            also_moved[rec.id] = moved[1:]
            _show(related, rec.id, moved[0], scored)
        elif turned:  # code's own signal: a like, then a dislike of the same thing (or the reverse)
            decisions[rec.id] = (Decision.CONTRADICTS, turned[0])
    return related, decisions, also_same, also_moved


def _show(related: Related, rid: str, target: MemoryRecord, scored: list[tuple[MemoryRecord, float]]) -> None:
    """Put ``target`` among the stored records ``rid`` is compared with (first), if it is not there."""
    if target.id not in {o.id for o, _ in related[rid]}:
        sim = next((s for o, s in scored if o.id == target.id), 0.0)
        related[rid] = [(target, sim), *related[rid]]


def _ask_maintain(
    chunk: list[MemoryRecord], related: Related, decisions: Decisions, env: Env, policy: MemoryPolicy
) -> None:
    """The policy's decisions for a chunk of new records, added to ``decisions`` where code made none."""
    groups, numbering = maintain_groups(chunk, {r.id: [o for o, _ in related[r.id]] for r in chunk})
    answer = policy.maintain(env, groups)
    if answer is None:
        return
    for d in answer.decisions:
        rec = chunk[d.memory - 1]
        target = numbering.get(d.target)
        if rec.id in decisions or d.decision == Decision.NEW or target is None:
            continue
        if target.id not in {o.id for o, _ in related[rec.id]}:
            continue  # a stored memory shown for another new one: not this one's to change
        decisions[rec.id] = (Decision(d.decision), target)


def _maintain(stored: list, env: Env, policy: MemoryPolicy, session: str) -> tuple[list[Merge], list[Change]]:
    store = env.svc.store
    single = env.ontology.single_valued
    run = Maintenance(store, env.user_id, session, env.settings.merge_min_similarity, single=single)
    new = store.get_many(env.user_id, [r["id"] for r in stored])
    if len(new) >= 2:
        vecs = store.held_vectors(new)
        new = run.merge_copies(new, vecs @ vecs.T)
    new = run.settle_slots(run.tag_slots(new))  # two values in one session: the later is current
    new = run.settle_turns(new)  # a like, then a dislike of the same thing in one session: the later is current
    related, decisions, also_same, also_moved = _related(new, env)
    for chunk in _chunks([rec for rec in new if related[rec.id]]):
        _ask_maintain(chunk, related, decisions, env, policy)
    current = {r.id: r for r in new}
    for rid, (decision, target) in decisions.items():
        rec = current.get(rid)
        old = store.get(env.user_id, target.id) if rec is not None else None
        if rec is None or old is None:
            continue
        sim = dict((o.id, s) for o, s in related[rid]).get(old.id, 0.0)
        further = also_same.get(rid, []) if decision == Decision.SAME else []
        copies = [old, *store.get_many(env.user_id, [o.id for o in further if o.id != old.id])]
        if (after := run.apply(decision, rec, sim, copies)) is None:
            current.pop(rid, None)
            continue
        for other in store.get_many(env.user_id, [o.id for o in also_moved.get(rid, [])]):
            after = run.displace(after, other)
        current[rid] = after
    run.link_named(list(current.values()))
    return run.merged, run.changes
