"""The footer: the screen's keys that fit, ``?`` Help and ``q`` Quit always among them.

Textual's footer lays every key out in a row and cuts what does not fit, so on a narrow
terminal Help and Quit were the first to go. This one measures the keys against the
terminal's width and drops the least important first (:data:`DROP_FIRST`, then from the
end of the row); Help and Quit are never dropped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

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


class FittingFooter(Footer):
    """A :class:`~textual.widgets.Footer` that keeps Help and Quit at any width."""

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        active = self.screen.active_bindings
        seen: set[str] = set()
        rows: list[tuple[Any, bool, str]] = []
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in seen:
                seen.add(binding.action)
                rows.append((binding, enabled, tooltip))
        shown = [
            (binding, self.app.get_key_display(binding), enabled, tooltip)
            for binding, enabled, tooltip in rows
        ]
        width = max(self.app.size.width, 20) - PALETTE_WIDTH
        items = [(b.action, key_width(display, b.description)) for b, display, _e, _t in shown]
        for i in fitting(items, width):
            binding, display, enabled, tooltip = shown[i]
            yield FooterKey(
                binding.key,
                display,
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
        yield from self._palette_key(active)

    def _palette_key(self, active: Mapping[str, ActiveBinding]) -> Iterator[FooterKey]:
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return
        try:
            _node, binding, enabled, _tooltip = active[self.app.COMMAND_PALETTE_BINDING]
        except KeyError:
            return
        yield FooterKey(
            binding.key,
            self.app.get_key_display(binding),
            binding.description,
            binding.action,
            classes="-command-palette",
            disabled=not enabled,
            tooltip=binding.tooltip or binding.description,
        )

    def on_resize(self) -> None:
        if self._bindings_ready:
            self.call_after_refresh(self.recompose)
