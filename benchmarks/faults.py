"""Faults and load, counted: what survives kills, malformed answers, concurrent writers, many users.

Bounded in count and time, loopback only, no real model (scripted or a simulated endpoint). Each
scenario counts what it ran and what was lost; every loss count must be 0:

1. **kills** - a session's post-thinking is killed (SIGKILL) at each fault-injection point
   (``caim.core.faultpoints``), then the process starts again and ends the session: facts expected
   versus stored, duplicates;
2. **malformed answers** - for each post-thinking and turn role, hypothesis generates broken
   answers (not JSON, wrong types, values outside the enumerations, truncated JSON, huge strings);
   each turn must be answered and each fact-stating turn stored: crashes and lost turns;
3. **endpoint faults** - sessions against a simulated endpoint that times out, resets, answers
   HTTP 429 / 500 or cuts streams at random: turns kept, facts stored;
4. **one user, many writers** - 8 processes end 8 sessions of the same user at once on one data
   directory (each repeats one fact): facts stored, duplicates of the repeated fact;
5. **many users** - 100 users chat and end their sessions concurrently through the FastAPI example
   (uvicorn on loopback, simulated model): facts stored per user, cross-user reads.

    python benchmarks/faults.py [--quick] [--doc docs/reliability.md]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from caim.agent import CaimAgent, EndpointError, Settings
from caim.core.faultpoints import POINTS
from caim.core.scripted import scripted_models
from caim.core.simulated import FAULTS, Request, SimulatedEndpoint

ROOT = Path(__file__).resolve().parents[1]
FACTS = ["My favourite food is pizza.", "I play the piano every evening.", "My sister Clara lives in Rome."]


@dataclass
class Scenario:
    name: str
    runs: int = 0
    expected: int = 0
    found: int = 0
    duplicates: int = 0
    crashes: int = 0
    cross_user: int = 0
    extra: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def losses(self) -> int:
        return (self.expected - self.found) + self.duplicates + self.crashes + self.cross_user


def env_for(data: Path, script: dict | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_"))}
    env["CAIM_DATA_DIR"] = str(data)
    if script is not None:
        path = data.parent / f"{data.name}-script.json"
        path.write_text(json.dumps(script))
        env.update(CAIM_PROVIDER="scripted", CAIM_SCRIPT=str(path))
    return env


STATIC = {
    "plan": {"needs_memory": "no", "memory": "past", "tags": [], "time_expressions": []},
    "respond": "ok",
    "key_events": {"events": [{"turn": i + 1, "event": f"The user said: {f}"} for i, f in enumerate(FACTS)]},
    "thoughts": {"thoughts": [], "new_terms": []},
    "maintain": {"decisions": []},
}

SESSION = textwrap.dedent(
    """
    import json, sys
    from caim.agent import CaimAgent, Settings
    step, user, day = sys.argv[1], sys.argv[2], sys.argv[3]
    with CaimAgent(Settings(), background=False) as agent:
        if step in ("chat", "all"):
            for i, fact in enumerate(json.loads(sys.argv[4])):
                agent.chat(fact, user_id=user, at=f"2023-04-{day}T09:{i:02d}:00")
        if step in ("end", "all") or (step == "end-if-open" and agent.state(user).get("messages")):
            agent.end_session(user_id=user, at=f"2023-04-{day}T10:00:00")
        print(json.dumps([r.thought for r in agent.memories(user)]))
    """
)


def session(
    env: dict, step: str, user: str, day: str, facts: list[str], point: str | None = None
) -> subprocess.CompletedProcess:
    e = dict(env, CAIM_FAULT_POINT=point) if point else env
    return subprocess.run(
        [sys.executable, "-c", SESSION, step, user, day, json.dumps(facts)],
        capture_output=True,
        text=True,
        env=e,
        timeout=300,
    )


def kills(root: Path, rounds: int) -> Scenario:
    sc = Scenario("kills at each post-thinking step, then restart")
    for r in range(rounds):
        for point in POINTS:
            env = env_for(root / f"kill-{r}-{point}", STATIC)
            session(env, "all", "u", "27", FACTS)  # a first session stored cleanly
            session(env, "chat", "u", "28", FACTS)  # the same facts again: merged by maintenance
            killed = session(env, "end", "u", "28", FACTS, point)
            sc.runs += 1
            sc.extra["kills"] = sc.extra.get("kills", 0) + int(killed.returncode == -signal.SIGKILL)
            done = session(env, "end-if-open", "u", "28", FACTS)
            if done.returncode != 0:
                sc.crashes += 1
                continue
            thoughts = json.loads(done.stdout)
            sc.expected += len(FACTS)
            sc.found += len({t for t in thoughts if any(f in t for f in FACTS)})
            sc.duplicates += len(thoughts) - len(set(thoughts))
    return sc


# ---- malformed answers (hypothesis) ---------------------------------------------------------------------
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 50) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
BROKEN = st.one_of(
    st.text(max_size=200),
    JSONISH.map(json.dumps),
    JSONISH.map(lambda v: json.dumps(v)[:-1]),
    st.sampled_from(
        [
            '{"needs_memory": "maybe"}',
            '{"relevant": [99, -1]}',
            '{"events": [{"turn": 99}]}',
            '{"thoughts": [{"event": 1, "thought": 5}]}',
            '{"decisions": "all"}',
            "```json\n{```",
            "x" * 5000,
        ]
    ),
)
ROLES = ("plan", "relevance", "respond", "key_events", "thoughts", "maintain", "summarize")


def malformed(root: Path, examples: int) -> Scenario:
    sc = Scenario("malformed model answers, per role (hypothesis)")
    per_role: dict[str, int] = {}
    for role in ROLES:
        seen = {"n": 0}
        run = _fuzz(role, seen, sc, root, examples)
        run()
        per_role[role] = seen["n"]
        sc.runs += seen["n"]
    sc.extra["answers per role"] = per_role
    return sc


def _fuzz(role: str, seen: dict, sc: Scenario, root: Path, examples: int):
    """A hypothesis test: ``role`` answers with generated broken output; the session must survive."""

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(answer=BROKEN)
    def run(answer: str) -> None:
        seen["n"] += 1
        script = dict(STATIC)
        script["plan"] = {"needs_memory": "yes", "memory": "past", "tags": [], "time_expressions": []}
        script[role] = answer
        models, _ = scripted_models(script)
        with tempfile.TemporaryDirectory(dir=root) as tmp:
            agent = CaimAgent(Settings(data_dir=Path(tmp), _env_file=None), models=models, background=False)
            try:
                for fact in FACTS:
                    agent.chat(fact, user_id="u")
                agent.end_session(user_id="u")
                agent.chat("Do you remember my favourite food?", user_id="u")
                said = {s.text for r in agent.memories("u") for s in r.sources if s.role == "user" and not s.context}
                sc.expected += len(FACTS)
                sc.found += len(said & set(FACTS))
            except Exception as exc:  # a malformed answer must never crash a turn or a session
                sc.crashes += 1
                sc.extra.setdefault("crash examples", []).append(f"{role}: {type(exc).__name__}: {exc}"[:200])
            finally:
                agent.close()

    return run


# ---- endpoint faults ---------------------------------------------------------------------------------------
def endpoint_faults(root: Path, sessions: int, rate: float) -> Scenario:
    sc = Scenario(f"endpoint faults at random ({rate:.0%} of calls: {', '.join(FAULTS)})")
    rng = random.Random(5)
    lock = threading.Lock()

    def faults(req: Request) -> str | None:
        with lock:
            return rng.choice(FAULTS) if rng.random() < rate else None

    table = {
        "Plan": {"needs_memory": "yes", "memory": "past", "tags": [], "time_expressions": []},
        "respond": "Noted, thank you for telling me.",
        "KeyEvents": {"events": [{"turn": i + 1, "event": f"The user said: {f}"} for i, f in enumerate(FACTS)]},
    }
    kept = failed_answers = 0
    with SimulatedEndpoint(table, faults=faults, stall=2.5) as ep:
        for i in range(sessions):
            settings_ = Settings(
                provider="openai",
                base_url=ep.base_url,
                api_key="sim",
                model="sim",
                data_dir=root / f"ep-{i}",
                request_timeout=1.0,
                retry_backoff=0.01,
                _env_file=None,
            )
            with CaimAgent(settings_, background=False) as agent:
                for fact in FACTS:
                    try:
                        agent.chat(fact, user_id="u")
                    except EndpointError:
                        failed_answers += 1  # the answer could not be made; the turn must still be kept
                kept += sum(1 for m in agent.state("u").get("messages", []) if m.type == "human")
                try:
                    agent.end_session(user_id="u")
                except Exception as exc:
                    sc.crashes += 1
                    sc.extra.setdefault("crash examples", []).append(f"{type(exc).__name__}: {exc}"[:200])
                said = {s.text for r in agent.memories("u") for s in r.sources if s.role == "user" and not s.context}
                sc.runs += 1
                sc.expected += len(FACTS)
                sc.found += len(said & set(FACTS))
        sc.extra["calls"] = len(ep.requests)
        sc.extra["faults injected"] = sum(1 for r in ep.requests if r.fault)
    sc.extra["answers that failed (turn kept)"] = failed_answers
    sc.extra["user turns kept"] = f"{kept}/{sessions * len(FACTS)}"
    sc.expected += sessions * len(FACTS)  # every user turn must be kept in its session too
    sc.found += kept
    return sc


# ---- one user, many writers ----------------------------------------------------------------------------------
WRITER = textwrap.dedent(
    """
    import sys
    from caim import Memory, Settings
    i = sys.argv[1]
    when = f"2023-05-0{int(i) % 9 + 1}T09:00:00+00:00"
    msgs = [{"role": "user", "content": "My favourite food is pizza.", "time": when},
            {"role": "user", "content": f"My locker number is {i}07.", "time": when}]
    with Memory(Settings(), background=False) as memory:
        memory.remember(msgs, user_id="shared", background=False, session_id=f"writer-{i}")
    """
)


def many_writers(root: Path, writers: int) -> Scenario:
    sc = Scenario(f"one user, {writers} processes ending sessions at once")
    data = root / "writers"
    script = dict(STATIC)
    script["key_events"] = {"events": [{"turn": 1, "event": "The user's favourite food is pizza."}]}
    env = env_for(data, script)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(i)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for i in range(1, writers + 1)
    ]
    for p in procs:
        _, err = p.communicate(timeout=600)
        sc.runs += 1
        if p.returncode != 0:
            sc.crashes += 1
            sc.extra.setdefault("crash examples", []).append(err.strip().splitlines()[-1][:200] if err else "?")
    with CaimAgent(Settings(data_dir=data, _env_file=None), background=False) as agent:
        recs = agent.memories("shared")
    lockers = {f"{i}07" for i in range(1, writers + 1)}
    found = {n for n in lockers if any(n in r.thought for r in recs)}
    pizza = [r for r in recs if "pizza" in r.thought]
    sc.expected = len(lockers) + 1
    sc.found = len(found) + int(bool(pizza))
    sc.duplicates = max(len(pizza) - 1, 0)
    sc.extra["records"] = len(recs)
    return sc


# ---- many users through the FastAPI example -----------------------------------------------------------------
def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def many_users(root: Path, users: int) -> Scenario:
    import httpx

    sc = Scenario(f"{users} users at once through the FastAPI example")
    table = {
        "Plan": {"needs_memory": "yes", "memory": "past", "tags": [], "time_expressions": []},
        "respond": "ok",
        "Relevant": {"relevant": [1]},
    }
    with SimulatedEndpoint(table) as ep:
        port = _port()
        env = {
            **env_for(root / "api"),
            "CAIM_PROVIDER": "openai",
            "CAIM_BASE_URL": ep.base_url,
            "CAIM_API_KEY": "sim",
            "CAIM_MODEL": "sim",
            # the app authenticates every request: one bearer token per user, as a deployment would
            "CAIM_AUTH_TOKENS": json.dumps({f"token-{i}": f"user-{i}" for i in range(users)}),
        }
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "examples.fastapi_chat:create_app",
                "--factory",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(base + "/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the FastAPI example did not start")
                time.sleep(0.3)

            def user(i: int) -> tuple[int, int]:
                auth = {"Authorization": f"Bearer token-{i}"}
                with httpx.Client(base_url=base, timeout=120, headers=auth) as c:
                    c.post("/chat", json={"message": f"My secret word is zq{i}x."}).raise_for_status()
                    c.post("/session/end").raise_for_status()
                    mems = c.get("/memories").json()
                    mine = sum(1 for m in mems if f"zq{i}x" in m["thought"])
                    other = sum(1 for m in mems if "zq" in m["thought"] and f"zq{i}x" not in m["thought"])
                    r = c.post("/chat", json={"message": "Do you remember my secret word?"}).json()
                    other += sum(1 for m in r["memories"] if f"zq{i}x" not in m["thought"] and "zq" in m["thought"])
                    return mine, other

            with cf.ThreadPoolExecutor(max_workers=16) as pool:
                for fut in cf.as_completed([pool.submit(user, i) for i in range(users)]):
                    sc.runs += 1
                    try:
                        mine, other = fut.result()
                        sc.expected += 1
                        sc.found += min(mine, 1)
                        sc.duplicates += max(mine - 1, 0)
                        sc.cross_user += other
                    except Exception as exc:
                        sc.crashes += 1
                        sc.extra.setdefault("crash examples", []).append(f"{type(exc).__name__}: {exc}"[:200])
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    return sc


def markdown(scenarios: list[Scenario], args: argparse.Namespace, started: datetime, seconds: float) -> str:
    lines = [
        "# Reliability: faults and load, counted",
        "",
        f"Generated by `python benchmarks/faults.py{' --quick' if args.quick else ''}` on {started.date()} in "
        f"{seconds:.0f} s ({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}). Loopback only; scripted "
        "or simulated models. Every loss count must be 0.",
        "",
        "| scenario | runs | facts expected | found | duplicates | crashes | cross-user reads | **losses** | seconds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for sc in scenarios:
        lines.append(
            f"| {sc.name} | {sc.runs} | {sc.expected} | {sc.found} | {sc.duplicates} | {sc.crashes} | "
            f"{sc.cross_user} | **{sc.losses}** | {sc.seconds:.0f} |"
        )
    lines += [""]
    for sc in scenarios:
        if sc.extra:
            lines.append(f"- {sc.name}: " + "; ".join(f"{k}: {v}" for k, v in sc.extra.items()))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--doc", type=Path, default=None, help="also write the summary here (docs/reliability.md)")
    args = ap.parse_args(argv)
    q = args.quick
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    scenarios = []
    with tempfile.TemporaryDirectory(prefix="caim-faults-") as tmp:
        root = Path(tmp)
        for name, fn in (
            ("kills", lambda: kills(root, 1 if q else 3)),
            ("malformed", lambda: malformed(root, 5 if q else 25)),
            ("endpoint", lambda: endpoint_faults(root, 3 if q else 12, 0.2)),
            ("writers", lambda: many_writers(root, 3 if q else 8)),
            ("users", lambda: many_users(root, 10 if q else 100)),
        ):
            start = time.perf_counter()
            sc = fn()
            sc.seconds = time.perf_counter() - start
            scenarios.append(sc)
            print(f"{name}: runs {sc.runs}, expected {sc.expected}, found {sc.found}, losses {sc.losses}", flush=True)
    text = markdown(scenarios, args, started, time.perf_counter() - t0)
    print(text)
    if args.doc:
        args.doc.write_text(text, encoding="utf-8")
    return 0 if all(sc.losses == 0 for sc in scenarios) else 1


if __name__ == "__main__":
    sys.exit(main())
