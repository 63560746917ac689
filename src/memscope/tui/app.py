"""The triage app: composes the screens, routes messages and owns the workers.

``make_app`` checks everything that can be checked before the terminal is taken over
(config file, key bindings, queue and cell options) and builds the app; ``memscope open``
runs it. The app loads the run once in a worker, works from memory, and opens short store
connections only to write labels and remember the queue position. One app per store may
label (the writer lease); a second one browses read-only and says why.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.timer import Timer

from memscope.config import Config, load_config
from memscope.errors import MemscopeError
from memscope.pipeline.store_access import (
    ReadOptions,
    Store,
    WriterLease,
    open_store,
    read_options,
)
from memscope.pipeline.triage import QUEUE_KINDS, QueueSpec, parse_cell
from memscope.pipeline.triage_session import (
    open_session,
    resolve_refs,
    runs_in_dir,
)
from memscope.textsafe import printable
from memscope.tui.background import BackgroundWork
from memscope.tui.commands import MemscopeCommands
from memscope.tui.heap import keep_loaded_run_out_of_gc, let_gc_see_loaded_runs
from memscope.tui.keymap import (
    BindingInfo,
    catalogue,
    code_bindings,
    describe_keys,
    validate_keymap,
)
from memscope.tui.label_controller import LabelController
from memscope.tui.messages import (
    LabelFailed,
    LabelSaved,
    LabelsWaiting,
    LoadProgressed,
    RunRerunFinished,
    RunsScoped,
    SessionLoaded,
    WorkFailed,
)
from memscope.tui.navigation import Navigation
from memscope.tui.triage_state import TriageState, ViewParams
from memscope.tui.widgets.status_bar import status_text


class MemscopeApp(Navigation, BackgroundWork, App[None]):
    """memscope's triage app (build it with :func:`make_app`)."""

    CSS_PATH = "app.tcss"
    TITLE = "memscope"
    COMMANDS = App.COMMANDS | {MemscopeCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("r", "show_runs", "Runs", id="app.runs"),
        Binding("m", "show_matrix", "Matrix", id="app.matrix"),
        Binding("e", "export", "Export labels", show=False, id="app.export"),
    ]

    def __init__(
        self,
        *,
        store: Store,
        run_refs: list[str],
        options: ReadOptions,
        config: Config,
        taxonomy: Any,
        keymap: dict[str, str],
        annotator: str,
        question: str | None = None,
        queue: str | None = None,
        cell: str | None = None,
    ) -> None:
        super().__init__()
        self.store, self.run_refs, self.options = store, run_refs, options
        self.config, self.taxonomy, self.user_keymap = config, taxonomy, keymap
        self.annotator = annotator
        self.start = {"question": question, "queue": queue, "cell": cell}
        self.state: TriageState | None = None
        self.runs_scope: tuple[str, list[str]] | None = None
        """(directory, run ids) when the path opened holds several runs: the runs screen
        lists exactly those."""
        self.lease = WriterLease(store.path, annotator)
        self.read_only_reason: str | None = None
        self.labels = LabelController(self)
        self.player: Any = None
        self._position_timer: Timer | None = None
        self._position_dirty = False
        self._rerank_timer: Timer | None = None
        self._catalogue: dict[str, BindingInfo] | None = None
        self._quit_when_saved = False
        self._run_reranks: dict[tuple[str, str], RunRerunFinished] = {}
        self._reranks_running: set[tuple[str, str]] = set()
        self.store_lock = threading.Lock()
        self.matrix_return: Any = None
        """The queue spec a matrix cell's queue replaced (esc goes back to it and the matrix)."""
        self.last_export: str | None = None
        """Where ``e`` last exported the labels this session (None: not yet)."""
        """Held by every worker while it uses the store: DuckDB refuses a read-only and a
        read-write connection to one file open at once in the same process."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast of the app (screens' and widgets' too) passes the one sanitiser."""
        super().notify(
            printable(message),
            title=printable(title, keep_newlines=False),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    # -- start and stop ------------------------------------------------------------------

    def on_mount(self) -> None:
        self.set_keymap(self.user_keymap)
        if not self.lease.acquire():
            self.read_only_reason = (
                f"another memscope app ({self.lease.current_holder()}) is labelling this store; "
                "browsing works, close that app to label here"
            )
        self.install_screens()
        if self.read_only_reason is None:
            self.labels.restore_pending()
        self.push_loading(" ".join(self.run_refs) or "the last run")
        self.load_session(self.run_refs)

    def get_system_commands(self, screen: Any) -> Any:
        """Textual's own palette commands, kept apart under "Textual: …"."""
        from memscope.tui.commands import textual_commands

        return textual_commands(super().get_system_commands(screen))

    async def action_quit(self) -> None:
        """Quit, but only once every label change in flight is committed."""
        pending = self.labels.pending_total()
        if pending and self.labels.queue.waiting is not None:
            if self._quit_when_saved:  # asked already: the journal keeps them for next time
                self.exit()
                return
            self._quit_when_saved = True
            self.notify(
                f"{pending} label change(s) are not saved yet: the store is busy. They are kept "
                f"in {self.labels.queue.journal.path if self.labels.queue.journal else 'memory'} "
                "and saved at the next start. Press quit again to quit now, or wait.",
                severity="warning",
                title="Quit with labels pending?",
                markup=False,
            )
            return
        if self.labels.queue.in_flight:
            self._quit_when_saved = True
            self.notify("Saving the last label change, then quitting …", markup=False)
            return
        self.exit()

    def on_unmount(self) -> None:
        self.labels.queue.stop_lingering()
        self.save_position_now()
        self.lease.release()
        if self.player is not None:
            self.player.close()

    @work(thread=True, exclusive=True, exit_on_error=False, group="load")
    def load_session(self, refs: list[str], question: str | None = None) -> None:
        """Ingest what is new and load the run(s) into memory (posts SessionLoaded)."""
        let_gc_see_loaded_runs()
        say = lambda text: self.post_message(LoadProgressed(text))  # noqa: E731 - a one-line callback
        try:
            with self.store_lock, self.store.reading():  # one connection for the whole load
                found = (
                    runs_in_dir(self.store, refs[0], self.options, say) if len(refs) == 1 else None
                )
                if found is not None and len(found.run_ids) != 1:
                    self.post_message(RunsScoped(found.path, found.run_ids, found.notes))
                    return
                run_ids = (
                    found.run_ids
                    if found is not None
                    else resolve_refs(self.store, refs or [None], self.options, say)
                )
                session = open_session(
                    self.store,
                    run_ids,
                    self.annotator,
                    say,
                    with_suggestions=False,
                    with_evidence=False,
                )
        except MemscopeError as error:
            self.post_message(WorkFailed("opening the run", error, fatal=True))
            return
        self.post_message(SessionLoaded(session, question))

    @on(RunsScoped)
    def _runs_scoped(self, message: RunsScoped) -> None:
        self.runs_scope = (message.path, list(message.run_ids))
        for note in message.notes:
            self.notify(note, severity="warning", markup=False)
        self._main("runs")

    @on(LoadProgressed)
    def _load_progressed(self, message: LoadProgressed) -> None:
        self.loading_step(message.text)

    @on(SessionLoaded)
    def _session_loaded(self, message: SessionLoaded) -> None:
        session = message.session
        saved = session.saved
        first_open = self.state is None
        spec = QueueSpec.from_json(saved.queue if saved else None)
        if first_open and (self.start["queue"] or self.start["cell"]):
            spec = spec.with_changes(
                kind=self.start["queue"] or spec.kind, cell=self.start["cell"], text=""
            )
        # Re-ranking starts from the run's own order each time (alpha 1): a remembered alpha
        # would silently reorder the candidates the next day.
        scope = (saved.view or {}).get("rerank_scope") if saved is not None else None
        self.state = TriageState(
            session,
            view=ViewParams(
                k=session.k, scope=scope if scope in ("carry", "question") else "carry"
            ),
        )
        try:
            self.state.apply(spec, keep_qid=saved.qid if saved else None)
        except MemscopeError:
            self.state.apply(QueueSpec())
        for note in session.notes:
            self.notify(note, severity="warning", markup=False)
        if first_open and self.state.spec.kind == "sample" and session.sample is not None:
            self.notify(session.sample.describe(), markup=False)
        question = message.question or (self.start["question"] if first_open else None)
        if question and not self.state.jump_to_qid(question):
            self.notify(
                f"No question {question!r} in run {session.run_id}; showing the queue.",
                severity="warning",
                markup=False,
            )
            question = None
        resume_question = saved is not None and (saved.view or {}).get("screen") == "question"
        self.enter_session(
            open_question=bool(question)
            or (first_open and resume_question and self.state.qid is not None)
        )
        keep_loaded_run_out_of_gc()
        # After the first paint: the evidence and suggestions must not delay the queue.
        self.call_after_refresh(self.complete_session, session)

    @on(WorkFailed)
    def _work_failed(self, message: WorkFailed) -> None:
        if message.fatal:
            self.show_fatal(message.what, message.error)
        else:
            self.notify(message.error.message, title=message.what, severity="error", markup=False)

    # -- labels ------------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, group="labels")
    def write_labels(self) -> None:
        """Write queued label ops in order. Not exclusive: a cancelled writer could drop ops,
        so every worker drains the one shared queue under its lock instead."""
        self.labels.queue.write_pending(self.store, self.post_message, self.store_lock)

    @on(LabelSaved)
    def _label_saved(self, message: LabelSaved) -> None:
        self.labels.saved(message)
        if self._quit_when_saved and not self.labels.queue.in_flight:
            self.exit()

    @on(LabelsWaiting)
    def _labels_waiting(self, message: LabelsWaiting) -> None:
        self.labels.waiting(message)

    @on(LabelFailed)
    def _label_failed(self, message: LabelFailed) -> None:
        self.labels.failed_op(message)
        self._quit_when_saved = False  # let the user see what was not saved

    # -- keys -------------------------------------------------------------------------------

    def binding_catalogue(self) -> dict[str, BindingInfo]:
        """Every binding with an id, with the keys in effect (the keymap is fixed per app)."""
        if self._catalogue is None:
            self._catalogue = binding_catalogue(self.taxonomy, self.user_keymap)
        return self._catalogue

    def keymap_keys(self, binding_id: str) -> str:
        """The keys of a binding as Textual names them (``enter``, ``left_square_bracket``)."""
        info = self.binding_catalogue().get(binding_id)
        return info.keys if info else ""

    def keys_for(self, binding_id: str) -> str:
        """The keys of a binding as a person types them (``[``)."""
        keys = self.keymap_keys(binding_id)
        return describe_keys(keys) if keys else ""

    def status_line(self, *, with_question: bool) -> Text:
        """The status bar text for the queue / question screens."""
        state = self.state
        if state is None:
            return Text("memscope", style="bold")
        labelled, total = state.progress
        in_queue = state.current_qid == state.qid
        line = status_text(
            state.session.run_id,
            state.session.other_run_id,
            state.spec.describe(),
            state.position,
            total,
            labelled,
            self.annotator,
            bool(self.read_only_reason),
            qid=state.qid if with_question else None,
            in_queue=in_queue,
            pending=self.labels.pending_total(),
        )
        if state.spec.kind == "sample" and state.session.sample is not None:
            from memscope.pipeline.sample import sample_progress

            table = state.session.table
            labelled_qids = set(table.qids[table.labelled].tolist())
            line.append(f"  ·  {sample_progress(state.session.sample, labelled_qids, state.qid)}")
        engine = self.engine_line()
        if engine is not None:  # a memory-engine search runs in the background
            line.append(f"  {engine} ", "black on cyan")
        return line

    def default_view(self) -> ViewParams:
        """The re-ranking parameters the run starts with (alpha 1, the default lambda, its K)."""
        return ViewParams(k=self.state.session.k if self.state else 10)


def binding_catalogue(taxonomy: Any, keymap: dict[str, str]) -> dict[str, BindingInfo]:
    """Every binding of every screen (help, palette and config checking use it)."""
    from memscope.tui.screens.dialogs import CodePicker, ErrorDialog, ExportDialog, NoteDialog
    from memscope.tui.screens.help import HelpScreen
    from memscope.tui.screens.matrix import MatrixScreen
    from memscope.tui.screens.question import QuestionScreen
    from memscope.tui.screens.queue import QueueScreen
    from memscope.tui.screens.runs import RunsScreen
    from memscope.tui.screens.search import SearchDialog
    from memscope.tui.widgets.queue_table import QueueTable
    from memscope.tui.widgets.timeline import Timeline

    codes = code_bindings(taxonomy.codes if taxonomy is not None else [])
    return catalogue(
        [
            ("app", MemscopeApp.BINDINGS),
            ("queue", [*QueueTable.BINDINGS, *QueueScreen.BINDINGS]),
            ("question", [*QuestionScreen.BINDINGS, *Timeline.BINDINGS, *codes]),
            ("matrix", MatrixScreen.BINDINGS),
            ("runs", RunsScreen.BINDINGS),
            (
                "dialogs",
                [
                    *HelpScreen.BINDINGS,
                    *NoteDialog.BINDINGS,
                    *CodePicker.BINDINGS,
                    *ErrorDialog.BINDINGS,
                    *SearchDialog.BINDINGS,
                    *ExportDialog.BINDINGS,
                ],
            ),
        ],
        keymap,
    )


def make_app(
    run_refs: list[str],
    *,
    question: str | None = None,
    queue: str | None = None,
    cell: str | None = None,
    annotator: str | None = None,
    dataset: Path | None = None,
    dmv_registry: Path | None = None,
    db: Path | None = None,
    config: Config | None = None,
) -> MemscopeApp:
    """Build the app without running it (the CLI and the tests both use this).

    Raises:
        ConfigError: the config file, a key binding in it, or an extra failure code is invalid.
        InputError: ``queue`` or ``cell`` is not valid.
    """
    from memscope.errors import InputError

    config = config or load_config()
    from memscope.taxonomy import load_taxonomy

    taxonomy = load_taxonomy(config)
    keymap = validate_keymap(config.keys, binding_catalogue(taxonomy, {}), config.path)
    if queue is not None and queue not in QUEUE_KINDS:
        raise InputError(f"unknown queue {queue!r}", fix=f"Use --queue {' | '.join(QUEUE_KINDS)}.")
    store = open_store(db)
    return MemscopeApp(
        store=store,
        run_refs=list(run_refs),
        options=read_options(dataset, dmv_registry),
        config=config,
        taxonomy=taxonomy,
        keymap=keymap,
        annotator=(annotator or config.annotator).strip() or config.annotator,
        question=question,
        queue=queue,
        cell=parse_cell(cell) if cell else None,
    )
