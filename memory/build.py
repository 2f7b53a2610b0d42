"""Records from post-thinking's key events, one small function per origin.

A ``ThoughtDraft`` is one key event with the sentence a model wrote for it. ``settle`` decides whether that
sentence is stored: it must be grounded in the event's source (``grounded``), assert no name, number
or date the source does not hold (``unsupported``: an event of the model's then falls back to being a
capture of the turn's words), and - rewriting someone's words (a capture, a raw record) - keep what
they said (``keeps``). ``RecordBuilder.build`` then makes the record of the event's origin:

- refine: a raw record of an earlier session rewritten as a thought (kept raw when the sentence is refused);
- capture: a side of an exchange stored verbatim as a ``raw`` record, unless its rewrite was accepted;
- model: the accepted sentence, or the event's own words, as a thought with the turn as its source.

Ids come from (user, session, turn, event), so building the same session again writes the same records.

Every record of a person's words gets the preference it states (``preference``): polarity and reason
from the code signal (``caim.memory.text.polarity``), from the thoughts model and from the reader
(``caim.memory.reading``), by one rule - code wins where it found an explicit cue (the bundled model is
weak; a cue is not), the model fills in where code found none, the reader where neither did; a reason
is the code's span of the turn, else the model's when its specifics are grounded in the source
(``reason_grounded``). The assistant's words state no preference; a preference the code finds is someone
else's ("my son loves dinosaurs": ``Preference.holder``) is stored as theirs (the record's ``holder``), which no
profile of the speaker takes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, NamedTuple

from caim.memory.capture import raw_record
from caim.memory.entities import as_names, with_entities
from caim.memory.maintenance import content_overlap, grounded, keeps
from caim.memory.records import (
    ASSISTANT,
    MAX_ENTITY,
    MAX_REASON,
    USER,
    HistoryEntry,
    MemoryRecord,
    Polarity,
    SourceTurn,
    as_aware,
    stable_id,
)
from caim.memory.stm import Exchange, clip
from caim.memory.text import names, unsupported
from caim.memory.text.polarity import polarity

#: How an event from the assistant's words is put to the thoughts model (the memory is of what it said).
ASSISTANT_SAID = "The assistant said: "


def said_by(speaker: str) -> str:
    """How an event of someone else's words is put to the thoughts model: "The assistant said: ",
    "Sam said: " ("" for the user's own words).

    >>> said_by("user"), said_by("assistant"), said_by("Sam")
    ('', 'The assistant said: ', 'Sam said: ')
    """
    if speaker == USER:
        return ""
    return ASSISTANT_SAID if speaker == ASSISTANT else f"{speaker} said: "


Origin = Literal["model", "capture", "refine"]


@dataclass(frozen=True)
class ThoughtDraft:
    """One key event and the sentence written for it.

    ``event`` is the event's text (an assistant's words prefixed with ``ASSISTANT_SAID``), ``thought``
    the model's sentence (empty when it wrote none), ``source`` the words it must be grounded in, and
    ``raw`` the raw record of an earlier session a ``refine`` event rewrites. ``polarity`` and
    ``reason``: the preference the thoughts model read in the event (none when it read none).
    ``speaker``: whose words the event is (``USER``, ``ASSISTANT`` or a participant's name).
    ``liking``: the lasting like or dislike the reader (``caim.memory.reading``) found in its words.
    """

    turn: int
    event: str
    when: datetime
    origin: Origin = "model"
    speaker: str = USER
    thought: str = ""
    source: str = ""
    raw: MemoryRecord | None = None
    polarity: Polarity | None = None
    reason: str = ""
    liking: Polarity | None = None

    @property
    def assistant(self) -> bool:
        """The event is the assistant's words."""
        return self.speaker == ASSISTANT


@dataclass(frozen=True)
class Grounding:
    """Thresholds a written sentence must meet (``grounded`` and ``keeps``)."""

    min_overlap: float
    min_similarity: float
    keep_share: float


@dataclass(frozen=True)
class Settled:
    """What ``settle`` decided for a draft: whether its sentence is stored, the draft as it now stands
    (an invented event of the model's is a capture), and the words the sentence invented."""

    ok: bool
    draft: ThoughtDraft
    invented: list[str] = field(default_factory=list)


def settle(draft: ThoughtDraft, similarity: float, grounding: Grounding) -> Settled:
    """Decide whether a draft's sentence is stored in place of its event's words.

    Args:
        draft: The event and the sentence written for it.
        similarity: Cosine similarity of the sentence and its source (0 without a sentence).
        grounding: The thresholds.

    Returns:
        The decision, the draft (a model event whose sentence invents becomes a capture) and the
        invented names, numbers or dates.
    """
    ok = bool(draft.thought) and grounded(
        draft.thought,
        draft.source,
        similarity,
        min_overlap=grounding.min_overlap,
        min_similarity=grounding.min_similarity,
    )
    made_up = unsupported(draft.thought, draft.source) if ok else []
    if made_up:  # a name, number or date its source turns do not hold: refused, the turn's words kept
        origin: Origin = "capture" if draft.origin == "model" else draft.origin
        return Settled(False, dataclasses.replace(draft, origin=origin), made_up)
    if ok and (draft.origin == "capture" or draft.raw is not None):  # words a rewrite must keep
        said = draft.raw.thought if draft.raw is not None else draft.event.removeprefix(said_by(draft.speaker))
        ok = keeps(draft.thought, said, grounding.keep_share)
    return Settled(ok, draft)


def turn_sources(t: Exchange | None, prev: Exchange | None) -> list[SourceTurn]:
    """The source turns of a record from turn ``t``: the assistant's question before it, when the
    previous turn ended with one, then the person's words (the user's or a participant's) and the
    assistant's reply."""
    if t is None:
        return []
    out = []
    if prev is not None and prev.assistant and prev.assistant.rstrip().endswith("?"):
        out.append(SourceTurn(role="assistant", text=prev.assistant, time=prev.time, turn=prev.number, context=True))
    out.append(SourceTurn(role="user", text=t.user, time=t.time, turn_id=t.user_id, turn=t.number, speaker=t.speaker))
    if t.assistant:
        out.append(SourceTurn(role="assistant", text=t.assistant, time=t.time, turn=t.number))
    return out


def refined_record(raw: MemoryRecord, thought: str, tags: list[str], session_id: str) -> MemoryRecord:
    """A raw record of an earlier session rewritten as a thought (its id that of the side it captured).

    Args:
        raw: The raw record.
        thought: The accepted rewrite.
        tags: The record's tags.
        session_id: The session refining it.

    Returns:
        The thought that replaces the raw record.
    """
    side: int | str = "assistant" if raw.speaker == ASSISTANT else 0
    return raw.model_copy(
        update={
            "id": stable_id(raw.user_id, raw.session_id, raw.turn, side),
            "kind": "thought",
            "thought": clip(thought, 500),
            "tags": tags,
            "history": [*raw.history, HistoryEntry(change="refined", session_id=session_id, others=[raw.id])],
        }
    )


def captured_record(
    user_id: str,
    session_id: str,
    draft: ThoughtDraft,
    turn: Exchange | None,
    tags: list[str],
    prev: Exchange | None = None,
) -> MemoryRecord:
    """One side of an exchange kept verbatim as a raw record (the reply's words with the user's turn
    it answered as context, or a person's words - the user's or a participant's - with the reply and,
    as context, the assistant's turn before them, which those words may answer).

    Args:
        user_id: The user.
        session_id: The session.
        draft: The capture event.
        turn: The turn it came from, when the session still holds it.
        tags: The record's tags.
        prev: The turn before it, when the session still holds it.

    Returns:
        The raw record.
    """
    if draft.assistant:  # the reply's words; the user's turn it answered is its context
        rec = raw_record(
            user_id=user_id,
            session_id=session_id,
            turn=draft.turn,
            text=turn.assistant if turn else draft.event.removeprefix(ASSISTANT_SAID),
            when=draft.when,
            tags=tags,
            speaker=ASSISTANT,
            asked=turn.user if turn else "",
            kept=draft.event.removeprefix(ASSISTANT_SAID),
        )
    else:
        rec = raw_record(
            user_id=user_id,
            session_id=session_id,
            turn=draft.turn,
            text=turn.user if turn else draft.event.removeprefix(said_by(draft.speaker)),
            when=draft.when,
            tags=tags,
            speaker=draft.speaker,
            reply=turn.assistant if turn else "",
            asked=prev.assistant if prev is not None else "",
            turn_id=turn.user_id if turn else None,
        )
    return rec.model_copy(update={"history": [HistoryEntry(change="captured", session_id=session_id)]})


def model_record(
    user_id: str,
    session_id: str,
    draft: ThoughtDraft,
    index: int,
    text: str,
    turns: Mapping[int, Exchange],
    tags: list[str],
) -> MemoryRecord:
    """A thought from an event: ``text`` (the accepted sentence or the event's words), its turn (and
    the question before it) as sources.

    Args:
        user_id: The user.
        session_id: The session.
        draft: The event.
        index: How many thoughts of the same turn were built before this one.
        text: The thought.
        turns: The session's turns by number.
        tags: The record's tags.

    Returns:
        The thought record.
    """
    rec = MemoryRecord(
        id=stable_id(user_id, session_id, draft.turn, index),
        user_id=user_id,
        thought=clip(text, 500),
        tags=tags,
        event_time=as_aware(draft.when),
        session_id=session_id,
        turn=draft.turn,
        speaker=draft.speaker,
        entities=as_names(names(draft.event)),
        sources=turn_sources(turns.get(draft.turn), turns.get(draft.turn - 1)),
        history=[HistoryEntry(change="created", session_id=session_id)],
    )
    return with_entities(rec)  # typed from the speaker's own words, then the event's other names


#: Share of a model's reason's content words its source must hold for the reason to be kept.
REASON_OVERLAP = 0.5


def reason_grounded(reason: str, source: str) -> bool:
    """Is a model's reason grounded: no name, number or date its source lacks, most words its source's?"""
    return (
        bool(reason.strip()) and not unsupported(reason, source) and content_overlap(reason, source) >= REASON_OVERLAP
    )


class Stated(NamedTuple):
    """The preference a record states: its polarity, its reason, and whose it is ("" for the speaker's own)."""

    polarity: Polarity | None
    reason: str | None
    holder: str = ""


def preference(draft: ThoughtDraft) -> Stated:
    """The polarity, reason and holder of a draft's record (see the module docstring for the rule).

    Args:
        draft: The event, with the model's polarity and reason when it gave them.

    Returns:
        ``(polarity, reason, holder)``; ``(None, None, "")`` for a memory that states no preference.
    """
    if draft.assistant:  # the assistant's words state no preference; a participant's is theirs, on their record
        return Stated(None, None)
    said = draft.raw.thought if draft.raw is not None else draft.event
    code = polarity(said)
    model_reason = draft.reason if reason_grounded(draft.reason, draft.source or said) else ""
    if code is not None:
        return Stated(code.polarity, (code.reason or model_reason)[:MAX_REASON] or None, code.holder[:MAX_ENTITY])
    if draft.polarity is not None:
        return Stated(draft.polarity, model_reason[:MAX_REASON] or None)
    return Stated(draft.liking, None)


@dataclass
class RecordBuilder:
    """Builds the records of one session's drafts, numbering the thoughts of each turn; ``retired``
    lists the raw records refined (to be deleted once their thoughts are stored)."""

    user_id: str
    session_id: str
    turns: Mapping[int, Exchange]
    retired: list[str] = field(default_factory=list)
    _per_turn: dict[int, int] = field(default_factory=dict)

    def build(self, settled: Settled, tags: Sequence[str]) -> MemoryRecord | None:
        """The record of a settled draft, by its origin.

        Args:
            settled: The draft and whether its sentence is stored.
            tags: The record's tags.

        Returns:
            The record, or ``None`` for a refinement whose sentence was refused (the raw record stays).
        """
        rec = self._record(settled, list(tags))
        if rec is None:
            return None
        found, reason, holder = preference(settled.draft)
        return rec.model_copy(update={"polarity": found, "reason": reason, "holder": holder})

    def _record(self, settled: Settled, tags_: list[str]) -> MemoryRecord | None:
        draft = settled.draft
        if draft.raw is not None:  # refining an earlier raw capture
            if not settled.ok:
                return None
            self.retired.append(draft.raw.id)
            return refined_record(draft.raw, draft.thought, tags_, self.session_id)
        if draft.origin == "capture" and not settled.ok:
            turn, prev = self.turns.get(draft.turn), self.turns.get(draft.turn - 1)
            return captured_record(self.user_id, self.session_id, draft, turn, tags_, prev)
        index = self._per_turn.get(draft.turn, 0)
        self._per_turn[draft.turn] = index + 1
        text = draft.thought if settled.ok else draft.event
        return model_record(self.user_id, self.session_id, draft, index, text, self.turns, tags_)
