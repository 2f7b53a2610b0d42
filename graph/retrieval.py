"""Memory retrieval nodes (CAIM step 2): ranked search, route and candidates, relevance filter.

1. ``search`` runs beside the controller, needing no decision: the ranked search of
   ``caim.services.search`` (the one ``Memory.search`` runs) over the message read once, with the
   tags nearest by meaning and the time expressions code finds (resolved against the turn time;
   "our first conversation" is the day of the user's earliest record). When code signals point to
   memory and the policy filters beside its plan (``filter_beside_plan``), the relevance filter runs
   here on the best ``candidate_cap`` records, in parallel with the plan - and, with
   ``speculative_answer``, the answer is drafted from the best ``max_kept`` of them before either
   decision is in.
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

Where the code signals leave no doubt (``early_route``: small talk needs no long-term memory; a
memory question needs it, whatever the plan says, and with a closely similar stored memory or a
best-ranked record holding nearly all its words the ranking is confident) and the plan is a
model's call, ``search`` answers at once (``early_answer``): the route is the signals', the
best-ranked records up to ``max_kept`` are kept, and the answer streams while the plan is still
out; ``retrieve`` then keeps that route and those memories, and ``respond`` the answer.
"""

from __future__ import annotations

from dataclasses import asdict
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
from caim.graph.reply import produce
from caim.graph.state import EarlyAnswer, KnownSlot, Plan, State
from caim.graph.steps import (
    EarlyAnswerStep,
    EarlyFilterStep,
    FilterStep,
    GoalStep,
    PromptStep,
    RouteSignals,
    RouteStep,
    SearchStep,
)
from caim.memory.answer import memory_question
from caim.memory.intents import INTENT_SIMILARITY, SINGLE_VALUED, closest_task, fill, search_texts
from caim.memory.profile import about_user
from caim.memory.records import MemoryBrief, MemoryRecord
from caim.memory.text import asks_about_past, is_small_talk, memory_signals, names
from caim.memory.text.timeref import TimeSpan
from caim.prompts import respond as respond_prompt
from caim.services.search import Reading, SearchScope, hits, looked_for, rank, read, time_spans


def scope_of(env: Env) -> SearchScope:
    """The search scope of a node's run: its user, services, settings and turn time."""
    svc = env.svc
    return SearchScope(
        svc.store, svc.retriever, svc.embedder, svc.tagger, env.ontology, env.settings, env.user_id, env.now
    )


def _search(
    env: Env, policy: MemoryPolicy, reading: Reading, tags: list[str], spans: list[TimeSpan], k: int
) -> list[MemoryBrief]:
    # a turn's candidates are all the ranking's best: the relevance filter judges them (a question
    # such as "what do I like to do?" shares no word with "loves hiking"); the floor is for searches
    return rank(scope_of(env), reading, policy.weights, tags, spans, k, floor=False)


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


def search(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Run the ranked search for the current message; when code signals point to long-term memory,
    also run the relevance filter (and draft the answer) beside the plan.

    Returns:
        The state update: ``found``, ``found_signals``, ``tags``, ``time_ranges``, ``early``, ``draft``.
    """
    if not policy.uses_memory:
        return {"found": [], "found_signals": {}, "early": None, "draft": None, "answered": None}
    text = current_input(state, env)
    scope = scope_of(env)
    reading = read(scope, text)
    tags, spans = looked_for(scope, reading)
    found = _search(env, policy, reading, tags, spans, env.settings.search_k)
    signals = found_signals(env, text, found)
    env.note(SearchStep(tags=tags, ranges=spans, found=[{"id": f["id"], **f.get("scores", {})} for f in found]))
    update: dict[str, Any] = {
        "found": found,
        "found_signals": signals,
        "tags": tags,
        "time_ranges": spans,
        "early": None,
        "draft": None,
        "answered": None,
    }
    code_signals = {**asdict(memory_signals(text)), **signals}
    route = early_route(state, env, policy, text, code_signals, found)
    if route is not None:
        return {**update, "answered": answer_early({**state, "signals": code_signals}, env, route, found)}
    predicted = combine(None, code_signals, "signals")
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


#: A memory question whose best-ranked record holds this much relevance (nearly all of its words)
#: has a confident ranking, as one with a closely similar stored memory (``similar_memory``) has.
CONFIDENT_RELEVANCE = 0.9


def early_route(
    state: State, env: Env, policy: MemoryPolicy, text: str, signals: dict[str, Any], found: list[MemoryBrief]
) -> Route | None:
    """The route when the code signals leave no doubt and the plan is a model's call (``starts_early``,
    a policy that plans beside the filter), else ``None``: small talk needs no long-term memory
    (``stm`` within a session, ``none`` at its start); a memory question (``memory_question``) needs
    it - the plan cannot route it elsewhere (``combine``) - and when the ranking is confident (a
    closely similar stored memory, or a best-ranked record of ``CONFIDENT_RELEVANCE``) its answer
    need not wait: ``ltm+stm``. A task request (an intent) waits for the plan, and so does a turn
    whose STM window needs a summary first."""
    if not (starts_early(env) and policy.filter_beside_plan) or env.on_code("plan"):
        return None
    route: Route | None = None
    confident = signals.get("similar_memory") or (found and found[0].get("relevance", 0.0) >= CONFIDENT_RELEVANCE)
    if is_small_talk(text) and "ltm" not in combine(None, signals, "signals"):
        route = "stm" if len(state["messages"]) > 1 else "none"
    elif memory_question(text) and confident and not signals.get("intent"):
        route = "ltm+stm"
    if route is None or signals.get("intent_by_meaning") or ready_window(state, env, route) is None:
        return None
    return route


def starts_early(env: Env) -> bool:
    """Whether this run may answer before the plan (``early_answer``; unset: where answers are drafted
    beside the decisions, ``speculates``, since the answer then runs beside the plan call)."""
    setting = env.settings.early_answer
    return speculates(env) if setting is None else setting


def answer_early(state: State, env: Env, route: Route, found: list[MemoryBrief]) -> EarlyAnswer:
    """The answer for ``route`` started now, with the best-ranked records up to ``max_kept`` (none
    for a route without long-term memory), streamed to callers as ``respond`` would."""
    kept = found[: env.settings.max_kept] if "ltm" in route else []
    env.note(EarlyAnswerStep(early_answer=route, memory_ids=[m["id"] for m in kept]))
    window = ready_window(state, env, route) or {}
    done = produce({**state, **window}, env, route, kept, None)
    return EarlyAnswer(text=done.text, route=route, memories=kept, used=done.used)


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
    answered = state.get("answered")
    route: Route = combine(plan, signals, rule) if policy.uses_memory else "none"
    decisions: dict[str, Any] = {**(plan["decisions"] if plan else {"plan": "none: code signals"}), "rule": rule}
    if answered:  # the answer started before the plan: its route and memories stand
        route = answered["route"]
        decisions["early_answer"] = True
        env.note(RouteStep(route=route, signals=cast(RouteSignals, signals)))
        kept = answered["memories"]
        window = ready_window(state, env, route) or {}
        return {
            "route": route,
            "decisions": decisions,
            "signals": signals,
            "candidates": kept,
            "memories": kept,
            **window,
        }
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
        scope = scope_of(env)
        language = env.svc.retriever.usual_language(env.user_id)  # the search step's, kept by the retriever
        new_spans = [s for s in time_spans(scope, plan["time_expressions"], language) if s not in spans]
        if new_tags or new_spans:  # the plan adds something to look for: search again with it
            tags = list(dict.fromkeys([*plan["tags"], *tags]))[:3]
            spans += new_spans
            found = _search(env, policy, read(scope, text), tags, spans, env.settings.search_k)
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
    """``filter_relevant`` when the route reads long-term memory and has candidates (and the answer
    did not start before the plan, with its memories), else ``goal``."""
    if "ltm" in state.get("route", "none") and state.get("candidates") and not state.get("answered"):
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
    if not name or "ltm" not in state.get("route", "none") or state.get("answered"):
        return {"intent": "", "known": {}, "missing": []}
    if name not in env.svc.intents.intents:  # a task of no catalogue intent the user asked for before
        return _learned_goal(state, env, name)
    text = current_input(state, env)
    intent = env.svc.intents.intents[name]
    pool: dict[str, MemoryRecord] = {}
    queries = search_texts(intent, text)
    env.svc.embedder.embed_queries(queries)  # one batch; each search below finds its vector remembered
    scope = scope_of(env)
    user = env.svc.retriever.prepare(env.user_id)  # one user's search for every slot's query
    for query in queries:
        reading = read(scope, query, user)
        pool.update((h.record.id, h.record) for h in hits(scope, reading, policy.weights, [], [], SLOT_K))
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
