"""The app's rough edges a new user hit (issue 25, item 24), driven with Pilot.

``j``/``k`` move on the runs screen; ``/`` on the matrix opens the queue's filter; the quit
summary counts what this session did, not every label the annotator ever made; the
``--queue`` help says what the app really opens by default.
"""

from __future__ import annotations

from pathlib import Path

from helpers import ready, settle, table_rows
from textual.widgets import DataTable, Input
from typer.testing import CliRunner

from memscope.cli import app as cli
from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.export_action import quit_summary
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.matrix import MatrixScreen
from memscope.tui.screens.queue import QueueScreen
from memscope.tui.screens.runs import RunsScreen
from memscope.usecases.labels.events import record_label
from memscope.usecases.runs.ingest import ingest_dir
from memscope.usecases.runs.store_access import ReadOptions


async def test_j_and_k_move_the_cursor_on_the_runs_screen(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        # The app's workers may still be reading the store (evidence, suggestions): take turns.
        with app.session.store_lock:
            for name in ("srag_t", "fc_v"):
                ingest_dir(app.store, demo / "runs" / name, ReadOptions())
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen) and len(screen.runs) == 3
        table = screen.query_one(DataTable)
        table.move_cursor(row=0)
        await pilot.press("j")
        assert table.cursor_row == 1
        await pilot.press("j", "j")  # stops on the last run
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("down")  # the table's own keys still work
        assert table.cursor_row == 2
        await pilot.press("enter")  # and the run under the cursor is the one opened
        await ready(pilot)
        assert app.session.run.run_id == screen.runs[2]["run_id"]


async def test_slash_on_the_matrix_opens_the_queue_filter(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, MatrixScreen)
        await pilot.press("slash")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        box = app.screen.query_one("#queue-filter", Input)
        assert box.display and box.has_focus
        await pilot.press(*"y:Y3", "enter")
        await settle(pilot)
        assert app.session.spec.text == "y:Y3"
        assert len(app.session.rows) > 0
        assert all(app.session.run.table.y[row] == "Y3" for row in table_rows(app))


async def test_the_quit_summary_counts_this_sessions_labels_only(demo: Path, store: Store) -> None:
    run_dir = demo / "runs" / "srag_v"
    ingest_dir(store, run_dir, ReadOptions())
    for qid in ("q3", "q4", "q6"):  # an earlier session's labels, one with a note
        record_label(store, "srag_v", qid, codes=["USE-EVID"], annotator="alice", note="old")
    app = make_app(OpenRequest([str(run_dir)], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert quit_summary(app) == "srag_v: labelled 0 · 0 notes · exported: no"
        await pilot.press("enter")  # accept SEL-STALE on q37
        await settle(pilot)
        assert quit_summary(app) == "srag_v: labelled 1 · 0 notes · exported: no"
        await pilot.press("n", *"moved", "enter")
        await settle(pilot)
        assert quit_summary(app) == "srag_v: labelled 1 · 1 note · exported: no"
        await pilot.press("x")  # cleared again: this session leaves no label on q37
        await settle(pilot)
        assert quit_summary(app) == "srag_v: labelled 0 · 0 notes · exported: no"
        await pilot.press("enter")
        await settle(pilot)
        # Another run in the same session gets its own line, the first one stays.
        ingest_dir(app.store, demo / "runs" / "srag_t", ReadOptions())
        await pilot.press("r")
        await settle(pilot)
        runs = app.screen
        assert isinstance(runs, RunsScreen)
        runs.query_one(DataTable).move_cursor(
            row=[run["run_id"] for run in runs.runs].index("srag_t")
        )
        await pilot.press("enter")
        await ready(pilot)
        assert app.session.run.run_id == "srag_t"
        assert quit_summary(app) == "srag_v: labelled 1 · 0 notes · exported: no"


def test_the_queue_help_says_what_the_default_is() -> None:
    result = CliRunner().invoke(cli, ["open", "--help"], env={"COLUMNS": "200"})
    assert "failing (default)" not in result.output
    assert "Default: the queue (and filter) this run was left on last time, else failing" in (
        " ".join(result.output.replace("│", " ").split())  # the help panel's borders
    )


async def test_without_queue_the_app_reopens_the_queue_it_was_left_on(demo: Path) -> None:
    """What the help promises: the remembered queue, else failing; --queue overrides."""
    run_dir = demo / "runs" / "srag_v"
    first = make_app(OpenRequest([str(run_dir)], annotator="alice"))
    async with first.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        assert first.session.spec.kind == "failing"  # nothing remembered yet
        await pilot.press("f")  # failing → all
        await settle(pilot)
        assert first.session.spec.kind == "all"
        await pilot.press("q")
    again = make_app(OpenRequest([str(run_dir)], annotator="alice"))
    async with again.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        assert again.session.spec.kind == "all"
    chosen = make_app(OpenRequest([str(run_dir)], annotator="alice", queue="unlabelled"))
    async with chosen.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        assert chosen.session.spec.kind == "unlabelled"
