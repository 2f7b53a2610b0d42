"""Time to first token, model round trips and overhead per memory policy, against a simulated endpoint.

A simulated OpenAI-compatible endpoint on 127.0.0.1 (``caim.core.simulated``) answers every role
from a table, with a latency model (default: 350 ms per call + 0.05 ms per input token + 12 ms per
output token, the answer streamed token by token). A user with a prepared memory of ``--records``
records asks ``--turns`` memory questions under each policy; per policy the benchmark prints

- model round trips on the critical path before the first answer token,
- time to first token and whole-turn time (p50/p95), the non-model overhead (p50),
- input and output tokens per turn,

side by side for ``none``, ``dense`` (the plain-retrieval baseline: embed the message, take the
nearest records, answer), ``caim``, ``single-call`` and ``caim-cascade`` (the paper's controller),
and two variants of ``caim``: ``caim/filter-elsewhere`` (the simulated filter keeps the candidates
ranked 9 and 10, which the drafted answer does not show, so the draft is dropped and the answer
asked for afresh) and ``caim/no-draft`` (``speculative_answer`` off). Calls that overlap count as one
round trip (a call's start time is in the trace); the overhead is the time before the first token
when no model call is in flight.
It also ends an 8-turn session in the background (how long ``end_session`` takes to return) and
counts the post-thinking calls for it. Writes ``results.json`` and ``results.md`` to ``--out``.

    python benchmarks/latency.py [--turns 20] [--records 1000] [--out eval-out/latency] [--doc docs/latency.md]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from caim.agent import CaimAgent, Settings
from caim.core.simulated import Latency, Request, SimulatedEndpoint
from caim.core.trace import llm_calls
from caim.memory.capture import raw_record

POLICIES = ("none", "dense", "caim", "caim/filter-elsewhere", "caim/no-draft", "single-call", "caim-cascade")
#: variants of a policy: (policy, settings changed, what the simulated filter keeps)
VARIANTS = {
    "caim/filter-elsewhere": ("caim", {}, "last-two"),
    "caim/no-draft": ("caim", {"speculative_answer": False}, "first-three"),
}
ANSWER = (
    "From what you told me, you went hiking in the Alps with Anna last spring and you loved the views "
    "from the summit, even though the weather turned cold in the afternoon."
)
FACTS = (
    "I went hiking in the Alps with {n} last spring.",
    "My favourite dish is {f}.",
    "{n} gave me a book about {t}.",
    "I started learning {t} in {m}.",
    "We adopted a cat called {c}.",
    "I work as a {j} in {p}.",
)
QUESTIONS = (
    "Do you remember where I went hiking with {n}?",
    "What did {n} give me?",
    "What is my favourite dish?",
    "When did I start learning {t}?",
    "What's my cat called?",
    "Where do I work?",
)
FILL = {
    "n": ["Anna", "Ben", "Clara", "David", "Emma"],
    "f": ["ramen", "paella", "lasagna", "curry"],
    "t": ["pottery", "chess", "italian", "guitar"],
    "m": ["March", "June", "October"],
    "c": ["Miso", "Pepper", "Luna"],
    "j": ["nurse", "teacher", "designer"],
    "p": ["Lyon", "Porto", "Graz"],
}


def fill(template: str, rng: random.Random) -> str:
    return re.sub(r"\{(\w)\}", lambda m: rng.choice(FILL[m.group(1)]), template)


def table(mode: dict[str, str]) -> dict:
    """Answers per role: a memory question is one, the filter keeps the first three candidates (or,
    with ``mode["filter"] == "last-two"``, the last two), the cascade says A-B-A."""

    def choice(req: Request) -> dict:
        text = str(req.messages[-1]["content"])
        return {"answer": "B" if "BOTH" in text else "A"}

    def relevant(req: Request) -> dict:
        enum = req.schema["properties"]["relevant"]["items"]["enum"] if req.schema else []
        return {"relevant": enum[-2:] if mode["filter"] == "last-two" else enum[:3]}

    events = {"events": [{"turn": n, "event": f"The user said something memorable in turn {n}."} for n in (1, 3, 5)]}
    return {
        "Plan": {"needs_memory": "yes", "memory": "past", "tags": [], "time_expressions": []},
        "Choice": choice,
        "Relevant": relevant,
        "TimeRefs": {"expressions": []},
        "KeyEvents": events,
        "respond": ANSWER,
        "summarize": "The user talked about hiking.",
    }


def prepare(agent: CaimAgent, user: str, n: int, rng: random.Random) -> None:
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    recs = []
    for i in range(n):
        text = fill(rng.choice(FACTS), rng)
        when = t0 + timedelta(hours=7 * i)
        recs.append(
            raw_record(
                user_id=user,
                session_id=f"s{i // 10}",
                turn=i % 10,
                text=text,
                when=when,
                tags=["personal"],
                speaker="user",
            )
        )
    agent.services.store.add(recs)
    agent.services.store.flush()


def pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 1) if values else float("nan")


def critical_path(calls: list, until: float) -> int:
    """Model round trips one after another among ``calls`` that ended by ``until`` (epoch seconds):
    calls that overlap count once."""
    spans = sorted((float(c["started"]), float(c["started"]) + float(c["ms"]) / 1000) for c in calls)
    depth: list[int] = []
    for i, (start, _) in enumerate(spans):
        before = [depth[j] for j in range(i) if spans[j][1] <= start + 0.002]
        depth.append(1 + max(before, default=0))
    return max((d for d, (_, end) in zip(depth, spans, strict=True) if end <= until + 0.002), default=0)


def busy(spans: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Seconds within [lo, hi] covered by at least one of ``spans``."""
    total, reach = 0.0, lo
    for start, end in sorted(spans):
        start, end = max(start, reach), min(end, hi)
        if end > start:
            total += end - start
            reach = end
    return total


def run_policy(agent: CaimAgent, policy: str, user: str, turns: int, rng: random.Random) -> dict:
    ttft, whole, overhead, start_answer, trips, tin, tout, drafted = [], [], [], [], [], [], [], []
    for i in range(turns):
        question = fill(QUESTIONS[i % len(QUESTIONS)], rng)
        t0 = time.time()
        start = time.perf_counter()
        first = None
        for _piece in agent.stream(question, user_id=user, policy=policy):
            if first is None:
                first = time.perf_counter()
        end = time.perf_counter()
        trace = agent.state(user)["trace"]
        calls = llm_calls(trace)
        before = [c for c in calls if c["role"] != "respond"]
        answer = next((c for c in calls if c["role"] == "respond" and not c.get("discarded")), None)
        to_first = ((first or end) - start) * 1000
        t_first = t0 + to_first / 1000
        answer_at = float(answer["started"]) if answer else t_first
        ttft.append(to_first)
        whole.append((end - start) * 1000)
        start_answer.append((answer_at - t0) * 1000)
        spans = [(float(c["started"]), float(c["started"]) + float(c["ms"]) / 1000) for c in calls if c is not answer]
        if answer:
            spans.append((answer_at, answer_at + float(answer.get("first_ms", answer["ms"])) / 1000))
        overhead.append(to_first - busy(spans, t0, t_first) * 1000)
        trips.append(critical_path(before, t_first))
        drafted.append(bool(answer and answer.get("draft")))
        tin.append(sum(int(c["input_tokens"]) for c in calls))
        tout.append(sum(int(c["output_tokens"]) for c in calls))
        agent.discard_session(user_id=user)  # every question in a fresh session
    return {
        "round_trips_before_first_token": max(trips),
        "ttft_ms": {"p50": pct(ttft, 50), "p95": pct(ttft, 95)},
        "answer_call_starts_ms": {"p50": pct(start_answer, 50), "p95": pct(start_answer, 95)},
        "turn_ms": {"p50": pct(whole, 50), "p95": pct(whole, 95)},
        "overhead_ms": {"p50": pct(overhead, 50), "p95": pct(overhead, 95)},
        "drafted_answers_used": round(sum(drafted) / len(drafted), 3) if drafted else 0.0,
        "input_tokens_per_turn": round(statistics.mean(tin), 1),
        "output_tokens_per_turn": round(statistics.mean(tout), 1),
    }


def post_thinking(agent: CaimAgent, endpoint: SimulatedEndpoint, rng: random.Random) -> dict:
    """An 8-turn session ended in the background: return time, and the calls post-thinking made."""
    user = "pt-user"
    for i in range(8):
        agent.chat(fill(FACTS[i % len(FACTS)], rng), user_id=user, policy="single-call")
    seen = len(endpoint.requests)
    start = time.perf_counter()
    job = agent.end_session(user_id=user, background=True).job
    returned = (time.perf_counter() - start) * 1000
    summary = agent.wait(job)
    roles = [r.role for r in endpoint.requests[seen:]]
    events = len(summary.key_events) if summary else 0
    return {
        "end_session_return_ms": round(returned, 1),
        "calls": len(roles),
        "calls_by_role": {r: roles.count(r) for r in dict.fromkeys(roles)},
        "events": events,
        "budget": 1 + math.ceil(events / 8) + 1,
    }


def trips(r: dict) -> str:
    n = r["round_trips_before_first_token"]
    return f"{n} round trip{'' if n == 1 else 's'}"


def markdown(results: dict) -> str:
    lat = results["latency_model"]
    lines = [
        "# Latency per memory policy (simulated endpoint)",
        "",
        f"Generated by `python benchmarks/latency.py --turns {results['turns']} --records {results['records']}` on "
        f"{results['generated_at'][:10]} (load average {results['load_average']:.1f}). Endpoint latency model: "
        f"{lat['per_call'] * 1000:.0f} ms per call + {lat['per_input_token'] * 1000:.2f} ms per input token + "
        f"{lat['per_output_token'] * 1000:.0f} ms per output token (streamed). Memory: {results['records']} records.",
        "",
        "| policy | round trips before 1st token | answer call starts p50 | TTFT p50 | TTFT p95 | turn p50 | turn p95 "
        "| overhead p50 | drafts used | in tok/turn | out tok/turn |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results["policies"].items():
        lines.append(
            f"| {name} | {r['round_trips_before_first_token']} | {r['answer_call_starts_ms']['p50']} | "
            f"{r['ttft_ms']['p50']} | {r['ttft_ms']['p95']} | "
            f"{r['turn_ms']['p50']} | {r['turn_ms']['p95']} | {r['overhead_ms']['p50']} | "
            f"{r['drafted_answers_used']:.0%} | {r['input_tokens_per_turn']} | {r['output_tokens_per_turn']} |"
        )
    pt = results["post_thinking"]
    target = 2 * lat["per_call"] * 1000 + 50
    caim = results["policies"].get("caim")
    lines += [
        "",
        "Times in milliseconds. *Round trips*: model calls one after another before the first token (calls in "
        "parallel count once). *Answer call starts*: when the answer's model call began - with a drafted answer, "
        "beside the decisions, whose first token waits for them. *Overhead*: time on the way to the first token "
        "when no model call is in flight (embedding the message, search, graph steps, checkpoints). "
        "*Drafts used*: share of turns answered by the answer drafted beside the decisions. "
        "`caim/filter-elsewhere`: the simulated filter keeps candidates the draft does not show (it is dropped); "
        "`caim/no-draft`: `speculative_answer` off.",
    ]
    if caim:
        lines.append(
            f"`caim`: {trips(caim)} before the first token (target ≤ 2); "
            f"first token after {caim['ttft_ms']['p50']} ms p50 / {caim['ttft_ms']['p95']} ms p95 against a target of "
            f"2 × per-call latency + 50 ms = {target:.0f} ms, with {caim['drafted_answers_used']:.0%} of the turns "
            f"answered by the drafted answer; overhead p50 {caim['overhead_ms']['p50']} ms (target ≤ 30); "
            f"{caim['input_tokens_per_turn']} input tokens per memory turn (target ≤ 1,500)."
        )
        for name in ("caim/filter-elsewhere", "caim/no-draft"):
            if name in results["policies"]:
                r = results["policies"][name]
                lines.append(
                    f"`{name}`: {trips(r)}, first token after "
                    f"{r['ttft_ms']['p50']} ms p50 / {r['ttft_ms']['p95']} ms p95."
                )
    lines += [
        "",
        f"Post-thinking of an 8-turn session ended in the background: `end_session` returned in "
        f"{pt['end_session_return_ms']} ms (target ≤ 50); {pt['calls']} model calls for {pt['events']} key events "
        f"(budget 1 + ⌈events/8⌉ + 1 = {pt['budget']}): {pt['calls_by_role']}.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--per-call", type=float, default=0.35)
    ap.add_argument("--per-input-token", type=float, default=0.00005)
    ap.add_argument("--per-output-token", type=float, default=0.012)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--out", type=Path, default=Path("eval-out/latency"))
    ap.add_argument("--doc", type=Path, default=None, help="also write the Markdown here (e.g. docs/latency.md)")
    args = ap.parse_args(argv)
    rng = random.Random(11)
    latency = Latency(args.per_call, args.per_input_token, args.per_output_token)
    results: dict = {
        "generated_at": datetime.now(UTC).isoformat(),
        "turns": args.turns,
        "records": args.records,
        "latency_model": latency.__dict__,
        "policies": {},
    }
    mode = {"filter": "first-three"}
    with SimulatedEndpoint(table(mode), latency=latency) as endpoint, tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            provider="openai",
            base_url=endpoint.base_url,
            api_key="simulated",
            model="simulated",
            data_dir=Path(tmp),
            _env_file=None,
        )
        with CaimAgent(settings) as agent:
            prepare(agent, "bench", args.records, rng)
            agent.chat("warm up", user_id="bench", policy="caim")  # load the embedder and the caches
            agent.discard_session(user_id="bench")
            base = agent.services.settings
            for name in args.policies.split(","):
                policy, changes, mode["filter"] = VARIANTS.get(name, (name, {}, "first-three"))
                agent.services.settings = base.model_copy(update=changes)
                results["policies"][name] = run_policy(agent, policy, "bench", args.turns, rng)
                agent.services.settings = base
                r = results["policies"][name]
                print(
                    f"{name:21s} trips {r['round_trips_before_first_token']}  TTFT p50 {r['ttft_ms']['p50']:7.1f} "
                    f"p95 {r['ttft_ms']['p95']:7.1f}  turn p50 {r['turn_ms']['p50']:7.1f}  overhead p50 "
                    f"{r['overhead_ms']['p50']:6.1f}  drafts {r['drafted_answers_used']:.0%}  "
                    f"tokens {r['input_tokens_per_turn']:.0f}"
                    f"/{r['output_tokens_per_turn']:.0f}",
                    flush=True,
                )
            results["post_thinking"] = post_thinking(agent, endpoint, rng)
    results["load_average"] = os.getloadavg()[0]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    md = markdown(results)
    (args.out / "results.md").write_text(md)
    if args.doc:
        args.doc.write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
