"""One SQL connection, SQLite or PostgreSQL, speaking the record database's SQL.

The record database writes its statements once, in SQLite's spelling with ``?`` placeholders and
``ON CONFLICT`` upserts (both engines accept those); ``Connection`` translates for PostgreSQL
(``%s`` placeholders, ``BEGIN``) and maps engine errors to one-line ``StorageError``s. SQLite is the
embedded store (one file in the data dir, WAL mode); PostgreSQL (``CAIM_DATABASE_URL``) is the
shared one for several workers and machines, each deployment in a schema of its own (``namespace``).
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from caim.core.errors import StorageError
from caim.core.files import open_sqlite

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_UNARY_PLUS = re.compile(r"\+((?:\w+\.)?user_id)\b")
#: SQLite's page cache per connection (KiB).
CACHE_KIB = 64 * 1024
#: Pages in the write-ahead log before SQLite copies them back to the database file (~40 MB).
CHECKPOINT_PAGES = 10_000
#: How much of the database file SQLite reads through a memory map.
MMAP_BYTES = 2**31
#: What to do about a damaged record database (its records are the source of truth: no copy elsewhere).
MEMORY_DB_FIX = "restore it from a backup, or move it away (its memories are lost) and run `caim memories reindex`"


class Connection:
    """A locked connection: ``read`` (rows), ``tx`` (a transaction), ``execute`` outside one."""

    dialect = "sqlite"
    _raw: Any  # a DB-API connection, set by the subclass

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.where = ""

    # subclasses provide: _raw, _sql(sql) -> sql, _errors (exception types)
    _errors: tuple[type[BaseException], ...] = ()

    def _sql(self, sql: str) -> str:
        return sql

    def read(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:
        """The rows of one statement run outside a transaction; an engine error is a ``StorageError``."""
        with self._lock:
            try:
                cur = self._raw.execute(self._sql(sql), params)
                return list(cur.fetchall())
            except self._errors as exc:
                raise StorageError(f"memory database {self.where}: read failed ({_one_line(exc)})") from None

    def execute(self, sql: str, params: Sequence[object] = ()) -> Any:
        """Run one statement outside a transaction and return the engine's cursor."""
        with self._lock:
            try:
                return self._raw.execute(self._sql(sql), params)
            except self._errors as exc:
                raise StorageError(f"memory database {self.where}: {_one_line(exc)}") from None

    @contextmanager
    def tx(self) -> Iterator[Cursor]:
        """A write transaction: committed when the block ends, rolled back when it raises.

        Raises:
            StorageError: The database is not writable, or the commit failed (nothing was changed).
        """
        with self._lock:
            try:
                self._raw.execute(self._sql("BEGIN IMMEDIATE"))
            except self._errors as exc:
                raise StorageError(f"memory database {self.where} is not writable ({_one_line(exc)})") from None
            try:
                yield Cursor(self)
            except BaseException:
                self._raw.execute("ROLLBACK")
                raise
            try:
                self._raw.execute("COMMIT")
            except self._errors as exc:  # disk full, read-only file system
                self._raw.execute("ROLLBACK")
                raise StorageError(
                    f"memory database {self.where}: write failed ({_one_line(exc)}); nothing was changed"
                ) from None

    def close(self) -> None:
        """Close the connection (again: nothing happens)."""
        with self._lock:
            self._raw.close()


class Cursor:
    """Statements inside a transaction."""

    def __init__(self, conn: Connection):
        self.conn = conn

    def execute(self, sql: str, params: Sequence[object] = ()) -> Any:
        """Run one statement in the transaction and return the engine's cursor."""
        try:
            return self.conn._raw.execute(self.conn._sql(sql), params)
        except self.conn._errors as exc:
            raise StorageError(f"memory database {self.conn.where}: write failed ({_one_line(exc)})") from None

    def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        """Run one statement for each row of parameters (no rows: nothing runs)."""
        if not rows:
            return
        try:
            if self.conn.dialect == "sqlite":
                self.conn._raw.executemany(self.conn._sql(sql), rows)
            else:
                with self.conn._raw.cursor() as cur:
                    cur.executemany(self.conn._sql(sql), rows)
        except self.conn._errors as exc:
            raise StorageError(f"memory database {self.conn.where}: write failed ({_one_line(exc)})") from None

    def one(self, sql: str, params: Sequence[object] = ()) -> tuple | None:
        """The first row of one statement (``None``: no row)."""
        return self.execute(sql, params).fetchone()


class SQLite(Connection):
    """The embedded record database: one SQLite file (or memory) in WAL mode."""

    dialect = "sqlite"
    _errors = (sqlite3.Error,)

    def __init__(self, path: Path | None):
        """The database file ``path`` (``None``: in memory), created 0600 in a 0700 folder. A damaged
        file raises a one-line ``StorageError`` naming it and the fix, and is left as it is. The
        schema is the caller's (``caim.memory.storage.migrations``)."""
        super().__init__()
        target = str(path) if path is not None else ":memory:"
        self.where = target
        try:
            if path is not None:
                self._raw = open_sqlite(
                    path, fix=MEMORY_DB_FIX, check_same_thread=False, timeout=30, isolation_level=None
                )
            else:
                self._raw = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
            self._raw.execute("PRAGMA journal_mode=WAL")
            self._raw.execute("PRAGMA secure_delete=ON")  # forgotten text does not linger in free pages
            self._raw.execute("PRAGMA synchronous=NORMAL")
            # A large memory's writes touch pages all over its indexes: pages kept in memory are not
            # read again, and a longer log between checkpoints writes a page changed by several
            # transactions back once. Reads map the file instead of copying each page.
            self._raw.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
            self._raw.execute(f"PRAGMA wal_autocheckpoint={CHECKPOINT_PAGES}")
            self._raw.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
        except sqlite3.OperationalError as exc:  # locked, read-only
            raise StorageError(f"memory database {target} cannot be opened ({_one_line(exc)})") from None
        except sqlite3.DatabaseError as exc:
            assert path is not None
            raise StorageError(f"{path.name} in {path.parent} is damaged ({_one_line(exc)}): {MEMORY_DB_FIX}") from None

    def compact(self) -> None:
        """Empty the write-ahead log into the file (after forgetting: no forgotten text lingers)."""
        with self._lock:
            self._raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def columns(self, table: str) -> set[str]:
        """The column names of ``table`` (empty when there is no such table)."""
        return {r[1] for r in self.read(f"PRAGMA table_info({table})")}


class Postgres(Connection):
    """The shared record database: a PostgreSQL connection in the deployment's schema."""

    dialect = "postgres"

    def __init__(self, url: str, namespace: str):
        """A connection to ``url`` working in schema ``namespace`` (created if missing); the tables in
        it are the caller's (``caim.memory.storage.migrations``)."""
        super().__init__()
        try:
            import psycopg
        except ImportError:
            raise StorageError(
                "a PostgreSQL memory database needs the postgres extra: pip install 'caim[postgres]'"
            ) from None
        self._errors = (psycopg.Error,)
        self.where = url.split("@")[-1]
        self.namespace = namespace
        if not _IDENT.match(namespace):
            raise StorageError(f"namespace {namespace!r} is not a valid schema name (lowercase letters, digits, _)")
        try:
            self._raw = psycopg.connect(url, autocommit=True)
            self._raw.execute(f"CREATE SCHEMA IF NOT EXISTS {namespace}")
            self._raw.execute(f"SET search_path TO {namespace}")
        except psycopg.Error as exc:
            raise StorageError(f"memory database {self.where} cannot be opened ({_one_line(exc)})") from None
        self.url = url

    def _sql(self, sql: str) -> str:
        # SQLite's unary plus keeps a column from choosing the index (``+user_id``, ``+r.user_id``)
        sql = _UNARY_PLUS.sub(r"\1", sql.replace("BEGIN IMMEDIATE", "BEGIN"))
        return sql.replace("%", "%%").replace("?", "%s")

    def compact(self) -> None:
        """Reclaim space of deleted rows (VACUUM; PostgreSQL overwrites them as it reuses pages)."""
        with self._lock:
            for table in ("records", "postings", "term_df", "record_tags", "record_names"):
                self._raw.execute(f"VACUUM {table}")

    def columns(self, table: str) -> set[str]:
        """The column names of ``table`` in the schema (empty when there is no such table)."""
        rows = self.read(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ?",
            (self.namespace, table),
        )
        return {r[0] for r in rows}

    @contextmanager
    def advisory(self, key: str) -> Iterator[None]:
        """A lock across every process and machine using this database (one per ``key``)."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (f"{self.namespace}:{key}",))
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (f"{self.namespace}:{key}",))


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
