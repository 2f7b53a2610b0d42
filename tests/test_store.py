"""The memory store: persistence, no caps, per-user isolation, crash repair, merges, ranked retrieval."""

import zlib
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from caim.core.embeddings import Embedder, MiniLMEmbedder
from caim.core.errors import StorageError
from caim.memory.capture import raw_record
from caim.memory.merge import apply_merges, validate_groups
from caim.memory.records import CONTEXT_CHARS, MemoryRecord, SourceTurn
from caim.memory.search.retrieval import DENSE_ONLY, Query, Retriever
from caim.memory.storage.store import MemoryStore
from caim.memory.text import prior

T0 = datetime(2023, 5, 1, 12, tzinfo=UTC)


@pytest.fixture
def open_store(settings):
    """Opens stores on the test's backend (embedded in the data dir, or the servers)."""
    opened = []

    def make(embedder=None, *, check_embedder=True):
        store = MemoryStore(
            settings.data_dir,
            embedder or MiniLMEmbedder.shared(),
            chroma_url=settings.chroma_url,
            database_url=settings.database_url,
            namespace=settings.namespace,
            check_embedder=check_embedder,
        )
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


def rec(user, thought, tags, days=0, **kw):
    return MemoryRecord(user_id=user, thought=thought, tags=tags, event_time=T0 + timedelta(days=days), **kw)


class CountingEmbedder(Embedder):
    """Deterministic cheap vectors (hash of words), counting the texts it embeds."""

    name = "counting-test"

    def __init__(self):
        self.count = 0

    def embed(self, texts):
        self.count += len(texts)
        out = []
        for t in texts:
            v = np.zeros(32, dtype=np.float32)
            for w in t.lower().split():
                v[zlib.crc32(w.encode()) % 32] += 1
            out.append((v / max(np.linalg.norm(v), 1e-9)).tolist())
        return out


def test_records_persist_with_sources(open_store):
    store = open_store()
    r = rec(
        "ann",
        "favourite food is pizza",
        ["food", "favorite"],
        sources=[SourceTurn(role="user", text="I love pizza", time=T0)],
    )
    store.add([r])
    store.close()
    again = open_store()
    [got] = again.list("ann")
    assert got.id == r.id and got.tags == ["food", "favorite"] and got.event_time == T0
    assert got.sources[0].text == "I love pizza"
    assert [h.record.id for h in Retriever(again).search("ann", Query("pizza", T0), 3)] == [r.id]


def test_writing_the_same_id_again_replaces_it_and_unchanged_text_is_not_re_embedded(open_store):
    emb = CountingEmbedder()
    store = open_store(emb)
    r = rec("ann", "likes jazz", ["music"])
    store.add([r])
    store.add([r.model_copy(update={"links": ["x"]})])  # metadata only
    assert emb.count == 1 and store.count("ann") == 1
    store.add([r.model_copy(update={"thought": "loves jazz"})])
    assert emb.count == 2 and [x.thought for x in store.list("ann")] == ["loves jazz"]


def test_list_export_and_count_have_no_cap(open_store):
    store = open_store(CountingEmbedder())
    store.add([rec("ann", f"fact number {i}", ["personal"], days=i % 50) for i in range(2600)])
    listed = list(store.iter("ann"))
    assert len(listed) == store.count("ann") == 2600
    assert [r.event_time for r in listed] == sorted(r.event_time for r in listed)  # oldest first
    assert store.first("ann").event_time == T0
    assert store.forget_user("ann") == 2600 and store.count("ann") == 0


def test_users_never_see_each_others_records(open_store):
    store = open_store()
    a = rec("ann", "ann likes jazz", ["music"])
    b = rec("bob", "bob likes jazz", ["music"])
    store.add([a, b])
    hits = Retriever(store).search("ann", Query("jazz", T0), 5)
    assert [h.record.user_id for h in hits] == ["ann"]
    assert [r.user_id for r, _ in store.similar("ann", "jazz", 5)] == ["ann"]
    assert store.get("ann", b.id) is None
    assert store.delete("ann", [b.id]) == 0 and store.get("bob", b.id) is not None
    assert store.forget_user("ann") == 1 and store.count("bob") == 1


def test_pages_counts_and_a_users_denied_terms(open_store):
    store = open_store(CountingEmbedder())
    store.add([rec("ann", f"fact {i}", ["running"] if i % 3 else ["tea", "coffee"], days=i) for i in range(7)])
    store.add([rec("bob", "bob's fact", ["running"])])
    newest = store.page("ann", 0, 2)
    assert [r.thought for r in newest] == ["fact 6", "fact 5"]
    assert [r.thought for r in store.page("ann", 2, 2, ["tea"])] == ["fact 0"]  # tea: facts 6, 3, 0
    assert store.count_tagged("ann", ["tea", "coffee"]) == 3 and store.count_tagged("ann", []) == 0
    assert sorted(store.event_times("ann")) == [(T0 + timedelta(days=i)).timestamp() for i in range(7)]
    assert len(store.tag_rows("ann")) == 4 + 3 * 2 and {t for _, t in store.tag_rows("bob")} == {"running"}
    before = store.version("ann")
    store.delete("ann", [newest[0].id])
    assert store.version("ann") != before and store.version("bob") == store.version("bob")
    assert store.deny("ann", "health") and not store.deny("ann", "health") and store.deny("ann", "music")
    assert store.denied("ann") == ["health", "music"] and store.denied("bob") == []
    assert store.allow("ann", "health") and not store.allow("ann", "health") and not store.allow("bob", "music")
    store.close()
    assert open_store(CountingEmbedder()).denied("ann") == ["music"]  # kept in the database


def test_a_crash_between_database_and_vector_index_is_repaired_at_start(open_store):
    store = open_store()
    gone = rec("ann", "likes tea", ["food"])
    store.add([gone])
    store.flush()
    r = rec("ann", "owns a cat called Miso", ["pets"])
    vec = store.embed([r.document()])
    store.db.upsert([r], vec)  # the database has it; the process dies before the indexer runs
    store.db.delete("ann", [gone.id])  # deleted in the database; the vector delete never happened
    assert store.vectors.has("ann", [r.id, gone.id]) == {gone.id}
    again = open_store()  # "the next start" (the first one never closed)
    assert again.vectors.has("ann", [r.id, gone.id]) == {r.id}
    assert again.db.pending_vectors() == [] and again.db.pending_deletes() == []
    assert [i for i, _ in again.vectors.nearest("ann", vec[0], 5)] == [r.id]


def test_switching_embedder_without_reembedding_is_a_clear_error_and_reembed_switches(open_store):
    open_store().add([rec("ann", "likes jazz", ["music"])])
    with pytest.raises(StorageError, match="caim memories reembed"):
        open_store(CountingEmbedder())
    emb = CountingEmbedder()
    store = open_store(emb, check_embedder=False)
    seen = []
    assert store.reembed(lambda done, total: seen.append((done, total))) == 1
    assert emb.count == 1 and seen[-1] == (1, 1)
    open_store(CountingEmbedder())  # the store now belongs to the new model


def test_merge_removes_only_group_members(open_store):
    store = open_store()
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
    assert merged.history[-1].change == "merged"


# ---- ranked retrieval ---------------------------------------------------------------------------------
def conversation(store):
    turns = [
        ("Ann", "Guess what, I finally adopted a kitten last week!"),
        ("Bob", "That's wonderful! What did you name her?"),
        ("Ann", "Miso, after the soup."),
        ("Bob", "I went hiking in the Alps yesterday."),
        ("Ann", "How was the weather up there?"),
    ]
    recs = [
        raw_record(
            user_id="u",
            session_id="s1",
            turn=i,
            text=t,
            when=T0 + timedelta(minutes=i),
            tags=["personal"],
            speaker=who,
            turn_id=f"D1:{i}",
        )
        for i, (who, t) in enumerate(turns)
    ]
    store.add(recs)
    return recs


def test_ranking_finds_the_answer_turn_through_its_neighbour_and_shows_the_question(open_store):
    store = open_store()
    recs = conversation(store)
    hits = Retriever(store).search("u", Query("What is the name of Ann's kitten?", T0 + timedelta(days=1)), 3)
    ids = [h.record.id for h in hits]
    assert recs[2].id in ids[:2]  # "Miso, after the soup." shares no word with the question
    miso = next(h for h in hits if h.record.id == recs[2].id)
    assert miso.context.startswith("Bob: That's wonderful! What did you name her?")
    assert miso.scores["neighbour"] > 0 and "total" in miso.brief()["scores"]


def test_named_speaker_and_plain_dense_weights(open_store):
    store = open_store()
    recs = conversation(store)
    hits = Retriever(store).search("u", Query("Where did Bob go hiking?", T0 + timedelta(days=1)), 2)
    assert hits[0].record.id == recs[3].id and hits[0].scores["speaker"] > 0
    plain = Retriever(store).search("u", Query("Where did Bob go hiking?", T0), 5, DENSE_ONLY)
    assert all(set(h.scores) == {"dense"} for h in plain)


def test_superseded_records_only_answer_questions_about_the_past(open_store):
    store = open_store()
    old = rec("ann", "lives in Paris", ["location"], valid_until=T0 + timedelta(days=30), superseded_by="x")
    new = rec("ann", "lives in Berlin", ["location"], days=30, id="x", supersedes=[old.id])
    store.add([old, new])
    r = Retriever(store)
    now = T0 + timedelta(days=60)
    assert [h.record.id for h in r.search("ann", Query("Where do I live?", now), 5)] == [new.id]
    past = r.search("ann", Query("Where did I live before Berlin?", now, past=True), 5)
    assert {h.record.id for h in past} == {old.id, new.id}


def test_large_users_are_ranked_from_index_candidates(open_store):
    store = open_store(CountingEmbedder())
    store.add([rec("ann", f"filler note {i} about nothing much", ["personal"], days=i % 30) for i in range(300)])
    target = rec("ann", "my sister Clara plays the cello", ["family"], days=5)
    store.add([target])
    small = Retriever(store, full_scan=50, lexical_k=20, dense_k=10)
    hits = small.search("ann", Query("What does Clara play?", T0), 3)
    assert hits[0].record.id == target.id


def test_the_lexical_index_holds_both_sides_of_a_source_turn_and_reindex_rebuilds_it(open_store, monkeypatch):
    """ "Which book did you recommend?" asks for the assistant's words; a small model's thought may
    miss them. Both sides of the source turns are in the lexical index; ``reindex`` rewrites it."""
    store = open_store(CountingEmbedder())
    r = rec(
        "ann",
        "the user asked for a book",
        ["books"],
        sources=[
            SourceTurn(role="user", text="Can you recommend a novel?", time=T0),
            SourceTurn(role="assistant", text="Try Dune by Frank Herbert.", time=T0),
        ],
    )
    store.add([r])
    store.add([rec("ann", "likes pizza", ["food"], days=1)])
    store.flush()
    lexical = {h.record.id for h in Retriever(store).search("ann", Query("Dune", T0), 2) if h.scores.get("bm25", 0) > 0}
    assert lexical == {r.id}  # matched by the assistant's words alone

    thought_only = MemoryRecord.lexical_text
    monkeypatch.setattr(MemoryRecord, "lexical_text", lambda self: self.thought)
    store.reindex()
    hits = Retriever(store).search("ann", Query("Dune", T0), 2)
    assert not any(h.scores.get("bm25", 0) > 0 for h in hits)  # rebuilt from the (patched) text
    monkeypatch.setattr(MemoryRecord, "lexical_text", thought_only)
    assert store.reindex() == 2
    hits = Retriever(store).search("ann", Query("Dune", T0), 2)
    assert {h.record.id for h in hits if h.scores.get("bm25", 0) > 0} == {r.id}


def test_a_record_embeds_the_source_turns_its_thought_does_not_cover():
    ask = "Can you recommend a novel?"
    raw = raw_record(user_id="ann", session_id="s", turn=1, text=ask, when=T0, tags=["books"], reply="Try Dune.")
    assert "Try Dune." in raw.document() and "Can you recommend a novel?" in raw.document()
    covering = rec("ann", "asked me to recommend a novel; I said try Dune", ["books"], sources=raw.sources)
    assert covering.uncovered() == [] and ask not in covering.document()
    concise = rec("ann", "asked for a novel recommendation", ["books"], sources=raw.sources)
    assert concise.uncovered() == ["Try Dune."] and "Try Dune." in concise.document()
    stray = rec("ann", "Mel", ["books"], sources=raw.sources)  # a small model's thought that misses the turn
    assert stray.uncovered() == [ask, "Try Dune."]
    context = raw.sources[0].model_copy(update={"context": True})
    assert "Can you" not in rec("ann", "Mel", ["books"], sources=[context]).document()  # context turns are not its own


def test_a_verbatim_record_finds_its_turn_covered_without_tokenizing_it(monkeypatch):
    import caim.memory.records as records

    read: list[str] = []
    tokenize = records.tokenize
    monkeypatch.setattr(records, "tokenize", lambda text, *a, **kw: read.append(text) or tokenize(text, *a, **kw))
    ask = "Can you recommend a novel?"
    verbatim = raw_record(user_id="ann", session_id="s", turn=1, text=ask, when=T0, tags=["books"])
    assert verbatim.uncovered() == [] and read == []  # its thought holds its turn word for word
    answered = raw_record(user_id="ann", session_id="s", turn=1, text=ask, when=T0, tags=["books"], reply="Try Dune.")
    assert answered.uncovered() == ["Try Dune."] and read == ["Try Dune.", answered.thought]  # the reply is read


def test_a_record_is_embedded_with_the_end_of_the_turn_it_answered_which_the_lexical_index_leaves_out(open_store):
    asked = "Earlier, " + "x" * CONTEXT_CHARS + " How long have you had your turtles?"
    answer = raw_record(user_id="ann", session_id="s", turn=2, text="I've had them for 3 years now.", when=T0,
                        tags=["pets"], asked=asked, speaker="Nate")  # fmt: skip
    assert answer.embedded_text() == f"Nate: I've had them for 3 years now. {asked[-CONTEXT_CHARS:]}"
    assert "turtles" not in answer.lexical_text()
    assert "Earlier" not in answer.embedded_text()  # only the context's end
    store = open_store()
    bare = answer.model_copy(update={"id": "bare", "sources": answer.sources[1:]})
    store.add([answer, bare, rec("ann", "Nate: I've had my bike for 2 years now.", ["sports"])])
    hits = Retriever(store).search("ann", Query("How long has Nate had his turtles?", T0), k=3, weights=DENSE_ONLY)
    assert hits[0].record.id == answer.id  # what the short answer is about is in its vector


def test_a_thought_that_misses_its_turn_keeps_the_turns_prior_and_time_flag(open_store):
    store = open_store(CountingEmbedder())
    turn = SourceTurn(role="user", text="I ran a charity race for mental health last Saturday.", time=T0)
    stray = rec("ann", "Mel", ["sports"], sources=[turn])
    covering = rec("ann", "ran a charity race for mental health last Saturday", ["sports"], days=1, sources=[turn])
    plain = rec("ann", "Mel", ["sports"], days=2)
    store.add([stray, covering, plain])
    cols = store.db.columns("ann")
    recs = store.db.by_rid("ann", [int(x) for x in cols["rid"]])
    rows = {recs[int(x)].id: i for i, x in enumerate(cols["rid"])}
    assert cols["timex"][rows[stray.id]] and cols["timex"][rows[covering.id]] and not cols["timex"][rows[plain.id]]
    assert cols["prior"][rows[stray.id]] == prior(turn.text, None) > cols["prior"][rows[plain.id]]  # "I ran", a name


# ---- files in the data dir: private, and damage reported in one line ------------------------------


def _locker_records(user="ann", n=3):
    return [
        raw_record(user_id=user, session_id="s", turn=i, text=f"My locker number is {i}07.", when=T0, tags=["work"])
        for i in range(n)
    ]


def test_data_files_are_created_private_whatever_the_umask(tmp_path):
    import os
    import stat

    from caim.ontology import OntologyStore, Proposal

    def mode(p):
        return stat.S_IMODE(p.stat().st_mode)

    old = os.umask(0o022)
    try:
        data = tmp_path / "data"
        store = MemoryStore(data, MiniLMEmbedder.shared())
        store.add(_locker_records())
        store.flush()
        # open in WAL mode: the database and its log and shared-memory files exist now
        files = [data / "memory.sqlite", data / "memory.sqlite-wal", data / "memory.sqlite-shm"]
        assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
        assert mode(data) == 0o700 and mode(data / "chroma") == 0o700
        store.close()
        onto = OntologyStore(data)
        onto.extend([Proposal("personal/hobbies", "knitting")])
        [version] = list((data / "ontology").glob("v*.json"))
        assert mode(data / "ontology") == 0o700 and mode(version) == 0o600
    finally:
        os.umask(old)


def test_a_damaged_record_database_is_one_line_naming_the_file_and_the_fix(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "memory.sqlite").write_bytes(b"this is not a database" * 300)
    with pytest.raises(StorageError) as err:
        MemoryStore(data, MiniLMEmbedder.shared())
    msg = str(err.value)
    assert msg.startswith(f"memory.sqlite in {data} is damaged") and "restore it from a backup" in msg
    assert "\n" not in msg
    assert (data / "memory.sqlite").read_bytes() == b"this is not a database" * 300  # left as it was


def test_a_damaged_vector_directory_is_one_line_and_replaced_when_asked(tmp_path):
    data = tmp_path / "data"
    store = MemoryStore(data, MiniLMEmbedder.shared())
    store.add(_locker_records())
    store.close()
    (data / "chroma" / "chroma.sqlite3").write_bytes(b"garbage" * 5000)
    with pytest.raises(StorageError) as err:
        MemoryStore(data, MiniLMEmbedder.shared())
    assert str(err.value).startswith(f"chroma in {data} is damaged") and "caim memories reindex" in str(err.value)
    assert "\n" not in str(err.value)
    store = MemoryStore(data, MiniLMEmbedder.shared(), replace_damaged_index=True)
    try:
        assert store.in_step() == (3, 0)  # a new, empty index
        assert store.reindex() == 3
        assert store.in_step() == (3, 3)
        assert {r.thought for r, _ in store.similar("ann", "locker number", 3)} == {
            f"My locker number is {i}07." for i in range(3)
        }
    finally:
        store.close()


def test_in_step_counts_records_against_vectors_and_history_reads_the_database(tmp_path):
    store = MemoryStore(tmp_path / "data", MiniLMEmbedder.shared())
    try:
        recs = _locker_records()
        store.add(recs)
        assert store.in_step() == (3, 3)
        store.vectors.delete([(recs[0].id, "ann")])  # the index lost one
        assert store.in_step() == (3, 2)
        assert store.db.ids_starting("ann", recs[1].id[:6]) == [recs[1].id]
        assert store.db.ids_starting("bob", recs[1].id[:6]) == []
        assert store.history("ann", recs[1].id) == store.db.history("ann", recs[1].id)
    finally:
        store.close()


class RecordingEmbedder(CountingEmbedder):
    """CountingEmbedder that keeps every text it embeds."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += texts
        return super().embed(texts)


def test_a_record_is_embedded_without_its_date_which_the_lexical_index_keeps(open_store):
    emb = RecordingEmbedder()
    store = open_store(emb, check_embedder=False)
    r = rec("ann", "painted a sunset over the lake", ["hobbies"], speaker="Caroline")
    store.add([r])
    assert emb.texts == ["Caroline: painted a sunset over the lake"] == [r.embedded_text()]
    assert r.day() not in r.embedded_text() and r.lexical_text().startswith(f"{r.day()} Caroline:")
    dated = Retriever(store).search("ann", Query(f"what happened on {r.day()}?", T0), k=1)
    assert [h.record.id for h in dated] == [r.id]  # the date still matches, lexically


def test_a_question_naming_a_speaker_is_embedded_as_the_speaker_would_ask_it(open_store):
    emb = RecordingEmbedder()
    store = open_store(emb, check_embedder=False)
    store.add([rec("ann", "painted a sunset", ["hobbies"], speaker="Caroline")])
    store.add([rec("ann", "my kids love the museum", ["family"], speaker="Melanie")])
    given = np.asarray(emb.embed(["What did Caroline paint?"])[0])
    asked = {
        "What did Caroline paint?": "What did I paint?",
        "What do Melanie's kids like?": "What do my kids like?",
        "What have Caroline and Melanie both painted?": "What have we both painted?",
        "Caroline上周画了什么？": "我上周画了什么？",
        "Was hat Caroline letzte Woche gemalt?": "Was hat letzte Woche gemalt?",  # the verb would have to agree
        "What did Ben paint?": None,  # no known speaker named: the vector the query brought is used
    }
    for question, embedded in asked.items():
        emb.texts.clear()
        Retriever(store).search("ann", Query(question, T0, vector=given), k=1)
        assert emb.texts == ([embedded] if embedded else []), question


def test_a_role_label_names_a_speaker_only_with_the(open_store):
    emb = RecordingEmbedder()
    store = open_store(emb, check_embedder=False)
    mine = rec("ann", "my assistant at work is Priya", ["work"], speaker="user")
    store.add([mine, rec("ann", "I can plan your trips and keep notes", ["travel"], speaker="assistant", days=1)])
    given = np.asarray(emb.embed(["Who is my assistant at work?"])[0])
    emb.texts.clear()
    hits = Retriever(store).search("ann", Query("Who is my assistant at work?", T0, vector=given), k=1)
    assert emb.texts == [] and [h.record.id for h in hits] == [mine.id]  # "my assistant": no speaker
    Retriever(store).search("ann", Query("What did the assistant recommend?", T0, vector=given), k=1)
    assert emb.texts == ["What did I recommend?"]


def test_vector_samples_are_kept_for_the_users_searched_last(open_store, monkeypatch):
    import caim.memory.search.retrieval as retrieval

    store = open_store(CountingEmbedder(), check_embedder=False)
    for user in ("a", "b"):
        store.add([rec(user, f"note {i} of {user}", ["work"], days=i) for i in range(4)])
    store.add([rec("c", f"Wir waren am Tag {i} im Kino", ["work"], days=i) for i in range(4)])
    drawn, texts, stats = [], [], []
    draw, read, count = store.db.sample_vectors, store.db.sample_texts, store.db.stats
    monkeypatch.setattr(store.db, "sample_vectors", lambda user, k: drawn.append(user) or draw(user, k))
    monkeypatch.setattr(store.db, "sample_texts", lambda user, k: texts.append(user) or read(user, k))
    monkeypatch.setattr(store.db, "stats", lambda user: stats.append(user) or count(user))
    monkeypatch.setattr(retrieval, "SAMPLE_USERS", 2)
    r = Retriever(store, sample=2)
    assert r.usual_language("c") == "de" and stats == ["c"] and drawn == []  # the language alone: no vectors
    for user in ("a", "b", "a", "c", "a", "b"):
        assert r.dense_sample(user, 4).shape[0] <= 2
        assert r.usual_language(user) == ("de" if user == "c" else "en")
    assert texts == ["c", "a", "b", "c", "b"] and stats == ["c"]  # a kept sample answers with no read
    assert drawn == ["a", "b", "c", "b"]  # "a" kept while searched; "b" dropped as the least recent
