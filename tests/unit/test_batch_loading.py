"""Loading many runs at once (``usecases/runs/batch.py``) reads exactly what ``load_run``
reads run by run: every benchmark of the demo, with and without the answer texts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memscope.adapters import ReadOptions
from memscope.errors import NotFoundError
from memscope.store import Store
from memscope.usecases.runs.batch import load_question_tables, load_runs
from memscope.usecases.runs.ingest import ingest_paths
from memscope.usecases.runs.loading import RunData, load_run

DEMO = Path(__file__).parents[2] / "runs"


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, list[str]]:
    store = Store(tmp_path_factory.mktemp("batch") / "store.duckdb")
    outcomes, failures = ingest_paths(store, [DEMO], ReadOptions())
    assert not failures
    return store, [outcome.run_id for outcome in outcomes]


def assert_same_run(batch: RunData, alone: RunData) -> None:
    assert batch.run == alone.run
    assert batch.n_rounds == alone.n_rounds
    assert batch.questions.schema == alone.questions.schema
    assert batch.questions.to_pylist() == alone.questions.to_pylist()
    assert batch.evidence_table.equals(alone.evidence_table)
    np.testing.assert_array_equal(batch.scores, alone.scores)
    assert batch.scores.dtype == alone.scores.dtype
    for name in (
        "ranked_pos",
        "ranked_session",
        "gold_pos",
        "source_sessions",
        "has_ranking",
        "asks_latest",
    ):
        mine, theirs = getattr(batch.evidence, name), getattr(alone.evidence, name)
        np.testing.assert_array_equal(mine, theirs)
        assert mine.dtype == theirs.dtype, name


@pytest.mark.parametrize("detail", [False, True])
def test_every_demo_run_reads_as_load_run_reads_it(
    demo_store: tuple[Store, list[str]], detail: bool
) -> None:
    store, run_ids = demo_store
    benchmarks = set()
    # A run named twice comes back twice; the order is the order asked for.
    asked = [*reversed(run_ids), run_ids[0]]
    loaded = load_runs(store, asked, detail=detail)
    assert [data.run.run_id for data in loaded] == asked
    for data in loaded:
        assert_same_run(data, load_run(store, data.run.run_id, detail=detail))
        benchmarks.add(data.benchmark)
    assert {"memeye", "dmv", "cuemem"} <= benchmarks


def test_runs_padded_alone_read_alike(
    demo_store: tuple[Store, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs whose shared padding would waste too much are padded one by one: the same arrays."""
    from memscope.usecases.runs import batch

    store, run_ids = demo_store
    monkeypatch.setattr(batch, "SHARED_PADDING_SLACK", -1)
    for data in load_runs(store, run_ids, detail=False):
        assert_same_run(data, load_run(store, data.run.run_id, detail=False))


def test_question_tables_alone_read_as_question_table(
    demo_store: tuple[Store, list[str]],
) -> None:
    """``compare``'s read: each run's description and question table, as read run by run."""
    from memscope.store import queries
    from memscope.usecases.runs.run_info import RunInfo

    store, run_ids = demo_store
    asked = [run_ids[-1], run_ids[0], run_ids[-1]]
    loaded = load_question_tables(store, asked)
    assert [info.run_id for info, _ in loaded] == asked
    with store.read() as con:
        for info, table in loaded:
            row = queries.get_run(con, info.run_id)
            assert row is not None
            assert info == RunInfo.from_row(row)
            alone = queries.question_table(con, info.run_id)
            assert table.schema == alone.schema
            assert table.to_pylist() == alone.to_pylist()
    with pytest.raises(NotFoundError, match="no run 'nope'"):
        load_question_tables(store, ["nope", run_ids[0]])


def test_a_missing_run_is_named(demo_store: tuple[Store, list[str]]) -> None:
    store, run_ids = demo_store
    with pytest.raises(NotFoundError, match="no run 'nope'"):
        load_runs(store, [run_ids[0], "nope"])
    assert load_runs(store, []) == []


def test_odd_retrievals_read_alike(tmp_path: Path) -> None:
    """A tied rank, a round the dataset lacks and an unranked row: the one-pass assembly
    of many runs orders and resolves them as each run alone does."""
    store = Store(tmp_path / "store.duckdb")
    outcomes, failures = ingest_paths(
        store, [DEMO / "srag_t", DEMO / "srag_v", DEMO / "fc_v"], ReadOptions()
    )
    assert not failures
    run_ids = [outcome.run_id for outcome in outcomes]
    with store.write() as con:
        first = con.execute(
            "SELECT qid, round_id FROM retrievals WHERE run_id = ? AND rank = 1 LIMIT 1",
            [run_ids[0]],
        ).fetchone()
        assert first is not None
        qid, round_id = first
        con.execute(
            "INSERT INTO retrievals VALUES (?, ?, 1, 'no-such-round', 0.5, NULL, NULL, 'logged'),"
            " (?, ?, NULL, ?, NULL, NULL, NULL, 'recomputed'), (?, ?, 2, ?, 0.1, NULL, NULL, 'logged')",
            [run_ids[0], qid, run_ids[0], qid, round_id, run_ids[1], qid, round_id],
        )
    for data in load_runs(store, run_ids, detail=False):
        assert_same_run(data, load_run(store, data.run.run_id, detail=False))
