"""A minimal chat server on ``CaimAgent``: chat, streamed chat, session end and memory admin.

Every request but ``GET /health`` carries ``Authorization: Bearer <token>``; the token names the
user, exactly as for the LangGraph deployment (``caim.agent.surfaces.auth.verify``, tokens from
``CAIM_AUTH_TOKENS``, a JSON object token -> user id). No route takes a user id from the path or
the body, so a client reads, writes and forgets only its own user's memories. Without
``CAIM_AUTH_TOKENS`` (and no ``verify`` passed to ``create_app``) the app refuses to start.

Run it (models and data dir come from ``CAIM_*`` settings / ``OPENAI_API_KEY``, as for the CLI)::

    pip install fastapi uvicorn
    export CAIM_AUTH_TOKENS='{"token-of-alice": "alice"}'
    uvicorn examples.fastapi_chat:create_app --factory --port 8000

    AUTH='authorization: Bearer token-of-alice'
    curl -s localhost:8000/chat -H "$AUTH" -H 'content-type: application/json' \\
         -d '{"message": "I love hiking."}'
    curl -sN localhost:8000/chat/stream -H "$AUTH" -H 'content-type: application/json' \\
         -d '{"message": "What do I like?"}'
    curl -s -X POST localhost:8000/session/end -H "$AUTH"
    curl -s localhost:8000/memories -H "$AUTH"

Endpoints (the user is always the token's):
    GET    /health                   {"status": "ok"}, no token needed (readiness probes)
    POST   /chat                     {message, time?, policy?} -> {text, route, memories, notice}
    POST   /chat/stream              same body -> the reply as a plain-text token stream
    POST   /session/end              {time?, background?, policy?} (body optional) -> what post-thinking
                                     stored and changed; with background: the queued job, at once
    GET    /memories                 the user's memory records
    GET    /memories/export          everything stored about the user, as a streamed JSON download
    DELETE /memories/{id}            forget one record (404 if the user has no such record)
    GET    /memories/{id}/history    the record's chain of changes

Limits and errors: a request body over ``CAIM_MAX_BODY_BYTES`` (default 64 KiB) is refused with 413
before any of it is parsed; a message over the agent's ``max_message_chars`` with 413; a missing or
unknown token with 401. Whatever a client sends wrong (malformed JSON, unknown fields, a turn time
that is no ISO time or lies outside 1900-2199, an unknown policy) is a 4xx; a fault of the server
(model endpoint down, storage failing) a 5xx: the status every surface gives (``caim.agent.surfaces.errors``).
Every error body is ``{"detail": "<one line>"}``.
The guards (the hosts served, bearer tokens, body limit) are ``caim.agent.surfaces.web``'s, shared with ``caim serve``.

``create_app(agent)`` takes a ready ``CaimAgent`` (tests inject one with scripted models); without one
the app builds ``CaimAgent()`` at startup and closes it at shutdown.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import asdict
from datetime import datetime
from typing import Annotated

from fastapi import Body, Depends, FastAPI, HTTPException, Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from caim.agent import CaimAgent, CaimError
from caim.agent.surfaces.errors import ARGUMENT_STATUS, error_line, http_status
from caim.agent.surfaces.tokens import Verify
from caim.agent.surfaces.web import (
    UNPARSED_BODY,
    Guard,
    HostGuard,
    body_limit,
    default_verify,
    one_line,
    served_hosts,
)
from caim.core.checks import check_user
from caim.core.errors import InputError, argument_error
from caim.graph.policies import POLICIES
from caim.memory.stm import check_length, parse_time
from caim.memory.transfer import export_lines


def _check_time(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(value)
    except InputError as exc:
        raise ValueError(str(exc)) from None


def _check_policy(value: str | None) -> str | None:
    if value is not None and value not in POLICIES:
        raise ValueError(f"unknown memory policy {value[:40]!r}; choose one of: {', '.join(sorted(POLICIES))}")
    return value


TurnTime = Annotated[datetime | None, AfterValidator(_check_time)]
PolicyName = Annotated[str | None, AfterValidator(_check_policy)]


class ChatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a user_id field is refused, not silently ignored

    message: str
    time: TurnTime = Field(default=None, description="When the turn happens (default: now), 1900-2199.")
    policy: PolicyName = Field(default=None, description="A memory policy by name (default: the deployment's).")


class ChatOut(BaseModel):
    text: str
    route: str
    memories: list[dict]
    notice: str = ""


class SessionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    time: TurnTime = None
    background: bool = Field(default=False, description="Queue post-thinking and answer at once.")
    policy: PolicyName = None


class SessionOut(BaseModel):
    stored: list[dict]
    merged: list[dict]
    changes: list[dict]
    key_events: list[dict]
    ontology_added: list[str]
    denied: int
    complete: bool
    job: str = ""


def current_user(request: Request) -> str:
    """The authenticated user (set by ``Guard``), checked as a user id: a token mapped to an
    unusable id is a fault of the deployment's token map, reported as one 500 line."""
    try:
        return check_user(request.state.user)
    except CaimError as exc:
        raise HTTPException(500, f"the token's user id cannot be used: {exc}") from None


User = Annotated[str, Depends(current_user)]
RecordId = Annotated[str, Path(min_length=1, max_length=128)]


def create_app(
    agent: CaimAgent | None = None,
    *,
    verify: Verify | None = None,
    max_body_bytes: int | None = None,
    bind: str | None = None,
) -> FastAPI:
    """The chat app. ``verify`` maps a bearer token to its user id or None (default
    ``caim.agent.surfaces.auth.verify`` over ``CAIM_AUTH_TOKENS``, which must then be set); ``max_body_bytes``
    bounds a request body (default ``CAIM_MAX_BODY_BYTES`` or 64 KiB); ``bind``: the address it
    listens on, when known (the hosts it answers follow: ``caim.agent.surfaces.web.served_hosts``)."""
    owned = agent is None
    check = verify or default_verify()
    max_body = body_limit(max_body_bytes)

    def lifespan(app: FastAPI) -> AbstractAsyncContextManager[None]:
        return _lifespan(app, agent, owned=owned)

    app = FastAPI(title="caim chat", lifespan=lifespan)
    if agent is not None:  # usable even when the lifespan does not run
        app.state.agent = agent
    app.add_middleware(Guard, verify=check, max_body=max_body)
    app.add_middleware(HostGuard, hosts=served_hosts(auth=True, bind=bind))

    _add_error_handlers(app)

    @app.get("/health")
    async def health() -> dict:
        return {"status": "ok"}

    @app.post("/chat", response_model=ChatOut)
    async def chat(body: ChatIn, request: Request, user: User) -> ChatOut:
        text = _message_of(body, request)
        reply = await _agent(request).achat(text, user_id=user, at=body.time, policy=body.policy)
        return ChatOut(text=reply.text, route=reply.route, memories=reply.memories, notice=reply.notice)

    @app.post("/chat/stream")
    async def chat_stream(body: ChatIn, request: Request, user: User) -> StreamingResponse:
        text = _message_of(body, request)
        tokens = _agent(request).astream(text, user_id=user, at=body.time, policy=body.policy)
        return await _text_stream(tokens)

    @app.post("/session/end", response_model=SessionOut)
    async def end_session(request: Request, user: User, body: Annotated[SessionIn | None, Body()] = None) -> SessionOut:
        body = body or SessionIn()
        s = await _agent(request).aend_session(
            user_id=user, at=body.time, background=body.background, policy=body.policy
        )
        return SessionOut(**{k: v for k, v in asdict(s).items() if k != "trace"})

    # Memory admin calls Chroma synchronously: plain ``def`` endpoints run in FastAPI's thread pool.
    @app.get("/memories")
    def memories(request: Request, user: User) -> list[dict]:
        return [r.model_dump(mode="json") for r in _agent(request).memories(user)]

    @app.get("/memories/export")
    def export(request: Request, user: User) -> StreamingResponse:
        store = _agent(request).services.store
        filename = re.sub(r"[^A-Za-z0-9_.-]", "_", user)
        terms = store.terms.terms(user)
        return StreamingResponse(  # streamed record by record, with their vectors: constant memory for any size
            export_lines(store.iter_vectors(user), user, store.profile(user), store.embedder.name, terms=terms),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="caim-{filename}.json"'},
        )

    @app.delete("/memories/{record_id}")
    def forget(record_id: RecordId, request: Request, user: User) -> dict:
        return _forget(_agent(request), user, record_id)

    @app.get("/memories/{record_id}/history")
    def history(record_id: RecordId, request: Request, user: User) -> list[dict]:
        return _history(_agent(request), user, record_id)

    return app


@asynccontextmanager
async def _lifespan(app: FastAPI, agent: CaimAgent | None, *, owned: bool) -> AsyncIterator[None]:
    """Use ``agent`` (or build one) for the app's life; close it at shutdown when the app built it."""
    app.state.agent = agent or CaimAgent()
    try:
        yield
    finally:
        if owned:
            app.state.agent.close()


def _add_error_handlers(app: FastAPI) -> None:
    """Answer every error with a one-line ``{"detail": ...}`` body and the status it calls for."""

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": argument_error(exc.errors())}, status_code=ARGUMENT_STATUS)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and exc.detail == UNPARSED_BODY:  # e.g. JSON nested too deep to parse
            body = {"detail": "body: malformed JSON (it could not be parsed)"}
            return JSONResponse(body, status_code=ARGUMENT_STATUS)
        return JSONResponse({"detail": one_line(exc.detail)}, status_code=exc.status_code, headers=exc.headers)

    async def refused(_request: Request, exc: Exception) -> JSONResponse:
        # caim's one mapping (caim.agent.surfaces.errors): what the client sent cannot be used (400,
        # nothing stored), the model endpoint failing (502/504), storage or configuration failing (503),
        # anything else a fault of the server (500; the traceback goes to the server log).
        return JSONResponse({"detail": error_line(exc)}, status_code=http_status(exc))

    app.add_exception_handler(CaimError, refused)
    app.add_exception_handler(Exception, refused)


def _agent(request: Request) -> CaimAgent:
    """The app's agent."""
    return request.app.state.agent


def _message_of(body: ChatIn, request: Request) -> str:
    """The request's message, within the agent's length bound (413 otherwise)."""
    try:
        return check_length(body.message, _agent(request).settings.max_message_chars)
    except InputError as exc:
        raise HTTPException(413, str(exc)) from None


async def _text_stream(tokens: AsyncIterator[str]) -> StreamingResponse:
    """Stream ``tokens`` as plain text, after pulling the first one so that errors (e.g. no model)
    become a proper status."""
    try:
        first = await anext(tokens)
    except StopAsyncIteration:
        first = ""

    async def rest() -> AsyncIterator[str]:
        if first:
            yield first
        async for tok in tokens:
            yield tok

    return StreamingResponse(rest(), media_type="text/plain; charset=utf-8")


def _forget(agent: CaimAgent, user: str, record_id: str) -> dict:
    """Forget the user's memory ``record_id`` (404 when there is none)."""
    if not agent.forget(user, record_id):
        raise HTTPException(404, "no such memory")
    return {"deleted": record_id}


def _history(agent: CaimAgent, user: str, record_id: str) -> list[dict]:
    """The changes of the user's memory ``record_id`` (404 when there is none)."""
    if agent.get_memory(user, record_id) is None:
        raise HTTPException(404, "no such memory")
    return agent.history(user, record_id)


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(create_app(bind="127.0.0.1"), host="127.0.0.1", port=8000)
