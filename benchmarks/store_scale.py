"""How the memory store scales: insert rate, ranked retrieval, list and export latency, export memory.

Fills a fresh data directory with synthetic records - sentences over a made-up vocabulary of 20,000
words drawn by Zipf's law, with function words between them; synthetic vectors (the fill does not
embed; every query is embedded for real with the configured embedder) - for one user with
``--records N`` and optionally ``--users M`` more users with ``--per-user K`` records each, then measures:

- insert rate (records/s into the record database: durable and searchable once written), over the
  whole fill and over its first and last tenth (writes must not slow down as the memory grows), and
  the rate with the vector index (Chroma, filled in the background) caught up;
- ranked retrieval p50/p95 for realistic questions (query embedding included);
- list (all records of the user, paged) and export (streamed) time, and the export's peak memory,
  measured in a child process running ``caim memories export`` against the same process for an
  empty user;
- the whole run's wall time, beside its CPU seconds and the machine's load average while it ran (a
  shared machine's wall time measures its other jobs too).

The records are verbatim records as capture writes them, their entities left unread: the made-up
words name none, and reading them is capture's work (``benchmarks/ingest.py`` measures it).

``--vectors words`` (the default) gives each record the normalised sum of fixed random vectors of
its content words, so records that share words are near each other as with text embeddings;
``--vectors random`` gives independent random vectors, which have no near neighbours - a worst case
for the vector index's graph that no embedder produces; ``--vectors embedder`` has the store embed
every record with the configured embedder as it writes it (ingestion as a real memory pays for it:
the insert rate is then the embedder's). Every fill reports its CPU seconds (every thread's: the
vector index's and the embedder's included) and the process's peak memory.

``--embedder-fill N`` also fills a fresh store with ``N`` records that the configured embedder embeds
as they are written, in a child process of its own (its peak memory its own), once the run's own
figures are written: its records/s, CPU seconds and peak memory are a row of the run's section, beside
the word-vector fill, and not part of its whole run. The child writes its figures so far after each
batch (``<--json>-embedder-fill.json``), so a run stopped during it still tells its rate; so does the
run's own fill (``--json``, until the run's figures replace them).

Usage::

    python benchmarks/store_scale.py --records 100000 --doc docs/scale.md
    python benchmarks/store_scale.py --records 1000000 --embedder-fill 100000 --doc docs/scale.md --json r1m.json
    python benchmarks/store_scale.py --records 1000 --users 999 --per-user 1000

``--doc`` rewrites the run's own section of that Markdown file (one per record count and user
mix), keeping the others. The last line reads ``retrieval p95 <x> ms at <N> records``.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import chromadb
import numpy as np
from chromadb.config import Settings as ChromaSettings
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from caim.core.embeddings import MiniLMEmbedder
from caim.memory.capture import raw_record
from caim.memory.search.retrieval import Query, Retriever
from caim.memory.storage.store import MemoryStore
from caim.memory.storage.vectors import HNSW
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
        self.cdf = np.cumsum(weights / weights.sum()).tolist()  # a list: bisect per word, not a numpy call

    def word(self) -> str:
        return self.words[min(bisect.bisect_left(self.cdf, self.rng.random()), len(self.words) - 1)]

    def sentence(self) -> str:
        parts = [
            self.rng.choice(FUNCTION_WORDS) if self.rng.random() < 0.45 else self.word()
            for _ in range(self.rng.randint(8, 20))
        ]
        return " ".join(parts).capitalize() + "."

    def question(self) -> str:
        return f"{self.rng.choice(QUESTION_STARTS)} {self.word()} and {self.word()}?"


class Vectors:
    """Synthetic unit vectors for the records (see the module's docstring: ``words`` or ``random``)."""

    def __init__(self, kind: str, words: list[str], dim: int, seed: int = 3):
        self.kind = kind
        self.dim = dim
        self.rng = np.random.default_rng(seed)
        self.index = {w: i for i, w in enumerate(words)}
        self.table = self.rng.standard_normal((len(words), dim)).astype(np.float32) if kind == "words" else None

    def of(self, texts: list[str]) -> np.ndarray:
        """One unit vector per text."""
        if self.table is None:
            vecs = self.rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        else:
            rows = [[self.index[w] for w in t.lower().rstrip(".").split() if w in self.index] or [0] for t in texts]
            vecs = np.vstack([self.table[r].sum(axis=0) for r in rows])
        return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def fill(
    store: MemoryStore, user: str, n: int, text: Text, vectors: Vectors, batch: int, bar, task, each=None
) -> list[float]:
    """Write ``n`` synthetic records for ``user``; returns the seconds each batch spent writing.
    ``each(written, spent)`` is called after each batch."""
    t0 = datetime(2020, 1, 1, tzinfo=UTC)
    spent = []
    for start in range(0, n, batch):
        recs = []
        for i in range(start, min(start + batch, n)):
            recs.append(
                raw_record(
                    user_id=user,
                    session_id=f"s{i // 20}",
                    turn=i % 20,
                    text=text.sentence(),
                    when=t0 + timedelta(minutes=17 * i),
                    tags=["personal"],
                    speaker="user",
                    read_entities=False,  # made-up words name no entity; reading them is capture's work
                )
            )
        vecs = vectors.of([r.thought for r in recs]) if vectors.kind != "embedder" else None
        t = time.perf_counter()
        store.add(recs, vectors=vecs)  # no vectors: the store embeds the records
        spent.append(time.perf_counter() - t)
        bar.advance(task, len(recs))
        if each is not None:
            each(min(start + batch, n), spent)
    return spent


def hnsw_check(n: int, text: Text, vectors: Vectors, embedder: MiniLMEmbedder, queries: int = 50) -> list[dict]:
    """Chromadb's default graph settings against caim's (``caim.memory.storage.vectors.HNSW``): seconds to
    build a collection of ``n`` word vectors, and of the embeddings of up to 10,000 sentences, and
    how many of the exact 100 nearest (and of the exact 10 nearest) a query finds among its 100."""
    sentences = [text.sentence() for _ in range(n + queries)]
    sets = {"words": vectors.of(sentences)}
    sets[f"{embedder.name} embeddings"] = np.asarray(embedder.embed(sentences[: min(n, 10_000) + queries]), np.float32)
    out = []
    for kind, vecs in sets.items():
        held, stored = vecs[-queries:], vecs[:-queries]
        exact = np.argsort(-(held @ stored.T), axis=1)[:, :100]
        for label, settings in (("chromadb default", {}), ("caim", HNSW)):
            build, found = graph(stored, held, settings)
            out.append(
                {
                    "vectors": f"{len(stored):,} {kind}",
                    "settings": label,
                    "build_s": round(build, 1),
                    "recall_100": round(found_share(found, exact), 3),
                    "top_10": round(found_share(found, exact[:, :10]), 3),
                }
            )
            print(out[-1])
    return out


def graph(stored: np.ndarray, held: np.ndarray, settings: dict) -> tuple[float, list[set[int]]]:
    """Seconds to build a collection of ``stored`` under ``settings``, and each held vector's 100 nearest."""
    with tempfile.TemporaryDirectory() as tmp:
        client = chromadb.PersistentClient(path=tmp, settings=ChromaSettings(anonymized_telemetry=False))
        col = client.create_collection("hnsw-check", metadata={"hnsw:space": "cosine", **settings})
        t = time.perf_counter()
        for i in range(0, len(stored), 1000):
            col.add(ids=[str(j) for j in range(i, min(i + 1000, len(stored)))], embeddings=stored[i : i + 1000])
        build = time.perf_counter() - t
        got = col.query(query_embeddings=list(held), n_results=100, include=[])["ids"]
    return build, [{int(i) for i in g} for g in got]


def found_share(found: list[set[int]], exact: np.ndarray) -> float:
    """The mean share of each row of ``exact`` (row numbers) that ``found`` holds."""
    return float(np.mean([len(f & set(e.tolist())) / len(e) for f, e in zip(found, exact, strict=True)]))


def tenth_rates(spent: list[float], n: int, batch: int) -> tuple[float, float]:
    """Insert rate (records/s) over the first and the last tenth of the batches of a fill of ``n``."""
    k = max(len(spent) // 10, 1)
    sizes = [min(batch, n - i * batch) for i in range(len(spent))]
    return sum(sizes[:k]) / sum(spent[:k]), sum(sizes[-k:]) / sum(spent[-k:])


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


_PEAK = """
import runpy, sys
sys.argv = ["caim", "memories", "export", "--user", sys.argv[1], "--data-dir", sys.argv[2], "--out", "/dev/null"]
try:
    runpy.run_module("caim.agent.surfaces.cli", run_name="__main__")
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


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=10_000, help="records of the measured user")
    ap.add_argument("--users", type=int, default=0, help="further users")
    ap.add_argument("--per-user", type=int, default=1000, help="records of each further user")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument(
        "--vectors", dest="synthetic", choices=("words", "random", "embedder"), default="words", help="record vectors"
    )
    ap.add_argument(
        "--embedder-fill",
        type=int,
        default=0,
        metavar="N",
        help="also fill a fresh store with N records the configured embedder embeds as they are written, in a "
        "child process: its records/s, CPU seconds and peak memory beside this run's fill",
    )
    ap.add_argument("--fill-only", action="store_true", help=argparse.SUPPRESS)  # the child of --embedder-fill
    ap.add_argument("--hnsw", type=int, default=0, help="instead: compare the vector graph's settings on N vectors")
    ap.add_argument("--data-dir", type=Path, default=None, help="default: a temporary directory")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--doc", type=Path, default=None, help="also write the run's section of this Markdown file")
    return ap.parse_args(argv)


def fill_all(store: MemoryStore, args: argparse.Namespace, text: Text, vectors: Vectors, each=None) -> dict:
    """Every user's records written, then the vector index caught up: the insert figures (``each``:
    called after each batch of the measured user's, see ``fill``)."""
    total = args.records + args.users * args.per_user
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns) as bar:
        task = bar.add_task("insert", total=total)
        fill_start, cpu_start, main_start = time.perf_counter(), time.process_time(), time.thread_time()
        spent = fill(store, "u0", args.records, text, vectors, args.batch, bar, task, each)
        first, last = tenth_rates(spent, args.records, args.batch)
        for u in range(1, args.users + 1):
            spent += fill(store, f"u{u}", args.per_user, text, vectors, args.batch, bar, task)
        fill_s = time.perf_counter() - fill_start  # the writes and the making of their text
        fill_cpu = time.process_time() - cpu_start  # every thread's: the embedder's and the indexer's included
        drain = bar.add_task("vector index (catching up)", total=total)
        while (left := store.unindexed(total)) > 0:  # counting reads the pending rows: not too often
            bar.update(drain, completed=total - left)
            time.sleep(2.0)
        store.flush()
        bar.update(drain, completed=total)
        index_s = time.perf_counter() - fill_start  # the indexer runs beside the writes: writes and indexing together
        index_cpu = time.process_time() - cpu_start
        main_cpu = time.thread_time() - main_start  # the writes and the making of their records
    return {
        "records_total": total,
        "insert_records_per_s": round(total / sum(spent), 1),
        "insert_first_tenth_per_s": round(first, 1),
        "insert_last_tenth_per_s": round(last, 1),
        "indexed_records_per_s": round(total / index_s, 1),
        "indexed_s": round(index_s, 1),
        "fill_s": round(fill_s, 1),
        "fill_cpu_s": round(fill_cpu, 1),
        "indexed_cpu_s": round(index_cpu, 1),
        "indexed_main_thread_cpu_s": round(main_cpu, 1),
        "fill_peak_rss_mb": round(peak_rss_mb(), 1),
        **resident_mb(),
    }


def peak_rss_mb() -> float:
    """This process's peak resident memory so far (MB)."""
    with open("/proc/self/status", encoding="ascii") as status:
        return int(next(line.split()[1] for line in status if line.startswith("VmHWM:"))) / 1024


def resident_mb() -> dict[str, float]:
    """This process's resident memory now (MB): its own (anonymous) and the pages of files it maps (the
    record database's memory map among them: the page cache's, given back under memory pressure)."""
    with open("/proc/self/status", encoding="ascii") as status:
        kb = {k: int(v.split()[0]) for k, v in (line.split(":", 1) for line in status) if k in ("RssAnon", "RssFile")}
    return {"rss_anon_mb": round(kb.get("RssAnon", 0) / 1024, 1), "rss_file_mb": round(kb.get("RssFile", 0) / 1024, 1)}


def embedder_fill(args: argparse.Namespace) -> dict:
    """``args.embedder_fill`` records written to a fresh store by a child process whose store embeds each
    record with the configured embedder (``--vectors embedder --fill-only``): its fill figures and wall
    seconds. The child writes its figures so far after each batch (to ``<--json>-embedder-fill.json``
    beside this run's ``--json``): a run stopped during this fill leaves them there."""
    with tempfile.TemporaryDirectory(prefix="caim-scale-embedder-") as tmp:
        out = args.json.with_name(f"{args.json.stem}-embedder-fill.json") if args.json else Path(tmp) / "fill.json"
        argv = ["--records", str(args.embedder_fill), "--vectors", "embedder", "--batch", str(args.batch)]
        argv += ["--fill-only", "--data-dir", str(Path(tmp) / "data"), "--json", str(out)]
        t = time.perf_counter()
        subprocess.run([sys.executable, __file__, *argv], check=True)
        figures = json.loads(out.read_text())
    return figures | {"process_s": round(time.perf_counter() - t, 1)}


def fill_only(args: argparse.Namespace, text: Text, vectors: Vectors, embedder: MiniLMEmbedder) -> dict:
    """Fill a fresh store and catch its vector index up, nothing else: the fill's figures."""
    store = MemoryStore(args.data_dir or Path(tempfile.mkdtemp(prefix="caim-scale-")), embedder)
    figures: dict = {"vectors": f"{embedder.name} (each record embedded as it is written)"}
    figures |= fill_all(store, args, text, vectors, so_far(args, figures))
    store.close()
    return figures


def so_far(args: argparse.Namespace, figures: dict):
    """A ``fill`` callback that writes the figures of the batches written so far to ``args.json``
    (nothing without it), should the run be stopped: records written, wall and CPU seconds (every
    thread's), the rate in ``MemoryStore.add``, peak memory and the load average."""
    start, cpu = time.perf_counter(), time.process_time()

    def write(written: int, spent: list[float]) -> None:
        if args.json:
            partial = {"partial": True, "records_written": written, "of": args.records}
            partial |= {"seconds": round(time.perf_counter() - start, 1), "cpu_s": round(time.process_time() - cpu, 1)}
            partial |= {"records_per_s_in_add": round(written / sum(spent), 1), "peak_rss_mb": round(peak_rss_mb(), 1)}
            args.json.write_text(json.dumps(figures | partial | {"load_average": os.getloadavg()[0]}, indent=2))

    return write


def retrieval(store: MemoryStore, args: argparse.Namespace, text: Text) -> dict:
    """Latency of ``args.queries`` questions (the first five left out: they load the model and indexes)."""
    retriever = Retriever(store)
    now = datetime(2030, 1, 1, tzinfo=UTC)
    users = ["u0"] + [f"u{i}" for i in range(1, args.users + 1)]
    lat: list[float] = []
    for i in range(args.queries):
        q = text.question()
        t = time.perf_counter()
        retriever.search(users[i % len(users)], Query(q, now), 20)  # query embedding included
        lat.append((time.perf_counter() - t) * 1000)
    lat = lat[5:] or lat
    return {
        "p50": round(pct(lat, 50), 1),
        "p95": round(pct(lat, 95), 1),
        "mean": round(statistics.mean(lat), 1),
        "queries": len(lat),
    }


def listing(store: MemoryStore) -> dict:
    """Time to list and to export the measured user's records."""
    t = time.perf_counter()
    n_list = sum(1 for _ in store.iter("u0"))
    list_s = time.perf_counter() - t
    t = time.perf_counter()
    size = sum(len(piece) for piece in export_lines(store.iter("u0"), "u0"))
    return {
        "list_s": round(list_s, 2),
        "listed": n_list,
        "export_s": round(time.perf_counter() - t, 2),
        "export_mb": round(size / 1e6, 1),
    }


def measure(args: argparse.Namespace, text: Text, vectors: Vectors, embedder: MiniLMEmbedder) -> dict:
    """Fill a store, then query, list and export it: the figures, with the wall seconds of each phase."""
    root = args.data_dir or Path(tempfile.mkdtemp(prefix="caim-scale-"))
    store = MemoryStore(root, embedder)
    kind = (
        f"{embedder.name} (each record embedded as it is written)" if args.synthetic == "embedder" else args.synthetic
    )
    figures = {"records_u0": args.records, "users": 1 + args.users, "vectors": kind}
    figures |= fill_all(store, args, text, vectors, so_far(args, figures))
    phases = {"fill": figures["fill_s"], "vector index catching up": round(figures["indexed_s"] - figures["fill_s"], 1)}
    with timed(phases, "queries"):
        figures["retrieval_ms"] = retrieval(store, args, text)
    figures["load_average_queries"] = os.getloadavg()[0]
    with timed(phases, "list and export"):
        figures |= listing(store)
    with timed(phases, "closing the store"):
        store.close()
    with timed(phases, "export processes"):
        rss, base = export_rss(root, "u0")
    return figures | {"export_peak_rss_mb": round(rss, 1), "export_baseline_rss_mb": round(base, 1), "phases_s": phases}


class LoadSampler:
    """The machine's 1-minute load average, sampled every ``every`` seconds in a daemon thread while
    the run goes on: its mean and its highest."""

    def __init__(self, every: float = 10.0):
        self.samples = [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._every = every
        threading.Thread(target=self._run, daemon=True, name="load-sampler").start()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            self.samples.append(os.getloadavg()[0])

    def figures(self) -> dict:
        """The samples' mean and highest (the sampler goes on)."""
        return {
            "load_average_mean": round(statistics.mean(self.samples), 1),
            "load_average_max": round(max(self.samples), 1),
        }


def cpu_seconds() -> float:
    """CPU seconds of this process (every thread's) and of its children that ended, so far."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    started, load_start, wall = datetime.now(UTC), os.getloadavg()[0], time.perf_counter()
    cpu_start, load = cpu_seconds(), LoadSampler()
    text = Text(random.Random(7))
    embedder = MiniLMEmbedder.shared()
    vectors = Vectors(args.synthetic, text.words, len(embedder.embed(["probe"])[0]))
    run = RunInfo(started, load_start, sys.argv[1:] if argv is None else argv)
    if args.fill_only:
        figures = fill_only(args, text, vectors, embedder) | load.figures()
        print(json.dumps(figures, indent=2))
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2))
        return 0
    if args.hnsw:
        rows = hnsw_check(args.hnsw, text, vectors, embedder)
        if args.doc:
            write_doc(args.doc, HNSW_HEADING, hnsw_section(rows, run))
        return 0
    figures = measure(args, text, vectors, embedder)
    rss, base = figures["export_peak_rss_mb"], figures["export_baseline_rss_mb"]
    figures |= {"total_s": round(time.perf_counter() - wall, 1), "load_average": os.getloadavg()[0]}
    figures |= {"total_cpu_s": round(cpu_seconds() - cpu_start, 1), **load.figures()}
    figures["load_average_start"] = load_start
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    scope = f"{args.records} records" + (f" (+{args.users} users x {args.per_user})" if args.users else "")
    scope += ", embedded as written" if args.synthetic == "embedder" else ""
    if args.doc:
        write_doc(args.doc, scope, section(figures, scope, run))
    if args.embedder_fill:  # last, outside the whole run's clock; the figures above are written already
        figures["embedder_fill"] = embedder_fill(args)
        print(json.dumps({"embedder_fill": figures["embedder_fill"]}, indent=2), flush=True)
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2))
        if args.doc:
            write_doc(args.doc, scope, section(figures, scope, run))
    f = figures
    print(
        f"insert {f['insert_records_per_s']:.0f} records/s (written and searchable; first tenth "
        f"{f['insert_first_tenth_per_s']:.0f}, last tenth {f['insert_last_tenth_per_s']:.0f}), "
        f"{f['indexed_records_per_s']:.0f} records/s with the vector index caught up; list {f['list_s']:.2f} s, "
        f"export {f['export_s']:.2f} s (peak RSS {rss:.0f} MB, {rss - base:+.0f} MB over an empty export); "
        f"whole run {f['total_s']:.0f} s, {f['total_cpu_s']:.0f} CPU s at load {f['load_average_mean']:.1f} on the mean"
    )
    print(f"retrieval p95 {f['retrieval_ms']['p95']:.1f} ms at {scope}")
    return 0


@contextmanager
def timed(phases: dict[str, float], name: str) -> Iterator[None]:
    """Record the wall seconds of the block as ``phases[name]``."""
    t = time.perf_counter()
    try:
        yield
    finally:
        phases[name] = round(time.perf_counter() - t, 1)


@dataclass
class RunInfo:
    """When and how a run was started, for its section of the doc."""

    started: datetime
    load_start: float
    argv: list[str]
    commit: str = field(default_factory=lambda: _commit())

    def line(self) -> str:
        """The command, when and at which commit it started (``-dirty``: with uncommitted changes), and
        the machine's load (at the start and now)."""
        return (
            f"`python benchmarks/store_scale.py {' '.join(self.argv)}` on {self.started:%Y-%m-%d %H:%M} UTC, "
            f"started at commit {self.commit or '?'}, {os.cpu_count()} CPUs shared with other jobs: load average "
            f"{self.load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
        )


def _commit() -> str:
    """The checked-out commit, ``-dirty`` when the tree has uncommitted changes ("" outside git)."""
    here = Path(__file__).parent
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=here)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, cwd=here
    )
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "") if head.returncode == 0 else ""


DOC_TITLE = "# Store scale"
DOC_INTRO = (
    "Written by `benchmarks/store_scale.py --doc docs/scale.md`: each run rewrites its own section "
    "(one per record count and user mix, and one for `--hnsw`) and keeps the others and the notes at the "
    "end. What the benchmark fills and measures: its docstring. *Insert*: records/s written to the record "
    "database, durable and searchable once written (the time spent in `MemoryStore.add`); *first / last "
    "tenth*: the same over the first and the last tenth of the fill (writes should not slow down as the "
    "memory grows); *vector index caught up*: records/s from the start of the fill until the vector index "
    "(Chroma, filled in the background, writes first) holds every record. *Retrieval*: `Retriever.search`, "
    "k=20, the query's embedding included, over the queries after the first five. *Whole run*: the fill, "
    "the vector index catching up, the queries, the list, the export and the two export processes. "
    "The section *Ingestion* is written by `benchmarks/ingest.py --doc docs/scale.md`: remembering "
    "conversations, exporting and importing them, importing a chat history (its docstring says how)."
)
#: Everything under this line in an existing doc is kept when ``--doc`` writes it again.
NOTES = "<!-- notes: written by hand; benchmarks/store_scale.py --doc keeps everything below this line -->"
HNSW_HEADING = "Vector graph settings"


def section(figures: dict, scope: str, run: RunInfo) -> str:
    """The Markdown section of one run."""
    r = figures["retrieval_ms"]
    minutes, seconds = divmod(figures["total_s"], 60)
    rows = [
        ("insert (record database)", f"{figures['insert_records_per_s']:,.0f} records/s"),
        (
            "insert, first / last tenth of the fill",
            f"{figures['insert_first_tenth_per_s']:,.0f} / {figures['insert_last_tenth_per_s']:,.0f} records/s",
        ),
        (
            "vector index caught up",
            f"{figures['indexed_records_per_s']:,.0f} records/s ({figures['indexed_s']:,.0f} s after the fill began)",
        ),
        (
            "retrieval p50 / p95 / mean",
            f"{r['p50']} / {r['p95']} / {r['mean']} ms ({r['queries']} queries; load average "
            f"{figures['load_average_queries']:.1f} after them)",
        ),
        ("list (every record, paged)", f"{figures['list_s']} s ({figures['listed']:,} records)"),
        (
            "export (streamed)",
            f"{figures['export_s']} s, {figures['export_mb']} MB, peak RSS {figures['export_peak_rss_mb']} MB "
            f"({figures['export_baseline_rss_mb']} MB for an empty export)",
        ),
        (
            "fill: CPU, peak memory",
            f"{figures['fill_cpu_s']:,.0f} CPU s for the fill ({figures['indexed_cpu_s']:,.0f} with the vector index "
            f"caught up; every thread's: {figures['indexed_main_thread_cpu_s']:,.0f} on the thread that writes, the "
            "rest on the others, chiefly the vector index's); peak RSS "
            f"{figures['fill_peak_rss_mb']:,.0f} MB (after the fill: {figures['rss_anon_mb']:,.0f} MB its own, "
            f"{figures['rss_file_mb']:,.0f} MB of mapped files)",
        ),
        *embedder_rows(figures.get("embedder_fill")),
        ("whole run", f"{int(minutes)} min {seconds:.0f} s"),
        (
            "whole run: CPU, load",
            f"{figures['total_cpu_s']:,.0f} CPU s (this process's threads and its export processes); load average "
            f"{figures['load_average_mean']:.1f} on the mean while it ran (sampled every 10 s), "
            f"{figures['load_average_max']:.1f} at most",
        ),
        ("of which", ", ".join(f"{k} {v:,.0f} s" for k, v in figures["phases_s"].items())),
    ]
    head = f"{run.line()}; {figures['vectors']} vectors."
    return "\n".join([head, "", "| figure | value |", "|---|---:|", *(f"| {a} | {b} |" for a, b in rows)])


def embedder_rows(filled: dict | None) -> list[tuple[str, str]]:
    """The rows of an ``--embedder-fill`` child's figures (none without one)."""
    if not filled:
        return []
    n = filled["records_total"]
    return [
        (
            f"fill of {n:,} records, each embedded as written ({filled['vectors'].split(' ')[0]})",
            f"{filled['insert_records_per_s']:,.0f} records/s written (first / last tenth "
            f"{filled['insert_first_tenth_per_s']:,.0f} / {filled['insert_last_tenth_per_s']:,.0f}); "
            f"{filled['fill_s']:,.0f} s, {filled['fill_cpu_s']:,.0f} CPU s ({n / max(filled['fill_cpu_s'], 1e-9):,.0f} "
            f"records per CPU s); vector index caught up {filled['indexed_s']:,.0f} s after the fill began "
            f"({filled['indexed_records_per_s']:,.0f} records/s); peak RSS {filled['fill_peak_rss_mb']:,.0f} MB; "
            f"load average {filled.get('load_average_mean', float('nan')):.1f} on the mean while it ran; "
            f"its own process, {filled['process_s']:,.0f} s in all, after this run and not in its whole run",
        )
    ]


def hnsw_section(rows: list[dict], run: RunInfo) -> str:
    """The Markdown section of a ``--hnsw`` run."""
    lines = [
        f"{run.line()}. Each collection built in batches of 1,000 in a fresh Chroma directory; 50 held-out "
        "vectors of the same kind queried for their 100 nearest, against the exact 100 nearest (recall) "
        "and the exact 10 nearest (top 10 found). *caim*: `caim.memory.storage.vectors.HNSW`.",
        "",
        "| vectors | settings | build s | recall@100 | top 10 found |",
        "|---|---|---:|---:|---:|",
    ]
    lines += [
        f"| {r['vectors']} | {r['settings']} | {r['build_s']} | {r['recall_100']} | {r['top_10']} |" for r in rows
    ]
    return "\n".join(lines)


def write_doc(path: Path, heading: str, body: str) -> None:
    """Rewrite the section ``heading`` of ``path`` (sections sorted by their heading's record count,
    the others and the notes after ``NOTES`` kept)."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    old, _, notes = old.partition(NOTES)
    parts = {p.split("\n", 1)[0]: p.split("\n", 1)[1].strip("\n") for p in old.split("\n## ")[1:]}
    parts[heading] = body

    def size(h: str) -> int:
        return int(h.split(" ", 1)[0]) if h.split(" ", 1)[0].isdigit() else 0

    sections = "".join(f"## {h}\n\n{parts[h]}\n\n" for h in sorted(parts, key=size))
    path.write_text(f"{DOC_TITLE}\n\n{DOC_INTRO}\n\n{sections}{NOTES}{notes or chr(10)}", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
