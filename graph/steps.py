"""What the graph's nodes record in the trace: one ``TypedDict`` per kind of code step.

A node records a step with ``Env.note(SomeStep(...))``; the step's payload lands, JSON-ready, under
the trace entry's ``data`` (``caim.core.trace.Step``). ``caim.core.trace.steps(trace, node, kind)``
reads the payloads of one kind back, typed: a payload is of a kind when it holds every key the kind
requires and no key the kind does not declare, so the kinds one node records must differ in keys.
Optional keys are declared in ``total=False`` classes (the key sets must be known at run time).
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

from caim.core.trace import CodeRoleStep
from caim.core.types import Route
from caim.graph.state import EarlyFilter, Plan
from caim.memory.maintenance import Change
from caim.memory.merge import Merge
from caim.memory.text import MemorySignals
from caim.memory.text.timeref import TimeSpan

#: What a run is for (the intake node's ``action``).
Action = Literal["turn", "empty", "end_session", "refused"]


# ---- signals ----------------------------------------------------------------------------------------------
class MessageSignals(TypedDict):
    """The controller's code signals for a message (``MemorySignals``) and whether it opens the session."""

    question: bool
    past_reference: bool
    time_reference: bool
    self_question: bool
    first_turn: bool


class RouteSignals(TypedDict, total=False):
    """The signals the route is settled on: the controller's, and the search's - a closely similar
    stored memory (with the best similarity) and, for a question, a name the memory knows."""

    question: bool
    past_reference: bool
    time_reference: bool
    self_question: bool
    first_turn: bool
    similar_memory: bool
    best_similarity: float
    named_in_memory: bool
    about_user: bool
    intent: str
    intent_by_meaning: str


def message_signals(signals: MemorySignals, first_turn: bool) -> MessageSignals:
    """The controller's signals of a message: ``signals`` and whether it is the session's first."""
    return MessageSignals(
        question=signals.question,
        past_reference=signals.past_reference,
        time_reference=signals.time_reference,
        self_question=signals.self_question,
        first_turn=first_turn,
    )


# ---- intake -----------------------------------------------------------------------------------------------
class _Intake(TypedDict):
    action: Action


class IntakeStep(_Intake, total=False):
    """What a run is for, with what intake saw: why it was refused, how many messages an ending
    session has, or the turn's length and time."""

    why: str
    messages: int
    chars: int
    turn_time: str


class ClosedStep(TypedDict):
    """The session post-thinking closed."""

    closed: str


# ---- recall -----------------------------------------------------------------------------------------------
class ControllerStep(TypedDict):
    """The controller's signals, its shortlist of ontology tags and the policy's plan (None: code routes)."""

    signals: MessageSignals
    shortlist: list[str]
    plan: Plan | None


class SearchStep(TypedDict):
    """What the ranked search looked for (tags, time ranges) and found (each id with its scores)."""

    tags: list[str]
    ranges: list[TimeSpan]
    found: list[dict[str, str | float]]


class EarlyFilterStep(TypedDict):
    """The relevance filter's decision beside the plan, and whether the answer was drafted."""

    early_filter: EarlyFilter
    drafted: bool


class EarlyAnswerStep(TypedDict):
    """The answer started before the plan was in (the code signals left no doubt): its route and
    the memories it showed."""

    early_answer: Route
    memory_ids: list[str]


class _Route(TypedDict):
    route: Route
    signals: RouteSignals


class RouteStep(_Route, total=False):
    """The route settled and the signals behind it; with long-term memory, what was looked for and
    the candidates' ids."""

    tags: list[str]
    ranges: list[TimeSpan]
    candidate_ids: list[str]


class SummaryReusedStep(TypedDict):
    """The STM window reuses the stored summary (it covers the turns up to ``summary_upto``)."""

    stm: Literal["summary reused"]
    summary_upto: int


class FilterStep(TypedDict):
    """The memories kept, whether a model picked them, and whether beside the plan."""

    kept_ids: list[str]
    model: bool
    beside_plan: bool


class PromptStep(TypedDict):
    """The length of the memory block given to any model's prompt."""

    prompt_chars: int


# ---- respond ----------------------------------------------------------------------------------------------
class AnswerStep(TypedDict):
    """What the answer was given: the route, the number of memories and of history messages."""

    route: Route
    memories: int
    history_messages: int


class AnswerCheck(TypedDict):
    """The answer check's finding: what the reply made up, whether a "when" question went undated,
    and the memory quoted after the reply."""

    unsupported: list[str]
    undated: bool
    quoted: str


class AnswerCheckStep(TypedDict):
    """The answer check quoted a memory after the reply."""

    answer_check: AnswerCheck


# ---- post-thinking ----------------------------------------------------------------------------------------
class InventedEvent(TypedDict):
    """A key event refused for naming what its turn does not hold."""

    event: str
    invented: list[str]


class InventedThought(TypedDict):
    """A sentence refused for naming what its source does not hold."""

    thought: str
    invented: list[str]


class _KeyEvents(TypedDict):
    events: int
    ok: bool


class KeyEventsStep(_KeyEvents, total=False):
    """The key events listed and whether extraction succeeded; why none were (``reason``), or what
    was refused (``ungrounded``, ``invented``), captured verbatim, and how many raw records are refined."""

    reason: str
    ungrounded: list[str]
    invented: list[InventedEvent]
    captured: int
    refining: int


class OntologyStep(TypedDict):
    """Ontology terms the model proposed: those added and those refused (with why)."""

    ontology_added: list[str]
    ontology_refused: list[str]


class ThoughtsStep(TypedDict):
    """The records stored (how many raw), the raw records they refined, the sentences refused, the
    events withheld by the privacy bounds (``denied``) and how many sentences the model wrote."""

    stored_ids: list[str]
    raw: int
    refined: list[str]
    invented: list[InventedThought]
    denied: int
    thoughts_from_model: int


class MaintainStep(TypedDict):
    """The merges and other changes maintenance applied to stored memory."""

    merged: list[Merge]
    changes: list[Change]


class GoalStep(TypedDict):
    """A task request's intent and its slots: known from memory, stated by the request, missing."""

    intent: str
    known: list[str]
    stated: list[str]
    missing: list[str]


class IntentsStep(TypedDict):
    """The intent units post-thinking stored (their intents)."""

    units: list[str]


class ProfileStep(TypedDict):
    """The profile's update: the aspects whose background was rewritten (and by whom), the principles."""

    aspects: list[str]
    aspects_by_model: list[str]
    principles: int
    principles_by_model: int


#: Every kind of code step a graph node records.
StepData = (
    CodeRoleStep
    | IntakeStep
    | ClosedStep
    | ControllerStep
    | SearchStep
    | EarlyFilterStep
    | EarlyAnswerStep
    | RouteStep
    | SummaryReusedStep
    | FilterStep
    | PromptStep
    | AnswerStep
    | AnswerCheckStep
    | KeyEventsStep
    | OntologyStep
    | ThoughtsStep
    | MaintainStep
    | ProfileStep
    | GoalStep
    | IntentsStep
)
