"""Errors caim reports to people: one line that says what is wrong and how to fix it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any


class CaimError(Exception):
    """A user-facing error. ``str(err)`` is a single line; the CLI prints it without a traceback."""


class ConfigError(CaimError):
    """Settings are missing or inconsistent (no model, unreadable GGUF file, bad data dir)."""


class EndpointError(CaimError):
    """The model endpoint could not be reached or refused the request."""


class StorageError(CaimError):
    """The memory store cannot be read or written (read-only or full disk, a damaged file)."""


class InputError(CaimError):
    """What a client sent cannot be used (too long, out of range, malformed, unknown policy, a setting
    only the deployment may make). Nothing was stored; on HTTP it is a 4xx with this one line."""


class QuotaError(InputError):
    """A write would take a user's memory past a limit the deployment set (records, bytes, records per
    import). Nothing of it was stored; on HTTP it is a 4xx with this one line."""


def argument_error(
    errors: Iterable[Mapping[str, Any]], *, skip: tuple[str, ...] = ("body",), hints: Mapping[str, str] | None = None
) -> str:
    """Pydantic's errors of what a client sent as one line: per error where (its location, ``skip``
    left out), what is wrong and what is allowed (pydantic's message says both: "Input should be
    greater than or equal to 1"; ``hints``, by top-level field, add what the field takes), and the
    value sent, clipped - no URLs, no dump. Every surface answers argument errors with it.

    >>> argument_error([{"loc": ("k",), "msg": "Input should be greater than or equal to 1", "input": 0}])
    'k: Input should be greater than or equal to 1 (got 0)'
    """
    parts = []
    for err in errors:
        if err.get("type") == "json_invalid":  # its location is the character where parsing stopped
            at = [p for p in err.get("loc", ()) if isinstance(p, int)]
            parts.append("body: malformed JSON" + (f" (at character {at[0]})" if at else ""))
            continue
        loc = ".".join(str(p) for p in err.get("loc", ()) if p not in skip) or "body"
        msg = " ".join(str(err.get("msg", "invalid")).removeprefix("Value error, ").split())
        sent = err.get("input", _MISSING)
        got = "" if sent is _MISSING or isinstance(sent, dict | list) else f" (got {json.dumps(str(sent)[:40])})"
        if isinstance(sent, int | float) and not isinstance(sent, bool):
            got = f" (got {sent!r:.40})"
        field = loc.split(".", 1)[0]
        hint = (hints or {}).get(field, "")
        parts.append(f"{loc}: {msg}{got}" + (f" ({field}: {hint.rstrip('.')})" if hint else ""))
    line = " ".join("; ".join(dict.fromkeys(parts)).split())
    return line or "invalid request"


_MISSING = object()
