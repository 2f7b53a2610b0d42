"""Turns that already happened (an imported chat log, a replay), added to an open session."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langchain_core.messages import AnyMessage

from caim.memory.stm import message_time


def recorded(
    messages: Sequence[AnyMessage], now: datetime, *, open_session: str = "", session_id: str = ""
) -> dict[str, Any]:
    """The session update that adds turns which already happened to the open session without
    answering them: the messages, the latest of their times as the last turn's, and a session id
    (``session_id``, else the open session's - ``open_session``, "" for none - else a new one, with
    ``now`` as its start)."""
    times = [t for t in (message_time(m) for m in messages) if t is not None]
    update: dict[str, Any] = {"messages": list(messages), "last_turn_at": (max(times) if times else now).isoformat()}
    if session_id or not open_session:
        update["session_id"] = session_id or uuid.uuid4().hex[:12]
        update["session_started"] = now.isoformat()
    return update
