"""Comparing two runs: questions matched by key, Δ per group with paired intervals, the
fixed / broken transitions, and the warnings for partial or cross-task matches."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.analysis.compare import transitions
from memscope.errors import InputError
from memscope.usecases.compare.pairs import compare_runs, match_questions
from memscope.usecases.runs.ingest import ingest_dir

QUESTIONS = [
    qa("What colour is the mug?", "red", [["X4"], ["Y1"]], ["D1:1"], ["D1"]),
    qa("Which shelf holds the vase?", "top", [["X2"], ["Y1"]], ["D1:2"], ["D1"]),
    qa("What is written on the jar?", "salt", [["X4"], ["Y1"]], ["D2:1"], ["D2"]),
    qa("Where is the lamp now?", "desk", [["X2"], ["Y3"]], ["D1:2", "D2:2"], ["D1", "D2"]),
]
SESSIONS = {"D1": ["D1:1", "D1:2"], "D2": ["D2:1", "D2:2"]}
# judge per question: text-only run A and native-visual run B.
JUDGE_A = [0.0, 1.0, 0.25, 1.0]
JUDGE_B = [1.0, 1.0, 0.75, 0.0]


def two_runs(
    tmp_path: Path,
    store,
    *,
    b_questions: list | None = None,
    b_rows: list[int] | None = None,
    b_task: str | None = None,
) -> tuple[str, str]:
    data_a = dialog(SESSIONS, QUESTIONS)
    rows_a = [open_row(i, data_a, judge=JUDGE_A[i - 1], seed=["D1:1"]) for i in range(1, 5)]
    run_a = write_run(tmp_path / "a" / "runs" / "text", data_a, rows_a)
    data_b = dialog(SESSIONS, b_questions or QUESTIONS)
    order = b_rows or [1, 2, 3, 4]
    judge_of = {q["question"]: JUDGE_B[i] for i, q in enumerate(QUESTIONS)}
    rows_b = [
        open_row(
            i,
            data_b,
            judge=judge_of[data_b["human-annotated QAs"][i - 1]["question"]],
            seed=["D1:1"],
        )
        for i in order
    ]
    run_b = write_run(
        tmp_path / "b" / "runs" / "visual",
        data_b,
        rows_b,
        method="semantic_rag_multimodal",
        modality="multimodal",
    )
    if b_task:
        metrics = json.loads((run_b / "metrics.json").read_text())
        metrics["task_name"] = b_task
        (run_b / "metrics.json").write_text(json.dumps(metrics))
    first = ingest_dir(store, run_a, ReadOptions()).run_id
    second = ingest_dir(store, run_b, ReadOptions()).run_id
    return first, second


def test_delta_and_transitions(tmp_path: Path, store) -> None:
    a, b = two_runs(tmp_path, store)
    result = compare_runs(store, a, b, resamples=2000)
    assert result["matched"] == 4 and result["warnings"] == []
    delta = result["delta"]
    # Δ = B - A per question: +1, 0, +0.5, -1.
    assert delta["overall"]["delta"] == pytest.approx(0.125)
    assert delta["overall"]["score_a"] == pytest.approx(0.5625) and delta["overall"][
        "score_b"
    ] == pytest.approx(0.6875)
    assert delta["by_x"]["X4"]["delta"] == pytest.approx(0.75) and delta["by_x"]["X4"]["n"] == 2
    assert delta["by_x"]["X2"]["delta"] == pytest.approx(-0.5)
    assert delta["by_y"]["Y3"]["delta"] == pytest.approx(-1.0)
    assert set(delta["by_cell"]) == {"X4_Y1", "X2_Y1", "X2_Y3"}
    cell = delta["by_cell"]["X4_Y1"]
    assert (
        cell["n"] == 2
        and cell["ci_low"] == pytest.approx(0.5)
        and cell["ci_high"] == pytest.approx(1.0)
    )
    assert delta["by_cell"]["X2_Y3"]["ci_low"] == delta["by_cell"]["X2_Y3"]["ci_high"] == -1.0
    groups = result["transitions"]
    # correct = judge >= 0.5: A = F T F T, B = T T T F.
    assert groups["fixed"] == {"n": 2, "qids": ["q1", "q3"]}
    assert groups["broken"] == {"n": 1, "qids": ["q4"]}
    assert groups["both_right"] == {"n": 1, "qids": ["q2"]}
    assert groups["both_wrong"] == {"n": 0, "qids": []}
    assert result["significance"] is None
    assert compare_runs(store, a, b, resamples=2000) == result  # reproducible


def test_questions_match_by_key_not_position(tmp_path: Path, store) -> None:
    # B's dataset lists the questions in another order, so its qids differ.
    reordered = [QUESTIONS[3], QUESTIONS[0], QUESTIONS[2], QUESTIONS[1]]
    a, b = two_runs(tmp_path, store, b_questions=reordered)
    result = compare_runs(store, a, b, resamples=500)
    assert result["matched"] == 4
    assert result["delta"]["overall"]["delta"] == pytest.approx(0.125)
    fixed = result["transitions"]["fixed"]
    assert fixed["qids"] == ["q1", "q3"] and fixed["qids_b"] == ["q2", "q3"]
    assert result["transitions"]["broken"]["qids_b"] == ["q1"]


def test_partial_match_and_other_task_warn(tmp_path: Path, store) -> None:
    a, b = two_runs(tmp_path, store, b_rows=[1, 2, 3])
    result = compare_runs(store, a, b, resamples=500)
    assert result["matched"] == 3
    assert any("only 3 questions match: run A has 4, run B has 3" in w for w in result["warnings"])


def test_task_names_differing_over_one_dataset_are_warned(tmp_path: Path, store) -> None:
    # Datasets are shared by content, so both runs ask the same questions: matched, but said.
    a, b = two_runs(tmp_path, store, b_task="other_task")
    result = compare_runs(store, a, b, resamples=200)
    assert result["matched"] == 4
    assert any(
        "different tasks (test_task vs other_task)" in warning for warning in result["warnings"]
    )


def test_different_tasks_match_nothing(tmp_path: Path, store) -> None:
    a, _ = two_runs(tmp_path, store)
    other = dialog(
        SESSIONS,
        [dict(q, question=f"Another task's question {i}?") for i, q in enumerate(QUESTIONS)],
    )
    run_c = write_run(
        tmp_path / "c" / "runs" / "other",
        other,
        [open_row(i, other, seed=["D1:1"]) for i in range(1, 5)],
    )
    metrics = json.loads((run_c / "metrics.json").read_text())
    (run_c / "metrics.json").write_text(json.dumps(dict(metrics, task_name="other_task")))
    c = ingest_dir(store, run_c, ReadOptions()).run_id
    with pytest.raises(
        InputError, match=r"share no question .*different tasks \(test_task vs other_task\)"
    ):
        compare_runs(store, a, c)


def test_same_run_twice_is_refused(tmp_path: Path, store) -> None:
    a, _ = two_runs(tmp_path, store)
    with pytest.raises(InputError, match="two different runs"):
        compare_runs(store, a, a)


def test_match_questions_pairs_repeated_keys_in_order() -> None:
    rows_a, rows_b = match_questions(["k1", "k2", "k1", "k3"], ["k1", "k1", "k2"])
    assert rows_a.tolist() == [0, 1, 2] and rows_b.tolist() == [0, 2, 1]


def test_transition_classes() -> None:
    classes = transitions(
        np.array([0.0, 1.0, 1.0, 0.0, np.nan]), np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    )
    assert classes.tolist() == ["fixed", "broken", "both_right", "both_wrong", ""]
