"""How the memory store scales: insert rate, ranked retrieval, list and export latency, export memory.

Fills a fresh data directory with synthetic records - sentences over a made-up vocabulary of 20,000
words drawn by Zipf's law, with function words between them; synthetic vectors (the fill does not
embed; every query is embedded for real with the configured embedder) - for one user with
``--records N`` and optionally ``--users M`` more users with ``--per-user K`` records each, then measures:

- insert rate (records/s into the record database: durable and searchable once written), and the
  rate with the vector index (Chroma, filled in the background) caught up;
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
from caim.memory.capture import raw_record
from caim.memory.retrieval import Query, Retriever
from caim.memory.store import MemoryStore
from caim.memory.transfer import export_lines

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ren",
    "ta",
    "vo",
    "su",
    "pe",
    "dri",
    "an",
    "el",
    "or",
    "tu",
    "ni",
    "sa",
    "be",
    "gu",
    "ly",
    "fa",
    "zo",
]
FUNCTION_WORDS = [
    "i",
    "we",
    "my",
    "the",
    "a",
    "to",
    "and",
    "of",
    "in",
    "with",
    "at",
    "for",
    "on",
    "was",
    "is",
    "it",
    "that",
    "about",
    "last",
]
QUESTION_STARTS = ("What did I say about", "Do you remember the", "When did we talk about", "Who told me about")


def vocabulary(n: int, rng: random.Random) -> list[str]:
    """``n`` distinct made-up content words (chat vocabulary follows Zipf's law over thousands of words)."""
    words: dict[str, None] = {}
    while len(words) < n:
        words["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))] = None
    return list(words)


class Text:
    """Chat-like sentences over a Zipf-distributed vocabulary, and questions about them."""

    def __init__(self, rng: random.Random, size: int = 20_000):
        self.rng = rng
        self.words = vocabulary(size, rng)
        weights = 1.0 / np.arange(1, size + 1)
        self.cdf = np.cumsum(weights / weights.sum())

    def word(self) -> str:
        return self.words[min(int(np.searchsorted(self.cdf, self.rng.random())), len(self.words) - 1)]

    def sentence(self) -> str:
        parts = [
            self.rng.choice(FUNCTION_WORDS) if self.rng.random() < 0.45 else self.word()
            for _ in range(self.rng.randint(8, 20))
        ]
        return " ".join(parts).capitalize() + "."

    def question(self) -> str:
        return f"{self.rng.choice(QUESTION_STARTS)} {self.word()} and {self.word()}?"


def fill(store: MemoryStore, user: str, n: int, text: Text, dim: int, batch: int, bar, task) -> float:
    """Write ``n`` synthetic records for ``user``; returns the seconds spent writing."""
    t0 = datetime(2020, 1, 1, tzinfo=UTC)
    spent = 0.0
    for start in range(0, n, batch):
        recs = []
        for i in range(start, min(start + batch, n)):
            said = text.sentence()
            when = t0 + timedelta(minutes=17 * i)
            recs.append(
                raw_record(
                    user_id=user,
                    session_id=f"s{i // 20}",
                    turn=i % 20,
                    text=said,
                    when=when,
                    tags=["personal"],
                    speaker="user",
                )
            )
        vecs = np.random.default_rng(len(recs) + start).standard_normal((len(recs), dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        t = time.perf_counter()
        store.add(recs, vectors=vecs)
        spent += time.perf_counter() - t
        bar.advance(task, len(recs))
    return spent


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


_PEAK = """
import runpy, sys
sys.argv = ["caim", "memories", "export", "--user", sys.argv[1], "--data-dir", sys.argv[2], "--out", "/dev/null"]
try:
    runpy.run_module("caim.agent.cli", run_name="__main__")
except SystemExit:
    pass
# the address space's own high-water mark: ru_maxrss would carry over the forking parent's size
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")), file=sys.stderr)
"""


def export_rss(data_dir: Path, user: str) -> tuple[float, float]:
    """Peak RSS (MB) of ``caim memories export`` for ``user``, and for a user with no records."""

    def peak(u: str) -> float:
        done = subprocess.run(
            [sys.executable, "-c", _PEAK, u, str(data_dir)], capture_output=True, text=True, check=True
        )
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
    text = Text(rng)
    root = args.data_dir or Path(tempfile.mkdtemp(prefix="caim-scale-"))
    embedder = MiniLMEmbedder.shared()
    dim = len(embedder.embed(["probe"])[0])
    store = MemoryStore(root, embedder)
    total = args.records + args.users * args.per_user
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns) as bar:
        task = bar.add_task("insert", total=total)
        wall = time.perf_counter()
        spent = fill(store, "u0", args.records, text, dim, args.batch, bar, task)
        for u in range(1, args.users + 1):
            spent += fill(store, f"u{u}", args.per_user, text, dim, args.batch, bar, task)
        drain = bar.add_task("vector index (catching up)", total=total)
        while (left := store.unindexed(total)) > 0:
            bar.update(drain, completed=total - left)
            time.sleep(0.5)
        store.flush()
        bar.update(drain, completed=total)
        index_s = time.perf_counter() - wall  # the indexer runs beside the writes: writes and indexing together
    insert_rate = total / spent
    retriever = Retriever(store)
    now = datetime(2030, 1, 1, tzinfo=UTC)
    lat: list[float] = []
    users = ["u0"] if not args.users else ["u0"] + [f"u{i}" for i in range(1, args.users + 1)]
    for i in range(args.queries):
        user = users[i % len(users)] if args.users else "u0"
        q = text.question()
        t = time.perf_counter()
        retriever.search(user, Query(q, now), 20)  # query embedding included
        lat.append((time.perf_counter() - t) * 1000)
    lat = lat[5:] or lat  # the first queries load the model and the indexes
    t = time.perf_counter()
    n_list = sum(1 for _ in store.iter("u0"))
    list_s = time.perf_counter() - t
    t = time.perf_counter()
    size = sum(len(piece) for piece in export_lines(store.iter("u0"), "u0"))
    export_s = time.perf_counter() - t
    store.close()
    rss, base = export_rss(root, "u0")
    figures = {
        "records_u0": args.records,
        "users": 1 + args.users,
        "records_total": total,
        "insert_records_per_s": round(insert_rate, 1),
        "indexed_records_per_s": round(total / index_s, 1),
        "retrieval_ms": {
            "p50": round(pct(lat, 50), 1),
            "p95": round(pct(lat, 95), 1),
            "mean": round(statistics.mean(lat), 1),
        },
        "list_s": round(list_s, 2),
        "listed": n_list,
        "export_s": round(export_s, 2),
        "export_mb": round(size / 1e6, 1),
        "export_peak_rss_mb": round(rss, 1),
        "export_baseline_rss_mb": round(base, 1),
        "load_average": os.getloadavg()[0],
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    scope = f"{args.records} records" + (f" (+{args.users} users x {args.per_user})" if args.users else "")
    print(
        f"insert {insert_rate:.0f} records/s (written and searchable), {total / index_s:.0f} records/s with the vector "
        f"index caught up; list {list_s:.2f} s, "
        f"export {export_s:.2f} s (peak RSS {rss:.0f} MB, {rss - base:+.0f} MB over an empty export)"
    )
    print(f"retrieval p95 {pct(lat, 95):.1f} ms at {scope}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
