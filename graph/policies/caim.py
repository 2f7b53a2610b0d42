"""``caim``: the CAIM paper's policy - its decisions live here, the nodes only apply them.

- route: a cascade of separate two-option LLM decisions (needs earlier information? both past and
  current? past only?); malformed output falls back to ``ltm+stm`` (recorded);
- tags: two or three ontology tags from an enumerated schema; time: expressions found by the LLM
  (kept only if they occur in the message) plus those code finds;
- filter: the LLM keeps the relevant numbered candidates (contradicting ones count); fallback:
  the candidates up to ``max_kept``;
- key events: the session's numbered turns in chunks, each event dated by its turn;
- review: new records and stored ones sharing a tag go to the LLM, which groups same-meaning
  records; groups whose members are not similar in meaning (embedding cosine) are refused, and
  ``caim.memory.merge`` applies the rest.
"""

from __future__ import annotations

from typing import Any

from caim.core.types import Route
from caim.graph.common import current_input, recent_turns
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import KeyEvent, State
from caim.memory.merge import Merge, apply_merges
from caim.memory.records import MemoryBrief
from caim.memory.stm import Turn, clip, turns
from caim.memory.timeref import find_expressions
from caim.prompts import controller as controller_prompt
from caim.prompts import key_events as events_prompt
from caim.prompts import merge as merge_prompt
from caim.prompts import relevance as relevance_prompt
from caim.prompts import tags as tags_prompt
from caim.prompts import timeref as time_prompt

CHUNK_TURNS = 8
MERGE_WINDOW = 24


def numbered_turns(chunk: list[Turn], limit: int) -> str:
    """Turns as the key-event prompt shows them. No timestamps: each event's time comes from its
    turn number, in code."""
    return "\n\n".join(
        f"Turn {t.number}\nUser: {clip(t.user, limit)}\nAssistant: {clip(t.assistant, limit)}" for t in chunk
    )


class CaimPolicy(MemoryPolicy):
    name = "caim"
    description = "CAIM: controller cascade, tag+time retrieval, LLM relevance filter, post-thinking with review."

    def route(self, state: State, env: Env) -> tuple[Route, dict[str, Any]]:
        text = current_input(state, env)
        recent = recent_turns(state)
        decisions: dict[str, Any] = {}

        def ask(name: str) -> str | None:
            choice = env.structured(
                "controller", controller_prompt.Choice, controller_prompt.messages(name, text, recent)
            )
            decisions[name] = choice.answer if choice else "fallback"
            return choice.answer if choice else None

        first = ask("needs_memory")
        if first is None:
            return "ltm+stm", decisions
        if first == "B":
            return "none", decisions
        both = ask("needs_both")
        if both is None or both == "A":
            return "ltm+stm", decisions
        past = ask("past_only")
        if past is None:
            return "ltm+stm", decisions
        return ("ltm" if past == "A" else "stm"), decisions

    def select_tags(self, state: State, env: Env) -> list[str]:
        ontology = env.svc.ontology.current
        answer = env.structured(
            "tags",
            tags_prompt.schema(ontology.tags),
            tags_prompt.messages(current_input(state, env), ontology.outline()),
        )
        return list(dict.fromkeys(answer.tags))[:3] if answer else []  # no tags: time-only retrieval

    def time_expressions(self, state: State, env: Env) -> list[str]:
        text = current_input(state, env)
        answer = env.structured("time", time_prompt.TimeRefs, time_prompt.messages(text, env.now.date().isoformat()))
        found = [e for e in (answer.expressions if answer else []) if e and e.lower() in text.lower()]
        return list(dict.fromkeys(found + find_expressions(text)))

    def filter(self, state: State, env: Env) -> list[MemoryBrief]:
        cands = state.get("candidates", [])
        if not cands:
            return []
        cap = env.settings.max_kept
        answer = env.structured(
            "relevance",
            relevance_prompt.schema(len(cands), cap),
            relevance_prompt.messages(current_input(state, env), cands),
        )
        if answer is None:
            return cands[:cap]
        picked = [n for n in dict.fromkeys(answer.relevant) if 1 <= n <= len(cands)]
        return [cands[n - 1] for n in picked][:cap]

    def key_events(self, state: State, env: Env) -> tuple[list[KeyEvent], bool]:
        all_turns = turns(state.get("messages", []))
        events: list[KeyEvent] = []
        ok_all = True
        for i in range(0, len(all_turns), CHUNK_TURNS):
            chunk = all_turns[i : i + CHUNK_TURNS]
            answer = env.structured(
                "key_events",
                events_prompt.schema([t.number for t in chunk]),
                events_prompt.messages(numbered_turns(chunk, 700)),
            )
            if answer is None:
                ok_all = False
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

    def review(self, state: State, env: Env) -> list[Merge]:
        stored = state.get("stored", [])
        new_ids = [r["id"] for r in stored]
        if not new_ids:
            return []
        store = env.svc.store
        pool = store.candidates(env.user_id, sorted({t for r in stored for t in r["tags"]}), limit=MERGE_WINDOW)
        pool_ids = {r.id for r in pool}
        for rid in new_ids:  # new records always take part, even past the window
            rec = store.get(env.user_id, rid) if rid not in pool_ids else None
            if rec:
                pool.append(rec)
        if len(pool) < 2:
            return []
        answer = env.structured(
            "merge", merge_prompt.schema(len(pool)), merge_prompt.messages([r.brief() for r in pool])
        )
        if answer is None:
            return []
        groups = []
        for g in answer.groups:
            members = [pool[n - 1] for n in dict.fromkeys(g) if 1 <= n <= len(pool)]
            if len(members) < 2 or not any(m.id in new_ids for m in members):
                continue
            sims = env.svc.embedder.similarity([m.thought for m in members])[0]  # one batch per group
            similar = [m for m, sim in zip(members, sims, strict=False) if sim >= env.settings.merge_min_similarity]
            if len(similar) >= 2:
                groups.append([m.id for m in similar])
        return apply_merges(store, env.user_id, groups, {r.id: r for r in pool})
