"""Memory retrieval nodes (CAIM step 2): tags, time references, candidate fetch, relevance filter.

1. ``select_tags``: the policy picks ontology tags (unknown ones are dropped here).
2. ``resolve_time``: the policy lists time expressions; code resolves them to date ranges relative
   to the turn time; "our first conversation" is the day of this user's earliest record.
3. ``fetch_candidates``: plain code - this user's records sharing a tag OR inside a range, newest
   first, capped; plus a few nearest by meaning when the policy asks for them.
4. ``filter_relevant``: the policy keeps the candidates that go to the answer.
"""

from __future__ import annotations

import re
from datetime import datetime, time
from typing import Any

from caim.graph.common import current_input
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import State
from caim.memory.records import as_aware
from caim.memory.timeref import TimeRange, TimeSpan, resolve

_FIRST = re.compile(r"\b(first|earliest) (conversation|chat|talk|session|time we (talked|spoke|met))\b", re.I)


def select_tags(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    tags = [t for t in policy.select_tags(state, env) if t in env.svc.ontology.current]
    env.note(tags=tags)
    return {"tags": tags}


def resolve_time(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    ranges: list[TimeSpan] = []
    for expr in policy.time_expressions(state, env):
        r = resolve(expr, env.now)
        if r:
            ranges.append(r.span())
    if _FIRST.search(current_input(state, env)):
        first = env.svc.store.first(env.user_id)
        if first:
            day = as_aware(first.event_time)
            start = datetime.combine(day.date(), time.min, tzinfo=day.tzinfo)
            end = datetime.combine(day.date(), time.max, tzinfo=day.tzinfo)
            ranges.append(TimeRange("first conversation", start, end).span())
    env.note(ranges=ranges)
    return {"time_ranges": ranges}


def fetch_candidates(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    s = env.settings
    ranges = [TimeRange.of(r) for r in state.get("time_ranges", [])]
    recs = env.svc.store.candidates(
        env.user_id, state.get("tags", []), [(r.start, r.end) for r in ranges], limit=s.candidate_cap
    )
    seen = {r.id for r in recs}
    semantic = []
    if policy.semantic_candidates and s.semantic_k > 0:
        for rec, sim in env.svc.store.similar(env.user_id, current_input(state, env), s.semantic_k):
            if rec.id not in seen and sim >= s.semantic_min_similarity:
                recs.append(rec)
                seen.add(rec.id)
                semantic.append(rec.id)
    candidates = [r.brief(s.source_chars) for r in recs]
    env.note(ids=[c["id"] for c in candidates], semantic_ids=semantic)
    return {"candidates": candidates}


def filter_relevant(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    kept = policy.filter(state, env)
    env.note(kept_ids=[m["id"] for m in kept])
    return {"memories": kept}
