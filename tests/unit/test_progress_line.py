"""The progress line of long multi-run work: on a terminal only, for enough items."""

from __future__ import annotations

import io

from rich.console import Console

from memscope.cli.progress import progress_line


def console(*, terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=100), out


def test_a_terminal_shows_how_far_the_work_is() -> None:
    shown, out = console(terminal=True)
    with progress_line(shown, "ingesting runs", min_items=3) as update:
        update(0, 30)
        update(12, 30)
    text = out.getvalue()
    assert "ingesting runs" in text and "12/30" in text


def test_nothing_when_piped_or_for_a_few_items() -> None:
    piped, out = console(terminal=False)
    with progress_line(piped, "ingesting runs", min_items=3) as update:
        update(0, 30)
        update(30, 30)
    assert out.getvalue() == ""
    shown, out = console(terminal=True)
    with progress_line(shown, "ingesting runs", min_items=3) as update:
        update(0, 2)
        update(2, 2)
    assert out.getvalue() == ""
