"""Resolve time expressions ("yesterday", "on May 4th", "last week") to date ranges.

The LLM only *finds* time expressions in the user's text; this module turns each one into a
``(start, end)`` range relative to the turn's timestamp, in plain code. Explicit dates go through
dateparser (with the turn time as its relative base, preferring the past); vague phrases such as
"a few days ago" or "recently" map to forgiving windows. Unresolvable phrases give ``None``.
Which phrases are found (``find_expressions``) and annotated (``with_dates``) is the grammar of
``caim.memory.text.dates``; this module only resolves them.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo

from typing_extensions import TypedDict

from caim.memory.records import as_aware
from caim.memory.text.dates import AGO, COUNTS, FINDABLE, MONTHS, ORDINAL, RELATIVE, SPAN, WEEKDAYS, month_days

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


def _dateparser(text: str, base: datetime) -> tuple[datetime, datetime] | None:
    from dateparser.date import DateDataParser

    naive_base = as_aware(base).replace(tzinfo=None)
    parser = DateDataParser(
        languages=["en"],
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
    """
    if not expression or not expression.strip() or len(expression) > 80:
        return None
    base = as_aware(base)
    span = _rules(expression, base)
    if span is None:
        try:
            span = _dateparser(expression, base)
        except Exception:  # dateparser raises assorted errors on odd input
            span = None
    return TimeRange(expression.strip(), *span) if span else None


def find_expressions(text: str) -> list[str]:
    """Code-only detection of common time phrases (used to cross-check and as the LLM fallback).

    Args:
        text: A message.

    Returns:
        Each phrase of the ``FINDABLE`` grammar once, as written, in order.

    >>> find_expressions("We met yesterday and again last week")
    ['yesterday', 'last week']
    """
    return list(dict.fromkeys(m.group(0) for m in FINDABLE.finditer(text)))


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
    """
    out: list[str] = []
    at = 0
    for m in RELATIVE.finditer(text):
        said = meaning(m.group(0), said_at)
        if said is None:
            continue
        out.append(text[at : m.end()] + f" [{said}]")
        at = m.end()
    return "".join(out) + text[at:]
