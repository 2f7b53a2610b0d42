"""Capture without a model: the reader alone against the rule ``Memory.remember`` applies
(``caim.memory.capture.worth_keeping``: the reader's decision, no turn that only asks, and a turn in which
code finds nothing told kept only when the reader is sure), on LoCoMo dev leave one conversation out and
on the capture check sets (``tests/data/capture_check.jsonl``, six languages, and
``tests/data/capture_informal.jsonl``, informal Chinese and Japanese; each message alone).

LoCoMo dev is read as ``caim eval reading --fit`` reads it (``caim.eval.reading.cross_validate``: each
conversation by a network fitted without it; the threshold chosen on the pooled left-out readings), each
turn after the turn before it and alone. The written set is not read here: it is the check
(``caim eval labels --set written``).

Usage::

    python benchmarks/capture.py [--shared ../shared/data] [--cache FILE] [--sure 0.85 0.9 0.95]

``--cache`` keeps the left-out readings in FILE (written when absent, read when present: the fit takes
minutes). ``--sure`` lists settings of ``SURE_WITHOUT_FACT`` to compare (default: the shipped one). Last, per
language of the reader's training conversations, the share of turns in which code finds something told.
"""

from __future__ import annotations

import argparse
import json
import pickle
from pathlib import Path

import numpy as np

from caim.memory import capture
from caim.memory.reading import Reader

CHECK = Path(__file__).resolve().parents[1] / "tests" / "data" / "capture_check.jsonl"
#: Short informal Chinese and Japanese messages, many without a subject (written and labelled before their rules).
INFORMAL = CHECK.with_name("capture_informal.jsonl")


def left_out(shared: Path, cache: Path | None) -> dict:
    """LoCoMo dev's left-out readings: texts, conversations, labels, probabilities, the threshold."""
    if cache is not None and cache.exists():
        with cache.open("rb") as f:
            return pickle.load(f)  # a file this script wrote
    from caim.eval.reading import cross_validate

    run = cross_validate(shared, progress=print)
    probs, labelled = run.locomo
    assert run.locomo_alone is not None
    out = {
        "texts": [t.text for t in labelled.turns],
        "group": [t.group for t in labelled.turns],
        "y": labelled.y[:, 0],
        "p": probs[:, 0],
        "p_alone": run.locomo_alone[:, 0],
        "store_at": run.model.store_at,
    }
    if cache is not None:
        with cache.open("wb") as f:
            pickle.dump(out, f)
    return out


def scores(kept: np.ndarray, y: np.ndarray) -> str:
    """Precision and recall of what is kept."""
    right = int((kept & y).sum())
    return f"{right / max(int(kept.sum()), 1):.3f} @ {right / max(int(y.sum()), 1):.3f}"


def main() -> None:
    """Print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=Path("../shared/data"))
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--sure", type=float, nargs="*", default=[capture.SURE_WITHOUT_FACT])
    args = ap.parse_args()
    d = left_out(args.shared, args.cache)
    y, at, groups = np.asarray(d["y"]) > 0.5, float(d["store_at"]), np.asarray(d["group"])
    reader = Reader.shared()
    checks = []
    for name, path in (("check set", CHECK), ("informal zh/ja set", INFORMAL)):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        read = [g.stores for g in reader.read([r["text"] for r in rows])]
        checks.append((name, rows, read, np.array([r["stores"] for r in rows])))
    print("| set | reader alone (P @ R) | rule | SURE_WITHOUT_FACT |")
    print("|---|---|---|---|")
    for sure in args.sure:
        capture.SURE_WITHOUT_FACT = sure
        for name, key in (
            ("LoCoMo dev, left out, after the turn before", "p"),
            ("LoCoMo dev, left out, alone", "p_alone"),
        ):
            p = np.asarray(d[key])
            rule = np.array([capture.worth_keeping(t, float(s), at) for t, s in zip(d["texts"], p, strict=True)])
            print(f"| {name} | {scores(p >= at, y)} | {scores(rule, y)} | {sure} |")
            if key == "p":
                for g in sorted(set(groups.tolist())):
                    m = groups == g
                    print(f"|   {g} | {scores((p >= at) & m, y & m)} | {scores(rule & m, y & m)} | {sure} |")
        store_at = reader.model.store_at
        for name, rows, read, cy in checks:
            rule = np.array([capture.worth_keeping(r["text"], s, store_at) for r, s in zip(rows, read, strict=True)])
            alone = scores(np.array(read) >= store_at, cy)
            print(f"| {name} ({len(rows)}, shipped weights) | {alone} | {scores(rule, cy)} | {sure} |")
    print()
    print(told_table())


def told_table() -> str:
    """Per language of the reader's training conversations: the share of a person's turns labelled to store,
    and of those labelled not to, in which code finds something told (``states_fact`` in each language the
    turn may be in, as ``worth_keeping`` reads it)."""
    from caim.eval.labels import training_turns
    from caim.memory.text.lang import plausible

    counts: dict[str, list[int]] = {}
    for t in training_turns()[0]:
        if t.speaker == "assistant":
            continue
        told = any(capture.states_fact(t.text, x) for x in plausible(" ".join(t.text.split())))
        c = counts.setdefault(t.lang, [0, 0, 0, 0])
        c[0 if t.stores else 2] += 1
        c[1 if t.stores else 3] += told
    lines = ["| training conversations | to store: told | not to store: told |", "|---|---|---|"]
    for lang, (n, f, m, g) in sorted(counts.items()):
        lines.append(f"| {lang} | {f}/{n} = {f / max(n, 1):.3f} | {g}/{m} = {g / max(m, 1):.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
