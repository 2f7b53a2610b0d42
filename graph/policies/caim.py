"""``caim``: the default policy - one planning call, the relevance filter, post-thinking with maintenance.

- plan: one structured call gives the controller's decisions in the cascade's order (needs memory?
  which memory?) and what to look for (tags from a shortlist of the nearest ontology terms, time
  expressions); the ranked search runs in parallel with it;
- filter: the model keeps the relevant numbered candidates (contradicting ones count). When code
  signals point to memory it runs on the code-ranked candidates beside the plan
  (``filter_beside_plan``), so the answer starts after one round trip (two when the plan's tags or
  time expressions change the candidates, or the plan alone asks for memory); with
  ``speculative_answer`` the answer is drafted beside both and stands when they confirm it;
- key events: the session's turns in chunks of eight, each event dated by its turn;
- thoughts: one call per chunk of events writes the memory sentences, picks tags, may propose terms;
- maintain: one call decides, per new memory, new / same / update / extends / contradicts;
- profile: one call rewrites the backgrounds of the aspects a session touched, one names and
  summarises the clusters of preferences (code keeps them only when grounded).
"""

from __future__ import annotations

from collections.abc import Sequence

from caim.core.types import Route
from caim.graph.common import current_input, recent_turns
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import KeyEvent, Plan, State
from caim.memory.maintenance import MaintainGroup
from caim.memory.records import MemoryBrief
from caim.memory.stm import Exchange, clip
from caim.prompts import key_events as events_prompt
from caim.prompts import maintain as maintain_prompt
from caim.prompts import plan as plan_prompt
from caim.prompts import profile as profile_prompt
from caim.prompts import relevance as relevance_prompt
from caim.prompts import thoughts as thoughts_prompt
from caim.prompts.maintain import MaintenancePlan
from caim.prompts.profile import AspectUpdate, Backgrounds, Principles
from caim.prompts.thoughts import Thoughts

_ROUTES: dict[tuple[str, str], Route] = {
    ("no", "past"): "none",
    ("no", "current"): "none",
    ("no", "both"): "none",
    ("yes", "past"): "ltm",
    ("yes", "current"): "stm",
    ("yes", "both"): "ltm+stm",
}


class CaimPolicy(MemoryPolicy):
    """CAIM: one planning call, the model's relevance filter beside it, post-thinking with maintenance."""

    name = "caim"
    description = "One planning call beside the ranked search, LLM relevance filter, post-thinking with maintenance."
    filter_beside_plan = True

    def plan(self, state: State, env: Env, shortlist: Sequence[str]) -> Plan | None:
        """The planning call's route, tags and the time expressions found in the message; None when it fails."""
        text = current_input(state, env)
        answer = env.structured(
            "plan",
            plan_prompt.schema(list(shortlist), list(env.svc.intents.intents)),
            plan_prompt.messages(text, recent_turns(state), env.now.date().isoformat(), list(shortlist)),
        )
        if answer is None:
            return None
        return {
            "route": _ROUTES[(answer.needs_memory, answer.memory)],
            "decisions": {"needs_memory": answer.needs_memory, "memory": answer.memory},
            "tags": list(dict.fromkeys(answer.tags)),
            "time_expressions": [e for e in answer.time_expressions if e and e.lower() in text.lower()],
            "model": True,
            "intent": "" if answer.task == "none" else answer.task,
        }

    def filter(self, state: State, env: Env, candidates: list[MemoryBrief]) -> list[MemoryBrief] | None:
        """The candidates the model marks relevant, in its order, up to ``max_kept``; None when it fails."""
        cap = env.settings.max_kept
        answer = env.structured(
            "relevance",
            relevance_prompt.schema(len(candidates), cap),
            relevance_prompt.messages(current_input(state, env), candidates),
        )
        if answer is None:
            return None
        picked = [n for n in dict.fromkeys(answer.relevant) if 1 <= n <= len(candidates)]
        return [candidates[n - 1] for n in picked][:cap]

    def key_events(self, env: Env, chunk: list[Exchange]) -> list[KeyEvent] | None:
        """The model's key events of ``chunk``, each dated by its turn, repeats dropped; None when it fails."""
        answer = env.structured(
            "key_events",
            events_prompt.schema([t.number for t in chunk]),
            events_prompt.messages([(t.number, t.user, t.assistant) for t in chunk]),
        )
        if answer is None:
            return None
        by_number = {t.number: t for t in chunk}
        seen: set[str] = set()
        events: list[KeyEvent] = []
        for e in answer.events:
            text = e.event.strip()
            if not text or text.lower() in seen:  # small models repeat items
                continue
            seen.add(text.lower())
            t = by_number[e.turn]
            events.append(
                {"turn": t.number, "event": clip(text, 500), "time": (t.time or env.now).isoformat(), "origin": "model"}
            )
        return events

    def thoughts(self, env: Env, events: list[KeyEvent], tags: list[str], parents: list[str]) -> Thoughts | None:
        """The model's memory sentence and tags per event (``prompts.thoughts``); None when it fails."""
        facts = [(i, e["time"][:10], e["event"]) for i, e in enumerate(events, 1)]
        return env.structured(
            "thoughts",
            thoughts_prompt.schema([n for n, _, _ in facts], tags, parents),
            thoughts_prompt.messages(facts, tags, parents),
        )

    def maintain(self, env: Env, groups: list[MaintainGroup]) -> MaintenancePlan | None:
        """The model's relation of each new memory to the stored ones (``prompts.maintain``); None when it fails."""
        new = [g.new for g in groups]
        stored = sorted({m.number for g in groups for m in g.stored})
        return env.structured("maintain", maintain_prompt.schema(new, stored), maintain_prompt.messages(groups))

    def backgrounds(self, env: Env, updates: list[AspectUpdate]) -> Backgrounds | None:
        """The model's new background per touched aspect (``prompts.profile``); None when it fails."""
        schema = profile_prompt.background_schema([u.aspect for u in updates])
        return env.structured("profile", schema, profile_prompt.background_messages(updates))

    def principles(self, env: Env, groups: list[list[str]]) -> Principles | None:
        """The model's requirement type and summary per preference cluster; None when it fails."""
        schema = profile_prompt.principle_schema(list(range(1, len(groups) + 1)))
        return env.structured("profile", schema, profile_prompt.principle_messages(groups))
