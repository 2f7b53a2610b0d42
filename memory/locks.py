"""One writer per user at a time, across threads and processes.

Post-thinking reads a user's records, decides and writes (merges, updates); two runs for the same
user at once - the CLI and an app process, two app workers - must not interleave. ``UserLocks``
gives a per-user lock that holds across threads (a lock per user) and across processes on one
data directory (``flock`` on ``locks/<hash>.lock``); an in-memory store needs only the first.
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
    def __init__(self, directory: Path | None):
        self.dir = directory
        self._threads: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    def _thread_lock(self, user_id: str) -> threading.RLock:
        with self._guard:
            return self._threads.setdefault(user_id, threading.RLock())

    @contextmanager
    def hold(self, user_id: str) -> Iterator[None]:
        with self._thread_lock(user_id):
            if self.dir is None:
                yield
                return
            self.dir.mkdir(parents=True, exist_ok=True)
            path = self.dir / (hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:24] + ".lock")
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
