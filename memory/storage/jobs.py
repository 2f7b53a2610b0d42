"""The durable queue of ended sessions waiting for post-thinking, as typed jobs.

A ``QueuedJob`` is one row of the record database's ``jobs`` table (``RecordDB``'s job functions
hold the SQL): its id, user, payload (a JSON object: what the session's post-thinking needs), state
(``pending``, ``running`` or ``failed``), attempts so far and last error. ``JobQueue`` is the
queue's one interface (``MemoryStore.queue``): jobs go in with ``enqueue``; a worker takes the
oldest one that may run with ``claim`` - never one whose user has an earlier job still running -
and ends it with ``done`` or ``failed``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from caim.memory.storage.db import RecordDB


@dataclass(frozen=True)
class QueuedJob:
    """One job of the queue: ``payload`` is the JSON object it was queued with."""

    job_id: str
    user_id: str
    payload: dict[str, Any] = field(default_factory=dict)
    state: str = "pending"
    attempts: int = 0
    error: str = ""

    @property
    def open(self) -> bool:
        """Pending or running (a failed job waits for the next start)."""
        return self.state in ("pending", "running")


class JobQueue:
    """The jobs table of a record database."""

    def __init__(self, db: RecordDB):
        """A queue in ``db``.

        Args:
            db: The record database holding the queue.
        """
        self._db = db

    def enqueue(self, job: QueuedJob) -> None:
        """Queue ``job`` durably; a job whose id is queued already is left as it is."""
        self._db.enqueue(job.job_id, job.user_id, json.dumps(job.payload))

    def claim(
        self, owner: str, now: float, stale_after: float, alive: Callable[[str], bool] = lambda _: True
    ) -> QueuedJob | None:
        """The oldest job that may run now, marked as claimed by ``owner`` (``RecordDB.claim``).

        Args:
            owner: Who claims it (host, process, worker).
            now: The time (``time.time()``).
            stale_after: Seconds after which another's claim is taken over.
            alive: Whether the owner of a claim still runs.

        Returns:
            The job claimed (its attempts before this one), or ``None`` when none may run.
        """
        got = self._db.claim(owner, now, stale_after, alive)
        if got is None:
            return None
        job_id, user_id, payload, attempts = got
        return QueuedJob(job_id, user_id, json.loads(payload), "running", attempts)

    def done(self, job_id: str) -> None:
        """Remove a finished job."""
        self._db.job_done(job_id)

    def failed(self, job_id: str, error: str, retry_at: float | None) -> None:
        """A job that raised: pending again from ``retry_at``, or failed (``None``) until the next start."""
        self._db.job_failed(job_id, error, retry_at)

    def revive_failed(self) -> int:
        """Failed jobs pending again (at a start); how many."""
        return self._db.revive_failed()

    def pending(self, user_id: str | None = None) -> list[QueuedJob]:
        """Every job not finished (of ``user_id``, or of everyone), oldest first."""
        return [
            QueuedJob(job_id, user, json.loads(payload), state, attempts, error)
            for job_id, user, payload, state, attempts, error in self._db.jobs(user_id)
        ]
