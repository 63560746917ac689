"""MemEye's X and Y level names, for front ends that lay out the X×Y matrix.

Light on purpose (no numpy): the CLI imports it at start-up. The levels themselves are
defined in ``adapters/memeye_axes.py``.
"""

from __future__ import annotations

from memscope.adapters.memeye_axes import X_LEVELS, Y_LEVELS

__all__ = ["X_LEVELS", "Y_LEVELS"]
