"""The matrix screen: the run's grid on its benchmark's own axes, coloured by a metric, n
in every cell.

MemEye: X (visual granularity) × Y (reasoning depth); CUE-Mem: task × evidence (``v``:
task × modality); DMV-Bench: reach × bank size (``v``: reach × encoding position), each
with an "all" column. ``m`` picks the next metric (the benchmark's own, share labelled,
counts of a failure code, and Δ when two runs are compared); ``enter`` opens the queue of
the cell under the cursor (for CUE-Mem and DMV-Bench as a filter in the axes' words,
e.g. ``reach:2 bank:9``); ``f`` shows or hides the figure pane under the grid: the
benchmark's own figure (DMV-Bench's retention curve, both runs when two are compared, as
its figure overlays runs; CUE-Mem's explicit vs implicit bars), else the metric per row
level, one line per column level (MemEye: per X level, one line per Y), the numbers of
``memscope plot``.
Values and figures are computed in workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import DataTable, Static

from memscope.errors import MemscopeError
from memscope.textsafe import printable_id
from memscope.triage.loaded_run import label_codes
from memscope.triage.notice import Notice
from memscope.triage.session import TriageSession
from memscope.triage.triage_matrix import (
    ALL_COLUMN,
    EI_GAP_COLUMN,
    CellValue,
    Grid,
    MatrixMetric,
    available_metrics,
    caches_by_parameters,
    grid_values,
    matrix_table,
    needs_evidence,
    outside_columns,
)
from memscope.tui import bindings
from memscope.tui.keymap import KeyNames
from memscope.tui.messages import QueueChanged, ShowScreen
from memscope.tui.screens.base import SessionScreen
from memscope.tui.widgets.figure import FigureSpec, FigureView, matrix_figure
from memscope.tui.widgets.footer import FittingFooter
from memscope.tui.widgets.status_bar import StatusBar
from memscope.usecases.benchmarks import Benchmark, spec_of
from memscope.usecases.figures.own import own_figure

if TYPE_CHECKING:
    from memscope.triage.loaded_run import LoadedRun


def cell_style(metric: MatrixMetric, cell: CellValue | None, largest: float) -> str:
    """Background colour: red→green for rates, blue intensity for counts, red/green for Δ."""
    if cell is None or cell.value is None:
        return "dim"
    value = cell.value
    # White on the dark red, black on the light colours: readable on both.
    if metric.kind == "rate":
        if value < 0.34:
            return "bold white on red3"
        return "black on " + (
            "dark_orange" if value < 0.5 else "yellow3" if value < 0.67 else "green3"
        )
    if metric.kind == "delta":
        return (
            "bold white on red3"
            if value < -0.05
            else "black on " + ("green3" if value > 0.05 else "grey50")
        )
    share = value / largest if largest else 0.0
    return "white on " + ("grey23" if share == 0 else "blue3" if share < 0.5 else "blue1")


def cell_text(metric: MatrixMetric, cell: CellValue | None) -> Text:
    """``0.62  n=12`` (or ``–`` for an empty cell)."""
    if cell is None:
        return Text("   –   ", style="dim")
    if cell.value is None:
        return Text(f"  –  n={cell.n}", style="dim")
    if metric.kind == "count":
        return Text(f" {int(cell.value):>3} of {cell.n} ")
    if metric.kind == "delta":
        return Text(f" {cell.value:+.2f}  n={cell.n} ")
    return Text(f" {cell.value:.2f}  n={cell.n} ")


@dataclass
class MatrixComputed(Message):
    """Cell values for ``metric`` are ready."""

    metric: MatrixMetric
    view: int
    grid: Grid | None


@dataclass
class MatrixFigureComputed(Message):
    """The figure for ``key`` is ready (``spec``), or why there is none (``error``)."""

    key: tuple[str, ...]
    spec: FigureSpec | None
    error: str = ""


class MatrixScreen(SessionScreen):
    """The X×Y matrix."""

    SCOPE = "matrix"

    BINDINGS = bindings.MATRIX

    def __init__(self, session: TriageSession, keys: KeyNames) -> None:
        super().__init__(session, keys)
        self.metrics: list[MatrixMetric] = []
        self.metric_index = 0
        self.view_index = 0
        self.grid: Grid | None = None
        self._columns: list[str] = []
        self._grid_for: tuple[MatrixMetric, int] | None = None
        self._figures: dict[tuple[str, ...], FigureSpec] = {}
        self._figure_drawn: tuple[str, ...] | None = None
        self._grids: dict[tuple[MatrixMetric, int, int], Grid] = {}
        """Grids computed for this run by (metric, view, K), but those counting labels."""
        self._grids_run: LoadedRun | None = None
        """Figures that depend on the run(s) only (and, for MemEye, on EM / Judge)."""

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield Static(id="matrix-title", classes="screen-title")
        yield DataTable(id="matrix-table", cursor_type="cell", show_cursor=True)
        figure = FigureView(id="matrix-figure")
        figure.display = False
        yield figure
        yield Static(id="matrix-legend", classes="hint")
        yield FittingFooter()

    def on_screen_resume(self) -> None:
        state = self.session
        if state.run is None:
            return
        session = state.run
        info = state.run_info()
        if info is None:
            self.tell(Notice("The run cannot be read from the store now.", severity="error"))
            return
        self.metrics = available_metrics(
            spec_of(info.benchmark),
            session.other_run_id is not None,
            info.has_retrievals,
            self._label_codes(),
            session.suggested_codes,
        )
        self.metric_index = min(self.metric_index, len(self.metrics) - 1)
        self.view_index = min(self.view_index, len(self._axes().views) - 1)
        self.query_one(StatusBar).show(state.status_view(with_question=False))
        self.query_one(FigureView).hint = self.keys.keys_for("matrix.figure")
        self._compute()
        if self.figure_shown:
            self._show_figure()

    @property
    def metric(self) -> MatrixMetric:
        """The metric the grid is coloured by."""
        return self.metrics[self.metric_index]

    def _compute(self) -> None:
        state = self.session
        if state.run is None:
            return
        if self._grids_run is not state.run:  # another run (or the same, reloaded)
            self._grids_run, self._grids = state.run, {}
        key = (self.metric, self.view_index, state.view.k)
        cached = self._grids.get(key)
        if cached is not None:
            self.post_message(MatrixComputed(self.metric, self.view_index, cached))
            return
        self.query_one("#matrix-title", Static).update(
            Text.assemble(
                ("Matrix ", "bold"),
                (self.metric.title, "bold cyan"),
                ("  computing …", "dim"),
            )
        )
        # The session's small label dict, copied here: the worker must not see it change.
        labels = self._label_codes()
        self._cells(self.metric, self.view_index, state.run, state.view.k, labels)

    def _label_codes(self) -> dict[str, list[str]]:
        """qid -> the codes of its label as saved (the session's labels)."""
        run = self.session.run
        if run is None:
            return {}
        return {qid: label_codes(label) for qid, label in run.labels.items()}

    @work(thread=True, exclusive=True, exit_on_error=False, group="matrix", description="matrix")
    def _cells(
        self,
        metric: MatrixMetric,
        view: int,
        session: LoadedRun,
        k: int,
        labels: dict[str, list[str]],
    ) -> None:
        """One grid in the background, from the columns its metric needs, read for it
        and dropped after (cached by metric, view and K unless it counts labels)."""
        grid: Grid | None
        try:
            state = self.session
            data = state.run_columns(session.run_id, evidence=needs_evidence(metric))
            other_id = session.other_run_id
            other = (
                state.run_columns(other_id, evidence=False)
                if other_id is not None and metric.key == "delta"
                else None
            )
            # qid -> code for a "suggested CODE" count only, dropped with the table.
            suggested = state.run_suggested(session) if metric.key.startswith("suggested:") else {}
            table = matrix_table(data, labels, suggested, other)
            with state.using_store() as store:
                grid = grid_values(metric, table, data, k, table.axes.views[view], other_id, store)
        except MemscopeError as error:
            self.app.call_from_thread(self.notify, error.message, severity="error", markup=False)
            grid = None
        if grid is not None and caches_by_parameters(metric):
            self.app.call_from_thread(self._keep_grid, session, (metric, view, k), grid)
        self.post_message(MatrixComputed(metric, view, grid))

    def _keep_grid(
        self, session: LoadedRun, key: tuple[MatrixMetric, int, int], grid: Grid
    ) -> None:
        if self._grids_run is session:
            self._grids[key] = grid

    @on(MatrixComputed)
    def _computed(self, message: MatrixComputed) -> None:
        if message.metric != self.metric or message.view != self.view_index:
            return
        grid = self.grid = message.grid
        self._grid_for = (message.metric, message.view) if grid is not None else None
        if grid is None:
            return
        table = self.query_one(DataTable)
        cursor = table.cursor_coordinate
        columns = [value for value, _ in grid.columns] + [value for value, _ in grid.extra_columns]
        if columns != self._columns:
            table.clear(columns=True)
            corner = self._style().corner or f"{grid.row_title} ╲ {grid.column_title}"
            table.add_column(corner, key="__rows__")
            for value, label in [*grid.columns, *grid.extra_columns]:
                table.add_column(label, key=value)
            self._columns = columns
        else:
            table.clear()
        counts = [cell.value for cell in grid.cells.values() if cell.value is not None]
        largest = max(counts) if counts else 0.0
        for row, row_label in grid.rows:
            cells = []
            for column in columns:
                cell = grid.cells.get((row, column))
                metric = self.metric
                if column == EI_GAP_COLUMN:
                    metric = MatrixMetric("ei_gap", "EI-gap", "delta")
                text = cell_text(metric, cell)
                text.stylize(cell_style(metric, cell, largest))
                cells.append(text)
            table.add_row(Text(row_label, style="bold"), *cells, key=row)
        table.cursor_coordinate = cursor if cursor.column > 0 else cursor._replace(column=1)
        axes = self._axes()
        views = axes.views
        self.query_one("#matrix-title", Static).update(
            Text.assemble(
                ("Matrix ", "bold"),
                (self.metric.title, "bold cyan"),
                (f"  ({self.metric_index + 1}/{len(self.metrics)})", "dim"),
                (f"   {axes.name}: {grid.row_title} × {grid.column_title}", "bold"),
                (f"  (view {self.view_index + 1}/{len(views)})" if len(views) > 1 else "", "dim"),
            )
        )
        self._show_legend(grid)
        if self.figure_shown:
            self._show_figure()  # follow the metric (and the grid, when drawn from it)

    def _show_legend(self, grid: Grid) -> None:
        """The metrics, the keys and what the axes mean (keys only while the figure shows)."""
        keys = self.keys.keys_for
        axes = self._axes()
        views = axes.views
        compact = self.figure_shown  # the figure needs the rows: keys only
        legend = Text("" if compact else "metrics: ", style="dim")
        for index, metric in enumerate([] if compact else self.metrics):
            legend.append(metric.title, "bold cyan" if index == self.metric_index else "dim")
            legend.append(" · " if index < len(self.metrics) - 1 else "\n", "dim")
        view_key = (
            f"{keys('matrix.view')}: next view ({' · '.join(f'{v.rows} × {v.columns}' for v in views)}) · "
            if len(views) > 1
            else ""
        )
        outside = outside_columns(grid) if grid.extra_columns else 0
        every = (
            f" all = every {axes.word('question', 'question')} of the row, {outside} of them in no "
            f"column (no {grid.column_title} known)"
            if outside
            else " all = every column together"
        )
        extra = (
            f"{every}; EI-gap = explicit − implicit."
            if any(c == EI_GAP_COLUMN for c, _ in grid.extra_columns)
            else f"{every}."
            if grid.extra_columns
            else ""
        )
        run = self.session.run
        if (
            run is not None
            and run.other_run_id is not None
            and self.metrics[self.metric_index].key == "delta"
        ):
            extra += (
                f" Δ = B − A, as memscope compare A B: A = {printable_id(run.run_id)} "
                f"(this run), B = {printable_id(run.other_run_id)}."
            )
        what = self._style().legend or f"rows = {grid.row_title}, columns = {grid.column_title}"
        spec = self.session.spec
        if not compact and (spec.text.strip() or spec.cell or spec.kind != "all"):
            # The grid is of the whole run; say so rather than seem to follow the queue.
            legend.append(
                f"Over every question of the run: the queue's '{spec.describe()}' does not apply here.\n",
                "yellow",
            )
        legend.append(
            f"{keys('matrix.metric')}/{keys('matrix.metric_back')}: next/previous metric · {view_key}"
            f"{keys('matrix.open')}: all the cell's questions, failing first · "
            f"{keys('matrix.figure')}: figure {'off' if compact else 'on'} · "
            f"{keys('matrix.back')}: back."
            + (
                ""
                if compact
                else f" {what}; n = {axes.word('question', 'question')}s the value is over.{extra}"
            ),
            "dim",
        )
        self.query_one("#matrix-legend", Static).update(legend)

    @on(DataTable.CellSelected)
    def _cell_selected(self, message: DataTable.CellSelected) -> None:
        message.stop()
        self.action_open_cell()

    def action_next_metric(self, step: int = 1) -> None:
        if self.metrics:
            self.metric_index = (self.metric_index + step) % len(self.metrics)
            self._compute()

    def action_next_view(self) -> None:
        views = self._axes().views if self.session.run is not None else ()
        if len(views) > 1:
            self.view_index = (self.view_index + 1) % len(views)
            self._compute()
        else:
            self.notify("This benchmark has one matrix view.", markup=False)

    # -- the figure pane ---------------------------------------------------------------

    @property
    def figure_shown(self) -> bool:
        """Whether the figure pane is showing."""
        return bool(self.query_one(FigureView).display)

    def action_toggle_figure(self) -> None:
        figure = self.query_one(FigureView)
        figure.display = not figure.display
        self._figure_drawn = None
        self.set_class(bool(figure.display), "-figure")
        if figure.display:
            self._show_figure()
        if self.grid is not None:
            self._show_legend(self.grid)

    def _figure_key(self) -> tuple[str, ...]:
        """What the figure depends on: the run(s), and for the grid-lines figure (MemEye) the
        metric (EM and Judge from the report, any other from the grid on screen)."""
        session = self.session.run
        assert session is not None  # the matrix is shown only once a run is loaded
        spec = self._spec()
        benchmark = spec.axes.benchmark
        runs = (session.run_id, session.other_run_id or "")
        if own_figure(spec) is not None:  # the benchmark's own figure: of the run(s) only
            return (benchmark, *runs, "runs")
        if self.metric.key in ("em", "judge"):
            return (benchmark, *runs, self.metric.key, "report")
        return (benchmark, *runs, self.metric.key, str(self.view_index), "grid")

    def _show_figure(self) -> None:
        figure = self.query_one(FigureView)
        key = self._figure_key()
        if key in self._figures:
            if self._figure_drawn != key:
                self._figure_drawn = key
                figure.show(self._figures[key])
            return
        self._figure_drawn = None
        if key[-1] == "grid" and self._grid_for != (self.metric, self.view_index):
            figure.show_message("The figure follows the grid: waiting for its values …")
            return
        figure.show_message("computing the figure …")
        session = self.session.run
        assert session is not None
        self._figure(
            key,
            self._spec().axes.benchmark,
            session.run_id,
            session.other_run_id,
            self.metric,
            self.grid if key[-1] == "grid" else None,
        )

    @work(
        thread=True,
        exclusive=True,
        exit_on_error=False,
        group="matrix-figure",
        description="matrix figure",
    )
    def _figure(
        self,
        key: tuple[str, ...],
        benchmark: str,
        run_id: str,
        other_run_id: str | None,
        metric: MatrixMetric,
        grid: Grid | None,
    ) -> None:
        """The figure in the background, from the columns ``memscope plot`` reads, read
        for it and dropped after (the figure is cached by what it depends on)."""
        try:
            # A grid-lines figure of another metric draws the grid on screen: the run's
            # scores alone say which benchmark it is.
            data = self.session.run_columns(run_id, evidence=key[-1] != "grid")
            # The compared run is read only for a figure that draws it too.
            own = own_figure(data.spec)
            other = (
                self.session.run_columns(other_run_id, evidence=True)
                if other_run_id is not None and own is not None and own.overlay
                else None
            )
            spec = matrix_figure(data, other, metric.key, metric.title, metric.kind, grid)
        except MemscopeError as error:
            self.post_message(MatrixFigureComputed(key, None, error.message))
            return
        self.post_message(MatrixFigureComputed(key, spec))

    @on(MatrixFigureComputed)
    def _figure_computed(self, message: MatrixFigureComputed) -> None:
        if message.spec is not None and message.key[-1] != "grid":
            self._figures[message.key] = message.spec
        if not self.figure_shown or message.key != self._figure_key():
            return
        figure = self.query_one(FigureView)
        if message.spec is None:
            figure.show_message(f"No figure: {message.error}")
        else:
            self._figure_drawn = message.key if message.key[-1] != "grid" else None
            figure.show(message.spec)

    def action_open_cell(self) -> None:
        table = self.query_one(DataTable)
        grid = self.grid
        row, column = table.cursor_coordinate
        if grid is None or column == 0 or row >= len(grid.rows):
            self.notify("Move the cursor onto a cell first.", markup=False)
            return
        axes = self._axes()
        view = axes.views[self.view_index]
        row_value = grid.rows[row][0]
        columns = [value for value, _ in grid.columns] + [v for v, _ in grid.extra_columns]
        column_value = columns[column - 1]
        if self._style().cell_queue == "cell":
            self._open_queue(cell=f"{row_value}_{column_value}")
            return
        terms = [f"{view.rows}:{_filter_word(axes.require(view.rows), row_value)}"]
        if column_value not in (ALL_COLUMN, EI_GAP_COLUMN):
            terms.append(f"{view.columns}:{_filter_word(axes.require(view.columns), column_value)}")
        self._open_queue(text=" ".join(terms), cell=None)

    def _open_queue(self, **changes: Any) -> None:
        """The queue of the cell: all its questions, failing first; esc there comes back."""
        notice = self.session.open_cell_queue(True, **changes)
        if notice is not None:
            self.tell(notice)
            return
        self.post_message(QueueChanged())
        self.post_message(ShowScreen("queue"))

    def _spec(self) -> Benchmark:
        """The spec of the run's benchmark (read with the run's description)."""
        info = self.session.run_info()
        assert info is not None  # the matrix is shown only once a run is loaded and read
        return spec_of(info.benchmark)

    def _axes(self) -> Any:
        return self._spec().axes

    def _style(self) -> Any:
        """How the run's benchmark shows its matrix (``Benchmark.matrix``)."""
        return self._spec().matrix

    def action_back(self) -> None:
        self.post_message(ShowScreen("queue"))

    def action_filter(self) -> None:
        self.post_message(ShowScreen("queue", filter_focus=True))


def _filter_word(axis: Any, value: str) -> str:
    """The shortest filter word for a level (``rec`` for Personalized Recommendation)."""
    level = axis.level(value)
    return (level.short or level.value) if level is not None else value
