"""The runs screen: every ingested run with its headline scores; open one, or mark two
with ``space`` and press ``enter`` to compare them."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from memscope.errors import MemscopeError
from memscope.triage.session import TriageSession
from memscope.tui import bindings
from memscope.tui.keymap import KeyNames
from memscope.tui.messages import OpenRuns, RunsListed, ShowScreen, WorkFailed
from memscope.tui.screens.base import SessionScreen
from memscope.tui.text import name, num, plain
from memscope.tui.widgets.footer import FittingFooter
from memscope.usecases.benchmarks import headline_name
from memscope.usecases.runs.store_access import list_runs

COLUMNS = (
    ("mark", ""),
    ("run", "run"),
    ("task", "task"),
    ("model", "model"),
    ("method", "method"),
    ("modality", "modality"),
    ("n", "n"),
    ("em", "score"),
    ("judge", "Judge"),
    ("retrieval", "retrieval"),
)


class RunsScreen(SessionScreen):
    """Ingested runs."""

    SCOPE = "runs"

    BINDINGS = bindings.RUNS

    def __init__(self, session: TriageSession, keys: KeyNames) -> None:
        super().__init__(session, keys)
        self.runs: list[dict[str, Any]] = []
        self.marked: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(
            Text("Runs in the store", style="bold"), id="runs-title", classes="screen-title"
        )
        yield DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="runs-hint", classes="hint")
        yield FittingFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, label in COLUMNS:
            table.add_column(label, key=key)

    def on_screen_resume(self) -> None:
        scope = self.session.runs_scope
        store = self.session.store
        self.query_one("#runs-title", Static).update(
            Text.assemble(
                ("Runs under ", "bold"),
                name(scope[0], "bold cyan"),
                (f"  ({len(scope[1])} runs; store {store.path})", "dim"),
            )
            if scope is not None
            else Text.assemble(("Runs in ", "bold"), plain(str(store.path), "dim", one_line=True))
        )
        self._list()
        self._hint()

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs")
    def _list(self) -> None:
        try:
            with self.session.using_store() as store:
                runs = list_runs(store)
            self.post_message(RunsListed(runs))
        except MemscopeError as error:
            self.post_message(WorkFailed("listing the runs", error))

    @on(RunsListed)
    def _listed(self, message: RunsListed) -> None:
        scope = self.session.runs_scope
        if scope is None:
            self.runs = message.runs
        else:  # exactly the runs under the directory opened, in the order found
            by_id = {str(run["run_id"]): run for run in message.runs}
            self.runs = [by_id[run_id] for run_id in scope[1] if run_id in by_id]
        self._fill()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        current = self.session.run.run_id if self.session.run is not None else None
        for run in self.runs:
            run_id = str(run["run_id"])
            mark = (
                f"[{self.marked.index(run_id) + 1}]"
                if run_id in self.marked
                else ("▶" if run_id == current else "")
            )
            table.add_row(
                Text(mark, style="bold yellow"),
                name(run_id, "bold"),
                *(
                    plain(run.get(name) or "–", one_line=True)
                    for name in ("task", "model", "method", "modality")
                ),
                Text(str(run.get("n_questions") or 0)),
                Text(f"{headline_name(run.get('benchmark'))} {num(run.get('em'))}"),
                Text(num(run.get("judge")) if run.get("n_judged") else "–"),
                Text(str(run.get("retrieval_kind") or "")),
                key=run_id,
            )
        if self.runs:
            table.move_cursor(row=min(cursor, len(self.runs) - 1))

    def _hint(self) -> None:
        keys = self.keys.keys_for
        marked = ", ".join(self.marked) or "none"
        self.query_one("#runs-hint", Static).update(
            Text(
                f"{keys('runs.open')}: open the run under the cursor, or compare the two marked runs · "
                f"{keys('runs.mark')}: mark / unmark (marked: {marked}) · {keys('runs.back')}: back\n"
                + (
                    "Only the runs under the directory opened are listed; memscope open DIR:PART opens one "
                    "directly."
                    if self.session.runs_scope is not None
                    else "More runs: memscope ingest PATH (every run below PATH), or memscope open RUN_A RUN_B to compare two."
                ),
                style="dim",
            )
        )

    def _cursor_run(self) -> str | None:
        table = self.query_one(DataTable)
        if not self.runs or table.cursor_row >= len(self.runs):
            return None
        return str(self.runs[table.cursor_row]["run_id"])

    def action_move(self, step: int) -> None:
        table = self.query_one(DataTable)
        if step > 0:
            table.action_cursor_down()
        else:
            table.action_cursor_up()

    def action_mark(self) -> None:
        run_id = self._cursor_run()
        if run_id is None:
            return
        if run_id in self.marked:
            self.marked.remove(run_id)
        else:
            self.marked = (self.marked + [run_id])[-2:]
        self._fill()
        self._hint()

    @on(DataTable.RowSelected)
    def _row_selected(self, message: DataTable.RowSelected) -> None:
        message.stop()
        self.action_open()

    def action_open(self) -> None:
        if len(self.marked) == 2:
            self.post_message(OpenRuns(list(self.marked)))
            self.marked = []
            return
        run_id = self._cursor_run()
        if run_id is not None:
            self.post_message(OpenRuns([run_id]))

    def action_back(self) -> None:
        if self.session.is_open:
            self.post_message(ShowScreen("queue"))
