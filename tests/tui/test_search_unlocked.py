"""Labels never wait on the memory engine (issue 14): a search loads its model and runs
with the app's store lock free, says what it is doing ("loading all-MiniLM-L6-v2 … 4 s"),
and a label pressed meanwhile is committed to the store while the load is still held (how
fast a label commits is benchmarks/bench_labels.py's measure, not a wall-clock bound here).

Only the *slowness* of the model load is staged: :class:`GatedLoad` wraps the engine's real
loading function and holds it until the test lets go, so the load lasts exactly as long as
the test needs (a real first load takes 10-15 s here, and varies). Everything else is
real: the app under Pilot, the DuckDB store the label is written to, the search worker.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import UNTIL_S, ready, settle, shown_text, until

import memscope.engine.text as engine_text
import memscope.engine_jobs.engine as pipeline_engine
from memscope.engine_jobs.memory_search import StepReporter
from memscope.errors import EngineError
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.search import SearchDialog
from memscope.tui.widgets.status_bar import StatusBar
from memscope.usecases.labels.events import current_labels
from support import notices


class GatedLoad:
    """A model-loading function that waits until the test releases it, then does the real
    work (or, with ``fail``, fails as a broken model folder does: an EngineError)."""

    def __init__(self, real: Any, fail: str | None = None) -> None:
        self.real, self.fail = real, fail
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.entered.set()
        if not self.release.wait(UNTIL_S):
            raise AssertionError("the test never released the model load")
        if self.fail is not None:
            raise EngineError(self.fail)
        return self.real(*args, **kwargs)


def status_bar(app: Any) -> str:
    screen = app.navigator.question_screen
    return shown_text(screen.query_one(StatusBar)) if screen is not None else ""


async def start_search(pilot: Any, gate: GatedLoad, words: str) -> SearchDialog:
    app = pilot.app
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, SearchDialog), "the search dialog")
    dialog = app.screen
    await pilot.press(*words, "enter")
    await until(pilot, gate.entered.is_set, "the search to start loading its model")
    return dialog


async def test_a_label_commits_while_the_search_loads_its_model(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load is held (staged slowness, no model library imported); meanwhile the lock is
    free, the progress line ticks in the dialog and the status bar, and a label key commits
    to the store. Let go, the load fails like a broken model folder: the line goes away."""
    monkeypatch.setattr(engine_text, "_loaded", {})  # as in a fresh process: nothing loaded
    gate = GatedLoad(pipeline_engine.resolve_device, fail="cannot load text model: broken")
    monkeypatch.setattr(pipeline_engine, "resolve_device", gate)  # the load's first step
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        assert isinstance(app.screen, QuestionScreen)
        try:
            dialog = await start_search(pilot, gate, "compost")
            # (3) The worker is inside the model load: the store lock is not held.
            assert not app.session.store_lock.locked()
            # (2) The progress line names the model and counts seconds up.
            status = dialog.query_one("#search-status")
            assert shown_text(status).startswith("loading all-MiniLM-L6-v2 … ")
            await until(
                pilot,
                # a stalled event loop may skip a second: any count past 0 shows the tick
                lambda: re.fullmatch(r"loading all-MiniLM-L6-v2 … [1-9]\d* s", shown_text(status)),
                "the progress line to tick",
            )
            await pilot.press("escape")  # the search goes on behind the question screen
            await until(
                pilot, lambda: app.screen is app.navigator.question_screen, "the dialog closed"
            )
            assert "loading all-MiniLM-L6-v2 … " in status_bar(app)

            # (1) A label pressed now is committed, the load still held (it waits for the test).
            assert app.session.labels.committed("q37") is None
            await pilot.press("3")  # RET-MISS
            await until(
                pilot, lambda: app.session.labels.committed("q37") is not None, "LabelSaved"
            )
            assert not gate.release.is_set() and app.session.search.step is not None
            with app.session.store_lock:  # the writer may linger with the store open: take turns
                saved = current_labels(app.store, "srag_v", annotator="alice")["q37"]
            assert saved.codes == ("RET-MISS",)
            assert not app.session.store_lock.locked()
        finally:
            gate.release.set()
        await settle(pilot)
        assert app.session.search.step is None
        assert "loading" not in status_bar(app)
        notes = [n.message for n in notices(app)]
        assert any("search: compost" in n and "cannot load text model" in n for n in notes)


@pytest.mark.slow
async def test_the_first_search_shows_the_load_then_the_hits(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real MiniLM loads once the test lets go (held first, so the steps can be seen);
    the dialog then lists hits and the progress line is gone. Labels stay free throughout."""
    monkeypatch.setattr(engine_text, "_loaded", {})  # the first search of a process
    gate = GatedLoad(engine_text.load_text_encoder)
    monkeypatch.setattr(engine_text, "load_text_encoder", gate)
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        try:
            dialog = await start_search(pilot, gate, "compost bin")
            assert not app.session.store_lock.locked()
            # The step reaches the status bar through the app's messages, after the load began.
            await until(
                pilot, lambda: "loading all-MiniLM-L6-v2" in status_bar(app), "the load step shown"
            )
        finally:
            gate.release.set()
        status = dialog.query_one("#search-status")
        await until(pilot, lambda: "hit(s)" in shown_text(status), "the hits")
        assert shown_text(status) == "10 hit(s)"
        assert dialog.hit_rounds and app.session.search.step is None
        assert "loading" not in status_bar(app) and "searching" not in status_bar(app)
        # The model stays loaded: a second search reports no load step.
        await pilot.press("escape")
        await settle(pilot)
        steps: list[str] = []
        real_step = StepReporter.step

        def record(reporter: StepReporter, what: str) -> None:
            steps.append(what)
            real_step(reporter, what)

        monkeypatch.setattr(StepReporter, "step", record)
        app.navigator.question_screen.start_search("compost")  # the screen runs its search
        await settle(pilot)
        assert steps and not any(step.startswith("loading") for step in steps)
        assert steps[-1].startswith("searching ") and steps[-1].endswith(" rounds")
