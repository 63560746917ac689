"""The recency re-rank's default parameters, apart from the re-ranking itself.

The app's view parameters start from them; importing them here rather than from
``usecases.rerun.question_rerank`` keeps the re-ranking (and what it imports) out of the
app's start.
"""

from __future__ import annotations

from memscope.analysis.rerank import DEFAULT_LAMBDA

__all__ = ["DEFAULT_LAMBDA"]
