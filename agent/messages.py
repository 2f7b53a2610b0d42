"""Messages as developers have them - LangChain messages, role/content dicts, (role, text) pairs,
chat-loader output - turned into the dated user and assistant turns caim's graphs read.

A user-role message with a ``name`` is another person of the conversation (a friend in an imported
chat), not the user: its words are remembered as that person's, never as the user's. The user's own
messages carry no name.

>>> for m in as_messages([{"role": "user", "content": "I moved to Porto.", "time": "2024-05-07T10:00:00"},
...                        ("assistant", "Welcome to Porto!"),
...                        {"role": "user", "name": "Sam", "content": "Me too!"}]):
...     print(type(m).__name__, m.name, m.text, m.additional_kwargs["caim_time"])
HumanMessage None I moved to Porto. 2024-05-07T10:00:00+00:00
AIMessage None Welcome to Porto! 2024-05-07T10:00:00+00:00
HumanMessage Sam Me too! 2024-05-07T10:00:00+00:00
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from caim.core.errors import InputError
from caim.memory.records import ASSISTANT, USER, check_speaker, stable_id
from caim.memory.stm import TIME_KEY, parse_time

USER_ROLES = {"user", "human"}
ASSISTANT_ROLES = {"assistant", "ai"}
#: Roles that carry no turn of the conversation (instructions, tool results): skipped.
OTHER_ROLES = {"system", "tool", "function", "developer"}
TIME_FIELDS = ("time", "at", "timestamp", "created_at")


def _time_of(message: BaseMessage) -> Any:
    """The time a LangChain message carries: caim's own key, or a chat loader's ``message_time``."""
    kw = message.additional_kwargs or {}
    if kw.get(TIME_KEY):
        return kw[TIME_KEY]
    events = kw.get("events")
    if isinstance(events, list) and events and isinstance(events[0], Mapping):
        return events[0].get("message_time")
    return next((kw[f] for f in TIME_FIELDS if kw.get(f)), None)


class _Parts(NamedTuple):
    role: str
    text: str
    when: Any
    id: str | None
    name: str | None = None


def _participant(role: str, name: object) -> str | None:
    """The participant a user-role message's ``name`` gives (``None``: the user's own message; the
    assistant's messages name no one). A name that is no name is a one-line ``InputError``."""
    if role not in USER_ROLES or name is None or name == "":
        return None
    who = check_speaker(name)
    if who.casefold() in (USER, ASSISTANT):
        raise InputError(f"a participant cannot be called {who!r}: it is a role")
    return who


def _parts(item: Any) -> _Parts:
    """(role, text, time, id, participant) of one item, or a one-line ``InputError``."""
    if isinstance(item, BaseMessage):
        role = "user" if isinstance(item, HumanMessage) else "assistant" if isinstance(item, AIMessage) else "system"
        return _Parts(role, item.text, _time_of(item), item.id, _participant(role, item.name))
    if isinstance(item, Mapping):
        role, content = str(item.get("role", "")).lower(), item.get("content")
        if not isinstance(content, str):
            raise InputError("each message needs text content ('content': '...')")
        when = next((item[f] for f in TIME_FIELDS if item.get(f)), None)
        rid = str(item["id"]) if item.get("id") else None
        return _Parts(role, content, when, rid, _participant(role, item.get("name")))
    if isinstance(item, tuple | list) and len(item) == 2 and all(isinstance(x, str) for x in item):
        return _Parts(str(item[0]).lower(), str(item[1]), None, None)
    raise InputError(f"a message is a LangChain message, a role/content dict or a (role, text) pair, not {item!r:.60}")


def as_messages(items: Sequence[Any], *, default_time: str | None = None) -> list[BaseMessage]:
    """The user and assistant turns of ``items``, each stamped with its time (its own, else the one
    before it, else ``default_time``, else now), a named participant's turn keeping its ``name``;
    system and tool messages and empty turns are skipped. A role caim does not know, a name that is
    no name or a time that is no ISO time within 1900-2199 is an ``InputError``."""
    out: list[BaseMessage] = []
    last = default_time
    for item in items:
        p = _parts(item)
        if p.role in OTHER_ROLES or not p.text.strip():
            continue
        if p.role not in USER_ROLES | ASSISTANT_ROLES:
            raise InputError(f"unknown message role {p.role[:20]!r}: use user or assistant")
        last = parse_time(p.when or last).isoformat()
        cls = HumanMessage if p.role in USER_ROLES else AIMessage
        out.append(cls(p.text, id=p.id, name=p.name, additional_kwargs={TIME_KEY: last}))
    return out


def _named(m: BaseMessage) -> str:
    """A participant's name as a session key part ("" for the user and the assistant: keys of
    sessions without participants stay as they were)."""
    return f"\x1e{m.name}" if isinstance(m, HumanMessage) and m.name else ""


def session_key(user_id: str, messages: Sequence[BaseMessage]) -> str:
    """A session id that the same messages always get: from their ids when all have one, else from
    their speakers, words and times - so remembering them twice stores nothing twice.

    >>> a = as_messages([("user", "hi"), ("assistant", "hello")], default_time="2024-01-01T00:00:00")
    >>> session_key("ann", a) == session_key("ann", list(a)) != session_key("bob", a)
    True
    """
    if messages and all(m.id for m in messages):
        parts: list[object] = [m.id for m in messages]
    else:
        parts = [f"{m.type}\x1e{m.text}\x1e{m.additional_kwargs.get(TIME_KEY, '')}" + _named(m) for m in messages]
    return "r" + stable_id(user_id, *parts)[:15]
