"""Preference polarity in code: does a turn say the speaker likes, dislikes or is neutral about a
thing, and why.

``polarity`` finds the first preference cue of a text (per language: ``PolarityWords`` in
``lang_en`` ... ``lang_ja``), outside questions and other people's attitudes ("you must love it",
"their love and support"). A negation shortly before the cue (or just after
it: "mag keine", "好きじゃない") turns a like into a dislike and a dislike into neutral ("I don't
love it anymore" is a dislike). The reason is always a span of the text itself, so it asserts
nothing its source does not hold: the rest of the sentence after a reason marker ("because ...",
"weil ...", "因为 ..."), the clause before a closing marker ("うるさいから"), or the clause after
the cue's clause when a reason opener starts it ("..., too noisy"). ``thing`` is what the cue is
about (the words after the cue in its clause, else those before it), for telling whether two
preferences concern the same thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from caim.memory.text import lang_de, lang_en, lang_es, lang_fr, lang_ja, lang_zh
from caim.memory.text.lang import alternation, detect, matcher
from caim.memory.text.tables import PolarityWords

Polarity = Literal["like", "dislike", "neutral"]
#: The closed set of polarities, in the order prompts and filters list them.
POLARITIES: tuple[Polarity, ...] = ("like", "dislike", "neutral")
#: Longest reason kept (characters).
MAX_REASON = 160
#: Words (spaced) or characters (unspaced) before a cue in which a negation turns it.
_BEFORE = {False: 3, True: 4}
#: Words (spaced) or characters (unspaced) after a cue in which a negation turns it.
_AFTER = {False: 2, True: 6}

_TABLES: dict[str, PolarityWords] = {
    "en": lang_en.POLARITY,
    "de": lang_de.POLARITY,
    "fr": lang_fr.POLARITY,
    "es": lang_es.POLARITY,
    "zh": lang_zh.POLARITY,
    "ja": lang_ja.POLARITY,
}
_FLIP: dict[Polarity, Polarity] = {"like": "dislike", "dislike": "neutral", "neutral": "neutral"}
_CLAUSE_END = re.compile(r"[,;:.!?\u2014\u2013\u3001\u3002\uff0c\uff1b\uff01\uff1f]|\s-\s")
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f]")
_TRIM = " \t\n,;:.!?-\u2014\u2013\u3001\u3002\uff0c\uff1b\uff01\uff1f\"'"
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?")


@dataclass(frozen=True)
class Preference:
    """What a text says of a preference: its polarity, the cue that said so, the reason given ("" when
    none) and the thing it is about ("" when the text names none)."""

    polarity: Polarity
    cue: str
    reason: str = ""
    thing: str = ""


def polarity(text: str) -> Preference | None:
    """The preference a text states, or ``None`` when it states none (or only asks about one).

    >>> polarity("I can't stand crowded beaches, too noisy")
    Preference(polarity='dislike', cue="can't stand", reason='too noisy', thing='crowded beaches')
    >>> polarity("I don't love it anymore").polarity, polarity("Do you like jazz?")
    ('dislike', None)
    >>> polarity("I hope they love it!"), polarity("Their love and support got me through.")
    (None, None)
    """
    language = detect(text)
    table, unspaced = _TABLES.get(language.code, lang_en.POLARITY), language.unspaced
    for cue, kind in _cues(text, table, unspaced):
        if _question(text, cue.end()) or _others(text, cue, table):
            continue
        found: Polarity = _FLIP[kind] if _negated(text, cue, table, unspaced) else kind
        reason = _reason(text, cue, table, unspaced)
        return Preference(found, cue.group(0).lower(), reason, _thing(text, cue, reason, unspaced))
    return None


def _cues(text: str, table: PolarityWords, unspaced: bool) -> list[tuple[re.Match[str], Polarity]]:
    """Every cue of the text, in order, with the polarity its table gives it."""
    kinds: list[tuple[Polarity, tuple[str, ...]]] = [
        ("dislike", table.dislikes),
        ("neutral", table.neutral),
        ("like", table.likes),
    ]
    out: list[tuple[re.Match[str], Polarity]] = []
    for kind, phrases in kinds:
        out += [(m, kind) for m in matcher(phrases, unspaced).finditer(text)]
    out += [(m, "like") for m in matcher(table.bare, unspaced).finditer(text) if _after_subject(text, m, table)]
    out.sort(key=lambda mk: (mk[0].start(), -len(mk[0].group(0))))
    kept: list[tuple[re.Match[str], Polarity]] = []
    for m, kind in out:  # a cue inside a longer one ("fan of" in "not a fan of") is the longer one's
        if not kept or m.start() >= kept[-1][0].end():
            kept.append((m, kind))
    return kept


def _after_subject(text: str, m: re.Match[str], table: PolarityWords) -> bool:
    """A bare cue ("like") counts right after one of ``before_bare`` ("I like", never "looks like")."""
    before = _WORD.findall(text[: m.start()])
    return bool(before) and before[-1].lower().replace("\u2019", "'") in table.before_bare


def _others(text: str, cue: re.Match[str], table: PolarityWords) -> bool:
    """Is the cue another person's, or a noun ("you must love it", "their love")? The first word
    before it in its clause, past the table's ``fillers``, is one of its ``others``."""
    if not table.others:
        return False
    for word in reversed(_WORD.findall(text[_clause_start(text, cue.start()) : cue.start()])):
        said = word.lower().replace("\u2019", "'")
        if said not in table.fillers:
            return said in table.others
    return False


def _question(text: str, at: int) -> bool:
    """Does the sentence holding position ``at`` end with a question mark?"""
    end = _SENTENCE_END.search(text, at)
    return end is not None and end.group(0) in "?\uff1f"


def _clause_start(text: str, at: int) -> int:
    ends = list(_CLAUSE_END.finditer(text, 0, at))
    return ends[-1].end() if ends else 0


def _clause_end(text: str, at: int) -> int:
    end = _CLAUSE_END.search(text, at)
    return end.start() if end else len(text)


def _negated(text: str, cue: re.Match[str], table: PolarityWords, unspaced: bool) -> bool:
    """Is there a negation in the cue's clause just before it, or just after it?"""
    before = text[_clause_start(text, cue.start()) : cue.start()]
    after = text[cue.end() : _clause_end(text, cue.end())]
    if unspaced:
        window = f"{before[-_BEFORE[True] :]} {after[: _AFTER[True]]}"
    else:
        window = " ".join([*_WORD.findall(before)[-_BEFORE[False] :], "|", *_WORD.findall(after)[: _AFTER[False]]])
    return matcher(table.negations, unspaced).search(window) is not None


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


def _thing(text: str, cue: re.Match[str], reason: str, unspaced: bool) -> str:
    """What the cue is about: its clause after the cue (up to the reason), else its clause before it
    (a verb ending such as "です" is no thing)."""
    after = text[cue.end() : _clause_end(text, cue.end())]
    after = (after.split(reason)[0] if reason else after).strip(_TRIM)
    if len(after) > (3 if unspaced else 0):
        return after[:80]
    return text[_clause_start(text, cue.start()) : cue.start()].strip(_TRIM)[:80]


def _clip(span: str) -> str:
    return span.strip(_TRIM)[:MAX_REASON].strip(_TRIM)
