"""Errors caim reports to people: one line that says what is wrong and how to fix it."""

from __future__ import annotations


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
