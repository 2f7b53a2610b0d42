"""The memory browser's charts as plain geometry: bars a template draws as inline SVG (no script, no library).

``weekly`` gives one bar per week over the user's own span (first to newest memory, at most the last
``WEEKS`` weeks, empty weeks included); ``categories`` one horizontal bar per top-level ontology
category, largest first. Each bar carries its label and value, for its SVG ``<title>`` and the data
table beside the chart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

#: Most weeks the weekly chart spans (the newest).
WEEKS = 52
#: The weekly chart's narrowest division: a bar takes at most this fraction of its width.
MIN_SLOTS = 12


@dataclass(frozen=True)
class Bar:
    """One bar: its label and value, and where it is drawn (SVG user units)."""

    label: str
    value: int
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Chart:
    """A bar chart: its title, size, bars and a one-line description (the SVG's ``<desc>``)."""

    title: str
    width: int
    height: int
    description: str
    bars: list[Bar] = field(default_factory=list)
    ticks: list[tuple[float, str]] = field(default_factory=list)


def _day(d: date) -> str:
    return f"{d.day} {d.strftime('%b %Y')}"


def weekly(per_week: Sequence[tuple[date, int]], weeks: int = WEEKS, width: int = 640, height: int = 160) -> Chart:
    """Memories per week, over the user's own span: from the week of their first memory to the week of
    their newest (at most the last ``weeks`` weeks), empty weeks included. A bar is never wider than
    a ``MIN_SLOTS``-th of the chart, so a few weeks do not make a few wide blocks.

    Args:
        per_week: (Monday of the week, memories) of the weeks with memories, any order.
        weeks: Most weeks to show (the newest).
        width: The chart's width.
        height: The chart's height (the bars' area; labels go below).

    Returns:
        The chart (no bars when there are no memories).
    """
    counts = dict(per_week)
    if not counts:
        return Chart("Memories per week", width, height, "No memories yet.")
    first, last = min(counts), max(counts)
    shown_weeks = min((last - first).days // 7 + 1, weeks)
    days = [last - timedelta(weeks=shown_weeks - 1 - i) for i in range(shown_weeks)]
    top = max(counts.get(d, 0) for d in days) or 1
    step = width / max(shown_weeks, MIN_SLOTS)
    bars = []
    for i, d in enumerate(days):
        n = counts.get(d, 0)
        h = (height - 4) * n / top
        bars.append(Bar(f"week of {_day(d)}", n, i * step + 1, height - h, max(step - 2, 1), h))
    shown = sum(b.value for b in bars)
    older = sum(counts.values()) - shown
    if shown_weeks == 1:
        ticks = [(0.0, f"week of {_day(days[0])}")]
        description = f"{shown} memories, all in the week of {_day(days[0])}."
    else:
        span = shown_weeks * step  # a short span has one label, that two would overlap
        ends = [(0.0, _day(days[0])), (span, _day(days[-1]))]
        ticks = ends if span >= width / 2 else [(0.0, f"{_day(days[0])} to {_day(days[-1])}")]
        description = (
            f"{shown} memories in the {shown_weeks} weeks from {_day(days[0])} to {_day(days[-1])}; "
            f"at most {top} in a week."
        )
    if older:
        description += f" {older} older memories are not shown."
    return Chart("Memories per week", width, height, description, bars, ticks)


def categories(per_category: Mapping[str, int], width: int = 640, row: int = 22) -> Chart:
    """Memories per top-level category, largest first (a record counts once in each of its categories).

    Args:
        per_category: Category -> memories.
        width: The chart's width (labels take the left quarter).
        row: Height of one bar's row.

    Returns:
        The chart (no bars when no memory has a category).
    """
    items = sorted(((k, v) for k, v in per_category.items() if v > 0), key=lambda kv: (-kv[1], kv[0]))
    if not items:
        return Chart("Memories per category", width, row, "No memories yet.")
    top = items[0][1]
    left = width // 4
    span = width - left - 40
    bars = [Bar(name, n, left, i * row + 3, max(span * n / top, 1), row - 6) for i, (name, n) in enumerate(items)]
    description = ", ".join(f"{name}: {n}" for name, n in items)
    return Chart("Memories per category", width, row * len(items), description, bars)
