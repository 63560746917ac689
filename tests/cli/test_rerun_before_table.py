"""`rerun --question`: "Before" shows the original (alpha 1) scores, and the markers column
says exactly what the JSON rows say (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memscope.cli import app

SRAG_V = Path(__file__).parents[2] / "runs" / "srag_v"
runner = CliRunner()


def test_before_scores_are_the_original_and_markers_match_the_json() -> None:
    args = ["rerun", str(SRAG_V), "-q", "q37", "-a", "0.7"]
    data = json.loads(runner.invoke(app, [*args, "-f", "json"]).stdout)
    for row in data["before"]["candidates"]:
        assert row["score"] == row["sim"]  # alpha 1: the score is the similarity
    after_scores = {row["round_id"]: row["score"] for row in data["after"]["candidates"]}
    assert after_scores["D5:1"] != data["before"]["candidates"][1]["score"]

    table = runner.invoke(app, args).stdout
    before = table.split("After (alpha")[0]
    lines = {line.split("│")[2].strip(): line for line in before.splitlines() if "│" in line}
    for row in data["before"]["candidates"]:
        line = lines[row["round_id"]]
        if row["score"] is not None:
            assert f"{row['score']:.3f} │" in line
        markers = line.split("│")[-2].split()
        expected = [
            w
            for w, on in (
                ("gold", row["is_gold"]),
                ("latest", row["is_latest"]),
                ("stale", row["is_stale"]),
            )
            if on
        ]
        assert markers == expected, row["round_id"]
    assert "gold latest" in lines["D5:1"]  # the latest clue is gold too, as in the JSON
