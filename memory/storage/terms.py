"""The ontology terms learned from each user's own words, in the record database (``user_terms``).

A term a model proposed while reading alice's words is alice's: it extends her ontology only
(``caim.ontology.OntologyStore.of``), never another user's, and it is deleted with the rest of her
data (``RecordDB.forget_user`` deletes her rows in the same transaction, and the database is
compacted). ``TermBook`` is the table's one interface (``MemoryStore.terms``); it is the
``caim.ontology.ontology.UserTermBook`` the ontology store reads and writes through.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from caim.memory.storage.db import RecordDB

#: Most terms one user's ontology may learn (a proposal past it is dropped with a log line).
MAX_USER_TERMS = 500
#: Meta key set once the shared ontology versions were checked for terms learned from users' words.
SETTLED_KEY = "ontology:per_user"


class TermBook:
    """The ``user_terms`` table of a record database: per user, (parent, term) in the order learned."""

    def __init__(self, db: RecordDB):
        """The book in ``db``.

        Args:
            db: The record database holding the table.
        """
        self._db = db
        self._conn = db.conn

    def terms(self, user_id: str) -> list[tuple[str, str]]:
        """The user's learned terms as (parent, term), oldest first."""
        rows = self._conn.read("SELECT parent, term FROM user_terms WHERE user_id = ? ORDER BY seq, term", (user_id,))
        return [(str(p), str(t)) for p, t in rows]

    def add(self, user_id: str, terms: Sequence[tuple[str, str]]) -> int:
        """Add (parent, term) pairs to the user's terms (one already there is left as it is), at most
        ``MAX_USER_TERMS`` in all. Returns how many were added."""
        if not terms:
            return 0
        added = 0
        with self._conn.tx() as c:
            row = c.one("SELECT count(*), coalesce(max(seq), 0) FROM user_terms WHERE user_id = ?", (user_id,))
            count, seq = (int(row[0]), int(row[1])) if row else (0, 0)
            for parent, term in terms:
                if count >= MAX_USER_TERMS:
                    break
                if c.one("SELECT 1 FROM user_terms WHERE user_id = ? AND term = ?", (user_id, term)):
                    continue
                seq += 1
                c.execute(
                    "INSERT INTO user_terms (user_id, term, parent, seq) VALUES (?, ?, ?, ?)",
                    (user_id, term, parent, seq),
                )
                count += 1
                added += 1
        return added

    def forget(self, user_id: str) -> list[str]:
        """Delete the user's terms; the terms deleted."""
        with self._conn.tx() as c:
            rows = c.execute("SELECT term FROM user_terms WHERE user_id = ?", (user_id,)).fetchall()
            gone = [str(t) for (t,) in rows]
            c.execute("DELETE FROM user_terms WHERE user_id = ?", (user_id,))
        return gone

    def users_tagged(self, tag: str) -> list[str]:
        """The users with a record tagged ``tag`` (legacy learned terms go to them: see the ontology store)."""
        return [str(u) for (u,) in self._conn.read("SELECT DISTINCT user_id FROM record_tags WHERE tag = ?", (tag,))]

    def settled(self) -> bool:
        """Whether the shared ontology versions were checked for terms learned before learning was per user."""
        return bool(self._db.get_meta(SETTLED_KEY))

    def settle(self) -> None:
        """Note that they were."""
        self._db.set_meta(SETTLED_KEY, "1")
