"""Entities in code: the work, places, people and pets a speaker names of their own life.

``entities`` reads a text sentence by sentence with its language's tables (the ``ENTITIES`` of its
module, ``caim.memory.text.languages``; where detection could only guess, each other language the text
may be in, in turn: ``caim.memory.text.lang.plausible``), outside questions
and up to a word that makes the rest a wish or a supposition (``EntityWords.hypothetical``: "if",
"would", "如果", "たら"). It finds:

- the speaker's job, employer and home as ``caim.memory.text.slots`` reads them (one home for those
  patterns), and the statements of ``EntityWords.mine`` ("I'm a nurse", "I'm from Lyon", "I flew to
  Tokyo"); a job told as a verb is named as people name it where the language makes that mechanical
  ("I teach chemistry": "chemistry teacher", "我教化学": "化学老师");
- where the speaker works and who employs them, said after their job ("... in Leeds", "... at
  Google"); a workplace that may be either ("trabajo en ...", "我在...工作") is an employer or a
  place only by its words ("Hospital", "公司"; "市"), and nothing otherwise;
- the people of their life by name, with their relation ("my sister Clara"), and their pets ("a cat
  called Miso"; "I have a dog": the animal as said, when it has no name);
- another person's job, employer and places ("my sister works as a nurse"), held by them
  (``Entity.holder``: their name, else their relation).

A place, an employer or a name in a language written with capitals starts with one, and a
capitalised word is a place only after a place's preposition or verb. Values are spans of the text
(a job named from its verb excepted), so an entity asserts nothing its source does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from caim.memory.text import dates, languages
from caim.memory.text.lang import UNSPACED_CHAR, alternation, matcher, plausible
from caim.memory.text.names import NOT_NAMES, NOT_SUBJECTS
from caim.memory.text.slots import MAX_SPAN, Slot, about_others, cut, statements, with_values
from caim.memory.text.tables import EntityWords, Language, Words

Kind = Literal["job", "employer", "place", "person", "pet"]
#: The closed set of entity kinds.
KINDS: tuple[Kind, ...] = ("job", "employer", "place", "person", "pet")
#: How a place is its holder's: where they live, work, come from, travel to.
PLACE_RELATIONS = ("home", "work", "origin", "travel")


@dataclass(frozen=True)
class Entity:
    """Something of a speaker's life that a text names.

    Attributes:
        kind: One of ``KINDS``.
        value: The words as said, trimmed (a job told as a verb: its name, "chemistry teacher").
        relation: A person's relation to the holder, in English ("sister"); a pet's animal, in
            English ("dog"); a place's tie (``PLACE_RELATIONS``); "" for a job or an employer.
        holder: Whose it is: "" for the speaker, else the other person's name, or their relation.
    """

    kind: Kind
    value: str
    relation: str = ""
    holder: str = ""


def entities(text: str) -> list[Entity]:
    """The entities a text names of its speaker's life, each once, in the order they are said.

    >>> [(e.kind, e.value, e.relation) for e in entities("I teach chemistry in Leeds.")]
    [('job', 'chemistry teacher', ''), ('place', 'Leeds', 'work')]
    >>> [(e.kind, e.value) for e in entities("I'm a software engineer at Google")]
    [('job', 'software engineer'), ('employer', 'Google')]
    >>> entities("My sister Clara works as a nurse.")[1]
    Entity(kind='job', value='nurse', relation='', holder='Clara')
    >>> entities("We adopted a cat called Miso."), entities("Ich habe einen Hund.")[0].relation
    ([Entity(kind='pet', value='Miso', relation='cat', holder='')], 'dog')
    >>> [(e.kind, e.value, e.relation) for e in entities("我妹妹叫小红。我家的狗叫旺财。")]
    [('person', '小红', 'sister'), ('pet', '旺财', 'dog')]
    >>> entities("Where do you work?"), entities("If I lived in Paris I'd walk everywhere.")
    ([], [])
    """
    return list(_read_text(text))


#: The relations a holder may be named by when it has no name ("sister"), in English.
RELATIONS: frozenset[str] = frozenset(r for m in languages.registered() for r in m.ENTITIES.relatives.values())
_SENTENCE = re.compile(r"[^.!?\n\u3002\uff01\uff1f]+[.!?\u3002\uff01\uff1f]*")
_CLAUSE = re.compile(r"[^,;\u3001\uff0c\uff1b]+")
_CLAUSE_MARKS = ",;\u3001\uff0c\uff1b"
#: Capital letters of the Latin alphabets.
_UPPER = (
    "A-Z\u00c0-\u00d6\u00d8-\u00de\u0104\u0106\u010c\u0110\u0118\u011a\u0141\u0143\u0147\u0150\u0152"
    "\u0158\u015a\u015e\u0160\u0164\u016e\u0170\u0179\u017b\u017d"
)
_NAME_WORD = f"[{_UPPER}][\\w'\u2019&-]*"
#: A name in a language written with spaces: one to three capitalised words, or a name in characters.
_SPACED_NAME = f"(?-i:(?P<value>{_NAME_WORD}(?:[ \\t]+{_NAME_WORD}){{0,2}}|{UNSPACED_CHAR}{{1,4}}))"
#: The run of a value's words up to the next punctuation.
_VALUE_RUN = re.compile(r"[^,.;:!?()\[\]\n\"\u201c\u201d]" f"{{0,{MAX_SPAN}}}")
#: Most words a place's or an employer's name holds.
MAX_NAME_WORDS = 5
#: "of" between two words in Chinese and Japanese ("的", "の").
_OF = re.compile("(\u306e|\u7684)")
_POSSESSIVE = re.compile(r"['\u2019]s$")
_TRIM = " \t'\"\u2019\u201c\u201d-"


@dataclass(frozen=True)
class _Row:
    """One compiled pattern of a table: the entity's kind and relation, and whether its value is a job's words."""

    kind: str
    relation: str
    pattern: re.Pattern[str]
    job_words: bool


@dataclass(frozen=True)
class _Verb:
    """A job told as a verb: its pattern, the job's name from its object, and without one."""

    pattern: re.Pattern[str]
    template: str
    bare: str


@dataclass(frozen=True)
class _Compiled:
    """A language's entity table, compiled."""

    mine: tuple[_Row, ...]
    holder: re.Pattern[str] | None
    theirs: tuple[_Row, ...]
    job_verbs: tuple[_Verb, ...]
    their_job_verbs: tuple[_Verb, ...]
    tails: tuple[_Row, ...]
    people: tuple[re.Pattern[str], ...]
    animals: tuple[re.Pattern[str], ...]
    hypothetical: re.Pattern[str]
    joins: re.Pattern[str]
    negations: re.Pattern[str]
    sites: re.Pattern[str] | None
    being: re.Pattern[str] | None
    job_end: re.Pattern[str]
    relatives: dict[str, str]
    pets: dict[str, str]
    refused: frozenset[str]
    not_jobs: frozenset[str]


#: Entities found, each with where it is said and whether it is a pet named only by its animal.
Found = list[tuple[int, Entity, bool]]


@lru_cache(maxsize=4096)
def _read_text(text: str) -> tuple[Entity, ...]:
    """``entities`` as a tuple, cached per text (maintenance reads the same records more than once): read
    with the tables of each language the text may be in (``plausible``), in turn, up to the first that
    finds something."""
    for language in plausible(text):
        if languages.module(language.code) is not None and (found := _entities(text, language.code)):
            return tuple(found)
    return ()


@languages.on_change
def _forget() -> None:
    """Drop what was read with the languages registered before."""
    _read_text.cache_clear()


def _entities(text: str, code: str) -> list[Entity]:
    """``entities`` with one language's tables."""
    found_in = languages.module(code)
    assert found_in is not None  # _read_text reads registered languages only
    language, table = found_in.LANGUAGE, found_in.ENTITIES
    c = _compiled(table, language)
    found: Found = []
    for sentence in _SENTENCE.finditer(text):
        if sentence.group(0).rstrip().endswith(("?", "\uff1f")):
            continue
        said = _stated(sentence.group(0), c, language)
        found += [(sentence.start() + at, e, weak) for at, e, weak in _sentence(said, c, table, language)]
    return _unique(sorted(found, key=lambda f: f[0]))


def _stated(sentence: str, c: _Compiled, language: Language) -> str:
    """The part of a sentence before its first hypothetical word (in a language written without
    spaces, before the clause that holds it: "京都に旅行したい")."""
    m = c.hypothetical.search(sentence)
    if m is None:
        return sentence
    if not language.unspaced:
        return sentence[: m.start()]
    return sentence[: max(sentence.rfind(mark, 0, m.start()) for mark in _CLAUSE_MARKS) + 1]


def _unique(found: Found) -> list[Entity]:
    """Each entity once (by kind, value and holder), and a pet without a name only when no pet of
    that animal is named."""
    named = {(e.relation, e.holder) for _, e, weak in found if e.kind == "pet" and not weak}
    out: dict[tuple[str, str, str], Entity] = {}
    for _, e, weak in found:
        if weak and (e.relation, e.holder) in named:
            continue
        out.setdefault((e.kind, e.value.casefold(), e.holder), e)
    return list(out.values())


def _sentence(said: str, c: _Compiled, table: EntityWords, language: Language) -> Found:
    """The entities of one sentence (its stated part), each with where it is said and whether it is
    a pet without a name."""
    out: Found = _holders(said, c, table, language)
    for clause in _CLAUSE.finditer(said):
        if language.unspaced and _about_others(clause.group(0), c, language):
            continue
        out += [(clause.start() + at, e, False) for at, e in _mine(clause.group(0), c, table, language)]
    return out + _people(said, c, language) + _animals(said, c, language)


def _about_others(clause: str, c: _Compiled, language: Language) -> bool:
    """Is another person the subject of a clause of a language that may leave the speaker unsaid
    ("妹のクララは...")? The slots' rule, or the language's holder."""
    return about_others(clause, language) or (c.holder is not None and c.holder.search(clause) is not None)


def _mine(clause: str, c: _Compiled, table: EntityWords, language: Language) -> list[tuple[int, Entity]]:
    """What one clause states of the speaker: the slots' job, employer and home, ``mine``'s
    statements and jobs told as verbs, each followed by where and for whom the job is done."""
    out: list[tuple[int, Entity]] = []
    for at, slot in statements(clause, language):
        found = _from_slot(clause, at, slot, c, table, language)
        if found is not None:
            stated, end = found
            out.append((at, stated))
            if stated.kind in ("job", "employer"):
                out += _tails(clause, end, c, table, language, "")
    for row in c.mine:
        for m in row.pattern.finditer(clause):
            entity = _row_entity(row, m, c, table, language, "")
            if entity is not None:
                out.append((m.start(), entity))
                if entity.kind in ("job", "employer"):
                    out += _tails(clause, _end_of(m, entity.value), c, table, language, "")
    for verb in c.job_verbs:
        for m in verb.pattern.finditer(clause):
            job, end = _verb_job(verb, m, c, table, language)
            if job:
                out.append((m.start(), Entity("job", job)))
                out += _verb_site(m, c, table, language, "")
                out += _tails(clause, end, c, table, language, "", worked_in=True)
    return out


def _verb_site(
    m: re.Match[str], c: _Compiled, table: EntityWords, language: Language, holder: str
) -> list[tuple[int, Entity]]:
    """Where a job told as a verb is done when it is said before the verb (the pattern's ``site``:
    "我在利兹教化学", "リーズで化学を教えています")."""
    span = m.groupdict().get("site")
    found = _site(_name_value(span, c, table, language), table, language, c, worked_in=True) if span else None
    return [(m.start("site"), Entity(found.kind, found.value, found.relation, holder))] if found is not None else []


def _from_slot(
    clause: str, at: int, slot: Slot, c: _Compiled, table: EntityWords, language: Language
) -> tuple[Entity, int] | None:
    """The entity a slot statement names (a job, an employer, the speaker's home) and where its value ends."""
    start = clause.find(slot.value, at)
    end = start + len(slot.value) if start >= 0 else len(clause)
    if slot.attribute == "job":
        if c.being is not None and c.being.search(clause[at:end]) and not c.job_end.search(slot.value):
            return None
        return Entity("job", slot.value), end
    span = slot.value if language.unspaced or start < 0 else _VALUE_RUN.match(clause, start).group(0)  # type: ignore[union-attr]
    if slot.attribute == "location":
        place = _name_value(span, c, table, language)
        return (Entity("place", place, "home"), end) if place else None
    if slot.attribute != "employer":
        return None
    if c.sites is not None and c.sites.search(clause[at:end]):
        site = _site(_name_value(span, c, table, language), table, language, c)
        return (site, end) if site is not None else None
    employer = _name_value(span, c, table, language, employer=True)
    return (Entity("employer", employer), end) if employer else None


def _holders(said: str, c: _Compiled, table: EntityWords, language: Language) -> Found:
    """What a sentence states of another person of the speaker's ("my sister Clara works as a nurse"),
    held by them; and that person by name when they have one and something is stated of them."""
    if c.holder is None:
        return []
    out: Found = []
    for m in c.holder.finditer(said):
        relation, said_name = _lookup(c.relatives, m.group("rel")), m.groupdict().get("value") or ""
        name = _person_name(said_name, c, language) if said_name else ""
        if said_name and not name:  # "母の友達は...": the holder is someone else
            continue
        holder = name or relation
        stated: list[tuple[int, Entity]] = []
        for row in c.theirs:
            t = row.pattern.match(said, m.end())
            entity = _row_entity(row, t, c, table, language, holder) if t else None
            if t and entity is not None:
                stated.append((t.start("value"), entity))
                if entity.kind in ("job", "employer"):
                    stated += _tails(said, _end_of(t, entity.value), c, table, language, holder)
        for verb in c.their_job_verbs:
            t = verb.pattern.match(said, m.end())
            job, end = _verb_job(verb, t, c, table, language) if t else ("", 0)
            if t and job:
                stated.append((t.start(), Entity("job", job, holder=holder)))
                stated += _verb_site(t, c, table, language, holder)
                stated += _tails(said, end, c, table, language, holder, worked_in=True)
                stated += _tails(said, end, c, table, language, holder)
        out += [(at, e, False) for at, e in stated]
        if stated and name and relation:
            out.append((m.start(), Entity("person", name, relation), False))
    return out


def _tails(
    text: str, end: int, c: _Compiled, table: EntityWords, language: Language, holder: str, *, worked_in: bool = False
) -> list[tuple[int, Entity]]:
    """Where and for whom a job just stated is done: ``tails`` in the rest of its clause (up to a word
    that starts another clause; ``worked_in``: the job was told as a verb, ``_site``)."""
    region = text[end : end + MAX_SPAN]
    stop = min((i for i in (region.find(mark) for mark in _CLAUSE_MARKS + ".!?\u3002") if i >= 0), default=len(region))
    region = region[:stop]
    joined = c.joins.search(region)
    region = region[: joined.start()] if joined else region
    out: list[tuple[int, Entity]] = []
    for row in c.tails:
        for m in row.pattern.finditer(region):
            entity = _row_entity(row, m, c, table, language, holder, worked_in=worked_in)
            if entity is not None:
                out.append((end + m.start(), entity))
                break
    return out


def _people(said: str, c: _Compiled, language: Language) -> Found:
    """The people of the speaker's life a sentence names, with their relation ("my sister Clara")."""
    out: Found = []
    for p in c.people:
        for m in p.finditer(said):
            relation, name = _lookup(c.relatives, m.group("rel")), _person_name(m.group("value"), c, language)
            if relation and name and not _negated(m, c):
                out.append((m.start("value"), Entity("person", name, relation), False))
    return out


def _animals(said: str, c: _Compiled, language: Language) -> Found:
    """The speaker's pets a sentence names: by name, else the animal as said ("I have a dog")."""
    out: Found = []
    for p in c.animals:
        for m in p.finditer(said):
            animal = _lookup(c.pets, m.group("pet"))
            if not animal or _negated(m, c) or (language.unspaced and _about_others(_clause_of(said, m), c, language)):
                continue
            if "value" not in p.groupindex:
                out.append((m.start("pet"), Entity("pet", m.group("pet"), animal), True))
            elif name := _person_name(m.group("value"), c, language):
                out.append((m.start("value"), Entity("pet", name, animal), False))
    return out


def _clause_of(text: str, m: re.Match[str]) -> str:
    """The clause a match ends in, up to its end (looking back ``MAX_SPAN`` characters at most)."""
    reach = max(0, m.start() - MAX_SPAN)
    start = max(reach, *(text.rfind(mark, reach, m.start()) + 1 for mark in _CLAUSE_MARKS))
    return text[start : m.end()]


def _row_entity(
    row: _Row,
    m: re.Match[str],
    c: _Compiled,
    table: EntityWords,
    language: Language,
    holder: str,
    *,
    worked_in: bool = False,
) -> Entity | None:
    """The entity one statement's match names, or ``None`` when its value is no such entity (``worked_in``:
    a site's, after a job told as a verb, ``_site``)."""
    if _negated(m, c):
        return None
    span = m.group("value")
    if row.kind == "job":
        value = _job_words(span, c, language) if row.job_words else _plain_value(span, table, language)
        return Entity("job", value, holder=holder) if value else None
    if row.kind == "site":
        found = _site(_name_value(span, c, table, language), table, language, c, worked_in=worked_in)
        return Entity(found.kind, found.value, found.relation, holder) if found is not None else None
    value = _name_value(span, c, table, language, employer=row.kind == "employer")
    if not value or row.kind not in ("employer", "place"):
        return None
    return Entity("employer" if row.kind == "employer" else "place", value, row.relation, holder)


def _site(
    value: str, table: EntityWords, language: Language, c: _Compiled, *, worked_in: bool = False
) -> Entity | None:
    """A workplace that may be an employer or a place, by its words: an employer when it holds a word of
    ``org_words`` (or, among characters, is written in Latin letters), a place of work when it holds
    one of ``place_words``; when its words do not tell, a place of work where the job is told as what
    the speaker does there (``worked_in``: "enseño química en Leeds", "我在利兹教化学": a school names
    itself as one), else ``None``."""
    if not value:
        return None
    folded = value.casefold()
    if language.unspaced:
        owner, of, what = _OF.split(value, maxsplit=1) if _OF.search(value) else ("", "", "")
        if of and what in table.org_words:  # "大阪の病院": a hospital of somewhere, whose name tells where or whose
            return _site(owner, table, language, c, worked_in=worked_in)
        if value in table.org_words:  # "病院": no name
            return None
        if folded.endswith(table.org_words) or re.fullmatch(r"[A-Za-z][\w&.' -]*", value):
            return Entity("employer", value)
        return Entity("place", value, "work") if worked_in or folded.endswith(table.place_words) else None
    said = set(folded.split())
    if said & set(table.org_words):
        return Entity("employer", value)
    return Entity("place", value, "work") if worked_in or said & set(table.place_words) else None


def _negated(m: re.Match[str], c: _Compiled) -> bool:
    """Does a negation stand in a match before its value ("I'm not a ...", "ich bin keine ...")?"""
    before = m.string[m.start() : m.start("value")] if "value" in m.re.groupindex and m.group("value") else m.group(0)
    return c.negations.search(before) is not None


def _end_of(m: re.Match[str], value: str) -> int:
    """Where a value said in a match's value group ends (the match's end without one)."""
    if "value" not in m.re.groupindex or m.group("value") is None:
        return m.end()
    at = m.string.find(value, m.start("value"), m.end("value")) if value else -1
    return at + len(value) if at >= 0 else m.end("value")


def _verb_job(verb: _Verb, m: re.Match[str], c: _Compiled, table: EntityWords, language: Language) -> tuple[str, int]:
    """The job a verb phrase tells ("I teach chemistry": "chemistry teacher"; "I teach kids":
    "teacher") and where its words end; "" when its object is a person of theirs ("I teach my
    daughter") or it names none."""
    span = (m.group("value") or "") if "value" in m.re.groupindex else ""
    if span and _refused(span.strip(_TRIM), c, language):
        return "", 0
    value = _plain_value(span, table, language) if span else ""
    if not value:
        return verb.bare, (m.start("value") if span else m.end())
    job = verb.template.replace("{v}", value)
    for pattern, replacement in table.elisions:
        job = re.sub(pattern, replacement, job, flags=re.I)
    return job, _end_of(m, value)


def _refused(span: str, c: _Compiled, language: Language) -> bool:
    """Does a span start with a word no value starts with (``EntityWords.not_values``)?"""
    if language.unspaced:
        return any(span.casefold().startswith(w) for w in c.refused)
    words = span.split()
    return bool(words) and words[0].casefold().strip(_TRIM) in c.refused


def _plain_value(span: str, table: EntityWords, language: Language) -> str:
    """A span cut as a stated value is (``caim.memory.text.slots.cut``), then before a word of ``stops``."""
    value = cut(span, language)
    if language.unspaced:
        at = min((i for i in (value.find(s) for s in table.stops) if i >= 0), default=len(value))
        return value[:at].strip(_TRIM)
    kept: list[str] = []
    for word in value.split():
        if word.casefold().strip(_TRIM) in table.stops:
            break
        kept.append(word)
    return " ".join(kept).strip(_TRIM)


def _job_words(span: str, c: _Compiled, language: Language) -> str:
    """A job's words as said ("software engineer"); "" when a word before its noun makes it no job
    ("a good cook", "a fan of teachers", "keine Lehrerin")."""
    value = span.strip(_TRIM)
    if language.unspaced:
        return "" if any(w in value for w in c.not_jobs) else value
    words = [w.casefold().strip(_TRIM) for w in value.split()]
    return "" if any(w in c.not_jobs for w in words[:-1]) or words[0] in c.refused else value


def _name_value(span: str, c: _Compiled, table: EntityWords, language: Language, *, employer: bool = False) -> str:
    """The name a place's or an employer's span says: in a language written with capitals, its leading
    capitalised words (with the ``connectors`` between them: "University of Leeds"); "" when it
    names none ("a hospital", "my sister's", "IT"). A name ending in a possessive is an employer's
    only, and only when nothing follows it ("McDonald's", never "Sam's party")."""
    value = _plain_value(span, table, language)
    if language.unspaced:
        value = _without_time(value, language)
        return "" if not value or _refused(value, c, language) else value
    if not value:
        return ""
    said = span[span.find(value) :].split()  # a capitalised word goes on a name that a stop word would end ("La Paz")
    words = _capitalised(said, table.connectors)[:MAX_NAME_WORDS]
    if not words or (_POSSESSIVE.search(words[-1]) and not (employer and len(words) >= len(value.split()))):
        return ""
    name = " ".join(words)
    return "" if _not_a_name(words[0], c, language, person=False) else name


def _capitalised(words: list[str], connectors: Words) -> list[str]:
    """The leading capitalised words of a value, with the connectors that join two of them."""
    kept: list[str] = []
    for i, word in enumerate(words):
        if _is_capital(word):
            kept.append(word)
        elif not (word.casefold() in connectors and kept and i + 1 < len(words)):
            break
        else:
            kept.append(word)
    while kept and not _is_capital(kept[-1]):
        kept.pop()
    return kept


def _is_capital(word: str) -> bool:
    return bool(word) and (word[0].isupper() or re.match(UNSPACED_CHAR, word[0]) is not None)


def _person_name(span: str, c: _Compiled, language: Language) -> str:
    """A person's or a pet's name as said ("Clara", "Sam's" as "Sam"); "" when the words are no name."""
    value = span.strip(_TRIM)
    if not value:
        return ""
    if language.unspaced:
        return "" if _refused(value, c, language) else value
    words = _capitalised(value.split(), ())[:2]
    if not words:
        return ""
    words[-1] = _POSSESSIVE.sub("", words[-1])
    if _not_a_name(words[0], c, language, person=True):
        return ""
    signals = language.signals
    if signals is not None and signals.noun_capitals and words[-1].casefold().endswith(signals.noun_endings):
        return ""
    return " ".join(words)


def _not_a_name(word: str, c: _Compiled, language: Language, *, person: bool) -> bool:
    """Is a capitalised word no name: a relation, an animal, a month or a weekday, a word of
    ``not_values``; for a person's or a pet's name, also a word the language's names rule out
    ("I", "Hola")?"""
    bare = _POSSESSIVE.sub("", word)
    folded = bare.casefold()
    if language.signals is None:
        days: set[str] = {*dates.MONTHS, *dates.WEEKDAYS}
        not_names = NOT_NAMES | NOT_SUBJECTS
    else:
        days = {*language.signals.time.months, *language.signals.time.weekdays}
        not_names = frozenset(language.signals.not_names)
    if folded in days or (person and bare in not_names):
        return True
    return folded in c.refused or _lookup(c.relatives, folded) != "" or _lookup(c.pets, folded) != ""


def _without_time(value: str, language: Language) -> str:
    """A value written without spaces without the time words it opens with ("来週京都": "京都")."""
    phrases = (
        sorted((*language.signals.time.phrases, "今", "現在", "现在"), key=len, reverse=True)
        if language.signals
        else []
    )
    changed = True
    while changed:
        changed = False
        for phrase in phrases:
            if value.startswith(phrase) and len(value) > len(phrase):
                value, changed = value[len(phrase) :], True
    return value


def _lookup(table: dict[str, str], word: str | None) -> str:
    """A word's entry in a table of words (casefolded), a plural ending left out ("Katzen", "dogs")."""
    if not word:
        return ""
    folded = " ".join(word.casefold().split())
    for candidate in (folded, folded[:-1], folded[:-2]):
        if candidate in table:
            return table[candidate]
    return ""


# ---- compiling a table -------------------------------------------------------------------------------------------
@cache
def _compiled(table: EntityWords, language: Language) -> _Compiled:
    """A language's entity table with its placeholders written out and its patterns compiled."""

    def rows(entries: Iterable[tuple[str, str, str]]) -> tuple[_Row, ...]:
        return tuple(_Row(k, r, _pattern(p, table, language), "{job}" in p) for k, r, p in entries)

    def verbs(entries: Iterable[tuple[str, str, str]]) -> tuple[_Verb, ...]:
        return tuple(_Verb(_pattern(p, table, language), t, b) for p, t, b in entries)

    polarity = (languages.module(language.code) or languages.english()).POLARITY.negations
    return _Compiled(
        mine=rows(table.mine),
        holder=_pattern(table.holder, table, language) if table.holder else None,
        theirs=rows(table.theirs),
        job_verbs=verbs(table.job_verbs),
        their_job_verbs=verbs(table.their_job_verbs),
        tails=rows(table.tails),
        people=tuple(_pattern(p, table, language) for p in table.people),
        animals=tuple(_pattern(p, table, language) for p in table.animals),
        hypothetical=matcher(table.hypothetical, language.unspaced),
        joins=matcher(table.joins, language.unspaced),
        negations=matcher(polarity, language.unspaced),
        sites=re.compile(table.sites, re.I) if table.sites else None,
        being=re.compile(table.being, re.I) if table.being else None,
        job_end=re.compile(
            ("" if language.unspaced or table.compounds else r"(?<![^\W_])") + f"(?:{alternation(table.jobs)})$", re.I
        ),
        relatives={k.casefold(): v for k, v in table.relatives.items()},
        pets={k.casefold(): v for k, v in table.pets.items()},
        refused=frozenset(w.casefold() for w in table.not_values),
        not_jobs=frozenset(w.casefold() for w in table.not_jobs),
    )


def _pattern(pattern: str, table: EntityWords, language: Language) -> re.Pattern[str]:
    """One pattern of a table with its placeholders written out (``EntityWords``)."""
    unspaced = language.unspaced
    end = "" if unspaced else r"(?![^\W_])"
    heads = alternation(table.jobs)
    if unspaced:
        job = f"(?P<value>{table.job_before}[^\\W\\d_\u3041-\u3096\u7684\u662f\u4e2a]{{0,8}}?(?:{heads}))"
    else:
        compound = r"[^\W\d_]*" if table.compounds else ""
        before = r"(?:[^\W\d_][\w'\u2019-]*\s+){0,3}?"
        job = f"(?P<value>{before}{compound}(?:{heads}){table.job_after}){end}(?!['\u2019]s\\b)"
    adjectives = alternation(table.adjectives)
    adj = (f"(?:{adjectives})?" if unspaced else f"(?:(?:{adjectives})\\s+)?") if table.adjectives else ""
    plural = "" if unspaced else "(?:s|es|e|n|en)?"
    filled = (
        pattern.replace("{job}", job)
        .replace("{jobs}", f"(?:{heads})")
        .replace("{rel}", f"(?P<rel>{alternation(tuple(table.relatives))}){end}")
        .replace("{pet}", f"(?P<pet>(?:{alternation(tuple(table.pets))}){plural}){end}")
        .replace("{adj}", adj)
        .replace("{name}", table.name if unspaced else _SPACED_NAME)
    )
    return re.compile(with_values(filled, unspaced), re.I)
