"""Text features computed in code: tokens for lexical search, names, time expressions, and the
signals retrieval and capture rely on when no model judgement is available.

- ``tokenize``: lowercase words, possessive 's dropped, English stopwords removed, Snowball stems
  (PyStemmer) - the lexical (BM25) index and its queries use the same function.
- ``prior``: how likely a turn is to carry a memorable fact ("I/we <past verb>", a name, a number,
  a quoted title, a shared image, an opening turn; questions and short reactions count against).
  The weights are log-odds from a fit on the LoCoMo development split, rounded.
- ``names``: capitalised words that are not sentence-initial or filler ("Caroline", "Berlin", "Miso").
- Query signals: which known speaker a question names, "when" questions, aggregate questions
  ("what books has X read", "how many"), explicit dates as day windows.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import lru_cache

import Stemmer

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn't",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "ll",
        "m",
        "re",
        "ve",
        "d",
    ]
)

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@lru_cache(maxsize=1)
def _stem():
    return Stemmer.Stemmer("english").stemWord


def storable(text: str) -> str:
    """The text as valid UTF-8: a lone surrogate (broken input from a client) becomes U+FFFD, so
    the turn can be stored and sent to a model instead of failing."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="surrogatepass").decode("utf-8", errors="replace")


def tokenize(text: str) -> list[str]:
    """Index terms of a text (stems, stopwords removed), in order, with repeats.

    >>> tokenize("I adopted two puppies last Sunday!")
    ['adopt', 'two', 'puppi', 'last', 'sunday']
    """
    stem = _stem()
    out = []
    for w in _WORD.findall(text.lower().replace("\u2019", "'")):
        if w in STOPWORDS:
            continue
        if "'" in w:
            base, suffix = w.split("'", 1)
            w = base if suffix == "s" else base + suffix
            if w in STOPWORDS:
                continue
        out.append(stem(w))
    return out


TIME_EXPRESSION = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|recently|lately|the other day|"
    r"(last|next|this|past) (week|weekend|month|year|night|summer|winter|spring|fall|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(a|an|one|two|three|four|five|six|seven|few|couple of|several|\d+) (days?|weeks?|months?|years?) ago|"
    r"ago|since|in (19|20)\d\d|(19|20)\d\d)\b",
    re.I,
)

_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
_NOT_NAMES = frozenset(
    {
        "I",
        "Hey",
        "Hi",
        "Hello",
        "Thanks",
        "Thank",
        "Wow",
        "Yeah",
        "Yes",
        "No",
        "Oh",
        "Great",
        "That",
        "It",
        "This",
        "Sure",
        "Okay",
        "Ok",
        "Well",
        "So",
        "And",
        "But",
        "My",
        "Our",
        "Your",
        "The",
        "We",
        "You",
        "He",
        "She",
        "They",
        "His",
        "Her",
        "Their",
        "Its",
        "A",
        "An",
        "What",
        "When",
        "Where",
        "Who",
        "How",
        "Why",
        "Do",
        "Did",
        "Can",
        "User",
        "Assistant",
    }
)
_I_PAST = re.compile(
    r"\b(I|we|We)\b (just |recently |finally |also |even |actually )?(\w+ed|went|got|did|made|took|had|saw|"
    r"won|lost|ran|bought|read|began|found|met|gave|wrote|sang|drew|built|taught|felt|left|kept|heard|became|came)\b"
)
IMAGE_MARK = " [shared an image:"

#: Log-odds weights of the informativeness prior (LoCoMo dev, logistic fit, rounded).
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


def names(text: str, exclude: frozenset[str] = frozenset()) -> list[str]:
    """Capitalised words that look like names of people, pets, places or things."""
    body = text.split(IMAGE_MARK)[0]
    return list(dict.fromkeys(w for w in _NAME.findall(body) if w not in _NOT_NAMES and w not in exclude))


def prior(text: str, position: int | None, speakers: frozenset[str] = frozenset()) -> float:
    """Informativeness of a turn in log-odds units (``position``: its index in the session)."""
    body = text.split(IMAGE_MARK)[0]
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


def has_time_expression(text: str) -> bool:
    return TIME_EXPRESSION.search(text) is not None


def tells_past_action(text: str) -> bool:
    """ "I painted…", "we went…": the speaker tells of something they did."""
    return _I_PAST.search(text) is not None


# ---- query signals -------------------------------------------------------------------------------
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_RE = "|".join(_MONTHS) + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
_MONTH_NO = {m: i + 1 for i, m in enumerate(_MONTHS)} | {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_WHEN = re.compile(
    r"\s*(when|how long ago|how long has|how long did|in what year|what year|what month|what date|which year|"
    r"which month)\b"
)
_AGGREGATE = re.compile(r"^\s*(what|which)\s(\w+\s){0,3}(has|have)\s|^\s*how many\b", re.I)


def named_speakers(question: str, speakers: list[str]) -> list[str]:
    """Known speakers the question names (whole word, or a 3-letter nickname of a long name)."""
    q = question.lower()
    out = []
    for s in speakers:
        low = s.lower()
        if re.search(r"\b" + re.escape(low) + r"\b", q) or (
            len(low) > 4 and re.search(r"\b" + re.escape(low[:3]) + r"\b", q)
        ):
            out.append(s)
    return out


def is_when_question(question: str) -> bool:
    q = question.lower()
    return bool(_WHEN.match(q)) or " when " in q[:40]


def is_aggregate_question(question: str) -> bool:
    """ "What books has X read?", "How many ...": the answer is collected across many sessions."""
    return bool(_AGGREGATE.search(question))


def _month(y: int, mo: int) -> tuple[datetime, datetime]:
    return datetime(y, mo, 1), datetime(y + (mo == 12), mo % 12 + 1, 1) - timedelta(days=1)


def date_windows(question: str, now: datetime) -> list[tuple[datetime, datetime]]:
    """Explicit dates in a question as inclusive day ranges (naive dates): "8 May, 2023" and
    "May 8, 2023" (a day), "May 2023" and "in May" (a month; a bare month is its latest occurrence
    before ``now``), "2023" (a year)."""
    q = re.sub(r"(\d+)(st|nd|rd|th)\b", r"\1", question.lower().replace(",", " "))
    q = re.sub(r"\s+", " ", q)
    out: list[tuple[datetime, datetime]] = []
    used: list[tuple[int, int]] = []

    def free(span: tuple[int, int]) -> bool:
        return not any(a < span[1] and span[0] < b for a, b in used)

    def add(window: tuple[datetime, datetime], span: tuple[int, int]) -> None:
        out.append(window)
        used.append(span)

    for pattern, (gd, gm, gy) in (
        (rf"\b(\d{{1,2}}) ({_MONTH_RE}) ((?:19|20)\d\d)\b", (1, 2, 3)),
        (rf"\b({_MONTH_RE}) (\d{{1,2}}) ((?:19|20)\d\d)\b", (2, 1, 3)),
    ):
        for m in re.finditer(pattern, q):
            try:
                day = datetime(int(m.group(gy)), _MONTH_NO[m.group(gm)], int(m.group(gd)))
            except ValueError:
                continue
            add((day, day), m.span())
    for m in re.finditer(rf"\b({_MONTH_RE}) ((?:19|20)\d\d)\b", q):
        if free(m.span()):
            add(_month(int(m.group(2)), _MONTH_NO[m.group(1)]), m.span())
    for m in re.finditer(r"\b((?:19|20)\d\d)\b", q):
        if free(m.span()):
            y = int(m.group(1))
            add((datetime(y, 1, 1), datetime(y, 12, 31)), m.span())
    naive_now = now.replace(tzinfo=None)
    for m in re.finditer(rf"\b(in|during|of) ({_MONTH_RE})\b", q):
        if free(m.span()) and (m.group(2) != "may" or m.group(1) == "in"):
            mo = _MONTH_NO[m.group(2)]
            y = naive_now.year if datetime(naive_now.year, mo, 1) <= naive_now else naive_now.year - 1
            add(_month(y, mo), m.span())
    return out


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


def memory_signals(text: str) -> dict[str, bool]:
    """Code signals that a message needs memory: a reference to the shared past ("I told you",
    "remember", "last time", "I once recommended you"), a time expression, a question about the
    user's own facts or about something they did.

    >>> memory_signals("I once recommended a food program to you, what was its name?")["past_reference"]
    True
    >>> memory_signals("When I was in the library, I read a novel. What was its name?")["self_question"]
    True
    >>> any(v for k, v in memory_signals("What is the capital of France?").items() if k != "question")
    False
    """
    t = " ".join(text.split()).strip("\"'\u201c\u201d ")
    question = "?" in t or bool(re.match(r"\s*(what|which|where|when|who|how|do|did|does|can|could)\b", t, re.I))
    return {
        "question": question,
        "past_reference": bool(_PAST_REFERENCE.search(t)),
        "time_reference": has_time_expression(t) or bool(date_windows(t, datetime.now())),
        # about the user's own facts, or something they did ("I read a novel. What was its name?")
        "self_question": question and bool(_SELF_QUESTION.search(t) or _I_PAST.search(t)),
    }


def asks_about_past(text: str) -> bool:
    """The question is about how things were ("before", "used to", "previously"): superseded
    records take part in retrieval."""
    return bool(_ASKS_PAST.search(text))


# ---- answer check -----------------------------------------------------------------------------------
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?(?: of)? (" + _MONTH_RE + r")\b", re.I)
_MONTH_DAY = re.compile(r"\b(" + _MONTH_RE + r")\.? (\d{1,2})(?:st|nd|rd|th)?\b(?!:)", re.I)
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_WEEKDAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)
_WEEKDAY_NAMES = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
#: A month named alone ("in July"); "may" alone is too often the verb.
_BARE_MONTH = re.compile(r"\b(" + "|".join(m for m in _MONTHS if m != "may") + r")\b", re.I)


def _month_name(word: str) -> str:
    w = word.lower().rstrip(".")
    return _MONTHS[_MONTH_NO[w if w in _MONTH_NO else w[:3]] - 1]


def specifics(text: str) -> list[str]:
    """What an answer asserts that can be checked against its sources, lowercase: dates (``"18
    october"``, whichever way written), years, weekdays, other numbers, and names (capitalised words
    inside a sentence).

    >>> specifics("On October 18th, Caroline met Anna at 5 in 2024.")
    ['18 october', '2024', '5', 'caroline', 'anna']
    """
    days = [f"{int(d)} {_month_name(m)}" for d, m in _DAY_MONTH.findall(text)]
    days += [f"{int(d)} {_month_name(m)}" for m, d in _MONTH_DAY.findall(text)]
    rest = _MONTH_DAY.sub(" ", _DAY_MONTH.sub(" ", text))
    years = _YEAR.findall(rest)
    numbers = _NUMBER.findall(_YEAR.sub(" ", rest))
    weekdays = [w.lower() for w in _WEEKDAY.findall(rest)]
    months = {m.lower() for m in _MONTHS}
    named = [n.lower() for n in names(text) if n.lower() not in months and n.lower() not in _WEEKDAY_NAMES]
    return list(dict.fromkeys([*days, *years, *weekdays, *numbers, *named]))


#: Number words a context may write where a claim gives the digits ("three" supports "3").
NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "hundred": "100", "dozen": "12"}


def unsupported(answer: str, context: str) -> list[str]:
    """The specifics of ``answer`` (``specifics``) that ``context`` - what the answer was given -
    does not hold: a date, number or name the model made up. A date counts only as a whole (day
    and month together), so scattered numbers in the context do not support it.

    >>> ctx = 'Today is Monday, October 23, 2023. "I went yesterday [7 May 2023]." (8 May 2023)'
    >>> unsupported("She went on October 17th, 2024, at 8.", ctx)
    ['17 october', '2024']
    >>> unsupported("She went on 7 May 2023.", ctx), unsupported("On May 7th.", ctx)
    ([], [])
    >>> unsupported("Has 3 kids.", "I have three kids."), unsupported("Has 4 kids.", "I have three kids.")
    ([], ['4'])
    """
    words = {w.lower() for w in re.findall(r"\w+", context)}
    held = set(specifics(context)) | words | {NUMBER_WORDS[w] for w in words if w in NUMBER_WORDS}
    return [s for s in specifics(answer) if s not in held]


def states_a_date(text: str) -> bool:
    """Does the text give a date or time (a date, a year, a month, a weekday, or a relative phrase)?"""
    return bool(
        _DAY_MONTH.search(text)
        or _MONTH_DAY.search(text)
        or _YEAR.search(text)
        or _WEEKDAY.search(text)
        or _BARE_MONTH.search(text)
        or has_time_expression(text)
    )
