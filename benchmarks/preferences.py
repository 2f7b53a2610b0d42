"""How well the code signal alone reads a preference's polarity (``caim.memory.text.polarity``).

Reads the labelled preference set the tests own (``tests/data/preferences.jsonl``: short chat-style
statements in English, German, French, Spanish, Chinese and Japanese, each with its gold polarity -
like, dislike, neutral, or none for a turn that states no preference), runs the code signal on each
(no model) and prints the accuracy per language and overall as a Markdown table, then the
statements it got wrong. Target (issue 27): accuracy >= 0.9 with code signals alone.

Usage::

    python benchmarks/preferences.py [--data tests/data/preferences.jsonl] [--doc docs/preferences.md]

``--doc`` writes the table and the misses to that file (figures from this run only).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from caim.memory.text.polarity import polarity

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "preferences.jsonl"
LANGUAGES = ("en", "de", "fr", "es", "zh", "ja")


def load(path: Path) -> list[dict[str, str]]:
    """The labelled statements: ``lang``, ``text`` and gold ``polarity`` per line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read(text: str) -> str:
    """The code signal's polarity of a statement ("none" when it finds no preference)."""
    found = polarity(text)
    return found.polarity if found is not None else "none"


def score(rows: Sequence[dict[str, str]]) -> dict[str, Any]:
    """Accuracy per language and overall, and the misses (text, gold, read)."""
    per: dict[str, list[int]] = {}
    misses = []
    for row in rows:
        got = read(row["text"])
        hit = int(got == row["polarity"])
        for key in (row["lang"], "all"):
            per.setdefault(key, [0, 0])
            per[key][0] += hit
            per[key][1] += 1
        if not hit:
            misses.append((row["text"], row["polarity"], got))
    return {"per": per, "misses": misses}


def table(result: dict[str, Any]) -> str:
    """The result as Markdown: one row per language, overall last, then the misses."""
    per = result["per"]
    lines = ["| language | statements | correct | accuracy |", "|---|---:|---:|---:|"]
    for key in [*(lang for lang in LANGUAGES if lang in per), "all"]:
        hit, n = per[key]
        lines.append(f"| {key} | {n} | {hit} | {hit / n:.3f} |")
    if result["misses"]:
        lines += ["", "Misses (statement, gold, read):", ""]
        lines += [f"- {text!r}: gold {gold}, read {got}" for text, gold, got in result["misses"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Score the set, print the table, write ``--doc`` when given; returns the result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--doc", type=Path, default=None)
    args = ap.parse_args(argv)
    result = score(load(args.data))
    text = table(result)
    print(text)
    if args.doc is not None:
        args.doc.write_text(
            "# Preference polarity: the code signal alone\n\n"
            "Written by `python benchmarks/preferences.py --doc docs/preferences.md` from the labelled set "
            "`tests/data/preferences.jsonl` (statements written for caim's tests, with gold polarity; "
            "`none`: no preference stated). The code signal is `caim.memory.text.polarity` (cue tables per "
            "language in `memory/text/lang_*.py`); no model is called. The set was written by the same "
            "session that wrote the cue tables, so this is a regression check, not an independent "
            "estimate.\n\n" + text + "\n",
            encoding="utf-8",
        )
    return result


if __name__ == "__main__":
    main()
