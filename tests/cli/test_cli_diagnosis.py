"""The diagnosis commands through Typer's runner: rerun, compare, suggest, label,
export-labels, agreement - their output, JSON shapes, and every bad input as one message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app
from support import UPSTREAM_RUNS, upstream_run

runner = CliRunner()
REPO = Path(__file__).parents[2]
SRAG_OPEN = upstream_run("semantic_rag_text_only", "open")
SRAG_MCQ = upstream_run("semantic_rag_text_only", "mcq")


def invoke(*args: str):
    return runner.invoke(app, list(args))


def ok(*args: str):
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result


def test_rerun_one_question_on_the_upstream_sample() -> None:
    result = ok("rerun", "--run", str(SRAG_OPEN), "--question", "q1", "--alpha", "0.7")
    assert "Before (original order)" in result.stdout and "After (alpha = 0.7)" in result.stdout
    for column in ("rank", "round", "session", "sim", "age", "recency", "score", "markers"):
        assert column in result.stdout
    assert "K5:1" in result.stdout and "latest" in result.stdout and "stale" in result.stdout
    assert "stored as rerun" in result.stderr
    data = json.loads(
        ok("rerun", "--run", str(SRAG_OPEN), "-q", "q1", "--alpha", "0.7", "-f", "json").stdout
    )
    assert data["question"] == "q1"
    assert data["params"] == {"alpha": 0.7, "lambda": 0.02, "k": 5, "pool": None}
    assert data["before"]["ranking"] == ["K5:1", "K2:1", "K3:1", "K1:2", "K1:1"]
    assert set(data["after"]["metrics"]) >= {
        "latest_at_k",
        "latest_miss",
        "rank_inversion",
        "stale_dominance",
    }
    assert (data["scored"], data["pool"]) == (5, 5)


def test_rerun_lambda_default_is_the_analysis_constant() -> None:
    """The CLI passes no number of its own; its help quotes the one in analysis.rerank."""
    from memscope.analysis.rerank import DEFAULT_LAMBDA

    result = ok("rerun", "--help")
    assert f"default: {DEFAULT_LAMBDA:g}" in " ".join(result.stdout.replace("│", " ").split())


def test_rerun_whole_run_defaults_to_the_last_run() -> None:
    ok("ingest", str(SRAG_MCQ))
    ok("ingest", str(SRAG_OPEN))
    data = json.loads(
        ok("rerun", "--alpha", "0.7", "--alpha", "0.3", "--resamples", "500", "-f", "json").stdout
    )
    assert data["run"] == SRAG_OPEN.name
    assert set(data) >= {"params", "n", "results"}
    assert [entry["alpha"] for entry in data["results"]] == [1.0, 0.7, 0.3]
    entry = data["results"][1]
    assert set(entry) >= {
        "alpha",
        "latest_at_k",
        "latest_miss",
        "rank_inversion",
        "stale_dominance",
        "delta",
        "latest_miss_causes",
    }
    assert set(entry["delta"]["latest_at_k"]) == {"mean", "ci_low", "ci_high"}
    table = ok("rerun", "--alpha", "0.7", "--resamples", "200")
    assert "Temporal authority per alpha (Y3)" in table.stdout and "1.00 (original)" in table.stdout


def test_partly_scored_pools_are_reported(tmp_path: Path) -> None:
    sessions = {"D1": ["D1:1", "D1:2", "D1:3"], "D2": ["D2:1", "D2:2", "D2:3"]}
    data = dialog(
        sessions, [qa("Where is it now?", "here", [["X1"], ["Y3"]], ["D1:1", "D2:3"], ["D1", "D2"])]
    )
    seed = ["D1:1", "D1:2", "D2:1", "D1:3", "D2:2", "D2:3", "D1:1x"][:6]
    run_dir = write_run(
        tmp_path / "runs" / "partial", data, [open_row(1, data, seed=seed)], top_k=6
    )
    result = ok("rerun", "--run", str(run_dir), "-q", "q1", "--alpha", "0.5")
    said = " ".join(result.stdout.split())
    # the run's text model (all-MiniLM-L6-v2, the default) is here: recompute can fill the rest
    assert "5 of 6 candidates have scores" in said
    assert "`memscope recompute partial` can recompute the missing similarities" in said
    data_json = json.loads(
        ok("rerun", "--run", str(run_dir), "-q", "q1", "--alpha", "0.5", "-f", "json").stdout
    )
    assert (data_json["scored"], data_json["pool"]) == (5, 6)
    assert data_json["after"]["ranking"][-1] == "D2:3"  # no logged score: it keeps rank 6
    run_json = json.loads(
        ok(
            "rerun", "--run", str(run_dir), "--alpha", "0.5", "-f", "json", "--resamples", "50"
        ).stdout
    )
    assert run_json["scored"]["questions_partly_scored"] == 1 and run_json["notes"]


def test_compare_and_suggest() -> None:
    text = upstream_run("full_context_text_only", "open")
    visual = upstream_run("full_context_multimodal", "open")
    data = json.loads(
        ok("compare", str(text), str(visual), "--resamples", "300", "-f", "json").stdout
    )
    assert data["matched"] == 6 and set(data["transitions"]) == {
        "fixed",
        "broken",
        "both_right",
        "both_wrong",
    }
    assert set(data["delta"]) == {"overall", "by_x", "by_y", "by_cell", "by_axes"}
    assert [(v["rows"], v["columns"]) for v in data["delta"]["by_axes"]] == [("x", "y")]
    table = ok("compare", str(text), str(visual), "--resamples", "300")
    assert (
        "= B − A per cell" in table.stdout
        and "compares " in table.stdout
        and "fixed (A wrong → B right)" in table.stdout
    )
    ok("ingest", str(UPSTREAM_RUNS))
    suggested = json.loads(ok("suggest", str(SRAG_OPEN), "-f", "json").stdout)
    assert suggested["run"] == SRAG_OPEN.name and suggested["suggestions"]
    first = suggested["suggestions"][0]
    assert set(first) >= {
        "qid",
        "code",
        "rule",
        "explanation",
        "numbers",
        "twin_run_id",
        "alternatives",
    }
    assert "→" in first["explanation"]
    assert "Suggestions for" in ok("suggest", str(SRAG_OPEN)).stdout


def test_label_export_agreement(tmp_path: Path) -> None:
    run = str(SRAG_OPEN)
    ok(
        "label",
        run,
        "-q",
        "q1",
        "--code",
        "RET-MISS",
        "--code",
        "SEL-STALE",
        "--note",
        "stale first",
        "--annotator",
        "alice",
    )
    ok("label", run, "-q", "q2", "--code", "USE-EVID", "--annotator", "alice")
    ok("label", run, "-q", "q1", "--code", "RET-MISS", "--annotator", "bob")
    accepted = json.loads(
        ok("label", run, "-q", "q2", "--accept", "--annotator", "bob", "-f", "json").stdout
    )
    assert accepted["source"] == "human" and accepted["params"]["accepted_from"]
    assert "undid event" in ok("label", run, "-q", "q2", "--undo", "--annotator", "bob").stderr
    assert "nothing to undo" in ok("label", run, "-q", "q2", "--undo", "--annotator", "bob").stderr
    ok("label", run, "-q", "q2", "--code", "USE-EVID", "--annotator", "bob")
    lines = ok("export-labels", "--run", SRAG_OPEN.name).stdout.splitlines()
    rows = [json.loads(line) for line in lines]
    assert {(row["qid"], row["annotator"], row["primary_code"]) for row in rows} == {
        ("q1", "alice", "RET-MISS"),
        ("q2", "alice", "USE-EVID"),
        ("q1", "bob", "RET-MISS"),
        ("q2", "bob", "USE-EVID"),
    }
    out = tmp_path / "labels.parquet"
    result = ok(
        "export-labels", "--run", SRAG_OPEN.name, "-f", "parquet", "--out", str(out), "--history"
    )
    assert out.is_file() and "exported 6 event(s)" in result.stderr
    csv_text = ok("export-labels", "--run", SRAG_OPEN.name, "-f", "csv", "--summary").stdout
    assert csv_text.splitlines()[0] == "run_id,annotator,x,y,cell,code,n,n_primary"
    kappa = json.loads(
        ok("agreement", SRAG_OPEN.name, "--annotators", "alice", "bob", "-f", "json").stdout
    )
    assert kappa["n"] == 2 and kappa["primary"]["kappa"] == pytest.approx(1.0)
    assert "Cohen's kappa" in ok("agreement", SRAG_OPEN.name, "--annotators", "alice", "bob").stdout


def test_cli_label_is_durable_across_processes(tmp_path: Path) -> None:
    ok("ingest", str(SRAG_OPEN))
    memscope = [sys.executable, "-m", "memscope"]
    done = subprocess.run(
        [
            *memscope,
            "label",
            SRAG_OPEN.name,
            "-q",
            "q3",
            "--code",
            "RET-PART",
            "--annotator",
            "kim",
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(
        subprocess.run(
            [
                *memscope,
                "label",
                SRAG_OPEN.name,
                "-q",
                "q3",
                "--undo",
                "--annotator",
                "kim",
                "-f",
                "json",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert rows["action"] == "undo"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["rerun", "--run", "no-such-run", "--alpha", "0.5"], "no run 'no-such-run' in the store"),
        (
            ["rerun", "--run", str(SRAG_OPEN), "-q", "q99", "--alpha", "0.5"],
            "no question 'q99' in run",
        ),
        (
            ["rerun", "--run", str(SRAG_OPEN), "--alpha", "1.5"],
            "--alpha must lie in [0, 1], got 1.5",
        ),
        (["rerun", "--run", str(SRAG_OPEN), "--alpha", "-0.2"], "--alpha must lie in [0, 1]"),
        (
            ["rerun", "--run", str(SRAG_OPEN), "--alpha", "0.5", "--lambda", "-1"],
            "--lambda must be a finite number ≥ 0",
        ),
        (
            ["rerun", "--run", str(SRAG_OPEN), "--alpha", "0.5", "--k", "4", "--pool", "3"],
            "--pool (3) must be at least --k (4)",
        ),
        (["rerun", "--run", str(SRAG_OPEN)], "give at least one recency weight"),
        (
            [
                "rerun",
                "--run",
                str(upstream_run("full_context_text_only", "open")),
                "--alpha",
                "0.5",
            ],
            "logged no ranked retrievals (full_context_text_only, retrieval: context): nothing to re-rank",
        ),
        (
            [
                "rerun",
                "--run",
                str(upstream_run("question_only", "open")),
                "--alpha",
                "0.5",
                "-q",
                "q1",
            ],
            "logged no ranked retrievals (question_only, retrieval: none)",
        ),
        (["compare", str(SRAG_OPEN), "nope"], "no run 'nope' in the store"),
        (["compare", str(SRAG_OPEN), str(SRAG_MCQ)], "share no question"),
        (
            ["label", str(SRAG_OPEN), "-q", "q1", "--code", "RET-MIS"],
            "unknown failure code 'RET-MIS'",
        ),
        (["label", str(SRAG_OPEN), "-q", "q17", "--code", "RET-MISS"], "no question 'q17' in run"),
        (
            ["label", str(SRAG_OPEN), "-q", "q1"],
            "give exactly one of --code CODE, --accept, --clear or --undo",
        ),
        (
            ["label", str(SRAG_OPEN), "-q", "q1", "--code", "RET-MISS", "--clear"],
            "give exactly one of",
        ),
        (
            ["label", "missing-run", "-q", "q1", "--code", "RET-MISS"],
            "no run 'missing-run' in the store",
        ),
        (["export-labels", "--run", str(SRAG_OPEN), "-f", "parquet"], "parquet is binary"),
        (
            ["agreement", str(SRAG_OPEN), "--annotators", "alice", "bob"],
            "annotator 'alice' has no labels",
        ),
        (["agreement", str(SRAG_OPEN)], "name the two annotators"),
        (["suggest", "unknown-run"], "no run 'unknown-run' in the store"),
    ],
)
def test_bad_inputs_exit_1_with_one_message(args: list[str], expected: str) -> None:
    ok("ingest", str(SRAG_OPEN))
    result = invoke(*args)
    assert result.exit_code == 1, (args, result.output)
    assert expected in result.stderr.replace("\n", " "), (args, result.stderr)
    assert "Traceback" not in result.output and "internal error" not in result.stderr
    assert result.stdout == ""


def test_labels_list_the_valid_codes() -> None:
    result = invoke("label", str(SRAG_OPEN), "-q", "q1", "--code", "NOPE")
    assert (
        result.exit_code == 1
        and "Valid codes: ENC-TEXT, ENC-PERC, RET-MISS" in result.stderr.replace("\n", " ")
    )


def test_help_lists_the_diagnosis_commands() -> None:
    listing = ok("--help").stdout
    for command in ("rerun", "compare", "suggest", "label", "export-labels", "agreement"):
        assert command in listing


@pytest.mark.skipif(
    not (REPO / "runs" / "srag_v").is_dir(),
    reason="the demo benchmark (runs/srag_v) is not built yet",
)
def test_demo_recency_example_flips() -> None:
    data = json.loads(
        ok(
            "rerun",
            "--run",
            str(REPO / "runs" / "srag_v"),
            "--question",
            "q37",
            "--alpha",
            "0.7",
            "-f",
            "json",
        ).stdout
    )
    before, after = data["before"]["candidates"], data["after"]["candidates"]
    latest_before = next(row["rank"] for row in before if row["is_latest"])
    latest_after = next(row["rank"] for row in after if row["is_latest"])
    stale_after = [row["rank"] for row in after if row["is_stale"]]
    stale_before = [row["rank"] for row in before if row["is_stale"]]
    assert any(rank < latest_before for rank in stale_before)
    assert all(latest_after < rank for rank in stale_after)
