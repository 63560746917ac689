"""`compare` names the metric it compares, as `report` and the app name it (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from memscope.cli import app
from memscope.usecases.compare.metric import compared_metric

RUNS = Path(__file__).parents[2] / "runs"
runner = CliRunner()


def test_the_metric_follows_the_matched_questions() -> None:
    nan = np.nan
    assert compared_metric(np.array(["mcq", "mcq"]), np.array([nan, nan]))["label"] == "EM"
    assert compared_metric(np.array(["open", "open"]), np.array([0.5, 1.0]))["label"] == "Judge"
    assert compared_metric(np.array(["open"]), np.array([nan]))["label"] == "EM"  # unjudged
    mixed = compared_metric(np.array(["mcq", "open"]), np.array([nan, 1.0]))
    assert mixed["label"] == "EM (MCQ) / Judge (open)"


def test_compare_says_which_metric_and_never_a_bare_score() -> None:
    args = ["compare", str(RUNS / "srag_t"), str(RUNS / "srag_v"), "--resamples", "200"]
    data = json.loads(runner.invoke(app, [*args, "-f", "json"]).stdout)
    assert data["metric"]["label"] == "EM (MCQ) / Judge (open)"  # the demo runs mix both
    table = runner.invoke(app, args).stdout
    assert "compares EM (MCQ) / Judge (open) per question" in table
    assert "overall EM (MCQ) / Judge (open): A" in table
    assert "score" not in table.replace("\n", " ").lower()
