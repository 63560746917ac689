"""Turning untrusted values into Rich ``Text`` (never markup) and formatting numbers.

Everything from a run file goes through :func:`plain`: control characters become visible
escapes (``memscope.textsafe``) and ``[bold]`` stays the seven characters it is.
"""

from __future__ import annotations

import math

from rich.text import Text

from memscope.textsafe import printable

DASH = "–"


def plain(value: object, style: str = "", *, one_line: bool = False) -> Text:
    """``value`` as literal text (None becomes empty)."""
    return Text(printable(value, keep_newlines=not one_line), style=style)


def clip(value: object, width: int) -> str:
    """``value`` on one line, cut to ``width`` characters with an ellipsis."""
    text = printable(value, keep_newlines=False)
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def num(value: float | None, digits: int = 2) -> str:
    """A number with fixed digits, an en dash when missing or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    return f"{value:.{digits}f}"


def mark(correct: float | None) -> Text:
    """✓ / ✗ / ? for a correctness value."""
    if correct is None or (isinstance(correct, float) and math.isnan(correct)):
        return Text("?", style="dim")
    return Text("✓", style="bold green") if correct >= 1.0 else Text("✗", style="bold red")
