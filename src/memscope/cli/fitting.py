"""Plain-text tables that fit the terminal: fewer columns, each printed in full.

Rich fits a table that is too wide by cutting cells (``0.77…``) or squeezing a column to
nothing. A number cut short reads as another number, so the commands that print tables
(``table``, ``runs``, ``estimate``, ``report``, ``compare``, ``rerun``) describe their
columns here instead: which never wrap (numbers, intervals), which may fold onto more
lines (names, with a narrowest width), which must stay (the row label), and in what order
the others are given up. The table then keeps as many columns as fit, whole, and
:func:`left_out_note` says which were left out and how to see them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

PADDING = 1
"""Rich's default cell padding, each side."""


@dataclass(eq=False)  # columns are told apart by identity, never by their contents
class Column:
    """One column: its header, its cells and how it may be fitted."""

    header: str
    """Wrapped between words where the column is narrower."""
    name: str = ""
    """What the note calls it (default: the header on one line)."""
    justify: Literal["left", "right"] = "right"
    style: str | None = None
    fold: bool = False
    """Text that may fold onto more lines (names); other columns never wrap."""
    min_width: int = 8
    """A folding column's narrowest width."""
    keep: bool = False
    """Never left out (the row label)."""
    rank: int | None = None
    """Order of preference among the optional columns (lower first; default: position)."""
    cells: list[str | Text] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The name the note uses."""
        return self.name or " ".join(self.header.split())

    def _words(self) -> list[str]:
        """The header's pieces: it breaks at spaces (not no-break ones) and after hyphens."""
        return [piece for word in self.header.split(" ") for piece in _after_hyphens(word)]

    def widest(self) -> int:
        """The width this column takes with every cell unfolded and the header on one line."""
        widest = max(
            (cell_len(line) for cell in self.cells for line in _plain(cell).split("\n")),
            default=0,
        )
        return max(widest, cell_len(self.header))

    def need(self) -> int:
        """The narrowest this column may be: every cell whole, the header wrapped between
        words (a folding column: ``min_width``, or its longest header word)."""
        longest_word = max((cell_len(word) for word in self._words()), default=0)
        if self.fold:
            return min(self.widest(), max(self.min_width, longest_word))
        cells = max(
            (cell_len(line) for cell in self.cells for line in _plain(cell).split("\n")),
            default=0,
        )
        return max(cells, longest_word)

    def wrapped_header(self, width: int) -> str:
        """The header in lines no wider than ``width`` (Rich would cut a no-wrap one)."""
        lines = [""]
        for word in self._words():
            glue = "" if not lines[-1] or lines[-1].endswith("-") else " "
            if lines[-1] and cell_len(lines[-1] + glue + word) > width:
                lines.append(word)
            else:
                lines[-1] += glue + word
        return "\n".join(lines)


def _after_hyphens(word: str) -> list[str]:
    """``Rank-Inversion`` → ``Rank-``, ``Inversion`` (a lone ``-`` or ``−`` stays whole)."""
    pieces = [piece for piece in re.split(r"(?<=[^\W\d_]-)(?=\w)", word) if piece]
    return pieces or [word]


def _plain(cell: str | Text) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def table_width(columns: Sequence[Column]) -> int:
    """Rich's width for a boxed table (edges shown) of these columns at their ``need``."""
    return sum(column.need() for column in columns) + (2 * PADDING + 1) * len(columns) + 1


class FittingTable:
    """Rows added like a Rich table's; :meth:`render` keeps the columns that fit a width."""

    def __init__(self, columns: Sequence[Column], **table_options: Any) -> None:
        self.columns = list(columns)
        self.table_options = table_options
        self.rows: list[tuple[bool, str | None]] = []
        """Per row: whether a section ends after it, and its style."""

    def add_row(
        self, *cells: str | Text, end_section: bool = False, style: str | None = None
    ) -> None:
        """One row, a cell per column (str or Text), as Rich's ``Table.add_row``."""
        for column, cell in zip(self.columns, cells, strict=True):
            column.cells.append(cell)
        self.rows.append((end_section, style))

    def chosen(self, width: int) -> list[Column]:
        """The columns kept at ``width``: every ``keep`` one, then the others in order of
        preference while the table still fits (the first that does not ends the list)."""
        kept = [column for column in self.columns if column.keep]
        for column in sorted((c for c in self.columns if not c.keep), key=self._rank):
            if table_width([*kept, column]) > width:
                break
            kept.append(column)
        return [column for column in self.columns if column in kept]

    def render(self, width: int) -> tuple[Table, list[str]]:
        """The Rich table of the columns that fit, and the names of those left out.

        Every width is set here (Rich, left to itself, squeezes the widest column first:
        the run ids): each column gets what it needs, then the room left widens the
        folding ones (the row label first) and then unwraps the headers, up to each
        column's widest."""
        kept = self.chosen(width)
        widths = {id(column): column.need() for column in kept}
        room = width - table_width(kept)
        folding = sorted((c for c in kept if c.fold), key=lambda c: (not c.keep, self._rank(c)))
        for column in [*folding, *(c for c in kept if not c.fold)]:
            extra = max(0, min(room, column.widest() - widths[id(column)]))
            widths[id(column)] += extra
            room -= extra
        table = Table(**self.table_options)
        for column in kept:
            header = column.header if column.fold else column.wrapped_header(widths[id(column)])
            table.add_column(
                Text(header),  # a header is text, never markup
                justify=column.justify,
                style=column.style,
                no_wrap=not column.fold,
                overflow="fold",
                width=widths[id(column)],
            )
        for index, (end, style) in enumerate(self.rows):
            table.add_row(*(column.cells[index] for column in kept), end_section=end, style=style)
        return table, [column.label for column in self.columns if column not in kept]

    def _rank(self, column: Column) -> int:
        return column.rank if column.rank is not None else self.columns.index(column)


def left_out_note(omitted: Sequence[str], width: int, how: str) -> Text | None:
    """``not shown at 80 columns: Y1, Y2; to see every column: …``, or None when nothing
    was left out."""
    if not omitted:
        return None
    return Text(
        f"not shown at {width} columns: {', '.join(omitted)}; to see every column: {how}",
        style="dim",
    )


JSON_HINT = "a wider terminal, or --format json"
"""How to see every column of a command whose other format is JSON."""


def fit(table: FittingTable, how: str = JSON_HINT, width: int | None = None) -> RenderableType:
    """``table`` at the terminal's width (``width``), with the note on what was left out."""
    from memscope.cli.common import stdout

    width = width or stdout.width
    rendered, omitted = table.render(width)
    note = left_out_note(omitted, width, how)
    return rendered if note is None else Group(rendered, note)
