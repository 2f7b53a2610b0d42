"""The records a user's own changes make: a correction's new version, and forgetting records everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from caim.memory.entities import with_entities
from caim.memory.maintenance import apply_update
from caim.memory.records import HistoryEntry, MemoryRecord, SourceTurn, stable_id, utcnow
from caim.memory.storage.store import MemoryStore
from caim.ontology import Ontology
from caim.services.profile import prune


def corrected(old: MemoryRecord, text: str) -> tuple[MemoryRecord, MemoryRecord]:
    """A correction of ``old`` in the user's own words: ``old`` closed, and the new version holding
    ``text`` that supersedes it (``old`` in its history), with ``old``'s tags, date, speaker and links;
    its source turn is the correction itself.

    Args:
        old: The user's current record.
        text: What the memory should say.

    Returns:
        (the closed record, the new version), to store together.
    """
    now = utcnow()
    user = old.user_id
    session = "correct-" + stable_id(user, old.id, text)[:12]
    new = MemoryRecord(
        id=stable_id(user, "corrected", old.id, text),
        user_id=user,
        thought=text,
        tags=old.tags,
        event_time=old.event_time,
        valid_from=old.valid_from or old.event_time,
        links=old.links,
        speaker=old.speaker,
        session_id=session,
        sources=[SourceTurn(role="user", text=text, time=now)],
        history=[HistoryEntry(at=now, change="created", session_id=session, note="corrected by the user")],
    )
    return apply_update(old, with_entities(new), session)


def forget_records(
    store: MemoryStore, user: str, gone: Sequence[MemoryRecord], ontology: Ontology, embedder: Any
) -> int:
    """Forget ``gone`` records of the user everywhere (vectors, lexical index, sources, history, and
    what the profile drew from them: ``prune``), leaving no trace in the database's free pages.
    Call under the user's lock. Returns how many records were deleted."""
    forgotten = store.delete(user, [r.id for r in gone]) if gone else 0
    if forgotten:
        prune(store, user, ontology, embedder, gone)
        store.compact()  # after the profile's rewrite: no trace of the old one either
    return forgotten
