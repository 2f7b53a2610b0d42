"""Graph state and runtime context.

``State`` is what one thread (one user's conversation) keeps in the checkpoint: the current
session's messages (STM), the STM summary, and what the last turn did (route, tags, time ranges,
candidates, kept memories) with its ``trace``. ``Context`` is the per-run configuration that
LangGraph Studio shows as a form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

Route = Literal["none", "stm", "ltm", "ltm+stm"]

RESET = {"reset": True}


def trace_reducer(old: list[dict] | None, new: list[dict] | None) -> list[dict]:
    """Append trace entries; a leading ``RESET`` marker starts a fresh trace for a new turn."""
    new = list(new or [])
    if new and new[0] == RESET:
        return new[1:]
    return list(old or []) + new


class InputState(TypedDict, total=False):
    """What a caller sends: a user message (with optional turn time), or ``end_session``."""

    messages: Annotated[list[AnyMessage], add_messages]
    turn_time: str
    end_session: bool


class State(InputState, total=False):
    session_id: str
    session_started: str
    last_turn_at: str
    summary: str
    summary_upto: int
    route: Route
    stm_mode: Literal["full", "summary"]
    decisions: dict[str, Any]
    tags: list[str]
    time_ranges: list[dict]
    candidates: list[dict]
    memories: list[dict]
    notice: str
    key_events: list[dict]
    stored: list[dict]
    merged: list[dict]
    ontology_added: list[str]
    trace: Annotated[list[dict], trace_reducer]


class OutputState(TypedDict, total=False):
    messages: list[AnyMessage]
    route: Route
    memories: list[dict]
    notice: str
    stored: list[dict]
    merged: list[dict]
    trace: list[dict]


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
