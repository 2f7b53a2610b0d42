"""The privacy bounds a record must be within to be stored or imported."""

from __future__ import annotations

from collections.abc import Sequence

from caim.core.settings import Settings
from caim.ontology import Ontology


def within_bounds(ontology: Ontology, tags: Sequence[str], settings: Settings, user_denied: Sequence[str]) -> bool:
    """The privacy bounds: no tag under a category the deployment denies or the user denied
    (``user_denied``, the store's list for the user), and (when an allow-list is set) every tag under
    an allowed one. A record without a tag (its category unsure) is within bounds only where none
    are set: what it is about cannot be shown to be allowed."""
    denied = [*settings.deny_categories, *user_denied]
    allowed = settings.allow_categories
    if not tags:
        return not (denied or allowed)
    if denied and any(ontology.under(t, denied) for t in tags):
        return False
    return not (allowed and not all(ontology.under(t, allowed) for t in tags))
