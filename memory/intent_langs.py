"""Goal-aware recall's words per language other than English: request cues and slot readers.

Each language's module (``caim.memory.text.lang_de`` ... ``lang_ja``) holds its ``IntentWords`` table
(``INTENTS``) beside its other tables; ``caim.memory.intents`` reads a text with the table of its
language (``caim.memory.text.lang.detect``), English with its own patterns. A closed-vocabulary
value is the English word of the catalogue (``"italienisch"`` and ``"italien"`` are both
``"italian"``), so a value said in one language matches one said in another, as the single-value
slots do (``caim.memory.text.slots``). Where the user lives and their diet are read by
``caim.memory.text.slots`` (six languages); a task's outcome (``outcome_cues``) and what a gift's
recipient likes (``IntentWords.likes``) in each table's language.
"""

from __future__ import annotations

import re
from functools import cache

from caim.memory.text import languages
from caim.memory.text.intent_words import IntentWords

__all__ = ["IntentWords", "cue", "intent_table", "outcome_cues", "spaced_others", "vocab_pattern"]


def intent_table(code: str) -> IntentWords | None:
    """The goal-aware recall table of language ``code`` (None for English, whose patterns are
    ``caim.memory.intents``' own, and for a language without tables)."""
    found = languages.module(code)
    return found.INTENTS if found is not None else None


def spaced_others() -> tuple[str, ...]:
    """The codes of the languages with tables, other than English, written with spaces: those a short
    text detected as English may be in."""
    return tuple(m.LANGUAGE.code for m in languages.spaced_others() if m.INTENTS is not None)


@cache
def cue(code: str, intent: str) -> re.Pattern[str] | None:
    """The compiled request cues of ``intent`` in language ``code`` (None for none)."""
    table = intent_table(code)
    cues = table.cues.get(intent, ()) if table is not None else ()
    return re.compile("|".join(cues), re.I) if cues else None


#: The order a turn's outcome is looked for in: a cancellation overrides a booking it names.
OUTCOME_ORDER = ("cancelled", "booked", "chosen")


@cache
def outcome_cues(code: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The compiled outcome patterns of language ``code``, in ``OUTCOME_ORDER`` (empty for none)."""
    table = intent_table(code)
    said = table.outcomes if table is not None else {}
    return tuple((name, re.compile(said[name], re.I)) for name in OUTCOME_ORDER if name in said)


@cache
def vocab_pattern(code: str, kind: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """A language's words of one vocabulary (``cuisine``, ``diet`` ...) as (pattern, English value);
    a spaced language's word may take an ending ("italienische")."""
    table = intent_table(code)
    if table is None:
        return ()
    words = table.vocab.get(kind, {})
    if table.unspaced:
        return tuple((re.compile(re.escape(w)), v) for w, v in words.items())
    return tuple((re.compile(rf"(?<!\w){re.escape(w)}\w{{0,3}}(?!\w)", re.I), v) for w, v in words.items())


@languages.on_change
def _forget() -> None:
    """Drop what was compiled from the languages registered before."""
    for compiled in (cue, outcome_cues, vocab_pattern):
        compiled.cache_clear()
