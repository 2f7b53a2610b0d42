"""Storage reads no language: the words of a record reach its indexes through the indexer the store is given."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from caim.memory.records import MemoryRecord
from caim.memory.search.retrieval import Query, Retriever
from caim.memory.storage.indexer import Indexed
from caim.memory.storage.store import MemoryStore
from tests.test_store import CountingEmbedder

T0 = datetime(2023, 5, 1, 12, tzinfo=UTC)


class Backwards:
    """An indexer that reads every word backwards and names each capitalised word backwards."""

    def __init__(self):
        self.languages: list[str] = []

    def usual_language(self, texts: Sequence[str]) -> str:
        return "xx"

    def index(self, record: MemoryRecord, language: str) -> Indexed:
        self.languages.append(language)
        words = [w[::-1].lower() for w in record.thought.split()]
        return Indexed(words, 0.5, False, [w[::-1] for w in record.thought.split() if w[:1].isupper()])


def _lexical(store: MemoryStore, text: str) -> set[str]:
    """The ids of the records the lexical signal matches for ``text`` (no relevance floor)."""
    hits = Retriever(store).search("ann", Query(text, T0, min_relevance=0.0), 2)
    return {h.record.id for h in hits if h.scores.get("bm25", 0) > 0}


def test_a_store_indexes_records_with_the_indexer_it_is_given():
    indexer = Backwards()
    store = MemoryStore(None, CountingEmbedder(), indexer=indexer)
    try:
        r = MemoryRecord(user_id="ann", thought="my cat Miso sleeps", tags=["pets"], event_time=T0)
        store.add([r, MemoryRecord(user_id="ann", thought="likes pizza", tags=["food"], event_time=T0)])
        store.flush()
        assert indexer.languages == ["xx", "xx"]  # each record read in the user's usual language, the indexer's
        assert [x.id for x in store.records_named("ann", "osim", 5)] == [r.id] and not store.records_named(
            "ann", "Miso", 5
        )
        assert (
            _lexical(store, "tac") == {r.id} and _lexical(store, "cat") == set()
        )  # the postings are the indexer's terms
        assert store.db.usual_language("ann") == "xx"
    finally:
        store.close()


def test_the_default_indexer_reads_the_words_in_their_language():
    store = MemoryStore(None, CountingEmbedder())
    try:
        r = MemoryRecord(user_id="ann", thought="my cat Miso sleeps", tags=["pets"], event_time=T0)
        store.add([r])
        store.flush()
        assert [x.id for x in store.records_named("ann", "Miso", 5)] == [r.id]
        assert store.db.usual_language("ann") == "en"
    finally:
        store.close()
