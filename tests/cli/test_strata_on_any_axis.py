"""``estimate --by`` and ``sample --strata`` take any axis of the run's benchmark (issue 26
item 5), not only MemEye's ``y | cell | x``; an unknown word lists the run's own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from memscope.cli import app

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
RUN = "dmv_f2_demo:TextOnly"


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_a_dmv_run_is_sampled_and_estimated_by_reach_and_bank(tmp_path: Path) -> None:
    shutil.copytree(REPO / "fixtures", tmp_path / "fixtures")
    shutil.copytree(REPO / "runs" / "dmv_f2_demo", tmp_path / "runs" / "dmv_f2_demo")
    assert invoke("ingest", str(tmp_path / "runs" / "dmv_f2_demo")).exit_code == 0
    report = json.loads(invoke("report", RUN, "--format", "json").stdout)
    failing = [q["qid"] for q in report["questions"] if q["correct"] is False]
    plan = invoke("sample", RUN, "--strata", "bank_size", "--sample-size", "6", "--format", "json")
    assert plan.exit_code == 0, plan.output
    drawn = json.loads(plan.stdout)
    assert drawn["strata"] == "bank_size" and set(drawn["per_stratum"]) <= {"6", "9", "12"}
    for qid in failing[:4]:
        assert invoke("label", RUN, "--question", qid, "--code", "USE-EVID").exit_code == 0
    estimate = invoke("estimate", RUN, "--by", "reach", "--format", "json")
    assert estimate.exit_code == 0, estimate.output
    result = json.loads(estimate.stdout)
    assert result["by"] == "reach" and set(result["strata"]) <= {"1", "2", "3"}
    reach_of = {q["qid"]: q for q in report["questions"]}
    assert sum(result["strata"][h]["n_failures"] for h in result["strata"]) == len(failing)
    assert len(reach_of) == report["run"]["n_questions"]
    default = json.loads(invoke("estimate", RUN, "--format", "json").stdout)
    assert default["by"] == "reach"  # the benchmark's first axis: DMV-Bench has no y
    wrong = invoke("estimate", RUN, "--by", "y")
    assert wrong.exit_code == 1
    assert (
        "cannot estimate by 'y'" in wrong.stderr
        and "cell | reach | bank | position" in wrong.stderr
    )
    assert "Traceback" not in wrong.output
