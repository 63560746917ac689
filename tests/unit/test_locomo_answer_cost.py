"""The question screen's answer pane shows what an answer cost (issue 38 item 6): the
latency and tokens a harness's files record, read through a real store, and no cost line
at all for a run whose files record neither."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builders_locomo import small_dataset, write_json
from builders_locomo_harness import mem0_file, zep_files
from memscope.adapters.base import ReadOptions
from memscope.store import Store
from memscope.triage.evidence_chain import QuestionDetail, question_detail
from memscope.tui.widgets.answer_panel import answer_text
from memscope.usecases.runs.ingest import ingest_dir
from memscope.usecases.runs.loading import load_run


def _detail(tmp_path: Path, files: dict[str, Any], qid: str) -> QuestionDetail:
    """``qid``'s detail after ingesting ``files`` laid out as LoCoMo's harness does."""
    write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    folder = tmp_path / "outputs" / "system"
    for file_name, data in files.items():
        write_json(folder / file_name, data)
    store = Store(tmp_path / "s.duckdb")
    data = load_run(store, ingest_dir(store, folder, ReadOptions()).run_id)
    rows_of = {str(q): row for row, q in enumerate(data.qids.tolist())}
    return question_detail(data, rows_of[qid])


def test_the_answer_pane_shows_the_answers_latency(tmp_path: Path) -> None:
    grades, responses = zep_files(small_dataset())
    detail = _detail(
        tmp_path,
        {"zep_locomo_grades.json": grades, "zep_locomo_responses.json": responses},
        "conv-a:q7",
    )
    lines = answer_text(detail).plain.splitlines()
    assert "cost   1,060 ms" in lines  # Zep records latency only: no tokens claimed


def test_the_answer_pane_shows_tokens_beside_latency() -> None:
    from dataclasses import replace

    detail = QuestionDetail(
        qid="q", row=0, idx=0, question_key="q", task="", x="", y="", mode="open",
        question="Where?", gold="Paris", pred="Paris", choice="", em=1.0, judge=None,
        f1=None, judge_reasoning="", correct=1.0, options=(), rotations=(),
        position_bias=(), clue_ids=(), clue_rounds=(), source_sessions=(),
    )  # fmt: skip
    assert "cost" not in answer_text(detail).plain
    shown = answer_text(replace(detail, latency_ms=1234.0, tokens=5678.0)).plain
    assert "cost   1,234 ms · 5,678 tokens" in shown.splitlines()
    assert "cost   5,678 tokens" in answer_text(replace(detail, tokens=5678.0)).plain


def test_a_run_without_cost_shows_no_cost_line(tmp_path: Path) -> None:
    detail = _detail(tmp_path, {"memobase_results.json": mem0_file(small_dataset())}, "conv-a:q7")
    assert detail.latency_ms is None and detail.tokens is None
    assert "cost" not in answer_text(detail).plain
