"""Merging records that say the same thing (the code half of memory review).

``validate_groups`` turns an LLM's grouping into safe groups: known ids only, two or more members,
no record in two groups. ``merge_group`` builds the merged record (newest wording, earliest event
time, sources united, most frequent tags). ``apply_merges`` is the one code path that deletes: it
removes only ids that are members of a validated group, never anything else.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from typing_extensions import TypedDict

from caim.memory.records import HistoryEntry, MemoryRecord, as_aware, utcnow
from caim.memory.storage.store import MemoryStore


class Merge(TypedDict):
    """One applied merge: the record kept, the ids folded into it, its thought."""

    kept: str
    removed: list[str]
    thought: str


def validate_groups(groups: Sequence[Sequence[str]], known: set[str]) -> list[list[str]]:
    """The groups to merge: each group's ``known`` ids not in an earlier group (each once), and only
    groups left with two or more."""
    used: set[str] = set()
    out: list[list[str]] = []
    for g in groups:
        members = [i for i in dict.fromkeys(g) if i in known and i not in used]
        if len(members) >= 2:
            out.append(members)
            used.update(members)
    return out


def merge_group(records: Sequence[MemoryRecord], session_id: str = "") -> MemoryRecord:
    """One record standing for the group; keeps the id of the earliest-created member, the newest
    wording (a written thought before a raw capture), the earliest event time, every source, link
    and history entry."""
    by_created = sorted(records, key=lambda r: as_aware(r.created_at))
    newest = max(records, key=lambda r: (r.kind == "thought", as_aware(r.event_time), as_aware(r.updated_at)))
    tag_counts = Counter(t for r in records for t in r.tags)
    tags = [
        t
        for t, _ in sorted(
            tag_counts.items(), key=lambda kv: (-kv[1], newest.tags.index(kv[0]) if kv[0] in newest.tags else 9)
        )
    ][:3]
    seen: set[tuple[str, str]] = set()
    sources = []
    for r in sorted(records, key=lambda r: as_aware(r.event_time)):
        for s in r.sources:
            key = (s.role, s.text)
            if key not in seen:
                seen.add(key)
                sources.append(s)
    keeper = by_created[0]
    ids = {r.id for r in records}
    history = [h for r in by_created for h in r.history]
    history.append(
        HistoryEntry(
            change="merged",
            session_id=session_id,
            others=[r.id for r in by_created[1:]],
            note=" | ".join(r.thought[:80] for r in by_created[1:]),
        )
    )
    return keeper.model_copy(
        update={
            "thought": newest.thought,
            "kind": "thought" if any(r.kind == "thought" for r in records) else keeper.kind,
            "tags": tags,
            "event_time": min(as_aware(r.event_time) for r in records),
            "updated_at": utcnow(),
            "sources": sources,
            "links": [i for i in dict.fromkeys(x for r in records for x in r.links) if i not in ids],
            "entities": list(dict.fromkeys(x for r in records for x in r.entities)),
            "supersedes": [i for i in dict.fromkeys(x for r in records for x in r.supersedes) if i not in ids],
            "history": history,
        }
    )


def apply_merges(
    store: MemoryStore, user_id: str, groups: list[list[str]], records: dict[str, MemoryRecord], session_id: str = ""
) -> list[Merge]:
    """Merge each validated group in the store. Returns what was done, for the trace."""
    done: list[Merge] = []
    for group in validate_groups(groups, set(records)):
        members = [records[i] for i in group]
        if any(m.user_id != user_id for m in members):
            continue
        merged = merge_group(members, session_id)
        removed = [i for i in group if i != merged.id]
        assert set(removed) <= set(group)  # only group members are ever removed
        store.replace(merged, removed)
        done.append({"kept": merged.id, "removed": removed, "thought": merged.thought})
    return done
