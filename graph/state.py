"""Graph state, input/output schemas and the runtime context.

``State`` is what one thread (one user's conversation) keeps in the checkpoint: the current
session's messages (STM), the STM summary, and what the last run did (route, tags, time ranges,
candidates, kept memories, or what post-thinking stored) with its ``trace``. ``OutputState`` is
everything a caller gets back from a run - the facade and the evaluation harness read outputs only,
never checkpoint internals. ``Context`` is the per-run configuration LangGraph Studio shows as a form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired

from langchain_core.messages import AnyMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES, add_messages
from typing_extensions import TypedDict

from caim.core.trace import TraceEntry
from caim.core.types import Route
from caim.memory.merge import Merge
from caim.memory.records import MemoryBrief
from caim.memory.timeref import TimeSpan

#: Key of the custom stream events that carry the answer's text as it is produced
#: (``graph.stream(..., stream_mode="custom")`` yields ``{ANSWER: "<piece>"}``).
ANSWER = "answer"

#: A trace update starting with this marker replaces the trace (a new run starts a fresh one).
RESET: dict[str, bool] = {"reset": True}


def trace_reducer(old: list | None, new: list | None) -> list:
    """Append trace entries; a leading ``RESET`` marker starts a fresh trace for a new run."""
    new = list(new or [])
    if new and new[0] == RESET:
        return new[1:]
    return list(old or []) + new


class KeyEvent(TypedDict):
    """A fact worth remembering, from one numbered turn of the session, dated by that turn.
    ``origin``: ``model`` (extracted and grounded), ``capture`` (a side of an exchange no grounded
    event covered, worth keeping: its words), ``refine`` (a raw record of an earlier session,
    ``record`` its id). ``speaker``: ``assistant`` when the words are the assistant's (a capture of
    its reply, or the refinement of one); absent for the user's."""

    turn: int
    event: str
    time: str
    origin: NotRequired[Literal["model", "capture", "refine"]]
    record: NotRequired[str]
    speaker: NotRequired[Literal["assistant"]]


class Plan(TypedDict):
    """The memory controller's plan for a turn: route and the decisions behind it, and what to look
    for. ``model``: whether a model gave it (False: code signals alone, or the model failed)."""

    route: Route
    decisions: dict[str, Any]
    tags: list[str]
    time_expressions: list[str]
    model: bool


class EarlyFilter(TypedDict):
    """The relevance filter's decision when it ran beside the plan: the candidate ids it saw and the
    ids it kept (``None``: the model failed - the code fallback applies)."""

    seen: list[str]
    kept: list[str] | None


class Draft(TypedDict):
    """An answer drafted beside the decisions: its id in the process's draft book and the ids of the
    memories its prompt shows (the best-ranked candidates, up to ``max_kept``)."""

    id: str
    memories: list[str]


class Change(TypedDict):
    """One change post-thinking applied to stored memory (for the trace and the session summary)."""

    change: str
    record: str
    others: list[str]
    thought: str


class InputState(TypedDict, total=False):
    """What a caller sends: a user message (optionally with its time), or one of the session
    commands - ``end_session`` (post-thinking), ``record`` (add the messages as turns that already
    happened, without answering; ``session_id`` may name the session they belong to) or
    ``discard_session`` (drop the open session unprocessed)."""

    messages: Annotated[list[AnyMessage], add_messages]
    turn_time: str
    end_session: bool
    record: bool
    discard_session: bool
    session_id: str


class OutputState(TypedDict, total=False):
    """What a run returns. A turn: the reply (last message), route, decisions and the code signals
    beside them, tags, time ranges, candidates (ranked, with scores) and kept memories.
    ``end_session``: key events, stored records, merges and other changes to stored memory, ontology
    terms added, events withheld by the privacy bounds (``denied``), and whether extraction succeeded
    for every chunk (``complete``; the session is closed either way - turns that state facts are
    captured verbatim when extraction fails).
    ``discard_session``: how many messages were dropped."""

    messages: list[AnyMessage]
    route: Route
    decisions: dict[str, Any]
    tags: list[str]
    time_ranges: list[TimeSpan]
    candidates: list[MemoryBrief]
    memories: list[MemoryBrief]
    notice: str
    signals: dict[str, Any]
    key_events: list[KeyEvent]
    stored: list[MemoryBrief]
    merged: list[Merge]
    changes: list[Change]
    ontology_added: list[str]
    denied: int
    complete: bool
    discarded: int
    trace: list[TraceEntry]


class State(InputState, total=False):
    action: Literal["turn", "empty", "end_session", "record", "discard"]
    session_started: str
    last_turn_at: str
    summary: str
    summary_upto: int
    stm_mode: Literal["full", "summary"]
    route: Route
    decisions: dict[str, Any]
    tags: list[str]
    time_ranges: list[TimeSpan]
    candidates: list[MemoryBrief]
    memories: list[MemoryBrief]
    notice: str
    plan: Plan | None
    found: list[MemoryBrief]
    found_signals: dict[str, Any]
    early: EarlyFilter | None
    draft: Draft | None
    shortlist: list[str]
    signals: dict[str, Any]
    key_events: list[KeyEvent]
    stored: list[MemoryBrief]
    merged: list[Merge]
    changes: list[Change]
    ontology_added: list[str]
    denied: int
    complete: bool
    discarded: int
    trace: Annotated[list[TraceEntry], trace_reducer]


def session_reset() -> dict[str, Any]:
    """The state update that closes the open session: messages, session id and STM summary cleared."""
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)], "session_id": "", "summary": "", "summary_upto": 0}


@dataclass
class Context:
    """Per-run settings (a form in LangGraph Studio). Unset fields fall back to ``CAIM_*`` settings."""

    user_id: str = "default"
    policy: str = "caim"
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    data_dir: str | None = None
    stm_token_budget: int | None = None
    candidate_cap: int | None = None
    max_kept: int | None = None
    speculative_answer: bool | None = None
