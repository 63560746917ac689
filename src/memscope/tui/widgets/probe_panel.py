"""A DMV-Bench recall probe on the question screen, in place of the round view.

What the probe asked for (the target product: its image when the catalogue images are
here, else its incidental cue), where the agent ended up, and what memory returned at each
recall step in rank order, with the target marked.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from memscope.errors import MemscopeError
from memscope.textsafe import printable
from memscope.triage.benchmark_views import ProbeView
from memscope.triage.round_index import MediaItem
from memscope.triage.session import TriageSession
from memscope.tui.widgets.image_preview import ImagePreview

SHOWN_PER_STEP = 5


def _plain(value: object) -> str:
    return printable(value, keep_newlines=False)


def probe_text(probe: ProbeView) -> Text:
    """The probe as literal text (names and URLs come from run files: never markup)."""
    text = Text()
    text.append(f"probe {_plain(probe.probe_id)}", style="bold")
    text.append(
        f"  ·  task {_plain(probe.task_id)}"
        + (f"  ·  trunk {_plain(probe.trunk)}" if probe.trunk else ""),
        style="dim",
    )
    text.append("\n")
    facts = []
    if probe.reach is not None:
        facts.append(
            f"reach {probe.reach}: seen in session {probe.visit_session}, recalled in session {probe.recall_session}"
        )
    if probe.bank_size is not None:
        facts.append(f"bank {probe.bank_size} entries")
    if probe.encoding_position is not None:
        facts.append(f"encoding position {probe.encoding_position}")
    text.append(" · ".join(facts) + "\n\n")
    target = probe.target
    text.append("target  ", style="bold green")
    text.append(f"{_plain(target.url)}  {_plain(target.name)}\n")
    text.append(f"        {_plain(target.description)}\n", style="dim")
    text.append("final   ", style="bold")
    if probe.final_url:
        final_name = f"  {_plain(probe.final.name)}" if probe.final is not None else ""
        text.append(f"{_plain(probe.final_url)}{final_name}  ")
    else:
        text.append("no product page reached  ")
    text.append(
        "✓ the target\n" if probe.correct else "✗ not the target\n",
        style="green" if probe.correct else "red",
    )
    text.append("\nrecall steps — what memory returned, rank order (★ the target)\n", style="bold")
    if not probe.steps:
        text.append("  the run's logs hold no recall steps for this probe\n", style="dim")
    for step in probe.steps:
        text.append(f" R{step.step}", style="bold")
        if step.observed_url:
            text.append(f" on {_plain(step.observed_url)}", style="dim")
        text.append("\n   ")
        for rank, product in enumerate(step.retrieved[:SHOWN_PER_STEP], start=1):
            is_target = product.url_hash == target.url_hash
            text.append(
                f"{rank}.{'★' if is_target else ''}{_plain(product.url_hash)} ",
                style="bold green" if is_target else "",
            )
        if len(step.retrieved) > SHOWN_PER_STEP:
            text.append(f"(+{len(step.retrieved) - SHOWN_PER_STEP})", style="dim")
        if step.target_rank is None:
            text.append(" target not retrieved", style="yellow")
        if step.action:
            text.append(
                f"\n   → {_plain(step.action)} {_plain(step.action_url or '')}", style="dim"
            )
        text.append("\n")
    return text


@dataclass
class ProbeRead(Message):
    """A probe's view was read (``probe``) or could not be (``error``)."""

    run_id: str
    qid: str
    probe: ProbeView | None = None
    error: str | None = None


class ProbePanel(VerticalScroll):
    """The probe's target, outcome and recall steps (``show``), or why it is not shown."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.probe: ProbeView | None = None
        self._wanted: tuple[str, str] | None = None
        """(run id, qid) of the probe asked for last (an older answer is stale)."""

    def compose(self) -> ComposeResult:
        yield Static(id="probe-text")
        yield ImagePreview(id="probe-image")

    def load(self, session: TriageSession, run_id: str, qid: str) -> None:
        """Show probe ``qid`` of ``run_id``, read from the store in a worker."""
        self._wanted = (run_id, qid)
        self.show(None, "loading the probe's recall steps …")
        self._read_probe(session, run_id, qid)

    @work(thread=True, exclusive=True, exit_on_error=False, group="probe", description="probe")
    def _read_probe(self, session: TriageSession, run_id: str, qid: str) -> None:
        try:
            probe = session.read_probe(run_id, qid)
        except MemscopeError as error:
            message = f"the probe cannot be shown: {error.message}"
            self.post_message(ProbeRead(run_id, qid, error=message))
            return
        self.post_message(ProbeRead(run_id, qid, probe))

    @on(ProbeRead)
    def _probe_read(self, message: ProbeRead) -> None:
        message.stop()
        if self._wanted == (message.run_id, message.qid):
            self.show(message.probe, message.error or "")

    def show(self, probe: ProbeView | None, message: str = "") -> None:
        """Show ``probe`` (None: ``message`` instead, e.g. while it loads)."""
        self.probe = probe
        body = self.query_one("#probe-text", Static)
        image = self.query_one("#probe-image", ImagePreview)
        if probe is None:
            body.update(Text(message, style="dim"))
            image.show(None)
            return
        body.update(probe_text(probe))
        target = probe.target
        image.show(
            MediaItem(
                "image", target.image_file, target.image_file, target.caption or "", target.url_hash
            )
            if target.image_file
            else None
        )
