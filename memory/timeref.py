"""Resolve time expressions ("yesterday", "on May 4th", "last week") to date ranges.

The LLM only *finds* time expressions in the user's text; this module turns each one into a
``(start, end)`` range relative to the turn's timestamp, in plain code. Explicit dates go through
dateparser (with the turn time as its relative base, preferring the past); vague phrases such as
"a few days ago" or "recently" map to forgiving windows. Unresolvable phrases give ``None``.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from typing_extensions import TypedDict

from caim.memory.records import as_aware

warnings.filterwarnings("ignore", module="dateparser")

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
    "several": 4,
}


class TimeSpan(TypedDict):
    """A resolved time range as graph state and traces carry it (ISO timestamps)."""

    expression: str
    start: str
    end: str


@dataclass(frozen=True)
class TimeRange:
    expression: str
    start: datetime
    end: datetime

    def span(self) -> TimeSpan:
        return {"expression": self.expression, "start": self.start.isoformat(), "end": self.end.isoformat()}

    @classmethod
    def of(cls, span: TimeSpan) -> TimeRange:
        return cls(span["expression"], datetime.fromisoformat(span["start"]), datetime.fromisoformat(span["end"]))


def _day(d: datetime) -> tuple[datetime, datetime]:
    start = datetime.combine(d.date(), time.min, tzinfo=d.tzinfo)
    return start, start + timedelta(days=1) - timedelta(microseconds=1)


def _span(base: datetime, days_back_from: int, days_back_to: int) -> tuple[datetime, datetime]:
    """Whole days from ``base - days_back_from`` to ``base - days_back_to`` inclusive."""
    return _day(base - timedelta(days=days_back_from))[0], _day(base - timedelta(days=days_back_to))[1]


def _month(year: int, month: int, tz) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=tz)
    nxt = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=tz)
    return start, nxt - timedelta(microseconds=1)


def _count(word: str) -> int | None:
    word = word.strip().lower()
    if word.isdigit():
        return int(word)
    return _NUMBERS.get(word)


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
        return _month(base.year, base.month, base.tzinfo)[0], _day(base)[1]
    if t in ("last month", "past month", "a month ago"):
        y, m = (base.year - 1, 12) if base.month == 1 else (base.year, base.month - 1)
        return _month(y, m, base.tzinfo)
    if t in ("this year",):
        return datetime(base.year, 1, 1, tzinfo=base.tzinfo), _day(base)[1]
    if t in ("last year",):
        return datetime(base.year - 1, 1, 1, tzinfo=base.tzinfo), datetime(
            base.year, 1, 1, tzinfo=base.tzinfo
        ) - timedelta(microseconds=1)
    ago = re.fullmatch(
        r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few|several) (day|week|month)s? ago", t
    )
    if ago:
        n = _count(ago.group(1)) or 1
        unit = {"day": 1, "week": 7, "month": 30}[ago.group(2)]
        if unit == 1:
            return _day(base - timedelta(days=n))
        return _span(base, n * unit + unit // 2, max(n * unit - unit // 2, 0))
    day = re.fullmatch(r"(?:last |past )?(\w+)", t)
    if day and day.group(1) in _WEEKDAYS:
        back = (base.weekday() - _WEEKDAYS.index(day.group(1))) % 7 or 7
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
    cleaned = re.sub(r"(\d+)(st|nd|rd|th)\b", r"\1", cleaned)
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
        return _month(d.year, d.month, base.tzinfo)
    if period == "year":
        return datetime(d.year, 1, 1, tzinfo=base.tzinfo), datetime(d.year + 1, 1, 1, tzinfo=base.tzinfo) - timedelta(
            microseconds=1
        )
    if period == "week":
        return _span(d, 0, -6)
    return _day(d)


def resolve(expression: str, base: datetime) -> TimeRange | None:
    """A range for one expression relative to ``base`` (the turn's time), or None.

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


_CANDIDATE = re.compile(
    r"\b(?:today|tonight|yesterday|recently|lately|the other day|last (?:week|month|year|night|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|this (?:week|month|year|morning)|"
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|couple of|few|several) (?:days?|weeks?|months?) ago|"
    r"(?:on |in )?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.? \d{1,2}(?:st|nd|rd|th)?|"
    r"\d{4}-\d{2}-\d{2}|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.IGNORECASE,
)


def find_expressions(text: str) -> list[str]:
    """Code-only detection of common time phrases (used to cross-check and as the LLM fallback).

    >>> find_expressions("We met yesterday and again last week")
    ['yesterday', 'last week']
    """
    return list(dict.fromkeys(m.group(0) for m in _CANDIDATE.finditer(text)))
