"""A set of records as typed arrays, the only form the ranking signals read.

Row ``i`` of every array is the same record. The raw columns come from ``RecordDB.columns`` (row
ids ascending); the derived ones are computed here once: each row's neighbouring turns within the
set (``prev`` / ``next``, -1 when absent), a dense code per session (a record without a session is
its own session), and the event day.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Flags = npt.NDArray[np.bool_]


def neighbours(session: Sequence[str], turn: Ints) -> tuple[Ints, Ints]:
    """Each row's turn before and after in the same session, as row numbers (-1: not in the set).

    Args:
        session: Session id per row ("" for none).
        turn: Turn number per row (-1 for none).

    Returns:
        ``(prev, next)`` row numbers.

    >>> prev, nxt = neighbours(["a", "a", "b", "a"], np.array([1, 2, 1, 4]))
    >>> prev.tolist(), nxt.tolist()
    ([-1, 0, -1, -1], [1, -1, -1, -1])
    """
    turns = turn.tolist()  # Python ints: a numpy scalar per row costs more than the lookup itself
    at = {(s, t): i for i, (s, t) in enumerate(zip(session, turns, strict=True)) if s and t >= 0}

    def row(delta: int) -> Ints:
        return np.array(
            [at.get((s, t + delta), -1) if s and t >= 0 else -1 for s, t in zip(session, turns, strict=True)],
            dtype=np.int64,
        )

    return row(-1), row(1)


def merged(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """Two sets of raw columns (``RecordDB.columns``) as one, row ids ascending.

    >>> m = merged({"rid": np.array([1, 5]), "session": ["a", "b"]}, {"rid": np.array([3]), "session": ["c"]})
    >>> m["rid"].tolist(), m["session"]
    ([1, 3, 5], ['a', 'c', 'b'])
    """
    if not len(a["rid"]) or not len(b["rid"]):
        return dict(b if not len(a["rid"]) else a)
    order = np.argsort(np.concatenate([a["rid"], b["rid"]]), kind="stable")
    out: dict[str, Any] = {}
    for key, x in a.items():
        y = b[key]
        if isinstance(x, np.ndarray):
            if x.ndim == 2 and x.shape[1] != y.shape[1]:  # a side whose records have no vector: zeros
                width = max(x.shape[1], y.shape[1])
                x, y = (np.zeros((len(v), width), dtype=v.dtype) if v.shape[1] < width else v for v in (x, y))
            out[key] = np.concatenate([x, y])[order]
        else:
            both = [*x, *y]
            out[key] = [both[i] for i in order]
    return out


class Columns:
    """A set of records as arrays for ranking.

    Attributes:
        rid: Row id per record (ascending).
        session: Session id ("" for none).
        turn: Turn number (-1 for none).
        speaker: Who said it.
        prior: Informativeness prior (code, at write time).
        timex: The record holds a time expression.
        ts: Event time, epoch seconds.
        current: Still valid (no update closed it).
        raw: A verbatim turn rather than an extracted fact.
        vec: The vectors, one row per record (no columns when the store has none).
        m: Number of records.
        prev: Row of the turn before in the same session, -1 if not in the set.
        next: Row of the turn after, -1 if not in the set.
        session_code: Dense session number per row; ``sessions`` of them.
        day: Event day (days since the epoch, UTC).
        index: Row id -> row number.
        nbytes: Rough memory held (for the retriever's cache).
    """

    def __init__(self, raw: Mapping[str, Any]):
        self.rid: Ints = raw["rid"]
        self.session: list[str] = raw["session"]
        self.turn: Ints = raw["turn"]
        self.speaker: list[str] = raw["speaker"]
        self.prior: Floats = raw["prior"]
        self.timex: Flags = raw["timex"]
        self.ts: Floats = raw["ts"]
        self.current: Flags = raw["current"]
        self.raw: Flags = raw["raw"]
        self.vec: npt.NDArray[np.float32] = raw["vec"]
        self.m = len(self.rid)
        self.prev, self.next = neighbours(self.session, self.turn)
        rids = self.rid.tolist()
        keys = [s or f"#{r}" for s, r in zip(self.session, rids, strict=True)]
        codes: dict[str, int] = {}
        self.session_code: Ints = np.array([codes.setdefault(k, len(codes)) for k in keys], dtype=np.int64)
        self.sessions = len(codes)
        self.day: Ints = (self.ts // 86400).astype(np.int64)
        self.index = {r: i for i, r in enumerate(rids)}
        self.nbytes = self.vec.nbytes + 64 * self.m

    def answered(self, i: int) -> int:
        """The turn row ``i`` answered, or -1: the turn before it, when another speaker said it (a
        turn that came after a record is never what it replied to).

        Args:
            i: A row number.

        Returns:
            A row number, or -1.
        """
        j = int(self.prev[i])
        return j if j >= 0 and self.speaker[j] != self.speaker[i] else -1
