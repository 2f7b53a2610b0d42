"""Chat histories people already have, read for ``caim memories import-chat``: the chat apps' exports
(WhatsApp, Telegram, Slack, iMessage, through langchain-community's chat loaders) and the assistants'
data exports (``caim.memory.chat_exports``), each read as chats of dated messages (``read_chats``)
and cut into sessions of messages ``caim.Memory.remember_sessions`` takes (``chat_sessions``): the
user's words as the user's, every other sender's as theirs, an assistant's as the assistant's.

Only the standard library is imported on import (the loaders when a format is read), so the CLI
starts fast.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from caim.core.errors import CaimError, InputError
from caim.memory.chat_exports import ASSISTANT_FORMATS, Said

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["ASSISTANT_FORMATS", "CHAT_FORMATS", "Said", "chat_sessions", "cut", "mine", "read_chats", "voice"]


#: Chat exports ``memories import-chat`` reads (the chat apps' through langchain-community's chat
#: loaders, the assistants' through ``caim.memory.chat_exports``), and what each takes. Facebook
#: Messenger is not among them: its loader drops the messages' times.
CHAT_FORMATS = {
    "whatsapp": "a chat's .txt export (iOS or Android lines), its .zip, or a folder of .txt exports",
    "telegram": "Telegram Desktop's 'Machine-readable JSON' export: result.json, its folder or a .zip",
    "slack": "a Slack workspace export .zip (senders are user ids, U...)",
    "imessage": "a copy of macOS's ~/Library/Messages/chat.db (your messages are those sent from it; no --me)",
    **ASSISTANT_FORMATS,  # caim.memory.chat_exports: each conversation one session; no --me
}
#: A WhatsApp line's time as the loader reads it: ``[31/12/2023, 22:15:03]`` or ``[1/2/24, 9:05:00 PM]``.
_WA_TIME = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{2,4}), (\d{1,2}):(\d{2}):(\d{2})(?: ([AP]M))?", re.IGNORECASE)
#: An Android WhatsApp line's start (``31/12/2023, 22:15 - ``), rewritten to the iOS form the loader reads.
_WA_ANDROID = re.compile(
    r"^\u200e?(\d{1,2}/\d{1,2}/\d{2,4}), (\d{1,2}:\d{2})( [AP]M)? - ", re.MULTILINE | re.IGNORECASE
)
#: The start of a WhatsApp line that begins a message or a notice, as the loader reads lines (iOS form).
_WA_LINE = re.compile(r"\u200e*\[?\d{1,2}/\d{1,2}/\d{2,4}, \d{1,2}:\d{2}:\d{2}(?: [AP]M)?\]?[ \u200e]*", re.IGNORECASE)
_APPLE_EPOCH = datetime(2001, 1, 1, tzinfo=UTC)


def _loader_text(message: BaseMessage) -> str:
    """A loaded message's text; Telegram's formatted text is a list of strings and entities."""
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content).strip()


def _whatsapp_sources(path: Path) -> list[str]:
    """The text of each chat in a WhatsApp export: a .txt file, a .zip or a folder of them."""
    import zipfile

    if path.is_dir():
        return [f.read_text(encoding="utf-8") for f in sorted(path.rglob("*.txt"))]
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return [z.read(n).decode("utf-8") for n in z.namelist() if n.endswith(".txt")]
    return [path.read_text(encoding="utf-8")]


def _whatsapp_lines(text: str, seen: Counter[str]) -> str:
    """A chat's text as the loader reads it (iOS lines), its notices without a sender ("Ana added
    Luis") taken out - the loader would append them to the message before; counts its lines in
    ``seen``: ``lines`` (not blank), ``messages`` (lines that start one), ``continued`` (lines that
    continue the message before them) and ``notices``."""
    # newer exports put a narrow no-break space before AM/PM; Android lines have no seconds
    text = text.replace("\r\n", "\n").replace("\u202f", " ").replace("\u00a0", " ")
    kept = []
    for line in _WA_ANDROID.sub(r"[\1, \2:00\3] ", text).split("\n"):
        start = _WA_LINE.match(line)
        seen["lines"] += bool(line.strip())
        if start is None:
            seen["continued"] += bool(line.strip())
        elif ": " not in line[start.end() :]:
            seen["notices"] += 1
            continue
        else:
            seen["messages"] += 1
        kept.append(line)
    return "\n".join(kept)


def _whatsapp(path: Path, day_first: bool | None, seen: Counter[str]) -> list[list[Said]]:
    """WhatsApp chats, each message dated. Exports write dates day-first or month-first as the
    phone's locale has it: the order is read from the dates (a first number above 12 is a day)
    unless ``day_first`` says it. ``seen`` counts the lines read (``_whatsapp_lines``) and the
    messages the loader leaves out (``omitted``: omitted media, deleted messages, the encryption notice)."""
    import tempfile

    from langchain_community.chat_loaders.whatsapp import WhatsAppChatLoader

    loaded: list[list[tuple[str, str, re.Match[str]]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, text in enumerate(_whatsapp_sources(path)):
            copy = Path(tmp) / f"chat{i}.txt"
            copy.write_text(_whatsapp_lines(text, seen), encoding="utf-8")
            for session in WhatsAppChatLoader(str(copy)).lazy_load():
                chat = []
                for m in session["messages"]:
                    stamp = str(m.additional_kwargs["events"][0]["message_time"]).strip()
                    found = _WA_TIME.fullmatch(stamp)
                    if found is None:
                        raise InputError(f"{path}: WhatsApp time {stamp!r} not understood")
                    chat.append((str(m.additional_kwargs["sender"]).strip(), _loader_text(m), found))
                loaded.append(chat)
    seen["omitted"] = seen["messages"] - sum(map(len, loaded))
    stamps = [found for chat in loaded for _, _, found in chat]
    if day_first is None and stamps:
        firsts, seconds = max(int(f[1]) for f in stamps), max(int(f[2]) for f in stamps)
        if firsts > 12 and seconds > 12:
            raise InputError(f"{path}: its dates are neither all day/month nor all month/day")
        if firsts <= 12 and seconds <= 12:
            raise InputError(
                f"{path}: dates such as {stamps[0][0]!r} read as day/month and as month/day; "
                "say --day-first or --month-first"
            )
        day_first = firsts > 12

    def when(f: re.Match[str]) -> datetime:
        a, b, year, hour, minute, second, half = f.groups()
        day, month = (int(a), int(b)) if day_first else (int(b), int(a))
        hour_24 = int(hour) % 12 + (12 if half.upper() == "PM" else 0) if half else int(hour)
        y = int(year) + 2000 if len(year) <= 2 else int(year)
        return datetime(y, month, day, hour_24, int(minute), int(second))

    return [[Said(sender, text, when(f)) for sender, text, f in chat] for chat in loaded]


def read_chats(fmt: str, path: Path, day_first: bool | None, seen: Counter[str]) -> list[list[Said]]:
    """The chats of an export, in order, each a list of dated messages; a file that is not such an
    export is a one-line ``InputError``. ``seen``: what the reader counted (``_whatsapp``)."""
    import sqlite3
    import warnings
    import zipfile

    from caim.memory.stm import parse_time

    if fmt not in CHAT_FORMATS:
        raise InputError(f"unknown chat format {fmt!r}: choose one of {', '.join(CHAT_FORMATS)}")
    if not path.exists():
        raise InputError(f"no such file or folder: {path}")
    try:
        if fmt in ASSISTANT_FORMATS:
            from caim.memory.chat_exports import read_assistant_export

            return read_assistant_export(fmt, path, seen)
        with warnings.catch_warnings():  # langchain-community announces its sunset on import
            warnings.simplefilter("ignore", DeprecationWarning)
            import langchain_community.chat_loaders  # noqa: F401
        if fmt == "whatsapp":
            return _whatsapp(path, day_first, seen)
        if fmt == "telegram":
            from langchain_community.chat_loaders.telegram import TelegramChatLoader

            return [
                [
                    Said(str(m.additional_kwargs["sender"]), _loader_text(m), parse_time(events[0]["message_time"]))
                    for m in s["messages"]
                    if (events := m.additional_kwargs.get("events"))
                ]
                for s in TelegramChatLoader(path).lazy_load()
            ]
        if fmt == "slack":
            from langchain_community.chat_loaders.slack import SlackChatLoader

            return [
                [
                    Said(
                        str(m.additional_kwargs["sender"]),
                        _loader_text(m),
                        datetime.fromtimestamp(float(m.additional_kwargs["events"][0]["message_time"]), UTC),
                    )
                    for m in s["messages"]
                ]
                for s in SlackChatLoader(path).lazy_load()
            ]
        from langchain_community.chat_loaders.imessage import IMessageChatLoader

        chats = []
        for s in IMessageChatLoader(path).lazy_load():
            chat = []
            for m in s["messages"]:
                kw = m.additional_kwargs
                stamp = int(kw["message_time"])  # nanoseconds since 2001 (seconds before macOS 10.13)
                since = timedelta(seconds=stamp / 1e9 if abs(stamp) > 10**11 else stamp)
                chat.append(Said(str(kw["sender"]), _loader_text(m), _APPLE_EPOCH + since, bool(kw["is_from_me"])))
            chats.append(chat)
        return chats
    except CaimError:
        raise
    except ImportError as exc:  # an optional package a loader needs (Telegram HTML: beautifulsoup4)
        raise InputError(f"cannot read {path} as a {fmt} export: {exc}".splitlines()[0]) from None
    except (OSError, ValueError, LookupError, TypeError, AttributeError, zipfile.BadZipFile, sqlite3.Error) as exc:
        why = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"cannot read {path} as a {fmt} export: {why}") from None


def senders(chats: list[list[Said]]) -> dict[str, int]:
    """The senders a chat app's export names, each with its messages with text, most first: those the
    export does not mark as the user's or not (``Said.mine`` is None), among whom ``--me`` chooses.

    >>> from datetime import datetime
    >>> t = datetime(2024, 5, 3)
    >>> senders([[Said("Ann", "hi", t), Said("Bob", "hey", t), Said("Ann", "so?", t), Said("Ann", "", t)]])
    {'Ann': 2, 'Bob': 1}
    """
    counts: dict[str, int] = {}
    for chat in chats:
        for said in chat:
            if said.text and said.mine is None:
                counts[said.sender] = counts.get(said.sender, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def mine(said: Said, me: str | None) -> bool:
    """Whether a message is the user's: as the export says, else sent by ``me``."""
    return said.mine if said.mine is not None else said.sender == me


def voice(said: Said, me: str | None) -> tuple[str, str | None]:
    """Whose words a message holds: the user's (``("user", None)``), an AI assistant's in an
    assistant's export (``("assistant", None)``), or a participant's, named after them
    (``("person", name)``, ``caim.memory.records.participant_name``: never the user nor an assistant)."""
    from caim.memory.records import participant_name

    if mine(said, me):
        return "user", None
    if said.assistant:
        return "assistant", None
    return "person", participant_name(said.sender)


def cut(chat: list[Said], me: str | None, gap: timedelta, max_turns: int, max_chars: int) -> list[list[Said]]:
    """A chat's messages with text, cut into sessions: a silence longer than ``gap`` (or ``max_turns``
    turns) starts a new one. Consecutive messages of one voice (``voice``) are one turn while they
    fit in ``max_chars``."""
    sessions: list[list[Said]] = []
    current: list[Said] = []
    turns, chars = 0, 0
    last: tuple[str, str | None] | None = None
    for said in chat:
        if not said.text:
            continue
        if current and (said.when - current[-1].when > gap or turns >= max_turns):
            sessions.append(current)
            current, turns, last = [], 0, None
        spoken = voice(said, me)
        if spoken == last and chars + 1 + len(said.text) <= max_chars:
            chars += 1 + len(said.text)
        else:
            turns, chars = turns + 1, len(said.text)
        current.append(said)
        last = spoken
    return [*sessions, current] if current else sessions


def chat_sessions(
    chats: list[list[Said]], me: str | None, gap: timedelta, max_messages: int, max_chars: int
) -> list[list[BaseMessage]]:
    """The chats cut into sessions (``cut``). A person's message is a ``HumanMessage``: the user's
    without a name, every other sender's named after them (their words are
    theirs, never the user's nor an assistant's); an AI assistant's, in an assistant's export, is an
    ``AIMessage``. Consecutive messages of one voice are one turn, stamped with its first message's
    time. Sessions without a message of the user are left out: they hold no turn of theirs."""
    from langchain_core.messages import AIMessage, HumanMessage

    sessions: list[list[BaseMessage]] = []
    for chat in chats:
        for piece in cut(chat, me, gap, max_messages, max_chars):
            current: list[BaseMessage] = []
            last: tuple[str, str | None] | None = None
            for said in piece:
                role, name = spoken = voice(said, me)
                prev = current[-1] if current else None
                if prev is not None and spoken == last and len(prev.text) + 1 + len(said.text) <= max_chars:
                    prev.content = f"{prev.text}\n{said.text}"
                else:
                    when = said.when if said.when.tzinfo else said.when.replace(tzinfo=UTC)  # caim's reading
                    stamp = {"caim_time": when.isoformat()}
                    text = said.text[:max_chars]
                    current.append(
                        AIMessage(text, additional_kwargs=stamp)
                        if role == "assistant"
                        else HumanMessage(text, name=name, additional_kwargs=stamp)
                    )
                last = spoken
            sessions.append(current)
    return [s for s in sessions if any(isinstance(m, HumanMessage) and m.name is None for m in s)]
