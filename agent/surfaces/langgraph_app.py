"""The HTTP app both LangGraph configurations give the server (``http.app`` in ``langgraph.json`` for
the local ``langgraph dev`` server and in ``deploy/langgraph.json`` for the authenticated
deployment): no routes of its own, middleware the server puts around every route, its own API included.

- The hosts served: ``caim.agent.surfaces.web.HostGuard``, the guard of every server caim starts - with
  ``CAIM_ALLOWED_HOSTS`` set, a request for another ``Host`` is a 421 and one from another site's page
  (``Origin``) a 403 (LangGraph Studio's page is another site: list its host to use Studio with the
  server); unset, any host. ``/ok`` and ``/health`` (the server's health) pass.
- One-line refusals: the server's own 4xx answers (its request validation) are cut to their first
  paragraph on one line (``caim.agent.surfaces.web.OneLineErrors``).
- Runs checked before the server stores them, as the deployment's auth handlers do
  (``caim.agent.surfaces.run_checks``): a request that creates or changes runs, crons or assistants (``POST``,
  ``PUT`` or ``PATCH`` under ``/runs``, ``/crons`` or ``/assistants``) is read whole - at most
  ``max_run_bytes()``, else a 413 - and a context key no run may set, a value out of range, an
  unknown policy, too many or too long messages or a bad turn time is answered 400, 413 or 422 with
  ``{"detail": "<one line naming the field>"}``; anything else goes on to the server, body unchanged.

Without authentication (``langgraph.json``) the user is the run context's ``user_id`` (a local,
single-user server); who may do what on the deployment is ``caim.agent.surfaces.auth``'s (the auth handlers).
"""

from __future__ import annotations

import json
import re

from starlette.applications import Starlette
from starlette.middleware import Middleware

from caim.agent.surfaces.errors import error_line, http_status
from caim.agent.surfaces.run_checks import MAX_INPUT_MESSAGES, RunRefused, check_run
from caim.agent.surfaces.web import (
    ASGIApp,
    HostGuard,
    Message,
    OneLineErrors,
    Receive,
    Scope,
    Send,
    detail_body,
    send_json,
    served_hosts,
)
from caim.graph.state import message_limit

#: Paths of the requests whose bodies carry a run's context or input.
CHECKED_PATHS = re.compile(r"(^|/)(runs|crons|assistants)(/|$)")


def max_run_bytes() -> int:
    """The largest body a run request may have: ``MAX_INPUT_MESSAGES`` messages of the deployment's
    longest message (``CAIM_MAX_MESSAGE_CHARS``, up to 4 bytes a character), with room for the rest."""
    return MAX_INPUT_MESSAGES * (4 * message_limit() + 1024) + 64 * 1024


class RunChecks:
    """ASGI middleware: refuse a run the server should not store, before it reaches the server."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check a run request's body; pass every request on unless refused."""
        checked = scope["type"] == "http" and scope["method"] in ("POST", "PUT", "PATCH")
        if not checked or not CHECKED_PATHS.search(scope["path"]):
            await self.app(scope, receive, send)
            return
        body, complete = await _read(receive, max_run_bytes())
        if not complete:
            await send_json(send, 413, detail_body(413, f"the request body is over {max_run_bytes()} bytes"))
            return
        try:
            check_run(json.loads(body) if body else None)
        except RunRefused as exc:
            status = http_status(exc)
            await send_json(send, status, detail_body(status, error_line(exc)))
            return
        except RecursionError:  # nested deeper than any run: refused here, the server would fail on it
            await send_json(send, 422, detail_body(422, "the request body is nested too deeply"))
            return
        except ValueError:  # not JSON: the server answers it
            pass
        await self.app(scope, _replay(body, receive), send)


async def _read(receive: Receive, limit: int) -> tuple[bytes, bool]:
    """The request body, and whether it was read whole (False: it is over ``limit`` bytes)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), True  # the client left; the server sees the same
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"", False
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` once, then what the client sends next (a disconnect)."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def create_app() -> Starlette:
    """The app the LangGraph server takes its middleware from: the host check outermost, then
    one-line refusals, then the run checks."""
    return Starlette(
        middleware=[
            Middleware(HostGuard, hosts=served_hosts(auth=True), public=frozenset({"/ok", "/health"})),
            Middleware(OneLineErrors),
            Middleware(RunChecks),
        ]
    )


#: What ``http.app`` names in both configurations; built when the server loads this module.
app = create_app()
