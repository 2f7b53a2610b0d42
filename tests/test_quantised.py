"""The quantised MiniLM (``minilm-quantised``): made from the bundled model, its vectors agree with the
model as shipped, it runs integer matrix products, a damaged cached file is made again and never
loaded, processes making it at once leave one sound file, and a data dir switches to it by re-embedding."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import onnx
import pytest

from caim.core import quantised
from caim.core.embeddings import MiniLMEmbedder, QuantisedMiniLMEmbedder, local_embedder
from caim.core.errors import ConfigError, StorageError
from caim.core.local_llm import default_cache_dir, file_sha256

TEXTS = [
    "I adopted a puppy last week.",
    "My sister lives in Lisbon and works as a nurse.",
    "We went hiking near the lake on Saturday and saw a heron.",
    "Caroline: I'm thinking of going back to school to study counseling.",
    "The stock market fell sharply today.",
    "What did Melanie paint last summer?",
    "hi",
    "",
    "Thanks! I finally finished the pottery class, and my bowl came out lopsided but I love it. "
    "Next month I want to try the wheel again, maybe with my kids if they are interested.",
]
#: The least cosine of a text's quantised vector with its vector from the model as shipped
#: (docs/embeddings.md: 0.98 at worst over a conversation's remembered texts).
AGREEMENT = 0.97


def ops(path: Path) -> set[str]:
    return {n.op_type for n in onnx.load(str(path)).graph.node}


def test_the_quantised_minilm_runs_integer_products_and_agrees_with_the_model_as_shipped():
    ours, shipped = QuantisedMiniLMEmbedder.shared(), MiniLMEmbedder.shared()
    assert "MatMulInteger" in ops(ours.model_file()) and "MatMulInteger" not in ops(shipped.model_file())
    a, b = np.asarray(ours.embed(TEXTS)), np.asarray(shipped.embed(TEXTS))
    cos = (a * b).sum(axis=1)
    assert cos.min() >= AGREEMENT and not np.allclose(a, b, atol=1e-4)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    # a data dir embedded with one is re-embedded for the other: the names differ, as their versions do
    assert ours.name != shipped.name and ours.version != shipped.version
    assert local_embedder("minilm-quantised") is ours and local_embedder(None) is shipped


def test_the_cache_folder_is_the_deployments(monkeypatch, tmp_path):
    monkeypatch.setenv("CAIM_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c" / "models"
    monkeypatch.delenv("CAIM_CACHE_DIR")
    assert default_cache_dir() != tmp_path / "c" / "models"


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """One model made into a fresh folder."""
    return quantised.quantised_minilm(tmp_path_factory.mktemp("made"))


def test_the_cached_model_is_reused_and_a_damaged_one_is_made_again(made, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    copy = folder / made.name
    copy.write_bytes(made.read_bytes())
    builds: list[Path] = []
    build = quantised.build

    def counted(source: Path, out: Path) -> None:
        builds.append(out)
        build(source, out)

    monkeypatch.setattr(quantised, "build", counted)
    assert quantised.quantised_minilm(folder) == copy and builds == []  # sound: reused, not made
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one byte flipped inside the weights
    copy.write_bytes(bytes(data))
    again = quantised.quantised_minilm(folder)
    assert len(builds) == 1 and again == copy  # made again, to the same bytes
    assert file_sha256(again) == file_sha256(made)
    assert [p.name for p in folder.iterdir()] == [made.name]  # no temporary file left


def test_a_folder_that_cannot_be_written_is_a_one_line_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ConfigError) as err:
        quantised.quantised_minilm(blocker / "models")
    assert "cannot make the quantised MiniLM model" in str(err.value) and "\n" not in str(err.value)


def test_processes_making_it_at_once_leave_one_sound_file(made, tmp_path):
    folder = tmp_path / "shared"
    code = (
        "import logging, sys, time; logging.basicConfig(level=logging.INFO)\n"
        "from caim.core.quantised import quantised_minilm\n"
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time()))\n"  # all three look for the file at once
        "print(quantised_minilm(sys.argv[1]))"
    )
    start = str(time.time() + 10)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(folder), start], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    done = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-500:] for _, err in done]
    assert sum("made the quantised MiniLM model" in err for _, err in done) >= 2  # they did build at once
    assert {out.strip() for out, _ in done} == {str(folder / made.name)}
    assert [p.name for p in folder.iterdir()] == [made.name]  # no half-written or temporary file
    assert file_sha256(folder / made.name) == file_sha256(made)


def test_a_data_dir_switches_to_the_quantised_minilm_by_reembedding(tmp_path):
    from caim.memory.capture import raw_record
    from caim.memory.storage.store import MemoryStore

    ours, shipped = QuantisedMiniLMEmbedder.shared(), MiniLMEmbedder.shared()
    store = MemoryStore(tmp_path, shipped)
    when = datetime(2023, 4, 1, tzinfo=UTC)
    texts = ["My locker number is 107.", "My sister lives in Lisbon.", "I play the cello on Sundays."]
    store.add(
        [raw_record(user_id="ann", session_id="s", turn=i, text=t, when=when, tags=[]) for i, t in enumerate(texts)]
    )
    store.close()
    with pytest.raises(StorageError) as err:
        MemoryStore(tmp_path, ours)
    assert "caim memories reembed" in str(err.value) and f"CAIM_EMBEDDING_MODEL={shipped.name}" in str(err.value)
    MemoryStore(tmp_path, local_embedder(shipped.name)).close()  # the setting the error names opens it
    store = MemoryStore(tmp_path, ours, check_embedder=False)
    try:
        assert store.reembed() == 3
        [(found, _)] = store.similar("ann", "Where does my sister live?", 1)
        assert found.thought == "My sister lives in Lisbon."
    finally:
        store.close()
    MemoryStore(tmp_path, ours).close()  # re-embedded: the quantised model opens it
