"""Dates and time expressions: one month and weekday table, one grammar of time phrases.

Tables: ``MONTHS`` and ``WEEKDAYS`` (lowercase, in calendar order), ``MONTH_PATTERN`` (a month as
written: full name, three-letter abbreviation or "sept"), ``MONTH_NUMBER`` (those words to 1-12),
``COUNTS`` (the words that count units of time, vague ones at a typical value: "few" is 3).

Grammar: each compiled pattern below is built from those tables and matches, case-insensitively,
one family of phrases; what each matches is its contract (the resolvers in
``caim.memory.text.timeref`` and the checks of ``caim.memory.text`` rely on exactly that):

- ``TIME_EXPRESSION``: any mention of time ("yesterday", "last summer", "ago", "since", "2023");
  ``has_time_expression`` tests for one;
- ``FINDABLE``: the phrases code resolves unaided ("last week", "three days ago", "on May 4th",
  "2023-05-07"), as ``caim.memory.text.timeref.find_expressions`` reports them;
- ``RELATIVE``: phrases whose date depends on the day they were said ("yesterday", "next month",
  "a few weeks ago", "in two days"), as ``caim.memory.text.timeref.with_dates`` annotates them;
- ``AGO`` and ``SPAN``: a count of days, weeks or months before (``AGO``, whole phrase) or a count
  of units before or after (``SPAN``) - the parts ``caim.memory.text.timeref`` reads;
- ``DAY_MONTH``, ``MONTH_DAY``, ``YEAR``, ``WEEKDAY``, ``BARE_MONTH``: dates as an answer or a
  question writes them (``date_windows``, ``caim.memory.text.grounding``).

Other languages: ``mentions`` finds a text's time expressions from its language's ``TimeWords``
(``caim.memory.text.tables``) - each relative phrase with the English phrase of this grammar that
means the same ("letzte Woche" is "last week", "三天前" is "3 days ago"), each written date with
its day, month and year - so that ``has_time_expression``, ``date_windows`` and
``caim.memory.text.timeref`` treat it as they treat the English phrase.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from functools import cache

from caim.memory.text.lang import Language, alternation, detect, matcher, number
from caim.memory.text.tables import TimeWords
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
    >>> has_time_expression("Wir waren letzte Woche zelten."), has_time_expression("我三天前去了露营。")
    (True, True)
    """
    language = detect(text)
    if language.signals is None:
        return TIME_EXPRESSION.search(text) is not None
    return bool(mentions(text, language))


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
    >>> [(a.date().isoformat(), b.date().isoformat()) for a, b in date_windows("2023年5月2日我做了什么？",
    ...                                                                         datetime(2023, 6, 1))]
    [('2023-05-02', '2023-05-02')]
    """
    language = detect(question)
    if language.signals is not None:
        return _windows(mentions(question, language), now)
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


# ---- other languages ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mention:
    """A time expression in a language other than English.

    Attributes:
        text: As written.
        start: Where it starts in the text.
        english: The English phrase of this module's grammar that means the same ("last week", "3
            days ago"); ``None`` for a written date, a year or a word that only mentions a time.
        day: The day of a written date (``None``: not given).
        month: Its month (``None``: a year alone, or no date).
        year: Its year (``None``: not given).
        bare: A month named alone after a preposition ("im Mai", "en mayo", "5月").
    """

    text: str
    start: int
    english: str | None = None
    day: int | None = None
    month: int | None = None
    year: int | None = None
    bare: bool = False


_DAY = r"(?P<day>\d{1,2}|[〇一二三四五六七八九十]{1,3})"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_NUMERALS = "[〇一二三四五六七八九十两]{1,3}"
_NO_YEAR = r"(?![\s,]*(?:de\s+|del\s+)?(?:19|20)\d\d)"


@cache
def _grammar(time: TimeWords, unspaced: bool) -> dict[str, list[re.Pattern[str]]]:
    """The language's time expressions compiled, per kind of ``Mention``."""

    def bounded(body: str) -> re.Pattern[str]:
        return re.compile(body if unspaced else rf"(?<![^\W_])(?:{body})(?![^\W_])", re.I)

    month = f"(?P<month>{alternation(tuple(time.months))})"
    count = rf"(?P<count>\d+|{alternation(tuple(time.counts))}" + (f"|{_NUMERALS})" if unspaced else ")")
    ago = time.ago.format(count=count, unit=f"(?P<unit>{alternation(tuple(time.units))})") if time.ago else ""
    return {
        "phrase": [matcher(tuple(time.phrases), unspaced)],
        "ago": [bounded(ago)] if ago else [],
        "date": [bounded(t.format(day=_DAY, month=month, year=_YEAR)) for t in time.dates],
        # a month alone: not one a year follows ("en mayo de 2023" is a month of a year)
        "bare": [bounded(t.format(month=month) + _NO_YEAR) for t in time.in_month],
        "iso": [re.compile(r"(?<!\d)(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})(?!\d)")],
        "year": [re.compile(r"(?<!\d)(?P<year>(?:19|20)\d\d)(?!\d)")],
        "marker": [matcher(time.markers, unspaced)],
    }


def _mention(kind: str, m: re.Match[str], time: TimeWords) -> Mention:
    text, groups = m.group(0), m.groupdict()
    if kind == "phrase":
        return Mention(text, m.start(), english=time.phrases[" ".join(text.lower().split())])
    if kind == "ago":
        n = groups["count"].lower()
        count = n if n.isdigit() else time.counts.get(n) or str(number(n))
        unit = time.units[groups["unit"].lower()]
        return Mention(text, m.start(), english=f"{count} {unit}{'' if count in ('a', '1') else 's'} ago")
    month, day, year = groups.get("month"), groups.get("day"), groups.get("year")
    return Mention(
        text,
        m.start(),
        day=number(day) if day else None,
        month=(int(month) if month.isdigit() else time.months[month.lower().rstrip(".")]) if month else None,
        year=int(year) if year else None,
        bare=kind == "bare",
    )


def mentions(text: str, language: Language) -> list[Mention]:
    """The time expressions of a text in a language with tables, in order, none overlapping another
    (the longest wins where two start together, the earliest where they overlap).

    Args:
        text: Any text.
        language: Its language (``caim.memory.text.lang.detect``); English and no tables give none.

    Returns:
        Each ``Mention``: relative phrases and counts back ("vor drei Tagen") with their English
        phrase; written dates, months named alone, ISO dates and years with their parts; words that
        only mention a time ("seit").

    >>> from caim.memory.text.lang import detect
    >>> [(m.text, m.english or (m.day, m.month, m.year)) for m in mentions("Il y a 3 jours, le 5 mai 2023.",
    ...                                                                    detect("Il y a trois jours"))]
    [('Il y a 3 jours', '3 days ago'), ('5 mai 2023', (5, 5, 2023))]
    """
    if language.signals is None:
        return []
    time = language.signals.time
    found = [
        (m.start(), -len(m.group(0)), kind, m)
        for kind, patterns in _grammar(time, language.unspaced).items()
        for p in patterns
        for m in p.finditer(text)
        if m.group(0)
    ]
    out: list[Mention] = []
    end = -1
    for start, length, kind, m in sorted(found, key=lambda f: (f[0], f[1])):
        if start >= end:
            out.append(_mention(kind, m, time))
            end = start - length
    return out


def _windows(found: list[Mention], now: datetime) -> list[tuple[datetime, datetime]]:
    """``date_windows`` of a question's ``mentions``: a dated day, a month of a year, a year, a month
    named alone (its latest occurrence before ``now``)."""
    out: list[tuple[datetime, datetime]] = []
    naive_now = now.replace(tzinfo=None)
    for m in found:
        try:
            if m.day and m.month and m.year:
                day = datetime(m.year, m.month, m.day)
                out.append((day, day))
            elif m.month and m.year:
                out.append(month_days(m.year, m.month))
            elif m.year and not m.month:
                out.append((datetime(m.year, 1, 1), datetime(m.year, 12, 31)))
            elif m.bare and m.month:
                y = naive_now.year if datetime(naive_now.year, m.month, 1) <= naive_now else naive_now.year - 1
                out.append(month_days(y, m.month))
        except ValueError:  # no such day (31 February) or month
            continue
    return out
