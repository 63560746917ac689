"""The triage app: composes the screens around one session service and routes messages.

``make_app`` checks everything that can be checked before the terminal is taken over
(config file, key bindings, queue and cell options) and builds the app for an
:class:`~memscope.tui.open_request.OpenRequest`; ``memscope open`` runs it
(``tui.launch``, the one module that imports this one). All state lives in the
:class:`~memscope.triage.session.TriageSession` the app owns (plain Python, tested
without a terminal); the screens receive it, render its records and do their own
background work (``@work`` on the component that shows the result). They post request
messages only for what the app does: switching screens (through the
:class:`~memscope.tui.navigator.Navigator`), opening runs, writing labels and the
position. The app's own workers load the session and write it. One app per store may
label (the writer lease); a second one browses read-only and says why.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer

from memscope.config import Config, load_config
from memscope.errors import MemscopeError
from memscope.textsafe import printable, printable_id
from memscope.triage.label_queue import LabelFailed, LabelSaved, LabelsWaiting
from memscope.triage.loaded_run import DirRuns, LoadedRun
from memscope.triage.notice import Notice
from memscope.triage.session import StartRequest, TriageSession
from memscope.tui.commands import MemscopeCommands
from memscope.tui.heap import keep_loaded_run_out_of_gc, let_gc_see_loaded_runs
from memscope.tui.keymap import (
    BindingInfo,
    KeyNames,
    catalogue,
    code_bindings,
    refuse_key_conflicts,
    validate_keymap,
)
from memscope.tui.messages import (
    LabelsQueued,
    LabelWritten,
    LoadProgressed,
    OpenRuns,
    PositionMoved,
    QueueChanged,
    QueueCounted,
    RunsScoped,
    SessionLoaded,
    ShowScreen,
    SuggestionsLoaded,
    WorkFailed,
)
from memscope.tui.navigator import Navigator
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.base import show_notice
from memscope.usecases.benchmarks import built_ins
from memscope.usecases.labels.queue import QUEUE_KINDS, parse_cell
from memscope.usecases.runs.store_access import (
    ReadOptions,
    Store,
    load_driver,
    open_store,
    read_options,
)

if TYPE_CHECKING:
    from textual.app import SystemCommand

    from memscope.taxonomy import Taxonomy

# Every way through the app opens the store and a run of some benchmark: DuckDB and
# memscope's own benchmarks (entry points) are imported with the app's modules, not by the
# loading worker while the first screens are being drawn (together they hold the
# interpreter for over a tenth of a second). A third-party plugin is imported only when a
# run of its benchmark is opened (adapters.registry): one that hangs at import never stops
# the app over built-in runs.
load_driver()
built_ins()

LOADING_SCREEN_AFTER_S = 0.3
"""How long opening a run may take before the loading screen shows."""
SAVE_POSITION_AFTER_S = 0.8
"""Idle time after a move before the queue position is written (one write per pause, not per key)."""


class MemscopeApp(App[None]):
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
        session: TriageSession,
        run_refs: list[str],
        config: Config,
        keymap: dict[str, str],
    ) -> None:
        super().__init__()
        self.session = session
        self.run_refs = run_refs
        self.config = config
        self.user_keymap = keymap
        self.keys = KeyNames(binding_catalogue(session.taxonomy, keymap))
        self.navigator = Navigator(self, session, self.keys)
        self._position_timer: Timer | None = None
        self._loading_later: Timer | None = None
        self._quit_when_saved = False

    @property
    def store(self) -> Store:
        """The store the session works on."""
        return self.session.store

    @property
    def options(self) -> ReadOptions:
        """How run directories are read (dataset, DMV registry)."""
        return self.session.options

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
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

    def tell(self, notice: Notice | None, *, timeout: float | None = None) -> None:
        """Show a session notice as a toast (None: nothing to say)."""
        show_notice(self, notice, timeout=timeout)

    # -- start and stop ------------------------------------------------------------------

    def on_mount(self) -> None:
        self.set_keymap(self.user_keymap)
        self.session.take_lease()
        self.navigator.install_screens()
        if self.session.read_only_reason is None:
            restored = self.session.labels.restore_pending()
            if restored is not None:
                self.write_labels()
                self.tell(restored)
        # The loading screen only for a load that takes a while: drawn at once, it would
        # compete with a quick load for the interpreter (its spinner repaints many times
        # a second), and a run that opens at once needs no spinner.
        if self.config.user.annotator is None and self.session.read_only_reason is None:
            self.run_worker(self._say_default_annotator, thread=True, group="annotator-notice")
        what = " ".join(self.run_refs) or "the last run"
        self._loading_later = self.set_timer(
            LOADING_SCREEN_AFTER_S, lambda: self.navigator.push_loading(what)
        )
        self.load(self.run_refs)

    def _say_default_annotator(self) -> None:
        """At first use, once: labels go under the OS user's name unless one is configured
        (in a thread: it reads the store, which the first paint need not wait for)."""
        from memscope.usecases.labels.targets import default_annotator_notice

        if self.session.annotator != self.config.annotator:  # named with --annotator
            return
        try:
            notice = default_annotator_notice(self.store, None)
        except MemscopeError:  # a busy or damaged store says so elsewhere
            return
        if notice:
            self.call_from_thread(
                self.notify, notice[0].upper() + notice[1:] + ".", title="Annotator", timeout=12
            )

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own palette commands, kept apart under "Textual: …"."""
        from memscope.tui.commands import textual_commands

        return textual_commands(super().get_system_commands(screen))

    async def action_quit(self) -> None:
        """Quit, but only once every label change in flight is committed."""
        labels = self.session.labels
        pending = labels.pending_total()
        if pending and labels.queue.waiting is not None:
            if self._quit_when_saved:  # asked already: the journal keeps them for next time
                self.exit()
                return
            self._quit_when_saved = True
            self.notify(
                f"{pending} label change(s) are not saved yet: the store is busy. They are kept "
                f"in {labels.queue.journal.path if labels.queue.journal else 'memory'} "
                "and saved at the next start. Press quit again to quit now, or wait.",
                severity="warning",
                title="Quit with labels pending?",
                markup=False,
            )
            return
        if labels.queue.in_flight:
            self._quit_when_saved = True
            self.notify("Saving the last label change, then quitting …", markup=False)
            return
        self.exit()

    def on_unmount(self) -> None:
        self.session.labels.queue.stop_lingering()
        self.save_position_now()
        self.session.release()
        question = self.navigator.question_screen
        if question is not None:
            question.close_audio()

    # -- loading (the app's workers) ------------------------------------------------------
    # Every @work here and on the screens names a ``description``: without one Textual
    # builds the worker's name from repr() of its arguments, a whole loaded run's.

    @work(thread=True, exclusive=True, exit_on_error=False, group="load", description="load")
    def load(self, refs: list[str], question: str | None = None) -> None:
        """Ingest what is new and load the run(s) (posts SessionLoaded or RunsScoped)."""

        def progress(text: str) -> None:
            self.post_message(LoadProgressed(text))

        let_gc_see_loaded_runs()
        try:
            found = self.session.load(refs, progress)
        except MemscopeError as error:
            self.post_message(WorkFailed("opening the run", error, fatal=True))
            return
        if isinstance(found, DirRuns):
            self.post_message(RunsScoped(found.path, found.run_ids, found.notes))
        else:
            self.post_message(SessionLoaded(found, question))

    @work(
        thread=True, exclusive=True, exit_on_error=False, group="complete", description="complete"
    )
    def complete(self, run: LoadedRun) -> None:
        """After the queue is up: the whole queue where only its head was read, the
        questions ``enter`` shows first, the suggestions made sure of (computed and stored
        when the run has none; none are kept: a question's is read with it), last whether
        ``memscope recompute`` can work here; also makes the run the store's default one."""
        session = self.session
        try:
            counted = session.prepare_count(run)
            if counted is not None:
                self.post_message(QueueCounted(run, counted))
            session.warm_up()
            session.mark_opened(run)
            notes: list[str] = []
            codes = session.ensure_suggestions(run, notes)
            self.post_message(SuggestionsLoaded(run.run_id, codes, notes))
            session.find_recompute_hint(run)
        except MemscopeError as error:
            # Another process writing the store (or a store gone bad) costs this background
            # step, not the session: the queue's head, the question and labelling go on,
            # and the user is told what is missing.
            self.post_message(WorkFailed("completing the run (queue count, suggestions)", error))

    def _loaded(self) -> None:
        """The first load is over: no loading screen for it any more."""
        if self._loading_later is not None:
            self._loading_later.stop()
            self._loading_later = None

    @on(RunsScoped)
    def _runs_scoped(self, message: RunsScoped) -> None:
        self._loaded()
        self.session.runs_scope = (message.path, list(message.run_ids))
        for note in message.notes:
            self.notify(note, severity="warning", markup=False)
        self.navigator.show_main("runs")

    @on(LoadProgressed)
    def _load_progressed(self, message: LoadProgressed) -> None:
        self.navigator.loading_step(message.text)

    @on(SessionLoaded)
    def _session_loaded(self, message: SessionLoaded) -> None:
        self._loaded()
        adopted = self.session.adopt(message.run, message.question)
        for notice in adopted.notices:
            self.tell(notice)
        self.navigator.show_main("question" if adopted.open_question else "queue")
        keep_loaded_run_out_of_gc()
        # After the first paint: the suggestions must not delay it. (No screen needs the
        # run's whole evidence: the question screen reads one question at a time.)
        self.call_after_refresh(self.complete, message.run)

    @on(QueueCounted)
    def _queue_counted(self, message: QueueCounted) -> None:
        if self.session.count_queue(message.run, message.spec):
            self.navigator.queue_counted()

    @on(SuggestionsLoaded)
    def _suggestions_loaded(self, message: SuggestionsLoaded) -> None:
        if not self.session.adopt_suggestions(message.run_id, message.codes):
            return
        keep_loaded_run_out_of_gc()
        for note in message.notes:
            self.notify(note, severity="warning", markup=False)
        self.navigator.refresh_views()

    @on(WorkFailed)
    def _work_failed(self, message: WorkFailed) -> None:
        if message.fatal:
            self._loaded()
            self.navigator.show_fatal(message.what, message.error)
        else:
            self.notify(message.error.message, title=message.what, severity="error", markup=False)

    @on(OpenRuns)
    def _open_runs(self, message: OpenRuns) -> None:
        if self.session.shows(message.run_ids):
            self.navigator.show_main("queue")
            return
        self.save_position_now()
        self.navigator.push_loading(" vs ".join(printable_id(run_id) for run_id in message.run_ids))
        self.load(message.run_ids)

    # -- screens ---------------------------------------------------------------------------

    @on(ShowScreen)
    def _show_screen(self, message: ShowScreen) -> None:
        self.show(message.name, filter_focus=message.filter_focus)

    def show(self, name: str, *, filter_focus: bool = False) -> None:
        """Show a main screen as the user asked for it (and remember the position)."""
        if self.navigator.show(name, filter_focus=filter_focus):
            self.remember_position()

    @on(QueueChanged)
    def _queue_changed(self, _message: QueueChanged) -> None:
        self.navigator.refresh_queue()
        self.remember_position()

    @on(PositionMoved)
    def _position_moved(self, _message: PositionMoved) -> None:
        self.remember_position()

    def action_show_queue(self) -> None:
        self.show("queue")

    def action_show_question(self) -> None:
        self.show("question")

    def action_show_matrix(self) -> None:
        self.show("matrix")

    def action_show_runs(self) -> None:
        self.show("runs")

    def action_export(self) -> None:
        """Export the run's labels to a file (the path asked)."""
        from memscope.tui.export_action import ask_export

        ask_export(self)

    def action_help(self) -> None:
        """Every key, the current screen's first."""
        from memscope.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            scope = getattr(self.screen, "SCOPE", None)  # dialogs have no scope of their own
            catalogue = list(self.binding_catalogue().values())
            self.push_screen(HelpScreen(catalogue, str(self.config.path), scope))

    # -- labels ------------------------------------------------------------------------------

    @on(LabelsQueued)
    def _labels_queued(self, message: LabelsQueued) -> None:
        self.write_labels()
        self.navigator.labels_changed(message.qid)

    @on(LabelWritten)
    def _label_written(self, message: LabelWritten) -> None:
        event, labels = message.event, self.session.labels
        if isinstance(event, LabelSaved):
            self.tell(labels.saved(event))
            self.navigator.labels_changed(event.qid)
            if self._quit_when_saved and not labels.queue.in_flight:
                self.exit()
        elif isinstance(event, LabelFailed):
            self.tell(labels.failed_op(event))
            self._quit_when_saved = False  # let the user see what was not saved
            self.navigator.labels_changed(event.qid)
        elif isinstance(event, LabelsWaiting):
            self.tell(labels.waiting(event))
            if self.session.qid is not None:
                self.navigator.labels_changed(self.session.qid)

    @work(thread=True, exit_on_error=False, group="labels", description="write labels")
    def write_labels(self) -> None:
        """Write the queued label ops in order. Not exclusive: a cancelled writer could
        drop ops, so every writer drains the one shared queue under its lock instead."""
        self.session.labels.write_pending(lambda event: self.post_message(LabelWritten(event)))

    # -- the remembered position --------------------------------------------------------------

    def remember_position(self) -> None:
        """Note that the position changed; it is written after a short pause."""
        if not self.session.position_moved():
            return
        if self._position_timer is not None:
            self._position_timer.stop()
        self._position_timer = self.set_timer(SAVE_POSITION_AFTER_S, self._save_position_later)

    def _save_position_later(self) -> None:
        payload = self.session.take_position(self.navigator.on_question_screen)
        if payload is not None:
            self.write_position(payload)

    @work(
        thread=True, exclusive=True, exit_on_error=False, group="position", description="position"
    )
    def write_position(self, payload: tuple[Any, ...]) -> None:
        """Remember the queue position taken from the session."""
        try:
            self.session.write_position(payload)
        except MemscopeError as error:
            self.post_message(WorkFailed("remembering the queue position", error))

    def save_position_now(self) -> None:
        """Write a pending position change before the app exits (or opens another run)."""
        payload = self.session.take_position(self.navigator.on_question_screen)
        if payload is None:
            return
        # Quitting anyway: the labels themselves were committed when shown as saved.
        with contextlib.suppress(MemscopeError):
            self.session.write_position(payload)

    # -- keys -------------------------------------------------------------------------------

    def binding_catalogue(self) -> dict[str, BindingInfo]:
        """Every binding with an id, with the keys in effect (the keymap is fixed per app)."""
        return self.keys.bindings


def binding_catalogue(taxonomy: Taxonomy | None, keymap: dict[str, str]) -> dict[str, BindingInfo]:
    """Every binding of every screen (help, palette and config checking use it)."""
    screens = screen_bindings(taxonomy)
    dialogs = [binding for name, bindings in screens if name in DIALOGS for binding in bindings]
    return catalogue(
        [
            ("app", MemscopeApp.BINDINGS),
            *[(name, bindings) for name, bindings in screens if name not in DIALOGS],
            ("dialogs", dialogs),
        ],
        keymap,
    )


DIALOGS = ("help", "note", "codes", "error", "search", "export")
"""The dialogs' screens (the catalogue lists their bindings as one scope)."""


def screen_bindings(
    taxonomy: Taxonomy | None, *, extra_codes: bool = True
) -> list[tuple[str, list[Any]]]:
    """Per screen, its own bindings and its widgets' (the taxonomy's code keys on the question
    screen; ``extra_codes`` False: the shipped codes only)."""
    from memscope.tui import bindings

    found = taxonomy.codes if taxonomy is not None else []
    codes = code_bindings([code for code in found if extra_codes or not code.extra])
    return [
        ("queue", [*bindings.QUEUE_TABLE, *bindings.QUEUE]),
        ("question", [*bindings.QUESTION, *bindings.TIMELINE, *codes]),
        ("matrix", list(bindings.MATRIX)),
        ("runs", list(bindings.RUNS)),
        ("help", list(bindings.HELP)),
        ("note", list(bindings.NOTE)),
        ("codes", list(bindings.CODES)),
        ("error", list(bindings.ERROR)),
        ("search", list(bindings.SEARCH)),
        ("export", list(bindings.EXPORT)),
    ]


def active_bindings(
    taxonomy: Taxonomy | None, *, extra_codes: bool = True
) -> list[tuple[str, list[Any]]]:
    """Per screen, every binding active on it: the app's and the screen's own."""
    return [
        (name, [*MemscopeApp.BINDINGS, *bindings])
        for name, bindings in screen_bindings(taxonomy, extra_codes=extra_codes)
    ]


def make_app(request: OpenRequest, *, config: Config | None = None) -> MemscopeApp:
    """Build the app for ``request`` without running it (the CLI and the tests both use
    this; ``config`` None: the user's config file).

    Raises:
        ConfigError: the config file, a key binding in it, or an extra failure code is invalid.
        InputError: the request's queue or cell is not valid.
    """
    from memscope.errors import InputError
    from memscope.taxonomy import load_taxonomy

    config = config or load_config()
    taxonomy = load_taxonomy(config)
    keymap = validate_keymap(config.keys, binding_catalogue(taxonomy, {}), config.path)
    refuse_key_conflicts(
        active_bindings(taxonomy),
        active_bindings(taxonomy, extra_codes=False),
        keymap,
        config.path,
    )
    queue, cell = request.queue, request.cell
    if queue is not None and queue not in QUEUE_KINDS:
        raise InputError(f"unknown queue {queue!r}", fix=f"Use --queue {' | '.join(QUEUE_KINDS)}.")
    session = TriageSession(
        store=open_store(request.db),
        options=request.options or read_options(None),
        annotator=(request.annotator or config.annotator).strip() or config.annotator,
        taxonomy=taxonomy,
        start=StartRequest(
            request.question,
            queue,
            parse_cell(cell) if cell else None,
            request.sample.purpose if request.sample is not None else "failures",
        ),
    )
    return MemscopeApp(session=session, run_refs=list(request.refs), config=config, keymap=keymap)
