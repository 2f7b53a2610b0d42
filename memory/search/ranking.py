"""Scoring and filtering a set of candidates: the weighted sum of the signals, what may be returned, the top k.

Pure functions over a ``Columns`` and an ``Evidence`` (what the query brings: the z-scored
similarities, the speaker and names it mentions, its date windows and ranges, and the names and tags
per row read for it). The parts are summed in the order of ``Weights``' fields, the session term last
(it reads the sum of the others); a part whose weight is 0 or whose cue the query lacks is absent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

import numpy as np

import caim.memory.search.signals as signals
from caim.memory.search.columns import Columns, Flags, Floats
from caim.memory.search.config import DECAY_WEIGHT, Weights
from caim.memory.search.query import Query

Parts = dict[str, Floats]


@dataclass(frozen=True)
class Evidence:
    """What a query brings to the signals, per row of the candidates' ``Columns`` where it is an array.

    Attributes:
        lexical: BM25 z-scored over the user's records.
        dense: Cosine similarity z-scored over the user's records (or a sample of them).
        speaker: The one known speaker the query names, if exactly one.
        names: Names (lower case) the query mentions.
        names_of: Row id -> names its record mentions (read only when the name signal counts).
        when: A "when" question.
        windows: Explicit dates of the query as inclusive day windows.
        ranges: Time ranges the controller resolved (epoch seconds).
        tags: Tags the controller chose.
        tags_of: Row id -> its tags (read when the tag signal counts or expiry is checked).
        decay_days: Half-life of the age decay, if any.
        now: When the query is asked (epoch seconds).
    """

    lexical: Floats
    dense: Floats
    speaker: str | None = None
    names: frozenset[str] = frozenset()
    names_of: Mapping[int, set[str]] = field(default_factory=dict)
    when: bool = False
    windows: Sequence[tuple[datetime, datetime]] = ()
    ranges: Sequence[tuple[float, float]] = ()
    tags: Sequence[str] = ()
    tags_of: Mapping[int, set[str]] = field(default_factory=dict)
    decay_days: float | None = None
    now: float = 0.0


def total(parts: Parts, m: int) -> Floats:
    """The sum of the parts (zeros when there are none)."""
    return np.sum(list(parts.values()), axis=0) if parts else np.zeros(m)


def similarity_parts(c: Columns, w: Weights, ev: Evidence) -> Parts:
    """bm25 and dense, and the neighbour term that spreads their sum to the adjacent turns."""
    parts: Parts = {}
    if w.bm25:
        parts["bm25"] = w.bm25 * ev.lexical
    if w.dense:
        parts["dense"] = w.dense * ev.dense
    if w.neighbour:
        parts["neighbour"] = w.neighbour * signals.neighbour(total(parts, c.m), c.prev, c.next)
    return parts


def cue_parts(c: Columns, w: Weights, ev: Evidence) -> Parts:
    """speaker, name, timex, date, range and tag: what the query names, matched per record."""
    parts: Parts = {}
    if w.speaker and ev.speaker is not None:
        parts["speaker"] = w.speaker * signals.speaker(c.speaker, ev.speaker)
    if w.name and ev.names:
        parts["name"] = w.name * signals.name(c.rid, ev.names_of, set(ev.names))
    if w.timex and ev.when:
        parts["timex"] = cast(Floats, w.timex * c.timex)  # a float times flags: float64
    if w.date and ev.windows:
        parts["date"] = cast(Floats, w.date * signals.date_window(c.day, ev.windows))
    inside = signals.in_ranges(c.ts, ev.ranges)
    if w.range and ev.ranges and inside.any():
        parts["range"] = cast(Floats, w.range * inside)
    if w.tag and ev.tags:
        parts["tag"] = w.tag * signals.tag_share(c.rid, ev.tags_of, ev.tags)
    return parts


def prior_parts(c: Columns, w: Weights, ev: Evidence) -> Parts:
    """prior, the age decay (when the query sets one) and recency: what holds whatever the query."""
    parts: Parts = {}
    if w.prior:
        parts["prior"] = w.prior * c.prior
    if ev.decay_days:
        parts["decay"] = -DECAY_WEIGHT * signals.decay(c.ts, ev.now, ev.decay_days)
    if w.recency and c.m > 1:
        parts["recency"] = w.recency * signals.recency(c.ts)
    return parts


def weigh(c: Columns, w: Weights, ev: Evidence) -> tuple[Floats, Parts]:
    """Each record's score and the weighted part of every signal that counts.

    Args:
        c: The candidates.
        w: The weights.
        ev: The query's evidence.

    Returns:
        ``(score per row, signal name -> weighted part per row)``.
    """
    parts = similarity_parts(c, w, ev) | cue_parts(c, w, ev) | prior_parts(c, w, ev)
    score = total(parts, c.m)
    if w.session:
        parts["session"] = w.session * signals.session(score, c.session_code, c.sessions)
        score = score + parts["session"]
    return score, parts


def allowed(c: Columns, query: Query, tags_of: Mapping[int, set[str]]) -> Flags:
    """What may be returned: current records (all when the query asks about the past), not expired.

    Args:
        c: The candidates.
        query: The query (``past`` and ``expired``).
        tags_of: Row id -> tags, for ``query.expired``.

    Returns:
        A flag per row.
    """
    ok = np.ones(c.m, dtype=bool) if query.past else c.current.copy()
    if query.expired is not None:
        ok &= np.array(
            [not query.expired(float(t), tags_of.get(int(r), set())) for t, r in zip(c.ts, c.rid, strict=True)]
        )
    return ok


def top(score: Floats, ok: Flags, k: int) -> list[int]:
    """The rows of the ``k`` best scores among those allowed, best first (ties: lower row first).

    >>> top(np.array([1.0, 3.0, 2.0, 3.0]), np.array([True, True, True, False]), 2)
    [1, 2]
    """
    order = np.argsort(-score, kind="stable")
    return cast(list[int], order[ok[order]][:k].tolist())
