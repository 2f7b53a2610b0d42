"""Every answering system of ``caim eval locomo|gvd`` by name: full context, the memory policies and
the peers (mem0, LangMem)."""

from __future__ import annotations

from caim.core.errors import ConfigError
from caim.core.settings import Settings
from caim.eval.peer_systems import peer_system
from caim.eval.peers import PEERS
from caim.eval.systems import (
    DEFAULT_CONTEXT_TOKENS,
    FULL_CONTEXT,
    CaimSystem,
    FullContextSystem,
    ModelsArg,
    System,
)
from caim.graph.policies import POLICIES


def system_names() -> list[str]:
    """Every system name ``make_system`` accepts: ``full-context``, each registered policy and the
    peers (``mem0``, ``langmem``)."""
    return [FULL_CONTEXT, *POLICIES, *PEERS]


def make_system(
    name: str, settings: Settings, models: ModelsArg = None, *, context_tokens: int = DEFAULT_CONTEXT_TOKENS
) -> System:
    """A fresh system by name (``full-context``, a registered memory policy or a peer).

    Raises:
        ConfigError: ``name`` is unknown, or it is a peer whose package cannot be imported.
    """
    if name == FULL_CONTEXT:
        return FullContextSystem(settings, models, context_tokens)
    if name in PEERS:
        return peer_system(name, settings, models)
    if name not in POLICIES:
        raise ConfigError(f"unknown system {name!r}; choose from: {', '.join(system_names())}")
    return CaimSystem(name, settings, models)
