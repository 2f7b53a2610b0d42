"""``Memory``: caim's memory for any agent - recall before an answer, remember after, search, add, admin.

No answer model is involved: ``recall`` runs caim's memory controller, ranked search and relevance
filter (the recall subgraph) and returns the kept memories with a ready prompt block; ``remember``
runs post-thinking (the post-thinking subgraph) over messages a developer's own agent exchanged;
``search`` is the ranked search alone; ``add`` stores a stated fact like any memory. ``CaimAgent``
is built on this class (its chat graph uses the same subgraphs, services and job queue).

Every method takes the user as the keyword ``user_id``; every input is checked before anything is
stored (``InputError``, one line). Each method has an async twin (``arecall``, ``aremember``, ...).

>>> from caim import Memory, Settings
>>> from caim.core.scripted import ScriptedChatModel
>>> memory = Memory(Settings(_env_file=None), persist=False, models=ScriptedChatModel())
>>> memory.add("My sister Ana lives in Lisbon.", user_id="marta").stored[0]["thought"]
'My sister Ana lives in Lisbon.'
>>> [m["thought"] for m in memory.search("Where does Ana live?", user_id="marta")]
['My sister Ana lives in Lisbon.']
>>> memory.close()
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import json
import math
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any

import numpy as np
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, messages_from_dict, messages_to_dict

from caim.agent.background import Job, PostThinkingWorker
from caim.agent.messages import as_messages, session_key
from caim.core.checks import check_user
from caim.core.errors import ConfigError, InputError
from caim.core.models import Models
from caim.core.settings import Settings
from caim.core.types import Route
from caim.graph.builder import build_post_thinking_graph, build_recall_graph, check_policy
from caim.graph.services import Services
from caim.graph.state import USED, Change, Context, KeyEvent
from caim.memory.intents import Known
from caim.memory.merge import Merge
from caim.memory.profile import Profile
from caim.memory.records import (
    MemoryBrief,
    MemoryRecord,
    check_polarity,
    stable_id,
)
from caim.memory.stm import TIME_KEY, check_length, parse_time
from caim.memory.text.timeref import TimeSpan
from caim.memory.transfer import (
    Export,
    Imported,
    as_export,
    export_lines,
    import_records,
    import_terms,
    imported_profile,
)
from caim.ontology import Ontology, Proposal
from caim.services.bounds import within_bounds
from caim.services.profile import prune, settle
from caim.services.records import corrected, forget_records
from caim.services.search import SearchScope, ranked_search

#: Most messages one ``remember`` call takes (a longer history is remembered in several calls).
MAX_MESSAGES = 2000
#: Most records one page of ``Memory.page`` holds, and the highest page number it takes.
MAX_PER_PAGE = 100
MAX_PAGE = 1_000_000
#: Longest ontology term ``deny``, ``allow`` and ``page(under=...)`` take.
MAX_TERM = 64
#: Users whose ``overview`` is kept (the most recently computed).
OVERVIEWS_KEPT = 64
#: The meta key (then the user id) naming the session ``remember_sessions`` is post-thinking.
INGESTING = "ingesting:"


@dataclass
class Recall:
    """What memory brings to one message: the controller's ``route`` with its ``decisions`` and the
    code ``signals`` beside them, the kept ``memories`` (thought, date, tags, scores, source turns),
    and ``prompt``: a block quoting them as data, as caim's own answer sees them ("" when the route
    uses no long-term memory). ``candidates``: the ranked records the filter saw."""

    route: Route
    memories: list[MemoryBrief]
    prompt: str
    decisions: dict[str, Any] = field(default_factory=dict)
    signals: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    time_ranges: list[TimeSpan] = field(default_factory=list)
    candidates: list[MemoryBrief] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    intent: str = ""
    known: dict[str, Known] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)


@dataclass
class SessionSummary:
    """What post-thinking did: key events found, records stored and merged, other changes to stored
    memory (updates, extensions, contradictions, links), ontology terms added, events withheld by
    the privacy bounds. ``complete`` is False when extraction failed for some turns - their
    fact-stating words are stored verbatim, to be refined later. ``job`` names the background job
    when post-thinking was queued (``Memory.wait(job)`` gives its summary)."""

    key_events: list[KeyEvent]
    stored: list[MemoryBrief]
    merged: list[Merge]
    ontology_added: list[str]
    trace: list[dict[str, Any]]
    complete: bool
    changes: list[Change] = field(default_factory=list)
    denied: int = 0
    job: str = ""

    @classmethod
    def of(cls, out: Mapping[str, Any]) -> SessionSummary:
        """The summary of a post-thinking run's output."""
        return cls(
            out.get("key_events", []),
            out.get("stored", []),
            out.get("merged", []),
            out.get("ontology_added", []),
            out.get("trace", []),
            complete=bool(out.get("complete", True)),
            changes=out.get("changes", []),
            denied=int(out.get("denied", 0)),
        )

    @classmethod
    def queued(cls, job: str = "") -> SessionSummary:
        """The summary of a session handed to the background worker (or of nothing to remember)."""
        return cls([], [], [], [], [], complete=True, job=job)


#: How many times ``k`` matches a search filtered by polarity reads before filtering.
POLARITY_POOL = 5


@dataclass
class MemoryPage:
    """One page of a user's memories, newest first: its ``records``, its number (from 1) of
    ``pages``, and how many records there are in all (``total``; under the term when one was given)."""

    records: list[MemoryRecord]
    page: int
    pages: int
    total: int
    per_page: int


@dataclass
class Overview:
    """Counts over all of a user's memories, read in one pass: ``total``; ``per_week`` (the Monday
    that starts each week with memories, UTC, and how many, oldest first); ``per_category`` (records
    under each top-level ontology category; tags the ontology lacks count as ``other``); ``per_term``
    (records carrying the term or any term below it: each record counts once per term)."""

    total: int
    per_week: list[tuple[date, int]]
    per_category: dict[str, int]
    per_term: dict[str, int]


@dataclass(frozen=True)
class PendingSession:
    """A session of the user queued for background post-thinking: its job id, state (``pending``,
    ``running`` or ``failed``), attempts so far, last error, when it ended and how many messages it holds."""

    job_id: str
    state: str
    attempts: int
    error: str
    at: str
    messages: int


@dataclass
class SessionTurn:
    """One message of a session as a person reads it: who said it (``user`` or ``assistant``), the
    words, when (ISO, "" when unknown), and for a reply the memories it used (id, words clipped,
    date, speaker: ``caim.graph.state.USED``)."""

    role: str
    text: str
    at: str
    used: list[dict[str, str]] = field(default_factory=list)


def session_turns(messages: Sequence[BaseMessage]) -> builtins.list[SessionTurn]:
    """A session's user and assistant messages as ``SessionTurn`` (tool calls and empty messages left out)."""
    out = []
    for m in messages:
        if not isinstance(m, HumanMessage | AIMessage) or not m.text.strip():
            continue
        extra = m.additional_kwargs or {}
        used = [dict(u) for u in extra.get(USED) or [] if isinstance(u, dict)]
        role = "user" if isinstance(m, HumanMessage) else "assistant"
        out.append(SessionTurn(role, m.text, str(extra.get(TIME_KEY) or ""), used))
    return out


#: The category of tags the ontology lacks (``Overview.per_category``).
OTHER = "other"


def _term_counts(rows: Sequence[tuple[int, str]], ontology: Ontology) -> dict[str, int]:
    """Per term, how many records carry it or a term below it (each record once per term), from
    (record number, tag) rows; a tag the ontology lacks counts for itself and for ``OTHER``."""
    if not rows:
        return {}
    tag_index: dict[str, int] = {}
    rid = np.fromiter((r for r, _ in rows), dtype=np.int64, count=len(rows))
    tag = np.fromiter((tag_index.setdefault(t, len(tag_index)) for _, t in rows), dtype=np.int64, count=len(rows))
    term_index: dict[str, int] = {}
    paths = [ontology.path(t).split("/") if t in ontology else [t, OTHER] for t in tag_index]
    chains = [[term_index.setdefault(x, len(term_index)) for x in path] for path in paths]
    depth = max(len(c) for c in chains)
    table = np.array([c + [-1] * (depth - len(c)) for c in chains], dtype=np.int64)  # tag -> its terms, -1 padded
    terms = table[tag].ravel()  # per (record, tag), the terms it counts for
    records = np.repeat(rid, depth)
    kept = terms >= 0
    width = len(term_index)
    pairs = np.unique(records[kept] * width + terms[kept])  # each record once per term
    counted = np.bincount(pairs % width, minlength=width)
    return {name: int(counted[i]) for name, i in term_index.items() if counted[i]}


class Memory:
    """caim's long-term memory without an answer model (see the module docstring)."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        models: Mapping[str, BaseChatModel] | BaseChatModel | None = None,
        services: Services | None = None,
        persist: bool = True,
        background: bool = True,
    ):
        """``models`` injects chat models (one for all roles, or per role: any LangChain chat model);
        ``persist=False`` keeps everything in memory; ``background=False`` starts no worker (queued
        sessions then wait for another process's worker)."""
        self.settings = settings or Settings.load()
        self._owns_services = services is None
        self.services = services or Services.create(
            self.settings, models=Models(self.settings, overrides=models), persist=persist
        )
        self.recall_graph = build_recall_graph(self.services)
        self.post_thinking_graph = build_post_thinking_graph(self.services)
        self._locks: dict[str, threading.RLock] = {}
        self._depth: dict[str, int] = {}  # how deep the thread holding a user's lock holds it
        self._guard = threading.Lock()
        self._overviews: dict[str, tuple[tuple[int, str], Overview]] = {}  # user -> (versions, overview)
        #: Reads (and drops) the messages of a job queued with a checkpoint thread instead of its
        #: messages; ``CaimAgent`` sets it, as it owns those threads.
        self.legacy_thread: Callable[[Job], list[BaseMessage]] | None = None
        self.worker = PostThinkingWorker(self.services.store.queue, self._run_job) if background else None

    # ---- plumbing ---------------------------------------------------------------------------
    def context(self, user_id: str, policy: str | None = None) -> Context:
        """The run context for ``user_id`` and ``policy`` (a registered policy, default the setting's)."""
        name = policy or self.settings.policy
        try:
            check_policy(name)
        except ConfigError as exc:
            raise InputError(str(exc)) from None
        return Context(user_id=check_user(user_id), policy=name)

    @contextlib.contextmanager
    def lock(self, user_id: str) -> Iterator[None]:
        """One run at a time on a user's conversation: across this process's threads, and across
        processes (and, with a shared database, machines) serving the same user. Reentrant in a
        thread: a nested hold takes no second cross-process lock (a PostgreSQL advisory lock is held
        by a connection of its own, and a second one would wait for the first)."""
        with self._guard:
            local = self._locks.setdefault(user_id, threading.RLock())
        with local:  # from here on only this thread touches the user's depth
            depth = self._depth.get(user_id, 0)
            self._depth[user_id] = depth + 1
            try:
                if depth:
                    yield
                else:
                    with self.services.store.lock(f"thread:{user_id}"):
                        yield
            finally:
                self._depth[user_id] = depth

    def message(self, text: str) -> str:
        """``text`` if it is a message caim accepts, else a one-line ``InputError``."""
        if not isinstance(text, str):
            raise InputError(f"a message is text, not {type(text).__name__}")
        return check_length(text, self.settings.max_message_chars)

    def _messages(self, items: Sequence[Any], at: datetime | str | None = None) -> list[BaseMessage]:
        if len(items) > MAX_MESSAGES:
            raise InputError(f"{len(items)} messages; at most {MAX_MESSAGES} are taken at once")
        msgs = as_messages(items, default_time=parse_time(at).isoformat() if at else None)
        for m in msgs:
            self.message(m.text)
        return msgs

    # ---- recall -----------------------------------------------------------------------------
    def recall(
        self,
        message: str,
        *,
        user_id: str,
        history: Sequence[Any] | None = None,
        at: datetime | str | None = None,
        policy: str | None = None,
    ) -> Recall:
        """What memory brings to ``message`` (``history``: the conversation before it, as LangChain
        messages or role/content dicts). One planning round trip with the ``caim`` policy."""
        msgs = [*self._messages(history or []), HumanMessage(self.message(message))]
        ctx = self.context(user_id, policy)
        out = self.recall_graph.invoke({"messages": msgs, "turn_time": parse_time(at).isoformat()}, context=ctx)
        return Recall(
            route=out.get("route", "none"),
            memories=out.get("memories", []),
            prompt=out.get("memory_prompt", ""),
            decisions=out.get("decisions", {}),
            signals=out.get("signals", {}),
            tags=out.get("tags", []),
            time_ranges=out.get("time_ranges", []),
            candidates=out.get("candidates", []),
            trace=out.get("trace", []),
            intent=out.get("intent", ""),
            known={s: Known(k["value"], k["memory"], k["date"]) for s, k in out.get("known", {}).items()},
            missing=out.get("missing", []),
        )

    def search(
        self,
        query: str,
        *,
        user_id: str,
        k: int = 10,
        polarity: str | None = None,
        at: datetime | str | None = None,
    ) -> list[MemoryBrief]:
        """The ranked search alone (lexical, dense, tags, time, names; no model): the best records -
        at most ``k``, only those relevant to ``query`` (``caim.memory.search.relevance``: a record
        that shares no word with it and is unrelated in meaning is not returned) - with their scores
        and relevance (0 to 1), best first; ``polarity`` ("like", "dislike", "neutral") keeps only
        preferences of that polarity held by the speaker (not one told of a pet or another person; the
        best ``k`` of them among the ``POLARITY_POOL`` times ``k`` best matches). ``at``: when the query is
        asked (its time expressions resolve against it; default now). The graph's search step runs the
        same search (``caim.services.search``)."""
        if not isinstance(k, int) or not 1 <= k <= 100:
            raise InputError("k must be a whole number from 1 to 100")
        wanted = check_polarity(polarity)
        scope = self._scope(self.context(user_id).user_id, parse_time(at))
        if wanted is None:
            return ranked_search(scope, self.message(query), k)
        found = ranked_search(scope, self.message(query), k * POLARITY_POOL)
        return [m for m in found if m.get("polarity") == wanted and not m.get("holder")][:k]

    def _scope(self, user: str, now: datetime) -> SearchScope:
        """The search scope of ``user`` at ``now`` (what the graph's search step reads with, too)."""
        svc = self.services
        ontology = svc.ontology.of(user)
        return SearchScope(svc.store, svc.retriever, svc.embedder, svc.tagger, ontology, self.settings, user, now)

    # ---- remember ---------------------------------------------------------------------------
    def remember(
        self,
        messages: Sequence[Any],
        *,
        user_id: str,
        background: bool = True,
        session_id: str | None = None,
        policy: str | None = None,
    ) -> SessionSummary:
        """Post-thinking over an exchange or a whole session (LangChain messages or role/content
        dicts, each with an optional time: ``time``/``at`` keys, or ``additional_kwargs``). The same
        messages remembered twice store nothing twice (the session id comes from their ids, else from
        their words and times). ``background=True`` queues a durable job and returns at once."""
        msgs = self._messages(messages)
        ctx = self.context(user_id, policy)
        if not msgs:
            return SessionSummary.queued()
        session = session_id or session_key(user_id, msgs)
        when = max((m.additional_kwargs.get("caim_time", "") for m in msgs), default="") or parse_time(None).isoformat()
        if background:
            return self.queue(Job(f"{user_id}:{session}", user_id, "", session, ctx.policy, when), msgs)
        with self.lock(user_id):
            return self.post_think(msgs, ctx, session, when)

    def remember_sessions(
        self,
        sessions: Sequence[Sequence[Any]],
        *,
        user_id: str,
        progress: Callable[[int, int | None], None] | None = None,
    ) -> int:
        """Post-thinking now over each of ``sessions`` (a history cut into sessions: ``caim memories
        import-chat``), in order. A session already remembered (a record of it stored or changed) is
        skipped; one begun and not finished (the process was stopped) is post-thought again, which
        stores nothing twice. ``progress(done, total)`` counts messages. Returns how many were skipped."""
        user = check_user(user_id)
        store = self.services.store
        batches = [self._messages(msgs) for msgs in sessions]
        keys = [session_key(user, msgs) for msgs in batches]
        marker = f"{INGESTING}{user}"
        seen = store.session_ids(user) - {store.get_meta(marker) or ""}
        total, done, skipped = sum(map(len, batches)), 0, 0
        for msgs, key in zip(batches, keys, strict=True):
            if key in seen or not msgs:
                skipped += 1
            else:
                store.set_meta(marker, key)
                self.remember(msgs, user_id=user, background=False, session_id=key)
                seen.add(key)
            done += len(msgs)
            if progress is not None:
                progress(done, total)
        store.set_meta(marker, "")
        return skipped

    def add(self, text: str, *, user_id: str, at: datetime | str | None = None) -> SessionSummary:
        """Store a fact stated directly (``text``, said at ``at``): tagged, grounded and maintained
        (merged, updated, linked as a contradiction) like any memory; kept in its words when the
        model's rewrite is refused or fails."""
        when = parse_time(at).isoformat()
        msgs = self._messages([{"role": "user", "content": text, "time": when}])
        ctx = self.context(user_id)
        session = "add-" + stable_id(user_id, text, when)[:12]
        with self.lock(user_id):
            return self.post_think(msgs, ctx, session, when, explicit=True)

    def post_think(
        self, msgs: list[BaseMessage], ctx: Context, session: str, when: str, *, explicit: bool = False
    ) -> SessionSummary:
        """Run post-thinking now over ``msgs`` as session ``session`` (the caller holds the user's lock)."""
        out = self.post_thinking_graph.invoke(
            {"messages": msgs, "session_id": session, "turn_time": when, "explicit": explicit}, context=ctx
        )
        return SessionSummary.of(out)

    def queue(self, job: Job, msgs: Sequence[BaseMessage]) -> SessionSummary:
        """Queue post-thinking of ``msgs`` as ``job``, durably (the messages travel in the job)."""
        payload = {"messages": messages_to_dict(list(msgs))}
        if self.worker is not None:
            self.worker.submit(job, payload)
        else:
            self.services.store.queue.enqueue(job.queued(payload))
        return SessionSummary.queued(job.job_id)

    def _run_job(self, job: Job) -> SessionSummary:
        if job.messages:
            msgs: list[BaseMessage] = list(messages_from_dict(list(job.messages)))
        elif job.thread_id and self.legacy_thread is not None:
            msgs = self.legacy_thread(job)
        else:
            msgs = []
        ctx = Context(user_id=job.user_id, policy=job.policy or self.settings.policy)
        return self.post_think(msgs, ctx, job.session_id, job.at) if msgs else SessionSummary.queued()

    def wait(self, job: str | None = None, timeout: float = 120.0) -> SessionSummary | None:
        """Wait for background post-thinking: one job (its summary) or all of them (None)."""
        if self.worker is None:
            raise ConfigError("this memory runs no background worker (background=False)")
        self.worker.drain(timeout)
        found = self.worker.results.get(job) if job else None
        return found if isinstance(found, SessionSummary) else None

    def pending(self, *, user_id: str | None = None) -> list[str]:
        """Jobs of sessions not yet post-thought (also those queued by other processes)."""
        return [j.job_id for j in self.services.store.queue.pending(user_id)]

    def pending_turns(self, job_id: str, *, user_id: str) -> builtins.list[SessionTurn] | None:
        """The turns of the user's session queued as ``job_id`` (``None``: no such job of the user),
        each reply with the memories it used."""
        for job in self.services.store.queue.pending(check_user(user_id)):
            if job.job_id == job_id:
                return session_turns(messages_from_dict(list(job.payload.get("messages") or [])))
        return None

    def pending_sessions(self, *, user_id: str) -> builtins.list[PendingSession]:
        """The user's sessions not yet post-thought, oldest first, with their state (``pending``)."""
        out = []
        for job in self.services.store.queue.pending(check_user(user_id)):
            data = job.payload
            out.append(
                PendingSession(
                    job.job_id,
                    job.state,
                    job.attempts,
                    job.error,
                    str(data.get("at", "")),
                    len(data.get("messages") or ()),
                )
            )
        return out

    # ---- administration ---------------------------------------------------------------------
    def get(self, record_id: str, *, user_id: str) -> MemoryRecord | None:
        """The user's record ``record_id``, or None."""
        return self.services.store.get(check_user(user_id), record_id)

    def list(self, *, user_id: str, polarity: str | None = None) -> builtins.list[MemoryRecord]:
        """The user's records, oldest first (``export`` streams them for large memories); with
        ``polarity``, only the preferences of that polarity held by the speaker (not a pet's or another person's)."""
        wanted = check_polarity(polarity)
        found = self.services.store.list(check_user(user_id))
        return found if wanted is None else [r for r in found if r.polarity == wanted and not r.holder]

    def get_many(self, record_ids: Sequence[str], *, user_id: str) -> builtins.list[MemoryRecord]:
        """The user's records among ``record_ids``, in their order (ids of no record of the user left out)."""
        return self.services.store.get_many(check_user(user_id), builtins.list(record_ids))

    def page(self, *, user_id: str, page: int = 1, per_page: int = 50, under: str | None = None) -> MemoryPage:
        """One page of the user's records, newest event first (one query, however many records);
        ``under``: only records tagged with that ontology term or a term below it.

        Args:
            user_id: The user.
            page: Which page, from 1 (a page past the last is empty).
            per_page: Records per page, 1 to ``MAX_PER_PAGE``.
            under: An ontology term.

        Returns:
            The page, with the total and the number of pages.
        """
        if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= MAX_PAGE:
            raise InputError(f"page must be a whole number from 1 to {MAX_PAGE}")
        if isinstance(per_page, bool) or not isinstance(per_page, int) or not 1 <= per_page <= MAX_PER_PAGE:
            raise InputError(f"per_page must be a whole number from 1 to {MAX_PER_PAGE}")
        user = check_user(user_id)
        store = self.services.store
        ontology = self.services.ontology.of(user)
        tags = ontology.subtree(self.check_term(under, user_id=user)) if under is not None else None
        total = store.count(user) if tags is None else store.count_tagged(user, tags)
        records = store.page(user, (page - 1) * per_page, per_page, tags)
        return MemoryPage(records, page, max(math.ceil(total / per_page), 1), total, per_page)

    def overview(self, *, user_id: str) -> Overview:
        """Counts over all the user's records - per week, per top-level category, per ontology term -
        from two reads of the record database (event times, tags), no record parsed; kept while the
        user's records and the ontology stay as they are (``OVERVIEWS_KEPT`` users)."""
        user = check_user(user_id)
        ontology = self.services.ontology.of(user)
        key = (self.services.store.version(user), ontology.fingerprint)
        with self._guard:
            kept = self._overviews.get(user)
        if kept is not None and kept[0] == key:
            return kept[1]
        found = self._overview(user, ontology)
        with self._guard:
            self._overviews.pop(user, None)
            self._overviews[user] = (key, found)
            while len(self._overviews) > OVERVIEWS_KEPT:
                self._overviews.pop(next(iter(self._overviews)))
        return found

    def _overview(self, user: str, ontology: Ontology) -> Overview:
        store = self.services.store
        times = np.asarray(store.event_times(user), dtype=np.float64)
        days = np.floor(times / 86400).astype(np.int64)
        mondays, counts = np.unique(days - (days + 3) % 7, return_counts=True)
        epoch = date(1970, 1, 1)
        weeks = [(epoch + timedelta(days=int(d)), int(n)) for d, n in zip(mondays, counts, strict=True)]
        per_term = _term_counts(store.tag_rows(user), ontology)
        tops = [*ontology.tree, OTHER]
        per_category = {c: per_term.pop(c) if c == OTHER else per_term[c] for c in tops if c in per_term}
        return Overview(len(times), weeks, per_category, per_term)

    def forget(self, record_id: str, *, user_id: str) -> bool:
        """Forget one record everywhere (vectors, lexical index, sources, history, and what the
        profile drew from it)."""
        user = check_user(user_id)
        store = self.services.store
        with self.lock(user), store.user_lock(user):
            gone = store.get_many(user, [record_id]) if isinstance(record_id, str) else []
            return self._forget(user, gone) > 0

    def _forget(self, user: str, gone: Sequence[MemoryRecord]) -> int:
        """Forget ``gone`` records of the user everywhere (``caim.services.records.forget_records``)."""
        svc = self.services
        return forget_records(svc.store, user, gone, svc.ontology.of(user), svc.embedder)

    def _prune(self, user: str, gone: Sequence[MemoryRecord]) -> None:
        """Rebuild what the user's profile drew from ``gone`` records (``caim.services.profile.prune``)."""
        svc = self.services
        prune(svc.store, user, svc.ontology.of(user), svc.embedder, gone)

    def forget_all(self, *, user_id: str) -> int:
        """Delete every record of the user, their pending sessions and the ontology terms learned from
        their words (from the database, this process's views and tag vectors, and so from every prompt
        and page); returns how many records."""
        user = check_user(user_id)
        with self.lock(user):
            n = self.services.store.forget_user(user)
            self.services.tagger.discard(self.services.ontology.forget(user))
            with self._guard:
                self._overviews.pop(user, None)
            return n

    def correct(self, record_id: str, text: str, *, user_id: str) -> MemoryRecord:
        """Correct a memory in the user's own words: a new version with ``text`` supersedes the record
        (the old one is kept, closed, in the new one's history - ``history`` shows both), with the
        record's tags, date, speaker and links; its source turn is the correction itself.

        Args:
            record_id: The user's current record to correct.
            text: What the memory should say.
            user_id: The user.

        Returns:
            The new version, as stored.
        """
        user = check_user(user_id)
        text = self.message(text).strip()
        if not text:
            raise InputError("a correction needs the words the memory should hold")
        store = self.services.store
        with self.lock(user), store.user_lock(user):
            old = store.get(user, record_id) if isinstance(record_id, str) else None
            if old is None:
                raise InputError("no such memory")
            if not old.current:
                raise InputError("this memory was superseded by a later one: correct that one instead")
            if text == old.thought:
                raise InputError("the correction is what the memory already says")
            closed, newer = corrected(old, text)
            store.add([closed, newer])
            self._prune(user, [old])
        return newer

    # ---- the user's privacy bounds ------------------------------------------------------------
    def ontology(self, *, user_id: str | None = None) -> Ontology:
        """The ontology the user sees: the shared one (the shipped one with the deployment's extensions)
        with the terms learned from that user's words (``None``: the shared one alone)."""
        return self.services.ontology.of(check_user(user_id) if user_id is not None else None)

    def check_term(self, term: str, *, user_id: str | None = None) -> str:
        """``term`` if it is a term of the ontology the user sees (``ontology``), else a one-line ``InputError``."""
        known = self.ontology(user_id=user_id)
        if not isinstance(term, str) or not term or len(term) > MAX_TERM or term not in known:
            shown = term[:MAX_TERM] if isinstance(term, str) else type(term).__name__
            raise InputError(f"no ontology term {shown!r} (caim ontology show lists them)")
        return term

    def deny(self, term: str, *, user_id: str) -> int:
        """Deny an ontology subtree for the user: nothing tagged ``term`` or a term below it is stored
        for them from now on (post-thinking, ``add``, ``import_``: beside the deployment's
        ``deny_categories``), and the user's memories under it are forgotten now, everywhere.

        Returns:
            How many memories were forgotten.
        """
        user = check_user(user_id)
        term = self.check_term(term, user_id=user)
        store = self.services.store
        tags = self.services.ontology.of(user).subtree(term)
        with self.lock(user), store.user_lock(user):
            store.deny(user, term)
            gone: builtins.list[MemoryRecord] = []
            while batch := store.page(user, len(gone), 500, tags):
                gone += batch
            return self._forget(user, gone)

    def allow(self, term: str, *, user_id: str) -> bool:
        """Lift the user's own denial of ``term`` (False when it was not denied); what was forgotten
        stays forgotten, and the deployment's ``deny_categories`` still hold."""
        user = check_user(user_id)
        if not isinstance(term, str) or not term or len(term) > MAX_TERM:
            raise InputError(f"an ontology term is 1 to {MAX_TERM} characters")
        with self.lock(user):
            return self.services.store.allow(user, term)

    def denied(self, *, user_id: str) -> builtins.list[str]:
        """The ontology terms the user has denied (``deny``), in the order they were denied."""
        return self.services.store.denied(check_user(user_id))

    def within_bounds(self, tags: Sequence[str], *, user_id: str) -> bool:
        """Whether a memory with ``tags`` may be stored for the user: no tag under a term the deployment
        (``deny_categories``) or the user (``deny``) denies, and every tag under ``allow_categories``
        when that list is set."""
        return self._bounds(check_user(user_id))(tags)

    def _bounds(self, user: str) -> Callable[[Sequence[str]], bool]:
        """``within_bounds`` for ``user``, the lists read once."""
        ontology = self.services.ontology.of(user)
        denied = self.services.store.denied(user)
        return partial(within_bounds, ontology, settings=self.settings, user_denied=denied)

    def history(self, record_id: str, *, user_id: str) -> builtins.list[dict[str, Any]]:
        """A record's chain, oldest first: its own history and that of the records it superseded,
        merged or extended (what changed, when, from which session, with which records)."""
        return self.services.store.history(check_user(user_id), record_id)

    def export(self, *, user_id: str) -> dict[str, Any]:
        """Everything stored about the user - records, profile and the ontology terms learned from their
        words - as one JSON-ready dict (``export_lines`` streams it)."""
        user = check_user(user_id)
        store = self.services.store
        lines = export_lines(
            store.iter_vectors(user), user, store.profile(user), store.embedder.name, terms=store.terms.terms(user)
        )
        return json.loads("".join(lines))

    def import_(
        self,
        data: dict[str, Any] | builtins.list[dict[str, Any]] | Export,
        *,
        user_id: str,
        progress: Callable[[int, int | None], None] | None = None,
        checking: Callable[[int, int | None], None] | None = None,
    ) -> Imported:
        """Restore an export (ids, times, validity, links, history and learned terms kept; importing
        twice adds nothing, and a record stored as the export has it is not written again), checked
        whole before anything is written: a record whose ids, tags or speakers break the rules, an id
        of another user's record, more records than ``max_import_records`` or records past the user's
        quota is a one-line ``InputError`` and stores nothing (``caim.memory.transfer``). Its vectors
        are reused when this store embeds with the embedder that made them. Records outside the
        privacy bounds (``within_bounds``) are left out; a record the store holds a newer version of
        stays closed; the export's profile is kept where the records written hold it
        (``caim.services.profile.settle``: what draws on a record left out is rebuilt from those
        written). ``data``: the export's JSON, or a file read by ``caim.memory.transfer.read_export``;
        ``progress(done, total)`` is called after each batch written, ``checking(done, total)`` after
        each batch checked (the whole export is checked before the first write). Returns how many records were added,
        updated, found unchanged and left out (``caim.memory.transfer.Imported``)."""
        user = check_user(user_id)
        export = as_export(data)
        store = self.services.store
        limit = self.settings.max_import_records or None
        with self.lock(user):
            within = self._bounds(user)
            n = import_records(
                store, user, export, lambda rec: within(rec.tags), progress, limit=limit, checking=checking
            )
            terms = import_terms(export.head)  # a streamed export's, once its records were read
            if terms:
                proposals = [Proposal(parent, term) for parent, term in terms]
                self.services.ontology.extend(proposals, user=user, most=len(proposals))
            profile = imported_profile(store, user, export)
            if profile is not None:
                with store.user_lock(user):
                    settle(store, user, self.services.ontology.of(user), self.services.embedder, profile)
            return n

    def profile(self, *, user_id: str) -> Profile:
        """The user's profile above the concrete memories: a background paragraph per aspect of their
        life (``backgrounds``, each with its member memories and earlier versions) and their preference
        principles (``principles``: a requirement type with likes, dislikes and member memories),
        rewritten by post-thinking after every session (``caim.memory.profile``)."""
        return self.services.store.profile(check_user(user_id))

    def as_tools(self) -> builtins.list[Any]:
        """LangChain tools ``search_memory`` and ``remember`` for an agent's model; the user comes
        from the run's context or config, never from the model's arguments (``caim.agent.tools``)."""
        from caim.agent.tools import memory_tools

        return memory_tools(self)

    # ---- async twins ------------------------------------------------------------------------
    async def arecall(self, message: str, **kw: Any) -> Recall:
        """``recall`` in a worker thread."""
        return await asyncio.to_thread(partial(self.recall, message, **kw))

    async def aremember(self, messages: Sequence[Any], **kw: Any) -> SessionSummary:
        """``remember`` in a worker thread."""
        return await asyncio.to_thread(partial(self.remember, messages, **kw))

    async def asearch(self, query: str, **kw: Any) -> builtins.list[MemoryBrief]:
        """``search`` in a worker thread."""
        return await asyncio.to_thread(partial(self.search, query, **kw))

    async def aadd(self, text: str, **kw: Any) -> SessionSummary:
        """``add`` in a worker thread."""
        return await asyncio.to_thread(partial(self.add, text, **kw))

    async def aget(self, record_id: str, **kw: Any) -> MemoryRecord | None:
        """``get`` in a worker thread."""
        return await asyncio.to_thread(partial(self.get, record_id, **kw))

    async def alist(self, **kw: Any) -> builtins.list[MemoryRecord]:
        """``list`` in a worker thread."""
        return await asyncio.to_thread(partial(self.list, **kw))

    async def aforget(self, record_id: str, **kw: Any) -> bool:
        """``forget`` in a worker thread."""
        return await asyncio.to_thread(partial(self.forget, record_id, **kw))

    async def ahistory(self, record_id: str, **kw: Any) -> builtins.list[dict[str, Any]]:
        """``history`` in a worker thread."""
        return await asyncio.to_thread(partial(self.history, record_id, **kw))

    async def aexport(self, **kw: Any) -> dict[str, Any]:
        """``export`` in a worker thread."""
        return await asyncio.to_thread(partial(self.export, **kw))

    async def aprofile(self, **kw: Any) -> Profile:
        """``profile`` in a worker thread."""
        return await asyncio.to_thread(partial(self.profile, **kw))

    async def aimport_(self, data: dict[str, Any] | builtins.list[dict[str, Any]], **kw: Any) -> Imported:
        """``import_`` in a worker thread."""
        return await asyncio.to_thread(partial(self.import_, data, **kw))

    # ---- lifetime ---------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the background worker and close the store when this memory opened it."""
        if self.worker is not None:
            self.worker.stop()
        if self._owns_services:
            self.services.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
