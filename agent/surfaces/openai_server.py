"""``caim serve``: an OpenAI-compatible chat endpoint with caim's long-term memory.

Point any OpenAI client or chat UI at ``http://<host>:<port>/v1`` with a caim token as its API key.

Endpoints:
    POST /v1/chat/completions  an OpenAI chat completion; ``"stream": true`` answers as server-sent
                               events, ``chat.completion.chunk`` objects ending with ``data: [DONE]``
    GET  /v1/models            the served model (``caim``); GET /v1/models/{id} that one
    POST /v1/sessions/end      end the user's session now; post-thinking runs in the background
                               -> ``{"object": "caim.session", "ended": bool, "job": "<id or ''>"}``
    GET  /health               ``{"status": "ok"}``, no token needed (readiness probes)
    /ui/...                    the memory browser (``caim.agent.surfaces.ui``): sign-in with the same tokens,
                               its own session cookie, CSRF checks and body limit

Contracts:

- **Who.** The user is the bearer token's (``Authorization: Bearer <token>``, checked with
  ``caim.agent.surfaces.auth.verify`` over ``CAIM_AUTH_TOKENS``, or the ``verify`` given to ``create_app``);
  a request's ``user`` field is then ignored, so no client reaches another user's memories. Only
  with authentication off (``create_app(auth=False)``; ``caim serve --no-auth`` allows it on a
  loopback host alone) is the user the request's ``user`` field, or ``default`` without one.
- **Hosts.** A request whose ``Host`` is not one the server serves is a 421, one from another
  site's page (``Origin``) a 403, before anything else runs - ``/ui`` included
  (``caim.agent.surfaces.web.HostGuard``; which hosts: ``served_hosts``, loopback names alone with
  authentication off).
- **The turn.** The newest ``user`` message of ``messages`` is the turn, answered through caim's
  graph (memory controller, retrieval, answer). Earlier messages are the client's own copy of the
  conversation and are not read: caim keeps the session itself (one per user, in its checkpoints).
  System messages, sampling parameters (``temperature``, ``max_tokens``, ...), ``tools`` and the
  like are accepted and ignored; ``n`` above 1 is refused. Text content parts are joined; a newest
  user message without text is a 400.
- **The model.** Any ``model`` value is accepted (clients send their own): caim answers with the
  model it is configured with, and the response's ``model`` is the served id (``caim``).
- **Sessions.** A user's session ends after ``idle_seconds`` without a request (``--idle-minutes``,
  default 30) or on ``POST /v1/sessions/end``; then post-thinking stores what matters, in the
  background (the agent's durable job queue), and the next message starts a new session.
- **The ``caim`` extension.** A completion object, and the final chunk of a stream (the one with
  ``finish_reason``), carry ``"caim": {"route", "memories": [{"id", "thought", "event_time"}],
  "used": [{"id", "thought", "event_time", "speaker"}], "notice"}`` - the memory route, the
  memories the answer was given and those it used (quoted, or repeated by the reply). OpenAI clients
  ignore it (``completion.model_extra["caim"]`` in the Python client).
- **Citations.** With ``CAIM_CITE_MEMORIES=true`` (the deployment's choice) the answer's text ends
  with the memories it used, one a line under ``Memories used:`` (``citation_footer``), so a chat UI
  that shows only the text shows them too; streamed, the footer is the last piece of text.
- **Limits.** A body over ``max_body_bytes`` (default ``CAIM_MAX_BODY_BYTES`` or 1 MiB: clients
  resend their whole history) is a 413 before it is read; more than ``MAX_REQUEST_MESSAGES``
  messages a 413; a newest user message over the agent's ``max_message_chars`` a 413, nothing stored.
- **Errors** are OpenAI's shape, one line: ``{"error": {"message", "type", "param", "code"}}``, with the
  status every surface gives (``caim.agent.surfaces.errors``): 400 a malformed request or one caim
  cannot use (e.g. an unusable user id), 401 missing or unknown token, 404 unknown path or model, 413
  too large (or past the user's limits), 502 the model endpoint failed, 504 the model did not answer
  in time (the endpoint's own timeout or ``turn_timeout`` here), 503 storage or
  configuration failing, 500 anything else. A slow or failing model never hangs a request and loses
  nothing: the user's message is in the session before the answer is asked for, a turn past the
  deadline finishes in the background and is kept, and 502/504 answers say ``x-should-retry: false``
  (a retry would send the message twice; the client's next message simply continues the session).
  After a stream has begun, an error is one ``data: {"error": {...}}`` event (no ``[DONE]``), which
  the openai client raises as ``APIError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from caim.agent.facade import CaimAgent, Reply, Used
from caim.agent.memory import Memory
from caim.agent.surfaces.errors import ARGUMENT_STATUS, error_line, http_status
from caim.agent.surfaces.tokens import Verify
from caim.agent.surfaces.web import Guard, HostGuard, body_limit, default_verify, one_line, served_hosts
from caim.core.checks import check_user
from caim.core.errors import CaimError, EndpointError, InputError, argument_error
from caim.core.trace import usage
from caim.memory.answer import said, speaker
from caim.memory.records import MemoryBrief

log = logging.getLogger("caim.serve")

#: The model id served (``GET /v1/models``) and named in every response.
MODEL_ID = "caim"
#: Largest request body when neither ``max_body_bytes`` nor ``CAIM_MAX_BODY_BYTES`` says otherwise.
DEFAULT_MAX_BODY_BYTES = 1024 * 1024
#: Most messages one request may carry (the client's history included).
MAX_REQUEST_MESSAGES = 1000
#: Seconds a session may stay quiet before it ends, by default.
DEFAULT_IDLE_SECONDS = 30 * 60.0
#: Seconds a turn may take before the client gets a 504 (the turn itself finishes and is kept).
DEFAULT_TURN_TIMEOUT = 300.0
#: The user of a request without ``user`` when authentication is off.
DEFAULT_USER = "default"
#: Where the memory browser (``caim.agent.surfaces.ui``) is mounted.
UI_PATH = "/ui"

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    500: "server_error",
    502: "upstream_error",
    503: "server_error",
    504: "timeout_error",
}
ERROR_CODES = {
    401: "invalid_api_key",
    404: "not_found",
    413: "request_too_large",
    500: "internal_error",
    502: "model_error",
    503: "unavailable",
    504: "model_timeout",
}


class ApiError(Exception):
    """An answer in OpenAI's error shape: HTTP ``status``, a one-line ``message``, a ``code``;
    ``retry=False`` adds ``x-should-retry: false`` (the turn is kept: a retry would repeat it)."""

    def __init__(self, status: int, message: str, code: str | None = None, *, retry: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.message = one_line(message)
        self.code = code or ERROR_CODES.get(status)
        self.retry = retry

    def body(self) -> dict[str, Any]:
        """The error as OpenAI's error object."""
        return error_body(self.status, self.message, self.code)

    def headers(self) -> dict[str, str]:
        """``x-should-retry: false`` when a retry cannot help, else none."""
        return {} if self.retry else {"x-should-retry": "false"}

    def response(self) -> JSONResponse:
        """The error as a JSON response with its status and headers."""
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers())


def error_body(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error object: ``{"error": {"message", "type", "param", "code"}}``, the message one line."""
    kind = ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {
        "error": {"message": one_line(message), "type": kind, "param": None, "code": code or ERROR_CODES.get(status)}
    }


def as_api_error(exc: BaseException, turn_timeout: float) -> ApiError:
    """The OpenAI-style answer for an exception raised while a turn ran: the status and line of
    ``caim.agent.surfaces.errors`` (see the module docstring), with what a model fault means for the turn."""
    if isinstance(exc, ApiError):
        return exc
    status = http_status(exc)
    if isinstance(exc, TimeoutError):
        return ApiError(
            status,
            f"the model did not answer within {turn_timeout:g}s; your message is kept in the session and "
            "the answer will be too - send your next message to continue",
            retry=False,
        )
    if isinstance(exc, EndpointError):
        return ApiError(status, f"{error_line(exc)} (your message is kept in the session)", retry=False)
    if status == 500:
        log.exception("caim serve: unexpected fault", exc_info=exc)
    return ApiError(status, error_line(exc), "invalid_input" if isinstance(exc, InputError) else None)


# ---- the request ------------------------------------------------------------------------------
class ChatMessage(BaseModel):
    """One message as OpenAI clients send it; fields other than ``role`` and ``content`` are ignored."""

    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[Any] | None = None


class ChatRequest(BaseModel):
    """A chat completion request. Unknown fields (sampling parameters, tools, ...) are accepted and ignored."""

    model_config = ConfigDict(extra="allow")

    model: str = MODEL_ID
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    n: int | None = None
    user: str | None = None


class SessionEndRequest(BaseModel):
    """The body of ``POST /v1/sessions/end``: the user, when authentication is off."""

    model_config = ConfigDict(extra="forbid")

    user: str | None = None


def message_text(message: ChatMessage) -> str:
    """The text of a message: its string content, or its text parts joined."""
    content = message.content
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str):
            parts.append(part["text"])
    return "\n".join(parts)


def turn_text(body: ChatRequest, max_chars: int) -> str:
    """The newest user message's text: the turn. ``ApiError`` 400 (no user text, ``n`` > 1) or 413
    (too many messages, the message over ``max_chars``)."""
    if len(body.messages) > MAX_REQUEST_MESSAGES:
        raise ApiError(
            413, f"{len(body.messages)} messages in one request; at most {MAX_REQUEST_MESSAGES}", "too_many_messages"
        )
    if body.n is not None and body.n != 1:
        raise ApiError(400, f"n={body.n}: caim answers each turn once (n must be 1)", "unsupported_parameter")
    newest = next((m for m in reversed(body.messages) if m.role == "user"), None)
    if newest is None:
        raise ApiError(400, "no user message in messages: the newest user message is the turn", "no_user_message")
    text = message_text(newest)
    if not text.strip():
        raise ApiError(400, "the newest user message has no text", "no_user_message")
    if len(text) > max_chars:
        raise ApiError(
            413,
            f"message of {len(text)} characters; at most {max_chars} are accepted (CAIM_MAX_MESSAGE_CHARS)",
            "message_too_long",
        )
    return text


# ---- the response -----------------------------------------------------------------------------
@dataclass
class Outcome:
    """What a turn gave: the route, the memories the answer was given and those it used, a notice,
    the run's trace."""

    route: str
    memories: list[dict[str, Any]] = field(default_factory=list)
    notice: str = ""
    trace: list[dict[str, Any]] = field(default_factory=list)
    used: list[MemoryBrief] = field(default_factory=list)

    @classmethod
    def of_reply(cls, reply: Reply) -> Outcome:
        """The outcome of a completed turn."""
        memories = [dict(m) for m in reply.memories]
        return cls(str(reply.route), memories, reply.notice, list(reply.trace), list(reply.used))

    @classmethod
    def of_state(cls, state: dict[str, Any]) -> Outcome:
        """The outcome read from a streamed turn's final graph state."""
        memories = [dict(m) for m in state.get("memories") or []]
        route, notice = str(state.get("route", "none")), str(state.get("notice", ""))
        return cls(route, memories, notice, state.get("trace") or [], list(state.get("used") or []))

    def extension(self) -> dict[str, Any]:
        """The ``caim`` object added to completions and final chunks."""
        given = [{k: m.get(k) for k in ("id", "thought", "event_time")} for m in self.memories]
        used = [
            {"id": m["id"], "thought": m["thought"], "event_time": m["event_time"], "speaker": speaker(m)}
            for m in self.used
        ]
        return {"route": self.route, "memories": given, "used": used, "notice": self.notice}

    def usage(self) -> dict[str, int]:
        """Tokens of every model call of the turn (memory decisions included), OpenAI's names."""
        u = usage(self.trace)
        tin, tout = int(u["input_tokens"]), int(u["output_tokens"])
        return {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout}


def citation_footer(used: list[MemoryBrief]) -> str:
    """The memories an answer used as a footer to its text ("" for none): who said each and when.

    >>> print(citation_footer([{"id": "a", "thought": "I teach in Leeds.", "tags": [], "event_time": "2024-05-03"}]))
    <BLANKLINE>
    <BLANKLINE>
    Memories used:
    [1] you said (3 May 2024): "I teach in Leeds."
    """
    if not used:
        return ""
    lines = [f"[{i}] {said(m)}" for i, m in enumerate(used, 1)]
    return "\n\nMemories used:\n" + "\n".join(lines)


def completion(cid: str, created: int, text: str, outcome: Outcome, model: str) -> dict[str, Any]:
    """A ``chat.completion`` object with the ``caim`` extension."""
    return {
        "id": cid,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": outcome.usage(),
        "caim": outcome.extension(),
    }


def chunk(cid: str, created: int, model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    """A ``chat.completion.chunk`` object."""
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "system_fingerprint": None,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def sse(data: dict[str, Any] | str) -> str:
    """One server-sent event, as OpenAI writes them."""
    return f"data: {data if isinstance(data, str) else json.dumps(data, separators=(',', ':'))}\n\n"


# ---- sessions ---------------------------------------------------------------------------------
class Sessions:
    """Who talked when: per user the time of the last request and the requests in flight, and a
    lock that keeps one request per user at a time (a stream reads its turn's state after it)."""

    def __init__(self) -> None:
        self.last: dict[str, float] = {}
        self.busy: dict[str, int] = {}
        self.locks: dict[str, asyncio.Lock] = {}

    def lock(self, user: str) -> asyncio.Lock:
        """The user's lock (made on first use)."""
        return self.locks.setdefault(user, asyncio.Lock())

    def start(self, user: str) -> None:
        """Note that a request of the user is in flight."""
        self.busy[user] = self.busy.get(user, 0) + 1
        self.last[user] = time.monotonic()

    def done(self, user: str) -> None:
        """Note that a request of the user is over."""
        self.busy[user] = max(self.busy.get(user, 1) - 1, 0)
        self.last[user] = time.monotonic()

    def forget(self, user: str) -> None:
        """Stop tracking the user's quiet time (their session was ended)."""
        self.last.pop(user, None)

    def quiet(self, idle: float) -> list[str]:
        """Users without a request in flight whose last one ended more than ``idle`` seconds ago
        (forgotten here: their sessions are being ended)."""
        now = time.monotonic()
        found = [u for u, t in self.last.items() if not self.busy.get(u) and now - t > idle]
        for u in found:
            self.forget(u)
        return found


async def end_quiet_sessions(agent: CaimAgent, sessions: Sessions, idle: float) -> None:
    """Forever: end the sessions quiet for longer than ``idle`` seconds (post-thinking in the background)."""
    tick = min(max(idle / 4, 0.05), 30.0)
    while True:
        await asyncio.sleep(tick)
        for user in sessions.quiet(idle):
            try:
                await agent.aend_session(user_id=user, background=True)
            except Exception:  # the queue's retries, or the next idle end, take over
                log.warning("caim serve: ending the idle session of %r failed", user, exc_info=True)


# ---- the app ----------------------------------------------------------------------------------
def _add_error_handlers(app: FastAPI, turn_timeout: float) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        body = error_body(ARGUMENT_STATUS, argument_error(exc.errors()), "invalid_request")
        return JSONResponse(body, status_code=ARGUMENT_STATUS)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        body = error_body(exc.status_code, str(exc.detail))
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def fault(_request: Request, exc: Exception) -> JSONResponse:
        return as_api_error(exc, turn_timeout).response()


def create_app(
    agent: CaimAgent | None = None,
    *,
    verify: Verify | None = None,
    auth: bool = True,
    idle_seconds: float | None = DEFAULT_IDLE_SECONDS,
    turn_timeout: float = DEFAULT_TURN_TIMEOUT,
    max_body_bytes: int | None = None,
    model_id: str = MODEL_ID,
    bind: str | None = None,
) -> FastAPI:
    """The OpenAI-compatible app (see the module docstring for its contracts).

    Args:
        agent: a ready ``CaimAgent`` (kept open); without one, ``CaimAgent()`` is built at startup
            from the ``CAIM_*`` settings and closed at shutdown.
        verify: maps a bearer token to its user id or None (default ``caim.agent.surfaces.auth.verify`` over
            ``CAIM_AUTH_TOKENS``, which must then be set).
        auth: ``False`` serves without tokens, the user being the request's ``user`` field - only
            for a server bound to a loopback address (``caim serve --no-auth`` checks that).
        idle_seconds: a user's session ends after this many seconds without a request (None: never).
        turn_timeout: seconds before a turn's client gets a 504 (the turn finishes and is kept).
        max_body_bytes: largest request body (default ``CAIM_MAX_BODY_BYTES`` or 1 MiB).
        model_id: the model id served and named in responses.
        bind: the address the server listens on, when known: with ``auth`` the hosts it answers
            follow from it (``caim.agent.surfaces.web.served_hosts``); without, loopback names only. A request
            for another host is a 421, from another site's page a 403 - the memory browser at ``/ui``
            included.

    Returns:
        The FastAPI app; serve it with uvicorn.
    """
    check = (verify or default_verify("caim serve")) if auth else None
    max_body = body_limit(max_body_bytes) if max_body_bytes is not None else _serve_body_limit()
    sessions = Sessions()

    def lifespan(app: FastAPI) -> AbstractAsyncContextManager[None]:
        return _lifespan(app, agent, sessions, idle_seconds)

    app = FastAPI(title="caim serve", lifespan=lifespan)
    if agent is not None:
        app.state.agent = agent
    app.add_middleware(Guard, verify=check, max_body=max_body, error_body=error_body, own_guard=(UI_PATH,))
    app.add_middleware(HostGuard, hosts=served_hosts(auth=check is not None, bind=bind), error_body=error_body)
    _add_error_handlers(app, turn_timeout)
    _mount_ui(app, check, bind)

    @app.get("/health")
    async def health() -> dict:
        return {"status": "ok"}

    @app.get("/v1/models")
    async def models() -> dict:
        return {"object": "list", "data": [_model(model_id)]}

    @app.get("/v1/models/{name:path}")
    async def model(name: str) -> dict:
        return _named_model(name, model_id)

    @app.post("/v1/chat/completions")
    async def chat_completions(body: ChatRequest, request: Request) -> Any:
        user = _user_of(request, body.user, authenticated=check is not None)
        return await _chat_completion(request.app.state.agent, sessions, user, body, turn_timeout, model_id)

    @app.post("/v1/sessions/end")
    async def end_session(request: Request) -> dict:
        return await _end_session(request, sessions, authenticated=check is not None)

    return app


def _mount_ui(app: FastAPI, check: Verify | None, bind: str | None) -> None:
    """The memory browser at ``UI_PATH``, on the agent's memory, with the same tokens (its own sign-in,
    sessions and body limit); left out, with a warning, when its templates' engine is not installed."""
    try:
        from caim.agent.surfaces.ui import DEFAULT_USER as UI_USER
        from caim.agent.surfaces.ui import create_ui
    except ImportError as exc:
        log.warning("caim serve: no memory browser at %s (pip install 'caim[server]': %s)", UI_PATH, exc)
        return

    def memory() -> Memory:
        return app.state.agent.memory

    def open_session(user: str) -> list[Any]:
        return list(app.state.agent.state(user).get("messages") or [])

    app.mount(
        UI_PATH,
        create_ui(memory, verify=check, auth=check is not None, user=UI_USER, open_session=open_session, bind=bind),
    )


@asynccontextmanager
async def _lifespan(
    app: FastAPI, agent: CaimAgent | None, sessions: Sessions, idle_seconds: float | None
) -> AsyncIterator[None]:
    """Build the agent when none was given (and close it at shutdown); end quiet sessions meanwhile."""
    if agent is None:
        app.state.agent = await asyncio.to_thread(CaimAgent)
    watcher = None
    if idle_seconds is not None:
        watcher = asyncio.create_task(end_quiet_sessions(app.state.agent, sessions, idle_seconds))
    try:
        yield
    finally:
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        if agent is None:
            await asyncio.to_thread(app.state.agent.close)


def _user_of(request: Request, claimed: str | None, *, authenticated: bool) -> str:
    """The token's user; with authentication off, the request's ``user`` (or ``default``)."""
    user = request.state.user if authenticated else (claimed or DEFAULT_USER)
    try:
        return check_user(user)
    except CaimError as exc:
        if authenticated:  # a fault of the deployment's token map
            raise ApiError(500, f"the token's user id cannot be used: {exc}") from None
        raise ApiError(400, f"user: {exc}", "invalid_user") from None


def _named_model(name: str, model_id: str) -> dict[str, Any]:
    """The served model's entry when ``name`` is ``model_id``; a 404 ``ApiError`` otherwise."""
    if name != model_id:
        raise ApiError(404, f"no model {name[:64]!r}; this server serves {model_id!r}", "model_not_found")
    return _model(model_id)


async def _chat_completion(
    agent: CaimAgent, sessions: Sessions, user: str, body: ChatRequest, turn_timeout: float, model_id: str
) -> Any:
    """Answer one chat completion request for ``user``, streamed when ``body.stream`` asks for it."""
    text = turn_text(body, agent.settings.max_message_chars)
    turn = _RequestTurn(agent, sessions, user, turn_timeout, model_id)
    if body.stream:
        include_usage = bool((body.stream_options or {}).get("include_usage"))
        return await turn.stream(text, include_usage)
    return await turn.complete(text)


async def _end_session(request: Request, sessions: Sessions, *, authenticated: bool) -> dict[str, Any]:
    """End the requesting user's session: queue it for post-thinking and forget its turns here."""
    raw = await request.body()
    try:
        claimed = SessionEndRequest.model_validate_json(raw).user if raw.strip() else None
    except ValueError as exc:
        raise ApiError(400, f"invalid body: {str(exc).splitlines()[0]}", "invalid_request") from None
    user = _user_of(request, claimed, authenticated=authenticated)
    the_agent: CaimAgent = request.app.state.agent
    async with sessions.lock(user):
        sessions.forget(user)
        summary = await the_agent.aend_session(user_id=user, background=True)
    return {"object": "caim.session", "ended": bool(summary.job), "job": summary.job}


def _model(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": 0, "owned_by": "caim"}


def _serve_body_limit() -> int:
    """``CAIM_MAX_BODY_BYTES`` if set, else 1 MiB (clients resend their history with every turn)."""
    return body_limit(None) if os.environ.get("CAIM_MAX_BODY_BYTES", "").strip() else DEFAULT_MAX_BODY_BYTES


class EventStream(StreamingResponse):
    """A server-sent event stream that runs ``on_close`` once it is over - sent, failed, or dropped by
    the client, even before its first event (when the body's generator never starts)."""

    def __init__(self, events: AsyncIterator[str], on_close: Callable[[], Awaitable[None]]) -> None:
        super().__init__(
            events, media_type="text/event-stream", headers={"cache-control": "no-cache", "x-accel-buffering": "no"}
        )
        self.on_close = on_close

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Send the stream, then run ``on_close`` however it ended."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.on_close()


class _RequestTurn:
    """One request's turn for ``user``: answered whole (``complete``) or streamed (``stream``), within
    ``timeout`` seconds from its start, one request of the user at a time (the user's lock is held
    from ``_begin`` to ``_end``)."""

    def __init__(self, agent: CaimAgent, sessions: Sessions, user: str, timeout: float, model: str) -> None:
        self.agent = agent
        self.sessions = sessions
        self.user = user
        self.timeout = timeout
        self.model = model
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.deadline = asyncio.get_running_loop().time() + timeout
        self.tokens: AsyncIterator[str] | None = None
        self._held: asyncio.Lock | None = None

    def _left(self) -> float:
        return max(self.deadline - asyncio.get_running_loop().time(), 0.0)

    async def _begin(self) -> None:
        """Wait (within the deadline) for the user's earlier request to finish; past it a 504 that
        may be retried (nothing was stored)."""
        lock = self.sessions.lock(self.user)
        try:
            await asyncio.wait_for(lock.acquire(), self._left())
        except TimeoutError:
            raise ApiError(
                504,
                f"an earlier message of this user was still being answered after {self.timeout:g}s; "
                "nothing of this one was stored: send it again",
            ) from None
        self._held = lock
        self.sessions.start(self.user)

    async def _end(self) -> None:
        """Stop reading the turn's tokens (the turn itself runs on and is kept) and let the user's next
        request in; once, however the request ended."""
        tokens, self.tokens = self.tokens, None
        close = getattr(tokens, "aclose", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()
        held, self._held = self._held, None
        if held is not None:
            self.sessions.done(self.user)
            held.release()

    async def complete(self, text: str) -> dict[str, Any]:
        """The whole answer as a ``chat.completion`` object."""
        await self._begin()
        try:
            reply = await asyncio.wait_for(self.agent.achat(text, user_id=self.user), self._left())
        except Exception as exc:
            raise as_api_error(exc, self.timeout) from None
        finally:
            await self._end()
        footer = citation_footer(reply.used) if self.agent.settings.cite_memories else ""
        return completion(self.id, self.created, reply.text + footer, Outcome.of_reply(reply), self.model)

    async def _next(self) -> str | None:
        assert self.tokens is not None
        try:
            return await asyncio.wait_for(anext(self.tokens), self._left())
        except StopAsyncIteration:
            return None

    async def stream(self, text: str, include_usage: bool) -> StreamingResponse:
        """The answer as server-sent chunks. The first piece is awaited before the response starts,
        so a model that fails or times out before it is a proper 502/504."""
        await self._begin()
        try:
            self.tokens = self.agent.astream(text, user_id=self.user)
            first = await self._next()
        except Exception as exc:
            await self._end()
            raise as_api_error(exc, self.timeout) from None
        return EventStream(self._events(first, include_usage), self._end)

    async def _events(self, first: str | None, include_usage: bool) -> AsyncIterator[str]:
        try:
            yield sse(chunk(self.id, self.created, self.model, {"role": "assistant", "content": ""}))
            piece, done = first, None
            while piece is not None:
                if isinstance(piece, Used):
                    done = piece
                elif piece:
                    yield sse(chunk(self.id, self.created, self.model, {"content": piece}))
                piece = await self._next()
            outcome = Outcome.of_state(await asyncio.to_thread(self.agent.state, self.user))
            footer = citation_footer(done.used) if done is not None and self.agent.settings.cite_memories else ""
            if footer:
                yield sse(chunk(self.id, self.created, self.model, {"content": footer}))
            final = chunk(self.id, self.created, self.model, {}, "stop")
            final["caim"] = outcome.extension()
            yield sse(final)
            if include_usage:
                yield sse({**chunk(self.id, self.created, self.model, {}), "choices": [], "usage": outcome.usage()})
            yield sse("[DONE]")
        except Exception as exc:  # the status is sent: the error is an event of the stream
            yield sse(as_api_error(exc, self.timeout).body())
        finally:
            await self._end()
