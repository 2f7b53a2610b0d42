"""Export and import of a user's memories: every record with its times, validity, links, history and vector.

``export_lines`` streams the export as JSON text, one record a line, so a user with 100k records
is exported in constant memory; the user's profile follows the records. Format 2 carries each
record's vector as the store holds it (float16, base64) with the digest of the text it embeds, and
the head names the embedder (name and version). ``import_records`` restores an export into a user:
into the same user (a restore, a migration to another store) every id is kept; into another user
of the same store ids are derived from the old ones. Either way importing twice adds nothing, and a
record already stored as the export has it is not written again (an import stopped half way is
finished by importing the same file again). An export's vectors are reused when the store embeds
with the same embedder; otherwise, and for a vector that is damaged or does not match its record,
the record is embedded again (such a vector is never stored). ``read_export`` reads a large export
file as a stream (bounded memory); ``import_records`` writes it ``BATCH`` records at a time.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
from pydantic import ValidationError

from caim.core.embeddings import embedder_version
from caim.core.errors import CaimError, InputError
from caim.memory.profile import Profile
from caim.memory.records import MemoryRecord, stable_id, utcnow
from caim.memory.store import MemoryStore

#: The format ``export_lines`` writes: 1 (records only) and 2 (records with their vectors) are read.
FORMAT = 2
BATCH = 256
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
) -> Iterator[str]:
    """The export of ``user_id``'s ``records`` and ``profile`` as pieces of one JSON document.

    Args:
        records: The records (``store.iter(user_id)`` or the record database's ``iter_user``: no vector
            index or model needed), or (record, vector) pairs (``RecordDB.iter_vectors``), whose
            vectors the export then carries.
        user_id: Whose records.
        profile: The user's profile (none: left out).
        embedder: The name of the embedder that made the vectors (pairs only).

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
    return Export(head, memories, _lines(p), reader)


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
    if not np.isfinite(vec).all() or abs(float(np.linalg.norm(vec)) - 1.0) > NORM_SLACK:
        return None
    return vec


@dataclass
class _Batch:
    """Records read from an export and not yet written, with their reusable vectors."""

    records: list[MemoryRecord] = field(default_factory=list)
    vectors: list[np.ndarray | None] = field(default_factory=list)


def import_records(
    store: MemoryStore,
    user_id: str,
    data: dict[str, Any] | list[Any] | Export,
    keep: Callable[[MemoryRecord], bool] | None = None,
    progress: Progress | None = None,
) -> Imported:
    """Write the export's records under ``user_id`` (replacing records with the same id), ``BATCH``
    at a time; returns how many were added, updated, already stored as the export has them (left
    alone) and refused (``Imported``).

    A malformed record stops the import with a one-line error before anything of its batch is
    written. ``keep``: records it refuses (e.g. outside the user's privacy bounds) are left out.
    ``progress(done, total)`` is called after each batch (``total``: ``None`` when unknown)."""
    export = as_export(data)
    source = export.head.get("user_id") if isinstance(export.head, dict) else None
    version = export.head.get("format", 1)
    if isinstance(version, int) and version > FORMAT:
        raise CaimError(f"this export is of format {version}, written by a newer caim (this one reads up to {FORMAT})")
    new = _renamer(store, user_id, str(source) if source is not None else None)
    dims = store.dims() if _reusable(store, export.head) else 0
    done, seen = Imported(), 0
    batch = _Batch()
    try:
        for i, item in enumerate(export.memories):
            seen = i + 1
            rec = _parsed(item, i, user_id, new)
            if keep is not None and not keep(rec):
                done += Imported(refused=1)
                continue
            batch.records.append(rec)
            batch.vectors.append(_vector(item, rec, dims) if dims and isinstance(item, dict) else None)
            if len(batch.records) >= BATCH:
                done += _write(store, user_id, batch)
                batch = _Batch()
                if progress is not None:
                    progress(seen, export.total)
        done += _write(store, user_id, batch)
    finally:
        export.close()
    if progress is not None:
        progress(seen, seen)
    return done


def _parsed(item: Any, i: int, user_id: str, new: Callable[[str], str]) -> MemoryRecord:
    try:
        return _renamed(MemoryRecord.model_validate({**item, "user_id": user_id}), new)
    except (ValidationError, TypeError) as exc:
        raise CaimError(f"record {i + 1} of the import is not a memory record ({str(exc).splitlines()[0]})") from None


def _write(store: MemoryStore, user_id: str, batch: _Batch) -> Imported:
    """Write a batch's records that the store does not hold as they are; say how many were added,
    updated and left alone (stored as they are, or given again later in the batch)."""
    if not batch.records:
        return Imported()
    ids = [r.id for r in batch.records]
    for rid, owner in store.db.owners(ids).items():
        if owner != user_id:
            raise CaimError(f"record {rid} of the import belongs to another user of this store; export that user first")
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


__all__ = ["FORMAT", "Export", "as_export", "export_lines", "import_records", "imported_profile", "read_export"]
