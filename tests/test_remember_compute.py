"""What remembering a session computes besides its records' embeddings, LLM-free: post-thinking's
steps run with numpy's BLAS at one thread, the reader reads each turn once (the slot facts reuse
the reading that chose what to keep), a turn's polarity is read once for all the slots that read
it, and a session's response models are built once per closed set."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController

import caim.memory.intents as intents_module
from caim.agent.memory import Memory
from caim.core.blas import blas_threads, one_blas_thread
from caim.core.scripted import ScriptedChatModel
from caim.core.settings import Settings
from caim.memory.intents import Catalogue, fills_slots
from caim.memory.reading import Reader
from caim.prompts import key_events

SESSION = [
    ("user", "I started a new job as a nurse at the children's hospital in Porto last month."),
    ("assistant", "Congratulations! How is the team?"),
    ("user", "Great people. We're all going out for dinner on Friday."),
    ("assistant", "Fun! Any cuisine in mind?"),
    ("user", "Italian, thanks!"),
    ("assistant", "A nice group."),
    ("user", "I play the cello in a string quartet every Tuesday evening."),
    ("assistant", "Lovely."),
]


def _messages(day: int) -> list[dict]:
    return [
        {"role": role, "content": text, "time": f"2024-05-{day:02d}T10:{i:02d}:00"}
        for i, (role, text) in enumerate(SESSION)
    ]


@pytest.fixture
def memory(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, use_model_for=[])
    with Memory(settings, models=ScriptedChatModel(), background=False) as m:
        yield m


@pytest.fixture
def two_blas_threads():
    """numpy's BLAS at two threads for the test (what a machine of two cores or more starts with)."""
    with ThreadpoolController().limit(limits=2, user_api="blas"):
        if blas_threads() < 2:
            pytest.skip("numpy's BLAS runs one thread here")
        yield


def test_post_thinking_runs_with_one_blas_thread_and_gives_the_threads_back(memory, two_blas_threads, monkeypatch):
    reader = Reader.shared()
    seen: list[int] = []
    real = reader.model.predict

    def predict(x: np.ndarray) -> np.ndarray:
        seen.append(blas_threads())
        return real(x)

    monkeypatch.setattr(reader.model, "predict", predict)
    monkeypatch.setattr(reader, "_kept", OrderedDict())  # every turn read now
    memory.remember(_messages(1), user_id="bea", background=False)
    assert seen and set(seen) == {1}, seen
    assert blas_threads() == 2


def test_one_blas_thread_holds_while_any_block_runs():
    with ThreadpoolController().limit(limits=2, user_api="blas"):
        if blas_threads() < 2:
            pytest.skip("numpy's BLAS runs one thread here")
        with one_blas_thread():
            with one_blas_thread():
                assert blas_threads() == 1
            assert blas_threads() == 1  # the outer block still runs
        assert blas_threads() == 2


def test_a_session_reads_each_turn_once(memory, monkeypatch):
    reader = Reader.shared()
    monkeypatch.setattr(reader, "_kept", OrderedDict())
    encoded: list[str] = []
    real = reader.encoder.embed

    def embed(texts: list[str]) -> list[list[float]]:
        encoded.extend(texts)
        return real(texts)

    monkeypatch.setattr(reader.encoder, "embed", embed)
    memory.remember(_messages(2), user_id="cai", background=False)
    records = memory.services.store.list("cai")
    # the slot fact is stored (the reader tagged it) and its words went to the encoder once
    fact = "Italian, thanks!"  # not worth remembering to the reader, kept as a slot fact
    assert any(fact in r.source_text() for r in records)
    assert fact in encoded
    assert len(encoded) == len(set(encoded)), sorted(t for t in encoded if encoded.count(t) > 1)


def test_the_reader_does_not_read_a_pair_again():
    reader = Reader.shared()
    calls: list[list[str]] = []
    real = reader.encoder
    texts = ["I moved to Lyon in March for a job at the bakery.", "haha nice"]

    class Counting:
        def embed(self, batch: list[str]) -> list[list[float]]:
            calls.append(list(batch))
            return real.embed(batch)

    fresh = Reader(reader.model, Counting())  # type: ignore[arg-type]
    first = fresh.read(texts, ["", "Where do you live now?"])
    again = fresh.read(texts, ["", "Where do you live now?"])
    assert again == first and len(calls) == 1
    fresh.read(texts[:1], ["Where do you live now?"])  # another turn before: read anew
    assert len(calls) == 2


def test_a_turn_s_polarity_is_read_once_for_its_slots(monkeypatch):
    calls: list[str] = []
    real = intents_module.polarity

    def polarity(text: str):
        calls.append(text)
        return real(text)

    monkeypatch.setattr(intents_module, "polarity", polarity)
    catalogue = Catalogue()
    assert sum(s.liked for i in catalogue.intents.values() for s in i.slots) > 1
    assert fills_slots("I'd love some Thai food for the 6 of us near Lisbon.", catalogue)
    assert len(calls) == 1, calls


def test_a_closed_set_s_response_model_is_built_once():
    one = key_events.schema([1, 2, 3])
    assert key_events.schema([1, 2, 3]) is one
    other = key_events.schema([3, 2, 1])  # the same set in another order: the schema keeps its order
    assert other is not one
    enum = other.model_json_schema()["$defs"]["KeyEvent"]["properties"]["turn"]["enum"]
    assert enum == [3, 2, 1]


def test_polarity_s_loose_cues_compile_no_alternation_of_every_filler_in_every_gap(monkeypatch):
    """A process's first polarity reading compiles small patterns only (the fillers inside cues are
    matched phrase by phrase), and finds the cues with fillers inside them and those without."""
    from caim.memory.text import polarity as polarity_module
    from caim.memory.text.polarity import polarity

    polarity_module._loose.cache_clear()
    re_module = polarity_module.re
    sizes: list[int] = []
    real = re_module.compile

    def compile_(pattern, flags=0):
        sizes.append(len(pattern) if isinstance(pattern, str) else 0)
        return real(pattern, flags)

    monkeypatch.setattr(re_module, "compile", compile_)
    inside = polarity("Honestly, hiking makes me so happy.")
    plain = polarity("Hiking makes me happy.")
    assert inside is not None and inside.polarity == "like" and inside.cue == "makes me so happy"
    assert plain is not None and plain.polarity == "like" and plain.cue == "makes me happy"
    assert sizes and max(sizes) < 200_000  # the whole alternation with the fillers in each gap: megabytes
