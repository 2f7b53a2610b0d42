"""Peers in the retrieval benchmark (``caim.eval.peers``): mem0 and LangMem with caim's embedder.

The conversation is this file's own, in LoCoMo's format; everything runs offline (conftest's
no-network guard) with the bundled MiniLM embedder.
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from caim.core.embeddings import MiniLMEmbedder
from caim.core.errors import ConfigError
from caim.core.scripted import scripted_models
from caim.core.settings import Settings
from caim.eval import peers, retrieval
from tests.scripts import SCRIPT

FILLER = [
    "How was your weekend?",
    "Pretty quiet, I mostly stayed in and read.",
    "The weather has been so rainy lately.",
    "I know, I had to cancel my bike ride twice.",
    "Did you watch the game on Sunday?",
    "No, I fell asleep before halftime.",
    "Work has been busy with the quarterly reports.",
    "I hope it calms down soon for you.",
    "I made lasagna for dinner last night.",
    "That sounds delicious, I should try your recipe.",
    "My sister is visiting next month.",
    "You two must be excited to catch up.",
]
EVIDENCE = {
    "D1:3": "I finally adopted a greyhound and named him Biscuit.",
    "D2:5": "I signed up for a pottery workshop in Lisbon this summer.",
    "D3:2": "My favourite book is still One Hundred Years of Solitude.",
}


def _session(n: int, at: int) -> list[dict]:
    """Six small-talk turns with the session's evidence turn (Ana's) at position ``at``; sessions
    overlap by three turns, so some texts repeat (as "Thanks!" does in real conversations)."""
    texts = FILLER[(n - 1) * 3 : (n - 1) * 3 + 6]
    texts.insert(at - 1, EVIDENCE[f"D{n}:{at}"])
    return [
        {"speaker": "Ana" if j + 1 == at or j % 2 == 0 else "Ben", "dia_id": f"D{n}:{j + 1}", "text": text}
        for j, text in enumerate(texts)
    ]


CONVERSATION = [
    {
        "sample_id": "peers-1",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "9:00 am on 3 March, 2024",
            "session_1": _session(1, 3),
            "session_2_date_time": "6:30 pm on 10 March, 2024",
            "session_2": _session(2, 5),
            "session_3_date_time": "11:00 am on 17 March, 2024",
            "session_3": _session(3, 2),
        },
        "qa": [
            {"question": "What is the name of Ana's dog?", "answer": "Biscuit", "evidence": ["D1:3"], "category": 4},
            {"question": "Where is Ana's pottery workshop?", "answer": "Lisbon", "evidence": ["D2:5"], "category": 4},
            {"question": "Which book does Ana love most?", "answer": "...", "evidence": ["D3:2"], "category": 1},
        ],
    }
]


@pytest.fixture
def data(tmp_path) -> Path:
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps(CONVERSATION), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["mem0", "langmem"])
def test_peer_stores_each_turn_and_finds_the_evidence_turn_first(name, data):
    (conv,) = retrieval.load(data)
    assert len(conv.turns) == 21
    peer = peers.retrieval_peer(name, MiniLMEmbedder.shared())
    try:
        peer.add("u1", retrieval.peer_turns(conv))
        peer.add("u2", [peers.PeerTurn("other", "Cy", "I adopted a greyhound named Biscuit too.")])
        for q in conv.questions:
            hits = peer.search("u1", q.text, 5)
            assert len(hits) == 5
            assert hits[0].turn_id == q.evidence[0], (q.text, hits)
            assert hits[0].text == f"Ana: {EVIDENCE[q.evidence[0]]}"  # stored verbatim with its speaker
            assert "other" not in {h.turn_id for h in hits}  # one conversation never sees another's turns
            assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert len(peer.search("u1", "anything at all", 50)) == 21  # every turn stored, none merged
    finally:
        peer.close()


def test_mem0_runs_without_telemetry(data):
    peer = peers.retrieval_peer("mem0", MiniLMEmbedder.shared())
    try:
        import mem0.memory.main
        import mem0.memory.telemetry

        assert mem0.memory.telemetry.MEM0_TELEMETRY is False and mem0.memory.main.MEM0_TELEMETRY is False
        settings = peer.info()["settings"]
        assert settings["telemetry"] is False and settings["threshold"] == 0.0
    finally:
        peer.close()


def test_retrieval_run_puts_peers_beside_caim_and_records_them(data, tmp_path):
    out = tmp_path / "out"
    systems = ["bm25", "caim", "mem0", "langmem"]
    summary = retrieval.run(data, out, MiniLMEmbedder.shared(), systems=systems, plot=False)
    assert list(summary["systems"]) == systems
    caim_shape = {key: set(value) for key, value in summary["systems"]["caim"].items()}
    for name in ("mem0", "langmem"):
        entry = summary["systems"][name]
        assert {key: set(value) for key, value in entry.items()} == caim_shape  # same shape as caim's systems
        assert entry["recall@5"]["all"] == 1.0  # each evidence turn among the top 5
        assert entry["latency_ms"]["p50"] > 0
    report = (out / "report.md").read_text()
    assert "| mem0 |" in report and "| langmem |" in report
    run = json.loads((out / "run.json").read_text())
    assert run["systems"] == systems
    assert run["peers"]["mem0"]["version"] == metadata.version("mem0ai")
    assert run["peers"]["langmem"]["version"] == metadata.version("langmem")
    assert run["peers"]["mem0"]["settings"]["embedder"].endswith(f"{MiniLMEmbedder.name} (384 dims)")
    assert "create_search_memory_tool" in run["peers"]["langmem"]["settings"]["search"]
    assert run["packages"]["caim"] and run["info"]["embedder"] == MiniLMEmbedder.name
    assert set(run["info"]["peer_capture_seconds"]) == {"mem0", "langmem"}


def test_peers_are_scored_like_caims_systems(monkeypatch, data, tmp_path):
    """A peer whose search returns the evidence turn at rank k scores recall 0 below k and 1 from k."""

    class Fixed(peers.RetrievalPeer):
        name = "mem0"

        def __init__(self, *args):
            pass

        def add(self, user, turns):
            self.turns = [t.turn_id for t in turns]

        def search(self, user, query, k):
            (q,) = [q for q in CONVERSATION[0]["qa"] if q["question"] == query]
            rest = [t for t in self.turns if t not in q["evidence"]]
            order = [*rest[:9], q["evidence"][0], *rest[9:]]  # the evidence turn at rank 10
            return [peers.PeerHit("", t, 0.0) for t in order[:k]]

        def info(self):
            return {}

    monkeypatch.setattr(retrieval, "retrieval_peer", lambda name, embedder: Fixed())
    summary = retrieval.run(data, tmp_path / "o", MiniLMEmbedder.shared(), systems=["mem0"], plot=False)
    entry = summary["systems"]["mem0"]
    assert (entry["recall@5"]["all"], entry["recall@10"]["all"], entry["recall@20"]["all"]) == (0.0, 1.0, 1.0)


def test_a_missing_peer_package_is_one_line_naming_it(monkeypatch, data, tmp_path):
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    monkeypatch.setitem(sys.modules, "mem0", None)  # import mem0 now fails as if not installed
    with pytest.raises(ConfigError, match=r"mem0 needs the mem0ai package: pip install 'caim\[eval\]'"):
        peers.retrieval_peer("mem0", MiniLMEmbedder.shared())
    res = CliRunner().invoke(
        app, ["eval", "retrieval", "--data", str(data), "--out", str(tmp_path / "o"), "--systems", "caim,mem0"]
    )
    assert res.exit_code == 2
    assert len(res.output.strip().splitlines()) == 1 and "mem0ai" in res.output
    assert not (tmp_path / "o" / "results.json").exists()
    monkeypatch.setitem(sys.modules, "langmem", None)
    with pytest.raises(ConfigError, match="langmem needs the langmem package"):
        peers.require("langmem")


def test_unknown_system_names_the_peers_among_the_choices(data, tmp_path):
    with pytest.raises(ConfigError, match="mem0, langmem"):
        retrieval.run(data, tmp_path / "o", MiniLMEmbedder.shared(), systems=["caim", "zep"], plot=False)


# ---- peers with their own extraction in caim eval locomo -----------------------------------------
class Extractor(BaseChatModel):
    """A stand-in extraction model: each evidence sentence the first time it appears in a prompt
    becomes one memory - as JSON for mem0's prompt, as a ``Memory`` tool call for LangMem's."""

    seen: set = Field(default_factory=set)
    tools: bool = False
    prompts: list = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "extractor"

    def bind_tools(self, tools, **kwargs):
        return self.model_copy(update={"tools": True})  # a shallow copy: ``seen`` and ``prompts`` are shared

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        prompt = "\n".join(str(m.content) for m in messages)
        self.prompts.append(prompt)
        new = [s for s in EVIDENCE.values() if s in prompt and s not in self.seen]
        self.seen.update(new)
        facts = [f"Ana said: {s}" for s in new]
        if self.tools:
            calls = [{"name": "Memory", "args": {"content": f}, "id": f"c{i}"} for i, f in enumerate(facts)]
            msg = AIMessage(content="", tool_calls=calls)
        else:
            msg = AIMessage(content=json.dumps({"memory": [{"text": f} for f in facts]}))
        msg.usage_metadata = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        return ChatResult(generations=[ChatGeneration(message=msg)])


@pytest.mark.parametrize("name", ["mem0", "langmem"])
def test_locomo_eval_runs_a_peer_with_its_own_extraction_on_caims_model(name, data, tmp_path):
    from caim.eval.locomo import load_locomo
    from caim.eval.runner import EvalConfig, run_benchmark

    bench = load_locomo(data)
    models, _ = scripted_models(SCRIPT)
    extractor = Extractor()
    models["key_events"] = extractor
    out = tmp_path / "out"
    config = EvalConfig(systems=["none", name], judge=False, progress=False, plot=False)
    summary = run_benchmark(bench, out, Settings(), config=config, models=models)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    mine = [r for r in rows if r["system"] == name]
    assert len(mine) == 3
    assert extractor.seen == set(EVIDENCE.values())  # each evidence turn reached the peer's extraction
    for r in mine:
        assert r["answer"] and r["retrieved"]
        assert all(rec["kind"] == "peer" and rec["sources"] for rec in r["retrieved"])
    by_q = {r["qid"]: r for r in mine}
    # the evidence turn's memory is among those retrieved, with the exchange as its source
    assert all(r["metrics"]["evidence_recall"] == 1.0 for r in by_q.values()), [r["metrics"] for r in mine]
    memory = [json.loads(line) for line in (out / "memory.jsonl").read_text().splitlines()]
    (stored,) = [m for m in memory if m["system"] == name]
    assert sorted(rec["thought"] for rec in stored["records"]) == sorted(f"Ana said: {s}" for s in EVIDENCE.values())
    assert stored["replay"]["llm_calls"] >= 3 and stored["replay"]["failed_exchanges"] == 0
    run = json.loads((out / "run.json").read_text())
    assert run["peers"][name]["version"] == metadata.version(peers.PEERS[name])
    assert "key_events" in run["peers"][name]["settings"]["extraction_model"]
    assert summary["systems"] == ["none", name]
    assert summary["memory"][name]["entries"] == len(EVIDENCE)


def test_locomo_eval_with_a_missing_peer_is_one_line(monkeypatch, data, tmp_path):
    from caim.eval.locomo import load_locomo
    from caim.eval.runner import EvalConfig, run_benchmark

    monkeypatch.setitem(sys.modules, "langmem", None)
    with pytest.raises(ConfigError, match="langmem needs the langmem package"):
        run_benchmark(load_locomo(data), tmp_path / "o", Settings(), config=EvalConfig(systems=["caim", "langmem"]))
    assert not (tmp_path / "o" / "results.jsonl").exists()


class Failing(Extractor):
    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        raise RuntimeError("request exceeds the available context size")


def test_a_peer_whose_extraction_fails_is_counted_and_still_answers(data, tmp_path):
    from caim.eval.locomo import load_locomo
    from caim.eval.runner import EvalConfig, run_benchmark

    models, _ = scripted_models(SCRIPT)
    models["key_events"] = Failing()
    out = tmp_path / "out"
    config = EvalConfig(systems=["mem0"], judge=False, progress=False, plot=False)
    run_benchmark(load_locomo(data), out, Settings(), config=config, models=models)
    (stored,) = [json.loads(line) for line in (out / "memory.jsonl").read_text().splitlines()]
    assert stored["records"] == [] and stored["replay"]["failed_exchanges"] == stored["replay"]["exchanges"] > 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and all(r["answer"] and r["retrieved"] == [] for r in rows)
