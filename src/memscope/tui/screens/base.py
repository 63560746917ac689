"""The base of the app's main screens: each holds the session and the key names it was
given, changes the session directly, and posts a request message for the rest."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

from memscope.triage.notice import Notice
from memscope.triage.session import TriageSession
from memscope.tui.keymap import KeyNames
from memscope.tui.messages import QueueChanged


def show_notice(
    node: App[Any] | Widget, notice: Notice | None, *, timeout: float | None = None
) -> None:
    """Show a session notice as a toast from ``node`` (None: nothing to say)."""
    if notice is not None:
        node.notify(
            notice.text,
            title=notice.title,
            severity=notice.severity,
            timeout=timeout,
            markup=False,
        )


class SessionScreen(Screen[None]):
    """A main screen of the triage app (queue, question, matrix, runs)."""

    def __init__(self, session: TriageSession, keys: KeyNames, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.keys = keys

    def tell(self, notice: Notice | None, *, timeout: float | None = None) -> None:
        """Show a session notice as a toast (None: nothing to say)."""
        show_notice(self, notice, timeout=timeout)

    def change_queue(self, **changes: Any) -> bool:
        """Change the session's queue spec; False (and says why) when the filter is invalid."""
        notice = self.session.change_queue(**changes)
        if notice is not None:
            self.tell(notice)
            return False
        self.post_message(QueueChanged())
        return True
