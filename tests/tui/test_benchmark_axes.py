"""Each demo benchmark on its own axes in the app: the matrix's rows, columns and a cell
against ``memscope report --format json``, a filter in the axes' words, and the question
screen's right-hand panel; and ``open DIR`` never showing a run from outside DIR."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import ready, settle, shown_text, table_rows
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from typer.testing import CliRunner

from memscope.cli import app as cli_app
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.matrix import MatrixScreen
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.queue import QueueScreen
from memscope.tui.screens.runs import RunsScreen
from memscope.tui.widgets.candidates import CandidatesPanel
from memscope.tui.widgets.question_panel import QuestionPanelView
from memscope.tui.widgets.queue_table import QueueHeader

runner = CliRunner()
SIZE = (160, 48)


def report_json(run_id: str) -> dict:
    result = runner.invoke(cli_app, ["report", run_id, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


async def open_matrix(pilot) -> tuple[MatrixScreen, DataTable]:
    app = await ready(pilot)
    await pilot.press("m")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, MatrixScreen) and screen.grid is not None
    return screen, screen.query_one(DataTable)


def labels(table: DataTable) -> tuple[list[str], list[str]]:
    """(column headers after the row-label column, row labels)."""
    columns = [str(column.label) for column in table.columns.values()][1:]
    rows = [str(table.get_cell_at(Coordinate(r, 0))) for r in range(table.row_count)]
    return columns, rows


def cell(table: DataTable, row: str, column: str) -> str:
    columns, rows = labels(table)
    return str(table.get_cell_at(Coordinate(rows.index(row), columns.index(column) + 1)))


async def filter_queue(pilot, text: str) -> QueueScreen:
    app = pilot.app
    await pilot.press("escape")  # matrix → queue
    await settle(pilot)
    await pilot.press("slash")
    await settle(pilot)
    for char in text:
        await pilot.press(char if char != " " else "space")
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, QueueScreen)
    assert app.session.spec.text == text
    return app.screen


def header(queue: QueueScreen) -> list[str]:
    """The queue's column titles."""
    return str(queue.query_one(QueueHeader).render()).split()


async def open_question(pilot) -> QuestionScreen:
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(pilot.app.screen, QuestionScreen)
    return pilot.app.screen


async def test_memeye_matrix_filter_and_rerank_panel(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="tester", queue="all"))
    async with app.run_test(size=SIZE) as pilot:
        _screen, table = await open_matrix(pilot)
        report = report_json("srag_v")
        columns, rows = labels(table)
        assert columns == ["Y1 atomic", "Y2 relational", "Y3 evolutionary"]
        assert rows == ["X1 scene", "X2 region", "X3 instance", "X4 pixel"]
        expected = report["answer"]["by_cell"]["X4_Y3"]
        assert cell(table, "X4 pixel", "Y3 evolutionary").split() == [
            f"{expected['em']:.2f}",
            f"n={expected['n']}",
        ]

        queue = await filter_queue(pilot, "y:Y3")
        state = app.session
        assert len(state.rows) == report["answer"]["by_y"]["Y3"]["n"]
        assert set(state.run.table.y[table_rows(app)].tolist()) == {"Y3"}
        assert header(queue)[:3] == ["qid", "X", "Y"]

        screen = await open_question(pilot)
        panel = screen.query_one(CandidatesPanel)
        assert panel.mode == "rerank"
        assert "re-rank α=" in shown_text(panel.query_one("#rerank-params"))
        assert not panel.query_one("#panel-context").display


async def test_cuemem_matrix_filter_and_evidence_hits_panel(demo: Path) -> None:
    app = make_app(
        OpenRequest(
            [f"{demo / 'runs' / 'cue_text'}:history_with_qa_p0"], annotator="tester", queue="all"
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_matrix(pilot)
        report = report_json("cue_text:history_with_qa_p0")
        columns, rows = labels(table)
        assert rows == [
            "Entity Recall",
            "Long Pattern",
            "Personalized Recommendation",
            "Answer Refusal",
        ]
        assert columns == ["explicit", "implicit", "all", "EI-gap"]
        by_task = report["cue"]["by_task"]
        for task, label in (("long_pattern", "Long Pattern"), ("entity_recall", "Entity Recall")):
            for setting in ("explicit", "implicit"):
                assert cell(table, label, setting).split() == [
                    f"{by_task[task][setting]:.2f}",
                    f"n={by_task[task][f'n_{setting}']}",
                ]
            gap = by_task[task]["explicit"] - by_task[task]["implicit"]
            assert cell(table, label, "EI-gap").split()[0] == f"{gap:+.2f}"

        await pilot.press("v")  # the third view: task × modality
        await settle(pilot)
        columns, _rows = labels(table)
        assert columns == ["image", "audio", "text", "all"]

        queue = await filter_queue(pilot, "task:rec evidence:implicit")
        assert header(queue)[:3] == ["qid", "task", "evidence"]
        state = app.session
        axes = state.run.table.axis_labels
        assert len(state.rows) == by_task["personalized_recommendation"]["n_implicit"] > 0
        assert set(axes["task"][table_rows(app)].tolist()) == {"personalized_recommendation"}
        assert set(axes["evidence"][table_rows(app)].tolist()) == {"implicit"}

        screen = await open_question(pilot)
        panel = screen.query_one(CandidatesPanel)
        assert panel.mode == "hits"  # RQ1/RQ2: no scores
        context = shown_text(panel.query_one("#panel-context"))
        assert context.startswith("evidence hits") and "no retrieval scores" in context
        assert "\n" not in context  # one line, not half a screen
        for hidden in ("#rerank-params", "#rerank-question", "#rerank-run"):
            assert not panel.query_one(hidden).display
        gold = sum(c.is_gold for c in screen.candidates if c.in_top_k) or sum(
            c.is_gold for c in screen.candidates[: app.session.view.k]
        )
        assert f"evidence hits {gold} of" in context


async def test_cuemem_rq3_keeps_the_recency_rerank(demo: Path) -> None:
    app = make_app(OpenRequest([f"{demo / 'runs' / 'cue_mm'}:p0"], annotator="tester", queue="all"))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_question(pilot)
        panel = screen.query_one(CandidatesPanel)
        assert any(c.score is not None for c in screen.candidates)
        assert panel.mode == "rerank-hits"
        assert panel.query_one("#rerank-params").display
        assert not panel.query_one("#rerank-question").display  # no MemEye Y3 line here
        assert shown_text(panel.query_one("#panel-context")).startswith("evidence hits")


async def test_dmv_matrix_filter_and_retention_panel(demo: Path) -> None:
    app = make_app(
        OpenRequest([f"{demo / 'runs' / 'dmv_f2_demo'}:TextOnly"], annotator="tester", queue="all")
    )
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_matrix(pilot)
        report = report_json("dmv_f2_demo:TextOnly")
        tsr = report["tsr"]
        columns, rows = labels(table)
        assert rows == list(tsr["by_reach"]) == ["1", "2", "3"]
        assert columns == [*tsr["by_bank_size"], "all"]
        for reach, group in tsr["by_reach"].items():  # the "all" column is the retention curve
            assert cell(table, reach, "all").split() == [f"{group['tsr']:.2f}", f"n={group['n']}"]
        cells = {(c["row"], c["column"]): c for c in report["axes"]["views"][0]["correct"]["cells"]}
        expected = cells[("1", "9")]
        assert cell(table, "1", "9").split() == [f"{expected['value']:.2f}", f"n={expected['n']}"]
        assert "DMV-Bench: reach × bank size" in shown_text(screen.query_one("#matrix-title"))

        queue = await filter_queue(pilot, "reach:2 bank:>=9")
        assert header(queue)[:3] == ["qid", "reach", "bank"]
        state = app.session
        numbers = state.run.table.axis_numbers
        assert len(state.rows) == sum(
            c["n"] for (reach, bank), c in cells.items() if reach == "2" and int(bank) >= 9
        )
        assert set(numbers["reach"][table_rows(app)].tolist()) == {2.0}
        assert (numbers["bank"][table_rows(app)] >= 9).all()

        screen = await open_question(pilot)
        assert screen.query_one(QuestionPanelView).display
        panel = screen.query_one(CandidatesPanel)
        assert panel.mode == "context"
        assert not panel.query_one("#rerank-params").display
        context = shown_text(panel.query_one("#panel-context"))
        assert "retention: TSR by reach in this run" in context
        here = next(line for line in context.splitlines() if line.startswith("▶ reach"))
        assert here.split()[2] == "2"
        assert f"{tsr['by_reach']['2']['tsr']:.2f}" in here
        assert "recency" not in context and "Y3" not in context


async def test_open_dir_lists_exactly_the_runs_under_it(demo: Path) -> None:
    outside = demo / "elsewhere"  # beside runs/, so its dataset path still resolves
    shutil.copytree(demo / "runs" / "srag_v", outside / "srag_elsewhere")
    result = runner.invoke(cli_app, ["ingest", str(outside / "srag_elsewhere")])
    assert result.exit_code == 0, result.output
    # The store's last-opened run is from elsewhere: the bug opened it (or another) instead.
    assert runner.invoke(cli_app, ["ingest", str(demo / "runs" / "cue_mm")]).exit_code == 0

    app = make_app(OpenRequest([str(demo / "runs" / "dmv_f2_demo")], annotator="tester"))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if isinstance(app.screen, RunsScreen) and app.screen.runs:
                break
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen) and not app.session.is_open
        shown = [str(run["run_id"]) for run in screen.runs]
        assert sorted(shown) == sorted(
            f"dmv_f2_demo:{system}" for system in ("DualMem-a75", "TextOnly", "NoMemory")
        )
        assert screen.query_one(DataTable).row_count == 3
        assert "runs/dmv_f2_demo" in shown_text(screen.query_one("#runs-title"))

    app = make_app(OpenRequest([str(demo / "runs")], annotator="tester"))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(400):
            await pilot.pause(0.05)
            if isinstance(app.screen, RunsScreen) and app.screen.runs:
                break
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        paths = [str(run.get("path") or "") for run in screen.runs]
        root = str((demo / "runs").resolve())
        assert len(paths) > 3 and all(path.startswith(root) for path in paths), paths
        assert "srag_v" in {str(run["run_id"]) for run in screen.runs}  # the one under DIR
        assert not any(str(outside) in path for path in paths)


async def test_dmv_comparison_matrix_matches_compare(demo: Path) -> None:
    systems = [f"{demo / 'runs' / 'dmv_f2_demo'}:{name}" for name in ("TextOnly", "DualMem-a75")]
    app = make_app(OpenRequest(systems, annotator="tester"))
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_matrix(pilot)
        while screen.metric.key != "delta":
            await pilot.press("m")
            await settle(pilot)
        result = runner.invoke(
            cli_app,
            ["compare", "dmv_f2_demo:TextOnly", "dmv_f2_demo:DualMem-a75", "--format", "json"],
        )
        assert result.exit_code == 0, result.output
        view = json.loads(result.stdout)["delta"]["by_axes"][0]
        assert (view["rows"], view["columns"]) == ("reach", "bank")
        assert view["delta"]["cells"]
        for expected in view["delta"]["cells"]:
            assert cell(table, expected["row"], expected["column"]).split() == [
                f"{expected['value']:+.2f}",
                f"n={expected['n']}",
            ]
        for expected in view["delta"]["by_row"]:
            assert cell(table, expected["level"], "all").split()[0] == f"{expected['value']:+.2f}"
