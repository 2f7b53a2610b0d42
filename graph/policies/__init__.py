"""Memory policy registry: a policy is chosen by name in the run context.

Adding a policy = one module with a ``MemoryPolicy`` subclass (usually of ``CaimPolicy``, overriding
the steps it changes) + one line in ``POLICIES`` (or a call to ``register_policy`` from your code).
"""

from __future__ import annotations

from caim.core.errors import ConfigError
from caim.graph.policies.always import AlwaysPolicy
from caim.graph.policies.base import MemoryPolicy
from caim.graph.policies.caim import CaimPolicy
from caim.graph.policies.cascade import CascadePolicy
from caim.graph.policies.dense import DensePolicy
from caim.graph.policies.no_filter import NoFilterPolicy
from caim.graph.policies.none import NoMemoryPolicy
from caim.graph.policies.single_call import SingleCallPolicy

POLICIES: dict[str, MemoryPolicy] = {
    "caim": CaimPolicy(),
    "caim-cascade": CascadePolicy(),
    "always": AlwaysPolicy(),
    "no-filter": NoFilterPolicy(),
    "none": NoMemoryPolicy(),
    "single-call": SingleCallPolicy(),
    "dense": DensePolicy(),
}


def register_policy(policy: MemoryPolicy, name: str | None = None) -> MemoryPolicy:
    """Make ``policy`` available under ``name`` (default: ``policy.name``)."""
    POLICIES[name or policy.name] = policy
    return policy


def get_policy(name: str) -> MemoryPolicy:
    """The registered policy ``name``.

    Raises:
        ConfigError: No policy has that name.
    """
    try:
        return POLICIES[name]
    except KeyError:
        raise ConfigError(f"unknown memory policy {name!r}; choose one of: {', '.join(sorted(POLICIES))}") from None


__all__ = ["POLICIES", "CaimPolicy", "MemoryPolicy", "get_policy", "register_policy"]
