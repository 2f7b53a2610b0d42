"""CI smoke run of the GVD benchmark with the bundled local model, through the CLI; checks the report's structure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

GVD = Path(__file__).resolve().parents[2] / "shared" / "data" / "gvd"


@pytest.mark.skipif(
    not (GVD / "memory_bank_en.json").exists(), reason="GVD data not found beside the project (../shared/data/gvd)"
)
def test_gvd_smoke_run_with_the_bundled_model(tmp_path):
    out = tmp_path / "eval-out"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_"))}
    env["CAIM_DATA_DIR"] = str(tmp_path / "data")
    cmd = [
        sys.executable,
        "-m",
        "caim.agent.surfaces.cli",
        "eval",
        "gvd",
        "--data",
        str(GVD),
        "--out",
        str(out),
        "--provider",
        "local",
        "--users",
        "Emily",
        "--days",
        "1",
        "--limit",
        "1",
        "--systems",
        "none,caim",
        "-q",
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1500)
    assert res.returncode == 0, res.stderr[-2000:]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    assert {r["system"] for r in rows} == {"none", "caim"}
    for r in rows:
        assert r["user"] == "Emily" and r["answer"].strip()
        assert r["route"] in ("none", "stm", "ltm", "ltm+stm")
        assert isinstance(r["retrieved"], list) and r["llm_calls"] >= 1
    summary = json.loads((out / "results.json").read_text())
    assert set(summary["systems"]) >= {"none", "caim"}
    report = (out / "report.md").read_text()
    for heading in ("Response correctness", "Memory size"):
        assert heading.lower() in report.lower()
    assert (out / "report.png").stat().st_size > 1000
