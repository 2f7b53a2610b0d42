"""caim: a cognitive long-term memory for LangGraph agents.

``Memory`` is the memory without an answer model (recall, remember, search, add, admin, tools);
``CaimAgent`` is caim's own chat agent built on it; ``Settings`` configures both. Names are
imported on first use, so ``import caim`` (and the CLI) stays fast.

>>> import caim
>>> sorted(caim.__all__)[:3]
['CaimAgent', 'CaimError', 'ConfigError']
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from caim.agent.facade import CaimAgent, Reply, Turn
    from caim.agent.memory import Memory, Recall, SessionSummary
    from caim.core.errors import CaimError, ConfigError, EndpointError, InputError, StorageError
    from caim.core.settings import Settings
    from caim.graph.builder import with_memory

#: Public name -> module that defines it.
_WHERE = {
    "Memory": "caim.agent.memory",
    "Recall": "caim.agent.memory",
    "with_memory": "caim.graph.builder",
    "CaimAgent": "caim.agent.facade",
    "Reply": "caim.agent.facade",
    "SessionSummary": "caim.agent.memory",
    "Turn": "caim.agent.facade",
    "Settings": "caim.core.settings",
    "CaimError": "caim.core.errors",
    "ConfigError": "caim.core.errors",
    "EndpointError": "caim.core.errors",
    "InputError": "caim.core.errors",
    "StorageError": "caim.core.errors",
}

__all__ = [
    "CaimAgent",
    "CaimError",
    "ConfigError",
    "EndpointError",
    "InputError",
    "Memory",
    "Recall",
    "Reply",
    "SessionSummary",
    "Settings",
    "StorageError",
    "Turn",
    "with_memory",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'caim' has no attribute {name!r}")
    value = getattr(import_module(_WHERE[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
