"""The command palette (ctrl+p): every action of the current screen and of the app.

Entries come from the same binding catalogue as the help screen, so a new binding shows up
in both; each entry names its keys, and each action is listed once. Textual's own
commands (theme, screenshot …) are kept apart, each titled "Textual: …" (see
:func:`textual_commands`), so a search for "export" or "quit" finds memscope's first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from memscope.tui.host import CatalogueHost
from memscope.tui.keymap import describe_keys

if TYPE_CHECKING:
    from textual.app import SystemCommand


class MemscopeCommands(Provider):
    """Every action reachable from the screen the palette was opened on."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = self.app
        if not isinstance(app, CatalogueHost):  # the provider is installed on memscope's app only
            return []
        catalogue = app.binding_catalogue
        scope = getattr(self.screen, "SCOPE", None)
        navigation = {
            "show_queue": "Go to the queue",
            "show_question": "Go to the question",
            "show_matrix": "Go to the matrix",
            "show_runs": "Go to the runs",
            "help": "Show every key (help)",
        }
        commands: list[tuple[str, str, Callable[[], object]]] = []
        listed: set[str] = set()
        for info in catalogue().values():
            if info.scope not in ("app", scope):
                continue
            # One entry per action: a navigation action under its descriptive title.
            title = navigation.get(info.action) or info.description or info.action
            namespace = app if info.scope == "app" else self.screen
            callback = partial(app.call_later, app.run_action, info.action, namespace)
            commands.append((title, f"{describe_keys(info.keys)}  ·  {info.binding_id}", callback))
            listed.add(info.action)
        for action, title in navigation.items():
            if action not in listed:
                commands.append(
                    (title, "navigation", partial(app.call_later, app.run_action, action))
                )
        return commands

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(f"{title} {help_text}")
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


TEXTUAL_PREFIX = "Textual: "
DUPLICATED_BUILTINS = ("Quit", "Keys")
"""Textual's commands memscope has its own entry for (``q`` Quit, ``?`` Help)."""


def textual_commands(commands: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """Textual's system commands, grouped under "Textual: …", without those memscope
    lists itself."""
    from textual.app import SystemCommand

    for command in commands:
        if command.title in DUPLICATED_BUILTINS:
            continue
        yield SystemCommand(TEXTUAL_PREFIX + command.title, command.help, command.callback)
