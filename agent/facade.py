"""``CaimAgent``: the public facade for chat apps - chat, streaming, session end, memory admin.

One LangGraph thread per user (``caim:<user_id>``), checkpointed in SQLite in the data dir by
default, so a conversation survives a restart. Pass ``checkpointer=`` for another saver (Postgres
in production). Everything the graph needs (models, Chroma store, ontology) is built once here.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from caim.core.models import Models
from caim.core.settings import Settings
from caim.core.types import Route
from caim.graph.builder import build_graph
from caim.graph.services import Services
from caim.graph.state import ANSWER, Change, Context, KeyEvent
from caim.memory.merge import Merge
from caim.memory.records import MemoryBrief, MemoryRecord, as_aware, utcnow
from caim.memory.stm import TIME_KEY
from caim.memory.timeref import TimeSpan


@dataclass
class Reply:
    """One answered turn: the text, the memory route, the memories the answer used, and what
    retrieval did (decisions, tags, time ranges, candidates before the filter), with the trace."""

    text: str
    route: Route
    memories: list[MemoryBrief] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    notice: str = ""
    decisions: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    time_ranges: list[TimeSpan] = field(default_factory=list)
    candidates: list[MemoryBrief] = field(default_factory=list)


@dataclass
class Turn:
    """An exchange that already happened: the user's text, the reply (if any), and when."""

    user: str
    assistant: str | None = None
    at: datetime | str | None = None
    id: str | None = None


@dataclass
class SessionSummary:
    """What post-thinking did: key events found, records stored and merged, other changes to stored
    memory (updates, extensions, contradictions, links), ontology terms added, events withheld by
    the privacy bounds. ``complete`` is False when extraction failed for some turns - the session
    is closed anyway, its fact-stating turns stored verbatim to be refined later."""

    key_events: list[KeyEvent]
    stored: list[MemoryBrief]
    merged: list[Merge]
    ontology_added: list[str]
    trace: list[dict[str, Any]]
    complete: bool
    changes: list[Change] = field(default_factory=list)
    denied: int = 0


class CaimAgent:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        models: Mapping[str, BaseChatModel] | BaseChatModel | None = None,
        services: Services | None = None,
        checkpointer: BaseCheckpointSaver | None = None,
        persist: bool = True,
        idle_timeout: float | None = None,
    ):
        """``models`` injects chat models (one for all roles, or per role); ``persist=False`` keeps
        everything in memory; ``idle_timeout`` (seconds) ends a user's session before a new turn
        that comes after that much silence."""
        self.settings = settings or Settings()
        self.services = services or Services.create(
            self.settings, models=Models(self.settings, overrides=models), persist=persist
        )
        self._conn: sqlite3.Connection | None = None
        if checkpointer is None:
            if persist:
                self._conn = sqlite3.connect(
                    str(self.settings.data_dir / "checkpoints.sqlite"), check_same_thread=False
                )
                checkpointer = SqliteSaver(self._conn)
            else:
                checkpointer = InMemorySaver()
        self.checkpointer = checkpointer
        # Imported here, not at module level: ``caim.graph`` imports ``caim.core.settings``, so a
        # module-level import would be circular when ``caim.graph`` is imported first (langgraph dev).

        self.graph = build_graph(self.services, checkpointer)
        self.idle_timeout = idle_timeout
        self._locks: dict[str, threading.Lock] = {}

    # ---- plumbing ---------------------------------------------------------------------------
    @staticmethod
    def thread_id(user_id: str) -> str:
        return f"caim:{user_id}"

    def _config(self, user_id: str) -> dict:
        return {"configurable": {"thread_id": self.thread_id(user_id)}}

    def _context(self, user_id: str, policy: str | None) -> Context:
        return Context(user_id=user_id, policy=policy or self.settings.policy)

    def _lock(self, user_id: str) -> threading.Lock:
        return self._locks.setdefault(user_id, threading.Lock())

    def state(self, user_id: str) -> dict[str, Any]:
        """The user's thread state (open session, last run's output) - for inspection and tests."""
        return dict(self.graph.get_state(self._config(user_id)).values)

    @staticmethod
    def _when(at: datetime | str | None) -> str:
        if isinstance(at, str):
            at = datetime.fromisoformat(at)
        return as_aware(at or utcnow()).isoformat()

    def _maybe_end_idle(self, user_id: str, when: str, policy: str | None) -> None:
        if self.idle_timeout is None:
            return
        st = self.state(user_id)
        last = st.get("last_turn_at")
        if (
            st.get("messages")
            and last
            and datetime.fromisoformat(when) - datetime.fromisoformat(last) > timedelta(seconds=self.idle_timeout)
        ):
            self._end(user_id, last, policy)

    # ---- chat -------------------------------------------------------------------------------
    def chat(self, text: str, *, user_id: str, at: datetime | str | None = None, policy: str | None = None) -> Reply:
        """One user turn. ``at`` is the turn's time (default now), so dated history can be replayed."""
        when = self._when(at)
        with self._lock(user_id):
            self._maybe_end_idle(user_id, when, policy)
            out = self.graph.invoke(
                {"messages": [HumanMessage(text)], "turn_time": when},
                self._config(user_id),
                context=self._context(user_id, policy),
            )
        return _reply(out)

    async def achat(
        self, text: str, *, user_id: str, at: datetime | str | None = None, policy: str | None = None
    ) -> Reply:
        return await asyncio.to_thread(self.chat, text, user_id=user_id, at=at, policy=policy)

    def stream(
        self, text: str, *, user_id: str, at: datetime | str | None = None, policy: str | None = None
    ) -> Iterator[str]:
        """Yield the reply's text piece by piece as the model produces it (the graph's answer events)."""
        when = self._when(at)
        with self._lock(user_id):
            self._maybe_end_idle(user_id, when, policy)
            for event in self.graph.stream(
                {"messages": [HumanMessage(text)], "turn_time": when},
                self._config(user_id),
                context=self._context(user_id, policy),
                stream_mode="custom",
            ):
                if isinstance(event, dict) and event.get(ANSWER):
                    yield str(event[ANSWER])

    async def astream(
        self, text: str, *, user_id: str, at: datetime | str | None = None, policy: str | None = None
    ) -> AsyncIterator[str]:
        """Async token stream: the synchronous graph runs in a worker thread, tokens cross a queue."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        done = object()

        def work() -> None:
            try:
                for tok in self.stream(text, user_id=user_id, at=at, policy=policy):
                    loop.call_soon_threadsafe(queue.put_nowait, tok)
            except BaseException as exc:  # handed to the consumer
                loop.call_soon_threadsafe(queue.put_nowait, exc)
            finally:
                loop.call_soon_threadsafe(queue.put_nowait, done)

        worker = loop.run_in_executor(None, work)
        while True:
            item = await queue.get()
            if item is done:
                break
            if isinstance(item, BaseException):
                raise item
            yield item
        await worker

    # ---- sessions ---------------------------------------------------------------------------
    def _end(self, user_id: str, when: str, policy: str | None) -> SessionSummary:
        out = self.graph.invoke(
            {"end_session": True, "turn_time": when}, self._config(user_id), context=self._context(user_id, policy)
        )
        return SessionSummary(
            out.get("key_events", []),
            out.get("stored", []),
            out.get("merged", []),
            out.get("ontology_added", []),
            out.get("trace", []),
            complete=bool(out.get("complete")),
            changes=out.get("changes", []),
            denied=int(out.get("denied", 0)),
        )

    def end_session(
        self, *, user_id: str, at: datetime | str | None = None, policy: str | None = None
    ) -> SessionSummary:
        """Run post-thinking on the user's current session and start a new one."""
        with self._lock(user_id):
            return self._end(user_id, self._when(at), policy)

    async def aend_session(
        self, *, user_id: str, at: datetime | str | None = None, policy: str | None = None
    ) -> SessionSummary:
        return await asyncio.to_thread(self.end_session, user_id=user_id, at=at, policy=policy)

    def record_turns(self, *, user_id: str, turns: list[Turn], policy: str | None = None) -> int:
        """Add already-happened exchanges to the user's open session without answering them
        (importing a chat history, replaying a benchmark); post-thinking sees them like live turns."""
        msgs: list[HumanMessage | AIMessage] = []
        for t in turns:
            iso = self._when(t.at)
            msgs.append(HumanMessage(t.user, id=t.id, additional_kwargs={TIME_KEY: iso}))
            if t.assistant:
                msgs.append(AIMessage(t.assistant, additional_kwargs={TIME_KEY: iso}))
        if msgs:
            with self._lock(user_id):
                self.graph.invoke(
                    {"messages": msgs, "record": True, "turn_time": self._when(turns[-1].at)},
                    self._config(user_id),
                    context=self._context(user_id, policy),
                )
        return len(msgs)

    def discard_session(self, *, user_id: str) -> int:
        """Drop the user's open session without post-thinking; returns how many messages were dropped."""
        with self._lock(user_id):
            out = self.graph.invoke(
                {"discard_session": True}, self._config(user_id), context=self._context(user_id, None)
            )
        return int(out.get("discarded", 0))

    # ---- memory admin -----------------------------------------------------------------------
    def memories(self, user_id: str) -> list[MemoryRecord]:
        return self.services.store.list(user_id)

    def memory(self, user_id: str, record_id: str) -> MemoryRecord | None:
        return self.services.store.get(user_id, record_id)

    def forget(self, user_id: str, record_id: str) -> bool:
        return self.services.store.delete(user_id, [record_id]) > 0

    def forget_user(self, user_id: str) -> int:
        """Delete every record of the user and their conversation checkpoint."""
        n = self.services.store.forget_user(user_id)
        with contextlib.suppress(NotImplementedError):
            self.checkpointer.delete_thread(self.thread_id(user_id))
        return n

    def export_user(self, user_id: str) -> dict[str, Any]:
        return {
            "user_id": user_id,
            "exported_at": utcnow().isoformat(),
            "memories": [r.model_dump(mode="json") for r in self.memories(user_id)],
        }

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> CaimAgent:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _reply(out: dict[str, Any]) -> Reply:
    last = out["messages"][-1]
    return Reply(
        text=str(last.content),
        route=out.get("route", "none"),
        memories=out.get("memories", []),
        trace=out.get("trace", []),
        notice=out.get("notice", ""),
        decisions=out.get("decisions", {}),
        tags=out.get("tags", []),
        time_ranges=out.get("time_ranges", []),
        candidates=out.get("candidates", []),
    )
