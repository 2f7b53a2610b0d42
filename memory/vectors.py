"""The vector index on Chroma: nearest records by meaning, per user.

One collection holds every user's record vectors with ``user_id``, event time and ``current``
(still valid) as metadata; every query and delete is filtered by ``user_id``. Chroma runs embedded
(a directory in the data dir), in memory (tests, evaluation), or as a server (``chroma run``; an
``http(s)://`` URL selects the HTTP client). Chroma always receives our vectors, so it never loads
an embedding model of its own. The record database holds the same vectors: the index can be
rebuilt from it at any time.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import urlparse

import chromadb
import numpy as np
from chromadb.config import Settings as ChromaSettings

from caim.core.embeddings import Embedder
from caim.core.errors import StorageError

COLLECTION = "caim_memories"
_CLIENT_LOCK = threading.Lock()  # chromadb's client start-up is not safe from several threads at once
#: Largest batch sent to Chroma in one call (its own limit is higher; smaller batches keep latency even).
BATCH = 1000


def _client(path: Path | None, url: str | None, headers: Mapping[str, str] | None) -> chromadb.api.ClientAPI:
    settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    with _CLIENT_LOCK:
        if url:
            u = urlparse(url)
            if u.scheme not in ("http", "https") or not u.hostname:
                raise StorageError(f"CAIM_CHROMA_URL {url!r} is not an http(s):// URL")
            try:
                return chromadb.HttpClient(
                    host=u.hostname, port=u.port or (443 if u.scheme == "https" else 8000), ssl=u.scheme == "https",
                    headers=dict(headers or {}), settings=settings,
                )
            except Exception as exc:  # connection refused, bad token: one line, not a traceback
                raise StorageError(f"Chroma server at {url} does not answer ({type(exc).__name__}: {exc})") from None
        if path is None:
            return chromadb.EphemeralClient(settings=settings)
        try:
            path.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(path), settings=settings)
        except Exception as exc:
            raise StorageError(f"Chroma directory {path} cannot be opened ({type(exc).__name__}: {exc})") from None


class VectorIndex:
    """Record vectors in Chroma. ``path=None`` and no ``url``: in memory, a collection of its own."""

    def __init__(
        self,
        path: Path | str | None,
        embedder: Embedder,
        *,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        collection: str | None = None,
    ):
        self.where = url or (str(path) if path is not None else "memory")
        self.client = _client(Path(path) if path is not None else None, url, headers)
        # The in-memory client is shared within a process: each in-memory index gets its own collection.
        name = collection or (COLLECTION if (path is not None or url) else f"{COLLECTION}_{uuid.uuid4().hex[:12]}")
        self._embedder = embedder
        self._name = name
        self.collection = self._open()
        self._lock = threading.RLock()

    def _open(self):  # type: ignore[no-untyped-def]
        try:
            return self.client.get_or_create_collection(
                self._name, embedding_function=self._embedder.chroma_function(), metadata={"hnsw:space": "cosine"}
            )
        except Exception as exc:
            raise StorageError(f"Chroma collection {self._name} at {self.where} cannot be opened ({exc})") from None

    def add(self, items: Sequence[tuple[str, str, float, bool, np.ndarray]]) -> None:
        """Upsert (id, user, event time, current, vector) items."""
        for i in range(0, len(items), BATCH):
            chunk = items[i : i + BATCH]
            with self._lock:
                self.collection.upsert(
                    ids=[x[0] for x in chunk],
                    embeddings=[np.asarray(x[4], dtype=np.float32) for x in chunk],
                    metadatas=[{"user_id": x[1], "ts": float(x[2]), "current": bool(x[3])} for x in chunk],
                )

    def delete(self, ids: Sequence[str]) -> None:
        for i in range(0, len(ids), BATCH):
            with self._lock:
                self.collection.delete(ids=list(ids[i : i + BATCH]))

    def nearest(self, user_id: str, vector: np.ndarray, k: int, current_only: bool = False) -> list[tuple[str, float]]:
        """(id, cosine similarity) of the user's ``k`` records nearest to ``vector``."""
        if k <= 0:
            return []
        where: dict = {"user_id": user_id}
        if current_only:
            where = {"$and": [where, {"current": True}]}
        got = self.collection.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)], n_results=k, where=where, include=["distances"]
        )
        ids = got["ids"][0] if got["ids"] else []
        dists = got["distances"][0] if got.get("distances") else []
        return [(i, 1.0 - float(d)) for i, d in zip(ids, dists, strict=False)]

    def has(self, ids: Sequence[str]) -> set[str]:
        got = self.collection.get(ids=list(ids), include=[])
        return set(got["ids"])

    def rebuild(self) -> None:
        """Drop and recreate the collection (``caim memories reindex``)."""
        with self._lock:
            try:
                self.client.delete_collection(self._name)
            except Exception:  # already gone or unreadable: recreate anyway
                pass
            self.collection = self._open()
