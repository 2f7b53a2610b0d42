"""What a step function gets besides the state: services, tuned settings, context, policy, trace, turn time."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from caim.agent.settings import Settings
from caim.graph.services import Services
from caim.graph.state import Context

if TYPE_CHECKING:
    from caim.graph.policies.base import MemoryPolicy


@dataclass
class Env:
    svc: Services
    settings: Settings
    ctx: Context
    policy: "MemoryPolicy"
    now: datetime
    trace: list[dict] = field(default_factory=list)

    @property
    def user_id(self) -> str:
        return self.ctx.user_id

    def note(self, node: str, **info) -> None:
        """Record a non-LLM step in the trace."""
        self.trace.append({"node": node, "kind": "step", **info})
