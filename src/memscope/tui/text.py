"""Turning untrusted values into Rich ``Text`` (never markup) and formatting numbers.

Everything from a run file goes through :func:`plain`: control characters become visible
escapes (``memscope.textsafe``) and ``[bold]`` stays the seven characters it is. Run ids
and file names go through :func:`name` instead, so two that differ never look the same. Text is
also bounded: a field of 50 MB (a judge's reasoning, a round) would take Rich a minute
and gigabytes to lay out, so beyond :data:`DISPLAY_LIMIT` characters it is cut with
"… N more characters"; ``limit=None`` asks for the full text (on demand).
"""

from __future__ import annotations

import math

from rich.text import Text

from memscope.textsafe import printable, printable_id

DASH = "–"
DISPLAY_LIMIT = 20_000
"""Characters of one field shown at most (before "… N more characters")."""


def bounded(value: object, limit: int | None = DISPLAY_LIMIT) -> tuple[str, int]:
    """``(shown, hidden)``: the first ``limit`` characters of ``value`` and how many are cut."""
    text = "" if value is None else str(value)
    if limit is None or len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def more_note(hidden: int) -> str:
    """The marker after cut text."""
    return f" … {hidden:,} more characters (t: full text)"


def plain(
    value: object, style: str = "", *, one_line: bool = False, limit: int | None = DISPLAY_LIMIT
) -> Text:
    """``value`` as literal text (None becomes empty), at most ``limit`` characters."""
    shown, hidden = bounded(value, limit)
    text = Text(printable(shown, keep_newlines=not one_line), style=style)
    if hidden:
        text.append(more_note(hidden), "dim italic")
    return text


def name(value: object, style: str = "") -> Text:
    """A run id, file name or other identifier on one line, with its invisible and combining
    differences escaped (``textsafe.printable_id``: ``srag_v\\u200b``, ``cafe\\u0301``)."""
    return Text(printable_id("" if value is None else value), style=style)


def clip(value: object, width: int) -> str:
    """``value`` on one line, cut to ``width`` characters with an ellipsis."""
    # Cut before sanitising: a 50 MB field must cost no more than a short one.
    shown, hidden = bounded(value, max(width, 0) + 1)
    text = printable(shown, keep_newlines=False)
    return text if len(text) <= width and not hidden else text[: max(0, width - 1)] + "…"


def fit(text: str, width: int) -> str:
    """``text`` in ``width`` cells: whole when it fits, else cut with an ellipsis, at a word
    boundary when one lies in the last third (never mid-word without the mark)."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    cut = set_cell_size(text, width - 1)
    space = cut.rstrip().rfind(" ")
    if space >= (2 * (width - 1)) // 3:
        cut = cut[:space]
    return cut.rstrip() + "…"


def whole_hints(hints: list[str], width: int, separator: str = "  ") -> str:
    """As many of ``hints`` (most useful first) as fit whole in ``width`` cells, in order:
    a hint is shown entire or not at all, never cut."""
    from rich.cells import cell_len

    shown: list[str] = []
    for hint in hints:
        if cell_len(separator.join([*shown, hint])) <= width:
            shown.append(hint)
    return separator.join(shown)


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
