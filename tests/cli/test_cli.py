"""The command line through Typer's runner: output, JSON shape, exit codes, no tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app
from support import UPSTREAM_RUNS, upstream_run

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_ingest_runs_and_report_table() -> None:
    result = invoke("ingest", str(UPSTREAM_RUNS.parent))
    assert result.exit_code == 0, result.output
    assert result.stderr.count("ingested ") == 10
    listing = invoke("runs")
    assert listing.exit_code == 0
    assert "semantic_rag_text_only" in listing.stdout
    report = invoke("report", str(upstream_run("semantic_rag_text_only", "mcq")))
    assert report.exit_code == 0, report.output
    assert "Answer EM per cell" in report.stdout
    assert "Retrieval access @K=5" in report.stdout
    assert "Temporal authority (Y3) @K=5" in report.stdout


def test_report_json_shape() -> None:
    result = invoke(
        "report",
        str(upstream_run("semantic_rag_text_only", "open")),
        "--format",
        "json",
        "--k",
        "3",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) >= {"run", "k", "answer", "retrieval", "temporal", "questions"}
    assert set(data["run"]) >= {"id", "task", "model", "method", "modality", "n_questions"}
    assert data["k"] == 3
    assert set(data["answer"]) >= {"overall", "by_cell"}
    assert set(data["retrieval"]) >= {"n", "n_undiagnosable", "overall", "by_y"}
    assert set(data["temporal"]) == {
        "n",
        "latest_at_k",
        "latest_miss",
        "rank_inversion",
        "stale_dominance",
    }
    question = data["questions"][0]
    assert set(question) >= {
        "qid",
        "x",
        "y",
        "em",
        "judge",
        "correct",
        "retrieved",
        "any_clue",
        "coverage",
        "full_clue",
        "latest_at_k",
        "rank_inversion",
        "stale_dominance",
    }


def test_report_without_retrieval_prints_no_zeros() -> None:
    result = invoke("report", str(upstream_run("question_only", "mcq")))
    assert result.exit_code == 0
    assert "Retrieval access" not in result.stdout
    assert "logged no retrieved evidence" in result.stdout


def test_bad_inputs_exit_1_with_one_message(tmp_path: Path) -> None:
    cases = [
        (["ingest", str(tmp_path)], "not a run directory"),
        (["ingest", str(tmp_path / "nope")], "no such file or directory"),
        (["report", "no-such-run"], "no run 'no-such-run' in the store"),
    ]
    for args, expected in cases:
        result = invoke(*args)
        assert result.exit_code == 1, (args, result.output)
        assert expected in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.output


def test_an_integer_option_out_of_its_range_is_a_usage_error_naming_it() -> None:
    result = invoke("report", str(upstream_run("question_only", "mcq")), "--k", "0")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "Invalid value for '--k': 0 is not in the range 1<=x<=10000" in result.output


def test_missing_dataset_names_paths_and_flag(tmp_path: Path) -> None:
    data = dialog({"D1": ["D1:1"]}, [qa("q?", "a", [["X1"], ["Y1"]], ["D1:1"])])
    run_dir = write_run(tmp_path / "runs" / "r", data, [open_row(1, data)])
    (tmp_path / "runs" / "data" / "dialog" / "Task.json").unlink()
    result = invoke("ingest", str(run_dir))
    assert result.exit_code == 1
    assert "cannot find the dataset" in result.stderr and "--dataset" in result.stderr
    assert str(tmp_path / "runs" / "data" / "dialog" / "Task.json") in result.stderr


def test_partial_file_warns_and_strict_refuses(tmp_path: Path) -> None:
    data = dialog(
        {"D1": ["D1:1"]},
        [qa("q?", "a", [["X1"], ["Y1"]], ["D1:1"]), qa("r?", "b", [["X1"], ["Y1"]], ["D1:1"])],
    )
    run_dir = write_run(
        tmp_path / "runs" / "r", data, [json.dumps(open_row(1, data)), '{"idx": 2, "em": 0.']
    )
    strict = invoke("ingest", "--strict", str(run_dir))
    assert (
        strict.exit_code == 1
        and "predictions.jsonl:2" in strict.stderr
        and "nothing was ingested" in strict.stderr
    )
    lenient = invoke("ingest", str(run_dir))
    assert lenient.exit_code == 0
    assert "warning:" in lenient.stderr and "predictions.jsonl:2" in lenient.stderr


def test_help_lists_commands() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("ingest", "runs", "report"):
        assert command in result.stdout


def test_version_is_the_packages_version() -> None:
    import memscope

    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"memscope {memscope.__version__}"
