"""``CaimAgent``: caim's own chat agent - chat, streaming, sessions - built on ``caim.Memory``.

One LangGraph thread per user (``caim:<user_id>``), checkpointed in SQLite in the data dir by
default (or PostgreSQL with ``CAIM_CHECKPOINT_URL``), so a conversation survives a restart. Pass
``checkpointer=`` for another saver. The memory (models, store, ontology, the background job
queue) is a ``Memory``, built once here or passed in (``memory=``): the chat graph runs the same
recall and post-thinking subgraphs as ``Memory.recall``/``remember``. ``end_session(background=True)``
hands post-thinking to the durable worker and returns at once; ``idle_timeout`` ends quiet sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Generator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast
from urllib.parse import quote

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from caim.agent.background import Job
from caim.agent.memory import Memory, SessionSummary
from caim.core.checks import check_user
from caim.core.errors import ConfigError
from caim.core.files import open_checkpoints
from caim.core.settings import Settings
from caim.core.types import Route
from caim.graph.builder import build_graph
from caim.graph.services import Services
from caim.graph.state import ANSWER, Context, session_reset
from caim.memory.records import MemoryBrief, MemoryRecord
from caim.memory.stm import TIME_KEY, parse_time
from caim.memory.text import storable
from caim.memory.text.timeref import TimeSpan
from caim.memory.transfer import Imported
from caim.services.sessions import recorded

__all__ = ["CaimAgent", "Reply", "SessionSummary", "Turn", "Used", "check_user", "open_checkpointer"]


@dataclass
class Reply:
    """One answered turn: the text, the memory route, the memories kept for the answer
    (``memories``) and those it used (``used``: quoted, or repeated by the reply - what a person is
    shown under it), and what retrieval did (decisions and code signals, tags, time ranges, ranked
    candidates), with the trace."""

    text: str
    route: Route
    memories: list[MemoryBrief] = field(default_factory=list)
    used: list[MemoryBrief] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    notice: str = ""
    decisions: dict[str, Any] = field(default_factory=dict)
    signals: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    time_ranges: list[TimeSpan] = field(default_factory=list)
    candidates: list[MemoryBrief] = field(default_factory=list)


class Used(str):
    """The last item ``CaimAgent.stream`` yields: an empty piece of text (joining the pieces gives the
    reply) carrying the turn's memory ``route`` and the memories the answer ``used``."""

    route: Route
    used: list[MemoryBrief]

    def __new__(cls, route: Route, used: list[MemoryBrief]) -> Used:
        """An empty string that carries ``route`` and ``used``."""
        item = super().__new__(cls, "")
        item.route = route
        item.used = used
        return item


@dataclass
class Turn:
    """An exchange that already happened: the user's text, the reply (if any), and when."""

    user: str
    assistant: str | None = None
    at: datetime | str | None = None
    id: str | None = None


def _reply(out: dict[str, Any]) -> Reply:
    last = out["messages"][-1]
    return Reply(
        text=str(last.content),
        route=out.get("route", "none"),
        memories=out.get("memories", []),
        used=out.get("used", []),
        trace=out.get("trace", []),
        notice=out.get("notice", ""),
        decisions=out.get("decisions", {}),
        signals=out.get("signals", {}),
        tags=out.get("tags", []),
        time_ranges=out.get("time_ranges", []),
        candidates=out.get("candidates", []),
    )


def open_checkpointer(settings: Settings, persist: bool) -> tuple[BaseCheckpointSaver, Any]:
    """The checkpointer the settings ask for, and what must be closed with it: PostgreSQL
    (``checkpoint_url``), SQLite in the data dir, or in memory."""
    url = settings.checkpoint_url
    if url:
        if not url.startswith(("postgresql://", "postgres://")):
            raise ConfigError(f"CAIM_CHECKPOINT_URL {url!r} is not a postgresql:// URL")
        try:
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg import Connection
            from psycopg.rows import dict_row
        except ImportError:
            raise ConfigError("PostgreSQL checkpoints need the postgres extra: pip install 'caim[postgres]'") from None
        ns = settings.namespace
        try:
            conn = Connection.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row)
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {ns}")  # the deployment's schema, beside its records
            conn.execute(f"SET search_path TO {ns}")
            saver = PostgresSaver(conn)
            saver.setup()
        except Exception as exc:
            raise ConfigError(
                f"cannot use the checkpoint database ({type(exc).__name__}: {' '.join(str(exc).split())})"
            ) from None
        return saver, conn
    if persist:
        lite = open_checkpoints(settings.data_dir)
        lite.execute("PRAGMA secure_delete=ON")  # a forgotten session leaves no text in free pages
        return SqliteSaver(lite), lite
    return InMemorySaver(), None


class CaimAgent:
    """The chat agent with long-term memory: each user's turns go through the graph, sessions end in post-thinking."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        models: Mapping[str, BaseChatModel] | BaseChatModel | None = None,
        services: Services | None = None,
        checkpointer: BaseCheckpointSaver | None = None,
        persist: bool = True,
        idle_timeout: float | None = None,
        background: bool = True,
        memory: Memory | None = None,
    ):
        """``models`` injects chat models (one for all roles, or per role); ``persist=False`` keeps
        everything in memory; ``idle_timeout`` (seconds) ends a user's session after that much
        silence (on a timer, and before a late turn); ``background=False`` starts no worker
        (``end_session(background=True)`` then queues sessions for another process's worker);
        ``memory``: an existing ``Memory`` to chat on (its settings and services are used)."""
        self._owns_memory = memory is None
        self.memory = memory or Memory(
            settings, models=models, services=services, persist=persist, background=background
        )
        self.memory.legacy_thread = self._legacy_messages
        self.settings = self.memory.settings
        self.services = self.memory.services
        self._conn: Any = None
        if checkpointer is None:
            checkpointer, self._conn = open_checkpointer(self.settings, persist)
        self.checkpointer = checkpointer
        self.graph = build_graph(self.services, checkpointer, early=True)  # _stream_turn reads subgraph events
        self.idle_timeout = idle_timeout
        self._guard = threading.Lock()
        self._active: dict[str, tuple[float, str | None]] = {}  # user -> (monotonic time of last turn, policy)
        self._closed = threading.Event()
        self._streams: set[threading.Thread] = set()  # turns streaming in threads of their own
        self._timer: threading.Thread | None = None
        if idle_timeout is not None:
            self._timer = threading.Thread(target=self._idle_loop, name="caim-idle", daemon=True)
            self._timer.start()

    @property
    def worker(self) -> Any:
        """The memory's background post-thinking worker (``None`` with ``background=False``)."""
        return self.memory.worker

    # ---- plumbing ---------------------------------------------------------------------------
    @staticmethod
    def thread_id(user_id: str) -> str:
        """The user's conversation thread. The id is quoted, so no user id can name another
        user's thread (or a thread of ended sessions, ``caim:<user>:ended:<session>``)."""
        return f"caim:{quote(check_user(user_id), safe='')}"

    @staticmethod
    def _config(thread_id: str) -> dict:
        return {"configurable": {"thread_id": thread_id}}

    def _context(self, user_id: str, policy: str | None) -> Context:
        return self.memory.context(user_id, policy)

    def _message(self, text: str) -> str:
        """``text`` if it is a message caim accepts, else a one-line ``InputError`` (nothing stored)."""
        return self.memory.message(text)

    def _lock(self, user_id: str) -> contextlib.AbstractContextManager[None]:
        """One run at a time on a user's conversation thread (``Memory.lock``)."""
        return self.memory.lock(user_id)

    def state(self, user_id: str) -> dict[str, Any]:
        """The user's thread state (the open session's messages, the last run's output) - for
        inspection and tests. A closed session's checkpoints are dropped: then only ``messages: []``."""
        return {"messages": [], **self.graph.get_state(self._config(self.thread_id(user_id))).values}

    @staticmethod
    def _when(at: datetime | str | None) -> str:
        """The turn's time as ISO text: ``at`` (naive means UTC), or now; a one-line ``InputError`` for
        text that is no ISO time or a time outside 1900-2199."""
        return parse_time(at).isoformat()

    def _invoke(self, user_id: str, payload: dict[str, Any], policy: str | None) -> dict[str, Any]:
        return self.graph.invoke(payload, self._config(self.thread_id(user_id)), context=self._context(user_id, policy))

    def _turn_started(self, user_id: str, when: str, policy: str | None) -> None:
        """Before a turn: end the previous session if it went quiet for longer than ``idle_timeout``
        (by turn times, so dated replays behave as live chats), and note the activity."""
        if self.idle_timeout is not None:
            st = self.state(user_id)
            last = st.get("last_turn_at")
            quiet = last and datetime.fromisoformat(when) - datetime.fromisoformat(last) > timedelta(
                seconds=self.idle_timeout
            )
            if st.get("messages") and last and quiet:
                self._end(user_id, last, policy, background=False)
        with self._guard:
            self._active[user_id] = (time.monotonic(), policy)

    def _idle_loop(self) -> None:
        assert self.idle_timeout is not None
        tick = min(max(self.idle_timeout / 4, 0.05), 30.0)
        while not self._closed.wait(tick):
            now = time.monotonic()
            with self._guard:
                quiet = [(u, p) for u, (t, p) in self._active.items() if now - t > self.idle_timeout]
                for u, _ in quiet:
                    self._active.pop(u, None)
            for user, policy in quiet:
                try:
                    self.end_session(user_id=user, policy=policy, background=self.worker is not None)
                except Exception:  # the next turn's check or the worker's retries take over
                    continue

    # ---- chat -------------------------------------------------------------------------------
    def chat(self, text: str, *, user_id: str, at: datetime | str | None = None, policy: str | None = None) -> Reply:
        """One user turn. ``at`` is the turn's time (default now), so dated history can be replayed.
        An over-long message, a bad time, user id or policy is an ``InputError`` and nothing is stored."""
        text, when = self._message(text), self._when(at)
        self._context(user_id, policy)
        with self._lock(user_id):
            self._turn_started(user_id, when, policy)
            out = self._invoke(user_id, {"messages": [HumanMessage(text)], "turn_time": when}, policy)
        return _reply(out)

    async def achat(
        self, text: str, *, user_id: str, at: datetime | str | None = None, policy: str | None = None
    ) -> Reply:
        """``chat`` in a worker thread."""
        return await asyncio.to_thread(self.chat, text, user_id=user_id, at=at, policy=policy)

    def stream(
        self, text: str, *, user_id: str, at: datetime | str | None = None, policy: str | None = None
    ) -> Generator[str, None, None]:
        """Yield the reply's text piece by piece as it is produced (the graph's answer events), then a
        ``Used`` item: an empty string carrying the route and the memories the answer used.

        The turn runs in a thread of its own that holds the user's lock, so a caller that stops
        reading (``close()``, a dropped connection) blocks no one: the turn still completes and its
        reply is kept in the session, and the next turn of that user waits only for it to finish."""
        text, when = self._message(text), self._when(at)
        self._context(user_id, policy)
        pieces: queue.SimpleQueue[object] = queue.SimpleQueue()  # text pieces, then a Used item
        done = object()

        def work() -> None:
            try:
                self._stream_turn(text, user_id, when, policy, pieces.put)
            except BaseException as exc:  # handed to the reader
                pieces.put(exc)
            finally:
                pieces.put(done)
                with self._guard:
                    self._streams.discard(worker)

        worker = threading.Thread(target=work, name=f"caim-stream-{user_id[:16]}", daemon=True)
        with self._guard:
            self._streams.add(worker)
        worker.start()
        while (item := pieces.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item if isinstance(item, Used) else str(item)

    def _stream_turn(self, text: str, user_id: str, when: str, policy: str | None, emit: Callable[[str], None]) -> None:
        """Run the turn, sending each answer event (from any subgraph: an answer may start in recall)
        to ``emit``, then the ``Used`` item of the run's output."""
        out: dict[str, Any] = {}
        with self._lock(user_id):
            self._turn_started(user_id, when, policy)
            for ns, mode, event in self.graph.stream(
                {"messages": [HumanMessage(text)], "turn_time": when},
                self._config(self.thread_id(user_id)),
                context=self._context(user_id, policy),
                stream_mode=["custom", "values"],
                subgraphs=True,
            ):
                if mode == "custom" and isinstance(event, dict) and event.get(ANSWER):
                    emit(str(event[ANSWER]))
                elif mode == "values" and not ns and isinstance(event, dict):
                    out = event
        emit(Used(out.get("route", "none"), list(out.get("used") or [])))

    async def astream(
        self, text: str, *, user_id: str, at: datetime | str | None = None, policy: str | None = None
    ) -> AsyncIterator[str]:
        """Async token stream: the turn runs in a worker thread (as ``stream``: the last item is ``Used``),
        pieces cross a queue. A consumer that stops early leaves the turn to finish on its own."""
        loop = asyncio.get_running_loop()
        pieces = self.stream(text, user_id=user_id, at=at, policy=policy)
        done = object()
        try:
            while (item := await loop.run_in_executor(None, next, pieces, done)) is not done:
                yield cast(str, item)  # text pieces, then the Used item
        finally:  # a read still waiting in the executor ends with the turn; the generator is then dropped
            with contextlib.suppress(ValueError):
                pieces.close()

    # ---- sessions ---------------------------------------------------------------------------
    def _forget_history(self, thread_id: str) -> None:
        """Drop a thread's checkpoints once its session is closed: the words of a closed session live
        on only in the memories made of them (which ``forget`` can remove), not in old checkpoints."""
        with contextlib.suppress(NotImplementedError):
            self.checkpointer.delete_thread(thread_id)

    def _end(self, user_id: str, when: str, policy: str | None, *, background: bool) -> SessionSummary:
        if not background:
            summary = SessionSummary.of(self._invoke(user_id, {"end_session": True, "turn_time": when}, policy))
            self._forget_history(self.thread_id(user_id))
            return summary
        st = self.state(user_id)
        messages, session = st.get("messages") or [], st.get("session_id") or ""
        if not messages:
            return SessionSummary.queued()
        ctx = self._context(user_id, policy)
        # 1. the job with the session's messages, durable in the queue; 2. a new session
        summary = self.memory.queue(Job(f"{user_id}:{session}", user_id, "", session, ctx.policy, when), messages)
        self._reset(user_id)
        self._forget_history(self.thread_id(user_id))
        return summary

    def _reset(self, user_id: str) -> int:
        """Close the user's open session without post-thinking; how many messages it held."""
        config = self._config(self.thread_id(user_id))
        n = len(self.state(user_id).get("messages") or [])
        if n:
            self.graph.update_state(config, {**session_reset(), "turn_time": ""}, as_node="respond")
        return n

    def _legacy_messages(self, job: Job) -> list[BaseMessage]:
        """The messages of a job queued with a checkpoint thread instead of its messages (then dropped)."""
        values = self.graph.get_state(self._config(job.thread_id)).values
        self._forget_history(job.thread_id)
        return list(values.get("messages") or [])

    def end_session(
        self, *, user_id: str, at: datetime | str | None = None, policy: str | None = None, background: bool = False
    ) -> SessionSummary:
        """Run post-thinking on the user's current session and start a new one. ``background=True``
        hands it to the worker and returns at once (``wait(summary.job)`` for its result)."""
        with self._lock(user_id):
            with self._guard:
                self._active.pop(user_id, None)
            return self._end(user_id, self._when(at), policy, background=background)

    async def aend_session(
        self, *, user_id: str, at: datetime | str | None = None, policy: str | None = None, background: bool = False
    ) -> SessionSummary:
        """``end_session`` in a worker thread."""
        return await asyncio.to_thread(self.end_session, user_id=user_id, at=at, policy=policy, background=background)

    def wait(self, job: str | None = None, timeout: float = 120.0) -> SessionSummary | None:
        """Wait for background post-thinking: one job (its summary) or all of them (None)."""
        if self.worker is None:
            raise ConfigError("this agent runs no background worker (background=False)")
        return self.memory.wait(job, timeout)

    def pending_sessions(self, user_id: str | None = None) -> list[str]:
        """Jobs of ended sessions not yet post-thought (also those queued by other processes)."""
        return self.memory.pending(user_id=user_id)

    def record_turns(self, *, user_id: str, turns: list[Turn], policy: str | None = None) -> int:
        """Add already-happened exchanges to the user's open session without answering them
        (importing a chat history, replaying a benchmark); post-thinking sees them like live turns."""
        msgs: list[HumanMessage | AIMessage] = []
        self._context(user_id, policy)
        for t in turns:
            iso = self._when(t.at)
            msgs.append(HumanMessage(storable(self._message(t.user)), id=t.id, additional_kwargs={TIME_KEY: iso}))
            if t.assistant:
                msgs.append(AIMessage(storable(self._message(t.assistant)), additional_kwargs={TIME_KEY: iso}))
        if msgs:
            with self._lock(user_id):
                config = self._config(self.thread_id(user_id))
                open_session = str(self.state(user_id).get("session_id") or "")
                update = recorded(msgs, parse_time(turns[-1].at), open_session=open_session)
                self.graph.update_state(config, update, as_node="respond")
        return len(msgs)

    def discard_session(self, *, user_id: str) -> int:
        """Drop the user's open session without post-thinking; returns how many messages were dropped."""
        with self._lock(user_id):
            n = self._reset(user_id)
            self._forget_history(self.thread_id(user_id))
        return n

    # ---- memory admin (the user first, as ``Memory``'s methods take it by keyword) ----------
    def memories(self, user_id: str) -> list[MemoryRecord]:
        """The user's records, oldest first (``Memory.list``)."""
        return self.memory.list(user_id=user_id)

    def get_memory(self, user_id: str, record_id: str) -> MemoryRecord | None:
        """The user's record ``record_id``, or None (``Memory.get``)."""
        return self.memory.get(record_id, user_id=user_id)

    def history(self, user_id: str, record_id: str) -> list[dict[str, Any]]:
        """A record's chain, oldest first (``Memory.history``)."""
        return self.memory.history(record_id, user_id=user_id)

    def forget(self, user_id: str, record_id: str) -> bool:
        """Forget one record everywhere (vectors, lexical index, sources, history)."""
        return self.memory.forget(record_id, user_id=user_id)

    def forget_user(self, user_id: str) -> int:
        """Delete every record of the user, their pending sessions, the ontology terms learned from their
        words (``Memory.forget_all``) and their conversation checkpoints."""
        with self._lock(user_id):
            legacy = [Job.decode(j) for j in self.services.store.queue.pending(user_id)]
            n = self.memory.forget_all(user_id=check_user(user_id))  # records, jobs, learned terms
            for tid in [self.thread_id(user_id)] + [j.thread_id for j in legacy if j.thread_id]:
                with contextlib.suppress(NotImplementedError):
                    self.checkpointer.delete_thread(tid)
            if isinstance(self._conn, sqlite3.Connection):  # no forgotten text left in free pages or the log
                self._conn.execute("VACUUM")
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            with self._guard:
                self._active.pop(user_id, None)
        return n

    def export_user(self, user_id: str) -> dict[str, Any]:
        """Everything stored about the user, as one JSON-ready dict (``Memory.export``)."""
        return self.memory.export(user_id=user_id)

    def import_user(self, user_id: str, data: dict[str, Any] | list[dict[str, Any]]) -> Imported:
        """Restore an export (ids, times, validity, links and history kept; importing twice adds nothing):
        how many records were added, updated, found unchanged and left out."""
        return self.memory.import_(data, user_id=user_id)

    def close(self, timeout: float = 60.0) -> None:
        """Stop the workers and close the stores; turns still streaming get ``timeout`` seconds to end."""
        self._closed.set()
        with self._guard:
            streams = list(self._streams)
        for t in streams:
            t.join(timeout)
        if self._owns_memory:
            self.memory.close()
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> CaimAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
