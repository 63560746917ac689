"""Two apps on one store, an app beside the CLI, and a hard kill of a labelling app.

One app per store may label; a second app browses read-only, says why, and writes
nothing. The app never holds the store open, so ``memscope label`` works beside it. A
label the app showed as saved survives SIGKILL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import ready, settle, shown_text
from typer.testing import CliRunner

from memscope.cli import app as cli
from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.widgets.label_bar import LabelBar
from memscope.usecases.labels.events import current_labels
from support import notices

APP_PROCESS = Path(__file__).parent / "app_process.py"


class AppProcess:
    """A memscope app running in a subprocess (see app_process.py)."""

    def __init__(self, run_dir: Path, annotator: str, qid: str, keys: list[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(APP_PROCESS), str(run_dir), annotator, qid, *keys],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        self.lines: list[str] = []

    def wait_for(self, prefix: str, timeout: float = 60.0) -> str:
        """Read output lines until one starts with ``prefix``."""
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError(
                    f"the app process ended: {self.process.stderr.read() if self.process.stderr else ''}"
                )
            self.lines.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return line.rstrip("\n")
        raise AssertionError(f"no {prefix!r} line within {timeout}s: {self.lines}")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


async def test_second_app_is_read_only(demo: Path, store: Store) -> None:
    run_dir = demo / "runs" / "srag_v"
    writer = AppProcess(run_dir, "alice", "q37", [])
    try:
        assert writer.wait_for("READY") == "READY "  # the first app may label
        second = make_app(OpenRequest([str(run_dir)], annotator="bob", question="q37"))
        async with second.run_test(size=(120, 40), notifications=True) as pilot:
            await ready(pilot)
            assert second.session.read_only_reason and "alice" in second.session.read_only_reason
            bar = shown_text(second.screen.query_one(LabelBar))
            assert "READ-ONLY" in bar and "labelling disabled" in bar
            await pilot.press("enter", "6", "u")
            await settle(pilot)
            assert any("Labelling is disabled" in n.message for n in notices(second))
            await pilot.press("j")  # browsing still works
            await settle(pilot)
            assert second.session.qid != "q37"
        assert current_labels(store, "srag_v") == {}
    finally:
        writer.kill()
    # The lease went with the killed process: a new app may label again.
    third = make_app(OpenRequest([str(run_dir)], annotator="bob", question="q37"))
    async with third.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert third.session.read_only_reason is None


async def test_app_and_cli_label_side_by_side(demo: Path, store: Store) -> None:
    run_dir = demo / "runs" / "srag_v"
    app = make_app(OpenRequest([str(run_dir)], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        result = CliRunner().invoke(
            cli,
            ["label", "srag_v", "--question", "q10", "--code", "SEL-STALE", "--annotator", "bob"],
        )
        assert result.exit_code == 0, result.output
        await pilot.press("enter")
        await settle(pilot)
    labels_alice = current_labels(store, "srag_v", annotator="alice")
    labels_bob = current_labels(store, "srag_v", annotator="bob")
    assert labels_alice["q37"].codes == ("SEL-STALE",)
    assert labels_bob["q10"].codes == ("SEL-STALE",)


def test_labels_shown_as_saved_survive_sigkill(demo: Path, store: Store) -> None:
    from memscope.adapters import ReadOptions
    from memscope.usecases.runs.ingest import ingest_dir

    run_dir = demo / "runs" / "srag_v"
    ingest_dir(store, run_dir, ReadOptions())  # ingest first so the app starts quickly
    keys = ["3", "j", "4", "j", "5", "j", "6", "j", "8", "j", "9"]  # one change per question
    labeller = AppProcess(run_dir, "alice", "q3", keys)
    try:
        labeller.wait_for("READY")
        labeller.wait_for("SAVED")
        labeller.wait_for("SAVED")
        time.sleep(0.05)
    finally:
        labeller.kill()
    assert labeller.process.returncode == -signal.SIGKILL
    saved = {}
    for line in labeller.lines:
        if line.startswith("SAVED "):
            _, qid, codes = (line.split(" ", 2) + [""])[:3]
            saved[qid] = tuple(code for code in codes.split(",") if code)
    assert saved
    stored = current_labels(store, "srag_v", annotator="alice")
    for qid, codes in saved.items():
        assert qid in stored and stored[qid].codes == codes, (qid, codes, stored.get(qid))
