"""Long-term memory: the record database (source of truth, lexical index) and the Chroma vector index.

``MemoryStore`` keeps the two consistent. A write goes to the database (record, postings, vector,
marked "not yet indexed") and is retrievable at once; an indexer thread then copies new vectors to
Chroma in batches and marks them indexed (``flush`` waits for it), letting writes go first where
Chroma runs in this process (``INDEX_CHUNK``). A delete removes the database
rows and queues the vector deletion. Whatever a crash leaves undone is finished by ``repair`` when
the store opens, so the index never misses or keeps a record for long. Every read and delete is
filtered by user id: one user's records are never visible to another.

The store is the only door to storage: code outside ``caim.memory`` reads, writes and queues through
its methods (``queue`` for the post-thinking job queue), never through its database or vector index.
"""

from __future__ import annotations

import builtins
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import numpy as np

from caim.core.embeddings import Embedder
from caim.core.errors import StorageError
from caim.memory.profile import Profile, parse_profile, profile_key
from caim.memory.records import MemoryRecord, SourceTurn
from caim.memory.storage.db import DB_FILE, RecordDB
from caim.memory.storage.indexer import Indexer
from caim.memory.storage.jobs import JobQueue
from caim.memory.storage.locks import UserLocks
from caim.memory.storage.sql import Postgres
from caim.memory.storage.terms import TermBook
from caim.memory.storage.vectors import BATCH as VECTOR_BATCH
from caim.memory.storage.vectors import VectorIndex

log = logging.getLogger(__name__)

#: The collection of the legacy layout (records in Chroma only, no record database): a store that
#: opens a data dir holding it copies its records into the database, once.
LEGACY_COLLECTION = "caim_memories"
CHROMA_DIR = "chroma"
Progress = Callable[[int, int], None]
#: Vectors one call sends to an in-process vector index. chromadb's embedded index holds the
#: interpreter while it inserts (no other thread runs): the background indexer sends ``INDEX_CHUNK``
#: when no write has run for ``QUIET_S`` seconds, and ``WRITES_CHUNK`` when a stream of writes kept it
#: waiting ``WRITES_FIRST_S`` seconds (so a write waits for at most one small call, and indexing is
#: delayed by writes, never stopped). A large chunk when quiet: each call saves the collection's
#: graph and its whole id map once (``caim.memory.storage.vectors.BATCH``), a cost that grows with the records.
INDEX_CHUNK = VECTOR_BATCH
WRITES_CHUNK = 100
QUIET_S = 0.2
WRITES_FIRST_S = 1.0


class Writes:
    """The database writes in flight, so that the background indexer can let them go first."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._active = 0
        self._ended = 0.0  # time.monotonic() when the last write ended

    @contextmanager
    def running(self) -> Iterator[None]:
        """Held while a write runs."""
        with self._cv:
            self._active += 1
        try:
            yield
        finally:
            with self._cv:
                self._active -= 1
                self._ended = time.monotonic()
                self._cv.notify_all()

    def pause(self, quiet: float, most: float) -> bool:
        """Return once no write has run for ``quiet`` seconds (True), or after ``most`` seconds
        whatever runs (False)."""
        deadline = time.monotonic() + most
        with self._cv:
            while (now := time.monotonic()) < deadline:
                idle = now - self._ended
                if not self._active and idle >= quiet:
                    return True
                self._cv.wait(min(deadline - now, quiet - idle if not self._active else deadline - now))
        return False


class MemoryStore:
    """Records of every user. ``data_dir=None`` keeps everything in memory (tests, evaluation runs)."""

    def __init__(
        self,
        data_dir: Path | str | None,
        embedder: Embedder,
        *,
        chroma_url: str | None = None,
        chroma_headers: Mapping[str, str] | None = None,
        database_url: str | None = None,
        namespace: str = "caim",
        check_embedder: bool = True,
        replace_damaged_index: bool = False,
        quota: tuple[int, int] | None = None,
        indexer: Indexer | None = None,
    ):
        """Embedded: a database file and a Chroma directory in ``data_dir`` (``None``: in memory).
        Shared: ``database_url`` (PostgreSQL) and ``chroma_url`` (a Chroma server), both needed so
        that every worker sees the same records and vectors; ``namespace`` separates deployments.
        ``check_embedder=False`` opens a store whose records another model embedded (to re-embed it).
        ``replace_damaged_index``: an embedded Chroma directory that cannot be opened is removed and
        started again empty, for ``reindex`` to fill (without it: a one-line ``StorageError``).
        ``quota``: the most (records, bytes of records) a user may keep; a write past either is a
        one-line ``QuotaError`` and stores nothing (``None``: no limit). ``indexer`` reads written
        records' words for the lexical index (``None``: the default ``caim.memory`` registers)."""
        root = Path(data_dir) if data_dir is not None else None
        if database_url and not chroma_url and root is not None:
            raise StorageError("CAIM_DATABASE_URL needs CAIM_CHROMA_URL too (a vector index every worker shares)")
        self.embedder = embedder
        self.db = RecordDB(
            root / DB_FILE if root is not None else None, url=database_url, namespace=namespace, indexer=indexer
        )
        self.db.quota = quota
        try:
            self.vectors = VectorIndex(
                root / CHROMA_DIR if root is not None else None,
                embedder,
                url=chroma_url,
                headers=chroma_headers,
                namespace=namespace,
                replace_damaged=replace_damaged_index,
            )
        except BaseException:
            self.db.close()
            raise
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._stop = threading.Event()
        self._index_lock = threading.Lock()
        self._writes = Writes()
        self._indexer: threading.Thread | None = None
        self._closed = False
        #: The durable queue of ended sessions waiting for post-thinking.
        self.queue = JobQueue(self.db)
        #: The ontology terms learned from each user's words.
        self.terms = TermBook(self.db)
        self.locks = UserLocks(root / "locks" if root is not None else None)
        if check_embedder:
            self._check_embedder()
        if root is not None:
            self._migrate_legacy()
        self.repair()

    # ---- consistency ------------------------------------------------------------------------------
    def _check_embedder(self) -> None:
        used = self.db.get_meta("embedder")
        if used is None:
            self.db.set_meta("embedder", self.embedder.name)
        elif used != self.embedder.name:
            raise StorageError(
                f"memories in {self.db.path} were embedded with {used}, not {self.embedder.name}: "
                f"run `caim memories reembed` to switch them, or set CAIM_EMBEDDING_MODEL={used} to keep them"
            )

    def repair(self, *, writes_first: bool = False) -> tuple[int, int]:
        """Apply vector writes and deletions not yet applied (after writes, or a crash): (indexed, deleted).

        The vectors go in chunks, each read, sent and marked under the index lock; ``writes_first``
        (the background indexer) lets writes to the database go before each chunk sent to an
        in-process index (``INDEX_CHUNK``)."""
        with self._index_lock:
            deletes = self.db.pending_deletes()
            if deletes:
                self.vectors.delete(deletes)
                self.db.clear_deletes([i for i, _ in deletes])
        added = 0
        while self.db.pending_count(1):
            chunk = VECTOR_BATCH
            if writes_first and self.vectors.in_process:
                chunk = INDEX_CHUNK if self._writes.pause(QUIET_S, WRITES_FIRST_S) else WRITES_CHUNK
            with self._index_lock:
                pending = self.db.pending_vectors(chunk)
                if not pending:
                    break
                self.vectors.add([item for _, item in pending])
                self.db.mark_indexed(pending)
            added += len(pending)
        return added, len(deletes)

    def _index_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(1.0)
            self._wake.clear()
            try:
                self.repair(writes_first=True)
            except Exception:  # Chroma briefly unavailable: the rows stay pending, retried next round
                log.exception("vector indexing failed; will retry")
                self._stop.wait(1.0)
            if not self._wake.is_set():
                self._idle.set()

    def _kick(self) -> None:
        if self._indexer is None:
            self._indexer = threading.Thread(target=self._index_loop, name="caim-indexer", daemon=True)
            self._indexer.start()
        self._idle.clear()
        self._wake.set()

    def flush(self, timeout: float = 60.0) -> None:
        """Wait until the vector index holds every write made so far."""
        if self._indexer is None:
            self.repair()
            return
        self._wake.set()
        self._idle.wait(timeout)
        self.repair()

    def _migrate_legacy(self) -> None:
        """Copy the records of the legacy collection (``LEGACY_COLLECTION``) into the database, once per
        database; a record that cannot be read is logged and left out."""
        if self.db.get_meta("legacy_checked"):
            return
        try:
            legacy = self.vectors.client.get_collection(LEGACY_COLLECTION)
            got = legacy.get(include=["documents", "metadatas"])
        except Exception:  # no legacy collection: nothing to migrate
            got = {"ids": []}
        records = []
        for rid, doc, meta in zip(got["ids"], got.get("documents") or [], got.get("metadatas") or [], strict=False):
            try:
                records.append(
                    MemoryRecord(
                        id=rid,
                        user_id=meta["user_id"],
                        thought=doc,
                        tags=list(meta.get("tags") or ["personal"]),
                        event_time=_ts(meta["ts"]),
                        created_at=_ts(meta.get("created", meta["ts"])),
                        updated_at=_ts(meta.get("updated", meta["ts"])),
                        session_id=meta.get("session_id", ""),
                        sources=[SourceTurn.model_validate(s) for s in json.loads(meta.get("sources") or "[]")],
                    )
                )
            except (KeyError, ValueError) as exc:
                log.warning("legacy record %s not migrated: %s", rid, exc)
        if records:
            self.add(records)
            log.info("migrated %d records of an earlier caim version", len(records))
        self.db.set_meta("legacy_checked", "1")

    # ---- writes -----------------------------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The store's embedder's vectors for ``texts``, one row per text (``Embedder.vectors_of``: a text
        embedded lately is not embedded again)."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return self.embedder.vectors_of(texts)

    def add(
        self,
        records: Sequence[MemoryRecord],
        vectors: Sequence[Sequence[float] | np.ndarray | None] | np.ndarray | None = None,
    ) -> None:
        """Insert or replace records (same id: replaced, never duplicated), with their ``vectors``
        when given (per record; ``None`` where a record has none). A record without a given vector
        whose embedded text and validity did not change keeps its vector: no embedding, no
        vector-index write; the others are embedded, in one batch."""
        if not records:
            return
        given: list[np.ndarray | None] = (
            [None if v is None else np.asarray(v, dtype=np.float32) for v in vectors]
            if vectors is not None
            else [None] * len(records)
        )
        if len(given) != len(records):
            raise ValueError(f"{len(records)} records but {len(given)} vectors")
        before = self.db.indexed_state([r.id for r, v in zip(records, given, strict=True) if v is None])
        unchanged = [
            v is None
            and r.id in before
            and before[r.id][0] == r.embedded_text()
            and before[r.id][1] == (r.valid_until is None)
            and before[r.id][2] is not None
            for r, v in zip(records, given, strict=True)
        ]
        todo = [
            r.embedded_text() for r, v, same in zip(records, given, unchanged, strict=True) if v is None and not same
        ]
        fresh = iter(self.embed(todo)) if todo else iter(())
        # ``same`` only where the database holds the record's vector
        vecs = np.vstack(
            [
                v if v is not None else cast(np.ndarray, before[r.id][2]) if same else next(fresh)
                for r, v, same in zip(records, given, unchanged, strict=True)
            ]
        )
        indexed = [same and before[r.id][3] for r, same in zip(records, unchanged, strict=True)]
        with self._writes.running():
            self.db.upsert(records, vecs, indexed)
        if not all(indexed):
            self._kick()

    def dims(self) -> int:
        """The length of the embedder's vectors (one text embedded, once, when the embedder does not say)."""
        found = getattr(self.embedder, "dims", None) or self.__dict__.get("_dims")
        if not isinstance(found, int):
            found = self.__dict__["_dims"] = len(self.embed(["dimensions"])[0])
        return found

    def replace(self, keep: MemoryRecord, remove_ids: Iterable[str]) -> None:
        """Write ``keep`` and delete ``remove_ids`` of the same user (merges)."""
        self.add([keep])
        self.delete(keep.user_id, [i for i in remove_ids if i != keep.id])

    def delete(self, user_id: str, ids: Sequence[str], *, compact: bool = False) -> int:
        """Delete this user's records among ``ids``; ``compact``: also leave no trace in the files."""
        removed = self.db.delete(user_id, ids)
        if removed:
            self._kick()
            if compact:
                self.compact()
        return len(removed)

    def compact(self) -> None:
        """Leave no trace of deleted records or replaced values in the files: the vector index's
        pending deletes applied, the database rewritten."""
        self.flush()
        self.db.compact()

    def forget_user(self, user_id: str) -> int:
        """Delete every record of the user (and the ontology terms learned from their words), in the
        database and the vector index, and compact the database so no forgotten text is left in its files."""
        n = self.db.forget_user(user_id)
        self.db.set_meta(profile_key(user_id), "")
        with self._index_lock:
            self.vectors.drop_user(user_id)
            self.db.clear_deletes([i for i, u in self.db.pending_deletes() if u == user_id])
        self.db.compact()
        return n

    def user_lock(self, user_id: str) -> AbstractContextManager[None]:
        """Held while a user's records are read, decided on and written (post-thinking)."""
        return self.lock(f"user:{user_id}")

    def lock(self, key: str) -> AbstractContextManager[None]:
        """A named lock across threads and processes on one data dir, or across machines with a
        shared database (a PostgreSQL advisory lock)."""
        if isinstance(self.db.conn, Postgres):
            return self.db.conn.advisory(key)
        return self.locks.hold(key)

    def reembed(self, progress: Progress | None = None, batch: int = 256) -> int:
        """Re-embed every record with the current embedder (after switching models) and rebuild the index."""
        users = self.db.users()
        total = sum(self.db.count(u) for u in users)
        self.vectors.rebuild()
        self.db.reset_vector_state()
        done = 0
        for user in users:
            chunk: list[MemoryRecord] = []
            for rec in self.db.iter_user(user):
                chunk.append(rec)
                if len(chunk) >= batch:
                    self.add(chunk, vectors=self.embed([r.embedded_text() for r in chunk]))
                    done += len(chunk)
                    chunk = []
                    if progress:
                        progress(done, total)
            if chunk:
                self.add(chunk, vectors=self.embed([r.embedded_text() for r in chunk]))
            done += len(chunk)
            if progress:
                progress(done, total)
        self.db.set_meta("embedder", self.embedder.name)
        return done

    def reindex(self, batch: int = 500) -> int:
        """Rebuild the vector index from the database's vectors (a damaged Chroma directory) and the
        lexical index from the records (after an upgrade that changed what it holds)."""
        self.vectors.rebuild()
        n = self.db.reset_vector_state()
        for user in self.db.users():
            ids = [r.id for r in self.db.iter_user(user)]
            for i in range(0, len(ids), batch):
                recs = self.db.get(user, ids[i : i + batch])
                state = self.db.indexed_state([r.id for r in recs])
                vectors = {r.id: v for r in recs if (v := state[r.id][2]) is not None}
                kept = [r for r in recs if r.id in vectors]
                if kept:
                    self.db.upsert(kept, [vectors[r.id] for r in kept])
        self.flush()
        return n

    def in_step(self) -> tuple[int, int]:
        """(records with a vector in the database, vectors in the index), after pending index writes:
        unequal when one side was damaged, emptied or replaced (``reindex`` rebuilds the index)."""
        self.flush()
        return self.db.vectors_held(), self.vectors.count()

    def unindexed(self, limit: int = 1000) -> int:
        """How many written records the vector index does not hold yet (counted up to ``limit``)."""
        return self.db.pending_count(limit)

    @property
    def records_at(self) -> str:
        """Where the records are kept (the database file; ``None`` in memory or on a server), for reports."""
        return str(self.db.path)

    @property
    def vectors_at(self) -> str:
        """Where the vector index is kept (a Chroma directory or server, or ``memory``), for reports."""
        return self.vectors.where

    def get_meta(self, key: str) -> str | None:
        """A value of the database's key-value table (shared by every worker of a shared database)."""
        return self.db.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the database's key-value table."""
        self.db.set_meta(key, value)

    def profile(self, user_id: str) -> Profile:
        """The user's profile (an empty one when none was written, or when it cannot be read)."""
        return parse_profile(self.db.get_meta(profile_key(user_id)), user_id)

    def save_profile(self, profile: Profile) -> None:
        """Store ``profile`` as its user's (replacing the one before)."""
        self.db.set_meta(profile_key(profile.user_id), profile.model_dump_json())

    # ---- what the search reads (``caim.memory.search.engine.SearchStore``) ------------------------------
    def search_stats(self, user_id: str) -> tuple[int, float, int]:
        """The user's record count, mean lexical length and write version."""
        return self.db.stats(user_id)

    def columns(self, user_id: str, rids: Sequence[int] | None = None) -> dict[str, Any]:
        """The user's records (all, or those numbered ``rids``) as raw columns for the ranking."""
        return self.db.columns(user_id, rids)

    def by_rid(self, user_id: str, rids: Sequence[int]) -> dict[int, MemoryRecord]:
        """The user's records numbered ``rids``, by number (missing ones left out)."""
        return self.db.by_rid(user_id, rids)

    def postings(self, user_id: str, term: str, newest: int | None = None) -> builtins.list[tuple[int, int, int]]:
        """The lexical postings of ``term`` in the user's records (``caim.memory.search.lexical``)."""
        return self.db.postings(user_id, term, newest)

    def document_frequency(self, user_id: str, terms: Iterable[str]) -> dict[str, int]:
        """How many of the user's records hold each of ``terms``."""
        return self.db.document_frequency(user_id, terms)

    def in_range(self, user_id: str, start: float, end: float, limit: int) -> builtins.list[int]:
        """Numbers of up to ``limit`` of the user's records dated from ``start`` to ``end`` (epoch seconds)."""
        return self.db.in_range(user_id, start, end, limit)

    def with_names(self, user_id: str, found: Sequence[str], limit: int) -> builtins.list[int]:
        """Numbers of up to ``limit`` of the user's records naming one of ``found`` (lower case)."""
        return self.db.with_names(user_id, found, limit)

    def neighbours_of(self, user_id: str, rids: Sequence[int]) -> builtins.list[int]:
        """Numbers of the turns before and after the records numbered ``rids`` (same session)."""
        return self.db.neighbours_of(user_id, rids)

    def nearest_rids(self, user_id: str, vector: np.ndarray, k: int) -> builtins.list[int]:
        """Numbers of the user's ``k`` indexed records nearest to ``vector`` (the vector index)."""
        return self.db.rids_of(user_id, [i for i, _ in self.vectors.nearest(user_id, vector, k)])

    def pending_vectors(self, user_id: str, newest: int) -> tuple[builtins.list[int], np.ndarray]:
        """Numbers and vectors of the user's ``newest`` latest records the vector index does not hold yet."""
        return self.db.pending_vectors_of(user_id, newest)

    def names_of(self, user_id: str, rids: Sequence[int]) -> dict[int, set[str]]:
        """The names each of the records numbered ``rids`` mentions."""
        return self.db.names_of(user_id, rids)

    def tags_of(self, user_id: str, rids: Sequence[int]) -> dict[int, set[str]]:
        """The tags of each of the records numbered ``rids``."""
        return self.db.tags_of(user_id, rids)

    def speakers(self, user_id: str) -> builtins.list[str]:
        """The user's known speakers."""
        return self.db.speakers(user_id)

    def sample_vectors(self, user_id: str, k: int) -> np.ndarray:
        """Up to ``k`` of the user's vectors, one per row."""
        return self.db.sample_vectors(user_id, k)

    def usual_language(self, user_id: str, k: int) -> str:
        """The language a sample of ``k`` of the user's texts is usually in (a ``detect`` code)."""
        return self.db.usual_language(user_id, k=k)

    # ---- reads ------------------------------------------------------------------------------------
    def get(self, user_id: str, record_id: str) -> MemoryRecord | None:
        """This user's record with id ``record_id`` (``None``: no such record of this user)."""
        got = self.db.get(user_id, [record_id])
        return got[0] if got else None

    def get_many(self, user_id: str, ids: Sequence[str]) -> list[MemoryRecord]:
        """This user's records among ``ids``, in the order of ``ids`` (missing ones left out, each once)."""
        return self.db.get(user_id, ids)

    def held_vectors(self, records: Sequence[MemoryRecord]) -> np.ndarray:
        """The vectors of ``records`` (one row each, in order) as the database holds them, the vector
        of their embedded text (``add`` wrote it); a record the database holds no vector for gets its
        text's vector from the embedder. Maintenance compares records by
        these: no record is embedded again to be compared."""
        if not records:
            return np.zeros((0, 0), dtype=np.float32)
        held = self.db.vectors(records[0].user_id, [r.id for r in records])
        missing = [r for r in records if r.id not in held]
        if missing:
            held.update(zip([r.id for r in missing], self.embed([r.embedded_text() for r in missing]), strict=True))
        return np.vstack([held[r.id] for r in records])

    def iter(self, user_id: str) -> Iterator[MemoryRecord]:
        """Every record of the user, oldest first, paged (constant memory)."""
        return self.db.iter_user(user_id)

    def iter_vectors(self, user_id: str) -> Iterator[tuple[MemoryRecord, np.ndarray | None]]:
        """``iter`` with each record's vector as the database holds it (float16 precision)."""
        return self.db.iter_vectors(user_id)

    def list(self, user_id: str) -> list[MemoryRecord]:
        """Every record of the user, oldest first, in one list (``iter`` pages instead)."""
        return list(self.db.iter_user(user_id))

    def usage(self, user_id: str) -> tuple[int, int]:
        """(records, bytes of records) the user keeps: what the quota limits."""
        return self.db.usage(user_id)

    def count(self, user_id: str) -> int:
        """How many records the user has (0 for an unknown user)."""
        return self.db.count(user_id)

    def page(
        self, user_id: str, offset: int, limit: int, tags: Sequence[str] | None = None
    ) -> builtins.list[MemoryRecord]:
        """Up to ``limit`` of the user's records, newest event first, skipping the first ``offset``;
        with ``tags``, only those carrying at least one of them (one query, however many records)."""
        return self.db.page(user_id, max(offset, 0), max(limit, 0), tags)

    def count_tagged(self, user_id: str, tags: Sequence[str]) -> int:
        """How many of the user's records carry at least one of ``tags``."""
        return self.db.count_tagged(user_id, tags)

    def version(self, user_id: str) -> int:
        """The user's write version: it changes with every write of the user's records, by any worker
        (what is computed from them may be kept while it stays the same)."""
        return self.db.stats(user_id)[2]

    def event_times(self, user_id: str) -> builtins.list[float]:
        """The event time (epoch seconds) of each of the user's records, in no particular order."""
        return self.db.event_times(user_id)

    def tag_rows(self, user_id: str) -> builtins.list[tuple[int, str]]:
        """(record number, tag) for every tag of every record of the user, in no particular order; a
        record's tags share its number (within one read: the number is no id to keep)."""
        return self.db.tag_rows(user_id)

    def denied(self, user_id: str) -> builtins.list[str]:
        """The ontology terms this user has denied: nothing under them is stored for the user."""
        return self.db.denied(user_id)

    def deny(self, user_id: str, term: str) -> bool:
        """Add ``term`` to the user's denied terms (kept in the database); False when it was there."""
        return self.db.deny(user_id, term, datetime.now(UTC).isoformat())

    def allow(self, user_id: str, term: str) -> bool:
        """Remove ``term`` from the user's denied terms; False when it was not there."""
        return self.db.allow(user_id, term)

    def first(self, user_id: str) -> MemoryRecord | None:
        """This user's earliest record by event time ("our first conversation")."""
        return self.db.first(user_id)

    def users(self) -> builtins.list[str]:
        """Every user with at least one record, sorted."""
        return self.db.users()

    def matching_ids(self, user_id: str, id_or_prefix: str) -> builtins.list[str]:
        """The record ids of this user that an id or an id prefix names.

        Args:
            user_id: The user.
            id_or_prefix: A record id, or the start of one.

        Returns:
            ``[id]`` when a record has that id, else the ids starting with it (at most two: more than
            one means the prefix is ambiguous).
        """
        if self.db.get(user_id, [id_or_prefix]):
            return [id_or_prefix]
        return self.db.ids_starting(user_id, id_or_prefix) if id_or_prefix else []

    def records_named(self, user_id: str, name: str, k: int) -> builtins.list[MemoryRecord]:
        """Up to ``k`` records of this user naming ``name`` (a person, pet, place or thing)."""
        return builtins.list(self.db.by_rid(user_id, self.db.with_names(user_id, [name], k)).values())

    def tagged_or_dated(
        self, user_id: str, tags: Sequence[str], ranges: Sequence[tuple[float, float]], limit: int
    ) -> builtins.list[MemoryRecord]:
        """This user's records under any of ``tags`` or with an event time in any of ``ranges``
        (timestamps, start and end), oldest written first; at most ``limit`` per tag set and range."""
        rids = set(self.db.with_tags(user_id, builtins.list(tags), limit))
        for start, end in ranges:
            rids |= set(self.db.in_range(user_id, start, end, limit))
        return builtins.list(self.db.by_rid(user_id, sorted(rids)).values())

    def session_ids(self, user_id: str) -> set[str]:
        """Sessions that stored or changed a record of this user (its own, and those in its history)."""
        return {s for r in self.db.iter_user(user_id) for s in (r.session_id, *(h.session_id for h in r.history))}

    def history(self, user_id: str, record_id: str) -> builtins.list[dict[str, object]]:
        """A record's chain, oldest first: its history and that of the records it superseded,
        merged or extended (those still stored), each entry naming its record."""
        return self.db.history(user_id, record_id)

    def similar(self, user_id: str, text: str, k: int) -> builtins.list[tuple[MemoryRecord, float]]:
        """The ``k`` records of this user closest in meaning to ``text``, with cosine similarity."""
        if k <= 0 or not text.strip():
            return []
        self.flush()
        hits = self.vectors.nearest(user_id, self.embed([text])[0], k)
        by_id = {r.id: r for r in self.db.get(user_id, [i for i, _ in hits])}
        return [(by_id[i], s) for i, s in hits if i in by_id]

    def close(self) -> None:
        """Index the writes still pending, stop the background indexer and close the database; closing
        again does nothing."""
        if self._closed:
            return
        self._closed = True
        if self._indexer is not None:
            self.flush()
            self._stop.set()
            self._wake.set()
            self._indexer.join(timeout=30)
        self.db.close()


def _ts(x: float) -> datetime:
    return datetime.fromtimestamp(float(x), tz=UTC)


__all__ = ["CHROMA_DIR", "DB_FILE", "MemoryStore"]
