"""One pure function per ranking signal, over the arrays of a ``Columns``.

Each returns one value per row, unweighted; ``caim.memory.search.ranking`` multiplies by the
weights and sums. None reads the database: what a signal needs from it (names or tags per row id) is
passed in. Lexical and dense similarity enter as z-scores (``zscore``) over the whole collection.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

import numpy as np

from caim.memory.search.columns import Flags, Floats, Ints

DAY = 86400


def zscore(x: Floats, mean: float, std: float) -> Floats:
    """``(x - mean) / std``, with a spread of (almost) 0 taken as 1.

    >>> zscore(np.array([1.0, 3.0]), 2.0, 1.0).tolist(), zscore(np.array([2.0]), 2.0, 0.0).tolist()
    ([-1.0, 1.0], [0.0])
    """
    return (x - mean) / (std if std > 1e-9 else 1.0)


def cosine(vec: np.ndarray, query: np.ndarray) -> Floats:
    """Cosine similarity of each row's vector to the query's (vectors are unit length); 0 without vectors."""
    return vec @ query if vec.shape[1] else np.zeros(len(vec))


def neighbour(base: Floats, prev: Ints, next_: Ints) -> Floats:
    """The better positive base score of the turn before and the turn after (0 where none).

    >>> neighbour(np.array([1.0, -2.0, 3.0]), np.array([-1, 0, 1]), np.array([1, 2, -1])).tolist()
    [0.0, 3.0, 0.0]
    """
    pos = np.maximum(base, 0)
    return np.maximum(np.where(prev >= 0, pos[prev], 0), np.where(next_ >= 0, pos[next_], 0))


def speaker(speakers: Sequence[str], named: str) -> Floats:
    """1 where the record was spoken by ``named``.

    >>> speaker(["Ann", "Bob"], "Bob").tolist()
    [0.0, 1.0]
    """
    return np.array([sp == named for sp in speakers], dtype=np.float64)


def name(rids: Ints, names_of: Mapping[int, set[str]], wanted: set[str]) -> Floats:
    """1 where the record names one of ``wanted`` (lower case).

    >>> name(np.array([1, 2]), {2: {"paris"}}, {"paris"}).tolist()
    [0.0, 1.0]
    """
    return np.array([bool(names_of.get(int(r), set()) & wanted) for r in rids], dtype=np.float64)


def date_window(day: Ints, windows: Iterable[tuple[datetime, datetime]]) -> Flags:
    """True where the record's day falls inside one of the (inclusive, naive-date) windows.

    >>> date_window(np.array([0, 1, 5]), [(datetime(1970, 1, 2), datetime(1970, 1, 3))]).tolist()
    [False, True, False]
    """
    inside = np.zeros(len(day), dtype=bool)
    for a, b in windows:
        lo = datetime(a.year, a.month, a.day, tzinfo=UTC).timestamp() // DAY
        hi = datetime(b.year, b.month, b.day, tzinfo=UTC).timestamp() // DAY
        inside |= (day >= lo) & (day <= hi)
    return inside


def in_ranges(ts: Floats, ranges: Iterable[tuple[float, float]]) -> Flags:
    """True where the event time falls inside one of the (inclusive, epoch-second) ranges.

    >>> in_ranges(np.array([5.0, 15.0]), [(0.0, 10.0)]).tolist()
    [True, False]
    """
    inside = np.zeros(len(ts), dtype=bool)
    for a, b in ranges:
        inside |= (ts >= a) & (ts <= b)
    return inside


def tag_share(rids: Ints, tags_of: Mapping[int, set[str]], tags: Sequence[str]) -> Floats:
    """Share of ``tags`` (not empty) each record carries.

    >>> tag_share(np.array([1, 2]), {1: {"pets", "food"}}, ["pets", "travel"]).tolist()
    [0.5, 0.0]
    """
    wanted = set(tags)
    return np.array([len(tags_of.get(int(r), set()) & wanted) / len(wanted) for r in rids])


def decay(ts: Floats, now: float, half_life_days: float) -> Floats:
    """How much of its weight a record has lost to age: 0 when new, 0.5 at the half-life, towards 1.

    >>> decay(np.array([0.0, -10 * 86400.0]), 0.0, 10.0).tolist()
    [0.0, 0.5]
    """
    age = np.maximum(now - ts, 0) / DAY
    return 1 - np.power(0.5, age / half_life_days)


def recency(ts: Floats) -> Floats:
    """Event time rescaled to 0 (oldest) … 1 (newest).

    >>> recency(np.array([10.0, 20.0, 30.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    span = max(float(ts.max() - ts.min()), 1.0)
    return (ts - ts.min()) / span


def session(score: Floats, session_code: Ints, sessions: int) -> Floats:
    """Each record's session's best score, as a z-score over the sessions.

    >>> session(np.array([1.0, 3.0, 2.0]), np.array([0, 0, 1]), 2).tolist()
    [1.0, 1.0, -1.0]
    """
    best = np.full(sessions, -np.inf)
    np.maximum.at(best, session_code, score)
    return zscore(best, float(best.mean()), float(best.std()))[session_code]
