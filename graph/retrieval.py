"""Memory retrieval nodes (CAIM step 2): ranked search, route and candidates, relevance filter.

1. ``search`` runs beside the controller, needing no decision: the ranked retrieval of
   ``caim.memory.retrieval`` over the message, with the tags nearest by meaning and the time
   expressions code finds (resolved against the turn time; "our first conversation" is the day of
   the user's earliest record). When code signals point to memory and the policy filters beside its
   plan (``filter_beside_plan``), the relevance filter runs here on the best ``candidate_cap``
   records, in parallel with the plan - and, with ``speculative_answer``, the answer is drafted from
   the best ``max_kept`` of them before either decision is in.
2. ``retrieve`` joins the two: the route is the plan's route combined with the code signals
   (``route_rule``: a clear memory question - a reference to the past, a time expression, a question
   about the user's own facts, a closely similar stored memory, a name the memory knows - is never
   routed to "no memory"); when the plan adds tags or time expressions, the search runs again with
   them. The best ``candidate_cap`` records become the candidates. The STM window is decided here too.
3. ``filter_relevant`` keeps what the policy's filter keeps (its decision from ``search`` when it saw
   these very candidates, else a call now), plus those of the ``keep_top`` best-ranked candidates
   that are close to the message (``keep_similarity``: the code signal beside the model's
   judgement); without a filter decision, the best-ranked candidates up to ``max_kept``.
4. ``memory_prompt`` quotes the kept memories as a block any responder can put in its prompt.

The drafted answer (``respond``) stands when the decided route includes long-term memory, the kept
memories are among those the draft shows, at least one is kept, and the prompt is otherwise the same
(STM window, message); it then shows the draft's memories. Anything else - no memory, nothing
relevant, a memory the draft did not show - cancels it and the answer is asked for afresh.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from datetime import datetime, time, timedelta
from typing import Any, cast

import numpy as np

from caim.core.types import Route
from caim.graph.common import (
    answer_messages,
    current_input,
    profile_lines,
    ready_window,
    speculates,
    stm_window,
    task_note,
)
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import KnownSlot, Plan, State
from caim.graph.steps import EarlyFilterStep, FilterStep, GoalStep, PromptStep, RouteSignals, RouteStep, SearchStep
from caim.memory.intents import INTENT_SIMILARITY, SINGLE_VALUED, closest_task, fill, search_texts
from caim.memory.profile import about_user
from caim.memory.records import MemoryBrief, MemoryRecord, as_aware
from caim.memory.retrieval import DEFAULT_WEIGHTS, Hit, Query, Weights, own_value_first
from caim.memory.text import asks_about_past, memory_signals, names
from caim.memory.timeref import TimeRange, TimeSpan, find_expressions, resolve
from caim.prompts import respond as respond_prompt

_FIRST = re.compile(r"\b(first|earliest) (conversation|chat|talk|session|time we (talked|spoke|met))\b", re.I)


def _ranges(expressions: list[str], text: str, env: Env) -> list[TimeSpan]:
    spans: list[TimeSpan] = []
    for expr in dict.fromkeys(expressions):
        r = resolve(expr, env.now)
        if r:
            spans.append(r.span())
    if _FIRST.search(text):
        first = env.svc.store.first(env.user_id)
        if first:
            day = as_aware(first.event_time)
            start = datetime.combine(day.date(), time.min, tzinfo=day.tzinfo)
            spans.append(TimeRange("first conversation", start, start + timedelta(days=1, microseconds=-1)).span())
    return spans


def _expired(env: Env) -> Any:
    """Per-category lifetimes: a record expires from retrieval when one of its tags lies under a
    category with a lifetime (``lifetimes`` setting, days) that has passed since its event."""
    lifetimes = env.settings.lifetimes
    if not lifetimes:
        return None
    ontology = env.ontology
    now = env.now.timestamp()

    def expired(event_ts: float, tags: set[str]) -> bool:
        for tag in tags:
            path = ontology.path(tag)
            for root, days in lifetimes.items():
                if (tag == root or path == root or path.startswith(root + "/") or f"/{root}/" in f"/{path}/") and (
                    now - event_ts > days * 86400
                ):
                    return True
        return False

    return expired


def _search(
    env: Env, policy: MemoryPolicy, text: str, tags: list[str], spans: list[TimeSpan], k: int
) -> list[MemoryBrief]:
    return _rank(env, policy.weights, text, tags, spans, k)


def _rank(env: Env, weights: Weights, text: str, tags: list[str], spans: list[TimeSpan], k: int) -> list[MemoryBrief]:
    """The ranked hits as briefs; a question asking the user's single-value fact gets the user's own
    current statement of it first (``own_value_first``)."""
    hits = own_value_first(text, _hits(env, weights, text, tags, spans, k), env.ontology.single_valued)
    return [h.brief(env.settings.source_chars) for h in hits]


def _hits(env: Env, weights: Weights, text: str, tags: list[str], spans: list[TimeSpan], k: int) -> list[Hit]:
    query = Query(
        text=text,
        now=env.now,
        tags=tags,
        ranges=[(TimeRange.of(s).start.timestamp(), TimeRange.of(s).end.timestamp()) for s in spans],
        past=asks_about_past(text),
        vector=env.svc.embedder.embed_query(text),
        expired=_expired(env),
        decay_days=env.settings.decay_days,
    )
    return env.svc.retriever.search(env.user_id, query, k, weights)


#: Names of a message checked against the memory (a long message names many; a question few).
MAX_NAMES = 5


def found_signals(env: Env, text: str, found: list[MemoryBrief]) -> dict[str, Any]:
    """Code signals from what the search found: a closely similar stored memory, a name it knows."""
    best = max((f.get("similarity", 0.0) for f in found), default=0.0)
    signals: dict[str, Any] = {"similar_memory": best >= env.settings.similar_memory, "best_similarity": round(best, 3)}
    signals["about_user"] = about_user(text)
    signals["intent"] = env.svc.intents.recognise(text)
    signals["intent_by_meaning"] = "" if signals["intent"] else _by_meaning(env, text)
    if memory_signals(text).question:
        signals["named_in_memory"] = bool(env.svc.retriever.known_names(env.user_id, names(text)[:MAX_NAMES]))
    return signals


def _by_meaning(env: Env, text: str) -> str:
    """A task request's intent by meaning (the signal beside the cues): a catalogue intent's - not for
    a message that refers to the past (a question about an earlier task is no new one) - else the
    description of an earlier task of the user's of no catalogue intent (``learned_task``), also in
    a message that refers to the past ("renew my permit again")."""
    embedder = env.svc.embedder
    vector = embedder.embed_query(text)
    past = memory_signals(text).past_reference or asks_about_past(text)
    return ("" if past else env.svc.intents.by_meaning(vector, embedder.embed)) or learned_task(env, vector)


def learned_task(env: Env, vector: np.ndarray) -> str:
    """The description of the user's earlier task of no catalogue intent closest in meaning to a
    request (at least ``INTENT_SIMILARITY``), "" for none. The tasks come from ``Services.learned``
    (read again only after a write of the user's)."""
    best, sim = closest_task(vector, env.svc.learned.of(env.user_id))
    if best is None or best.intent is None or sim < INTENT_SIMILARITY:
        return ""
    return best.intent.description


def _draft(state: State, env: Env, route: Route, shown: list[MemoryBrief]) -> dict[str, Any] | None:
    """Start the answer for ``route`` with ``shown`` memories, unless its STM window needs a model call."""
    window = ready_window(state, env, route)
    if window is None:
        return None
    messages = answer_messages({**state, **window}, env, route, shown)
    return {"id": env.start_draft(messages), "memories": [m["id"] for m in shown]}


def _looked_for(env: Env, text: str) -> tuple[list[str], list[TimeSpan]]:
    """What code looks for in ``text``: the three ontology tags nearest by meaning and the time
    ranges of its time expressions."""
    ontology = env.ontology
    tags = [t for t, _ in env.svc.tagger.nearest(ontology, env.svc.embedder.embed_query(text), 3)[0]]
    return tags, _ranges(find_expressions(text), text, env)


def ranked_search(env: Env, text: str, k: int, weights: Weights = DEFAULT_WEIGHTS) -> list[MemoryBrief]:
    """The ranked search alone, no model: the user's best ``k`` records for ``text`` (lexical, dense,
    tags nearest by meaning, time ranges of its time expressions, names), with their scores."""
    tags, spans = _looked_for(env, text)
    return _rank(env, weights, text, tags, spans, k)


def search(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Run the ranked search for the current message; when code signals point to long-term memory,
    also run the relevance filter (and draft the answer) beside the plan.

    Returns:
        The state update: ``found``, ``found_signals``, ``tags``, ``time_ranges``, ``early``, ``draft``.
    """
    if not policy.uses_memory:
        return {"found": [], "found_signals": {}, "early": None, "draft": None}
    text = current_input(state, env)
    tags, spans = _looked_for(env, text)
    found = _search(env, policy, text, tags, spans, env.settings.search_k)
    signals = found_signals(env, text, found)
    env.note(SearchStep(tags=tags, ranges=spans, found=[{"id": f["id"], **f.get("scores", {})} for f in found]))
    update: dict[str, Any] = {
        "found": found,
        "found_signals": signals,
        "tags": tags,
        "time_ranges": spans,
        "early": None,
        "draft": None,
    }
    predicted = combine(None, {**asdict(memory_signals(text)), **signals}, "signals")
    if not (policy.filter_beside_plan and found and "ltm" in predicted):
        return update
    candidates = found[: env.settings.candidate_cap]
    if speculates(env):
        update["draft"] = _draft(state, env, predicted, candidates[: env.settings.max_kept])
    picked = policy.filter(state, env, candidates)
    update["early"] = {
        "seen": [c["id"] for c in candidates],
        "kept": None if picked is None else [m["id"] for m in picked],
    }
    env.note(EarlyFilterStep(early_filter=update["early"], drafted=update["draft"] is not None))
    return update


def combine(plan: Plan | None, signals: dict[str, Any], rule: str) -> Route:
    """The route from the plan and the code signals (``rule``: signals-or-model, model, signals).

    A reference to the past, a question about the user's own facts, a question naming someone or
    something the memory knows, or a closely similar stored memory is a memory signal; a time
    expression or a known name turns "this conversation" into "both", and so does the session's first
    message (there is no "this conversation" yet: the memory it needs is long-term)."""
    memory = bool(
        signals.get("past_reference")
        or signals.get("self_question")
        or signals.get("similar_memory")
        or signals.get("named_in_memory")
        or signals.get("about_user")
        or signals.get("intent")
        or signals.get("intent_by_meaning")
    )
    if plan is not None and not plan["model"]:
        return plan["route"]  # the policy fixes the route (always, none, dense)
    if plan is None or rule == "signals":
        return "ltm+stm" if memory else "none"
    route = plan["route"]
    if rule == "model":
        return route
    if route == "none" and memory:
        return "ltm+stm"
    if route == "stm" and (
        signals.get("past_reference")
        or signals.get("time_reference")
        or signals.get("named_in_memory")
        or signals.get("first_turn")
    ):
        return "ltm+stm"
    return route


def retrieve(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Settle the route from the plan and the signals, and the candidates for it.

    Searches again when the plan adds tags or time ranges to look for.

    Returns:
        The state update: ``route``, ``decisions``, ``signals``, the STM window, ``tags``, ``time_ranges``
        and ``candidates`` (none when the route has no long-term memory).
    """
    plan = state.get("plan")
    found = state.get("found", [])
    signals = {**state.get("signals", {}), **state.get("found_signals", {})}
    rule = env.settings.route_rule
    route: Route = combine(plan, signals, rule) if policy.uses_memory else "none"
    decisions: dict[str, Any] = {**(plan["decisions"] if plan else {"plan": "none: code signals"}), "rule": rule}
    update: dict[str, Any] = {
        "route": route,
        "decisions": decisions,
        "signals": signals,
        **stm_window(state, env, route),
    }
    if "ltm" not in route:
        env.note(RouteStep(route=route, signals=cast(RouteSignals, signals)))
        return {**update, "candidates": []}
    text = current_input(state, env)
    tags = list(state.get("tags", []))
    spans = list(state.get("time_ranges", []))
    if plan is not None and plan["model"]:
        new_tags = [t for t in plan["tags"] if t in env.ontology and t not in tags]
        new_spans = [s for s in _ranges(plan["time_expressions"], "", env) if s not in spans]
        if new_tags or new_spans:  # the plan adds something to look for: search again with it
            tags = list(dict.fromkeys([*plan["tags"], *tags]))[:3]
            spans += new_spans
            found = _search(env, policy, text, tags, spans, env.settings.search_k)
    candidates = found[: env.settings.candidate_cap]
    env.note(
        RouteStep(
            route=route,
            signals=cast(RouteSignals, signals),
            tags=tags,
            ranges=spans,
            candidate_ids=[c["id"] for c in candidates],
        )
    )
    return {**update, "tags": tags, "time_ranges": spans, "candidates": candidates}


def after_retrieve(state: State) -> str:
    """``filter_relevant`` when the route reads long-term memory and has candidates, else ``goal``."""
    if "ltm" in state.get("route", "none") and state.get("candidates"):
        return "filter_relevant"
    return "goal"


def memory_prompt(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """The kept memories as a block for any model's prompt, quoted and dated as caim's own answer
    sees them ("" when the route uses no long-term memory)."""
    route = state.get("route", "none")
    if "ltm" not in route:
        return {"memory_prompt": ""}
    memories = state.get("memories", [])
    profile = profile_lines(env, memories, current_input(state, env))
    block = respond_prompt.memory_block(memories, memory_question=True, profile=profile, task=task_note(state, env))
    env.note(PromptStep(prompt_chars=len(block)))
    return {"memory_prompt": block}


def filter_relevant(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Keep the candidates the policy's filter picks (or picked beside the plan), with the top ones
    that are similar enough, up to ``max_kept``; the best-ranked ones when the filter gives None.

    Returns:
        The state update: ``memories``.
    """
    candidates = state.get("candidates", [])
    s = env.settings
    early = state.get("early")
    picked: list[MemoryBrief] | None
    if early is not None and {c["id"] for c in candidates} <= set(early["seen"]):
        kept_ids = early["kept"]  # decided beside the plan, on these very candidates
        picked = None if kept_ids is None else [c for c in candidates if c["id"] in kept_ids]
    else:
        picked = policy.filter(state, env, candidates)
    if picked is None:
        kept = candidates[: s.max_kept]
    else:
        floor = [c for c in candidates[: s.keep_top] if c.get("similarity", 0.0) >= s.keep_similarity]
        ids = {m["id"] for m in picked}
        kept = [c for c in candidates if c["id"] in ids or c in floor][: s.max_kept]
    env.note(FilterStep(kept_ids=[m["id"] for m in kept], model=picked is not None, beside_plan=early is not None))
    return {"memories": kept}


def _learned_goal(state: State, env: Env, name: str) -> dict[str, Any]:
    """A request matched to an earlier task of no catalogue intent (``name``: its description, as
    ``learned_task`` found it): the description as the intent, the units holding it first among the
    kept memories (no slots: nothing known or missing)."""
    units = [r for r in env.svc.learned.of(env.user_id) if r.intent is not None and r.intent.description == name]
    if not units:
        return {"intent": "", "known": {}, "missing": []}
    units = units[:UNITS]
    briefs = [r.brief(env.settings.source_chars) for r in units]
    kept = list({m["id"]: m for m in [*briefs, *state.get("memories", [])]}.values())
    env.note(GoalStep(intent=name, known=[], stated=[], missing=[]))
    return {"intent": name, "known": {}, "missing": [], "memories": kept[: max(env.settings.max_kept, len(briefs))]}


#: Ranked records read per slot search of a task request, and earlier tasks of its intent read.
SLOT_K = 6
UNITS = 5


def goal(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Goal-aware recall: for a task request (an intent of ``env.svc.intents``: by its cues, else the
    plan's task, else by meaning), the slots memory fills - each from the newest current memory that
    gives a value, found by one search per slot, among earlier tasks of the intent and among the
    newest records tagged with the single-valued terms its slots take (where the user lives, their
    diet) - and those still missing; the memories that fill a slot the request leaves open go first
    among the kept ones (``max_kept`` grows to hold them).

    Returns:
        The state update: ``intent``, ``known``, ``missing`` and the ``memories`` with the fillers first.
    """
    signals = state.get("signals", {})
    plan = state.get("plan")
    planned = plan.get("intent", "") if plan is not None else ""
    name = signals.get("intent") or planned or signals.get("intent_by_meaning") or ""
    if not name or "ltm" not in state.get("route", "none"):
        return {"intent": "", "known": {}, "missing": []}
    if name not in env.svc.intents.intents:  # a task of no catalogue intent the user asked for before
        return _learned_goal(state, env, name)
    text = current_input(state, env)
    intent = env.svc.intents.intents[name]
    pool: dict[str, MemoryRecord] = {}
    queries = search_texts(intent, text)
    env.svc.embedder.embed_queries(queries)  # one batch; each search below finds its vector remembered
    for query in queries:
        pool.update((h.record.id, h.record) for h in _hits(env, policy.weights, query, [], [], SLOT_K))
    units = env.svc.store.page(env.user_id, 0, UNITS, [intent.tag])  # earlier tasks of this intent
    pool.update((r.id, r) for r in units if r.intent is not None and r.intent.name == name)
    ontology = env.ontology
    terms = {t for s in intent.slots if (t := SINGLE_VALUED.get(s.kind)) and ontology.single_valued(t)}
    pool.update((r.id, r) for r in env.svc.store.page(env.user_id, 0, UNITS, sorted(terms)) if terms)  # stated facts
    filled = fill(intent, text, list(pool.values()))
    fillers = [pool[k.memory].brief(env.settings.source_chars) for k in filled.known.values()]
    kept = list({m["id"]: m for m in [*fillers, *state.get("memories", [])]}.values())
    known = {s: KnownSlot(value=k.value, memory=k.memory, date=k.date) for s, k in filled.known.items()}
    env.note(GoalStep(intent=name, known=sorted(known), stated=sorted(filled.stated), missing=filled.missing))
    return {
        "intent": name,
        "known": known,
        "missing": filled.missing,
        "memories": kept[: max(env.settings.max_kept, len(fillers))],
    }
