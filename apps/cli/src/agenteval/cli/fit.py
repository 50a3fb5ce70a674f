"""Tables that fit the terminal: what a later command needs is never cut or split.

Each column says what it holds: ``key`` cells (ids, names, versions a later command takes)
keep their whole width and never wrap; ``text`` cells wrap at word boundaries; a column
with a ``drop`` rank goes, lowest rank first, when the table would not fit the width
otherwise. Columns whose every cell is empty take no room.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

PAD = 3
MIN_TEXT = 12
"""Narrowest a wrapping text column may become."""
"""Room each column takes beyond its cells: padding on both sides and the space between columns."""


@dataclass(frozen=True)
class Col:
    header: str
    kind: str = "text"  # "key" | "text"
    drop: int | None = None
    """Dropped (lowest first) when the table is too wide; None: always shown."""
    justify: str = "left"


def _natural(col: Col, cells: Sequence[str]) -> int:
    widest = max((Text.from_markup(c).cell_len for c in cells), default=0)
    header = max((len(w) for w in col.header.split()), default=0) if col.kind == "text" else len(col.header)
    return max(widest, header, 1)


def _layout(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int) -> tuple[list[int], bool]:
    """The columns kept, and whether their key columns fit ``width`` whole."""
    keep = [i for i, _ in enumerate(cols) if any(r[i] for r in rows) or not rows]
    natural = {i: _natural(cols[i], [r[i] for r in rows]) for i in keep}

    def least(ids: list[int]) -> int:  # key cells whole, text cells at least MIN_TEXT wide
        return sum((natural[i] if cols[i].kind == "key" else min(natural[i], MIN_TEXT)) + PAD for i in ids)

    def total(ids: list[int]) -> int:
        return sum(natural[i] + PAD for i in ids)

    droppable = sorted((i for i in keep if cols[i].drop is not None), key=lambda i: cols[i].drop or 0)
    while total(keep) > width and droppable:
        keep.remove(droppable.pop(0))
    return keep, least(keep) <= width


def fits(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int) -> bool:
    """Whether a table of these rows can show every key cell whole within ``width``."""
    return _layout(cols, rows, width)[1]


def fit_table(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int) -> Table:
    """A table of ``rows`` (rich markup strings, one per column) within ``width`` characters."""
    keep, _ = _layout(cols, rows, width)
    natural = {i: _natural(cols[i], [r[i] for r in rows]) for i in keep}
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    for i in keep:
        col = cols[i]
        if col.kind == "key":
            table.add_column(col.header, no_wrap=True, min_width=natural[i], justify=col.justify)  # type: ignore[arg-type]
        else:
            table.add_column(col.header, overflow="fold", ratio=None, justify=col.justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(*(r[i] for i in keep))
    return table


def fit_or_list(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int) -> RenderableType:
    """fit_table when every key cell fits whole; else one entry per row: its key cells on one
    line, the rest as 'header value' pairs wrapping between pairs."""
    if fits(cols, rows, width):
        return fit_table(cols, rows, width)
    parts: list[RenderableType] = []
    for r in rows:
        keys = [r[i] for i, c in enumerate(cols) if c.kind == "key" and r[i]]
        rest = [f"{c.header} {r[i]}" for i, c in enumerate(cols) if c.kind != "key" and r[i]]
        parts.append(Text.from_markup("[bold]" + "  ".join(keys) + "[/]"))
        parts.append(Text.from_markup("  " + " · ".join(rest)))
    return Group(*parts)
