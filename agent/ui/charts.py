"""The memory browser's charts as plain geometry: bars a template draws as inline SVG (no script, no library).

``weekly`` gives one bar per week (the last ``WEEKS`` weeks up to the newest memory, empty weeks
included); ``categories`` one horizontal bar per top-level ontology category, largest first. Each bar
carries its label and value, for its SVG ``<title>`` and the data table beside the chart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

#: Weeks the weekly chart spans.
WEEKS = 52


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
    """Memories per week: the ``weeks`` weeks up to the newest week with memories.

    Args:
        per_week: (Monday of the week, memories) of the weeks with memories, any order.
        weeks: How many weeks to show.
        width: The chart's width.
        height: The chart's height (the bars' area; labels go below).

    Returns:
        The chart (no bars when there are no memories).
    """
    counts = dict(per_week)
    if not counts:
        return Chart("Memories per week", width, height, "No memories yet.")
    last = max(counts)
    days = [last - timedelta(weeks=weeks - 1 - i) for i in range(weeks)]
    top = max(counts.get(d, 0) for d in days) or 1
    step = width / weeks
    bars = []
    for i, d in enumerate(days):
        n = counts.get(d, 0)
        h = (height - 4) * n / top
        bars.append(Bar(f"week of {_day(d)}", n, i * step + 1, height - h, max(step - 2, 1), h))
    shown = sum(b.value for b in bars)
    ticks = [(0.0, _day(days[0])), (float(width), _day(days[-1]))]
    description = (
        f"{shown} memories in the {weeks} weeks from {_day(days[0])} to {_day(days[-1])}; at most {top} in a week."
    )
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
