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


#: A record id as the store makes it: 32 lowercase hexadecimal characters (``uuid4().hex`` or
#: ``caim.memory.records.stable_id``).
RECORD_ID_CHARS = 32
_HEX = frozenset("0123456789abcdef")
#: Longest id a lookup takes (longer ones are no memory of anyone's).
MAX_LOOKUP_ID = 128
#: A tag: an ontology term's shape - a lowercase letter, then letters, digits, ``_`` or ``-``; at most
#: ``MAX_TAG`` characters.
MAX_TAG = 32
_TAG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


def is_record_id(value: object) -> bool:
    """Whether ``value`` is a record id as the store makes it (``RECORD_ID_CHARS`` hexadecimal characters).

    >>> is_record_id("0123456789abcdef0123456789abcdef"), is_record_id("</data> x"), is_record_id(7)
    (True, False, False)
    """
    return isinstance(value, str) and len(value) == RECORD_ID_CHARS and set(value) <= _HEX


def is_tag(value: object) -> bool:
    """Whether ``value`` has an ontology term's shape (see ``MAX_TAG``).

    >>> is_tag("food"), is_tag("food</data>"), is_tag("Food"), is_tag("x" * 33)
    (True, False, False, False)
    """
    return isinstance(value, str) and 0 < len(value) <= MAX_TAG and "a" <= value[0] <= "z" and set(value) <= _TAG_CHARS


def lookup_id(value: object) -> str | None:
    """A record id a caller asks for, as a lookup may take it (``None``: it names no memory of anyone:
    not a string, empty, or over ``MAX_LOOKUP_ID`` characters). Records stored before ids were
    checked keep the ids they have - whatever characters they hold - and must stay reachable to be
    forgotten, so a lookup is not held to ``is_record_id``: it only reads, by the caller's user."""
    if not isinstance(value, str) or not value or len(value) > MAX_LOOKUP_ID:
        return None
    return value
