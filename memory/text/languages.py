"""The languages with tables, each one module, registered here by code.

A language is one module (``lang_en`` ... ``lang_ja``; docs/languages.md says how to write one) that
holds every table the text analysis reads of it:

- ``LANGUAGE``: a ``Language`` (stopwords, stems, detection votes, signal words, time words);
- ``SLOTS``: its ``SlotWords`` (the speaker's name, age, home, diet, job, employer) and ``ASKS``,
  the questions that ask the speaker's own value, as (attribute, pattern) pairs;
- ``POLARITY``: its ``PolarityWords`` (likes and dislikes);
- ``ENTITIES``: its ``EntityWords`` (the work, places, people and pets of a life);
- ``INTENTS``: its ``IntentWords`` (goal-aware recall's request cues, vocabularies and slot
  words; English's are ``caim.memory.intents``' own patterns, so ``lang_en`` has none).

``register(module)`` adds one (at run time too); detection, the tokenizer, slots, polarity,
entities, intents and the reader's lexicon read the registered modules by code (``module``,
``spaced_others``), and what they compiled from the set is dropped (``on_change``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from caim.memory.text import lang_de, lang_en, lang_es, lang_fr, lang_ja, lang_zh
from caim.memory.text.intent_words import IntentWords
from caim.memory.text.tables import EntityWords, Language, PolarityWords, SlotWords

ENGLISH = "en"


class LanguageModule(Protocol):
    """What a language's module holds (module attributes)."""

    LANGUAGE: Language
    SLOTS: SlotWords
    ASKS: tuple[tuple[str, str], ...]
    POLARITY: PolarityWords
    ENTITIES: EntityWords
    INTENTS: IntentWords | None


_MODULES: dict[str, LanguageModule] = {}
_HOOKS: list[Callable[[], None]] = []


def register(module: LanguageModule) -> None:
    """Add a language (or replace the one of its code), after those registered before it: English
    first, the others in the order ties between them are broken."""
    _MODULES[module.LANGUAGE.code] = module
    for hook in _HOOKS:
        hook()


def unregister(code: str) -> None:
    """Remove the language ``code`` (English stays)."""
    if code != ENGLISH and _MODULES.pop(code, None) is not None:
        for hook in _HOOKS:
            hook()


def on_change(hook: Callable[[], None]) -> Callable[[], None]:
    """Call ``hook`` (which drops what was compiled from the registered languages) on every change."""
    _HOOKS.append(hook)
    return hook


def registered() -> tuple[LanguageModule, ...]:
    """Every registered language's module, English first."""
    return tuple(_MODULES.values())


def module(code: str) -> LanguageModule | None:
    """The module of the language ``code`` (None for none)."""
    return _MODULES.get(code)


def english() -> LanguageModule:
    """English's module (the default for a language without tables)."""
    return _MODULES[ENGLISH]


def spaced_others() -> tuple[LanguageModule, ...]:
    """The languages other than English written with spaces (German, French, Spanish...): those a
    short text detected as English may be in."""
    return tuple(m for m in _MODULES.values() if m.LANGUAGE.code != ENGLISH and not m.LANGUAGE.unspaced)


for _builtin in (lang_en, lang_de, lang_fr, lang_es, lang_zh, lang_ja):
    register(_builtin)
