"""Embedding throughput: how batch shape and thread count change texts per second.

Embeds chat-length texts (LoCoMo turns from ``--data``, else GVD turns, else a synthetic set) with
the bundled MiniLM embedder in several configurations and prints, for each, texts/s and CPU
seconds; then one-query latency p50/p95. The configurations:

- ``one padded batch``: every text in a single batch padded to the longest (how a naive caller
  embeds a list);
- ``unsorted batches of B``: batches in arrival order, each padded to its own longest;
- ``bucketed batches of B``: sorted by token count first (what ``MiniLMEmbedder.embed`` does);
- each with onnxruntime's intra-op thread count 1 and 2.

The last line reads ``embedding <x> texts/s (batch <B>, <T> thread(s)) on <N> texts``: the
default configuration's rate. Run::

    python benchmarks/embeddings.py --data ../shared/data/locomo-dev/locomo_dev.json --texts 1000
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from caim.core.embeddings import MiniLMEmbedder

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def chat_texts(data: Path | None, n: int, seed: int = 7) -> tuple[list[str], str]:
    """``n`` chat turns in a shuffled order, and where they came from."""
    texts: list[str] = []
    source = "synthetic"
    candidates = [data] if data else [SHARED / "locomo-dev" / "locomo_dev.json", *sorted((SHARED / "gvd").glob("*"))]
    for path in candidates:
        if path and path.is_file():
            texts = list(_strings(json.loads(path.read_text(encoding="utf-8"))))
            source = path.name
            if texts:
                break
    if not texts:
        words = [
            "we",
            "went",
            "to",
            "the",
            "lake",
            "with",
            "my",
            "sister",
            "and",
            "talked",
            "about",
            "the",
            "new",
            "job",
            "for",
            "hours",
        ]
        rng0 = random.Random(seed)
        texts = [" ".join(rng0.choices(words, k=rng0.randint(4, 40))) for _ in range(n)]
    rng = random.Random(seed)
    rng.shuffle(texts)
    return (texts * (n // max(len(texts), 1) + 1))[:n], source


def _strings(obj, depth: int = 0):
    """Turn texts found in a LoCoMo- or GVD-shaped JSON file (fields named text/content/utterance)."""
    if depth > 8:
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("text", "content", "utterance") and isinstance(v, str) and v.strip():
                yield v
            else:
                yield from _strings(v, depth + 1)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v, depth + 1)


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def measure(texts: list[str], batch: int, threads: int, mode: str) -> dict[str, float]:
    """Texts/s for one configuration (``mode``: bucketed, unsorted or single)."""
    emb = MiniLMEmbedder(batch_size=batch, threads=threads)
    emb.embed(texts[:32])  # warm up
    if mode == "bucketed":
        run: Callable[[], object] = lambda: emb.embed(texts)  # noqa: E731
    else:
        ids = [e.ids for e in emb.tokenizer.encode_batch(texts)]
        size = len(ids) if mode == "single" else batch
        run = lambda: [emb._run(ids[i : i + size]) for i in range(0, len(ids), size)]  # noqa: E731
    wall, cpu = _timed(run)
    return {"texts_per_s": len(texts) / wall, "cpu_s": cpu, "wall_s": wall}


def query_latency(emb: MiniLMEmbedder, texts: list[str], n: int = 100) -> dict[str, float]:
    times = []
    for t in texts[:n]:
        t0 = time.perf_counter()
        emb.embed([t])
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50": statistics.median(times), "p95": float(np.percentile(times, 95))}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="a LoCoMo or GVD JSON file (turn texts)")
    ap.add_argument("--texts", type=int, default=1000)
    ap.add_argument("--batches", default="8,16,32")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)
    texts, source = chat_texts(args.data, args.texts)
    mean_chars = statistics.mean(len(t) for t in texts)
    print(f"{len(texts)} texts from {source}, mean {mean_chars:.0f} characters", flush=True)
    rows = []
    batches = [int(b) for b in args.batches.split(",")]
    for threads in [int(t) for t in args.threads.split(",")]:
        configs = [("single", len(texts))] + [(m, b) for m in ("unsorted", "bucketed") for b in batches]
        for mode, batch in configs:
            r = measure(texts, batch, threads, mode)
            label = "one padded batch" if mode == "single" else f"{mode} batches of {batch}"
            rows.append({"mode": mode, "batch": batch, "threads": threads, **r})
            print(
                f"{label:24s} threads {threads}: {r['texts_per_s']:7.1f} texts/s  cpu {r['cpu_s']:6.1f} s",
                flush=True,
            )
    default = MiniLMEmbedder()
    lat = query_latency(default, texts)
    print(f"one query: p50 {lat['p50']:.1f} ms  p95 {lat['p95']:.1f} ms")
    chosen = next(
        (
            r
            for r in rows
            if r["mode"] == "bucketed" and r["batch"] == default.batch_size and r["threads"] == MiniLMEmbedder.THREADS
        ),
        None,
    )
    out = {"texts": len(texts), "source": source, "mean_chars": mean_chars, "rows": rows, "query_ms": lat}
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    if chosen:
        print(
            f"embedding {chosen['texts_per_s']:.1f} texts/s (batch {chosen['batch']}, {chosen['threads']} "
            f"thread(s)) on {len(texts)} texts"
        )
    return out


if __name__ == "__main__":
    main()
