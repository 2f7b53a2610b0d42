"""Resolve time expressions ("yesterday", "on May 4th", "last week") to date ranges.

The LLM only *finds* time expressions in the user's text; this module turns each one into a
``(start, end)`` range relative to the turn's timestamp, in plain code. Explicit dates go through
dateparser (with the turn time as its relative base, preferring the past); vague phrases such as
"a few days ago" or "recently" map to forgiving windows. Unresolvable phrases give ``None``.
Which phrases are found (``find_expressions``) and annotated (``with_dates``) is the grammar of
``caim.memory.text.dates``; this module only resolves them.

In another language (``caim.memory.text.lang.detect``), ``caim.memory.text.dates.mentions`` finds
the phrases: a relative one resolves as the English phrase it stands for ("la semaine dernière" as
"last week"), a written date from its day, month and year; any other phrase (one a model found, say)
goes to dateparser in that language, cached, so dateparser's cost is paid only for text that is
not English and only for phrases the tables do not know.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo
from functools import lru_cache

from typing_extensions import TypedDict

from caim.memory.records import as_aware
from caim.memory.text.dates import (
    AGO,
    COUNTS,
    FINDABLE,
    MONTHS,
    ORDINAL,
    RELATIVE,
    SPAN,
    WEEKDAYS,
    Mention,
    mentions,
    month_days,
)
from caim.memory.text.lang import Language, detect, tabled

warnings.filterwarnings("ignore", module="dateparser")


class TimeSpan(TypedDict):
    """A resolved time range as graph state and traces carry it (ISO timestamps)."""

    expression: str
    start: str
    end: str


@dataclass(frozen=True)
class TimeRange:
    """A time expression and the range it resolved to (aware datetimes, both ends inclusive)."""

    expression: str
    start: datetime
    end: datetime

    def span(self) -> TimeSpan:
        """The range as graph state carries it (ISO timestamps)."""
        return {"expression": self.expression, "start": self.start.isoformat(), "end": self.end.isoformat()}

    @classmethod
    def of(cls, span: TimeSpan) -> TimeRange:
        """The range a ``TimeSpan`` carries."""
        return cls(span["expression"], datetime.fromisoformat(span["start"]), datetime.fromisoformat(span["end"]))


def _day(d: datetime) -> tuple[datetime, datetime]:
    start = datetime.combine(d.date(), time.min, tzinfo=d.tzinfo)
    return start, start + timedelta(days=1) - timedelta(microseconds=1)


def _span(base: datetime, days_back_from: int, days_back_to: int) -> tuple[datetime, datetime]:
    """Whole days from ``base - days_back_from`` to ``base - days_back_to`` inclusive."""
    return _day(base - timedelta(days=days_back_from))[0], _day(base - timedelta(days=days_back_to))[1]


def _whole_month(year: int, month: int, tz: tzinfo | None) -> tuple[datetime, datetime]:
    first, last = month_days(year, month, tz)
    return _day(first)[0], _day(last)[1]


def _count(word: str) -> int | None:
    word = word.strip().lower()
    if word.isdigit():
        return int(word)
    return COUNTS.get(word)


def _rules(text: str, base: datetime) -> tuple[datetime, datetime] | None:
    t = re.sub(r"\s+", " ", text.lower()).strip(" .?!,")
    t = re.sub(r"^(on|in|during|at|from|since|of)\s+", "", t)
    if t in ("today", "this morning", "tonight", "this evening", "this afternoon", "now"):
        return _day(base)
    if t in ("yesterday", "last night", "yesterday evening", "yesterday morning"):
        return _day(base - timedelta(days=1))
    if t == "the day before yesterday":
        return _day(base - timedelta(days=2))
    if t in (
        "recently",
        "lately",
        "the other day",
        "a few days ago",
        "few days ago",
        "some days ago",
        "a couple of days ago",
        "earlier this week",
        "the past few days",
        "the last few days",
    ):
        return _span(base, 7, 1)
    if t in ("last week", "past week", "the last week", "the past week", "a week ago", "one week ago"):
        return _span(base, 10, 4) if t in ("a week ago", "one week ago") else _span(base, 7, 0)
    if t in ("this week",):
        return _span(base, base.weekday(), 0)
    if t in ("this month",):
        return _whole_month(base.year, base.month, base.tzinfo)[0], _day(base)[1]
    if t in ("last month", "past month", "a month ago"):
        y, m = (base.year - 1, 12) if base.month == 1 else (base.year, base.month - 1)
        return _whole_month(y, m, base.tzinfo)
    if t in ("this year",):
        return datetime(base.year, 1, 1, tzinfo=base.tzinfo), _day(base)[1]
    if t in ("last year",):
        return datetime(base.year - 1, 1, 1, tzinfo=base.tzinfo), datetime(
            base.year, 1, 1, tzinfo=base.tzinfo
        ) - timedelta(microseconds=1)
    ago = AGO.fullmatch(t)
    if ago:
        n = _count(ago.group(1)) or 1
        unit = {"day": 1, "week": 7, "month": 30}[ago.group(2)]
        if unit == 1:
            return _day(base - timedelta(days=n))
        return _span(base, n * unit + unit // 2, max(n * unit - unit // 2, 0))
    day = re.fullmatch(r"(?:last |past )?(\w+)", t)
    if day and day.group(1) in WEEKDAYS:
        back = (base.weekday() - WEEKDAYS.index(day.group(1))) % 7 or 7
        return _day(base - timedelta(days=back))
    return None


def _dateparser(text: str, base: datetime, language: str = "en") -> tuple[datetime, datetime] | None:
    from dateparser.date import DateDataParser

    naive_base = as_aware(base).replace(tzinfo=None)
    parser = DateDataParser(
        languages=[language],
        settings={"RELATIVE_BASE": naive_base, "PREFER_DATES_FROM": "past", "RETURN_TIME_AS_PERIOD": True},
    )
    cleaned = re.sub(r"^(on|in|during|at|since)\s+", "", text.strip().lower())
    cleaned = ORDINAL.sub(r"\1", cleaned)
    data = parser.get_date_data(cleaned)
    if not data or not data.date_obj:
        return None
    d = data.date_obj.replace(tzinfo=base.tzinfo)
    if d > base + timedelta(days=1):  # a date "in the future" of the turn means last year's
        try:
            d = d.replace(year=d.year - 1)
        except ValueError:
            return None
    period = data.period or "day"
    if period == "month":
        return _whole_month(d.year, d.month, base.tzinfo)
    if period == "year":
        return datetime(d.year, 1, 1, tzinfo=base.tzinfo), datetime(d.year + 1, 1, 1, tzinfo=base.tzinfo) - timedelta(
            microseconds=1
        )
    if period == "week":
        return _span(d, 0, -6)
    return _day(d)


def resolve(expression: str, base: datetime) -> TimeRange | None:
    """A range for one expression relative to the turn's time.

    Args:
        expression: One time phrase ("last week", "on May 4th"), at most 80 characters.
        base: When the turn was said (naive: UTC).

    Returns:
        The phrase with its range, or ``None`` when neither the rules nor dateparser resolve it.

    >>> from datetime import UTC, datetime
    >>> r = resolve("last week", datetime(2023, 5, 8, 12, tzinfo=UTC))
    >>> r.start.date().isoformat(), r.end.date().isoformat()
    ('2023-05-01', '2023-05-08')
    >>> resolve("whenever", datetime(2023, 5, 8, tzinfo=UTC)) is None
    True
    >>> r = resolve("la semaine dernière", datetime(2023, 5, 8, 12, tzinfo=UTC))
    >>> r.start.date().isoformat(), r.end.date().isoformat()
    ('2023-05-01', '2023-05-08')
    """
    if not expression or not expression.strip() or len(expression) > 80:
        return None
    base = as_aware(base)
    language = detect(expression)
    if language.signals is not None:
        found = _foreign(expression.strip(), base, language)
        return TimeRange(expression.strip(), *found) if found else None
    span = _rules(expression, base)
    if span is None:
        try:
            span = _dateparser(expression, base)
        except Exception:  # dateparser raises assorted errors on odd input
            span = None
    if span is None:  # a short phrase of another language may read as English ("fin juin")
        span = _from_tables(expression.strip(), base, [other for other in tabled()[1:] if not other.unspaced])
    return TimeRange(expression.strip(), *span) if span else None


def _foreign(expression: str, base: datetime, language: Language) -> tuple[datetime, datetime] | None:
    """The range of a phrase in another language: from the tables (its own language's, then those of
    the others written the same way: "先週" alone looks Chinese, "hier" German), else what
    dateparser reads in the phrase's language."""
    alike = [other for other in tabled()[1:] if other.unspaced == language.unspaced and other is not language]
    return _from_tables(expression, base, [language, *alike]) or _parsed(expression, base, language.code)


def _from_tables(expression: str, base: datetime, languages: list[Language]) -> tuple[datetime, datetime] | None:
    """The range of a phrase's first ``Mention`` in the first of ``languages`` whose tables find one:
    as the English phrase it stands for, or as the date it writes."""
    found = next((f for other in languages if (f := mentions(expression, other))), [])
    if found and found[0].english:
        english = found[0].english
        return _rules(english, base) or _parsed(english, base, "en")
    return _written(found[0], base) if found else None


def _written(m: Mention, base: datetime) -> tuple[datetime, datetime] | None:
    """A written date's range: a day (without a year: its latest occurrence by the day after
    ``base``, as dateparser's are read), a month of a year, a year, a month named alone."""
    tz = base.tzinfo
    try:
        if m.day and m.month:
            d = datetime(m.year or base.year, m.month, m.day, tzinfo=tz)
            if not m.year and d > base + timedelta(days=1):
                d = d.replace(year=d.year - 1)
            return _day(d)
        if m.month and (m.year or m.bare):
            year = m.year or (base.year if m.month <= base.month else base.year - 1)
            return _whole_month(year, m.month, tz)
        if m.year:
            return _whole_month(m.year, 1, tz)[0], _whole_month(m.year, 12, tz)[1]
    except ValueError:  # no such day
        return None
    return None


@lru_cache(maxsize=1024)
def _parsed(expression: str, base: datetime, language: str) -> tuple[datetime, datetime] | None:
    """``_dateparser`` in one language, remembered per phrase and turn time; never an error."""
    try:
        return _dateparser(expression, base, language)
    except Exception:  # dateparser raises assorted errors on odd input
        return None


def find_expressions(text: str) -> list[str]:
    """Code-only detection of common time phrases (used to cross-check and as the LLM fallback).

    Args:
        text: A message.

    Returns:
        Each phrase of the ``FINDABLE`` grammar once, as written, in order.

    >>> find_expressions("We met yesterday and again last week")
    ['yesterday', 'last week']
    >>> find_expressions("Wir haben uns gestern getroffen, und am 3. März.")
    ['gestern', '3. März']
    """
    language = detect(text)
    if language.signals is not None:
        return list(dict.fromkeys(m.text for m in mentions(text, language) if _findable(m)))
    return list(dict.fromkeys(m.group(0) for m in FINDABLE.finditer(text)))


def _findable(m: Mention) -> bool:
    """A mention of another language that ``find_expressions`` reports: one standing for a phrase of
    the ``FINDABLE`` grammar, or a written date with its day."""
    return bool(FINDABLE.search(m.english)) if m.english else bool(m.day and m.month)


# ---- what a remembered phrase meant on the day it was said ------------------------------------------
def long_date(d: datetime) -> str:
    """How a date is shown to the model and the user.

    Args:
        d: The date.

    Returns:
        Day, English month name and year: ``8 May 2023``.

    >>> from datetime import datetime
    >>> long_date(datetime(2023, 5, 8, 13))
    '8 May 2023'
    """
    return f"{d.day} {MONTHS[d.month - 1].title()} {d.year}"


def _month_and_year(year: int, month: int) -> str:
    return f"{MONTHS[month - 1].title()} {year}"


def _add_months(base: datetime, n: int) -> tuple[int, int]:
    k = base.year * 12 + base.month - 1 + n
    return k // 12, k % 12 + 1


def meaning(expression: str, said_at: datetime) -> str | None:
    """The date a relative time phrase meant on the day it was said, in plain words.

    Args:
        expression: A ``RELATIVE`` phrase ("yesterday", "next month", "a few weeks ago").
        said_at: When it was said (naive: UTC).

    Returns:
        A date, a week, a month or a year in words; ``None`` for a phrase this does not know.

    >>> from datetime import UTC, datetime
    >>> said = datetime(2023, 5, 25, 13, tzinfo=UTC)  # a Thursday
    >>> [meaning(e, said) for e in ("yesterday", "last Sunday", "last week", "next month", "4 years ago")]
    ['24 May 2023', '21 May 2023', 'the week before 25 May 2023', 'June 2023', '2019']
    """
    t = " ".join(expression.lower().split())
    base = as_aware(said_at)
    day = {
        "today": 0,
        "tonight": 0,
        "this morning": 0,
        "yesterday": -1,
        "last night": -1,
        "the day before yesterday": -2,
        "tomorrow": 1,
    }
    if t in day:
        return long_date(base + timedelta(days=day[t]))
    words = t.split()
    if len(words) == 2 and words[1] in WEEKDAYS:
        target = WEEKDAYS.index(words[1])
        if words[0] == "next":
            return long_date(base + timedelta(days=(target - base.weekday()) % 7 or 7))
        if words[0] == "last":
            return long_date(base - timedelta(days=(base.weekday() - target) % 7 or 7))
        return long_date(base + timedelta(days=target - base.weekday()))  # "this friday": this week's
    if len(words) == 2 and words[1] in ("week", "weekend"):
        rel = {"last": "before", "past": "before", "this": "of", "next": "after"}[words[0]]
        return f"the {words[1]} {rel} {long_date(base)}"
    if len(words) == 2 and words[1] == "month":
        return _month_and_year(*_add_months(base, {"last": -1, "past": -1, "this": 0, "next": 1}[words[0]]))
    if len(words) == 2 and words[1] == "year":
        return str(base.year + {"last": -1, "past": -1, "this": 0, "next": 1}[words[0]])
    m = SPAN.fullmatch(t)
    if m and bool(m.group(1)) != bool(m.group(4)):
        sign = 1 if m.group(1) else -1
        unit = m.group(3)
        if m.group(2) in ("a few", "few", "a couple of", "couple of", "several"):  # vague: keep the words
            return f"{m.group(2)} {unit}s {'after' if sign > 0 else 'before'} {long_date(base)}"
        n = _count(m.group(2))
        if n is None:
            return None
        if unit == "day":
            return long_date(base + timedelta(days=sign * n))
        if unit == "week":
            return f"about {long_date(base + timedelta(days=sign * 7 * n))}"
        if unit == "month":
            return _month_and_year(*_add_months(base, sign * n))
        return str(base.year + sign * n)
    return None


def with_dates(text: str, said_at: datetime) -> str:
    """A text with each relative time phrase followed by the date it meant when it was said, so that
    a memory read months later still says when things happened.

    Args:
        text: What was said.
        said_at: When it was said (naive: UTC).

    Returns:
        ``text`` with `` [<meaning>]`` after each ``RELATIVE`` phrase whose ``meaning`` is known.

    >>> from datetime import UTC, datetime
    >>> with_dates("I went to a support group yesterday.", datetime(2023, 5, 8, 13, tzinfo=UTC))
    'I went to a support group yesterday [7 May 2023].'
    >>> with_dates("我昨天去了支持小组。", datetime(2023, 5, 8, 13, tzinfo=UTC))
    '我昨天 [7 May 2023]去了支持小组。'
    """
    language = detect(text)
    if language.signals is not None:
        found = [(m.start + len(m.text), m.english) for m in mentions(text, language) if m.english]
    else:
        found = [(m.end(), m.group(0)) for m in RELATIVE.finditer(text)]
    out: list[str] = []
    at = 0
    for end, phrase in found:
        said = meaning(phrase, said_at) if RELATIVE.fullmatch(phrase) or language.signals is None else None
        if said is None:
            continue
        out.append(text[at:end] + f" [{said}]")
        at = end
    return "".join(out) + text[at:]
