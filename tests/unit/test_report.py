"""The run report on real runner output and on hand-built runs, with hand-computed numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.store import Store
from memscope.usecases.report.build import build_report
from memscope.usecases.runs.ingest import ingest_dir
from memscope.usecases.runs.loading import load_run
from support import upstream_run


def report_for(store: Store, run_dir: Path, k: int | None = None) -> dict:
    outcome = ingest_dir(store, run_dir, ReadOptions())
    return build_report(load_run(store, outcome.run_id), k)


def test_semantic_rag_report_at_the_run_top_k(store: Store) -> None:
    result = report_for(store, upstream_run("semantic_rag_text_only", "open"))
    assert result["k"] == 5  # the run's top_k
    retrieval = result["retrieval"]
    assert retrieval["n"] == 6 and retrieval["n_undiagnosable"] == 0
    # Every clue is in the top 5; first-clue ranks are 1, 1, 2, 1, 2, 4.
    assert retrieval["overall"]["any_clue"] == 1.0 and retrieval["overall"]["full_clue"] == 1.0
    assert retrieval["overall"]["mrr"] == pytest.approx((1 + 1 + 0.5 + 1 + 0.5 + 0.25) / 6)
    assert retrieval["by_y"]["Y1"] == pytest.approx(
        {"n": 3, "any_clue": 1.0, "coverage": 1.0, "full_clue": 1.0, "mrr": 1.75 / 3}
    )
    assert result["answer"]["overall"] == {"n": 6, "em": 0.0, "judge": 0.0, "n_judge": 6}


def test_report_at_k_2_by_hand(store: Store) -> None:
    result = report_for(store, upstream_run("semantic_rag_text_only", "open"), k=2)
    overall = result["retrieval"]["overall"]
    assert overall["any_clue"] == pytest.approx(5 / 6)
    assert overall["coverage"] == pytest.approx((2 / 3 + 1 + 1 + 0.5 + 0.5 + 0) / 6)
    assert overall["full_clue"] == pytest.approx(2 / 6)
    # q1 (Y3): latest clue K5:1 is rank 1, the stale K2:1 (rank 2) is below it.
    assert result["temporal"] == {
        "n": 1,
        "latest_at_k": 1.0,
        "latest_miss": 0.0,
        "rank_inversion": 0.0,
        "stale_dominance": 0.0,
    }
    q1 = result["questions"][0]
    assert q1["retrieved"] == ["K5:1", "K2:1", "K3:1", "K1:2", "K1:1"]
    assert q1["coverage"] == pytest.approx(2 / 3)


def test_mcq_rotation_em_and_cells(store: Store) -> None:
    result = report_for(store, upstream_run("semantic_rag_text_only", "mcq"))
    cells = result["answer"]["by_cell"]
    assert cells["X3_Y1"] == {"n": 1, "em": 0.5, "judge": None, "n_judge": 0}
    assert cells["X4_Y1"]["em"] == 0.25
    assert result["answer"]["overall"]["em"] == pytest.approx(3.25 / 6)


def test_runs_without_retrieval_say_so(store: Store) -> None:
    for name, phrase in (
        ("question_only", "logged no retrieved evidence"),
        ("full_context_multimodal", "fixed context"),
    ):
        result = report_for(store, upstream_run(name, "open"))
        assert result["retrieval"] is None and result["temporal"] is None
        assert phrase in result["notes"][0]
        assert all(q["any_clue"] is None and q["retrieved"] is None for q in result["questions"])


def test_macro_average_weighs_cells_equally(store: Store, tmp_path: Path) -> None:
    data = dialog(
        {"D1": ["D1:1", "D1:2"]},
        [qa(f"Question {i}?", "a", [["X1"], ["Y1"]], ["D1:1"]) for i in range(3)]
        + [qa("Odd one?", "b", [["X1", "X2"], ["Y1"]], ["D1:2"])]
        + [qa("No point?", "c", None, ["D1:2"])],
    )
    rows = [
        open_row(1, data, em=1.0, judge=1.0, seed=["D1:1"]),
        open_row(2, data, em=1.0, judge=1.0, seed=["D1:2"]),
        open_row(3, data, em=0.0, judge=0.0, seed=["D1:2"]),
        open_row(4, data, em=0.0, judge=0.5, seed=["D1:2"]),
        open_row(5, data, em=0.0, judge=None, seed=[]),
    ]
    result = report_for(store, write_run(tmp_path / "runs" / "r", data, rows))
    answer = result["answer"]
    assert answer["by_cell"]["X1_Y1"]["em"] == pytest.approx(2 / 3)
    assert answer["by_cell"]["X2_Y1"] == {
        "n": 1,
        "em": 0.0,
        "judge": 0.5,
        "n_judge": 1,
    }  # highest X label
    assert answer["overall"]["em"] == pytest.approx(2 / 5)
    assert answer["macro"]["em"] == pytest.approx((2 / 3 + 0) / 2)
    assert answer["macro"]["judge"] == pytest.approx((2 / 3 + 0.5) / 2)
    assert answer["n_unplaced"] == 1
    # q5 has a judge of null: open correctness falls back to EM.
    assert [q["correct"] for q in result["questions"]] == [True, True, False, True, False]
