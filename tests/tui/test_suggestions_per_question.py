"""The app keeps no failure suggestion for the whole run (issue 30): the label bar shows
the question's own suggestion, read with it, and the matrix's "suggested CODE" counts,
read from the store for that computation, equal the former counts over every Suggestion
held in memory."""

from __future__ import annotations

from pathlib import Path

from helpers import ready, settle

from memscope.triage.triage_matrix import grid_values, matrix_table
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.matrix import MatrixScreen
from memscope.tui.screens.question import QuestionScreen
from memscope.usecases.runs import session_io
from memscope.usecases.suggest.rules import load_suggestions


async def until(pilot, check, what: str, timeout_s: float = 20.0) -> None:
    waited = 0.0
    while not check():
        await pilot.pause(0.05)
        waited += 0.05
        if waited > timeout_s:
            raise AssertionError(f"timed out waiting for {what}")


async def test_label_bar_and_matrix_read_the_suggestions_from_the_store(
    demo: Path, isolated_env: Path
) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        session = app.session
        run = session.run
        assert run is not None
        await until(pilot, lambda: run.suggestions_ready, "the suggestions")
        await settle(pilot)
        assert not hasattr(run, "suggestions")  # nothing per question kept for the run
        stored = load_suggestions(session.store, run.run_id)
        assert isinstance(app.screen, QuestionScreen) and session.qid == "q37"
        # The label bar's suggestion is the one read with the question.
        question = session.questions.get((run.opened, "q37"))
        assert question is not None and question.read.suggestion_read
        assert question.read.suggestion == stored["q37"]
        assert session.label_bar_view("q37").suggestion == stored["q37"]
        assert run.suggested_codes == sorted({s.code for s in stored.values()})

        await pilot.press("escape", "m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MatrixScreen)
        keys = [metric.key for metric in screen.metrics]
        suggested = [key for key in keys if key.startswith("suggested:")]
        assert suggested == [f"suggested:{code}" for code in run.suggested_codes]
        target = keys.index(suggested[0])
        for _ in range(target - screen.metric_index):
            await pilot.press("m")
        await settle(pilot)
        await until(
            pilot,
            lambda: screen.grid is not None and screen._grid_for == (screen.metric, 0),
            "the suggested-code grid",
        )
        assert screen.metric.key == suggested[0] and screen.grid is not None
        # The former computation: every question's Suggestion held in memory.
        columns = session_io.read_run_columns(session.store, run.run_id, evidence=False)
        former = matrix_table(columns, {}, stored)
        view = former.axes.views[0]
        expected = grid_values(screen.metric, former, columns, session.view.k, view, None, None)
        assert screen.grid == expected
        assert any(value.value for value in screen.grid.cells.values())
