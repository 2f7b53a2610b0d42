"""Signed sessions and CSRF tokens of the memory browser.

A session is the cookie ``caim_session``: ``<user, base64>.<issued, epoch seconds>.<nonce>.<mac>``,
the MAC an HMAC-SHA256 of the rest under the browser's secret. It names the user the token signed in
as - never the token - and is refused when its MAC is wrong, when it is older than ``max_age``
seconds, or once signed out (its nonce is remembered by this process until it would have expired).
A CSRF token is an HMAC of the session value under the same secret: a form of one session is no use
in another, and a page of another site cannot read it.

The secret is ``CAIM_UI_SECRET`` when set (every worker of a deployment shares it, and sessions
survive a restart), else random per process (sessions end with the process); with the deployment's
tokens it is bound to them (``bound``), so a token removed or reassigned ends every session at the
next start.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import threading
import time

from caim.core.errors import ConfigError

#: The session cookie's name.
COOKIE = "caim_session"
#: Seconds a session lasts after sign-in.
SESSION_SECONDS = 12 * 3600
#: Shortest ``CAIM_UI_SECRET`` accepted, in characters.
MIN_SECRET = 16


def ui_secret() -> bytes:
    """``CAIM_UI_SECRET`` as bytes, or a random secret for this process when it is not set; a set
    secret shorter than ``MIN_SECRET`` characters is a one-line ``ConfigError``."""
    raw = os.environ.get("CAIM_UI_SECRET", "")
    if not raw:
        return secrets.token_bytes(32)
    if len(raw) < MIN_SECRET:
        raise ConfigError(f"CAIM_UI_SECRET must be at least {MIN_SECRET} characters (a long random string)")
    return raw.encode()


def bound(secret: bytes, context: bytes) -> bytes:
    """A signing secret derived from ``secret`` and ``context``: sessions signed under it are refused
    once ``context`` changes (e.g. the deployment's tokens: ``caim.agent.surfaces.auth.tokens_fingerprint``)."""
    return hmac.new(secret, b"caim-ui-tokens\x00" + context, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Signer:
    """Issues and checks sessions and CSRF tokens under one secret (see the module docstring)."""

    def __init__(self, secret: bytes, max_age: float = SESSION_SECONDS) -> None:
        self._secret = secret
        self.max_age = max_age
        self._ended: dict[str, float] = {}  # nonce -> when its session would expire
        self._lock = threading.Lock()

    def _mac(self, purpose: str, value: str) -> str:
        return hmac.new(self._secret, f"{purpose}\x00{value}".encode(), hashlib.sha256).hexdigest()

    def issue(self, user: str) -> str:
        """A new session value for ``user``."""
        body = f"{_b64(user.encode())}.{int(time.time())}.{secrets.token_hex(12)}"
        return f"{body}.{self._mac('session', body)}"

    def user_of(self, value: str | None) -> str | None:
        """The user a session value names, or None when it is malformed, forged, expired or signed out."""
        if not value or len(value) > 1024:
            return None
        parts = value.split(".")
        if len(parts) != 4:
            return None
        user64, issued, nonce, mac = parts
        if not hmac.compare_digest(mac, self._mac("session", f"{user64}.{issued}.{nonce}")):
            return None
        if not issued.isdigit() or not 0 <= time.time() - int(issued) <= self.max_age:
            return None
        with self._lock:
            if nonce in self._ended:
                return None
        try:
            return _unb64(user64).decode()
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return None

    def end(self, value: str) -> None:
        """Sign a session out: its value is refused from now on (by this process)."""
        parts = value.split(".")
        if len(parts) != 4 or not parts[1].isdigit():
            return
        now = time.time()
        with self._lock:
            self._ended = {n: t for n, t in self._ended.items() if t > now}
            self._ended[parts[2]] = int(parts[1]) + self.max_age

    def csrf(self, session: str) -> str:
        """The CSRF token of forms served in ``session``."""
        return self._mac("csrf", session)

    def csrf_ok(self, session: str, token: str | None) -> bool:
        """Whether ``token`` is the CSRF token of ``session``."""
        return bool(token) and hmac.compare_digest(str(token), self.csrf(session))
