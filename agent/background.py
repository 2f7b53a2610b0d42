"""Post-thinking off the reply path: a durable queue of ended sessions and a worker that drains it.

``CaimAgent.end_session(background=True)`` hands the session over and returns at once:

1. the session's messages are copied to a thread of their own (``caim:<user>:ended:<session>``)
   in the checkpointer - durable;
2. a job naming that thread is added to the ``jobs`` table of the record database - durable;
3. the user's conversation thread starts a new session.

A crash between any two steps loses nothing: record ids come from (user, session, turn, event), so
a session processed twice stores nothing twice. The worker (one thread per agent) claims the
oldest job whose user has no earlier job running - sessions of one user are processed in order -
runs post-thinking on its thread, then deletes job and thread. A job that raises is retried with
backoff; after ``MAX_ATTEMPTS`` it is kept as failed and retried at the next start. At start, jobs
left by a stopped process are resumed; a claim whose process is gone (same host) or older than
``STALE_AFTER`` is taken over.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from tenacity import RetryCallState, Retrying, stop_after_attempt, wait_chain, wait_fixed

from caim.memory.storage.jobs import JobQueue, QueuedJob

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
STALE_AFTER = 600.0  # seconds a claimed job may run before another worker takes it over
#: Seconds before a failed job's next attempt: after its first failure, its second, ... then the last
#: wait again; ``MAX_ATTEMPTS`` attempts in all.
RETRY = Retrying(
    stop=stop_after_attempt(MAX_ATTEMPTS),
    wait=wait_chain(wait_fixed(1.0), wait_fixed(5.0), wait_fixed(30.0), wait_fixed(120.0)),
)


def retry_at(attempts: int, now: float) -> float | None:
    """When a job that failed after ``attempts`` earlier failed attempts runs again.

    Args:
        attempts: The job's failed attempts before the one that just failed.
        now: The time of the failure (``time.time()``).

    Returns:
        The time of the next attempt, or ``None`` when the job has had ``MAX_ATTEMPTS`` attempts.
    """
    state = RetryCallState(RETRY, fn=None, args=(), kwargs={})
    state.attempt_number = attempts + 1
    if RETRY.stop(state):
        return None
    return now + RETRY.wait(state)


@dataclass(frozen=True)
class Job:
    """An ended session waiting for post-thinking: its messages (serialised LangChain messages, in
    the job's payload) or - for jobs queued before messages travelled with them - the checkpoint
    thread that holds them (``thread_id``)."""

    job_id: str
    user_id: str
    thread_id: str
    session_id: str
    policy: str | None
    at: str
    messages: tuple[dict, ...] = ()

    @classmethod
    def decode(cls, queued: QueuedJob) -> Job:
        """The job a queued one holds (its id, user and payload).

        Args:
            queued: The job as the queue holds it.

        Returns:
            The ended session it names.
        """
        data = queued.payload
        return cls(
            queued.job_id,
            queued.user_id,
            data.get("thread_id", ""),
            data["session_id"],
            data.get("policy"),
            data["at"],
            tuple(data.get("messages") or ()),
        )

    def payload(self) -> dict:
        """The job's fields as stored in the queue (without its messages)."""
        return {"thread_id": self.thread_id, "session_id": self.session_id, "policy": self.policy, "at": self.at}

    def queued(self, extra: dict | None = None) -> QueuedJob:
        """The job as the queue holds it, with ``extra`` in its payload (e.g. its messages).

        Args:
            extra: Further payload fields.

        Returns:
            The job to enqueue.
        """
        return QueuedJob(self.job_id, self.user_id, {**self.payload(), **(extra or {})})


Runner = Callable[[Job], object]


class PostThinkingWorker:
    """Drains a job queue (``MemoryStore.queue``) by calling ``run(job)`` for each job."""

    def __init__(self, queue: JobQueue, run: Runner, *, poll: float = 2.0):
        self.queue = queue
        self._run = run
        self.poll = poll
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.results: dict[str, object] = {}
        self.queue.revive_failed()
        self._thread = threading.Thread(target=self._loop, name="caim-post-thinking", daemon=True)
        self._thread.start()

    def submit(self, job: Job, extra: dict | None = None) -> None:
        """Queue ``job`` durably (with ``extra`` in its payload, e.g. its messages) and wake the worker."""
        self.queue.enqueue(job.queued(extra))
        self._wake.set()

    @staticmethod
    def _alive(owner: str) -> bool:
        """Whether the process that claimed a job still runs (known only for this host)."""
        host, _, rest = owner.partition(":")
        if host != socket.gethostname() or not rest:
            return True
        try:
            os.kill(int(rest.split(":")[0]), 0)
        except ProcessLookupError:
            return False
        except (PermissionError, ValueError):
            return True
        return True

    def _next(self) -> tuple[Job, int] | None:
        got = self.queue.claim(self.owner, time.time(), STALE_AFTER, self._alive)
        return None if got is None else (Job.decode(got), got.attempts)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                item = self._next()
            except Exception:  # the database is briefly locked or gone: try again later
                log.exception("cannot read the post-thinking queue")
                item = None
            if item is None:
                self._wake.wait(self.poll)
                self._wake.clear()
                continue
            job, attempts = item
            try:
                self.results[job.job_id] = self._run(job)
                while len(self.results) > 256:  # keep the latest summaries for ``CaimAgent.wait``
                    self.results.pop(next(iter(self.results)))
                self.queue.done(job.job_id)
            except Exception as exc:
                retry = retry_at(attempts, time.time())
                log.warning("post-thinking of session %s (user %s) failed: %s", job.session_id, job.user_id, exc)
                self.queue.failed(job.job_id, f"{type(exc).__name__}: {exc}", retry)

    def pending(self, user_id: str | None = None) -> list[str]:
        """The ids of the jobs still pending, of ``user_id`` or of every user (None)."""
        return [j.job_id for j in self.queue.pending(user_id)]

    def drain(self, timeout: float = 60.0) -> bool:
        """Wait until no job of this queue is pending or running (True) or the timeout passes."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            open_jobs = [j for j in self.queue.pending() if j.open]
            if not open_jobs:
                return True
            self._wake.set()
            time.sleep(0.02)
        return False

    def stop(self) -> None:
        """Stop the worker thread, waiting up to 30 seconds for the job in hand."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=30)
