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
