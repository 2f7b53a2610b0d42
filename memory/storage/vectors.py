"""The vector index on Chroma: nearest records by meaning, one collection per user.

Each user's record vectors live in a collection of their own (``<namespace>_u_<hash of the user id>``):
a query never needs a metadata filter (Chroma's filtered queries cost in proportion to the records
they match, so a user's query cost does not grow with other users' records) and another user's
vectors are not even in the searched index.
Chroma runs embedded (a directory in the data dir), in memory (tests, evaluation), or as a server
(``chroma run``; an ``http(s)://`` URL selects the HTTP client). Chroma always receives our vectors,
so it never loads an embedding model of its own; documents are not stored in it (the record
database holds them). The index can be rebuilt from the record database at any time.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import shutil
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import chromadb
import numpy as np
from chromadb.config import Settings as ChromaSettings

from caim.core.embeddings import Embedder
from caim.core.errors import StorageError
from caim.core.files import private_dir

log = logging.getLogger(__name__)
_CLIENT_LOCK = threading.Lock()  # chromadb's client start-up is not safe from several threads at once
#: Chroma's embedded store takes one writing process at a time: writers on one directory queue on this file.
WRITER_LOCK = ".writer.lock"
#: Largest batch sent to Chroma in one call (chromadb's embedded store takes up to 5,461). The
#: embedded index saves a collection (its graph's changed parts and its whole id map) after each
#: call that brings it ``hnsw:sync_threshold`` (1,000) changes or more: larger calls, fewer saves.
BATCH = 5000
#: The graph settings of a user's new collection (HNSW; collections made before keep theirs): a
#: narrower search while inserting and a wider one while querying than chromadb's defaults (100 and
#: 100), which costs about a fifth less to build and finds as many of the true nearest (docs/scale.md).
HNSW = {"hnsw:construction_ef": 64, "hnsw:search_ef": 128}

Item = tuple[str, str, float, bool, np.ndarray]  # id, user, event time, current, vector


class DamagedIndex(StorageError):
    """The embedded Chroma directory cannot be read as one: ``caim memories reindex`` replaces it."""


def _client(path: Path | None, url: str | None, headers: Mapping[str, str] | None) -> Any:
    settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    with _CLIENT_LOCK:
        if url:
            u = urlparse(url)
            if u.scheme not in ("http", "https") or not u.hostname:
                raise StorageError(f"CAIM_CHROMA_URL {url!r} is not an http(s):// URL")
            try:
                client = chromadb.HttpClient(
                    host=u.hostname,
                    port=u.port or (443 if u.scheme == "https" else 8000),
                    ssl=u.scheme == "https",
                    headers=dict(headers or {}),
                    settings=settings,
                )
                client.heartbeat()
                return client
            except Exception as exc:  # connection refused, bad token: one line, not a traceback
                raise StorageError(f"Chroma server at {url} does not answer ({type(exc).__name__}: {exc})") from None
        if path is None:
            return chromadb.EphemeralClient(settings=settings)
        try:
            private_dir(path)
            with _flock(path / WRITER_LOCK):  # a new directory is initialised by the first process only
                return chromadb.PersistentClient(path=str(path), settings=settings)
        except OSError as exc:  # permissions, a full disk: not damage
            raise StorageError(f"Chroma directory {path} cannot be opened ({exc.strerror or exc})") from None
        except Exception as exc:  # chromadb's own errors: its files are not what it wrote
            _forget_client(path)
            raise DamagedIndex(
                f"{path.name} in {path.parent} is damaged ({_one_line(exc)}): run `caim memories reindex`, "
                "which rebuilds it from memory.sqlite"
            ) from None


def _forget_client(path: Path) -> None:
    """Drop chromadb's cached client of ``path`` (one that failed to start is otherwise reused)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient._identifier_to_system.pop(str(path), None)
    SharedSystemClient._identifier_to_refcount.pop(str(path), None)


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


@contextmanager
def _flock(path: Path) -> Iterator[None]:
    """An exclusive lock on a file, across processes."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


class VectorIndex:
    """Record vectors in Chroma, a collection per user. ``path=None`` and no ``url``: in memory, with
    collection names of its own (the in-memory client is shared within a process)."""

    def __init__(
        self,
        path: Path | str | None,
        embedder: Embedder,
        *,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        namespace: str = "caim",
        replace_damaged: bool = False,
    ):
        """``replace_damaged``: an embedded directory that chromadb cannot open is removed and
        started again empty (its vectors are copies of the record database's; a rebuild fills it)."""
        self.where = url or (str(path) if path is not None else "memory")
        try:
            self.client = _client(Path(path) if path is not None else None, url, headers)
        except DamagedIndex:
            if not replace_damaged or path is None:
                raise
            # the directory holds only copies of the record database's vectors: start it again empty
            log.warning("removing the damaged vector index %s to rebuild it", path)
            shutil.rmtree(path)
            self.client = _client(Path(path), url, headers)
        shared = path is not None or url
        #: Whether the index runs in this process (chromadb's embedded bindings, which hold the
        #: interpreter while they write) rather than on a server.
        self.in_process = not url
        self.prefix = f"{namespace}_u_" if shared else f"{namespace}_{uuid.uuid4().hex[:8]}_"
        self._function = embedder.chroma_function()
        self._collections: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._writers = Path(path) / WRITER_LOCK if path is not None and not url else None
        self._held = threading.local()

    def _name(self, user_id: str) -> str:
        return self.prefix + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]

    def _collection(self, user_id: str, create: bool) -> Any:
        with self._lock:
            col = self._collections.get(user_id)
            if col is not None:
                return col
            name = self._name(user_id)
            try:
                if create:
                    with self._writing():
                        col = self.client.get_or_create_collection(
                            name,
                            embedding_function=self._function,
                            metadata={"hnsw:space": "cosine", **HNSW, "user_id": user_id},
                        )
                else:
                    col = self.client.get_collection(name, embedding_function=self._function)
            except Exception as exc:
                if not create:
                    return None  # no vectors for this user yet
                raise StorageError(f"Chroma collection {name} at {self.where} cannot be opened ({exc})") from None
            self._collections[user_id] = col
            return col

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Hold the directory's writer lock (re-entrant within a thread: adding may open a collection)."""
        depth = getattr(self._held, "depth", 0)
        if self._writers is None or depth:
            self._held.depth = depth + 1
            try:
                yield
            finally:
                self._held.depth = depth
            return
        with _flock(self._writers):
            self._held.depth = 1
            try:
                yield
            finally:
                self._held.depth = 0

    def add(self, items: Sequence[Item]) -> None:
        """Upsert (id, user, event time, current, vector) items."""
        by_user: dict[str, list[Item]] = {}
        for it in items:
            by_user.setdefault(it[1], []).append(it)
        with self._writing():
            self._add(by_user)

    def _add(self, by_user: dict[str, list[Item]]) -> None:
        for user_id, its in by_user.items():
            col = self._collection(user_id, create=True)
            for i in range(0, len(its), BATCH):
                chunk = its[i : i + BATCH]
                col.upsert(
                    ids=[x[0] for x in chunk],
                    embeddings=[np.asarray(x[4], dtype=np.float32) for x in chunk],
                    metadatas=[{"ts": float(x[2]), "current": bool(x[3])} for x in chunk],
                )

    def delete(self, items: Sequence[tuple[str, str]]) -> None:
        """Delete (id, user) items."""
        by_user: dict[str, list[str]] = {}
        for rid, user_id in items:
            by_user.setdefault(user_id, []).append(rid)
        with self._writing():
            for user_id, ids in by_user.items():
                col = self._collection(user_id, create=False)
                if col is not None:
                    for i in range(0, len(ids), BATCH):
                        col.delete(ids=ids[i : i + BATCH])

    def drop_user(self, user_id: str) -> None:
        """Delete the user's collection and every vector in it (no collection: nothing happens)."""
        with self._lock, self._writing(), contextlib.suppress(Exception):  # no collection: nothing to drop
            self._collections.pop(user_id, None)
            self.client.delete_collection(self._name(user_id))

    def nearest(self, user_id: str, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """(id, cosine similarity) of the user's ``k`` records nearest to ``vector``."""
        col = self._collection(user_id, create=False)
        if col is None or k <= 0:
            return []
        got = col.query(query_embeddings=[np.asarray(vector, dtype=np.float32)], n_results=k, include=["distances"])
        ids = got["ids"][0] if got["ids"] else []
        dists = got["distances"][0] if got.get("distances") else []
        return [(i, 1.0 - float(d)) for i, d in zip(ids, dists, strict=False)]

    def has(self, user_id: str, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` whose vectors the user's collection holds."""
        col = self._collection(user_id, create=False)
        return set(col.get(ids=list(ids), include=[])["ids"]) if col is not None else set()

    def count(self) -> int:
        """How many vectors the index holds, over every user's collection."""
        return sum(c.count() for c in self._own())

    def _own(self) -> list[Any]:
        return [
            self.client.get_collection(c.name if hasattr(c, "name") else c)
            for c in self.client.list_collections()
            if str(getattr(c, "name", c)).startswith(self.prefix)
        ]

    def rebuild(self) -> None:
        """Drop every collection of this index (``caim memories reindex`` then fills them again)."""
        with self._lock:
            self._collections.clear()
            for c in self.client.list_collections():
                name = str(getattr(c, "name", c))
                if name.startswith(self.prefix):
                    self.client.delete_collection(name)
