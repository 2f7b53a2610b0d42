"""The output folder of a benchmark run: its file names, append-only JSON lines that survive a kill,
and the checkout a run was made at."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

RUN_FILE = "run.json"
RESULTS_FILE = "results.jsonl"
MEMORY_FILE = "memory.jsonl"
SUMMARY_FILE = "results.json"
REPORT_FILE = "report.md"
PLOT_FILE = "report.png"


class JsonlLog:
    """Append-only JSON lines, safe against a kill mid-line and shared between worker threads."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()

    def read(self) -> list[dict]:
        """The records logged so far, skipping lines a kill cut short; ``[]`` without a file."""
        if not self.path.exists():
            return []
        out = []
        with self.path.open(encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    item = json.loads(line)
                except ValueError:  # a line cut short by a kill
                    continue
                if isinstance(item, dict):
                    out.append(item)
        return out

    def append(self, record: dict) -> None:
        """Append ``record`` as one line and sync it to disk."""
        data = json.dumps(record, ensure_ascii=False, default=str)
        with self._lock:
            lead = ""
            if self.path.exists() and self.path.stat().st_size:
                with self.path.open("rb") as f:
                    f.seek(-1, os.SEEK_END)
                    if f.read(1) != b"\n":
                        lead = "\n"  # finish a line a kill cut short, so it stays one bad line
            with self.path.open("a", encoding="utf-8") as f:
                f.write(lead + data + "\n")
                f.flush()
                os.fsync(f.fileno())


def checkout(root: Path) -> str:
    """The commit ``root`` is checked out at, short, with "-dirty" when tracked files have changed
    since; "unknown" without git."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True)
    except OSError:
        return "unknown"
    return (head.stdout.strip() or "unknown") + ("-dirty" if dirty.stdout.strip() else "")
