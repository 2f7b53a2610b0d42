"""Several workers, one memory: the FastAPI example under load, embedded versus server mode.

Starts the FastAPI example (``examples/fastapi_chat.py``) under uvicorn on loopback, against a
simulated OpenAI-compatible endpoint (``caim.testing.simulated``, with a per-call latency), and runs a
bounded load: ``--users`` users at once, each telling ``--turns`` facts (one unique word per fact),
ending the session, then reading its memories back. In

- **embedded** mode one worker owns a data directory (SQLite records, embedded Chroma, SQLite
  checkpoints): the supported single-process set-up;
- **server** mode two workers (separate processes) share one PostgreSQL (records and checkpoints)
  and one Chroma server, and every request of a user goes to the other worker than the last one,
  so a session started on one worker is continued and ended on the other.

For each mode it prints turns/s, p50/p95 of a chat turn and of a session end as the client saw
them, and the losses: facts not stored, facts stored twice, another user's fact in a reply or a
memory list, failed requests. The last line reads ``workers: <mode> <x> turns/s p95 <y> ms, losses
<n>`` for the last mode run. Server mode needs ``--database-url`` and ``--chroma-url`` (or
``CAIM_TEST_DATABASE_URL`` / ``CAIM_TEST_CHROMA_URL``; ``.ci/servers.sh start`` prints them)::

    eval "$(.ci/servers.sh start)"
    python benchmarks/workers.py --users 20 --turns 4
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

from caim.testing.simulated import Answer, Latency, SimulatedEndpoint

ROOT = Path(__file__).resolve().parents[1]
TABLE: dict[str, Answer] = {
    "Plan": {"needs_memory": "yes", "memory": "past", "tags": [], "time_expressions": []},
    "respond": "Noted.",
    "Relevant": {"relevant": [1]},
}


@dataclass
class Result:
    mode: str
    workers: int
    users: int
    turns: int
    seconds: float = 0.0
    turn_ms: list[float] = field(default_factory=list)
    end_ms: list[float] = field(default_factory=list)
    expected: int = 0
    found: int = 0
    duplicates: int = 0
    cross_user: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def losses(self) -> int:
        return (self.expected - self.found) + self.duplicates + self.cross_user + self.failed

    def figures(self) -> dict:
        pct = lambda xs, q: round(float(np.percentile(xs, q)), 1) if xs else None  # noqa: E731
        return {
            "mode": self.mode,
            "workers": self.workers,
            "users": self.users,
            "turns_per_user": self.turns,
            "turns_per_s": round(len(self.turn_ms) / self.seconds, 2) if self.seconds else 0.0,
            "turn_ms": {"p50": pct(self.turn_ms, 50), "p95": pct(self.turn_ms, 95)},
            "session_end_ms": {"p50": pct(self.end_ms, 50), "p95": pct(self.end_ms, 95)},
            "facts": self.expected,
            "stored": self.found,
            "duplicates": self.duplicates,
            "cross_user": self.cross_user,
            "failed_requests": self.failed,
            "losses": self.losses,
            "errors": self.errors[:5],
        }


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_worker(env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    port = _port()
    argv = ["uvicorn", "examples.fastapi_chat:create_app", "--factory", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", *argv, "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        start_new_session=True,
    )
    return proc, f"http://127.0.0.1:{port}"


def wait_ready(proc: subprocess.Popen, base: str, log: Path, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(base + "/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"a worker did not start: {log.read_text()[-500:]}")
        time.sleep(0.3)


def run_mode(mode: str, args: argparse.Namespace, endpoint: str, root: Path) -> Result:
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_"))}
    base_env.update(
        CAIM_PROVIDER="openai",
        CAIM_BASE_URL=endpoint,
        CAIM_API_KEY="sim",
        CAIM_MODEL="sim",
        CAIM_DATA_DIR=str(root / mode),
        # the app authenticates every request: one bearer token per user, as a deployment would
        CAIM_AUTH_TOKENS=json.dumps({f"token-{i}": f"user-{i}" for i in range(args.users)}),
    )
    workers = 1
    if mode == "server":
        workers = 2
        namespace = "bench_" + uuid.uuid4().hex[:10]
        base_env.update(
            CAIM_DATABASE_URL=args.database_url,
            CAIM_CHECKPOINT_URL=args.database_url,
            CAIM_CHROMA_URL=args.chroma_url,
            CAIM_NAMESPACE=namespace,
        )
    res = Result(mode, workers, args.users, args.turns)
    procs: list[subprocess.Popen] = []
    bases: list[str] = []
    try:
        for w in range(workers):
            log = root / f"{mode}-worker{w}.log"
            # server-mode workers get a data dir each: what they share lives in the servers
            data = root / mode / (f"w{w}" if mode == "server" else "")
            proc, base = start_worker(dict(base_env, CAIM_DATA_DIR=str(data)), log)
            procs.append(proc)
            bases.append(base)
            wait_ready(proc, base, log)
        clients = [httpx.Client(base_url=b, timeout=300) for b in bases]

        def user(i: int) -> None:
            auth = {"Authorization": f"Bearer token-{i}"}
            words = [f"zq{i}w{t}x" for t in range(args.turns)]
            hop = i  # alternate workers request by request (one worker in embedded mode)

            def client() -> httpx.Client:
                nonlocal hop
                hop += 1
                return clients[hop % len(clients)]

            for t, word in enumerate(words):
                t0 = time.perf_counter()
                r = client().post("/chat", headers=auth, json={"message": f"My code word number {t} is {word}."})
                r.raise_for_status()
                res.turn_ms.append((time.perf_counter() - t0) * 1000)
                res.cross_user += sum(
                    1 for m in r.json()["memories"] if "zq" in m["thought"] and f"zq{i}w" not in m["thought"]
                )
            t0 = time.perf_counter()
            client().post("/session/end", headers=auth).raise_for_status()
            res.end_ms.append((time.perf_counter() - t0) * 1000)
            mems = client().get("/memories", headers=auth).json()
            for word in words:
                n = sum(1 for m in mems if word in m["thought"])
                res.expected += 1
                res.found += min(n, 1)
                res.duplicates += max(n - 1, 0)
            res.cross_user += sum(1 for m in mems if "zq" in m["thought"] and f"zq{i}w" not in m["thought"])

        t0 = time.perf_counter()
        with cf.ThreadPoolExecutor(max_workers=args.concurrency) as pool:
            for fut in cf.as_completed([pool.submit(user, i) for i in range(args.users)]):
                try:
                    fut.result()
                except Exception as exc:
                    res.failed += 1
                    res.errors.append(f"{type(exc).__name__}: {exc}"[:200])
        res.seconds = time.perf_counter() - t0
        for c in clients:
            c.close()
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(timeout=60)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--turns", type=int, default=4, help="facts per user (one chat turn each)")
    ap.add_argument("--concurrency", type=int, default=8, help="users served at once")
    ap.add_argument("--latency", type=float, default=0.05, help="simulated seconds per model call")
    ap.add_argument("--modes", default="embedded,server")
    ap.add_argument("--database-url", default=os.environ.get("CAIM_TEST_DATABASE_URL"))
    ap.add_argument("--chroma-url", default=os.environ.get("CAIM_TEST_CHROMA_URL"))
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    if "server" in modes and not (args.database_url and args.chroma_url):
        ap.error("server mode needs --database-url and --chroma-url (or CAIM_TEST_DATABASE_URL / CAIM_TEST_CHROMA_URL)")
    results = []
    with (
        tempfile.TemporaryDirectory(prefix="caim-workers-") as tmp,
        SimulatedEndpoint(TABLE, latency=Latency(per_call=args.latency)) as ep,
    ):
        for mode in modes:
            res = run_mode(mode, args, ep.base_url, Path(tmp))
            f = res.figures()
            results.append(f)
            print(
                f"{mode:8s} {f['workers']} worker(s) {f['users']} users x {f['turns_per_user']} turns: "
                f"{f['turns_per_s']:.2f} turns/s  turn p50 {f['turn_ms']['p50']} ms p95 {f['turn_ms']['p95']} ms  "
                f"session end p50 {f['session_end_ms']['p50']} ms p95 {f['session_end_ms']['p95']} ms  "
                f"stored {f['stored']}/{f['facts']} duplicates {f['duplicates']} cross-user {f['cross_user']} "
                f"failed {f['failed_requests']}",
                flush=True,
            )
            for e in f["errors"]:
                print(f"  error: {e}")
    if args.json:
        args.json.write_text(json.dumps({"simulated_latency_s": args.latency, "results": results}, indent=2))
    last = results[-1]
    print(
        f"workers: {last['mode']} {last['turns_per_s']:.2f} turns/s p95 {last['turn_ms']['p95']} ms, "
        f"losses {sum(r['losses'] for r in results)}"
    )
    return 0 if all(r["losses"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
