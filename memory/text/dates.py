"""Dates and time expressions: one month and weekday table, one grammar of time phrases.

Tables: ``MONTHS`` and ``WEEKDAYS`` (lowercase, in calendar order), ``MONTH_PATTERN`` (a month as
written: full name, three-letter abbreviation or "sept"), ``MONTH_NUMBER`` (those words to 1-12),
``COUNTS`` (the words that count units of time, vague ones at a typical value: "few" is 3).

Grammar: each compiled pattern below is built from those tables and matches, case-insensitively,
one family of phrases; what each matches is its contract (the resolvers in
``caim.memory.timeref`` and the checks of ``caim.memory.text`` rely on exactly that):

- ``TIME_EXPRESSION``: any mention of time ("yesterday", "last summer", "ago", "since", "2023");
  ``has_time_expression`` tests for one;
- ``FINDABLE``: the phrases code resolves unaided ("last week", "three days ago", "on May 4th",
  "2023-05-07"), as ``caim.memory.timeref.find_expressions`` reports them;
- ``RELATIVE``: phrases whose date depends on the day they were said ("yesterday", "next month",
  "a few weeks ago", "in two days"), as ``caim.memory.timeref.with_dates`` annotates them;
- ``AGO`` and ``SPAN``: a count of days, weeks or months before (``AGO``, whole phrase) or a count
  of units before or after (``SPAN``) - the parts ``caim.memory.timeref`` reads;
- ``DAY_MONTH``, ``MONTH_DAY``, ``YEAR``, ``WEEKDAY``, ``BARE_MONTH``: dates as an answer or a
  question writes them (``date_windows``, ``caim.memory.text.grounding``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo

from caim.memory.text.tokens import NUMBER_WORDS

MONTHS = (
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
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: A month as written: its full name, a three-letter abbreviation, or "sept".
MONTH_PATTERN = "|".join(MONTHS) + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
#: The words of ``MONTH_PATTERN`` to the month's number (1-12).
MONTH_NUMBER = {m: i + 1 for i, m in enumerate(MONTHS)} | {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
_WEEKDAY_PATTERN = "|".join(WEEKDAYS)

#: Words that count units of time ("two weeks ago", "a few days"), with their value; the vague ones
#: ("couple of", "few", "several") at a typical value.
COUNTS: dict[str, int] = (
    {"a": 1, "an": 1}
    | {w: int(n) for w, n in NUMBER_WORDS.items() if 1 <= int(n) <= 10}
    | {"couple of": 2, "few": 3, "several": 4}
)
#: Vague counts said with an article ("a few days ago", "in a couple of weeks").
_WITH_ARTICLE = ("a couple of", "a few")


def _counts(*, most: int = 10, exact: bool = False) -> str:
    """An alternation of digits and the ``COUNTS`` words up to ``most`` (``exact``: no vague ones)."""
    vague = ("couple of", "few", "several")
    return "|".join([r"\d+", *(w for w, n in COUNTS.items() if n <= most and not (exact and w in vague))])


TIME_EXPRESSION = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|recently|lately|the other day|"
    rf"(last|next|this|past) (week|weekend|month|year|night|summer|winter|spring|fall|{_WEEKDAY_PATTERN})|"
    rf"({_counts(most=7)}) (days?|weeks?|months?|years?) ago|"
    r"ago|since|in (19|20)\d\d|(19|20)\d\d)\b",
    re.I,
)
FINDABLE = re.compile(
    r"\b(?:today|tonight|yesterday|recently|lately|the other day|"
    rf"last (?:week|month|year|night|{_WEEKDAY_PATTERN})|this (?:week|month|year|morning)|"
    rf"(?:{_counts(most=7)}) (?:days?|weeks?|months?) ago|"
    rf"(?:on |in )?(?!sept\b)(?:{MONTH_PATTERN})\.? \d{{1,2}}(?:st|nd|rd|th)?|"
    rf"\d{{4}}-\d{{2}}-\d{{2}}|on (?:{_WEEKDAY_PATTERN}))\b",
    re.I,
)
RELATIVE = re.compile(
    r"\b(?:the day before yesterday|yesterday|today|tonight|tomorrow|last night|this morning|"
    r"(?:last|this|next|past) (?:week|weekend|month|year)|"
    rf"(?:last|this|next) (?:{_WEEKDAY_PATTERN})|"
    rf"(?:{_counts()}|{'|'.join(_WITH_ARTICLE)}) (?:days?|weeks?|months?|years?) ago|"
    rf"in (?:{_counts(exact=True)}|{'|'.join(_WITH_ARTICLE)}) (?:days?|weeks?|months?))\b",
    re.I,
)
#: A whole phrase "<count> day(s)/week(s)/month(s) ago" (lowercase): group 1 the count, 2 the unit.
AGO = re.compile(rf"({_counts()}) (day|week|month)s? ago")
#: "<count> <unit>s ago" or "in <count> <unit>s" (lowercase, whole phrase): group 1 "in ", 2 the
#: count, 3 the unit, 4 " ago".
SPAN = re.compile(r"(in )?(.+?) (day|week|month|year)s?( ago)?")
#: An ordinal suffix after a day's number ("8th"): group 1 the number.
ORDINAL = re.compile(r"(\d+)(st|nd|rd|th)\b")

DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?(?: of)? (" + MONTH_PATTERN + r")\b", re.I)
MONTH_DAY = re.compile(r"\b(" + MONTH_PATTERN + r")\.? (\d{1,2})(?:st|nd|rd|th)?\b(?!:)", re.I)
YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
WEEKDAY = re.compile(rf"\b({_WEEKDAY_PATTERN})\b", re.I)
#: A month named alone ("in July"); "may" alone is too often the verb.
BARE_MONTH = re.compile(r"\b(" + "|".join(m for m in MONTHS if m != "may") + r")\b", re.I)


def has_time_expression(text: str) -> bool:
    """Does the text mention a time (``TIME_EXPRESSION``)?

    Args:
        text: Any text.

    Returns:
        True when it holds a relative phrase, "ago", "since" or a year.

    >>> has_time_expression("We went camping last summer."), has_time_expression("We went camping.")
    (True, False)
    """
    return TIME_EXPRESSION.search(text) is not None


def month_name(word: str) -> str:
    """The full lowercase name of a month as written (a ``MONTH_PATTERN`` word, any case, a dot after).

    Args:
        word: "Oct", "oct.", "October", "sept"...

    Returns:
        The month's name from ``MONTHS``.

    >>> month_name("Sept."), month_name("MAY")
    ('september', 'may')
    """
    w = word.lower().rstrip(".")
    return MONTHS[MONTH_NUMBER[w if w in MONTH_NUMBER else w[:3]] - 1]


def month_days(year: int, month: int, tz: tzinfo | None = None) -> tuple[datetime, datetime]:
    """The first and the last day of a month, at midnight.

    Args:
        year: The year.
        month: The month, 1-12.
        tz: The days' time zone (``None``: naive).

    Returns:
        ``(first, last)``.

    >>> [d.date().isoformat() for d in month_days(2024, 2)]
    ['2024-02-01', '2024-02-29']
    """
    first = datetime(year, month, 1, tzinfo=tz)
    return first, datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=tz) - timedelta(days=1)


def date_windows(question: str, now: datetime) -> list[tuple[datetime, datetime]]:
    """Explicit dates in a question as inclusive day ranges (naive dates).

    "8 May, 2023" and "May 8, 2023" are a day; "May 2023" and "in May" a month (a bare month is its
    latest occurrence before ``now``; "may" counts only after "in"); "2023" a year. Each span of
    the question gives one window, the most precise.

    Args:
        question: The question.
        now: When it is asked.

    Returns:
        ``(first day, last day)`` for each date: days, then months, years, bare months.

    >>> from datetime import datetime
    >>> [(a.date().isoformat(), b.date().isoformat()) for a, b in date_windows("What did I do in May?",
    ...                                                                         datetime(2023, 3, 1))]
    [('2022-05-01', '2022-05-31')]
    """
    q = ORDINAL.sub(r"\1", question.lower().replace(",", " "))
    q = re.sub(r"\s+", " ", q)
    out: list[tuple[datetime, datetime]] = []
    used: list[tuple[int, int]] = []

    def free(span: tuple[int, int]) -> bool:
        return not any(a < span[1] and span[0] < b for a, b in used)

    def add(window: tuple[datetime, datetime], span: tuple[int, int]) -> None:
        out.append(window)
        used.append(span)

    for pattern, (gd, gm, gy) in (
        (rf"\b(\d{{1,2}}) ({MONTH_PATTERN}) ((?:19|20)\d\d)\b", (1, 2, 3)),
        (rf"\b({MONTH_PATTERN}) (\d{{1,2}}) ((?:19|20)\d\d)\b", (2, 1, 3)),
    ):
        for m in re.finditer(pattern, q):
            try:
                day = datetime(int(m.group(gy)), MONTH_NUMBER[m.group(gm)], int(m.group(gd)))
            except ValueError:
                continue
            add((day, day), m.span())
    for m in re.finditer(rf"\b({MONTH_PATTERN}) ((?:19|20)\d\d)\b", q):
        if free(m.span()):
            add(month_days(int(m.group(2)), MONTH_NUMBER[m.group(1)]), m.span())
    for m in re.finditer(r"\b((?:19|20)\d\d)\b", q):
        if free(m.span()):
            y = int(m.group(1))
            add((datetime(y, 1, 1), datetime(y, 12, 31)), m.span())
    naive_now = now.replace(tzinfo=None)
    for m in re.finditer(rf"\b(in|during|of) ({MONTH_PATTERN})\b", q):
        if free(m.span()) and (m.group(2) != "may" or m.group(1) == "in"):
            mo = MONTH_NUMBER[m.group(2)]
            y = naive_now.year if datetime(naive_now.year, mo, 1) <= naive_now else naive_now.year - 1
            add(month_days(y, mo), m.span())
    return out
