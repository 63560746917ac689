"""Typer's own usage errors and help, printed through memscope's sanitised console.

Typer prints them with ``typer.rich_utils``, which it imports only when it has something to
print (importing it loads Rich's Markdown, markdown-it and Pygments: about 50 ms, a sixth
of a short command's start). :func:`route_typer_consoles` therefore patches the module when
it is imported, through a one-shot import hook, or at once where it is loaded already.

``_get_rich_console`` is private to Typer (pinned <0.29); tests/cli/test_private_seams.py
and the hostile-input tests fail if an upgrade stops routing errors through it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from rich.console import Console

RICH_UTILS = "typer.rich_utils"


def _patch(rich_utils: ModuleType, make_safe: Callable[[Console], Console]) -> None:
    names = vars(rich_utils)
    original: Callable[..., Console] = names["_get_rich_console"]
    if getattr(original, "memscope_sanitised", False):
        return

    def safe_console(stderr: bool = False) -> Console:
        return make_safe(original(stderr=stderr))

    safe_console.memscope_sanitised = True  # type: ignore[attr-defined]
    names["_get_rich_console"] = safe_console


class _PatchingLoader(importlib.abc.Loader):
    """Runs the module as its own loader would, then patches it (anything else: the
    original loader's, such as ``get_source`` for tracebacks)."""

    def __init__(self, loader: Any, make_safe: Callable[[Console], Console]) -> None:
        self._loader = loader
        self._make_safe = make_safe

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _patch(module, self._make_safe)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class _OnImport(importlib.abc.MetaPathFinder):
    """Finds ``typer.rich_utils`` where the import system would, once, with a patching loader."""

    def __init__(self, make_safe: Callable[[Console], Console]) -> None:
        self._make_safe = make_safe

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != RICH_UTILS:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader, self._make_safe)
        return spec


def route_typer_consoles(make_safe: Callable[[Console], Console]) -> None:
    """Every console Typer prints its errors and help on becomes ``make_safe(console)``."""
    loaded = sys.modules.get(RICH_UTILS)
    if loaded is not None:
        _patch(loaded, make_safe)
    elif not any(isinstance(finder, _OnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OnImport(make_safe))
