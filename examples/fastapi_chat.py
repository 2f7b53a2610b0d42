"""A minimal chat server on ``CaimAgent``: chat, streamed chat, session end and memory admin.

Run it (models and data dir come from ``CAIM_*`` settings / ``OPENAI_API_KEY``, as for the CLI)::

    pip install fastapi uvicorn
    uvicorn examples.fastapi_chat:create_app --factory --port 8000

    curl -s localhost:8000/chat -H 'content-type: application/json' \\
         -d '{"user_id": "alice", "message": "I love hiking."}'
    curl -sN localhost:8000/chat/stream -H 'content-type: application/json' \\
         -d '{"user_id": "alice", "message": "What do I like?"}'
    curl -s localhost:8000/session/end -H 'content-type: application/json' -d '{"user_id": "alice"}'
    curl -s localhost:8000/memories/alice

Endpoints:
    POST   /chat                         {user_id, message, time?} -> {text, route, memories, notice}
    POST   /chat/stream                  same body -> the reply as a plain-text token stream
    POST   /session/end                  {user_id, time?, background?} -> what post-thinking stored and
                                         changed; with background: the queued job, at once
    GET    /memories/{user_id}           the user's memory records
    DELETE /memories/{user_id}/{id}      forget one record (404 if unknown)
    GET    /memories/{user_id}/{id}/history  the record's chain of changes
    GET    /memories/{user_id}/export    everything stored about the user, as a streamed JSON download

``create_app(agent)`` takes a ready ``CaimAgent`` (tests inject one with scripted models); without one
the app builds ``CaimAgent()`` at startup and closes it at shutdown.
"""

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from datetime import datetime

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from caim.agent import CaimAgent, CaimError
from caim.memory.transfer import export_lines


class ChatIn(BaseModel):
    user_id: str = Field(min_length=1)
    message: str
    time: datetime | None = Field(default=None, description="When the turn happens (default: now).")


class ChatOut(BaseModel):
    text: str
    route: str
    memories: list[dict]
    notice: str = ""


class SessionIn(BaseModel):
    user_id: str = Field(min_length=1)
    time: datetime | None = None
    background: bool = Field(default=False, description="Queue post-thinking and answer at once.")


class SessionOut(BaseModel):
    stored: list[dict]
    merged: list[dict]
    changes: list[dict]
    key_events: list[dict]
    ontology_added: list[str]
    denied: int
    complete: bool
    job: str = ""


def create_app(agent: CaimAgent | None = None) -> FastAPI:
    owned = agent is None

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.agent = agent or CaimAgent()
        try:
            yield
        finally:
            if owned:
                app.state.agent.close()

    app = FastAPI(title="caim chat", lifespan=lifespan)
    if agent is not None:  # usable even when the lifespan does not run
        app.state.agent = agent

    def get_agent(request: Request) -> CaimAgent:
        return request.app.state.agent

    @app.exception_handler(CaimError)
    async def caim_error(_request: Request, exc: CaimError) -> JSONResponse:
        # Model endpoint unreachable, bad configuration: one line, no traceback.
        return JSONResponse({"detail": str(exc)}, status_code=503)

    @app.post("/chat", response_model=ChatOut)
    async def chat(body: ChatIn, request: Request) -> ChatOut:
        reply = await get_agent(request).achat(body.message, user_id=body.user_id, at=body.time)
        return ChatOut(text=reply.text, route=reply.route, memories=reply.memories, notice=reply.notice)

    @app.post("/chat/stream")
    async def chat_stream(body: ChatIn, request: Request) -> StreamingResponse:
        tokens = get_agent(request).astream(body.message, user_id=body.user_id, at=body.time)
        # Pull the first token before answering, so errors (e.g. no model) become a proper status.
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

    @app.post("/session/end", response_model=SessionOut)
    async def end_session(body: SessionIn, request: Request) -> SessionOut:
        s = await get_agent(request).aend_session(user_id=body.user_id, at=body.time, background=body.background)
        return SessionOut(**{k: v for k, v in asdict(s).items() if k != "trace"})

    # Memory admin calls Chroma synchronously: plain ``def`` endpoints run in FastAPI's thread pool.
    @app.get("/memories/{user_id}")
    def memories(user_id: str, request: Request) -> list[dict]:
        return [r.model_dump(mode="json") for r in get_agent(request).memories(user_id)]

    @app.delete("/memories/{user_id}/{record_id}")
    def forget(user_id: str, record_id: str, request: Request) -> dict:
        if not get_agent(request).forget(user_id, record_id):
            raise HTTPException(404, f"no memory {record_id} for user {user_id}")
        return {"deleted": record_id}

    @app.get("/memories/{user_id}/{record_id}/history")
    def history(user_id: str, record_id: str, request: Request) -> list[dict]:
        if get_agent(request).memory(user_id, record_id) is None:
            raise HTTPException(404, f"no memory {record_id} for user {user_id}")
        return get_agent(request).history(user_id, record_id)

    @app.get("/memories/{user_id}/export")
    def export(user_id: str, request: Request) -> StreamingResponse:
        filename = re.sub(r"[^A-Za-z0-9_.-]", "_", user_id)
        return StreamingResponse(  # streamed record by record: constant memory for any size
            export_lines(get_agent(request).services.store.iter(user_id), user_id),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="caim-{filename}.json"'},
        )

    return app


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(create_app(), host="127.0.0.1", port=8000)
