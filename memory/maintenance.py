"""Memory that changes, in code: grounding checks, and how a maintenance decision changes records.

Post-thinking asks a model how each new memory relates to stored ones; this module is the code
half. ``grounded`` checks that a model's sentence is supported by the turn it came from (shared
content words or embedding similarity), so a confused model cannot store a thought its source does
not support. The ``apply_*`` functions change records and write their history; an update never
deletes: the old record's validity ends where the new one begins.

- same: the records are merged (``caim.memory.merge.merge_group``);
- update: ``old.valid_until`` = the new event time, ``old.superseded_by`` = new id, ``new.supersedes``
  gains the old id;
- extends: the new detail is appended to the old record (thought, sources, tags); the new one is
  folded into it;
- contradicts: both stay current, linked to each other - except a preference that turned (a like,
  then a dislike of the same thing, or the other way round: ``opposed``): whatever the decision, the
  newer is current and the older is closed as by an update, both noting the contradiction
  (``apply_turn``); within one session too (``Maintenance.settle_turns``);
- link: records naming the same person, pet, place or thing are linked.

A single-value attribute (name, age, home city, diet, job, employer: ``caim.memory.text.slots``,
those the ontology marks) holds one current value: when a new record of the user gives one another
value than a current stored record (``displaced``), the older is closed as by an update whatever the
decision, both noting "location: was Porto, now Lyon" (``apply_displace``); the same value closes
nothing. An older record that also states another single-value fact the new one does not restate
("I'm Ana and I live in Porto", then "I moved to Lyon") is not closed - its name would be lost - but
linked to the new one as a contradiction with the same note. Within one session the later statement
wins (``Maintenance.settle_slots``).

``Decision`` is the closed set the maintain prompt offers; ``Maintenance.apply`` dispatches a decision
through a table to the function that applies it, and refuses a "same" that code finds unrelated or
differing in numbers or names. ``MaintainGroup`` is what a policy is shown of one new memory and the
stored ones related to it. Code's own "same" (``duplicate``: the same words, or near-identical meaning
with the same numbers and names) merges copies whatever a model says (``merge_copies``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from typing_extensions import TypedDict

from caim.core import faults
from caim.memory.merge import Merge, merge_group
from caim.memory.records import Change as HistoryChange
from caim.memory.records import HistoryEntry, MemoryRecord, as_aware, utcnow
from caim.memory.storage.store import MemoryStore
from caim.memory.text import DIGITS, SMALL_TALK_STEMS, names, tokenize, unsupported
from caim.memory.text.polarity import polarity
from caim.memory.text.slots import ATTRIBUTES, Attribute, Slot, slots

_ROLE_WORDS = frozenset(tokenize("user assistant person someone"))
#: A speaker's label at the start of a line or a claim ("Caroline: ...").
_LABEL = re.compile(r"(?:^|\n)\s*([A-Z][\w.'-]{1,30}):")
#: Fewest distinct content words a grounded claim holds ("Mel" is no memory; "Loves pizza" is).
MIN_CONTENT_WORDS = 2
#: Cosine similarity at which two records are duplicates whatever the model says.
DUPLICATE = 0.95
#: Stored records naming an entity that a new record naming it is linked to.
LINKS_PER_NAME = 5


def content_overlap(claim: str, source: str) -> float:
    """Share of the claim's content words (stems, stopwords and role words left out) found in the source."""
    words = [w for w in tokenize(claim) if w not in _ROLE_WORDS]
    if not words:
        return 0.0
    have = set(tokenize(source))
    return sum(1 for w in words if w in have) / len(words)


def claim_words(claim: str, source: str) -> list[str]:
    """The words of a claim that can support it: content words, less role words, small talk and the
    names of the source's speakers (a claim that only names who spoke states nothing).

    >>> claim_words("Caroline: Wow, looks awesome!", "Caroline: Wow, Mel! You had a blast.")
    ['look']
    """
    labels = set(tokenize(" ".join(_LABEL.findall(source))))
    claim = _LABEL.sub("\n", claim, count=1)
    return [w for w in tokenize(claim) if w not in _ROLE_WORDS and w not in SMALL_TALK_STEMS and w not in labels]


def grounded(claim: str, source: str, similarity: float, *, min_overlap: float, min_similarity: float) -> bool:
    """Is the claim supported by the source text? It must hold at least ``MIN_CONTENT_WORDS`` words
    of its own (``claim_words``) and either share enough of them with the source or, sharing at
    least one, be close to it in meaning (a paraphrase). Similarity alone is not enough: small talk
    embeds close to small talk.

    >>> grounded("Mel", "Caroline: Thanks, Mel! My friends are my rocks.", 0.9, min_overlap=0.34, min_similarity=0.5)
    False
    >>> grounded("Has known her friends for 4 years", "I've known these friends for 4 years.", 0.6,
    ...          min_overlap=0.34, min_similarity=0.5)
    True
    """
    words = claim_words(claim, source)
    if len(set(words)) < MIN_CONTENT_WORDS:
        return False
    have = set(tokenize(source))
    overlap = sum(1 for w in words if w in have) / len(words)
    return overlap >= min_overlap or (overlap > 0 and similarity >= min_similarity)


def keeps(rewrite: str, original: str, min_share: float) -> bool:
    """Does a rewrite of someone's words keep what they said? It keeps every name, number and date
    of the original (``unsupported`` finds none missing, however the date is written; speakers'
    labels aside) and at least ``min_share`` of its content words (``claim_words``). A verbatim
    capture is only replaced by a sentence that passes: a small model's rewrite that drops the fact
    keeps the words instead.

    >>> said = "Hi, my name is Emily. My favourite food is pizza and I play the piano every evening."
    >>> keeps("Emily, my name is Emily, I love playing the piano every evening.", said, 0.75)
    False
    >>> keeps("Emily's favourite food is pizza; she plays the piano every evening.", said, 0.75)
    True
    >>> keeps("Went to the LGBTQ support group on May 7.", "I went to the LGBTQ support group on 7 May!", 0.75)
    True
    """
    labels = {n.lower() for n in _LABEL.findall(original)}
    if set(unsupported(_LABEL.sub("\n", original), rewrite)) - labels:
        return False
    words = set(claim_words(original, original))
    return not words or len(words & set(tokenize(rewrite))) / len(words) >= min_share


def _note(
    rec: MemoryRecord, change: HistoryChange, session_id: str, others: Sequence[str], note: str = ""
) -> MemoryRecord:
    entry = HistoryEntry(change=change, session_id=session_id, others=list(others), note=note)
    return rec.model_copy(update={"history": [*rec.history, entry], "updated_at": utcnow()})


def apply_update(old: MemoryRecord, new: MemoryRecord, session_id: str) -> tuple[MemoryRecord, MemoryRecord]:
    """``new`` supersedes ``old``: the old record stays, valid until the new event time."""
    until = max(as_aware(new.event_time), as_aware(old.valid_from or old.event_time))
    closed = _note(old, "superseded", session_id, [new.id], f"superseded by: {new.thought[:120]}")
    closed = closed.model_copy(update={"valid_until": until, "superseded_by": new.id})
    newer = _note(new, "updated", session_id, [old.id], f"supersedes: {old.thought[:120]}")
    newer = newer.model_copy(
        update={
            "supersedes": list(dict.fromkeys([*new.supersedes, old.id])),
            "valid_from": new.valid_from or new.event_time,
        }
    )
    return closed, newer


def apply_extend(old: MemoryRecord, new: MemoryRecord, session_id: str) -> MemoryRecord:
    """Append the new detail to the old record; the new record is folded into it."""
    thought = (
        old.thought if new.thought.lower() in old.thought.lower() else f"{old.thought.rstrip('. ')}; {new.thought}"
    )
    seen = {(s.role, s.text) for s in old.sources}
    sources = [*old.sources, *(s for s in new.sources if (s.role, s.text) not in seen)]
    tags = list(dict.fromkeys([*old.tags, *new.tags]))[:3]
    entities = list(dict.fromkeys([*old.entities, *new.entities]))
    out = _note(old, "extended", session_id, [new.id], new.thought[:200])
    return out.model_copy(update={"thought": thought[:1000], "sources": sources, "tags": tags, "entities": entities})


def apply_contradiction(a: MemoryRecord, b: MemoryRecord, session_id: str) -> tuple[MemoryRecord, MemoryRecord]:
    """Both may hold: both stay current, linked, with the disagreement in their history."""
    a2 = _note(a, "contradicted", session_id, [b.id], b.thought[:120])
    b2 = _note(b, "contradicted", session_id, [a.id], a.thought[:120])
    return (
        a2.model_copy(update={"links": list(dict.fromkeys([*a.links, b.id]))}),
        b2.model_copy(update={"links": list(dict.fromkeys([*b.links, a.id]))}),
    )


#: Two preferences are about the same thing when they share more than this share of the fewer thing
#: words ("Italian food" and "spicy food" share only half: two things).
SAME_THING = 0.5


def _thing_words(text: str) -> set[str]:
    """The content words of what a preference is about (its whole text when no cue names a thing)."""
    found = polarity(text)
    return set(tokenize(found.thing if found is not None and found.thing else text))


def same_thing(a: str, b: str) -> bool:
    """Are two preferences about the same thing (most of the fewer thing words shared)?

    >>> same_thing("I love crowded beaches", "I can't stand crowded beaches, too noisy")
    True
    >>> same_thing("I really like Japanese food", "I hate spicy food")
    False
    """
    wa, wb = _thing_words(a), _thing_words(b)
    return bool(wa and wb) and len(wa & wb) > SAME_THING * min(len(wa), len(wb))


def opposed(new: MemoryRecord, old: MemoryRecord) -> bool:
    """Does ``new`` turn ``old``, a current preference: a like against a dislike of the same thing by the
    same holder (the dog's dislike does not turn the user's like)?"""
    if not old.current or new.holder != old.holder or {new.polarity, old.polarity} != {"like", "dislike"}:
        return False
    return same_thing(new.thought, old.thought)


def apply_turn(old: MemoryRecord, new: MemoryRecord, session_id: str) -> tuple[MemoryRecord, MemoryRecord]:
    """A preference that turned: ``new`` supersedes ``old`` (closed, kept with its history) and both
    record the contradiction ("was a like, now a dislike")."""
    closed, newer = apply_update(old, new, session_id)
    note = f"was a {old.polarity}, now a {new.polarity}"
    return (
        _note(closed, "contradicted", session_id, [new.id], note),
        _note(newer, "contradicted", session_id, [old.id], note),
    )


def record_slots(rec: MemoryRecord) -> dict[Attribute, Slot]:
    """The single-value facts a record states of its speaker: those its thought states, and those its
    speaker's own source turns state with a value the thought names (a turn may state more than
    the record is about: "I moved to Lyon and I love jazz" holds no home city for the jazz record).
    A record of the assistant's or another participant's words states none of the user's."""
    if not rec.by_user:
        return {}
    found = slots(rec.thought)
    thought = rec.thought.casefold()
    for turn in rec.sources:
        if turn.by_user and not turn.context:
            for attribute, slot in slots(turn.text).items():
                if attribute not in found and slot.key in thought:
                    found[attribute] = slot
    return found


def _every(attribute: str) -> bool:
    return True


@dataclass(frozen=True)
class Displaced:
    """A single-value fact a new record gives another value: the old record's slot and the new one's,
    and whether the old record may close (``False``: it states another fact the new one does not)."""

    old: Slot
    new: Slot
    closes: bool

    @property
    def note(self) -> str:
        """What changed, for both records' history ("location: was Porto, now Lyon")."""
        return f"{self.new.attribute}: was {self.old.value}, now {self.new.value}"


def displaced(new: MemoryRecord, old: MemoryRecord, single: Callable[[str], bool] = _every) -> Displaced | None:
    """Does ``new`` give a single-value attribute of ``old`` (a current record of the same speaker)
    another value? ``single`` tells which attributes hold one value (the ontology's marking).

    >>> from datetime import UTC, datetime
    >>> def rec(text):
    ...     return MemoryRecord(user_id="u", thought=text, tags=["location"], event_time=datetime.now(UTC))
    >>> displaced(rec("I moved to Lyon"), rec("I live in Porto")).note
    'location: was Porto, now Lyon'
    >>> displaced(rec("I moved to Lyon"), rec("I live in Lyon")) is None  # the same value
    True
    >>> displaced(rec("Tom lives in Lyon"), rec("I live in Porto")) is None  # another person's
    True
    """
    if not old.current or new.id == old.id or (new.speaker or "user") != (old.speaker or "user"):
        return None
    mine = {a: s for a, s in record_slots(new).items() if single(a)}
    theirs = {a: s for a, s in record_slots(old).items() if single(a)}
    for attribute in ATTRIBUTES:
        if attribute in mine and attribute in theirs and mine[attribute].key != theirs[attribute].key:
            return Displaced(theirs[attribute], mine[attribute], closes=theirs.keys() <= mine.keys())
    return None


def apply_displace(
    old: MemoryRecord, new: MemoryRecord, session_id: str, change: Displaced
) -> tuple[MemoryRecord, MemoryRecord]:
    """A single-value fact with a new value: ``new`` supersedes ``old`` (closed, kept with its
    history); both note what changed ("location: was Porto, now Lyon")."""
    closed, newer = apply_update(old, new, session_id)
    return _annotate(closed, change.note), _annotate(newer, change.note)


def _annotate(rec: MemoryRecord, note: str) -> MemoryRecord:
    """``rec`` with ``note`` before the note of its last history entry."""
    last = rec.history[-1]
    entry = last.model_copy(update={"note": f"{note}; {last.note}" if last.note else note})
    return rec.model_copy(update={"history": [*rec.history[:-1], entry]})


def link(a: MemoryRecord, b: MemoryRecord, session_id: str, name: str) -> tuple[MemoryRecord, MemoryRecord]:
    """Link two records about the same entity (retrieving one brings the other)."""
    if b.id in a.links:
        return a, b
    a2 = _note(a, "linked", session_id, [b.id], name)
    b2 = _note(b, "linked", session_id, [a.id], name)
    return (a2.model_copy(update={"links": [*a.links, b.id]}), b2.model_copy(update={"links": [*b.links, a.id]}))


# ---- decisions ------------------------------------------------------------------------------------
class Decision(StrEnum):
    """How a new memory relates to a stored one: the maintain prompt's closed set."""

    NEW = "new"
    SAME = "same"
    UPDATE = "update"
    EXTENDS = "extends"
    CONTRADICTS = "contradicts"


@dataclass(frozen=True)
class StoredMemory:
    """A stored memory as a policy is shown it: its number in the request, date and text."""

    number: int
    date: str
    text: str


@dataclass(frozen=True)
class MaintainGroup:
    """One new memory (its number, date and text) and the stored memories related to it."""

    new: int
    date: str
    text: str
    stored: list[StoredMemory]


class Change(TypedDict):
    """One change applied to stored memory (for the trace and the session summary)."""

    change: str
    record: str
    others: list[str]
    thought: str


def _day(rec: MemoryRecord) -> str:
    return as_aware(rec.event_time).date().isoformat()


def maintain_groups(
    new: Sequence[MemoryRecord], related: dict[str, list[MemoryRecord]]
) -> tuple[list[MaintainGroup], dict[int, MemoryRecord]]:
    """The groups a policy is shown for ``new`` records (numbered from 1) and their ``related`` stored
    ones (numbered after the new ones, each once however many new ones it relates to).

    Args:
        new: The new records, in the order they are numbered.
        related: Per new record id, the stored records it is compared with.

    Returns:
        The groups, and the stored record each number stands for.
    """
    numbering: dict[int, MemoryRecord] = {}
    number_of: dict[str, int] = {}
    groups = []
    for i, rec in enumerate(new, 1):
        shown = []
        for other in related[rec.id]:
            if other.id not in number_of:
                number_of[other.id] = len(new) + len(numbering) + 1
                numbering[number_of[other.id]] = other
            shown.append(StoredMemory(number_of[other.id], _day(other), other.thought))
        groups.append(MaintainGroup(i, _day(rec), rec.thought, shown))
    return groups, numbering


# ---- code's own "same" ----------------------------------------------------------------------------
def same_details(a: str, b: str) -> bool:
    """Do two texts state the same numbers and names? Near-identical wording with another number or
    name is another fact, so neither the similarity rule nor a model may merge them.

    >>> same_details("Locker 707 at the gym", "locker 807 at the gym")
    False
    """
    return set(DIGITS.findall(a)) == set(DIGITS.findall(b)) and {n.casefold() for n in names(a)} == {
        n.casefold() for n in names(b)
    }


def same_words(a: str, b: str) -> bool:
    """The same words, whatever the punctuation and case."""
    return re.sub(r"\W+", " ", a).strip().casefold() == re.sub(r"\W+", " ", b).strip().casefold()


def duplicate(a: str, b: str, similarity: float) -> bool:
    """The code's own "same": the same words, or near-identical meaning with the same numbers and names."""
    return same_words(a, b) or (similarity >= DUPLICATE and same_details(a, b))


def copy_groups(records: Sequence[MemoryRecord], similarity: np.ndarray) -> list[list[MemoryRecord]]:
    """Records grouped with the earlier ones they duplicate (``similarity``: their pairwise cosine
    similarities), in order of their first member."""
    group_of = list(range(len(records)))
    for i in range(len(records)):
        for j in range(i):
            if group_of[j] == j and duplicate(records[i].thought, records[j].thought, float(similarity[i, j])):
                group_of[i] = j
                break
    groups: dict[int, list[MemoryRecord]] = {}
    for i, g in enumerate(group_of):
        groups.setdefault(g, []).append(records[i])
    return list(groups.values())


# ---- applying decisions -----------------------------------------------------------------------------
@dataclass
class Maintenance:
    """One maintenance run over a user's new records: applies decisions in ``store`` and records
    what it did (``merged``, ``changes``) for the trace."""

    store: MemoryStore
    user_id: str
    session_id: str
    #: Similarity below which a model's "same" needs half the words in common to be merged.
    merge_min_similarity: float = 0.55
    #: Which slot attributes hold one value (the ontology's ``single_valued``; default: all of them).
    single: Callable[[str], bool] = _every
    merged: list[Merge] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)

    def merge(self, members: Sequence[MemoryRecord], gone: Sequence[str] = ()) -> MemoryRecord:
        """Merge ``members`` into one stored record (``merge_group``) and delete the others.

        Args:
            members: Two or more records of the user saying the same thing.
            gone: Their ids in the order the trace lists them (default: the members' order).

        Returns:
            The record kept.
        """
        keep = merge_group(members, self.session_id)
        gone = list(gone) or [m.id for m in members]
        self.store.replace(keep, gone)
        faults.hit("after_maintain_write")
        self.merged.append({"kept": keep.id, "removed": [i for i in gone if i != keep.id], "thought": keep.thought})
        return keep

    def merge_copies(self, records: list[MemoryRecord], similarity: np.ndarray) -> list[MemoryRecord]:
        """Merge copies among this session's new records (two events saying the same, raw records
        of earlier sessions refined now) before they are compared with stored ones.

        Args:
            records: The session's new records.
            similarity: Their pairwise cosine similarities.

        Returns:
            The records left: each group of copies as its merged record.
        """
        if len(records) < 2:
            return records
        return [g[0] if len(g) == 1 else self.merge(g) for g in copy_groups(records, similarity)]

    def apply(
        self, decision: Decision, new: MemoryRecord, similarity: float, copies: Sequence[MemoryRecord] = ()
    ) -> MemoryRecord | None:
        """Apply ``decision`` between the new record and the stored one it concerns.

        Args:
            decision: The decision, its target the first of ``copies``.
            new: The new record.
            similarity: The cosine similarity of the two.
            copies: The stored record the decision concerns (as read now), then further stored
                copies a "same" merges too.

        Returns:
            The new record as it stands afterwards, ``None`` when it was folded into another.
        """
        if decision != Decision.NEW and copies and opposed(new, copies[0]):
            return self._turn(new, list(copies), similarity)  # never merged, extended or both current
        if decision != Decision.NEW and copies and (change := displaced(new, copies[0], self.single)):
            return self._displace(new, copies[0], change)  # one current value, whatever the decision
        return _APPLY[decision](self, new, list(copies), similarity)

    def tag_slots(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Give each record stating a single-value fact its attribute's tag, first (one of three kept),
        so a later value finds it by tag and a question about the attribute by the tag signal.

        Args:
            records: The session's new records.

        Returns:
            The records as they stand afterwards, in their order.
        """
        out = []
        for rec in records:
            missing = [a for a in record_slots(rec) if self.single(a) and a not in rec.tags]
            if missing:
                rec = rec.model_copy(update={"tags": list(dict.fromkeys([*missing, *rec.tags]))[:3]})
                self.store.add([rec])
            out.append(rec)
        return out

    def settle_slots(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Within this session's new records, a later statement of a single-value fact closes an
        earlier one giving another value (``displaced``; in event time, then turn order).

        Args:
            records: The session's new records.

        Returns:
            The records as they stand afterwards, in their order.
        """
        by_id = {r.id: r for r in records}
        stating = [r for r in records if any(self.single(a) for a in record_slots(r))]
        ordered = sorted(stating, key=lambda r: (as_aware(r.event_time), r.turn or 0))
        for i, later in enumerate(ordered):
            for earlier in ordered[:i]:
                now_later, now_earlier = by_id[later.id], by_id[earlier.id]
                if (change := displaced(now_later, now_earlier, self.single)) is not None:
                    by_id[later.id] = self._displace(now_later, now_earlier, change)
                    by_id[earlier.id] = self.store.get(self.user_id, earlier.id) or now_earlier
        return [by_id[r.id] for r in records]

    def settle_turns(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Within this session's new records, a later preference that turns an earlier one - a like,
        then a dislike of the same thing, or the reverse (``opposed``) - closes it, kept with history;
        both note the contradiction (in event time, then turn order), as between sessions.

        Args:
            records: The session's new records.

        Returns:
            The records as they stand afterwards, in their order.
        """
        by_id = {r.id: r for r in records}
        prefs = [r for r in records if r.polarity in ("like", "dislike")]
        ordered = sorted(prefs, key=lambda r: (as_aware(r.event_time), r.turn or 0))
        for i, later in enumerate(ordered):
            for earlier in ordered[:i]:
                now_later, now_earlier = by_id[later.id], by_id[earlier.id]
                if now_later.current and opposed(now_later, now_earlier):
                    closed, newer = apply_turn(now_earlier, now_later, self.session_id)
                    self.store.add([closed, newer])
                    self._note("contradicts", newer, [closed.id], newer.thought)
                    by_id[later.id], by_id[earlier.id] = newer, closed
        return [by_id[r.id] for r in records]

    def displace(self, new: MemoryRecord, old: MemoryRecord) -> MemoryRecord:
        """Close ``old`` when ``new`` gives one of its single-value facts another value (``displaced``;
        else nothing changes). Returns ``new`` as it stands afterwards."""
        change = displaced(new, old, self.single)
        return new if change is None else self._displace(new, old, change)

    def _displace(self, new: MemoryRecord, old: MemoryRecord, change: Displaced) -> MemoryRecord:
        if change.closes:
            closed, newer = apply_displace(old, new, self.session_id, change)
            self.store.add([closed, newer])
            self._note("update", newer, [old.id], newer.thought)
            return newer
        linked_old, linked_new = apply_contradiction(old, new, self.session_id)
        linked_new = _annotate(linked_new, change.note)
        self.store.add([_annotate(linked_old, change.note), linked_new])
        self._note("contradicts", linked_new, [old.id], linked_new.thought)
        return linked_new

    def _turn(self, new: MemoryRecord, copies: list[MemoryRecord], similarity: float) -> MemoryRecord | None:
        old = copies[0]
        closed, newer = apply_turn(old, new, self.session_id)
        self.store.add([closed, newer])
        self._note("contradicts", newer, [old.id], newer.thought)
        return newer

    def _same(self, new: MemoryRecord, copies: list[MemoryRecord], similarity: float) -> MemoryRecord | None:
        old = copies[0]
        if similarity < self.merge_min_similarity and content_overlap(new.thought, old.thought) < 0.5:
            return new  # refused: a confused model cannot merge unrelated facts
        if not same_details(new.thought, old.thought):
            return new  # refused: other numbers or names ("locker 707" / "locker 807") are other facts
        self.merge([*copies, new], [new.id, *(c.id for c in copies)])
        return None

    def _update(self, new: MemoryRecord, copies: list[MemoryRecord], similarity: float) -> MemoryRecord | None:
        old = copies[0]
        closed, newer = apply_update(old, new, self.session_id)
        self.store.add([closed, newer])
        self._note("update", newer, [old.id], newer.thought)
        return newer

    def _extends(self, new: MemoryRecord, copies: list[MemoryRecord], similarity: float) -> MemoryRecord | None:
        grown = apply_extend(copies[0], new, self.session_id)
        self.store.replace(grown, [new.id])
        self._note("extends", grown, [new.id], grown.thought)
        return None

    def _contradicts(self, new: MemoryRecord, copies: list[MemoryRecord], similarity: float) -> MemoryRecord | None:
        a, b = apply_contradiction(copies[0], new, self.session_id)
        self.store.add([a, b])
        self._note("contradicts", b, [a.id], b.thought)
        return b

    def _new(self, new: MemoryRecord, copies: list[MemoryRecord], similarity: float) -> MemoryRecord | None:
        return new

    def _note(self, change: str, rec: MemoryRecord, others: list[str], thought: str) -> None:
        self.changes.append({"change": change, "record": rec.id, "others": others, "thought": thought})

    def link_named(self, records: Sequence[MemoryRecord]) -> None:
        """Link each of ``records`` (as stored now) to stored records naming the same entity."""
        for fresh in records:
            rec = self.store.get(self.user_id, fresh.id)
            if rec is None:  # folded into another record meanwhile
                continue
            for name in dict.fromkeys(e.value for e in rec.entities):
                for other in self.store.records_named(self.user_id, name, LINKS_PER_NAME):
                    if other.id == rec.id or other.id in rec.links:
                        continue
                    rec, other2 = link(rec, other, self.session_id, name)
                    self.store.add([rec, other2])
                    self._note("linked", rec, [other.id], name)


_Apply = Callable[[Maintenance, MemoryRecord, list[MemoryRecord], float], "MemoryRecord | None"]
#: What each decision does (``Maintenance.apply``).
_APPLY: dict[Decision, _Apply] = {
    Decision.NEW: Maintenance._new,
    Decision.SAME: Maintenance._same,
    Decision.UPDATE: Maintenance._update,
    Decision.EXTENDS: Maintenance._extends,
    Decision.CONTRADICTS: Maintenance._contradicts,
}
