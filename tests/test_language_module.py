"""A language is one module: a made-up one, written here as a single module and registered at run
time, is read by detection, capture, search, slots, polarity, small talk and goal-aware recall."""

from __future__ import annotations

import types
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from caim.memory.capture import states_fact
from caim.memory.intents import Catalogue, outcome_of
from caim.memory.records import MemoryRecord
from caim.memory.search.retrieval import Query, Retriever
from caim.memory.storage.store import MemoryStore
from caim.memory.text import SMALL_TALK_STEMS, detect, is_small_talk, languages
from caim.memory.text.polarity import polarity
from caim.memory.text.slots import asked, slots
from tests.test_store import CountingEmbedder

#: Zorbish, a made-up language, as one module's source: every table of it in one place.
ZORBISH = """
from caim.memory.text.intent_words import IntentWords
from caim.memory.text.tables import EntityWords, Language, PolarityWords, Signals, SlotWords, words

STOPWORDS = frozenset(words("ka lu po ni mu"))
SIGNALS = Signals(first_person=words("mu"), telling=words("haboz wonaz workaz"), greetings=words("salo"))
LANGUAGE = Language(code="zb", stopwords=STOPWORDS, votes=STOPWORDS | frozenset(words("haboz wonaz lovaz salo")),
                    signals=SIGNALS)
SLOTS = SlotWords(patterns=(("location", r"\\bmu wonaz in {v}"),), stops=words("ka lu"))
ASKS = (("location", r"\\bwo mu wonaz\\b"),)
POLARITY = PolarityWords(likes=("mu lovaz",), dislikes=("mu hataz",))
ENTITIES = EntityWords()
INTENTS = IntentWords(code="zb", cues={"restaurant": (r"\\brestorazo\\b",)}, vocab={}, people=(), numbers={},
                      money="", relatives={}, mine="", company="", outcomes={"booked": r"\\brezervita\\b"})
"""

T0 = datetime(2023, 5, 1, 12, tzinfo=UTC)


@pytest.fixture
def zorbish() -> Iterator[types.ModuleType]:
    module = types.ModuleType("zorbish")
    exec(compile(ZORBISH, "zorbish.py", "exec"), module.__dict__)
    languages.register(module)
    yield module
    languages.unregister("zb")


def _read() -> tuple:
    """What the text analysis makes of Zorbish sentences."""
    return (
        detect("mu haboz ka drako lu").code,
        states_fact("mu haboz ka drako lu"),
        slots("mu wonaz in Plinkton."),
        asked("wo mu wonaz?"),
        polarity("mu lovaz ka pitza"),
        Catalogue().recognise("mu serkaz ka restorazo po"),
        outcome_of("ka tablo rezervita"),
        is_small_talk("salo!") and "salo" in SMALL_TALK_STEMS,
    )


def test_a_language_registered_from_one_module_is_read_everywhere(zorbish):
    code, fact, stated, asks, liked, intent, outcome, greeting = _read()
    assert code == "zb" and fact and greeting
    assert stated["location"].value == "Plinkton" and asks == "location"
    assert liked is not None and liked.polarity == "like"
    assert intent == "restaurant" and outcome == "booked"


def test_without_its_module_the_words_are_not_read():
    code, fact, stated, asks, liked, intent, outcome, greeting = _read()
    assert code == "en" and not fact and not stated and asks is None and liked is None and not greeting
    assert intent == "" and outcome is None


def _lexical(store: MemoryStore, text: str) -> set[str]:
    hits = Retriever(store).search("ann", Query(text, T0, min_relevance=0.0), 2)
    return {h.record.thought for h in hits if h.scores.get("bm25", 0) > 0}


def test_search_reads_a_registered_language_with_its_stopwords():
    """A question of the language's function words matches nothing once the language is known; the
    record's own words still do (written and searched in the language)."""
    store = MemoryStore(None, CountingEmbedder())
    module = types.ModuleType("zorbish")
    exec(compile(ZORBISH, "zorbish.py", "exec"), module.__dict__)
    try:
        before = [MemoryRecord(user_id="ann", thought="ka drako lu mu haboz", tags=["pets"], event_time=T0)]
        store.add([*before, MemoryRecord(user_id="ann", thought="pitza fisho", tags=["food"], event_time=T0)])
        store.flush()
        assert _lexical(store, "ka lu po") == {"ka drako lu mu haboz"}  # English reads "ka", "lu" as words
        languages.register(module)
        store.reindex()
        assert _lexical(store, "ka lu po") == set()  # Zorbish's function words: no term of a record
        assert _lexical(store, "mu haboz ka drako") == {"ka drako lu mu haboz"}
    finally:
        languages.unregister("zb")
        store.close()
