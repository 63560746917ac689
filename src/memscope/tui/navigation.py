"""Moving between the app's screens and opening its dialogs (a mixin of the app).

The four main screens (queue, question, matrix, runs) are installed once and switched
between, so each keeps its widgets; dialogs are pushed on top and report back through a
callback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memscope.errors import MemscopeError
from memscope.tui.messages import AudioFinished, SearchFinished
from memscope.tui.screens.dialogs import CodePicker, ErrorDialog, NoteDialog
from memscope.tui.screens.help import HelpScreen
from memscope.tui.screens.loading import LoadingScreen
from memscope.tui.screens.matrix import MatrixScreen
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.queue import QueueScreen
from memscope.tui.screens.runs import RunsScreen
from memscope.tui.screens.search import SearchDialog
from memscope.tui.widgets.audio_view import AudioView
from memscope.tui.widgets.round_view import RoundView

if TYPE_CHECKING:
    from memscope.tui.app import MemscopeApp

MAIN_SCREENS = ("queue", "question", "matrix", "runs")


class Navigation:
    """Screen switching, dialogs and media actions for :class:`~memscope.tui.app.MemscopeApp`."""

    def install_screens(self: MemscopeApp) -> None:
        """Create the main screens once."""
        self.install_screen(QueueScreen(), "queue")
        self.install_screen(QuestionScreen(self.taxonomy), "question")
        self.install_screen(MatrixScreen(), "matrix")
        self.install_screen(RunsScreen(), "runs")

    @property
    def question_screen(self: MemscopeApp) -> QuestionScreen | None:
        """The question screen (installed once)."""
        screen = self.get_screen("question") if self.is_screen_installed("question") else None
        return screen if isinstance(screen, QuestionScreen) else None

    @property
    def on_question_screen(self: MemscopeApp) -> bool:
        """Whether the question screen is the one showing (below any dialog)."""
        return getattr(self, "current_main", "") == "question"

    def _main(self: MemscopeApp, name: str) -> None:
        self.current_main = name
        while len(self.screen_stack) > 2 and self.screen.is_modal:
            self.pop_screen()
        current = self.screen
        if current is self.get_screen(name):
            if hasattr(current, "on_screen_resume"):
                current.on_screen_resume()  # refresh in place
            return
        if len(self.screen_stack) > 1:
            self.switch_screen(name)
        else:
            self.push_screen(name)

    def push_loading(self: MemscopeApp, what: str) -> None:
        """Show the loading screen while a run is opened."""
        if len(self.screen_stack) > 1:
            self.switch_screen(LoadingScreen(what))
        else:
            self.push_screen(LoadingScreen(what))

    def loading_step(self: MemscopeApp, text: str) -> None:
        """Show the loader's progress."""
        if isinstance(self.screen, LoadingScreen):
            self.screen.update(text)

    def enter_session(self: MemscopeApp, *, open_question: bool) -> None:
        """The session is loaded: show the queue, or the question to resume."""
        self._main("question" if open_question else "queue")

    def show_fatal(self: MemscopeApp, what: str, error: MemscopeError) -> None:
        """The run could not be opened: explain, then offer the runs in the store (or quit)."""

        def after(_result: Any) -> None:
            if self.state is not None:
                self._main("queue")
            else:
                self._main("runs")

        self.push_screen(ErrorDialog(what, error), after)

    # -- main screens ---------------------------------------------------------------------------

    def show_queue(self: MemscopeApp, filter_focus: bool = False) -> None:
        """Switch to the queue (optionally with the filter line open)."""
        if self.state is None:
            return
        self._main("queue")
        if filter_focus:
            self.call_after_refresh(self.get_screen("queue").action_filter)
        self.remember_position()

    def show_question(self: MemscopeApp) -> None:
        """Switch to the question screen for the current question."""
        if self.state is None or self.state.qid is None:
            self.notify("The queue is empty: choose another queue first.", markup=False)
            return
        self._main("question")
        self.remember_position()

    def step_question(self: MemscopeApp, step: int) -> None:
        """Next / previous question of the queue."""
        state = self.state
        if state is None:
            return
        if state.qid != state.current_qid:
            moved = state.go_to(state.position if step > 0 else state.position - 1) or state.go_to(
                state.position
            )
        else:
            moved = state.move(step)
        if not moved:
            self.notify(
                "End of the queue." if step > 0 else "Start of the queue.", timeout=2, markup=False
            )
            return
        if self.question_screen is not None:
            self.question_screen.show_question()
        self.remember_position()

    def set_queue(self: MemscopeApp, **changes: Any) -> bool:
        """Change the queue spec (filter, kind, sort, cell); False when the filter is invalid."""
        state = self.state
        if state is None:
            return False
        try:
            state.apply(state.spec.with_changes(**changes))
        except MemscopeError as error:
            self.notify(error.message, title="Filter", severity="error", markup=False)
            return False
        if isinstance(self.screen, QueueScreen):
            self.screen.refresh_queue()
        self.remember_position()
        return True

    def open_cell(self: MemscopeApp, cell: str, *, from_matrix: bool = False) -> None:
        """The queue of one matrix cell (from the matrix: all its questions, failing first,
        and esc goes back to the matrix)."""
        self._from_matrix(from_matrix)
        extra = {"kind": "all", "sort": "correct", "descending": False} if from_matrix else {}
        if self.set_queue(cell=cell, **extra):
            self._main("queue")

    def open_filter(self: MemscopeApp, text: str, *, from_matrix: bool = False) -> None:
        """The queue of a matrix cell of a benchmark whose cells are filters (``reach:2 bank:9``)."""
        self._from_matrix(from_matrix)
        extra = {"kind": "all", "sort": "correct", "descending": False} if from_matrix else {}
        if self.set_queue(text=text, cell=None, **extra):
            self._main("queue")

    def _from_matrix(self: MemscopeApp, from_matrix: bool) -> None:
        """Remember the queue the matrix was opened over, for esc to come back to."""
        self.matrix_return = self.state.spec if from_matrix and self.state is not None else None

    def back_to_matrix(self: MemscopeApp) -> bool:
        """From a cell's queue, esc: the queue as it was, and the matrix; False otherwise."""
        spec = getattr(self, "matrix_return", None)
        if spec is None or self.state is None:
            return False
        self.matrix_return = None
        self.state.apply(spec)
        self._main("matrix")
        self.remember_position()
        return True

    def open_runs(self: MemscopeApp, run_ids: list[str]) -> None:
        """Open another run (or two to compare)."""
        if (
            self.state is not None
            and [self.state.session.run_id, self.state.session.other_run_id][: len(run_ids)]
            == run_ids
        ):
            self._main("queue")
            return
        self.save_position_now()
        self.push_loading(" vs ".join(run_ids))
        self.load_session(run_ids)

    def action_show_queue(self: MemscopeApp) -> None:
        self.show_queue()

    def action_show_question(self: MemscopeApp) -> None:
        self.show_question()

    def action_show_matrix(self: MemscopeApp) -> None:
        if self.state is not None:
            self._main("matrix")

    def action_show_runs(self: MemscopeApp) -> None:
        self._main("runs")

    def action_export(self: MemscopeApp) -> None:
        from memscope.tui.export_action import ask_export

        ask_export(self)

    def action_help(self: MemscopeApp) -> None:
        if not isinstance(self.screen, HelpScreen):
            scope = getattr(self.screen, "SCOPE", None)
            self.push_screen(
                HelpScreen(list(self.binding_catalogue().values()), str(self.config.path), scope)
            )

    def refresh_views(self: MemscopeApp) -> None:
        """Redraw the queue and the question's label bar (after suggestions arrived)."""
        if isinstance(self.screen, QueueScreen):
            self.screen.refresh_queue()
        elif isinstance(self.screen, MatrixScreen):
            self.screen.on_screen_resume()
        screen = self.question_screen
        if screen is not None and screen.detail is not None:
            screen.refresh_labels()

    def labels_changed(self: MemscopeApp, qid: str) -> None:
        """Redraw what shows labels after a change was queued or saved."""
        screen = self.question_screen
        if screen is not None and screen.detail is not None and screen.detail.qid == qid:
            screen.refresh_labels()
            screen.refresh_status()
        if isinstance(self.screen, QueueScreen):
            self.screen.refresh_queue()

    # -- dialogs ------------------------------------------------------------------------------

    def pick_code(self: MemscopeApp) -> None:
        """Toggle any failure code from the full list (also codes without a key)."""
        if self.state is None or self.state.qid is None or self.taxonomy is None:
            return
        label = self.labels.committed(self.state.qid)
        current = set(getattr(label, "codes", None) or [])
        keys = self.question_screen.code_keys() if self.question_screen else {}
        self.push_screen(
            CodePicker(self.taxonomy.codes, current, keys),
            lambda code: code and self.labels.toggle(code),
        )

    def edit_note(self: MemscopeApp) -> None:
        """Write the note of the current question's label."""
        if self.state is None or self.state.qid is None:
            return
        if not self.labels.allowed():
            return
        label = self.labels.committed(self.state.qid)
        self.push_screen(
            NoteDialog(self.state.qid, getattr(label, "note", None) or ""),
            lambda note: note is not None and self.labels.set_note(note),
        )

    def toggle_audio(self: MemscopeApp, view: AudioView | None) -> None:
        """Play the selected round's audio, or stop it."""
        from memscope.media import audio

        if self.player is not None and self.player.is_playing:
            self.player.stop()
            return
        if view is None or view.item is None or not view.item.file:
            caption = self.state is not None and self.state.caption_mode
            self.notify(
                "This round has no audio to play (in caption view, press c for the media)."
                if caption
                else "This round has no audio to play: it holds text"
                " (and ▣ an image) only; ♪ in the timeline marks the rounds with audio.",
                markup=False,
            )
            return
        if self.player is None:
            self.player = audio.Player(
                on_finished=lambda outcome: self.post_message(AudioFinished(outcome))
            )
        started, text = self.player.play(view.item.file)
        if not started:
            self.notify(text, title="Audio", severity="warning", markup=False)
            return
        view.set_playing(True)

    def on_audio_finished(self: MemscopeApp, message: AudioFinished) -> None:
        # The views live on the question screen (App.query would search only the default screen).
        for view in self.screen.query(AudioView):
            view.set_playing(False)

    def _engine_missing(self: MemscopeApp, what: str) -> bool:
        """Say what to install when the memory engine is not (``memscope[engine]``)."""
        from memscope.engine_available import engine_missing_message

        message = engine_missing_message(what)
        if message is not None:
            self.notify(message, title="Memory engine", severity="warning", markup=False)
        return message is not None

    def search_memory(self: MemscopeApp) -> None:
        """Ask for words and search the memory bank."""
        if self._engine_missing("Searching the memory bank"):
            return
        self.push_screen(SearchDialog("Search the memory bank", ask=True), self._show_found_round)

    def similar_images(self: MemscopeApp, round_id: str | None) -> None:
        """Rounds whose images look like the selected round's."""
        if not round_id:
            self.notify("Select a round with an image on the timeline first.", markup=False)
            return
        if self._engine_missing("Finding similar images"):
            return
        self.push_screen(
            SearchDialog(f"Rounds that look like {round_id}", ask=False), self._show_found_round
        )
        self.start_search(None, round_id)

    def _show_found_round(self: MemscopeApp, round_id: str | None) -> None:
        screen = self.question_screen
        if not round_id or screen is None:
            return
        if not screen.query_one("#timeline").select_round(round_id):
            # Outside this question's timeline: the round view shows it all the same.
            screen._show_round(round_id)
            self.notify(
                f"{round_id} is not on this question's timeline; the round view shows it.",
                markup=False,
            )
        screen.query_one(RoundView).scroll_visible(animate=False)

    def on_search_finished(self: MemscopeApp, message: SearchFinished) -> None:
        if not self.end_search(message):
            return  # a newer search runs: this answer is stale
        if isinstance(self.screen, SearchDialog):
            self.screen.show_results(message)
        elif message.error:  # the dialog was closed while the search ran
            self.notify(
                f"{message.title}: {message.error}",
                title="Memory engine",
                severity="warning",
                markup=False,
            )
        else:
            self.notify(
                f"{message.title}: {len(message.hits)} hit(s); search again to list them.",
                title="Memory engine",
                markup=False,
            )
