"""The data exports of other assistants, read as chats for ``caim memories import-chat``.

``read_assistant_export`` reads ChatGPT's (``conversations.json``, in the export's .zip or alone) and
Claude's (``conversations.json`` of claude.ai's export, .zip or alone): one chat per conversation,
each message a ``Said`` with its time - the user's as the user's (``mine``), the other side's as an
AI assistant's (``assistant``), never as a named person. What a person did not say or read in the
conversation is left out and counted in ``seen``: ChatGPT's branches the conversation left (an edited
question, a regenerated answer: the path to its current message is the conversation), its hidden,
system and tool messages, tool calls, code runs and reasoning (``parts``), ChatGPT's custom
instructions (``instructions``); Claude's thinking, tool use and results (``parts``) and attached
files (``attachments``). A message whose text is all left out (an image alone) stays, without text,
for the caller to count. A file that is not such an export - or the other assistant's - is a
one-line ``InputError`` saying which it looks like.

Only the standard library is imported here, so ``caim --help`` stays fast.
"""

from __future__ import annotations

import json
import zipfile
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from caim.core.errors import InputError

#: The assistants' exports ``read_assistant_export`` reads, and what each takes.
ASSISTANT_FORMATS = {
    "chatgpt": "ChatGPT's data export (Settings > Data controls > Export): its .zip or conversations.json",
    "claude": "Claude's data export (Settings > Privacy > Export data): its .zip or conversations.json",
}
#: The file of the export that holds the conversations.
CONVERSATIONS = "conversations.json"
#: Largest conversations file read (uncompressed): beyond it the export is refused, not half read.
MAX_EXPORT_BYTES = 2 << 30
#: ChatGPT content types that hold what was said in words (other types: code runs, browsing, reasoning).
_CHATGPT_TEXT = ("text", "multimodal_text")


class Said(NamedTuple):
    """One message of a chat export: who sent it, its text, when, whether it is the user's own
    (``None``: decided by ``--me``) and whether the sender is an AI assistant (an assistant's export)."""

    sender: str
    text: str
    when: datetime
    mine: bool | None = None
    assistant: bool = False


def _conversations_file(path: Path) -> tuple[str, bytes]:
    """The name and bytes of the export's ``conversations.json``: the file itself, the one in a folder,
    or the one in a .zip (at any depth)."""
    if path.is_dir():
        found = sorted(path.rglob(CONVERSATIONS))
        if not found:
            raise InputError(f"no {CONVERSATIONS} in the folder {path}")
        path = found[0]
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            members = [m for m in z.infolist() if Path(m.filename).name == CONVERSATIONS]
            if not members:
                raise InputError(f"no {CONVERSATIONS} in {path}: is it the .zip of an assistant's data export?")
            member = min(members, key=lambda m: m.filename.count("/"))
            if member.file_size > MAX_EXPORT_BYTES:
                raise InputError(f"{member.filename} in {path} is over {MAX_EXPORT_BYTES} bytes")
            return f"{path}:{member.filename}", z.read(member)
    if path.stat().st_size > MAX_EXPORT_BYTES:
        raise InputError(f"{path} is over {MAX_EXPORT_BYTES} bytes")
    return str(path), path.read_bytes()


def _load(path: Path) -> tuple[str, list[Any]]:
    """The export's conversations (a JSON list; an object's ``conversations`` list too)."""
    name, raw = _conversations_file(path)
    try:
        data = json.loads(raw)
    except ValueError as exc:  # UnicodeDecodeError is one
        raise InputError(f"{name} is not JSON ({' '.join(str(exc).split())[:120]})") from None
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        data = data["conversations"]
    if not isinstance(data, list):
        raise InputError(f"{name} is not a list of conversations")
    return name, data


def _looks_like(conversations: list[Any]) -> str | None:
    """Which assistant's export ``conversations`` look like (``chatgpt``, ``claude``), if either."""
    for c in conversations:
        if isinstance(c, dict) and isinstance(c.get("mapping"), dict):
            return "chatgpt"
        if isinstance(c, dict) and isinstance(c.get("chat_messages"), list):
            return "claude"
    return None


def read_assistant_export(fmt: str, path: Path, seen: Counter[str]) -> list[list[Said]]:
    """The conversations of an assistant's data export (``fmt``: ``chatgpt`` or ``claude``), each a
    chat of dated messages in the order they were said; ``seen`` counts what was left out (see the
    module docstring).

    Raises:
        InputError: One line: the file cannot be read, is not JSON, or is not that assistant's export
            (saying which one it looks like).
    """
    name, conversations = _load(path)
    looks = _looks_like(conversations)
    if looks != fmt:
        other = f"; it looks like {looks} export: use --format {looks}" if looks else ""
        raise InputError(f"{name} is not a {fmt} export: {ASSISTANT_FORMATS[fmt]}{other}")
    read = _chatgpt if fmt == "chatgpt" else _claude
    return [chat for c in conversations if isinstance(c, dict) and (chat := read(c, seen))]


def _epoch(value: Any) -> datetime | None:
    """A ChatGPT time (seconds since 1970), or None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _iso(value: Any) -> datetime | None:
    """A Claude time (ISO 8601, ``Z`` for UTC), or None."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _chatgpt_path(conversation: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The nodes of the conversation as it stands: from its root to its current message (edits and
    regenerations branch the tree; the current node's ancestors are what was kept)."""
    mapping: dict[str, Any] = conversation["mapping"]
    node = mapping.get(str(conversation.get("current_node")))
    if node is None:  # no current node: the newest branch from the root
        roots = [n for n in mapping.values() if isinstance(n, dict) and not n.get("parent")]
        node = roots[0] if roots else None
        while isinstance(node, dict) and node.get("children"):
            node = mapping.get(str(node["children"][-1]))
        if not isinstance(node, dict):
            return iter(())
    path: list[dict[str, Any]] = []
    while isinstance(node, dict) and len(path) <= len(mapping):
        path.append(node)
        node = mapping.get(str(node.get("parent")))
    return reversed(path)


def _chatgpt_said(message: dict[str, Any], when: datetime, seen: Counter[str]) -> Said | None:
    """One ChatGPT message as said in the conversation, or None (counted in ``seen``) when it was not."""
    role = (message.get("author") or {}).get("role")
    content = message.get("content") or {}
    kind = content.get("content_type")
    meta = message.get("metadata") or {}
    if role not in ("user", "assistant") or meta.get("is_visually_hidden_from_conversation"):
        seen["parts"] += 1  # a system, tool or hidden message
        return None
    if kind == "user_editable_context":  # the custom instructions, sent as a user message
        seen["instructions"] += 1
        return None
    if kind not in _CHATGPT_TEXT or message.get("recipient") not in (None, "all"):
        seen["parts"] += 1  # a tool call, code, its output, browsing, reasoning
        return None
    parts = content.get("parts") or []
    text = "\n".join(p for p in parts if isinstance(p, str)).strip()
    if role == "user":
        return Said("user", text, when, mine=True)
    return Said("ChatGPT", text, when, mine=False, assistant=True)


def _chatgpt(conversation: dict[str, Any], seen: Counter[str]) -> list[Said]:
    """A ChatGPT conversation's messages; a message without a time takes the one before it (or the
    conversation's)."""
    when = _epoch(conversation.get("create_time")) or datetime(1970, 1, 1, tzinfo=UTC)
    kept = 0
    chat: list[Said] = []
    for node in _chatgpt_path(conversation):
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        when = _epoch(message.get("create_time")) or when
        said = _chatgpt_said(message, when, seen)
        if said is not None:
            chat.append(said)
        kept += 1
    seen["branches"] += (
        sum(1 for n in conversation["mapping"].values() if isinstance(n, dict) and isinstance(n.get("message"), dict))
        - kept
    )
    return chat


def _claude(conversation: dict[str, Any], seen: Counter[str]) -> list[Said]:
    """A Claude conversation's messages in order; a message without a time takes the one before it."""
    when = _iso(conversation.get("created_at")) or datetime(1970, 1, 1, tzinfo=UTC)
    chat: list[Said] = []
    for m in conversation["chat_messages"]:
        if not isinstance(m, dict):
            continue
        when = _iso(m.get("created_at")) or when
        blocks = m.get("content")
        if isinstance(blocks, list) and blocks:
            texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
            seen["parts"] += sum(1 for b in blocks if not (isinstance(b, dict) and b.get("type") == "text"))
            text = "\n".join(t for t in texts if isinstance(t, str)).strip()
        else:
            text = str(m.get("text") or "").strip()
        seen["attachments"] += len(m.get("attachments") or []) + len(m.get("files") or [])
        if m.get("sender") == "human":
            chat.append(Said("user", text, when, mine=True))
        elif m.get("sender") == "assistant":
            chat.append(Said("Claude", text, when, mine=False, assistant=True))
        else:
            seen["parts"] += 1
    return chat
