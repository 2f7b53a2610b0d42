"""A per-user cache of what is read from a user's records, valid while the user's write version stays.

Any worker's write to a user's records changes their write version (``RecordDB.version``), so a
value kept under the version it was read at is current exactly while the version is the same. The
cache keeps the users used last, up to a budget: ``limit`` units, each value costing ``size(value)``
units (1 by default: a count of users); the user read last is always kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class PerUserCache(Generic[T]):
    """Values per user, each valid at one write version, least recently used dropped past ``limit``.

    >>> reads = []
    >>> cache = PerUserCache[list](limit=2)
    >>> load = lambda: reads.append(1) or ["x"]
    >>> cache.get("ann", 1, load), cache.get("ann", 1, load), cache.get("ann", 2, load), len(reads)
    (['x'], ['x'], ['x'], 2)
    >>> _ = cache.get("bob", 1, load), cache.get("ann", 2, load), cache.get("cy", 1, load)  # bob used least lately
    >>> _ = cache.get("ann", 2, load), cache.get("bob", 1, load)
    >>> len(reads)  # ann kept; bob read again
    5
    >>> big = PerUserCache[str](limit=3, size=len)
    >>> big.get("ann", 1, lambda: "abcdef")  # over the budget alone, still kept
    'abcdef'
    """

    def __init__(self, limit: int, size: Callable[[T], int] = lambda _: 1):
        self.limit = limit
        self.size = size
        self._values: OrderedDict[str, tuple[int, T]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, user_id: str, version: int, load: Callable[[], T]) -> T:
        """The user's value at ``version``: the kept one, else ``load()``'s (read outside the lock), kept."""
        with self._lock:
            hit = self._values.get(user_id)
            if hit is not None and hit[0] == version:
                self._values.move_to_end(user_id)
                return hit[1]
        value = load()
        with self._lock:
            self._values[user_id] = (version, value)
            self._values.move_to_end(user_id)
            while len(self._values) > 1 and sum(self.size(v) for _, v in self._values.values()) > self.limit:
                self._values.popitem(last=False)
        return value
