"""Chroma LTM: persistence, tag/time candidates, per-user isolation, merge safety."""

from datetime import UTC, datetime, timedelta

from caim.core.embeddings import MiniLMEmbedder
from caim.memory.merge import apply_merges, validate_groups
from caim.memory.records import MemoryRecord, SourceTurn
from caim.memory.store import MemoryStore

T0 = datetime(2023, 5, 1, 12, tzinfo=UTC)


def rec(user, thought, tags, days=0, **kw):
    return MemoryRecord(user_id=user, thought=thought, tags=tags, event_time=T0 + timedelta(days=days), **kw)


def test_records_persist_on_disk_with_sources(tmp_path):
    store = MemoryStore(tmp_path / "chroma", MiniLMEmbedder.shared())
    r = rec(
        "ann",
        "favourite food is pizza",
        ["food", "favorite"],
        sources=[SourceTurn(role="user", text="I love pizza", time=T0)],
    )
    store.add([r])
    again = MemoryStore(tmp_path / "chroma", MiniLMEmbedder.shared())
    [got] = again.list("ann")
    assert got.id == r.id and got.tags == ["food", "favorite"] and got.event_time == T0
    assert got.sources[0].text == "I love pizza"


def test_candidates_by_tag_or_time_newest_first_and_capped():
    store = MemoryStore(None, MiniLMEmbedder.shared())
    store.add([rec("ann", f"fact {i}", ["music" if i % 2 else "books"], days=i) for i in range(10)])
    by_tag = store.candidates("ann", ["music"], limit=3)
    assert [r.thought for r in by_tag] == ["fact 9", "fact 7", "fact 5"]
    day2 = (T0 + timedelta(days=2), T0 + timedelta(days=2, hours=23))
    by_time = store.candidates("ann", [], [day2])
    assert [r.thought for r in by_time] == ["fact 2"]
    both = store.candidates("ann", ["music"], [day2], limit=20)
    assert {r.thought for r in both} == {"fact 1", "fact 3", "fact 5", "fact 7", "fact 9", "fact 2"}
    assert store.candidates("ann", [], []) == []


def test_users_never_see_each_others_records():
    store = MemoryStore(None, MiniLMEmbedder.shared())
    a = rec("ann", "ann likes jazz", ["music"])
    b = rec("bob", "bob likes jazz", ["music"])
    store.add([a, b])
    assert [r.user_id for r in store.candidates("ann", ["music"])] == ["ann"]
    assert [r.user_id for r, _ in store.similar("ann", "jazz", 5)] == ["ann"]
    assert store.get("ann", b.id) is None
    assert store.delete("ann", [b.id]) == 0 and store.get("bob", b.id) is not None
    assert store.forget_user("ann") == 1 and store.count("bob") == 1


def test_merge_removes_only_group_members():
    store = MemoryStore(None, MiniLMEmbedder.shared())
    a = rec("ann", "likes pizza", ["food"], days=1, sources=[SourceTurn(role="user", text="I like pizza")])
    b = rec(
        "ann", "really likes pizza", ["food", "likes"], days=3, sources=[SourceTurn(role="user", text="pizza is great")]
    )
    c = rec("ann", "owns a cat", ["pets"], days=2)
    store.add([a, b, c])
    records = {r.id: r for r in store.list("ann")}
    # an invalid grouping (unknown id, singleton, duplicate membership) cannot delete anything else
    groups = [[a.id, b.id, "not-an-id"], [c.id], [b.id, c.id]]
    assert validate_groups(groups, set(records)) == [[a.id, b.id]]
    done = apply_merges(store, "ann", groups, records)
    left = {r.id: r for r in store.list("ann")}
    assert set(left) == {a.id, c.id}
    merged = left[a.id]
    assert merged.thought == "really likes pizza"  # newest wording
    assert merged.event_time == T0 + timedelta(days=1)  # earliest event time
    assert {s.text for s in merged.sources} == {"I like pizza", "pizza is great"}
    assert done == [{"kept": a.id, "removed": [b.id], "thought": "really likes pizza"}]
