"""Checks of what a caller names: a user id is bounded text, never a path or a control sequence.

>>> check_user("marta")
'marta'
>>> check_user("")
Traceback (most recent call last):
...
caim.core.errors.InputError: a user id is required (a non-empty string)
"""

from __future__ import annotations

from caim.core.errors import InputError

MAX_USER_ID = 256


def check_user(user_id: str) -> str:
    """A usable user id, or a one-line ``InputError`` (empty, too long, control characters)."""
    if not isinstance(user_id, str) or not user_id.strip():
        raise InputError("a user id is required (a non-empty string)")
    if len(user_id) > MAX_USER_ID:
        raise InputError(f"user id of {len(user_id)} characters; at most {MAX_USER_ID} are allowed")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in user_id):
        raise InputError("user id contains control characters")
    return user_id
