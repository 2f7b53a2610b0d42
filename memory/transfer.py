"""Export and import of a user's memories: every record with its times, validity, links and history.

``export_lines`` streams the export as JSON text, one record at a time, so a user with 100k
records is exported in constant memory; the user's profile follows the records. ``import_records``
restores an export into a user: into the same user (a restore, a migration to another store)
every id is kept; into another user of the same store ids are derived from the old ones.
Either way importing twice adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import astuple, dataclass
from typing import Any

from pydantic import ValidationError

from caim.core.errors import CaimError
from caim.memory.profile import Profile
from caim.memory.records import MemoryRecord, stable_id, utcnow
from caim.memory.store import MemoryStore

FORMAT = 1
BATCH = 256


def export_lines(records: Iterable[MemoryRecord], user_id: str, profile: Profile | None = None) -> Iterator[str]:
    """The export of ``user_id``'s ``records`` (``store.iter(user_id)``, or the record database's
    ``iter_user``: no vector index or model needed) and ``profile`` as pieces of one JSON document."""
    head = {"format": FORMAT, "user_id": user_id, "exported_at": utcnow().isoformat()}
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "memories": ['
    for i, rec in enumerate(records):
        yield ("," if i else "") + "\n" + rec.model_dump_json()
    tail = f', "profile": {profile.model_dump_json()}' if profile is not None and not profile.empty else ""
    yield f"\n]{tail}}}\n"


def _items(data: dict[str, Any] | list[Any]) -> Iterable[Any]:
    if isinstance(data, dict):
        if "memories" not in data or not isinstance(data["memories"], list):
            raise CaimError("not a caim export: no list of memories")
        return data["memories"]
    if isinstance(data, list):
        return data
    raise CaimError("not a caim export: expected an object with memories or a list of records")


def _renamer(store: MemoryStore, user_id: str, source_user: str | None) -> Callable[[str], str]:
    """Ids stay as exported when restoring into the same user; into another user (a copy on the
    same store) each id becomes one derived from the new user and the old id - still the same on
    every import, so importing twice adds nothing."""
    if source_user is None or source_user == user_id:
        return lambda rid: rid
    return lambda rid: stable_id(user_id, "imported", rid)


def _renamed(rec: MemoryRecord, new: Callable[[str], str]) -> MemoryRecord:
    return rec.model_copy(
        update={
            "id": new(rec.id),
            "superseded_by": new(rec.superseded_by) if rec.superseded_by else None,
            "supersedes": [new(i) for i in rec.supersedes],
            "links": [new(i) for i in rec.links],
            "history": [h.model_copy(update={"others": [new(i) for i in h.others]}) for h in rec.history],
        }
    )


@dataclass(frozen=True)
class Imported:
    """What an import did with the export's records: ``added`` (no record of that id before),
    ``updated`` (a record of that id replaced by the export's different one), ``unchanged`` (the
    same record already there: not written again) and ``refused`` (left out by the import's
    ``keep``: outside the user's privacy bounds)."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    refused: int = 0

    @property
    def written(self) -> int:
        """Records written: added or updated."""
        return self.added + self.updated

    def __add__(self, other: Imported) -> Imported:
        return Imported(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))


def _write(store: MemoryStore, user_id: str, batch: list[MemoryRecord]) -> Imported:
    """Write the records of ``batch`` that differ from the stored ones of the same id; say what was what."""
    before = {r.id: r for r in store.db.get(user_id, [r.id for r in batch])}
    fresh = [r for r in batch if before.get(r.id) != r]
    store.add(fresh)
    added = sum(r.id not in before for r in fresh)
    return Imported(added=added, updated=len(fresh) - added, unchanged=len(batch) - len(fresh))


def import_records(
    store: MemoryStore,
    user_id: str,
    data: dict[str, Any] | list[Any],
    keep: Callable[[MemoryRecord], bool] | None = None,
) -> Imported:
    """Write the export's records under ``user_id`` (replacing records with the same id, leaving the
    same record as it is); returns how many were added, updated, unchanged and refused. A malformed
    record stops the import with a one-line error before anything of its batch is written.
    ``keep``: records it refuses (e.g. outside the user's privacy bounds) are left out."""
    source = data.get("user_id") if isinstance(data, dict) else None
    new = _renamer(store, user_id, str(source) if source is not None else None)
    done = Imported()
    batch: list[MemoryRecord] = []
    for i, item in enumerate(_items(data)):
        try:
            rec = _renamed(MemoryRecord.model_validate({**item, "user_id": user_id}), new)
        except (ValidationError, TypeError) as exc:
            raise CaimError(
                f"record {i + 1} of the import is not a memory record ({str(exc).splitlines()[0]})"
            ) from None
        if store.db.owner(rec.id) not in (None, user_id):
            raise CaimError(
                f"record {rec.id} of the import belongs to another user of this store; export that user first"
            )
        if keep is not None and not keep(rec):
            done += Imported(refused=1)
            continue
        batch.append(rec)
        if len(batch) >= BATCH:
            done += _write(store, user_id, batch)
            batch = []
    return done + _write(store, user_id, batch)


def imported_profile(store: MemoryStore, user_id: str, data: dict[str, Any] | list[Any]) -> Profile | None:
    """The export's profile as ``user_id``'s, its member ids renamed as ``import_records`` renamed the
    records (``None`` when the export has none); a malformed one is a one-line error."""
    if not isinstance(data, dict) or data.get("profile") is None:
        return None
    source = data.get("user_id")
    new = _renamer(store, user_id, str(source) if source is not None else None)
    try:
        profile = Profile.model_validate({**data["profile"], "user_id": user_id})
    except (ValidationError, TypeError) as exc:
        raise CaimError(f"the import's profile is not a caim profile ({str(exc).splitlines()[0]})") from None
    for bg in profile.backgrounds.values():
        bg.members = [new(i) for i in bg.members]
    for p in profile.principles:
        p.members = [new(i) for i in p.members]
    return profile
