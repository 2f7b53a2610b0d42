"""The record database: every record, its lexical postings, tags, names and vector, in SQLite.

This is the source of truth for long-term memory. Chroma (``caim.memory.storage.vectors``) holds the same
vectors for nearest-neighbour search and can always be rebuilt from here. One file,
``memory.sqlite`` in the data dir, in WAL mode (a reader and a writer from several processes).

Tables (every row carries its ``user_id``; every query filters by it):

- ``records``: one row per record - the record as JSON, plus the columns ranking reads without
  parsing it (event time, validity, session and turn, speaker, prior, time-expression flag, document
  length, the float16 vector) and ``vec_state`` (0 until the vector index has the record); indexed
  by user and time, session and turn, speaker, and pending vector.
- ``postings``: the lexical index - (user, term, record, tf, document length). BM25 is computed per
  user from these rows, so statistics are exact and per user; the same table works on PostgreSQL.
- ``term_df``: in how many of the user's records each term occurs (which query terms are too common
  to be worth reading all their postings in a large memory).
- ``user_stats``: records and total document length per user (BM25's N and average length), and a
  version that every write of the user's records increments (caches of other processes see it).
- ``record_tags`` / ``record_names``: ontology tags and names (people, pets, places) per record.
- ``vector_deletes``: vector-index deletions not yet applied (a crash between the two writes is
  finished at the next start).
- ``meta``: settings of the database (the embedding model of its vectors, ...); ``jobs``: the
  post-thinking queue.
- ``user_denied``: the ontology terms a user has denied (nothing under them is stored for that user).
- ``user_terms``: the ontology terms learned from a user's own words (``caim.memory.storage.terms``).
- ``_migrations``: the schema changes the database has run (``caim.memory.storage.migrations`` holds them
  and runs the missing ones when the database opens).

Every write is one transaction: a record, its postings and its statistics change together. What a
write or a read costs depends on the rows it writes or reads, never on how many records are stored:
statistics change by the written rows' counts, and every read goes through an index, a bounded
number of rows (``tests/test_store_scale.py`` counts the work; ``docs/scale.md`` has the figures).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np

from caim.core.errors import QuotaError
from caim.memory.records import MemoryRecord, as_aware
from caim.memory.storage.indexer import Indexer, default_indexer
from caim.memory.storage.migrations import migrate
from caim.memory.storage.sql import Cursor, Postgres, SQLite

#: Stored texts a write reads for the language its user usually writes in (``usual_language``).
USUAL_SAMPLE = 64
#: Records per page when paging through a user's records (lists, exports).
PAGE = 500
#: The record database's file in the data dir.
DB_FILE = "memory.sqlite"
#: What the vector index holds of a record: (id, user, event time, current, vector).
VectorItem = tuple[str, str, float, bool, np.ndarray]


def pack(vec: Sequence[float] | np.ndarray) -> bytes:
    """A vector as float16 bytes, the form the ``vec`` column stores."""
    return np.asarray(vec, dtype=np.float16).tobytes()


def unpack(blob: bytes | None) -> np.ndarray | None:
    """The float32 vector of ``pack``'s bytes (``None`` for none)."""
    return None if blob is None else np.frombuffer(blob, dtype=np.float16).astype(np.float32)


class _Row(NamedTuple):
    """A record to write, with what the indexer computed for it and its stored form (``body``)."""

    rec: MemoryRecord
    body: str
    vec: Sequence[float] | np.ndarray
    terms: list[str]
    prior: float
    timex: bool
    names: list[str]
    done: int


def _ids_by_user(records: Iterable[MemoryRecord]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for rec in records:
        out.setdefault(rec.user_id, []).append(rec.id)
    return {u: list(dict.fromkeys(ids)) for u, ids in out.items()}


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


#: Records one ``INSERT`` writes: 14 parameters each, within SQLite's oldest limit of 999.
INSERT_ROWS = 64


def _record_values(row: _Row) -> tuple:
    """The ``records`` columns of a row, in ``_insert_records``' order."""
    rec = row.rec
    return (
        rec.id,
        rec.user_id,
        rec.kind,
        as_aware(rec.event_time).timestamp(),
        as_aware(rec.valid_until).timestamp() if rec.valid_until else None,
        rec.session_id,
        rec.turn,
        rec.speaker,
        row.prior,
        int(row.timex),
        len(row.terms),
        row.body,
        pack(row.vec),
        row.done,
    )


def _marks(items: Sized) -> str:
    """``?, ?, ...``: one placeholder per item."""
    return ",".join("?" * len(items))


def _as_columns(rows: Sequence[tuple]) -> dict[str, Any]:
    """``RecordDB.columns``' rows as arrays (a record without a vector: zeros)."""
    rid, session, turn, speaker, prior, timex, ts, current, raw, vec = zip(*rows, strict=True) if rows else [()] * 10
    dim = next((len(v) // 2 for v in vec if v is not None), 0)
    blob = b"".join(v if v is not None else bytes(2 * dim) for v in vec)
    return {
        "rid": np.array(rid, dtype=np.int64),
        "session": [s or "" for s in session],
        "turn": np.array(turn, dtype=np.int64),
        "speaker": list(speaker),
        "prior": np.array(prior, dtype=np.float64),
        "timex": np.array(timex, dtype=bool),
        "ts": np.array(ts, dtype=np.float64),
        "current": np.array(current, dtype=bool),
        "raw": np.array(raw, dtype=bool),
        "vec": np.frombuffer(blob, dtype=np.float16).astype(np.float32).reshape(len(rows), dim)
        if rows and dim
        else np.zeros((len(rows), 0), dtype=np.float32),
    }


class RecordDB:
    """The record database: SQLite in the data dir (``path=None``: in memory, for tests and
    evaluation runs), or PostgreSQL (``url``), shared by several workers, in schema ``namespace``.
    ``indexer`` reads each written record's words for the indexes (``None``: the registered default,
    ``caim.memory.storage.indexer``)."""

    def __init__(
        self,
        path: Path | str | None,
        *,
        url: str | None = None,
        namespace: str = "caim",
        indexer: Indexer | None = None,
    ):
        self.path = Path(path) if path is not None else None
        self.indexer = indexer if indexer is not None else default_indexer()
        self.conn: SQLite | Postgres = Postgres(url, namespace) if url else SQLite(self.path)
        self.where = self.conn.where
        try:
            migrate(self.conn)
        except BaseException:
            self.conn.close()
            raise

    #: The deployment's limits per user, (records, bytes of their stored records), or None: no limit.
    quota: tuple[int, int] | None = None

    @property
    def shared(self) -> bool:
        """Whether other machines may use this database (PostgreSQL)."""
        return isinstance(self.conn, Postgres)

    # ---- plumbing -----------------------------------------------------------------------------------
    def _tx(self) -> AbstractContextManager[Cursor]:
        return self.conn.tx()

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:
        return self.conn.read(sql, params)

    def close(self) -> None:
        """Close the database connection (closing it again does nothing)."""
        self.conn.close()

    # ---- writes -------------------------------------------------------------------------------------
    def upsert(
        self,
        records: Sequence[MemoryRecord],
        vectors: Sequence[Sequence[float] | np.ndarray] | np.ndarray,
        indexed: Sequence[bool] | None = None,
    ) -> None:
        """Insert or replace records with their vectors, postings, tags and names (one transaction).
        ``indexed``: per record, whether the vector index already holds its vector as it is.

        The work is proportional to the records written, never to the records stored: an existing id
        is found through the id index, and the statistics (``term_df``, ``user_stats``) change by the
        batch's own counts, one statement per table for the whole batch."""
        last = {rec.id: i for i, rec in enumerate(records)}  # an id given twice: its last record counts
        users = dict.fromkeys(r.user_id for r in records)
        language = {u: self.usual_language(u, [r.thought for r in records if r.user_id == u]) for u in users}
        rows = []
        for i, (rec, vec, was) in enumerate(zip(records, vectors, indexed or [False] * len(records), strict=True)):
            if last[rec.id] == i:
                read = self.indexer.index(rec, language[rec.user_id])
                rows.append(_Row(rec, rec.model_dump_json(), vec, *read, int(was)))
        with self._tx() as c:
            before = {u: self._usage(c, u) for u in users} if self.quota is not None else {}
            for user_id, ids in _ids_by_user(records).items():
                self._remove(c, user_id, ids, tombstone=False)
            rids = self._insert_records(c, rows)
            self._index_rows(c, rows, rids)
            for user_id, was_used in before.items():  # past a limit: the transaction is rolled back
                self._check_quota(user_id, was_used, self._usage(c, user_id))

    @staticmethod
    def _insert_records(c: Cursor, rows: Sequence[_Row]) -> list[int]:
        """Insert the rows' records (ids not stored), a statement per ``INSERT_ROWS`` records, not per
        record: their row ids, in the rows' order."""
        rids: dict[str, int] = {}
        for part in _chunks(rows, INSERT_ROWS):
            values = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(part))
            got = c.execute(
                "INSERT INTO records (id, user_id, kind, event_ts, valid_until_ts, session_id, turn, speaker,"
                f" prior, timex, dl, body, vec, vec_state) VALUES {values} RETURNING id, rid",
                [value for row in part for value in _record_values(row)],
            ).fetchall()
            rids.update((str(i), int(rid)) for i, rid in got)  # RETURNING's order is the engine's: by id
        return [rids[row.rec.id] for row in rows]

    @staticmethod
    def _index_rows(c: Cursor, rows: Sequence[_Row], rids: Sequence[int]) -> None:
        """The postings, tags and names of freshly inserted records, and the statistics they add to."""
        postings: list[tuple[str, str, int, int, int]] = []
        tags: list[tuple[str, str, int]] = []
        found: list[tuple[str, str, int]] = []
        df: Counter[tuple[str, str]] = Counter()
        stats: dict[str, list[int]] = {}  # user -> [records, document length, bytes]
        for row, rid in zip(rows, rids, strict=True):
            user, counts = row.rec.user_id, Counter(row.terms)
            postings += [(user, t, rid, tf, len(row.terms)) for t, tf in counts.items()]
            df.update((user, t) for t in counts)
            tags += [(user, t, rid) for t in row.rec.tags]
            found += dict.fromkeys((user, n.lower(), rid) for n in row.names)
            n_dl = stats.setdefault(user, [0, 0, 0])
            n_dl[0] += 1
            n_dl[1] += len(row.terms)
            n_dl[2] += len(row.body.encode())
        c.executemany("INSERT INTO postings (user_id, term, rid, tf, dl) VALUES (?, ?, ?, ?, ?)", postings)
        c.executemany(
            "INSERT INTO term_df (user_id, term, df) VALUES (?, ?, ?) "
            "ON CONFLICT(user_id, term) DO UPDATE SET df = term_df.df + excluded.df",
            [(user, t, k) for (user, t), k in df.items()],
        )
        c.executemany("INSERT INTO record_tags VALUES (?, ?, ?) ON CONFLICT DO NOTHING", tags)
        c.executemany("INSERT INTO record_names VALUES (?, ?, ?) ON CONFLICT DO NOTHING", list(dict.fromkeys(found)))
        c.executemany(
            "INSERT INTO user_stats (user_id, n, total_dl, version, bytes) VALUES (?, ?, ?, 1, ?) "
            "ON CONFLICT(user_id) DO UPDATE SET n = user_stats.n + excluded.n, "
            "total_dl = user_stats.total_dl + excluded.total_dl, version = user_stats.version + 1, "
            "bytes = user_stats.bytes + excluded.bytes",
            [(user, n, dl, size) for user, (n, dl, size) in stats.items()],
        )

    def _remove(self, c: Cursor, user_id: str, ids: Sequence[str], *, tombstone: bool) -> list[str]:
        """Delete this user's records among ``ids`` with their index rows and their share of the
        statistics: the work of each is its own rows' (the id index finds it, its postings name the
        terms whose counts drop), in statements per 500 ids, not per record."""
        removed: list[str] = []
        size = "octet_length(body)" if self.conn.dialect == "postgres" else "length(CAST(body AS BLOB))"
        for part in _chunks(ids, 500):
            found = c.execute(
                f"SELECT rid, id, dl, {size} FROM records WHERE +user_id = ? AND id IN ({_marks(part)})",
                (user_id, *part),
            ).fetchall()
            if not found:
                continue
            self._remove_rows(c, user_id, found)
            if tombstone:
                c.executemany(
                    "INSERT INTO vector_deletes VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET user_id = excluded.user_id",
                    [(rid_id, user_id) for _, rid_id, _, _ in found],
                )
            removed += [rid_id for _, rid_id, _, _ in found]
        return removed

    @staticmethod
    def _remove_rows(c: Cursor, user_id: str, found: Sequence[tuple]) -> None:
        """Delete the records ``found`` (rid, id, document length, bytes) of one user, their postings,
        tags and names, and take their counts off ``term_df`` and ``user_stats``."""
        rids = [int(f[0]) for f in found]
        marks = _marks(rids)
        terms = Counter(  # counted here: a GROUP BY would walk the user's whole postings in term order
            t
            for (t,) in c.execute(
                f"SELECT term FROM postings WHERE user_id = ? AND rid IN ({marks})", (user_id, *rids)
            ).fetchall()
        ).items()
        c.executemany(
            "UPDATE term_df SET df = df - ? WHERE user_id = ? AND term = ?", [(k, user_id, t) for t, k in terms]
        )
        c.executemany(
            "DELETE FROM term_df WHERE user_id = ? AND term = ? AND df <= 0", [(user_id, t) for t, _ in terms]
        )
        for table in ("postings", "record_tags", "record_names"):
            c.execute(f"DELETE FROM {table} WHERE user_id = ? AND rid IN ({marks})", (user_id, *rids))
        c.execute(f"DELETE FROM records WHERE rid IN ({marks})", rids)
        c.execute(
            "UPDATE user_stats SET n = n - ?, total_dl = total_dl - ?, bytes = bytes - ?, version = version + 1 "
            "WHERE user_id = ?",
            (len(found), sum(int(f[2]) for f in found), sum(int(f[3] or 0) for f in found), user_id),
        )

    @staticmethod
    def _usage(c: Cursor, user_id: str) -> tuple[int, int]:
        """(records, bytes) the user's stored records take."""
        row = c.one("SELECT n, bytes FROM user_stats WHERE user_id = ?", (user_id,))
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def _check_quota(self, user_id: str, before: tuple[int, int], after: tuple[int, int]) -> None:
        """A one-line ``QuotaError`` when a write took the user past ``quota`` (a write that grows
        nothing past it - a replacement, a deletion - passes, even over a lowered limit)."""
        assert self.quota is not None
        most_records, most_bytes = self.quota
        if after[0] > most_records and after[0] > before[0]:
            raise QuotaError(
                f"this memory is full: {after[0]:,} records would pass the {most_records:,} a user may keep "
                "(CAIM_MAX_USER_RECORDS); forget some, or ask the deployment for more; nothing was stored"
            )
        if after[1] > most_bytes and after[1] > before[1]:
            raise QuotaError(
                f"this memory is full: {after[1]:,} bytes of records would pass the {most_bytes:,} a user may keep "
                "(CAIM_MAX_USER_BYTES); forget some, or ask the deployment for more; nothing was stored"
            )

    def usage(self, user_id: str) -> tuple[int, int]:
        """(records, bytes) the user's stored records take (what ``quota`` limits)."""
        row = self._read("SELECT n, bytes FROM user_stats WHERE user_id = ?", (user_id,))
        return (int(row[0][0]), int(row[0][1])) if row else (0, 0)

    def delete(self, user_id: str, ids: Sequence[str]) -> list[str]:
        """Delete this user's records among ``ids``; the vector deletions are queued until applied."""
        if not ids:
            return []
        with self._tx() as c:
            return self._remove(c, user_id, list(dict.fromkeys(ids)), tombstone=True)

    def forget_user(self, user_id: str) -> int:
        """Delete every record, index row, statistic, job and learned ontology term of the user; the
        vector deletions are queued until applied. Returns how many records were deleted."""
        with self._tx() as c:
            n = c.execute("SELECT count(*) FROM records WHERE user_id = ?", (user_id,)).fetchone()[0]
            c.execute(
                "INSERT INTO vector_deletes SELECT id, user_id FROM records WHERE user_id = ? "
                "ON CONFLICT(id) DO UPDATE SET user_id = excluded.user_id",
                (user_id,),
            )
            for table in (
                "postings",
                "term_df",
                "record_tags",
                "record_names",
                "records",
                "user_stats",
                "jobs",
                "user_terms",
            ):
                c.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
        return int(n)

    def mark_indexed(self, sent: Sequence[tuple[int, VectorItem]]) -> None:
        """Note that the vector index now holds these records as sent (``pending_vectors``' rows): a
        row written again meanwhile - another vector, time or validity, under a reused row id too -
        stays pending."""
        if sent:
            with self._tx() as c:
                c.executemany(
                    "UPDATE records SET vec_state = 1 WHERE rid = ? AND id = ? AND vec = ? AND event_ts = ?"
                    " AND (valid_until_ts IS NULL) = ?",
                    [(rid, i, pack(v), ts, current) for rid, (i, _, ts, current, v) in sent],
                )

    def pending_vectors(self, limit: int = 1000) -> list[tuple[int, VectorItem]]:
        """Up to ``limit`` records the vector index does not have yet: (row id, (id, user, event time,
        current, vector)), read through the index of pending records (whatever the records stored)."""
        rows = self._read(
            "SELECT rid, id, user_id, event_ts, valid_until_ts, vec FROM records WHERE vec_state = 0 LIMIT ?", (limit,)
        )
        return [(r, (i, u, ts, vu is None, unpack(v))) for r, i, u, ts, vu, v in rows if v is not None]  # type: ignore[misc]

    def pending_count(self, limit: int) -> int:
        """How many records the vector index does not have yet, counted up to ``limit`` (an index read)."""
        return int(
            self._read("SELECT count(*) FROM (SELECT 1 FROM records WHERE vec_state = 0 LIMIT ?) AS p", (limit,))[0][0]
        )

    def rids_of(self, user_id: str, ids: Sequence[str]) -> list[int]:
        """Row ids of this user's records among ``ids`` (ids of no such record are left out)."""
        if not ids:
            return []
        return [
            r
            for (r,) in self._read(
                f"SELECT rid FROM records WHERE +user_id = ? AND id IN ({_marks(ids)})", (user_id, *ids)
            )
        ]

    def pending_deletes(self) -> list[tuple[str, str]]:
        """Vector-index deletions not yet applied: (record id, user)."""
        return [(i, u) for i, u in self._read("SELECT id, user_id FROM vector_deletes")]

    def clear_deletes(self, ids: Sequence[str]) -> None:
        """Drop these record ids from the queued vector-index deletions (once applied)."""
        if ids:
            with self._tx() as c:
                c.executemany("DELETE FROM vector_deletes WHERE id = ?", [(i,) for i in ids])

    def reset_vector_state(self) -> int:
        """Mark every record as not yet in the vector index (before a rebuild)."""
        with self._tx() as c:
            return c.execute("UPDATE records SET vec_state = 0").rowcount

    # ---- reads --------------------------------------------------------------------------------------
    def indexed_state(self, ids: Sequence[str]) -> dict[str, tuple[str, bool, np.ndarray | None, bool]]:
        """Per existing record id: its embedded text, whether it is current, its vector, and
        whether the vector index holds it."""
        if not ids:
            return {}
        rows = self._read(
            f"SELECT id, body, valid_until_ts, vec, vec_state FROM records WHERE id IN ({','.join('?' * len(ids))})",
            ids,
        )
        return {
            i: (MemoryRecord.model_validate_json(b).embedded_text(), vu is None, unpack(v), state == 1)
            for i, b, vu, v, state in rows
        }

    def owner(self, record_id: str) -> str | None:
        """Which user a record id belongs to (None: no such record)."""
        row = self._read("SELECT user_id FROM records WHERE id = ?", (record_id,))
        return row[0][0] if row else None

    def owners(self, ids: Sequence[str]) -> dict[str, str]:
        """Which user each of ``ids`` that names a record belongs to (one read per 500 ids)."""
        out: dict[str, str] = {}
        for part in _chunks(list(dict.fromkeys(ids)), 500):
            out.update(self._read(f"SELECT id, user_id FROM records WHERE id IN ({_marks(part)})", part))
        return out

    def bodies(self, user_id: str, ids: Sequence[str]) -> dict[str, str]:
        """The stored JSON of this user's records among ``ids``, by id (one read per 500 ids)."""
        out: dict[str, str] = {}
        for part in _chunks(list(dict.fromkeys(ids)), 500):
            out.update(
                self._read(
                    f"SELECT id, body FROM records WHERE +user_id = ? AND id IN ({_marks(part)})", (user_id, *part)
                )
            )
        return out

    def get(self, user_id: str, ids: Sequence[str]) -> list[MemoryRecord]:
        """This user's records among ``ids``, in the order of ``ids`` (missing ones left out, each once)."""
        if not ids:
            return []
        rows = self._read(
            f"SELECT id, body FROM records WHERE +user_id = ? AND id IN ({','.join('?' * len(ids))})", (user_id, *ids)
        )
        by_id = {i: MemoryRecord.model_validate_json(b) for i, b in rows}
        return [by_id[i] for i in dict.fromkeys(ids) if i in by_id]

    def vectors(self, user_id: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of this user's records among ``ids``, by id (records without one left
        out; one read per 500 ids)."""
        out: dict[str, np.ndarray] = {}
        for part in _chunks(list(dict.fromkeys(ids)), 500):
            rows = self._read(
                f"SELECT id, vec FROM records WHERE +user_id = ? AND id IN ({_marks(part)}) AND vec IS NOT NULL",
                (user_id, *part),
            )
            out.update((i, np.frombuffer(v, dtype=np.float16).astype(np.float32)) for i, v in rows)
        return out

    def ids_starting(self, user_id: str, prefix: str, limit: int = 2) -> list[str]:
        """Up to ``limit`` ids of this user's records that start with ``prefix``."""
        rows = self._read(
            "SELECT id FROM records WHERE user_id = ? AND substr(id, 1, ?) = ? ORDER BY id LIMIT ?",
            (user_id, len(prefix), prefix, limit),
        )
        return [i for (i,) in rows]

    def history(self, user_id: str, record_id: str) -> list[dict[str, object]]:
        """A record's chain, oldest first: its history and that of the records it superseded,
        merged or extended (those still stored), each entry naming its record."""
        seen: set[str] = set()
        out: list[dict[str, object]] = []
        todo = [record_id]
        while todo:
            rid = todo.pop()
            if rid in seen:
                continue
            seen.add(rid)
            got = self.get(user_id, [rid])
            if not got:
                continue
            rec = got[0]
            for h in rec.history:
                out.append({"record": rec.id, "thought": rec.thought, **h.model_dump(mode="json")})
                if h.change in ("updated", "merged"):
                    todo += h.others
            todo += rec.supersedes
        out.sort(key=lambda e: str(e["at"]))
        return out

    def by_rid(self, user_id: str, rids: Sequence[int]) -> dict[int, MemoryRecord]:
        """This user's records by row id (row ids of no such record left out)."""
        if not rids:
            return {}
        rows = self._read(
            f"SELECT rid, body FROM records WHERE +user_id = ? AND rid IN ({','.join('?' * len(rids))})",
            (user_id, *rids),
        )
        return {r: MemoryRecord.model_validate_json(b) for r, b in rows}

    def iter_user(self, user_id: str, page: int = PAGE) -> Iterator[MemoryRecord]:
        """Every record of the user, oldest event first, one page at a time (constant memory); each
        page starts where the last ended in the index ``records_user_time`` (a row-value bound: no
        page reads the rows before it)."""
        for body, _ in self._pages(user_id, page, "NULL"):
            yield MemoryRecord.model_validate_json(body)

    def iter_vectors(self, user_id: str, page: int = PAGE) -> Iterator[tuple[MemoryRecord, np.ndarray | None]]:
        """``iter_user`` with each record's vector as stored (``None`` for a record without one)."""
        for body, vec in self._pages(user_id, page, "vec"):
            yield MemoryRecord.model_validate_json(body), unpack(vec)

    def _pages(self, user_id: str, page: int, vec: Literal["vec", "NULL"]) -> Iterator[tuple[str, bytes | None]]:
        last: tuple[float, int] = (float("-inf"), -1)
        while True:
            rows = self._read(
                f"SELECT event_ts, rid, body, {vec} FROM records"
                " WHERE user_id = ? AND (event_ts, rid) > (?, ?) ORDER BY event_ts, rid LIMIT ?",
                (user_id, last[0], last[1], page),
            )
            if not rows:
                return
            for _ts, _rid, body, blob in rows:
                yield body, blob
            last = (rows[-1][0], rows[-1][1])

    def count(self, user_id: str) -> int:
        """How many records the user has (0 for an unknown user)."""
        row = self._read("SELECT n FROM user_stats WHERE user_id = ?", (user_id,))
        return int(row[0][0]) if row else 0

    def vectors_held(self) -> int:
        """How many records have a vector (every record written with one): what the vector index
        should hold."""
        return int(self._read("SELECT COUNT(*) FROM records WHERE vec IS NOT NULL")[0][0])

    def users(self) -> list[str]:
        """Every user with at least one record, sorted."""
        return [u for (u,) in self._read("SELECT user_id FROM user_stats WHERE n > 0 ORDER BY user_id")]

    def page(self, user_id: str, offset: int, limit: int, tags: Sequence[str] | None = None) -> list[MemoryRecord]:
        """Up to ``limit`` of the user's records, newest event first, from the ``offset``-th on; with
        ``tags``, only records carrying at least one of them."""
        where, params = self._tagged(user_id, tags)
        rows = self._read(
            f"SELECT body FROM records WHERE {where} ORDER BY event_ts DESC, rid DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [MemoryRecord.model_validate_json(b) for (b,) in rows]

    def count_tagged(self, user_id: str, tags: Sequence[str]) -> int:
        """How many of the user's records carry at least one of ``tags``."""
        where, params = self._tagged(user_id, tags)
        return int(self._read(f"SELECT count(*) FROM records WHERE {where}", params)[0][0])

    @staticmethod
    def _tagged(user_id: str, tags: Sequence[str] | None) -> tuple[str, tuple[object, ...]]:
        """The condition (and its parameters) for the user's records, with one of ``tags`` if given."""
        if tags is None:
            return "user_id = ?", (user_id,)
        if not tags:
            return "1 = 0", ()
        marks = ",".join("?" * len(tags))
        return (
            f"user_id = ? AND rid IN (SELECT rid FROM record_tags WHERE user_id = ? AND tag IN ({marks}))",
            (user_id, user_id, *tags),
        )

    def event_times(self, user_id: str) -> list[float]:
        """The event time (epoch seconds) of every record of the user, in no particular order."""
        return [t for (t,) in self._read("SELECT event_ts FROM records WHERE user_id = ?", (user_id,))]

    def tag_rows(self, user_id: str) -> list[tuple[int, str]]:
        """(row id, tag) for every tag of every record of the user, in no particular order."""
        return self._read("SELECT rid, tag FROM record_tags WHERE user_id = ?", (user_id,))

    def first(self, user_id: str) -> MemoryRecord | None:
        """The user's record with the earliest event time (``None`` when the user has none)."""
        rows = self._read("SELECT body FROM records WHERE user_id = ? ORDER BY event_ts, rid LIMIT 1", (user_id,))
        return MemoryRecord.model_validate_json(rows[0][0]) if rows else None

    def stats(self, user_id: str) -> tuple[int, float, int]:
        """(records, average document length, version) of the user's records."""
        row = self._read("SELECT n, total_dl, version FROM user_stats WHERE user_id = ?", (user_id,))
        if not row or not row[0][0]:
            return 0, 0.0, row[0][2] if row else 0
        n, total, version = row[0]
        return int(n), float(total) / int(n), int(version)

    def columns(self, user_id: str, rids: Sequence[int] | None = None) -> dict[str, Any]:
        """Ranking columns as arrays - of the given records (row ids ascending), or of all the user's
        records (one query; the vectors come back as one matrix). The database computes the flags (a
        missing turn as -1, still current, a verbatim turn): no Python work per row but the arrays'."""
        cols = (
            "rid, session_id, COALESCE(turn, -1), speaker, prior, timex, event_ts, valid_until_ts IS NULL,"
            " kind = 'raw', vec"
        )
        if rids is None:
            rows = self._read(f"SELECT {cols} FROM records WHERE user_id = ? ORDER BY rid", (user_id,))
        else:
            rows = []
            for part in _chunks(sorted(rids), 900):  # SQLite's limit on parameters
                rows += self._read(
                    f"SELECT {cols} FROM records WHERE +user_id = ? AND rid IN ({_marks(part)}) ORDER BY rid",
                    (user_id, *part),
                )
        return _as_columns(rows)

    def postings(self, user_id: str, term: str, newest: int | None = None) -> list[tuple[int, int, int]]:
        """(rid, tf, document length) of the user's records holding ``term``; with ``newest``, of that
        many most recently written of them (read in the postings' own order: no more rows than that)."""
        if newest is None:
            return self._read("SELECT rid, tf, dl FROM postings WHERE user_id = ? AND term = ?", (user_id, term))
        return self._read(
            "SELECT rid, tf, dl FROM postings WHERE user_id = ? AND term = ? ORDER BY rid DESC LIMIT ?",
            (user_id, term, newest),
        )

    def pending_vectors_of(self, user_id: str, limit: int) -> tuple[list[int], np.ndarray]:
        """Row ids and vectors (one row each) of the user's newest ``limit`` records that the vector
        index does not hold yet."""
        rows = self._read(
            "SELECT rid, vec FROM records WHERE user_id = ? AND vec_state = 0 AND vec IS NOT NULL "
            "ORDER BY rid DESC LIMIT ?",
            (user_id, limit),
        )
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        return [r for r, _ in rows], np.frombuffer(b"".join(v for _, v in rows), dtype=np.float16).astype(
            np.float32
        ).reshape(len(rows), -1)

    def neighbours(self, user_id: str, keys: Iterable[tuple[str, int]]) -> list[int]:
        """Row ids of the records one turn before and after each (session, turn), read from the
        index ``records_user_session`` alone (no record is read)."""
        wanted = sorted({(s, t + d) for s, t in keys for d in (-1, 1) if s and t >= 0})
        out: list[int] = []
        for part in _chunks(wanted, 400):  # two parameters per pair, within SQLite's limit
            values = ",".join("(?, ?)" for _ in part)
            out += [
                r
                for (r,) in self._read(
                    f"WITH w(s, t) AS (VALUES {values}) SELECT r.rid FROM w JOIN records r "
                    "ON r.user_id = ? AND r.session_id = w.s AND r.turn = w.t",
                    (*[x for pair in part for x in pair], user_id),
                )
            ]
        return out

    def neighbours_of(self, user_id: str, rids: Sequence[int]) -> list[int]:
        """Row ids of the records one turn before and after each of the given records (same session;
        records without a session or turn have none), read through the session index: what
        ``neighbours`` gives for those records' (session, turn), in one statement per 900 records."""
        out: list[int] = []
        for part in _chunks(sorted(set(rids)), 900):
            out += [
                r
                for (r,) in self._read(
                    # CROSS JOIN: SQLite keeps this order (each record by its row id, then its
                    # neighbours by the session index), never a walk over the user's whole index
                    "SELECT n.rid FROM records r CROSS JOIN records n"
                    f" WHERE r.rid IN ({_marks(part)}) AND +r.user_id = ? AND r.session_id <> '' AND r.turn >= 0"
                    " AND n.user_id = r.user_id AND n.session_id = r.session_id AND n.turn IN (r.turn - 1, r.turn + 1)",
                    (*part, user_id),
                )
            ]
        return out

    def document_frequency(self, user_id: str, terms: Iterable[str]) -> dict[str, int]:
        """In how many of the user's records each of ``terms`` occurs (terms in none left out)."""
        terms = list(dict.fromkeys(terms))
        if not terms:
            return {}
        return dict(
            self._read(
                f"SELECT term, df FROM term_df WHERE user_id = ? AND term IN ({','.join('?' * len(terms))})",
                (user_id, *terms),
            )
        )

    def in_range(self, user_id: str, start: float, end: float, limit: int) -> list[int]:
        """Row ids of up to ``limit`` records with an event time (epoch seconds) from ``start`` to ``end``
        inclusive, newest first."""
        return [
            r
            for (r,) in self._read(
                "SELECT rid FROM records WHERE user_id = ? AND event_ts BETWEEN ? AND ? ORDER BY event_ts DESC LIMIT ?",
                (user_id, start, end, limit),
            )
        ]

    def with_tags(self, user_id: str, tags: Sequence[str], limit: int) -> list[int]:
        """Row ids of records sharing any of the tags, newest first."""
        if not tags:
            return []
        return [
            r
            for (r,) in self._read(
                f"SELECT t.rid FROM record_tags t JOIN records r ON r.rid = t.rid WHERE t.user_id = ? AND t.tag IN "
                f"({','.join('?' * len(tags))}) GROUP BY t.rid ORDER BY max(r.event_ts) DESC LIMIT ?",
                (user_id, *tags, limit),
            )
        ]

    def tags_of(self, user_id: str, rids: Sequence[int]) -> dict[int, set[str]]:
        """The ontology tags of each of the given records, by row id (records without tags left out)."""
        if not rids:
            return {}
        out: dict[int, set[str]] = {}
        for rid, tag in self._read(
            f"SELECT rid, tag FROM record_tags WHERE user_id = ? AND rid IN ({','.join('?' * len(rids))})",
            (user_id, *rids),
        ):
            out.setdefault(rid, set()).add(tag)
        return out

    def with_names(self, user_id: str, found: Sequence[str], limit: int) -> list[int]:
        """Row ids of up to ``limit`` records naming any of ``found`` (case-insensitive), the most
        recently written first: read through the names index, at most ``limit`` rows per name."""
        rids: set[int] = set()
        for name in dict.fromkeys(n.lower() for n in found):
            rids.update(
                r
                for (r,) in self._read(
                    "SELECT rid FROM record_names WHERE user_id = ? AND name = ? ORDER BY rid DESC LIMIT ?",
                    (user_id, name, limit),
                )
            )
        return sorted(rids, reverse=True)[:limit]

    def names_of(self, user_id: str, rids: Sequence[int]) -> dict[int, set[str]]:
        """The names (lower case) in each of the given records, by row id (records naming none left out)."""
        if not rids:
            return {}
        out: dict[int, set[str]] = {}
        for rid, name in self._read(
            f"SELECT rid, name FROM record_names WHERE user_id = ? AND rid IN ({','.join('?' * len(rids))})",
            (user_id, *rids),
        ):
            out.setdefault(rid, set()).add(name)
        return out

    def speakers(self, user_id: str) -> list[str]:
        """The named speakers of the user's records, each once, in order (records without one left
        out): one index seek per speaker (``records_user_speaker``), however many records they said."""
        rows = self._read(
            "WITH RECURSIVE s(speaker) AS ("
            " SELECT min(speaker) FROM records WHERE user_id = ? AND speaker > ''"
            " UNION ALL"
            " SELECT (SELECT min(r.speaker) FROM records r WHERE r.user_id = ? AND r.speaker > s.speaker)"
            " FROM s WHERE s.speaker IS NOT NULL"
            ") SELECT speaker FROM s WHERE speaker IS NOT NULL",
            (user_id, user_id),
        )
        return [sp for (sp,) in rows]

    def sample_vectors(self, user_id: str, k: int) -> np.ndarray:
        """Up to ``k`` of the user's vectors, spread evenly over the time line of their records (for
        score statistics; ``_sampled``)."""
        vecs = [u for (_, v) in self._sampled(user_id, k, "vec") if (u := unpack(v)) is not None]
        return np.vstack(vecs) if vecs else np.zeros((0, 0), dtype=np.float32)

    def sample_texts(self, user_id: str, k: int) -> list[str]:
        """The texts of up to ``k`` of the user's records, spread evenly over the time line of their
        records (for the language they usually write in; ``_sampled``)."""
        return [MemoryRecord.model_validate_json(b).thought for (_, b) in self._sampled(user_id, k, "body")]

    def usual_language(self, user_id: str, texts: Sequence[str] = (), k: int = USUAL_SAMPLE) -> str:
        """The language the user usually writes in (the indexer's ``usual_language``) by ``k`` of their
        stored texts (``sample_texts``) and ``texts``: a write indexes its records, and the search
        reads a question, in it where their words leave the language open (``expecting``)."""
        return self.indexer.usual_language([*self.sample_texts(user_id, k), *texts])

    def _sampled(self, user_id: str, k: int, column: Literal["vec", "body"]) -> list[tuple]:
        """``(rid, column)`` of the first record at or after each of ``k`` evenly spaced times of the
        user's time line, by row id: one index seek each, whatever the records stored."""
        first, last = self._read(
            "SELECT (SELECT min(event_ts) FROM records WHERE user_id = ?), "
            "(SELECT max(event_ts) FROM records WHERE user_id = ?)",
            (user_id, user_id),
        )[0]
        if first is None or k <= 0:
            return []
        points = [float(first) + (float(last) - float(first)) * i / k for i in range(k)]
        return self._read(
            f"WITH p(ts) AS (VALUES {','.join('(?)' for _ in points)}) "
            f"SELECT DISTINCT r.rid, r.{column} FROM p JOIN records r ON r.rid = (SELECT q.rid FROM records q"
            " WHERE q.user_id = ? AND q.event_ts >= p.ts ORDER BY q.event_ts, q.rid LIMIT 1) ORDER BY r.rid",
            (*points, user_id),
        )

    # ---- a user's own privacy bounds -----------------------------------------------------------------
    def denied(self, user_id: str) -> list[str]:
        """The ontology terms the user has denied, in the order they were denied."""
        rows = self._read("SELECT term FROM user_denied WHERE user_id = ? ORDER BY denied_at, term", (user_id,))
        return [t for (t,) in rows]

    def deny(self, user_id: str, term: str, at: str) -> bool:
        """Add ``term`` to the user's denied terms (at time ``at``, ISO); False when it was there."""
        with self._tx() as c:
            if c.one("SELECT 1 FROM user_denied WHERE user_id = ? AND term = ?", (user_id, term)):
                return False
            c.execute("INSERT INTO user_denied (user_id, term, denied_at) VALUES (?, ?, ?)", (user_id, term, at))
            return True

    def allow(self, user_id: str, term: str) -> bool:
        """Remove ``term`` from the user's denied terms; False when it was not there."""
        with self._tx() as c:
            return c.execute("DELETE FROM user_denied WHERE user_id = ? AND term = ?", (user_id, term)).rowcount > 0

    # ---- pending sessions (background post-thinking) ------------------------------------------------
    def enqueue(self, job_id: str, user_id: str, payload: str) -> None:
        """Queue a post-thinking job for the user; a job id already queued is left as it is."""
        with self._tx() as c:
            c.execute(
                "INSERT INTO jobs (job_id, user_id, payload) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (job_id, user_id, payload),
            )

    def claim(
        self, owner: str, now: float, stale_after: float, alive: Callable[[str], bool] = lambda _: True
    ) -> tuple[str, str, str, int] | None:
        """The oldest job that may run now - never one whose user has an earlier job still running
        (sessions of one user are processed in order) - marked as claimed by ``owner``; a claim
        older than ``stale_after`` seconds, or whose owner is known to be dead, is taken over."""
        with self._tx() as c:
            if self.conn.dialect == "postgres":  # one claimer at a time, across workers
                c.execute("LOCK TABLE jobs IN SHARE ROW EXCLUSIVE MODE")
            rows = c.execute(
                "SELECT seq, job_id, user_id, payload, state, claimed_at, attempts, not_before, owner FROM jobs "
                "WHERE state IN ('pending', 'running') ORDER BY seq"
            ).fetchall()
            busy: set[str] = set()
            for _seq, job_id, user_id, payload, state, claimed_at, attempts, not_before, held_by in rows:
                running = state == "running" and now - claimed_at < stale_after and alive(held_by)
                if user_id in busy or running:
                    busy.add(user_id)
                    continue
                busy.add(user_id)
                if not_before > now:
                    continue
                c.execute(
                    "UPDATE jobs SET state = 'running', owner = ?, claimed_at = ? WHERE job_id = ?",
                    (owner, now, job_id),
                )
                return job_id, user_id, payload, int(attempts)
        return None

    def job_done(self, job_id: str) -> None:
        """Remove a finished job from the queue."""
        with self._tx() as c:
            c.execute("DELETE FROM jobs WHERE job_id = ?", (job_id,))

    def job_failed(self, job_id: str, error: str, retry_at: float | None) -> None:
        """Back to pending with a later start (``retry_at``), or ``failed`` (kept, retried at the next start)."""
        with self._tx() as c:
            if retry_at is None:
                c.execute(
                    "UPDATE jobs SET state = 'failed', attempts = attempts + 1, error = ? WHERE job_id = ?",
                    (error[:500], job_id),
                )
            else:
                c.execute(
                    "UPDATE jobs SET state = 'pending', attempts = attempts + 1, not_before = ?, error = ?, "
                    "owner = '' WHERE job_id = ?",
                    (retry_at, error[:500], job_id),
                )

    def revive_failed(self) -> int:
        """Put every failed job back to pending with its attempts reset. Returns how many."""
        with self._tx() as c:
            return c.execute(
                "UPDATE jobs SET state = 'pending', attempts = 0, not_before = 0 WHERE state = 'failed'"
            ).rowcount

    def jobs(self, user_id: str | None = None) -> list[tuple[str, str, str, str, int, str]]:
        """(job id, user, payload, state, attempts, error) of every job not finished, oldest first."""
        sql = "SELECT job_id, user_id, payload, state, attempts, error FROM jobs"
        rows = (
            self._read(sql + " WHERE user_id = ? ORDER BY seq", (user_id,))
            if user_id
            else self._read(sql + " ORDER BY seq")
        )
        return [(a, b, c, d, int(e), f) for a, b, c, d, e, f in rows]

    def compact(self) -> None:
        """After forgetting: leave no forgotten text in the database's files (or reclaim its space)."""
        self.conn.compact()

    def get_meta(self, key: str) -> str | None:
        """A database setting (``meta``); ``None`` when it is not set."""
        row = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0][0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        """Set (or replace) a database setting (``meta``)."""
        with self._tx() as c:
            c.execute(
                "INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value)
            )
