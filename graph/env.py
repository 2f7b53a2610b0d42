"""What a step gets besides the state: services, tuned settings, context, turn time, its trace.

``Env`` is built per node run by the builder. Model calls go through ``structured`` / ``text``,
which record each call in the node's trace under the node's name; ``note`` records a code step
(one of the payloads of ``caim.graph.steps``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from caim.core.settings import Settings
from caim.core.trace import TraceEntry, step
from caim.core.types import Role
from caim.graph.services import Services
from caim.graph.state import ANSWER, Context
from caim.graph.steps import StepData
from caim.ontology import Ontology

T = TypeVar("T", bound=BaseModel)


@dataclass
class Env:
    """What a node runs with: the services, settings, run context and time, and the run's trace."""

    svc: Services
    settings: Settings
    ctx: Context
    now: datetime
    node: str = ""
    trace: list[TraceEntry] = field(default_factory=list)
    writer: Callable[[Any], None] | None = None

    @property
    def user_id(self) -> str:
        """The user of the run."""
        return self.ctx.user_id

    @property
    def ontology(self) -> Ontology:
        """The ontology the run's user sees: the shared one with the terms learned from their words."""
        return self.svc.ontology.of(self.ctx.user_id)

    def note(self, data: StepData) -> None:
        """Record a code step of this node in the trace (``data``: its payload, ``caim.graph.steps``)."""
        self.trace.append(step(self.node, data))

    def on_code(self, role: Role) -> bool:
        """Whether code serves ``role`` instead of the model (``caim.core.model_roles``)."""
        return role in self.svc.llm.code_roles

    def structured(self, role: Role, schema: type[T], messages: list[BaseMessage]) -> T | None:
        """A validated structured answer, or ``None`` (malformed after retries; the caller falls back)."""
        return self.svc.llm.structured(role, schema, messages, trace=self.trace, node=self.node)

    def text(self, role: Role, messages: list[BaseMessage], fallback: str | None = None) -> str:
        """The model's text answer for ``role``, traced under this node (``fallback`` when it fails, if given)."""
        return self.svc.llm.text(role, messages, trace=self.trace, node=self.node, fallback=fallback)

    def emit(self, piece: str) -> None:
        """Send a piece of the answer to callers streaming the run (``stream_mode="custom"``)."""
        if self.writer is not None and piece:
            self.writer({ANSWER: piece})

    def answer(self, messages: list[BaseMessage], draft: str | None = None) -> str:
        """The reply in free text, streamed to callers piece by piece as the model produces it.

        ``draft``: the id of an answer drafted earlier in the run (``start_draft``). It is used when its
        prompt is exactly ``messages`` - the reply is then the one a fresh call would be asked for,
        only started sooner; otherwise it is cancelled (recorded as discarded) and the call made."""
        pending = self.svc.drafts.pop(draft)
        if pending is not None:
            if pending.messages == messages:
                text = pending.take(self.emit, trace=self.trace, node=self.node)
                if text is not None:
                    return text
            else:
                pending.cancel(trace=self.trace, node=self.node)
        return self.svc.llm.stream_text("respond", messages, trace=self.trace, node=self.node, on_piece=self.emit)

    def start_draft(self, messages: list[BaseMessage]) -> str:
        """Start the answer to ``messages`` in the background; the id to hand to ``answer``."""
        return self.svc.drafts.put(self.svc.llm.draft("respond", messages))
