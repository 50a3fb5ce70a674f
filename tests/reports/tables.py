"""Read the tables back out of rendered reports, so tests compare figures cell by cell."""

from __future__ import annotations

import re


def _split_md(line: str) -> list[str]:
    # Split on pipes that are not escaped, then unescape.
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [c.strip().replace("\\|", "|") for c in cells]


def markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Every Markdown table in the text, as rows of {header: cell} (bold and code marks removed)."""
    tables: list[list[dict[str, str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("| ") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            headers = _split_md(lines[i])
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip("*`") for c in _split_md(lines[i])]
                rows.append(dict(zip(headers, cells, strict=True)))
                i += 1
            tables.append(rows)
        else:
            i += 1
    return tables


def terminal_tables(text: str) -> list[list[dict[str, str]]]:
    """Every rich box table in plain text, as rows of {header: cell} (one-line cells only)."""
    tables: list[list[dict[str, str]]] = []
    headers: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("┃"):
            headers = [c.strip() for c in line.strip("┃").split("┃")]
            tables.append([])
        elif line.startswith("│") and headers is not None:
            cells = [c.strip() for c in line.strip("│").split("│")]
            tables[-1].append(dict(zip(headers, cells, strict=True)))
        elif line.startswith("└"):
            headers = None
    return tables
