"""`memscope recompute` on the demo (issue 25, item 21): srag_t names all-MiniLM-L6-v2 and
logs that model's real similarities, so the recomputation agrees with its log and fills
the pool; then `rerun` re-ranks real numbers and no longer points to recompute. The
similarities the generator read (scripts/demo/srag_t_minilm.json) are the model's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from memscope.cli import app

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "scripts" / "demo"
runner = CliRunner()


def ok(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result


def test_recompute_srag_t_reproduces_its_log(minilm) -> None:
    ok("ingest", str(REPO / "runs" / "srag_t"))
    before = json.loads(
        ok("rerun", "srag_t", "--question", "q37", "--alpha", "0.7", "-f", "json").stdout
    )
    assert "`memscope recompute srag_t` can recompute the missing similarities" in before["note"]
    result = ok("recompute", "srag_t")
    assert "largest difference from a logged score: 0.000000" in result.stdout.replace("\n", " ")
    assert "top-k order reproduced for 100% of questions" in " ".join(result.stdout.split())
    after = json.loads(
        ok("rerun", "srag_t", "--question", "q37", "--alpha", "0.7", "-f", "json").stdout
    )
    assert after["scored"] == after["pool"] == 30  # 3 × top_k, every one scored
    assert after["recomputed"] == 25  # 5 logged scores kept, the 25 others recomputed
    assert "memscope recompute" not in (after["note"] or "")


def test_the_generators_similarities_are_minilms(minilm) -> None:
    sys.path.insert(0, str(DEMO))
    try:
        import retrieval
        import story
    finally:
        sys.path.remove(str(DEMO))
    stored = json.loads((DEMO / "srag_t_minilm.json").read_text(encoding="utf-8"))
    records = story.round_records()
    assert stored["rounds"] == [record["round_id"] for record in records]
    questions = sorted(stored["similarities"])
    rounds = minilm.encode([retrieval.round_text(record, True) for record in records])
    expected = minilm.encode(questions) @ rounds.T
    found = np.array([stored["similarities"][q] for q in questions])
    assert np.abs(found - expected).max() < 1e-5
