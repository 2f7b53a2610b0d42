"""The systems a benchmark compares: CAIM under each memory policy, a full-context baseline, and the
peers mem0 and LangMem (``caim.eval.peer_systems``); ``caim.eval.catalog`` makes any of them by name.

Every system gets one conversation at a time: ``replay`` feeds it the dated history, ``ask`` puts
one probing question in a fresh session, ``memory`` lists what it stored.

``CaimSystem`` wraps an in-memory ``CaimAgent`` (``persist=False``) with the policy of its name.
Replay modes:

- ``recorded`` (default): each session's user messages *and the data set's recorded replies* are
  written into the thread's state (as if the ``respond`` node had produced them), each stamped
  with its turn time, and the session is closed with ``end_session`` so post-thinking sees exactly
  the data set's conversation. No answers are generated during replay: it is fast and every system
  remembers the same conversation.
- ``live``: the agent answers each user message itself (``CaimAgent.chat`` at the turn's time),
  then the session is closed; the memory then reflects the agent's own replies.

Probing questions are asked with ``chat`` at the probe time; afterwards the question's session is
discarded (messages cleared *without* post-thinking), so probing never writes memory, every
question sees the same memory, and the order of questions - or a resumed run - does not matter.
A session whose post-thinking failed stays in the thread (CAIM's behaviour: it is retried with the
next session); whatever is still unprocessed after the last session is discarded before probing.

Each system works under its own internal user id (``<user>::<system>::<nonce>``) and forgets it on
``close``, so nothing of one (system, user) pair can leak into another within the process (in-process
Chroma clients share one backend); agents are created one at a time because creating Chroma
clients from several threads at once races inside chromadb.

``FullContextSystem`` has no memory: the whole history goes into the prompt of the ``respond``
model, cut from the oldest end to ``context_tokens`` (estimated with ``estimate_tokens``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from caim.agent.facade import CaimAgent, Turn
from caim.core.errors import ConfigError
from caim.core.llm import LLM
from caim.core.models import Models
from caim.core.settings import Settings
from caim.core.trace import add_usage
from caim.eval.dataset import Conversation
from caim.graph.policies import get_policy
from caim.memory.records import MemoryRecord
from caim.memory.stm import estimate_tokens
from caim.prompts import respond as respond_prompt
from caim.prompts.common import data_block, quote, quote_chat

REPLAY_MODES = ("recorded", "live")
#: Default window of the full-context baseline (estimated tokens) for hosted models.
DEFAULT_CONTEXT_TOKENS = 100_000
FULL_CONTEXT = "full-context"

#: Version of the full-context baseline's prompt (recorded in reports).
FULL_CONTEXT_PROMPT_VERSION = 1
FULL_CONTEXT_INTRO = (
    "Transcript of your earlier conversations with this user, oldest first (each line dated; the "
    "oldest part may be cut to fit):"
)

Progress = Callable[[int, int], None]
ModelsArg = Mapping[str, BaseChatModel] | BaseChatModel | None


def record_dict(r: MemoryRecord) -> dict:
    """A stored record as results store it: id, kind, thought, speaker, tags, event time, session,
    sources (enough to load it again: ``benchmarks/recorded_memory.py``)."""
    return r.model_dump(
        mode="json", include={"id", "kind", "thought", "speaker", "tags", "event_time", "session_id", "sources"}
    )


@dataclass
class Answer:
    """One answer to a probing question: the text, the route taken, the records retrieved (after
    the relevance filter) and fetched (candidates, before it), the LLM trace, wall-clock latency."""

    text: str
    route: str
    retrieved: list[dict]
    candidates: list[dict]
    trace: list[dict]
    latency_ms: float
    extra: dict = field(default_factory=dict)


class System:
    """Interface of a compared system (one instance per conversation)."""

    name: str = "?"
    #: Retrieves from a long-term memory per question (retrieval accuracy applies).
    retrieves: bool = False
    #: Builds a long-term memory (memory storage and memory size apply).
    stores: bool = False

    def replay(self, conv: Conversation, mode: str = "recorded", progress: Progress | None = None) -> dict:
        """Replay the conversation's sessions into the system (``mode``: one of ``REPLAY_MODES``); its stats."""
        raise NotImplementedError

    def ask(self, text: str, at: datetime) -> Answer:
        """Answer ``text`` as asked at ``at``."""
        raise NotImplementedError

    def memory(self) -> list[dict]:
        """The long-term memory built so far (none by default)."""
        return []

    def close(self) -> None:
        """Release the system's resources."""
        pass


class CaimSystem(System):
    """CAIM with one memory policy, in memory, for one conversation."""

    def __init__(self, name: str, settings: Settings, models: ModelsArg = None):
        policy = get_policy(name)
        self.name = name
        self.stores = policy.uses_memory
        self.retrieves = self.stores
        self.agent = CaimAgent(settings.model_copy(update={"policy": name}), models=models, persist=False)
        self.uid = ""
        self._records: dict[str, dict] = {}

    def _discard(self) -> int:
        """Clear the thread's messages without post-thinking; the number cleared."""
        return self.agent.discard_session(user_id=self.uid)

    def replay(self, conv: Conversation, mode: str = "recorded", progress: Progress | None = None) -> dict:
        """Replay each session into the agent's memory, ending it with post-thinking; the replay's stats.

        Raises:
            ConfigError: ``mode`` is not a replay mode.
        """
        if mode not in REPLAY_MODES:
            raise ConfigError(f"unknown replay mode {mode!r}; choose one of: {', '.join(REPLAY_MODES)}")
        self.uid = f"{conv.user}::{self.name}::{uuid.uuid4().hex[:8]}"
        stats: dict = {
            "mode": mode,
            "sessions": 0,
            "exchanges": 0,
            "stored": 0,
            "merged": 0,
            "failed_sessions": 0,
            "ontology_added": [],
        }
        start = time.perf_counter()
        for i, session in enumerate(conv.sessions):
            if mode == "recorded":
                self._write_recorded(conv, session)
            else:
                for ex in session.exchanges:
                    if ex.user:
                        reply = self.agent.chat(conv.user_text(ex), user_id=self.uid, at=ex.time)
                        add_usage(stats, reply.trace)
            summary = self.agent.end_session(user_id=self.uid, at=session.end)
            add_usage(stats, summary.trace)
            stats["sessions"] += 1
            stats["exchanges"] += len(session.exchanges)
            stats["stored"] += len(summary.stored)
            stats["merged"] += len(summary.merged)
            stats["failed_sessions"] += 0 if summary.complete else 1
            stats["ontology_added"] += summary.ontology_added
            if progress:
                progress(i + 1, len(conv.sessions))
        stats["discarded_messages"] = self._discard()
        stats["seconds"] = round(time.perf_counter() - start, 2)
        self._records = {r.id: record_dict(r) for r in self.agent.memories(self.uid)}
        return stats

    def _write_recorded(self, conv: Conversation, session) -> None:
        self.agent.record_turns(
            user_id=self.uid,
            turns=[
                Turn(conv.user_text(ex), conv.assistant_text(ex) if ex.assistant else None, ex.time, ex.message_id)
                for ex in session.exchanges
            ],
        )

    def _record(self, rid: str) -> dict:
        if rid not in self._records:
            rec = self.agent.get_memory(self.uid, rid)
            self._records[rid] = record_dict(rec) if rec else {"id": rid, "thought": "", "tags": [], "sources": []}
        return self._records[rid]

    def ask(self, text: str, at: datetime) -> Answer:
        """Answer ``text`` through the agent, with the records it retrieved and fetched."""
        start = time.perf_counter()
        reply = self.agent.chat(text, user_id=self.uid, at=at)
        latency = (time.perf_counter() - start) * 1000
        candidates = [self._record(c["id"]) for c in reply.candidates]
        retrieved = [self._record(m["id"]) for m in reply.memories]
        extra = {"tags": reply.tags, "time_ranges": reply.time_ranges, "decisions": reply.decisions}
        if reply.notice:
            extra["notice"] = reply.notice
        self._discard()
        return Answer(reply.text, reply.route, retrieved, candidates, reply.trace, latency, extra)

    def memory(self) -> list[dict]:
        """The conversation's records, by event time."""
        return sorted(self._records.values(), key=lambda r: (r.get("event_time") or "", r["id"]))

    def close(self) -> None:
        """Forget the conversation's user and close the agent."""
        try:
            if self.uid:
                self.agent.forget_user(self.uid)
        finally:
            self.agent.close()


class FullContextSystem(System):
    """No memory: the dated history (newest part within ``context_tokens``) goes into the prompt."""

    name = FULL_CONTEXT

    def __init__(self, settings: Settings, models: ModelsArg = None, context_tokens: int = DEFAULT_CONTEXT_TOKENS):
        if context_tokens <= 0:
            raise ConfigError("--context-tokens must be positive")
        self.settings = settings
        self.llm = LLM.of(Models(settings, overrides=models))
        self.context_tokens = context_tokens
        self.lines: list[str] = []
        self.conv: Conversation | None = None

    def _line(self, when: datetime, label: str, text: str) -> str:
        return f"({when.strftime('%Y-%m-%d %H:%M')}) {label}: {quote(text, self.settings.max_input_chars)}"

    def window(self) -> tuple[list[str], int]:
        """(the newest history lines within the budget, their estimated tokens)."""
        kept: list[str] = []
        used = 0
        for line in reversed(self.lines):
            t = estimate_tokens(line)
            if used + t > self.context_tokens:
                break
            kept.append(line)
            used += t
        kept.reverse()
        return kept, used

    def _generate(self, text: str, at: datetime, trace: list[dict]) -> tuple[str, dict]:
        kept, used = self.window()
        message = quote_chat(text, self.settings.max_input_chars)
        parts = [f"{FULL_CONTEXT_INTRO}\n{data_block(kept)}"] if kept else []
        parts += [f"Today is {at.strftime('%A, %B %d, %Y')}. Reply to the user's message.", f"Message: {message}"]
        msgs = [respond_prompt.system(), HumanMessage("\n\n".join(parts))]
        reply = self.llm.text("respond", msgs, trace=trace, node="full_context")
        info = {"context_lines": len(kept), "history_lines": len(self.lines), "context_tokens": used}
        return reply, info

    def replay(self, conv: Conversation, mode: str = "recorded", progress: Progress | None = None) -> dict:
        """Keep the conversation's history for the prompt (nothing is stored); the replay's stats.

        Raises:
            ConfigError: ``mode`` is not a replay mode.
        """
        if mode not in REPLAY_MODES:
            raise ConfigError(f"unknown replay mode {mode!r}; choose one of: {', '.join(REPLAY_MODES)}")
        self.conv = conv
        stats: dict = {"mode": mode, "sessions": 0, "exchanges": 0}
        start = time.perf_counter()
        for i, session in enumerate(conv.sessions):
            for ex in session.exchanges:
                if mode == "live":
                    if not ex.user:
                        continue
                    self.lines.append(self._line(ex.time, conv.user_label, ex.user))
                    trace: list[dict] = []
                    reply, _ = self._generate(ex.user, ex.time, trace)
                    add_usage(stats, trace)
                    self.lines.append(self._line(ex.time, "Assistant", reply))
                else:
                    if ex.user:
                        self.lines.append(self._line(ex.time, conv.user_label, ex.user))
                    if ex.assistant:
                        self.lines.append(self._line(ex.time, conv.assistant_label, ex.assistant))
            stats["sessions"] += 1
            stats["exchanges"] += len(session.exchanges)
            if progress:
                progress(i + 1, len(conv.sessions))
        stats["history_tokens"] = sum(estimate_tokens(x) for x in self.lines)
        stats["seconds"] = round(time.perf_counter() - start, 2)
        return stats

    def ask(self, text: str, at: datetime) -> Answer:
        """Answer ``text`` with the dated history that fits ``context_tokens`` in the prompt."""
        trace: list[dict] = []
        start = time.perf_counter()
        reply, info = self._generate(text, at, trace)
        latency = (time.perf_counter() - start) * 1000
        return Answer(reply, FULL_CONTEXT, [], [], trace, latency, info)
