"""`memscope report` and `memscope compare` on the demo, against numbers derived by hand
from the fixture's design (fixtures/memeye/design.json: what the generator placed where),
not from memscope's own code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.cli import app

REPO = Path(__file__).resolve().parents[2]
DESIGN = json.loads((REPO / "fixtures" / "memeye" / "design.json").read_text())
QUESTIONS = DESIGN["questions"]
runner = CliRunner()
pytestmark = pytest.mark.skipif(
    not (REPO / "runs" / "srag_v").is_dir(), reason="demo runs not in this checkout"
)


def invoke_json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_report_of_srag_v_matches_the_design() -> None:
    report = invoke_json("report", str(REPO / "runs" / "srag_v"))
    k = DESIGN["top_k"]
    assert report["k"] == k == 10
    assert report["run"]["n_questions"] == len(QUESTIONS) == 47
    # Any-Clue@10: a question counts when one of its clues was placed within the top 10.
    placed = [q["runs"]["srag_v"].get("clue_ranks", {}) for q in QUESTIONS]
    any_clue = sum(
        any(rank is not None and rank <= k for rank in ranks.values()) for ranks in placed
    )
    assert report["retrieval"]["overall"]["any_clue"] == pytest.approx(any_clue / len(QUESTIONS))
    assert any_clue == 46  # one designed retrieval miss: q24
    # Latest@10 over the Y3 questions: the latest clue within the top 10.
    y3 = [q for q in QUESTIONS if q["y"] == "Y3"]
    latest_in = sum(
        (q["runs"]["srag_v"].get("clue_ranks", {}).get(q["latest_clue"]) or k + 1) <= k for q in y3
    )
    assert report["temporal"]["n"] == len(y3) == 15
    assert report["temporal"]["latest_at_k"] == pytest.approx(latest_in / len(y3))
    assert report["temporal"]["latest_miss"] == pytest.approx(2 / 15)  # q12 and q39, by design
    # Failed questions: exactly the ones the design scores as failed.
    failed = {q["qid"] for q in QUESTIONS if not q["runs"]["srag_v"]["scored_correct"]}
    assert {row["qid"] for row in report["questions"] if row["correct"] is False} == failed
    assert len(failed) == 17


def test_caption_vs_native_compare_matches_the_design() -> None:
    result = invoke_json("compare", str(REPO / "runs" / "srag_t"), str(REPO / "runs" / "srag_v"))
    assert result["matched"] == 47
    right_t = {q["qid"] for q in QUESTIONS if q["runs"]["srag_t"]["scored_correct"]}
    right_v = {q["qid"] for q in QUESTIONS if q["runs"]["srag_v"]["scored_correct"]}
    every = {q["qid"] for q in QUESTIONS}
    expected = {
        "fixed": right_v - right_t,
        "broken": right_t - right_v,
        "both_right": right_t & right_v,
        "both_wrong": every - right_t - right_v,
    }
    for name, qids in expected.items():
        assert set(result["transitions"][name]["qids"]) == qids, name
    # Every designed textualization miss (srag_t wrong, srag_v right, evidence holding) is "fixed".
    text_misses = {
        q["qid"]
        for q in QUESTIONS
        if "ENC-TEXT" in q["runs"]["srag_t"]["codes"]
        and q["runs"]["srag_t"]["evidence_holds"].get("ENC-TEXT")
    }
    assert text_misses and text_misses <= expected["fixed"]
    assert result["delta"]["overall"]["delta"] > 0  # native images help on this benchmark
