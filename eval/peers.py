"""Peer memory layers in caim's benchmarks: mem0 (``mem0ai``) and LangMem (``langmem``).

Both run offline with caim's own embedder, so a comparison measures the memory layer and not the
embedding model:

- ``mem0``: ``mem0.Memory`` with the ``langchain`` embedder provider around caim's embedder, an
  in-memory Qdrant collection (``QdrantClient(":memory:")``) and its history database in memory.
  Each turn is added with ``infer=False`` (stored as it was said, no LLM) and found with
  ``Memory.search``. Telemetry is off for the whole process (``MEM0_TELEMETRY=False``, set before
  mem0 is imported). mem0's keyword (BM25) scoring needs fastembed and its ``Qdrant/bm25`` model,
  its lemmas and entity boost spaCy and ``en_core_web_sm``; mem0 fetches those models from the
  network when missing, so here they are used only when already installed (never downloaded),
  and ``info()`` records whether they were.
- ``langmem``: a LangGraph ``InMemoryStore`` whose index embeds the ``content`` field with caim's
  embedder (a LangChain ``Embeddings``); each turn is one item ``{"content": ...}`` in the
  conversation's namespace (the value LangMem's ``manage_memory`` tool writes), found with
  LangMem's ``create_search_memory_tool``.

Each stored text is ``"<speaker>: <turn>"`` (as mem0's own LoCoMo evaluation adds messages); the
turn's dialogue id is kept beside it so a hit is scored by the turn it holds.

A peer whose package cannot be imported raises a one-line ``ConfigError`` naming the package.
The peers as answering systems of ``caim eval locomo|gvd`` (their own extraction on caim's chat
model) are in ``caim.eval.peer_systems``.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from langchain_core.embeddings import Embeddings

from caim.core.embeddings import Embedder
from caim.core.errors import ConfigError

#: Peer system name -> the package it needs (as installed by ``pip install 'caim[eval]'``).
PEERS: dict[str, str] = {"mem0": "mem0ai", "langmem": "langmem"}
#: The module each peer imports (a failed import means the package is missing or broken).
_MODULES = {"mem0": "mem0", "langmem": "langmem"}


def require(name: str) -> None:
    """Import the peer ``name``'s library, or raise a one-line ``ConfigError`` naming its package.

    Raises:
        ConfigError: ``name`` is not a peer, or its package cannot be imported.
    """
    if name not in PEERS:
        raise ConfigError(f"unknown peer {name!r}; choose from: {', '.join(PEERS)}")
    if name == "mem0":
        _mem0_offline()
    try:
        with warnings.catch_warnings():  # a dependency's deprecation notices are not the user's to act on
            warnings.simplefilter("ignore", DeprecationWarning)
            importlib.import_module(_MODULES[name])
    except ImportError as exc:
        raise ConfigError(
            f"{name} needs the {PEERS[name]} package: pip install 'caim[eval]' ({str(exc).splitlines()[0]})"
        ) from None


def _mem0_offline() -> None:
    """Turn mem0's telemetry off and keep its files in a temporary folder, before it is imported
    (mem0 reads both at import); a mem0 imported earlier has its telemetry switched off too."""
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", os.path.join(tempfile.gettempdir(), "caim-mem0"))
    # fastembed (mem0's optional BM25 encoder) loads its model from the local cache only
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    for module in ("mem0.memory.telemetry", "mem0.memory.main"):
        loaded = sys.modules.get(module)
        if loaded is not None:
            vars(loaded)["MEM0_TELEMETRY"] = False


def version(package: str) -> str | None:
    """The installed version of ``package``, or None when it is not installed."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


class CaimEmbeddings(Embeddings):
    """caim's embedder as a LangChain ``Embeddings`` (what mem0's ``langchain`` provider and
    LangGraph's store index take): the same L2-normalised vectors caim stores."""

    def __init__(self, embedder: Embedder):
        self.embedder = embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in the order given."""
        return self.embedder.embed(list(texts))

    def embed_query(self, text: str) -> list[float]:
        """The vector of one query."""
        return self.embedder.embed([text])[0]


@dataclass(frozen=True)
class PeerTurn:
    """One turn to store: its dialogue id, speaker, words and whose words they are (user/assistant)."""

    turn_id: str
    speaker: str
    text: str
    role: str = "user"

    def content(self) -> str:
        """The stored text: ``"<speaker>: <words>"`` (the words alone without a speaker)."""
        return f"{self.speaker}: {self.text}" if self.speaker else self.text


@dataclass(frozen=True)
class PeerHit:
    """One search result: the stored text, the turn it holds, and the peer's score."""

    text: str
    turn_id: str
    score: float


class RetrievalPeer:
    """A peer's memory used without an LLM: store turns verbatim, search them."""

    name: str = "?"

    def add(self, user: str, turns: Sequence[PeerTurn]) -> None:
        """Store ``turns`` under ``user`` (a conversation)."""
        raise NotImplementedError

    def search(self, user: str, query: str, k: int) -> list[PeerHit]:
        """The ``k`` best of ``user``'s stored turns for ``query``, best first."""
        raise NotImplementedError

    def info(self) -> dict:
        """Package versions and settings, as ``run.json`` records them."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the peer's resources."""


class Mem0Retrieval(RetrievalPeer):
    """mem0 storing each turn with ``infer=False`` and finding them with ``Memory.search``.

    ``threshold`` is mem0's minimum semantic score (its default 0.1); 0 lets every search return
    ``k`` results, as the other systems do.
    """

    name = "mem0"
    COLLECTION = "caim_eval"

    def __init__(self, embedder: Embedder, *, threshold: float = 0.0):
        require("mem0")
        from mem0 import Memory
        from mem0.configs.base import MemoryConfig
        from qdrant_client import QdrantClient

        dims = len(embedder.embed(["dimension probe"])[0])
        self.embedder_name = embedder.name
        self.threshold = threshold
        self.dims = dims
        # mem0 logs each optional part it lacks (fastembed, spaCy) on every call: info() records them.
        logging.getLogger("mem0").setLevel(logging.ERROR)
        self._client = QdrantClient(":memory:")
        config = MemoryConfig(
            embedder={"provider": "langchain", "config": {"model": CaimEmbeddings(embedder), "embedding_dims": dims}},
            vector_store={
                "provider": "qdrant",
                "config": {"client": self._client, "collection_name": self.COLLECTION, "embedding_model_dims": dims},
            },
            # never called with infer=False; a closed local port so a stray call fails at once, offline
            llm={"provider": "openai", "config": {"api_key": "unused", "openai_base_url": "http://127.0.0.1:9/v1"}},
            history_db_path=":memory:",
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            self.memory = Memory(config)
        encoder = getattr(self.memory.vector_store, "_get_bm25_encoder", None)
        self.keyword_search = bool(encoder and encoder() is not None)
        self.spacy = spacy_model() is not None

    def add(self, user: str, turns: Sequence[PeerTurn]) -> None:
        """Add each turn as one message (its dialogue id in the metadata), without inference."""
        for t in turns:
            message: dict[str, Any] = {"role": "assistant" if t.role == "assistant" else "user", "content": t.content()}
            if t.speaker:
                message["name"] = t.speaker
            self.memory.add([message], user_id=user, metadata={"turn_id": t.turn_id}, infer=False)

    def search(self, user: str, query: str, k: int) -> list[PeerHit]:
        """``Memory.search`` in the conversation's memories."""
        found = self.memory.search(query, top_k=k, filters={"user_id": user}, threshold=self.threshold)
        return [
            PeerHit(r.get("memory", ""), str((r.get("metadata") or {}).get("turn_id", "")), float(r.get("score") or 0))
            for r in found.get("results", [])
        ]

    def info(self) -> dict:
        """mem0's version and the settings used."""
        return {
            "package": "mem0ai",
            "version": version("mem0ai"),
            "packages": {"qdrant-client": version("qdrant-client")},
            "settings": {
                "store": "Memory.add(messages, infer=False): one message per turn, metadata turn_id",
                "search": "Memory.search(query, top_k=k, filters={'user_id': conversation})",
                "threshold": self.threshold,
                "rerank": False,
                "embedder": f"langchain provider around caim's {self.embedder_name} ({self.dims} dims)",
                "vector_store": "qdrant, in memory (QdrantClient(':memory:'))",
                "history_db": ":memory:",
                "keyword_search": self.keyword_search,
                "spacy_lemmas_and_entities": self.spacy,
                "content": "<speaker>: <turn>",
                "telemetry": False,
            },
        }

    def close(self) -> None:
        """Close mem0's history database and the in-memory Qdrant client."""
        history = getattr(self.memory, "db", None)  # mem0's own history database
        for closing in (getattr(history, "close", None), getattr(self._client, "close", None)):
            if closing is not None:
                closing()


def spacy_model() -> Any:
    """spaCy's ``en_core_web_sm`` if it is installed, else None; when it is not, mem0 is told its
    spaCy models failed to load, so it never tries to download one."""
    try:
        import spacy

        if spacy.util.is_package("en_core_web_sm"):
            from mem0.utils import spacy_models

            return spacy_models.get_nlp_full()
    except ImportError:
        pass
    from mem0.utils import spacy_models

    spacy_models._load_failed_full = True
    spacy_models._load_failed_lemma = True
    return None


class LangMemRetrieval(RetrievalPeer):
    """LangMem's memory search over a LangGraph ``InMemoryStore`` indexed with caim's embedder."""

    name = "langmem"
    NAMESPACE = ("memories", "{langgraph_user_id}")

    def __init__(self, embedder: Embedder):
        require("langmem")
        from langgraph.store.memory import InMemoryStore
        from langmem import create_search_memory_tool

        self.embedder_name = embedder.name
        self.dims = len(embedder.embed(["dimension probe"])[0])
        self.store = InMemoryStore(index={"dims": self.dims, "embed": CaimEmbeddings(embedder), "fields": ["content"]})
        self.tool = create_search_memory_tool(
            namespace=self.NAMESPACE, store=self.store, response_format="content_and_artifact"
        )

    def add(self, user: str, turns: Sequence[PeerTurn]) -> None:
        """Put one ``{"content": ...}`` item per turn, keyed by its dialogue id, in batches of
        distinct texts (``InMemoryStore.batch`` fails on a text repeated within one batch)."""
        from langgraph.store.base import PutOp

        namespace = (self.NAMESPACE[0], user)
        batch: dict[str, PutOp] = {}
        for t in turns:
            if t.content() in batch:
                self.store.batch(list(batch.values()))
                batch = {}
            batch[t.content()] = PutOp(namespace, t.turn_id, {"content": t.content()})
        if batch:
            self.store.batch(list(batch.values()))

    def search(self, user: str, query: str, k: int) -> list[PeerHit]:
        """LangMem's ``search_memory`` tool in the conversation's namespace."""
        call = {"type": "tool_call", "id": "search", "name": self.tool.name, "args": {"query": query, "limit": k}}
        message = self.tool.invoke(call, config={"configurable": {"langgraph_user_id": user}})
        items = message.artifact
        return [PeerHit(str(item.value.get("content", "")), item.key, float(item.score or 0)) for item in items]

    def info(self) -> dict:
        """LangMem's version and the settings used."""
        return {
            "package": "langmem",
            "version": version("langmem"),
            "packages": {"langgraph": version("langgraph")},
            "settings": {
                "store": "InMemoryStore(index={'dims', 'embed', 'fields': ['content']}); one item per turn, "
                "key = dialogue id, value {'content': ...}",
                "search": "langmem.create_search_memory_tool(namespace=('memories', '{langgraph_user_id}'))",
                "embedder": f"LangChain Embeddings around caim's {self.embedder_name} ({self.dims} dims)",
                "content": "<speaker>: <turn>",
            },
        }


def retrieval_peer(name: str, embedder: Embedder) -> RetrievalPeer:
    """The LLM-free retrieval system of peer ``name`` with caim's ``embedder``.

    Raises:
        ConfigError: ``name`` is not a peer, or its package cannot be imported.
    """
    if name == "mem0":
        return Mem0Retrieval(embedder)
    if name == "langmem":
        return LangMemRetrieval(embedder)
    raise ConfigError(f"unknown peer {name!r}; choose from: {', '.join(PEERS)}")
