"""Export and import of a user's memories: every record with its times, validity, links and history.

``export_lines`` streams the export as JSON text, one record at a time, so a user with 100k
records is exported in constant memory; the user's profile and the ontology terms learned from
their words follow the records. ``import_records`` restores an export into a user: into the same
user (a restore, a migration to another store) every id is kept; into another user of the same
store ids are derived from the old ones. Either way importing twice adds nothing, and an export
of well-formed records comes back exactly as it was.

An import is all or nothing, checked before anything is written: at most ``limit`` records; each a
memory record whose ids (its own, those it supersedes, links and names in its history) are ids as
the store makes them (``caim.core.checks.is_record_id``) and whose tags have an ontology term's
shape (``is_tag``), so no field of it can carry markup or a line of its own into what a surface
prints; an id another user's record holds is "no such memory" of this user, as on every other path.
A record refused names itself in one line (its place in the file and its id, quoted) and nothing of
the import is stored. An import never makes an older version current again: a record the store (or
the file) holds a newer version of - one that supersedes it or merged it - is written closed, valid
until that version began, superseded by it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from caim.core.checks import is_record_id, is_tag
from caim.core.errors import CaimError, InputError, QuotaError
from caim.memory.profile import Profile
from caim.memory.records import MemoryRecord, as_aware, stable_id, utcnow
from caim.memory.store import MemoryStore
from caim.memory.terms import MAX_USER_TERMS

FORMAT = 1


def export_lines(
    records: Iterable[MemoryRecord],
    user_id: str,
    profile: Profile | None = None,
    *,
    terms: Sequence[tuple[str, str]] = (),
) -> Iterator[str]:
    """The export of ``user_id``'s ``records`` (``store.iter(user_id)``, or the record database's
    ``iter_user``: no vector index or model needed), ``profile`` and learned ontology ``terms``
    ((parent, term), ``MemoryStore.terms``) as pieces of one JSON document."""
    head = {"format": FORMAT, "user_id": user_id, "exported_at": utcnow().isoformat()}
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "memories": ['
    for i, rec in enumerate(records):
        yield ("," if i else "") + "\n" + rec.model_dump_json()
    tail = f', "profile": {profile.model_dump_json()}' if profile is not None and not profile.empty else ""
    if terms:
        tail += ', "terms": ' + json.dumps([{"parent": p, "term": t} for p, t in terms], ensure_ascii=False)
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


def _shown(rid: object) -> str:
    """A value as a refusal names it: a JSON string, clipped, on one line, its angle brackets escaped
    (it can open no tag of a page or prompt the refusal is shown in)."""
    return json.dumps(str(rid)[:40], ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


def _checked(i: int, item: Any, user_id: str, new: Callable[[str], str]) -> MemoryRecord:
    """Record ``i`` (from 0) of an import as ``user_id``'s, its ids renamed by ``new``; a one-line
    ``InputError`` naming it when it is no memory record, or an id or tag breaks the rules."""
    where = f"record {i + 1} of the import"
    if not isinstance(item, dict):
        raise InputError(f"{where} is not a memory record (a JSON object)")
    try:
        rec = MemoryRecord.model_validate({**item, "user_id": user_id})
    except (ValidationError, TypeError) as exc:
        first: Mapping[str, Any] = exc.errors(include_url=False)[0] if isinstance(exc, ValidationError) else {}
        loc = ".".join(str(p) for p in first.get("loc", ())) or "record"
        raise InputError(
            f"{where} (id {_shown(item.get('id', ''))}) is not a memory record ({loc}: {first.get('msg', exc)})"
        ) from None
    where += f" (id {_shown(rec.id)})"
    ids = [rec.id, *([rec.superseded_by] if rec.superseded_by else []), *rec.supersedes, *rec.links]
    ids += [o for h in rec.history for o in h.others]
    bad = next((x for x in ids if not is_record_id(x)), None)
    if bad is not None:
        raise InputError(
            f"{where}: {_shown(bad)} is no memory id (ids are 32 lowercase hexadecimal characters, as caim makes them)"
        )
    tag = next((t for t in rec.tags if not is_tag(t)), None)
    if tag is not None:
        raise InputError(
            f"{where}: tag {_shown(tag)} is no ontology term (a lowercase letter, then lowercase letters, digits, "
            "_ or -, at most 32)"
        )
    return _renamed(rec, new)


def _newer_versions(records: Iterable[MemoryRecord]) -> dict[str, tuple[str, Any]]:
    """Per record id, the newer version of it ``records`` hold (id, when it began): a record that
    supersedes it or merged it, or - for a closed record - the one it names as its successor."""
    newer: dict[str, tuple[str, Any]] = {}
    for rec in records:
        began = rec.valid_from or rec.event_time
        for old in rec.supersedes:
            newer.setdefault(old, (rec.id, began))
        for h in rec.history:
            if h.change == "merged":
                for old in h.others:
                    newer.setdefault(old, (rec.id, h.at))
        if rec.valid_until is not None and rec.superseded_by:
            newer[rec.id] = (rec.superseded_by, rec.valid_until)
    return newer


def _kept_closed(rec: MemoryRecord, newer: dict[str, tuple[str, Any]]) -> MemoryRecord:
    """``rec`` closed when a newer version of it exists (see ``_newer_versions``); as it is otherwise."""
    found = newer.get(rec.id)
    if found is None or not rec.current or found[0] == rec.id:
        return rec
    successor, since = found
    until = max(as_aware(since), as_aware(rec.valid_from or rec.event_time))
    return rec.model_copy(update={"valid_until": until, "superseded_by": successor})


def import_terms(data: dict[str, Any] | list[Any]) -> list[tuple[str, str]]:
    """The export's learned ontology terms as (parent, term), or a one-line ``InputError`` when they
    are malformed (each ``{"parent": "category" or "category/subcategory", "term": "word"}``)."""
    raw = data.get("terms") if isinstance(data, dict) else None
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_USER_TERMS:
        raise InputError(f"the import's terms must be a list of at most {MAX_USER_TERMS} {{parent, term}} objects")
    out = []
    for i, t in enumerate(raw):
        parent = t.get("parent") if isinstance(t, dict) else None
        term = t.get("term") if isinstance(t, dict) else None
        parts = parent.split("/") if isinstance(parent, str) else []
        if not is_tag(term) or not 1 <= len(parts) <= 2 or not all(is_tag(p) for p in parts):
            raise InputError(
                f'term {i + 1} of the import is no ontology term: each is {{"parent": "category" or '
                '"category/subcategory", "term": "word"} in lowercase letters'
            )
        out.append((str(parent), str(term)))
    return out


def import_records(
    store: MemoryStore,
    user_id: str,
    data: dict[str, Any] | list[Any],
    keep: Callable[[MemoryRecord], bool] | None = None,
    *,
    limit: int | None = None,
) -> int:
    """Write the export's records under ``user_id`` (replacing records with the same id), all or
    nothing (see the module docstring); returns how many were written. ``keep``: records it refuses
    (e.g. outside the user's privacy bounds) are left out. ``limit``: the most records one import may
    hold (a ``QuotaError`` above it; ``None``: no limit)."""
    items = list(_items(data))
    if limit is not None and len(items) > limit:
        raise QuotaError(
            f"the import holds {len(items):,} records; at most {limit:,} are taken at once "
            "(CAIM_MAX_IMPORT_RECORDS): split the file; nothing was stored"
        )
    source = data.get("user_id") if isinstance(data, dict) else None
    new = _renamer(store, user_id, str(source) if source is not None else None)
    records = [_checked(i, item, user_id, new) for i, item in enumerate(items)]
    for i, rec in enumerate(records):
        if store.db.owner(rec.id) not in (None, user_id):
            raise InputError(
                f"record {i + 1} of the import (id {_shown(rec.id)}): no such memory of this user to restore; "
                "ids are kept only for the user's own memories"
            )
    stored = {r.id: r for r in store.get_many(user_id, [r.id for r in records])}
    newer = _newer_versions(store.iter(user_id)) if records else {}
    for old, found in _newer_versions(records).items():
        newer.setdefault(old, found)
    for rid, rec in stored.items():  # what the store holds closed stays closed
        if rec.valid_until is not None and rec.superseded_by:
            newer[rid] = (rec.superseded_by, rec.valid_until)
    written = [_kept_closed(r, newer) for r in records if keep is None or keep(r)]
    written = list({r.id: r for r in written}.values())  # an id given twice: its last record counts
    store.add(written)
    return len(written)


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
