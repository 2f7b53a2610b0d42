"""Capture in code: which turns state something worth keeping, and the raw record of such a turn.

``states_fact`` is the code signal beside key-event extraction: a turn in the first person that
tells something (I/my/we/our + a verb of being, having, liking, doing, or of something done), names
someone or something, or holds a number, a date or a time expression. ``reply_worth_keeping`` is
its counterpart for the assistant's side: a reply that recommends or names something (titles,
names, numbers, dates - "what did you recommend?") or, for an assistant with a persona, states
something of its own. When extraction fails, or returns nothing grounded for an exchange, each
side worth keeping is stored verbatim as a ``raw`` record (``raw_record``): the speaker's words, the
turn's time, tags by meaning, the turn (and the other side's turn before it, when it asked) as
sources. Its id comes from (user, session, turn, side), so capturing the same turn again replaces
the record instead of adding one.

A turn in another language (``caim.memory.text.lang.detect``) is read with that language's
``Signals`` table: the same rules, its words (first person, verbs of telling, reactions, third
person, titles, recommendations), its sentences ("。" ends one without a space).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Literal

from caim.memory.entities import with_entities
from caim.memory.records import ASSISTANT, USER, MemoryRecord, SourceTurn, as_aware, stable_id
from caim.memory.stm import Exchange
from caim.memory.text import (
    MONTHS,
    NOT_SUBJECTS,
    WEEKDAYS,
    has_time_expression,
    is_small_talk,
    names,
    tells_past_action,
    tokenize,
    without_opener,
)
from caim.memory.text.dates import mentions
from caim.memory.text.lang import (
    ENGLISH,
    Language,
    alternation,
    detect,
    found,
    matcher,
    normal,
    opens_with,
    plausible,
    sentences,
    word_count,
)
from caim.memory.text.names import names_in
from caim.memory.text.signals import past_action_in
from caim.memory.uptake import advice_taken, advises, misstates, taken_up

_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|my|mine|we|we're|we've|our|me)\b", re.I)
_TELLING = re.compile(
    r"\b(am|was|is|are|were|have|has|had|love|loves|like|likes|enjoy|enjoys|hate|hates|prefer|prefers|want|wants|"
    r"need|needs|plan|planning|going|went|got|work|works|working|live|lives|lived|moved|play|plays|played|"
    r"started|bought|made|adopted|married|called|named|born|visited|study|studying|learned|favourite|favorite|"
    r"allergic|can't|cannot|don't|never|always|usually|every|go|goes|gonna|do|does|doing|try|trying)\b",
    re.I,
)
_NUMBER_OR_DATE = re.compile(r"\d|\b(" + "|".join(MONTHS + WEEKDAYS) + r")\b", re.I)

_NAMED_SUBJECT = re.compile(r"^\s*([A-Z][a-z]+)\s+(\w+)")
#: Someone else in the speaker's life as the subject ("she got a puppy", "they've been practicing").
_THEY_TELL = re.compile(r"^\s*(he|she|they)(\s+|'s\s+|'re\s+|'ve\s+)(\w+)", re.I)
#: The first person in a contraction ("I'm starting a studio", "we've moved"): the speaker's state
#: or doing - but not a reaction to the other side ("I'm sorry to hear that", "I'm glad for you").
_I_CONTRACTED = re.compile(r"\b(i'm|i've|i'd|i'll|we're|we've|we'll|we'd)\b", re.I)
_REACTION = re.compile(
    r"\b(i'm|we're) (so |really |very |just )?(sorry|glad|happy for|proud of|here for|sure|not sure)\b", re.I
)
#: A sentence telling of the speaker with its subject left out, as people write of themselves
#: ("Got the tattoo a few years ago", "Can't wait for the opening", "Loving the new job").
_DROPPED_I = re.compile(
    r"^(just |finally |really |still |also )?((?!(some|any|no|every)thing\b|morning\b|evening\b)\w{2,}(ed|ing)|"
    r"got|went|had|made|took|saw|won|lost|ran|bought|began|found|met|gave|wrote|built|taught|left|became|came|"
    r"can't|cannot|gonna|been|glad to|off to|heading)\b",
    re.I,
)
#: A wish or a parting line, dated or not ("Have a great day today!", "See you next week"): no statement.
_WISH = re.compile(r"^(have (a|an|fun)|enjoy (the|your)|good luck|see you|talk (to you )?soon|catch you)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")

#: Longest raw thought kept (the user's words, trimmed); the full turn stays in the sources.
RAW_CHARS = 600


def asks_only(text: str) -> bool:
    """Whether every sentence of ``text`` is a question: it asks, and tells nothing to remember (a turn
    that also states something is not asking only, nor is a question that opens with a statement in
    the same sentence: "I'm visiting Kyoto in April - any tips?").

    >>> asks_only("Where does my sister live?"), asks_only("你还记得我妹妹住哪儿吗？")
    (True, True)
    >>> asks_only("I just went vegan. Any restaurant you'd suggest?"), asks_only("I moved to Porto.")
    (False, False)
    >>> asks_only("Voy a Roma en abril, ¿tienes algún consejo?"), asks_only("我四月要去东京，有什么推荐吗？")
    (False, False)
    """
    said = [s.strip() for s in sentences(" ".join(text.split())) if s.strip()]
    return bool(said) and all(_asks(s) for s in said)


#: Where a question sentence may hold a statement before it: a comma, a dash, "¿", and their full-width forms.
_CLAUSE_BEFORE = re.compile(r"\s+[-\u2013\u2014]\s+|[,;:\u3001\uff0c\u00bf]")


def _asks(sentence: str) -> bool:
    """Is the sentence a question, with no statement that tells something in a clause before its last?"""
    if not sentence.endswith(("?", "\uff1f")):
        return False
    language = detect(sentence)
    return not any(tells_something(c.strip(), language) for c in _CLAUSE_BEFORE.split(sentence)[:-1] if c.strip())


def worth_keeping(text: str, stores: float, store_at: float) -> bool:
    """Is a person's turn worth keeping, given the reader's probability that it is (``stores``) and its
    threshold (``store_at``)? The reader must find it so; a turn that only asks (``asks_only``) never
    is; and one in which code finds no sentence that tells something (``states_fact``: a friend's
    reaction, compliment, sympathy or advice, read alone) in any language it may be in
    (``caim.memory.text.lang.plausible``: "Melanie hat Kinder." is English by its votes, German by its words) is
    kept only when the reader is sure (``SURE_WITHOUT_FACT``).

    >>> worth_keeping("Wow, you're amazing! So proud of you.", 0.8, 0.4), worth_keeping("I moved to Porto.", 0.8, 0.4)
    (False, True)
    >>> worth_keeping("Where is Porto?", 1.0, 0.4), worth_keeping("Animals are amazing companions.", 0.95, 0.4)
    (False, True)
    """
    if stores < store_at or asks_only(text):
        return False
    return stores >= SURE_WITHOUT_FACT or any(states_fact(text, x) for x in plausible(" ".join(text.split())))


#: How sure the reader must be that a turn is worth keeping when code finds nothing in it that tells
#: something (``worth_keeping``; docs/capture.md measures it leave one conversation out).
SURE_WITHOUT_FACT = 0.9


def states_fact(text: str, language: Language | None = None) -> bool:
    """Does this turn state something about the speaker or their life (worth remembering unprocessed)?
    True when one of its sentences, not a question, tells something (``tells_something``).

    >>> states_fact("My sister lives in Lisbon."), states_fact("ok thanks!"), states_fact("Where is Lisbon?")
    (True, False, False)
    >>> states_fact("Thanks! Got the tattoo a few years ago."), states_fact("I'm sorry to hear that!")
    (True, False)
    >>> states_fact("Meine Schwester wohnt in Lissabon."), states_fact("谢谢！"), states_fact("里斯本在哪里？")
    (True, False, False)
    """
    t = " ".join(text.split())
    language = language or detect(t)
    if language.signals is None:
        if len(t) < 8 or is_small_talk(t):
            return False
        english = language if language is ENGLISH else None
        return any(
            s.strip() and not s.rstrip().endswith("?") and tells_something(s, english) for s in _SENTENCE.split(t)
        )
    if len(t) < (4 if language.unspaced else 8) or is_small_talk(t):
        return False
    return any(not normal(s).endswith("?") and tells_something(s, language) for s in sentences(t))


def tells_something(sentence: str, language: Language | None = None) -> bool:
    """Does this sentence (not a question) tell of the speaker, of someone in their life, or of a dated
    event? In the first person with a verb of being, having, liking or doing, a contraction ("I'm
    starting a studio"; not a reaction such as "I'm sorry to hear that"), a name, a number or a time;
    with the subject left out as people write of themselves ("Got the tattoo a few years ago",
    "Can't wait for the opening"); of someone named or "he/she/they" doing something ("Clara got a
    puppy", "they've been practicing"); or any statement of four words or more holding a time
    expression ("the opening is tomorrow").

    >>> [tells_something(s) for s in ("I'm starting a dance studio.", "Sounds good to me.", "Loving the new job!")]
    [True, False, True]
    >>> tells_something("I'm so sorry to hear that."), tells_something("I'm so sorry, I'm starting a new job.")
    (False, True)

    ``language``: the sentence's (its turn's), else detected; another than English reads its table.

    >>> tells_something("Es tut mir so leid."), tells_something("Es tut mir leid, ich habe meinen Job verloren.")
    (False, True)
    """
    language = language or detect(sentence)
    if language is not ENGLISH and language.signals is not None:
        return _tells_in(sentence, language)
    body = without_opener(sentence)
    if _FIRST_PERSON.search(body):
        rest = _REACTION.sub("", body)  # a reaction to the other side tells nothing of the speaker
        return bool(
            _TELLING.search(rest)
            or _I_CONTRACTED.search(rest)
            or names(rest)
            or _NUMBER_OR_DATE.search(rest)
            or tells_past_action(rest)
            or has_time_expression(rest)
        )
    if len(body.split()) >= 3 and _DROPPED_I.match(body):
        return True
    if (m := _NAMED_SUBJECT.match(body)) and _TELLING.fullmatch(m.group(2)) and m.group(1) not in NOT_SUBJECTS:
        return True  # "Clara got a puppy": someone in the user's life
    if (m := _THEY_TELL.match(body)) and (
        m.group(2).strip() or _TELLING.fullmatch(m.group(3)) or m.group(3).endswith("ed")
    ):
        return True
    return len(body.split()) >= 4 and has_time_expression(body) and not _WISH.match(body)


def _tells_in(sentence: str, language: Language) -> bool:
    """``tells_something`` in a language with tables: the first person with a verb of telling, a
    name, a number or date, a past action or a time (a reaction taken out first); a past action
    where the language drops the subject; "he/she" or a name opening the sentence with a verb of
    telling; or a statement of four words or more holding a time expression that is no wish."""
    signals = language.signals
    assert signals is not None
    body = normal(without_opener(sentence))
    if found(signals.first_person, body, language):
        rest = matcher(signals.reactions, language.unspaced).sub(" ", body)
        return (
            found(signals.telling, rest, language)
            or bool(names_in(rest, language))
            or _number_or_date(rest, language)
            or past_action_in(rest, language)
            or bool(mentions(rest, language))
        )
    if not signals.past.subject_required and past_action_in(body, language):
        return True
    if _dropped_subject(body, language):
        return True
    if found(signals.telling, body, language) and (
        opens_with(signals.third_person, body, language) or _opens_with_name(body, language)
    ):
        return True
    return (
        word_count(body, language) >= 4 and bool(mentions(body, language)) and not found(signals.wishes, body, language)
    )


def _dropped_subject(body: str, language: Language) -> bool:
    """Does a sentence that leaves its subject unsaid, as Chinese and Japanese do, tell of the speaker
    (``Signals.dropped``: "刚搬到杭州", "来週引っ越すつもり"), addressing the other side with none of it
    (``Signals.addressing``), asking nothing (a question without its mark: "涛涛准备得怎么样了") and wishing
    nothing?"""
    signals = language.signals
    return bool(
        signals
        and signals.dropped
        and found(signals.dropped, body, language)
        and not found(signals.addressing, body, language)
        and not found(signals.question_words, body, language)
        and not found(signals.wishes, body, language)
    )


def _opens_with_name(body: str, language: Language) -> bool:
    """Does a capitalised word that is no "not a name" open the sentence ("Clara hat...")?"""
    first = re.match(r"[^\W\d_]+", body)
    not_names = language.signals.not_names if language.signals else ()
    return bool(
        first and first.group()[0].isupper() and first.group()[1:2].islower() and first.group() not in not_names
    )


def _number_or_date(text: str, language: Language) -> bool:
    """A number, a written date or a weekday in a text of a language with tables."""
    weekdays = tuple(language.signals.time.weekdays) if language.signals else ()
    return (
        bool(re.search(r"\d", text))
        or any(m.month for m in mentions(text, language))
        or found(weekdays, text, language)
    )


#: The assistant telling of itself ("I ran a race last Saturday", "we went camping"): its first person
#: with something done or dated - not its opinions of the user's news ("sounds lovely to me").
_OWN_NEWS = re.compile(r"\b(i|i'm|i've|we|we're|we've|my|our)\b", re.I)
#: ... or of someone or something of its own ("my kids love dinosaurs", "our dog is called Rex").
_MY_THING = re.compile(r"\b(my|our) (\w+ ){1,2}" + _TELLING.pattern.removeprefix(r"\b"), re.I)
#: A name the speaker addresses ("Thanks, Emily!", "Hey Mel,"): not something named.
_VOCATIVE = re.compile(r"(^|,|\b(hi|hey|hello|thanks|thank you|bye))\s*[A-Z][a-z]+\s*(?=[!.?,]|$)", re.I)
#: The assistant giving the user something in the first person: a recommendation, a suggestion, a
#: commitment ("I'd recommend...", "I'll remind you...", "I booked...").
_GIVING = re.compile(
    r"\b(i|we)(\s*'d|\s*'ll| would| can| could| will| have| just)?\s+(recommend|suggest|propose|advise|"
    r"book|booked|remind|reserved?|schedul(e|ed)|add(ed)?|sen[dt]|set up|found|picked)\b",
    re.I,
)
_QUOTED_TITLE = re.compile(r"[\"\u201c\u2018'][A-Z0-9][^\"\u201d\u2019']{1,80}[\"\u201d\u2019']")


#: A speaker's impression of something said ("that sounds like a lovely idea to me").
_IMPRESSION = re.compile(r"\b(sounds?|looks?|seems?|feels?)\b", re.I)


@dataclass(frozen=True)
class _Reading:
    """What the reply rules read of a sentence in one language: the speaker's first person, a
    recommendation or commitment, a title, something done or dated, something of the speaker's own,
    a number or date, an impression ("sounds lovely"), the sentence without a name it addresses, and
    the reply's sentences that are no question."""

    own: Callable[[str], bool]
    giving: Callable[[str], bool]
    title: Callable[[str], bool]
    done: Callable[[str], bool]
    my_thing: Callable[[str], bool]
    number_or_date: Callable[[str], bool]
    impression: Callable[[str], bool]
    vocative: Callable[[str], str]
    statements: Callable[[str], list[str]]


_ENGLISH_READING = _Reading(
    own=lambda x: bool(_OWN_NEWS.search(x)),
    giving=lambda x: bool(_GIVING.search(x)),
    title=lambda x: bool(_QUOTED_TITLE.search(x)),
    done=lambda x: tells_past_action(x) or has_time_expression(x),
    my_thing=lambda x: bool(_MY_THING.search(x)),
    number_or_date=lambda x: bool(_NUMBER_OR_DATE.search(x)),
    impression=lambda x: bool(_IMPRESSION.search(x)),
    vocative=lambda x: _VOCATIVE.sub(" ", x),
    statements=lambda t: [x for x in _SENTENCE.split(t) if x.strip() and not x.rstrip().endswith("?")],
)


@cache
def _reading(language: Language) -> _Reading:
    """The reply rules' reading of a language: English's grammar, or the language's table (no
    "something of its own" or impression words there: those rules stay English's)."""
    signals = language.signals
    if signals is None:
        return _ENGLISH_READING
    opening = f"[{re.escape(signals.quotes)}]" + (r"\s?\S" if language.unspaced else r"\s?[^\W\d_]")
    titles = [re.escape(a) + ".{1,80}?" + re.escape(b) for a, b in signals.titles]
    title = re.compile("|".join([opening, *titles]) if signals.quotes else "(?!)")
    vocative = re.compile(rf"(^|,|(?:{alternation(signals.greetings)}))\s*[^\W\d_]+\s*(?=[!.?,]|$)", re.I)
    return _Reading(
        own=lambda x: found(signals.first_person, normal(x), language),
        giving=lambda x: found(signals.giving, normal(x), language),
        title=lambda x: bool(title.search(x)),
        done=lambda x: past_action_in(x, language) or bool(mentions(x, language)),
        my_thing=lambda x: False,
        number_or_date=lambda x: _number_or_date(x, language),
        impression=lambda x: False,
        vocative=lambda x: vocative.sub(" ", x) if not language.unspaced else x,
        statements=lambda t: [x for x in sentences(t) if not normal(x).endswith("?")],
    )


def _self_tale(sentence: str, r: _Reading) -> bool:
    """A sentence of the assistant telling of itself: its first person, not giving, with something
    done, dated or of its own ("my favourite hobby was...", "I went surfing in 2015")."""
    return r.own(sentence) and not r.giving(sentence) and (r.done(sentence) or r.my_thing(sentence))


def reply_worth_keeping(text: str, asked: str = "", *, persona: bool = False) -> bool:
    """Does this assistant reply hold something it gave the user, that the user may ask about later?
    True when one of its sentences - not a question, not spoken of itself in the first person, and
    with at least two words of its own (not heard in ``asked``: what the user said before it) - names
    something new: a title in quotes, a name, a number or a date ("what did you recommend?"). Its
    small talk, praise, feelings and tales of itself ("I'm so glad you asked", "my favourite hobby
    is...") are no memory - unless the deployment gives the assistant a ``persona`` (or the other side
    is a person, as in a replayed conversation): then a first-person sentence of something done or
    dated, or of something of its own, counts too ("I ran a race last Saturday", "my kids love
    dinosaurs"; "that sounds lovely to me" never does), and so does a reply that ``states_fact`` as a
    user's turn would ("Yeah, I play clarinet!"). A reply in another language is read with its
    table (``_Reading``): its first person, recommendations, titles, dates and names.

    >>> reply_worth_keeping('You might enjoy "The Left Hand of Darkness" by Ursula K. Le Guin.')
    True
    >>> reply_worth_keeping("That sounds lovely, Emily! How did it go?"), reply_worth_keeping("ok!")
    (False, False)
    >>> reply_worth_keeping("So you are going to Rome in May!", asked="I am going to Rome in May.")
    False
    >>> reply_worth_keeping("Playing the piano sounds like an amazing hobby to me!", asked="I play the piano.")
    False
    >>> reply_worth_keeping("I'd recommend 'Dune' by Frank Herbert.")
    True
    >>> tale = "I'm so glad you asked! My favourite hobby was surfing. It was with Joana in 2019."
    >>> reply_worth_keeping(tale, asked="I surf with my friend Joana."), reply_worth_keeping(tale, persona=True)
    (False, True)
    >>> reply_worth_keeping("Yeah, I play clarinet!"), reply_worth_keeping("Yeah, I play clarinet!", persona=True)
    (False, True)
    >>> reply_worth_keeping("Ich empfehle dir „Momo“ von Michael Ende."), reply_worth_keeping("Gern geschehen!")
    (True, False)
    """
    heard = set(tokenize(asked))
    t = " ".join(text.split())
    r = _reading(detect(t))
    statements = r.statements(t)
    # a reply that tells of the assistant itself: without a persona only what it gives counts
    tale = not persona and any(_self_tale(x, r) for x in statements)
    for sentence in statements:
        if len(set(tokenize(sentence)) - heard) < 2:
            continue  # small talk, or the user's own words said back
        own = r.own(sentence)
        giving = r.giving(sentence) or r.title(sentence)
        if (own or tale) and not persona and not giving:
            continue  # the assistant speaking of itself: no persona, no memory
        plain = r.vocative(sentence)
        new_names = [n for n in names(plain) if not set(tokenize(n)) <= heard]
        if (
            (own and r.done(sentence))
            or (persona and r.my_thing(sentence))
            or r.title(plain)
            or new_names
            or r.number_or_date(plain)
        ):
            return True
    # a person's reply: kept as a user's turn would be, but an impression is no fact ("sounds lovely to me")
    return persona and any(states_fact(x) and not r.impression(x) for x in statements)


@dataclass(frozen=True)
class Capture:
    """One side of a turn kept in the speaker's own words (whitespace folded): the user's, the
    assistant's (``ASSISTANT``) or another participant's (by name)."""

    turn: int
    text: str
    speaker: str


def captures(
    turns: Sequence[Exchange],
    *,
    skip: Collection[int] = (),
    explicit: bool = False,
    persona: bool = False,
    worth: Callable[[Exchange], bool] | None = None,
) -> list[Capture]:
    """What code keeps of a session without a model: each person's turn ``worth`` keeping (by default
    one that ``states_fact``; every one of the user's when they asked to be remembered: ``explicit``) -
    the user's, or a named participant's as theirs - and each reply ``reply_worth_keeping`` given what
    the user had said up to it, when the user took it up later in the session (``caim.memory.uptake.taken_up``) and it
    tells them nothing of themselves their words do not hold (``misstates``), and each reply that
    advised the user when they took the advice up in their next turn (``advice_taken_up``); with a
    ``persona`` (the other side a person: a replayed conversation) a reply is kept as a person's turn,
    taken up or not. Turns in ``skip`` (covered otherwise) give nothing.

    >>> from caim.memory.stm import Exchange
    >>> said = [
    ...     Exchange(1, "I moved to Porto.", "Welcome!", None),
    ...     Exchange(2, "Any surf spot?", "Try 'Matosinhos'.", None),
    ...     Exchange(3, "Thanks, I'll go there on Sunday.", "", None),
    ...     Exchange(4, "Anything else?", "Try 'Espinho' too.", None),
    ...     Exchange(5, "I started a new job in Harrogate.", "", None, speaker="Sam"),
    ... ]
    >>> [(c.turn, c.speaker) for c in captures(said)]
    [(1, 'user'), (2, 'assistant'), (3, 'user'), (5, 'Sam')]
    """
    out: list[Capture] = []
    keep = worth or (lambda t: states_fact(t.user))
    for i, t in enumerate(turns):
        if t.number in skip:
            continue
        if (explicit and t.by_user) or keep(t):
            out.append(Capture(t.number, " ".join(t.user.split()), t.speaker or USER))
        if t.assistant and _reply_kept(turns, i, persona):
            out.append(Capture(t.number, gave(t.assistant), ASSISTANT))
    return out


def _reply_kept(turns: Sequence[Exchange], i: int, persona: bool) -> bool:
    """Is the reply of ``turns[i]`` kept: worth keeping and taken up (a person's: worth keeping), or
    advice the user took up?"""
    worth = reply_worth_keeping(turns[i].assistant, asked=heard_by(turns, i), persona=persona)
    if persona:
        return worth
    return (worth and reply_taken_up(turns, i)) or advice_taken_up(turns, i)


def heard_by(turns: Sequence[Exchange], i: int) -> str:
    """What the user said in the session up to and with turn ``turns[i]`` (not the participants)."""
    return "\n".join(t.user for t in turns[: i + 1] if t.by_user)


def reply_taken_up(turns: Sequence[Exchange], i: int) -> bool:
    """Did the user take up the assistant's reply of ``turns[i]`` in a later turn of the session
    (``caim.memory.uptake.taken_up``), and does it tell them nothing of themselves their words do not
    hold (``misstates``)? Only then are the assistant's words memory."""
    reply, heard = turns[i].assistant, heard_by(turns, i)
    later = [t.user for t in turns[i + 1 :] if t.by_user]
    return bool(reply) and taken_up(reply, later, heard) and not misstates(reply, heard)


def advice_taken_up(turns: Sequence[Exchange], i: int) -> bool:
    """Did the assistant's reply of ``turns[i]`` advise the user (``caim.memory.uptake.advises``: "you
    could try a meditation app"), and did the user take the advice up in their next turn (``advice_taken``:
    "thanks, I'll try that"), the reply telling them nothing of themselves their words do not hold? Advice
    names nothing specific, so only taking it up explicitly makes it memory.

    >>> from caim.memory.stm import Exchange
    >>> said = [Exchange(1, "I can't sleep.", "You could try reading before bed.", None)]
    >>> said.append(Exchange(2, "Good idea!", "", None))
    >>> advice_taken_up(said, 0), advice_taken_up(said[:1], 0)
    (True, False)
    """
    reply, heard = turns[i].assistant, heard_by(turns, i)
    later = [t.user for t in turns[i + 1 :] if t.by_user]
    return bool(reply) and advises(reply) and advice_taken(later) and not misstates(reply, heard)


def gave(reply: str) -> str:
    """What the assistant's reply gave the user: its statements that are no small talk and no question
    (the whole reply, whitespace folded, when that leaves nothing).

    >>> gave("Great question! I'd recommend 'Dune' by Frank Herbert. It's a classic. Want more?")
    "I'd recommend 'Dune' by Frank Herbert. It's a classic."
    """
    t = " ".join(reply.split())
    kept = [
        s
        for s in sentences(t)
        if not normal(s).endswith("?") and not is_small_talk(s) and word_count(s, detect(s)) >= 3
    ]
    return " ".join(kept) or t


def raw_record(
    *,
    user_id: str,
    session_id: str,
    turn: int,
    text: str,
    when: datetime,
    tags: list[str],
    speaker: str = USER,
    reply: str = "",
    asked: str = "",
    turn_id: str | None = None,
    role: Literal["user", "assistant"] | None = None,
    kept: str = "",
    read_entities: bool = True,
) -> MemoryRecord:
    """The verbatim record of one side of a turn, the words ``text`` of ``speaker`` (the user, the
    assistant or a named participant): ``reply`` is the assistant's answer that followed a person's
    words, ``asked`` the other side's turn before them when that holds the missing half of the
    exchange. ``role``: the side the words are on, when not the speaker's own (a replayed
    conversation's second person on the assistant's side). ``kept``: the part of ``text`` the
    thought keeps (what an assistant's reply gave: ``gave``), when not all of it. ``read_entities``:
    False leaves the entities its words name unread (``with_entities`` reads them), for a caller that
    knows its words name none."""
    words = " ".join((kept or text).split())
    assistant = (role or ("assistant" if speaker == ASSISTANT else "user")) == "assistant"
    side: Literal["user", "assistant"] = "assistant" if assistant else "user"
    other: Literal["user", "assistant"] = "user" if assistant else "assistant"
    participant = "" if speaker in (USER, ASSISTANT) else speaker
    sources = []
    if asked:
        sources.append(SourceTurn(role=other, text=asked, time=when, turn=turn - 1, context=True))
    sources.append(
        SourceTurn(
            role=side,
            text=text,
            time=when,
            turn_id=turn_id,
            turn=turn,
            speaker=participant,
        )
    )
    if reply:
        sources.append(SourceTurn(role=other, text=reply, time=when, turn=turn))
    rec = MemoryRecord(
        id=stable_id(user_id, session_id, turn, "raw-assistant" if assistant else "raw"),
        user_id=user_id,
        thought=words if len(words) <= RAW_CHARS else words[:RAW_CHARS] + " …",
        kind="raw",
        tags=list(tags)[:3],
        event_time=as_aware(when),
        speaker=speaker,
        session_id=session_id,
        turn=turn,
        sources=sources,
        history=[],
    )
    return with_entities(rec) if read_entities else rec  # what the speaker's words name of their life
