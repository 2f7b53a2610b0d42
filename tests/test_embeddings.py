"""The bundled embedders: the multilingual one finds a translation (MiniLM does not), its vectors are
bounded and normalised, ``CAIM_EMBEDDING_MODEL`` picks the embedder, and a data dir built with one
embedder is switched to the other (both ways) by ``caim memories reembed``, with a one-line error
until then."""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from caim.core.embeddings import (
    DEFAULT_LOCAL,
    LOCAL_EMBEDDERS,
    Embedder,
    MiniLMEmbedder,
    MultilingualEmbedder,
    OpenAIEmbedder,
    QuantisedMiniLMEmbedder,
    local_embedder,
)
from caim.core.errors import ConfigError, StorageError
from caim.core.settings import Settings

ENGLISH = [
    "I adopted a puppy last week.",
    "My sister lives in Lisbon.",
    "I play the cello on Sundays.",
    "The stock market fell sharply today.",
]
#: (sentence, index of its English translation in ENGLISH)
TRANSLATIONS = [
    ("我上周领养了一只小狗。", 0),
    ("我妹妹住在里斯本。", 1),
    ("我每个星期天拉大提琴。", 2),
    ("Ich habe letzte Woche einen Welpen adoptiert.", 0),
    ("Meine Schwester wohnt in Lissabon.", 1),
    ("Ich spiele sonntags Cello.", 2),
]


def nearest_english(embedder: Embedder) -> list[int]:
    """For each of TRANSLATIONS, the index of the English sentence nearest to it."""
    eng = np.asarray(embedder.embed(ENGLISH))
    other = np.asarray(embedder.embed([t for t, _ in TRANSLATIONS]))
    return [int(i) for i in np.argmax(other @ eng.T, axis=1)]


def test_the_multilingual_embedder_finds_the_translation_and_minilm_does_not():
    expected = [i for _, i in TRANSLATIONS]
    assert nearest_english(MultilingualEmbedder.shared()) == expected
    assert nearest_english(MiniLMEmbedder.shared()) != expected  # English-only: the Chinese sentences miss


def test_multilingual_vectors_are_normalised_bounded_and_independent_of_the_batch():
    emb = MultilingualEmbedder.shared()
    long = "We walked along the river and talked about the new job for hours. " * 100
    assert len(long) > 3 * emb.MAX_CHARS
    texts = ["", "hi", long, "我妹妹住在里斯本。"]
    vecs = np.asarray(emb.embed(texts))
    assert vecs.shape == (4, emb.dims) == (4, 512)
    assert np.all(np.isfinite(vecs)) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs[2], emb.embed([long[: emb.MAX_CHARS]])[0], atol=1e-6)  # cut, not read whole
    for text, vec in zip(texts, vecs, strict=True):
        assert np.allclose(vec, emb.embed([text])[0], atol=1e-5)
    assert emb.embed([]) == []


def test_minilm_pads_no_short_text_to_a_long_one_and_its_vectors_do_not_depend_on_the_batch(monkeypatch):
    e = MiniLMEmbedder.shared()
    texts = [f"I walked the dog {i} times." for i in range(15)] + [" ".join(["a long story about the sea"] * 40)]
    alone = np.asarray([e.embed([t])[0] for t in texts])
    padded: list[int] = []
    run = e._run

    def counted(batch: list[list[int]]) -> np.ndarray:
        padded.append(len(batch) * max(len(x) for x in batch))
        return run(batch)

    monkeypatch.setattr(e, "_run", counted)
    together = np.asarray(e.embed(texts))
    longest = len(e.tokenizer.encode(texts[-1]).ids)
    assert sum(padded) < 2 * longest  # the fifteen short ones are not padded to the long one's length
    assert np.array_equal(together, alone)


def test_multilingual_embedder_gives_the_same_vectors_from_many_threads():
    emb = MultilingualEmbedder.shared()
    texts = [f"memory number {i}: we met at the lake in spring" for i in range(3 * emb.CHUNK)]
    alone = np.asarray(emb.embed(texts))
    got: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        got[k] = np.asarray(emb.embed(texts if k % 2 else texts[k : k + 1]))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, vecs in got.items():
        assert np.allclose(vecs, alone if k % 2 else alone[k : k + 1], atol=1e-5)


@pytest.fixture
def no_caim_env(monkeypatch):
    for var in [v for v in os.environ if v.startswith(("CAIM_", "OPENAI_"))]:
        monkeypatch.delenv(var)
    return monkeypatch


@pytest.mark.parametrize(
    "value,expected",
    [
        (None, LOCAL_EMBEDDERS[DEFAULT_LOCAL]),
        ("minilm", MiniLMEmbedder),
        ("use-multilingual", MultilingualEmbedder),
        ("USE-Multilingual-v3", MultilingualEmbedder),
        ("all-MiniLM-L6-v2-int8", MiniLMEmbedder),
        ("minilm-quantised", QuantisedMiniLMEmbedder),
        ("all-MiniLM-L6-v2-qint8", QuantisedMiniLMEmbedder),
    ],
)
def test_the_setting_picks_the_bundled_embedder(no_caim_env, value, expected):
    from caim.graph.services import default_embedder

    if value is not None:
        no_caim_env.setenv("CAIM_EMBEDDING_MODEL", value)
    chosen = default_embedder(Settings.load(_env_file=None))
    assert type(chosen) is expected and chosen is expected.shared()
    # the bundled names win over the provider: with the openai provider they stay local
    assert type(default_embedder(Settings(provider="openai", embedding_model=value, _env_file=None))) is expected


def test_another_name_is_the_endpoints_model_or_a_one_line_error(no_caim_env):
    from caim.graph.services import default_embedder

    remote = default_embedder(
        Settings(provider="openai", embedding_model="text-embedding-3-small", api_key="sk-test", _env_file=None)
    )
    assert isinstance(remote, OpenAIEmbedder) and remote.name == "text-embedding-3-small"
    with pytest.raises(ConfigError) as err:
        default_embedder(Settings(provider="local", embedding_model="text-embedding-3-small", _env_file=None))
    assert "CAIM_EMBEDDING_MODEL='text-embedding-3-small'" in str(err.value)
    assert "minilm, use-multilingual" in str(err.value) and "\n" not in str(err.value)
    assert local_embedder("text-embedding-3-small") is None


def _store_three(data: Path, embedder: Embedder) -> None:
    from caim.memory.capture import raw_record
    from caim.memory.storage.store import MemoryStore

    store = MemoryStore(data, embedder)
    when = datetime(2023, 4, 1, tzinfo=UTC)
    texts = ["My locker number is 107.", "My sister lives in Lisbon.", "I play the cello on Sundays."]
    store.add(
        [
            raw_record(user_id="ann", session_id="s", turn=i, text=t, when=when, tags=["work"])
            for i, t in enumerate(texts)
        ]
    )
    store.close()


def _nearest(data: Path, embedder: Embedder, question: str) -> str:
    """The thought of ann's record nearest to ``question`` in the data dir, opened with ``embedder``."""
    from caim.memory.storage.store import MemoryStore

    store = MemoryStore(data, embedder)
    try:
        [(found, _)] = store.similar("ann", question, 1)
        return found.thought
    finally:
        store.close()


def test_switching_embedder_on_a_data_dir_then_reembed_works_both_ways(tmp_path, no_caim_env):
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app
    from caim.memory.storage.store import MemoryStore

    script = tmp_path / "script.json"
    script.write_text(json.dumps({"default": "OK", "respond": "Hello!"}))
    data = tmp_path / "data"
    for k, v in {"CAIM_PROVIDER": "scripted", "CAIM_SCRIPT": str(script), "CAIM_DATA_DIR": str(data)}.items():
        no_caim_env.setenv(k, v)

    def cli(args: list[str], model: str | None):
        env = {"CAIM_EMBEDDING_MODEL": model} if model else {}
        return CliRunner().invoke(app, args, input="", env=env, catch_exceptions=False)  # chat: starts, sees the end

    minilm, multi = MiniLMEmbedder.shared(), MultilingualEmbedder.shared()
    _store_three(data, minilm)  # 384-dimensional vectors in the database and the Chroma collection
    for old, new, model, question in [
        (minilm, multi, "use-multilingual", "我妹妹住在哪里？"),  # 512 dimensions, asked in Chinese
        (multi, minilm, "minilm", "Where does my sister live?"),  # and back to 384
    ]:
        with pytest.raises(StorageError, match="caim memories reembed"):
            MemoryStore(data, new)
        refused = cli(["chat", "--user", "ann"], model)  # the agent does not start, and says why in one line
        assert refused.exit_code == 2
        assert refused.stderr.strip() == (
            f"caim: memories in {data / 'memory.sqlite'} were embedded with {old.name}, not {new.name}: "
            f"run `caim memories reembed` to switch them, or set CAIM_EMBEDDING_MODEL={old.name} to keep them"
        )
        done = cli(["memories", "reembed"], model)
        assert done.exit_code == 0, done.output
        assert f"re-embedded 3 records with {new.name}." in done.stdout
        assert _nearest(data, new, question) == "My sister lives in Lisbon."
        assert cli(["chat", "--user", "ann"], model).exit_code == 0
        with pytest.raises(StorageError, match=f"embedded with {new.name}, not {old.name}"):
            MemoryStore(data, old)
