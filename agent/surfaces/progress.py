"""The terminal's progress line for a long ingestion (``caim memories import``, ``import-chat``,
``reembed``): what is done of how much, the rate, and the time left.

>>> from rich.console import Console
>>> with ingest_progress(Console(quiet=True), "importing", 10, "records") as shown:
...     shown(4, 10)
...     shown(10, 10)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class Shown(Protocol):
    """``shown(done, total)``: how much is done, and of how much (``None``: as before); ``what``: the
    stage now done, when it changes (its count and rate start again)."""

    def __call__(self, done: int, of: int | None, what: str | None = None) -> None: ...  # noqa: D102


class RateColumn(ProgressColumn):
    """How many ``unit`` a second, over the last half minute (rich's own estimate)."""

    def __init__(self, unit: str):
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        """The rate, or a dash before there is one."""
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f} {self.unit}/s" if speed else f"- {self.unit}/s", style="progress.data.speed")


@contextmanager
def ingest_progress(console: Console, what: str, total: int | None, unit: str) -> Iterator[Shown]:
    """A progress line on ``console`` while the block runs; the block reports through the callable it gets.
    A block that raises leaves no line behind (its error is the one line shown).

    Args:
        console: Where to draw (nothing is drawn where it is not a terminal).
        what: What is being done ("importing").
        total: How much there is to do (``None``: not known yet).
        unit: What is counted ("records", "messages").

    Returns:
        A context manager giving ``shown(done, total)``.
    """
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        RateColumn(unit),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console) as bar:
        task = bar.add_task(what, total=total)

        def shown(done: int, of: int | None, what: str | None = None) -> None:
            if what is not None and what != bar.tasks[0].description:
                bar.reset(task, description=what)
            if of is not None:
                bar.update(task, total=of)
            bar.update(task, completed=done)

        try:
            yield shown
        except BaseException:
            bar.update(task, visible=False)  # a refusal is its own line, with no progress line before it
            raise
