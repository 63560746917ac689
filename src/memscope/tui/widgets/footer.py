"""The footer: the screen's keys that fit, ``?`` Help and ``q`` Quit always among them.

Textual's footer lays every key out in a row and cuts what does not fit, so on a narrow
terminal Help and Quit were the first to go. This one measures the keys against the
terminal's width and drops the least important first (:data:`DROP_FIRST`, then from the
end of the row); Help and Quit are never dropped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import ActiveBinding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

ALWAYS = ("help", "quit")
"""Actions the footer always shows."""

DROP_FIRST = {
    "show_runs": 0,
    "show_matrix": 1,
    "play": 2,
    "toggle_caption": 3,
    "note": 4,
    "pick_code": 5,
    "cycle_kind": 6,
}
"""Actions dropped before the others, lowest first (the rest go from the end of the row)."""

PALETTE_WIDTH = 12
"""What the command-palette key at the right end takes (``▏^p palette``)."""


def key_width(key_display: str, description: str) -> int:
    """The cells one footer key takes: `` key `` + ``description `` + its margin."""
    return cell_len(key_display) + 2 + (cell_len(description) + 1 if description else 0)


def fitting(items: list[tuple[Any, int]], width: int) -> list[int]:
    """The indices of ``items`` (action, cells) to show in ``width`` cells, in row order."""
    keep = list(range(len(items)))

    def total() -> int:
        return sum(items[i][1] for i in keep)

    def drop_order(i: int) -> tuple[int, int]:
        return (DROP_FIRST.get(items[i][0], 100), -i)

    droppable = sorted((i for i in keep if items[i][0] not in ALWAYS), key=drop_order)
    for i in droppable:
        if total() <= width:
            break
        keep.remove(i)
    return keep


class KeySpec(NamedTuple):
    """One key the footer shows, as it is drawn."""

    key: str
    display: str
    description: str
    action: str
    enabled: bool
    tooltip: str
    classes: str = ""


class FittingFooter(Footer):
    """A :class:`~textual.widgets.Footer` that keeps Help and Quit at any width.

    Textual recomposes a footer whenever the bindings may have changed (a screen shown,
    focus moved, the terminal resized): a dozen keys removed, mounted and styled again. This
    one recomposes only when the keys it would show differ from those it shows.
    """

    _shown: tuple[KeySpec, ...] | None = None

    def compose(self) -> ComposeResult:
        planned = self._planned()
        self._shown = planned
        for spec in planned:
            key = FooterKey(
                spec.key,
                spec.display,
                spec.description,
                spec.action,
                classes=spec.classes,
                disabled=not spec.enabled,
                tooltip=spec.tooltip,
            )
            if not spec.classes:  # as Textual's: the palette key keeps its own style
                key.data_bind(compact=Footer.compact)
            yield key

    async def recompose(self) -> None:
        if self._shown is not None and self._planned() == self._shown:
            return
        await super().recompose()

    def _planned(self) -> tuple[KeySpec, ...]:
        """The keys to show now, in row order (none before the bindings are ready)."""
        if not self._bindings_ready:
            return ()
        active = self.screen.active_bindings
        seen: set[str] = set()
        shown: list[KeySpec] = []
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in seen:
                seen.add(binding.action)
                display = self.app.get_key_display(binding)
                shown.append(
                    KeySpec(
                        binding.key, display, binding.description, binding.action, enabled, tooltip
                    )
                )
        width = max(self.app.size.width, 20) - PALETTE_WIDTH
        items = [(spec.action, key_width(spec.display, spec.description)) for spec in shown]
        planned = [shown[i] for i in fitting(items, width)]
        return (*planned, *self._palette_key(active))

    def _palette_key(self, active: Mapping[str, ActiveBinding]) -> Iterator[KeySpec]:
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return
        try:
            _node, binding, enabled, _tooltip = active[self.app.COMMAND_PALETTE_BINDING]
        except KeyError:
            return
        yield KeySpec(
            binding.key,
            self.app.get_key_display(binding),
            binding.description,
            binding.action,
            enabled,
            binding.tooltip or binding.description,
            classes="-command-palette",
        )

    def on_resize(self) -> None:
        if self._bindings_ready:
            self.call_after_refresh(self.recompose)
