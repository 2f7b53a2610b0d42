"""Entities in code: precision and recall of ``caim.memory.text.entities`` per language.

Reads labelled lines (``tests/data/entities.jsonl`` by default; each ``{"lang", "text", "entities"}``
with every entity the text names of its speaker's life: ``kind``, ``value``, ``relation``,
``holder``), runs ``entities`` on each text and counts an entity right when its kind, value, relation
and holder all equal a gold one (values compared without regard to case and spacing). Reported per
language and over all: lines, gold entities, found entities, precision, recall, F1, and the share of
lines that name nothing (questions, wishes, someone else's plans) read as naming nothing.

Then, per set, the same lines as records keep them: each line stored as one speaker's turn through
``caim.memory.capture.raw_record`` (the write path every surface's capture takes), its record's entities
counted against the gold held as that speaker's - the user's as labelled; a participant's ("Sam") held
by Sam (a relative of theirs: "Sam's sister"); the assistant's none - with the milliseconds each record
took to build and read (the reader's cache emptied first; the assistant's, which are not read, show
what building a record costs alone).

Usage::

    python benchmarks/entities.py [--data tests/data/entities.jsonl ...] [--misses] [--doc docs/entities.md]

``--data`` takes one or more labelled sets (a table each). ``--misses`` lists each line whose entities
differ from its gold, with what was missed and what was extra. ``--doc`` writes the tables to that file
(figures from this run only) under the page's prose, ``DOC``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from caim.memory.capture import raw_record
from caim.memory.records import ASSISTANT, USER, utcnow
from caim.memory.text.entities import RELATIONS, Entity, _read_text, entities

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "entities.jsonl"
LANGUAGES = ("en", "de", "fr", "es", "zh", "ja")

Key = tuple[str, str, str, str]


@dataclass
class Tally:
    """Counts of one language (or all)."""

    lines: int = 0
    gold: int = 0
    found: int = 0
    right: int = 0
    empty: int = 0
    empty_right: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, gold: set[Key], found: set[Key]) -> None:
        """Count one line."""
        self.lines += 1
        self.gold += len(gold)
        self.found += len(found)
        self.right += len(gold & found)
        if not gold:
            self.empty += 1
            self.empty_right += not found

    @property
    def precision(self) -> float:
        return self.right / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.gold if self.gold else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def key(kind: str, value: str, relation: str, holder: str) -> Key:
    """What two entities are compared by."""
    return kind, " ".join(value.casefold().split()), relation, " ".join(holder.casefold().split())


def load(path: Path) -> list[dict[str, Any]]:
    """The labelled lines."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def by_kind(k: Key) -> Key:
    """What ``--by-kind`` compares: the kind and value (a job's kind alone: its wording is the language
    table's, "docente de química" or "profesor de química")."""
    return k[0], "" if k[0] == "job" else k[1], "", ""


def measure(lines: list[dict[str, Any]], loose: bool = False) -> dict[str, Tally]:
    """Per language (and ``all``), the counts of ``entities`` against the gold (``loose``: ``by_kind``)."""
    tallies = {code: Tally() for code in (*LANGUAGES, "all")}
    for line in lines:
        gold = {key(e["kind"], e["value"], e.get("relation", ""), e.get("holder", "")) for e in line["entities"]}
        found = {_key(e) for e in entities(line["text"])}
        if loose:
            gold, found = {by_kind(k) for k in gold}, {by_kind(k) for k in found}
        for code in (line["lang"], "all"):
            tallies[code].add(gold, found)
        if gold != found:
            tallies[line["lang"]].misses.append(
                f"{line['text']}\n    missed: {sorted(gold - found)}\n    extra:  {sorted(found - gold)}"
            )
    return {code: t for code, t in tallies.items() if t.lines}


def _key(e: Entity) -> Key:
    return key(e.kind, e.value, e.relation, e.holder)


def table(tallies: dict[str, Tally]) -> str:
    """The figures as a Markdown table."""
    rows = [
        "| language | lines | gold | found | precision | recall | F1 | no-entity lines read as none |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for code, t in tallies.items():
        empty = f"{t.empty_right}/{t.empty}"
        rows.append(
            f"| {code} | {t.lines} | {t.gold} | {t.found} | {t.precision:.2f} | {t.recall:.2f} | {t.f1:.2f} | {empty} |"
        )
    return "\n".join(rows)


#: The speakers a line is stored as (``in_records``): a row label and the speaker.
SPEAKERS = (("the user's", USER), ("a participant's (Sam)", "Sam"), ("the assistant's", ASSISTANT))


def held_by(speaker: str, holder: str) -> str:
    """Whose a labelled entity is when ``speaker`` said the line (the labels are the speaker's own)."""
    if speaker == USER:
        return holder
    if not holder:
        return speaker
    return f"{speaker}'s {holder}" if holder in RELATIONS else holder


def in_records(lines: list[dict[str, Any]], repeats: int = 3, loose: bool = False) -> list[tuple[str, Tally, float]]:
    """Each line as one speaker's raw record: per speaker, the counts of its record's entities against
    the gold held as theirs, and the milliseconds per record (built and read with the reader's cache
    empty and its tables compiled; the best of ``repeats`` runs)."""
    for line in lines:  # the tables compiled once, as a running process has them
        entities(line["text"])
    out = []
    for label, speaker in SPEAKERS:
        best = float("inf")
        for _ in range(repeats):
            _read_text.cache_clear()
            start = time.perf_counter()
            records = [
                raw_record(user_id="u", session_id="s", turn=i, text=line["text"], when=utcnow(), tags=["personal"],
                           speaker=speaker)
                for i, line in enumerate(lines)
            ]  # fmt: skip
            best = min(best, 1000 * (time.perf_counter() - start) / max(len(lines), 1))
        tally = Tally()
        for line, rec in zip(lines, records, strict=True):
            gold = {
                key(e["kind"], e["value"], e.get("relation", ""), held_by(speaker, e.get("holder", "")))
                for e in line["entities"]
                if speaker != ASSISTANT
            }
            found = {key(e.kind, e.value, e.relation, e.holder) for e in rec.entities}
            if loose:
                gold, found = {by_kind(k) for k in gold}, {by_kind(k) for k in found}
            tally.add(gold, found)
        out.append((label, tally, best))
    return out


def records_table(rows: list[tuple[str, Tally, float]]) -> str:
    """``in_records``' figures as a Markdown table."""
    out = [
        "| words stored as | records | gold | found | precision | recall | F1 | ms per record |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, t, ms in rows:
        figures = f"{t.precision:.2f} | {t.recall:.2f} | {t.f1:.2f} | {ms:.2f}"
        out.append(f"| {label} | {t.lines} | {t.gold} | {t.found} | {figures} |")
    return "\n".join(out)


#: The page ``--doc`` writes: its prose, then the tables of this run.
DOC = """# Entities in code

`caim.memory.text.entities.entities(text)` reads what a speaker names of their own life: their job,
employer and places (where they live, work, come from, travel to), the people of their life with their
relation, and their pets; another person's job, employer and places held by that person
(`Entity.holder`). Questions and wishes name nothing. It runs in English, German, French, Spanish,
Chinese and Japanese, each from its language's `EntityWords` table (`memory/text/lang_*.py`), and
reuses the single-value slots' patterns for the speaker's job, employer and home
(`caim.memory.text.slots.statements`). A text is read in each language it may be in
(`caim.memory.text.lang.plausible`), in turn, up to the first whose tables find something: a short text
that detection can only guess is read in the languages it could not rule out, and no others.

What it leaves out, by design (precision first):

- a workplace that may be a city or a company ("trabajo en Madrid", "我在北京工作", "トヨタで働いています")
  is an employer or a place only when its words say so ("Hospital", "公司"; "市"), otherwise nothing;
  where the job is told as what the speaker does there ("enseño química en Leeds", "我在利兹教化学",
  "リーズで化学を教えています"), it is a place of work unless its words make it an employer;
- a subject left unsaid in a later clause ("..., wohne aber in München", "现在住在深圳") states nothing;
- a pet of another person ("my daughter's hamster"), and the second of two names ("Pip and Daisy").

## In records

Every record of a person's words keeps what they name (`MemoryRecord.entities`, each a `RecordEntity`
of `kind`, `value`, `relation` and `holder`): a captured turn (`raw_record`), a thought of a turn
(`model_record`, which keeps the event's other capitalised names as kind `name`) and a correction read
the speaker's own source turns (`caim.memory.entities.with_entities`). The user's words give the user's
entities (holder ""); a named participant's words give theirs (holder "Sam"; a relative of theirs
"Sam's sister"); the assistant's words give none. The names index (`record_names`) holds every
entity's value, so `MemoryStore.records_named` and the ranking's name signal find "chemistry teacher"
and "Leeds". A record stored, or an export written, when entities were plain strings loads with each
string as a `name`. `caim memories list --json` and the memory browser's page of a memory show them.

Written by `{command}` (an entity counts when its kind, value, relation and holder all equal a gold
one). The labelled sets are the project's own sentences, short and of one or two statements each:
`entities.jsonl` the set the rules were written against; `entities_heldout.jsonl` sentences written
after the rules, whose first run found two rules missing (German "seit drei Jahren" between a verb and
its value, a Japanese cousin as a sentence's subject), both since added - so it is no longer unseen.
"""


def cost_table(shared: Path | None) -> str:
    """What reading entities costs on conversations' turns (most name nothing): CPU milliseconds per text
    and the languages' tables consulted per text (``_entities`` calls), the reading cache emptied first.
    The turns: the reader's training conversations, and LoCoMo dev's and GVD's from ``shared`` when given."""
    from caim.eval.labels import shared_turns, training_turns
    from caim.memory.text import entities as module

    shared_texts = [t.text for t in shared_turns(shared)[0]] if shared is not None else []
    texts = list(dict.fromkeys([t.text for t in training_turns()[0]] + shared_texts))
    read, calls = module._entities, [0]

    def counting(text: str, code: str) -> list[Entity]:
        calls[0] += 1
        return read(text, code)

    for text in texts[:50]:  # the tables compiled before the clock starts
        entities(text)
    module._entities, calls[0] = counting, 0
    _read_text.cache_clear()
    try:
        start = time.process_time()
        named = sum(1 for text in texts if entities(text))
        cpu = time.process_time() - start
    finally:
        module._entities = read
        _read_text.cache_clear()
    row = f"| {len(texts)} | {named} | {1000 * cpu / len(texts):.3f} | {calls[0] / len(texts):.2f} |"
    return (
        "## Cost on conversations' turns\n\n"
        "| texts | naming something | CPU ms per text | tables consulted per text |\n|---:|---:|---:|---:|\n"
        f"{row}\n"
    )


def main(argv: Sequence[str] | None = None) -> dict[str, dict[str, Tally]]:
    """Run the benchmark, print a table per labelled set, write ``--doc`` when given; returns the counts per set."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, nargs="+", default=[DATA])
    ap.add_argument("--misses", action="store_true", help="list the lines read wrong")
    ap.add_argument(
        "--by-kind",
        action="store_true",
        help="compare kinds and values only (a job by its kind): labels without relations",
    )
    ap.add_argument("--doc", type=Path, default=None)
    ap.add_argument(
        "--cost",
        type=Path,
        default=None,
        metavar="SHARED",
        help="also time reading the labelled conversations' turns (the training conversations, and LoCoMo dev and "
        "GVD from the shared data dir SHARED)",
    )
    args = ap.parse_args(argv)
    out: dict[str, dict[str, Tally]] = {}
    sections: list[str] = []
    for path in args.data:
        name = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
        lines = load(path)
        out[name] = tallies = measure(lines, args.by_kind)
        sections.append(
            f"## `{name}`\n\n{table(tallies)}\n\n"
            f"In records:\n\n{records_table(in_records(lines, loose=args.by_kind))}\n"
        )
        print(sections[-1])
        if args.misses:
            for code, t in tallies.items():
                for miss in t.misses:
                    print(f"[{code}] {miss}")
    if args.cost is not None:
        sections.append(cost_table(args.cost))
        print(sections[-1])
    if args.doc is not None:
        cost = f" --cost {args.cost}" if args.cost is not None else ""
        command = "python benchmarks/entities.py --data " + " ".join(out) + cost + f" --doc {args.doc}"
        args.doc.write_text(DOC.format(command=command) + "\n" + "\n".join(sections), encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
