"""Time to first token, model round trips and overhead per memory policy, against a simulated endpoint.

A simulated OpenAI-compatible endpoint on 127.0.0.1 (``caim.testing.simulated``) answers every role
from a table, with a latency model (default: 350 ms per call + 0.05 ms per input token + 12 ms per
output token, the answer streamed token by token). A user with a prepared memory of ``--records``
records asks ``--turns`` memory questions under each policy; per policy the benchmark prints

- model round trips on the critical path before the first answer token,
- time to first token and whole-turn time (p50/p95), the non-model overhead (p50),
- input and output tokens per turn,

side by side for ``none``, ``dense`` (the plain-retrieval baseline: embed the message, take the
nearest records, answer), ``caim``, ``single-call`` and ``caim-cascade`` (the paper's controller),
and three variants of ``caim``: ``caim/filter-elsewhere`` (the simulated filter keeps the candidates
ranked 9 and 10, which the drafted answer does not show, so the draft is dropped and the answer
asked for afresh), ``caim/no-early`` (``early_answer`` off: every answer waits for the plan) and
``caim/no-draft`` (``speculative_answer`` off). Every fifth turn is small talk or a general question
that needs no memory; the simulated plan routes every turn as labelled (a planner that is always
right), so the route accuracy of a policy shows what its code signals change: the share of turns
whose route reads long-term memory exactly when the turn needs it. *Waited*: the share of turns
whose answer waited for the plan (no early start). Calls that overlap count as one
round trip (a call's start time is in the trace); the overhead is the time before the first token
when no model call is in flight.
It also ends an 8-turn session in the background (how long ``end_session`` takes to return) and
counts the post-thinking calls for it.

``caim.Memory`` without an answer: ``recall()`` alone, as a developer's agent calls it before its own
model - ``Memory.search`` (ranking only, no model; ``5 × --turns`` queries) and ``Memory.recall``
with the ``caim`` policy (plan and filter against the endpoint): round trips before the result, time
(p50/p95) and the overhead beside the model calls. And a developer's own agent: the ReAct agent of
``examples/react_agent_with_memory.py`` (``create_agent``, a ``ChatOpenAI`` on the endpoint, which
calls ``get_weather`` once per question and then answers) streamed alone and wrapped by
``with_memory`` (``caim`` policy): round trips before the agent's first token, TTFT and model calls
per turn. And ``caim serve``: the same memory questions streamed through the official ``openai`` client
from the OpenAI-compatible endpoint (``caim.agent.surfaces.openai_server`` under uvicorn on 127.0.0.1) beside
the graph streamed in-process (``CaimAgent.stream``), default policy: time to first token p50/p95.
Writes ``results.json`` and ``results.md`` to ``--out``.

    python benchmarks/latency.py [--turns 20] [--records 1000] [--out eval-out/latency] [--doc docs/latency.md]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import numpy as np
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessageChunk, HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import SecretStr

from caim.agent import CaimAgent, Settings
from caim.core.trace import llm_calls, steps
from caim.eval.tables import markdown_table
from caim.graph.builder import with_memory
from caim.graph.steps import EarlyAnswerStep
from caim.memory.capture import raw_record
from caim.testing.simulated import Latency, Request, SimulatedEndpoint, ToolCall

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "react_agent_with_memory.py"
#: The ``recall()``-alone rows: result key -> row name.
RECALL_ROWS = {"search": "Memory.search (ranking only)", "recall": "Memory.recall, caim policy"}
#: The own-agent rows: row name -> wrapped by ``with_memory``.
OWN_AGENT_ROWS = {"react agent alone": False, "with_memory(react agent), caim": True}
#: The ``caim serve`` rows: row name -> through the OpenAI-compatible endpoint and the ``openai`` client.
SERVE_ROWS = {"graph in-process (CaimAgent.stream)": False, "caim serve via the openai client": True}
#: Sections of ``--doc`` written by other benchmarks, kept when this one rewrites it.
KEPT_SECTIONS = ("## Memory browser",)  # benchmarks/ui_pages.py
POLICIES = (
    "none",
    "dense",
    "caim",
    "caim/filter-elsewhere",
    "caim/no-early",
    "caim/no-draft",
    "single-call",
    "caim-cascade",
)
#: variants of a policy: (policy, settings changed, what the simulated filter keeps)
VARIANTS = {
    "caim/filter-elsewhere": ("caim", {}, "last-two"),
    "caim/no-early": ("caim", {"early_answer": False}, "first-three"),
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
#: Turns that need no memory (every fifth turn is one of them): small talk, a general question.
NO_MEMORY = ("Thanks, that's really helpful!", "Good morning!", "How do I boil an egg?")
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


def turn(i: int, rng: random.Random) -> tuple[str, bool]:
    """The ``i``-th turn of a run and whether it needs memory: every fifth one needs none."""
    if i % 5 == 4:
        return NO_MEMORY[(i // 5) % len(NO_MEMORY)], False
    return fill(QUESTIONS[i % len(QUESTIONS)], rng), True


def table(mode: dict[str, str]) -> dict:
    """Answers per role: the plan routes each turn as labelled (memory for the questions, none for
    ``NO_MEMORY``), the filter keeps the first three candidates (or, with ``mode["filter"] ==
    "last-two"``, the last two), the cascade says A-B-A."""

    def plan(req: Request) -> dict:
        needs = not any(t in str(req.messages[-1]["content"]) for t in NO_MEMORY)
        return {"needs_memory": "yes" if needs else "no", "memory": "past", "tags": [], "time_expressions": []}

    def choice(req: Request) -> dict:
        text = str(req.messages[-1]["content"])
        return {"answer": "B" if "BOTH" in text else "A"}

    def relevant(req: Request) -> dict:
        items = req.schema["properties"]["relevant"]["items"] if req.schema else {}
        enum = items.get("enum") or ([items["const"]] if "const" in items else [])  # one candidate: a const
        return {"relevant": enum[-2:] if mode["filter"] == "last-two" else enum[:3]}

    def respond(req: Request) -> str | ToolCall:
        """A tool-calling agent's model asks for the weather once per question; caim answers in text."""
        if req.payload.get("tools") and req.messages[-1].get("role") != "tool":
            return ToolCall("get_weather", {"city": "Lisbon"})
        return ANSWER

    events = {"events": [{"turn": n, "event": f"The user said something memorable in turn {n}."} for n in (1, 3, 5)]}
    return {
        "Plan": plan,
        "Choice": choice,
        "Relevant": relevant,
        "TimeRefs": {"expressions": []},
        "KeyEvents": events,
        "respond": respond,
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
    right, waited = [], []
    for i in range(turns):
        question, needs = turn(i, rng)
        t0 = time.time()
        start = time.perf_counter()
        first = None
        for _piece in agent.stream(question, user_id=user, policy=policy):
            if first is None:
                first = time.perf_counter()
        end = time.perf_counter()
        state = agent.state(user)
        trace = state["trace"]
        right.append(("ltm" in state.get("route", "none")) == needs)
        waited.append(not steps(trace, "search", EarlyAnswerStep))
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
        "route_accuracy": round(sum(right) / len(right), 3) if right else 0.0,
        "waited": round(sum(waited) / len(waited), 3) if waited else 0.0,
        "input_tokens_per_turn": round(statistics.mean(tin), 1),
        "output_tokens_per_turn": round(statistics.mean(tout), 1),
    }


def model_spans(trace: list) -> list[tuple[float, float]]:
    return [(float(c["started"]), float(c["started"]) + float(c["ms"]) / 1000) for c in llm_calls(trace)]


def run_recall(agent: CaimAgent, endpoint: SimulatedEndpoint, user: str, turns: int, rng: random.Random) -> dict:
    """``Memory.search`` (ranking only) and ``Memory.recall`` with the ``caim`` policy, each alone."""
    memory = agent.memory
    searched, seen = [], len(endpoint.requests)
    for i in range(5 * turns):
        question = fill(QUESTIONS[i % len(QUESTIONS)], rng)
        start = time.perf_counter()
        memory.search(question, user_id=user)
        searched.append((time.perf_counter() - start) * 1000)
    search_calls = len(endpoint.requests) - seen
    whole, overhead, trips, calls = [], [], [], []
    for i in range(turns):
        question = fill(QUESTIONS[i % len(QUESTIONS)], rng)
        seen, t0 = len(endpoint.requests), time.time()
        start = time.perf_counter()
        recall = memory.recall(question, user_id=user, policy="caim")
        took = (time.perf_counter() - start) * 1000
        t1 = t0 + took / 1000
        whole.append(took)
        overhead.append(took - busy(model_spans(recall.trace), t0, t1) * 1000)
        trips.append(critical_path(llm_calls(recall.trace), t1))
        calls.append(len(endpoint.requests) - seen)
    return {
        "search": {
            "round_trips": search_calls,  # a model call in a search would be one on the path
            "ms": {"p50": pct(searched, 50), "p95": pct(searched, 95)},
            "queries": len(searched),
        },
        "recall": {
            "round_trips": max(trips),
            "model_calls_per_recall": round(statistics.mean(calls), 2),
            "ms": {"p50": pct(whole, 50), "p95": pct(whole, 95)},
            "overhead_ms": {"p50": pct(overhead, 50), "p95": pct(overhead, 95)},
            "queries": len(whole),
        },
    }


class CallTimer(BaseCallbackHandler):
    """Start and duration of each call of the chat model it is attached to, as trace entries
    (``started``: epoch seconds, ``ms``)."""

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self._open: dict[UUID, float] = {}

    def on_chat_model_start(self, serialized: dict, messages: list, *, run_id: UUID, **kw: Any) -> None:
        self._open[run_id] = time.time()

    def on_llm_end(self, response: Any, *, run_id: UUID, **kw: Any) -> None:
        started = self._open.pop(run_id, None)
        if started is not None:
            self.calls.append({"started": started, "ms": (time.time() - started) * 1000})


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("caim_bench_react_example", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def agent_tokens(stream: Iterator[Any]) -> Iterator[str]:
    """The text tokens the ReAct agent's model streams (``stream_mode="messages"``, maybe with
    subgraphs): caim's own nodes never stream into this."""
    for item in stream:
        chunk, meta = item[1] if isinstance(item[0], tuple) else item
        if isinstance(chunk, AIMessageChunk) and chunk.content and meta.get("langgraph_node") == "model":
            yield str(chunk.content)


def run_own_agent(
    agent: CaimAgent, endpoint: SimulatedEndpoint, user: str, turns: int, rng: random.Random, wrapped: bool
) -> dict:
    """The example's ReAct agent streamed alone, or wrapped by ``with_memory`` (``caim`` policy, a
    fresh thread per question): round trips before its first token, TTFT, whole turn, calls."""
    timer = CallTimer()
    settings = agent.services.settings
    model = ChatOpenAI(
        model="simulated", base_url=settings.base_url, api_key=SecretStr("simulated"), callbacks=[timer], max_retries=0
    )
    react = load_example().build_agent(model)
    app = with_memory(react, services=agent.services, checkpointer=InMemorySaver()) if wrapped else react
    ttft, whole, trips, calls, starts, overhead, tin, tout = [], [], [], [], [], [], [], []
    for i in range(turns + 1):  # the first question warms the client up and is not counted
        question = fill(QUESTIONS[i % len(QUESTIONS)], rng) + " And what's the weather in Lisbon?"
        inputs = {"messages": [HumanMessage(question)]}
        timer.calls.clear()
        seen, t0 = len(endpoint.requests), time.time()
        start = time.perf_counter()
        if wrapped:
            config = {"configurable": {"thread_id": f"own-{i}"}}
            stream = app.stream(
                inputs, config, context={"user_id": user, "policy": "caim"}, stream_mode="messages", subgraphs=True
            )
        else:
            stream = app.stream(inputs, stream_mode="messages")
        first = None
        for _token in agent_tokens(stream):
            if first is None:
                first = time.perf_counter()
        end = time.perf_counter()
        if i == 0:
            continue
        to_first = ((first or end) - start) * 1000
        t_first = t0 + to_first / 1000
        trace = app.get_state(config).values.get("trace", []) if wrapped else []
        spans = [*llm_calls(trace), *timer.calls]
        answer_at = max((float(c["started"]) for c in timer.calls if float(c["started"]) <= t_first), default=t_first)
        ttft.append(to_first)
        whole.append((end - start) * 1000)
        starts.append((answer_at - t0) * 1000)
        busy_ms = busy([(float(c["started"]), float(c["started"]) + float(c["ms"]) / 1000) for c in spans], t0, t_first)
        overhead.append(to_first - busy_ms * 1000)
        trips.append(critical_path(spans, t_first))
        turn = endpoint.requests[seen:]
        calls.append(len(turn))
        tin.append(sum(r.input_tokens for r in turn))
        tout.append(sum(r.output_tokens for r in turn))
    return {
        "round_trips_before_first_token": max(trips),
        "answer_call_starts_ms": {"p50": pct(starts, 50), "p95": pct(starts, 95)},
        "ttft_ms": {"p50": pct(ttft, 50), "p95": pct(ttft, 95)},
        "turn_ms": {"p50": pct(whole, 50), "p95": pct(whole, 95)},
        "overhead_ms": {"p50": pct(overhead, 50), "p95": pct(overhead, 95)},
        "model_calls_per_turn": round(statistics.mean(calls), 2),
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
        "budget": 1 + math.ceil(events / 8) + 1 + 2,  # key events, thoughts, maintain; the profile's two
    }


def serve_in_thread(agent: CaimAgent, token: str, user: str) -> tuple[Any, Any, str]:
    """``caim serve``'s app on ``agent`` under uvicorn in a thread on a free loopback port, ``token``
    naming ``user``: (server, thread, base URL of the OpenAI API)."""
    import socket
    import threading

    import uvicorn

    from caim.agent.surfaces.openai_server import create_app

    app = create_app(agent, verify=lambda t: user if t == token else None, idle_seconds=None)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("caim serve did not start")
        time.sleep(0.02)
    return server, thread, f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def run_serve(agent: CaimAgent, user: str, turns: int, rng: random.Random) -> dict:
    """The memory questions streamed in-process (``CaimAgent.stream``) and through ``caim serve`` with the
    ``openai`` client, alternating, each in a fresh session: time to first token and whole turn (p50/p95)."""
    import openai

    server, thread, base_url = serve_in_thread(agent, "bench-token", user)
    client = openai.OpenAI(base_url=base_url, api_key="bench-token", max_retries=0, timeout=120)
    times: dict[str, dict[str, list[float]]] = {name: {"ttft": [], "turn": []} for name in SERVE_ROWS}
    try:
        for i in range(turns + 1):  # the first question warms both paths up and is not counted
            question = fill(QUESTIONS[i % len(QUESTIONS)], rng)
            for name, served in SERVE_ROWS.items():
                start = time.perf_counter()
                first = None
                if served:
                    messages: Any = [{"role": "user", "content": question}]
                    for c in client.chat.completions.create(model="caim", messages=messages, stream=True):
                        if first is None and c.choices and c.choices[0].delta.content:
                            first = time.perf_counter()
                else:
                    for _piece in agent.stream(question, user_id=user):
                        if first is None:
                            first = time.perf_counter()
                end = time.perf_counter()
                agent.discard_session(user_id=user)
                if i:
                    times[name]["ttft"].append(((first or end) - start) * 1000)
                    times[name]["turn"].append((end - start) * 1000)
    finally:
        client.close()
        server.should_exit = True
        thread.join(30)
    return {
        name: {
            "ttft_ms": {"p50": pct(t["ttft"], 50), "p95": pct(t["ttft"], 95)},
            "turn_ms": {"p50": pct(t["turn"], 50), "p95": pct(t["turn"], 95)},
            "turns": len(t["ttft"]),
        }
        for name, t in times.items()
    }


def serve_notes(r: dict | None) -> list[str]:
    """The ``caim serve`` table: time to first token through the endpoint beside in-process."""
    if not r:
        return []
    local, served = (r[name] for name in SERVE_ROWS)
    added = round(served["ttft_ms"]["p50"] - local["ttft_ms"]["p50"], 1)
    return [
        "",
        "## `caim serve` (OpenAI-compatible endpoint)",
        "",
        *markdown_table(
            ["path", "TTFT p50", "TTFT p95", "turn p50", "turn p95", "turns"],
            [
                [name, x["ttft_ms"]["p50"], x["ttft_ms"]["p95"], x["turn_ms"]["p50"], x["turn_ms"]["p95"], x["turns"]]
                for name, x in r.items()
            ],
        ),
        "",
        "Milliseconds. The same memory questions (default policy, each in a fresh session), streamed in-process "
        "and through `caim serve` (uvicorn on 127.0.0.1, the official `openai` client, `stream=True`; TTFT is the "
        f"first chunk with text). The endpoint adds {added:+} ms to the first token at p50 (HTTP, SSE, the "
        "client).",
    ]


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
    ]

    def row(name: str, r: dict, own: bool = False) -> list:
        def share(key: str) -> str:
            return "–" if own else f"{r[key]:.0%}"

        return [
            name,
            r["round_trips_before_first_token"],
            r["answer_call_starts_ms"]["p50"],
            r["ttft_ms"]["p50"],
            r["ttft_ms"]["p95"],
            r["turn_ms"]["p50"],
            r["turn_ms"]["p95"],
            r["overhead_ms"]["p50"],
            share("drafted_answers_used"),
            share("waited"),
            share("route_accuracy"),
            r["input_tokens_per_turn"],
            r["output_tokens_per_turn"],
        ]

    own = results.get("own_agent", {})
    rows = [row(name, r) for name, r in results["policies"].items()]
    rows += [row(name, r, own=True) for name, r in own.items()]
    headers = ["policy", "round trips before 1st token", "answer call starts p50", "TTFT p50", "TTFT p95"]
    headers += ["turn p50", "turn p95", "overhead p50", "drafts used", "waited", "route accuracy"]
    headers += ["in tok/turn", "out tok/turn"]
    lines += markdown_table(headers, rows)
    pt = results["post_thinking"]
    target = 2 * lat["per_call"] * 1000 + 50
    caim = results["policies"].get("caim")
    lines += [
        "",
        "Times in milliseconds. *Round trips*: model calls one after another before the first token (calls in "
        "parallel count once). *Answer call starts*: when the answer's model call began - with a drafted answer, "
        "beside the decisions, whose first token waits for them. *Overhead*: time on the way to the first token "
        "when no model call is in flight (embedding the message, search, graph steps, checkpoints). "
        "*Drafts used*: share of turns answered by the answer drafted beside the decisions. *Waited*: share of "
        "turns whose answer waited for the plan (the rest started at once: small talk, or a memory question "
        "with a closely similar memory). *Route accuracy*: share of turns whose route reads long-term memory "
        "exactly when the turn needs it (every fifth turn needs none; the simulated plan is always right). "
        "`caim/filter-elsewhere`: the simulated filter keeps candidates the draft does not show (it is dropped); "
        "`caim/no-early`: `early_answer` off; `caim/no-draft`: `speculative_answer` off.",
    ]
    if caim:
        lines.append(
            f"`caim`: {trips(caim)} before the first token (target ≤ 2); "
            f"first token after {caim['ttft_ms']['p50']} ms p50 / {caim['ttft_ms']['p95']} ms p95 against a target of "
            f"2 × per-call latency + 50 ms = {target:.0f} ms, with {caim['drafted_answers_used']:.0%} of the turns "
            f"answered by the drafted answer; overhead p50 {caim['overhead_ms']['p50']} ms (target ≤ 30); "
            f"{caim['input_tokens_per_turn']} input tokens per memory turn (target ≤ 1,500)."
        )
        lines += early_notes(results["policies"])
        for name in ("caim/filter-elsewhere", "caim/no-early", "caim/no-draft"):
            if name in results["policies"]:
                r = results["policies"][name]
                lines.append(
                    f"`{name}`: {trips(r)}, first token after "
                    f"{r['ttft_ms']['p50']} ms p50 / {r['ttft_ms']['p95']} ms p95."
                )
    lines += own_agent_notes(own)
    lines += recall_alone(results.get("recall_alone"), results["records"])
    lines += serve_notes(results.get("serve"))
    lines += [
        "",
        f"Post-thinking of an 8-turn session ended in the background: `end_session` returned in "
        f"{pt['end_session_return_ms']} ms (target ≤ 50); {pt['calls']} model calls for {pt['events']} key events "
        f"(budget 1 + ⌈events/8⌉ + 1 + 2 = {pt['budget']}: key events, thoughts, maintenance, the profile's "
        f"backgrounds and principles): {pt['calls_by_role']}.",
    ]
    return "\n".join(lines) + "\n"


def early_notes(policies: dict) -> list[str]:
    """caim's first token against the no-memory policy's in the same run (target ≤ 1.2×), and the
    route accuracy with and without the early start (no drop allowed)."""
    caim, none, waiting = (policies.get(n) for n in ("caim", "none", "caim/no-early"))
    if not (caim and none):
        return []
    ratio = caim["ttft_ms"]["p50"] / none["ttft_ms"]["p50"]
    out = [
        f"`caim` against `none` in this run: first token p50 {caim['ttft_ms']['p50']} ms against "
        f"{none['ttft_ms']['p50']} ms, {ratio:.2f}× (target ≤ 1.2×); {caim['waited']:.0%} of the turns waited for "
        f"the plan."
    ]
    if waiting:
        drop = caim["route_accuracy"] < waiting["route_accuracy"]
        out.append(
            f"Route accuracy with the early start {caim['route_accuracy']:.0%}, without it (`caim/no-early`) "
            f"{waiting['route_accuracy']:.0%}: {'a drop' if drop else 'no drop'}."
        )
    return out


def own_agent_notes(own: dict) -> list[str]:
    """What the own-agent rows mean, and the target beside the figures."""
    alone, wrapped = (own.get(name) for name in OWN_AGENT_ROWS)
    if not alone or not wrapped:
        return []
    added = wrapped["round_trips_before_first_token"] - alone["round_trips_before_first_token"]
    return [
        "",
        "*react agent*: the ReAct agent of `examples/react_agent_with_memory.py` (`create_agent`, its model a "
        "`ChatOpenAI` on the simulated endpoint), asked a memory question with a weather question: it calls "
        "`get_weather` once, then streams its answer; round trips and TTFT are its first answer token's. "
        "*with_memory(react agent), caim*: the same agent as the responder of caim's chat graph "
        "(`caim.graph.builder.with_memory`, `caim` policy, a fresh thread per question, streamed with "
        '`stream_mode="messages"`). Tokens per turn count every call the endpoint saw.',
        f"`with_memory`: {added:+d} model round trip{'' if abs(added) == 1 else 's'} before the agent's first token "
        f"(target: at most +1); {trips(alone)} alone, {trips(wrapped)} wrapped; TTFT "
        f"{alone['ttft_ms']['p50']} → {wrapped['ttft_ms']['p50']} ms p50, {alone['ttft_ms']['p95']} → "
        f"{wrapped['ttft_ms']['p95']} ms p95; model calls per turn {alone['model_calls_per_turn']} → "
        f"{wrapped['model_calls_per_turn']}.",
    ]


def recall_alone(r: dict | None, records: int) -> list[str]:
    """The ``recall()``-alone table and its target."""
    if not r:
        return []
    s, c = r["search"], r["recall"]
    return [
        "",
        f"## `recall()` alone ({records} records)",
        "",
        *markdown_table(
            [
                "call",
                "round trips before the result",
                "p50",
                "p95",
                "overhead p50",
                "overhead p95",
                "model calls",
                "queries",
            ],
            [
                [
                    RECALL_ROWS["search"],
                    s["round_trips"],
                    s["ms"]["p50"],
                    s["ms"]["p95"],
                    s["ms"]["p50"],
                    s["ms"]["p95"],
                    s["round_trips"],
                    s["queries"],
                ],
                [
                    RECALL_ROWS["recall"],
                    c["round_trips"],
                    c["ms"]["p50"],
                    c["ms"]["p95"],
                    c["overhead_ms"]["p50"],
                    c["overhead_ms"]["p95"],
                    c["model_calls_per_recall"],
                    c["queries"],
                ],
            ],
        ),
        "",
        "Milliseconds from the call to its result, in the calling thread. `Memory.search`: the ranked search "
        "(lexical, dense, tags, time, names) with no model, so all of it is overhead. `Memory.recall`: the memory "
        "controller's plan and the relevance filter (one round trip when they run side by side) and the prompt "
        "block; *overhead*: the time no model call is in flight. *Model calls*: requests the endpoint saw per call.",
        f"Ranking only: {s['ms']['p50']} ms p50 at {records} records (target ≤ 15 ms p50 at 1,000 records); "
        f"recall with the `caim` policy: {c['round_trips']} round trip{'' if c['round_trips'] == 1 else 's'} before "
        f"the result, overhead {c['overhead_ms']['p50']} ms p50.",
    ]


def kept_sections(doc: Path) -> str:
    """The sections of ``doc`` that other benchmarks write (``KEPT_SECTIONS``: each from its heading to
    the next ``## `` heading), so that rewriting the doc keeps them ("" when there are none)."""
    lines = doc.read_text().splitlines(keepends=True) if doc.exists() else []
    kept: list[str] = []
    inside = False
    for line in lines:
        if line.startswith("## "):
            inside = line.rstrip() in KEPT_SECTIONS
        if inside:
            kept.append(line)
    return ("\n" + "".join(kept).rstrip("\n") + "\n") if kept else ""


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
                    f"waited {r['waited']:.0%}  routes {r['route_accuracy']:.0%}  "
                    f"tokens {r['input_tokens_per_turn']:.0f}"
                    f"/{r['output_tokens_per_turn']:.0f}",
                    flush=True,
                )
            mode["filter"] = "first-three"
            results["recall_alone"] = run_recall(agent, endpoint, "bench", args.turns, rng)
            for part, r in results["recall_alone"].items():
                print(
                    f"{RECALL_ROWS[part]:34s} trips {r['round_trips']}  p50 {r['ms']['p50']:7.1f}  p95 "
                    f"{r['ms']['p95']:7.1f}"
                    + (f"  overhead p50 {r['overhead_ms']['p50']:6.1f}" if "overhead_ms" in r else ""),
                    flush=True,
                )
            results["own_agent"] = {}
            for name, wrapped in OWN_AGENT_ROWS.items():
                r = results["own_agent"][name] = run_own_agent(agent, endpoint, "bench", args.turns, rng, wrapped)
                print(
                    f"{name:34s} trips {r['round_trips_before_first_token']}  TTFT p50 {r['ttft_ms']['p50']:7.1f} "
                    f"p95 {r['ttft_ms']['p95']:7.1f}  turn p50 {r['turn_ms']['p50']:7.1f}  "
                    f"calls/turn {r['model_calls_per_turn']}",
                    flush=True,
                )
            if importlib.util.find_spec("uvicorn") and importlib.util.find_spec("openai"):
                results["serve"] = run_serve(agent, "bench", args.turns, random.Random(13))
                for name, r in results["serve"].items():
                    print(
                        f"{name:34s} TTFT p50 {r['ttft_ms']['p50']:7.1f} p95 {r['ttft_ms']['p95']:7.1f}  "
                        f"turn p50 {r['turn_ms']['p50']:7.1f}",
                        flush=True,
                    )
            results["post_thinking"] = post_thinking(agent, endpoint, rng)
    results["load_average"] = os.getloadavg()[0]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    md = markdown(results)
    (args.out / "results.md").write_text(md)
    if args.doc:
        args.doc.write_text(md.rstrip("\n") + "\n" + kept_sections(args.doc))
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
