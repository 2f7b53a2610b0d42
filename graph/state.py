"""Graph state, input/output schemas and the runtime context.

``State`` is what one thread (one user's conversation) keeps in the checkpoint: the current
session's messages (STM), the STM summary, and what the last run did (route, tags, time ranges,
candidates, kept memories, or what post-thinking stored) with its ``trace``. ``OutputState`` is
everything a caller gets back from a run - the facade and the evaluation harness read outputs only,
never checkpoint internals. ``Context`` is the per-run configuration LangGraph Studio shows as a form.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired

from langchain_core.messages import AnyMessage, BaseMessage, HumanMessage, RemoveMessage, convert_to_messages
from langgraph.graph.message import REMOVE_ALL_MESSAGES, Messages, add_messages
from typing_extensions import TypedDict

from caim.core.checks import check_user
from caim.core.errors import InputError
from caim.core.settings import Settings
from caim.core.trace import TraceEntry
from caim.core.types import Route
from caim.memory.maintenance import Change
from caim.memory.merge import Merge
from caim.memory.records import MemoryBrief
from caim.memory.stm import check_length
from caim.memory.text.timeref import TimeSpan

#: Key of the custom stream events that carry the answer's text as it is produced
#: (``graph.stream(..., stream_mode="custom")`` yields ``{ANSWER: "<piece>"}``).
ANSWER = "answer"

#: A trace update starting with this marker replaces the trace (a new run starts a fresh one).
RESET: dict[str, bool] = {"reset": True}


#: ``additional_kwargs`` key of a user message that was refused on input (its value says why).
REFUSED = "caim_refused"
#: ``additional_kwargs`` key of a reply: the memories the answer used (id, words clipped, date, speaker).
USED = "caim_used"
#: Longest ``turn_time`` text a checkpoint keeps (an ISO time needs 32 characters).
TIME_CHARS = 64


def message_limit() -> int:
    """The deployment's largest accepted message (``CAIM_MAX_MESSAGE_CHARS``)."""
    raw = os.environ.get("CAIM_MAX_MESSAGE_CHARS", "")
    return int(raw) if raw.isdigit() else int(Settings.model_fields["max_message_chars"].default)


def _refused(m: BaseMessage, limit: int) -> BaseMessage:
    """``m``, or - for a user message over ``limit`` characters - an empty stand-in saying why."""
    if not isinstance(m, HumanMessage):
        return m
    try:
        check_length(m.text, limit)
    except InputError as exc:
        return HumanMessage("", id=m.id, additional_kwargs={REFUSED: str(exc)})
    return m


def bounded_messages(left: Messages, right: Messages) -> Messages:
    """``add_messages`` that never keeps a user message over the deployment's limit in the state: an
    over-long message is replaced by a stand-in that names the refusal, and the intake node refuses
    the run. (LangGraph records a run's raw input before any reducer runs, so the facade, the HTTP
    surfaces and the server's auth handler refuse over-long messages before the graph sees them.)"""
    limit = message_limit()
    items = right if isinstance(right, list) else [right]
    incoming: list[Any] = [_refused(m, limit) for m in convert_to_messages(items)]
    return add_messages(left, incoming)


def bounded_time(old: str | None, new: str | None) -> str:
    """The run's ``turn_time`` as sent, cut to ``TIME_CHARS`` (the intake node validates it)."""
    return (new or "")[:TIME_CHARS]


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
    its reply, or the refinement of one), a participant's name for theirs; absent for the user's.
    ``categories``, ``found`` and ``liking``: what the reader (``caim.memory.reading``) took from a
    person's words - their top-level categories (likeliest first; empty when unsure), the ontology
    terms their words name, a lasting like or dislike."""

    turn: int
    event: str
    time: str
    origin: NotRequired[Literal["model", "capture", "refine"]]
    record: NotRequired[str]
    speaker: NotRequired[str]
    categories: NotRequired[list[str]]
    found: NotRequired[list[str]]
    liking: NotRequired[Literal["like", "dislike"]]


class Plan(TypedDict):
    """The memory controller's plan for a turn: route and the decisions behind it, and what to look
    for. ``model``: whether a model gave it (False: code signals alone, or the model failed)."""

    route: Route
    decisions: dict[str, Any]
    tags: list[str]
    time_expressions: list[str]
    model: bool
    intent: NotRequired[str]


class EarlyFilter(TypedDict):
    """The relevance filter's decision when it ran beside the plan: the candidate ids it saw and the
    ids it kept (``None``: the model failed - the code fallback applies)."""

    seen: list[str]
    kept: list[str] | None


class AnswerDraftRef(TypedDict):
    """An answer drafted beside the decisions: its id in the process's draft book and the ids of the
    memories its prompt shows (the best-ranked candidates, up to ``max_kept``)."""

    id: str
    memories: list[str]


class EarlyAnswer(TypedDict):
    """An answer started before the plan was in, where the code signals left no doubt (``search``):
    its text, the route it was given, the memories it showed and those it used."""

    text: str
    route: Route
    memories: list[MemoryBrief]
    used: list[MemoryBrief]


class RecallInput(TypedDict, total=False):
    """What the recall subgraph reads: the conversation, its last message the user's turn (and the
    turn's time); ``summary``/``summary_upto`` when an STM summary exists."""

    messages: Annotated[list[AnyMessage], bounded_messages]
    turn_time: Annotated[str, bounded_time]
    summary: str
    summary_upto: int


class KnownSlot(TypedDict):
    """A slot of a task request that memory fills: the value, the memory it came from, its date (ISO)."""

    value: str
    memory: str
    date: str


class RecallOutput(TypedDict, total=False):
    """What recall gives the responder: the route with its ``decisions`` and code ``signals``, what it
    looked for (``tags``, ``time_ranges``), the ranked ``candidates``, the kept ``memories`` and
    ``memory_prompt`` - a block quoting them as data, ready for any model's prompt ("" when the
    route uses no long-term memory). ``stm_mode``/``summary``/``summary_upto``: the STM window of
    caim's own answer; ``found``/``draft``: the ranked records and the answer drafted beside them;
    ``answered``: caim's own answer, when it started before the plan (``EarlyAnswer``)."""

    route: Route
    decisions: dict[str, Any]
    signals: dict[str, Any]
    tags: list[str]
    time_ranges: list[TimeSpan]
    candidates: list[MemoryBrief]
    memories: list[MemoryBrief]
    memory_prompt: str
    intent: str
    known: dict[str, KnownSlot]
    missing: list[str]
    stm_mode: Literal["full", "summary"]
    summary: str
    summary_upto: int
    found: list[MemoryBrief]
    draft: AnswerDraftRef | None
    answered: EarlyAnswer | None
    trace: Annotated[list[TraceEntry], trace_reducer]


class RecallState(RecallInput, RecallOutput, total=False):
    """The recall subgraph's working state (controller, search, retrieve, filter, prompt block)."""

    plan: Plan | None
    found_signals: dict[str, Any]
    early: EarlyFilter | None
    shortlist: list[str]


class PostThinkingInput(TypedDict, total=False):
    """What the post-thinking subgraph reads: the session's ``messages`` (dated user and assistant
    turns), its ``session_id`` (record ids derive from it), the time it ended (``turn_time``) and
    ``explicit`` - every user turn is a fact to keep (``Memory.add``)."""

    messages: Annotated[list[AnyMessage], bounded_messages]
    session_id: str
    turn_time: Annotated[str, bounded_time]
    explicit: bool


class PostThinkingOutput(TypedDict, total=False):
    """What post-thinking did: key events, stored records, merges and other changes to stored memory,
    ontology terms added, events withheld by the privacy bounds (``denied``), and whether extraction
    succeeded for every chunk (``complete``; fact-stating turns are captured verbatim either way)."""

    key_events: list[KeyEvent]
    stored: list[MemoryBrief]
    merged: list[Merge]
    changes: list[Change]
    ontology_added: list[str]
    denied: int
    complete: bool
    trace: Annotated[list[TraceEntry], trace_reducer]


class PostThinkingState(PostThinkingInput, PostThinkingOutput, total=False):
    """The post-thinking subgraph's working state."""


class InputState(TypedDict, total=False):
    """What a caller of the chat graph sends: a user message (optionally with its time), or
    ``end_session`` (post-thinking of the open session, which then closes). Adding turns that
    already happened and dropping a session are operations of the facade (``CaimAgent``)."""

    messages: Annotated[list[AnyMessage], bounded_messages]
    turn_time: Annotated[str, bounded_time]
    end_session: bool


class OutputState(RecallOutput, PostThinkingOutput, total=False):
    """What a chat-graph run returns. A turn: the reply (last message), the memories it used
    (``used``) and what recall gave it (``RecallOutput``); ``end_session``: what post-thinking did
    (``PostThinkingOutput``)."""

    messages: list[AnyMessage]
    used: list[MemoryBrief]
    notice: str


class State(InputState, RecallState, PostThinkingState, total=False):
    """The chat graph's thread state: the open session (STM), its summary, and what the last run did."""

    action: Literal["turn", "empty", "end_session", "refused"]
    used: list[MemoryBrief]
    session_started: str
    last_turn_at: str
    notice: str


def session_reset() -> dict[str, Any]:
    """The state update that closes the open session: messages, session id and STM summary cleared."""
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)], "session_id": "", "summary": "", "summary_upto": 0}


@dataclass
class Context:
    """What a client may choose per run (a form in LangGraph Studio): who (``user_id``; behind an
    authenticating server the token's user replaces it), the memory ``policy`` and the per-run
    budgets. ``None`` means the deployment's ``CAIM_*`` setting. Provider, model, endpoint, keys,
    data dir and namespace are the deployment's alone: a context naming one of them, or any other
    key, or holding a value out of ``CONTEXT_BOUNDS``, is refused with a one-line ``InputError``
    (logged on ``caim.server``) when LangGraph builds it from the client's dict, before the run
    starts. Whether ``policy`` names a registered policy is checked when the run starts."""

    user_id: str = "default"
    policy: str | None = None
    stm_token_budget: int | None = None
    candidate_cap: int | None = None
    max_kept: int | None = None
    speculative_answer: bool | None = None

    def __new__(cls, *args: Any, **kwargs: Any) -> Context:
        """Refuse a key that is no field of the context, naming it (LangGraph builds ``Context(**context)``)."""
        # LangGraph turns a context dict into ``Context(**context)``: refuse foreign keys here, with
        # their name, instead of the constructor's TypeError.
        for key in kwargs:
            if key not in cls.__dataclass_fields__:
                raise context_refused(_foreign_context_key(key, list(cls.__dataclass_fields__)))
        return super().__new__(cls)

    def __post_init__(self) -> None:
        try:
            check_user(self.user_id)  # the one check of a user id, as every surface makes it
        except InputError as e:
            raise context_refused(f"context user_id: {e}") from None
        if self.policy is not None and (not isinstance(self.policy, str) or not 0 < len(self.policy) <= 64):
            raise context_refused("context policy must be the name of a memory policy")
        for name, (low, high) in CONTEXT_BOUNDS.items():
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high
            ):
                raise context_refused(f"context {name} must be a whole number from {low} to {high}, not {value!r:.40}")
        if self.speculative_answer is not None and not isinstance(self.speculative_answer, bool):
            raise context_refused(
                f"context speculative_answer must be true or false, not {self.speculative_answer!r:.40}"
            )


#: Inclusive bounds of the context's numeric fields.
CONTEXT_BOUNDS: dict[str, tuple[int, int]] = {
    "stm_token_budget": (1, 100_000),
    "candidate_cap": (1, 100),
    "max_kept": (1, 100),
}


def _foreign_context_key(key: str, allowed: list[str]) -> str:
    """Why a context key no run may set is refused: a deployment setting, or unknown."""
    from caim.core.settings import Settings

    if key in Settings.model_fields:
        return (
            f"context key {key!r} is set by the deployment (CAIM_{key.upper()} environment), not by a run; "
            f"a run may set only {', '.join(allowed)}"
        )
    return (
        f"unknown context key {key!r:.80}: a run may set only {', '.join(allowed)} "
        "(everything else is set by the deployment, CAIM_* environment)"
    )


def context_refused(reason: str) -> Exception:
    """A refused run context: logged on ``caim.server``, returned as a one-line ``InputError``."""
    import logging

    from caim.core.errors import InputError

    line = " ".join(reason.split())
    logging.getLogger("caim.server").warning("refused run context: %s", line)
    return InputError(line)
