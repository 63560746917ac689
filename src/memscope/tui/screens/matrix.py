"""The matrix screen: the run's X×Y grid coloured by a metric, n in every cell.

``m`` picks the next metric (EM, Judge, Any-Clue, Latest@K, share labelled, counts of a
failure code, and Δ when two runs are compared); ``enter`` opens the queue of the cell
under the cursor. Values are computed in a worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from memscope.analysis.aggregate import X_LEVELS, Y_LEVELS
from memscope.errors import MemscopeError
from memscope.pipeline.triage_matrix import CellValue, MatrixMetric, available_metrics, cell_values
from memscope.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from memscope.tui.app import MemscopeApp

X_NAMES = {"X1": "scene", "X2": "region", "X3": "instance", "X4": "pixel"}
Y_NAMES = {"Y1": "atomic", "Y2": "relational", "Y3": "evolutionary"}


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
    values: dict[str, CellValue]


class MatrixScreen(Screen):
    """The X×Y matrix."""

    SCOPE = "matrix"

    BINDINGS = [
        Binding("enter", "open_cell", "Queue for cell", id="matrix.open"),
        Binding("m", "next_metric", "Next metric", id="matrix.metric"),
        Binding("escape", "back", "Back", id="matrix.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.metrics: list[MatrixMetric] = []
        self.metric_index = 0

    @property
    def memscope(self) -> MemscopeApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield Static(id="matrix-title", classes="screen-title")
        yield DataTable(id="matrix-table", cursor_type="cell", show_cursor=True)
        yield Static(id="matrix-legend", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("", key="x")
        for y in Y_LEVELS:
            table.add_column(f"{y} {Y_NAMES[y]}", key=y)

    def on_screen_resume(self) -> None:
        state = self.memscope.state
        if state is None:
            return
        session = state.session
        self.metrics = available_metrics(
            session.table, session.other is not None, session.data.has_retrievals
        )
        self.metric_index = min(self.metric_index, len(self.metrics) - 1)
        self.query_one(StatusBar).update(self.memscope.status_line(with_question=False))
        self._compute()

    @property
    def metric(self) -> MatrixMetric:
        """The metric the grid is coloured by."""
        return self.metrics[self.metric_index]

    def _compute(self) -> None:
        state = self.memscope.state
        waiting = (
            self.metric.key in ("any_clue", "latest_at_k") and not state.session.evidence_ready
        )
        self.query_one("#matrix-title", Static).update(
            Text.assemble(
                ("Matrix ", "bold"),
                (self.metric.title, "bold cyan"),
                ("  waiting for the retrieval evidence …" if waiting else "  computing …", "dim"),
            )
        )
        if not waiting:
            self._cells(self.metric, state.session, state.view.k)

    @work(thread=True, exclusive=True, exit_on_error=False, group="matrix")
    def _cells(self, metric: MatrixMetric, session: object, k: int) -> None:
        try:
            with self.memscope.store_lock:
                values = cell_values(
                    metric,
                    session.table,
                    session.data,
                    k,
                    session.other,  # type: ignore[attr-defined]
                    session.store,
                )  # type: ignore[attr-defined]
        except MemscopeError as error:
            self.app.call_from_thread(self.notify, error.message, severity="error", markup=False)
            values = {}
        self.post_message(MatrixComputed(metric, values))

    @on(MatrixComputed)
    def _computed(self, message: MatrixComputed) -> None:
        if message.metric != self.metric:
            return
        values = message.values
        table = self.query_one(DataTable)
        cursor = table.cursor_coordinate
        table.clear()
        counts = [cell.value for cell in values.values() if cell.value is not None]
        largest = max(counts) if counts else 0.0
        for x in X_LEVELS:
            cells = []
            for y in Y_LEVELS:
                cell = values.get(f"{x}_{y}")
                text = cell_text(self.metric, cell)
                text.stylize(cell_style(self.metric, cell, largest))
                cells.append(text)
            table.add_row(Text(f"{x} {X_NAMES[x]}", style="bold"), *cells, key=x)
        table.cursor_coordinate = cursor if cursor.column > 0 else cursor._replace(column=1)
        self.query_one("#matrix-title", Static).update(
            Text.assemble(
                ("Matrix ", "bold"),
                (self.metric.title, "bold cyan"),
                (f"  ({self.metric_index + 1}/{len(self.metrics)})", "dim"),
            )
        )
        keys = self.memscope.keys_for
        legend = Text("metrics: ", style="dim")
        for index, metric in enumerate(self.metrics):
            legend.append(metric.title, "bold cyan" if index == self.metric_index else "dim")
            legend.append(" · " if index < len(self.metrics) - 1 else "\n", "dim")
        legend.append(
            f"{keys('matrix.metric')}: next metric · {keys('matrix.open')}: queue for the cell · "
            f"{keys('matrix.back')}: back. X = visual granularity, Y = reasoning depth; n = questions the value is over.",
            "dim",
        )
        self.query_one("#matrix-legend", Static).update(legend)

    @on(DataTable.CellSelected)
    def _cell_selected(self, message: DataTable.CellSelected) -> None:
        message.stop()
        self.action_open_cell()

    def action_next_metric(self) -> None:
        if self.metrics:
            self.metric_index = (self.metric_index + 1) % len(self.metrics)
            self._compute()

    def action_open_cell(self) -> None:
        table = self.query_one(DataTable)
        row, column = table.cursor_coordinate
        if column == 0 or row >= len(X_LEVELS):
            self.notify("Move the cursor onto a cell (Y1–Y3 columns) first.", markup=False)
            return
        self.memscope.open_cell(f"{X_LEVELS[row]}_{Y_LEVELS[column - 1]}")

    def action_back(self) -> None:
        self.memscope.show_queue()
