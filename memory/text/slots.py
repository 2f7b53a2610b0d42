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

``asked`` reads the other side: which of these attributes a question asks of its speaker ("Where do
I live now?" asks ``location``, "¿Cómo me llamo?" ``name``), by question patterns per language that
start at the speaker too ("Where does my sister live?" asks none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from caim.memory.text import lang_de, lang_en, lang_es, lang_fr, lang_ja, lang_zh
from caim.memory.text.lang import detect
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


#: The speaker in Japanese, which a question about them names (a question without it asks of the
#: listener: "どこに住んでいますか？").
_ME_JA = r"(?:私|僕|俺|わたし|あたし)"
#: Per language, (attribute, pattern) pairs of questions that ask the speaker's own value, matched
#: without regard to case in a question sentence. Present tense only: "Where did I live?" asks of
#: the past, not the current value.
_ASKS: dict[str, tuple[tuple[Attribute, str], ...]] = {
    "en": (
        ("name", r"\bwhat(?:'s|’s| is| was) my (?:full |first |last |real )?name\b"),
        ("name", r"\b(?:do|did) you (?:know|remember) my name\b"),
        ("name", r"\bwhat (?:do|should) (?:you|people) call me\b"),
        ("age", r"\bhow old am i\b"),
        ("age", r"\bwhat(?:'s|’s| is) my age\b"),
        ("location", r"\bwhere (?:do|am|are) (?:i|we) (?:\w+ )?(?:live|living|based|staying)\b"),
        (
            "location",
            r"\b(?:which|what) (?:city|town|country|place) (?:do|am|are) (?:i|we) (?:\w+ )?(?:live|living|based)\b",
        ),
        ("location", r"\bwhere(?:'s|’s| is) my home\b"),
        ("location", r"\bwhere(?:'s|’s| is) home for me\b"),
        ("diet", r"\bwhat(?:'s|’s| is) my diet\b"),
        ("diet", r"\bwhat (?:kind of )?diet (?:do|am) i\b"),
        ("diet", r"\bam i (?:still )?(?:an? )?(?:vegetarian|vegan|pescatarian)\b"),
        ("diet", r"\bdo i (?:still )?eat meat\b"),
        ("job", r"\bwhat(?:'s|’s| is) my (?:job|profession|occupation|line of work|job title)\b"),
        ("job", r"\bwhat do i do for (?:a living|work)\b"),
        ("job", r"\bwhat (?:kind of )?(?:work|job) do i (?:do|have)\b"),
        ("employer", r"\bwhere do i (?:\w+ )?work\b(?! ?out)"),
        ("employer", r"\b(?:which|what) (?:company|firm|organi[sz]ation|employer) do i (?:\w+ )?work (?:for|at)\b"),
        ("employer", r"\bwho do i (?:\w+ )?work for\b"),
        ("employer", r"\bwho(?:'s|’s| is) my employer\b"),
    ),
    "de": (
        ("name", r"\bwie hei(?:ß|ss)e ich\b"),
        ("name", r"\b(?:wie|was) ist mein (?:vor)?name\b"),
        ("age", r"\bwie alt bin ich\b"),
        ("location", r"\bwo (?:wohne|lebe) ich\b"),
        ("location", r"\bin welche[mr] (?:stadt|ort|land) (?:wohne|lebe) ich\b"),
        ("location", r"\bwo bin ich (?:\w+ )?zu ?hause\b"),
        ("diet", r"\bwie ernähre ich mich\b"),
        ("diet", r"\bbin ich (?:\w+ )?(?:vegetarier|veganer)(?:in)?\b"),
        ("diet", r"\besse ich (?:\w+ )?fleisch\b"),
        ("job", r"\bwas (?:ist mein beruf|bin ich von beruf|mache ich beruflich)\b"),
        ("job", r"\bals was arbeite ich\b"),
        ("employer", r"\bwo arbeite ich\b"),
        ("employer", r"\b(?:bei|für) welche[rms]? (?:firma|unternehmen|arbeitgeber) arbeite ich\b"),
        ("employer", r"\bwer ist mein arbeitgeber\b"),
    ),
    "fr": (
        ("name", r"\bcomment (?:est-ce que )?je m['’]appelle\b"),
        ("name", r"\bquel est mon (?:nom|prénom)\b"),
        ("age", r"\bquel âge (?:ai-je|j['’]ai|est-ce que j['’]ai)\b"),
        ("location", r"\boù (?:est-ce que )?(?:j['’]habite|je vis|je réside)\b"),
        ("location", r"\boù (?:habité-je|vis-je)\b"),
        ("location", r"\bdans quel(?:le)? (?:ville|pays|endroit) (?:est-ce que )?(?:j['’]habite|je vis|vis-je)\b"),
        ("diet", r"\bquel est mon régime\b"),
        ("diet", r"\b(?:suis-je|est-ce que je suis) (?:\w+ )?(?:végétarien|végétalien|végan)"),
        ("diet", r"\b(?:est-ce que je mange|mangé-je) (?:\w+ )?de la viande\b"),
        ("job", r"\bquel est mon (?:métier|travail|emploi|poste)\b"),
        ("job", r"\b(?:qu['’]est-ce que je fais|que fais-je) dans la vie\b"),
        ("employer", r"\boù (?:est-ce que )?je travaille\b"),
        ("employer", r"\boù travaillé-je\b"),
        ("employer", r"\bpour (?:qui|quelle (?:entreprise|société|boîte)) (?:est-ce que )?je travaille\b"),
        ("employer", r"\bquel est mon employeur\b"),
    ),
    "es": (
        ("name", r"\bc[oó]mo me llamo\b"),
        ("name", r"\bcu[aá]l es mi nombre\b"),
        ("age", r"\b(?:cu[aá]ntos años|qu[eé] edad) tengo\b"),
        ("location", r"\bd[oó]nde (?:vivo|resido)\b"),
        ("location", r"\ben qu[eé] (?:ciudad|pa[ií]s|lugar) (?:vivo|resido)\b"),
        ("diet", r"\bcu[aá]l es mi dieta\b"),
        ("diet", r"\bqu[eé] dieta (?:sigo|tengo|llevo)\b"),
        ("diet", r"\bsoy (?:\w+ )?(?:vegetarian|vegan)[oa]\b"),
        ("diet", r"\b(?:todav[ií]a )?como carne\b"),
        ("job", r"\bcu[aá]l es mi (?:trabajo|profesi[oó]n|oficio|empleo)\b"),
        ("job", r"\b(?:a qu[eé] me dedico|de qu[eé] trabajo)\b"),
        ("employer", r"\bd[oó]nde trabajo\b"),
        ("employer", r"\b(?:para|en) (?:qui[eé]n|qu[eé] empresa|qu[eé] compañ[ií]a) trabajo\b"),
    ),
    "zh": (
        ("name", r"我叫什么|我的名字(?:是|叫)?什么"),
        ("age", r"我(?:今年|现在)?(?:几|多少)岁|我(?:今年|现在)?多大"),
        ("location", r"我(?:现在|目前)?住在?(?:哪|什么地方)|我(?:现在|目前)?在(?:哪|什么地方)(?:里|儿)?住"),
        ("diet", r"我(?:的)?饮食|我(?:还)?(?:吃素|吃肉|是素食者?)(?:吗|嘛)"),
        ("job", r"我(?:是)?(?:做什么|干什么)(?:工作|的)|我的(?:职业|工作)是什么"),
        (
            "employer",
            r"我(?:现在|目前)?在(?:哪|什么公司|哪家公司)(?:里|儿)?(?:工作|上班)|我(?:为|给)(?:哪家公司|谁)工作",
        ),
    ),
    "ja": (
        ("name", _ME_JA + r"の名前は"),
        ("age", _ME_JA + r"(?:は|って)?(?:今)?(?:何歳|いくつ)"),
        ("location", _ME_JA + r"(?:は|って)?(?:今|いま)?どこに住んで"),
        ("diet", _ME_JA + r"の(?:食生活|食事|ダイエット)|" + _ME_JA + r"(?:は|って)?(?:まだ)?肉を食べ"),
        ("job", _ME_JA + r"の(?:仕事|職業)は"),
        ("employer", _ME_JA + r"(?:は|って)?(?:今|いま)?どこ(?:で働いて|に勤めて)"),
    ),
}


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
    return tuple((code, attribute, re.compile(p, re.I)) for code, pairs in _ASKS.items() for attribute, p in pairs)


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
    return tuple((_attribute(attribute), re.compile(with_values(p, unspaced), re.I)) for attribute, p in table.patterns)


def with_values(pattern: str, unspaced: bool) -> str:
    """A table's pattern with its ``{v}`` (a stated value, group ``value``) and ``{n}`` (a number)
    written out, for a language written with spaces or without."""
    return pattern.replace("{v}", _UNSPACED_VALUE if unspaced else _SPACED_VALUE).replace("{n}", _NUMBER)


def statements(sentence: str, language: Language) -> list[tuple[int, Slot]]:
    """Every single-value fact one sentence (not a question) states of its speaker in ``language``'s
    table (English's for a language without one), each with where its statement starts; none when
    another person is its subject (``SlotWords.others``).

    >>> from caim.memory.text.lang import detect
    >>> statements("I work as a nurse in Leeds", detect("I work as a nurse in Leeds"))
    [(0, Slot(attribute='job', value='nurse'))]
    """
    table = _TABLES.get(language.code, lang_en.SLOTS)
    return [] if _about_others(sentence, table) else _read(sentence, table, language.unspaced)


def about_others(sentence: str, language: Language) -> bool:
    """Is another person the subject of a sentence in a language whose patterns cannot start at the
    speaker (``SlotWords.others``: "妹は...")?"""
    return _about_others(sentence, _TABLES.get(language.code, lang_en.SLOTS))


def cut(span: str, language: Language) -> str:
    """A span cut to the value it states as a stated value is cut (``language``'s stop words, articles
    and words no value starts with); "" when it holds none.

    >>> from caim.memory.text.lang import detect
    >>> english = detect("I work at the University of Leeds")
    >>> cut("the University of Leeds since May", english), cut("my flat", english)
    ('University of Leeds', '')
    """
    return _value(span, "location", _TABLES.get(language.code, lang_en.SLOTS), language.unspaced)


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
