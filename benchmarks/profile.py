"""The profile above the concrete memories on GVD's English users, code path only (no model).

Each GVD user's ten days are remembered as ten sessions through ``Memory.remember`` with a chat
model that never gives a usable answer, so everything stored and every profile text is code's own
(captures, tags by meaning, backgrounds listing each aspect's newest memories, principles from
clustering). Then, per user:

- **prompt tokens**: the answer's memory block for "What do you know about me?" as ``Memory.recall``
  builds it (the profile), against the same user's memories quoted as raw memories (every stored
  memory in the block caim's answer would show them in) - LAPS's comparison of extracted preferences
  against raw history. Tokens are counted with the bundled embedder's tokenizer (WordPiece).
- **dislikes recalled**: after the user's ten days, one more session states the English dislikes of
  the labelled preference set the tests own (``tests/data/preferences.jsonl``: those naming a thing);
  then, for each stored memory that is a dislike (those and any the user's own days hold), the
  question "Do I like <thing>?" goes through ``Memory.recall``; counted when the dislike is among the
  kept memories. The GVD days are the background each question is asked against.

Usage::

    python benchmarks/profile.py [--users N] [--doc docs/profile.md]

``--doc`` writes the figures of this run to that file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

from caim import Memory, Settings
from caim.core.embeddings import MiniLMEmbedder
from caim.core.scripted import ScriptedChatModel
from caim.memory.profile import ANSWER_CHARS
from caim.memory.text import tokenize
from caim.memory.text.polarity import polarity
from caim.prompts.respond import memory_block

ROOT = Path(__file__).resolve().parents[1]
GVD = ROOT.parent / "shared" / "data" / "gvd" / "memory_bank_en.json"
LABELLED = ROOT / "tests" / "data" / "preferences.jsonl"
ABOUT = "What do you know about me?"


def sessions(user: dict[str, Any]) -> list[list[dict[str, str]]]:
    """A GVD user's days as sessions of dated messages."""
    out = []
    for day, turns in sorted(user["history"].items()):
        msgs = []
        for i, t in enumerate(turns):
            at = f"{day}T10:{i:02d}:00"
            msgs += [{"role": "user", "content": t["query"], "time": at}]
            msgs += [{"role": "assistant", "content": t["response"], "time": at}]
        out.append(msgs)
    return out


def thing_of(text: str) -> str:
    """What a preference is about, as code reads it ("" when it names nothing: "I don't love it")."""
    found = polarity(text)
    thing = found.thing if found is not None else ""
    return thing if tokenize(thing) else ""


def stated_dislikes() -> list[str]:
    """The labelled set's English dislikes that name a thing."""
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["text"] for r in rows if r["lang"] == "en" and r["polarity"] == "dislike" and thing_of(r["text"])]


def counter() -> Tokenizer:
    """The bundled embedder's tokenizer, without truncation."""
    tok = Tokenizer.from_str(MiniLMEmbedder().tokenizer.to_str())
    tok.no_truncation()
    tok.no_padding()
    return tok


def measure_user(memory: Memory, name: str, user: dict[str, Any], tok: Tokenizer) -> dict[str, Any]:
    """Remember the user's sessions, then measure the profile's prompt and the dislikes recalled."""
    days = sessions(user)
    for msgs in days:
        memory.remember(msgs, user_id=name, background=False)
    at = days[-1][-1]["time"].replace("T10:", "T20:")
    memory.remember(
        [{"role": "user", "content": t, "time": at} for t in stated_dislikes()], user_id=name, background=False
    )
    records = memory.list(user_id=name)
    profile_block = memory.recall(ABOUT, user_id=name).prompt
    raw_block = memory_block([r.brief() for r in records if r.current], memory_question=True)
    dislikes = [r for r in records if r.current and r.polarity == "dislike"]
    found = 0
    for rec in dislikes:
        kept = memory.recall(f"Do I like {thing_of(rec.thought) or rec.thought}?", user_id=name).memories
        found += any(m["id"] == rec.id for m in kept)
    return {
        "user": name,
        "memories": len(records),
        "aspects": len(memory.profile(user_id=name).backgrounds),
        "principles": len(memory.profile(user_id=name).principles),
        "profile_tokens": len(tok.encode(profile_block).ids),
        "raw_tokens": len(tok.encode(raw_block).ids),
        "dislikes": len(dislikes),
        "dislikes_kept": found,
    }


def run(users: int) -> dict[str, Any]:
    """Measure the first ``users`` GVD users; returns per-user rows and the totals."""
    data = json.loads(GVD.read_text(encoding="utf-8"))
    tok = counter()
    model = ScriptedChatModel(script={"default": "no answer"})
    rows = []
    start = time.perf_counter()
    settings = Settings(_env_file=None)  # type: ignore[call-arg]  # the defaults, not this shell's .env
    with Memory(settings, persist=False, models=model, background=False) as memory:
        for name in list(data)[:users]:
            rows.append(measure_user(memory, name, data[name], tok))
    ratios = [r["profile_tokens"] / r["raw_tokens"] for r in rows if r["raw_tokens"]]
    dislikes = sum(r["dislikes"] for r in rows)
    return {
        "rows": rows,
        "median_ratio": statistics.median(ratios) if ratios else 0.0,
        "profile_tokens": sum(r["profile_tokens"] for r in rows),
        "raw_tokens": sum(r["raw_tokens"] for r in rows),
        "dislikes": dislikes,
        "dislikes_kept": sum(r["dislikes_kept"] for r in rows),
        "seconds": time.perf_counter() - start,
    }


def report(result: dict[str, Any]) -> str:
    """The run as Markdown: per-user table, then the totals."""
    lines = [
        "| user | memories | aspects | principles | profile tokens | raw-memory tokens | dislikes | kept |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['user']} | {r['memories']} | {r['aspects']} | {r['principles']} | {r['profile_tokens']} | "
            f"{r['raw_tokens']} | {r['dislikes']} | {r['dislikes_kept']} |"
        )
    kept = result["dislikes_kept"] / result["dislikes"] if result["dislikes"] else 0.0
    lines += [
        "",
        f"- Prompt tokens, profile vs raw memories: {result['profile_tokens']} vs {result['raw_tokens']} in all "
        f"({result['profile_tokens'] / max(result['raw_tokens'], 1):.3f}); median per user "
        f"{result['median_ratio']:.3f}.",
        f'- "Do I like X?" with a stored dislike of X: the dislike kept for {result["dislikes_kept"]} of '
        f"{result['dislikes']} ({kept:.3f}).",
        f"- Run time {result['seconds']:.0f} s.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run, print the report, write ``--doc`` when given; returns the result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=15, help="how many GVD users (of 15)")
    ap.add_argument("--doc", type=Path, default=None)
    args = ap.parse_args(argv)
    result = run(args.users)
    text = report(result)
    print(text)
    if args.doc is not None:
        args.doc.write_text(
            "# The profile on GVD (code path)\n\n"
            f"Written by `python benchmarks/profile.py --users {args.users} --doc {args.doc}` (figures from that "
            "run). Every text is code's own: the chat model gives no usable answer, so each background lists "
            "its aspect's newest memories. The profile an answer is shown is bounded by "
            f"`caim.memory.profile.ANSWER_CHARS` ({ANSWER_CHARS} characters), so the token ratio below depends "
            "on that budget as much as on the profile. The dislikes asked about are the labelled set's English "
            "dislikes naming a thing, stated after each user's ten days (their own days are the background), "
            "plus any dislike code read in those days; see the benchmark's docstring.\n\n" + text + "\n",
            encoding="utf-8",
        )
    return result


if __name__ == "__main__":
    main()
