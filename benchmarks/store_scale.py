"""How the memory store scales: insert rate, ranked retrieval, list and export latency, export memory.

Fills a fresh data directory with synthetic records - chat-like sentences drawn from a Zipf
vocabulary, synthetic unit vectors (the fill does not embed; every query is embedded for real with
the configured embedder) - for one user with ``--records N`` and optionally ``--users M`` more users
with ``--per-user K`` records each, then measures:

- insert rate (records/s into the record database: durable and retrievable once written) and the
  vector-index drain rate (Chroma, in the background);
- ranked retrieval p50/p95 for realistic questions (query embedding included);
- list (all records of the user, paged) and export (streamed) time, and the export's peak memory,
  measured in a child process running ``caim memories export`` against the same process for an
  empty user.

Usage::

    python benchmarks/store_scale.py --records 100000
    python benchmarks/store_scale.py --records 1000 --users 999 --per-user 1000

The last line reads ``retrieval p95 <x> ms at <N> records``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from caim.core.embeddings import MiniLMEmbedder
from caim.memory.records import MemoryRecord, SourceTurn
from caim.memory.retrieval import Query, Retriever
from caim.memory.store import MemoryStore
from caim.memory.transfer import export_lines

WORDS = (
    "pizza jazz piano hiking mountains sister brother mother father cat dog garden cooking painting book novel "
    "movie concert guitar running swimming yoga coffee tea breakfast dinner vacation beach city train flight "
    "doctor office project meeting deadline birthday wedding friend neighbor school university exam recipe "
    "bakery museum gallery photography camera bicycle car apartment house kitchen plants flowers tomatoes "
    "soccer tennis basketball marathon podcast album song lyrics poem story theater festival market"
).split()
NAMES = "Anna Ben Clara David Emma Felix Grace Henry Iris Jonas Lena Max Nora Oscar Paula".split()
TEMPLATES = (
    "I {v} {a} {b} with {n} last week.",
    "My favourite {a} is the {b} near the {c}.",
    "{n} told me about a {a} and a {b}.",
    "We went to the {a} and saw a {b} yesterday.",
    "I started learning {a} because of {n}.",
    "The {a} was great, but the {b} was too loud.",
)
VERBS = "enjoyed visited planned cooked watched bought found loved tried booked".split()
QUESTIONS = (
    "What did I do with {n}?",
    "Do you remember my favourite {a}?",
    "When did we go to the {a}?",
    "What did {n} tell me about the {a}?",
    "Why did I start learning {a}?",
)


def zipf_word(rng: random.Random) -> str:
    return WORDS[min(int(rng.paretovariate(1.1)) - 1, len(WORDS) - 1)] if rng.random() < 0.7 else rng.choice(WORDS)


def sentence(rng: random.Random, template: tuple[str, ...] = TEMPLATES) -> str:
    return rng.choice(template).format(v=rng.choice(VERBS), a=zipf_word(rng), b=zipf_word(rng), c=zipf_word(rng),
                                       n=rng.choice(NAMES))


def fill(store: MemoryStore, user: str, n: int, rng: random.Random, dim: int, batch: int, bar, task) -> float:
    """Write ``n`` synthetic records for ``user``; returns the seconds spent writing."""
    t0 = datetime(2020, 1, 1, tzinfo=UTC)
    spent = 0.0
    for start in range(0, n, batch):
        recs = []
        for i in range(start, min(start + batch, n)):
            text = sentence(rng)
            when = t0 + timedelta(minutes=17 * i)
            recs.append(MemoryRecord(
                user_id=user, thought=text, kind="raw", tags=["personal"], event_time=when, speaker="user",
                session_id=f"s{i // 20}", turn=i % 20, sources=[SourceTurn(role="user", text=text, time=when)],
            ))
        vecs = np.asarray([rng.gauss(0, 1) for _ in range(len(recs) * dim)], dtype=np.float32).reshape(len(recs), dim)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        t = time.perf_counter()
        store.add(recs, vectors=vecs)
        spent += time.perf_counter() - t
        bar.advance(task, len(recs))
    return spent


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


_PEAK = """
import resource, runpy, sys
sys.argv = ["caim", "memories", "export", "--user", sys.argv[1], "--data-dir", sys.argv[2], "--out", "/dev/null"]
try:
    runpy.run_module("caim.agent.cli", run_name="__main__")
except SystemExit:
    pass
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def export_rss(data_dir: Path, user: str) -> tuple[float, float]:
    """Peak RSS (MB) of ``caim memories export`` for ``user``, and for a user with no records."""

    def peak(u: str) -> float:
        done = subprocess.run([sys.executable, "-c", _PEAK, u, str(data_dir)], capture_output=True, text=True, check=True)
        return int(done.stderr.strip().splitlines()[-1]) / 1024

    return peak(user), peak("nobody-here")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=10_000, help="records of the measured user")
    ap.add_argument("--users", type=int, default=0, help="further users")
    ap.add_argument("--per-user", type=int, default=1000, help="records of each further user")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--data-dir", type=Path, default=None, help="default: a temporary directory")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)
    rng = random.Random(7)
    root = args.data_dir or Path(tempfile.mkdtemp(prefix="caim-scale-"))
    embedder = MiniLMEmbedder.shared()
    dim = len(embedder.embed(["probe"])[0])
    store = MemoryStore(root, embedder)
    total = args.records + args.users * args.per_user
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns) as bar:
        task = bar.add_task("insert", total=total)
        spent = fill(store, "u0", args.records, rng, dim, args.batch, bar, task)
        for u in range(1, args.users + 1):
            spent += fill(store, f"u{u}", args.per_user, rng, dim, args.batch, bar, task)
        drain = bar.add_task("vector index", total=total)
        t = time.perf_counter()
        store._kick()
        while (left := len(store.db.pending_vectors(total))) > 0:
            bar.update(drain, completed=total - left)
            time.sleep(0.5)
        store.flush()
        bar.update(drain, completed=total)
        index_s = time.perf_counter() - t
    insert_rate = total / spent
    retriever = Retriever(store)
    now = datetime(2030, 1, 1, tzinfo=UTC)
    lat: list[float] = []
    users = ["u0"] if not args.users else ["u0"] + [f"u{i}" for i in range(1, args.users + 1)]
    for i in range(args.queries):
        user = users[i % len(users)] if args.users else "u0"
        q = sentence(rng, QUESTIONS)
        t = time.perf_counter()
        retriever.search(user, Query(q, now), 20)  # query embedding included
        lat.append((time.perf_counter() - t) * 1000)
    lat = lat[5:] or lat  # the first queries load the model and the indexes
    t = time.perf_counter()
    n_list = sum(1 for _ in store.iter("u0"))
    list_s = time.perf_counter() - t
    t = time.perf_counter()
    size = sum(len(piece) for piece in export_lines(store, "u0"))
    export_s = time.perf_counter() - t
    store.close()
    rss, base = export_rss(root, "u0")
    figures = {
        "records_u0": args.records, "users": 1 + args.users, "records_total": total,
        "insert_records_per_s": round(insert_rate, 1), "vector_index_records_per_s": round(total / index_s, 1),
        "retrieval_ms": {"p50": round(pct(lat, 50), 1), "p95": round(pct(lat, 95), 1), "mean": round(statistics.mean(lat), 1)},
        "list_s": round(list_s, 2), "listed": n_list, "export_s": round(export_s, 2), "export_mb": round(size / 1e6, 1),
        "export_peak_rss_mb": round(rss, 1), "export_baseline_rss_mb": round(base, 1),
        "load_average": os.getloadavg()[0],
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    scope = f"{args.records} records" + (f" (+{args.users} users x {args.per_user})" if args.users else "")
    print(f"insert {insert_rate:.0f} records/s, vector index {total / index_s:.0f} records/s; list {list_s:.2f} s, "
          f"export {export_s:.2f} s (peak RSS {rss:.0f} MB, {rss - base:+.0f} MB over an empty export)")
    print(f"retrieval p95 {pct(lat, 95):.1f} ms at {scope}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
