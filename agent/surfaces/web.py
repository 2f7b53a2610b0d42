"""What caim's HTTP servers share: the hosts they serve, bearer-token users, a body limit, one-line errors.

Used by every server caim starts - ``caim serve`` (``caim.agent.surfaces.openai_server``), ``caim mcp --http``
(``caim.agent.surfaces.mcp_server``), ``caim ui`` (``caim.agent.surfaces.ui``), the LangGraph deployment's auth handlers
(``caim.agent.surfaces.auth``) - and the FastAPI example (``examples/fastapi_chat.py``).

- ``HostGuard`` (ASGI middleware, outermost) answers 421 to a request whose ``Host`` is not one the
  deployment serves and 403 to one whose ``Origin`` (a browser's page) is not, before anything else
  runs: a page of another site that points its own DNS name at this machine (DNS rebinding) reaches
  nothing. ``served_hosts`` says which hosts: loopback names only without authentication or when
  listening on a loopback address, plus ``CAIM_ALLOWED_HOSTS`` (comma-separated names, ``name:port``
  or ``*``) with authentication; any host for an authenticated server listening elsewhere without
  that setting (its tokens guard it). ``host_refusal`` is the same check for a server that is no
  ASGI app of ours (the LangGraph server's auth handler).
- ``Guard`` runs before routing and before a byte of the body is read: a missing or unknown bearer
  token (``caim.agent.surfaces.tokens``, the one token check) is a 401 and the token's user goes to
  ``scope["state"]["user"]``; a body declared or found to be over the limit is a 413. How an error
  body looks is the app's choice (``error_body``), so each server keeps its own error shape.
- Argument errors are answered in one line by ``caim.core.errors.argument_error`` (where, what is
  wrong and what is allowed, never the validator's multi-line dump), on every surface.

Nothing here imports FastAPI's app machinery, the model stack or LangGraph.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException

from caim.agent.surfaces.tokens import Verify, bearer_user
from caim.core.errors import ConfigError

#: What FastAPI says of a body it could not parse at all (JSON nested too deep for the parser, among others).
UNPARSED_BODY = "There was an error parsing the body"
#: Largest request body accepted when neither an explicit limit nor ``CAIM_MAX_BODY_BYTES`` says otherwise.
DEFAULT_MAX_BODY_BYTES = 64 * 1024

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


def authorization(scope: Scope) -> str:
    """A request's ``Authorization`` header ("" without one)."""
    return dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")


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
            user = bearer_user(authorization(scope), self.verify)
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
    >>> [loopback(h) for h in ("[::1].evil.example", "[::1]:80x", "localhost:", "localhost:8080:1")]
    [False, False, False, False]
    """
    import ipaddress

    name = host.strip().lower()
    if name.startswith("["):
        inside, _, rest = name[1:].partition("]")
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return False
        name = inside
    elif name.count(":") == 1:
        name, port = name.split(":", 1)
        if not port.isdigit():
            return False
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def default_verify(server: str = "the chat server") -> Verify:
    """``caim.agent.surfaces.auth.verify`` over ``CAIM_AUTH_TOKENS``, or a one-line ``ConfigError`` when the
    variable is not set (``server`` names who refuses to start)."""
    if not os.environ.get("CAIM_AUTH_TOKENS", "").strip():
        raise ConfigError(f'{server} authenticates every request: set CAIM_AUTH_TOKENS=\'{{"<token>": "<user id>"}}\'')
    from caim.agent.surfaces import auth

    return auth.verify


# ---- the hosts a server serves -----------------------------------------------------------------
@dataclass(frozen=True)
class Hosts:
    """The ``Host`` names a server answers: loopback names always; ``names`` besides (a bare name
    allows every port, ``name:port`` that port); ``anywhere``: every host."""

    names: frozenset[str] = frozenset()
    anywhere: bool = False

    def allows(self, host: str) -> bool:
        """Whether a ``Host`` header value (or an ``Origin``'s host) is served.

        >>> Hosts(frozenset({"mem.example.com"})).allows("mem.example.com:443"), Hosts().allows("evil.example")
        (True, False)
        >>> Hosts().allows("127.0.0.1:8000"), Hosts().allows("localhost.evil.example")
        (True, False)
        """
        value = host.strip().lower()
        if not value:
            return False
        if self.anywhere or loopback(value):
            return True
        name = value.rsplit(":", 1)[0] if value.count(":") == 1 else value
        return value in self.names or name in self.names

    def describe(self) -> str:
        """The rule in words, for a refusal."""
        extra = ", ".join(sorted(self.names))
        return "loopback names (localhost, 127.0.0.1, [::1])" + (f" and {extra}" if extra else "")


#: Loopback names only (a server without authentication, or listening on a loopback address).
LOOPBACK = Hosts()
ANYWHERE = Hosts(anywhere=True)


def allowed_hosts_setting() -> Hosts | None:
    """``CAIM_ALLOWED_HOSTS`` (comma-separated host names, ``name:port`` or ``*``), or None when it is
    not set; a name that cannot be a host is a one-line ``ConfigError``."""
    raw = os.environ.get("CAIM_ALLOWED_HOSTS", "").strip()
    if not raw:
        return None
    names = [n.strip().lower() for n in raw.split(",") if n.strip()]
    if "*" in names:
        return ANYWHERE
    for name in names:
        if not all(ch.isalnum() or ch in ".-:[]_" for ch in name) or len(name) > 255:
            raise ConfigError(
                f"CAIM_ALLOWED_HOSTS names {name[:40]!r}, which is no host; list host names (e.g. "
                "mem.example.com,mem.example.com:8443) or *"
            )
    return Hosts(frozenset(names))


def served_hosts(*, auth: bool, bind: str | None = None) -> Hosts:
    """The hosts a server answers (see the module docstring): ``auth`` False - loopback names only,
    whatever is set; else ``CAIM_ALLOWED_HOSTS`` (with loopback names) when set, else loopback names
    when listening (``bind``) on a loopback address, else any host."""
    if not auth:
        return LOOPBACK
    setting = allowed_hosts_setting()
    if setting is not None:
        return setting
    return LOOPBACK if bind is not None and loopback(bind) else ANYWHERE


def _origin_host(origin: str) -> str | None:
    """The ``host[:port]`` of an ``Origin`` value, or None when it names none (``null``, garbage)."""
    try:
        parts = urlsplit(origin.strip())
        return parts.netloc if parts.scheme in ("http", "https") and parts.netloc else None
    except ValueError:
        return None


def host_refusal(headers: Mapping[str, str] | Iterable[tuple[bytes, bytes]], hosts: Hosts) -> tuple[int, str] | None:
    """(status, one line) when a request's ``Host`` (421) or ``Origin`` (403) is not served by
    ``hosts``; None when it may go on. A request without ``Origin`` is no browser page's; a page's
    ``Origin`` must be a served host (``null`` is none)."""
    if hosts.anywhere:
        return None
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    found: dict[str, str] = {}
    for key, value in pairs:
        k = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        v = value.decode("latin-1") if isinstance(value, bytes) else str(value)
        found.setdefault(k.lower(), v)
    host = found.get("host", "")
    if not hosts.allows(host):
        shown = json.dumps(host[:60])
        return 421, f"this server does not serve the host {shown}; it answers {hosts.describe()}"
    origin = found.get("origin")
    if origin is not None:
        origin_host = _origin_host(origin)
        if origin_host is None or not hosts.allows(origin_host):
            shown = json.dumps(origin[:60])
            return 403, f"requests from pages of {shown} are refused; this server answers {hosts.describe()}"
    return None


class HostGuard:
    """ASGI middleware, outermost: refuses (421 / 403, a one-line ``error_body``) an HTTP request whose
    ``Host`` or ``Origin`` ``hosts`` does not serve, before anything else reads it. ``public`` paths
    (``/health``: it tells nothing, and a probe may name the machine by any address) pass."""

    def __init__(
        self,
        app: ASGIApp,
        hosts: Hosts,
        error_body: ErrorBody = detail_body,
        public: frozenset[str] = frozenset({"/health"}),
    ) -> None:
        self.app = app
        self.hosts = hosts
        self.error_body = error_body
        self.public = public

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a request for a host not served; pass every other one on."""
        if scope["type"] in ("http", "websocket") and scope.get("path") not in self.public:
            refused = host_refusal(scope.get("headers") or [], self.hosts)
            if refused is not None:
                status, message = refused
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await send_json(send, status, self.error_body(status, message))
                return
        await self.app(scope, receive, send)


def _first_paragraph_line(text: str) -> str:
    """The first paragraph of a message (a validator's explanation follows after a blank line), as one line."""
    head = next((p for p in text.split("\n\n") if p.strip()), text)
    return one_line(head)


class OneLineErrors:
    """ASGI middleware for an app whose refusals are not ours (the LangGraph server's own): a 4xx JSON
    answer's ``detail`` (or ``error.message``) of more than one line is cut to its first paragraph,
    on one line; every other answer passes as it is."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; hold a 4xx JSON answer's start until its body is read, then rewrite it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: list[Message] = []
        body: list[bytes] = []

        async def rewrite(message: Message) -> None:
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers") or []).get(b"content-type", b"")
                if 400 <= message["status"] < 500 and kind.startswith(b"application/json"):
                    held.append(message)
                    return
            elif held and message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                data = _one_line_body(b"".join(body))
                start = held.pop()
                start["headers"] = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
                start["headers"].append((b"content-length", str(len(data)).encode()))
                await send(start)
                await send({"type": "http.response.body", "body": data})
                return
            await send(message)

        await self.app(scope, receive, rewrite)


def _one_line_body(data: bytes) -> bytes:
    """A JSON error body with its ``detail`` / ``error.message`` on one line (as it is otherwise)."""
    try:
        body = json.loads(data)
    except ValueError:
        return data
    if isinstance(body, dict) and isinstance(body.get("detail"), str) and "\n" in body["detail"]:
        body["detail"] = _first_paragraph_line(body["detail"])
    elif isinstance(body, dict) and isinstance(body.get("error"), dict):
        inner = body["error"]
        if isinstance(inner.get("message"), str) and "\n" in inner["message"]:
            inner["message"] = _first_paragraph_line(inner["message"])
    else:
        return data
    return json.dumps(body).encode()
