"""Single-value facts in code: the attributes of the speaker that hold one value at a time (name,
age, home city, diet, job, employer), read from what they say of themselves.

``slots`` reads a text sentence by sentence with its language's table (the ``SLOTS`` of its module,
``caim.memory.text.languages``; English's for a language without one, then - for a short text that
detection could only guess was English - each other spaced language's in turn: German's, French's,
Spanish's), outside questions, and returns per
attribute the value its last statement gives. Patterns start at the speaker ("I live in", "ich wohne in",
"我住在"), so another person's fact ("my sister lives in Lyon") and a past one ("I used to live in
Porto") hold no slot. A stated value is a span of the text itself, cut at the first stop word; a
closed-set value (a diet) is the table's English word, so "vegetarian" said in German and in French
is the same value. ``Slot.key`` is what two values are compared by.

``asked`` reads the other side: which of these attributes a question asks of its speaker ("Where do
I live now?" asks ``location``, "¿Cómo me llamo?" ``name``), by question patterns per language that
start at the speaker too (each module's ``ASKS``; "Where does my sister live?" asks none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from caim.memory.text import languages
from caim.memory.text.lang import detect, plausible
from caim.memory.text.signals import memory_signals
from caim.memory.text.tables import Language, SlotWords

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


def _table(code: str) -> SlotWords:
    """The slot words of the language ``code`` (English's for a language without tables)."""
    return (languages.module(code) or languages.english()).SLOTS


#: Most characters a value's span runs to before its stop word (``MAX_WORDS`` words are fewer), so that
#: a long text without punctuation costs a bounded look at each statement.
MAX_SPAN = 120
_SPACED_VALUE = r"(?P<value>[^,.;:!?()\[\]\n\"\u201c\u201d]" f"{{1,{MAX_SPAN}}})"
#: A value in a language written without spaces: a run up to a particle or a mark, bounded, so that a
#: long run without either costs a bounded look at each place (a longer value is no value: ``MAX_CHARS``).
_UNSPACED_VALUE = (
    r"(?P<value>[^\s\u3001\u3002\uff0c\uff01\uff1f\uff1a\uff1b,.!?;:\u306f\u3082\u304c\u3092\u306b]"
    f"{{1,{2 * MAX_CHARS}}})"
)
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


def asked(text: str) -> Attribute | None:
    """The single-value attribute a question asks of its speaker, if any: every language's question
    patterns (the text's detected language's first) in its sentences that end in a question mark -
    or, in a text without one, that the question signal (``memory_signals``) calls questions.

    >>> asked("Where do I live now?"), asked("¿Cómo me llamo?"), asked("我在哪里工作？")
    ('location', 'name', 'employer')
    >>> asked("what's my name"), asked("Soy vegetariana."), asked("Soy vegetariana?")
    ('name', None, 'diet')
    >>> asked("Where does my sister live?"), asked("I live in Lyon."), asked("Where did I live in 2019?")
    (None, None, None)
    """
    first = detect(text).code
    marked = "?" in text or "\uff1f" in text
    for sentence in _SENTENCE.finditer(text):
        said = sentence.group(0).rstrip()
        if not (said.endswith(("?", "\uff1f")) if marked else memory_signals(said).question):
            continue
        for _, attribute, pattern in sorted(_asks(), key=lambda a: a[0] != first):
            if pattern.search(said):
                return attribute
    return None


@cache
def _asks() -> tuple[tuple[str, Attribute, re.Pattern[str]], ...]:
    return tuple(
        (m.LANGUAGE.code, _attribute(attribute), re.compile(p, re.I))
        for m in languages.registered()
        for attribute, p in m.ASKS
    )


@lru_cache(maxsize=8192)
def _read_text(text: str) -> tuple[tuple[Attribute, Slot], ...]:
    """``slots`` as pairs, cached per text (maintenance reads the same records more than once): read with
    the table of each language the text may be in (``plausible``: "Soy vegana." may be guessed English), in
    turn, up to the first that finds something."""
    for language in plausible(text):
        if found := _slots(text, _table(language.code), language.unspaced):
            return tuple(found.items())
    return ()


@languages.on_change
def _forget() -> None:
    """Drop what was read with the languages registered before."""
    _asks.cache_clear()
    _read_text.cache_clear()


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
    return tuple((_attribute(attribute), re.compile(with_values(p, unspaced), re.I)) for attribute, p in table.patterns)


def with_values(pattern: str, unspaced: bool) -> str:
    """A table's pattern with its ``{v}`` (a stated value, group ``value``) and ``{n}`` (a number)
    written out, for a language written with spaces or without."""
    return pattern.replace("{v}", _UNSPACED_VALUE if unspaced else _SPACED_VALUE).replace("{n}", _NUMBER)


def statements(sentence: str, language: Language) -> list[tuple[int, Slot]]:
    """Every single-value fact one sentence (not a question) states of its speaker in ``language``'s
    table (English's for a language without one), each with where its statement starts; none when
    another person is its subject (``SlotWords.others``).

    >>> from caim.memory.text.lang import detect, plausible
    >>> statements("I work as a nurse in Leeds", detect("I work as a nurse in Leeds"))
    [(0, Slot(attribute='job', value='nurse'))]
    """
    table = _table(language.code)
    return [] if _about_others(sentence, table) else _read(sentence, table, language.unspaced)


def about_others(sentence: str, language: Language) -> bool:
    """Is another person the subject of a sentence in a language whose patterns cannot start at the
    speaker (``SlotWords.others``: "妹は...")?"""
    return _about_others(sentence, _table(language.code))


def cut(span: str, language: Language) -> str:
    """A span cut to the value it states as a stated value is cut (``language``'s stop words, articles
    and words no value starts with); "" when it holds none.

    >>> from caim.memory.text.lang import detect, plausible
    >>> english = detect("I work at the University of Leeds")
    >>> cut("the University of Leeds since May", english), cut("my flat", english)
    ('University of Leeds', '')
    """
    return _value(span, "location", _table(language.code), language.unspaced)


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
