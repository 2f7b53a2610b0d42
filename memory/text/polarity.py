"""Preference polarity in code: does a turn say the speaker (or someone they name) likes, dislikes or
is neutral about a thing, and why.

``polarity`` finds the preference cues of a text (per language: its module's ``POLARITY``, ``lang_en``
... ``lang_ja``), outside questions, wishes and plans ("I'd love to", "enjoy your trip"), affection
("love you") and the other side's attitudes ("you must love it"). Three kinds of cue:

- a verb or adjective whose subject holds the attitude ("I love", "I'm into", "sick of", "my dog
  loves the beach": the holder is the subject);
- a verdict on a thing ("the film was amazing", "that book was boring", "painting makes me happy",
  "X is my escape"): the speaker's, never a reaction to the other side's news ("that's amazing")
  nor excitement about a one-off event ("the party was so fun");
- an owned noun ("my favourite", "his passion"): the owner holds it.

A negation shortly before the cue (or just after it: "mag keine", "好きじゃない") turns a like into a
dislike and a dislike into neutral ("I don't love it anymore" is a dislike). The speaker's own like
or dislike comes first, then their neutral attitude; else the first preference of someone else, with
``holder`` naming them. The reason
is always a span of the text itself, so it asserts nothing its source does not hold: the rest of the
sentence after a reason marker ("because ...", "weil ...", "因为 ..."), the clause before a closing
marker ("うるさいから"), or the clause after the cue's clause when a reason opener starts it ("...,
too noisy"). ``thing`` is what the cue is about (the words after the cue in its clause, else those
before it), for telling whether two preferences concern the same thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple

from caim.memory.text import languages
from caim.memory.text.lang import alternation, matcher, plausible
from caim.memory.text.tables import Language, PolarityWords, Words

Polarity = Literal["like", "dislike", "neutral"]
#: The closed set of polarities, in the order prompts and filters list them.
POLARITIES: tuple[Polarity, ...] = ("like", "dislike", "neutral")
#: Longest reason kept (characters).
MAX_REASON = 160
#: Words (spaced) or characters (unspaced) before a cue in which a negation turns it.
_BEFORE = {False: 3, True: 4}
#: Words (spaced) or characters (unspaced) after a cue in which a negation turns it.
_AFTER = {False: 2, True: 6}
#: Words before an owned noun in which its owner stands ("my all-time favourite").
_OWNER_SPAN = 3
#: Words before and after a verdict in which an event noun makes it a one-off ("the party was so fun",
#: "best night of my life").
_EVENT_BEFORE, _EVENT_AFTER = 4, 1
#: Most words of a question tag after a statement's own clause ("I love jazz, do you?").
_TAG_WORDS = 3
#: Words after a cue in which the other side named makes it about them ("I love how you did it").
_OBJECT_SPAN = 4
#: Words opening a clause in which a reaction word makes a verdict a reaction ("oh that's amazing").
_REACTION_SPAN = 3

_FLIP: dict[Polarity, Polarity] = {"like": "dislike", "dislike": "neutral", "neutral": "neutral"}
#: A clause ends at a punctuation mark, a dash, a line break, or a space between two characters of a language
#: written without spaces (chat in Chinese spaces its clauses: "还行 同事人都挺好的").
_CJK = "\u3000-\u9fff\uff00-\uffef"
_CLAUSE_END = re.compile(
    rf"[,;:.!?\u2014\u2013\u3001\u3002\uff0c\uff1b\uff01\uff1f\uff5e~]|\s-\s|\n|(?<=[{_CJK}])\s+(?=[{_CJK}])"
)
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f\n]")
_TRIM = " \t\n,;:.!?-\u2014\u2013\u3001\u3002\uff0c\uff1b\uff01\uff1f\"'"
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?")

#: How a cue says whose attitude it is: its subject's, the speaker's verdict, or a noun's owner's.
Way = Literal["subject", "verdict", "noun"]


@dataclass(frozen=True)
class Preference:
    """What a text says of a preference: its polarity, the cue that said so, the reason given ("" when
    none), the thing it is about ("" when the text names none) and whose it is ("" for the speaker's
    own; else the words naming the holder as the text writes them: "my son", "Minka", "she")."""

    polarity: Polarity
    cue: str
    reason: str = ""
    thing: str = ""
    holder: str = ""


class _Cue(NamedTuple):
    match: re.Match[str]
    kind: Polarity | None  # None: a phrase that states no preference (a wish, affection)
    way: Way


def polarity(text: str) -> Preference | None:
    """The preference a text states, or ``None`` when it states none (or only asks about one).

    >>> polarity("I can't stand crowded beaches, too noisy")
    Preference(polarity='dislike', cue="can't stand", reason='too noisy', thing='crowded beaches', holder='')
    >>> polarity("I don't love it anymore").polarity, polarity("Do you like jazz?")
    ('dislike', None)
    >>> polarity("I hope they love it!"), polarity("Their love and support got me through.")
    (None, None)
    >>> polarity("My son loves dinosaurs.").holder, polarity("The ramen there was incredible").polarity
    ('My son', 'like')
    """
    read_in = plausible(text)
    language = read_in[0]
    module = languages.module(language.code) or languages.english()
    said = _stated(text, module, language.unspaced)
    if said is None and not language.unspaced:
        said = _read_as_other(text, read_in[1:])
    return said


def _read_as_other(text: str, others: tuple[Language, ...]) -> Preference | None:
    """A text written with spaces in which the table of its detected language finds no preference, read
    with the table of each other language written with spaces that it may be in (``plausible``: the
    detection was unsure, "Salir a correr me despeja la mente" read as French): the first like or
    dislike said by a cue of several words or an elided one ("m'agacent"; a single word such as "super"
    or "top" may be any of them)."""
    for language in others:
        module = languages.module(language.code)
        if language.unspaced or module is None:
            continue
        said = _stated(text, module, False)
        if said is not None and said.polarity != "neutral" and (" " in said.cue or "'" in said.cue):
            return said
    return None


def _stated(text: str, module: languages.LanguageModule, unspaced: bool) -> Preference | None:
    """The preference the text states read with ``module``'s table (see ``polarity``)."""
    table = module.POLARITY
    people = _people(module)
    theirs: Preference | None = None
    neutral: Preference | None = None
    for cue in _cues(text, table, unspaced):
        m = cue.match
        if cue.kind is None or _question(text, m.end()):
            continue
        holder = _whose(text, cue, table, unspaced, people)
        if holder is None or (holder and matcher(table.once, unspaced).fullmatch(m.group(0))):
            continue
        found: Polarity = _FLIP[cue.kind] if _negated(text, m, table, unspaced) else cue.kind
        reason = _reason(text, m, table, unspaced)
        said = Preference(found, m.group(0).lower(), reason, _thing(text, m, reason, table, unspaced), holder)
        if not holder and found != "neutral":
            return said
        if not holder:
            neutral = neutral or said
        else:
            theirs = theirs or said
    return neutral or theirs


def _cues(text: str, table: PolarityWords, unspaced: bool) -> list[_Cue]:
    """Every cue of the text, in order, with the polarity its table gives it (``None`` for a block)
    and how it tells whose it is; a cue inside a longer one is the longer one's."""
    kinds: list[tuple[Polarity | None, Words, Way]] = [
        (None, table.blocks, "subject"),
        ("dislike", table.dislikes, "subject"),
        ("neutral", table.neutral, "subject"),
        ("like", table.likes, "subject"),
        ("like", table.praise, "verdict"),
        ("dislike", table.scorn, "verdict"),
        ("like", table.nouns, "noun"),
        ("dislike", table.bad_nouns, "noun"),
    ]
    out: list[_Cue] = []
    for kind, phrases, way in kinds:
        out += [_Cue(m, kind, way) for m in matcher(phrases, unspaced).finditer(text)]
        if kind is not None and not unspaced:
            out += [_Cue(m, kind, way) for m in _loose(phrases, table.selves, table.fillers).finditer(text)]
    out += [_Cue(m, "like", "subject") for m in matcher(table.bare, unspaced).finditer(text) if _bare(text, m, table)]
    if table.stems:
        out += [_Cue(m, "like", "noun") for m in _stems(table.stems, unspaced).finditer(text)]
    out.sort(key=lambda c: (c.match.start(), -len(c.match.group(0))))
    kept: list[_Cue] = []
    for cue in out:
        if not kept or cue.match.start() >= kept[-1].match.end():
            kept.append(cue)
    return kept


#: Most single-word ``fillers`` between two words of a cue ("makes me so happy", "me rend vraiment heureuse").
_INSIDE = 2


class _Loose:
    """Finds the phrases that name the speaker with fillers inside them (``_loose``) as one alternation
    of them all would (``finditer``: the same matches, in the same order), without compiling that
    alternation: with the fillers' alternation in every gap of every phrase it is megabytes of pattern,
    seconds of CPU to compile. A pattern with any words in each gap finds where a phrase may start; there
    the phrases are tried in the alternation's order, each by its own pattern with any words in its
    gaps, then by its exact one (each compiled on first use), and the first exact match is the match."""

    def __init__(self, ordered: list[str], inside: str):
        self.inside = inside
        self.gap = rf"\s+(?:\S+\s+){{0,{_INSIDE}}}"  # any words: a superset of the fillers
        self.words = [[re.escape(w).replace("'", "['\u2019]") for w in p.split()] for p in ordered]
        rests: dict[str, list[str]] = {}  # by first word: the gaps of each phrase tried once per first word
        for w in self.words:
            rests.setdefault(w[0], []).append(self.gap + self.gap.join(w[1:]))
        body = "|".join(f"{first}(?:{'|'.join(rest)})" for first, rest in rests.items())
        self.anywhere = _whole(body) if ordered else None
        self.patterns: dict[tuple[int, bool], re.Pattern[str]] = {}

    def _phrase(self, i: int, exact: bool) -> re.Pattern[str]:
        found = self.patterns.get((i, exact))
        if found is None:
            joint = rf"\s+(?:(?:{self.inside})\s+){{0,{_INSIDE}}}" if exact else self.gap
            found = self.patterns[(i, exact)] = _whole(joint.join(self.words[i]))
        return found

    def finditer(self, text: str) -> list[re.Match[str]]:
        """The matches of the phrases in ``text``, left to right, none overlapping."""
        out: list[re.Match[str]] = []
        if self.anywhere is None:
            return out
        pos = 0
        while (m := self.anywhere.search(text, pos)) is not None:
            at = m.start()
            found = next(
                (
                    e
                    for i in range(len(self.words))
                    if self._phrase(i, False).match(text, at) and (e := self._phrase(i, True).match(text, at))
                ),
                None,
            )
            if found is None:
                pos = at + 1
                continue
            out.append(found)
            pos = found.end()
        return out


def _whole(body: str) -> re.Pattern[str]:
    """``body`` as whole words, any case."""
    return re.compile(rf"(?<![^\W_])(?:{body})(?![^\W_])", re.I)


@cache
def _loose(phrases: Words, selves: Words, fillers: Words) -> _Loose:
    """The phrases that name the speaker ("makes me happy", "me rend heureuse": a word of ``selves`` in
    them), as whole words of a language written with spaces, with up to ``_INSIDE`` of its single-word
    ``fillers`` between their words (an intensifier inside a cue: "macht mich einfach glücklich"),
    longest first."""
    framed = tuple(p for p in phrases if " " in p and any(w in selves for w in p.split()))
    inside = alternation(tuple(f for f in fillers if " " not in f))
    ordered = sorted(set(framed), key=lambda w: (-len(w), w)) if inside else []
    return _Loose(ordered, inside)


def _stems(stems: Words, unspaced: bool) -> re.Pattern[str]:
    """Word starts ("lieblings" in "Lieblingsbuch")."""
    return re.compile(("" if unspaced else r"(?<![^\W_])") + f"(?:{alternation(stems)})", re.I)


def _said(word: str) -> str:
    return word.lower().replace("\u2019", "'")


def _self(word: str, table: PolarityWords) -> bool:
    """Is the word one of ``selves``, or an elided one of them joined to the next word ("m'ennuie")?"""
    said = _said(word)
    return said in table.selves or ("'" in said and said.split("'")[0] in table.selves)


def _bare(text: str, m: re.Match[str], table: PolarityWords) -> bool:
    """A bare cue ("like") counts right after one of ``before_bare`` ("I like", never "looks like")
    or right before one of ``after_bare`` ("mag ich")."""
    before = _WORD.findall(text[: m.start()])
    after = _WORD.findall(text[m.end() : m.end() + 40])
    return (bool(before) and _said(before[-1]) in table.before_bare) or (
        bool(after) and _said(after[0]) in table.after_bare
    )


def _people(module: languages.LanguageModule) -> frozenset[str]:
    """The words naming a person in a language: its relatives (``ENTITIES.relatives``) and its
    ``holders`` ("he", "she")."""
    return frozenset([*module.ENTITIES.relatives, *module.POLARITY.holders])


def _whose(text: str, cue: _Cue, table: PolarityWords, unspaced: bool, people: frozenset[str]) -> str | None:
    """Whose attitude the cue states: "" for the speaker's, the words naming its holder, or ``None``
    when it is no one's preference (a reaction, the other side's, a noun)."""
    if cue.way == "verdict":
        return "" if _verdict(text, cue.match, table, unspaced, people) else None
    if unspaced:
        return _holder_unspaced(text, cue.match, table)
    if cue.way == "noun":
        return _owner(text, cue.match, table)
    return _subject(text, cue.match, table)


def _verdict(text: str, m: re.Match[str], table: PolarityWords, unspaced: bool, people: frozenset[str]) -> bool:
    """Is the verdict the speaker's on a lasting thing? Not a reaction or praise of a person (one of
    ``reactions`` before it in its clause), not a one-off (one of ``events`` just before or after it),
    and - written with spaces - said of a thing: predicative ("the film was amazing", "that documentary
    was brilliant": a determiner, a thing and a copula before it, no person among them) or before one of
    ``works`` ("such a beautiful film"), with a subject before it in its clause (not a name alone:
    "Hamish is perfect" praises a person; a cause before a verdict of several words is a thing,
    "Gardening makes me happy"), or after other words of the text ("The apps, meh"; not as an
    exclamation opening it: "Amazing!"), or in a sentence holding one of ``ever`` ("best pasta of my
    life")."""
    start = _clause_start(text, m.start())
    before, after = text[start : m.start()], text[m.end() : _clause_end(text, m.end())]
    if unspaced:
        if matcher(table.reactions, True).search(before) or matcher(table.events, True).search(before + after[:4]):
            return False
        return bool(matcher(table.fillers, True).sub("", before).strip(_TRIM) or text[:start].strip(_TRIM))
    said, next_words = _WORD.findall(before), _WORD.findall(after)[:1]
    thing = not next_words and _of_thing(said, table, people)
    if (not thing and matcher(table.reactions, False).search(" ".join(said))) or _shown(said, table):
        return False
    if matcher(table.events, False).search(" ".join([*said[-_EVENT_BEFORE:], *next_words[:_EVENT_AFTER]])):
        return False
    if next_words and " " not in m.group(0).strip() and not _trailing(next_words[0], table):
        return False
    one_word = " " not in m.group(0).strip()
    if table.works and one_word and not any(_said(w) in table.works for w in [*said, *next_words]) and not thing:
        return False
    subject = [w for w in said if _said(w) not in table.fillers]
    if subject:  # a capitalised word alone may be a person ("Hamish is perfect"), a pronoun the other side's news
        named = one_word or _said(subject[0]) in table.holders
        return not (named and len(subject) == 1 and subject[0][:1].isupper() and len(said) == 1)
    if any(_said(w) not in table.fillers for w in _WORD.findall(text[: m.start()])):
        return True
    end = _SENTENCE_END.search(text, m.end())
    return matcher(table.ever, False).search(text[start : end.start() if end else len(text)]) is not None


def _of_thing(said: list[str], table: PolarityWords, people: frozenset[str]) -> bool:
    """Do the words before a predicative verdict name a specific thing: a determiner (one of ``owners``
    or ``pointers``) opening them, a word or more, then a copula (one of ``fillers``), one of
    ``pointers`` among them ("that documentary was", "the ramen at that place was"; not "the sky was",
    which tells of a moment) and no person ("that sister of mine is")?"""
    lowered = [_said(w) for w in said]
    return (
        len(lowered) >= 3
        and (lowered[0] in table.owners or lowered[0] in table.pointers)
        and any(w in table.pointers for w in lowered)
        and lowered[-1] in table.fillers
        and _said(said[1]) not in table.fillers
        and not any(w in people or w in table.selves or w in table.addressee for w in lowered)
    )


def _shown(said: list[str], table: PolarityWords) -> bool:
    """Does a verdict's clause point at something in the present ("this painting is", "those look")?"""
    lowered = [_said(w) for w in said]
    return bool(lowered) and lowered[0] in table.pointers and any(w in table.present for w in lowered[1:])


def _trailing(word: str, table: PolarityWords) -> bool:
    """May the word follow a predicative verdict, or name what an attributive one describes?"""
    said = _said(word)
    return said in table.trail or said in table.works or said in table.fillers or said in table.joins


def _strip_fillers(words: list[str], table: PolarityWords) -> list[str]:
    """The words without the ``fillers`` (single words or phrases) that end them."""
    said = [_said(w) for w in words]
    longest = max((len(f.split()) for f in table.fillers), default=1)
    while said:
        for n in range(min(longest, len(said)), 0, -1):
            if " ".join(said[-n:]) in table.fillers:
                del said[-n:]
                break
        else:
            break
    return words[: len(said)]


def _subject(text: str, m: re.Match[str], table: PolarityWords) -> str | None:
    """The holder of a cue whose subject holds the attitude (see ``PolarityWords``); ``None`` also
    when the other side is what it is about ("I love your painting", "love how you did it")."""
    after = _WORD.findall(text[m.end() : _clause_end(text, m.end())])
    if matcher(table.addressee, False).search(" ".join(after[:_OBJECT_SPAN])):
        return None
    if any(_self(w, table) for w in _WORD.findall(m.group(0))):  # "I'm into", "find ich gut", "m'ennuie"
        return ""
    if after and _said(after[0]) in table.after_bare:  # "Jazz mag ich", "das mag er"
        return "" if _said(after[0]) in table.selves else after[0]
    said = _WORD.findall(text[_clause_start(text, m.start()) : m.start()])
    if not said and matcher(table.orders, False).fullmatch(m.group(0)):  # an order or a wish ("Enjoy!")
        return None
    before = _strip_fillers(said, table)
    if not before:  # no subject: the speaker's ("Loved it", "honestly starting to enjoy it")
        return ""
    word = _said(before[-1])
    if word in table.selves:
        return ""
    if word in table.others or word in table.owners:
        return None
    if word in table.holders:
        return before[-1]
    if word in table.joins:
        return _first_subject(_WORD.findall(text[_sentence_start(text, m.start()) : m.start()])[:-1], table)
    return _noun_phrase(before, table)


def _noun_phrase(before: list[str], table: PolarityWords) -> str:
    """The subject ending ``before`` when its last word is none of the table's: a noun after one of
    ``owners`` ("my son", "the kids"), a subject a word or two before it ("ich wandere gerne", "er
    wandert gerne"), or a capitalised name ("Minka"); "" where it names none ("seriously love" reads
    as the speaker's, as does a negation opening the sentence: "No soy muy de")."""
    for n in range(2, min(_OWNER_SPAN, len(before)) + 1):
        raw = before[-n]
        word = _said(raw)
        if word in table.owners:
            return " ".join(before[-n:])
        if word in table.selves:
            return ""
        if word in table.holders:
            return raw
        if word in table.joins or word in table.others:
            break
    last = before[-1]
    named = last[:1].isupper() and not _said(last).endswith("ly") and _said(last) not in table.negations
    return last if named else ""


def _first_subject(before: list[str], table: PolarityWords) -> str | None:
    """The sentence's first subject, for a cue after one of ``joins`` ("my sister did it and loved
    it"): "" for the speaker, the holder's words, ``None`` for the other side."""
    for i, raw in enumerate(before):
        word = _said(raw)
        if word in table.owners and i + 1 < len(before):
            return " ".join(before[i : i + 2])
        if word in table.selves:
            return ""
        if word in table.holders:
            return raw
        if word in table.others:
            return None
        if i and raw[:1].isupper():
            return raw
    return ""


def _owner(text: str, m: re.Match[str], table: PolarityWords) -> str | None:
    """The holder of an owned noun ("my favourite", "my escape": the speaker; "Ian's favourite": Ian),
    ``None`` when none owns it ("your favourite", "the favourite")."""
    if any(_said(w) in table.selves for w in _WORD.findall(m.group(0))):
        return ""
    before = _WORD.findall(text[_clause_start(text, m.start()) : m.start()])[-_OWNER_SPAN:]
    for raw in reversed(before):
        word = _said(raw)
        if word in table.selves:
            return ""
        if word in table.others:
            return None
        if word in table.owners:
            return raw
        if word.endswith("'s") and raw[:1].isupper():
            return raw[:-2]
    return None


def _holder_unspaced(text: str, m: re.Match[str], table: PolarityWords) -> str | None:
    """The holder in a language written without spaces: the clause before the cue up to the last of
    ``holders`` in it ("我儿子", "うちの猫"; not one right before one of ``possessives``: "彼女の歌声"),
    unless one of ``selves`` comes after it; ``None`` when one of ``others`` ("你") is the last of them."""
    start = _clause_start(text, m.start())
    before = text[start : m.start()]
    last: tuple[int, str] = (-1, "self")
    owning = matcher(table.possessives, True)
    for kind, phrases in (("self", table.selves), ("holder", table.holders), ("other", table.others)):
        for hit in matcher(phrases, True).finditer(before):
            if hit.end() > last[0] and not (kind == "holder" and owning.match(before, hit.end())):
                last = (hit.end(), kind)
    if last[1] == "other":
        return None
    if last[1] == "holder":
        return before[: last[0]].strip(_TRIM)
    return ""


def _question(text: str, at: int) -> bool:
    """Is position ``at`` in a question: a sentence ending with a question mark, unless a clause of
    its own comes first and only a tag asks ("I love jazz, do you?", "so good, right?")?"""
    end = _SENTENCE_END.search(text, at)
    if end is None or end.group(0) not in "?\uff1f":
        return False
    clause_end = _clause_end(text, at)
    return clause_end == end.start() or len(_WORD.findall(text[clause_end : end.start()])) > _TAG_WORDS


def _sentence_start(text: str, at: int) -> int:
    ends = list(_SENTENCE_END.finditer(text, 0, at))
    return ends[-1].end() if ends else 0


def _clause_start(text: str, at: int) -> int:
    ends = list(_CLAUSE_END.finditer(text, 0, at))
    return ends[-1].end() if ends else 0


def _clause_end(text: str, at: int) -> int:
    end = _CLAUSE_END.search(text, at)
    return end.start() if end else len(text)


def _negated(text: str, cue: re.Match[str], table: PolarityWords, unspaced: bool) -> bool:
    """Is there a negation in the cue's clause just before it, or just after it (none for a cue that
    holds its own negation: "ne supporte pas", "不崩溃")?"""
    if matcher(table.negations, unspaced).search(cue.group(0)):
        return False
    before = text[_clause_start(text, cue.start()) : cue.start()]
    after = text[cue.end() : _clause_end(text, cue.end())]
    if unspaced:  # a filler holding a negation's character is none ("特别")
        window = matcher(table.fillers, True).sub(" ", f"{before[-_BEFORE[True] :]} {after[: _AFTER[True]]}")
    else:  # a filler of several words is no negation ("de plus en plus")
        before, after = (_phrase_fillers(table).sub(" ", part) for part in (before, after))
        window = " ".join([*_WORD.findall(before)[-_BEFORE[False] :], "|", *_WORD.findall(after)[: _AFTER[False]]])
    found = matcher(table.negations, unspaced).search(window)
    if found is not None and matcher(table.unmatched, unspaced).fullmatch(found.group(0)):
        rest = after.strip()  # "nothing relaxes me like ...", "I love nothing more than ..."
        lead = matcher(table.unmatched, unspaced).match(rest)
        return matcher(table.rivals, unspaced).match(rest[lead.end() :].strip() if lead else rest) is None
    return found is not None


def _phrase_fillers(table: PolarityWords) -> re.Pattern[str]:
    """The table's ``fillers`` of several words, as whole words."""
    return matcher(tuple(f for f in table.fillers if " " in f), False)


def _reason(text: str, cue: re.Match[str], table: PolarityWords, unspaced: bool) -> str:
    """The reason the text gives, a span of it ("" when none)."""
    sentence_end = _SENTENCE_END.search(text, cue.end())
    stop = sentence_end.start() if sentence_end else len(text)
    marker = matcher(table.reasons, unspaced).search(text, cue.end(), stop) if table.reasons else None
    if marker is not None:
        return _clip(text[marker.end() : stop])
    before = re.search(alternation(table.reasons_before), text) if table.reasons_before else None
    if before is not None:
        return _clip(text[_clause_start(text, before.start()) : before.start()])
    nxt = _clause_end(text, cue.end())
    if nxt < stop:
        clause = text[nxt:stop].lstrip(_TRIM)
        if matcher(table.reason_openers, unspaced).match(clause):
            return _clip(clause)
    return ""


def _thing(text: str, cue: re.Match[str], reason: str, table: PolarityWords, unspaced: bool) -> str:
    """What the cue is about: its clause after the cue (up to the reason), else its clause before it
    without the fillers that end it ("the film was" -> "the film"; a verb ending such as "です" is no
    thing)."""
    after = text[cue.end() : _clause_end(text, cue.end())]
    after = (after.split(reason)[0] if reason else after).strip(_TRIM)
    if len(after) > (3 if unspaced else 0):
        return after[:80]
    before = text[_clause_start(text, cue.start()) : cue.start()].strip(_TRIM)
    if not unspaced:
        kept = _strip_fillers(_WORD.findall(before), table)
        cut = [w.end() for w in _WORD.finditer(before)][len(kept) - 1] if kept else 0
        before = before[:cut].strip(_TRIM)
    return before[:80]


def _clip(span: str) -> str:
    return span.strip(_TRIM)[:MAX_REASON].strip(_TRIM)
