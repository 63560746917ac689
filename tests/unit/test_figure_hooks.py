"""Issue 39, item 2: a benchmark's figure is code in its own package (``Benchmark.figure``, a
``BenchmarkFigure`` whose hook returns a ``Chart``), which ``memscope plot`` and the app draw
without knowing whose it is.

A plugin (a ToyBench clone, registered through a real entry point) declares a lines figure;
``plot NAME`` and ``plot figure`` draw it, a hook that raises is one message naming it, a
name of ``plot``'s own or of another benchmark's figure is refused. DMV-Bench's retention
curve and CUE-Mem's explicit/implicit bars are such hooks; a run asked for another
benchmark's figure is told whose it is.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.adapters.charts import BenchmarkFigure, Chart, ChartSeries
from memscope.adapters.registry import benchmark, unavailable
from memscope.cli import app
from memscope.store import Store
from memscope.usecases.runs.ingest import ingest_paths
from plugin_helpers import TOY, TOY_CLONE, install_plugins

FIGURED = (
    TOY_CLONE
    + """
    from memscope.plugin import BenchmarkFigure, Chart, ChartSeries
    from memscope_toybench import run

    class Reader(RenamedReader):
        def __init__(self):
            super().__init__(NAME)

    def chart(runs):
        lines = []
        for one in runs:
            correct = one.correct()
            lines.append(ChartSeries("toy " + one.run_id, (float(correct.mean()), 0.25),
                                     xs=(1.0, 2.0)))
        return Chart("Toy accuracy by step", tuple(lines), x_label="step", y_label="accuracy")

    def broken(runs):
        raise ZeroDivisionError("toy")
"""
)


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from install_plugins(tmp_path, monkeypatch)


def _install(plugins, name: str, figure: str) -> None:
    module = f"toy_{name}"
    plugins(
        {name: f"{module}:BENCHMARK"},
        {
            module: FIGURED.replace("NAME", repr(name))
            + f"    BENCHMARK = clone({name!r}, reader=Reader(), figure={figure})\n"
        },
    )


def _run(store: Store) -> str:
    from memscope.adapters import ReadOptions

    outcomes, failures = ingest_paths(store, [TOY / "runs" / "toy_bm25"], ReadOptions())
    assert not failures
    return outcomes[0].run_id


def test_a_plugins_figure_is_drawn_by_plot(plugins, store: Store, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    _install(plugins, "toyfig", 'BenchmarkFigure("toyline", "toy_toyfig:chart", overlay=True)')
    run_id = _run(store)
    runner = CliRunner()
    named = tmp_path / "named.svg"
    own = tmp_path / "own.svg"
    for kind, out in (("toyline", named), ("figure", own)):
        result = runner.invoke(app, ["plot", kind, run_id, "--out", str(out)])
        assert result.exit_code == 0, result.output
    text = named.read_text()
    assert "Toy accuracy by step" in text and f"toy {run_id}" in text and "accuracy" in text
    assert own.read_bytes() == named.read_bytes()  # `figure`: the run's benchmark's own
    # MemEye has none of its own: said, with what to draw instead.
    from memscope.adapters import ReadOptions

    root = Path(__file__).resolve().parents[2] / "runs" / "srag_v"
    assert not ingest_paths(store, [root], ReadOptions())[1]
    other = runner.invoke(app, ["plot", "toyline", "srag_v", "--out", str(tmp_path / "x.svg")])
    said = " ".join(other.output.split())
    assert other.exit_code == 1 and "MemEye declares no figure of its own" in said, said
    assert "the toyline figure is Toy" in said  # whose it is


def test_a_figure_that_raises_is_one_message_naming_it(plugins, store: Store, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    _install(plugins, "toybad", 'BenchmarkFigure("toybad", "toy_toybad:broken")')
    run_id = _run(store)
    result = CliRunner().invoke(app, ["plot", "figure", run_id, "--out", str(tmp_path / "a.svg")])
    assert result.exit_code != 0
    said = " ".join(result.output.split())
    assert "benchmark 'toybad': its figure 'toybad' failed (ZeroDivisionError: toy)" in said
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("figure", "said"),
    [
        ('BenchmarkFigure("heatmap", "toy_toyname:chart")', "one of memscope plot's own"),
        ('BenchmarkFigure("Toy Line", "toy_toyname:chart")', "lower-case identifier"),
        ('BenchmarkFigure("toyline", "not a hook")', "chart is not callable"),
        # API 1.2's names of the built-in figures: now their packages' code.
        ('"retention"', "is not a BenchmarkFigure"),
    ],
)
def test_a_bad_figure_is_refused_named(plugins, figure: str, said: str) -> None:
    _install(plugins, "toyname", figure)
    assert said in unavailable()["toyname"]


def test_two_benchmarks_cannot_declare_one_figure_name(plugins) -> None:
    figure = 'BenchmarkFigure("toyline", "toy_toya:chart")'
    plugins(
        {"toya": "toy_toya:BENCHMARK", "toyb": "toy_toyb:BENCHMARK"},
        {
            f"toy_{name}": FIGURED.replace("NAME", repr(name))
            + f"    BENCHMARK = clone({name!r}, reader=Reader(), figure={figure})\n"
            for name in ("toya", "toyb")
        },
    )
    refused = unavailable()
    assert any("its figure 'toyline' is benchmark" in why for why in refused.values()), refused


def test_the_default_figure_of_api_1_2_still_loads() -> None:
    from dataclasses import replace

    from memscope.adapters.charts import own_figure
    from memscope.adapters.spec_check import validate

    legacy = replace(benchmark("memeye"), figure="grid_lines")  # type: ignore[arg-type]
    assert validate(legacy) == [] and own_figure(legacy) is None


def test_a_run_asked_for_another_benchmarks_figure_is_told_whose(tmp_path: Path) -> None:
    """``plot retention`` of a CUE-Mem run names DMV-Bench and CUE-Mem's own figure."""
    pytest.importorskip("matplotlib")
    from memscope.adapters import ReadOptions
    from memscope.errors import InputError
    from memscope.usecases.figures.plots import render
    from memscope.usecases.runs.ingest import ingest_dir_runs

    store = Store(tmp_path / "s.duckdb")
    ingest_dir_runs(store, Path(__file__).resolve().parents[2] / "runs" / "cue_mm", ReadOptions())
    with pytest.raises(InputError) as raised:
        render(store, "retention", ["cue_mm:p0"], tmp_path / "a.svg")
    said = raised.value.message
    assert "DMV-Bench's" in said and "whose figure is cue" in said and "Try the cue" in said


def test_the_built_in_figures_are_hooks_in_their_own_packages() -> None:
    for name, kind, overlay in (("dmv", "retention", True), ("cuemem", "cue", False)):
        figure = benchmark(name).figure
        assert isinstance(figure, BenchmarkFigure) and figure.name == kind
        assert figure.overlay is overlay
        assert isinstance(figure.chart, str)
        assert figure.chart.startswith(f"memscope.adapters.{name}.")
    for name in ("memeye", "locomo", "longmemeval"):
        assert benchmark(name).figure is None  # the matrix's lines


def test_any_chart_becomes_a_terminal_figure() -> None:
    """The app draws a chart it has never heard of: lines with whiskers, or grouped bars."""
    from memscope.tui.widgets.figure import chart_spec

    lines = chart_spec(
        Chart(
            "T",
            (ChartSeries("a", (0.5, None), xs=(1.0, 2.5), low=(0.4, None), high=(0.6, None)),),
            x_label="x",
            y_label="never drawn",
            summary="s 1",
            note="n",
        )
    )
    assert (lines.title, lines.kind, lines.x_tick_labels, lines.y_label) == (
        "T · s 1",
        "lines",
        ["1", "2.5"],
        "",
    )
    assert lines.series[0].low == [0.4, None] and lines.note == "n"
    bars = chart_spec(
        Chart("B", (ChartSeries("e", (0.1, 0.2)),), shape="bars", categories=("a_b", "c"))
    )
    assert (bars.kind, bars.x_tick_labels, bars.series[0].xs) == ("bars", ["a b", "c"], [1.0, 2.0])
