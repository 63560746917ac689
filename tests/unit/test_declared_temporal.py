"""Issue 39, item 3: temporal authority (Latest@K, Rank-Inversion, Stale-Dominance), the app's
temporal lines and the report's title read a benchmark's declared ``latest_state`` and name
those questions in its words, never MemEye's ``Y3`` for a benchmark without Y."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memscope.adapters import ReadOptions
from memscope.analysis.evidence import temporal_authority
from memscope.store import Store
from memscope.triage.evidence_chain import question_detail
from memscope.tui.widgets.candidates import run_metrics_line
from memscope.usecases.runs.batch import load_runs
from memscope.usecases.runs.declared import latest_label_of
from memscope.usecases.runs.ingest import ingest_paths
from memscope.usecases.runs.loading import load_questions, load_run
from memscope.usecases.runs.session_io import read_rerank_data
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
            super().__init__("toyt")
"""
        + f"    BENCHMARK = clone('toyt', reader=Reader(), {declared})\n"
    )


def _ingest(store: Store) -> str:
    outcomes, failures = ingest_paths(store, [TOY / "runs" / "toy_bm25"], ReadOptions())
    assert not failures
    return outcomes[0].run_id


def test_temporal_authority_on_declared_latest_state_questions(plugins, store: Store) -> None:
    update = "QuestionMatch('extra:kind', ('update',), label='knowledge-update')"
    plugins({"toyt": "toyt:BENCHMARK"}, {"toyt": _toy(f"latest_state={update}")})
    run_id = _ingest(store)
    data = load_run(store, run_id)
    updates = data.attribute("kind") == "update"
    assert updates.any() and not updates.all()
    # Every read of the evidence flags the declared questions (was y == "Y3": none here).
    assert data.evidence.asks_latest.tolist() == updates.tolist()
    assert load_runs(store, [run_id])[0].evidence.asks_latest.tolist() == updates.tolist()
    assert load_questions(store, run_id).evidence.asks_latest.tolist() == updates.tolist()
    compact = read_rerank_data(store, run_id)
    flagged = set(compact.qids[compact.evidence.asks_latest].tolist())
    assert flagged == set(data.qids[updates].tolist())
    assert [question_detail(data, row).asks_latest for row in range(len(updates))] == list(updates)
    # The metrics are defined on those questions with a gold clue, and only on them.
    latest = temporal_authority(data.evidence, 3)["latest_at_k"]
    has_gold = (data.evidence.gold_pos >= 0).any(axis=1)
    assert (~np.isnan(latest)).tolist() == (updates & has_gold).tolist()
    # And they are named in the benchmark's words.
    assert latest_label_of("toyt") == "knowledge-update"
    line = run_metrics_line({"n": 0}, 1.0, latest_label_of("toyt")).plain
    assert "knowledge-update" in line and "Y3" not in line


def test_a_benchmark_declaring_nothing_has_no_temporal_questions(plugins, store: Store) -> None:
    plugins({"toyt": "toyt:BENCHMARK"}, {"toyt": _toy("")})
    run_id = _ingest(store)
    assert not load_run(store, run_id).evidence.asks_latest.any()
    assert latest_label_of("toyt") == "latest-state"
