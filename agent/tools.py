"""caim's memory as LangChain tools for a developer's own agent: ``search_memory`` and ``remember``.

``memory_tools(memory)`` (also ``Memory.as_tools()``) returns both. The user is the run's, never the
model's: the tools' argument schemas hold no user field, and each call takes the user from, in this
order, the LangGraph server's authenticated user (``configurable.langgraph_auth_user_id``, custom
auth), the run context's ``user_id`` (caim's ``Context``, a dict or any object with that attribute),
then ``configurable.user_id``. A call without any of these fails with a ``ToolException`` naming
the fix; it is not handed back to the model, which cannot supply a user. Mistakes in the model's own
arguments (an over-long query or text) come back to the model as the tool's answer.

Results are text for a model: one line per memory, its date then its words quoted as data
(``caim.prompts.common.quote``), inside a ``<data>`` block after the data rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from functools import partial
from typing import Any, Protocol

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field

from caim.core.errors import InputError, argument_error
from caim.graph.builder import authenticated_user
from caim.memory.records import MemoryBrief
from caim.memory.text.timeref import long_date
from caim.prompts.common import DATA_RULE, data_block, quote


class MemoryLike(Protocol):
    """What the tools use of ``caim.agent.memory.Memory`` (which imports this module for ``as_tools``)."""

    def context(self, user_id: str, policy: str | None = None) -> Any:
        """The user's memory context for a turn (``Memory.context``)."""

    def search(self, query: str, *, user_id: str, k: int = 10) -> list[MemoryBrief]:
        """The ``k`` best matches for ``query`` (``Memory.search``)."""

    def add(self, text: str, *, user_id: str, at: datetime | str | None = None) -> Any:
        """Store one fact (``Memory.add``)."""


#: Most memories one ``search_memory`` call returns.
MAX_K = 20

NO_USER = (
    "{tool}: no user for this run - run the agent with context={{'user_id': ...}} (a context schema "
    "with user_id) or config={{'configurable': {{'user_id': ...}}}}; the model cannot choose the user"
)

SEARCH_DESCRIPTION = (
    "Search your long-term memory of this user (what they told you in earlier conversations: facts "
    "about them, their plans, preferences, people and events, with the date each was said). Use it "
    "before answering anything that may depend on what the user said before, or when they ask what "
    "you remember. `query`: what you are looking for, in plain words (names, topics, times such as "
    "'last week'). Returns the best matches, one per line, dated, oldest first; an empty result means "
    "nothing about it is stored."
)

REMEMBER_DESCRIPTION = (
    "Store a fact the user stated about themselves or their life (a preference, a plan, a person, an "
    "event) so it is remembered in later conversations. `text`: the fact as the user stated it, one "
    "fact per call, in their words or a faithful short restatement - never your own guesses or "
    "opinions. Stored facts are tagged, dated and merged with what is already known."
)


class SearchArgs(BaseModel):
    """The arguments of ``search_memory``."""

    query: str = Field(description="What to look for in the user's memories, in plain words.")
    k: int = Field(default=5, ge=1, le=MAX_K, description=f"How many memories to return (1 to {MAX_K}).")


class RememberArgs(BaseModel):
    """The arguments of ``remember``."""

    text: str = Field(description="The fact the user stated, as they stated it.")


def run_user(memory: MemoryLike, config: RunnableConfig | None, tool: str) -> str:
    """The user of the run calling ``tool`` (see the module docstring), checked as ``memory`` checks
    user ids, or a ``ToolException``."""
    config = config or {}
    if (user := authenticated_user(config)) is not None:
        return user
    context = _runtime_context()
    found = context.get("user_id") if isinstance(context, Mapping) else getattr(context, "user_id", None)
    if not found:
        found = (config.get("configurable") or {}).get("user_id")
    if not isinstance(found, str) or not found.strip():
        raise ToolException(NO_USER.format(tool=tool))
    try:
        memory.context(found)
    except InputError as exc:
        raise ToolException(f"{tool}: {exc}") from None
    return found


def _runtime_context() -> Any:
    """The LangGraph run context of the current call (None outside a graph run)."""
    from langgraph.runtime import get_runtime

    try:
        runtime = get_runtime()
    except RuntimeError:  # not inside a runnable at all
        return None
    return getattr(runtime, "context", None)


def memory_line(m: MemoryBrief) -> str:
    """``- (7 May 2024) "Lives in Porto."``: the day it was said, its validity end if it has one, its
    words quoted ("you said:" before the assistant's own)."""
    until = f" (until {long_date(datetime.fromisoformat(m['valid_until']))})" if m.get("valid_until") else ""
    who = "you said: " if m.get("speaker") == "assistant" else ""
    return f"- ({long_date(datetime.fromisoformat(m['event_time']))}){until} {who}{quote(m['thought'], 600)}"


def search_text(found: list[MemoryBrief]) -> str:
    """Search results for the model: the data rule, then one dated, quoted line per memory."""
    if not found:
        return "No memories about this user match the query."
    lines = [memory_line(m) for m in sorted(found, key=lambda m: m["event_time"])]
    return f"{DATA_RULE}\nMemories of this user (oldest first):\n{data_block(lines)}"


CHANGES = {
    "update": "Updated (the older fact is kept as past)",
    "extends": "Extended",
    "contradicts": "Contradicts what was stored",
}


def remember_text(summary: Any) -> str:
    """What ``remember`` did (``summary``: its ``SessionSummary``), for the model: each new memory,
    each fact it merged into, each change to stored memory."""
    removed = {rid for merge in summary.merged for rid in merge["removed"]}
    lines = [f"Stored: {quote(m['thought'], 600)}" for m in summary.stored if m["id"] not in removed]
    lines += [f"Already known (merged): {quote(merge['thought'], 600)}" for merge in summary.merged]
    lines += [
        f"{CHANGES[change['change']]}: {quote(change['thought'], 600)}"
        for change in summary.changes
        if change["change"] in CHANGES
    ]
    if summary.denied:
        lines.append("Not stored: the memory's privacy rules withhold this kind of fact.")
    return "\n".join(lines) or "Nothing stored: the text states no fact about the user."


def memory_tools(memory: MemoryLike) -> list[BaseTool]:
    """``search_memory(query, k=5)`` and ``remember(text)`` over ``memory`` (see the module docstring)."""

    def search_memory(query: str, config: RunnableConfig, k: int = 5) -> str:
        user = run_user(memory, config, "search_memory")
        try:
            found = memory.search(query, user_id=user, k=k)
        except InputError as exc:
            return f"search_memory could not run: {exc}"
        return search_text(found)

    def remember(text: str, config: RunnableConfig) -> str:
        user = run_user(memory, config, "remember")
        try:
            summary = memory.add(text, user_id=user)
        except InputError as exc:
            return f"remember could not store this: {exc}"
        return remember_text(summary)

    return [
        StructuredTool.from_function(
            search_memory,
            name="search_memory",
            description=SEARCH_DESCRIPTION,
            args_schema=SearchArgs,
            handle_validation_error=partial(_argument_answer, "search_memory"),
        ),
        StructuredTool.from_function(
            remember,
            name="remember",
            description=REMEMBER_DESCRIPTION,
            args_schema=RememberArgs,
            handle_validation_error=partial(_argument_answer, "remember"),
        ),
    ]


def _argument_answer(tool: str, exc: Any) -> str:
    """The answer to the model for arguments that break ``tool``'s schema: one line, what is allowed."""
    errors = exc.errors() if hasattr(exc, "errors") else []
    return f"{tool}: {argument_error(errors)}" if errors else f"{tool}: invalid arguments"
