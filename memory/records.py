"""The LTM record: a thought with its tags, times, validity, links, history and verbatim sources.

A record is either a ``thought`` (written by post-thinking from a key event) or ``raw`` (a user's
turn stored verbatim when no grounded thought covers it - capture never fails); a later
post-thinking refines raw records into thoughts. Records are bi-temporal: ``event_time`` is when
it happened or was said, ``valid_from``/``valid_until`` when it holds (an update closes the old
record's validity instead of deleting it), ``created_at``/``updated_at`` when caim recorded it.
``history`` lists every change applied to the record (created, merged, updated, extended, ...).
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Literal, NotRequired, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator
from typing_extensions import TypedDict

from caim.core.errors import InputError
from caim.memory.text import tokenize

#: A source turn counts as covered by its record's thought when the thought holds this share of its words.
UNCOVERED_SHARE = 0.5
#: How much of a context turn a record's vector reads: its end, the words just before the record's own
#: (what the answer is about; more costs embedding time. Lengths measured: docs/retrieval-variants.md).
CONTEXT_CHARS = 200

RecordKind = Literal["thought", "raw"]
#: A preference's polarity (``None`` on a memory that states no preference).
Polarity = Literal["like", "dislike", "neutral"]
#: The polarities, in the order filters list them.
POLARITIES: tuple[str, ...] = get_args(Polarity)
#: Longest reason a preference record keeps (characters).
MAX_REASON = 200

#: Who said a record's words (``MemoryRecord.speaker``): the user, the assistant, or - in an imported
#: chat - another participant, by the name the chat gives them.
USER = "user"
ASSISTANT = "assistant"
#: Longest participant name kept as a speaker.
MAX_SPEAKER = 64


def check_polarity(value: str | None) -> str | None:
    """A polarity filter as given (``None``: no filter); a value outside ``POLARITIES`` is a one-line
    ``InputError``."""
    if value is None or value in POLARITIES:
        return value
    raise InputError(f"polarity must be one of {', '.join(POLARITIES)}, not {value!r}")


Change = Literal[
    "created",
    "captured",
    "refined",
    "merged",
    "updated",
    "superseded",
    "extended",
    "contradicted",
    "linked",
    "imported",
]


def utcnow() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(UTC)


def as_aware(dt: datetime) -> datetime:
    """Treat naive datetimes as UTC so every stored timestamp is comparable."""
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def stable_id(*parts: object) -> str:
    """A record id derived from what the record is (user, session, turn, event): storing the same
    thing twice - a re-run after a crash, a duplicate request - writes the same record."""
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()[:32]


class MemoryBrief(TypedDict):
    """A record as graph state, traces and prompts carry it: id, thought, tags, event time (ISO),
    ``speaker`` when the words were not the user's (the assistant's, or a participant's by name), and
    optionally the start of its verbatim source turns (a thought's) or the other speaker's turns just
    ``before`` and ``after`` its own (a verbatim record's: what it answered, what it was told), its
    validity end, the turn it answered, ``task`` when it sums up a task the user worked on (code's
    words, not anyone's), its
    ranking scores and its relevance to the query (0 to 1, with the query's words it holds:
    ``caim.memory.search.relevance``)."""

    id: str
    thought: str
    tags: list[str]
    event_time: str
    kind: NotRequired[str]
    speaker: NotRequired[str]
    source: NotRequired[str]
    context: NotRequired[str]
    before: NotRequired[str]
    after: NotRequired[str]
    task: NotRequired[bool]
    valid_until: NotRequired[str]
    polarity: NotRequired[str]
    holder: NotRequired[str]
    reason: NotRequired[str]
    similarity: NotRequired[float]
    relevance: NotRequired[float]
    matched: NotRequired[list[str]]
    scores: NotRequired[dict[str, float]]


def check_speaker(value: object) -> str:
    """A record's speaker as given: ``USER``, ``ASSISTANT`` or a participant's name (printable, at
    most ``MAX_SPEAKER`` characters, no line break); anything else is a one-line ``InputError``.

    >>> check_speaker("Sam"), check_speaker("user")
    ('Sam', 'user')
    >>> check_speaker("")
    Traceback (most recent call last):
    ...
    caim.core.errors.InputError: a memory needs a speaker: "user", "assistant" or a participant's name
    """
    if not isinstance(value, str) or not value.strip():
        raise InputError('a memory needs a speaker: "user", "assistant" or a participant\'s name')
    name = " ".join(value.split())
    if len(name) > MAX_SPEAKER or not name.isprintable() or name != value:
        raise InputError(
            f"speaker {value[:40]!r} is not a name: at most {MAX_SPEAKER} printable characters on one line"
        )
    return name


def participant_name(sender: str) -> str:
    """A chat export's sender as a participant's name: whitespace folded, at most ``MAX_SPEAKER``
    characters, and never a role's name ("Assistant" in a chat is a person: "Assistant (chat)").

    >>> participant_name("  Sam  Lee "), participant_name("assistant"), participant_name("")
    ('Sam Lee', 'assistant (chat)', 'someone')
    >>> check_speaker(participant_name("x" * 56 + " Lee")) == "x" * 56
    True
    """
    name = "".join(c for c in " ".join(sender.split()) if c.isprintable())[: MAX_SPEAKER - 7].rstrip() or "someone"
    return f"{name} (chat)" if name.casefold() in (USER, ASSISTANT) else name


class SourceTurn(BaseModel):
    """One verbatim turn a record came from (provenance for detail questions and evaluation).
    ``turn`` is its number in the session; ``context`` marks the turn before the record's own, kept
    because it holds the other half of the exchange (a question the user's words answer). ``speaker``
    names another participant of an imported chat whose turn it is (``role`` ``user``: a person);
    empty for the user's and the assistant's own turns."""

    role: Literal["user", "assistant"]
    text: str
    time: datetime | None = None
    turn_id: str | None = None
    turn: int | None = None
    context: bool = False
    speaker: str = Field(default="", max_length=MAX_SPEAKER)

    @property
    def by_user(self) -> bool:
        """The user's own words (not the assistant's, not another participant's)."""
        return self.role == "user" and not self.speaker

    @property
    def who(self) -> str:
        """Who said it, as a source line names them: ``user``, ``assistant`` or the participant."""
        return self.speaker or self.role


#: What a record's entity is: a job, an employer, a place, a person, a pet (``caim.memory.text.entities``),
#: or a ``name`` the record holds whose kind code does not tell (and every entity of a record stored
#: before entities were typed).
EntityKind = Literal["job", "employer", "place", "person", "pet", "name"]
#: Longest entity value kept (characters).
MAX_ENTITY = 120
#: Most entities a record keeps.
MAX_ENTITIES = 24


class RecordEntity(BaseModel):
    """Something of a person's life a record names: its ``kind``, the ``value`` as said, the
    ``relation`` (a person's to its holder, "sister"; a pet's animal, "dog"; a place's tie, "home",
    "work", "origin", "travel") and its ``holder``: "" for the user, else the person whose it is (a
    participant by name, or a relation: "sister", "Sam's sister").

    >>> RecordEntity.model_validate("Leeds")
    RecordEntity(kind='name', value='Leeds', relation='', holder='')
    """

    model_config = ConfigDict(frozen=True)

    kind: EntityKind
    value: str = Field(min_length=1, max_length=MAX_ENTITY)
    relation: str = Field(default="", max_length=MAX_ENTITY)
    holder: str = Field(default="", max_length=MAX_ENTITY)

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, data: object) -> object:
        """A plain string is a ``name`` (how records stored before entities were typed hold one)."""
        return {"kind": "name", "value": data.strip()[:MAX_ENTITY]} if isinstance(data, str) else data

    def line(self) -> str:
        """The entity as a person reads it: "job: chemistry teacher", "person: Clara (sister)",
        "place: Lisbon (home, of Clara)"."""
        notes = ", ".join(x for x in (self.relation, f"of {self.holder}" if self.holder else "") if x)
        return f"{self.kind}: {self.value}" + (f" ({notes})" if notes else "")


class HistoryEntry(BaseModel):
    """One change applied to a record: what, when, from which session, with which other records."""

    at: datetime = Field(default_factory=utcnow)
    change: Change
    session_id: str = ""
    others: list[str] = Field(default_factory=list)
    note: str = ""


Outcome = Literal["booked", "cancelled", "chosen", "open"]


class IntentUnit(BaseModel):
    """A task the user worked on in a session (goal-aware recall): the intent, its slots' values as
    the user said them, the turn each came from, the outcome and the option chosen (if any). A task
    of no catalogue intent (``name`` "other") holds the model's short ``description`` of it and that
    description's embedding (``vector``), which a later request is matched against."""

    name: str = Field(max_length=32)
    slots: dict[str, str] = Field(default_factory=dict, max_length=12)
    turns: dict[str, int] = Field(default_factory=dict, max_length=12)
    outcome: Outcome = "open"
    option: str = Field(default="", max_length=200)
    description: str = Field(default="", max_length=80)
    vector: list[float] = Field(default_factory=list, max_length=4096)


class MemoryRecord(BaseModel):
    """One long-term memory of one user: a ``thought`` or a verbatim ``raw`` turn, with its tags,
    times, validity, links, source turns and history (see the module docstring)."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    user_id: str
    thought: str
    kind: RecordKind = "thought"
    tags: list[str] = Field(max_length=3)  # none when the category is unsure: no tag rather than a wrong one
    event_time: datetime
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    superseded_by: str | None = None
    supersedes: list[str] = Field(default_factory=list)
    links: list[str] = Field(default_factory=list)
    #: What the record names of a person's life (``RecordEntity``); a plain string, as records stored
    #: before entities were typed hold them, is read as a ``name``.
    entities: list[RecordEntity] = Field(default_factory=list)
    #: Who said the words the record keeps: ``USER``, ``ASSISTANT`` or a participant's name ("" on
    #: records stored before speakers were kept: the user's).
    speaker: str = Field(default="", max_length=MAX_SPEAKER)
    session_id: str = ""
    turn: int | None = None
    sources: list[SourceTurn] = Field(default_factory=list)
    history: list[HistoryEntry] = Field(default_factory=list)
    #: For a preference: like, dislike or neutral, and why when a reason was given (a span of its
    #: source turns or a reason whose specifics they hold); ``None`` on other memories and on records
    #: stored before these fields existed.
    polarity: Polarity | None = None
    reason: str | None = Field(default=None, max_length=MAX_REASON)
    #: Whose preference ``polarity`` is: "" for the speaker's own, else the words naming its holder as the
    #: speaker said them ("my dog Biscuit", "Tom"): a preference told of a pet or another person is theirs,
    #: never the speaker's (``own_polarity``).
    holder: str = Field(default="", max_length=MAX_ENTITY)
    #: For a task the user worked on (``caim.memory.intents``): its intent unit; ``None`` otherwise.
    intent: IntentUnit | None = None
    _uncovered: tuple[tuple, tuple[str, ...]] | None = PrivateAttr(default=None)

    @field_validator("entities", mode="before")
    @classmethod
    def _known(cls, value: object) -> object:
        """At most ``MAX_ENTITIES``, blank legacy names left out (an old store or export still loads)."""
        if not isinstance(value, list):
            return value
        return [e for e in value if not (isinstance(e, str) and not e.strip())][:MAX_ENTITIES]

    @property
    def current(self) -> bool:
        """Still valid: not superseded by a newer record."""
        return self.valid_until is None

    @property
    def by_user(self) -> bool:
        """The user's own words: only these feed the profile, preferences, single-value facts and intents."""
        return self.speaker in ("", USER)

    @property
    def own_polarity(self) -> Polarity | None:
        """The user's own preference the record states: its polarity when the user said it of
        themselves (``None`` for another's words and for a preference held by someone they named)."""
        return self.polarity if self.by_user and not self.holder else None

    @property
    def who(self) -> str:
        """Who said it: ``USER``, ``ASSISTANT`` or the participant's name."""
        return self.speaker or USER

    def day(self) -> str:
        """The event's date as people write it ("8 May 2023"): indexed, so dated questions match."""
        t = as_aware(self.event_time)
        return f"{t.day} {t.strftime('%B %Y')}"

    def own_text(self) -> str:
        """Speaker and thought, then the source turns the thought does not cover (``uncovered``): for
        a verbatim (``raw``) record the reply that followed its turn (the other half of the exchange,
        often what a later question asks for: "what did you recommend?"); for a thought, the turns a
        concise or confused thought leaves out (a merged record's other turns; a small model's stray
        thought such as "Mel")."""
        who = f"{self.speaker}: " if self.speaker else ""
        return f"{who}{self.thought} {' '.join(self.uncovered())}".rstrip()

    def embedded_text(self) -> str:
        """The text that is embedded: ``own_text``, then the end of each context turn
        (``CONTEXT_CHARS``), the turn it answered, which holds what a short answer ("3 years now") is
        about. No date: the vector is for meaning, and time is matched by the time signals and the
        lexical index (``document``)."""
        return " ".join([self.own_text(), *(s.text[-CONTEXT_CHARS:] for s in self.sources if s.context)])

    def document(self) -> str:
        """The event's date as people write it, then ``own_text``: the start of what the lexical index
        holds (``lexical_text``). Context turns are not in it: their words are another turn's."""
        return f"{self.day()} {self.own_text()}"

    def uncovered(self, share: float = UNCOVERED_SHARE) -> list[str]:
        """The texts of the record's own source turns (not context turns) of which the thought holds
        less than ``share`` of the content words (kept until the thought or the sources change: a
        write reads them for the vector's text and for the lexical index)."""
        key = (share, self.thought, tuple((s.text, s.context) for s in self.sources))
        if self._uncovered is not None and self._uncovered[0] == key:
            return list(self._uncovered[1])
        out = self._find_uncovered(share)
        self._uncovered = (key, tuple(out))
        return out

    def _find_uncovered(self, share: float) -> list[str]:
        # a turn the thought holds word for word (a verbatim record's) is covered: nothing is tokenized
        have: set[str] | None = None
        out = []
        for s in self.sources:
            if s.context or s.text in self.thought or not (words := tokenize(s.text)):
                continue
            have = set(tokenize(self.thought)) if have is None else have
            if sum(w in have for w in words) < share * len(words):
                out.append(s.text)
        return out

    def lexical_text(self) -> str:
        """The text the lexical index holds: the document plus the words of its source turns, both
        sides (a concise thought leaves details out; "what did you recommend?" asks for the
        assistant's words; and a small model's thought may miss the point of its turn entirely)."""
        said = " ".join(s.text for s in self.sources if not s.context and s.text not in self.thought)
        return f"{self.document()} {said}".strip()

    def source_text(self) -> str:
        """The source turns in one line, each as ``role: text``, separated by ``" / "``."""
        return " / ".join(f"{s.who}: {s.text}" for s in self.sources)

    def brief(self, source_chars: int = 0) -> MemoryBrief:
        """Compact form for graph state and traces; ``source_chars`` > 0 adds the start of the
        verbatim source turns (details a concise thought leaves out: titles, lists, steps)."""
        out: MemoryBrief = {
            "id": self.id,
            "thought": self.thought,
            "tags": self.tags,
            "event_time": as_aware(self.event_time).isoformat(),
        }
        if self.kind != "thought":
            out["kind"] = self.kind
        if not self.by_user:
            out["speaker"] = self.speaker  # the assistant's words ("you said") or another participant's
        if self.intent is not None:
            out["task"] = True
        if self.valid_until is not None:
            out["valid_until"] = as_aware(self.valid_until).isoformat()
        if self.polarity is not None:
            out["polarity"] = self.polarity
            if self.holder:
                out["holder"] = self.holder  # a pet's or another person's preference, not the speaker's
            if self.reason:
                out["reason"] = self.reason
        if source_chars > 0 and self.sources and self.kind == "thought":
            text = self.source_text()
            out["source"] = text if len(text) <= source_chars else text[:source_chars] + " …"
        elif source_chars > 0 and self.sources:
            self._around(out, source_chars)
        return out

    def _around(self, out: MemoryBrief, chars: int) -> None:
        """Add to ``out`` a verbatim record's neighbours in its source turns: the other speaker's turn
        just ``before`` its own and just ``after`` it, each clipped to ``chars`` (none when the record
        keeps more than one turn of its speaker)."""
        mine = [i for i, s in enumerate(self.sources) if not s.context and s.who == self.who]
        if len(mine) != 1:
            return
        near = {i: self.sources[i].text for i in (mine[0] - 1, mine[0] + 1) if 0 <= i < len(self.sources)}
        near = {
            i: t if len(t) <= chars else t[:chars] + " …" for i, t in near.items() if self.sources[i].who != self.who
        }
        if mine[0] - 1 in near:
            out["before"] = near[mine[0] - 1]
        if mine[0] + 1 in near:
            out["after"] = near[mine[0] + 1]
