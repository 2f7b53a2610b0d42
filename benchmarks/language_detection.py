"""Language detection of labelled texts, with and without the letters of short Latin texts.

Per set and language: how many texts ``caim.memory.text.lang.detect`` reads in their labelled language,
first with the letter votes off (``SHORT`` 0), then as shipped. The sets: the short messages of
``tests/data/language_check.jsonl``, LoCoMo dev and GVD (``tests/data/labels_shared.jsonl``), the
reader's training conversations and the written set (each turn's gold: its conversation's language).

Usage::

    python benchmarks/language_detection.py [--shared ../shared/data] [--misses]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from caim.eval.labels import shared_turns, training_turns, written_turns
from caim.memory.text import lang

CHECK = Path(__file__).resolve().parents[1] / "tests" / "data" / "language_check.jsonl"


def main() -> None:
    """Print one line per set and setting."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=Path("../shared/data"))
    ap.add_argument("--misses", action="store_true", help="List the texts read in another language (as shipped).")
    args = ap.parse_args()
    check = [json.loads(line) for line in CHECK.read_text(encoding="utf-8").splitlines() if line.strip()]
    sets = {
        "check": [(r["text"], r["lang"]) for r in check],
        "locomo dev + gvd": [(t.text, t.lang) for t in shared_turns(args.shared)[0]],
        "training": [(t.text, t.lang) for t in training_turns()[0]],
        "written": [(t.text, t.lang) for t in written_turns()],
    }
    shipped = lang.SHORT
    for short in (0, shipped):
        lang.SHORT = short
        lang._detect.cache_clear()
        for name, texts in sets.items():
            right: Counter[str] = Counter()
            total: Counter[str] = Counter()
            for text, code in texts:
                total[code] += 1
                right[code] += lang.detect(text).code == code
            print(f"SHORT={short} {name}: " + ", ".join(f"{c} {right[c]}/{total[c]}" for c in total))
    if args.misses:
        for name, texts in sets.items():
            for text, code in texts:
                if (got := lang.detect(text).code) != code:
                    print(f"{name}: {code} read as {got}: {text!r}")


if __name__ == "__main__":
    main()
