"""Grounding: what an answer asserts that its sources must hold.

``specifics`` lists the checkable claims of a text - dates (day and month together, whichever way
written), years, weekdays, other numbers, names - in one normal form (lowercase, "18 october"), so
that ``unsupported`` can compare an answer's with its context's: a claim counts as supported only
when the context holds it in the same form, or as a word (a number word supports its digits).
``states_a_date`` tells whether a text gives a time at all. ``DIGITS`` finds the digit runs ("5:30",
"12/05") that two texts stating the same details must share.
"""

from __future__ import annotations

import re

from caim.memory.text.dates import (
    BARE_MONTH,
    DAY_MONTH,
    MONTH_DAY,
    MONTHS,
    WEEKDAY,
    WEEKDAYS,
    YEAR,
    has_time_expression,
    month_name,
)
from caim.memory.text.names import names
from caim.memory.text.tokens import NUMBER_WORDS

#: A number as a claim states it ("5", "3.5", "1,000"): digits with one decimal or thousands part.
NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
#: A run of digits with its separators ("5:30", "12/05", "1.2.3"): details two texts must share.
DIGITS = re.compile(r"\d+(?:[.,:/]\d+)*")


def specifics(text: str) -> list[str]:
    """What a text asserts that can be checked against its sources.

    Args:
        text: An answer, a memory, or the context given.

    Returns:
        Lowercase, each once: dates (``"18 october"``, whichever way written), years, weekdays,
        other numbers, and names (capitalised words inside a sentence, months and weekdays aside).

    >>> specifics("On October 18th, Caroline met Anna at 5 in 2024.")
    ['18 october', '2024', '5', 'caroline', 'anna']
    """
    days = [f"{int(d)} {month_name(m)}" for d, m in DAY_MONTH.findall(text)]
    days += [f"{int(d)} {month_name(m)}" for m, d in MONTH_DAY.findall(text)]
    rest = MONTH_DAY.sub(" ", DAY_MONTH.sub(" ", text))
    years = YEAR.findall(rest)
    numbers = NUMBER.findall(YEAR.sub(" ", rest))
    weekdays = [w.lower() for w in WEEKDAY.findall(rest)]
    named = [n.lower() for n in names(text) if n.lower() not in MONTHS and n.lower() not in WEEKDAYS]
    return list(dict.fromkeys([*days, *years, *weekdays, *numbers, *named]))


def unsupported(answer: str, context: str) -> list[str]:
    """The specifics of an answer that its context does not hold: a date, number or name made up.

    A date counts only as a whole (day and month together), so scattered numbers in the context do
    not support it; a number word in the context supports its digits.

    Args:
        answer: What was said (a model's answer, a rewrite).
        context: What it was given (the prompt, the original words).

    Returns:
        The answer's ``specifics`` missing from the context, in the answer's order.

    >>> ctx = 'Today is Monday, October 23, 2023. "I went yesterday [7 May 2023]." (8 May 2023)'
    >>> unsupported("She went on October 17th, 2024, at 8.", ctx)
    ['17 october', '2024']
    >>> unsupported("She went on 7 May 2023.", ctx), unsupported("On May 7th.", ctx)
    ([], [])
    >>> unsupported("Has 3 kids.", "I have three kids."), unsupported("Has 4 kids.", "I have three kids.")
    ([], ['4'])
    """
    words = {w.lower() for w in set(re.findall(r"\w+", context))}
    held = words | {NUMBER_WORDS[w] for w in words if w in NUMBER_WORDS}
    claimed = [s for s in specifics(answer) if s not in held]
    if claimed:  # the context's own specifics (its whole dates) only when its words leave some unheld
        held |= set(specifics(context))
    return [s for s in claimed if s not in held]


def states_a_date(text: str) -> bool:
    """Does the text give a date or a time?

    Args:
        text: Any text.

    Returns:
        True for a date, a year, a month, a weekday, or a relative phrase ("last week").

    >>> states_a_date("We met in July."), states_a_date("We met.")
    (True, False)
    """
    return bool(
        DAY_MONTH.search(text)
        or MONTH_DAY.search(text)
        or YEAR.search(text)
        or WEEKDAY.search(text)
        or BARE_MONTH.search(text)
        or has_time_expression(text)
    )
