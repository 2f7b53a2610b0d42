"""An answer from memory in code: what the kept memories that answer a question say, with who said
it and when; which memories an answer used; which sentences of a model's reply may stand beside it.

A memory question (a question about the user's own facts or the shared past: ``memory_question``)
routed to long-term memory is answered by ``compose`` when the answer model does not beat code at
answering from memories (the ``answer`` role of ``caim models probe``): the kept memories that share
the most of the question's terms - each term weighted by how few of the kept memories hold it, a
short answer read with the turn it answered, the speaker and the day the question asks about
preferred - are quoted in the words they were said, one a line, as ``you said (3 May 2024): "..."``
(``said``), in the order the question asks for them. The model's reply to the same prompt is read sentence by sentence
(``Additions``): a sentence stands after the quotes only when it adds something on the question's
topic and contradicts nothing - it names no date, number or name the prompt does not hold, does not
say the memory is missing, does not deny what a quoted memory says, and is not the model speaking of
itself. ``used_by`` tells which memories a reply used: those whose own terms it repeats.

>>> m = {"id": "a", "thought": "I teach chemistry in Leeds.", "tags": [], "event_time": "2024-05-03T10:00:00"}
>>> print(compose("Where do I teach?", [m]).text)
You said (3 May 2024): "I teach chemistry in Leeds."
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from caim.memory.records import MemoryBrief
from caim.memory.stm import clip
from caim.memory.text import memory_signals, tokenize, unsupported
from caim.memory.text.lang import sentences
from caim.memory.text.timeref import long_date, with_dates

#: Most memories a composed answer quotes, and how much of each it quotes.
MOST_QUOTED = 3
QUOTE_CHARS = 400
#: A memory is quoted when its share of the question's terms is at least this part of the best one's.
QUOTED_SHARE = 0.5
#: Most sentences of the model's reply added after the quotes, and their length in all; how much of
#: the reply is read at most (the rest could add nothing that fits).
MOST_ADDED = 2
ADDED_CHARS = 400
READ_CHARS = 800
#: Longest time span a question names that counts as naming a day (a composed answer then quotes what
#: was said that day, when anything was).
NAMED_DAY = timedelta(days=1)
#: Who said a memory's words when its brief names no speaker.
DEFAULT_SPEAKER = "user"
#: What a composed answer says when nothing was kept for a memory question.
NOTHING_KEPT = "I don't remember you telling me about that."

#: A sentence that says the memory holds nothing (it would contradict the quoted memories).
_DENIES = re.compile(
    r"\b(?:do(?:n't| not)|can(?:'t|not)|could(?:n't| not)) (?:remember|recall|know|find|say)\b"
    r"|\b(?:have(?:n't| not)|did(?:n't| not)|never) (?:told|tell|mentioned|mention|said|say|shared)\b"
    r"|\bno (?:information|record|memory|details?)\b|\bnot (?:mentioned|sure|specified|available)\b",
    re.I,
)
#: A sentence in which the model speaks of itself as a model or an assistant, or of its prompt.
_SELF_TALK = re.compile(
    r"\b(?:as an ai|i(?:'m| am) (?:an? )?(?:ai|assistant|language model|chatbot)|language model"
    r"|ai (?:assistant|companion|model)|(?:original|input|given|above) (?:text|message|prompt)|rewrit\w*)\b",
    re.I,
)
#: A question that asks for something to be done rather than about what was said.
_REQUEST = re.compile(r"\s*(?:(?:can|could|would|will) you|please|suggest|recommend|tell me (?:a|an|some))\b", re.I)
#: Markup or code in a sentence (tags, braces, backticks): a small model's format noise, never an answer.
_MARKUP = re.compile(r"</?[A-Za-z][^>]*>|[{}`]|\[/?[A-Za-z]+\]")
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor)\b|n't\b", re.I)


def memory_question(text: str, named: bool = False) -> bool:
    """A question about the user's own facts or the shared past ("Where do I teach?", "What did you
    recommend?"), or - ``named``: it names someone or something the memory knows - about them ("What
    did Caroline research?"); not a request that merely touches what memory holds ("Can you
    recommend a book Anna would like?").

    >>> memory_question("Where do I teach?"), memory_question("Can you recommend a good book?")
    (True, False)
    >>> memory_question("Where does Ana live?", named=True), memory_question("Could you ask Ana?", named=True)
    (True, False)
    """
    s = memory_signals(text)
    return s.question and (s.self_question or s.past_reference or (named and not _REQUEST.match(text)))


def speaker(m: MemoryBrief) -> str:
    """Who said the memory's words: ``user``, ``assistant`` or a participant's name."""
    return m.get("speaker") or DEFAULT_SPEAKER


def who_said(m: MemoryBrief) -> str:
    """How an answer says who said a memory's words, to the user.

    >>> who_said({"id": "a", "thought": "", "tags": [], "event_time": "2024-05-03", "speaker": "Sam"})
    'Sam said'
    """
    who = speaker(m)
    if who == DEFAULT_SPEAKER:
        return "you said"
    if who == "assistant":
        return "I suggested"
    return f"{who} said"


def said(m: MemoryBrief, chars: int = QUOTE_CHARS, question: str = "") -> str:
    """A memory as an answer quotes it: who said it, the day, and the words - each relative time
    phrase followed by the date it meant then - clipped to ``chars``; words longer than that, with a
    ``question``, are quoted by the sentences that hold its terms (``excerpt``).

    >>> said({"id": "a", "thought": "I ran a race last Sunday.", "tags": [], "event_time": "2023-05-25"})
    'you said (25 May 2023): "I ran a race last Sunday [21 May 2023]."'
    """
    when = datetime.fromisoformat(m["event_time"])
    words = with_dates(" ".join(m["thought"].split()), when)
    return f'{who_said(m)} ({long_date(when)}): "{excerpt(words, question, chars)}"'


def excerpt(words: str, question: str, chars: int) -> str:
    """``words`` clipped to ``chars``; when longer, from the first sentence that holds a term of
    ``question`` on (the ones before it, a greeting or a preamble, left out and marked with "…").

    >>> excerpt("Hi there, nice to see you. For tea, I like green tea. It rains.", "What tea do I like?", 40)
    '… For tea, I like green tea. It rains.'
    """
    if len(words) <= chars or not question:
        return clip(words, chars)
    asked = set(tokenize(question))
    parts = sentences(words)
    first = next((i for i, p in enumerate(parts) if asked & set(tokenize(p))), 0)
    return clip(" ".join(["…"] * bool(first) + [p.strip() for p in parts[first:]]), chars)


def _terms(m: MemoryBrief) -> set[str]:
    """The terms of a memory as an answer quotes it: its words with the dates its time phrases meant,
    and the day it was said."""
    when = datetime.fromisoformat(m["event_time"])
    return set(tokenize(f"{with_dates(m['thought'], when)} {long_date(when)}"))


#: Words that say how something was told rather than what it was ("What did you recommend?",
#: "Do you remember what I like?"): a term of them weighs ``ASKING_WEIGHT`` of a term of content.
ASKING_WORDS = (
    "recommend recommended suggest suggested tell told say said mention mentioned remember recall share "
    "shared like liked love loved favourite favorite name called think thought know"
)
ASKING_WEIGHT = 0.25
_ASKING = frozenset(tokenize(ASKING_WORDS))
_SOURCE_TURN = re.compile(r"(?:^| / )(user|assistant): ")
#: What a term of the question weighs when only a statement before its question holds it ("I went to
#: the museum on May 2nd. What exhibition did I see?": the museum is given, the exhibition asked).
GIVEN_WEIGHT = 0.5
#: What a term weighs when only the other speaker's turn before a memory's words holds it (the words
#: answered it: "Which place did you like most?" - "I loved Gulangyu Island.").
BEFORE_WEIGHT = 0.5
#: What a memory's score is worth when the question asks for the other speaker's words ("What did you
#: recommend?" asks for the assistant's; "What do I like?" for the user's); below ``QUOTED_SHARE``, so
#: the other speaker's words are quoted beside the asked one's only when they match the question better.
OTHER_SPEAKER_WEIGHT = 0.4
#: A question asking what the assistant said: "you" with a verb of telling, not a request ("can you tell me").
_ASKS_ASSISTANT = re.compile(
    r"(?<!can )(?<!could )(?<!would )(?<!will )\byou(?:'ve| have)?\s+(?:\w+\s+)?"
    r"(?:recommend|suggest|told|tell|taught|teach|gave|give|given|shared|share|said|say|mention|advis|propos)",
    re.I,
)
_ASKS_USER = re.compile(r"\b(?:I|my|me)\b", re.I)


def asked_speaker(question: str) -> str | None:
    """Whose words a question asks for: ``assistant`` ("What did you recommend?"), ``user`` ("What do I
    like?"), or ``None`` when it names neither.

    >>> asked_speaker("What painters did you recommend to me?"), asked_speaker("What books do I like?")
    ('assistant', 'user')
    >>> asked_speaker("Can you tell me where I went?"), asked_speaker("Where does Ana live?")
    ('user', None)
    """
    if _ASKS_ASSISTANT.search(question):
        return "assistant"
    return DEFAULT_SPEAKER if _ASKS_USER.search(question) else None


def _question_terms(question: str) -> dict[str, float]:
    """The question's terms, in the order it asks them, each with its weight: ``ASKING_WEIGHT`` for a
    word of asking, ``GIVEN_WEIGHT`` more for one only a statement before its questions holds."""
    parts = sentences(question)
    asked = [p for p in parts if p.rstrip().endswith(("?", "？"))] or parts
    in_asked = set(tokenize(" ".join(asked)))
    out: dict[str, float] = {}
    for t in tokenize(question):
        if t not in out:
            out[t] = (ASKING_WEIGHT if t in _ASKING else 1.0) * (1.0 if t in in_asked else GIVEN_WEIGHT)
    return out


def reply_of(m: MemoryBrief) -> MemoryBrief | None:
    """The assistant's reply that followed a memory of the user's own words (what the user was told
    right after - "what did you recommend?" asks for it), as a memory of the assistant's said the same
    day, the user's words as the turn ``before`` it; ``None`` when it has none. A verbatim record
    carries the reply (``after``); a thought its source turns (``source``)."""
    if speaker(m) != DEFAULT_SPEAKER:
        return None
    reply = m.get("after") or _reply_in_source(m.get("source") or "")
    if not reply:
        return None
    return {
        "id": m["id"],
        "thought": reply,
        "tags": m["tags"],
        "event_time": m["event_time"],
        "speaker": "assistant",
        "before": m["thought"],
    }


def _reply_in_source(source: str) -> str:
    """The first assistant turn right after a user turn in a thought's source line ("" when none)."""
    parts = _SOURCE_TURN.split(source)[1:]
    turns = list(zip(parts[::2], parts[1::2], strict=False))
    after = [text for i, (role, text) in enumerate(turns) if role == "assistant" and i and turns[i - 1][0] == "user"]
    return after[0] if after else ""


def units(memories: Sequence[MemoryBrief]) -> list[MemoryBrief]:
    """What can be quoted of the kept memories, in their order: each one's words, then the reply that
    followed it (``reply_of``); the same words (a reply kept as its own memory too, whole or clipped)
    once, the longer; a task's summary (``task``: code's words, not anyone's) only when nothing else is kept."""
    out: list[MemoryBrief] = []
    keys: list[str] = []
    said_by_someone = [m for m in memories if not m.get("task")] or list(memories)
    for m in said_by_someone:
        for unit in (m, reply_of(m)):
            if unit is None:
                continue
            key = " ".join(unit["thought"].removesuffix(" …").split()).lower()
            same = next((i for i, k in enumerate(keys) if key in k or k in key), None)
            if same is None:
                keys.append(key)
                out.append(unit)
            elif len(key) > len(keys[same]):  # the longer of the two (a reply clipped in one of them)
                keys[same], out[same] = key, {"before": out[same].get("before", ""), **unit}
    return out


def said_within(memories: Sequence[MemoryBrief], spans: Sequence[tuple[datetime, datetime]]) -> list[MemoryBrief]:
    """The memories said on a day the question names ("On May 4th, what did I ...": a span of
    ``spans`` no longer than ``NAMED_DAY``; a longer one - "recently", "a few days ago" - tells no day),
    or all of them when none was."""
    days = [(a, b) for a, b in spans if b - a <= NAMED_DAY]
    inside = [m for m in memories if any(a <= _aware(datetime.fromisoformat(m["event_time"]), a) <= b for a, b in days)]
    return inside or list(memories)


def _aware(d: datetime, like: datetime) -> datetime:
    """``d`` comparable with ``like`` (naive ones read in ``like``'s zone)."""
    return d.replace(tzinfo=like.tzinfo) if d.tzinfo is None and like.tzinfo is not None else d


def _weighted_terms(m: MemoryBrief, asked: dict[str, float]) -> dict[str, float]:
    """The question's terms a memory holds, each with the part of its weight it earns: whole in the
    memory's own words, ``BEFORE_WEIGHT`` in only the turn before them."""
    own = _terms(m) & asked.keys()
    before = set(tokenize(m.get("before") or "")) & asked.keys()
    return {t: asked[t] * (1.0 if t in own else BEFORE_WEIGHT) for t in own | before}


def answering(
    question: str, memories: Sequence[MemoryBrief], most: int = MOST_QUOTED, asked_for: str | None = None
) -> list[MemoryBrief]:
    """The kept memories that answer ``question``: each scores the question's terms it holds
    (``_weighted_terms``: a word of asking, a given term or one only the turn before it holds weighs
    less), a term divided by the number of kept memories holding it (a term all of them share tells
    none apart), the whole by ``OTHER_SPEAKER_WEIGHT`` when another speaker said it than the one the
    question asks for (``asked_for``); those within ``QUOTED_SHARE`` of the best score are taken, up to
    ``most`` (better-ranked first on a tie), in the order the question asks for them (by the first of
    its terms each holds). When none holds a term of the question, the best-ranked memory (the search
    found it by meaning)."""
    if not memories:
        return []
    asked = _question_terms(question)
    order = list(asked)
    terms = [_weighted_terms(m, asked) for m in memories]
    holders = {t: sum(t in ts for ts in terms) for t in asked}
    scores = [
        sum(w / holders[t] for t, w in ts.items()) * (OTHER_SPEAKER_WEIGHT if _other(m, asked_for) else 1.0)
        for m, ts in zip(memories, terms, strict=True)
    ]
    best = max(scores)
    if best <= 0:
        return [memories[0]]
    ranked = sorted(range(len(memories)), key=lambda i: (-scores[i], i))
    taken = [i for i in ranked if scores[i] >= QUOTED_SHARE * best][:most]
    taken.sort(key=lambda i: min(order.index(t) for t in terms[i]))
    return [memories[i] for i in taken]


def _other(m: MemoryBrief, asked_for: str | None) -> bool:
    """Whether the question asks for the user's or the assistant's words and another said ``m``'s."""
    return asked_for in (DEFAULT_SPEAKER, "assistant") and speaker(m) != asked_for


@dataclass
class Composed:
    """A composed answer: its text and the memories it quotes."""

    text: str
    quoted: list[MemoryBrief] = field(default_factory=list)


def compose(question: str, memories: Sequence[MemoryBrief], days: Sequence[tuple[datetime, datetime]] = ()) -> Composed:
    """The answer code gives a memory question from the kept ``memories``: of their words and the
    replies that followed them (``units``) - those said within ``days`` when the question names a time
    and some were (``said_within``) - the ones that answer it (``answering``, for the speaker it asks
    about: ``asked_speaker``) quoted one a line with who said them and when, the first line
    capitalised; with none kept, that it does not remember (``NOTHING_KEPT``)."""
    quoted = answering(question, said_within(units(memories), days), asked_for=asked_speaker(question))
    if not quoted:
        return Composed(NOTHING_KEPT)
    lines = [said(m, question=question) for m in quoted]
    return Composed("\n".join(line[:1].upper() + line[1:] for line in lines), quoted)


def used_by(reply: str, memories: Sequence[MemoryBrief], question: str = "") -> list[MemoryBrief]:
    """The memories a reply used: each whose own terms - those the question does not hold, the day it
    was said among them - the reply repeats, two of them (or all it has, when it has fewer).

    >>> m = {"id": "a", "thought": "I went to a pottery workshop.", "tags": [], "event_time": "2023-07-14"}
    >>> [u["id"] for u in used_by("You went there on 14 July 2023.", [m], "When did I go to the workshop?")]
    ['a']
    """
    said_terms = set(tokenize(reply))
    asked = set(tokenize(question))
    out = []
    for m in memories:
        own = _terms(m) - asked
        if own and len(own & said_terms) >= min(2, len(own)):
            out.append(m)
    return out


@dataclass
class Additions:
    """The sentences of a model's reply that may follow a composed answer, read as they stream in.

    ``given``: what a sentence's dates, numbers and names must come from (the quotes and the
    question: a specific from elsewhere in the prompt would tie the quoted memories to what they do
    not say); ``composed``: the composed answer;
    ``question`` and ``quoted``: the question and the memories the composed answer quotes. ``feed``
    takes the reply's pieces and returns the sentences completed by them that stand; ``finish``
    those of the rest; ``done`` says when reading more is of no use."""

    given: str
    composed: Composed
    question: str
    pending: str = ""
    kept: list[str] = field(default_factory=list)
    read: int = 0

    @property
    def done(self) -> bool:
        """Whether nothing more can be added: ``MOST_ADDED`` sentences stand, or ``READ_CHARS`` were read."""
        return len(self.kept) >= MOST_ADDED or self.read >= READ_CHARS

    def feed(self, piece: str) -> list[str]:
        """The sentences that ``piece`` completes and that stand."""
        self.pending += piece
        self.read += len(piece)
        parts = sentences(self.pending)
        if len(parts) < 2:
            return []
        done, self.pending = parts[:-1], parts[-1]
        return self._take(done)

    def finish(self) -> list[str]:
        """The last sentence of the reply, if it stands."""
        rest, self.pending = self.pending, ""
        return self._take(sentences(rest))

    def _take(self, done: list[str]) -> list[str]:
        out = []
        for sentence in (" ".join(s.split()) for s in done):
            if len(self.kept) >= MOST_ADDED or sum(map(len, self.kept)) + len(sentence) > ADDED_CHARS:
                break
            if self.stands(sentence):
                self.kept.append(sentence)
                out.append(sentence)
        return out

    def stands(self, sentence: str) -> bool:
        """Whether the sentence adds something on the question's topic and contradicts nothing."""
        if any(p.search(sentence) for p in (_DENIES, _SELF_TALK, _MARKUP)) or unsupported(sentence, self.given):
            return False
        terms = set(tokenize(sentence))
        quoted = [_terms(m) for m in self.composed.quoted]
        topic = set(tokenize(self.question)).union(*quoted)
        new = terms - set(tokenize(self.composed.text)) - set().union(*(set(tokenize(k)) for k in self.kept))
        if not terms & topic or not new:
            return False
        negated = bool(_NEGATION.search(sentence))
        return not any(
            negated != bool(_NEGATION.search(m["thought"])) and terms & ts
            for m, ts in zip(self.composed.quoted, quoted, strict=True)
        )
