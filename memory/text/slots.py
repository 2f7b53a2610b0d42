"""Single-value facts in code: the attributes of the speaker that hold one value at a time (name,
age, home city, diet, job, employer), read from what they say of themselves.

``slots`` reads a text sentence by sentence with its language's table (``SlotWords`` in ``lang_en``
... ``lang_ja``; English for a language without one, then - for a short text that detection could
only guess was English - German's, French's and Spanish's), outside questions, and returns per
attribute the value its last statement gives. Patterns start at the speaker ("I live in", "ich wohne in",
"我住在"), so another person's fact ("my sister lives in Lyon") and a past one ("I used to live in
Porto") hold no slot. A stated value is a span of the text itself, cut at the first stop word; a
closed-set value (a diet) is the table's English word, so "vegetarian" said in German and in French
is the same value. ``Slot.key`` is what two values are compared by.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from caim.memory.text import lang_de, lang_en, lang_es, lang_fr, lang_ja, lang_zh
from caim.memory.text.lang import detect
from caim.memory.text.tables import SlotWords

Attribute = Literal["name", "age", "location", "diet", "job", "employer"]
#: The closed set of single-value attributes the signal reads (each one an ontology term the
#: ontology marks single-valued: ``caim.ontology.Ontology.single_valued``).
ATTRIBUTES: tuple[Attribute, ...] = ("name", "age", "location", "diet", "job", "employer")
#: Most words a stated value holds ("New York City" is one; a longer span is no value).
MAX_WORDS = 4
#: Most characters a stated value holds in a language written without spaces.
MAX_CHARS = 12
#: Ages a statement may give.
AGES = range(1, 130)

_TABLES: dict[str, SlotWords] = {
    "en": lang_en.SLOTS,
    "de": lang_de.SLOTS,
    "fr": lang_fr.SLOTS,
    "es": lang_es.SLOTS,
    "zh": lang_zh.SLOTS,
    "ja": lang_ja.SLOTS,
}
#: The tables tried, in turn, on a text detected as English in which English's finds nothing.
_SPACED_OTHERS = (lang_de.SLOTS, lang_fr.SLOTS, lang_es.SLOTS)
_SPACED_VALUE = r"(?P<value>[^,.;:!?()\[\]\n\"\u201c\u201d]+)"
_UNSPACED_VALUE = r"(?P<value>[^\s\u3001\u3002\uff0c\uff01\uff1f\uff1a\uff1b,.!?;:\u306f\u3082\u304c\u3092\u306b]+)"
_NUMBER = r"(?P<value>\d{1,3})"
_SENTENCE = re.compile(r"[^.!?\n\u3002\uff01\uff1f]+[.!?\u3002\uff01\uff1f]*")
_TRIM = " \t'\"\u2019\u201c\u201d-"


@dataclass(frozen=True)
class Slot:
    """A single-value fact the speaker states of themselves: the attribute and its value as said."""

    attribute: Attribute
    value: str

    @property
    def key(self) -> str:
        """The value as compared: case and spacing left out ("New  york" is "new york")."""
        return " ".join(self.value.casefold().split())


def slots(text: str) -> dict[Attribute, Slot]:
    """The single-value facts a text states of its speaker, per attribute (its last statement).

    >>> sorted(s.value for s in slots("Hi, my name is Ana and I'm 34. I live in Porto with my partner.").values())
    ['34', 'Ana', 'Porto']
    >>> slots("I stopped eating meat last year")["diet"].value
    'vegetarian'
    >>> slots("My sister lives in Lyon"), slots("Do I live in Lyon?"), slots("I used to live in Porto")
    ({}, {}, {})
    """
    return dict(_read_text(text))


@lru_cache(maxsize=8192)
def _read_text(text: str) -> tuple[tuple[Attribute, Slot], ...]:
    """``slots`` as pairs, cached per text (maintenance reads the same records more than once)."""
    language = detect(text)
    found = _slots(text, _TABLES.get(language.code, lang_en.SLOTS), language.unspaced)
    if not found and language.code == "en":  # English is also the guess for a short text ("Soy vegana.")
        found = next((f for t in _SPACED_OTHERS if (f := _slots(text, t, False))), {})
    return tuple(found.items())


def _slots(text: str, table: SlotWords, unspaced: bool) -> dict[Attribute, Slot]:
    """``slots`` with one language's table."""
    found: dict[Attribute, tuple[int, Slot]] = {}
    for sentence in _SENTENCE.finditer(text):
        if sentence.group(0).rstrip().endswith(("?", "\uff1f")) or _about_others(sentence.group(0), table):
            continue
        for at, slot in _read(sentence.group(0), table, unspaced):
            here = sentence.start() + at
            if slot.attribute not in found or here >= found[slot.attribute][0]:
                found[slot.attribute] = (here, slot)
    return {attribute: slot for attribute, (_, slot) in found.items()}


def _read(sentence: str, table: SlotWords, unspaced: bool) -> list[tuple[int, Slot]]:
    """Every slot a sentence states, with where its statement starts."""
    out: list[tuple[int, Slot]] = []
    for attribute, pattern in _compiled(table, unspaced):
        for m in pattern.finditer(sentence):
            value = _value(m.group("value"), attribute, table, unspaced)
            if value:
                out.append((m.start(), Slot(attribute, value)))
    for attribute, value, fixed in _fixed(table):
        out += [(m.start(), Slot(attribute, value)) for m in fixed.finditer(sentence)]
    return out


def _about_others(sentence: str, table: SlotWords) -> bool:
    """Is another person the sentence's subject, by the table's ``others`` ("妹は...")?"""
    return bool(table.others) and re.search(table.others, sentence) is not None


@cache
def _compiled(table: SlotWords, unspaced: bool) -> tuple[tuple[Attribute, re.Pattern[str]], ...]:
    value = _UNSPACED_VALUE if unspaced else _SPACED_VALUE
    return tuple(
        (_attribute(attribute), re.compile(p.replace("{v}", value).replace("{n}", _NUMBER), re.I))
        for attribute, p in table.patterns
    )


@cache
def _fixed(table: SlotWords) -> tuple[tuple[Attribute, str, re.Pattern[str]], ...]:
    return tuple((_attribute(attribute), value, re.compile(p, re.I)) for attribute, value, p in table.values)


def _attribute(name: str) -> Attribute:
    """``name`` as an attribute of the closed set (a table naming another is a programming error)."""
    if name not in ATTRIBUTES:
        raise ValueError(f"slot table names {name!r}, not one of {ATTRIBUTES}")
    return name


def _value(span: str, attribute: Attribute, table: SlotWords, unspaced: bool) -> str:
    """A stated value cut to its words ("" when the span holds no value)."""
    if attribute == "age":
        return span if span.isdigit() and int(span) in AGES else ""
    if unspaced:
        return _unspaced_value(span, table)
    words = span.strip(_TRIM).split()
    while words and words[0].casefold() in table.articles:
        words = words[1:]
    kept: list[str] = []
    for word in words:
        if word.casefold().strip(_TRIM) in table.stops or word.isdigit():
            break
        kept.append(word)
    if not kept or len(kept) > MAX_WORDS or kept[0].casefold() in table.not_values:
        return ""
    return " ".join(kept).strip(_TRIM)


def _unspaced_value(span: str, table: SlotWords) -> str:
    cut = min((i for i in (span.find(s) for s in table.stops) if i >= 0), default=len(span))
    value = span[:cut].strip(_TRIM)
    if not value or len(value) > MAX_CHARS or any(value.startswith(w) for w in table.not_values):
        return ""
    return value
