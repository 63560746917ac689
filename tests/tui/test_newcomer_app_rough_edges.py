"""Rough edges a newcomer hit in the app (issue 41.20): the label bar's reason for no
suggestion, the matrix's "all" legend where some questions have no column level, and the
compared runs' Δ named as ``memscope compare`` names it (B − A)."""

from __future__ import annotations

from pathlib import Path

from helpers import ready, settle, shown_text

from memscope.triage.triage_matrix import ALL_COLUMN, CellValue, Grid, outside_columns
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.widgets.label_bar import suggestion_text


def test_no_suggestion_on_a_failing_question_says_no_rule_fits() -> None:
    failing = suggestion_text(None, "enter", None, failing=True).plain
    assert "answered correctly" not in failing and "no rule of the taxonomy fits" in failing
    passing = suggestion_text(None, "enter", None, failing=False).plain
    assert "it is answered correctly" in passing and "no rule" not in passing


def test_all_counts_the_questions_no_column_holds() -> None:
    """LoCoMo's Open-domain row: 13 questions in "all", 11 of them with an evidence age."""
    grid = Grid(
        "category",
        "evidence age",
        [("open_domain", "Open-domain"), ("temporal", "Temporal")],
        [("0-4", "0-4"), ("5+", "5+")],
        [(ALL_COLUMN, "all")],
        {
            ("open_domain", "0-4"): CellValue(0.5, 6),
            ("open_domain", "5+"): CellValue(0.4, 5),
            ("open_domain", ALL_COLUMN): CellValue(0.6, 13),
            ("temporal", "0-4"): CellValue(0.5, 4),
            ("temporal", ALL_COLUMN): CellValue(0.5, 4),
        },
    )
    assert outside_columns(grid) == 2


async def test_the_compared_delta_is_b_minus_a_as_compare_says(demo: Path) -> None:
    runs = [f"{demo / 'runs' / 'dmv_f2_demo'}:{name}" for name in ("TextOnly", "DualMem-a75")]
    app = make_app(OpenRequest(runs, annotator="tester"))
    async with app.run_test(size=(130, 40)) as pilot:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        titles = [metric.title for metric in screen.metrics]
        assert "Δ TSR (B − A)" in titles and not any("other − this" in t for t in titles)
        for _ in range(titles.index("Δ TSR (B − A)")):
            await pilot.press("m")
            await settle(pilot)
        legend = " ".join(shown_text(screen.query_one("#matrix-legend")).split())
        assert "Δ = B − A, as memscope compare A B: A = dmv_f2_demo:TextOnly (this run)" in legend
        assert "B = dmv_f2_demo:DualMem-a75" in legend


class RecordingPlot:
    """A stand-in for plotext's plot object: records the markers each call draws."""

    def __init__(self) -> None:
        self.markers: list[str] = []

    def scatter(self, xs, ys, color=None, marker=None) -> None:
        self.markers.append(marker)

    def plot(self, xs, ys, color=None, marker=None) -> None:
        self.markers.append(marker)

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: None


def test_nominal_categories_are_points_ordered_levels_are_lines() -> None:
    from memscope.adapters.dmv.axes import REACH_AXIS
    from memscope.adapters.locomo.axes import CATEGORY_AXIS
    from memscope.adapters.memeye.axes import X_AXIS
    from memscope.tui.widgets.figure import _ordered, draw, grid_lines_spec
    from memscope.usecases.figures.data import Curve

    assert not _ordered(CATEGORY_AXIS) and _ordered(REACH_AXIS) and _ordered(X_AXIS)
    curves = [Curve("0-4", [1.0, 2.0, 3.0], [0.5, 0.7, 0.2], n=[4, 5, 6])]
    levels = ("Multi-hop", "Temporal", "Open-domain")
    nominal = grid_lines_spec(curves, levels, "F1", ordered=False)
    plotted = RecordingPlot()
    draw(plotted, nominal)
    assert not nominal.joined and "·" not in plotted.markers and "●" in plotted.markers
    assert "no lines" in nominal.note
    ordered = RecordingPlot()
    draw(ordered, grid_lines_spec(curves, levels, "F1"))
    assert "·" in ordered.markers


async def test_the_sample_queue_opens_on_its_first_planned_question_marked(store) -> None:
    """The README's order: the first five minutes leave the app on q37 of the failing
    queue; ``--queue sample`` then opens on the plan's first question, and marks the
    planned rows (●) apart from the rest of the failures."""
    from memscope.adapters import ReadOptions
    from memscope.tui.screens.question import QuestionScreen
    from memscope.tui.widgets.queue_table import QueueHeader, QueueTable
    from memscope.usecases.labels.sample import open_sample
    from memscope.usecases.runs.ingest import ingest_dir

    run = Path(__file__).resolve().parents[2] / "runs" / "srag_v"
    first = make_app(OpenRequest([str(run)], annotator="alice", question="q37"))
    async with first.run_test() as pilot:
        await ready(pilot)
        await settle(pilot)
        assert isinstance(first.screen, QuestionScreen) and first.session.qid == "q37"
    run_id = ingest_dir(store, run, ReadOptions()).run_id
    plan, _new = open_sample(store, run_id, seed=7, sample_size=10)
    assert plan.qids[0] != "q37" and "q37" not in plan.planned
    app = make_app(OpenRequest([str(run)], annotator="alice", queue="sample"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert not isinstance(app.screen, QuestionScreen)
        assert app.session.qid == plan.qids[0] and app.session.position == 0
        table = app.screen.query_one(QueueTable)
        assert table.planned == frozenset(plan.planned)
        marks = [table._cell("planned", int(row))[0].strip() for row in table.rows]
        shown = [table._item(int(row)).qid for row in table.rows]
        assert shown == plan.qids
        assert marks == ["●" if qid in plan.planned else "·" for qid in shown]
        assert "plan" in str(app.screen.query_one(QueueHeader).render())


async def test_at_80_columns_the_status_bar_keeps_the_sample_count(store) -> None:
    from memscope.tui.widgets.status_bar import StatusBar

    run = Path(__file__).resolve().parents[2] / "runs" / "srag_v"
    from memscope.adapters import ReadOptions
    from memscope.usecases.labels.sample import open_sample
    from memscope.usecases.runs.ingest import ingest_dir

    open_sample(store, ingest_dir(store, run, ReadOptions()).run_id, seed=7, sample_size=10)
    app = make_app(OpenRequest([str(run)], annotator="alice", queue="sample"))
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot)
        bar = app.screen.query_one(StatusBar)
        line = str(bar.render()).rstrip()
        assert len(line) <= 80, line
        assert "sample " in line and "/10" in line and "labelled" in line, line


async def test_the_footer_leaves_out_keys_that_do_nothing(demo: Path) -> None:
    """MemEye's demo has no audio (no ``p``); a DMV-Bench probe has no round to caption and
    no scored pool to re-rank (no ``c``, no α)."""
    from memscope.tui.screens.question import QuestionScreen

    memeye = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="t", question="q37"))
    async with memeye.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await settle(pilot)
        screen = memeye.screen
        assert isinstance(screen, QuestionScreen)
        assert screen.check_action("alpha", (1,)) and screen.check_action("toggle_caption", ())
        assert not screen.check_action("play", ())
    dmv = make_app(
        OpenRequest([f"{demo / 'runs' / 'dmv_f2_demo'}:TextOnly"], annotator="t", question="q1")
    )
    async with dmv.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await settle(pilot)
        screen = dmv.screen
        assert isinstance(screen, QuestionScreen)
        for action in ("alpha", "toggle_caption", "play"):
            assert not screen.check_action(action, ()), action
