"""Export and import of a user's memories: every record with its times, validity, links and history.

``export_lines`` streams the export as JSON text, one record at a time, so a user with 100k
records is exported in constant memory. ``import_records`` restores an export into a user (the
same user, or another one when migrating); ids are kept, so importing twice adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import ValidationError

from caim.core.errors import CaimError
from caim.memory.records import MemoryRecord, utcnow
from caim.memory.store import MemoryStore

FORMAT = 1
BATCH = 256


def export_lines(store: MemoryStore, user_id: str) -> Iterator[str]:
    """The export of ``user_id`` as pieces of one JSON document (join them, or write them out)."""
    head = {"format": FORMAT, "user_id": user_id, "exported_at": utcnow().isoformat()}
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "memories": ['
    for i, rec in enumerate(store.iter(user_id)):
        yield ("," if i else "") + "\n" + rec.model_dump_json()
    yield "\n]}\n"


def _items(data: dict[str, Any] | list[Any]) -> Iterable[Any]:
    if isinstance(data, dict):
        if "memories" not in data or not isinstance(data["memories"], list):
            raise CaimError("not a caim export: no list of memories")
        return data["memories"]
    if isinstance(data, list):
        return data
    raise CaimError("not a caim export: expected an object with memories or a list of records")


def import_records(store: MemoryStore, user_id: str, data: dict[str, Any] | list[Any]) -> int:
    """Write the export's records under ``user_id`` (replacing records with the same id); returns
    how many were written. A malformed record stops the import with a one-line error before anything
    of its batch is written."""
    n = 0
    batch: list[MemoryRecord] = []
    for i, item in enumerate(_items(data)):
        try:
            rec = MemoryRecord.model_validate({**item, "user_id": user_id})
        except (ValidationError, TypeError) as exc:
            raise CaimError(f"record {i + 1} of the import is not a memory record ({str(exc).splitlines()[0]})") from None
        batch.append(rec)
        if len(batch) >= BATCH:
            store.add(batch)
            n += len(batch)
            batch = []
    store.add(batch)
    return n + len(batch)
