"""The app's terminal figures (f on the matrix and question screens) draw the numbers
``memscope plot`` draws: each test renders the matplotlib figure with the pipeline
function recorded, opens the app, presses the key, waits for the worker and compares
the series the plot widget got. Also: the recency sweep is run-level (never recomputed
when moving between questions, nothing at all while hidden), the work happens off the UI
thread, and a too small pane says so.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import ready, settle

from memscope.adapters.cuemem import figure as cue_figure
from memscope.adapters.dmv import figure as dmv_figure
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.matrix import MatrixScreen
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.widgets.candidates import CandidatesPanel
from memscope.tui.widgets.figure import FigureView
from memscope.usecases.figures import data as figure_data
from memscope.usecases.figures import plots

pytest.importorskip("matplotlib")  # the test extra has it: `memscope plot` is the reference


class Recorder:
    """Wraps a pipeline function: every result, and the thread that computed it."""

    def __init__(self, function: Any) -> None:
        self.function, self.results, self.threads = function, [], []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self.function(*args, **kwargs)
        self.results.append(result)
        self.threads.append(threading.current_thread())
        return result


def plotted(
    monkeypatch, app, kind: str, runs: list[str], name: str, metric: str | None = None
) -> list[Any]:
    """What ``memscope plot KIND RUNS`` drew: ``name``'s results while rendering it."""
    recorder = Recorder(getattr(figure_data, name))
    monkeypatch.setattr(plots, name, recorder)
    out = Path(app.store.path).parent / f"{kind}.svg"
    with app.session.store_lock:
        plots.render(app.store, kind, runs, out, metric=metric)
    monkeypatch.setattr(plots, name, recorder.function)
    return recorder.results


def off_ui_thread(recorder: Recorder) -> bool:
    return bool(recorder.threads) and all(
        thread is not threading.main_thread() for thread in recorder.threads
    )


async def open_figure(pilot) -> FigureView:
    app = await ready(pilot)
    await pilot.press("m")
    await settle(pilot)
    assert isinstance(app.screen, MatrixScreen)
    figure = app.screen.query_one(FigureView)
    assert not figure.display, "the figure pane is off until asked for"
    await pilot.press("f")
    await settle(pilot)
    assert figure.display
    return figure


def charted(app, kind: str, runs: list[str], recorder: Recorder) -> list[Any]:
    """The charts a benchmark's figure hook (wrapped by ``recorder``) made while
    ``memscope plot KIND RUNS`` drew."""
    before = len(recorder.results)
    out = Path(app.store.path).parent / f"{kind}.svg"
    with app.session.store_lock:
        plots.render(app.store, kind, runs, out)
    return recorder.results[before:]


async def test_dmv_retention_curves_of_both_runs_are_the_plot_numbers(
    demo: Path, monkeypatch
) -> None:
    runs = [f"{demo / 'runs' / 'dmv_f2_demo'}:{system}" for system in ("TextOnly", "DualMem-a75")]
    app = make_app(OpenRequest(runs, annotator="alice", queue="all"))
    computed = Recorder(dmv_figure.retention_chart)  # DMV-Bench's own figure, its package's code
    monkeypatch.setattr(dmv_figure, "retention_chart", computed)
    async with app.run_test(size=(120, 34)) as pilot:
        figure = await open_figure(pilot)
        session = app.session.run
        assert off_ui_thread(computed)
        (expected,) = charted(app, "retention", [session.run_id, session.other_run_id], computed)
        assert figure.spec is not None and figure.spec.title.startswith("Retention: TSR by reach")
        assert [s.label for s in figure.spec.series] == ["TextOnly", "DualMem-a75"]
        for drawn, curve in zip(figure.spec.series, expected.series, strict=True):
            assert (drawn.xs, drawn.values) == (list(curve.xs), list(curve.values))
            assert (drawn.low, drawn.high) == (list(curve.low), list(curve.high))
        assert figure.spec.series[0].values != figure.spec.series[1].values
        # m changes the grid's metric, not the retention curve: drawn again from the cache.
        calls = len(computed.results)
        await pilot.press("m")
        await settle(pilot)
        assert len(computed.results) == calls and figure.spec.series[0].label == "TextOnly"
        await pilot.press("f")
        await settle(pilot)
        assert not figure.display


async def test_cue_bars_are_the_plot_numbers(demo: Path, monkeypatch) -> None:
    app = make_app(OpenRequest([f"{demo / 'runs' / 'cue_mm'}:p0"], annotator="alice", queue="all"))
    computed = Recorder(cue_figure.settings_chart)  # CUE-Mem's own figure, its package's code
    monkeypatch.setattr(cue_figure, "settings_chart", computed)
    async with app.run_test(size=(120, 34)) as pilot:
        figure = await open_figure(pilot)
        (bars,) = charted(app, "cue", [app.session.run.run_id], computed)
        assert figure.spec is not None and figure.spec.kind == "bars"
        explicit, implicit = figure.spec.series
        assert (explicit.label, implicit.label) == ("explicit", "implicit")
        assert [explicit.values, implicit.values] == [list(one.values) for one in bars.series]
        assert figure.spec.x_tick_labels == [task.replace("_", " ") for task in bars.categories]
        assert bars.summary.startswith("EI-Gap ") and bars.summary in figure.spec.title


async def test_memeye_lines_per_y_are_the_heatmap_numbers(demo: Path, monkeypatch) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(100, 30)) as pilot:
        figure = await open_figure(pilot)
        (grid,) = plotted(monkeypatch, app, "heatmap", ["srag_v"], "heatmap_grid")
        assert figure.spec is not None and figure.spec.title.startswith("EM by X level")
        assert [s.label for s in figure.spec.series] == list(grid.y_levels)
        for index, drawn in enumerate(figure.spec.series):
            assert drawn.values == grid.values[index]
        assert figure.spec.x_tick_labels == list(grid.x_levels)
        assert figure._plot is not None and figure._plot.display, "the plot fits at 100×30"
        # The next metric (Judge) redraws the lines from that metric's cells.
        await pilot.press("m")
        await settle(pilot)
        (judge,) = plotted(monkeypatch, app, "heatmap", ["srag_v"], "heatmap_grid", "judge")
        assert figure.spec.title.startswith("Judge by X level")
        assert [s.values for s in figure.spec.series] == judge.values


async def test_a_too_small_pane_says_so(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(80, 18)) as pilot:
        figure = await open_figure(pilot)
        assert figure.spec is not None and figure.too_small
        assert "The figure needs" in figure.message or "The figure needs" in str(
            figure.query_one(".figure-message").content
        )
        assert not figure._plot.display


def sweep_of(screen: QuestionScreen) -> FigureView:
    return screen.query_one(CandidatesPanel).query_one("#rerank-sweep", FigureView)


async def test_recency_sweep_is_the_plot_numbers_with_alpha_marked(demo: Path, monkeypatch) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        figure = sweep_of(screen)
        assert not figure.display
        await pilot.press("f")
        await settle(pilot)
        (sweep,) = plotted(monkeypatch, app, "recency", ["srag_v"], "recency_sweep")
        spec = figure.spec
        assert figure.display and spec is not None
        assert [s.label for s in spec.series] == ["Latest@K", "Rank-Inversion", "Stale-Dominance"]
        for drawn, curve in zip(spec.series, sweep.curves.values(), strict=True):
            assert (drawn.xs, drawn.values) == (curve.xs, curve.values)
            assert (drawn.low, drawn.high) == (curve.low, curve.high)
        assert spec.marker == 1.0 and f"n={sweep.n}" in spec.title
        await pilot.press("left_square_bracket", "left_square_bracket")
        await settle(pilot)
        assert (
            figure.spec.marker == pytest.approx(app.session.view.alpha)
            and app.session.view.alpha < 1
        )
        assert figure.spec.series[1].values == sweep.curves["rank_inversion"].values


async def test_sweep_is_not_computed_on_j_and_once_per_lambda_and_k(
    demo: Path, monkeypatch
) -> None:
    computed = Recorder(figure_data.recency_sweep)
    monkeypatch.setattr(figure_data, "recency_sweep", computed)
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        for _ in range(4):
            await pilot.press("j")
        await settle(pilot)
        assert computed.results == [], "hidden, the sweep is never computed"
        await pilot.press("f")
        await settle(pilot)
        assert len(computed.results) == 1 and off_ui_thread(computed)
        first = sweep_of(screen).spec
        for key in ("j", "j", "k", "left_square_bracket", "j"):
            await pilot.press(key)
            await settle(pilot)
        assert len(computed.results) == 1, "alpha and the question do not change the sweep"
        assert sweep_of(screen).spec.series == first.series
        await pilot.press("right_curly_bracket")  # lambda up: a new sweep
        await settle(pilot)
        assert len(computed.results) == 2
        assert sweep_of(screen).spec.title != first.title  # says the new lambda
        await pilot.press("left_curly_bracket")  # back: from the cache
        await settle(pilot)
        assert len(computed.results) == 2 and sweep_of(screen).spec.series == first.series
        await pilot.press("f")
        await settle(pilot)
        assert not sweep_of(screen).display


async def test_sweep_on_a_run_without_ranked_scores_says_why(demo: Path) -> None:
    app = make_app(OpenRequest([f"{demo / 'runs' / 'dmv_f2_demo'}:TextOnly"], annotator="alice"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        figure = sweep_of(app.screen)
        assert figure.spec is None and "no ranked, scored retrieval list" in figure.message


def test_plotext_is_imported_only_when_a_figure_is_drawn() -> None:
    import subprocess
    import sys

    code = (
        "import sys, memscope.tui.app, memscope.tui.screens.matrix, "
        "memscope.tui.screens.question, memscope.tui.widgets.candidates; "
        "print(sorted(m for m in ('textual_plotext', 'plotext') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"  # app start does not pay for it


def test_run_file_text_in_a_figure_is_made_printable() -> None:
    """Run ids and task names reach plotext, whose ANSI output is parsed again: an escape
    sequence from a run file (here a clipboard write, OSC 52) must not survive."""
    from memscope.tui.widgets.figure import FigureSpec, PlotSeries, legend, sanitised

    hostile = "run\x1b]52;c;aGk=\x07\x1b[31m"
    spec = FigureSpec(
        title=f"TSR of {hostile}",
        series=[PlotSeries(hostile, [1.0, 2.0], [0.5, 0.25], "#0072B2")],
        x_ticks=[1.0, 2.0],
        x_tick_labels=[hostile, "task"],
        note=f"n: {hostile} 3",
    )
    clean = sanitised(spec)
    texts = [clean.title, clean.note, *clean.x_tick_labels, clean.series[0].label]
    assert all("\x1b" not in text and "\x07" not in text for text in texts)
    assert "run" in clean.series[0].label  # the name is kept, its control bytes shown
    assert "\x1b" not in legend(clean).plain


def test_a_non_finite_value_is_left_out_of_a_figure_not_drawn() -> None:
    """A NaN or inf (an upstream rate over nothing) is not a point: plotext never sees it."""
    import plotext

    from memscope.tui.widgets.figure import FigureSpec, PlotSeries, draw

    spec = FigureSpec(
        title="t",
        series=[
            PlotSeries(
                "s",
                [1.0, 2.0, 3.0],
                [0.5, float("nan"), 0.25],
                "#0072B2",
                low=[0.4, float("inf"), 0.2],
                high=[0.6, float("nan"), 0.3],
            )
        ],
        x_ticks=[1.0, 2.0, 3.0],
    )
    draw(plotext, spec)
    plotext.plotsize(60, 15)
    drawn = plotext.build()
    assert "●" in drawn and "nan" not in drawn.lower()
    bars = FigureSpec(
        title="b",
        series=[PlotSeries("e", [1.0, 2.0], [float("nan"), 0.5], "#0072B2")],
        kind="bars",
        x_tick_labels=["a", "b"],
    )
    draw(plotext, bars)
    assert "█" in plotext.build()
