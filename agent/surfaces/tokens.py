"""The one bearer-token check of every surface: ``caim serve``, ``caim ui``, ``caim mcp --http``, the
LangGraph deployment's auth handlers and the FastAPI example.

A request names its user with ``Authorization: Bearer <token>``; ``bearer_user`` reads the header and
asks a ``Verify`` (token -> user id or None) who it is. The deployment's verify is a ``TokenMap`` over
``CAIM_AUTH_TOKENS`` (``caim.agent.surfaces.auth.verify``): every known token is compared with the one
presented, each in constant time on fixed-length digests, so the time taken says nothing about which
token nearly matched. Replace the verify with a call to your identity provider; the header is still
read here.

>>> tokens = TokenMap({"token-of-ann": "ann"})
>>> bearer_user("Bearer token-of-ann", tokens.verify), bearer_user("Bearer token-of-bob", tokens.verify)
('ann', None)
>>> bearer_user("Basic token-of-ann", tokens.verify) is None
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Mapping

from caim.core.errors import ConfigError

#: Maps a presented token to its user id, or None for a token no one holds.
Verify = Callable[[str], str | None]

TOKENS_SHAPE = 'a JSON object of token -> user id, e.g. {"token-of-ann": "ann"}'


def parse_tokens(raw: str) -> dict[str, str]:
    """The token -> user map in ``CAIM_AUTH_TOKENS``, or a one-line ``ConfigError`` saying what is wrong:
    not set, not JSON, not a non-empty object, or an empty (or space-padded) token or user id."""
    if not raw.strip():
        raise ConfigError(f"CAIM_AUTH_TOKENS is not set; set it to {TOKENS_SHAPE}")
    try:
        tokens = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"CAIM_AUTH_TOKENS is not JSON ({exc.msg}); set it to {TOKENS_SHAPE}") from None
    if not isinstance(tokens, dict) or not tokens:
        raise ConfigError(f"CAIM_AUTH_TOKENS must be {TOKENS_SHAPE}, not {type(tokens).__name__} {raw[:40]!r}")
    for token, user in tokens.items():
        if not token or token != token.strip():
            raise ConfigError(f"CAIM_AUTH_TOKENS has an empty or space-padded token; it must be {TOKENS_SHAPE}")
        if not isinstance(user, str) or not user.strip() or any(ord(ch) < 32 or ord(ch) == 127 for ch in user):
            raise ConfigError(
                f"CAIM_AUTH_TOKENS maps a token to {user!r:.40}; each user id must be a non-empty string "
                f"without control characters ({TOKENS_SHAPE})"
            )
    return tokens


def token_digest(token: str) -> bytes:
    """A token's fixed-length digest (what is kept and compared instead of the token)."""
    return hashlib.sha256(token.encode()).digest()


class TokenMap:
    """Known tokens (kept as digests) and their users; ``verify`` is the constant-time check.

    Args:
        tokens: Token -> user id (``parse_tokens``).
    """

    def __init__(self, tokens: Mapping[str, str]) -> None:
        self._users = {token_digest(token): user for token, user in tokens.items()}

    def verify(self, token: str) -> str | None:
        """The user id ``token`` belongs to, or None. Every known token is compared, each in constant
        time on digests, whether or not an earlier one matched."""
        presented = token_digest(token)
        user = None
        for known, owner in self._users.items():
            if hmac.compare_digest(known, presented):
                user = owner
        return user

    def fingerprint(self) -> bytes:
        """A digest of the map: it changes whenever a token is added, removed or given to another user."""
        h = hashlib.sha256()
        for digest, user in sorted(self._users.items()):
            h.update(digest + b"\x00" + user.encode() + b"\x00")
        return h.digest()


def is_bearer(authorization: str | None) -> bool:
    """Whether an ``Authorization`` header names the ``Bearer`` scheme (any case), a token or not."""
    return (authorization or "").partition(" ")[0].lower() == "bearer"


def bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization`` header ``Bearer <token>``, or "" for none or another scheme."""
    return (authorization or "").partition(" ")[2].strip() if is_bearer(authorization) else ""


def bearer_user(authorization: str | None, verify: Verify) -> str | None:
    """The user whose token an ``Authorization`` header carries (``verify``), or None: no header, another
    scheme, an empty or unknown token."""
    token = bearer_token(authorization)
    return verify(token) if token else None
