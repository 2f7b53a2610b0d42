"""Time expressions resolve to date ranges relative to the turn's timestamp."""

from datetime import UTC, datetime

import pytest

from caim.memory.timeref import find_expressions, resolve

BASE = datetime(2023, 5, 7, 15, 30, tzinfo=UTC)  # a Sunday


@pytest.mark.parametrize(
    "expr,start,end",
    [
        ("yesterday", "2023-05-06", "2023-05-06"),
        ("today", "2023-05-07", "2023-05-07"),
        ("on May 4th", "2023-05-04", "2023-05-04"),
        ("April 27th", "2023-04-27", "2023-04-27"),
        ("last week", "2023-04-30", "2023-05-07"),
        ("3 days ago", "2023-05-04", "2023-05-04"),
        ("a few days ago", "2023-04-30", "2023-05-06"),
        ("last Tuesday", "2023-05-02", "2023-05-02"),
        ("2023-05-02", "2023-05-02", "2023-05-02"),
        ("in April", "2023-04-01", "2023-04-30"),
    ],
)
def test_resolves_relative_to_turn_time(expr, start, end):
    r = resolve(expr, BASE)
    assert r is not None, expr
    assert r.start.date().isoformat() == start
    assert r.end.date().isoformat() == end
    assert r.start <= r.end


def test_future_date_means_last_year():
    r = resolve("December 25th", BASE)
    assert r.start.date().isoformat() == "2022-12-25"


@pytest.mark.parametrize("expr", ["", "   ", "pizza", "x" * 200])
def test_unresolvable_gives_none(expr):
    assert resolve(expr, BASE) is None


def test_code_detection_finds_common_phrases():
    found = find_expressions("What did I do yesterday and on May 4th? Also 2 days ago.")
    assert "yesterday" in found and "on May 4th" in found and "2 days ago" in found
