"""LTM on Chroma: one persistent collection, every record namespaced by user id.

Tags are stored as Chroma array metadata (queried with ``$contains``), the event time as numeric
metadata (epoch seconds, for range filters). Every read and delete is filtered by ``user_id`` so
one user's records are never visible to another.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import chromadb
from chromadb.config import Settings as ChromaSettings

from caim.core.embeddings import Embedder
from caim.memory.records import MemoryRecord, SourceTurn, as_aware

log = logging.getLogger(__name__)

COLLECTION = "caim_memories"
_FETCH_CEILING = 2000
_CLIENT_LOCK = threading.Lock()


def _epoch(dt: datetime) -> float:
    return as_aware(dt).timestamp()


def _from_epoch(x: float) -> datetime:
    return datetime.fromtimestamp(float(x), tz=UTC)


class MemoryStore:
    """Chroma-backed record store. ``path=None`` keeps everything in memory (tests, eval)."""

    def __init__(self, path: Path | str | None, embedder: Embedder):
        self.embedder = embedder
        chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        with _CLIENT_LOCK:  # chromadb's client start-up is not safe to run from several threads at once
            if path is None:
                self.client = chromadb.EphemeralClient(settings=chroma_settings)
            else:
                Path(path).mkdir(parents=True, exist_ok=True)
                self.client = chromadb.PersistentClient(path=str(path), settings=chroma_settings)
        # Chroma's ephemeral client is shared within a process: give each in-memory store its own collection.
        name = COLLECTION if path is not None else f"{COLLECTION}_{uuid.uuid4().hex[:12]}"
        self.collection = self.client.get_or_create_collection(
            name,
            embedding_function=embedder.chroma_function(),
            metadata={"hnsw:space": "cosine"},
        )
        self._lock = threading.RLock()

    # ---- conversion -------------------------------------------------------------------------
    @staticmethod
    def _meta(r: MemoryRecord) -> dict:
        return {
            "user_id": r.user_id,
            "tags": list(r.tags),
            "ts": _epoch(r.event_time),
            "created": _epoch(r.created_at),
            "updated": _epoch(r.updated_at),
            "session_id": r.session_id,
            "sources": json.dumps([s.model_dump(mode="json") for s in r.sources]),
        }

    @staticmethod
    def _record(rid: str, doc: str, meta: dict) -> MemoryRecord:
        return MemoryRecord(
            id=rid,
            user_id=meta["user_id"],
            thought=doc,
            tags=list(meta.get("tags") or ["personal"]),
            event_time=_from_epoch(meta["ts"]),
            created_at=_from_epoch(meta.get("created", meta["ts"])),
            updated_at=_from_epoch(meta.get("updated", meta["ts"])),
            session_id=meta.get("session_id", ""),
            sources=[SourceTurn.model_validate(s) for s in json.loads(meta.get("sources") or "[]")],
        )

    def _records(self, got: dict) -> list[MemoryRecord]:
        rows = zip(got["ids"], got["documents"] or [], got["metadatas"] or [], strict=False)
        return [self._record(i, d, m) for i, d, m in rows]

    # ---- writes -----------------------------------------------------------------------------
    def add(self, records: Sequence[MemoryRecord]) -> None:
        if not records:
            return
        texts = [r.thought for r in records]
        with self._lock:
            self.collection.upsert(
                ids=[r.id for r in records],
                documents=texts,
                metadatas=[self._meta(r) for r in records],
                embeddings=self.embedder.embed(texts),
            )

    def replace(self, keep: MemoryRecord, remove_ids: Iterable[str]) -> None:
        """Upsert ``keep`` and delete ``remove_ids`` of the same user (used by the merge step)."""
        remove = [i for i in remove_ids if i != keep.id]
        with self._lock:
            self.add([keep])
            if remove:
                self.collection.delete(ids=remove, where={"user_id": keep.user_id})

    def delete(self, user_id: str, ids: Sequence[str]) -> int:
        with self._lock:
            present = self.collection.get(ids=list(ids), where={"user_id": user_id}, include=[])
            if present["ids"]:
                self.collection.delete(ids=present["ids"], where={"user_id": user_id})
            return len(present["ids"])

    def forget_user(self, user_id: str) -> int:
        with self._lock:
            got = self.collection.get(where={"user_id": user_id}, include=[])
            if got["ids"]:
                self.collection.delete(ids=got["ids"], where={"user_id": user_id})
            return len(got["ids"])

    # ---- reads ------------------------------------------------------------------------------
    def get(self, user_id: str, record_id: str) -> MemoryRecord | None:
        got = self.collection.get(ids=[record_id], where={"user_id": user_id}, include=["documents", "metadatas"])
        recs = self._records(got)
        return recs[0] if recs else None

    def list(self, user_id: str) -> list[MemoryRecord]:
        got = self.collection.get(where={"user_id": user_id}, include=["documents", "metadatas"], limit=_FETCH_CEILING)
        return sorted(self._records(got), key=lambda r: as_aware(r.event_time))

    def first(self, user_id: str) -> MemoryRecord | None:
        """This user's earliest record by event time ("our first conversation")."""
        recs = self.list(user_id)
        return recs[0] if recs else None

    def count(self, user_id: str) -> int:
        return len(self.collection.get(where={"user_id": user_id}, include=[])["ids"])

    def candidates(
        self,
        user_id: str,
        tags: Sequence[str] = (),
        ranges: Sequence[tuple[datetime, datetime]] = (),
        limit: int = 20,
    ) -> list[MemoryRecord]:
        """This user's records sharing a tag OR with an event time inside a range, newest first."""
        clauses: list[dict] = [{"tags": {"$contains": t}} for t in dict.fromkeys(tags)]
        clauses += [{"$and": [{"ts": {"$gte": _epoch(a)}}, {"ts": {"$lte": _epoch(b)}}]} for a, b in ranges]
        if not clauses:
            return []
        match = clauses[0] if len(clauses) == 1 else {"$or": clauses}
        got = self.collection.get(
            where={"$and": [{"user_id": user_id}, match]},
            include=["documents", "metadatas"],
            limit=_FETCH_CEILING,
        )
        recs = sorted(self._records(got), key=lambda r: as_aware(r.event_time), reverse=True)
        return recs[:limit]

    def similar(self, user_id: str, text: str, k: int) -> list[tuple[MemoryRecord, float]]:
        """The ``k`` records of this user closest in meaning to ``text``, with cosine similarity."""
        if k <= 0 or not text.strip():
            return []
        got = self.collection.query(
            query_embeddings=self.embedder.embed([text]),
            n_results=k,
            where={"user_id": user_id},
            include=["documents", "metadatas", "distances"],
        )
        recs = self._records({"ids": got["ids"][0], "documents": got["documents"][0], "metadatas": got["metadatas"][0]})
        return [(r, 1.0 - float(d)) for r, d in zip(recs, got["distances"][0], strict=False)]
