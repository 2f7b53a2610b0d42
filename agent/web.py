"""What caim's HTTP servers share: bearer-token users, a body limit, one-line errors.

Used by ``caim serve`` (``caim.agent.openai_server``) and the FastAPI example
(``examples/fastapi_chat.py``). ``Guard`` is ASGI middleware that runs before routing and before a
byte of the body is read: a missing or unknown bearer token is a 401 and the token's user goes to
``scope["state"]["user"]``; a body declared or found to be over the limit is a 413. How an error body
looks is the app's choice (``error_body``), so each server keeps its own error shape. Nothing here
imports FastAPI's app machinery, the model stack or LangGraph.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException

from caim.core.errors import ConfigError

#: Largest request body accepted when neither an explicit limit nor ``CAIM_MAX_BODY_BYTES`` says otherwise.
DEFAULT_MAX_BODY_BYTES = 64 * 1024

Verify = Callable[[str], str | None]
ErrorBody = Callable[[int, str], dict[str, Any]]
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def one_line(text: object) -> str:
    """``text`` as a single line (newlines and runs of blanks become one space); never empty."""
    return " ".join(str(text).split()) or "error"


def detail_body(status: int, message: str) -> dict[str, Any]:
    """The plain error body: ``{"detail": "<one line>"}``."""
    return {"detail": one_line(message)}


async def send_json(
    send: Send, status: int, body: dict[str, Any], headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    """Answer a request from ASGI middleware with a JSON body."""
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


def bearer_user(scope: Scope, verify: Verify) -> str | None:
    """The user a request's ``Authorization: Bearer <token>`` names, or None."""
    header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    return verify(token) if scheme.lower() == "bearer" and token else None


class Guard:
    """ASGI middleware: authenticates the bearer token (401 otherwise; ``verify=None`` turns this off)
    on every path but ``public`` and puts its user in ``scope["state"]["user"]``; refuses a body
    declared or found to be over ``max_body`` bytes with 413, before the application reads it.
    Paths under one of ``own_guard`` (prefixes, e.g. ``/ui``: an app mounted there that checks its
    own callers and bodies) are passed on untouched."""

    def __init__(
        self,
        app: ASGIApp,
        verify: Verify | None,
        max_body: int,
        error_body: ErrorBody = detail_body,
        public: frozenset[str] = frozenset({"/health"}),
        own_guard: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.verify = verify
        self.max_body = max_body
        self.error_body = error_body
        self.public = public
        self.own_guard = own_guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check an HTTP request's bearer token (except on ``public`` paths) and its body's size, then pass it on."""
        path = scope.get("path", "")
        if scope["type"] != "http" or any(path == p or path.startswith(p + "/") for p in self.own_guard):
            await self.app(scope, receive, send)
            return
        if self.verify is not None and scope["path"] not in self.public:
            user = bearer_user(scope, self.verify)
            if user is None:
                body = self.error_body(401, "missing or invalid bearer token")
                await send_json(send, 401, body, ((b"www-authenticate", b"Bearer"),))
                return
            scope.setdefault("state", {})["user"] = user
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body):
            await send_json(send, 413, self.error_body(413, f"request body over {self.max_body} bytes"))
            return
        await self.app(scope, self._bounded(receive), send)

    def _bounded(self, receive: Receive) -> Receive:
        """``receive`` that counts body bytes (a chunked body declares no length) and raises 413
        as soon as they pass the limit, before the application has seen them."""
        seen = 0

        async def bounded() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise HTTPException(413, f"request body over {self.max_body} bytes")
            return message

        return bounded


def body_limit(explicit: int | None = None) -> int:
    """``explicit``, else ``CAIM_MAX_BODY_BYTES``, else 64 KiB; a value that is no positive number of
    bytes is a one-line ``ConfigError``."""
    if explicit is not None:
        if explicit < 1:
            raise ConfigError(f"the request body limit must be a positive number of bytes, not {explicit}")
        return explicit
    raw = os.environ.get("CAIM_MAX_BODY_BYTES", "").strip()
    if not raw:
        return DEFAULT_MAX_BODY_BYTES
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"CAIM_MAX_BODY_BYTES must be a positive number of bytes, not {raw[:40]!r}")
    return int(raw)


def loopback(host: str) -> bool:
    """Whether ``host`` names this machine: ``localhost`` or a loopback address, with or without a
    ``:port`` (an IPv6 address in brackets) - a listening address, or a request's ``Host`` header.

    >>> [loopback(h) for h in ("127.0.0.1:8080", "[::1]:80", "::1", "LocalHost", "10.0.0.1", "127.evil.example")]
    [True, True, True, True, False, False]
    """
    import ipaddress

    name = host.strip().lower()
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def default_verify(server: str = "the chat server") -> Verify:
    """``caim.agent.auth.verify`` over ``CAIM_AUTH_TOKENS``, or a one-line ``ConfigError`` when the
    variable is not set (``server`` names who refuses to start)."""
    if not os.environ.get("CAIM_AUTH_TOKENS", "").strip():
        raise ConfigError(f'{server} authenticates every request: set CAIM_AUTH_TOKENS=\'{{"<token>": "<user id>"}}\'')
    from caim.agent import auth

    return auth.verify
