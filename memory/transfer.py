"""Export and import of a user's memories: every record with its times, validity, links, history and vector.

``export_lines`` streams the export as JSON text, one record a line, so a user with 100k records
is exported in constant memory; the user's profile and the ontology terms learned from their words
follow the records. Format 2 carries each record's vector as the store holds it (float16, base64)
with the digest of the text it embeds, and the head names the embedder (name and version).
``import_records`` restores an export into a user: into the same user (a restore, a migration to
another store) every id is kept; into another user of the same store ids are derived from the old
ones. Either way importing twice adds nothing, an export of well-formed records comes back exactly
as it was, and a record already stored as the export has it is not written again (an import
stopped half way is finished by importing the same file again). An export's vectors are reused
when the store embeds with the same embedder; otherwise, and for a vector that is damaged or does
not match its record, the record is embedded again (such a vector is never stored). ``read_export``
reads a large export file as a stream (bounded memory); ``import_records`` writes it ``BATCH``
records at a time.

Every record is checked before any is written: at most ``limit`` records; each a memory record whose
ids (its own, those it supersedes, links and names in its history) are ids as the store makes them
(``caim.core.checks.is_record_id``), whose tags have an ontology term's shape (``is_tag``) and whose
speakers (its own, its source turns') are speakers (``caim.memory.records.check_speaker``; none, as in
an export from before speakers were kept, is the user), so no field of it can carry markup or a line
of its own into what a surface prints; an id another user's record holds is "no such memory" of
this user, as on every other path; the learned terms are well-formed; the records new to the user
fit in their quota. A record refused names itself in one line (its place in the file and its id,
quoted) and nothing of the import is stored (a streamed file of more than ``KEEP`` records is read
twice: checked, then written). An import never makes an older version current again:
a record the store (or the file) holds a newer version of - one that supersedes it or merged it - is
written closed, valid until that version began, superseded by it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import astuple, dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any

import numpy as np
from pydantic import ValidationError

from caim.core.checks import is_record_id, is_tag
from caim.core.embeddings import embedder_version
from caim.core.errors import CaimError, InputError, QuotaError
from caim.memory.profile import Profile
from caim.memory.records import MAX_SPEAKER, MemoryRecord, as_aware, check_speaker, stable_id, utcnow
from caim.memory.storage.store import MemoryStore
from caim.memory.storage.terms import MAX_USER_TERMS

#: The format ``export_lines`` writes: 1 (records only) and 2 (records with their vectors) are read.
FORMAT = 2
BATCH = 256
#: A streamed export of at most this many records is kept from its check for its write (read once);
#: a larger one is read again from its file (bounded memory).
KEEP = 4096
#: How a format-2 export writes a vector.
ENCODING = "float16 little-endian, base64"
#: A stored vector's length may be this far from 1 (float16 rounding); further, it is damaged.
NORM_SLACK = 0.02
#: Export files larger than this (bytes) are read as a stream, a record at a time.
STREAM_FROM = 32 * 2**20
_READ = 2**20  # characters read at a time from a streamed export
Progress = Callable[[int, int | None], None]


def text_digest(text: str) -> str:
    """The digest a format-2 export writes beside a vector: of the text it embeds."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def export_lines(
    records: Iterable[MemoryRecord] | Iterable[tuple[MemoryRecord, np.ndarray | None]],
    user_id: str,
    profile: Profile | None = None,
    embedder: str | None = None,
    *,
    terms: Sequence[tuple[str, str]] = (),
) -> Iterator[str]:
    """The export of ``user_id``'s ``records`` and ``profile`` as pieces of one JSON document.

    Args:
        records: The records (``store.iter(user_id)`` or the record database's ``iter_user``: no vector
            index or model needed), or (record, vector) pairs (``RecordDB.iter_vectors``), whose
            vectors the export then carries.
        user_id: Whose records.
        profile: The user's profile (none: left out).
        embedder: The name of the embedder that made the vectors (pairs only).
        terms: The ontology terms learned from the user's words, (parent, term) (``MemoryStore.terms``).

    Returns:
        The pieces, one record a line.
    """
    head: dict[str, Any] = {"format": FORMAT, "user_id": user_id, "exported_at": utcnow().isoformat()}
    if embedder:
        head["embedder"] = {"name": embedder, "version": embedder_version(embedder), "encoding": ENCODING}
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "memories": ['
    for i, item in enumerate(records):
        rec, vec = item if isinstance(item, tuple) else (item, None)
        line = rec.model_dump_json()
        if vec is not None:
            packed = base64.b64encode(np.asarray(vec, dtype="<f2").tobytes()).decode("ascii")
            line = f'{line[:-1]}, "vector": {{"of": "{text_digest(rec.embedded_text())}", "f16": "{packed}"}}}}'
        yield ("," if i else "") + "\n" + line
    tail = f', "profile": {profile.model_dump_json()}' if profile is not None and not profile.empty else ""
    if terms:
        tail += ', "terms": ' + json.dumps([{"parent": p, "term": t} for p, t in terms], ensure_ascii=False)
    yield f"\n]{tail}}}\n"


@dataclass
class Export:
    """An export being read: its ``head`` (every key but the memories: format, user, embedder, and
    the profile once the memories were read), its ``memories`` (read once, in order) and, when known,
    how many there are (``total``)."""

    head: dict[str, Any]
    memories: Iterable[Any]
    total: int | None = None
    _reader: Any = field(default=None, repr=False)
    #: For a streamed export: the same file read again from its start (an import reads it twice).
    reopen: Callable[[], Export] | None = field(default=None, repr=False)

    @property
    def streamed(self) -> bool:
        """Whether the memories are read from a file as they are iterated (once)."""
        return self._reader is not None

    def close(self) -> None:
        """Close the file a streamed export is read from."""
        if self._reader is not None:
            self._reader.close()


def as_export(data: dict[str, Any] | list[Any] | Export) -> Export:
    """``data`` as an ``Export``: an export's JSON object, a bare list of records, or an ``Export``."""
    if isinstance(data, Export):
        return data
    if isinstance(data, dict):
        if "memories" not in data or not isinstance(data["memories"], list):
            raise CaimError("not a caim export: no list of memories")
        return Export({k: v for k, v in data.items() if k != "memories"}, data["memories"], len(data["memories"]))
    if isinstance(data, list):
        return Export({}, data, len(data))
    raise CaimError("not a caim export: expected an object with memories or a list of records")


def read_export(path: Path | str, stream_from: int = STREAM_FROM) -> Export:
    """The export in the file at ``path``: parsed whole when it is small, else read as a stream (the
    keys before ``memories`` first, then one record at a time, then the keys after them). A file
    that cannot be read or is not JSON is a one-line ``InputError``."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size <= stream_from:
            return as_export(json.loads(p.read_text(encoding="utf-8")))
        reader = _Stream(p.open(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise InputError(f"{p} is not JSON: {exc}") from None
    try:
        head, memories = reader.start()
    except BaseException:
        reader.close()
        raise
    return Export(head, memories, _lines(p), reader, partial(read_export, p, stream_from))


def _lines(path: Path) -> int:
    """About how many records an export file holds: ``export_lines`` writes one a line."""
    with path.open("rb") as f:
        return max(sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(_READ), b"")) - 1, 0)


class _Stream:
    """Reads one JSON document a value at a time from a text file, holding one value at once."""

    def __init__(self, f: IO[str]):
        self.f = f
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.decoder = json.JSONDecoder()

    def close(self) -> None:
        self.f.close()

    def _more(self) -> bool:
        if self.eof:
            return False
        chunk = self.f.read(_READ)
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        self.eof = not chunk
        return bool(chunk)

    def _char(self) -> str:
        """The next character that is not white space (not consumed; "" at the end)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos].isspace():
                self.pos += 1
            if self.pos < len(self.buf) or not self._more():
                return self.buf[self.pos : self.pos + 1]

    def _expect(self, chars: str) -> str:
        c = self._char()
        if not c or c not in chars:
            raise InputError(f"not a caim export: expected {' or '.join(chars)} near character {self.pos}")
        self.pos += 1
        return c

    def value(self) -> Any:
        """The next JSON value (a value the buffer ends within is read on once more text is in)."""
        self._char()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except ValueError as exc:
                if self._more():
                    continue
                raise InputError(f"not a caim export: {exc}") from None
            if end < len(self.buf) or not self._more():
                self.pos = end
                return value

    def start(self) -> tuple[dict[str, Any], Iterator[Any]]:
        """The keys before ``memories`` and an iterator over the memories (which then reads the rest
        into the head); a bare list of records has an empty head."""
        head: dict[str, Any] = {}
        if self._expect("{[") == "[":
            return head, self._items(head, tail=False)
        while self._char() != "}":
            key = self.value()
            self._expect(":")
            if key == "memories":
                self._expect("[")
                return head, self._items(head, tail=True)
            head[str(key)] = self.value()
            if self._expect(",}") == "}":
                break
        raise CaimError("not a caim export: no list of memories")

    def _items(self, head: dict[str, Any], *, tail: bool) -> Iterator[Any]:
        try:
            if self._char() != "]":
                while True:
                    yield self.value()
                    if self._expect(",]") == "]":
                        break
            else:
                self.pos += 1
            while tail and self._expect(",}") == ",":
                key = self.value()
                self._expect(":")
                head[str(key)] = self.value()
        finally:
            self.close()


def _renamer(store: MemoryStore, user_id: str, source_user: str | None) -> Callable[[str], str]:
    """Ids stay as exported when restoring into the same user; into another user (a copy on the
    same store) each id becomes one derived from the new user and the old id - still the same on
    every import, so importing twice adds nothing."""
    if source_user is None or source_user == user_id:
        return _kept
    return lambda rid: stable_id(user_id, "imported", rid)


def _kept(rid: str) -> str:
    """An id restored into the user it was exported from: kept as it is."""
    return rid


def _renamed(rec: MemoryRecord, new: Callable[[str], str]) -> MemoryRecord:
    if new is _kept:  # nothing to rename: no copy
        return rec
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
    ``updated`` (a record of that id replaced by the export's different one), ``unchanged`` (stored
    as the export has it already: not written again) and ``refused`` (left out by the import's
    ``keep``: outside the user's privacy bounds)."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    refused: int = 0

    @property
    def written(self) -> int:
        """Records written: added or updated."""
        return self.added + self.updated

    @property
    def total(self) -> int:
        """Records of the export the import went through: written, left alone or refused."""
        return self.added + self.updated + self.unchanged + self.refused

    def __add__(self, other: Imported) -> Imported:
        return Imported(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))


def _reusable(store: MemoryStore, head: dict[str, Any]) -> bool:
    """Whether the export's vectors were made by the store's embedder (same name and version)."""
    made = head.get("embedder")
    return (
        isinstance(made, dict)
        and made.get("name") == store.embedder.name
        and made.get("version") == store.embedder.version
        and made.get("encoding") == ENCODING
    )


def _vector(item: dict[str, Any], rec: MemoryRecord, dims: int) -> np.ndarray | None:
    """The export's vector of ``rec`` when it is whole and made from the text ``rec`` embeds, else
    ``None`` (the record is embedded again)."""
    given = item.get("vector")
    if not isinstance(given, dict) or not isinstance(given.get("f16"), str) or not isinstance(given.get("of"), str):
        return None
    try:
        raw = base64.b64decode(given["f16"], validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) != 2 * dims or given["of"] != text_digest(rec.embedded_text()):
        return None
    vec = np.frombuffer(raw, dtype="<f2").astype(np.float32)
    if not np.isfinite(vec).all() or abs(float(np.sqrt(vec @ vec)) - 1.0) > NORM_SLACK:
        return None
    return vec


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
    _check_speakers(where, rec)
    return _renamed(rec, new)


def _check_speakers(where: str, rec: MemoryRecord) -> None:
    """Refuse a record whose speaker, or a source turn's, is no speaker (``check_speaker``); an empty
    one (a record exported before speakers were kept) is the user's, as it is in the store."""
    for who in (rec.speaker, *(s.speaker for s in rec.sources)):
        if who:
            try:
                check_speaker(who)
            except InputError:
                raise InputError(
                    f'{where}: speaker {_shown(who)} is no speaker ("user", "assistant" or a participant\'s name: '
                    f"at most {MAX_SPEAKER} printable characters on one line)"
                ) from None


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


def import_terms(head: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The learned ontology terms an export's head holds (``Export.head``; a streamed export's once
    its records were read) as (parent, term), or a one-line ``InputError`` when they are malformed
    (each ``{"parent": "category" or "category/subcategory", "term": "word"}``)."""
    raw = head.get("terms")
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


@dataclass
class _Batch:
    """Records read from an export and not yet written, with their reusable vectors."""

    records: list[MemoryRecord] = field(default_factory=list)
    vectors: list[np.ndarray | None] = field(default_factory=list)


@dataclass
class _Checked:
    """What checking an export found: its records (kept for the writing pass unless the export can
    be read again from its file), how many there are, how many of their ids the user holds no record
    of (``fresh``), the newer versions the file holds, and the bytes of its records (under a quota).
    Ids are checked against the store a batch at a time (``pending``: place in the file and id)."""

    records: list[tuple[MemoryRecord, Any]] = field(default_factory=list)
    #: Whether ``records`` holds every record (else the export is read again for the write).
    kept: bool = True
    count: int = 0
    fresh: int = 0
    pending: list[tuple[int, str]] = field(default_factory=list)
    newer: dict[str, tuple[str, Any]] = field(default_factory=dict)
    bytes: int = 0


def import_records(
    store: MemoryStore,
    user_id: str,
    data: dict[str, Any] | list[Any] | Export,
    keep: Callable[[MemoryRecord], bool] | None = None,
    progress: Progress | None = None,
    *,
    limit: int | None = None,
    checking: Progress | None = None,
) -> Imported:
    """Check every record of the export (see the module docstring), then write them under
    ``user_id`` (replacing records with the same id) ``BATCH`` at a time; returns how many were
    added, updated, already stored as the export has them (left alone) and refused (``Imported``).

    ``keep``: records it refuses (e.g. outside the user's privacy bounds) are left out. ``limit``: the
    most records one import may hold (``None``: no limit). ``progress(done, total)`` is called after
    each batch written (``total``: ``None`` when unknown), ``checking(done, total)`` after each batch
    checked (before the first write: the whole export is checked first). A refusal is a one-line ``InputError``
    (``QuotaError`` past a limit) and nothing is written."""
    export = as_export(data)
    version = export.head.get("format", 1)
    if isinstance(version, int) and version > FORMAT:
        raise CaimError(f"this export is of format {version}, written by a newer caim (this one reads up to {FORMAT})")
    source = export.head.get("user_id")
    new = _renamer(store, user_id, str(source) if source is not None else None)
    checked = _check(store, user_id, export, new, limit, checking)
    newer = _newer_versions(store.iter(user_id)) if checked.count else {}
    for old, found in checked.newer.items():
        newer.setdefault(old, found)
    if not checked.kept and export.reopen is not None:
        again = export.reopen()
        items: Iterable[tuple[MemoryRecord, Any]] = (
            (_checked(i, item, user_id, new), item) for i, item in enumerate(again.memories)
        )
    else:
        again, items = export, checked.records
    dims = store.dims() if _reusable(store, export.head) else 0
    done, seen = Imported(), 0
    batch = _Batch()
    try:
        for seen, (rec, item) in enumerate(items, 1):
            if keep is not None and not keep(rec):
                done += Imported(refused=1)
                continue
            batch.records.append(_kept_closed(rec, newer))
            batch.vectors.append(_vector(item, rec, dims) if dims and isinstance(item, dict) else None)
            if len(batch.records) >= BATCH:
                done += _write(store, user_id, batch)
                batch = _Batch()
                if progress is not None:
                    progress(seen, export.total)
        done += _write(store, user_id, batch)
    finally:
        again.close()
    if progress is not None:
        progress(seen, seen)
    return done


def _check(
    store: MemoryStore,
    user_id: str,
    export: Export,
    new: Callable[[str], str],
    limit: int | None,
    progress: Progress | None = None,
) -> _Checked:
    """Every record of ``export`` checked (kept unless it can be read again; ``progress`` told after each
    ``BATCH``) and its ids against the store's a batch at a time (``_check_ids``), then the learned terms
    and the user's quota; the first refusal raised."""
    found = _Checked()
    try:
        for i, item in enumerate(export.memories):
            if limit is not None and i >= limit:
                raise QuotaError(
                    f"the import holds more than {limit:,} records; at most {limit:,} are taken at once "
                    "(CAIM_MAX_IMPORT_RECORDS): split the file; nothing was stored"
                )
            rec = _checked(i, item, user_id, new)
            found.count += 1
            found.pending.append((i, rec.id))
            if len(found.pending) >= BATCH:
                _check_ids(store, user_id, found)
            if store.db.quota is not None:
                found.bytes += len(rec.model_dump_json().encode())
            for old, newer in _newer_versions([rec]).items():
                found.newer.setdefault(old, newer)
            if found.kept:
                found.records.append((rec, item))
                if export.reopen is not None and len(found.records) > KEEP:  # read again for the write
                    found.records, found.kept = [], False
            if progress is not None and found.count % BATCH == 0:
                progress(found.count, export.total)
        _check_ids(store, user_id, found)
    finally:
        if export.streamed:
            export.close()
    import_terms(export.head)
    _check_room(store, user_id, found)
    return found


def _check_ids(store: MemoryStore, user_id: str, found: _Checked) -> None:
    """The pending ids checked against the store: one another user holds is refused ("no such memory"
    of this user); those the user holds no record of are counted as fresh (an id the file gives again
    in a later batch is counted again: the quota's check errs on the side of refusing)."""
    if not found.pending:
        return
    owners = store.db.owners(list(dict.fromkeys(rid for _, rid in found.pending)))
    for i, rid in found.pending:
        if owners.get(rid, user_id) != user_id:
            raise InputError(
                f"record {i + 1} of the import (id {_shown(rid)}): no such memory of this user to "
                "restore; ids are kept only for the user's own memories"
            )
    found.fresh += len({rid for _, rid in found.pending if rid not in owners})
    found.pending = []


def _check_room(store: MemoryStore, user_id: str, found: _Checked) -> None:
    """Refuse an import whose records new to the user would take them past their quota (the record
    database refuses each write past it too: this says so before the first batch is written)."""
    if store.db.quota is None or not found.count:
        return
    most_records, most_bytes = store.db.quota
    fresh = found.fresh
    records, size = store.usage(user_id)
    if fresh and records + fresh > most_records:
        raise QuotaError(
            f"this memory is full: {records + fresh:,} records would pass the {most_records:,} a user may keep "
            "(CAIM_MAX_USER_RECORDS); forget some, or ask the deployment for more; nothing was stored"
        )
    if fresh and size + found.bytes * fresh // max(found.count, 1) > most_bytes:
        raise QuotaError(
            f"this memory is full: the import's records would pass the {most_bytes:,} bytes a user may keep "
            "(CAIM_MAX_USER_BYTES); forget some, or ask the deployment for more; nothing was stored"
        )


def _write(store: MemoryStore, user_id: str, batch: _Batch) -> Imported:
    """Write a batch's records that the store does not hold as they are; say how many were added,
    updated and left alone (stored as they are, or given again later in the batch)."""
    if not batch.records:
        return Imported()
    ids = [r.id for r in batch.records]
    stored = store.db.bodies(user_id, ids)
    last = {r.id: i for i, r in enumerate(batch.records)}  # an id given twice: its last record counts
    todo = [
        (rec, vec)
        for i, (rec, vec) in enumerate(zip(batch.records, batch.vectors, strict=True))
        if last[rec.id] == i and stored.get(rec.id) != rec.model_dump_json()
    ]
    if todo:
        store.add([r for r, _ in todo], [v for _, v in todo])
    added = sum(rec.id not in stored for rec, _ in todo)
    return Imported(added=added, updated=len(todo) - added, unchanged=len(batch.records) - len(todo))


def imported_profile(store: MemoryStore, user_id: str, data: dict[str, Any] | list[Any] | Export) -> Profile | None:
    """The export's profile as ``user_id``'s, its member ids renamed as ``import_records`` renamed the
    records (``None`` when the export has none); a malformed one is a one-line error. A streamed
    export has its profile once its records were read."""
    head = as_export(data).head
    if head.get("profile") is None:
        return None
    source = head.get("user_id")
    new = _renamer(store, user_id, str(source) if source is not None else None)
    try:
        profile = Profile.model_validate({**head["profile"], "user_id": user_id})
    except (ValidationError, TypeError) as exc:
        raise CaimError(f"the import's profile is not a caim profile ({str(exc).splitlines()[0]})") from None
    for bg in profile.backgrounds.values():
        bg.members = [new(i) for i in bg.members]
    for p in profile.principles:
        p.members = [new(i) for i in p.members]
    return profile


__all__ = [
    "FORMAT",
    "Export",
    "as_export",
    "export_lines",
    "import_records",
    "import_terms",
    "imported_profile",
    "read_export",
]
