"""Short-term memory helpers: the current session's messages as turns, token estimates, transcripts.

STM itself is the ``messages`` list in graph state, persisted per thread by the checkpointer. Each
message carries its turn time in ``additional_kwargs["caim_time"]`` so post-thinking can date
events exactly, also when a dated conversation from the past is replayed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from caim.core.errors import InputError
from caim.memory.records import as_aware, utcnow

TIME_KEY = "caim_time"


def estimate_tokens(text: str) -> int:
    """Cheap, offline token estimate (about four characters per token)."""
    return len(text) // 4 + 1


def message_time(m: AnyMessage) -> datetime | None:
    """The turn time a message carries (``TIME_KEY``), timezone-aware; ``None`` when it has no valid one."""
    raw = (m.additional_kwargs or {}).get(TIME_KEY)
    try:
        return as_aware(datetime.fromisoformat(raw)) if raw else None
    except ValueError:
        return None


#: Turn times outside these bounds are refused (date arithmetic near year 1 or 9999 overflows).
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)


def parse_time(value: str | datetime | None) -> datetime:
    """A turn's time: a datetime or ISO 8601 text (naive means UTC), now when empty.

    Raises ``InputError`` (one line) for text that is no ISO time or a time outside 1900-2199.

    >>> parse_time("2023-05-08T13:56:00").isoformat()
    '2023-05-08T13:56:00+00:00'
    >>> parse_time("0001-01-01T00:00:00")
    Traceback (most recent call last):
    ...
    caim.core.errors.InputError: turn time 0001-01-01T00:00:00+00:00 is out of range: give a time between 1900 and 2199
    """
    if not value:
        return utcnow()
    if isinstance(value, datetime):
        when = as_aware(value)
    else:
        try:
            when = as_aware(datetime.fromisoformat(str(value)))
        except (ValueError, TypeError):
            shown = str(value)[:40]
            raise InputError(f"turn time {shown!r} is not an ISO 8601 time (e.g. 2024-05-07T18:30:00+02:00)") from None
    if not EARLIEST <= when < LATEST:
        raise InputError(f"turn time {when.isoformat()} is out of range: give a time between 1900 and 2199")
    return when


def clock(value: str | datetime | None) -> datetime:
    """``parse_time``, or now when ``value`` is no usable time (the intake node refuses such a run)."""
    try:
        return parse_time(value)
    except InputError:
        return utcnow()


def check_length(text: str, limit: int) -> str:
    """``text`` if it holds at most ``limit`` characters, else a one-line ``InputError``: an over-long
    message is refused before anything of it is stored."""
    if len(text) > limit:
        raise InputError(f"message of {len(text)} characters; at most {limit} are accepted (CAIM_MAX_MESSAGE_CHARS)")
    return text


@dataclass
class Exchange:
    """One exchange: a person's message and the assistant's reply (if any). The person is the user,
    or - ``speaker`` set - another participant of the conversation (a friend in an imported chat),
    whose words are theirs: ``user`` then holds that participant's message."""

    number: int
    user: str
    assistant: str
    time: datetime | None
    user_id: str | None = None
    speaker: str = ""

    @property
    def by_user(self) -> bool:
        """The person of this exchange is the user (not another participant)."""
        return not self.speaker


def turns(messages: list[AnyMessage]) -> list[Exchange]:
    """The exchanges of a session, in order: each person's message opens one (numbered from 1) - the
    user's, or a named participant's (a ``HumanMessage`` with a ``name``) - and the first assistant
    message after it is its reply; other messages are left out.

    >>> from langchain_core.messages import AIMessage, HumanMessage
    >>> [(t.number, t.speaker, t.assistant) for t in turns([HumanMessage("hi"), AIMessage("hello"),
    ...                                                        HumanMessage("hey", name="Sam")])]
    [(1, '', 'hello'), (2, 'Sam', '')]
    """
    out: list[Exchange] = []
    for m in messages:
        if isinstance(m, HumanMessage):
            out.append(Exchange(len(out) + 1, str(m.content), "", message_time(m), m.id, m.name or ""))
        elif isinstance(m, AIMessage) and out and not out[-1].assistant:
            out[-1].assistant = str(m.content)
    return out


def said_before(exchanges: list[Exchange]) -> list[str]:
    """What was said just before each exchange's person spoke: the reply that closed the exchange
    before it, else that exchange's own message; "" for the first.

    >>> said_before([Exchange(1, "hi", "hello", None), Exchange(2, "hey", "", None, speaker="Sam"),
    ...              Exchange(3, "I moved", "", None)])
    ['', 'hello', 'hey']
    """
    return ["", *(e.assistant or e.user for e in exchanges[:-1])] if exchanges else []


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with a note of how many more were not shown."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" …[{len(text) - limit} more characters not shown]"


def transcript(messages: list[AnyMessage], per_message: int = 600) -> str:
    """The messages as ``User: ...`` lines (the user's), ``<name>: ...`` lines (a named participant's)
    and ``Assistant: ...`` lines (any other), each clipped to ``per_message`` characters."""
    lines = []
    for m in messages:
        who = (m.name or "User") if isinstance(m, HumanMessage) else "Assistant"
        lines.append(f"{who}: {clip(str(m.content), per_message)}")
    return "\n".join(lines)


def session_tokens(messages: list[AnyMessage]) -> int:
    """The estimated tokens of the messages' contents (``estimate_tokens``)."""
    return sum(estimate_tokens(str(m.content)) for m in messages)
