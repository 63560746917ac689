"""Moving between the app's screens, the dialogs the app itself opens, and audio playback.

The four main screens (queue, question, matrix, runs) are installed once and switched
between, so each keeps its widgets; dialogs are pushed on top and report back through a
callback. The navigator belongs to one app and knows which main screen is showing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memscope.errors import MemscopeError
from memscope.tui.messages import SearchFinished
from memscope.tui.screens.dialogs import ErrorDialog
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


class Navigator:
    """Screen switching, the app's dialogs and the audio player of one app."""

    def __init__(self, app: MemscopeApp) -> None:
        self.app = app
        self.session = app.session
        self.current_main = ""
        """The main screen showing (below any dialog); empty before the first one."""
        self.player: Any = None
        """The audio player, created at the first playback."""

    def install_screens(self) -> None:
        """Create the main screens once, each with the session and the key names."""
        app, session, keys = self.app, self.session, self.app.keys
        app.install_screen(QueueScreen(session, keys), "queue")
        app.install_screen(QuestionScreen(session, keys), "question")
        app.install_screen(MatrixScreen(session, keys), "matrix")
        app.install_screen(RunsScreen(session, keys), "runs")

    def close(self) -> None:
        """Release the audio device (the app is closing)."""
        if self.player is not None:
            self.player.close()

    @property
    def question_screen(self) -> QuestionScreen | None:
        """The question screen (installed once)."""
        app = self.app
        screen = app.get_screen("question") if app.is_screen_installed("question") else None
        return screen if isinstance(screen, QuestionScreen) else None

    @property
    def on_question_screen(self) -> bool:
        """Whether the question screen is the one showing (below any dialog)."""
        return self.current_main == "question"

    def show_main(self, name: str) -> None:
        """Switch to main screen ``name`` (closing dialogs; in place when it shows already)."""
        app = self.app
        self.current_main = name
        while len(app.screen_stack) > 2 and app.screen.is_modal:
            app.pop_screen()
        current = app.screen
        if current is app.get_screen(name):
            if hasattr(current, "on_screen_resume"):
                current.on_screen_resume()  # refresh in place
            return
        if len(app.screen_stack) > 1:
            app.switch_screen(name)
        else:
            app.push_screen(name)

    def show(self, name: str, *, filter_focus: bool = False) -> None:
        """A main screen as the user asked for it: refused with a word when not possible."""
        session, app = self.session, self.app
        if name == "runs":
            self.show_main("runs")
            return
        if not session.is_open:
            return
        if name == "question":
            if session.qid is None:
                app.notify("The queue is empty: choose another queue first.", markup=False)
                return
            self.show_main("question")
            app.remember_position()
        elif name == "queue":
            self.show_main("queue")
            if filter_focus:
                queue = app.get_screen("queue")
                assert isinstance(queue, QueueScreen)
                app.call_after_refresh(queue.action_filter)
            app.remember_position()
        elif name == "matrix":
            self.show_main("matrix")
            app.remember_position()

    def push_loading(self, what: str) -> None:
        """Show the loading screen while a run is opened."""
        app = self.app
        if len(app.screen_stack) > 1:
            app.switch_screen(LoadingScreen(what))
        else:
            app.push_screen(LoadingScreen(what))

    def loading_step(self, text: str) -> None:
        """Show the loader's progress."""
        if isinstance(self.app.screen, LoadingScreen):
            self.app.screen.update(text)

    def show_fatal(self, what: str, error: MemscopeError) -> None:
        """The run could not be opened: explain, then offer the runs in the store."""

        def after(_result: Any) -> None:
            self.show_main("queue" if self.session.is_open else "runs")

        self.app.push_screen(ErrorDialog(what, error), after)

    def help(self) -> None:
        """Every key, the current screen's first."""
        app = self.app
        if not isinstance(app.screen, HelpScreen):
            scope = getattr(app.screen, "SCOPE", None)  # dialogs have no scope of their own
            app.push_screen(
                HelpScreen(list(app.binding_catalogue().values()), str(app.config.path), scope)
            )

    # -- redrawing after the session changed ------------------------------------------------

    def refresh_queue(self) -> None:
        """Redraw the queue when it is showing (its spec or labels changed)."""
        if isinstance(self.app.screen, QueueScreen):
            self.app.screen.refresh_queue()

    def refresh_views(self) -> None:
        """Redraw the queue and the question's label bar (after suggestions arrived)."""
        screen = self.app.screen
        if isinstance(screen, QueueScreen):
            screen.refresh_queue()
        elif isinstance(screen, MatrixScreen):
            screen.on_screen_resume()
        question = self.question_screen
        if question is not None and question.detail is not None:
            question.refresh_labels()

    def labels_changed(self, qid: str) -> None:
        """Redraw what shows labels after a change was queued or saved."""
        screen = self.question_screen
        if screen is not None and screen.detail is not None and screen.detail.qid == qid:
            screen.refresh_labels()
            screen.refresh_status()
        self.refresh_queue()

    # -- audio -------------------------------------------------------------------------------

    def toggle_audio(self, view: AudioView | None) -> None:
        """Play the selected round's audio, or stop it."""
        from memscope.media import audio
        from memscope.tui.messages import AudioFinished

        app = self.app
        if self.player is not None and self.player.is_playing:
            self.player.stop()
            return
        if view is None or view.item is None or not view.item.file:
            app.notify(
                "This round has no audio to play (in caption view, press c for the media)."
                if self.session.caption_mode
                else "This round has no audio to play: it holds text"
                " (and ▣ an image) only; ♪ in the timeline marks the rounds with audio.",
                markup=False,
            )
            return
        if self.player is None:

            def finished(outcome: str) -> None:
                app.post_message(AudioFinished(outcome))

            self.player = audio.Player(on_finished=finished)
        started, text = self.player.play(view.item.file)
        if not started:
            app.notify(text, title="Audio", severity="warning", markup=False)
            return
        view.set_playing(True)

    def audio_finished(self) -> None:
        """Playback ended: every audio view shows "stopped"."""
        # The views live on the question screen (App.query would search only the default screen).
        for view in self.app.screen.query(AudioView):
            view.set_playing(False)

    # -- search (memory engine) --------------------------------------------------------------

    def _engine_missing(self, what: str) -> bool:
        """Say what to install when the memory engine is not (the ``engine`` extra)."""
        from memscope.engine_available import engine_missing_message

        message = engine_missing_message(what)
        if message is not None:
            self.app.notify(message, title="Memory engine", severity="warning", markup=False)
        return message is not None

    def search(self, query: str | None, round_id: str | None) -> None:
        """Open the search dialog: ask for words (``query`` None and no round), run a text
        search (``query``), or find rounds that look like ``round_id``."""
        app = self.app
        if query is not None:  # the dialog asked: run it
            app.start_search(query)
            return
        if round_id is None:
            if self._engine_missing("Searching the memory bank"):
                return
            app.push_screen(
                SearchDialog("Search the memory bank", ask=True), self._show_found_round
            )
            return
        if self._engine_missing("Finding similar images"):
            return
        app.push_screen(
            SearchDialog(f"Rounds that look like {round_id}", ask=False), self._show_found_round
        )
        app.start_search(None, round_id)

    def search_finished(self, message: SearchFinished) -> None:
        """Show the hits in the search dialog; when it was closed meanwhile, say how it went."""
        app = self.app
        if isinstance(app.screen, SearchDialog):
            app.screen.show_results(message)
        elif message.error:
            app.notify(
                f"{message.title}: {message.error}",
                title="Memory engine",
                severity="warning",
                markup=False,
            )
        else:
            app.notify(
                f"{message.title}: {len(message.hits)} hit(s); search again to list them.",
                title="Memory engine",
                markup=False,
            )

    def show_engine_step(self) -> None:
        """Redraw a running search's progress line in the open search dialog and the
        question screen's status bar."""
        line = self.session.search.line()
        if isinstance(self.app.screen, SearchDialog):
            self.app.screen.show_step(line)
        screen = self.question_screen
        if screen is not None and screen.detail is not None:
            screen.refresh_status()

    def _show_found_round(self, round_id: str | None) -> None:
        screen = self.question_screen
        if not round_id or screen is None:
            return
        if not screen.select_round(round_id):
            # Outside this question's timeline: the round view shows it all the same.
            self.app.notify(
                f"{round_id} is not on this question's timeline; the round view shows it.",
                markup=False,
            )
        screen.query_one(RoundView).scroll_visible(animate=False)
