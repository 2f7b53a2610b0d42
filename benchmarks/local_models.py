"""Which bundled local model should be the default: every model-judged role, measured on labelled probes.

For each bundled model (``smollm2``, ``gemma3``) the probes in ``benchmarks/probes/local_models.json``
go through the ``caim`` policy's own functions (``CaimPolicy.plan``, ``filter``, ``key_events``,
``thoughts``, ``maintain``) and the answer and summary prompts, over the real client
(``caim.core.llm.LLM``: the in-process llama.cpp server, json_schema-constrained output). Per role
it counts calls, **valid** answers (parsed without a fallback), **sensible** answers (the probe's
label: the right route, the relevant numbers, the fact's keyword kept, the right maintenance
decision, the memory used in the answer), seconds and tokens per call. It writes a Markdown report
whose conclusion names the winner: most sensible answers, then most valid, then fastest.

    python benchmarks/local_models.py [--models smollm2,gemma3] [--out docs/local-models.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from caim.core.models import Models
from caim.core.settings import Settings
from caim.core.trace import llm_calls
from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.services import Services
from caim.graph.state import Context, KeyEvent
from caim.memory.stm import TIME_KEY, transcript, turns
from caim.prompts import respond as respond_prompt
from caim.prompts import summarize as summarize_prompt

ROOT = Path(__file__).resolve().parents[1]
PROBES = Path(__file__).with_name("probes") / "local_models.json"
ROLES = ("plan", "relevance", "key_events", "thoughts", "maintain", "respond", "summarize")


@dataclass
class RoleScore:
    calls: int = 0
    valid: int = 0
    sensible: int = 0
    items: int = 0
    ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass
class ModelRun:
    name: str
    describe: str = ""
    roles: dict[str, RoleScore] = field(default_factory=lambda: {r: RoleScore() for r in ROLES})
    notes: list[str] = field(default_factory=list)

    def total(self, key: str) -> int:
        return sum(getattr(r, key) for r in self.roles.values())


def _env(services: Services, today: str, trace: list) -> Env:
    now = datetime.fromisoformat(f"{today}T12:00:00+00:00")
    return Env(services, services.settings, Context(user_id="bench"), now, "bench", trace)


def _state(message: str, recent: list[list[str]]) -> dict[str, Any]:
    msgs: list[Any] = []
    for user, reply in recent:
        msgs += [HumanMessage(user), AIMessage(reply)]
    return {"messages": [*msgs, HumanMessage(message)]}


def _brief(i: int, thought: str, today: str) -> dict[str, Any]:
    return {"id": str(i), "thought": thought, "tags": ["personal"], "event_time": f"{today}T10:00:00+00:00"}


def _score(run: ModelRun, role: str, trace: list, sensible: int, items: int = 1) -> None:
    calls = llm_calls(trace)
    s = run.roles[role]
    s.calls += len(calls)
    s.valid += sum(1 for c in calls if not c.get("fallback"))
    s.sensible += sensible
    s.items += items
    s.ms += sum(float(c["ms"]) for c in calls)
    s.tokens_in += sum(int(c["input_tokens"]) for c in calls)
    s.tokens_out += sum(int(c["output_tokens"]) for c in calls)
    trace.clear()


def run_model(name: str, services: Services, probes: dict[str, Any]) -> ModelRun:
    """Every role on every probe with one model (``services`` carry the model and the embedder)."""
    run = ModelRun(name, services.models.describe())
    policy = CaimPolicy()
    today = probes["today"]
    trace: list = []
    env = _env(services, today, trace)
    ontology = services.ontology.current
    for p in probes["plan"]:
        state = _state(p["message"], p["recent"])
        shortlist = [t for t, _ in services.tagger.nearest(ontology, services.embedder.embed_query(p["message"]), 8)[0]]
        plan = policy.plan(state, env, shortlist)
        _score(run, "plan", trace, int(plan is not None and plan["route"] == p["route"]))
    for p in probes["relevance"]:
        cands = [_brief(i, t, today) for i, t in enumerate(p["candidates"], 1)]
        kept = policy.filter(_state(p["message"], []), env, cands) or []
        _score(run, "relevance", trace, int({int(k["id"]) for k in kept} == set(p["relevant"])))
    msgs: list[Any] = []
    for i, (user, reply) in enumerate(probes["conversation"]):
        when = f"{today}T10:{2 * i:02d}:00+00:00"
        msgs += [
            HumanMessage(user, additional_kwargs={TIME_KEY: when}),
            AIMessage(reply, additional_kwargs={TIME_KEY: when}),
        ]
    events = policy.key_events(env, turns(msgs)) or []
    found = sum(
        1
        for turn, words in probes["facts"]
        if any(e["turn"] == turn and any(w in e["event"].lower() for w in words) for e in events)
    )
    _score(run, "key_events", trace, found, len(probes["facts"]))
    facts: list[KeyEvent] = [
        {"turn": i + 1, "event": p["event"], "time": f"{today}T10:00:00+00:00"}
        for i, p in enumerate(probes["thoughts"])
    ]
    vecs = services.store.embed([f["event"] for f in facts])
    tags = list(dict.fromkeys(t for row in services.tagger.nearest(ontology, vecs, 4) for t, _ in row))
    parents = list(dict.fromkeys(ontology.parent_of(t) for t in tags if ontology.parent_of(t)))
    answer = policy.thoughts(env, facts, tags, parents)
    written = {th.event: th.thought.lower() for th in (answer.thoughts if answer else [])}
    kept_words = sum(1 for i, p in enumerate(probes["thoughts"], 1) if p["keep"] in written.get(i, ""))
    _score(run, "thoughts", trace, kept_words, len(probes["thoughts"]))
    for p in probes["maintain"]:
        stored = [(i + 2, today, t) for i, t in enumerate(p["stored"])]
        got = policy.maintain(env, [(1, today, p["new"], stored)])
        decision = next(iter(got.decisions), None) if got else None
        right = (
            decision is not None
            and decision.decision == p["decision"]
            and (p["target"] == 0 or decision.target == p["target"] + 1)
        )
        _score(run, "maintain", trace, int(right))
    for p in probes["respond"]:
        memories = [_brief(i, t, today) for i, t in enumerate(p["memories"], 1)]
        text = env.answer(respond_prompt.messages(p["message"], today, [], memories, "", True)).lower()
        _score(run, "respond", trace, int(any(w in text for w in p["expect"])))
    summary = env.text("summarize", summarize_prompt.messages("", transcript(msgs))).lower()
    _score(
        run,
        "summarize",
        trace,
        sum(1 for _, words in probes["facts"] if any(w in summary for w in words)),
        len(probes["facts"]),
    )
    return run


def winner(runs: list[ModelRun]) -> ModelRun:
    return max(runs, key=lambda r: (r.total("sensible"), r.total("valid"), -r.total("ms")))


def report(runs: list[ModelRun], started: datetime, seconds: float) -> str:
    lines = [
        "# Local models: every model-judged role on labelled probes",
        "",
        f"Generated by `python benchmarks/local_models.py` on {started.date().isoformat()} in {seconds:.0f} s "
        f"({platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}). Probes: "
        f"`benchmarks/probes/local_models.json`; each role goes through the `caim` policy's own function.",
        "",
        "*valid*: answers parsed without a fallback; *sensible*: the probe's label was met (right route, right "
        "memories kept, fact found, keyword kept, right maintenance decision, memory used in the answer).",
    ]
    for run in runs:
        lines += [
            "",
            f"## {run.name} ({run.describe})",
            "",
            "| role | calls | valid | sensible | s/call | tokens in/out per call |",
            "|---|---|---|---|---|---|",
        ]
        for role, s in run.roles.items():
            per = max(s.calls, 1)
            lines.append(
                f"| {role} | {s.calls} | {s.valid}/{s.calls} | {s.sensible}/{s.items} | "
                f"{s.ms / per / 1000:.2f} | {s.tokens_in // per}/{s.tokens_out // per} |"
            )
        lines.append(
            f"| **total** | {run.total('calls')} | {run.total('valid')}/{run.total('calls')} | "
            f"{run.total('sensible')}/{run.total('items')} | | |"
        )
    best = winner(runs)
    lines += [
        "",
        "## Conclusion",
        "",
        f"**{best.name}** answers the most probes sensibly ({best.total('sensible')}/{best.total('items')}), "
        "the rule being: most sensible answers, then most valid, then fastest.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="smollm2,gemma3")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "local-models.md")
    args = ap.parse_args(argv)
    probes = json.loads(PROBES.read_text(encoding="utf-8"))
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    runs = []
    for name in args.models.split(","):
        settings = Settings(provider="local", local_model=name, _env_file=None)
        services = Services.create(settings, models=Models(settings), persist=False)
        runs.append(run_model(name, services, probes))
        r = runs[-1]
        print(
            f"{name}: sensible {r.total('sensible')}/{r.total('items')}, valid {r.total('valid')}/{r.total('calls')}",
            flush=True,
        )
    text = report(runs, started, time.perf_counter() - t0)
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
