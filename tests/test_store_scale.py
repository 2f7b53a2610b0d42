"""The store at scale: a write's work and a large memory's search do not grow with the records
stored, the statistics stay exact, and the background indexer lets writes go first.

Work is counted, never timed: SQLite's virtual-machine instructions (a progress handler) are the
measure of what a statement reads and writes. Speed itself is the benchmark's
(``benchmarks/store_scale.py``, ``docs/scale.md``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from caim.memory.records import MemoryRecord
from caim.memory.search import lexical
from caim.memory.search.engine import scoring
from caim.memory.search.lexical import LexicalIndex
from caim.memory.search.retrieval import Query, Retriever
from caim.memory.storage.db import INSERT_ROWS, RecordDB
from caim.memory.storage.sql import Cursor
from caim.memory.storage.store import MemoryStore, Writes
from tests.test_store import CountingEmbedder

T0 = datetime(2023, 5, 1, 12, tzinfo=UTC)
VEC = np.full(8, 1 / np.sqrt(8), dtype=np.float32)


def note(user: str, i: int, *, words: str = "", speaker: str = "", **kw) -> MemoryRecord:
    """Record ``i`` of a user: words of its own (the vocabulary grows with the records), an hour apart."""
    fields = {"session_id": f"s{i // 10}", "turn": i % 10, "speaker": speaker, **kw}
    thought = words or f"filler note word{i} other{i} about nothing much"
    return MemoryRecord(user_id=user, thought=thought, tags=["personal"], event_time=T0 + timedelta(hours=i), **fields)


@contextmanager
def vm_steps(db: RecordDB) -> Iterator[list[int]]:
    """Counts the SQLite virtual-machine instructions run on ``db``'s connection, in hundreds."""
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    raw = db.conn._raw
    raw.set_progress_handler(tick, 100)
    try:
        yield count
    finally:
        raw.set_progress_handler(None, 100)


#: Runs a test on SQLite and on the test PostgreSQL (skipped without the servers).
BOTH = pytest.mark.parametrize("backend", ["embedded", "server"], indirect=True)


@pytest.fixture
def record_db(backend, tmp_path):
    """A record database on the test's backend (PostgreSQL in a namespace of its own)."""
    url = backend.get("database_url")
    db = RecordDB(None if url else tmp_path / "memory.sqlite", url=url, namespace=backend.get("namespace", "caim"))
    yield db
    db.close()


def write_cost(db: RecordDB, start: int) -> int:
    """VM instructions (hundreds) to write 50 new records and rewrite 50 stored ones, changing their words."""
    fresh = [note("ann", i) for i in range(start, start + 50)]
    stored = db.by_rid("ann", db.in_range("ann", T0.timestamp(), (T0 + timedelta(hours=49)).timestamp(), 50))
    again = [r.model_copy(update={"thought": f"rewritten {r.thought} word{start}x"}) for r in stored.values()]
    with vm_steps(db) as steps:
        db.upsert(fresh, [VEC] * len(fresh))
        db.upsert(again, [VEC] * len(again))
    return steps[0]


def test_a_write_costs_the_same_in_a_store_ten_times_larger(tmp_path):
    db = RecordDB(tmp_path / "memory.sqlite")
    for start in range(0, 300, 100):
        db.upsert([note("ann", i) for i in range(start, start + 100)], [VEC] * 100)
    small = write_cost(db, 300)
    for start in range(350, 3350, 500):
        db.upsert([note("ann", i) for i in range(start, start + 500)], [VEC] * 500)
    large = write_cost(db, 3350)
    assert db.count("ann") == 3400
    assert large < 1.3 * small, (small, large)  # hundreds of instructions; 10x the records and vocabulary
    db.close()


@contextmanager
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The statements a transaction sends to the database (one per ``execute`` or ``executemany``
    call: a round trip to a database server)."""
    sent: list[str] = []
    execute, executemany = Cursor.execute, Cursor.executemany

    def counted_execute(self: Cursor, sql: str, params=()):
        sent.append(sql)
        return execute(self, sql, params)

    def counted_executemany(self: Cursor, sql: str, rows) -> None:
        sent.append(sql)
        executemany(self, sql, rows)

    with monkeypatch.context() as m:
        m.setattr(Cursor, "execute", counted_execute)
        m.setattr(Cursor, "executemany", counted_executemany)
        yield sent


@BOTH
def test_a_batch_is_written_rewritten_and_deleted_in_statements_per_batch_not_per_record(record_db, monkeypatch):
    db = record_db

    def sent(write) -> int:
        with statements(monkeypatch) as got:
            write()
        return len(got)

    small = [note("ann", i) for i in range(10)]
    large = [note("ann", i) for i in range(10, 210)]
    fresh = (sent(lambda: db.upsert(small, [VEC] * 10)), sent(lambda: db.upsert(large, [VEC] * 200)))
    again = [[r.model_copy(update={"thought": f"rewritten {r.thought} anew"}) for r in b] for b in (small, large)]
    rewritten = tuple(sent(lambda b=b: db.upsert(b, [VEC] * len(b))) for b in again)
    assert db.count("ann") == 210 and all(r.thought.startswith("rewritten") for r in db.iter_user("ann"))
    deleted = tuple(sent(lambda b=b: db.delete("ann", [r.id for r in b])) for b in (small, large))
    assert db.count("ann") == 0 and db.stats("ann")[0] == 0
    for kind, (ten, two_hundred) in {"fresh": fresh, "rewritten": rewritten, "deleted": deleted}.items():
        # 190 more records: a few more statements (an INSERT per 64 records, and the reads of the user's
        # usual language, which depend on what is stored), never some per record
        assert two_hundred <= ten + 2 * -(-200 // INSERT_ROWS), (kind, ten, two_hundred)


def test_listing_a_memory_reads_each_record_once(tmp_path):
    db = RecordDB(tmp_path / "memory.sqlite")

    def listing(n: int) -> int:
        with vm_steps(db) as steps:
            assert sum(1 for _ in db.iter_user("ann", page=50)) == n
        return steps[0]

    db.upsert([note("ann", i) for i in range(300)], [VEC] * 300)
    small = listing(300)
    for start in range(300, 3000, 500):
        db.upsert([note("ann", i) for i in range(start, min(start + 500, 3000))], [VEC] * min(500, 3000 - start))
    assert listing(3000) < 12 * small  # 10x the records, 10x the pages: each page starts where the last ended
    db.close()


@BOTH
def test_the_statistics_stay_exact_through_writes_rewrites_and_deletes(record_db):
    db = record_db
    recs = [note("ann", i, words=f"piano lesson {i % 3} rome") for i in range(30)]
    db.upsert(recs, [VEC] * 30)
    db.upsert([recs[0].model_copy(update={"thought": "violin only"})], [VEC])  # rewritten: new words
    db.delete("ann", [r.id for r in recs[1:5]])
    twice = note("ann", 99, words="aardvark")
    db.upsert([twice, twice.model_copy(update={"thought": "zebra"})], [VEC, VEC])  # the last one counts
    counted = dict(db.conn.read("SELECT term, count(*) FROM postings WHERE user_id = 'ann' GROUP BY term"))
    assert dict(db.conn.read("SELECT term, df FROM term_df WHERE user_id = 'ann'")) == counted
    assert counted["violin"] == 1 and counted["piano"] == 25 and "aardvark" not in counted and counted["zebra"] == 1
    n, avgdl, _ = db.stats("ann")
    lengths = db.conn.read("SELECT dl FROM records WHERE user_id = 'ann'")
    assert n == len(lengths) == 27 and avgdl == pytest.approx(sum(d for (d,) in lengths) / n)
    assert [r.thought for r in db.get("ann", [twice.id])] == ["zebra"]


@BOTH
def test_speakers_names_samples_and_neighbours_are_read_through_indexes(record_db):
    db = record_db
    recs = [note("ann", i, speaker=["Mel", "", "Caroline", "Mel"][i % 4]) for i in range(40)]
    recs += [note("ann", 40, words="Mel met Jon in Paris", speaker="Mel"), note("ann", 41, words="I saw Jon again")]
    db.upsert(recs, [VEC] * len(recs))
    db.upsert([note("bob", 0, speaker="Zed")], [VEC])
    assert db.speakers("ann") == ["Caroline", "Mel"] and db.speakers("bob") == ["Zed"] and db.speakers("x") == []
    jon = db.rids_of("ann", [recs[41].id, recs[40].id])
    assert db.with_names("ann", ["jon", "JON"], 5) == sorted(jon, reverse=True)  # most recently written first
    assert db.with_names("ann", ["Jon"], 1) == [max(jon)]
    sample = db.sample_vectors("ann", 8)
    assert sample.shape == (8, 8)  # one record per eighth of the time line
    assert db.sample_vectors("x", 8).shape == (0, 0)
    texts = db.sample_texts("ann", 8)
    assert len(texts) == 8 and set(texts) <= {r.thought for r in recs} and db.sample_texts("x", 8) == []
    [r12] = db.rids_of("ann", [recs[12].id])
    assert sorted(db.neighbours("ann", [("s1", 2)])) == sorted(db.rids_of("ann", [recs[11].id, recs[13].id]))
    assert r12 not in db.neighbours("ann", [("s1", 2)])


def test_speakers_are_one_seek_each_however_many_records(tmp_path):
    db = RecordDB(tmp_path / "memory.sqlite")
    db.upsert([note("ann", i, speaker="Mel" if i % 2 else "Jo") for i in range(100)], [VEC] * 100)
    with vm_steps(db) as few:
        db.speakers("ann")
    db.upsert([note("ann", i, speaker="Mel" if i % 2 else "Jo") for i in range(100, 3000)], [VEC] * 2900)
    with vm_steps(db) as many:
        assert db.speakers("ann") == ["Jo", "Mel"]
    assert many[0] <= few[0] + 1
    db.close()


def test_the_turns_around_records_are_read_by_their_row_ids_however_many_records(tmp_path):
    db = RecordDB(tmp_path / "memory.sqlite")
    recs = [note("ann", i) for i in range(200)] + [note("ann", 200, session_id="")]  # the last: no session
    bob = note("bob", 5)
    db.upsert([*recs, bob], [VEC] * 202)

    def around(picked: list[int]) -> tuple[list[int], int]:
        rids = db.rids_of("ann", [recs[i].id for i in picked])
        cols = db.columns("ann", rids)
        expected = sorted(db.neighbours("ann", zip(cols["session"], cols["turn"].tolist(), strict=True)))
        with vm_steps(db) as steps:
            got = sorted(db.neighbours_of("ann", rids))
        assert got == expected
        return got, steps[0]

    picked = [0, 9, 10, 15, 57, 199, 200]  # a session's first and last turns, one with no session
    got, few = around(picked)
    assert len(got) == 8 and not set(db.rids_of("bob", [bob.id])) & set(got)
    db.upsert([note("ann", i) for i in range(201, 3001)], [VEC] * 2800)
    _, many = around(picked)
    assert many <= few + 1  # one seek per record and per neighbour, never a walk over the user's index
    db.close()


@BOTH
def test_a_record_written_again_while_its_vector_is_indexed_stays_pending(record_db):
    db = record_db
    r = note("ann", 1)
    db.upsert([r], [VEC])
    sent = db.pending_vectors()
    db.upsert([r.model_copy(update={"thought": "changed meanwhile"})], [-VEC])  # rewritten: a new vector
    db.mark_indexed(sent)  # the indexer marks what it sent (SQLite may give the new row the same row id)
    [(_, (rid_id, _, _, _, vec))] = db.pending_vectors()
    assert rid_id == r.id and np.allclose(vec, -VEC, atol=1e-3) and db.pending_count(10) == 1
    db.mark_indexed(db.pending_vectors())
    assert db.pending_vectors() == [] and db.pending_count(10) == 0


def test_a_large_query_term_is_read_newest_first_within_the_budget(monkeypatch):
    class Postings:
        def __init__(self):
            self.reads: list[tuple[str, int | None]] = []
            self.lists = {"rare": [(1, 1, 4), (7, 2, 4)], "mid": [(r, 1, 4) for r in range(8, 18)], "common": []}

        def postings(self, user_id, term, newest=None):
            self.reads.append((term, newest))
            rows = self.lists[term]
            return rows if newest is None else sorted(rows, reverse=True)[:newest]

        def document_frequency(self, user_id, terms):
            return {"rare": 2, "mid": 10, "common": 900} | ({"unknown": 0} if "unknown" in terms else {})

    monkeypatch.setattr(lexical, "MAX_POSTINGS", 6)
    store = Postings()
    index = LexicalIndex(store)
    got = index.scores("ann", ["common", "mid", "rare", "unknown"], 1000, 4.0, prune=True)
    assert store.reads == [("rare", None), ("mid", 4)]  # rarest in full, the next newest first, no more
    assert got.rids.tolist() == [1, 7, 14, 15, 16, 17]
    # a record read scores as when every posting is read: idf from the term's document frequency
    full = index.scores("ann", ["rare", "mid"], 1000, 4.0, prune=False)
    assert got.at(np.array([7, 14])).tolist() == pytest.approx(full.at(np.array([7, 14])).tolist())


def test_a_search_in_a_large_memory_reads_as_much_when_the_memory_is_ten_times_larger(tmp_path):
    store = MemoryStore(tmp_path, CountingEmbedder())
    speakers = ["Mel", "Caroline"]
    fillers = [note("ann", i, speaker=speakers[i % 2]) for i in range(500)]
    target = note("ann", 500, words="my sister Clara plays the cello", speaker="Mel")
    store.add([*fillers, target])

    def search_cost() -> int:
        store.flush()
        retriever = Retriever(store, full_scan=100, lexical_k=20, dense_k=10)  # caches cold: first search
        with vm_steps(store.db) as steps:
            hits = retriever.search("ann", Query("What does Clara play?", T0 + timedelta(days=400)), 3)
        assert hits[0].record.id == target.id
        return steps[0]

    small = search_cost()
    for start in range(1000, 5500, 500):
        store.add([note("ann", i, speaker=speakers[i % 2]) for i in range(start, start + 500)])
    large = search_cost()
    assert store.count("ann") == 5001
    assert large < 1.3 * small, (small, large)
    store.close()


def test_records_not_yet_in_the_vector_index_join_by_their_vector_the_nearest_only(tmp_path):
    store = MemoryStore(tmp_path, CountingEmbedder())
    fillers = [note("ann", i) for i in range(300)]
    store.db.upsert(fillers, store.embed([r.document() for r in fillers]))
    store.repair()  # indexed; no background indexer runs in this test
    late = [note("ann", 400 + i, words=f"late{i} thing{i} stuff{i}", session_id=f"late{i}") for i in range(40)]
    store.db.upsert(late, store.embed([r.document() for r in late]))  # written, not yet in the vector index
    assert store.unindexed() == 40
    retriever = Retriever(store, full_scan=100, lexical_k=5, dense_k=5)
    query = Query("unrelated words", T0, vector=store.embed([late[7].document()])[0])  # no lexical match
    s = scoring(retriever.prepare("ann"), query)
    assert s is not None
    joined = set(s.columns.rid.tolist()) & set(store.db.rids_of("ann", [r.id for r in late]))
    assert store.db.rids_of("ann", [late[7].id])[0] in joined and len(joined) <= 5  # the nearest, not all 40
    assert late[7].id in {h.record.id for h in retriever.search("ann", query, 5)}
    store.close()


def test_a_nearest_record_next_to_a_lexical_hit_brings_its_own_neighbours(tmp_path):
    store = MemoryStore(tmp_path, CountingEmbedder())
    recs = [note("ann", i) for i in range(100)]
    recs[20] = note("ann", 20, words="my sister plays the cello")  # session s2, turns 0, 1, 2
    recs[21] = note("ann", 21, words="xylophone quasar meteor banjo")
    store.add(recs)
    store.flush()
    retriever = Retriever(store, full_scan=10, lexical_k=1, dense_k=1)
    # the words find turn 0 (read before the query's vector is there), the vector turn 1: a neighbour
    # of the first, which still brings turn 2 as when every candidate was read at once
    query = Query("cello", T0, vector=store.embed([recs[21].document()])[0])
    s = scoring(retriever.prepare("ann"), query)
    assert s is not None
    got = set(s.columns.rid.tolist())
    assert got == set(store.db.rids_of("ann", [recs[i].id for i in (20, 21, 22)]))
    assert s.columns.rid.tolist() == sorted(got)
    store.close()


def test_a_large_memory_reads_its_cue_candidates_while_the_query_embeds(tmp_path):
    class Watching(CountingEmbedder):
        """Embeds a query only once the candidates' rows were read (or after 5 s), noting which."""

        def __init__(self):
            super().__init__()
            self.read, self.armed, self.read_first = threading.Event(), False, None

        def embed(self, texts):
            if self.armed:
                self.read_first = self.read.wait(5)
            return super().embed(texts)

    embedder = Watching()
    store = MemoryStore(tmp_path, embedder)
    store.add([note("ann", i) for i in range(50)] + [note("ann", 50, words="my sister plays the cello")])
    store.flush()
    columns = store.db.columns

    def reading(*args, **kwargs):
        embedder.read.set()
        return columns(*args, **kwargs)

    store.db.columns = reading  # type: ignore[method-assign]
    embedder.armed = True
    hits = Retriever(store, full_scan=10, lexical_k=5, dense_k=5).search("ann", Query("Who plays the cello?", T0), 3)
    assert embedder.read_first is True and hits[0].record.thought == "my sister plays the cello"
    store.close()


def test_the_background_indexer_waits_for_a_write_in_flight():
    writes = Writes()
    holding, release, paused = threading.Event(), threading.Event(), threading.Event()

    def write() -> None:
        with writes.running():
            holding.set()
            release.wait(10)

    def indexer() -> None:
        writes.pause(quiet=0.01, most=10)
        paused.set()

    writer = threading.Thread(target=write)
    writer.start()
    holding.wait(10)
    waiting = threading.Thread(target=indexer)
    waiting.start()
    assert not paused.wait(0.3)  # a write is in flight: the indexer does not start
    release.set()
    assert paused.wait(10)  # once it ended (and stayed quiet), the indexer goes on
    writer.join()
    waiting.join()
    writes_forever = Writes()
    with writes_forever.running():
        writes_forever.pause(quiet=0.01, most=0.05)  # a write that never ends delays it, never stops it
