"""Time expressions resolve to date ranges relative to the turn's timestamp."""

from datetime import UTC, datetime

import pytest

from caim.memory.text.timeref import find_expressions, resolve

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


SAID = datetime(2023, 5, 25, 13, 0, tzinfo=UTC)  # a Thursday


@pytest.mark.parametrize(
    "expr,meant",
    [
        ("yesterday", "24 May 2023"),
        ("tomorrow", "26 May 2023"),
        ("last Sunday", "21 May 2023"),
        ("next Monday", "29 May 2023"),
        ("last week", "the week before 25 May 2023"),
        ("next weekend", "the weekend after 25 May 2023"),
        ("last month", "April 2023"),
        ("next month", "June 2023"),
        ("last year", "2022"),
        ("3 days ago", "22 May 2023"),
        ("two weeks ago", "about 11 May 2023"),
        ("4 years ago", "2019"),
        ("in 2 months", "July 2023"),
        ("a few days ago", "a few days before 25 May 2023"),
    ],
)
def test_a_remembered_phrase_means_a_date_relative_to_when_it_was_said(expr, meant):
    from caim.memory.text.timeref import meaning

    assert meaning(expr, SAID) == meant


def test_month_arithmetic_crosses_years():
    from caim.memory.text.timeref import meaning

    assert meaning("next month", datetime(2023, 12, 5, tzinfo=UTC)) == "January 2024"
    assert meaning("last month", datetime(2024, 1, 5, tzinfo=UTC)) == "December 2023"


def test_with_dates_marks_every_relative_phrase_and_leaves_the_rest():
    from caim.memory.text.timeref import with_dates

    text = "Last Sunday I ran a charity race; next month we go camping. Pizza is great."
    assert with_dates(text, SAID) == (
        "Last Sunday [21 May 2023] I ran a charity race; next month [June 2023] we go camping. Pizza is great."
    )
    assert with_dates("Nothing dated here, whenever.", SAID) == "Nothing dated here, whenever."


def test_answer_prompt_shows_what_a_memory_s_time_phrase_meant():
    from caim.prompts.respond import final_message

    memory = {
        "id": "a",
        "thought": "Caroline went to an LGBTQ support group yesterday.",
        "tags": [],
        "event_time": "2023-05-08T13:56:00+00:00",
    }
    prompt = str(final_message("When did Caroline go?", "Monday", [memory], "", True).content)
    assert "(8 May 2023)" in prompt
    assert "yesterday [7 May 2023]" in prompt
