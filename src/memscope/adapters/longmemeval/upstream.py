"""LongMemEval's own numbers, from upstream's definitions (docs/metrics.md §LongMemEval;
written from ``run_retrieval.py``, ``eval_utils.py`` and ``print_qa_metrics.py`` at commit
``9e0b455``, not copied).

Retrieval (per question, k in :data:`KS`): the corpus is the user side of the haystack;
targets are the corpus ids containing ``answer``; ``recall_any@k`` is whether a target is
in the top k, ``recall_all@k`` whether every one is (true when there is none, as Python's
``all`` of nothing), ``ndcg_any@k`` binary nDCG whose first two ranks are undiscounted and
rank r > 1 is divided by log2(r). A turn ranking is also scored at session level: ids cut
to their session, and k widened until k distinct sessions are covered.

Answers: the accuracy of a type is the mean judge label of its questions; the
task-averaged accuracy the mean of the six type accuracies; overall the mean over all
questions; abstention the mean over the ``_abs`` ones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from memscope.adapters.longmemeval.axes import TYPES
from memscope.plugin import CellMean

KS = (1, 3, 5, 10, 30, 50)
MEASURES = ("recall_any", "recall_all", "ndcg_any")
GRANULARITIES = ("session", "turn")


def corpus_ids(session_id: str, turns: Sequence[Any], granularity: str) -> list[str]:
    """The ids run_retrieval.py gives a session's items: the session, or each user turn
    (``<id>_<n>``, n its 1-based position among all the session's turns); in an evidence
    session (id with ``answer``), an item without evidence is renamed ``noans``."""
    users = [
        (n, turn)
        for n, turn in enumerate(turns, start=1)
        if isinstance(turn, dict) and turn.get("role") == "user"
    ]
    evidence_session = "answer" in session_id
    if granularity == "session":
        marked = any(turn.get("has_answer") for _, turn in users)
        renamed = evidence_session and not marked
        return [session_id.replace("answer", "noans") if renamed else session_id]
    ids = []
    for n, turn in users:
        tid = f"{session_id}_{n}"
        renamed = evidence_session and not turn.get("has_answer")
        ids.append(tid.replace("answer", "noans") if renamed else tid)
    return ids


def corpus_targets(entry: Mapping[str, Any]) -> dict[str, list[str]]:
    """Per granularity, the corpus ids of a dataset entry that upstream scores as targets."""
    found: dict[str, list[str]] = {}
    for granularity in GRANULARITIES:
        ids = [
            cid
            for sid, turns in zip(
                entry["haystack_session_ids"], entry["haystack_sessions"], strict=True
            )
            for cid in corpus_ids(str(sid), turns, granularity)
        ]
        found[granularity] = sorted({cid for cid in ids if "answer" in cid})
    return found


def _dcg(relevant: Sequence[bool]) -> float:
    return sum(
        (1.0 if hit else 0.0) / (math.log2(rank) if rank > 1 else 1.0)
        for rank, hit in enumerate(relevant, start=1)
    )


def _scores(
    ranked: Sequence[str], targets: set[str], k: int, unranked: int = 0
) -> tuple[float, float, float]:
    """Upstream's three measures at k; ``unranked`` targets the ranking lacks still count in
    the ideal ranking (upstream ranks the whole corpus, so for its logs this is 0)."""
    top = ranked[:k]
    shown = set(top)
    relevant = [cid in targets for cid in ranked]
    ideal = _dcg(sorted([*relevant, *([True] * unranked)], reverse=True)[:k])
    ndcg = _dcg(relevant[:k]) / ideal if ideal else 0.0
    return (
        float(any(t in shown for t in targets)),
        float(all(t in shown for t in targets)),
        ndcg,
    )


def _session(cid: str) -> str:
    return cid.rsplit("_", 1)[0]


def retrieval_metrics(
    ranked: Sequence[str], granularity: str, targets: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """``retrieval_results.metrics`` as upstream computes them for one question's ranking of
    its whole corpus (``ranked``: corpus ids, best first), against ``targets`` (the corpus
    ids the dataset marks; by default those of ``ranked`` with ``answer``, as upstream)."""
    wanted_ids = {cid for cid in ranked if "answer" in cid} if targets is None else set(targets)
    missing = len(wanted_ids - set(ranked))
    found: dict[str, dict[str, float]] = {"session": {}, "turn": {}}
    sessions = [_session(cid) for cid in ranked]
    wanted = {_session(cid) for cid in wanted_ids}
    for k in KS:
        values = _scores(ranked, wanted_ids, k, missing)
        found[granularity].update({f"{m}@{k}": v for m, v in zip(MEASURES, values, strict=True)})
        if granularity == "turn":
            reach = k
            while reach <= len(sessions) and len(set(sessions[:reach])) < k:
                reach += 1
            values = _scores(sessions, wanted, reach, len(wanted - set(sessions)))
            found["session"].update({f"{m}@{k}": v for m, v in zip(MEASURES, values, strict=True)})
    return found


def task_averaged(cells: Mapping[str, CellMean]) -> CellMean | None:
    """print_qa_metrics.py's task-averaged accuracy: the unweighted mean of the six type
    accuracies (the table's ``type:<type>`` means; None unless all six are present, where
    upstream's mean would be NaN)."""
    present = [cells.get(f"type:{qtype}") for qtype in TYPES]
    if any(value is None for value in present):
        return None
    total = present[0]
    for value in present[1:]:
        total = total + value  # type: ignore[operator]
    return total / len(TYPES)  # type: ignore[operator]


def abstention_accuracy(cells: Mapping[str, CellMean]) -> CellMean | None:
    """print_qa_metrics.py's abstention accuracy: the mean over the ``_abs`` questions."""
    return cells.get("abstention:yes")
