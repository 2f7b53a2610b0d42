"""Post-thinking's last step: the profile above the concrete memories (``caim.memory.profile``).

``update_profile`` runs after maintenance, under the user's lock. The aspects of the session's new
and changed records get their background rewritten by the policy (one call for all of them, from
each aspect's paragraph before and its new memories) - kept only when the aspect's memories hold
every name, number and date of it, else code's paragraph (the aspect's newest memories). Then the
user's preference memories (the principles' members still current, and the session's new ones) are
clustered again and each cluster becomes a principle: code's (its most common tag, its likes and
dislikes, its central memories), named and summarised by the policy when that is grounded.

Keeping the profile true to what is stored when memories are forgotten or denied (``settle``,
``prune``) is the service layer's (``caim.services.profile``), which ``Memory`` calls too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import State
from caim.graph.steps import ProfileStep
from caim.memory.profile import (
    PREFERENCES,
    Background,
    Principle,
    Profile,
    clusters,
    grounded_text,
    listed,
    principle,
    requirement_of,
)
from caim.memory.records import MemoryRecord, utcnow
from caim.memory.storage.store import MemoryStore
from caim.prompts.profile import AspectUpdate, Backgrounds, Principles
from caim.services.profile import aspect_members, record_aspect

#: New memories of one aspect shown to the model per rewrite.
NEW_SHOWN = 12


def update_profile(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Rewrite the backgrounds of the aspects the session touched and the preference principles.

    Args:
        state: The session's ``stored`` records, ``changes`` and ``merged`` (maintenance's output).
        env: The run's services, settings and trace.
        policy: The memory policy (its ``backgrounds`` and ``principles`` judgements).

    Returns:
        No state update (the profile is stored; the trace notes what changed).
    """
    ids = [r["id"] for r in state.get("stored", [])]
    ids += [c["record"] for c in state.get("changes", [])] + [m["kept"] for m in state.get("merged", [])]
    if not ids or not policy.uses_memory:
        return {}
    store = env.svc.store
    with store.user_lock(env.user_id):
        # only the user's own words describe them: the assistant's and other people's are theirs
        touched = [r for r in store.get_many(env.user_id, list(dict.fromkeys(ids))) if r.current and r.by_user]
        profile = store.profile(env.user_id)
        step = _refresh(profile, touched, env, policy, state.get("session_id", ""))
        store.save_profile(profile)
    env.note(step)
    return {}


def _refresh(
    profile: Profile, touched: list[MemoryRecord], env: Env, policy: MemoryPolicy, session: str
) -> ProfileStep:
    ontology = env.ontology
    by_aspect: dict[str, list[MemoryRecord]] = {}
    for rec in touched:
        if (aspect := record_aspect(rec, ontology)) is not None:
            by_aspect.setdefault(aspect, []).append(rec)
    updates = [
        AspectUpdate(
            a, profile.backgrounds[a].text if a in profile.backgrounds else "", [r.thought for r in new][:NEW_SHOWN]
        )
        for a, new in by_aspect.items()
    ]
    written = policy.backgrounds(env, updates) if updates else None
    by_model = _backgrounds(profile, by_aspect, written, env, session)
    prefs = [r for r in touched if r.own_polarity is not None]  # not a preference they told of someone else
    named = 0
    if prefs:
        profile.principles, named = _principles(profile, prefs, env, policy)
    profile.updated_at = utcnow()
    return ProfileStep(
        aspects=sorted(by_aspect),
        aspects_by_model=by_model,
        principles=len(profile.principles),
        principles_by_model=named,
    )


def _backgrounds(
    profile: Profile, by_aspect: dict[str, list[MemoryRecord]], written: Backgrounds | None, env: Env, session: str
) -> list[str]:
    """Set each touched aspect's background (the model's when grounded); the aspects the model wrote."""
    texts = {b.aspect: b.text.strip() for b in written.backgrounds} if written is not None else {}
    ontology = env.ontology
    by_model = []
    for aspect in by_aspect:
        members = aspect_members(env.svc.store, env.user_id, ontology, aspect)
        if not members:
            profile.backgrounds.pop(aspect, None)
            continue
        old = profile.backgrounds.get(aspect) or Background(aspect=aspect, text="")
        text = texts.get(aspect, "")
        ok = grounded_text(text, members, old.text if old.source == "model" else "")
        by_model += [aspect] if ok else []
        ids = [m.id for m in members]
        profile.backgrounds[aspect] = old.rewritten(
            text if ok else listed(members), ids, "model" if ok else "code", session
        )
    return by_model


def _preferences(store: MemoryStore, user: str, profile: Profile, new: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """The principles' members still current and with a polarity, and the new preferences; newest last."""
    members = [i for p in profile.principles for i in p.members]
    have = {r.id: r for r in store.get_many(user, members)}
    have.update({r.id: r for r in new})
    prefs = [r for r in have.values() if r.current and r.own_polarity is not None]
    return sorted(prefs, key=lambda r: r.event_time)[-PREFERENCES:]


def _principles(
    profile: Profile, new: Sequence[MemoryRecord], env: Env, policy: MemoryPolicy
) -> tuple[list[Principle], int]:
    """The principles of the user's preferences now, and how many the model named."""
    prefs = _preferences(env.svc.store, env.user_id, profile, new)
    if not prefs:
        return [], 0
    vectors = env.svc.embedder.vectors_of([r.thought for r in prefs])
    labels = clusters(vectors)
    groups = [np.flatnonzero(labels == k) for k in sorted(set(labels.tolist()))]
    found = [principle([prefs[i] for i in g], vectors[g], requirement_of([prefs[i] for i in g])) for g in groups]
    answer = policy.principles(env, [[prefs[i].thought for i in g] for g in groups])
    return _named(found, [[prefs[i] for i in g] for g in groups], answer)


def _named(
    found: list[Principle], members: list[list[MemoryRecord]], answer: Principles | None
) -> tuple[list[Principle], int]:
    """Code's principles with the model's requirement and summary where its members hold them."""
    if answer is None:
        return found, 0
    named = 0
    for item in answer.principles:
        i = item.group - 1
        if not 0 <= i < len(found):
            continue
        said = f"{item.requirement}. {item.summary}"
        if item.requirement.strip() and grounded_text(said, members[i]):
            found[i] = found[i].model_copy(
                update={
                    "requirement": item.requirement.strip()[:80],
                    "summary": item.summary.strip(),
                    "source": "model",
                }
            )
            named += 1
    return found, named
