"""The trace: what one graph run did, step by step, as plain JSON-ready entries.

Two kinds of entry: an ``LLMCall`` (role, tokens, milliseconds, attempts, whether a fallback was
used) and a ``Step`` (a code step's record, its details under ``data``). A step's ``data`` is one of
the ``TypedDict`` payloads its recorder declares (``CodeRoleStep`` here, the graph nodes' in
``caim.graph.steps``); ``steps(trace, node, kind)`` reads the payloads of one kind back, typed.
``usage`` sums the LLM calls of a trace; the CLI, the evaluation harness and the benchmarks all
count with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NotRequired, TypedDict, TypeVar, overload

from caim.core.types import Role


class LLMCall(TypedDict):
    """One model call of a node: its role, milliseconds, tokens and attempts; ``fallback`` when the
    code fallback answered instead, ``first_ms`` when the first token of a streamed answer came."""

    node: str
    kind: Literal["llm"]
    role: Role
    started: NotRequired[float]  # wall-clock start (epoch seconds): what ran in parallel
    ms: float
    input_tokens: int
    output_tokens: int
    attempts: int
    fallback: NotRequired[bool]
    error: NotRequired[str]
    first_ms: NotRequired[float]
    draft: NotRequired[bool]  # a speculative answer (started before the decisions were in)
    discarded: NotRequired[bool]  # ... that was not used (its prompt was not the one decided)


class Step(TypedDict):
    """One code step of a node, its details (a JSON-ready payload) under ``data``."""

    node: str
    kind: Literal["step"]
    data: Mapping[str, Any]


class CodeRoleStep(TypedDict):
    """A judged role that code served instead of the model (``caim.core.model_roles``): no call made."""

    role: Role
    use: Literal["code"]


#: A step payload: a ``TypedDict`` whose keys are known at run time (``__required_keys__`` and
#: ``__optional_keys__``).
D = TypeVar("D", bound=Mapping[str, Any])


TraceEntry = LLMCall | Step


class Usage(TypedDict):
    """What ``usage`` counts over a trace's LLM calls."""

    llm_calls: int
    input_tokens: int
    output_tokens: int
    llm_ms: float
    fallbacks: int
    calls_by_role: dict[str, int]


def step(node: str, data: Mapping[str, Any]) -> Step:
    """A step entry for ``node`` with ``data`` (a step payload) as its details."""
    return {"node": node, "kind": "step", "data": data}


def llm_calls(trace: Iterable[Mapping[str, Any]], role: str | None = None) -> list[Mapping[str, Any]]:
    """The LLM-call entries of a trace (of one role if given)."""
    return [e for e in trace if e.get("kind") == "llm" and (role is None or e.get("role") == role)]


def _is_kind(data: Mapping[str, Any], kind: type) -> bool:
    """Whether ``data`` holds every key ``kind`` requires and no key it does not declare."""
    required: frozenset[str] = getattr(kind, "__required_keys__", frozenset())
    optional: frozenset[str] = getattr(kind, "__optional_keys__", frozenset())
    return required <= data.keys() <= required | optional


@overload
def steps(trace: Iterable[Mapping[str, Any]], node: str) -> list[dict[str, Any]]: ...
@overload
def steps(trace: Iterable[Mapping[str, Any]], node: str, kind: type[D]) -> list[D]: ...
def steps(trace: Iterable[Mapping[str, Any]], node: str, kind: type | None = None) -> list[Any]:
    """The ``data`` of the step entries a node recorded, in order (copies).

    Args:
        trace: A run's trace.
        node: The node that recorded the steps.
        kind: A step payload type (``CodeRoleStep``, ``caim.graph.steps.RouteStep``, ...): only the
            payloads of that kind - with every key it requires and none it does not declare - typed
            as it. ``None``: every payload of the node, as plain dicts.

    Returns:
        The payloads, in the order they were recorded.

    >>> trace = [step("retrieve", {"stm": "summary reused", "summary_upto": 4}),
    ...          step("retrieve", {"role": "plan", "use": "code"})]
    >>> steps(trace, "retrieve", CodeRoleStep)
    [{'role': 'plan', 'use': 'code'}]
    """
    data = [dict(e.get("data") or {}) for e in trace if e.get("kind") == "step" and e.get("node") == node]
    return data if kind is None else [d for d in data if _is_kind(d, kind)]


def usage(trace: Iterable[Mapping[str, Any]]) -> Usage:
    """Counts over a trace's LLM calls: calls, tokens, milliseconds, fallbacks, calls per role."""
    calls = llm_calls(trace)
    by_role: dict[str, int] = {}
    for e in calls:
        by_role[str(e.get("role", "?"))] = by_role.get(str(e.get("role", "?")), 0) + 1
    return {
        "llm_calls": len(calls),
        "input_tokens": sum(int(e.get("input_tokens", 0)) for e in calls),
        "output_tokens": sum(int(e.get("output_tokens", 0)) for e in calls),
        "llm_ms": round(sum(float(e.get("ms", 0.0)) for e in calls), 1),
        "fallbacks": sum(1 for e in calls if e.get("fallback")),
        "calls_by_role": by_role,
    }


def add_usage(total: dict[str, Any], trace: Iterable[Mapping[str, Any]]) -> None:
    """Add a trace's counts to a running total (calls, tokens, fallbacks, milliseconds)."""
    u = usage(trace)
    for k in ("llm_calls", "input_tokens", "output_tokens", "fallbacks"):
        total[k] = total.get(k, 0) + u[k]
    total["llm_ms"] = round(total.get("llm_ms", 0.0) + u["llm_ms"], 1)
