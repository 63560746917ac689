"""Issue 39, item 3 (begun): the diagnostics read what a benchmark declares (its latest-state
and its decline questions), not MemEye's labels or a task name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memscope.adapters import ReadOptions
from memscope.analysis.suggest import apply_rules
from memscope.store import Store
from memscope.usecases.runs.ingest import ingest_paths
from memscope.usecases.runs.loading import load_run
from memscope.usecases.suggest.rules import build_facts, suggest_run
from plugin_helpers import TOY, TOY_CLONE, install_plugins


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from install_plugins(tmp_path, monkeypatch)


def _toy(declared: str) -> str:
    return (
        TOY_CLONE
        + """
    from memscope.plugin import QuestionMatch
    from memscope_toybench import run

    class Reader(RenamedReader):
        def __init__(self):
            super().__init__("toym")
"""
        + f"    BENCHMARK = clone('toym', reader=Reader(), {declared})\n"
    )


def _ingest(store: Store) -> str:
    outcomes, failures = ingest_paths(store, [TOY / "runs" / "toy_bm25"], ReadOptions())
    assert not failures
    return outcomes[0].run_id


def test_declared_latest_state_and_decline_questions_drive_the_rules(plugins, store: Store) -> None:
    update = "QuestionMatch('extra:kind', ('update',))"
    plugins({"toym": "toym:BENCHMARK"}, {"toym": _toy(f"latest_state={update}, declines={update}")})
    run_id = _ingest(store)
    data = load_run(store, run_id)
    kinds = data.attribute("kind")
    facts = build_facts(store, data)
    assert facts.latest is not None and facts.refusal_task is not None
    assert facts.latest.tolist() == (kinds == "update").tolist()
    assert facts.refusal_task.tolist() == (kinds == "update").tolist()
    failed_updates = {
        qid
        for qid, kind, failed in zip(data.qids.tolist(), kinds.tolist(), facts.failed, strict=True)
        if kind == "update" and failed
    }
    assert failed_updates  # the example run fails some
    # The same questions are latest-state ones too, so a temporal rule may come first: the
    # decline rule is among each one's hits, and only theirs.
    hits = apply_rules(facts)
    calib = {
        qid
        for qid, found in zip(data.qids.tolist(), hits, strict=True)
        if any(hit.rule == "refusal-task-wrong" for hit in found)
    }
    assert calib == failed_updates
    assert {s.qid for s in suggest_run(store, run_id)} >= failed_updates


def test_nothing_declared_borrows_nothing(plugins, store: Store) -> None:
    plugins({"toym": "toym:BENCHMARK"}, {"toym": _toy("")})
    data = load_run(store, _ingest(store))
    facts = build_facts(store, data)
    assert not np.any(facts.latest) and not np.any(facts.refusal_task)
