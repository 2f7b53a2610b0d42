"""An answer from memory in code: what the kept memories that answer a question say, with who said
it and when; which memories an answer used; which sentences of a model's reply may stand beside it.

A memory question (a question about the user's own facts or the shared past: ``memory_question``)
routed to long-term memory is answered by ``compose`` when the answer model does not beat code at
answering from memories (the ``answer`` role of ``caim models probe``): the kept memories that share
the most of the question's terms - each term weighted by how few of the kept memories hold it -
are quoted in the words they were said, one a line, as ``you said (3 May 2024): "..."``
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
from datetime import datetime

from caim.memory.records import MemoryBrief
from caim.memory.stm import clip
from caim.memory.text import memory_signals, tokenize, unsupported
from caim.memory.text.lang import sentences
from caim.memory.text.timeref import long_date, with_dates

#: Most memories a composed answer quotes, and how much of each it quotes.
MOST_QUOTED = 3
QUOTE_CHARS = 300
#: A memory is quoted when its share of the question's terms is at least this part of the best one's.
QUOTED_SHARE = 0.5
#: Most sentences of the model's reply added after the quotes, and their length in all; how much of
#: the reply is read at most (the rest could add nothing that fits).
MOST_ADDED = 2
ADDED_CHARS = 400
READ_CHARS = 800
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


def said(m: MemoryBrief, chars: int = QUOTE_CHARS) -> str:
    """A memory as an answer quotes it: who said it, the day, and the words - each relative time
    phrase followed by the date it meant then - clipped to ``chars``.

    >>> said({"id": "a", "thought": "I ran a race last Sunday.", "tags": [], "event_time": "2023-05-25"})
    'you said (25 May 2023): "I ran a race last Sunday [21 May 2023]."'
    """
    when = datetime.fromisoformat(m["event_time"])
    words = clip(with_dates(" ".join(m["thought"].split()), when), chars)
    return f'{who_said(m)} ({long_date(when)}): "{words}"'


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


def reply_of(m: MemoryBrief) -> MemoryBrief | None:
    """The assistant's reply that followed a memory of the user's own words, from its source turns
    (``source``: what the user was told right after - "what did you recommend?" asks for it), as a
    memory of the assistant's said the same day; ``None`` when it has none."""
    source = m.get("source") or ""
    if speaker(m) != DEFAULT_SPEAKER or not source:
        return None
    parts = _SOURCE_TURN.split(source)[1:]
    turns = list(zip(parts[::2], parts[1::2], strict=False))
    after = [text for i, (role, text) in enumerate(turns) if role == "assistant" and i and turns[i - 1][0] == "user"]
    if not after:
        return None
    return {
        "id": m["id"],
        "thought": after[0].removesuffix(" …"),
        "tags": m["tags"],
        "event_time": m["event_time"],
        "speaker": "assistant",
    }


def units(memories: Sequence[MemoryBrief]) -> list[MemoryBrief]:
    """What can be quoted of the kept memories, in their order: each one's words, then the reply that
    followed it (``reply_of``)."""
    out: list[MemoryBrief] = []
    for m in memories:
        out.append(m)
        reply = reply_of(m)
        if reply is not None:
            out.append(reply)
    return out


def answering(question: str, memories: Sequence[MemoryBrief], most: int = MOST_QUOTED) -> list[MemoryBrief]:
    """The kept memories that answer ``question``: each scores the question's terms it holds, a term
    weighted by one over the number of kept memories holding it (a term all of them share tells none
    apart), a word of asking (``ASKING_WORDS``) less; those within ``QUOTED_SHARE`` of the best score
    are taken, up to ``most`` (better-ranked first on a tie), in the order the question asks for
    them (by the first of its terms each holds).
    When none holds a term of the question, the best-ranked memory (the search found it by meaning)."""
    if not memories:
        return []
    order = tokenize(question)
    asked = set(order)
    terms = [_terms(m) & asked for m in memories]
    holders = {t: sum(t in ts for ts in terms) for t in asked}
    scores = [sum((ASKING_WEIGHT if t in _ASKING else 1.0) / holders[t] for t in ts) for ts in terms]
    best = max(scores)
    if best <= 0:
        return [memories[0]]
    ranked = sorted(range(len(memories)), key=lambda i: (-scores[i], i))
    taken = [i for i in ranked if scores[i] >= QUOTED_SHARE * best][:most]
    taken.sort(key=lambda i: min(order.index(t) for t in terms[i]))
    return [memories[i] for i in taken]


@dataclass
class Composed:
    """A composed answer: its text and the memories it quotes."""

    text: str
    quoted: list[MemoryBrief] = field(default_factory=list)


def compose(question: str, memories: Sequence[MemoryBrief]) -> Composed:
    """The answer code gives a memory question from the kept ``memories``: of their words and the
    replies that followed them (``units``), those that answer it (``answering``) quoted one a line
    with who said them and when, the first line capitalised; with none kept, that it does not
    remember (``NOTHING_KEPT``)."""
    quoted = answering(question, units(memories))
    if not quoted:
        return Composed(NOTHING_KEPT)
    lines = [said(m) for m in quoted]
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
