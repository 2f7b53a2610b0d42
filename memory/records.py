"""The LTM record: an inductive thought with its tags, event time and verbatim source turns."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Literal, NotRequired

from pydantic import BaseModel, Field
from typing_extensions import TypedDict


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_aware(dt: datetime) -> datetime:
    """Treat naive datetimes as UTC so every stored timestamp is comparable."""
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


class MemoryBrief(TypedDict):
    """A record as graph state, traces and prompts carry it: id, thought, tags, event time (ISO),
    and optionally the start of its verbatim source turns."""

    id: str
    thought: str
    tags: list[str]
    event_time: str
    source: NotRequired[str]


class SourceTurn(BaseModel):
    """One verbatim turn a record came from (provenance for detail questions and evaluation)."""

    role: Literal["user", "assistant"]
    text: str
    time: datetime | None = None
    turn_id: str | None = None


class MemoryRecord(BaseModel):
    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    user_id: str
    thought: str
    tags: list[str] = Field(min_length=1, max_length=3)
    event_time: datetime
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    session_id: str = ""
    sources: list[SourceTurn] = Field(default_factory=list)

    def brief(self, source_chars: int = 0) -> MemoryBrief:
        """Compact form for graph state and traces; ``source_chars`` > 0 adds the start of the
        verbatim source turns (details a concise thought leaves out: titles, lists, steps)."""
        out: MemoryBrief = {
            "id": self.id,
            "thought": self.thought,
            "tags": self.tags,
            "event_time": as_aware(self.event_time).isoformat(),
        }
        if source_chars > 0 and self.sources:
            text = " / ".join(f"{s.role}: {s.text}" for s in self.sources)
            out["source"] = text if len(text) <= source_chars else text[:source_chars] + " …"
        return out
