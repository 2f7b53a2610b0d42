"""Authentication for caim on the LangGraph server: the user is who the token says, nothing else.

``deploy/langgraph.json`` points the server at ``auth`` below. Every request must carry
``Authorization: Bearer <token>``; the token names the user (``CAIM_AUTH_TOKENS``, a JSON object
of token -> user id, read at start - replace ``verify`` with a call to your identity provider).
Then:

- threads and runs a user creates are stamped with ``owner = <user>``, and every read, search,
  update or delete is filtered by it, so no user sees another's threads or state;
- the graph takes its user id from the authenticated identity (``caim.graph.builder`` reads
  ``langgraph_auth_user_id`` from the run's configuration), so passing another user's id in the
  run context has no effect: memories are read, written and forgotten only for the token's user;
- assistants (the deployed graph) can be read by every authenticated user, changed by none.
"""

from __future__ import annotations

import hmac
import json
import os

from langgraph_sdk import Auth

auth = Auth()


def _tokens() -> dict[str, str]:
    raw = os.environ.get("CAIM_AUTH_TOKENS", "")
    try:
        tokens = json.loads(raw) if raw else {}
    except ValueError:
        tokens = {}
    return {str(k): str(v) for k, v in tokens.items()} if isinstance(tokens, dict) else {}


def verify(token: str) -> str | None:
    """The user id a token belongs to, or None (constant-time comparison)."""
    user = None
    for known, owner in _tokens().items():
        if hmac.compare_digest(known.encode(), token.encode()):
            user = owner
    return user


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    scheme, _, token = (authorization or "").partition(" ")
    user = verify(token.strip()) if scheme.lower() == "bearer" else None
    if not user:
        raise Auth.exceptions.HTTPException(status_code=401, detail="missing or invalid bearer token")
    return {"identity": user, "is_authenticated": True}


@auth.on
async def owner_only(ctx: Auth.types.AuthContext, value: dict) -> dict:
    """Stamp what a user creates with their identity and let them see only that."""
    metadata = value.get("metadata") if isinstance(value, dict) else None
    if isinstance(metadata, dict):
        metadata["owner"] = ctx.user.identity
    return {"owner": ctx.user.identity}


@auth.on.assistants
async def assistants(ctx: Auth.types.AuthContext, value: dict) -> bool:
    if ctx.action in ("read", "search"):
        return True
    raise Auth.exceptions.HTTPException(status_code=403, detail="assistants are managed by the deployment")
