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
from rich.table import Table

PAD = 2
"""Each column's left and right padding (the simple box has no vertical lines)."""


@dataclass(frozen=True)
class Col:
    header: str
    kind: str = "text"  # "key" | "text"
    drop: int | None = None
    """Dropped (lowest first) when the table is too wide; None: always shown."""
    justify: str = "left"


def _natural(col: Col, cells: Sequence[str]) -> int:
    widest = max((len(c) for c in cells), default=0)
    header = max((len(w) for w in col.header.split()), default=0) if col.kind == "text" else len(col.header)
    return max(widest, header, 1)


def fit_table(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int) -> Table:
    """A table of ``rows`` (strings, one per column) within ``width`` characters."""
    keep = [i for i, _ in enumerate(cols) if any(r[i] for r in rows) or not rows]
    natural = {i: _natural(cols[i], [r[i] for r in rows]) for i in keep}

    def total(ids: list[int]) -> int:
        return sum(natural[i] + PAD for i in ids)

    droppable = sorted((i for i in keep if cols[i].drop is not None), key=lambda i: cols[i].drop or 0)
    while total(keep) > width and droppable:
        keep.remove(droppable.pop(0))
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
