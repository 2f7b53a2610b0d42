"""Authentication for caim on the LangGraph server: the user is who the token says, nothing else.

``deploy/langgraph.json`` points the server at ``auth`` below. Every request must carry
``Authorization: Bearer <token>``; the token names the user (``CAIM_AUTH_TOKENS``, a JSON object
of token -> user id, parsed when the server loads this module at start: a malformed map stops the
server with a one-line ``ConfigError`` - replace ``verify`` with a call to your identity provider).
Then:

- threads and runs a user creates are stamped with ``owner = <user>``, and every read, search,
  update or delete is filtered by it, so no user sees another's threads or state;
- the graph takes its user id from the authenticated identity (``caim.graph.builder`` reads
  ``langgraph_auth_user_id`` from the run's configuration), so passing another user's id in the
  run context has no effect: memories are read, written and forgotten only for the token's user;
- a run's context (and a cron's) may carry only what ``caim.graph.state.Context`` lets a client
  choose, with a registered policy and budgets in range; anything else - provider, endpoint, model,
  keys, data dir, namespace, an unknown key - is refused with a 400 naming it before the run is
  created (the server itself would silently drop unknown keys), and logged on ``caim.server``;
- the LangGraph store is per user: every item lives under a namespace whose first label is the
  user's id; put, get and delete elsewhere are refused (403), search and list_namespaces see only
  the user's own namespaces;
- what a client stores beside its runs is bounded: metadata of a thread, run or cron over
  ``MAX_METADATA_BYTES`` and a store item's value over ``MAX_STORE_VALUE_BYTES`` (as JSON) are
  refused with a 413 naming the limit;
- the hosts served and one-line refusals are the deployment's HTTP middleware
  (``caim.agent.surfaces.langgraph_app``, ``http.app`` in ``deploy/langgraph.json``): with ``CAIM_ALLOWED_HOSTS``
  set, a request for another ``Host`` is a 421, one from another site's page a 403 - the same guard
  as every server caim starts;
- assistants (the deployed graph) can be read by every authenticated user, changed by none.
"""

from __future__ import annotations

import json
import os
from typing import Any

from langgraph_sdk import Auth

from caim.agent.surfaces import run_checks
from caim.agent.surfaces.errors import http_status
from caim.agent.surfaces.tokens import TokenMap, bearer_user, parse_tokens

auth = Auth()

#: Largest metadata (as JSON) a thread, run or cron may carry, and largest store item value.
MAX_METADATA_BYTES = 16 * 1024
MAX_STORE_VALUE_BYTES = 64 * 1024

#: The deployment's tokens, read once when the server loads this module.
_TOKENS = TokenMap(parse_tokens(os.environ.get("CAIM_AUTH_TOKENS", "")))


def tokens_fingerprint() -> bytes:
    """A digest of the token -> user map read at start: it changes whenever a token is added, removed
    or given to another user (the memory browser signs its sessions under it, so they end then)."""
    return _TOKENS.fingerprint()


def verify(token: str) -> str | None:
    """The user id a token belongs to, or None (``TokenMap.verify``: constant time, every token compared)."""
    return _TOKENS.verify(token)


def check_run_context(context: Any) -> None:
    """Refuse (400, one line) a run context a client may not send (``caim.agent.surfaces.run_checks``)."""
    try:
        run_checks.check_run_context(context)
    except run_checks.RunRefused as exc:
        raise Auth.exceptions.HTTPException(status_code=http_status(exc), detail=str(exc)) from None


def check_run_input(payload: Any) -> None:
    """Refuse a run's input before the server stores it (413 or 422, one line; ``caim.agent.surfaces.run_checks``)."""
    try:
        run_checks.check_run_input(payload)
    except run_checks.RunRefused as exc:
        raise Auth.exceptions.HTTPException(status_code=http_status(exc), detail=str(exc)) from None


def check_size(what: str, value: Any, limit: int) -> None:
    """Refuse (413, one line) ``value`` when its JSON is over ``limit`` bytes (or is no JSON at all)."""
    try:
        size = len(json.dumps(value, default=str).encode())
    except (TypeError, ValueError, RecursionError):
        raise Auth.exceptions.HTTPException(status_code=422, detail=f"{what} must be JSON data") from None
    if size > limit:
        raise Auth.exceptions.HTTPException(
            status_code=413, detail=f"{what} of {size:,} bytes; at most {limit:,} are kept (as JSON)"
        )


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    """The user a request's ``Authorization: Bearer <token>`` names (``verify``); 401 without one."""
    user = bearer_user(authorization, verify)
    if not user:
        raise Auth.exceptions.HTTPException(status_code=401, detail="missing or invalid bearer token")
    return {"identity": user, "is_authenticated": True}


@auth.on
async def owner_only(ctx: Auth.types.AuthContext, value: dict) -> dict:
    """Stamp what a user creates with their identity and let them see only that; metadata over
    ``MAX_METADATA_BYTES`` is refused."""
    metadata = value.get("metadata") if isinstance(value, dict) else None
    if metadata is not None:
        check_size("metadata", metadata, MAX_METADATA_BYTES)
    if isinstance(metadata, dict):
        metadata["owner"] = ctx.user.identity
    return {"owner": ctx.user.identity}


@auth.on.threads.create_run
async def create_run(ctx: Auth.types.AuthContext, value: Auth.types.RunsCreate) -> dict:
    """A run on the user's own thread, with a context a client may send. ``kwargs.context`` is what the
    client sent as ``context``, or else as ``config.configurable`` (the server runs the graph with it)."""
    kwargs = value.get("kwargs") or {}
    check_run_context(kwargs.get("context"))
    check_run_input(kwargs.get("input"))
    return await owner_only(ctx, dict(value))


@auth.on.crons
async def crons(ctx: Auth.types.AuthContext, value: dict) -> dict:
    """Crons are the user's own; a cron's runs start without a request to check, so its payload's
    context is checked when the cron is created or updated."""
    payload = value.get("payload")
    if ctx.action in ("create", "update") and isinstance(payload, dict):
        check_run_context(payload.get("context"))
        check_run_input(payload.get("input"))
        config = payload.get("config")
        if isinstance(config, dict) and isinstance(config.get("configurable"), dict):
            # the server adds cron_id; the rest is the client's and becomes the cron runs' context
            check_run_context({k: v for k, v in config["configurable"].items() if k != "cron_id"})
    return await owner_only(ctx, value)


@auth.on.store
async def own_namespace(ctx: Auth.types.AuthContext, value: dict) -> None:
    """Store items live under ``(<user id>, ...)``. put/get/delete elsewhere are refused; search and
    list_namespaces without a prefix are scoped to the user's namespaces, with another's refused; a
    value over ``MAX_STORE_VALUE_BYTES`` is refused."""
    user = ctx.user.identity
    namespace = tuple(value.get("namespace") or ())
    if ctx.action == "put" and value.get("value") is not None:
        check_size("a store item's value", value.get("value"), MAX_STORE_VALUE_BYTES)
    if not namespace and ctx.action in ("search", "list_namespaces"):
        value["namespace"] = (user,)
        return
    if not namespace or namespace[0] != user:
        raise Auth.exceptions.HTTPException(
            status_code=403, detail=f"store namespaces of this user begin with {user!r}, e.g. [{user!r}, 'notes']"
        )


@auth.on.assistants
async def assistants(ctx: Auth.types.AuthContext, value: dict) -> bool:
    """Assistants may be read and searched, not changed: 403 for any other action."""
    if ctx.action in ("read", "search"):
        return True
    raise Auth.exceptions.HTTPException(status_code=403, detail="assistants are managed by the deployment")
