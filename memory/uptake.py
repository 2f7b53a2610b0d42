"""Whether the user took up what the assistant gave: the rule that decides if the assistant's words
become memory.

The assistant's reply is remembered only as what it gave the user (a recommendation, a suggestion,
something named) and only when the user took it up later in the session (``taken_up``): they
accepted or thanked for it in their next turn ("ok, I'll try that", "danke, gute Idee"), asked about
it, acted on it or reused its specifics ("I booked the Miramar") in any later turn. A reply the user
left alone, refused, or never answered (the session ended) is not remembered; nor is one that tells
the user something about themselves their own words do not hold (``misstates``: "you mentioned
that Sam teaches in Leeds" when they never named Leeds) - the assistant's invention is no memory.

Every language with tables reads its own words (``Signals.accepting``, ``Signals.refusing``);
English's are here, as the other English grammar of ``caim.memory.capture`` is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from caim.memory.text import names, tokenize, unsupported
from caim.memory.text.lang import ENGLISH, Language, detect, found, normal, opens_with, sentences

#: The user accepting or thanking for what they were given, as their next turn opens.
_ACCEPTS = re.compile(
    r"^\W*(ok(ay)?\b|sure\b|yes\b|yeah\b|yep\b|perfect\b|great\b|awesome\b|cool\b|nice\b|thanks?\b|thank you\b|"
    r"thx\b|cheers\b|(that'?s |what )?a (good|great|nice) (idea|tip|suggestion|one)\b|good (idea|tip|call)\b|"
    r"sounds (good|great|perfect|lovely|nice|interesting|like a plan)\b|will do\b|let'?s (do|go|try)\b|"
    r"that works\b|deal\b|noted\b|got it\b|i('ll| will) (try|do|take|go|check|read|watch|listen|book|look|"
    r"give|use|get|buy|make|start|add|follow)\b|i('d| would) love (to|that)\b|love (it|that|this)\b|"
    r"i like (that|it|this|the idea)\b|that'?s (helpful|useful|perfect|great|exactly))",
    re.I,
)
#: ... unless it refuses ("no thanks", "not really", "I'd rather not").
_REFUSES = re.compile(
    r"^\W*(no\b|nah\b|nope\b|not really\b|no,? thanks?\b|thanks?,? but\b|i('d| would) rather not\b|"
    r"i don'?t (think|want|like)\b|i('ve| have) (already|tried)\b)",
    re.I,
)
#: The assistant telling the user about themselves ("you mentioned...", "your sister is...").
_CLAIMS = re.compile(
    r"\b(you('ve| have)? (mentioned|said|told me|shared|noted)|you (were|are|live|work|teach|have been|had)|"
    r"your \w+ (is|was|works|lives|teaches|has))\b",
    re.I,
)


def _accepts(text: str, language: Language) -> bool:
    """Does the turn open by accepting or thanking (and not refusing)?"""
    if language is ENGLISH or language.signals is None:
        return bool(_ACCEPTS.match(text)) and not _REFUSES.match(text)
    t = normal(text)
    return opens_with(language.signals.accepting, t, language) and not opens_with(
        language.signals.refusing, t, language
    )


def _specifics(reply: str, heard: str) -> tuple[set[str], set[str]]:
    """What the reply names that the user had not said: its names (lower-cased) and its content words."""
    said = set(tokenize(heard))
    named = {n.casefold() for n in names(reply) if not set(tokenize(n)) <= said}
    return named, set(tokenize(reply)) - said


def taken_up(reply: str, later: Sequence[str], heard: str = "") -> bool:
    """Did the user take up what the assistant's ``reply`` gave?

    Args:
        reply: The assistant's reply.
        later: The user's turns after it in the session, in order.
        heard: What the user had said up to the reply (their words name nothing new of it).

    Returns:
        True when the next turn accepts or thanks (and refuses nothing), or any later turn reuses a
        name the reply gave, or holds two of the reply's content words the user had not used before.

    >>> rec = "You might enjoy 'Dune' by Frank Herbert."
    >>> taken_up(rec, ["Thanks, I'll get it!"]), taken_up(rec, ["I finished Dune, loved it."]), taken_up(rec, [])
    (True, True, False)
    >>> taken_up(rec, ["No thanks, I don't read sci-fi."]), taken_up(rec, ["Anyway, my cat is sick."])
    (False, False)
    >>> taken_up("Ich empfehle dir „Momo“ von Michael Ende.", ["Danke, gute Idee!"])
    True
    """
    if not later:
        return False
    first = " ".join(later[0].split())
    if _accepts(first, detect(first)):
        return True
    named, content = _specifics(reply, heard)
    for text in later:
        said = {n.casefold() for n in names(text)} | {w.casefold() for w in re.findall(r"\w+", text)}
        if named & said or len(content & set(tokenize(text))) >= 2:
            return True
    return False


#: The assistant advising the user: what they can or should do ("you could try a meditation app", "I'd
#: suggest a 10k first", "try journaling before bed", "make sure to book early").
_ADVISES = re.compile(
    r"\b(you (can|could|should|might|may)( also| first| still| even| always)? (try|consider|start|go|visit|read|"
    r"watch|listen|join|take|make|find|use|look|seek|practi[cs]e|learn|set|write|keep|plan|choose|refer|attend|"
    r"search|download|check|buy|get|cook|bring|ask|talk|spend|record|pay|eat|drink|add|avoid|limit|reduce|"
    r"increase|book|rent|call|contact|sign|register|prepare|focus|break|schedule|invest|save|follow|explore|"
    r"participate|enroll|apply|stick|pick|wear|stretch|rest|sleep)|i( would|'d)? (suggest|recommend|advise)|"
    r"(my|some|a few) (suggestions?|advice|recommendations?|tips?)\b|(^|[.!:;] )(try|consider|start by|remember to|"
    r"make sure (to|you)|don't forget to) )",
    re.I,
)
#: The user taking advice up in their next turn: thanking for it, calling it a good idea, saying they
#: will act on it ("thanks for the suggestions", "I'll give it a try", "good idea").
_TAKES_ADVICE = re.compile(
    r"\b(suggestions?|advice|ideas?|tips?|recommendations?|methods?)\b|\bi('ll| will) (try|give|follow|take|keep|"
    r"consider|check|look|start|do|make|practi[cs]e|go|read|use|definitely)\b",
    re.I,
)


def advises(reply: str) -> bool:
    """Does the assistant's ``reply`` advise the user what to do (``_ADVISES``; in another language with
    tables, its words of giving: "ich empfehle", "建议")?

    >>> advises("You could try a meditation app before bed."), advises("That sounds lovely! How was it?")
    (True, False)
    """
    t = " ".join(reply.split())
    language = detect(t)
    if language is ENGLISH or language.signals is None:
        return bool(_ADVISES.search(t))
    return found(language.signals.giving, normal(t), language)


def advice_taken(later: Sequence[str]) -> bool:
    """Did the user take up advice in their next turn (``later[0]``): thanked for it, called it a good
    idea or said they will act on it, refusing nothing? In another language with tables, their turn
    opens by accepting (``Signals.accepting``).

    >>> advice_taken(["Those are great suggestions, I'll give them a try."]), advice_taken(["I'm tired."])
    (True, False)
    >>> advice_taken(["No, I don't think that would help."]), advice_taken([])
    (False, False)
    """
    if not later:
        return False
    first = " ".join(later[0].split())
    language = detect(first)
    if language is not ENGLISH and language.signals is not None:
        return _accepts(first, language)
    return bool(_TAKES_ADVICE.search(first)) and not _REFUSES.match(first)


def misstates(reply: str, heard: str) -> list[str]:
    """The specifics the reply tells the user about themselves that their own words do not hold.

    Args:
        reply: The assistant's reply.
        heard: What the user had said in the session up to the reply.

    Returns:
        The names, numbers and dates of the reply's sentences about the user ("you mentioned...",
        "your sister is...") missing from ``heard``; empty when it claims nothing of theirs.

    >>> misstates("You mentioned that Sam teaches chemistry in Leeds.", "My friend Sam teaches in York.")
    ['leeds']
    >>> misstates("You might like Leeds.", "I want a city trip.")
    []
    """
    out: list[str] = []
    for sentence in sentences(" ".join(reply.split())):
        if _CLAIMS.search(sentence) or (detect(sentence) is not ENGLISH and _claims_in(sentence)):
            out += [s for s in unsupported(sentence, heard) if s not in out]
    return out


def _claims_in(sentence: str) -> bool:
    """A sentence of another language telling the user what they said (``Signals.claims``)."""
    language = detect(sentence)
    signals = language.signals
    return signals is not None and found(signals.claims, normal(sentence), language)
