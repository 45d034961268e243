"""Tables that fit the terminal: names wrap between their parts, numbers are never cut.

A column holds names (a condition such as `agent_b=tft,persona=cooperative`, a matchup, a path)
or values (numbers, short words). Names wrap onto more lines after a `,`, a `/` or a space, never
inside a part (a part longer than its column folds, the only cut); values never wrap; headers
wrap between words. `fit` lays a table out for a width:

1. each column needs at least its longest part (a name's longest part, a value, a header's
   longest word) and at most its longest line;
2. while the minimums do not fit, the optional columns are left out, the highest `drop` first
   (the caller says which and in what order, and prints the line `left_out_note` gives);
3. the width left goes to the headers first (so each takes one line), then to the name columns,
   each group's columns that need the least first;
4. when even the minimums of the columns that must stay do not fit, the table is as wide as they
   need: the terminal wraps its lines, and no number is ever cut to fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich import box
from rich.cells import cell_len
from rich.markup import escape
from rich.table import Table

GAP = 1  # one space between columns (the box's blank divider)


@dataclass(frozen=True)
class Column:
    header: str
    names: bool = False  # its cells wrap between parts; otherwise they never wrap
    justify: str = "left"
    drop: int = 0  # 0: always shown; otherwise left out when it does not fit, highest first


@dataclass
class Fitted:
    table: Table
    width: int  # what the table takes: more than asked when its minimums did not fit
    left_out: list[str]  # the headers of the columns left out


NAME_PARTS = re.compile(r"[^,/\s]*(?:[,/]|\s+|$)")  # a name breaks after `,`, `/` or a space
WORDS = re.compile(r"\S*(?:\s+|$)")  # a header breaks between words only ("win A/B")


def parts(text: str, pattern: re.Pattern[str] = NAME_PARTS) -> list[str]:
    """The parts of a text, each ending in the separator after it (kept on its line)."""
    return pattern.findall(text)[:-1] or [text]


def wrap(text: str, width: int, pattern: re.Pattern[str] = NAME_PARTS) -> str:
    """`text` on lines of at most `width` cells, broken between its parts; a part longer than
    the width is folded."""
    lines: list[str] = []
    line = ""
    for part in parts(text, pattern):
        if line and cell_len(line + part.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += part
        while cell_len(line.rstrip()) > width:  # one part longer than the column
            lines.append(line[:width])
            line = line[width:]
    lines.append(line.rstrip())
    return "\n".join(lines)


def _longest_part(text: str) -> int:
    return max((cell_len(p.rstrip()) for p in parts(text)), default=0)


def _bounds(column: Column, cells: list[str]) -> tuple[int, int]:
    """(the least, the most) the column needs."""
    header_word = max((cell_len(w.rstrip()) for w in parts(column.header, WORDS)), default=0)
    longest = max([cell_len(column.header), *(cell_len(c) for c in cells)])
    if column.names:
        least = max([header_word, *(_longest_part(c) for c in cells)])
    else:
        least = max([header_word, *(cell_len(c) for c in cells)])
    return least, longest


def fit(
    columns: list[Column],
    rows: list[list[str]],
    width: int,
    *,
    title: str | None = None,
    caption: str | None = None,
) -> Fitted:
    """The table of `rows` (plain text, one cell per column) laid out for `width` cells."""
    cells = [[row[i] for row in rows] for i in range(len(columns))]
    bounds = [
        _bounds(column, column_cells) for column, column_cells in zip(columns, cells, strict=True)
    ]
    shown = list(range(len(columns)))

    def needed(indices: list[int], which: int) -> int:
        return sum(bounds[i][which] for i in indices) + GAP * (len(indices) - 1)

    optional = sorted((i for i, c in enumerate(columns) if c.drop), key=lambda i: -columns[i].drop)
    for index in optional:
        if needed(shown, 0) <= width:
            break
        shown.remove(index)
    widths = {i: bounds[i][0] for i in shown}
    spare = width - needed(shown, 0)
    # Headers on one line first (a line for the whole table), then names (a line per row); in
    # each group the columns that need the least first, so that as many as can take one line.
    for names in (False, True):
        group = [i for i in shown if columns[i].names == names]
        for i in sorted(group, key=lambda i: bounds[i][1] - widths[i]):
            grow = min(max(spare, 0), bounds[i][1] - widths[i])
            widths[i] += grow
            spare -= grow
    table = Table(
        title=escape(title) if title else None,
        title_justify="left",
        caption=escape(caption) if caption else None,
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        padding=0,
        pad_edge=False,
        show_edge=False,
    )
    for i in shown:
        table.add_column(
            escape(wrap(columns[i].header, widths[i], WORDS)),
            justify=columns[i].justify,  # type: ignore[arg-type]
            width=widths[i],
            no_wrap=True,
        )
    for row in rows:
        table.add_row(
            *(escape(wrap(row[i], widths[i]) if columns[i].names else row[i]) for i in shown)
        )
    left_out = [columns[i].header for i in range(len(columns)) if i not in shown]
    return Fitted(table, sum(widths.values()) + GAP * (len(shown) - 1), left_out)


def left_out_note(left_out: list[str], where: str) -> str | None:
    """The line under a table that left columns out, or None."""
    if not left_out:
        return None
    return f"not shown at this width: {', '.join(left_out)} (a wider terminal shows them; {where})"
