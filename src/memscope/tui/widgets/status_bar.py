"""The one-line status bar at the top of the queue and question screens: which run, which
queue, where in it, how much is labelled, and whether labelling is possible."""

from __future__ import annotations

import re

from rich.text import Text
from textual.widgets import Static

from memscope.triage.session.records import StatusView
from memscope.tui.text import name, plain


def status_text(
    run_id: str,
    other_run_id: str | None,
    queue: str,
    position: int,
    total: int,
    labelled: int,
    annotator: str,
    read_only: bool,
    qid: str | None = None,
    in_queue: bool = True,
    pending: int = 0,
    counted: bool = True,
    placed: bool = True,
    brief: bool = False,
) -> Text:
    """``srag_v · failing · 12/230 · labelled 3/230 · alice`` (``12/…`` while the queue
    is still being counted: ``counted`` False; ``…/…`` while the question's place in it is
    not known yet either: ``placed`` False; ``brief``: without the question count, which
    "labelled 3/230" repeats, for a narrow terminal)."""
    of = str(total) if counted else "…"
    at = str(position + 1) if placed else "…"
    text = Text()
    text.append(" memscope ", "bold black on cyan")
    text.append(" ")
    text.append_text(name(run_id, "bold"))
    if other_run_id:
        text.append(" vs ", "dim")
        text.append_text(name(other_run_id, "bold magenta"))
    text.append(" · " if queue.startswith(("sample ", "verdicts ")) else " · queue ", "dim")
    text.append_text(plain(queue, "bold", one_line=True))
    if qid is not None:
        text.append(" · ", "dim")
        text.append_text(plain(qid, "bold cyan", one_line=True))
        text.append(
            f" {at}/{of}" if in_queue and total else " (not in this queue)",
            "bold" if in_queue else "yellow",
        )
    elif counted:
        if not brief:
            text.append(f" · {total} question{'s' if total != 1 else ''}", "bold")
    else:
        text.append(" · counting questions …", "bold")
    text.append(" · labelled ", "dim")
    text.append(
        f"{labelled}/{total}" if counted else "…",
        "bold green" if counted and total and labelled == total else "bold",
    )
    text.append(" · ", "dim")
    text.append_text(plain(annotator, "dim", one_line=True))
    if pending:
        text.append(f"  {pending} label change(s) unsaved ", "bold black on yellow")
    if read_only:
        text.append("  READ-ONLY ", "bold white on red")
    return text


def compact_sample(progress: str) -> str:
    """``sample: 1 of 10 planned · stratum X4Y1 0/2`` as ``sample 1/10 · X4Y1 0/2`` (a
    verdict sample's ``verdict sample: 3 of 40 planned`` as ``verdicts 3/40``)."""
    found = re.fullmatch(
        r"(verdict sample|sample): (\d+) of (\d+) planned(?: · stratum (.+))?", progress.strip()
    )
    if found is None:
        return progress
    kind, done, planned, stratum = found.groups()
    word = "verdicts" if kind == "verdict sample" else "sample"
    return f"{word} {done}/{planned}" + (f" · {stratum}" if stratum else "")


def status_view_text(view: StatusView | None, width: int = 0) -> Text:
    """The status line of a session's :class:`StatusView` (just the name before a run).

    Where the whole line is wider than ``width`` (0: any width), a sampled queue's progress
    takes the place of the queue's name, in short (``sample 1/10 · X4Y1 0/2``), so the
    count a labeller steers by is never the part cut off."""
    if view is None:
        return Text("memscope", style="bold")
    line = _status_line(view, view.queue, view.sample_progress)
    if width and view.sample_progress and line.cell_len > width:
        line = _status_line(view, compact_sample(view.sample_progress), None, brief=True)
    if view.engine_line is not None:  # a memory-engine search runs in the background
        line.append_text(plain(f"  {view.engine_line} ", "black on cyan", one_line=True))
    return line


def _status_line(
    view: StatusView, queue: str, sample_progress: str | None, *, brief: bool = False
) -> Text:
    line = status_text(
        view.run_id,
        view.other_run_id,
        queue,
        view.position,
        view.total,
        view.labelled,
        view.annotator,
        view.read_only,
        qid=view.qid,
        in_queue=view.in_queue,
        pending=view.pending,
        counted=view.counted,
        placed=view.placed,
        brief=brief,
    )
    if sample_progress:
        line.append(f"  ·  {sample_progress}")
    return line


class StatusBar(Static):
    """A :func:`status_text` line."""

    def show(self, view: StatusView | None) -> None:
        """Draw the session's status record, fitted to the bar's width."""
        self.update(status_view_text(view, self.size.width or self.app.size.width))
