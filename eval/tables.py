"""Markdown tables: the one way reports, benchmarks and ``caim models probe`` write them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

Align = Literal["left", "right", "center"] | None

_RULES = {None: "---", "left": ":---", "right": "---:", "center": ":---:"}


def markdown_table(
    headers: Sequence[object], rows: Iterable[Sequence[object]], align: Sequence[Align] | None = None
) -> list[str]:
    """The lines of a Markdown table: the header, the rule under it, then one line per row.

    Each cell is written as ``str(cell)`` with one space either side (an empty cell is two spaces);
    cells are not escaped, so a cell must not hold ``|`` or a newline.

    Args:
        headers: The column titles.
        rows: The rows, each with one cell per column.
        align: Per column ``"left"``, ``"right"``, ``"center"`` or ``None`` (the renderer's default);
            ``None`` for every column when not given.

    Returns:
        The table's lines, without line ends.

    Raises:
        ValueError: When ``align`` does not name one alignment per column.

    >>> markdown_table(["a", "b"], [[1, 2]], align=[None, "right"])
    ['| a | b |', '|---|---:|', '| 1 | 2 |']
    """
    if align is not None and len(align) != len(headers):
        raise ValueError(f"{len(align)} alignments for {len(headers)} columns")
    rules = [_RULES[a] for a in align] if align is not None else ["---"] * len(headers)
    return [_line(headers), "|" + "|".join(rules) + "|", *(_line(row) for row in rows)]


def _line(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"
