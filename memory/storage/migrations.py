"""The record database's schema, as an ordered registry of named migrations recorded in the database.

Each change to the schema is a function registered with ``@migration``, in the order it must run.
``migrate`` runs, on every open, the ones the ``_migrations`` table does not list yet, each in a
transaction of its own that also records its name and time - on SQLite and PostgreSQL alike (both
run DDL inside transactions). On PostgreSQL an advisory lock lets one process migrate at a time;
on SQLite the write lock of each migration's transaction does. A migration is never edited or
removed once released: a later change is a new migration at the end.

Databases written before the registry hold the tables without a ``_migrations`` table: the first
migration creates only what is missing (``CREATE ... IF NOT EXISTS``) and the later ones check
before they change anything, so such a database opens with its tables and rows as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from caim.memory.storage.sql import Connection, Cursor

#: A migration: the statements of one schema change, run inside the migration's transaction.
Migration = Callable[[Cursor], None]

#: The registered migrations, in the order they run.
MIGRATIONS: list[tuple[str, Migration]] = []

#: The PostgreSQL advisory lock held while a process migrates.
_LOCK = 914253
#: The record of the migrations run, in the order they ran.
_TABLE = """CREATE TABLE IF NOT EXISTS _migrations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL
)"""


def migration(fn: Migration) -> Migration:
    """Register ``fn`` as the next migration, under its function name.

    Args:
        fn: The migration; it receives a cursor inside the migration's transaction.

    Returns:
        ``fn`` itself.

    Raises:
        ValueError: When a migration of that name is registered already.
    """
    if any(name == fn.__name__ for name, _ in MIGRATIONS):
        raise ValueError(f"migration {fn.__name__} is registered twice")
    MIGRATIONS.append((fn.__name__, fn))
    return fn


def applied(conn: Connection) -> list[str]:
    """The names of the migrations the database has run, in the order it ran them.

    Args:
        conn: An open connection whose ``_migrations`` table exists (``migrate`` creates it).

    Returns:
        The names recorded in ``_migrations``.
    """
    return [r[0] for r in conn.read("SELECT name FROM _migrations ORDER BY seq")]


def migrate(conn: Connection, migrations: list[tuple[str, Migration]] | None = None) -> list[str]:
    """Run the migrations the database has not run yet, each in its own transaction, and record them.

    Args:
        conn: An open SQLite or PostgreSQL connection (``caim.memory.storage.sql``).
        migrations: The registry to apply; ``MIGRATIONS`` when not given.

    Returns:
        The names of the migrations this call ran (empty when the database was up to date).
    """
    todo = MIGRATIONS if migrations is None else migrations
    postgres = conn.dialect == "postgres"
    if postgres:
        conn.execute(f"SELECT pg_advisory_lock({_LOCK})")
    try:
        conn.execute(postgres_types(_TABLE) if postgres else _TABLE)
        done = set(applied(conn))
        ran = []
        for name, fn in todo:
            if name in done:
                continue
            with conn.tx() as c:
                if c.one("SELECT 1 FROM _migrations WHERE name = ?", (name,)):  # another process ran it
                    continue
                fn(c)
                c.execute(
                    "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                    (name, datetime.now(UTC).isoformat(timespec="seconds")),
                )
            ran.append(name)
        return ran
    finally:
        if postgres:
            conn.execute(f"SELECT pg_advisory_unlock({_LOCK})")


# ---- helpers for migrations ---------------------------------------------------------------------


def postgres_types(schema: str) -> str:
    """SQLite DDL in PostgreSQL's types.

    Args:
        schema: Statements in SQLite's spelling.

    Returns:
        The same statements for PostgreSQL (``BIGSERIAL`` keys, ``DOUBLE PRECISION``, ``BYTEA``, no
        ``WITHOUT ROWID``).
    """
    out = schema.replace("rid INTEGER PRIMARY KEY,", "rid BIGSERIAL PRIMARY KEY,")
    out = out.replace("seq INTEGER PRIMARY KEY AUTOINCREMENT", "seq BIGSERIAL PRIMARY KEY")
    out = out.replace(") WITHOUT ROWID;", ");").replace(" REAL", " DOUBLE PRECISION").replace(" BLOB", " BYTEA")
    return out.replace("rid INTEGER NOT NULL", "rid BIGINT NOT NULL")


def _script(c: Cursor, schema: str) -> None:
    """Run ``schema`` (SQLite's spelling; ``;`` ends each statement) one statement at a time."""
    if c.conn.dialect == "postgres":
        schema = postgres_types(schema)
    for statement in filter(str.strip, schema.split(";")):
        c.execute(statement)


def _has_column(c: Cursor, table: str, column: str) -> bool:
    if c.conn.dialect == "postgres":
        return bool(
            c.one(
                "SELECT 1 FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?",
                (table, column),
            )
        )
    return any(r[1] == column for r in c.execute(f"PRAGMA table_info({table})").fetchall())


# ---- the migrations, in order -------------------------------------------------------------------

#: The tables of the first release with a registry (see ``caim.memory.storage.db`` for what each holds).
INITIAL_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    event_ts REAL NOT NULL,
    valid_until_ts REAL,
    session_id TEXT NOT NULL DEFAULT '',
    turn INTEGER,
    speaker TEXT NOT NULL DEFAULT '',
    prior REAL NOT NULL DEFAULT 0,
    timex INTEGER NOT NULL DEFAULT 0,
    dl INTEGER NOT NULL DEFAULT 0,
    body TEXT NOT NULL,
    vec BLOB,
    vec_state INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS records_user_time ON records(user_id, event_ts, rid);
CREATE INDEX IF NOT EXISTS records_user_session ON records(user_id, session_id, turn);
CREATE INDEX IF NOT EXISTS records_vec_pending ON records(user_id, vec_state) WHERE vec_state = 0;
CREATE TABLE IF NOT EXISTS postings (
    user_id TEXT NOT NULL, term TEXT NOT NULL, rid INTEGER NOT NULL, tf INTEGER NOT NULL, dl INTEGER NOT NULL,
    PRIMARY KEY (user_id, term, rid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS postings_by_record ON postings(user_id, rid);
CREATE TABLE IF NOT EXISTS term_df (
    user_id TEXT NOT NULL, term TEXT NOT NULL, df INTEGER NOT NULL, PRIMARY KEY (user_id, term)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS user_stats (
    user_id TEXT PRIMARY KEY, n INTEGER NOT NULL, total_dl INTEGER NOT NULL, version INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS record_tags (
    user_id TEXT NOT NULL, tag TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (user_id, tag, rid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS record_names (
    user_id TEXT NOT NULL, name TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (user_id, name, rid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS record_tags_by_record ON record_tags(user_id, rid);
CREATE INDEX IF NOT EXISTS record_names_by_record ON record_names(user_id, rid);
CREATE TABLE IF NOT EXISTS vector_deletes (id TEXT PRIMARY KEY, user_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    owner TEXT NOT NULL DEFAULT '',
    claimed_at REAL NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    not_before REAL NOT NULL DEFAULT 0,
    error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS jobs_by_user ON jobs(user_id, seq);
"""


@migration
def m001_initial(c: Cursor) -> None:
    """Every table and index, where missing (a database written before the registry keeps its own)."""
    _script(c, INITIAL_SCHEMA)


@migration
def m002_user_stats_version(c: Cursor) -> None:
    """``user_stats.version``, which a database of caim before it lacks."""
    if not _has_column(c, "user_stats", "version"):
        c.execute("ALTER TABLE user_stats ADD COLUMN version INTEGER NOT NULL DEFAULT 0")


@migration
def m003_term_df_from_postings(c: Cursor) -> None:
    """``term_df`` counted from the postings of a database written before ``term_df`` existed."""
    if c.one("SELECT 1 FROM postings LIMIT 1") and not c.one("SELECT 1 FROM term_df LIMIT 1"):
        c.execute("INSERT INTO term_df SELECT user_id, term, count(*) FROM postings GROUP BY user_id, term")


@migration
def m004_user_denied(c: Cursor) -> None:
    """``user_denied``: the ontology terms each user has denied (their own privacy bounds)."""
    c.execute(
        "CREATE TABLE IF NOT EXISTS user_denied ("
        "user_id TEXT NOT NULL, term TEXT NOT NULL, denied_at TEXT NOT NULL, PRIMARY KEY (user_id, term))"
    )


@migration
def m005_records_user_speaker(c: Cursor) -> None:
    """``records_user_speaker``: a user's speakers read one index seek each, not by reading every record."""
    c.execute("CREATE INDEX IF NOT EXISTS records_user_speaker ON records(user_id, speaker)")


@migration
def m006_user_terms(c: Cursor) -> None:
    """``user_terms``: the ontology terms learned from each user's own words (theirs alone; forgotten with them)."""
    c.execute(
        "CREATE TABLE IF NOT EXISTS user_terms (user_id TEXT NOT NULL, term TEXT NOT NULL, parent TEXT NOT NULL, "
        "seq INTEGER NOT NULL, PRIMARY KEY (user_id, term))"
    )


@migration
def m007_user_stats_bytes(c: Cursor) -> None:
    """``user_stats.bytes``: the bytes of each user's stored records (their quota), counted from the records."""
    if not _has_column(c, "user_stats", "bytes"):
        c.execute("ALTER TABLE user_stats ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0")
    size = "octet_length(r.body)" if c.conn.dialect == "postgres" else "length(CAST(r.body AS BLOB))"
    c.execute(
        f"UPDATE user_stats SET bytes = (SELECT coalesce(sum({size}), 0) FROM records r "
        "WHERE r.user_id = user_stats.user_id)"
    )
