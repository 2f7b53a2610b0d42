"""Choose the default bundled local model by measurement.

For each bundled model (``smollm2``, ``gemma3``) this script runs EVERY CAIM LLM role of the agent on
a small, fixed, labelled sample, through the real code path: ``caim.core.llm.LLM`` over
``caim.core.models.Models(Settings(provider="local", local_model=name))``, i.e. the in-process
llama.cpp server with a ``json_schema`` response format, the prompt modules in ``caim.prompts`` and the
settings' generation cap (``max_tokens``). It counts per role

* **valid**: calls whose answer was usable - structured roles: parsed and validated without falling
  back (a retry that then parses still counts as valid; retries are reported); text roles: non-empty
  and stopped before the generation cap;
* **sensible**: labelled items whose answer matches the label by the rule stated in ``RULES`` below;
* latency (seconds per call, as ``LLM`` traces it) and tokens in/out;

and also measures each model's load time and raw prompt / generation speed (tokens per second).
It prints a table and writes a generated Markdown report (default ``docs/local-models.md``) whose
conclusion names the winner by the rule in ``WINNER_RULE``. Nothing in the report is typed by hand.

Usage::

    python benchmarks/local_models.py [--models smollm2,gemma3] [--out docs/local-models.md]
                                      [--max-tokens N] [--threads N]

The ``judge`` role is not measured: it belongs to the evaluation harness (``caim.eval``), not to the
agent, and is meant to be a strong remote model.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage

from caim.core.errors import EndpointError
from caim.core.llm import LLM
from caim.core.models import Models, local_max_tokens
from caim.core.settings import Settings
from caim.graph.post_thinking import _numbered  # the exact turn numbering post-thinking sends
from caim.memory.stm import TIME_KEY, transcript, turns
from caim.ontology import Ontology, Proposal
from caim.prompts import controller as controller_prompt
from caim.prompts import key_events as events_prompt
from caim.prompts import merge as merge_prompt
from caim.prompts import ontology_extend as onto_prompt
from caim.prompts import relevance as relevance_prompt
from caim.prompts import respond as respond_prompt
from caim.prompts import single_call as single_prompt
from caim.prompts import summarize as summarize_prompt
from caim.prompts import tags as tags_prompt
from caim.prompts import thoughts as thoughts_prompt
from caim.prompts import timeref as time_prompt

ROOT = Path(__file__).resolve().parents[1]
ROLE_ORDER = (
    "controller",
    "tags",
    "time",
    "relevance",
    "respond",
    "summarize",
    "key_events",
    "thoughts",
    "merge",
    "ontology",
    "single_call",
)

# --------------------------------------------------------------------------------------------
# The fixed, labelled sample
# --------------------------------------------------------------------------------------------

TODAY = "2025-05-20"
TODAY_LONG = "Tuesday, May 20, 2025"

#: The sample conversation: (user, assistant) per turn; one fact per turn.
CONVERSATION = [
    (
        "Hi! My name is Maya and I work as a nurse in Lisbon.",
        "Nice to meet you, Maya! Nursing is demanding work - how can I help you today?",
    ),
    (
        "My favourite food is sushi, I could eat it every single day.",
        "Sushi is a great choice! Do you have a favourite kind, like salmon nigiri or maki rolls?",
    ),
    (
        "On weekends I play tennis with my brother Tom.",
        "Tennis is a fun way to stay active, and playing with your brother sounds great.",
    ),
    (
        "Next month I'm planning a trip to Japan with two friends.",
        "How exciting! Japan in June is lovely - you can try sushi at the source.",
    ),
    (
        "Can you recommend a book for the long flight?",
        "I recommend 'Kafka on the Shore' by Haruki Murakami - a dreamlike novel set in Japan.",
    ),
]

#: Facts post-thinking should find: (turn, keywords - any one counts).
EXPECTED_FACTS = [
    (1, ("maya",)),
    (2, ("sushi",)),
    (3, ("tennis",)),
    (4, ("japan",)),
    (5, ("kafka", "murakami")),
]


def conversation_messages() -> list:
    msgs = []
    for i, (user, assistant) in enumerate(CONVERSATION):
        when = f"2025-05-20T10:{i * 2:02d}:00+00:00"
        msgs.append(HumanMessage(user, additional_kwargs={TIME_KEY: when}))
        msgs.append(AIMessage(assistant, additional_kwargs={TIME_KEY: when}))
    return msgs


def _recent(pairs: list[tuple[str, str]]) -> str:
    msgs = []
    for u, a in pairs:
        msgs += [HumanMessage(u), AIMessage(a)]
    return transcript(msgs, per_message=300)


_RECENT_BIKE = _recent(
    [
        (
            "I'm thinking about buying a new bike for my commute.",
            "Good idea! A hybrid or a city bike would suit a daily commute.",
        )
    ]
)

#: Controller probes: (message, recent turns, correct route). The route is what the CAIM cascade
#: (needs_memory -> needs_both -> past_only, as in ``caim.graph.controller.caim_route``) must reach.
CONTROLLER_PROBES = [
    ("What is the capital of France?", "", "none"),
    ("How many minutes are in three hours?", "", "none"),
    ("Can you explain how photosynthesis works?", "", "none"),
    ("What was the name of the restaurant I told you about last week?", "", "ltm"),
    ("Do you remember what I said my sister's name was in our chat yesterday?", "", "ltm"),
    ("Which of the two bikes you just described is cheaper?", _RECENT_BIKE, "stm"),
    ("Sorry, what did I say a minute ago about my commute?", _RECENT_BIKE, "stm"),
    (
        "Is the bike you just suggested good for the hill route to work I told you about last month?",
        _RECENT_BIKE,
        "ltm+stm",
    ),
]

#: The decisions each correct route implies (A = first option of the question).
ROUTE_DECISIONS = {
    "none": {"needs_memory": "B"},
    "ltm+stm": {"needs_memory": "A", "needs_both": "A"},
    "ltm": {"needs_memory": "A", "needs_both": "B", "past_only": "A"},
    "stm": {"needs_memory": "A", "needs_both": "B", "past_only": "B"},
}

#: Tag probes: (message, acceptable tags).
TAG_PROBES = [
    (
        "I started taking guitar lessons last month and I practise every evening.",
        {"music", "instruments", "guitar", "hobbies", "courses", "skills", "education"},
    ),
    ("What was that sushi restaurant I told you about?", {"food", "dining", "restaurants", "japanese", "cuisine"}),
    (
        "My sister is getting married in June!",
        {"family", "relatives", "siblings", "partner", "wedding", "occasions", "celebration"},
    ),
    ("Any tips for my job interview next week?", {"work", "career", "interview", "job", "tips"}),
]

#: Time probes: (message, phrases that must each appear in some returned expression).
TIME_PROBES = [
    ("What did I tell you yesterday about my trip?", ["yesterday"]),
    ("I went hiking two days ago with Tom.", ["two days ago"]),
    ("Remember what we talked about on May 4th?", ["may 4"]),
    ("What's a good recipe for pancakes?", []),
]


def _mem(thought: str, day: str = "2025-05-01") -> dict:
    return {"thought": thought, "event_time": f"{day}T10:00:00+00:00"}


#: Relevance probes: (message, numbered candidates, correct numbers).
RELEVANCE_PROBES = [
    (
        "What's my favourite food?",
        [
            _mem("The user plays tennis on Saturdays."),
            _mem("The user's favourite food is sushi."),
            _mem("The user is reading the novel Dune."),
        ],
        {2},
    ),
    (
        "Which book did you recommend to me?",
        [
            _mem("The user's name is Maya."),
            _mem("The user plans a trip to Lisbon in July."),
            _mem("The assistant recommended the book 'The Hobbit' to the user."),
            _mem("The user's favourite food is sushi."),
        ],
        {3},
    ),
    (
        "I'm flying to Rome in July, remind me what else I planned for the summer?",
        [
            _mem("The user likes jazz music."),
            _mem("The user plans to visit Lisbon in July."),
            _mem("The user's sister Anna lives in Berlin."),
        ],
        {2},
    ),
]

#: Thought probes: (event, keyword the memory sentence must keep, acceptable tags).
THOUGHT_PROBES = [
    ("The user's name is Maya.", "maya", {"personal", "identity", "name"}),
    (
        "The user's favourite food is sushi.",
        "sushi",
        {"food", "preferences", "favorite", "likes", "japanese", "cuisine", "dishes"},
    ),
    (
        "The user plays tennis with their brother Tom on weekends.",
        "tennis",
        {"sports", "individual", "tennis", "hobbies", "family", "siblings", "relatives"},
    ),
    (
        "The assistant recommended the novel 'Kafka on the Shore' by Haruki Murakami.",
        "kafka",
        {"books", "reading", "novels", "literature", "authors", "fiction", "recommendations", "suggestions"},
    ),
]

#: Merge probe: numbered memories, and the only correct grouping.
MERGE_MEMORIES = [
    "The user's favourite food is sushi.",
    "The user plays tennis on weekends.",
    "The user loves sushi more than any other food.",
    "The user's name is Maya.",
    "The user lives in Lisbon.",
]
MERGE_EXPECTED = [{1, 3}]

#: Ontology-coverage probes: (facts, expected "covered").
ONTOLOGY_PROBES = [
    (["The user's favourite food is sushi.", "The user plays tennis with their brother."], "yes"),
    (["The user bought a telescope to observe the planets.", "The user joined an astronomy society."], "no"),
]

#: Single-call probes: (message, recent turns, route, acceptable tags, time phrases).
SINGLE_PROBES = [
    ("What is the capital of France?", "", "none", None, []),
    (
        "What did I tell you yesterday about my sister's wedding?",
        "",
        "ltm",
        {"family", "relatives", "siblings", "partner", "wedding", "occasions"},
        ["yesterday"],
    ),
    (
        "Which of the two bikes you just described is cheaper?",
        _RECENT_BIKE,
        "stm",
        {"transport", "commute", "purchases", "shopping", "deals", "budget", "sports", "cycling"},
        [],
    ),
    (
        "Last week I mentioned a sushi place - what was it called?",
        "",
        "ltm",
        {"food", "dining", "restaurants", "japanese", "cuisine"},
        ["last week"],
    ),
]

#: Summary: keywords (any one per group) a summary of the sample conversation should keep.
SUMMARY_KEYWORDS = [("maya",), ("sushi",), ("tennis",), ("japan",), ("kafka", "murakami")]
SUMMARY_MIN = 4

#: Respond probes: (user message, memories shown, memory question?, accepted keywords in the reply).
RESPOND_PROBES = [
    ("What's my favourite food?", [_mem("The user's favourite food is sushi.")], True, ("sushi",)),
    ("What is the capital of France?", None, False, ("paris",)),
    (
        "What did I say my dog's name was?",
        None,
        True,
        ("remember", "don't know", "do not know", "not sure", "don't have", "do not have", "no record", "not know"),
    ),
]

RULES = {
    "controller": "the full CAIM cascade (needs_memory -> needs_both -> past_only) reaches the labelled route "
    "(none / stm / ltm / ltm+stm); a fallback counts as wrong",
    "tags": "at least one returned tag is in the probe's acceptable set",
    "time": "every expected phrase is contained in some returned expression; for a message without a time "
    "reference, no returned expression occurs in the message",
    "relevance": "the returned numbers contain every correct number and no other",
    "respond": "the reply contains an expected keyword (the remembered fact, the known answer, or an admission "
    "of not remembering)",
    "summarize": f"the summary keeps at least {SUMMARY_MIN} of the {len(SUMMARY_KEYWORDS)} facts (name, food, "
    "hobby, plan, recommended book)",
    "key_events": "one item per expected fact: some event mentions the fact's keyword AND names its turn",
    "thoughts": "the memory sentence keeps the event's keyword AND at least one tag is acceptable",
    "merge": "after dropping groups of fewer than two, the groups are exactly {1, 3} (the duplicate pair)",
    "ontology": "covered = the label; for the uncovered probe, at least one proposed term also passes "
    "caim.ontology validation",
    "single_call": "route equals the label AND (if labelled) a tag is acceptable AND every expected time "
    "phrase is in some returned expression",
}

TEXT_ROLES = ("respond", "summarize")  # plain-text roles; every other role uses a json_schema response format

WINNER_RULE = "most sensible labelled items in total; ties go to more valid calls, then to the lower total LLM time"

# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


@dataclass
class Call:
    role: str
    ms: float
    tok_in: int
    tok_out: int
    valid: bool
    attempts: int
    raised: str = ""  # exception type when LLM let an exception through instead of falling back


@dataclass
class Item:
    role: str
    probe: str
    items: int  # labelled items this probe scores
    sensible: int
    answer: str


@dataclass
class ModelRun:
    name: str
    file: str = ""
    load_s: float = 0.0
    threads: int = 0
    ctx: int = 0
    max_tokens: int = 0
    text_cap: int = 0
    speed: dict = field(default_factory=dict)
    sweep: dict[int, dict] = field(default_factory=dict)  # raw speed by llama.cpp thread count
    calls: list[Call] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    wall_s: float = 0.0
    error: str = ""


class Bench:
    def __init__(self, run: ModelRun, llm: LLM, max_tokens: int):
        self.run = run
        self.llm = llm
        self.max_tokens = max_tokens
        self.trace: list[dict] = []
        self._printed = 0  # calls already shown in the progress lines

    def structured(self, role: str, schema, messages):
        start = time.perf_counter()
        try:
            answer, ok = self.llm.structured(role, schema, messages, None, self.trace, "bench")
        except EndpointError:
            raise
        except Exception as exc:  # not caught by LLM: in the agent this would fail the turn
            self._raised(role, start, exc)
            return None
        e = self.trace[-1]
        self.run.calls.append(Call(role, e["ms"], e["input_tokens"], e["output_tokens"], ok, e["attempts"]))
        return answer if ok else None

    def _raised(self, role: str, start: float, exc: Exception) -> None:
        usage = getattr(getattr(exc, "completion", None), "usage", None)  # openai.LengthFinishReasonError has it
        self.run.calls.append(
            Call(
                role,
                (time.perf_counter() - start) * 1000,
                getattr(usage, "prompt_tokens", 0) or 0,
                getattr(usage, "completion_tokens", 0) or 0,
                False,
                1,
                raised=type(exc).__name__,
            )
        )
        print(f"  {role:<11} raised {type(exc).__name__}: {_short(str(exc), 90)}", flush=True)

    def text(self, role: str, messages) -> str:
        start = time.perf_counter()
        try:
            reply = self.llm.text(role, messages, self.trace, "bench")
        except EndpointError:
            raise
        except Exception as exc:
            self._raised(role, start, exc)
            return ""
        e = self.trace[-1]
        valid = bool(reply.strip()) and e["output_tokens"] < self.run.text_cap  # hitting the cap = ran away
        self.run.calls.append(Call(role, e["ms"], e["input_tokens"], e["output_tokens"], valid, 1))
        return reply

    def item(self, role: str, probe: str, sensible: int | bool, answer, items: int = 1) -> None:
        if answer is None:  # no usable answer: say why
            last = self.run.calls[-1] if self.run.calls else None
            text = f"(raised {last.raised})" if last and last.raised else "(fallback: no valid answer)"
        else:
            text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, default=str)
        self.run.items.append(Item(role, probe, items, int(sensible), " ".join(text.split())))
        mark = f"{int(sensible)}/{items}"
        secs = sum(c.ms for c in self.run.calls[self._printed :]) / 1000
        self._printed = len(self.run.calls)
        print(f"  {role:<11} {mark:>4} {secs:6.1f}s  {probe[:36]:<36} {_short(text, 64)}", flush=True)


def _short(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _lower(xs) -> list[str]:
    return [str(x).lower() for x in xs]


def run_controller(b: Bench) -> None:
    for text, recent, route in CONTROLLER_PROBES:
        decisions: dict[str, str] = {}

        def ask(name: str) -> str | None:
            choice = b.structured(
                "controller", controller_prompt.Choice, controller_prompt.messages(name, text, recent)
            )
            decisions[name] = choice.answer if choice else "fallback"
            return choice.answer if choice else None

        got = None
        first = ask("needs_memory")
        if first == "B":
            got = "none"
        elif first == "A":
            both = ask("needs_both")
            if both == "A":
                got = "ltm+stm"
            elif both == "B":
                past = ask("past_only")
                got = None if past is None else ("ltm" if past == "A" else "stm")
        b.item("controller", f"{route}: {text}", got == route, {"route": got, **decisions})


def run_tags(b: Bench, onto: Ontology) -> None:
    schema = tags_prompt.schema(onto.tags)
    for text, ok_tags in TAG_PROBES:
        ans = b.structured("tags", schema, tags_prompt.messages(text, onto.outline()))
        tags = list(dict.fromkeys(ans.tags)) if ans else None
        b.item("tags", text, bool(tags) and bool(set(tags) & ok_tags), tags)


def _time_ok(exprs: list[str], expected: list[str], message: str) -> bool:
    exprs = _lower(exprs)
    if expected:
        return all(any(p in e for e in exprs) for p in expected)
    return not any(e.strip() and e.strip() in message.lower() for e in exprs)


def run_time(b: Bench) -> None:
    for text, expected in TIME_PROBES:
        ans = b.structured("time", time_prompt.TimeRefs, time_prompt.messages(text, TODAY))
        exprs = ans.expressions if ans else None
        b.item("time", text, exprs is not None and _time_ok(exprs, expected, text), exprs)


def run_relevance(b: Bench, max_kept: int) -> None:
    for text, cands, right in RELEVANCE_PROBES:
        schema = relevance_prompt.schema(len(cands), max_kept)
        ans = b.structured("relevance", schema, relevance_prompt.messages(text, cands))
        got = sorted(set(ans.relevant)) if ans else None
        b.item("relevance", text, got is not None and set(got) == right, got)


def run_respond(b: Bench) -> None:
    for text, memories, memory_q, keywords in RESPOND_PROBES:
        msgs = [*respond_prompt.system(TODAY_LONG, memories, "", memory_q), HumanMessage(text)]
        reply = b.text("respond", msgs)
        low = reply.lower().replace("’", "'")
        b.item("respond", text, any(k in low for k in keywords), reply)


def run_summarize(b: Bench) -> None:
    reply = b.text("summarize", summarize_prompt.messages("", transcript(conversation_messages())))
    low = reply.lower()
    kept = sum(any(k in low for k in group) for group in SUMMARY_KEYWORDS)
    b.item("summarize", f"sample conversation ({kept} facts kept)", kept >= SUMMARY_MIN, reply)


def run_key_events(b: Bench) -> None:
    chunk = turns(conversation_messages())
    schema = events_prompt.schema([t.number for t in chunk])
    ans = b.structured("key_events", schema, events_prompt.messages(_numbered(chunk, 700)))
    events = [(e.turn, e.event) for e in ans.events] if ans else []
    covered = sum(
        any(turn == want and any(k in ev.lower() for k in kws) for turn, ev in events) for want, kws in EXPECTED_FACTS
    )
    b.item("key_events", "sample conversation", covered, events if ans else None, items=len(EXPECTED_FACTS))


def run_thoughts(b: Bench, onto: Ontology) -> None:
    schema = thoughts_prompt.schema(onto.tags)
    for event, keyword, ok_tags in THOUGHT_PROBES:
        ans = b.structured("thoughts", schema, thoughts_prompt.messages(event, TODAY, onto.outline()))
        ok = bool(ans) and keyword in ans.thought.lower() and bool(set(ans.tags) & ok_tags)
        b.item("thoughts", event, ok, ans.model_dump() if ans else None)


def run_merge(b: Bench) -> None:
    mems = [{"thought": t} for t in MERGE_MEMORIES]
    ans = b.structured("merge", merge_prompt.schema(len(mems)), merge_prompt.messages(mems))
    groups = [set(g) for g in ans.groups if len(set(g)) >= 2] if ans else None
    ok = groups is not None and len(groups) == len(MERGE_EXPECTED) and all(g in groups for g in MERGE_EXPECTED)
    b.item("merge", "duplicate pair {1, 3}", ok, [sorted(g) for g in groups] if groups is not None else None)


def run_ontology(b: Bench, onto: Ontology) -> None:
    schema = onto_prompt.schema(onto.parents())
    for facts, expected in ONTOLOGY_PROBES:
        ans = b.structured("ontology", schema, onto_prompt.messages(facts, onto.outline()))
        ok = bool(ans) and ans.covered == expected
        if ok and expected == "no":
            accepted, _ = onto.validate([Proposal(p.parent, p.term) for p in ans.new_terms])
            ok = bool(accepted)
        b.item("ontology", f"covered={expected}: {facts[0]}", ok, ans.model_dump() if ans else None)


def run_single_call(b: Bench, onto: Ontology) -> None:
    schema = single_prompt.schema(onto.tags)
    for text, recent, route, ok_tags, times in SINGLE_PROBES:
        ans = b.structured("single_call", schema, single_prompt.messages(text, recent, TODAY, onto.outline()))
        ok = False
        if ans:
            ok = ans.route == route
            ok &= ok_tags is None or bool(set(ans.tags) & ok_tags)
            ok &= all(any(p in e for e in _lower(ans.time_expressions)) for p in times)
        b.item("single_call", f"{route}: {text}", ok, ans.model_dump() if ans else None)


def measure_speed(server) -> dict:
    """Raw llama.cpp speed on a fixed prompt: prompt and generation tokens per second (server timings)."""
    prompt = " ".join(f"{turn[0]} {turn[1]}" for turn in CONVERSATION)
    body = {
        "model": server.model_name,
        "messages": [{"role": "user", "content": "Retell this conversation in detail:\n" + prompt}],
        "max_tokens": 64,
        "temperature": 0,
        "ignore_eos": True,
        "cache_prompt": False,
    }
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    req = urllib.request.Request(
        server.base_url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    start = time.perf_counter()
    with opener.open(req, timeout=300) as response:
        data = json.load(response)
    wall = time.perf_counter() - start
    t = data.get("timings") or {}
    usage = data.get("usage") or {}
    return {
        "prompt_tokens": t.get("prompt_n", usage.get("prompt_tokens", 0)),
        "prompt_tps": t.get("prompt_per_second"),
        "gen_tokens": t.get("predicted_n", usage.get("completion_tokens", 0)),
        "gen_tps": t.get("predicted_per_second") or (usage.get("completion_tokens", 0) / wall if wall else None),
    }


def bench_model(name: str, max_tokens: int | None, threads: int | None) -> ModelRun:
    from caim.core.local_llm import resolve_model_path

    kwargs = {"provider": "local", "local_model": name, "_env_file": None}
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    if threads is not None:
        kwargs["local_threads"] = threads
    settings = Settings(**kwargs)
    cap = local_max_tokens(settings, "controller")  # the local provider's caps (caim.core.models)
    run = ModelRun(
        name, file=resolve_model_path(name).name, max_tokens=cap, text_cap=local_max_tokens(settings, "respond")
    )
    models = Models(settings)
    llm = LLM(models, settings.max_retries)
    onto = Ontology.default()
    started = time.perf_counter()
    print(f"\n== {name} ({run.file}) - loading", flush=True)
    models.for_role("controller")  # starts the server: the load time is measured by LocalServer
    server = models.local_server
    run.load_s, run.threads, run.ctx = server.load_seconds, server.threads, server.ctx_size
    print(f"   loaded in {run.load_s:.1f}s, {run.threads} threads, ctx {run.ctx}, max_tokens {cap}", flush=True)
    try:
        run.speed = measure_speed(server)
        print(
            f"   speed: prompt {run.speed['prompt_tps'] or 0:.0f} tok/s, generation {run.speed['gen_tps'] or 0:.1f} tok/s",
            flush=True,
        )
        b = Bench(run, llm, cap)
        run_controller(b)
        run_tags(b, onto)
        run_time(b)
        run_relevance(b, settings.max_kept)
        run_key_events(b)
        run_thoughts(b, onto)
        run_merge(b)
        run_ontology(b, onto)
        run_single_call(b, onto)
        run_summarize(b)
        run_respond(b)
    except Exception as exc:  # report what was measured so far, with the reason
        run.error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
        print(f"   ERROR: {run.error}", flush=True)
    finally:
        run.wall_s = time.perf_counter() - started
        server.stop()
    run.sweep = thread_sweep(resolve_model_path(name), run.ctx)
    return run


def thread_sweep(path: Path, ctx: int) -> dict[int, dict]:
    """Raw speed with 1 thread and with every core (llama.cpp's threads busy-wait, so other load hurts)."""
    from caim.core.local_llm import LocalServer

    out: dict[int, dict] = {}
    for n in sorted({1, os.cpu_count() or 1}):
        try:
            with LocalServer(path, ctx_size=ctx, threads=n) as server:
                out[n] = {"load_s": server.load_seconds, **measure_speed(server)}
        except Exception as exc:  # the sweep is informative only
            out[n] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
        sp = out[n]
        print(
            f"   {n} thread(s): prompt {sp.get('prompt_tps') or 0:.0f} tok/s, generation {sp.get('gen_tps') or 0:.1f} tok/s",
            flush=True,
        )
    return out


# --------------------------------------------------------------------------------------------
# Aggregation and report
# --------------------------------------------------------------------------------------------


def role_rows(run: ModelRun) -> list[dict]:
    rows = []
    for role in ROLE_ORDER:
        calls = [c for c in run.calls if c.role == role]
        items = [i for i in run.items if i.role == role]
        rows.append(
            {
                "role": role,
                "calls": len(calls),
                "valid": sum(c.valid for c in calls),
                "retries": sum(c.attempts - 1 for c in calls),
                "raised": sum(1 for c in calls if c.raised),
                "items": sum(i.items for i in items),
                "sensible": sum(i.sensible for i in items),
                "s_per_call": (sum(c.ms for c in calls) / len(calls) / 1000) if calls else 0.0,
                "total_s": sum(c.ms for c in calls) / 1000,
                "tok_in": sum(c.tok_in for c in calls),
                "tok_out": sum(c.tok_out for c in calls),
            }
        )
    return rows


def totals(run: ModelRun) -> dict:
    rows = role_rows(run)
    t = {
        k: sum(r[k] for r in rows)
        for k in ("calls", "valid", "retries", "raised", "items", "sensible", "total_s", "tok_in", "tok_out")
    }
    t["s_per_call"] = t["total_s"] / t["calls"] if t["calls"] else 0.0
    t["out_tps"] = t["tok_out"] / t["total_s"] if t["total_s"] else 0.0
    return t


def controller_baseline() -> tuple[str, int]:
    """Best score a model could get by always reaching the same route (what 'sensible' must beat)."""
    labels = [route for _, _, route in CONTROLLER_PROBES]
    best = max(ROUTE_DECISIONS, key=labels.count)
    return best, labels.count(best)


def winner(runs: list[ModelRun]) -> ModelRun:
    def key(r: ModelRun):
        t = totals(r)
        return (-t["sensible"], -t["valid"], t["total_s"])

    return sorted(runs, key=key)[0]


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "-"


def role_table(run: ModelRun) -> list[str]:
    lines = [
        "| role | calls | valid | retries | raised | sensible | s/call | total s | tokens in | tokens out |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in role_rows(run):
        lines.append(
            f"| {r['role']} | {r['calls']} | {pct(r['valid'], r['calls'])} | {r['retries']} | {r['raised']} | {pct(r['sensible'], r['items'])} "
            f"| {r['s_per_call']:.2f} | {r['total_s']:.1f} | {r['tok_in']} | {r['tok_out']} |"
        )
    t = totals(run)
    lines.append(
        f"| **total** | {t['calls']} | {pct(t['valid'], t['calls'])} | {t['retries']} | {t['raised']} | {pct(t['sensible'], t['items'])} "
        f"| {t['s_per_call']:.2f} | {t['total_s']:.1f} | {t['tok_in']} | {t['tok_out']} |"
    )
    return lines


def conclusion(runs: list[ModelRun], default_name: str) -> str:
    done = [r for r in runs if r.calls]
    if not done:
        return "No model produced any measurement, so no winner can be named."
    if len(done) == 1:
        r = done[0]
        t = totals(r)
        return (
            f"Only `{r.name}` was measured: {t['sensible']} of {t['items']} labelled items sensible and "
            f"{t['valid']} of {t['calls']} calls valid in {t['total_s']:.0f} s of LLM time. Run with both models "
            "to choose the default."
        )
    win = winner(done)
    tw = totals(win)
    parts = [
        f"**`{win.name}` wins on the totals** ({WINNER_RULE}): {tw['sensible']} of {tw['items']} labelled items "
        f"sensible and {tw['valid']} of {tw['calls']} calls valid, in {tw['total_s']:.0f} s of LLM time."
    ]
    for r in done:
        if r is win:
            continue
        t = totals(r)
        parts.append(
            f"`{r.name}` got {t['sensible']} of {t['items']} sensible and {t['valid']} of {t['calls']} valid in "
            f"{t['total_s']:.0f} s."
        )
        wr = {x["role"]: x for x in role_rows(win)}
        better = [x["role"] for x in role_rows(r) if x["items"] and x["sensible"] > wr[x["role"]]["sensible"]]
        worse = [x["role"] for x in role_rows(r) if x["items"] and x["sensible"] < wr[x["role"]]["sensible"]]
        if worse:
            parts.append(
                f"`{win.name}` is more sensible on {', '.join(worse)}"
                + (f"; `{r.name}` on {', '.join(better)}." if better else ".")
            )
        elif better:
            parts.append(f"`{r.name}` is more sensible on {', '.join(better)}.")
        if t["total_s"] and tw["total_s"]:
            ratio = tw["total_s"] / t["total_s"]
            faster, slower = (r, win) if ratio > 1 else (win, r)
            parts.append(
                f"`{faster.name}` took {max(ratio, 1 / ratio):.1f}x less LLM time than `{slower.name}` "
                f"(load {faster.load_s:.1f} s vs {slower.load_s:.1f} s)."
            )
    structured = [
        f"`{r.name}` {sum(x['sensible'] for x in role_rows(r) if x['role'] not in TEXT_ROLES)} of "
        f"{sum(x['items'] for x in role_rows(r) if x['role'] not in TEXT_ROLES)}"
        for r in done
    ]
    parts.append(f"On the structured (json_schema) roles alone: {', '.join(structured)} sensible.")
    capped = [
        f"`{r.name}` {sum(1 for c in r.calls if c.role in TEXT_ROLES and c.tok_out >= r.text_cap)} of "
        f"{sum(1 for c in r.calls if c.role in TEXT_ROLES)}"
        for r in done
    ]
    parts.append(
        f"Free-text calls (respond, summarize) that ran to their {done[0].text_cap}-token cap: {', '.join(capped)}."
    )
    raised = [(r, [c for c in r.calls if c.raised]) for r in done]
    if any(calls for _, calls in raised):
        parts.append(
            "Calls that raised instead of falling back (they would fail an agent turn): "
            + ", ".join(
                f"`{r.name}` {len(calls)}"
                + (f" ({', '.join(sorted({f'{c.role}: {c.raised}' for c in calls}))})" if calls else "")
                for r, calls in raised
            )
            + "."
        )
    nobody = [
        role
        for role in ROLE_ORDER
        if all(x["items"] and x["sensible"] == 0 for r in done for x in role_rows(r) if x["role"] == role)
    ]
    if nobody:
        parts.append(f"No model gave a single sensible answer for: {', '.join(nobody)}.")
    base_route, base_n = controller_baseline()
    scores = ", ".join(
        f"`{r.name}` {next(x['sensible'] for x in role_rows(r) if x['role'] == 'controller')}" for r in done
    )
    parts.append(
        f"For scale: always reaching route `{base_route}` would score {base_n} of {len(CONTROLLER_PROBES)} on the "
        f"controller probes; measured: {scores}."
    )
    if win.name == default_name:
        parts.append(f"The current default (`{default_name}`) is the measured winner, so it stays the default.")
    else:
        parts.append(
            f"The current default is `{default_name}`; by this measurement the default should be `{win.name}`."
        )
    parts.append(
        f"With {tw['items']} labelled items per model these numbers separate clear differences only; "
        "a difference of one or two items is noise."
    )
    return " ".join(parts)


def machine_info() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    try:
        from importlib.metadata import version

        xl = version("xllamacpp")
    except Exception:
        xl = "?"
    return {
        "cores": os.cpu_count(),
        "cpu": cpu or "unknown",
        "memory": mem or "unknown",
        "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "python": platform.python_version(),
        "xllamacpp": xl,
    }


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def report(
    runs: list[ModelRun],
    info: dict,
    started: datetime,
    wall: float,
    load_before: str,
    load_after: str,
    default_name: str,
) -> str:
    L = ["# Local models: which bundled model should be the default", ""]
    L.append(
        f"_Generated by `python benchmarks/local_models.py` on {started.strftime('%Y-%m-%d %H:%M UTC')}; "
        "do not edit by hand - re-run the script._"
    )
    L += ["", "## Conclusion", "", conclusion(runs, default_name), ""]
    L += [
        "## Totals",
        "",
        "| model | file | load s | prompt tok/s | generation tok/s | calls | valid | retries | raised | sensible | LLM s | s/call | tokens in | tokens out | out tok/s (end to end) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        t = totals(r)
        sp = r.speed or {}
        L.append(
            f"| `{r.name}` | {r.file} | {r.load_s:.1f} | {sp.get('prompt_tps') or 0:.0f} | {sp.get('gen_tps') or 0:.1f} "
            f"| {t['calls']} | {pct(t['valid'], t['calls'])} | {t['retries']} | {t['raised']} | {pct(t['sensible'], t['items'])} "
            f"| {t['total_s']:.1f} | {t['s_per_call']:.2f} | {t['tok_in']} | {t['tok_out']} | {t['out_tps']:.1f} |"
        )
    cores = os.cpu_count() or 1
    counts = sorted({n for r in runs for n in r.sweep})
    if counts:
        L += [
            "",
            "Raw speed by llama.cpp thread count (same fixed request, fresh server each; "
            f"this machine has {cores} cores):",
            "",
            "| model | " + " | ".join(f"{n} thread(s): prompt / generation tok/s" for n in counts) + " |",
            "|---|" + "---:|" * len(counts),
        ]
        for r in runs:
            cells = []
            for n in counts:
                sp = r.sweep.get(n, {})
                cells.append(
                    f"{sp.get('prompt_tps') or 0:.0f} / {sp.get('gen_tps') or 0:.1f}"
                    if "error" not in sp and sp
                    else "-"
                )
            L.append(f"| `{r.name}` | " + " | ".join(cells) + " |")
    L += [
        "",
        "*load s*: time for `LocalServer` to load the GGUF file and answer `/health`. *prompt / generation tok/s*: "
        "llama.cpp's own timings for one fixed request (conversation retelling, 64 generated tokens, no prompt "
        "cache). *out tok/s (end to end)*: generated tokens divided by the LLM time of all role calls (includes "
        "prompt processing, grammar and HTTP). *LLM s*: the sum of the `LLM` trace times.",
        "",
    ]
    for r in runs:
        L += [f"## `{r.name}` per role", ""]
        L.append(
            f"{r.file}; {r.threads} threads, context {r.ctx}, max_tokens {r.max_tokens} (free text {r.text_cap}); "
            f"wall time {r.wall_s:.0f} s including load."
        )
        if r.error:
            L.append(f"**Stopped early:** {r.error}")
        L += [""] + role_table(r) + [""]
    L += [
        "## How it is measured",
        "",
        'Every role goes through `caim.core.llm.LLM` with `Models(Settings(provider="local", local_model=NAME))`, '
        "so structured roles use the same `json_schema` response format (a llama.cpp grammar), prompts, retry "
        "(`max_retries` from the settings) and generation cap as the agent. Temperature is the settings' default.",
        "",
        "* **calls**: LLM calls made (the controller cascade asks 1-3 questions per probe). "
        "**valid**: structured answers that parsed and validated (possibly after a retry; **retries** counts "
        "extra attempts); text answers that are non-empty and stopped before `max_tokens`. **raised**: calls where "
        "`LLM` let an exception through instead of retrying or falling back (in the agent that fails the turn); "
        "they count as not valid and their probe as not sensible, and the benchmark goes on.",
        "* **sensible**: labelled items judged correct by these rules:",
        "",
    ]
    for role in ROLE_ORDER:
        L.append(f"  * `{role}`: {RULES[role]}.")
    L += [
        "",
        f"* **winner**: {WINNER_RULE}.",
        "",
        "Sample: a five-turn conversation (name, favourite food, hobby, plan, a book recommendation); "
        f"{len(CONTROLLER_PROBES)} controller probes, {len(TAG_PROBES)} tag probes, {len(TIME_PROBES)} time probes, "
        f"{len(RELEVANCE_PROBES)} relevance probes, key events on the conversation ({len(EXPECTED_FACTS)} facts), "
        f"{len(THOUGHT_PROBES)} thought probes, one merge probe, {len(ONTOLOGY_PROBES)} ontology probes, "
        f"{len(SINGLE_PROBES)} single-call probes, one summary and {len(RESPOND_PROBES)} replies. "
        "The `judge` role (evaluation only) is not measured.",
        "",
    ]
    L += ["## Machine", ""]
    L += [
        f"* CPU: {info['cpu']}, **{info['cores']} cores**; memory {info['memory']}",
        f"* OS: {info['os']}; Python {info['python']}; xllamacpp {info['xllamacpp']}",
        f"* date: {started.strftime('%Y-%m-%d %H:%M UTC')}; total run time {wall:.0f} s",
        f"* load average (1/5/15 min) before: {load_before}; after: {load_after} "
        "(other work on the machine slows every number down)",
        "",
    ]
    L += ["## Answers", ""]
    for r in runs:
        L += [
            f"<details><summary><code>{r.name}</code>: every probe</summary>",
            "",
            "| role | probe | sensible | answer |",
            "|---|---|---:|---|",
        ]
        for i in r.items:
            L.append(
                f"| {i.role} | {_md(_short(i.probe, 70))} | {i.sensible}/{i.items} | {_md(_short(i.answer, 220))} |"
            )
        L += ["", "</details>", ""]
    return "\n".join(L)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def print_table(runs: list[ModelRun]) -> None:
    print()
    head = f"{'model':<8} {'role':<11} {'calls':>5} {'valid':>6} {'sensible':>9} {'raised':>6} {'s/call':>7} {'tok in':>7} {'tok out':>7}"
    print(head)
    print("-" * len(head))
    for r in runs:
        rows = role_rows(r) + [{"role": "TOTAL", **totals(r)}]
        for x in rows:
            print(
                f"{r.name:<8} {x['role']:<11} {x['calls']:>5} {x['valid']:>3}/{x['calls']:<2} {x['sensible']:>5}/{x['items']:<3} "
                f"{x['raised']:>6} {x['s_per_call']:>7.2f} {x['tok_in']:>7} {x['tok_out']:>7}"
            )
        sp = r.speed or {}
        print(
            f"{r.name:<8} load {r.load_s:.1f}s, prompt {sp.get('prompt_tps') or 0:.0f} tok/s, "
            f"generation {sp.get('gen_tps') or 0:.1f} tok/s, wall {r.wall_s:.0f}s"
        )
        print()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="smollm2,gemma3", help="comma-separated bundled model names or GGUF paths")
    ap.add_argument(
        "--out", default=str(ROOT / "docs" / "local-models.md"), help="Markdown report to write ('' = none)"
    )
    ap.add_argument("--max-tokens", type=int, default=None, help="generation cap per call (default: the settings' own)")
    ap.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: the settings' own)")
    args = ap.parse_args(argv)

    from caim.core.local_llm import BUNDLED_MODELS, resolve_model_path

    started = datetime.now(UTC)
    t0 = time.perf_counter()
    load_before = load_average()
    runs = [bench_model(name.strip(), args.max_tokens, args.threads) for name in args.models.split(",") if name.strip()]
    wall = time.perf_counter() - t0
    load_after = load_average()

    print_table(runs)
    default_file = resolve_model_path(None)  # what an unset CAIM_LOCAL_MODEL serves today
    default_name = next((n for n in BUNDLED_MODELS if resolve_model_path(n) == default_file), default_file.name)
    text = conclusion(runs, default_name)
    print(text.replace("**", ""))
    print(f"\ntotal run time {wall:.0f}s")
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            report(runs, machine_info(), started, wall, load_before, load_after, default_name) + "\n", encoding="utf-8"
        )
        print(f"report written to {out}")
    return 1 if any(r.error for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
