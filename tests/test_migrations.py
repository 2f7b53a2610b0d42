"""The record database's migrations: recorded in ``_migrations``, run once, and a database written
before the registry (today's tables, or older ones lacking a column) opens with its rows as they are."""

from __future__ import annotations

import sqlite3

import pytest

from caim.memory.storage import migrations
from caim.memory.storage.db import RecordDB
from caim.memory.storage.migrations import INITIAL_SCHEMA, MIGRATIONS, migrate, migration, postgres_types
from caim.memory.storage.sql import Cursor

#: The tables of a caim that had neither ``user_stats.version`` nor ``term_df`` rows.
OLDER_SCHEMA = INITIAL_SCHEMA.replace(", version INTEGER NOT NULL DEFAULT 0", "")
ROWS = [
    "INSERT INTO postings VALUES ('ann', 'piano', 1, 2, 7)",
    "INSERT INTO postings VALUES ('ann', 'rome', 1, 1, 7)",
    "INSERT INTO postings VALUES ('bob', 'piano', 2, 1, 3)",
    "INSERT INTO user_stats (user_id, n, total_dl) VALUES ('ann', 1, 7)",
    "INSERT INTO meta VALUES ('embedder', 'some-model')",
]
TABLES = ("postings", "term_df", "user_stats", "meta", "records", "jobs")
#: Tables and indexes that migrations after the first add (absent from ``INITIAL_SCHEMA``).
ADDED_LATER = ("user_denied", "records_user_speaker", "user_terms")
#: The column a later migration adds to ``user_stats`` (the bytes of each user's records: their quota).
BYTES_COLUMN = ", bytes INTEGER NOT NULL DEFAULT 0"


def _sqlite_with(path, schema: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(schema + ";\n".join(ROWS) + ";")
    conn.commit()
    conn.close()


def _rows(db: RecordDB) -> dict[str, list[tuple]]:
    return {t: sorted(db.conn.read(f"SELECT * FROM {t}")) for t in TABLES}


def _tables_sql(path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))
    finally:
        conn.close()


def test_a_new_database_runs_and_records_every_migration_once(tmp_path):
    db = RecordDB(tmp_path / "memory.sqlite")
    assert migrations.applied(db.conn) == [name for name, _ in MIGRATIONS]
    assert migrate(db.conn) == []  # up to date: nothing runs again
    db.close()
    again = RecordDB(tmp_path / "memory.sqlite")
    assert migrations.applied(again.conn) == [name for name, _ in MIGRATIONS]
    again.close()


def test_a_database_of_todays_tables_opens_unchanged(tmp_path):
    path = tmp_path / "memory.sqlite"
    _sqlite_with(path, INITIAL_SCHEMA)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO term_df VALUES ('ann', 'piano', 1)")  # kept as it is, not counted again
    conn.commit()
    conn.close()
    before = _tables_sql(path)
    db = RecordDB(path)
    assert migrations.applied(db.conn) == [name for name, _ in MIGRATIONS]
    assert _rows(db)["term_df"] == [("ann", "piano", 1)]
    assert _rows(db)["user_stats"] == [("ann", 1, 7, 0, 0)]
    db.close()
    after = _tables_sql(path)
    assert BYTES_COLUMN in after["user_stats"]
    after["user_stats"] = after["user_stats"].replace(BYTES_COLUMN, "")
    assert {k: v for k, v in after.items() if k not in ("_migrations", *ADDED_LATER)} == before
    assert set(ADDED_LATER) <= set(after)  # what later migrations add is there too


def test_an_older_database_gains_the_column_and_the_counts(tmp_path):
    path = tmp_path / "memory.sqlite"
    _sqlite_with(path, OLDER_SCHEMA)
    db = RecordDB(path)
    rows = _rows(db)
    assert rows["user_stats"] == [("ann", 1, 7, 0, 0)]
    assert rows["term_df"] == [("ann", "piano", 1), ("ann", "rome", 1), ("bob", "piano", 1)]
    assert rows["meta"] == [("embedder", "some-model")]
    db.close()


def test_the_bytes_of_each_users_records_are_counted_from_the_records_they_hold(tmp_path):
    path = tmp_path / "memory.sqlite"
    _sqlite_with(path, INITIAL_SCHEMA)
    conn = sqlite3.connect(path)
    body = '{"thought": "Ana lives in Lisbon, café on the corner."}'
    conn.execute(
        "INSERT INTO records (id, user_id, kind, event_ts, body) VALUES ('r1', 'ann', 'thought', 0, ?)", (body,)
    )
    conn.commit()
    conn.close()
    db = RecordDB(path)
    assert db.usage("ann") == (1, len(body.encode()))  # bytes, not characters
    db.close()


def test_a_migration_added_later_runs_once_in_order(tmp_path):
    db = RecordDB(tmp_path / "memory.sqlite")
    ran: list[str] = []

    def m900_extra(c: Cursor) -> None:
        ran.append("m900")
        c.execute("CREATE TABLE extra (x INTEGER)")

    registry = [*MIGRATIONS, ("m900_extra", m900_extra)]
    assert migrate(db.conn, registry) == ["m900_extra"]
    assert migrate(db.conn, registry) == []
    assert ran == ["m900"]
    assert migrations.applied(db.conn)[-1] == "m900_extra"
    db.close()


def test_a_failed_migration_changes_nothing_and_is_not_recorded(tmp_path):
    db = RecordDB(tmp_path / "memory.sqlite")

    def m901_broken(c: Cursor) -> None:
        c.execute("CREATE TABLE half (x INTEGER)")
        c.execute("THIS IS NOT SQL")

    with pytest.raises(Exception, match="write failed"):
        migrate(db.conn, [*MIGRATIONS, ("m901_broken", m901_broken)])
    assert "m901_broken" not in migrations.applied(db.conn)
    assert not db.conn.read("SELECT name FROM sqlite_master WHERE name = 'half'")
    db.close()


def test_a_name_registers_once():
    def m001_initial(c: Cursor) -> None:
        pass

    with pytest.raises(ValueError, match="twice"):
        migration(m001_initial)
    names = [name for name, _ in MIGRATIONS]
    assert len(names) == len(set(names)) and names == sorted(names)


@pytest.mark.parametrize("backend", ["server"], indirect=True)
def test_postgres_an_older_schema_opens_and_migrates_once(backend):
    import psycopg

    url, ns = backend["database_url"], backend["namespace"]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {ns}")
        conn.execute(f"SET search_path TO {ns}")
        for statement in filter(str.strip, (postgres_types(OLDER_SCHEMA) + ";".join(ROWS)).split(";")):
            conn.execute(statement)
    db = RecordDB(None, url=url, namespace=ns)
    try:
        assert migrations.applied(db.conn) == [name for name, _ in MIGRATIONS]
        rows = _rows(db)
        assert rows["user_stats"] == [("ann", 1, 7, 0, 0)]
        assert rows["term_df"] == [("ann", "piano", 1), ("ann", "rome", 1), ("bob", "piano", 1)]
        assert migrate(db.conn) == []
    finally:
        db.close()
    fresh = RecordDB(None, url=url, namespace=ns)  # opening again runs nothing and keeps the rows
    try:
        assert _rows(fresh)["term_df"] == rows["term_df"]
    finally:
        fresh.close()
