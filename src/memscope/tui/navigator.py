"""Moving between the app's screens: the screen router.

The four main screens (queue, question, matrix, runs) are installed once and switched
between, so each keeps its widgets; the loading screen and the fatal-error dialog are
pushed on top. Only the queue screen is built at the start: the others, and the modules
they need, are imported and installed the first time they are shown (the start pays for
the loading and queue screens alone). The navigator works the app's screen stack and knows which main screen is
showing; it never calls back into the app (the app decides what follows a switch, such as
remembering the position), and what a screen does in the background stays on that screen.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.screen import Screen

from memscope.tui.screens.loading import LoadingScreen
from memscope.tui.screens.queue import QueueScreen

if TYPE_CHECKING:
    from memscope.errors import MemscopeError
    from memscope.triage.session import TriageSession
    from memscope.tui.keymap import KeyNames
    from memscope.tui.screens.question import QuestionScreen

MAIN_SCREENS = ("queue", "question", "matrix", "runs")


class Navigator:
    """Screen switching on one app's screen stack."""

    def __init__(self, app: App[Any], session: TriageSession, keys: KeyNames) -> None:
        self.app = app
        self.session = session
        self.keys = keys
        self.current_main = ""
        """The main screen showing (below any dialog); empty before the first one."""
        self._installed: dict[str, Screen[Any]] = {}
        """The main screens built so far, by name (each is installed once, when first needed)."""
        self._question: QuestionScreen | None = None
        self._loading_step = "starting …"
        """The loader's last step (a loading screen shown late starts from it)."""

    def install_screens(self) -> None:
        """Install the queue screen (the others are installed when first shown)."""
        self._screen("queue")

    def _screen(self, name: str) -> Screen[Any]:
        """Main screen ``name``, built with the session and the key names and installed
        the first time it is asked for (its module is imported then too)."""
        screen = self._installed.get(name)
        if screen is not None:
            return screen
        session, keys = self.session, self.keys
        if name == "queue":
            screen = QueueScreen(session, keys)
        elif name == "question":
            from memscope.tui.screens.question import QuestionScreen

            screen = self._question = QuestionScreen(session, keys)
        elif name == "matrix":
            from memscope.tui.screens.matrix import MatrixScreen

            screen = MatrixScreen(session, keys)
        elif name == "runs":
            from memscope.tui.screens.runs import RunsScreen

            screen = RunsScreen(session, keys)
        else:
            raise ValueError(f"no main screen {name!r} (main screens: {', '.join(MAIN_SCREENS)})")
        self.app.install_screen(screen, name)
        self._installed[name] = screen
        return screen

    @property
    def question_screen(self) -> QuestionScreen | None:
        """The question screen (None before it was first shown), also while the app closes."""
        return self._question

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
        if current is self._screen(name):
            if hasattr(current, "on_screen_resume"):
                current.on_screen_resume()  # refresh in place
            return
        if len(app.screen_stack) > 1:
            app.switch_screen(name)
        else:
            app.push_screen(name)

    def show(self, name: str, *, filter_focus: bool = False) -> bool:
        """A main screen as the user asked for it: refused with a word when not possible.
        True when a queue, question or matrix screen was shown (the position may change)."""
        session, app = self.session, self.app
        if name == "runs":
            self.show_main("runs")
            return False
        if not session.is_open:
            return False
        if name == "question":
            if session.qid is None:
                app.notify("The queue is empty: choose another queue first.", markup=False)
                return False
            self.show_main("question")
        elif name == "queue":
            self.show_main("queue")
            if filter_focus:
                queue = self._screen("queue")
                assert isinstance(queue, QueueScreen)
                app.call_after_refresh(queue.action_filter)
        elif name == "matrix":
            self.show_main("matrix")
        else:
            return False
        return True

    def push_loading(self, what: str) -> None:
        """Show the loading screen while a run is opened."""
        app = self.app
        screen = LoadingScreen(what, self._loading_step)
        if len(app.screen_stack) > 1:
            app.switch_screen(screen)
        else:
            app.push_screen(screen)

    def loading_step(self, text: str) -> None:
        """Show the loader's progress (kept for a loading screen shown later)."""
        self._loading_step = text
        if isinstance(self.app.screen, LoadingScreen):
            self.app.screen.update(text)

    def show_fatal(self, what: str, error: MemscopeError) -> None:
        """The run could not be opened: explain, then offer the runs in the store."""

        from memscope.tui.screens.dialogs import ErrorDialog

        def after(_result: object) -> None:
            self.show_main("queue" if self.session.is_open else "runs")

        self.app.push_screen(ErrorDialog(what, error), after)

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
        elif screen is self._installed.get("matrix"):
            from memscope.tui.screens.matrix import MatrixScreen  # imported: it was shown

            assert isinstance(screen, MatrixScreen)
            from textual.css.query import NoMatches

            # Closing, or not yet composed, when the suggestions arrive: it redraws when shown.
            with contextlib.suppress(NoMatches):
                screen.on_screen_resume()
        question = self.question_screen
        if question is not None and question.detail is not None:
            question.refresh_labels()

    def queue_counted(self) -> None:
        """Redraw what shows the queue's length and the cursor's place in it (the whole
        queue replaced the head drawn first)."""
        if isinstance(self.app.screen, QueueScreen):
            self.app.screen.refresh_queue()
        question = self.question_screen
        if question is not None and question.detail is not None:
            question.refresh_status()

    def labels_changed(self, qid: str) -> None:
        """Redraw what shows labels after a change was queued or saved."""
        screen = self.question_screen
        if screen is not None and screen.detail is not None and screen.detail.qid == qid:
            screen.refresh_labels()
            screen.refresh_status()
        self.refresh_queue()
