"""MiniLM quantised: what making the model costs, its CPU time and its agreement with the file as shipped.

- **made**: ``caim.core.quantised.quantised_minilm`` into a fresh folder (wall and CPU seconds of a
  first use), and loading it again from the cache;
- **texts**: the texts ``Memory.remember`` embeds for LoCoMo conversation 0's first ``--sessions``
  sessions, LLM-free (collected from the embedder's calls, in the same batches), and ``--queries``
  LoCoMo questions embedded one at a time as a search embeds a question;
- **variants**: the model as shipped (``MiniLMEmbedder``), the shipped recipe
  (``QuantisedMiniLMEmbedder``), and the recipes tried beside it: each layer's feed-forward output
  left in float, the embedding table quantised too (the quantiser's default operators),
  one scale per tensor, and onnxruntime.transformers' fusions (SkipLayerNormalization, BiasGelu;
  needs sympy) before the shipped recipe; each loaded at onnxruntime's ``--levels`` of graph
  optimisation;
- each variant: the least CPU seconds of ``--repeats`` runs over the texts and the queries (the
  embedder's two threads included), and the cosine of each text's vector with the file as shipped
  (least and mean).

Usage::

    python benchmarks/minilm_quantised.py --data ../shared/data/locomo-dev/locomo_dev.json

It prints a Markdown table (quoted in docs/embeddings.md with its command).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def remembered_texts(data: str, sessions: int) -> list[list[str]]:
    """The batches of texts an LLM-free ``Memory.remember`` embeds for conversation 0's first sessions."""
    sys.path.insert(0, str(HERE))
    import ingest

    from caim.core.embeddings import MiniLMEmbedder

    seen: list[list[str]] = []
    embed = MiniLMEmbedder.embed

    def watched(self: MiniLMEmbedder, texts: list[str]) -> list[list[float]]:
        seen.append(list(texts))
        return embed(self, texts)

    MiniLMEmbedder.embed = watched  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as d:
            memory = ingest.memory_at(Path(d), llm_free=True)
            for msgs in ingest.sessions_of(data, 1)[0][:sessions]:
                memory.remember(msgs, user_id="u", background=False)
            memory.close()
    finally:
        MiniLMEmbedder.embed = embed  # type: ignore[method-assign]
    return seen


def questions(data: str, n: int) -> list[str]:
    """The first ``n`` LoCoMo questions."""
    with open(data, encoding="utf-8") as f:
        return [q["question"] for conv in json.load(f) for q in conv["qa"]][:n]


def variants(folder: Path) -> dict[str, Path]:
    """The model files compared: the shipped recipe and the recipes tried beside it."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from caim.core.quantised import quantised_minilm, source_model

    out = {"shipped recipe (every MatMul per channel)": quantised_minilm(folder)}
    folded = folder / "folded.onnx"
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    opts.optimized_model_filepath = str(folded)
    ort.InferenceSession(str(source_model()), sess_options=opts, providers=["CPUExecutionProvider"])
    every = {"per_channel": True, "op_types_to_quantize": ["MatMul"]}
    tries: list[tuple[str, Path, dict]] = [
        ("MatMul per channel, feed-forward output float", folded, {**every, "nodes_to_exclude": kept_float(folded)}),
        ("every MatMul and the embedding table, per channel", folded, {"per_channel": True}),
        ("every MatMul per tensor", folded, {**every, "per_channel": False}),
    ]
    try:
        from onnxruntime.transformers import optimizer

        fused = folder / "fused.onnx"
        optimizer.optimize_model(
            str(folded), model_type="bert", num_heads=12, hidden_size=384, opt_level=0
        ).save_model_to_file(str(fused))
        tries.append(("fused, then the shipped recipe", fused, every))
    except ImportError as exc:
        print(f"fusions left out: {exc}", flush=True)
    for label, src, kw in tries:
        path = folder / f"{len(out)}.onnx"
        quantize_dynamic(src, path, weight_type=QuantType.QInt8, **kw)
        out[label] = path
    return out


def kept_float(model: Path) -> list[str]:
    """The matrix products left in float: each layer's feed-forward output (the widest input, 1536 -> 384),
    where quantising cost most agreement for its share of the time (the recipe measured beside the shipped one)."""
    import onnx

    graph = onnx.load(str(model)).graph
    shapes = {t.name: tuple(t.dims) for t in graph.initializer}
    return [
        n.name
        for n in graph.node
        if n.op_type == "MatMul" and len(shape := shapes.get(n.input[1], ())) == 2 and shape[0] > shape[1]
    ]


def embedder_on(path: Path | None, level: str) -> Callable[[list[str]], np.ndarray]:
    """``MiniLMEmbedder.embed`` on the model file ``path`` (``None``: the file as shipped) loaded at ``level``."""
    import onnxruntime as ort

    from caim.core.embeddings import MiniLMEmbedder

    emb = MiniLMEmbedder()
    if path is not None:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = MiniLMEmbedder.THREADS
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, f"ORT_ENABLE_{level.upper()}")
        emb.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    return lambda texts: np.asarray(emb.embed(texts), dtype=np.float32)


def cpu(embed: Callable[[list[str]], np.ndarray], batches: list[list[str]]) -> tuple[np.ndarray, float]:
    """The vectors of ``batches`` (each embedded in one call) and the CPU seconds they took."""
    t = time.process_time()
    vecs = np.vstack([embed(b) for b in batches])
    return vecs, time.process_time() - t


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="LoCoMo JSON (e.g. ../shared/data/locomo-dev/locomo_dev.json)")
    ap.add_argument("--sessions", type=int, default=0, help="conversation 0's first N sessions remembered (0: all)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--levels", default="all", help="onnxruntime graph optimisation levels: basic,extended,all")
    args = ap.parse_args(argv)
    from caim.core.quantised import quantised_minilm

    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as d:
        t, c = time.perf_counter(), time.process_time()
        quantised_minilm(Path(d) / "first")
        made = {"wall_s": time.perf_counter() - t, "cpu_s": time.process_time() - c}
        t = time.perf_counter()
        quantised_minilm(Path(d) / "first")
        made["cached_s"] = time.perf_counter() - t
        print(f"made in {made['wall_s']:.1f} s ({made['cpu_s']:.1f} CPU s); found cached in {made['cached_s']:.2f} s")
        batches = remembered_texts(args.data, args.sessions or 10**6)
        qs = [[q] for q in questions(args.data, args.queries)]
        n = sum(map(len, batches))
        print(f"{n} remembered texts in {len(batches)} calls, mean {np.mean([len(t) for b in batches for t in b]):.0f}")
        files = {"as shipped (float MatMul)": None, **variants(Path(d))}
        runs = [(label, path, level) for label, path in files.items() for level in args.levels.split(",")]
        ref_t, _ = cpu(embedder_on(None, "all"), batches)
        ref_q, _ = cpu(embedder_on(None, "all"), qs)
        rows: dict[tuple[str, str], dict] = {}
        for _ in range(args.repeats):
            for label, path, level in runs:
                embed = embedder_on(path, level)
                embed(batches[0])  # warm
                vt, ct = cpu(embed, batches)
                vq, cq = cpu(embed, qs)
                row = rows.setdefault((label, level), {"texts_cpu": [], "queries_cpu": []})
                row["texts_cpu"].append(ct)
                row["queries_cpu"].append(cq)
                row["cos"] = ((vt * ref_t).sum(1).min(), (vt * ref_t).sum(1).mean(), (vq * ref_q).sum(1).min())
    print(f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; least of {args.repeats} runs")
    print()
    print(
        f"| model | graph level | {n} texts, CPU s | {len(qs)} queries, CPU s | cosine texts least / mean "
        "| queries least |"
    )
    print("|---|---|---|---|---|---|")
    for (label, level), r in rows.items():
        print(
            f"| {label} | {level} | {min(r['texts_cpu']):.2f} | {min(r['queries_cpu']):.2f} | "
            f"{r['cos'][0]:.4f} / {r['cos'][1]:.4f} | {r['cos'][2]:.4f} |"
        )
    return {"made": made, "rows": {f"{k[0]} @ {k[1]}": v for k, v in rows.items()}}


if __name__ == "__main__":
    main()
