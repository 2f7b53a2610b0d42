"""Named locks across threads and processes on one data directory.

Post-thinking reads a user's records, decides and writes (merges, updates); two runs for the same
user at once - the CLI and an app process, two app workers - must not interleave, nor may two runs
on one conversation thread. ``UserLocks.hold(key)`` holds across threads (a re-entrant lock per
key) and across processes on one data directory (``flock`` on ``locks/<hash>.lock``); an in-memory
store needs only the first. A shared PostgreSQL database has its own (advisory) locks instead.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class UserLocks:
    """Locks by name: across threads, and across processes on ``directory`` (``None``: in memory)."""

    def __init__(self, directory: Path | None):
        self.dir = directory
        self._threads: dict[str, threading.RLock] = {}
        self._depth = threading.local()
        self._guard = threading.Lock()

    def _thread_lock(self, key: str) -> threading.RLock:
        with self._guard:
            return self._threads.setdefault(key, threading.RLock())

    @contextmanager
    def hold(self, key: str) -> Iterator[None]:
        """Hold the lock named ``key`` for the block, waiting for any other holder; re-entrant
        within a thread."""
        with self._thread_lock(key):
            depth: dict[str, int] = self._depth.__dict__.setdefault("d", {})
            if self.dir is None or depth.get(key, 0) > 0:  # in memory, or already held by this thread
                depth[key] = depth.get(key, 0) + 1
                try:
                    yield
                finally:
                    depth[key] -= 1
                return
            self.dir.mkdir(parents=True, exist_ok=True)
            path = self.dir / (hashlib.sha256(key.encode("utf-8")).hexdigest()[:24] + ".lock")
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            depth[key] = 1
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                depth[key] = 0
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
