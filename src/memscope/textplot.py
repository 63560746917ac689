"""Tiny text plots for terminals: horizontal bars and sparklines from Unicode blocks.

Used by the CLI for DMV-Bench's retention curve and available to any front end (e.g. an
audio waveform envelope). Pure functions; no terminal or library knowledge.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

SPARK_LEVELS = "▁▂▃▄▅▆▇█"
BAR_EIGHTHS = " ▏▎▍▌▋▊▉"
FULL_BLOCK = "█"


def bar(value: float | None, width: int, *, maximum: float = 1.0) -> str:
    """A left-aligned bar of ``value / maximum`` of ``width`` cells, in eighths of a cell.

    None or NaN gives an empty string; values are clipped to ``[0, maximum]``.
    """
    if value is None or width <= 0 or maximum <= 0 or math.isnan(value):
        return ""
    eighths = round(min(max(value / maximum, 0.0), 1.0) * width * 8)
    full, rest = divmod(eighths, 8)
    return FULL_BLOCK * full + (BAR_EIGHTHS[rest] if rest else "")


def sparkline(
    values: Sequence[float | None], *, minimum: float | None = 0.0, maximum: float | None = 1.0
) -> str:
    """One block character per value, from ``▁`` (minimum) to ``█`` (maximum).

    ``minimum`` / ``maximum`` default to [0, 1]; pass None to use the data's own range.
    A missing value (None or NaN) is a space.
    """
    defined = [v for v in values if v is not None and not math.isnan(v)]
    if not defined:
        return " " * len(values)
    low = min(defined) if minimum is None else minimum
    high = max(defined) if maximum is None else maximum
    span = high - low
    characters = []
    for value in values:
        if value is None or math.isnan(value):
            characters.append(" ")
            continue
        share = 0.0 if span <= 0 else min(max((value - low) / span, 0.0), 1.0)
        characters.append(SPARK_LEVELS[min(int(share * len(SPARK_LEVELS)), len(SPARK_LEVELS) - 1)])
    return "".join(characters)
