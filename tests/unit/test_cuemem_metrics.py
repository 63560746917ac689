"""CUE-Mem metrics on hand-computed examples: accuracy per task x explicit/implicit, Memory
Avg., EI-Gap, evidence Recall@k / Precision@k; the report section and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from builders_cuemem import history, image_turn, qa, rq3_layout, rq3_row, text_turn, voice_turn
from memscope.adapters import ReadOptions
from memscope.adapters.cuemem.report import accuracy_by_task, ei_gap, memory_average
from memscope.analysis.arrays import PAD
from memscope.analysis.evidence_at_k import evidence_at_k
from memscope.cli import app
from memscope.store import Store
from memscope.usecases.report.build import build_report
from memscope.usecases.runs.ingest import ingest_dir
from memscope.usecases.runs.loading import load_run

REPO = Path(__file__).resolve().parents[2]


def test_accuracy_per_task_and_setting() -> None:
    correct = np.array([1, 0, 1, 1, 0, 1, np.nan, 1.0])
    tasks = np.array(
        [
            "entity_recall",
            "entity_recall",
            "long_pattern",
            "long_pattern",
            "long_pattern",
            "answer_refusal",
            "long_pattern",
            "other",
        ],
        dtype=object,
    )
    settings = np.array(
        [
            "explicit",
            "explicit",
            "explicit",
            "implicit",
            "implicit",
            "implicit",
            "implicit",
            "explicit",
        ],
        dtype=object,
    )
    table = accuracy_by_task(correct, tasks, settings)
    assert table["entity_recall"] == {
        "explicit": 0.5,
        "implicit": None,
        "n_explicit": 2,
        "n_implicit": 0,
    }
    assert table["long_pattern"] == {
        "explicit": 1.0,
        "implicit": 0.5,
        "n_explicit": 1,
        "n_implicit": 2,
    }
    assert table["personalized_recommendation"]["n_explicit"] == 0
    assert table["answer_refusal"] == {
        "explicit": None,
        "implicit": 1.0,
        "n_explicit": 0,
        "n_implicit": 1,
    }
    average = memory_average(table)
    # Explicit: mean(0.5, 1.0); implicit: only Long Pattern is defined. Answer Refusal is apart.
    assert average == {"explicit": 0.75, "implicit": 0.5}
    assert ei_gap(average) == 0.25
    assert ei_gap({"explicit": 0.5, "implicit": None}) is None


def test_evidence_recall_and_precision_at_k() -> None:
    ranked = np.array([[3, 1, 5, 0, PAD], [2, 4, PAD, PAD, PAD], [1, PAD, PAD, PAD, PAD]])
    gold = np.array([[1, 2], [2, PAD], [PAD, PAD]])
    recall, precision = evidence_at_k(ranked, gold, (1, 3, 5))
    assert recall[0].tolist() == [0.0, 0.5, 0.5]
    assert precision[0].tolist() == pytest.approx([0.0, 1 / 3, 1 / 5])
    assert recall[1].tolist() == [1.0, 1.0, 1.0]
    assert precision[1].tolist() == pytest.approx([1.0, 1 / 3, 1 / 5])
    assert np.isnan(recall[2]).all() and np.isnan(precision[2]).all()  # no gold turn: undiagnosable


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    sessions = {
        "D00": [text_turn("D00:00"), image_turn("D00:01", "D00-001", "event/images/a.png")],
        "D01": [
            voice_turn("D01:00", "D01-001", "event/v.wav"),
            text_turn("D01:01"),
            text_turn("D01:02"),
        ],
    }
    qas = [
        qa("0-A-0", "pref_text", "explicit", "A", ["D00:00"]),
        qa("0-A-1", "pref_img", "implicit", "B", ["D00-001.png"]),
        qa("0-B-2", "rec_text", "implicit", "C", ["D01-001.wav", "D01:01"]),
        qa("0-C-3", "entity_text", "Relationship", "D", ["D01:02"]),
        qa("0-C-4", "entity_img", "Items", "A", ["D00-001.png"], entity_explicitness="implicit"),
        qa("0-D-5", "refusal_text", "unanswerable", "D", ["D00:00"], expression_type="explicit"),
        qa("0-D-6", "adversarial_text", "false_premise", "B", [], expression_type="implicit"),
    ]
    data = history(sessions, qas)
    entries = data["human-annotated QAs"]
    rows = [
        rq3_row(entries[0], "A", ["D00:00", "D01:01"]),  # right; gold at rank 1
        rq3_row(entries[1], "C", ["D01:02", "D00:01"]),  # wrong; gold at rank 2
        rq3_row(
            entries[2], "C", ["D01:01", "D00:00", "D01:00"]
        ),  # right; both gold turns by rank 3
        rq3_row(entries[3], "D", ["D00:00"]),  # right; gold missed
        rq3_row(entries[4], "B", ["D00:01"]),  # wrong; gold at rank 1
        rq3_row(entries[5], "D", ["D00:00"]),  # right; refusal_text: no evidence metrics
        rq3_row(entries[6], "A", []),  # wrong
    ]
    return rq3_layout(tmp_path, data, rows)


def test_report_cue_section_by_hand(store: Store, run_dir: Path) -> None:
    outcome = ingest_dir(store, run_dir, ReadOptions())
    report = build_report(load_run(store, outcome.run_id))
    cue = report["cue"]
    assert set(cue) >= {"by_task", "memory_avg", "ei_gap", "evidence"}
    assert set(cue["by_task"]) == {
        "entity_recall",
        "long_pattern",
        "personalized_recommendation",
        "answer_refusal",
    }
    assert cue["by_task"]["long_pattern"] == {
        "explicit": 1.0,
        "implicit": 0.0,
        "n_explicit": 1,
        "n_implicit": 1,
    }
    assert cue["by_task"]["personalized_recommendation"] == {
        "explicit": None,
        "implicit": 1.0,
        "n_explicit": 0,
        "n_implicit": 1,
    }
    assert cue["by_task"]["entity_recall"] == {
        "explicit": 1.0,
        "implicit": 0.0,
        "n_explicit": 1,
        "n_implicit": 1,
    }
    assert cue["by_task"]["answer_refusal"] == {
        "explicit": 1.0,
        "implicit": 0.0,
        "n_explicit": 1,
        "n_implicit": 1,
    }
    # Memory Avg.: explicit mean(1.0, 1.0) (Personalized Rec. has no explicit QA); implicit mean(0, 1, 0).
    assert cue["memory_avg"] == {"explicit": 1.0, "implicit": pytest.approx(1 / 3)}
    assert cue["ei_gap"] == pytest.approx(2 / 3)
    evidence = cue["evidence"]
    assert set(evidence["recall"]) == set(evidence["precision"]) == {"1", "3", "5", "10", "25"}
    # Five QAs with gold turns count (refusal_text excluded; the adversarial QA has no clue).
    # Recall@1: 1, 0, 1/2, 0, 1 -> 2.5/5; Recall@3: 1, 1, 1, 0, 1 -> 4/5.
    assert evidence["n"] == 5
    assert evidence["recall"]["1"] == pytest.approx(0.5) and evidence["recall"][
        "3"
    ] == pytest.approx(0.8)
    # Precision@1: 1, 0, 1, 0, 1 -> 3/5; Precision@3: 1/3, 1/3, 2/3, 0, 1/3 -> (5/3)/5.
    assert evidence["precision"]["1"] == pytest.approx(0.6) and evidence["precision"][
        "3"
    ] == pytest.approx(1 / 3)
    assert evidence["precision"]["25"] == pytest.approx((1 + 1 + 2 + 0 + 1) / 25 / 5)
    explicit = evidence["by_explicitness"]["explicit"]
    assert explicit["n"] == 2 and explicit["recall"]["1"] == pytest.approx(0.5)  # q1 hit, q4 missed
    assert evidence["saved_depth"] == 3
    assert report["answer"]["overall"]["em"] == pytest.approx(4 / 7)


def test_cli_reports_the_demo_runs() -> None:
    runner = CliRunner()
    for run, run_id in (
        (REPO / "runs" / "cue_text", "cue_text:history_with_qa_p0"),
        (REPO / "runs" / "cue_mm", "cue_mm:p0"),
    ):
        ingested = runner.invoke(app, ["ingest", str(run)])
        assert ingested.exit_code == 0, ingested.output
        assert (
            "1 clue id(s) resolve to no turn" in " ".join(ingested.output.split())
            or run.name == "cue_mm"
        )
        table = runner.invoke(app, ["report", str(run)])
        assert table.exit_code == 0, table.output
        assert "Memory Avg." in table.output and "Answer Refusal (apart)" in table.output
        as_json = json.loads(runner.invoke(app, ["report", run_id, "-f", "json"]).stdout)
        assert {"run", "k", "answer", "retrieval", "cue"} <= set(as_json)
        assert set(as_json["cue"]["memory_avg"]) == {"explicit", "implicit"}
        assert set(as_json["cue"]["by_task"]["long_pattern"]) == {
            "explicit",
            "implicit",
            "n_explicit",
            "n_implicit",
        }
    text = json.loads(
        runner.invoke(app, ["report", "cue_text:history_with_qa_p0", "-f", "json"]).stdout
    )["cue"]
    native = json.loads(runner.invoke(app, ["report", "cue_mm:p0", "-f", "json"]).stdout)["cue"]
    assert text["ei_gap"] > native["ei_gap"] > 0  # the caption-based memory loses the implicit cues
    assert text["unresolved_clues"] == {"n": 1, "examples": ["q16: D06-001.wav"]}
