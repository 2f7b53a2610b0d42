"""Signals computed in code: what a turn or a question shows without a model's judgement.

- ``memory_signals``: does a message need memory? A ``MemorySignals`` of four flags - a question,
  a reference to the shared past, a time reference, a question about the user's own facts.
- ``prior``: how likely a turn is to carry a memorable fact, in log-odds units (``PRIOR_WEIGHTS``:
  "I/we <past verb>", a name, a number, a quoted title, a shared image, an opening turn count for;
  a question and a short reaction against).
- Query signals: which known speakers a question names, "when" questions, aggregate questions
  ("what books has X read", "how many"), questions about how things were ("used to").

Each signal reads a text in its language (``caim.memory.text.lang.detect``): English with the
grammar below, another language with the words of its ``Signals`` table (``caim.memory.text.tables``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from caim.memory.text.dates import date_windows, has_time_expression
from caim.memory.text.lang import (
    UNSPACED_CHAR,
    UNSPACED_RUN,
    Language,
    alternation,
    clauses,
    detect,
    found,
    normal,
    opens_with,
    word_count,
)
from caim.memory.text.names import IMAGE_MARK, names
from caim.memory.text.tables import PastTense, Signals

_I_PAST = re.compile(
    r"\b(I|we|We)\b (just |recently |finally |also |even |actually )?(\w+ed|went|got|did|made|took|had|saw|"
    r"won|lost|ran|bought|read|began|found|met|gave|wrote|sang|drew|built|taught|felt|left|kept|heard|became|came)\b"
)

#: Log-odds weights of the informativeness prior, one per feature of a turn.
PRIOR_WEIGHTS = {
    "i_past": 1.5,
    "entity": 1.25,
    "number": 1.25,
    "quote": 0.75,
    "image": 0.5,
    "opening": 0.5,
    "question": -0.75,
    "short": -1.0,
}


def prior(text: str, position: int | None, speakers: frozenset[str] = frozenset()) -> float:
    """Informativeness of a turn in log-odds units: the sum of the ``PRIOR_WEIGHTS`` of its features.

    Args:
        text: The turn (a shared image's caption after ``IMAGE_MARK``).
        position: Its index in the session (``None``: unknown).
        speakers: The conversation's speakers, which are no entity of the turn.

    Returns:
        The log-odds score.

    >>> prior("We adopted a puppy called Miso in 2023!", 0)  # past action, name, number, opening; short
    3.5
    >>> prior("我们2023年领养了一只小狗，叫米索！", 0)  # the same in Chinese
    3.5
    """
    body = text.split(IMAGE_MARK)[0]
    language = detect(body)
    if language.signals is not None:
        return _prior_in(text, body, position, speakers, language)
    found = {
        "i_past": bool(_I_PAST.search(text)),
        "entity": bool(names(body, speakers)),
        "number": bool(re.search(r"\d", body)),
        "quote": bool(re.search(r"[\"\u201c][A-Z]", body)),
        "image": IMAGE_MARK in text,
        "opening": position is not None and position <= 1,
        "question": body.rstrip().endswith("?"),
        "short": len(body.split()) < 10,
    }
    return float(sum(PRIOR_WEIGHTS[k] for k, on in found.items() if on))


def _prior_in(text: str, body: str, position: int | None, speakers: frozenset[str], language: Language) -> float:
    """``prior`` of a turn in a language with tables: its quotes and titles, "?" in either width,
    its length in words as the language counts them."""
    signals = language.signals
    assert signals is not None
    quote = f"[{re.escape(signals.quotes)}]" + (r"\s?\S" if language.unspaced else r"\s?[^\W\d_]")
    found = {
        "i_past": tells_past_action(text),
        "entity": bool(names(body, speakers)),
        "number": bool(re.search(r"\d", body)),
        "quote": bool(re.search(quote, body)) if signals.quotes else False,
        "image": IMAGE_MARK in text,
        "opening": position is not None and position <= 1,
        "question": normal(body).rstrip().endswith("?"),
        "short": word_count(body, language) < 10,
    }
    return float(sum(PRIOR_WEIGHTS[k] for k, on in found.items() if on))


def tells_past_action(text: str) -> bool:
    """Does the speaker tell of something they did ("I painted...", "we went...")?

    Args:
        text: Any text.

    Returns:
        True when "I" or "we" is followed by a past verb.

    >>> tells_past_action("We went hiking."), tells_past_action("We love hiking.")
    (True, False)
    >>> tells_past_action("Wir sind gestern wandern gegangen."), tells_past_action("Wir wandern gern.")
    (True, False)
    """
    return past_action_in(text, detect(text))


def past_action_in(text: str, language: Language) -> bool:
    """``tells_past_action`` of a text read as ``language``."""
    if language.signals is None:
        return _I_PAST.search(text) is not None
    past = language.signals.past
    if language.unspaced:
        return any(_told_unspaced(c, past) for c in clauses(normal(text)))
    return any(_told(re.findall(r"[^\W_]+", c), past) for c in clauses(normal(text).lower()))


def _told(words: list[str], past: PastTense) -> bool:
    """A past action in one clause's lowercase words (``PastTense``'s rule for spaced writing)."""
    if past.subject_required and not set(words) & set(past.subjects):
        return False
    rest = [
        w
        for i, w in enumerate(words)
        if w not in past.subjects and w not in past.auxiliaries and not (i and words[i - 1] in past.not_after)
    ]
    simple = (
        any(
            w in past.simple or (w.endswith(past.simple_endings) and len(w) > 3 and w not in past.not_simple)
            for w in words
        )
        if past.simple_endings
        else bool(set(words) & set(past.simple))
    )
    participle = bool(past.participle) and any(re.fullmatch(past.participle, w) for w in rest)
    return simple or (bool(set(words) & set(past.auxiliaries)) and participle)


def _told_unspaced(clause: str, past: PastTense) -> bool:
    """A past action in one clause written without spaces: a marker after a subject, or ending the
    clause when no subject is needed."""
    markers = "|".join(map(re.escape, past.markers))
    if past.subject_required:
        subjects = "|".join(map(re.escape, past.subjects))
        return re.search(f"(?:{subjects}).{{0,20}}?(?:{markers})", clause) is not None
    return re.search(f"(?:{markers})(?:よ|ね|けど|から)?\\W*$", clause) is not None


# ---- query signals -------------------------------------------------------------------------------
_WHEN = re.compile(
    r"\s*(when|how long ago|how long has|how long did|in what year|what year|what month|what date|which year|"
    r"which month)\b"
)
_AGGREGATE = re.compile(r"^\s*(what|which)\s(\w+\s){0,3}(has|have)\s|^\s*how many\b", re.I)


#: The speakers of caim's own conversations, by role (``MemoryRecord.speaker``): a question names
#: one as "the user", "the assistant", never as a word alone ("my assistant", "a user").
ROLE_LABELS = frozenset({"user", "assistant"})


def named_speakers(question: str, speakers: list[str]) -> list[str]:
    """Known speakers the question names.

    Args:
        question: The question.
        speakers: The speakers' names.

    Returns:
        Those named as a whole word, or by the first three letters of a name longer than four; a
        role label (``ROLE_LABELS``) only as "the user", "the assistant": "my assistant" is
        someone the user has, not the speaker.

    >>> named_speakers("What did Mel paint?", ["Melanie", "Caroline"])
    ['Melanie']
    >>> named_speakers("What did the assistant recommend?", ["user", "assistant"])
    ['assistant']
    >>> named_speakers("Who is my assistant at work?", ["user", "assistant"])
    []
    >>> named_speakers("Anna去了哪里？", ["Anna", "小雨"]), named_speakers("小雨读了什么书？", ["Anna", "小雨"])
    (['Anna'], ['小雨'])
    """
    q = question.lower()
    unspaced = detect(question).unspaced or any(UNSPACED_RUN.search(s) for s in speakers)
    return [s for s in speakers if _named(s.lower(), q, unspaced)]


def _named(name: str, q: str, unspaced: bool) -> bool:
    """``named_speakers``' rule for one lower-cased name in the lower-cased question."""
    if name in ROLE_LABELS:
        return re.search(rf"\bthe\s+{name}\b", q) is not None
    if unspaced:
        return _named_among_characters(name, q)
    return any(re.search(rf"\b{re.escape(f)}\b", q) for f in _forms(name))


#: A letter of a script written with spaces: what may not touch a name found among characters.
_SPACED_LETTER = f"(?:(?!{UNSPACED_CHAR})[^\\W_])"


def _named_among_characters(name: str, q: str) -> bool:
    """``named_speakers``' rule where characters of a script without spaces may touch a name: a name
    in such characters anywhere, another name (or its first three letters) between non-letters."""
    if UNSPACED_RUN.fullmatch(name):
        return name in q
    whole = [name] + ([name[:3]] if len(name) > 4 else [])
    return any(re.search(f"(?<!{_SPACED_LETTER}){re.escape(n)}(?!{_SPACED_LETTER})", q) for n in whole)


def without_speakers(question: str, named: list[str]) -> str:
    """The question without the known speakers it names (``named_speakers``), each also by its first
    three letters or with a possessive, as the name is written (so "car" stays when "Caroline" goes):
    what the dense signal embeds, since the speaker signal matches who said a record and a name in
    the vector only draws it to all that speaker's records.

    Args:
        question: The question.
        named: The speakers it names.

    Returns:
        The rest of the question, spaces collapsed (the question itself when nothing is left).

    >>> without_speakers("What did Mel's sister paint?", ["Melanie"])
    'What did sister paint?'
    >>> without_speakers("Anna去了哪里？", ["Anna"]), without_speakers("小雨读了什么书？", ["小雨"])
    ('去了哪里？', '读了什么书？')
    >>> without_speakers("Caroline?", ["Caroline"])
    'Caroline?'
    >>> without_speakers("What car did Caroline buy, and did Andrew drive it?", ["Caroline", "Andrew"])
    'What car did buy, and did drive it?'
    """
    out = question
    for s in named:
        for form in _forms(s):
            word = re.escape(form) + r"(?:['’]s)?"
            out = re.sub(f"(?<!{_SPACED_LETTER}){word}(?!{_SPACED_LETTER})", " ", out)
    rest = " ".join(out.split())
    return rest if any(ch.isalnum() for ch in rest) else question


def _forms(name: str) -> list[str]:
    """How a question may write a speaker's name: whole, or by its first three letters when longer."""
    return [name] + ([name[:3]] if len(name) > 4 and not UNSPACED_RUN.fullmatch(name) else [])


#: An auxiliary before a speaker's name, and its form before "I".
_AUX_BEFORE_I = {
    "is": "am", "are": "am", "was": "was", "were": "was", "does": "do", "do": "do", "did": "did", "has": "have",
    "have": "have", "had": "had", "can": "can", "could": "could", "will": "will", "would": "would",
    "should": "should", "might": "might", "may": "may", "must": "must",
}  # fmt: skip
#: An auxiliary before two speakers' names, where its form before "we" differs.
_AUX_BEFORE_WE = {"is": "are", "was": "were", "does": "do", "has": "have"}
_PREPOSITION = (
    r"(?:to|for|with|about|at|from|of|by|on|in|into|like|than|around|without|towards?|behind|between|among|after|"
    r"before|upon|against)"
)


def in_first_person(question: str, named: list[str]) -> str:
    """An English question about the speakers it names, put as they would ask it of themselves: what
    the dense signal embeds. A speaker tells of themselves in the first person ("Melanie: my kids
    love..."), so "What do Melanie's kids like?" reads "What do my kids like?", and a question about
    both speakers reads "we". In Chinese and Japanese, whose tables say how a speaker names
    themselves (``Signals.self_one``, ``self_both``), each name is that word. Other questions, and
    questions in another language, lose the names instead (``without_speakers``).

    Args:
        question: The question.
        named: The speakers it names (``named_speakers``).

    Returns:
        One named speaker: the name with a possessive as "my", after an auxiliary as "I" (the
        auxiliary agreeing: "does" -> "do", "is" -> "am"), after a preposition as "me", elsewhere as
        "I"; "the" before the name goes with it ("the assistant" is "I"), and a name after "a",
        "my", "your"... is no speaker ("my Caroline": no rule). Two joined by "and": "our", "us"
        and "we" by the same rules. Otherwise ``without_speakers(question,
        named)`` (the question itself when it holds nothing but names).

    >>> in_first_person("What do Melanie's kids like?", ["Melanie"])
    'What do my kids like?'
    >>> in_first_person("Does Mel live close to a beach?", ["Melanie"])
    'Do I live close to a beach?'
    >>> in_first_person("Who gave a book to Nate?", ["Nate"])
    'Who gave a book to me?'
    >>> in_first_person("What did the assistant recommend for car trips?", ["assistant"])
    'What did I recommend for car trips?'
    >>> in_first_person("What do Jon and Gina both have in common?", ["Jon", "Gina"])
    'What do we both have in common?'
    >>> in_first_person("Melanie的孩子喜欢什么？", ["Melanie"])
    '我的孩子喜欢什么？'
    >>> in_first_person("田中さんと花子は何を食べた？", ["田中", "花子"])
    '私たちは何を食べた？'
    >>> in_first_person("Was hat Anna letzte Woche gemalt?", ["Anna"])
    'Was hat letzte Woche gemalt?'
    """
    rest = without_speakers(question, named)
    if not 1 <= len(named) <= 2 or rest == question:
        return rest
    language = detect(question)
    if language.code == "en":
        return _as_i(question, named) or rest
    table = language.signals
    return (_as_self(question, named, table) if table and table.self_one else None) or rest


def _as_i(question: str, named: list[str]) -> str | None:
    """``in_first_person``'s English rules; ``None`` when nothing changed."""
    if len(named) == 1:
        names = "|".join(re.escape(f) for f in _forms(named[0]))
    else:
        a, b = ("|".join(re.escape(f) for f in _forms(s)) for s in named)
        names = rf"(?:{a})\s+and\s+(?:{b})|(?:{b})\s+and\s+(?:{a})"
    if re.search(rf"\b(?i:a|an|my|your|our|his|her|their)\s+(?:{names})\b", question):
        return None  # "my Caroline" is someone the user has, not the speaker
    first = ("my", "I", "me") if len(named) == 1 else ("our", "we", "us")
    who = rf"(?:\b(?i:the)\s+)?\b(?:{names})"  # "the assistant" is the speaker
    out = re.sub(rf"{who}['’]s\b", first[0], question)
    out = re.sub(rf"\b(?i:({'|'.join(_AUX_BEFORE_I)}))\s+{who}\b", lambda m: _aux(m.group(1), first[1]), out)
    out = re.sub(rf"\b(?i:({_PREPOSITION}))\s+{who}\b", rf"\1 {first[2]}", out)
    out = re.sub(rf"{who}\b", first[1], out)
    return out if out != question else None


def _as_self(question: str, named: list[str], table: Signals) -> str | None:
    """``in_first_person`` in a language whose table says how a speaker names themselves (Chinese,
    Japanese: nothing else in the sentence changes): each name, with a title of address after it,
    as ``self_one``; two joined by one of ``joins`` as ``self_both``. ``None`` when nothing changed."""
    titles = f"(?:{alternation(table.name_after)})?" if table.name_after else ""

    def who(name: str) -> str:
        forms = "|".join(re.escape(f) for f in _forms(name))
        return f"(?<!{_SPACED_LETTER})(?:{forms})(?!{_SPACED_LETTER}){titles}"

    if len(named) == 2:
        (a, b), joins = map(who, named), alternation(table.joins)
        out = re.sub(f"{a}(?:{joins}){b}|{b}(?:{joins}){a}", table.self_both, question) if joins else question
    else:
        out = re.sub(who(named[0]), table.self_one, question)
    return out if out != question else None


def _aux(aux: str, subject: str) -> str:
    """The auxiliary as it reads before ``subject`` ("I" or "we"), its first letter's case kept."""
    low = aux.lower()
    word = _AUX_BEFORE_I[low] if subject == "I" else _AUX_BEFORE_WE.get(low, low)
    return f"{word.capitalize() if aux[0].isupper() else word} {subject}"


def is_when_question(question: str) -> bool:
    """Does the question ask when ("When...", "In what year...", "... when ..." early on)?

    Args:
        question: The question.

    Returns:
        True for a question whose answer is a time.

    >>> is_when_question("When did Caroline go to the support group?"), is_when_question("Where is it?")
    (True, False)
    >>> is_when_question("Wann war Lena in Rom?"), is_when_question("我什么时候去的北京？")
    (True, True)
    """
    language = detect(question)
    if language.signals is not None:
        return found(language.signals.when, normal(question), language)
    q = question.lower()
    return bool(_WHEN.match(q)) or " when " in q[:40]


def is_aggregate_question(question: str) -> bool:
    """Is the answer collected across many sessions ("What books has X read?", "How many...")?

    Args:
        question: The question.

    Returns:
        True for an aggregate question.

    >>> is_aggregate_question("What books has Melanie read?"), is_aggregate_question("What is her name?")
    (True, False)
    >>> is_aggregate_question("¿Cuántos libros ha leído Lucía?"), is_aggregate_question("¿Dónde vive Lucía?")
    (True, False)
    """
    language = detect(question)
    if language.signals is not None:
        return found(language.signals.aggregate, normal(question), language)
    return bool(_AGGREGATE.search(question))


# ---- controller signals ----------------------------------------------------------------------------
_PAST_REFERENCE = re.compile(
    r"\b(remember|remind me|recall|i told you|tell you|told you|i mentioned|i said|i shared|you said|you told me|"
    r"you recommended|(did|have) i (mention|say|ask|share)|"
    r"(did|have) you (recommend|suggest|say|tell|told|mention|show|shown|give|gave|given|teach|taught|share|shared|"
    r"send|sent)|you (once |ever |previously |also )?(have |'ve )?(recommended|suggested|told|mentioned|shown|given|"
    r"gave|showed|taught|shared|sent|introduced)|"
    r"you suggested|we talked|we discussed|we spoke|last time|the other day|earlier|before|previously|used to|"
    r"again|still|(i|we) (once |previously |also )?(recommended|suggested)|(i|we) (once )?(showed|sent|gave) you"
    r"|(i|we) once)\b",
    re.I,
)
_SELF_QUESTION = re.compile(
    r"\b(my|mine|our)\b|\bhow\b[^?.!]{0,40}?\s(did|am|was|were|had)\s+(i|we)\b"
    r"|\b(what|where|when|who|which|whom)('s|\b[^?.!]{0,40}?\s(do|did|does|am|was|were|have|"
    r"had|would|should))\s+(i|we)\b|^\s*(do|did|am|was|have|had|were)\s+(i|we)\b"
    # something of the user's told before the question: "I have a badminton group. How many are in it?"
    r"|^\s*(i|we)\s+(have|'ve|had)\s+(\w+ed|a|an|been|seen|done|made|got)\b"
    # the user as the object of something past: "What did Anna give me?", "Did you send us the link?"
    r"|^\s*((what|where|when|who|which|why|how)\b[^?]*\s)?(did|was|were|had)\b[^?]*\b(me|us)\b"
    # a statement about the user checked with a tag: "I don't like comedies, right?"
    r"|^\s*(i|i'm|i've|we)\b[^?]*,\s*(right|correct|true|yes|no|isn't it|don't i|didn't i|am i not|aren't i)\s*\?",
    re.I,
)
_ASKS_PAST = re.compile(
    r"\b(before|used to|use to|previously|formerly|back then|at the time|originally|earlier|old)\b", re.I
)


@dataclass(frozen=True)
class MemorySignals:
    """Code signals that a message needs memory.

    Attributes:
        question: The message asks something ("?", or it opens with a question word).
        past_reference: It refers to the shared past ("I told you", "remember", "last time").
        time_reference: It holds a time expression or an explicit date.
        self_question: A question about the user's own facts, or about something they did.
    """

    question: bool
    past_reference: bool
    time_reference: bool
    self_question: bool


def memory_signals(text: str) -> MemorySignals:
    """Code signals that a message needs memory.

    Args:
        text: The user's message (surrounding quotes, as pasted, are ignored).

    Returns:
        The four flags of ``MemorySignals``.

    >>> memory_signals("I once recommended a food program to you, what was its name?").past_reference
    True
    >>> memory_signals("When I was in the library, I read a novel. What was its name?").self_question
    True
    >>> memory_signals("What is the capital of France?")
    MemorySignals(question=True, past_reference=False, time_reference=False, self_question=False)
    >>> memory_signals("Weißt du noch, was ich dir letzte Woche erzählt habe?")
    MemorySignals(question=True, past_reference=True, time_reference=True, self_question=True)
    """
    t = " ".join(text.split()).strip("\"'\u201c\u201d ")
    language = detect(t)
    if language.signals is not None:
        return _memory_signals_in(t, language)
    question = "?" in t or bool(re.match(r"\s*(what|which|where|when|who|how|do|did|does|can|could)\b", t, re.I))
    return MemorySignals(
        question=question,
        past_reference=bool(_PAST_REFERENCE.search(t)),
        time_reference=has_time_expression(t) or bool(date_windows(t, datetime.now())),
        # about the user's own facts, or something they did ("I read a novel. What was its name?")
        self_question=question and bool(_SELF_QUESTION.search(t) or _I_PAST.search(t)),
    )


def _memory_signals_in(t: str, language: Language) -> MemorySignals:
    """``memory_signals`` of a message in a language with tables."""
    signals = language.signals
    assert signals is not None
    n = normal(t)
    question = (
        "?" in n
        or "\u00bf" in n
        or opens_with(signals.question_words, n, language)
        or n.rstrip(" .!\u3002~").endswith(signals.question_ends or ("\0",))
    )
    return MemorySignals(
        question=question,
        past_reference=found(signals.past_reference, n, language),
        time_reference=has_time_expression(t) or bool(date_windows(t, datetime.now())),
        self_question=question and (found(signals.first_person, n, language) or tells_past_action(t)),
    )


def asks_about_past(text: str) -> bool:
    """Is the question about how things were ("before", "used to", "previously")? Then superseded
    records take part in retrieval.

    Args:
        text: The question.

    Returns:
        True when it asks about the past state of things.

    >>> asks_about_past("Where did I use to live?"), asks_about_past("Where do I live?")
    (True, False)
    >>> asks_about_past("我以前住在哪里？"), asks_about_past("Où est-ce que j'habitais avant ?")
    (True, True)
    """
    language = detect(text)
    if language.signals is not None:
        return found(language.signals.asks_past, normal(text), language)
    return bool(_ASKS_PAST.search(text))
