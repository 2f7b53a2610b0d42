"""How much the dense and lexical similarities should count for a question in a language the
embedder does not read.

The bundled MiniLM reads English only; a conversation in another language reaches it as word
pieces it never learnt to read, and its similarities follow the pieces two texts share. LoCoMo's
development conversations stand in for such a language here: every word of every turn, caption and
question is replaced by a made-up word (``made_up``: the same word always by the same made-up word,
speakers' names and digits kept), so the lexical index, names and numbers still match while the
embedder reads nothing. Each question is then ranked as ``caim eval retrieval --cv`` ranks it, under
the shipped weights with the bm25 weight scaled by each of ``BM25_FACTORS`` and the dense weight by
each of ``FACTORS``; the pair chosen leave one conversation out (the best mean of recall@5/10/20 on
the other four) is what ``caim.memory.search.config.UNREAD_BM25`` and ``UNREAD_DENSE`` should be.
The same pairs on the English conversations show what they would cost where the embedder reads the
language (the search never applies them there).

Prints three rows per data set (the shipped weights, the search's weights for an unread language,
each conversation at its fold's choice), then ``unread: chosen leave one out ...``. ``--doc`` writes
the tables. Run (about 2 minutes on 2 cores)::

    python benchmarks/unread_language.py --data ../shared/data/locomo-dev/locomo_dev.json \
        --doc docs/unread-language.md
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from caim.core.embeddings import MiniLMEmbedder
from caim.eval import fit
from caim.eval.files import checkout
from caim.eval.fit import Case
from caim.eval.retrieval import CATEGORIES, Conversation, load, ranking_cases
from caim.eval.tables import markdown_table
from caim.memory.search.config import UNREAD_BM25, UNREAD_DENSE, Weights, adjusted
from caim.memory.search.retrieval import DEFAULT_WEIGHTS

ROOT = Path(__file__).resolve().parents[1]
#: Shares of the shipped dense weight tried (1: the weight as shipped).
FACTORS = (0.0, 0.125, 0.25, 0.375, 0.5, 0.75, 1.0)
#: Factors of the shipped bm25 weight tried with each share.
BM25_FACTORS = (1.0, 4 / 3, 5 / 3, 2.0)
_WORD = re.compile(r"[^\W\d_]+")
_CONSONANTS, _VOWELS = "bdfgklmnprstvz", "aeiou"


def made_up(word: str) -> str:
    """A made-up word for ``word``: syllables drawn from its hash (case folded, capital kept).

    >>> made_up("painted"), made_up("Painted"), made_up("painting")
    ('damekana', 'Damekana', 'vekilini')
    """
    h = hashlib.blake2b(word.lower().encode(), digest_size=8).digest()
    syllables = "".join(
        _CONSONANTS[h[2 * i] % len(_CONSONANTS)] + _VOWELS[h[2 * i + 1] % len(_VOWELS)]
        for i in range(max(1, min(4, (len(word) + 1) // 2)))
    )
    return syllables.capitalize() if word[0].isupper() else syllables


def unreadable(text: str, keep: frozenset[str]) -> str:
    """``text`` with every word made up except those in ``keep`` (speakers' names and their first
    three letters), digits and punctuation as they were.

    >>> unreadable("Mel painted 2 lakes!", frozenset({"Mel"}))
    'Mel damekana 2 dofova!'
    """
    return _WORD.sub(lambda m: m.group(0) if m.group(0) in keep else made_up(m.group(0)), text)


def unreadable_conversation(conv: Conversation) -> Conversation:
    """The conversation with its turns and questions in made-up words (ids, times, evidence kept)."""
    keep = frozenset(n for s in conv.speakers for n in (s, s[:3]))
    turns = [replace(t, text=unreadable(t.text, keep)) for t in conv.turns]
    questions = [replace(q, text=unreadable(q.text, keep)) for q in conv.questions]
    return replace(conv, turns=turns, questions=questions)


Pair = tuple[float, float]


def pairs() -> list[Pair]:
    """Every (bm25 factor, dense share) tried."""
    return [(b, d) for b in BM25_FACTORS for d in FACTORS]


def weights(pair: Pair) -> Weights:
    """The shipped weights with bm25 and dense scaled by ``pair``."""
    b, d = pair
    return replace(DEFAULT_WEIGHTS, bm25=DEFAULT_WEIGHTS.bm25 * b, dense=DEFAULT_WEIGHTS.dense * d)


def measure(cases: Sequence[Case]) -> tuple[dict[Pair, np.ndarray], dict[Pair, dict[str, np.ndarray]]]:
    """Per pair, the recall table of all cases and per conversation (``fit.table``)."""
    names = list(dict.fromkeys(c.conversation for c in cases))
    everything, per_conv = {}, {}
    for pair in pairs():
        per_conv[pair] = {n: fit.table([c for c in cases if c.conversation == n], weights(pair)) for n in names}
        everything[pair] = np.vstack(list(per_conv[pair].values()))
    return everything, per_conv


def chosen(per_conv: dict[Pair, dict[str, np.ndarray]]) -> tuple[dict[str, Pair], np.ndarray]:
    """Each conversation's pair, the best on the other conversations, and the recall table of every
    conversation ranked with its own fold's pair (in ``per_conv``'s conversation order)."""
    names = list(next(iter(per_conv.values())))
    picks, held = {}, []
    for n in names:
        others = {p: float(np.vstack([t[m] for m in names if m != n]).mean()) for p, t in per_conv.items()}
        picks[n] = max(per_conv, key=others.__getitem__)
        held.append(per_conv[picks[n]][n])
    return picks, np.vstack(held)


def grid(everything: dict[Pair, np.ndarray]) -> list[str]:
    """recall@10 and the objective of every pair: a row per dense weight, a column per bm25 weight."""
    at10 = fit.KS.index(10)
    head = ["dense \\ bm25", *(f"{DEFAULT_WEIGHTS.bm25 * b:g}" for b in BM25_FACTORS)]
    rows = [
        [f"{DEFAULT_WEIGHTS.dense * d:g} (x {d:g})"]
        + [f"{everything[b, d][:, at10].mean():.3f} ({everything[b, d].mean():.4f})" for b in BM25_FACTORS]
        for d in FACTORS
    ]
    return markdown_table(head, rows)


def row(label: str, cases: Sequence[Case], table: np.ndarray) -> list[str]:
    """A report row: recall@10 overall and per category, and the objective (mean of recall@5/10/20)."""
    at10 = table[:, fit.KS.index(10)]
    cells = [f"{at10.mean():.3f}"]
    for cat in CATEGORIES:
        mask = np.array([c.category == cat for c in cases])
        cells.append(f"{at10[mask].mean():.3f}" if mask.any() else "-")
    return [label, *cells, f"{table.mean():.4f}"]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="a LoCoMo JSON file")
    ap.add_argument("--doc", help="write the report here")
    args = ap.parse_args(argv)
    started, commit, load_avg, t0 = datetime.now(UTC), checkout(ROOT), os.getloadavg()[0], time.perf_counter()
    embedder = MiniLMEmbedder()
    english = load(args.data)
    head = ["ranking", "recall@10", *CATEGORIES.values(), "mean recall@5/10/20"]
    sections, pick = [], {}
    for label, convs in (("made-up words", [unreadable_conversation(c) for c in english]), ("English", english)):
        cases, _ = ranking_cases(convs, embedder)
        everything, per_conv = measure(cases)
        pick[label], held = chosen(per_conv)
        unread = adjusted(DEFAULT_WEIGHTS, aggregate=False, unread=True)
        ordered = [c for n in per_conv[1.0, 1.0] for c in cases if c.conversation == n]
        rows = [
            row("shipped weights", ordered, everything[1.0, 1.0]),
            row("the search's weights for an unread language", ordered, fit.table(ordered, unread)),
            row("each conversation at its fold's choice", ordered, held),
        ]
        for r in rows:
            print(label, " | ".join(r), flush=True)
        folds = ", ".join(f"{n}: bm25 x {b:g}, dense x {d:g}" for n, (b, d) in pick[label].items())
        sections.append(
            f"## {label}\n\nrecall@10 (mean of recall@5/10/20) per weight pair:\n\n"
            + "\n".join(grid(everything))
            + f"\n\nChosen leave one out: {folds}.\n\n"
            + "\n".join(markdown_table(head, rows))
        )
    factors = set(pick["made-up words"].values())
    header = (
        "<!-- generated by: python benchmarks/unread_language.py --data DATA --doc FILE -->\n"
        "# The similarity weights in a language the embedder does not read (no LLM)\n\n"
        f"`python benchmarks/unread_language.py --data {args.data}` at {commit}, started "
        f"{started:%Y-%m-%d %H:%M} UTC (load average {load_avg:.1f}), {time.perf_counter() - t0:.0f} s; embedder "
        f"{embedder.name}; shipped `UNREAD_BM25` x {UNREAD_BM25:g}, `UNREAD_DENSE` x {UNREAD_DENSE:g}. What is "
        "measured: the module's docstring."
    )
    if args.doc:
        Path(args.doc).write_text(header + "\n\n" + "\n\n".join(sections) + "\n", encoding="utf-8")
    chosen_pairs = " / ".join(f"bm25 x {b:g}, dense x {d:g}" for b, d in sorted(factors))
    print(f"unread: chosen leave one out {chosen_pairs} (shipped bm25 x {UNREAD_BM25:g}, dense x {UNREAD_DENSE:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
