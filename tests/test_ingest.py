"""Ingestion at the embedder's speed: texts embedded once, exports that carry their vectors, imports
that reuse them, write nothing unchanged and finish after a stop, and post-thinking of a chat history
that resumes the session it was stopped in."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from langchain_core.messages import AIMessage, HumanMessage

from caim.agent.memory import INGESTING, Memory
from caim.agent.messages import session_key
from caim.core.embeddings import Embedder, MiniLMEmbedder
from caim.core.errors import CaimError, InputError
from caim.core.scripted import ScriptedChatModel
from caim.core.settings import Settings
from caim.memory import transfer
from caim.memory.storage.db import RecordDB
from caim.memory.transfer import read_export

FACTS = [
    "My sister Ana lives in Lisbon.",
    "I play the cello in a quartet on Tuesdays.",
    "My dog Bruno is a four-year-old beagle.",
    "I work as a nurse at the children's hospital.",
    "I am allergic to peanuts.",
]


class Counting(Embedder):
    """MiniLM's vectors, counting the texts it is asked to embed."""

    name = MiniLMEmbedder.name
    version = MiniLMEmbedder.version
    dims = MiniLMEmbedder.dims

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        return MiniLMEmbedder.shared().embed(texts)


def memory_at(path, embedder: Embedder | None = None) -> Memory:
    memory = Memory(Settings(_env_file=None, data_dir=path), models=ScriptedChatModel(), background=False)
    if embedder is not None:
        memory.services.store.embedder = embedder
    return memory


@pytest.fixture
def exported(tmp_path):
    """An export of five facts of ann's, with their vectors."""
    with memory_at(tmp_path / "a") as memory:
        for fact in FACTS:
            memory.add(fact, user_id="ann", at="2024-03-01T10:00:00")
        return memory.export(user_id="ann")


def stored_vectors(memory: Memory, user: str) -> dict[str, np.ndarray]:
    return {r.id: v for r, v in memory.services.store.iter_vectors(user) if v is not None}


def test_the_same_text_is_embedded_once():
    counting = Counting()
    first = counting.vectors_of(["a cat", "a dog", "a cat"])
    again = counting.vectors_of(["a dog", "a bird"])
    assert counting.texts == ["a cat", "a dog", "a bird"]
    assert np.allclose(first[1], again[0]) and np.allclose(first[0], first[2])
    sims = counting.similarity(["a cat", "a bird"])
    assert counting.texts == ["a cat", "a dog", "a bird"] and sims.shape == (2, 2)


def test_remembered_vectors_are_bounded(monkeypatch):
    monkeypatch.setattr("caim.core.embeddings.REMEMBERED", 2)
    counting = Counting()
    counting.vectors_of(["one", "two", "three"])
    counting.vectors_of(["one"])  # pushed out by the later two: embedded again
    assert counting.texts == ["one", "two", "three", "one"]


def test_an_export_carries_each_vector_and_its_embedder(exported):
    head = {k: v for k, v in exported.items() if k != "memories"}
    assert head["format"] == 2
    assert head["embedder"] == {
        "name": MiniLMEmbedder.name,
        "version": MiniLMEmbedder.version,
        "encoding": transfer.ENCODING,
    }
    assert len(exported["memories"]) == len(FACTS)
    for item in exported["memories"]:
        vec = np.frombuffer(base64.b64decode(item["vector"]["f16"]), dtype="<f2")
        assert vec.shape == (MiniLMEmbedder.dims,) and abs(float(np.linalg.norm(vec.astype(np.float32))) - 1) < 0.01


def test_import_reuses_the_vectors_of_the_same_embedder(tmp_path, exported):
    counting = Counting()
    with memory_at(tmp_path / "b", counting) as memory:
        assert memory.import_(exported, user_id="ann").added == len(FACTS)
        got = stored_vectors(memory, "ann")
        memory.services.store.flush()
        assert [m["thought"] for m in memory.search("Where does Ana live?", user_id="ann", k=1)] == [FACTS[0]]
    assert not [t for t in counting.texts if t not in ("Where does Ana live?",)]  # no record embedded
    for item in exported["memories"]:
        sent = np.frombuffer(base64.b64decode(item["vector"]["f16"]), dtype="<f2").astype(np.float32)
        assert np.array_equal(got[item["id"]], sent)


def test_a_damaged_or_mismatched_vector_is_embedded_again(tmp_path, exported):
    items = exported["memories"]
    other = items[1]["vector"]["f16"]
    items[0]["vector"]["f16"] = other  # a whole vector, but another record's: its digest does not match...
    items[0]["vector"]["of"] = items[1]["vector"]["of"]
    items[2]["vector"]["f16"] = items[2]["vector"]["f16"][:40]  # cut short
    items[3]["vector"]["f16"] = base64.b64encode(np.full(384, 0.5, dtype="<f2").tobytes()).decode()  # not unit length
    items[4]["thought"] += " Since 2019."  # edited after the export: the vector is of the old text
    counting = Counting()
    with memory_at(tmp_path / "b", counting) as memory:
        memory.import_(exported, user_id="ann")
        got = stored_vectors(memory, "ann")
        records = {r.id: r for r in memory.services.store.iter("ann")}
    for item in items:
        want = MiniLMEmbedder.shared().vectors_of([records[item["id"]].embedded_text()])[0]
        assert np.allclose(got[item["id"]], want, atol=2e-3)  # the record's own vector, never the export's
    assert not np.allclose(got[items[0]["id"]], got[items[1]["id"]], atol=2e-3)


def test_another_embedders_vectors_are_not_reused(tmp_path, exported):
    exported["embedder"]["name"] = "text-embedding-3-small"
    for item in exported["memories"]:  # same length, other values: would be kept if they were reused
        item["vector"]["f16"] = base64.b64encode(np.eye(384, dtype="<f2")[0].tobytes()).decode()
    with memory_at(tmp_path / "b") as memory:
        memory.import_(exported, user_id="ann")
        got = stored_vectors(memory, "ann")
    assert not any(np.array_equal(v, np.eye(384, dtype=np.float32)[0]) for v in got.values())


def test_importing_again_writes_nothing_and_a_stopped_import_finishes(tmp_path, exported, monkeypatch):
    monkeypatch.setattr(transfer, "BATCH", 2)
    with memory_at(tmp_path / "b") as memory:
        store = memory.services.store
        written: list[str] = []
        stop_after = [2]
        real = store.add

        def add(records, vectors=None):
            written.extend(r.id for r in records)
            if len(written) > stop_after[0]:
                raise KeyboardInterrupt  # the process is stopped after its first batch
            real(records, vectors)

        monkeypatch.setattr(store, "add", add)
        with pytest.raises(KeyboardInterrupt):
            memory.import_(exported, user_id="ann")
        assert store.count("ann") == 2
        stop_after[0] = 100
        written.clear()
        finished = memory.import_(exported, user_id="ann")
        assert (finished.added, finished.unchanged, finished.updated) == (len(FACTS) - 2, 2, 0)
        ids = [m["id"] for m in exported["memories"]]
        assert written == ids[2:]  # the first batch was there as exported: not written again
        assert sorted(r.id for r in store.iter("ann")) == sorted(ids)
        written.clear()
        again = memory.import_(exported, user_id="ann")
        assert (again.unchanged, again.written, again.total) == (len(FACTS), 0, len(FACTS))
        assert written == []


def test_import_reports_progress(tmp_path, exported, monkeypatch):
    monkeypatch.setattr(transfer, "BATCH", 2)
    seen = []
    with memory_at(tmp_path / "b") as memory:
        memory.import_(exported, user_id="ann", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(2, 5), (4, 5), (5, 5)]


def test_a_large_export_is_read_as_a_stream(tmp_path, exported):
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(exported, indent=1) + "\n", encoding="utf-8")
    streamed = read_export(path, stream_from=0)
    assert streamed.head["user_id"] == "ann" and streamed.head["format"] == 2
    assert list(streamed.memories) == exported["memories"]
    whole = read_export(path)
    assert whole.head == streamed.head and whole.total == len(FACTS)
    bare = tmp_path / "list.json"
    bare.write_text(json.dumps(exported["memories"]), encoding="utf-8")
    assert [m["id"] for m in read_export(bare, stream_from=0).memories] == [m["id"] for m in exported["memories"]]
    with memory_at(tmp_path / "b") as memory:
        assert memory.import_(read_export(path, stream_from=0), user_id="ann").added == len(FACTS)
        assert memory.services.store.count("ann") == len(FACTS)


def test_a_streamed_export_keeps_its_profile(tmp_path, exported):
    exported["profile"] = {"user_id": "ann", "principles": [], "backgrounds": {}}
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    streamed = read_export(path, stream_from=0)
    assert "profile" not in streamed.head
    list(streamed.memories)
    assert streamed.head["profile"]["user_id"] == "ann"


@pytest.mark.parametrize(
    "text",
    ['{"format": 2, "memories": [{"id": 1}', '{"format": 2, "memories": [{"id": 1} {"id": 2}]}', '{"format": 2}', "3"],
)
def test_a_broken_streamed_export_is_a_one_line_error(tmp_path, text):
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises((InputError, CaimError)) as err:
        list(read_export(path, stream_from=0).memories)
    assert "\n" not in str(err.value)


def test_an_export_of_a_newer_format_is_refused(tmp_path, exported):
    exported["format"] = 99
    with memory_at(tmp_path / "b") as memory, pytest.raises(CaimError, match="newer caim"):
        memory.import_(exported, user_id="ann")


def test_the_cli_export_carries_vectors(tmp_path, exported):
    with memory_at(tmp_path / "b") as memory:
        memory.import_(exported, user_id="ann")
    db = RecordDB(tmp_path / "b" / "memory.sqlite")
    try:
        lines = "".join(transfer.export_lines(db.iter_vectors("ann"), "ann", None, db.get_meta("embedder")))
    finally:
        db.close()
    again = json.loads(lines)
    assert {m["id"]: m["vector"] for m in again["memories"]} == {m["id"]: m["vector"] for m in exported["memories"]}


def session(day: int, *lines: str) -> list:
    at = f"2024-03-{day:02d}T10:00:00+00:00"
    return [
        (HumanMessage if i % 2 == 0 else AIMessage)(text, additional_kwargs={"caim_time": at})
        for i, text in enumerate(lines)
    ]


def test_remember_sessions_skips_those_done_and_redoes_the_one_stopped(tmp_path):
    sessions = [
        session(1, "I adopted a cat called Miso.", "Lovely!"),
        session(2, "I started learning Italian.", "Bravo!"),
        session(3, "My brother Luis moved to Porto.", "Nice."),
    ]
    with memory_at(tmp_path / "a") as memory:
        store = memory.services.store
        assert memory.remember_sessions(sessions[:2], user_id="ann") == 0
        remembered = []
        real = memory.remember

        def remember(msgs, **kw):
            remembered.append(kw["session_id"])
            return real(msgs, **kw)

        memory.remember = remember  # type: ignore[method-assign]
        # the second session was being post-thought when the process stopped
        store.set_meta(f"{INGESTING}ann", session_key("ann", sessions[1]))
        seen = []
        skipped = memory.remember_sessions(sessions, user_id="ann", progress=lambda d, t: seen.append((d, t)))
        assert skipped == 1
        assert remembered == [session_key("ann", s) for s in sessions[1:]]
        assert seen == [(2, 6), (4, 6), (6, 6)]
        assert store.get_meta(f"{INGESTING}ann") == ""
        thoughts = [r.thought for r in store.iter("ann")]
        assert len(thoughts) == len(set(thoughts))  # nothing stored twice


def test_the_progress_line_shows_the_rate_and_the_time_left():
    import io
    import time

    from rich.console import Console

    from caim.agent.surfaces.progress import ingest_progress

    screen = io.StringIO()
    with ingest_progress(Console(file=screen, force_terminal=True, width=120), "importing", 1000, "records") as shown:
        for done in range(100, 1001, 100):
            time.sleep(0.02)
            shown(done, None)
    text = screen.getvalue()
    assert "importing" in text and "1000/1000" in text and "records/s" in text and "left" in text
    assert "- records/s" not in text.splitlines()[-1]  # a rate once some were done


def test_a_streamed_export_is_read_once_when_it_is_small_and_again_when_it_is_large(tmp_path, exported, monkeypatch):
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    opened: list[int] = []
    real = transfer.read_export

    def counted(p, stream_from=transfer.STREAM_FROM):
        opened.append(1)
        return real(p, stream_from)

    monkeypatch.setattr(transfer, "read_export", counted)
    with memory_at(tmp_path / "b") as memory:
        assert memory.import_(counted(path, 0), user_id="ann").added == len(FACTS)
        assert len(opened) == 1  # its records kept from the check for the write
        monkeypatch.setattr(transfer, "KEEP", 2)  # more records than are kept: read again to be written
        opened.clear()
        assert memory.import_(counted(path, 0), user_id="bob").added == len(FACTS)
        assert len(opened) == 2
        assert sorted(r.thought for r in memory.services.store.iter("bob")) == sorted(FACTS)


def test_a_large_streamed_export_with_a_bad_last_record_stores_nothing(tmp_path, exported, monkeypatch):
    monkeypatch.setattr(transfer, "KEEP", 2)
    monkeypatch.setattr(transfer, "BATCH", 2)
    exported["memories"][-1]["tags"] = ["Not A Tag"]
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    with memory_at(tmp_path / "b") as memory:
        with pytest.raises(InputError, match=f"record {len(FACTS)} of the import"):
            memory.import_(read_export(path, stream_from=0), user_id="ann")
        assert memory.services.store.count("ann") == 0


def test_an_id_another_user_holds_is_refused_in_any_batch_before_anything_is_written(tmp_path, exported, monkeypatch):
    monkeypatch.setattr(transfer, "BATCH", 2)
    with memory_at(tmp_path / "b") as memory:
        memory.import_(exported, user_id="ann")
        fresh = json.loads(json.dumps(exported))
        for i, item in enumerate(fresh["memories"][:3]):  # the first batches hold ids of nobody's
            item["id"] = f"{i + 1:032x}"
        fresh["user_id"] = "bob"
        with pytest.raises(InputError, match=r"record 4 of the import .* no such memory"):
            memory.import_(fresh, user_id="bob")
        assert memory.services.store.count("bob") == 0
        assert sorted(r.id for r in memory.services.store.iter("ann")) == sorted(m["id"] for m in exported["memories"])


def test_an_import_reports_its_check_before_its_writes(tmp_path, exported, monkeypatch):
    monkeypatch.setattr(transfer, "BATCH", 2)
    seen: list[tuple[str, int, int | None]] = []
    with memory_at(tmp_path / "b") as memory:
        memory.import_(
            exported,
            user_id="ann",
            checking=lambda done, total: seen.append(("checked", done, total)),
            progress=lambda done, total: seen.append(("written", done, total)),
        )
    assert seen == [("checked", 2, 5), ("checked", 4, 5), ("written", 2, 5), ("written", 4, 5), ("written", 5, 5)]


def test_the_progress_line_names_its_stage_and_restarts_its_count():
    import io

    from rich.console import Console

    from caim.agent.surfaces.progress import ingest_progress

    screen = io.StringIO()
    with ingest_progress(Console(file=screen, force_terminal=True, width=120), "checking", 10, "records") as shown:
        shown(10, 10)
        shown(4, 10, what="importing")
    lines = [line for line in screen.getvalue().replace("\r", "\n").splitlines() if "records" in line]
    assert "checking" in lines[0] and "importing" in lines[-1] and "4/10" in lines[-1]
