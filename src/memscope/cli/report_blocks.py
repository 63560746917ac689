"""Lays out a benchmark's report section view (text and table blocks, ``adapters.sections``)
as Rich renderables: tables fitted to the terminal (``cli/fitting.py``), every text through
the sanitiser (a plugin's text never reaches the terminal raw).

Not a command module: ``cli/report.py`` calls :func:`render_blocks` for a run whose
benchmark's report section has a view.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from memscope.cli.fitting import Column, FittingTable, fit
from memscope.textsafe import printable
from memscope.usecases.report.blocks import Block, TableBlock


def _text(text: str) -> str:
    return printable(text, keep_newlines=False)


def _table(block: TableBlock) -> RenderableType:
    table = FittingTable(
        [
            Column(
                _text(column.header),
                name=_text(column.name),
                justify=column.justify,
                style=column.style,
                fold=column.fold,
                min_width=column.min_width,
                keep=column.keep,
            )
            for column in block.columns
        ],
        title=_text(block.title),
        title_justify="left",
    )
    width = len(block.columns)
    for row in block.rows:
        # A row of another length is the view's mistake: cut or padded, never a crash.
        cells = [_text(str(cell)) for cell in row.cells[:width]]
        table.add_row(*cells, *[""] * (width - len(cells)), style=row.style)
    return fit(table)


def render_blocks(header: Text, blocks: Sequence[Block]) -> Group:
    """The report's header, a blank line, then each block."""
    parts: list[RenderableType] = [header, Text("")]
    for block in blocks:
        if isinstance(block, TableBlock):
            parts.append(_table(block))
        else:
            parts.append(Text(_text(block.text), style=block.style or ""))
    return Group(*parts)
