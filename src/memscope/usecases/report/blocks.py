"""The parts a benchmark's report section view returns (``adapters.sections``), for the
front ends that lay them out (``cli/report_blocks.py``)."""

from __future__ import annotations

from memscope.adapters.sections import Block, TableBlock, TableColumn, TableRow, TextBlock

__all__ = ["Block", "TableBlock", "TableColumn", "TableRow", "TextBlock"]
