"""Labelled turns: what a careful reader keeps of each turn of a conversation - whether it stores, its
top-level categories (1-3, most relevant first) and ontology terms, a lasting like or dislike, whose
life it is about - and, for an assistant's reply, whether it gave something and the user took it up.

Three kinds of sets, one shape (``Turn``, ``Reply``):

- ``shared_turns``: ``tests/data/labels_shared.jsonl``, labels of every turn of the LoCoMo dev
  conversations and every GVD English user query and reply, by reference only - their texts are read
  from the shared data at run time (LoCoMo is CC BY-NC and stays out of the repository);
- ``written_turns``: ``tests/data/labels_written.jsonl``, conversations written for caim in six
  languages, text and labels together (a development set: nothing is fitted on it);
- ``training_turns``: ``eval/data/reading/*.jsonl``, further conversations written for caim (friends
  over many sessions, a user with a companion app; English, Chinese, German, French, Spanish,
  Japanese), the reader's training data.

The labelling rules are those of docs/reading.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from caim.eval.locomo import locomo_turn_text

ROOT = Path(__file__).resolve().parents[1]
SHARED_LABELS = ROOT / "tests" / "data" / "labels_shared.jsonl"
WRITTEN_LABELS = ROOT / "tests" / "data" / "labels_written.jsonl"
#: Short messages written to check capture alone (whether each stores), six languages.
CAPTURE_CHECK = ROOT / "tests" / "data" / "capture_check.jsonl"
TRAINING = Path(__file__).resolve().parent / "data" / "reading"
#: How a written conversation marks a shared photo, and how caim's LoCoMo replay writes it.
_PHOTO, IMAGE = "[shares an image:", "[shared an image:"


@dataclass
class Turn:
    """One labelled turn: its text and speaker, the group it belongs to (a conversation, or a GVD
    user), its language, the turn before it in its session, and the labels."""

    source: str
    group: str
    ref: str
    text: str
    speaker: str
    stores: bool
    top: list[str]
    terms: list[str] = field(default_factory=list)
    polarity: str | None = None
    about: str | None = None
    lang: str = "en"
    before: str = ""


@dataclass
class Reply:
    """One labelled assistant reply: did it give something specific, did the user take it up that
    session, does it contradict what the user said; ``later``: the user's turns after it that session."""

    source: str
    group: str
    ref: str
    text: str
    asked: str
    later: list[str]
    gives: bool
    taken_up: bool
    contradicts: bool


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _turn(row: dict[str, Any], **given: Any) -> Turn:
    return Turn(
        stores=bool(row["stores"]),
        top=list(row.get("top") or []),
        terms=list(row.get("terms") or []),
        polarity=row.get("polarity"),
        about=row.get("about"),
        **given,
    )


def _locomo(shared: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(conversation, dialogue id) -> (text, the turn before it in its session)."""
    data = json.loads((shared / "locomo-dev" / "locomo_dev.json").read_text(encoding="utf-8"))
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for sample in data:
        conv = sample["conversation"]
        for key, turns in conv.items():
            if not (key.startswith("session_") and isinstance(turns, list)):
                continue
            before = ""
            for t in turns:
                text = locomo_turn_text(t)
                out[(sample["sample_id"], t["dia_id"])] = (text, before)
                before = text
    return out


def shared_turns(shared: Path, labels: Path = SHARED_LABELS) -> tuple[list[Turn], list[Reply]]:
    """The LoCoMo dev and GVD labels with their texts read from ``shared`` (the shared data folder)."""
    locomo = _locomo(shared)
    gvd = {k.strip(): v for k, v in json.loads((shared / "gvd" / "memory_bank_en.json").read_text()).items()}
    turns, replies = [], []
    for row in _jsonl(labels):
        if row["source"] == "locomo-dev":
            text, before = locomo[(row["conversation"], row["turn"])]
            turns.append(
                _turn(row, source="locomo-dev", group=row["conversation"], ref=row["turn"], text=text,
                      speaker=row["speaker"], before=before)
            )  # fmt: skip
            continue
        day, i = row["turn"].split("#")
        said = gvd[row["user"]]["history"][day]
        at = int(i)
        if row.get("kind") == "reply":
            later = [x["query"] for x in said[at + 1 :]]
            replies.append(
                Reply("gvd", row["user"], row["turn"], said[at]["response"], said[at]["query"], later,
                      bool(row["gives"]), bool(row["taken_up"]), bool(row["contradicts"]))
            )  # fmt: skip
        else:
            before = said[at - 1]["response"] if at else ""
            turns.append(
                _turn(row, source="gvd", group=row["user"], ref=row["turn"], text=said[at]["query"],
                      speaker=row["speaker"], before=before)
            )  # fmt: skip
    return turns, replies


def _written(rows: Iterator[dict[str, Any]], source: str) -> tuple[list[Turn], list[Reply]]:
    """Turns (and an assistant's replies, with the user's later turns of its session) of written sets."""
    turns: list[Turn] = []
    replies: list[Reply] = []
    last: dict[tuple[str, int], str] = {}
    pending: list[tuple[Reply, tuple[str, int]]] = []
    for row in rows:
        key = (row["conversation"], int(row["session"]))
        text = str(row["text"]).replace(_PHOTO, IMAGE)
        before = last.get(key, "")
        last[key] = text
        if row.get("role") == "assistant":
            reply = Reply(source, row["conversation"], str(row["turn"]), text, before, [],
                          bool(row["gives"]), bool(row["taken_up"]), bool(row["contradicts"]))  # fmt: skip
            replies.append(reply)
            pending.append((reply, key))
            continue
        for reply, at in pending:
            if at == key:
                reply.later.append(text)
        turns.append(
            _turn(row, source=source, group=row["conversation"], ref=str(row["turn"]), text=text,
                  speaker=row["speaker"], lang=row.get("lang", "en"), before=before)
        )  # fmt: skip
    return turns, replies


def written_turns(path: Path = WRITTEN_LABELS) -> list[Turn]:
    """The written development set."""
    return _written(_jsonl(path), "written")[0]


def check_turns(path: Path = CAPTURE_CHECK) -> list[Turn]:
    """The capture check set: short messages in six languages, each alone, labelled only whether they store."""
    return [
        Turn("check", row["lang"], str(i), row["text"], "user", bool(row["stores"]), [], lang=row["lang"])
        for i, row in enumerate(_jsonl(path))
    ]


def training_turns(folder: Path = TRAINING) -> tuple[list[Turn], list[Reply]]:
    """The reader's training conversations, every file of ``folder``."""
    turns: list[Turn] = []
    replies: list[Reply] = []
    for path in sorted(folder.glob("*.jsonl")):
        t, r = _written(_jsonl(path), "training")
        turns += t
        replies += r
    return turns, replies


@dataclass
class Remembered:
    """What remembering labelled turns stored, against the labels: capture precision and recall,
    top-level categories of the stored tags (precision, recall, F1, share of stored turns with a wrong
    category), likes and dislikes found with their polarity, records by speaker; and of the
    assistant's replies, how many were kept, how many of those the user took up, how many of the
    replies that gave something and were taken up were kept, and kept replies that contradict."""

    turns: int = 0
    kept: int = 0
    right_kept: int = 0
    should: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    wrong: int = 0
    tagged: int = 0
    polar: int = 0
    polar_found: int = 0
    speakers: dict[str, int] = field(default_factory=dict)
    replies: int = 0
    replies_kept: int = 0
    kept_taken_up: int = 0
    wanted: int = 0
    wanted_kept: int = 0
    kept_contradicting: int = 0

    def turn(self, t: Turn, categories: set[str] | None, polarity: str | None) -> None:
        """Count one turn: ``categories`` the top-level categories of what it stored (``None``: nothing)."""
        self.turns += 1
        self.should += t.stores
        if categories is not None:
            self.kept += 1
            self.right_kept += t.stores
        if t.polarity in ("like", "dislike"):
            self.polar += 1
            self.polar_found += polarity == t.polarity
        if categories is None or not t.stores:
            return
        gold = set(t.top)
        self.tagged += 1
        self.tp += len(categories & gold)
        self.fp += len(categories - gold)
        self.fn += len(gold - categories)
        self.wrong += bool(categories - gold)

    def reply(self, r: Reply, kept: bool) -> None:
        """Count one assistant reply, ``kept`` when a record of its words was stored."""
        self.replies += 1
        self.replies_kept += kept
        self.kept_taken_up += kept and r.taken_up
        self.wanted += r.gives and r.taken_up and not r.contradicts
        self.wanted_kept += kept and r.gives and r.taken_up and not r.contradicts
        self.kept_contradicting += kept and r.contradicts

    def figures(self) -> dict[str, float | int | dict[str, int]]:
        """The counts as the report's figures."""
        p = self.tp / max(self.tp + self.fp, 1)
        r = self.tp / max(self.tp + self.fn, 1)
        return {
            "turns": self.turns,
            "capture_precision": self.right_kept / max(self.kept, 1),
            "capture_recall": self.right_kept / max(self.should, 1),
            "tags_precision": p,
            "tags_recall": r,
            "tags_f1": 2 * p * r / max(p + r, 1e-9),
            "wrong_tag_share": self.wrong / max(self.tagged, 1),
            "polarity_found": self.polar_found / max(self.polar, 1),
            "by_speaker": dict(self.speakers),
            "replies": self.replies,
            "replies_kept": self.replies_kept,
            "kept_taken_up": self.kept_taken_up / max(self.replies_kept, 1),
            "taken_up_kept": self.wanted_kept / max(self.wanted, 1),
            "kept_contradicting": self.kept_contradicting,
        }


def _categories(records: list[Any], ontology: Any) -> set[str]:
    return {ontology.path(t).split("/")[0] for r in records for t in r.tags if t in ontology}


def remember_labelled(
    memory: Any, turns: Sequence[Turn], replies: Sequence[Reply] = (), *, progress: Any = None
) -> Remembered:
    """Remember each labelled turn alone (its own user, one message) through ``memory`` (a
    ``caim.Memory``), and each labelled reply's session whole (the user's and the assistant's turns
    of its day); count what was stored against the labels."""
    ontology = memory.services.ontology.current
    out = Remembered()
    for i, t in enumerate(turns):
        user = f"labelled-{i}"
        memory.remember([{"role": "user", "content": t.text}], user_id=user, background=False)
        records = memory.list(user_id=user)
        for r in records:
            out.speakers[r.who] = out.speakers.get(r.who, 0) + 1
        polar = next((r.polarity for r in records if r.polarity in ("like", "dislike")), None)
        out.turn(t, _categories(records, ontology) if records else None, polar)
        if progress is not None:
            progress(i + 1, len(turns) + len(replies))
    done = len(turns)
    for j, group in enumerate(_sessions(replies).values()):
        user = f"labelled-replies-{j}"
        messages = [
            m for r in group for m in ({"role": "user", "content": r.asked}, {"role": "assistant", "content": r.text})
        ]
        memory.remember(messages, user_id=user, background=False)
        kept = {r.turn for r in memory.list(user_id=user) if r.speaker == "assistant"}
        for n, r in enumerate(group, 1):
            out.reply(r, n in kept)
        done += len(group)
        if progress is not None:
            progress(done, len(turns) + len(replies))
    return out


def _sessions(replies: Sequence[Reply]) -> dict[tuple[str, str], list[Reply]]:
    """Replies by session (group and day), in order."""
    out: dict[tuple[str, str], list[Reply]] = {}
    for r in replies:
        out.setdefault((r.group, r.ref.split("#")[0]), []).append(r)
    return out


CALIBRATION = ROOT / "tests" / "data" / "labels_calibration.json"


def reference_agreement(
    shared: Path, labels: Path = SHARED_LABELS, calibration: Path = CALIBRATION
) -> dict[str, float]:
    """How the LoCoMo dev and GVD labels agree with the reference labels of the same turns
    (``shared``/labels/tags_dev.jsonl), leaving out the turns shown to the labeller as calibration:
    the share of the same store decisions, the top-level categories' precision, recall and F1
    (the reference as gold) and how many of the reference's likes and dislikes are labelled alike."""
    samples = [s["sample_id"] for s in json.loads((shared / "locomo-dev" / "locomo_dev.json").read_text("utf-8"))]
    shown = {(r["source"], str(r["sample"]), r["id"]) for r in json.loads(calibration.read_text("utf-8"))}
    ours: dict[tuple[str, str], dict[str, Any]] = {}
    for row in _jsonl(labels):
        if row.get("kind") != "reply":
            ours[(row.get("conversation") or row["user"], row["turn"])] = row
    n = same = tp = fp = fn = likes = alike = 0
    for ref in _jsonl(shared / "labels" / "tags_dev.jsonl"):
        if (ref["source"], str(ref["sample"]), ref["id"]) in shown:
            continue
        group = samples[int(ref["sample"])] if ref["source"] == "locomo" else str(ref["sample"]).strip()
        mine = ours[(group, ref["id"])]
        n += 1
        same += bool(mine["stores"]) == bool(ref["stores"])
        a, b = set(mine["top"]), set(ref["top"])
        tp, fp, fn = tp + len(a & b), fp + len(a - b), fn + len(b - a)
        if ref["polarity"]:
            likes += 1
            alike += mine["polarity"] == ref["polarity"]
    p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return {
        "turns": n,
        "stores": same / max(n, 1),
        "categories P": p,
        "categories R": r,
        "categories F1": 2 * p * r / max(p + r, 1e-9),
        "likes and dislikes": likes,
        "alike": alike,
    }
