"""A progress line for long multi-run work, on a terminal only.

``memscope ingest runs/`` over a sweep of hundreds of runs takes a while; a line at the
bottom of the terminal says how far it is (runs done of all, time so far) and goes away at
the end. Piped or redirected, nothing is written: the output stays what scripts read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

MIN_ITEMS = 20
"""Fewer items than this are the work of a moment: no line."""


@contextmanager
def progress_line(
    console: Console, what: str, *, min_items: int = MIN_ITEMS
) -> Iterator[Callable[[int, int], None]]:
    """Hands out ``update(done, total)``; while work of at least ``min_items`` items runs
    on a terminal, ``console`` shows "<what> ━━━━ done/total 0:00:12" and clears it after."""
    if not console.is_terminal:
        yield lambda done, total: None
        return
    shown: list[tuple[Progress, TaskID]] = []

    def update(done: int, total: int) -> None:
        if total < min_items:
            return
        if not shown:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            progress = Progress(
                what,
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )
            progress.start()
            shown.append((progress, progress.add_task(what, total=total)))
        progress, task = shown[0]
        progress.update(task, completed=done, total=total, refresh=True)

    try:
        yield update
    finally:
        if shown:
            shown[0][0].stop()
