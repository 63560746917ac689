"""What the app's actions that live outside it need of the app: small protocols.

The command palette (``tui.commands``) and the export action (``tui.export_action``) are
given the app as one of these instead of importing ``MemscopeApp``, so no module of the
app's package but ``tui.launch`` imports ``tui.app`` (pyproject.toml's ``tui-app-entry``
contract) and there is no import circle inside ``tui/``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from textual.notifications import SeverityLevel
from textual.screen import Screen

from memscope.triage.session import TriageSession
from memscope.tui.keymap import BindingInfo


class SessionHost(Protocol):
    """An app that holds a triage session, shows toasts and pushes screens."""

    session: TriageSession

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def push_screen(self, screen: Screen[Any], callback: Any = None) -> object: ...


@runtime_checkable
class CatalogueHost(Protocol):
    """An app that knows its bindings with the keys in effect (the palette lists them)."""

    def binding_catalogue(self) -> dict[str, BindingInfo]: ...
