"""A record's entities: the job, employer, places, people and pets its speaker's own words name, typed
and held by whoever said them; older stores and export files whose entities are plain names still load."""

from __future__ import annotations

import json
import sqlite3

from caim import Memory
from caim.memory.capture import raw_record
from caim.memory.records import MemoryRecord, RecordEntity
from caim.memory.storage.db import DB_FILE

LEEDS = "I teach chemistry in Leeds."


def typed(rec: MemoryRecord) -> set[tuple[str, str, str]]:
    return {(e.kind, e.value, e.holder) for e in rec.entities}


def only(memory: Memory, user: str, thought: str) -> MemoryRecord:
    found = [r for r in memory.list(user_id=user) if r.thought == thought]
    assert len(found) == 1, [r.thought for r in memory.list(user_id=user)]
    return found[0]


def test_remembering_a_job_and_a_place_stores_them_typed(memory):
    memory.remember([("user", LEEDS), ("assistant", "Chemistry is fun.")], user_id="ana", background=False)
    rec = only(memory, "ana", LEEDS)
    assert typed(rec) == {("job", "chemistry teacher", ""), ("place", "Leeds", "")}
    assert [e.relation for e in rec.entities if e.kind == "place"] == ["work"]


def test_the_names_index_holds_the_values(memory):
    memory.remember([("user", LEEDS)], user_id="ana", background=False)
    store = memory.services.store
    assert [r.thought for r in store.records_named("ana", "chemistry teacher", 5)] == [LEEDS]
    assert [r.thought for r in store.records_named("ana", "Leeds", 5)] == [LEEDS]


def test_a_relative_named_by_the_user_holds_what_is_said_of_them(memory):
    said = "My sister Clara works as a nurse."
    memory.remember([("user", said)], user_id="ana", background=False)
    assert typed(only(memory, "ana", said)) == {("person", "Clara", ""), ("job", "nurse", "Clara")}


def test_a_participants_words_give_their_entities_not_the_users(memory):
    chat = [
        {"role": "user", "name": "Sam", "content": "I work as a nurse in Harrogate.", "time": "2024-06-02T18:00"},
        {"role": "user", "content": "I teach chemistry in Leeds.", "time": "2024-06-02T18:01"},
    ]
    memory.remember(chat, user_id="noor", background=False)
    sam = only(memory, "noor", "I work as a nurse in Harrogate.")
    assert sam.speaker == "Sam"
    assert typed(sam) == {("job", "nurse", "Sam"), ("place", "Harrogate", "Sam")}
    assert typed(only(memory, "noor", LEEDS)) == {("job", "chemistry teacher", ""), ("place", "Leeds", "")}


def test_a_participants_relative_is_theirs():
    rec = raw_record(
        user_id="u", session_id="s", turn=1, text="My sister works as a vet.", when=_when(), tags=["x"], speaker="Sam"
    )
    assert typed(rec) == {("job", "vet", "Sam's sister")}


def test_the_assistants_words_name_no_fact_of_anyones_life():
    rec = raw_record(
        user_id="u", session_id="s", turn=1, text="I live in Leeds and I teach chemistry.", when=_when(), tags=["x"],
        speaker="assistant",
    )  # fmt: skip
    assert rec.entities == []


def test_a_correction_reads_the_new_words(memory):
    memory.remember([("user", LEEDS)], user_id="ana", background=False)
    old = only(memory, "ana", LEEDS)
    new = memory.correct(old.id, "I teach physics in York.", user_id="ana")
    assert typed(new) == {("job", "physics teacher", ""), ("place", "York", "")}


def test_an_export_with_plain_names_imports_and_exports_typed(memory):
    rec = {
        "id": "0" * 31 + "1",
        "user_id": "old",
        "thought": "My sister Ana lives in Lisbon.",
        "tags": ["siblings"],
        "event_time": "2024-03-04T09:00:00+00:00",
        "entities": ["Ana", "Lisbon", ""],
    }
    memory.import_({"format": 1, "user_id": "old", "memories": [rec]}, user_id="ana")
    got = only(memory, "ana", rec["thought"])
    assert got.entities == [RecordEntity(kind="name", value="Ana"), RecordEntity(kind="name", value="Lisbon")]
    exported = memory.export(user_id="ana")["memories"][0]["entities"]
    assert exported == [
        {"kind": "name", "value": "Ana", "relation": "", "holder": ""},
        {"kind": "name", "value": "Lisbon", "relation": "", "holder": ""},
    ]


def test_an_older_store_whose_entities_are_names_still_loads(settings, scripted):
    models, _calls, _script = scripted
    with Memory(settings, models=models) as memory:
        memory.remember([("user", LEEDS)], user_id="ana", background=False)
        rid = only(memory, "ana", LEEDS).id
    db = sqlite3.connect(settings.data_dir / DB_FILE)
    (body,) = db.execute("SELECT body FROM records WHERE id = ?", (rid,)).fetchone()
    old = json.loads(body) | {"entities": ["Leeds"]}  # how a record was stored before entities were typed
    db.execute("UPDATE records SET body = ? WHERE id = ?", (json.dumps(old), rid))
    db.commit()
    db.close()
    with Memory(settings, models=models) as memory:
        got = memory.get(rid, user_id="ana")
        assert got is not None and got.entities == [RecordEntity(kind="name", value="Leeds")]
        assert [r.id for r in memory.services.store.records_named("ana", "Leeds", 5)] == [rid]


def _when():
    from caim.memory.records import utcnow

    return utcnow()
