"""Keeping the user's profile true to what is stored (``caim.memory.profile``).

``settle`` stores a profile as the user's, rebuilding by code what no longer holds: a background or
principle that draws on a record not stored (forgotten, denied, corrected, left out of an import), or
whose text its members do not ground. ``prune`` does that after records went. Post-thinking's profile
step, ``Memory.forget``, ``deny``, ``correct`` and ``import_`` call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from caim.memory.profile import (
    MEMBERS,
    Background,
    Principle,
    Profile,
    aspect_of,
    categories_of,
    grounded_text,
    holds,
    listed,
    principle,
    principle_line,
    requirement_of,
)
from caim.memory.records import MemoryRecord, utcnow
from caim.memory.storage.store import MemoryStore
from caim.ontology import Ontology


def record_aspect(rec: MemoryRecord, ontology: Ontology) -> str | None:
    """The aspect of a record: that of its first tag the ontology knows (``None``: none does)."""
    for tag in rec.tags:
        if tag in ontology:
            return aspect_of(ontology.path(tag).split("/")[0])
    return None


def aspect_members(store: MemoryStore, user: str, ontology: Ontology, aspect: str) -> list[MemoryRecord]:
    """The aspect's newest current memories (at most ``MEMBERS``)."""
    tags = [t for c in categories_of(aspect, ontology.tree) for t in ontology.subtree(c)]
    return [r for r in store.page(user, 0, MEMBERS, tags or [aspect]) if r.current and r.by_user]


def settle(
    store: MemoryStore, user: str, ontology: Ontology, embedder: Any, profile: Profile, aspects: Sequence[str] = ()
) -> Profile:
    """Store ``profile`` as the user's, true to the records stored now: a background of one of
    ``aspects`` (whose memories were forgotten or corrected), or one whose members are not all stored
    or whose text they do not ground, is rebuilt by code from the aspect's memories (its earlier
    versions dropped: they may quote what went), or dropped when none is left; a principle missing
    members, or whose summary they do not ground, is rebuilt by code from those left. Call under the
    user's lock."""
    for aspect, bg in list(profile.backgrounds.items()):
        have = store.get_many(user, bg.members)
        if aspect in aspects or len(have) < len(bg.members) or not grounded_text(bg.text, have):
            members = aspect_members(store, user, ontology, aspect)
            if members:
                profile.backgrounds[aspect] = Background(
                    aspect=aspect, text=listed(members), members=[m.id for m in members]
                )
            else:
                profile.backgrounds.pop(aspect)
    kept: list[Principle] = []
    for p in profile.principles:
        have = [r for r in store.get_many(user, p.members) if r.current]
        if len(have) == len(p.members) and holds(f"{p.requirement}. {p.summary} {principle_line(p)}", have):
            kept.append(p)
        elif have:
            vectors = embedder.vectors_of([r.thought for r in have])
            kept.append(principle(have, vectors, requirement_of(have)))
    profile.principles = kept
    profile.updated_at = utcnow()
    store.save_profile(profile)
    return profile


def prune(store: MemoryStore, user: str, ontology: Ontology, embedder: Any, gone: Sequence[MemoryRecord]) -> None:
    """Keep the profile true after ``gone`` records were forgotten, denied or corrected (read before
    they went): what drew on them is rebuilt by code from what remains (``settle``)."""
    profile = store.profile(user)
    if not profile.empty and gone:
        aspects = [a for r in gone if (a := record_aspect(r, ontology)) is not None]
        settle(store, user, ontology, embedder, profile, aspects)
