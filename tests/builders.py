"""Builds small MemEye run directories in the exact upstream layout, for tests.

A test describes the dataset and rows it needs; ``write_run`` writes ``config.json``,
``metrics.json``, ``predictions.jsonl`` and the dialog JSON the way the MemEye runner does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def dialog(
    sessions: dict[str, list[str]],
    qas: list[dict[str, Any]],
    images: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """A dialog JSON: ``sessions`` maps a session id to its round ids, in order."""
    images = images or {}
    return {
        "character_profile": {"name": "tester"},
        "multi_session_dialogues": [
            {
                "session_id": session_id,
                "date": f"2024-01-{i + 1:02d}",
                "dialogues": [
                    {
                        "round": round_id,
                        "user": f"user text of {round_id}",
                        "assistant": f"assistant text of {round_id}",
                        **(
                            {
                                "input_image": images[round_id],
                                "image_caption": [f"caption of {p}" for p in images[round_id]],
                                "image_id": [Path(p).stem for p in images[round_id]],
                            }
                            if round_id in images
                            else {}
                        ),
                    }
                    for round_id in round_ids
                ],
            }
            for i, (session_id, round_ids) in enumerate(sessions.items())
        ],
        "human-annotated QAs": qas,
    }


def qa(
    question: str,
    answer: str,
    point: list[list[str]],
    clue: list[str],
    sessions: list[str] | None = None,
    options: Any = None,
) -> dict[str, Any]:
    """One QA entry."""
    entry: dict[str, Any] = {"point": point, "question": question, "answer": answer, "clue": clue}
    if sessions is not None:
        entry["session_id"] = sessions
    if options is not None:
        entry["options"] = options
    return entry


def open_row(
    idx: int,
    data: dict[str, Any],
    *,
    em: float = 0.0,
    judge: float | None = 0.0,
    seed: list[str] | None = None,
    scores: list[float] | None = None,
    runtime: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A predictions row for an open QA, like the upstream runner writes it."""
    qa_entry = data["human-annotated QAs"][idx - 1]
    row: dict[str, Any] = {
        "idx": idx,
        "point": qa_entry.get("point"),
        "mode": "open",
        "question": qa_entry["question"],
        "gt": qa_entry["answer"],
        "pred": "some answer",
        "exact_match": em == 1.0,
        "em": em,
        "contains_gt": False,
        "f1": 0.0,
        "bleu": 0,
        "bleu_1": 0,
        "bleu_2": 0,
        "bert": None,
        "judge": judge,
        "judge_reasoning": None if judge is None else "reasoning",
        "latency_ms": 3,
        "method_name": "semantic_rag_text_only",
        "effective_method_name": "semantic_rag_text_only",
        "method_modality": "text_only",
        "history_turns": 4,
        "source_sessions": qa_entry.get("session_id", []),
        "clue_rounds": qa_entry.get("clue", []),
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }
    if runtime is not None:
        row["method_runtime"] = runtime
    elif seed is not None:
        row["method_runtime"] = rag_runtime(seed, scores)
    return row


def rag_runtime(
    seed: list[str], scores: list[float] | None = None, top_k: int = 10
) -> dict[str, Any]:
    """A semantic_rag ``method_runtime`` with ``seed_round_ids`` and top-5 candidates."""
    scores = scores if scores is not None else [round(0.9 - 0.05 * i, 4) for i in range(len(seed))]
    return {
        "retrieval_backend": "dense_text",
        "retrieval_corpus": "round_text",
        "method_modality": "text_only",
        "top_k": top_k,
        "neighbor_window": 0,
        "seed_round_ids": seed,
        "selected_round_ids": seed,
        "top_candidates": [
            {"round_id": r, "score": s, "text_dense_score": s}
            for r, s in list(zip(seed, scores, strict=False))[:5]
        ],
        "history_source": "retrieval",
    }


def write_run(
    run_dir: Path,
    data: dict[str, Any],
    rows: list[dict[str, Any]] | list[str],
    *,
    method: str = "semantic_rag_text_only",
    top_k: int = 10,
    runtime: dict[str, Any] | None = None,
    dialog_path: Path | None = None,
    api_key: str = "sk-test-secret",
    modality: str = "text_only",
) -> Path:
    """Write a run dir (and its dialog JSON beside it unless ``dialog_path`` is given).

    ``rows`` may be dicts (serialised one per line) or raw strings (written as given,
    for malformed-line tests).
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    if dialog_path is None:
        dialog_path = run_dir.parent / "data" / "dialog" / "Task.json"
    dialog_path.parent.mkdir(parents=True, exist_ok=True)
    dialog_path.write_text(json.dumps(data))
    runtime = (
        runtime
        if runtime is not None
        else (rag_runtime([], top_k=top_k) if method.startswith("semantic_rag") else {})
    )
    config = {
        "task": {"name": "test_task"},
        "model": {"name": "test_model", "api_key": api_key},
        "method": {"name": method, "top_k": top_k},
        "run": {"output_root": "/elsewhere/runs", "method_runtime": runtime},
    }
    metrics = {
        "task_name": "test_task",
        "model_name": "test_model",
        "model_path": "test-model",
        "method_name": method,
        "base_method_name": method.split("__")[0],
        "method_modality": modality,
        "mode": "open",
        "num_qas": len(rows),
        "num_qas_run": len(rows),
        "dialog_json": str(dialog_path),
        "image_root": str(dialog_path.parent.parent / "image"),
        "run_dir": str(run_dir),
        "git_commit": "unknown",
        "summary": {},
    }
    if runtime:
        metrics["method_runtime"] = runtime
    (run_dir / "config.json").write_text(json.dumps(config))
    (run_dir / "metrics.json").write_text(json.dumps(metrics))
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    (run_dir / "predictions.jsonl").write_text("".join(line + "\n" for line in lines))
    return run_dir


def small_run(tmp_path: Path) -> Path:
    """A run of four questions over two sessions: q1 and q3 failed Y3, q2 failed Y1, q4
    right (the app's data layer and session service tests use it)."""
    data = dialog(
        {"D1": ["D1:1", "D1:2", "D1:3", "D1:4"], "D2": ["D2:1", "D2:2"]},
        [
            qa(
                "Where is the bin now?",
                "by the shed",
                [["X2"], ["Y3"]],
                ["D1:1", "D2:1"],
                ["D1", "D2"],
            ),
            qa("What colour is the can?", "yellow", [["X4"], ["Y1"]], ["D1:3"], ["D1"]),
            qa(
                "Which day is watering?",
                "Tuesday",
                [["X1"], ["Y3"]],
                ["D1:2", "D2:2"],
                ["D1", "D2"],
            ),
            qa("Who runs the garden?", "Ruth", [["X1"], ["Y1"]], ["D1:4"], ["D1"]),
        ],
    )
    rows = [
        open_row(1, data, judge=0.0, seed=["D1:1", "D2:1", "D1:3"], scores=[0.9, 0.5, 0.4]),
        open_row(2, data, judge=0.0, seed=["D1:4"], scores=[0.3]),
        open_row(3, data, judge=0.2, seed=["D2:2", "D1:1"], scores=[0.7, 0.6]),
        open_row(4, data, em=1.0, judge=1.0, seed=["D1:4"], scores=[0.8]),
    ]
    return write_run(tmp_path / "runs" / "small", data, rows)
