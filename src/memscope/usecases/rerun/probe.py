"""Deprecated name of the re-ranking modules, kept only until every importer has moved.

``probe`` means a DMV-Bench question everywhere else, so the re-ranking code is in modules
named for what they do: :mod:`~memscope.usecases.rerun.checks` (what a re-rank refuses),
:mod:`~memscope.usecases.rerun.pool` (a run's candidate pools),
:mod:`~memscope.usecases.rerun.question_rerank` (one question),
:mod:`~memscope.usecases.rerun.run_rerank` (a whole run) and
:mod:`~memscope.usecases.rerun.saved` (results kept in the store). Import from those; this
module re-exports their public names for ``triage/session_service.py``, which another
change is splitting (issue 39), and goes once it imports the new modules.
"""

from __future__ import annotations

from memscope.usecases.rerun.checks import check_params, require_ranked, require_scores
from memscope.usecases.rerun.pool import ACCESS, BASELINE_ALPHA, TEMPORAL
from memscope.usecases.rerun.question_rerank import (
    DEFAULT_LAMBDA,
    CandidateRow,
    QuestionRerun,
    RankedPool,
    rerun_question,
)
from memscope.usecases.rerun.run_rerank import CHUNK_QUESTIONS, rerun_run
from memscope.usecases.rerun.saved import get_rerun, list_reruns, store_rerun

__all__ = [
    "ACCESS",
    "BASELINE_ALPHA",
    "CHUNK_QUESTIONS",
    "DEFAULT_LAMBDA",
    "TEMPORAL",
    "CandidateRow",
    "QuestionRerun",
    "RankedPool",
    "check_params",
    "get_rerun",
    "list_reruns",
    "require_ranked",
    "require_scores",
    "rerun_question",
    "rerun_run",
    "store_rerun",
]
