"""Peers as answering systems of ``caim eval locomo|gvd``: mem0 and LangMem with their own extraction.

Each peer builds its memory from the replayed conversation with its own extraction, run on caim's
configured chat model (the model of caim's ``key_events`` role: with the bundled local model, its
OpenAI-compatible endpoint), and embeds with caim's embedder (``caim.eval.peers``). A question is
answered by caim's ``respond`` prompt and model from the peer's best memories, so the answer step
is the same for every system and the comparison measures the memory.

- ``mem0``: ``Memory.add(messages, infer=True)`` with mem0's ``langchain`` LLM provider around
  caim's chat model, an in-memory Qdrant collection; ``Memory.search`` for questions.
- ``langmem``: ``create_memory_store_manager`` (LangMem's search, extract and update, through
  trustcall's tool calls) over a LangGraph ``InMemoryStore`` indexed with caim's embedder; its
  ``search_memory`` tool for questions.
"""

from __future__ import annotations

import logging
import time
import warnings
from datetime import datetime
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import HumanMessage

from caim.core.errors import ConfigError
from caim.core.llm import LLM
from caim.core.models import Models
from caim.core.settings import Settings
from caim.core.trace import add_usage
from caim.eval.dataset import Conversation, Exchange
from caim.eval.peers import PEERS, CaimEmbeddings, require, spacy_model, version
from caim.eval.systems import Answer, ModelsArg, Progress, System
from caim.memory.records import MemoryBrief
from caim.prompts import respond as respond_prompt
from caim.prompts.common import quote_chat

log = logging.getLogger(__name__)


class _CallLog(BaseCallbackHandler):
    """LangChain callbacks writing each chat-model call of a peer as a caim trace entry (role
    ``extract`` or ``search``), so replay cost is counted as it is for caim."""

    def __init__(self, role: str):
        self.role = role
        self.trace: list[dict] = []
        self._started: dict[Any, float] = {}

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, **kwargs: Any) -> None:
        """Remember when the call started."""
        self._started[run_id] = time.perf_counter()

    def on_llm_end(self, response: Any, *, run_id: Any, **kwargs: Any) -> None:
        """Record the finished call with its tokens."""
        start = self._started.pop(run_id, time.perf_counter())
        tin = tout = 0
        for gens in response.generations:
            for g in gens:
                u = getattr(getattr(g, "message", None), "usage_metadata", None) or {}
                tin += int(u.get("input_tokens", 0) or 0)
                tout += int(u.get("output_tokens", 0) or 0)
        ms = round((time.perf_counter() - start) * 1000, 1)
        self.trace.append(
            {"node": "peer", "kind": "llm", "role": self.role, "ms": ms, "input_tokens": tin, "output_tokens": tout}
        )

    def on_llm_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        """Record the failed call."""
        start = self._started.pop(run_id, time.perf_counter())
        ms = round((time.perf_counter() - start) * 1000, 1)
        self.trace.append(
            {"node": "peer", "kind": "llm", "role": self.role, "ms": ms, "input_tokens": 0, "output_tokens": 0}
        )

    def take(self) -> list[dict]:
        """The calls recorded since the last ``take``."""
        out, self.trace = self.trace, []
        return out


def _sources(ex: Exchange, conv: Conversation) -> list[dict]:
    """The exchange's turns as a record's sources (text, time and turn ids), for evidence recall."""
    out = []
    for role, text, ids in (("user", ex.user, ex.user_ids), ("assistant", ex.assistant, ex.assistant_ids)):
        if text:
            out.append({"role": role, "text": text, "time": ex.time.isoformat(), "turn_id": "+".join(ids) or None})
    return out


class PeerSystem(System):
    """A peer as a benchmark system: its own extraction and search, caim's chat model and embedder.

    Replay (``recorded`` only) hands the peer one exchange at a time (the user's message and the
    reply, as mem0's own LoCoMo evaluation adds two messages per call); the peer's extraction runs
    on caim's configured model for the ``key_events`` role. A question is answered by caim's
    ``respond`` prompt and model from the peer's ``max_kept`` best memories (the budget caim's own
    answer has), quoted and dated as caim quotes its own. Each stored memory keeps the turns of the
    exchange that produced it as its sources (evidence recall).
    """

    retrieves = True
    stores = True

    def __init__(self, settings: Settings, models: ModelsArg = None):
        from caim.graph.services import default_embedder

        self.settings = settings
        built = Models(settings, overrides=models)
        self.llm = LLM.of(built)
        self.log = _CallLog("extract")
        self.model = built.for_role("key_events").model_copy(update={"callbacks": [self.log]})
        self.embedder = default_embedder(settings)
        self.uid = ""
        self._records: dict[str, dict] = {}

    def _store(self, messages: list[dict], at: datetime) -> list[tuple[str, str]]:
        """Hand one exchange to the peer; the memories it added or changed: (id, text)."""
        raise NotImplementedError

    def _search(self, text: str, k: int) -> list[tuple[str, str]]:
        """The peer's ``k`` best memories for ``text``: (id, text), best first."""
        raise NotImplementedError

    def replay(self, conv: Conversation, mode: str = "recorded", progress: Progress | None = None) -> dict:
        """Give the peer each exchange of the history; the replay's stats.

        Raises:
            ConfigError: ``mode`` is not ``recorded`` (a peer does not answer during the replay).
        """
        if mode != "recorded":
            raise ConfigError(f"{self.name} replays recorded conversations only (--replay recorded)")
        self.uid = f"{conv.user}::{self.name}".replace(" ", "_")
        stats: dict = {"mode": mode, "sessions": 0, "exchanges": 0, "stored": 0, "failed_exchanges": 0}
        start = time.perf_counter()
        for i, session in enumerate(conv.sessions):
            for ex in session.exchanges:
                messages = [
                    {"role": role, "content": text}
                    for role, text in (("user", conv.user_text(ex)), ("assistant", conv.assistant_text(ex)))
                    if text
                ]
                if not messages:
                    continue
                try:
                    changed = self._store(messages, ex.time)
                except Exception as exc:  # the peer's extraction failed on this exchange: counted, replay goes on
                    if not stats["failed_exchanges"]:
                        log.warning(
                            "%s: an exchange was not stored (%s); failures are counted in the replay", self.name, exc
                        )
                    stats["failed_exchanges"] += 1
                    changed = []
                add_usage(stats, self.log.take())
                for rid, text in changed:
                    rec = self._records.setdefault(rid, _record(rid, text, ex.time, session.label))
                    rec["thought"] = text
                    rec["sources"] += _sources(ex, conv)
                stats["exchanges"] += 1
            stats["sessions"] += 1
            if progress:
                progress(i + 1, len(conv.sessions))
        stats["stored"] = len(self._records)
        stats["seconds"] = round(time.perf_counter() - start, 2)
        return stats

    def ask(self, text: str, at: datetime) -> Answer:
        """Answer ``text`` from the peer's best memories with caim's answer prompt and model."""
        trace: list[dict] = []
        start = time.perf_counter()
        found = self._search(text, self.settings.max_kept)
        search_ms = round((time.perf_counter() - start) * 1000, 1)
        retrieved = [self._records.get(rid) or _record(rid, words, at, "") for rid, words in found]
        briefs: list[MemoryBrief] = [
            {"id": r["id"], "thought": r["thought"], "tags": [], "event_time": r["event_time"]} for r in retrieved
        ]
        parts = [
            respond_prompt.memory_block(briefs, True),
            f"Today is {at.strftime('%A, %B %d, %Y')}. Reply to the user's message.",
            f"Message: {quote_chat(text, self.settings.max_input_chars)}",
        ]
        msgs = [respond_prompt.system(), HumanMessage("\n\n".join(p for p in parts if p))]
        reply = self.llm.text("respond", msgs, trace=trace, node="peer_answer")
        latency = (time.perf_counter() - start) * 1000
        return Answer(reply, self.name, retrieved, retrieved, trace, latency, {"search_ms": search_ms})

    def memory(self) -> list[dict]:
        """The memories the peer built, by event time."""
        return sorted(self._records.values(), key=lambda r: (r.get("event_time") or "", r["id"]))


def _record(rid: str, text: str, when: datetime, session: str) -> dict:
    """A peer's memory in the form results store records (``caim.eval.systems.record_dict``)."""
    return {
        "id": rid,
        "kind": "peer",
        "thought": text,
        "speaker": None,
        "tags": [],
        "event_time": when.isoformat(),
        "session_id": session,
        "sources": [],
    }


class Mem0System(PeerSystem):
    """mem0 with its own extraction (``Memory.add`` with ``infer=True``) on caim's chat model
    (mem0's ``langchain`` LLM provider) and caim's embedder; ``Memory.search`` for questions."""

    name = "mem0"

    def __init__(self, settings: Settings, models: ModelsArg = None):
        require("mem0")
        super().__init__(settings, models)
        from mem0 import Memory
        from mem0.configs.base import MemoryConfig
        from qdrant_client import QdrantClient

        dims = len(self.embedder.embed(["dimension probe"])[0])
        # mem0 logs a failed extraction before raising it; the replay reports it (once) and counts it
        logging.getLogger("mem0").setLevel(logging.CRITICAL)
        self._client = QdrantClient(":memory:")
        config = MemoryConfig(
            embedder={
                "provider": "langchain",
                "config": {"model": CaimEmbeddings(self.embedder), "embedding_dims": dims},
            },
            vector_store={
                "provider": "qdrant",
                "config": {"client": self._client, "collection_name": "caim_eval", "embedding_model_dims": dims},
            },
            llm={"provider": "langchain", "config": {"model": self.model}},
            history_db_path=":memory:",
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            self.mem0 = Memory(config)
        spacy_model()

    def _store(self, messages: list[dict], at: datetime) -> list[tuple[str, str]]:
        out = self.mem0.add(messages, user_id=self.uid, infer=True)
        return [(str(r["id"]), str(r.get("memory", ""))) for r in out.get("results", []) if r.get("id")]

    def _search(self, text: str, k: int) -> list[tuple[str, str]]:
        found = self.mem0.search(text, top_k=k, filters={"user_id": self.uid}, threshold=0.0)
        return [(str(r["id"]), str(r.get("memory", ""))) for r in found.get("results", [])]

    def close(self) -> None:
        """Close mem0's history database and the in-memory Qdrant client."""
        history = getattr(self.mem0, "db", None)  # mem0's own history database
        for closing in (getattr(history, "close", None), getattr(self._client, "close", None)):
            if closing is not None:
                closing()


class LangMemSystem(PeerSystem):
    """LangMem's memory store manager (``create_memory_store_manager``: search, extract, update)
    on caim's chat model, over a LangGraph ``InMemoryStore`` indexed with caim's embedder; its
    ``search_memory`` tool for questions."""

    name = "langmem"
    NAMESPACE = ("memories", "{langgraph_user_id}")

    def __init__(self, settings: Settings, models: ModelsArg = None):
        require("langmem")
        super().__init__(settings, models)
        from langgraph.store.memory import InMemoryStore
        from langmem import create_memory_store_manager, create_search_memory_tool

        dims = len(self.embedder.embed(["dimension probe"])[0])
        self.store = InMemoryStore(index={"dims": dims, "embed": CaimEmbeddings(self.embedder)})
        self.manager = create_memory_store_manager(self.model, namespace=self.NAMESPACE, store=self.store)
        self.tool = create_search_memory_tool(
            namespace=self.NAMESPACE, store=self.store, response_format="content_and_artifact"
        )

    def _config(self) -> dict:
        return {"configurable": {"langgraph_user_id": self.uid}}

    def _store(self, messages: list[dict], at: datetime) -> list[tuple[str, str]]:
        puts = self.manager.invoke({"messages": messages}, config=self._config())
        return [(str(p["key"]), _content(p["value"])) for p in puts]

    def _search(self, text: str, k: int) -> list[tuple[str, str]]:
        call = {"type": "tool_call", "id": "search", "name": self.tool.name, "args": {"query": text, "limit": k}}
        message = self.tool.invoke(call, config=self._config())
        return [(str(item.key), _content(item.value)) for item in message.artifact]


def _content(value: Any) -> str:
    """A LangMem item's words: ``{"kind": "Memory", "content": {"content": ...}}`` or plainer forms."""
    while isinstance(value, dict) and "content" in value:
        value = value["content"]
    return value if isinstance(value, str) else str(value)


def peer_system(name: str, settings: Settings, models: ModelsArg = None) -> PeerSystem:
    """Peer ``name`` as a benchmark system with its own extraction on caim's model and embedder.

    Raises:
        ConfigError: ``name`` is not a peer, or its package cannot be imported.
    """
    if name == "mem0":
        return Mem0System(settings, models)
    if name == "langmem":
        return LangMemSystem(settings, models)
    raise ConfigError(f"unknown peer {name!r}; choose from: {', '.join(PEERS)}")


def describe(name: str) -> dict:
    """Peer ``name``'s package version and settings in ``caim eval locomo|gvd`` (for ``run.json``)."""
    common = {
        "replay": "recorded; one exchange (user message + reply) per call",
        "extraction_model": "caim's model for the key_events role",
        "answer": "caim's respond prompt and model, from the peer's max_kept best memories",
        "embedder": "caim's embedder (the one caim uses in the run)",
    }
    if name == "mem0":
        return {
            "package": "mem0ai",
            "version": version("mem0ai"),
            "packages": {"qdrant-client": version("qdrant-client")},
            "settings": {
                **common,
                "store": "Memory.add(messages, infer=True) (mem0's extraction)",
                "llm": "mem0 langchain provider around caim's chat model",
                "search": "Memory.search(query, top_k=max_kept, threshold=0.0)",
                "vector_store": "qdrant, in memory",
                "telemetry": False,
            },
        }
    return {
        "package": "langmem",
        "version": version("langmem"),
        "packages": {"langgraph": version("langgraph"), "trustcall": version("trustcall")},
        "settings": {
            **common,
            "store": "create_memory_store_manager(model, namespace=('memories', '{langgraph_user_id}'))",
            "search": "create_search_memory_tool(limit=max_kept) over InMemoryStore(index=caim's embedder)",
        },
    }
