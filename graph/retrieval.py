"""Memory retrieval (CAIM step 2): tags, time references, candidate fetch, relevance filter.

1. ``select_tags``: an LLM picks two or three ontology tags; the schema enumerates the ontology.
2. ``resolve_time``: an LLM lists time expressions; code resolves them to date ranges relative to
   the turn time (plus code-detected phrases, so a missed "yesterday" still counts).
3. ``fetch_candidates``: plain code - this user's records sharing a tag OR inside a range, newest
   first, capped; plus a few nearest by meaning (MiniLM) when tags miss.
4. ``filter_relevant``: an LLM sees the numbered candidates and returns the relevant numbers
   (contradicting records count as relevant). Fallback: keep candidates up to ``max_kept``.
"""

from __future__ import annotations

import re
from datetime import datetime

from caim.graph.controller import current_input
from caim.graph.env import Env
from caim.graph.state import State
from caim.memory.records import as_aware
from caim.memory.timeref import find_expressions, resolve
from caim.prompts import relevance as relevance_prompt
from caim.prompts import tags as tags_prompt
from caim.prompts import timeref as time_prompt

_FIRST = re.compile(r"\b(first|earliest) (conversation|chat|talk|session|time we (talked|spoke|met))\b", re.I)


def keyword_tags(text: str, env: Env, limit: int = 3) -> list[str]:
    """Ontology terms that literally occur in the text (code-only fallback)."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    return [t for t in env.svc.ontology.current.tags if t in words][:limit]


def caim_tags(state: State, env: Env) -> list[str]:
    ontology = env.svc.ontology.current
    schema = tags_prompt.schema(ontology.tags)
    text = current_input(state, env)
    answer, ok = env.svc.llm.structured(
        "tags", schema, tags_prompt.messages(text, ontology.outline()), None, env.trace, "select_tags"
    )
    if not ok:
        return []  # fallback recorded in trace: time-only retrieval
    return list(dict.fromkeys(answer.tags))[:3]


def caim_time_expressions(state: State, env: Env) -> list[str]:
    text = current_input(state, env)
    answer, ok = env.svc.llm.structured(
        "time", time_prompt.TimeRefs, time_prompt.messages(text, env.now.date().isoformat()), None, env.trace, "resolve_time"
    )
    found = [e for e in (answer.expressions if ok else []) if e and e.lower() in text.lower()]
    return list(dict.fromkeys(found + find_expressions(text)))


def select_tags(state: State, env: Env) -> dict:
    tags = [t for t in env.policy.select_tags(state, env) if t in env.svc.ontology.current]
    env.note("select_tags", tags=tags)
    return {"tags": tags}


def resolve_time(state: State, env: Env) -> dict:
    ranges = []
    for expr in env.policy.time_expressions(state, env):
        r = resolve(expr, env.now)
        if r:
            ranges.append(r.as_dict())
    if _FIRST.search(current_input(state, env)):
        first = env.svc.store.list(env.user_id)[:1]
        if first:
            day = as_aware(first[0].event_time).date().isoformat()
            ranges.append({"expression": "first conversation", "start": f"{day}T00:00:00+00:00", "end": f"{day}T23:59:59+00:00"})
    env.note("resolve_time", ranges=ranges)
    return {"time_ranges": ranges}


def fetch_candidates(state: State, env: Env) -> dict:
    s = env.settings
    ranges = [(datetime.fromisoformat(r["start"]), datetime.fromisoformat(r["end"])) for r in state.get("time_ranges", [])]
    recs = env.svc.store.candidates(env.user_id, state.get("tags", []), ranges, limit=s.candidate_cap)
    seen = {r.id for r in recs}
    semantic = []
    if env.policy.semantic_candidates and s.semantic_k > 0:
        for rec, sim in env.svc.store.similar(env.user_id, current_input(state, env), s.semantic_k):
            if rec.id not in seen and sim >= s.semantic_min_similarity:
                recs.append(rec)
                seen.add(rec.id)
                semantic.append(rec.id)
    candidates = [r.brief(s.source_chars) for r in recs]
    env.note("fetch_candidates", ids=[c["id"] for c in candidates], semantic_ids=semantic)
    return {"candidates": candidates}


def caim_filter(state: State, env: Env) -> list[dict]:
    cands = state.get("candidates", [])
    if not cands:
        return []
    cap = env.settings.max_kept
    schema = relevance_prompt.schema(len(cands), cap)
    answer, ok = env.svc.llm.structured(
        "relevance", schema, relevance_prompt.messages(current_input(state, env), cands), None, env.trace, "filter_relevant"
    )
    if not ok:
        return cands[:cap]
    picked = [n for n in dict.fromkeys(answer.relevant) if 1 <= n <= len(cands)]
    return [cands[n - 1] for n in picked][:cap]


def filter_relevant(state: State, env: Env) -> dict:
    kept = env.policy.filter(state, env)
    env.note("filter_relevant", kept_ids=[m["id"] for m in kept])
    return {"memories": kept}
